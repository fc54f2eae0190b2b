"""Text of hostile shapes (one line, no DOI, all DOIs, long tokens) against ripgrep."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from .harness import CROSSREF, ROOT, median_runs, run_measured, scan_cmd

SHAPES = ("four", "varied", "distinct", "exports")


def shapes_tables(rg: str, repeat: int, tmp: Path, say: Any) -> None:
    """Issue 14: corpora shaped unlike the benchmark (scripts/make_corpus.py shapes) — 4 files of
    ~150 MB, files of very different sizes, nothing but distinct DOIs, real export styles — each
    against `rg -j1 -o` in the same rounds, with where a 1-worker scan's time goes and the peak
    memory of its largest process."""
    shapes = ROOT / "corpora" / "bench-shapes"
    if not (shapes / "shapes.json").exists():
        subprocess.run([sys.executable, str(ROOT / "scripts" / "make_corpus.py"), "shapes"], check=True)
    drop = lambda: shutil.rmtree(tmp / "out", ignore_errors=True)  # noqa: E731
    say()
    say(
        f"{'corpus (issue 14 shapes)':<12} {'MB':>6} {'files':>5} {'rg s':>6} {'scan1 s':>8} {'x rg':>6} "
        f"{'scan2 s':>8} {'2w/1w':>6} {'proc MB':>8} | 1 worker: start-up, plan, shards, merge (Parquet)"
    )
    for name in SHAPES:
        files = sorted(str(p) for p in (shapes / name).iterdir())
        nbytes = sum(os.path.getsize(f) for f in files)
        rg_cmd = [rg, "-j1", "-o", "-i", "--no-filename", "--no-line-number", CROSSREF, *files]
        rg_m, s1, s2 = median_runs(
            [rg_cmd, scan_cmd(files, str(tmp / "out"), 1), scan_cmd(files, str(tmp / "out"), 2)], repeat, drop
        )
        drop()
        run_measured(scan_cmd(files, str(tmp / "out"), 1))
        t = json.loads((tmp / "out" / "_run.json").read_text())["timings"]
        say(
            f"{name:<12} {nbytes / 1e6:>6.0f} {len(files):>5} {rg_m.seconds:>6.2f} {s1.seconds:>8.2f} "
            f"{s1.seconds / rg_m.seconds:>6.2f} {s2.seconds:>8.2f} {s1.seconds / s2.seconds:>6.2f} "
            f"{max(s1.peak_proc_mb, s2.peak_proc_mb):>8.0f} | {t['startup_seconds']}, {t['plan_seconds']}, "
            f"{t['shards_wall_seconds']}, {t['merge_seconds']} ({t['parquet_write_seconds']})"
        )
