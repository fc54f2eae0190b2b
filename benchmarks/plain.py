"""Plain files against `rg -j1 -o`, with one worker and two, and `find -j` over one large file."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

from .harness import CROSSREF, alternating_rounds, run_measured, say_rounds, scan_cmd


def find_jobs_tables(rg: str, plain_files: list[str], repeat: int, tmp: Path, say: Any) -> None:
    """Issue 31: `find` over one large text file (the corpus's first three plain files as one),
    printing every DOI and counting them, with one process and with two reading its byte ranges,
    against `rg -j1 -o` and `rg -j1 -c`; medians of alternating rounds, the two-process capacity
    measured in each."""
    big = tmp / "one-file.txt"
    with open(big, "wb") as dst:
        for part in plain_files[:3]:
            with open(part, "rb") as src:
                shutil.copyfileobj(src, dst)
    nbytes = big.stat().st_size
    exe = shutil.which("doi-extract") or str(Path(sys.executable).parent / "doi-extract")
    cmds = {
        "rg -j1 -o (Crossref pattern)": [rg, "-j1", "-o", "-i", CROSSREF, str(big)],
        "find -j 1": [exe, "find", "-j", "1", str(big)],
        "find -j 2": [exe, "find", "-j", "2", str(big)],
        "rg -j1 -c (Crossref pattern)": [rg, "-j1", "-c", "-i", CROSSREF, str(big)],
        "find -c -j 1": [exe, "find", "-c", "-j", "1", str(big)],
        "find -c -j 2": [exe, "find", "-c", "-j", "2", str(big)],
    }
    rounds = alternating_rounds(cmds, repeat)
    _times, med, capacities = rounds
    say_rounds(
        say,
        f"find over one text file (issue 31): {nbytes / 1e6:.0f} MB",
        rounds,
        nbytes,
        "x rg",
        lambda label: "rg -j1 -c (Crossref pattern)" if "-c" in label else "rg -j1 -o (Crossref pattern)",
    )
    say(
        f"two processes' speed-up: printing {med['find -j 1'] / med['find -j 2']:.2f}x, counting "
        f"{med['find -c -j 1'] / med['find -c -j 2']:.2f}x, against a median capacity of "
        f"{sorted(capacities)[len(capacities) // 2]:.2f}"
    )


def plain_tables(rg: str, plain_files: list[str], repeat: int, tmp: Path, say: Any) -> None:
    """Issue 31: `scan` of plain text files with one worker and two against `rg -j1 -o`, over
    the whole plain corpus (1 GB) and its first four files (210 MB: a small job, where the fixed
    costs weigh); medians of alternating rounds, the two-process capacity measured in each."""
    out = str(tmp / "plain-out")
    for files in (plain_files, plain_files[:4]):
        nbytes = sum(Path(f).stat().st_size for f in files)
        cmds = {
            "rg -j1 -o": [rg, "-j1", "-o", "-i", "--no-filename", "--no-line-number", CROSSREF, *files],
            "scan --workers 1": scan_cmd(files, out, 1),
            "scan --workers 2": scan_cmd(files, out, 2),
        }
        rounds = alternating_rounds(cmds, repeat, lambda: shutil.rmtree(out, ignore_errors=True))
        _times, med, capacities = rounds
        say_rounds(
            say,
            f"plain files, {nbytes / 1e6:.0f} MB ({len(files)} files)",
            rounds,
            nbytes,
            "x rg",
            lambda label: "rg -j1 -o",
        )
        cap = sorted(capacities)[len(capacities) // 2]
        up = med["scan --workers 1"] / med["scan --workers 2"]
        say(f"2-worker speed-up {up:.2f}x against a median capacity of {cap:.2f}: {up / cap:.2f} of it")
        for workers in (1, 2):
            phases = _phases(scan_cmd(files, out, workers), out, repeat)
            say(
                f"  --workers {workers}, where the time goes (medians of {repeat} runs, _run.json): "
                + ", ".join(f"{k} {v:.2f} s" for k, v in phases.items() if k != "peak MB")
                + f"; merge {phases['merge'] / (nbytes / 1e9):.2f} s per GB; peak RSS {phases['peak MB']:.0f} MB"
                + " (the largest process)"
            )


def _phases(cmd: list[str], out: str, repeat: int) -> dict[str, float]:
    """A scan's phases from its _run.json (start-up: the process's age when the run began; the
    shards; the merge), medians of `repeat` runs, and the peak RSS of its largest process."""
    seen: dict[str, list[float]] = {"start-up": [], "shards": [], "merge": [], "whole": []}
    peak = 0.0
    for _ in range(repeat):
        shutil.rmtree(out, ignore_errors=True)
        peak = max(peak, run_measured(cmd).peak_proc_mb)
        timings = json.loads((Path(out) / "_run.json").read_text())["timings"]
        seen["start-up"].append(timings["startup_seconds"] or 0.0)
        seen["shards"].append(timings["shards_wall_seconds"])
        seen["merge"].append(timings["merge_seconds"])
        seen["whole"].append(timings["wall_seconds"] + (timings["startup_seconds"] or 0.0))
    return {k: sorted(v)[len(v) // 2] for k, v in seen.items()} | {"peak MB": peak}
