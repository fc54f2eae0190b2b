"""Many real documents, whole processes, one worker: the HTML pages and the PDF-extracted texts of
../shared/corpora-dev and corpora-wild-dev, each written again under new names until there are
about 100 MB of them (read from ../shared at run time, never copied into the project)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from .harness import ROOT, alternating_rounds, run_measured, scan_cmd

SHARED = ROOT.parent / "shared"
TARGET = 100 << 20


def _fill(sources: list[Path], dest: Path) -> int:
    """The sources written into `dest` again and again, each copy its own name, to TARGET bytes."""
    dest.mkdir(parents=True)
    total = copy = 0
    while total < TARGET:
        for p in sources:
            data = p.read_bytes()
            (dest / f"{copy:03d}-{p.name}").write_bytes(data)
            total += len(data)
        copy += 1
    return total


def documents_tables(repeat: int, tmp: Path, say: Any) -> None:
    """`scan --workers 1` of ~100 MB of real HTML pages and of real PDF texts (every PDF tool's),
    medians of alternating rounds; MB/s of the whole process, and where its time went."""
    html = sorted((SHARED / "corpora-dev" / "html").glob("*")) + sorted(
        (SHARED / "corpora-wild-dev" / "html").glob("*")
    )
    pdf = sorted((SHARED / "corpora-dev" / "pdf").rglob("*.txt")) + sorted(
        (SHARED / "corpora-wild-dev" / "pdf").glob("*.txt")
    )
    if not html or not pdf:
        say(f"documents: {SHARED} holds no corpora; skipped")
        return
    sizes = {"HTML pages": _fill(html, tmp / "html"), "PDF texts": _fill(pdf, tmp / "pdf")}
    out = str(tmp / "doc-out")
    cmds = {
        "HTML pages": scan_cmd([str(tmp / "html")], out, 1),
        "PDF texts": scan_cmd([str(tmp / "pdf")], out, 1),
    }
    times, med, capacities = alternating_rounds(cmds, repeat, lambda: shutil.rmtree(out, ignore_errors=True))
    say()
    say(
        f"real documents, scan --workers 1, whole processes; medians of {repeat} alternating rounds "
        f"({len(html)} HTML pages and {len(pdf)} PDF texts, written again to ~100 MB each); two-process "
        f"capacity per round {', '.join(f'{c:.2f}' for c in capacities)}"
    )
    say(f"{'what':<14} {'MB':>6} {'files':>6} {'seconds':>8} {'MB/s':>7} {'peak MB':>8}   rounds")
    for label, cmd in cmds.items():
        shutil.rmtree(out, ignore_errors=True)
        peak = run_measured(cmd).peak_tree_mb
        files = len(list((tmp / ("html" if label.startswith("HTML") else "pdf")).iterdir()))
        each = " ".join(f"{t:.2f}" for t in times[label])
        say(
            f"{label:<14} {sizes[label] / 1e6:>6.0f} {files:>6} {med[label]:>8.2f} "
            f"{sizes[label] / 1e6 / med[label]:>7.0f} {peak:>8.0f}   {each}"
        )
    say("targets: HTML >= 120 MB/s, PDF text >= 150 MB/s")
