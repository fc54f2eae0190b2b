"""The level of log records a command was asked for, read by the CLI's log set-up and by `find`,
which loads no logging when it logs nothing."""

from __future__ import annotations

import argparse

# The levels a command takes (--log-level), least severe first.
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


def log_level(args: argparse.Namespace) -> str:
    """The level of log records asked: --log-level, or -v INFO, -vv DEBUG; WARNING by default."""
    level = getattr(args, "log_level", None)
    if level is None:
        verbose = getattr(args, "verbose", 0)
        level = "DEBUG" if verbose >= 2 else "INFO" if verbose == 1 else "WARNING"
    return str(level)


def logs(args: argparse.Namespace, level: str) -> bool:
    """Whether records of `level` are logged at the level asked."""
    return LEVELS.index(level) >= LEVELS.index(log_level(args))
