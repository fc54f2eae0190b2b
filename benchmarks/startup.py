"""The fixed costs a user pays before the first byte and after the last: `find` and `scan` of a
one-line file, and the extractor's SQL functions registered in DuckDB, each a whole process
against the bare interpreter and DuckDB's own, in alternating rounds."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from .harness import alternating_rounds, scan_cmd

# DuckDB's own cost of an Arrow function of Python (its create_function loads NumPy): what the
# extractor's register() stands beside.
DUCKDB_OWN_UDF = (
    "import duckdb; con = duckdb.connect(); "
    "con.create_function('f', lambda x: x, ['VARCHAR'], 'VARCHAR', type='arrow')"
)
DUCKDB_REGISTER = "import duckdb, extractor.duckdb; con = duckdb.connect(); extractor.duckdb.register(con)"


def startup_tables(repeat: int, tmp: Path, say: Any) -> None:
    """Medians of alternating rounds (each command once a round) of the commands a user runs for
    one small input: the bare interpreter, `find` and `scan` of a one-line file, DuckDB with an
    Arrow function of its own and with the extractor's."""
    one = tmp / "one-line.txt"
    one.write_text("See doi:10.1000/182 and https://doi.org/10.1038/nphys1170.\n", encoding="utf-8")
    exe = str(Path(scan_cmd([], "", 1)[0]))
    out = str(tmp / "one-out")
    cmds = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "find (one line)": [exe, "find", str(one)],
        "scan into Parquet (one line)": scan_cmd([str(one)], out, 1),
        "import duckdb": [sys.executable, "-c", "import duckdb"],
        "import duckdb + connect": [sys.executable, "-c", "import duckdb; duckdb.connect()"],
        "duckdb + an Arrow function of its own": [sys.executable, "-c", DUCKDB_OWN_UDF],
        "duckdb + extractor.duckdb.register": [sys.executable, "-c", DUCKDB_REGISTER],
    }
    times, med, capacities = alternating_rounds(cmds, repeat, lambda: shutil.rmtree(out, ignore_errors=True))
    say()
    say(
        f"fixed costs: medians of {repeat} alternating rounds, whole processes (ms); two-process capacity "
        f"per round {', '.join(f'{c:.2f}' for c in capacities)}"
    )
    width = max(map(len, med)) + 2
    say(f"{'what':<{width}} {'median':>7} {'fastest':>8}")
    for label, t in med.items():
        say(f"{label:<{width}} {t * 1000:>7.0f} {min(times[label]) * 1000:>8.0f}")
    say(
        f"targets: find <= 50 ms ({med['find (one line)'] * 1000:.0f}), scan <= 250 ms "
        f"({med['scan into Parquet (one line)'] * 1000:.0f}), import + register <= 60 ms over import duckdb "
        f"({(med['duckdb + extractor.duckdb.register'] - med['import duckdb']) * 1000:.0f}; over import and "
        f"connect {(med['duckdb + extractor.duckdb.register'] - med['import duckdb + connect']) * 1000:.0f}; "
        f"DuckDB's own Arrow function over import and connect "
        f"{(med['duckdb + an Arrow function of its own'] - med['import duckdb + connect']) * 1000:.0f})"
    )
