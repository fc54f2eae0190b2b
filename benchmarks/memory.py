"""Peak memory on a 1 GB line with no newline and on one enormous JSONL record."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .corpora import write_huge_record, write_one_line_file
from .harness import ROOT, run_measured, scan_cmd


def check_memory(size: str, tmp: Path, say: Any) -> None:
    """Scan a file of one line with no newline, and one enormous JSONL record, of `size`."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from make_corpus import parse_size

    msize = parse_size(size) if size != "0" else 0
    if not msize:
        return
    say()
    for label, path, write in (
        (f"one line, no newline, {size}", tmp / "one-line.txt", write_one_line_file),
        (f"one JSONL record of {size}", tmp / "huge.jsonl", write_huge_record),
    ):
        write(path, msize)
        m = run_measured(scan_cmd([str(path)], str(tmp / "out"), 1))
        found = json.loads((tmp / "out" / "_run.json").read_text())["hits"]
        say(
            f"{label:<44} {m.seconds:>8.2f} {msize / 1e6 / m.seconds:>8.1f} "
            f"{found:>11} {m.peak_tree_mb:>13.0f} {m.peak_proc_mb:>13.0f}"
        )
        path.unlink()
