"""pyarrow loaded for a scan's processes: without NumPy, and with its look for pandas answered.

A process-wide choice, made by the `scan` command and its workers' server, never by the library
(`extract_batch` leaves its caller's pyarrow as it is).
"""

from __future__ import annotations

import sys


def load_for_scan(own_process: bool = True) -> None:
    """pyarrow and the parts of it a scan uses, then its look for pandas answered (skip_pandas).
    In a process that is the scan's own (`own_process`: the command, its workers), without NumPy
    where pyarrow can go without it (pyarrow 16 on; an older one needs it and is loaded with it):
    a scan hands pyarrow no NumPy or pandas object, and NumPy's import was most of pyarrow's in
    every scan process. pyarrow loaded so must never meet NumPy in that process (its conversions
    to NumPy and pandas crash it), which is why a caller's process is left as it is."""
    if own_process and "pyarrow" not in sys.modules:
        refuse = _Refuse(("numpy", "pandas"))
        sys.meta_path.insert(0, refuse)
        try:
            _import_arrow()
        except ImportError:  # pyarrow before 16 imports NumPy: loaded again, with it
            for name in [m for m in sys.modules if m.partition(".")[0] in ("pyarrow", "numpy")]:
                del sys.modules[name]
            sys.meta_path.remove(refuse)
            _import_arrow()
        finally:
            if refuse in sys.meta_path:
                sys.meta_path.remove(refuse)
    skip_pandas()


def _import_arrow() -> None:
    import pyarrow.compute
    import pyarrow.parquet  # noqa: F401


def skip_pandas() -> None:
    """pyarrow's first conversion of Python values looks for pandas, to recognise its objects,
    and loads it where installed: a fixed cost in time and memory in every process that converts
    (benchmarks/RESULTS.md, "Design figures"). A scan never hands pyarrow a pandas object, so that
    look is answered "absent" once, with pandas blocked while it runs. pyarrow still imports
    pandas for real when something asks for it (`to_pandas`): only the look is skipped."""
    if "pandas" in sys.modules:
        return
    import pyarrow as pa

    refuse = _Refuse(("pandas",))
    sys.meta_path.insert(0, refuse)
    try:
        pa.array([0])
    finally:
        sys.meta_path.remove(refuse)


class _Refuse:
    """An import finder that makes the import of these top-level packages fail (a None in
    sys.modules does not: pyarrow's compiled import returns the None)."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.partition(".")[0] in self.names:
            raise ImportError(f"{name} is not loaded by a scan")
