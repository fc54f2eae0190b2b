"""Jobs run by a few forked processes, their results given in the jobs' order as each is ready:
how `find` reads several inputs (or the byte ranges of one large file) at once and still prints
them as grep does, in order. The jobs are plain values and `fn` a module-level function."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

R = TypeVar("R")


def ordered_map(
    fn: Callable[..., R], jobs: Sequence[tuple[Any, ...]], workers: int
) -> Generator[R, None, None]:
    """fn(*job) for each job in `workers` processes, yielded in the jobs' order. A caller that
    stops reading (grep -q's first hit) stops the pool at once; one that reads to the end waits
    for the idle workers to end (a pool left to end at exit may find its wake-up pipe closed,
    and say so)."""
    # fork: the caller holds no thread here, and a worker then starts at once
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
    pool = ProcessPoolExecutor(workers, mp_context=ctx)
    done = False
    try:
        futures = [pool.submit(fn, *job) for job in jobs]
        for fut in futures:
            yield fut.result()
        done = True
    finally:
        pool.shutdown(wait=done, cancel_futures=True)
