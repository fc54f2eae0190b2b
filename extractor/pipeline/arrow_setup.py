"""pyarrow's look for pandas answered once in a scan's processes.

A process-wide choice, made by the `scan` command and its workers' server, never by the library
(`extract_batch` leaves its caller's pyarrow as it is).
"""

from __future__ import annotations

import sys


def skip_pandas() -> None:
    """pyarrow's first conversion of Python values looks for pandas, to recognise its objects,
    and loads it where installed: ~0.25 s and ~40 MB in every process that converts (a
    fifth of a one-worker run of 150 MB). A scan never hands pyarrow a pandas object, so that
    look is answered "absent" once, with pandas blocked while it runs. pyarrow still imports
    pandas for real when something asks for it (`to_pandas`): only the look is skipped."""
    if "pandas" in sys.modules:
        return
    import pyarrow as pa

    sys.meta_path.insert(0, _NoPandas())
    try:
        pa.array([0])
    finally:
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _NoPandas)]


class _NoPandas:
    """An import finder that makes `import pandas` fail (a None in sys.modules does not: pyarrow's
    compiled import returns the None)."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.partition(".")[0] == "pandas":
            raise ImportError("pandas is not looked for by a scan")
