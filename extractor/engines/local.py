"""The local engine: a pool of worker processes on this machine for the shards and then the
bucket merges (one pool, so workers start once). Workers are forked from a fork server started
first thing (procs.py); progress comes back over a queue, throttled; a worker lost to a fault of
the program or the system makes the run stop (errors.Fatal), never silently lose a shard."""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import time
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from ..pipeline.cpus import CPU_BUDGET, usable_cpus
from ..pipeline.errors import Fatal
from ..pipeline.io.inputs import shard_bytes
from ..pipeline.out.output import UNGUARDED, UNGUARDED_EXIT
from ..pipeline.shard import shard_fault, work
from ..pipeline.units import Progress, ScanConfig, ShardResult, ShardSpec
from .inprocess import InProcessEngine
from .procs import die_with_parent, mp_context, unlink_semaphores

R = TypeVar("R")

_QUEUE: Any = None  # the progress queue, in a worker
WORKER_DEATHS = 3  # a shard whose worker died this many times is rejected
READY = "ready"  # a worker's first message on the progress queue: (READY, when, on the monotonic clock)
READING = "reading"  # (READING, pid, shard, input): the worker begins that input of that shard


def _init_worker(q: Any, cpus: int) -> None:
    global _QUEUE
    _QUEUE = q
    # the CPUs each worker may keep busy (cpus.cpu_budget: a bz2 dump's helper process)
    os.environ[CPU_BUDGET] = str(cpus)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    die_with_parent()
    # this worker has opened the pool's semaphores (procs.unlink_semaphores), and is ready: when
    # (CLOCK_MONOTONIC, one clock for all processes: the pool's start measured)
    q.put((READY, time.monotonic()))


class Stopped(Exception):
    """The run was interrupted: a worker's shard stops at its next window or record, its partial
    files left without a completion marker (a rerun does it again)."""


class _Throttle:
    """Sends progress to the parent at most every 0.25 s, and stops the shard when the parent
    asks (the stop file exists: Ctrl-C)."""

    def __init__(self, stop: str) -> None:
        self.bytes = 0
        self.hits = 0
        self.last = time.monotonic()
        self.stop = stop

    def __call__(self, nbytes: int, nhits: int) -> None:
        self.bytes += nbytes
        self.hits += nhits
        now = time.monotonic()
        if now - self.last >= 0.25:
            self.flush()
            self.last = now
            if os.path.exists(self.stop):
                raise Stopped("interrupted")

    def flush(self) -> None:
        if _QUEUE is not None and (self.bytes or self.hits):
            _QUEUE.put((self.bytes, self.hits))
        self.bytes = self.hits = 0


def _work_in_worker(
    spec: ShardSpec, config: ScanConfig, stop: str, skip: dict[int, dict[str, Any]]
) -> ShardResult:
    progress = _Throttle(stop)
    pid = os.getpid()

    def reading(i: int) -> None:
        """Which input this worker reads: if it dies, that input is the one that killed it."""
        progress.flush()
        if _QUEUE is not None:
            _QUEUE.put((READING, pid, spec.index, i))

    try:
        return work(spec, config, progress, skip=skip, on_input=reading)
    finally:
        progress.flush()


# Below this much input a scan with the default workers runs in its own process: the pool's
# start (a fork server loading pyarrow before the first shard) costs more than a second worker
# saves; the two break even about here (benchmarks/RESULTS.md, "Design figures").
SMALL_JOB = 128 << 20


def _warm_up() -> None:
    """Import and initialise what the bucket merges use: one merge of one row (Arrow compute,
    and Acero where the merge groups without the C part), and Parquet's module."""
    import pyarrow as pa
    import pyarrow.parquet

    from ..pipeline.out.dedupe import merge_bucket
    from ..pipeline.out.write import PARTIAL_SCHEMA

    row = {"shard": 0, "doc": 0, "source": "s", "record": None, "doi": "10.1000/182", "count": 1}
    row |= {"first_offset": 0, "first_line": 1, "first_raw": "10.1000/182", "forms": 1}
    merge_bucket(pa.Table.from_pylist([row], schema=PARTIAL_SCHEMA))


def _death(code: int | None) -> str:
    """How a worker process ended, from its exit code: the signal's name, or its exit status."""
    if code is None:
        return "ended"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"ended with exit status {code}"


class _Deaths:
    """Which inputs killed a worker, and how often: a pool breaks when any worker dies, failing
    every shard running or queued in it; only the shard input the dead worker was reading (its
    last READING message) is blamed, the others are run again as they were. An input that kills
    its worker WORKER_DEATHS times is rejected with the way it died, its shard's other inputs
    read (`skip`); where no input is known (a worker that died before it began one), the shard
    is blamed whole."""

    def __init__(self) -> None:
        self.count: dict[tuple[int, int], int] = {}  # (shard, input or -1) -> deaths
        self.skip: dict[int, dict[int, dict[str, Any]]] = {}  # shard -> input -> rejected entry

    def blame(self, spec: ShardSpec, culprits: dict[tuple[int, int], str]) -> ShardResult | None:
        """A shard of a broken pool: None to run it again (without the inputs rejected so far),
        or its error result when it died too often with no input to blame."""
        mine = {key: how for key, how in culprits.items() if key[0] == spec.index}
        if not culprits:  # nothing known of the dead: the shard is blamed whole
            mine = {(spec.index, -1): "ended"}
        for (index, i), how in mine.items():
            n = self.count[index, i] = self.count.get((index, i), 0) + 1
            if n < WORKER_DEATHS:
                continue
            if i < 0:
                inputs = ", ".join(one.source for one in spec.inputs())
                return ShardResult(
                    index, error=f"its worker process {how}, {n} times, before it began an input ({inputs})"
                )
            one = spec.inputs()[i]
            reason = f"the worker process reading it {how}, {n} times"
            self.skip.setdefault(index, {})[i] = {"source": one.source, "reason": reason}
        return None


def _outcome(fut: Future[ShardResult], spec: ShardSpec) -> ShardResult | BrokenProcessPool:
    """A finished shard's result, or the broken pool that failed it (a worker died: killed by
    the system or a signal, which breaks the pool and every shard running or queued in it); any
    other error is a fault of the program or system, fatal."""
    try:
        return fut.result()
    except BrokenProcessPool as exc:
        return exc
    except Exception as exc:
        raise shard_fault(spec, exc) from exc


class LocalEngine:
    """A local process pool of `workers` processes forked from a preloaded server; a worker
    killed by the system is replaced and its shard redone."""

    name = "local"

    def __init__(self, workers: int, buckets: int = 16, in_process_below: int = 0) -> None:
        if workers < 1:
            raise ValueError(f"workers must be positive, not {workers}")
        self.workers = workers
        self.buckets = buckets
        # A job of fewer bytes runs in this process: starting workers would cost more than they
        # save (SMALL_JOB); 0 never.
        self.in_process_below = in_process_below
        self._in_process: InProcessEngine | None = None  # what runs a job found small
        self._pool: ProcessPoolExecutor | None = None
        self._procs: MutableMapping[int, Any] = {}  # the pool's worker processes by pid (its own dict)
        self._reading: dict[int, tuple[int, int]] = {}  # pid -> (shard, input) it began last
        self._queue: Any = None
        self._unready = 0  # workers of the pool yet to report ready
        self._started = 0.0  # when the pool was started, and when its last worker was ready
        self._ready_at = 0.0
        # seconds from the pool's start to its last worker's ready (_run.json), None before
        self.pool_start_seconds: float | None = None

    def _start(self, tasks: int) -> ProcessPoolExecutor:
        if self._pool is None:
            ctx = mp_context()
            self._queue = ctx.Queue()
            self._unready = min(self.workers, max(tasks, self.buckets))
            self._started = time.monotonic()
            self._pool = ProcessPoolExecutor(
                max_workers=self._unready,
                mp_context=ctx,
                initializer=_init_worker,
                initargs=(self._queue, max(1, usable_cpus() // self.workers)),
            )
            # the executor's own dict of its processes, filled as it starts them: how a worker
            # died is read from it when the pool breaks (no public API says which one did)
            self._procs = self._pool._processes
            self._reading = {}
        return self._pool

    def _culprits(self) -> dict[tuple[int, int], str]:
        """(shard, input) -> how its worker died, for each worker of the broken pool that died
        of itself (the pool ends the others with SIGTERM); a worker that ran the user's script
        without its __main__ guard stops the run (output.UNGUARDED_EXIT)."""
        self._drain(lambda nbytes, nhits: None)  # the READING messages the dead sent last
        dead = {}
        for pid, proc in list(self._procs.items()):
            code = proc.exitcode
            if code == UNGUARDED_EXIT:
                raise Fatal(UNGUARDED)
            if code is not None and code != -signal.SIGTERM:
                dead[pid] = _death(code)
        return {self._reading[pid]: how for pid, how in dead.items() if pid in self._reading}

    def _drain(self, progress: Progress) -> None:
        while True:
            try:
                message = self._queue.get_nowait()
            except queue.Empty:
                return
            if message[0] == READING:
                self._reading[message[1]] = (message[2], message[3])
                continue
            if message[0] == READY:
                self._unready -= 1
                self._ready_at = max(self._ready_at, message[1])
                if self._unready == 0 and self._pool is not None:
                    self.pool_start_seconds = round(self._ready_at - self._started, 3)
                    # every worker the pool will start has opened its semaphores: their names go
                    # (a pool whose worker dies is broken and replaced, never refilled)
                    unlink_semaphores(
                        self._queue, *(getattr(self._pool, q) for q in ("_call_queue", "_result_queue"))
                    )
                continue
            nbytes, nhits = message
            progress(nbytes, nhits)

    def run_shards(
        self, specs: Sequence[ShardSpec], config: ScanConfig, progress: Progress
    ) -> Iterator[ShardResult]:
        if self._pool is None and sum(shard_bytes(s) for s in specs) < self.in_process_below:
            self._in_process = InProcessEngine()
            self.name = self._in_process.name  # as _run.json tells it
        if self._in_process is not None:
            yield from self._in_process.run_shards(specs, config, progress)
            return
        todo = list(specs)
        deaths = _Deaths()
        # A file the workers look for with each progress report: made on Ctrl-C, so that the
        # running shards stop at their next window or record instead of running to their end
        # (a file, not a multiprocessing primitive: no semaphore to leak when a run is killed).
        stop = os.path.join(config.out, f".stop-{os.getpid()}")
        while todo:
            pool = self._start(len(todo))
            try:
                futures = {
                    pool.submit(_work_in_worker, s, config, stop, deaths.skip.get(s.index, {})): s
                    for s in todo
                }
                if self.workers > 1:
                    # Queued behind the shards: a worker out of shards, waiting for the others,
                    # loads what the bucket merges need instead of loading it on their clock.
                    for _ in range(self.workers):
                        pool.submit(_warm_up)
                todo = []
                culprits: dict[tuple[int, int], str] | None = None  # read once the pool breaks
                pending: set[Future[ShardResult]] = set(futures)
                while pending:
                    finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                    self._drain(progress)
                    progress(0, 0)  # a report at least every 0.2 s: where a Ctrl-C is acted on
                    for fut in finished:
                        res = _outcome(fut, futures[fut])
                        if isinstance(res, BrokenProcessPool):
                            if culprits is None:
                                culprits = self._culprits()
                            failed = deaths.blame(futures[fut], culprits)
                            if failed is None:
                                todo.append(futures[fut])
                                continue
                            res = failed
                        yield res
                self._drain(progress)
            except BaseException:
                # On Ctrl-C or a fatal error, queued shards are dropped and running ones stop at
                # their next window or record, unmarked (each shard is atomic: done again on a rerun).
                try:
                    with open(stop, "w"):
                        pass
                except OSError:
                    pass
                try:
                    self.close()
                finally:
                    with contextlib.suppress(OSError):
                        os.remove(stop)
                raise
            if todo:
                self.close()  # the broken pool; the next turn starts a new one

    def map(self, fn: Callable[..., R], jobs: Sequence[tuple[Any, ...]]) -> list[R]:
        if self._in_process is not None:
            return self._in_process.map(fn, jobs)
        if self.workers == 1 or len(jobs) < 2:
            return [fn(*job) for job in jobs]
        pool = self._start(len(jobs))
        out = list(pool.map(fn, *zip(*jobs, strict=True)))
        self._drain(lambda nbytes, nhits: None)  # workers' ready reports, when the pool started here
        return out

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> LocalEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
