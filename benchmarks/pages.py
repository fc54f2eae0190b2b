"""Web pages: HTML files, and the same pages as WARC records."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from .corpora import write_pages_warc
from .harness import best


def pages_tables(html_dir: Path, tmp: Path, say: Any) -> None:
    """Small HTML pages, one worker in this process (issue 11): what a scan's shard costs per
    file against its floor — reading the files alone and the C matcher alone — and the same
    pages as the records of a WARC (when warcio is installed to write one)."""
    from extractor.match.native import html_scan
    from extractor.pipeline.arrow_setup import skip_pandas
    from extractor.pipeline.io.inputs import expand_inputs, plan_shards
    from extractor.pipeline.io.read import read_upto
    from extractor.pipeline.shard import run_shard
    from extractor.pipeline.table import Mentions
    from extractor.pipeline.units import ScanConfig, no_progress

    skip_pandas()  # as the scan's workers are set up
    paths = sorted(str(p) for p in html_dir.iterdir())
    datas = [p.read_bytes() for p in sorted(html_dir.iterdir())]
    size = sum(map(len, datas))

    def read_all() -> None:
        for p in paths:
            read_upto(p, 1 << 20)

    def scan_all() -> None:
        for d in datas:
            html_scan(
                d,
                0,
                len(d),
                0,
                len(d) + 1,
                0,
                Mentions(),
                None,
                chars=False,
                line_base=0,
                line_from=0,
                line_to=len(d),
            )

    def shards(inputs: list[str]) -> float:
        out = tmp / "pages-out"
        config = ScanConfig(out=str(out))
        best = float("inf")
        for _ in range(3):
            shutil.rmtree(out, ignore_errors=True)
            files, _rej = expand_inputs(inputs, str(tmp / "spool"))
            specs, _rej, _total = plan_shards(files, config)
            (out / "_shards").mkdir(parents=True)
            t0 = time.perf_counter()
            for spec in specs:
                run_shard(spec, config, no_progress)
            best = min(best, time.perf_counter() - t0)
        shutil.rmtree(out, ignore_errors=True)
        return best

    say()
    say(
        f"{len(paths)} HTML pages, {size / 1e6:.1f} MB, one worker (best of 3)  {'seconds':>8} {'MB/s':>8} {'us/page':>8}"
    )
    rows = [
        ("read alone (open, read, close)", best(read_all)),
        ("html_scan alone (bytes in memory)", best(scan_all)),
        ("a scan's shards, in process", shards([str(html_dir)])),
    ]
    warc = tmp / "pages.warc.gz"
    if write_pages_warc(paths, warc):
        rows.append(
            (f"the pages as a WARC ({warc.stat().st_size / 1e6:.1f} MB gzipped)", shards([str(warc)]))
        )
        warc.unlink()
    for label, seconds in rows:
        say(f"{label:<44} {seconds:>8.3f} {size / 1e6 / seconds:>8.1f} {seconds / len(paths) * 1e6:>8.1f}")
