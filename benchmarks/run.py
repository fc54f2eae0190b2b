"""Benchmarks: `doi-extract scan` against a raw ripgrep scan, and the finder in memory.

    python -m benchmarks [--size 1GB] [--repeat 3] [--record]

In one run: generates the benchmark corpus if absent (scripts/make_corpus.py bench), times
`rg -j1 -o` with Crossref's DOI pattern and `doi-extract scan` with 1 and 2 workers over the
same files (plain, gzip, JSONL, HTML), measures the peak memory of each whole process tree,
times `find_dois` per display form and kind, and checks memory on a 1 GB line with no
newline and on one enormous JSONL record. Each timing is the median of --repeat runs.
--record puts the figures in benchmarks/RESULTS.md, in place of the last ones of the same command.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .archives import archive_tables
from .batch import batch_tables
from .corpora import write_pdf_text, write_small_files
from .documents import documents_tables
from .engines import engine_tables
from .harness import (
    CROSSREF,
    ROOT,
    compile_package,
    dir_bytes,
    ensure_corpus,
    ensure_rg,
    median_run,
    median_runs,
    record,
    scan_cmd,
)
from .matcher import canonicalize_tables, find_tables, syntax_tables
from .memory import check_memory
from .pages import pages_tables
from .plain import find_jobs_tables, plain_tables
from .records import gzip_split_tables, records_tables
from .shapes import shapes_tables
from .startup import startup_tables
from .store import store_tables


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="1GB", help="benchmark corpus size when it must be generated")
    ap.add_argument("--corpus", default=str(ROOT / "corpora" / "bench"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--memory-file", default="1GB", help="size of the one-line and one-record memory checks (0 to skip)"
    )
    ap.add_argument("--record", action="store_true", help="append the figures to benchmarks/RESULTS.md")
    ap.add_argument(
        "--only",
        choices=(
            "memory",
            "find",
            "engines",
            "shapes",
            "pages",
            "syntaxes",
            "canonicalize",
            "archives",
            "records",
            "gzip-split",
            "bzip2-split",
            "gzip-split-text",
            "zstd-split",
            "store",
            "find-jobs",
            "plain",
            "startup",
            "documents",
            "batch",
        ),
        help="run only this part (the scans are skipped)",
    )
    a = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT / "scripts"))

    corpus = Path(a.corpus)
    meta = ensure_corpus(corpus, a.size)
    rg = ensure_rg()
    compile_package()
    plain = corpus / "plain"
    plain_files = sorted(str(p) for p in plain.iterdir())
    nbytes = dir_bytes(plain)
    lines: list[str] = []

    def say(s: str = "") -> None:
        print(s, flush=True)
        lines.append(s)

    say(f"corpus: {corpus} — {nbytes / 1e6:.0f} MB plain text in {len(plain_files)} files ({meta})")
    tmp = Path(tempfile.mkdtemp(prefix="doi-bench-"))
    try:
        if a.only == "memory":
            check_memory(a.memory_file, tmp, say)
        elif a.only == "find":
            find_tables(say)
        elif a.only == "engines":
            engine_tables(plain_files, nbytes, a.repeat, tmp, say)
        elif a.only == "shapes":
            shapes_tables(rg, a.repeat, tmp, say)
        elif a.only == "pages":
            pages_tables(corpus / "html", tmp, say)
        elif a.only == "syntaxes":
            syntax_tables(say)
        elif a.only == "canonicalize":
            canonicalize_tables(say)
        elif a.only == "archives":
            archive_tables(corpus, a.repeat, tmp, say)
        elif a.only == "records":
            records_tables(corpus, a.repeat, tmp, say)
        elif a.only == "gzip-split":
            gzip_split_tables(corpus, a.repeat, tmp, say)
        elif a.only == "bzip2-split":
            gzip_split_tables(corpus, a.repeat, tmp, say, "bzip2")
        elif a.only == "gzip-split-text":
            gzip_split_tables(corpus, a.repeat, tmp, say, "text")
        elif a.only == "zstd-split":
            gzip_split_tables(corpus, a.repeat, tmp, say, "zstd")
        elif a.only == "store":
            store_tables(plain_files, 4, tmp, say)
        elif a.only == "find-jobs":
            find_jobs_tables(rg, plain_files, a.repeat, tmp, say)
        elif a.only == "plain":
            plain_tables(rg, plain_files, a.repeat, tmp, say)
        elif a.only == "startup":
            startup_tables(a.repeat, tmp, say)
        elif a.only == "documents":
            documents_tables(a.repeat, tmp, say)
        elif a.only == "batch":
            batch_tables(corpus, a.repeat, say)
        if a.only:
            if a.record:
                record(lines, argv, a.repeat)
            return 0
        # ripgrep's raw scan: the physical reference.
        rg_cmd = [rg, "-j1", "-o", "-i", "--no-filename", "--no-line-number", CROSSREF, *plain_files]
        counts = subprocess.run(
            [rg, "-j1", "-i", "--count-matches", "--no-filename", CROSSREF, *plain_files],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        rg_hits = sum(int(x) for x in counts.split())
        drop = lambda: shutil.rmtree(tmp / "out", ignore_errors=True)  # noqa: E731
        rg_m, s1, s2 = median_runs(
            [rg_cmd, scan_cmd(plain_files, str(tmp / "out"), 1), scan_cmd(plain_files, str(tmp / "out"), 2)],
            a.repeat,
            drop,
        )
        hits = json.loads((tmp / "out" / "_run.json").read_text())["hits"]
        say()
        say(
            f"{'what':<44} {'seconds':>8} {'MB/s':>8} {'hits/s':>11} {'peak tree MB':>13} {'peak proc MB':>13}"
        )
        for label, m, h in (
            ("rg -j1 -o (Crossref pattern)", rg_m, rg_hits),
            ("doi-extract scan --workers 1", s1, hits),
            ("doi-extract scan --workers 2", s2, hits),
        ):
            say(
                f"{label:<44} {m.seconds:>8.2f} {nbytes / 1e6 / m.seconds:>8.1f} {h / m.seconds:>11.0f} "
                f"{m.peak_tree_mb:>13.0f} {m.peak_proc_mb:>13.0f}"
            )
        say(
            f"ratio scan(1 worker) / rg: {s1.seconds / rg_m.seconds:.2f}x (issue 14: <= 2.5x); "
            f"2-worker speed-up: {s1.seconds / s2.seconds:.2f}x (issue 14: >= 1.85x); "
            f"hits: scan {hits}, rg {rg_hits} (rg finds bare-pattern matches only)"
        )
        # Compressed input against decompression alone.
        gz = sorted(str(p) for p in (corpus / "gzip").iterdir())
        dec, sg, s1g = median_runs(
            [
                ["sh", "-c", "gzip -dc " + " ".join(gz) + " > /dev/null"],
                scan_cmd(gz, str(tmp / "out"), 1),
                scan_cmd(plain_files, str(tmp / "out"), 1),
            ],
            a.repeat,
            drop,
        )
        say(f"{'gzip -dc (decompression alone)':<44} {dec.seconds:>8.2f}")
        say(
            f"{'doi-extract scan gzip --workers 1':<44} {sg.seconds:>8.2f} {nbytes / 1e6 / sg.seconds:>8.1f} "
            f"{'':>11} {sg.peak_tree_mb:>13.0f} {sg.peak_proc_mb:>13.0f}"
        )
        say(
            f"gzip overhead: scan(gz) - scan(plain) = {sg.seconds - s1g.seconds:.2f} s vs decompression {dec.seconds:.2f} s "
            f"(plain scan timed in the same rounds: {s1g.seconds:.2f} s; scan(gz) / scan(plain) "
            f"{sg.seconds / s1g.seconds:.2f}x, issue 14: <= 1.3x)"
        )
        jl = sorted(str(p) for p in (corpus / "jsonl").iterdir())[:4]
        jl_bytes = sum(os.path.getsize(p) for p in jl)
        sj = median_run(scan_cmd(jl, str(tmp / "out"), 1), a.repeat, drop)
        say(
            f"{'scan JSONL records (4 files) --workers 1':<44} {sj.seconds:>8.2f} {jl_bytes / 1e6 / sj.seconds:>8.1f} "
            f"{'':>11} {sj.peak_tree_mb:>13.0f} {sj.peak_proc_mb:>13.0f}"
        )
        small_dir = tmp / "small"
        n_small = write_small_files(Path(plain_files[0]), small_dir, 20_000)
        s_bytes = dir_bytes(small_dir)
        ss = median_run(scan_cmd([str(small_dir)], str(tmp / "out"), 1), a.repeat, drop)
        say(
            f"{f'scan {n_small} small plain files --workers 1':<44} {ss.seconds:>8.2f} {s_bytes / 1e6 / ss.seconds:>8.1f} "
            f"{'':>11} {ss.peak_tree_mb:>13.0f} {ss.peak_proc_mb:>13.0f}"
        )
        shutil.rmtree(small_dir)
        html_dir = corpus / "html"
        h_bytes = dir_bytes(html_dir)
        sh = median_run(scan_cmd([str(html_dir)], str(tmp / "out"), 1), a.repeat, drop)
        say(
            f"{'scan HTML pages --workers 1':<44} {sh.seconds:>8.2f} {h_bytes / 1e6 / sh.seconds:>8.1f} "
            f"{'':>11} {sh.peak_tree_mb:>13.0f} {sh.peak_proc_mb:>13.0f}"
        )
        pdf_dir = tmp / "pdf"
        p_bytes = write_pdf_text([Path(p) for p in plain_files[:2]], pdf_dir)
        sp = median_run(scan_cmd([str(pdf_dir)], str(tmp / "out"), 1), a.repeat, drop)
        say(
            f"{'scan PDF text (2 files, wrapped) --workers 1':<44} {sp.seconds:>8.2f} {p_bytes / 1e6 / sp.seconds:>8.1f} "
            f"{'':>11} {sp.peak_tree_mb:>13.0f} {sp.peak_proc_mb:>13.0f}"
        )
        shutil.rmtree(pdf_dir)
        pages_tables(html_dir, tmp, say)
        find_tables(say)
        syntax_tables(say)
        canonicalize_tables(say)
        check_memory(a.memory_file, tmp, say)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if a.record:
        record(lines, argv, a.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
