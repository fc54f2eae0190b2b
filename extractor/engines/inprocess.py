"""The in-process engine: shards and merges run one after the other in this process (tests,
library use, `--workers 1`): no process start-up, and real tracebacks."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from ..pipeline.cpus import cpu_budget
from ..pipeline.shard import shard_fault, work
from ..pipeline.units import Progress, ScanConfig, ShardResult, ShardSpec

R = TypeVar("R")


class InProcessEngine:
    """One shard after another in this process: no process start-up (--workers 1, tests,
    library use)."""

    name = "in-process"
    workers = 1

    def __init__(self, retry_sleep: float = 0.5) -> None:
        self.retry_sleep = retry_sleep

    def run_shards(
        self, specs: Sequence[ShardSpec], config: ScanConfig, progress: Progress
    ) -> Iterator[ShardResult]:
        for spec in specs:
            try:
                result = work(spec, config, progress, self.retry_sleep)
            except Exception as exc:  # fatal: a fault of the program or system (as the pool says it)
                raise shard_fault(spec, exc) from exc
            yield result

    def map(self, fn: Callable[..., R], jobs: Sequence[tuple[Any, ...]]) -> list[R]:
        """fn(*job) for every job (the merges), in threads up to the CPUs this process may keep
        busy (cpu_budget): a merge is pyarrow's kernels and Parquet writing, which let go of the
        GIL, and a run of one worker merges when its shards are done, the other CPUs idle."""
        threads = min(cpu_budget(), len(jobs))
        if threads < 2:
            return [fn(*job) for job in jobs]
        with ThreadPoolExecutor(threads, thread_name_prefix="doi-extract-merge") as pool:
            return list(pool.map(lambda job: fn(*job), jobs))

    def close(self) -> None:
        """Nothing to stop."""

    def __enter__(self) -> InProcessEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
