"""Who runs a scan's shards and merges: engines with the pipeline's Engine protocol
(pipeline.run.Engine). A new executor (a cluster) is one more module here, nothing else."""

from __future__ import annotations

from ..pipeline.run import Engine
from .inprocess import InProcessEngine
from .local import LocalEngine


def make_engine(workers: int, buckets: int = 16) -> InProcessEngine | LocalEngine:
    """In-process for one worker (no process start-up), a local process pool for more."""
    return InProcessEngine() if workers == 1 else LocalEngine(workers, buckets)


__all__ = ["Engine", "InProcessEngine", "LocalEngine", "make_engine"]
