"""How a corpus flows: inputs → shards → read → decode → find (match/) → mentions → part files →
bucket merge → Parquet. Nothing here knows of process pools, argparse or progress bars.

`run_scan` is a whole scan over an engine; `shard.work` is one shard, what an engine runs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .out.output import OutputInUse, output_folder
    from .run import Engine, Observer, RunReport, run_scan
    from .units import InputType, ScanConfig, ShardResult, ShardSpec

# Each name from its module when first asked for (PEP 562): `find` reads through this package
# and never loads the merge's pyarrow, which `run` brings in.
_HOMES = {
    "OutputInUse": "out.output",
    "output_folder": "out.output",
    "Engine": "run",
    "Observer": "run",
    "RunReport": "run",
    "run_scan": "run",
    "ScanConfig": "units",
    "ShardResult": "units",
    "ShardSpec": "units",
    "InputType": "units",
}

__all__ = [
    "Engine",
    "InputType",
    "Observer",
    "OutputInUse",
    "RunReport",
    "ScanConfig",
    "ShardResult",
    "ShardSpec",
    "output_folder",
    "run_scan",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{home}", __name__), name)
