"""The Dask engine: shards and bucket merges as tasks of a Dask distributed cluster — one the user
runs (`--dask tcp://SCHEDULER:8786`) or a LocalCluster started for the run (`--dask local`).

Dask schedules, and reschedules the tasks of a worker it lost; the shard function knows
nothing of it (pipeline.shard.work, as for the other engines): a shard's output is written under
a temporary name and published with its completion marker, so a task run twice is harmless.
Progress is fed from task completion (a shard's bytes and hits when it ends). Workers read
their inputs and write OUT themselves: on a cluster both must be paths every worker reaches.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from ..pipeline.errors import Fatal
from ..pipeline.shard import shard_fault, work
from ..pipeline.units import Progress, ScanConfig, ShardResult, ShardSpec, no_progress

R = TypeVar("R")

INSTALL_HINT = "the Dask engine needs Dask distributed: pip install 'doi-extractor[dask]'"


def _work(spec: ShardSpec, config: ScanConfig) -> ShardResult:
    """A shard in a Dask worker (its progress is reported when it ends)."""
    return work(spec, config, no_progress)


class DaskEngine:
    """Shards and merges as tasks of a Dask distributed cluster: its scheduler's address, or
    "local" to start a LocalCluster of `workers` processes (the dask extra)."""

    name = "dask"

    def __init__(self, address: str, workers: int = 2) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError as exc:
            raise Fatal(INSTALL_HINT) from exc
        self._cluster: Any = None
        if address == "local":
            if workers < 1:
                raise ValueError(f"--workers must be positive, not {workers}")
            # one thread per process: the matcher holds the GIL, so threads would not add speed
            self._cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                # the dashboard on a free port of this machine, its link printed by the CLI
                # (when bokeh, which serves it, is installed)
                dashboard_address="127.0.0.1:0",
                host="127.0.0.1",
            )
            self.client = Client(self._cluster)
        else:
            try:
                self.client = Client(address, timeout=10)
            except OSError as exc:
                raise Fatal(f"cannot reach the Dask scheduler at {address}: {exc}") from exc
        self.workers = max(1, sum(self.client.nthreads().values()))

    @property
    def dashboard_link(self) -> str | None:
        """The cluster's dashboard, where it serves one (a LocalCluster with bokeh installed, or
        the scheduler's); None where it does not."""
        try:
            info = self.client.scheduler_info()
            port = info.get("services", {}).get("dashboard")
        except (OSError, AttributeError):
            return None
        return str(self.client.dashboard_link) if port else None

    def run_shards(
        self, specs: Sequence[ShardSpec], config: ScanConfig, progress: Progress
    ) -> Iterator[ShardResult]:
        from distributed import as_completed

        # Keys name the shard and this run (a cluster outlives runs); priority keeps the
        # planner's largest-first order.
        run = uuid.uuid4().hex[:12]
        futures = {
            self.client.submit(_work, s, config, key=f"doi-shard-{s.index}-{run}", priority=len(specs) - i): s
            for i, s in enumerate(specs)
        }
        finished = as_completed(futures)
        try:
            while not finished.is_empty():
                done = finished.next_batch(block=False)
                if not done:
                    time.sleep(0.1)
                progress(0, 0)  # a report at least every 0.1 s: where a Ctrl-C is acted on
                for fut in done:
                    res = self._outcome(fut, futures[fut])
                    progress(res.bytes_read, res.hits)
                    yield res
        except BaseException:
            # Ctrl-C or a fatal error: queued shards are dropped (running ones are atomic).
            self.client.cancel([f for f in futures if not f.done()])
            raise

    @staticmethod
    def _outcome(fut: Any, spec: ShardSpec) -> ShardResult:
        """A finished task's result; a shard whose workers Dask lost too often is rejected (as
        the local engine does); any other error is fatal."""
        from distributed import KilledWorker

        try:
            result: ShardResult = fut.result()
            return result
        except KilledWorker:
            return ShardResult(
                spec.index,
                error="the Dask workers reading this input died too often (killed by the system: out of memory?)",
            )
        except Exception as exc:
            raise shard_fault(spec, exc) from exc

    def map(self, fn: Callable[..., R], jobs: Sequence[tuple[Any, ...]]) -> list[R]:
        if not jobs:
            return []
        try:
            futures = self.client.map(fn, *zip(*jobs, strict=True), pure=False)
            out: list[R] = self.client.gather(futures)
            return out
        except Exception as exc:
            raise Fatal(f"{type(exc).__name__}: {exc}") from exc

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            if self._cluster is not None:
                self._cluster.close()
                self._cluster = None

    def __enter__(self) -> DaskEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
