"""The output folder: ours to write, one scan at a time.

A folder becomes an output of doi-extract when a scan first writes to it: it gets a marker file
(MARKER). A scan writes only into an empty folder, a marked one, or one an earlier version left
(it has `_run.json` or `_shards/`); anything else may be a user's data, and is refused, with
--force too: --force removes our own datasets, never what we did not write. While a scan runs
it holds a lock on the folder (flock, where the system has it), so a second scan into the same
folder stops at once instead of interleaving with the first.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

from ... import __version__
from ..errors import Fatal

MARKER = ".doi-extract"
LOCK = ".doi-extract.lock"
# What a scan writes at the top of OUT: its work, cleared by --force when the run starts, and its
# result, which --force replaces only once the new run has read an input (clear_result); no
# other name is ever removed.
WORK = ("_work", "_shards", "_spool")
RESULT = ("mentions", "dois", "occurrences", "_run.json")
OURS = WORK + RESULT


class OutputInUse(Fatal):
    """OUT is not ours to write, or another scan is writing to it."""


def marker_text() -> str:
    """What the marker file holds: which tool wrote the folder, and its version."""
    return json.dumps({"tool": "doi-extract", "version": __version__})


def _is_ours(names: set[str]) -> bool:
    if MARKER in names:
        return True
    # an output of a version before the marker
    return "_run.json" in names or "_shards" in names


def _lock(out: str) -> IO[str] | None:
    """An exclusive lock on OUT for as long as the returned file is open (None where the
    system has no flock: the run is then not guarded against a second one)."""
    try:
        import fcntl
    except ImportError:  # Windows
        return None
    f = open(os.path.join(out, LOCK), "a", encoding="utf-8")  # noqa: SIM115 - held for the run
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise OutputInUse(f"another scan is writing to {out} (it holds {LOCK}); wait for it to end") from None
    return f


def _remove(path: str, ignore_errors: bool = False) -> None:
    """Remove a file or a folder tree, if it is there (`ignore_errors`: within a folder tree)."""
    if os.path.isdir(path):
        shutil.rmtree(path, ignore_errors=ignore_errors)
    elif os.path.lexists(path):
        os.remove(path)


@contextmanager
def output_folder(out: str, force: bool = False) -> Iterator[str]:
    """Claim OUT for one scan: checked to be ours (or empty), locked, marked, and cleared of
    an earlier run's work (`force`: its result stays until the new one replaces it) and of what
    an interrupted run left under temporary names. Raises OutputInUse, or OSError when OUT
    cannot be used at all."""
    os.makedirs(out, exist_ok=True)
    names = set(os.listdir(out))
    if names and not _is_ours(names):
        raise OutputInUse(
            f"{out} is not empty and was not written by doi-extract: choose another output folder "
            "(nothing in it was touched)"
        )
    lock = _lock(out)
    try:
        with open(os.path.join(out, MARKER), "w", encoding="utf-8") as f:
            f.write(marker_text())
        if force:
            for name in WORK:
                _remove(os.path.join(out, name))
        for pattern in (
            ".*.tmp-*",
            ".*.old-*",
            ".stop-*",  # a pool's stop file, left by a run killed while it was stopping
            os.path.join("_work", "*", "*.tmp-*"),
            os.path.join("_shards", "*.tmp-*"),
        ):
            for path in glob.glob(os.path.join(out, pattern)):  # what an interrupted run left
                _remove(path, ignore_errors=True)
        yield out
    finally:
        if lock is not None:
            lock.close()


def clear_result(out: str) -> None:
    """Remove a finished scan's result from OUT (--force, once the new run has read an input):
    `_run.json` first, so that what is left is never taken for a finished result."""
    for name in reversed(RESULT):
        _remove(os.path.join(out, name))
