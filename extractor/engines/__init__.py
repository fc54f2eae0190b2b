"""Who runs a scan's shards and merges: engines with the pipeline's Engine protocol
(pipeline.run.Engine). A new executor (a cluster) is one more module here, nothing else.

Kept light: `doi-extract scan` imports engines.procs first thing, to start the workers' server
before anything heavy is loaded; the engines themselves are imported when asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..pipeline.run import Engine
    from .dask_engine import DaskEngine
    from .inprocess import InProcessEngine
    from .local import LocalEngine


def make_engine(
    workers: int, buckets: int = 16, dask: str | None = None, small_in_process: bool = False
) -> InProcessEngine | LocalEngine | DaskEngine:
    """A Dask cluster when `dask` names one (an address, or "local" to start one with
    `workers` processes); else in-process for one worker (no process start-up), a local
    process pool for more; with `small_in_process` (workers not asked for), a job of less than
    local.SMALL_JOB bytes runs in process all the same."""
    if dask is not None:
        from .dask_engine import DaskEngine

        return DaskEngine(dask, workers)
    if workers == 1:
        from .inprocess import InProcessEngine

        return InProcessEngine()
    from .local import SMALL_JOB, LocalEngine

    return LocalEngine(workers, buckets, SMALL_JOB if small_in_process else 0)


def __getattr__(name: str) -> Any:
    if name == "InProcessEngine":
        from .inprocess import InProcessEngine

        return InProcessEngine
    if name == "LocalEngine":
        from .local import LocalEngine

        return LocalEngine
    if name == "DaskEngine":
        from .dask_engine import DaskEngine

        return DaskEngine
    if name == "Engine":
        from ..pipeline.run import Engine

        return Engine
    raise AttributeError(name)


__all__ = ["DaskEngine", "Engine", "InProcessEngine", "LocalEngine", "make_engine"]
