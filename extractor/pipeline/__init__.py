"""How a corpus flows: inputs → shards → read → decode → find (match/) → mentions → part files →
bucket merge → Parquet. Nothing here knows of process pools, argparse or progress bars.

`run_scan` is a whole scan over an engine; `shard.work` is one shard, what an engine runs.
"""

from __future__ import annotations

from .output import OutputInUse, output_folder
from .run import Engine, Observer, RunReport, run_scan
from .units import ScanConfig, ShardResult, ShardSpec

__all__ = [
    "Engine",
    "Observer",
    "OutputInUse",
    "RunReport",
    "ScanConfig",
    "ShardResult",
    "ShardSpec",
    "output_folder",
    "run_scan",
]
