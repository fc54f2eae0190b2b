"""How the scan starts its worker processes (kept free of heavy imports: the scan command
starts the workers' server before it loads anything else)."""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
from typing import Any

# Workers are forked from a fork server: a fresh process that has only imported these modules,
# so a worker starts at once, with what it needs loaded and no thread of the scan process's
# (pyarrow's), which plain fork would copy. The server dies with the scan process (its first
# preload), and its workers with it (die_with_parent in local._init_worker): CPython's server
# would otherwise live as long as any of its workers, and they as long as it. Where there is no
# fork server (Windows), workers are spawned.
_PRELOAD = [
    "extractor.engines._forkserver_init",
    "extractor.engines._arrow_warm",
    "extractor.engines.local",
]


def mp_context() -> Any:
    """The multiprocessing context of the scan's workers."""
    if "forkserver" not in mp.get_all_start_methods():
        return mp.get_context("spawn")
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(_PRELOAD)
    return ctx


def start_worker_server() -> None:
    """Start the workers' fork server now, so that it loads its modules while this process
    loads its own."""
    if "forkserver" in mp.get_all_start_methods():
        from multiprocessing import forkserver

        mp_context()
        forkserver.ensure_running()


def die_with_parent() -> None:
    """Linux: end this process when its parent dies (even by SIGKILL), so that no orphan goes
    on working and writing into the output folder."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent died before prctl took effect
        os._exit(1)


def unlink_semaphores(*holders: Any) -> int:
    """Remove the names of the named semaphores that these multiprocessing objects (queues, a
    process pool's queues) hold, once every process that uses them has opened them: the
    semaphores live on while open, and a run killed with SIGKILL (its whole process group, the
    resource tracker too) leaves nothing behind in /dev/shm, nor the tracker's warning of leaked
    semaphores when only the parent is killed. What multiprocessing does at once in a fork
    context, which passes semaphores to children by fork rather than by name. How many."""
    import importlib
    from multiprocessing import resource_tracker, synchronize, util

    # multiprocessing's internals, read by name: no public API removes a name early
    sem_unlink = getattr(importlib.import_module("_multiprocessing"), "sem_unlink", None)
    if sem_unlink is None:  # Windows: no named semaphores
        return 0
    names: set[str] = set()
    for holder in holders:
        for value in vars(holder).values():
            if isinstance(value, synchronize.SemLock):
                name = getattr(getattr(value, "_semlock", None), "name", None)
                if name is not None:
                    names.add(name)
    for name in names:
        try:
            sem_unlink(name)
        except OSError:
            continue
        resource_tracker.unregister(name, "semaphore")
    # the objects' own clean-up at exit would unlink the names again
    cleanup = getattr(synchronize.SemLock, "_cleanup", None)
    registry: dict[Any, Any] = getattr(util, "_finalizer_registry", {})
    for finalizer in list(registry.values()):
        args = getattr(finalizer, "_args", ())
        if getattr(finalizer, "_callback", None) is cleanup and args and args[0] in names:
            finalizer.cancel()
    return len(names)
