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
from contextlib import contextmanager, suppress
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
    if MARKER in names or names <= {LOCK, "_spool"}:  # marked, or claimed by a run not yet begun
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


# The exit status of a worker process that found itself running the user's script: the engine
# that started it names the missing `if __name__ == "__main__":` guard (engines/local.py).
UNGUARDED_EXIT = 87
UNGUARDED = (
    'a scan was started by a worker process of a scan: the script that starts it needs `if __name__ == "__main__":` '
    "around its scan, since each worker process imports the script (Python's multiprocessing, "
    "docs/api.md)"
)


def refuse_in_a_worker() -> None:
    """A worker process (forkserver or spawn) imports the main script again, as `__mp_main__`:
    one without the `__main__` guard starts a scan there, in every worker. That process ends at
    once with UNGUARDED_EXIT, the reason on stderr, before it touches OUT."""
    import sys

    # `_inheriting`: set while a new process is prepared from its parent, which is when it runs
    # the main script again (as __mp_main__); a process that never loaded multiprocessing is none
    mp = sys.modules.get("multiprocessing")
    if mp is not None and getattr(mp.current_process(), "_inheriting", False):
        print(f"doi-extract: {UNGUARDED}", file=sys.stderr, flush=True)
        os._exit(UNGUARDED_EXIT)


# OUT folders claimed by output_folder in this process, with their `force`, and those a run has
# begun writing into (begin_output): a claim whose run never began leaves OUT as it was.
_CLAIMED: dict[str, bool] = {}
_BEGUN: set[str] = set()


@contextmanager
def output_folder(out: str, force: bool = False) -> Iterator[str]:
    """Claim OUT for one scan: checked to be ours (or empty), and locked. The run marks it and
    clears an earlier run's work (`force`: its result stays until the new one replaces it) and
    what an interrupted run left under temporary names once its start-up checks pass
    (begin_output); a run that never begins leaves OUT exactly as it was. Raises OutputInUse, or
    OSError when OUT cannot be used at all."""
    refuse_in_a_worker()
    existed = os.path.isdir(out)
    os.makedirs(out, exist_ok=True)
    names = set(os.listdir(out))
    if names and not _is_ours(names):
        raise OutputInUse(
            f"{out} is not empty and was not written by doi-extract: choose another output folder "
            "(nothing in it was touched)"
        )
    key = os.path.realpath(out)
    lock = _lock(out)
    _CLAIMED[key] = force
    try:
        yield out
    finally:
        _CLAIMED.pop(key, None)
        if key not in _BEGUN:  # no run began: what the claim (and a stdin spool) added goes
            for name in (LOCK, "_spool"):
                if name not in names:
                    _remove(os.path.join(out, name), ignore_errors=True)
            if not existed:
                with suppress(OSError):
                    os.rmdir(out)
        _BEGUN.discard(key)
        if lock is not None:
            lock.close()


def begin_output(out: str, force: bool = False) -> None:
    """A run begins writing into OUT, its start-up checks passed: mark it as ours, clear an earlier
    run's work with `force` (or the claim's), and what an interrupted run left under temporary
    names."""
    key = os.path.realpath(out)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, MARKER), "w", encoding="utf-8") as f:
        f.write(marker_text())
    if force or _CLAIMED.get(key, False):
        for name in WORK:
            if name != "_spool":  # this run's own spool (stdin), written before it began
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
    _BEGUN.add(key)


def clear_result(out: str) -> None:
    """Remove a finished scan's result from OUT (--force, once the new run has read an input):
    `_run.json` first, so that what is left is never taken for a finished result."""
    for name in reversed(RESULT):
        _remove(os.path.join(out, name))
