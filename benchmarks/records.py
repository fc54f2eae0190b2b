"""Records against files: the same text as JSONL, Parquet and files, and DuckDB's query."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

from .harness import alternating_rounds, run_measured, say_rounds, scan_cmd

# DuckDB over a Parquet of records, as a user with one types it first (issue 31): Crossref's
# pattern, lower(), grouped by record and DOI, written to Parquet; argv: parquet, out, threads.
DUCKDB_QUERY = """
import sys, duckdb
con = duckdb.connect()
con.execute(f"SET threads={int(sys.argv[3])}")
con.execute(
    "COPY (SELECT id, doi, count(*) AS n FROM (SELECT id, lower(unnest(regexp_extract_all(text, "
    + "'(?i)10\\\\.\\\\d{4,9}/[-._;()/:a-z0-9]+'))) AS doi FROM read_parquet('" + sys.argv[1] + "')) "
    + "GROUP BY id, doi) TO '" + sys.argv[2] + "' (FORMAT parquet)"
)
"""

# The same pairs by the extractor inside DuckDB (extractor.duckdb): doi_find over the same
# Parquet, each record's distinct canonical DOIs; argv: parquet, out, threads.
DUCKDB_FIND = """
import sys, duckdb
import extractor.duckdb
con = duckdb.connect()
con.execute(f"SET threads={int(sys.argv[3])}")
extractor.duckdb.register(con)
con.execute(
    "COPY (SELECT id, unnest(doi_find(text)) AS doi FROM read_parquet('" + sys.argv[1] + "')) "
    + "TO '" + sys.argv[2] + "' (FORMAT parquet)"
)
"""


def records_tables(corpus: Path, repeat: int, tmp: Path, say: Any) -> None:
    """Issue 31: the same documents as text files, as JSONL records and as a Parquet of records,
    scanned by one worker and two, against DuckDB's query over the Parquet with one thread and
    two; medians of alternating rounds, the two-process capacity measured in each round."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    parts = sorted((corpus / "jsonl").iterdir())[:3]
    src = tmp / "records"
    for d in ("text", "jsonl"):
        (src / d).mkdir(parents=True)
    ids: list[str] = []
    texts: list[str] = []
    for part in parts:
        shutil.copy(part, src / "jsonl" / part.name)
        with (
            open(part, encoding="utf-8") as f,
            open(src / "text" / f"{part.stem}.txt", "w", encoding="utf-8") as dst,
        ):
            for line in f:
                r = json.loads(line)
                ids.append(str(r["id"]))
                texts.append(r["text"])
                dst.write(r["text"] + "\n\n")
    parquet = src / "records.parquet"
    pq.write_table(pa.table({"id": ids, "text": texts}), parquet, row_group_size=4096)
    nbytes = sum(len(t.encode("utf-8")) for t in texts)
    text_files = sorted(str(p) for p in (src / "text").iterdir())
    jsonl_files = sorted(str(p) for p in (src / "jsonl").iterdir())
    out = str(tmp / "out")
    duck_out = str(tmp / "duck.parquet")
    find_out = str(tmp / "duck-find.parquet")
    cmds = {
        "text files, 1 worker": scan_cmd(text_files, out, 1),
        "JSONL records, 1 worker": scan_cmd(jsonl_files, out, 1),
        "Parquet records, 1 worker": scan_cmd([str(parquet)], out, 1),
        "DuckDB over the Parquet, 1 thread": [
            sys.executable,
            "-c",
            DUCKDB_QUERY,
            str(parquet),
            duck_out,
            "1",
        ],
        "DuckDB doi_find over the Parquet, 1 thread": [
            sys.executable,
            "-c",
            DUCKDB_FIND,
            str(parquet),
            find_out,
            "1",
        ],
        "text files, 2 workers": scan_cmd(text_files, out, 2),
        "JSONL records, 2 workers": scan_cmd(jsonl_files, out, 2),
        "Parquet records, 2 workers": scan_cmd([str(parquet)], out, 2),
        "DuckDB over the Parquet, 2 threads": [
            sys.executable,
            "-c",
            DUCKDB_QUERY,
            str(parquet),
            duck_out,
            "2",
        ],
        "DuckDB doi_find over the Parquet, 2 threads": [
            sys.executable,
            "-c",
            DUCKDB_FIND,
            str(parquet),
            find_out,
            "2",
        ],
    }
    rounds = alternating_rounds(cmds, repeat, lambda: shutil.rmtree(out, ignore_errors=True))
    _times, med, capacities = rounds
    pairs = pq.read_table(duck_out).num_rows
    shutil.rmtree(out, ignore_errors=True)
    run_measured(cmds["Parquet records, 1 worker"])
    mentions = pq.read_table(Path(out) / "mentions", columns=["record", "doi"])
    ours = mentions.num_rows
    scan_pairs = set(zip(mentions["record"].to_pylist(), mentions["doi"].to_pylist(), strict=True))
    found = pq.read_table(find_out)
    find_pairs = set(zip(found["id"].to_pylist(), found["doi"].to_pylist(), strict=True))
    say_rounds(
        say,
        f"records (issue 31): {len(texts):,} documents, {nbytes / 1e6:.0f} MB of text",
        rounds,
        nbytes,
        "x files",
        lambda label: "text files, 2 workers" if "2 " in label else "text files, 1 worker",
    )
    say(
        f"(record, DOI) pairs: doi-extract {ours:,} (every display form, canonical), DuckDB {pairs:,}; "
        f"targets (issue 31): records <= 1.1x files with one worker; Parquet faster than DuckDB, 1 worker "
        f"vs 1 thread ({med['Parquet records, 1 worker'] / med['DuckDB over the Parquet, 1 thread']:.2f}x) "
        f"and 2 vs 2 ({med['Parquet records, 2 workers'] / med['DuckDB over the Parquet, 2 threads']:.2f}x); "
        f"DuckDB with doi_find against its regexp query, 1 thread "
        f"{med['DuckDB doi_find over the Parquet, 1 thread'] / med['DuckDB over the Parquet, 1 thread']:.2f}x, "
        f"2 threads {med['DuckDB doi_find over the Parquet, 2 threads'] / med['DuckDB over the Parquet, 2 threads']:.2f}x "
        f"(target <= 1.5x), its (id, DOI) pairs {len(find_pairs):,}, "
        f"{'equal to' if find_pairs == scan_pairs else 'NOT equal to'} scan's; "
        f"two workers' speed-up on files {med['text files, 1 worker'] / med['text files, 2 workers']:.2f}x "
        f"against a median capacity of {sorted(capacities)[len(capacities) // 2]:.2f}"
    )


def gzip_split_tables(corpus: Path, repeat: int, tmp: Path, say: Any, compression: str = "gzip") -> None:
    """One large .jsonl.gz (the corpus's JSONL parts end to end, gzipped) scanned by one worker
    and by two, its text in ranges from rapidgzip's seek points (io/seekgz.py, --split-gzip),
    against the same file as one shard (--no-split-gzip); medians of alternating rounds, the
    two-process capacity measured in each round. With `compression` "bzip2", a .jsonl.bz2 of
    the first four parts (bzip2 -1: its compression of 1 GB alone takes minutes); with "text",
    a .txt.gz of 165 MB of the plain text (a plain text scans faster than a pass decodes); with
    "zstd", a .jsonl.zst of frames of 8 MiB of text each (as pzstd writes it)."""
    import bz2
    import gzip

    if compression == "zstd":
        import zstandard

        compressor = zstandard.ZstdCompressor()
        packed = tmp / "all.jsonl.zst"
        nbytes = 0
        with packed.open("wb") as out:
            for part in sorted((corpus / "jsonl").iterdir()):
                data = part.read_bytes()
                nbytes += len(data)
                for i in range(0, len(data), 8 << 20):
                    out.write(compressor.compress(data[i : i + (8 << 20)]))
        _split_rounds(packed, nbytes, repeat, tmp, say)
        return

    parts = sorted((corpus / ("plain" if compression == "text" else "jsonl")).iterdir())
    nbytes = 0
    bzip2 = compression == "bzip2"
    packed = tmp / {"bzip2": "four.jsonl.bz2", "text": "some.txt.gz"}.get(compression, "all.jsonl.gz")
    opener: Any = bz2.open if bzip2 else gzip.open
    limit = 165_000_000 if compression == "text" else None
    with opener(packed, "wb", compresslevel=1 if bzip2 else 6) as out:
        for part in parts[:4] if bzip2 else parts:
            data = part.read_bytes()[: None if limit is None else limit - nbytes]
            nbytes += len(data)
            out.write(data)
            if nbytes == limit:
                break
    _split_rounds(packed, nbytes, repeat, tmp, say)


def _split_rounds(packed: Path, nbytes: int, repeat: int, tmp: Path, say: Any) -> None:
    """One compressed file scanned in ranges and as one shard, by one worker and by two."""
    target = str(tmp / "out")
    cmds = {
        "one shard, 1 worker": [*scan_cmd([str(packed)], target, 1), "--no-split-gzip"],
        "one shard, 2 workers": [*scan_cmd([str(packed)], target, 2), "--no-split-gzip"],
        "ranges, 1 worker": [*scan_cmd([str(packed)], target, 1), "--split-gzip"],
        "ranges, 2 workers": [*scan_cmd([str(packed)], target, 2), "--split-gzip"],
    }
    rounds = alternating_rounds(cmds, repeat, lambda: shutil.rmtree(target, ignore_errors=True))
    _times, med, capacities = rounds
    say_rounds(
        say,
        f"one {packed.name.split('.', 1)[1]} of {nbytes / 1e6:.0f} MB of text ({packed.stat().st_size / 1e6:.0f} MB stored)",
        rounds,
        nbytes,
        "x 1 shard",
        lambda label: "one shard, 1 worker",
    )
    say(
        f"two workers over the ranges against one: {med['ranges, 1 worker'] / med['ranges, 2 workers']:.2f}x, "
        f"against one shard: {med['one shard, 1 worker'] / med['ranges, 2 workers']:.2f}x "
        f"(one shard, 2 workers: {med['one shard, 2 workers'] / med['ranges, 2 workers']:.2f}x), "
        f"beside a median two-process capacity of {sorted(capacities)[len(capacities) // 2]:.2f}"
    )
