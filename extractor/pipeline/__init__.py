"""How a corpus flows: inputs → shards → read → decode → find (match/) → mentions → part files →
bucket merge → Parquet. Nothing here knows of process pools, argparse or progress bars.

`run_scan` is a whole scan over an engine; `shard.work` is one shard, what an engine runs.
"""

from __future__ import annotations

from .run import Engine, Observer, RunReport, prepare_output, run_scan
from .units import ScanConfig, ShardResult, ShardSpec

__all__ = [
    "Engine",
    "Observer",
    "RunReport",
    "ScanConfig",
    "ShardResult",
    "ShardSpec",
    "prepare_output",
    "run_scan",
]
