"""The scan pipeline in this process (the in-process engine): inputs, compression, shards,
records, resume, rejected inputs and bounded buffers (issues 3 and 9)."""

from __future__ import annotations

import bz2
import contextlib
import errno
import gzip
import io
import itertools
import json
import lzma
import os
import random
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from extractor.engines.inprocess import InProcessEngine
from extractor.match import find_dois, find_spans
from extractor.match.jsonstr import JsonStringDecoder
from extractor.match.pdf import MAX_JOINS
from extractor.pipeline import ScanConfig, ShardResult, ShardSpec, read
from extractor.pipeline.decode import byte_offsets, clean
from extractor.pipeline.errors import InputError
from extractor.pipeline.output import output_folder
from extractor.pipeline.parts import shard_paths
from extractor.pipeline.run import Observer, run_scan
from extractor.pipeline.search import hits_in_stream, unit_docs
from extractor.pipeline.shard import run_shard, work
from extractor.pipeline.sinks import OccurrenceSink
from extractor.pipeline.table import HAVE_C
from extractor.pipeline.units import chunk_counts, no_progress
from extractor.pipeline.windows import MappedSource, map_file

from .helpers import PIECES, TEXT, make_corpus, run_json, scan_here, table

BLOCK = 1 << 20


def test_same_text_in_every_compression_format(tmp_path: Path) -> None:
    data = TEXT.encode()
    src = tmp_path / "in"
    src.mkdir()
    (src / "plain.txt").write_bytes(data)
    (src / "g.txt.gz").write_bytes(gzip.compress(data))
    (src / "b.bz2").write_bytes(bz2.compress(data))
    (src / "x.txt.xz").write_bytes(lzma.compress(data))
    (src / "z.zst").write_bytes(zstandard.ZstdCompressor().compress(data))
    (src / "gz-named-txt.txt").write_bytes(gzip.compress(data))  # magic bytes decide, not names
    out = tmp_path / "out"
    scan_here([src], out)
    by_source: dict[str, set[tuple[str, int, int]]] = {}
    for m in table(out, "mentions"):
        by_source.setdefault(os.path.basename(m["source"]), set()).add(
            (m["doi"], m["count"], m["first_byte_offset"])
        )
    assert len(by_source) == 6
    expected = by_source["plain.txt"]
    raw = TEXT.encode()
    assert expected == {
        ("10.1000/182", 2, raw.index(b"doi:10.1000/182")),
        ("10.1038/nature12373", 1, raw.index(b"https://doi.org/10.1038")),
        ("10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-o", 1, raw.index(b"10.1002")),
    }
    assert all(v == expected for v in by_source.values())
    dois = {d["doi"]: d for d in table(out, "dois")}
    assert dois["10.1000/182"]["occurrences"] == 12 and dois["10.1000/182"]["documents"] == 6


def test_nul_byte_after_first_read_buffer_does_not_end_file(tmp_path: Path) -> None:
    body = ("filler words " * 80 + "\n") * (BLOCK // 1000 + 10)
    f = tmp_path / "nul.txt"
    f.write_bytes(b"doi:10.1000/first\n" + body.encode() + b"\x00\x00 doi:10.1000/after-nul\x00 end\n")
    out = tmp_path / "out"
    scan_here([f], out)
    assert {m["doi"] for m in table(out, "mentions")} == {"10.1000/first", "10.1000/after-nul"}


def test_line_longer_than_read_block(tmp_path: Path) -> None:
    filler = "x" * 100 + " "
    line = filler * (BLOCK // 101 + 50)
    doi_at = len(line) // 2
    line = line[:doi_at] + " doi:10.1000/in-the-middle " + line[doi_at:] + " https://doi.org/10.1000/at-end"
    f = tmp_path / "long.txt"
    f.write_text(line)
    out = tmp_path / "out"
    scan_here([f], out)
    rows = {m["doi"]: m for m in table(out, "mentions")}
    assert set(rows) == {"10.1000/in-the-middle", "10.1000/at-end"}
    raw = f.read_bytes()
    for m in rows.values():
        assert raw[m["first_byte_offset"] :].startswith(m["first_raw"].encode())


def test_doi_straddling_a_shard_cut_found_exactly_once(tmp_path: Path) -> None:
    lines = [f"line {i} cites doi:10.1234/item.{i} in the text\n" for i in range(4000)]
    lines[1000] = "a label at the end of a line DOI:\n"  # label and DOI on two lines, across a cut
    lines[1001] = "10.1234/across-the-cut and more\n"
    data = "".join(lines).encode()
    f = tmp_path / "big.txt"
    f.write_bytes(data)
    whole, split = tmp_path / "whole", tmp_path / "split"
    scan_here([f], whole)
    for cut in range(40_000, 50_000, 2500):
        scan_here([f], split, force=True, shard_size=cut)
        assert run_json(split)["shards"] > 1
        assert table(split, "mentions") == table(whole, "mentions")
        assert table(split, "dois") == table(whole, "dois")
    assert any(m["doi"] == "10.1234/across-the-cut" for m in table(whole, "mentions"))


def test_records_without_text_are_named_with_their_line_or_row(tmp_path: Path) -> None:
    """Issue 15: a malformed line, or a text that is not a string, was only a count in _run.json."""
    jl = tmp_path / "recs.jsonl"
    lines = ['{"text": "doi:10.1000/1"}', "[1, 2]", '{"text": null}', '{"text": 5}', "{bad", ""]
    lines += ['{"text": ["a"]}', '{"text": {"x": 1}}', '"just a string"']
    jl.write_text("\n".join(lines) + "\n")
    pqf = tmp_path / "recs.parquet"
    pq.write_table(pa.table({"text": ["10.1000/2", None, "x", None]}), pqf, row_group_size=2)
    out = tmp_path / "out"
    scan_here([jl, pqf], out)
    run = run_json(out)
    assert run["records_skipped"] == 9
    by_source = {sk["source"]: sk for sk in run["skipped_records"]}
    assert by_source[str(jl)]["records"] == 7
    assert by_source[str(jl)]["first"] == [
        {"line": 2, "reason": "a JSON array, not an object"},
        {"line": 3, "reason": "'text' is a JSON null, not a string"},
        {"line": 4, "reason": "'text' is a JSON number, not a string"},
        {"line": 5, "reason": "not valid JSON"},
        {"line": 7, "reason": "'text' is a JSON array, not a string"},
    ]
    assert by_source[str(pqf)] == {
        "source": str(pqf),
        "records": 2,
        "first": [{"row": 1, "reason": "'text' is null"}, {"row": 3, "reason": "'text' is null"}],
    }
    assert {m["doi"] for m in table(out, "mentions")} == {"10.1000/1", "10.1000/2"}


def test_a_big_jsonl_file_is_read_in_byte_ranges(tmp_path: Path) -> None:
    """Issue 10: an uncompressed JSONL file larger than the shard size is split at line ends like
    text, so several workers share it; the output equals one shard's, skipped records keep
    their line numbers in the file, and a compressed copy stays one shard."""
    rng = random.Random(5)
    lines = []
    for i in range(6000):
        if i % 997 == 500:
            lines.append("{broken json")
            continue
        body = " ".join(
            rng.choice(["see", "doi:10.1000/182", f"10.1234/r{i}", "Étude", "x"]) for _ in range(12)
        )
        lines.append(json.dumps({"id": f"r{i}", "text": body}, ensure_ascii=i % 2 == 0))
    lines[3000] = json.dumps({"id": "huge", "text": "10.5555/long " + "y" * 200_000})  # past a cut
    data = ("\n".join(lines) + "\n").encode()
    jl = tmp_path / "big.jsonl"
    jl.write_bytes(data)
    whole, split = tmp_path / "whole", tmp_path / "split"
    scan_here([jl], whole, occurrences=True)
    assert run_json(whole)["shards"] == 1
    scan_here([jl], split, occurrences=True, shard_size=50_000)
    assert run_json(split)["shards"] > 10
    for name in ("mentions", "dois", "occurrences"):
        assert table(split, name) == table(whole, name), name
    broken = [
        {"line": i + 1, "reason": "not valid JSON"} for i in range(len(lines)) if lines[i] == "{broken json"
    ]
    for out in (whole, split):
        assert run_json(out)["records_skipped"] == len(broken)
        assert run_json(out)["skipped_records"][0]["first"] == broken[:5]
        assert run_json(out)["documents"] == 6000 - len(broken)
        assert run_json(out)["bytes_read"] == len(data)
    gz = tmp_path / "big.jsonl.gz"
    gz.write_bytes(gzip.compress(data))
    scan_here([gz], tmp_path / "gz", shard_size=50_000)
    assert run_json(tmp_path / "gz")["shards"] == 1
    dois = [(r["doi"], r["occurrences"], r["documents"]) for r in table(whole, "dois")]
    assert [(r["doi"], r["occurrences"], r["documents"]) for r in table(tmp_path / "gz", "dois")] == dois


def test_jsonl_and_parquet_records(tmp_path: Path) -> None:
    recs = [
        {"id": "a", "text": "doi:10.1000/182 and doi:10.1000/182"},
        {"id": 7, "text": "<p>10.1038/nature12373</p>"},
        {"id": "c", "body": "no text field"},
        {"id": "d", "text": "nothing here"},
    ]
    jl = tmp_path / "docs.jsonl"
    jl.write_text("\n".join(json.dumps(r) for r in recs) + "\nnot json\n")
    pqf = tmp_path / "docs.parquet"
    pq.write_table(pa.table({"doc_id": ["p1", "p2"], "content": ["https://doi.org/10.1000/182", "x"]}), pqf)
    out = tmp_path / "out"
    scan_here([jl], out)
    rows = [(m["record"], m["doi"], m["count"]) for m in table(out, "mentions")]
    assert sorted(rows) == [("7", "10.1038/nature12373", 1), ("a", "10.1000/182", 2)]
    assert run_json(out)["records_skipped"] == 2
    assert run_json(out)["skipped_records"] == [
        {
            "source": str(jl),
            "records": 2,
            "first": [{"line": 3, "reason": "no 'text' field"}, {"line": 5, "reason": "not valid JSON"}],
        }
    ]
    out2 = tmp_path / "out2"
    scan_here([pqf], out2, text_field="content", id_field="doc_id")
    assert [(m["record"], m["doi"], m["first_char_offset"]) for m in table(out2, "mentions")] == [
        ("p1", "10.1000/182", 0)
    ]


def test_rerun_skips_completed_shards(tmp_path: Path) -> None:
    src = make_corpus(tmp_path)
    out = tmp_path / "out"
    scan_here([src], out, keep_work=True)
    first = table(out, "mentions")
    scan_here([src], out, keep_work=True)
    assert run_json(out)["shards_resumed"] == run_json(out)["shards"]
    assert table(out, "mentions") == first
    scan_here([src], out, force=True)
    assert run_json(out)["shards_resumed"] == 0


def test_a_complete_run_leaves_only_its_result(tmp_path: Path) -> None:
    """Issue 13: a 4-file input left 33 files, `_work/` 4x the size of `mentions/`. After a
    complete run only the datasets and _run.json remain (and the folder's marker); --keep-work
    keeps the partial files for an incremental rerun."""
    src = make_corpus(tmp_path)
    out = tmp_path / "out"
    scan_here([src], out, occurrences=True)
    assert sorted(os.listdir(out)) == [
        ".doi-extract",
        ".doi-extract.lock",
        "_run.json",
        "dois",
        "mentions",
        "occurrences",
    ]
    first = table(out, "mentions")
    scan_here([src], out, occurrences=True)  # nothing to resume from: read again, same result
    assert run_json(out)["shards_resumed"] == 0 and table(out, "mentions") == first
    kept = tmp_path / "kept"
    scan_here([src], kept, keep_work=True)
    assert {"_work", "_shards"} <= set(os.listdir(kept))


def test_rejected_inputs_reported_while_others_processed(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("doi:10.1000/182\n")
    truncated = tmp_path / "trunc.gz"
    truncated.write_bytes(gzip.compress(b"doi:10.1000/lost\n" * 1000)[:-30])
    binary = tmp_path / "image.bin"
    binary.write_bytes(bytes(range(256)) * 64)
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n")
    bad_utf8 = tmp_path / "latin1.txt"
    bad_utf8.write_bytes("caf\xe9 doi:10.1000/latin\n".encode("latin-1"))
    out = tmp_path / "out"
    report = scan_here([good, truncated, binary, pdf, bad_utf8, tmp_path / "missing.txt"], out)
    run = run_json(out)
    reasons = {os.path.basename(r["source"]): r["reason"] for r in run["rejected"]}
    assert reasons == {os.path.basename(r["source"]): r["reason"] for r in report.rejected}
    assert set(reasons) == {"trunc.gz", "image.bin", "paper.pdf", "missing.txt"}
    assert "truncated" in reasons["trunc.gz"] or "EOF" in reasons["trunc.gz"]
    assert "PDF" in reasons["paper.pdf"]
    assert {m["doi"] for m in table(out, "mentions")} == {"10.1000/182", "10.1000/latin"}
    assert run["invalid_bytes_replaced"] == 1


@pytest.mark.parametrize("flush_rows", [50_000, 1_000], ids=["buffered", "flushed-mid-input"])
def test_an_input_rejected_part_way_contributes_no_rows(tmp_path: Path, flush_rows: int) -> None:
    """Issue 9: a gzip cut at three quarters is rejected, and none of the rows read before the
    cut reach the output, whether they were still buffered or already written to a part file."""
    data = b"".join(b"see doi:10.1000/line.%d here\n" % i for i in range(200_000))
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(gzip.compress(data)[: len(gzip.compress(data)) * 3 // 4])
    group = tmp_path / "group"
    group.mkdir()
    (group / "a.txt").write_text("doi:10.1000/before\n")
    (group / "b.txt.gz").write_bytes(cut.read_bytes())  # mid-group, with small files around it
    (group / "c.txt").write_text("doi:10.1000/after\n")
    for inputs, want in (([cut], set()), ([group], {"10.1000/before", "10.1000/after"})):
        out = tmp_path / f"out-{len(want)}"
        report = scan_here(
            inputs, out, flush_rows=flush_rows, occurrences=True, shard_size=1 << 30, keep_work=True
        )
        assert [os.path.basename(r["source"]) for r in report.rejected] in (["cut.txt.gz"], ["b.txt.gz"])
        assert {m["doi"] for m in table(out, "mentions")} == want
        assert {o["doi"] for o in table(out, "occurrences")} == want
        assert run_json(out)["hits"] == len(want) == len(table(out, "occurrences"))
        if flush_rows < 50_000 and inputs == [cut]:
            assert len(list((out / "_work" / "parts").glob("*.arrow"))) > 1  # rows had been written


def test_output_schema_is_explicit(tmp_path: Path) -> None:
    src = make_corpus(tmp_path)
    out = tmp_path / "out"
    scan_here([src], out)
    files = sorted((out / "mentions").glob("part-*.parquet"))
    assert files
    schema = pq.read_schema(files[0])
    assert schema.names == [
        "source",
        "record",
        "doi",
        "count",
        "first_byte_offset",
        "first_char_offset",
        "first_line",
        "first_raw",
        "forms",
    ]
    assert schema.field("forms").type == pa.list_(pa.string())
    assert pq.ParquetFile(files[0]).metadata.row_group(0).column(0).compression == "ZSTD"
    row = next(
        m for m in table(out, "mentions") if m["source"].endswith("page.html") and m["doi"] == "10.1000/182"
    )
    assert row["forms"] == ["resolver-url"] and row["first_raw"] == "https://doi.org/10.1000%2F182"


def test_enormous_jsonl_record_is_streamed_not_held(tmp_path: Path) -> None:
    filler = "lorem ipsum dolor – sit amet, consectetur adipiscing élit 😀 " * 40  # offsets count characters
    parts = [filler + f"doi:10.1234\\/rec.{i}\\n" for i in range(400)]  # JSON escapes inside
    big_text = "".join(parts)
    f = tmp_path / "big.jsonl"
    f.write_text(
        '{"id": "first", "text": "' + big_text + '"}\n'
        '{"text": "' + big_text + '", "id": 99}\n'
        '{"id": "small", "text": "doi:10.1234/small"}\n',
        encoding="utf-8",
    )
    config = ScanConfig(out=str(tmp_path / "out"), buckets=4, occurrences=True, max_record_bytes=1 << 20)
    spec = ShardSpec(0, str(f), str(f), "jsonl", None, 0, -1, "k")
    res = run_shard(spec, config, no_progress)
    assert res.error is None and res.documents == 3 and res.skipped_records == 0
    occ = pq.read_table(shard_paths(config.out, spec).occurrence_file(0)).to_pylist()
    by_record: dict[str | None, list[dict[str, Any]]] = {}
    for row in occ:
        by_record.setdefault(row["record"], []).append(row)
    assert set(by_record) == {"first", "99", "small"}
    decoded = json.loads('"' + big_text + '"')
    for rid in ("first", "99"):
        rows = by_record[rid]
        assert [r["doi"] for r in rows] == [f"10.1234/rec.{i}" for i in range(400)]
        assert all(decoded[r["offset"] :].startswith(r["raw"]) for r in rows)  # character offsets


def test_transient_errors_are_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import extractor.pipeline.shard as shard

    f = tmp_path / "a.txt"
    f.write_text("doi:10.1000/182\n")
    config = ScanConfig(out=str(tmp_path / "out"), buckets=2)
    spec = ShardSpec(0, str(f), str(f), "text", None, 0, -1, "k")
    calls = []
    real = shard.run_shard

    def flaky(*args: Any) -> Any:
        calls.append(1)
        if len(calls) < 3:
            raise InputError("Input/output error") from OSError(errno.EIO, "Input/output error")
        return real(*args)

    monkeypatch.setattr(shard, "run_shard", flaky)
    assert work(spec, config, no_progress, sleep=0).error is None and len(calls) == 3
    calls.clear()
    monkeypatch.setattr(shard, "run_shard", lambda *a: (_ for _ in ()).throw(InputError("not gzip")))
    assert work(spec, config, no_progress, sleep=0).error == "not gzip"


def test_small_files_are_grouped_and_a_bad_one_rejected_alone(tmp_path: Path) -> None:
    src = tmp_path / "many"
    src.mkdir()
    for i in range(300):
        (src / f"f{i:03d}.txt").write_text(f"see doi:10.1000/file.{i}\n")
    (src / "f150.txt.gz").write_bytes(gzip.compress(b"doi:10.1000/lost\n" * 500)[:-20])  # corrupt, mid-group
    out = tmp_path / "out"
    scan_here([src], out, shard_size=4000)
    run = run_json(out)
    assert 1 < run["shards"] < 20  # not one shard per file
    assert [os.path.basename(r["source"]) for r in run["rejected"]] == ["f150.txt.gz"]
    assert {m["doi"] for m in table(out, "mentions")} == {f"10.1000/file.{i}" for i in range(300)}
    assert run["documents"] == 300
    scan_here([src], out, shard_size=4000)  # resumed: still reports the rejected input
    assert [os.path.basename(r["source"]) for r in run_json(out)["rejected"]] == ["f150.txt.gz"]


def test_bounded_buffers_give_the_same_output(tmp_path: Path) -> None:
    """Spilling part files and chunking a document's mentions change memory, not results."""
    src = make_corpus(tmp_path)
    (src / "records.jsonl").write_text(
        "\n".join(json.dumps({"id": i, "text": f"doi:10.1000/r{i} doi:10.1000/r{i}"}) for i in range(40))
        + "\n"
    )

    def run(out: Path, **small: Any) -> list[list[dict[str, Any]]]:
        scan_here([src], out, buckets=4, occurrences=True, shard_size=5000, keep_work=True, **small)
        return [table(out, n) for n in ("mentions", "dois", "occurrences")]

    plain = run(tmp_path / "a")
    spilled = run(tmp_path / "b", flush_rows=7, max_mentions=5)
    assert spilled == plain
    assert len(list((tmp_path / "b" / "_work" / "parts").glob("*.arrow"))) > len(
        list((tmp_path / "a" / "_work" / "parts").glob("*.arrow"))
    )


@pytest.mark.parametrize("fmt", ["gz", "bz2", "xz", "zst"])
def test_corrupt_archive_of_every_format_is_rejected_not_fatal(tmp_path: Path, fmt: str) -> None:
    data = b"doi:10.1000/182\n" * 2000
    compressors: dict[str, Callable[[bytes], bytes]] = {
        "gz": gzip.compress,
        "bz2": bz2.compress,
        "xz": lzma.compress,
        "zst": zstandard.ZstdCompressor().compress,
    }
    comp = compressors[fmt]
    blob = comp(data)
    (tmp_path / f"garbage.{fmt}").write_bytes(blob[:6] + bytes(range(256)) * 4)  # magic, then noise
    (tmp_path / f"truncated.{fmt}").write_bytes(blob[: len(blob) // 2])
    (tmp_path / "good.txt").write_text("doi:10.1000/good\n")
    out = tmp_path / "out"
    scan_here([tmp_path / f"garbage.{fmt}", tmp_path / f"truncated.{fmt}", tmp_path / "good.txt"], out)
    assert {os.path.basename(r["source"]) for r in run_json(out)["rejected"]} == {
        f"garbage.{fmt}",
        f"truncated.{fmt}",
    }
    assert {m["doi"] for m in table(out, "mentions")} == {"10.1000/good"}


def _large_gzip_text(lines: int) -> bytes:
    """Text that gzip leaves larger than read.READ_AHEAD_MIN, so it is read ahead in a thread."""
    rng = random.Random(7)
    return b"".join(
        b"%08x %s doi:10.%d/%x.%x\n"
        % (n, rng.randbytes(24).hex().encode(), 1000 + n % 97, rng.getrandbits(40), n)
        for n in range(lines)
    )


def test_a_large_gzip_read_ahead_gives_what_its_plain_text_gives(tmp_path: Path) -> None:
    """Issue 14: a gzip file of READ_AHEAD_MIN or more is decompressed in a thread ahead of the
    search; its rows are those of the same text uncompressed, and no thread is left behind."""
    data = _large_gzip_text(60_000)
    blob = gzip.compress(data, compresslevel=1)
    assert len(blob) >= read.READ_AHEAD_MIN
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "refs.txt").write_bytes(data)
    (tmp_path / "b" / "refs.txt").write_bytes(blob)  # the same name: sources compare equal
    threads = threading.active_count()
    plain = scan_here([tmp_path / "a"], tmp_path / "out-a", shard_size=1 << 40)
    packed = scan_here([tmp_path / "b"], tmp_path / "out-b")
    assert threading.active_count() == threads
    assert packed.summary["hits"] == plain.summary["hits"] == 60_000
    rows = [
        [{k: v for k, v in m.items() if k != "source"} for m in table(tmp_path / out, "mentions")]
        for out in ("out-a", "out-b")
    ]
    assert rows[0] == rows[1]


@pytest.mark.parametrize("damage", ["truncated", "garbled"])
def test_a_large_damaged_gzip_read_ahead_is_rejected_not_fatal(tmp_path: Path, damage: str) -> None:
    """The read-ahead thread's error reaches the shard as a plain reader's would: the input is
    rejected with its reason, the scan goes on, and the thread stops."""
    blob = gzip.compress(_large_gzip_text(60_000), compresslevel=1)
    cut = len(blob) * 2 // 3
    bad = blob[:cut] if damage == "truncated" else blob[:cut] + bytes(range(256)) * 64 + blob[cut:]
    (tmp_path / "bad.txt.gz").write_bytes(bad)
    (tmp_path / "good.txt").write_text("doi:10.1000/good\n")
    threads = threading.active_count()
    out = tmp_path / "out"
    scan_here([tmp_path / "bad.txt.gz", tmp_path / "good.txt"], out)
    assert threading.active_count() == threads
    assert [os.path.basename(r["source"]) for r in run_json(out)["rejected"]] == ["bad.txt.gz"]
    assert "10.1000/good" in {m["doi"] for m in table(out, "mentions")}


def test_multi_frame_zstd_is_read_to_its_end(tmp_path: Path) -> None:
    # Concatenated frames (pzstd, cat a.zst b.zst) are one stream: every frame is read.
    z = zstandard.ZstdCompressor()
    f = tmp_path / "frames.zst"
    f.write_bytes(z.compress(b"doi:10.1000/first\n" * 100) + z.compress(b"doi:10.1000/second\n" * 100))
    out = tmp_path / "out"
    scan_here([f], out)
    assert {(m["doi"], m["count"]) for m in table(out, "mentions")} == {
        ("10.1000/first", 100),
        ("10.1000/second", 100),
    }


def _zstd_streams() -> list[list[bytes]]:
    """Streams as their frames, of every header shape: content size or not, checksum or not,
    levels, a dictionary id, empty, RLE-heavy, several frames and skippable frames."""
    text = b"doi:10.1000/182 and more text\n" * 3000
    skippable = b"\x5a\x2a\x4d\x18" + (6).to_bytes(4, "little") + b"hello!"
    dict_data = zstandard.train_dictionary(
        1024, [b"sample %d doi:10.1000/%d\n" % (i, i) * 20 for i in range(200)]
    )
    frames = [
        zstandard.ZstdCompressor().compress(text),
        zstandard.ZstdCompressor(level=19, write_checksum=True).compress(text),
        zstandard.ZstdCompressor(write_content_size=False).compress(b"x" * 300_000),
        zstandard.ZstdCompressor().compress(b""),
        zstandard.ZstdCompressor(dict_data=dict_data, write_dict_id=True).compress(text[:500]),
    ]
    return [[f] for f in frames] + [[frames[0], skippable, frames[1], frames[3]], [skippable, frames[2]]]


def test_zstd_frame_walk_knows_where_every_frame_ends() -> None:
    """ZstdFrames (RFC 8878 §3.1) is what tells a truncated zstd stream from a whole one: fed
    any stream cut anywhere, it is complete exactly at the ends of frames."""
    for parts in _zstd_streams():
        blob = b"".join(parts)
        ends = set(itertools.accumulate(len(p) for p in parts))
        for cut in sorted({*range(0, len(blob), max(1, len(blob) // 300)), *ends, *(e - 1 for e in ends)}):
            frames = read.ZstdFrames()
            for i in range(0, cut, 7):  # fed in small pieces, as headers straddle reads
                frames.feed(blob[i : min(i + 7, cut)])
            assert frames.complete == (cut == 0 or cut in ends), (cut, len(blob))


def test_a_truncated_zstd_stream_is_an_error_at_any_cut(tmp_path: Path) -> None:
    for parts in _zstd_streams()[:3]:
        blob = parts[0]
        for cut in range(4, len(blob), max(1, len(blob) // 40)):  # 4: the magic, or it is no zstd
            f = tmp_path / "cut.zst"
            f.write_bytes(blob[:cut])
            with pytest.raises((EOFError, zstandard.ZstdError)):
                read.read_all(str(f))


def test_a_zstd_bomb_is_read_in_bounded_memory(tmp_path: Path) -> None:
    """Issue 15: 98 KB of zstd (3 GiB of one byte) took a worker to 2.1 GB, as one call of
    zstandard's decompressobj gives all that its input holds. Read here in a fresh process."""
    bomb = tmp_path / "bomb.zst"
    cctx = zstandard.ZstdCompressor(level=19)
    with open(bomb, "wb") as f, cctx.stream_writer(f) as w:
        block = b"a" * (1 << 24)
        for _ in range(48):  # 768 MiB
            w.write(block)
    assert bomb.stat().st_size < 100_000
    code = (
        "import resource, sys\n"
        "from extractor.pipeline.read import open_stream\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "s, _ = open_stream(sys.argv[1])\n"
        "n = 0\n"
        "while (b := s.read(1 << 20)):\n"
        "    n += len(b)\n"
        "print(n, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(bomb)], capture_output=True, text=True, check=True)
    n, grown_mb = map(int, out.stdout.split())
    assert n == 48 << 24
    assert grown_mb < 32, out.stdout


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses file names that are not UTF-8")
def test_file_name_that_is_not_utf8(tmp_path: Path) -> None:
    d = tmp_path / "in"
    d.mkdir()
    with open(os.path.join(os.fsencode(d), b"caf\xe9-refs.txt"), "wb") as f:
        f.write(b"doi:10.1000/182\n")
    out = tmp_path / "out"
    scan_here([d], out)
    assert [m["source"] for m in table(out, "mentions")] == [f"{d}/caf\\xe9-refs.txt"]


def test_lone_surrogates_in_json_records_are_not_fatal(tmp_path: Path) -> None:
    f = tmp_path / "r.jsonl"
    f.write_text('{"id": "a\\udce9", "text": "doi:10.1000/x\\udce9y and doi:10.1000/182 \\ud800"}\n')
    out = tmp_path / "out"
    scan_here([f], out, occurrences=True)
    rows = table(out, "occurrences")
    assert [(r["record"], r["doi"]) for r in rows] == [
        ("a\\xe9", "10.1000/x"),  # spec §4: U+FFFD ends a DOI
        ("a\\xe9", "10.1000/182"),
    ]


def test_json_ld_surrogate_pair_is_one_character_in_scan_and_find(tmp_path: Path) -> None:
    """Issue 9: the HTML view of JSON-LD decodes escapes as the JSONL reader does; a surrogate
    pair is one character, never two lone surrogates that reject the page."""
    page = (
        '<html><head><script type="application/ld+json">{"@id": "https://doi.org/10.1000/smile\\ud83d\\ude00",'
        ' "sameAs": "doi:10.1000/lone\\ud83dx"}</script></head><body><p>text</p></body></html>'
    )
    f = tmp_path / "page.html"
    f.write_text(page)
    out = tmp_path / "out"
    report = scan_here([f], out, occurrences=True)
    assert report.rejected == []
    assert {o["doi"] for o in table(out, "occurrences")} == {"10.1000/smile😀", "10.1000/lone"}
    from extractor import find_dois

    assert [h.doi for h in find_dois(page, "html")] == ["10.1000/smile😀", "10.1000/lone"]
    import subprocess

    p = subprocess.run(
        [sys.executable, "-m", "extractor.cli", "find", str(f)], capture_output=True, text=True, timeout=60
    )
    assert p.returncode == 0 and p.stdout.split() == ["10.1000/smile😀", "10.1000/lone"]


def test_no_dois_still_gives_readable_datasets_and_output_is_never_input(tmp_path: Path) -> None:
    (tmp_path / "prose.txt").write_text("nothing to see here\n")
    out = tmp_path / "out"
    scan_here([tmp_path], out)
    assert table(out, "mentions") == [] and table(out, "dois") == []
    assert pq.read_schema(next((out / "dois").glob("*.parquet"))).names == [
        "doi",
        "occurrences",
        "documents",
        "first_source",
    ]
    (tmp_path / "refs.txt").write_text("doi:10.1000/182\n")
    scan_here([tmp_path], out)  # out/ lies inside the scanned folder
    assert [os.path.basename(i["source"]) for i in run_json(out)["inputs"]] == ["prose.txt", "refs.txt"]
    assert run_json(out)["rejected"] == []


def _mixed_text(n: int) -> bytes:
    """Plain text with DOIs in many forms, non-ASCII prose, invalid bytes and long lines."""
    forms = [
        "10.1000/{i}",
        "doi:10.1000/{i}",
        "https://doi.org/10.1000/X{i}",
        "“10.1002/(SICI){i}”",
        "https://x.org/doi/abs/10.1000/{i}/abstract",
        "?id=doi%3A10.1000%2F{i}&s=1",
        "urn:doi:10.1000/{i}",
    ]
    parts = []
    for i in range(n):
        parts.append(f"Étude {i} – voir " + forms[i % len(forms)].format(i=i) + (".\n" if i % 9 else " "))
        if i % 97 == 0:
            parts.append("x" * 3000)
    data = "".join(parts).encode()
    return data[:5000] + b"\xff\xe2\x82 " + data[5000:]


def _occurrences(tmp_path: Path) -> OccurrenceSink:
    return OccurrenceSink(shard_paths(str(tmp_path), ShardSpec(0, "", "", "text", None)), 1 << 30)


@pytest.mark.parametrize("ranges", [1, 7], ids=["whole", "byte-ranges"])
def test_mapped_and_streamed_plain_text_agree_with_the_reference(tmp_path: Path, ranges: int) -> None:
    # many windows and blocks, each boundary a chance to err; the small file is mapped too
    config = ScanConfig(
        out=str(tmp_path), buckets=4, occurrences=True, map_window=64 << 10, map_min=0, block_size=48 << 10
    )
    data = _mixed_text(30_000)
    text = data.decode("utf-8", "surrogateescape")
    spans = find_spans(clean(text)[0])
    starts = byte_offsets(text, [s.start for s in spans])
    want = sorted((b, s.doi, str(s.form)) for b, s in zip(starts, spans, strict=True))
    cuts = [0] + [data.index(b"\n", len(data) * k // ranges) + 1 for k in range(1, ranges)] + [-1]
    for name, payload, comp in (("a.txt", data, False), ("b.txt.gz", gzip.compress(data), True)):
        (tmp_path / name).write_bytes(payload)
        got, bad, counts = [], 0, 0
        for a, b in itertools.pairwise(cuts):
            spec = ShardSpec(0, name, str(tmp_path / name), "text", None, a, -1 if comp else b)
            occ = _occurrences(tmp_path)
            result = ShardResult(0)
            docs = list(unit_docs(spec, config, no_progress, result, occ))
            got += list(zip(occ.cols["offset"], occ.cols["doi"], occ.cols["form"], strict=True))
            bad += result.invalid_bytes
            counts += sum(sum(chunk_counts(d.chunk)) for d in docs)
            if comp:
                break  # a compressed file is one shard
        assert sorted(got) == want, name
        assert counts == len(want) and bad == 3, name
    with open(tmp_path / "a.txt", "rb") as f:
        mapped = map_file(f, config.map_min)
        assert mapped is not None  # the plain file above did take the memory-mapped path
        mapped.close()


def test_windows_are_paced_by_their_hits(tmp_path: Path) -> None:
    """Issue 15: text of nothing but distinct DOIs held a whole 8 MiB window's worth of them
    (240,000) before they were handed on. Windows now shrink where hits are dense and grow back
    where they are sparse, and hits across their changing boundaries are still found once."""
    dense = "".join(f"doi:10.1000/{i} " for i in range(150_000)).encode()
    sparse = b"no identifier on this line at all, only words\n" * 60_000
    data = sparse + dense + sparse + dense[:100_000]
    (tmp_path / "d.txt").write_bytes(data)
    with open(tmp_path / "d.txt", "rb") as f, map_file(f, 0) as mm:  # type: ignore[union-attr]
        src = MappedSource(mm, f.fileno(), 0, len(data), 8 << 20)
        sizes = []
        for hits in (0, 0, 100_000, 100_000, 40_000, 0, 0, 0, 0):
            sizes.append(src.size)
            src.pace(hits)
        src.release()
    assert sizes[0] == MappedSource.PACE_MIN
    assert sizes[2] == 4 << 20 and sizes[3] < sizes[2] // 3 and min(sizes) >= MappedSource.PACE_MIN // 4
    assert sizes[-1] > sizes[5] and max(sizes) <= 8 << 20
    spans = find_spans(data.decode())
    want = sorted((s.start, s.doi) for s in spans)
    config = ScanConfig(out=str(tmp_path), occurrences=True, map_min=0)
    occ = _occurrences(tmp_path)
    list(
        unit_docs(
            ShardSpec(0, "d.txt", str(tmp_path / "d.txt"), "text", None),
            config,
            no_progress,
            ShardResult(0),
            occ,
        )
    )
    assert sorted(zip(occ.cols["offset"], occ.cols["doi"], strict=True)) == want
    assert len(want) > 150_000


def test_a_bucket_too_large_to_hold_is_merged_in_pieces_to_the_same_rows(tmp_path: Path) -> None:
    """Issue 15: one bucket's partial rows were merged at once, so the merge grew with the
    input (a 2 GB document, 624 MB). Over `merge_rows` a bucket is split by a finer hash and
    merged piece by piece: the same rows, and each piece holds at most about merge_rows."""
    src = tmp_path / "in"
    src.mkdir()
    for k in range(3):
        body = "".join(f"doi:10.1000/{i % 5000} and 10.1000/{(i * 7) % 4000}x. " for i in range(k, 9000, 3))
        (src / f"f{k}.txt").write_text(body + "\n" + body[: len(body) // 2])
    whole, split = tmp_path / "whole", tmp_path / "split"
    scan_here([src], whole, buckets=2, shard_size=40_000)
    scan_here([src], split, buckets=2, shard_size=40_000, merge_rows=900)
    for name in ("mentions", "dois"):
        key = "source" if name == "mentions" else "doi"
        a = sorted(table(whole, name), key=lambda r: (r[key], r["doi"]))
        b = sorted(table(split, name), key=lambda r: (r[key], r["doi"]))
        assert a == b and len(a) > 5000, name
    pieces = sorted(p.name for p in (split / "dois").iterdir())
    assert len(pieces) > 4 and all(p.startswith(("part-00000-", "part-00001-")) for p in pieces)
    assert max(pq.read_metadata(split / "mentions" / p).num_rows for p in pieces) < 2 * 900
    assert run_json(split)["mentions"] == run_json(whole)["mentions"]
    assert not [p for p in os.listdir(split) if p.startswith(".spill")]


def test_small_buckets_are_merged_as_one_and_large_ones_alone() -> None:
    """Issue 14: a merge per bucket paid its fixed costs 16 times on a small run. Consecutive
    buckets holding together at most a quarter of merge_rows are one job; a larger bucket is a
    job alone. The jobs depend on the rows only (never on the workers), so the output does not
    either."""
    from extractor.pipeline.finalize import _merge_groups
    from extractor.pipeline.parts import PartRef

    def part(rows_by_bucket: dict[int, int]) -> tuple[dict[int, list[PartRef]], list[str]]:
        return {b: [PartRef(f"p{b}", b, 1, r)] for b, r in rows_by_bucket.items()}, []

    config = ScanConfig(out="o", buckets=8, merge_rows=400)  # a group holds at most 100 rows
    parts = [part({0: 20, 1: 30, 3: 40, 4: 10, 5: 600, 6: 5}), None, part({0: 10, 3: 1, 7: 95})]
    got = [
        (first, [(f.path, f.rows) for f in files], rows)
        for first, files, rows in _merge_groups(parts, config)
    ]
    assert got == [
        (0, [("p0", 20), ("p0", 10), ("p1", 30)], 60),
        (3, [("p3", 40), ("p3", 1), ("p4", 10)], 51),
        (5, [("p5", 600)], 600),
        (6, [("p6", 5), ("p7", 95)], 100),
    ]


_LONG_PIECES = [p for p in PIECES if p not in ("\x1c", "\x85")]  # control bytes: a binary file


@given(
    st.lists(st.tuples(st.sampled_from(_LONG_PIECES), st.sampled_from([1, 2, 300, 1200, 2600])), max_size=8)
)
@settings(max_examples=60, deadline=None)
def test_windows_agree_with_the_whole_text_on_long_tokens(pieces: list[tuple[str, int]]) -> None:
    """Spec §4: a candidate too long is dropped with the rest of its token. Issue 15: read in
    windows, a token that ran past a window's end was searched again from the next window on
    (4 of 19,000 fuzz cases found a DOI there that find_dois drops)."""
    data = "".join(p * k for p, k in pieces).encode("utf-8", "surrogateescape")
    text = clean(data.decode("utf-8", "surrogateescape"))[0]
    for kind in ("plain", "pdf"):
        want = [s.doi for s in find_spans(text, kind)]
        got = [h.doi for h in hits_in_stream(io.BytesIO(data), "x.txt", kind, block_size=4096)]
        assert got == want, kind


def test_a_dropped_token_is_passed_over_into_the_next_windows() -> None:
    text = "*" + "10.1000%2F11" * 2600 + ":" * 1200 + "?id=" * 1200 + "10.12345/abc.def" + "-" * 1200 + "ı"
    assert find_spans(text) == []
    assert list(hits_in_stream(io.BytesIO(text.encode()), "x.txt", "plain", block_size=4096)) == []
    assert [
        h.doi
        for h in hits_in_stream(
            io.BytesIO(text.encode() + b" 10.1000/after"), "x.txt", "plain", block_size=4096
        )
    ] == ["10.1000/after"]


@pytest.mark.parametrize("lines", [1078, 1200, 2500])
def test_windows_keep_the_phase_of_joined_pdf_lines(tmp_path: Path, lines: int) -> None:
    """Spec §5: `10.1234/a-` at a line end joins the next line, so a chain of such lines is read
    MAX_JOINS + 1 at a time from its start. Issue 15 (streams fuzz target): a window starting inside
    the chain started it anew, so the DOIs after it were cut at other lines than in the whole text."""
    data = ("1031234=10.1234/a-\n" * lines).encode()
    want = [(s.start, s.doi) for s in find_spans(data.decode(), "pdf")]
    per = MAX_JOINS + 1
    assert len(want) == lines // per + (lines % per > 0)
    got = [(h.start, h.doi) for h in hits_in_stream(io.BytesIO(data), "x.txt", "pdf", block_size=4096)]
    assert got == want
    path = tmp_path / "chain.txt"
    path.write_bytes(data)
    out = tmp_path / "out"
    scan_here([path], out, kind="pdf", occurrences=True, map_min=0, map_window=32 << 10)
    occ = sorted((r["byte_offset"], r["doi"]) for r in table(out, "occurrences"))
    assert occ == want


@pytest.mark.parametrize("kind", ["plain", "pdf"])
def test_windows_resume_by_anchor_where_url_hits_overlap(tmp_path: Path, kind: str) -> None:
    """Spec §4: a URL's DOI starts where its URL starts, up to 512 characters before the `10.`,
    so in one long URL-like token each hit starts before the end of the hit before it. Issue 15
    (streams fuzz target): the next window dropped the hits starting before the last window's
    end, 656 of 1,000 here; windows now resume by anchor, as the whole text does."""
    data = ("ttps://doi.?org/10.1000/182." * 1000).encode()
    want = [(s.start, s.doi) for s in find_spans(data.decode(), kind)]
    hits = list(find_dois(data.decode(), kind))
    assert len(want) == 1000 and hits[1].start < hits[0].end  # overlapping hits
    got = [(h.start, h.doi) for h in hits_in_stream(io.BytesIO(data), "x.txt", kind, block_size=4096)]
    assert got == want
    path = tmp_path / "urls.txt"
    path.write_bytes(data)
    out = tmp_path / "out"
    scan_here([path], out, kind=kind, occurrences=True, map_min=0, map_window=32 << 10, shard_size=9000)
    assert sorted((r["byte_offset"], r["doi"]) for r in table(out, "occurrences")) == want


def _markup(n: int) -> bytes:
    """HTML with DOIs in text, links and entities, non-ASCII prose and an invalid byte."""
    forms = [
        '<a href="https://doi.org/10.1000/{i}">doi:10.1000/{i}</a>',
        "<p>voir 10.1000/É{i}.</p>",
        "<li>https://x.org/doi/abs/10.1000/{i}/abstract</li>",
        "<td>doi&#58;10.1002&#47;{i}</td>",
    ]
    parts = [f"<div>Étude {i} – " + forms[i % len(forms)].format(i=i) + "</div>\n" for i in range(n)]
    data = "".join(parts).encode()
    return data[:5000] + b"\xff" + data[5000:]


@pytest.mark.parametrize("kind", ["html", "pdf"])
def test_python_matcher_windows_agree_with_the_whole_text(tmp_path: Path, kind: str) -> None:
    """The window core with the Python matcher: many small windows give what find_spans gives
    on the whole text, offsets in bytes, whether the file is mapped or streamed."""
    data = _markup(6000) if kind == "html" else _mixed_text(8000)
    text = data.decode("utf-8", "surrogateescape")
    spans = find_spans(clean(text)[0], kind)
    starts = byte_offsets(text, [s.start for s in spans])
    want = sorted((b, s.doi, str(s.form)) for b, s in zip(starts, spans, strict=True))
    assert len(want) > 5000
    for map_min in (0, 1 << 40):  # mapped, then streamed
        config = ScanConfig(
            out=str(tmp_path),
            occurrences=True,
            kind=kind,
            map_window=64 << 10,
            map_min=map_min,
            block_size=48 << 10,
        )
        (tmp_path / "doc.txt").write_bytes(data)
        occ = _occurrences(tmp_path)
        result = ShardResult(0)
        list(
            unit_docs(
                ShardSpec(0, "doc.txt", str(tmp_path / "doc.txt"), "text", kind),
                config,
                no_progress,
                result,
                occ,
            )
        )
        got = sorted(zip(occ.cols["offset"], occ.cols["doi"], occ.cols["form"], strict=True))
        assert got == want, map_min
        assert result.invalid_bytes == clean(text)[1] > 0 and result.bytes_read == len(data)


def test_record_offsets_count_characters_like_the_reference(tmp_path: Path) -> None:
    texts = [
        "Étude – voir doi:10.1000/1 et “10.1000/ÄB”.",
        "😀 " * 50 + "https://doi.org/10.1000/2?x=1",
        "x\udcff 10.1000/3 \u00a010.1000/4",
        "no DOI here",
    ]
    (tmp_path / "r.jsonl").write_text(
        "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(texts))
    )
    spec = ShardSpec(0, "r.jsonl", str(tmp_path / "r.jsonl"), "jsonl", None)
    config = ScanConfig(out=str(tmp_path), buckets=4, occurrences=True)
    occ = _occurrences(tmp_path)
    list(unit_docs(spec, config, no_progress, ShardResult(0), occ))
    want = [
        (str(i), s.start, clean(t[s.start : s.end])[0], str(s.form), s.doi)
        for i, t in enumerate(texts)
        for s in find_spans(clean(t)[0])
    ]
    c = occ.cols
    got = list(zip(c["record"], c["offset"], c["raw"], c["form"], c["doi"], strict=True))
    assert got == want
    assert len(got) == 5


def test_a_small_file_is_searched_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import extractor.pipeline.windows as windows

    calls: list[int] = []
    # HTML is read by the C port where it is built, else by find_spans
    where, name = (windows.native, "html_scan") if windows.native.HAVE_C else (windows, "find_spans")
    real = getattr(where, name)

    def counted(text: Any, *a: Any, **k: Any) -> Any:
        calls.append(len(text))
        return real(text, *a, **k)

    monkeypatch.setattr(where, name, counted)
    page = tmp_path / "p.html"
    page.write_text('<p>See <a href="https://doi.org/10.1000/182">doi:10.1000/182</a>.</p>')
    config = ScanConfig(out=str(tmp_path / "out"), buckets=4)
    docs = list(
        unit_docs(
            ShardSpec(0, "p.html", str(page), "text", None),
            config,
            no_progress,
            ShardResult(0),
            _occurrences(tmp_path),
        )
    )
    assert len(calls) == 1  # the last block is known as such: no second pass over the same text
    assert sum(sum(chunk_counts(d.chunk)) for d in docs) == 2


_JSON_PIECES = [
    "a",
    "é",
    "😀",
    "10.1000/1",
    '\\"',
    "\\\\",
    "\\/",
    "\\n",
    "\\u002F",
    "\\u00e9",
    "\\ud83d\\ude00",
    "\\ude00",
    "\\ud83d",
    "\\uZZZZ",
    " ",
]


@given(
    st.lists(st.sampled_from(_JSON_PIECES), max_size=40),
    st.lists(st.integers(1, 30), min_size=1, max_size=10),
)
@settings(max_examples=500, deadline=None)
def test_streamed_json_string_decodes_like_json_loads(pieces: list[str], cuts: list[int]) -> None:
    body = "".join(pieces)
    raw = body + '"' + ', "id": 1}'
    decoder = JsonStringDecoder()
    out, pos, k = [], 0, 0
    while not decoder.done and pos < len(raw):  # fed in pieces cut anywhere, escapes included
        step = cuts[k % len(cuts)]
        out.append(decoder.feed(raw[pos : pos + step]))
        pos += step
        k += 1
    assert decoder.done and decoder.rest + raw[pos:] == ', "id": 1}'
    # json.loads is the reference, with lone or broken surrogate escapes read as U+FFFD
    want = json.loads('"' + body + '"') if "\\uZZZZ" not in body else None
    if want is not None:
        want = "".join("\ufffd" if 0xD800 <= ord(c) < 0xE000 else c for c in want)
        assert "".join(out) == want


@given(st.lists(st.sampled_from(_JSON_PIECES), max_size=30))
@settings(max_examples=300, deadline=None)
def test_html_json_view_decodes_like_the_streamed_decoder(pieces: list[str]) -> None:
    """One decoder for both: what the JSON-LD view reads equals what the JSONL reader reads."""
    from extractor.match.html import html_views

    body = "".join(pieces).replace("\\uZZZZ", "")
    page = f'<script type="application/ld+json">{{"x": "{body}"}}</script>'
    decoder = JsonStringDecoder()
    streamed = decoder.feed(body + '"')
    assert html_views(page)[2].text == f'{{"x": "{streamed}"}}\n'


def test_kind_and_binary_are_decided_once_per_input(tmp_path: Path) -> None:
    """Issue 15: detected per byte range, one HTML-like line made a range of a plain file read
    as HTML (its DOIs changed with --shard-size)."""
    # An entity in each DOI: read as HTML it is decoded (10.1234/item.7), as plain text not.
    lines = [f"cites doi:10.1234/item&#46;{i} more\n" for i in range(4000)]
    for k in range(1000, 4000, 100):  # markup, but only after the head the kind is decided on
        lines[k] = "<p>a line of markup <b>here</b> <div>and <span>there</span></div></p>\n"
    f = tmp_path / "notes.txt"
    f.write_text("".join(lines))
    whole = tmp_path / "whole"
    scan_here([f], whole, occurrences=True)
    for cut in (20_000, 50_000):
        split = tmp_path / f"split{cut}"
        scan_here([f], split, occurrences=True, shard_size=cut)
        assert run_json(split)["shards"] > 1
        assert table(split, "occurrences") == table(whole, "occurrences")
    assert all("&#46;" in o["doi"] for o in table(whole, "occurrences"))  # plain, as its head says


def test_a_range_of_control_bytes_does_not_reject_part_of_an_input(tmp_path: Path) -> None:
    """Issue 15: binary-ness is the input's, decided on its head: a byte range further on with
    control bytes (a log's escape codes) was rejected alone, the rest of the file kept."""
    lines = [f"cites doi:10.1234/item.{i} here\n" for i in range(6000)]
    lines[3000:3300] = ["\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f\x10\x11\n"] * 300
    f = tmp_path / "log.txt"
    f.write_text("".join(lines))
    for map_min in (0, 1 << 40):  # mapped, then streamed
        out = tmp_path / f"out{map_min}"
        report = scan_here([f], out, shard_size=20_000, map_min=map_min)
        assert run_json(out)["shards"] > 5 and report.rejected == []
        assert len(table(out, "mentions")) == 5700
    (tmp_path / "bin.txt").write_bytes(bytes(range(32)) * 3000)  # binary at its head: the whole input
    report = scan_here([tmp_path / "bin.txt"], tmp_path / "out-bin", shard_size=20_000)
    assert [r["reason"] for r in report.rejected] == ["binary data (control bytes in the first block)"]
    assert run_json(tmp_path / "out-bin")["shards"] == 0


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_special_files_and_the_output_folder_are_rejected_not_waited_for(tmp_path: Path) -> None:
    """Issue 15: a FIFO among the inputs hung the scan; OUT given as an input gave 0 inputs."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text("doi:10.1000/182\n")
    os.mkfifo(src / "pipe")
    out = tmp_path / "out"
    report = scan_here([src], out)
    assert [(os.path.basename(r["source"]), r["reason"]) for r in report.rejected] == [
        ("pipe", "not a regular file (a FIFO, socket or device)")
    ]
    assert [m["doi"] for m in table(out, "mentions")] == ["10.1000/182"]
    report = scan_here([out], out)
    assert [r["reason"] for r in report.rejected] == ["is the output folder, or inside it"]


def test_an_unreadable_directory_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 15: an unreadable directory was skipped unreported. (The fault is injected: this
    machine runs the tests as root, which reads every directory.)"""
    src = tmp_path / "in"
    (src / "locked").mkdir(parents=True)
    (src / "locked" / "a.txt").write_text("doi:10.1000/locked\n")
    (src / "b.txt").write_text("doi:10.1000/182\n")
    real = os.scandir

    def scandir(path: Any = ".") -> Any:
        if not isinstance(path, int) and os.fspath(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    report = scan_here([src], tmp_path / "out")
    assert [(os.path.basename(r["source"]), r["reason"]) for r in report.rejected] == [
        ("locked", "cannot read directory: Permission denied")
    ]
    assert [m["doi"] for m in table(tmp_path / "out", "mentions")] == ["10.1000/182"]


def test_a_file_cut_short_while_it_is_read_is_rejected_not_fatal(tmp_path: Path) -> None:
    """Issue 15: a mapped file truncated during the scan killed the worker (SIGBUS) and the run."""
    f = tmp_path / "growing.txt"
    f.write_bytes(b"".join(b"see doi:10.1000/%d here\n" % i for i in range(400_000)))
    (tmp_path / "other.txt").write_text("doi:10.1000/182\n")
    cut: list[int] = []

    def progress(nbytes: int, nhits: int) -> None:
        if not cut:  # after the first window, another process cuts the file short
            cut.append(1)
            os.truncate(f, 100_000)

    config = ScanConfig(out=str(tmp_path / "out"), map_window=1 << 20, map_min=0)
    spec = ShardSpec(0, str(f), str(f), "text", None)
    with pytest.raises(InputError, match="shrank"):
        list(unit_docs(spec, config, progress, ShardResult(0), _occurrences(tmp_path)))
    f.write_bytes(b"".join(b"see doi:10.1000/%d here\n" % i for i in range(400_000)))
    cut.clear()
    group = ShardSpec(
        0,
        "g",
        str(f),
        "group",
        None,
        files=((str(f), str(f), "text"), ("o", str(tmp_path / "other.txt"), "text")),
    )
    res = run_shard(group, config, progress)
    assert [r["source"] for r in res.rejected] == [str(f)] and "shrank" in res.rejected[0]["reason"]
    assert res.documents == 1 and res.hits == 1


def test_jsonl_record_with_an_invalid_byte_is_read_and_counted(tmp_path: Path) -> None:
    """Issue 15: one invalid UTF-8 byte dropped the whole record, silently."""
    f = tmp_path / "r.jsonl"
    f.write_bytes(b'{"id": "a", "text": "caf\xe9 doi:10.1000/182"}\n{"id": "b", "text": "doi:10.1000/2"}\n')
    out = tmp_path / "out"
    scan_here([f], out)
    assert sorted((m["record"], m["doi"]) for m in table(out, "mentions")) == [
        ("a", "10.1000/182"),
        ("b", "10.1000/2"),
    ]
    run = run_json(out)
    assert run["invalid_bytes_replaced"] == 1 and run["records_skipped"] == 0


def test_streamed_record_reads_its_own_text_not_a_nested_one(tmp_path: Path) -> None:
    """Issue 15: a record over the streaming size whose first "text" key was inside a nested
    object was read from that value; its own text was never searched."""
    body = "lorem ipsum " * 20_000 + "doi:10.1000/own"
    f = tmp_path / "big.jsonl"
    f.write_text(
        json.dumps({"meta": {"id": "m", "text": "doi:10.1000/nested"}, "id": "r1", "text": body})
        + "\n"
        + json.dumps({"text": body, "refs": [{"id": "x"}], "id": "r2"})
        + "\n"
    )
    out = tmp_path / "out"
    scan_here([f], out, max_record_bytes=1 << 16)
    assert sorted((m["record"], m["doi"]) for m in table(out, "mentions")) == [
        ("r1", "10.1000/own"),
        ("r2", "10.1000/own"),
    ]


def test_fast_readers_give_what_the_stdlib_gives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 14: gzip through python-isal and JSONL lines through orjson (the fast extra) read
    every input to the same records as the stdlib — orjson's refusals (lone surrogate escapes,
    NaN, integers over 64 bits, invalid UTF-8) are read by the stdlib — and a corrupt member is
    the same rejected input."""
    from extractor.pipeline import read

    assert read._orjson is not None and read._GzipFile is not gzip.GzipFile  # the fast path is on
    lines = [
        b'{"id": "a", "text": "doi:10.1000/1"}',
        b'{"id": "b", "text": "lone \\ud800 doi:10.1000/2"}',
        b'{"id": "c", "text": "doi:10.1000/3", "score": NaN}',
        b'{"id": 123456789012345678901234567890, "text": "doi:10.1000/4"}',
        b'{"id": "e", "text": "caf\xe9 doi:10.1000/5"}',
        b'{"id": "f", "text": "doi:10.1000/6", "id": "f2"}',
        b"[1, 2]",
        b'{"id": "h", "text": 7}',
        b'{"id": "i" "text": "broken"}',
        b'{"id": "j", "text": "\\u00e9t\\u00e9 doi:10.1000/\\u00e9"}',
    ]
    f = tmp_path / "r.jsonl.gz"
    f.write_bytes(gzip.compress(b"\n".join(lines[:5]) + b"\n") + gzip.compress(b"\n".join(lines[5:]) + b"\n"))
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(f.read_bytes()[:-30])

    def read_both() -> list[Any]:
        got: list[Any] = []
        for path in (f, bad):
            try:
                with read.open_stream(str(path))[0] as stream:
                    recs = [
                        (rid, t if isinstance(t, str) else repr(t), n)
                        for rid, t, n, _meta in read.iter_jsonl_records(stream, "text", "id")
                    ]
                got.extend(recs)
            except (EOFError, OSError) as exc:
                # a truncated input is rejected whole (how far each reader got before it is not
                # a result: isal reads larger steps)
                got.append(("error", type(exc).__name__))
        return got

    fast = read_both()
    monkeypatch.setattr(read, "_orjson", None)
    monkeypatch.setattr(read, "_GzipFile", gzip.GzipFile)
    assert read_both() == fast
    assert [r[0] for r in fast if r[0] != "error"][:6] == [
        "a",
        "b",
        "c",
        "123456789012345678901234567890",
        "e",
        "f2",
    ]
    assert fast[-1] == ("error", "EOFError")


class _Tally(Observer):
    def planned(self, total_bytes: int, shards: int, resumed: int) -> None:
        self.total, self.read = total_bytes, 0

    def progress(self, nbytes: int, nhits: int) -> None:
        self.read += nbytes


@pytest.mark.parametrize("name", ["t.txt.gz", "t.txt.bz2", "t.txt.zst", "t.jsonl.gz", "t.txt", "t.parquet"])
def test_progress_counts_bytes_as_stored_and_ends_at_the_total(tmp_path: Path, name: str) -> None:
    """Issue 13: the planner's total is the files' sizes, but a compressed input reported the
    bytes it decompressed to, so the bar ran past 100 % and vanished."""
    lines = [f"see doi:10.1000/{i} and some words around it" for i in range(20_000)]
    f = tmp_path / name
    if name.endswith(".parquet"):
        pq.write_table(pa.table({"text": lines}), f, row_group_size=5_000)
    else:
        data = (
            "".join(json.dumps({"text": t}) + "\n" for t in lines)
            if ".jsonl" in name
            else "".join(t + "\n" for t in lines)
        ).encode()
        if name.endswith(".gz"):
            data = gzip.compress(data)
        elif name.endswith(".bz2"):
            data = bz2.compress(data)
        elif name.endswith(".zst"):
            data = zstandard.ZstdCompressor().compress(data)
        f.write_bytes(data)
    tally = _Tally()
    with output_folder(str(tmp_path / "out"), False), InProcessEngine(retry_sleep=0) as engine:
        report = run_scan([str(f)], ScanConfig(out=str(tmp_path / "out")), engine, tally)
    assert report.summary["hits"] == 20_000
    assert tally.total == f.stat().st_size
    if name.endswith(".parquet"):  # row groups as stored; the footer is not read as text
        assert 0.9 * tally.total < tally.read <= tally.total
    else:
        assert tally.read == tally.total


@pytest.mark.parametrize("kind", ["plain", "html", "pdf"])
def test_lines_and_offsets_by_unit_whatever_the_shards(tmp_path: Path, kind: str) -> None:
    """Issue 13: a text file's hits carry their line (first_line in mentions/, line in
    occurrences/) and a byte offset; a record's a character offset and no line. A file cut into
    byte ranges gives every range's lines from the file's first line, as one shard does."""
    rng = random.Random(13)
    lines = []
    for i in range(3000):
        words = " ".join(
            rng.choice(["cites", "the", "work", "of", "ünïcode", "😀"]) for _ in range(rng.randrange(0, 12))
        )
        lines.append(f"{words} doi:10.1234/l{i} {words}" if i % 3 == 0 else words)
    data = ("\n".join(lines) + "\n").encode()
    name = {"plain": "t.txt", "html": "t.html", "pdf": "t.pdf.txt"}[kind]
    f = tmp_path / name
    f.write_bytes(data if kind != "html" else b"<html><body>\n" + data + b"</body></html>\n")
    raw = f.read_bytes()
    want = {m.start(): raw[: m.start()].count(b"\n") + 1 for m in re.finditer(rb"doi:10\.1234/l\d+", raw)}
    outs = {}
    for shard_size in (1 << 30, 20_000):
        out = tmp_path / f"out{shard_size}"
        scan_here([f], out, occurrences=True, shard_size=shard_size, map_min=0, map_window=16 << 10)
        assert run_json(out)["shards"] == (1 if shard_size > 1e6 else pytest.approx(len(raw) / 20_000, abs=2))
        occ = table(out, "occurrences")
        assert {r["byte_offset"]: r["line"] for r in occ} == want
        assert all(r["char_offset"] is None for r in occ)
        mentions = table(out, "mentions")
        assert {m["first_byte_offset"]: m["first_line"] for m in mentions} == want
        assert all(m["first_char_offset"] is None for m in mentions)
        outs[shard_size] = (occ, mentions)
    assert outs[1 << 30] == outs[20_000]
    # a record's text: character offsets, no line
    rec = tmp_path / "r.jsonl"
    rec.write_text(json.dumps({"id": "a", "text": "é\nline two doi:10.1000/182"}) + "\n")
    out = tmp_path / "rec"
    scan_here([rec], out, occurrences=True)
    (m,) = table(out, "mentions")
    assert (m["first_char_offset"], m["first_byte_offset"], m["first_line"]) == (11, None, None)
    (o,) = table(out, "occurrences")
    assert (o["char_offset"], o["byte_offset"], o["line"]) == (11, None, None)


def test_lines_of_a_compressed_and_a_utf16_file(tmp_path: Path) -> None:
    text = "".join(f"line {i}: doi:10.1000/{i}\n" if i % 7 == 0 else f"line {i}\n" for i in range(5000))
    (tmp_path / "a.txt.gz").write_bytes(gzip.compress(text.encode()))
    (tmp_path / "b.txt").write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    out = tmp_path / "out"
    scan_here([tmp_path / "a.txt.gz", tmp_path / "b.txt"], out, block_size=4096)
    for m in table(out, "mentions"):
        assert m["first_line"] == int(m["doi"].split("/")[1]) + 1, m


def test_real_paths_resolve_as_os_path_realpath(tmp_path: Path) -> None:
    """inputs.RealPaths resolves each folder once (issue 14) and gives what realpath gives:
    through a linked folder, for a linked file, with .. and for a relative name."""
    import os

    from extractor.pipeline.inputs import RealPaths

    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "f").write_text("x")
    (tmp_path / "lnk").symlink_to(tmp_path / "a" / "b")
    (tmp_path / "a" / "fl").symlink_to(tmp_path / "a" / "b" / "f")
    real = RealPaths()
    for p in ("lnk/f", "a/fl", "a/b/../b/f", "a/b/f", "lnk/", "lnk"):
        assert real(str(tmp_path / p)) == os.path.realpath(tmp_path / p), p
    assert real("no-such-name") == os.path.realpath("no-such-name")


_RECORDS = [None, "r1", "r\x00x", "r", "r\x00"]  # NULs: joined keys that could collide


@given(
    st.lists(
        st.tuples(
            st.integers(0, 3),  # shard
            st.integers(0, 4),  # document (its record follows from it)
            st.integers(0, 12),  # DOI
            st.integers(1, 4),  # count
            st.integers(0, 60),  # first offset (ties too)
            st.integers(0, 8),  # form
        ),
        max_size=120,
    )
)
@settings(max_examples=300, deadline=None)
@pytest.mark.parametrize("grouping", ["C", "Arrow"])
def test_merge_bucket_equals_a_plain_merge(
    grouping: str, rows: list[tuple[int, int, int, int, int, int]]
) -> None:
    """The merge (grouped in one hash pass in C, or, without the C part, with Arrow's kernels:
    keys seen once taken as they are, repeated ones aggregated; issue 14) gives what merging row
    by row gives: per (source, record, DOI) the counts added, the first offset with its line and
    raw text (the earliest row among equal offsets), the forms united, the earliest place; rows
    in (place, offset, DOI) order."""
    from unittest import mock

    from extractor.pipeline import dedupe

    if grouping == "C" and not HAVE_C:
        pytest.skip("the package was built without its C part")
    # the other way of grouping is made to fail, so that each run proves the one it names
    others: dict[str, dict[str, Any]]
    if grouping == "C":
        others = {
            "_group_arrow": {"side_effect": AssertionError},
            "_per_doi_arrow": {"side_effect": AssertionError},
        }
    else:
        others = {"_group_native": {"return_value": None}, "_per_doi_native": {"return_value": None}}
    with contextlib.ExitStack() as stack:
        for name, how in others.items():
            stack.enter_context(mock.patch.object(dedupe, name, **how))
        _check_merge_bucket(rows)


@pytest.mark.skipif(not HAVE_C, reason="the package was built without its C part")
def test_group_mentions_refuses_buffers_that_do_not_hold_its_rows() -> None:
    """The merge's C grouping reads only what the buffers hold: short columns, offsets past the
    data or going backwards are a ValueError, never a read out of bounds."""
    from extractor.pipeline.table import group_mentions

    i32 = pa.array([0, 0], pa.int32()).buffers()[1]
    i64 = pa.array([1, 1], pa.int64()).buffers()[1]
    _v, offs, data = pa.array(["10.1/a", "10.1/a"]).buffers()
    assert group_mentions(i32, i32, offs, data, 0, i64, i64, i32, 2) == (
        b"\0\0\0\0",
        (2).to_bytes(8, "little"),
        (1).to_bytes(8, "little"),
        b"\0\0\0\0",
        (2).to_bytes(8, "little"),
    )
    bad_offsets = pa.py_buffer(b"".join(k.to_bytes(4, "little", signed=True) for k in (0, 9, 3)))
    for args in (
        (i32, i32, offs, data, 0, i64, i64, i32, 3),  # more rows than the columns hold
        (i32, i32, offs, data, 1, i64, i64, i32, 2),  # offsets from past their end
        (i32, i32, bad_offsets, data, 0, i64, i64, i32, 2),  # backwards
        (i32, i32, offs, pa.py_buffer(b"10.1"), 0, i64, i64, i32, 2),  # past the data
        (i32, i32, offs, data, 0, i64, i64, i32, -1),
    ):
        with pytest.raises(ValueError):
            group_mentions(*args)


def _check_merge_bucket(rows: list[tuple[int, int, int, int, int, int]]) -> None:
    from extractor.match import forms_of
    from extractor.pipeline.dedupe import merge_bucket
    from extractor.pipeline.write import PARTIAL_SCHEMA

    cols: dict[str, list[Any]] = {k: [] for k in PARTIAL_SCHEMA.names}
    for i, (shard, doc, d, count, offset, form) in enumerate(rows):
        for k, v in (
            ("shard", shard),
            ("doc", doc),
            ("source", f"s{shard % 2}"),
            ("record", _RECORDS[doc]),
            ("doi", f"10.1/{d}"),
            ("count", count),
            ("first_offset", offset),
            ("first_line", offset // 7 + 1 if doc % 2 else None),
            ("first_raw", f"raw{i}"),
            ("forms", 1 << form),
        ):
            cols[k].append(v)
    mentions, dois = merge_bucket(pa.Table.from_pydict(cols, schema=PARTIAL_SCHEMA))
    want: dict[tuple[Any, ...], dict[str, Any]] = {}
    for i in sorted(range(len(rows)), key=lambda i: cols["first_offset"][i]):  # stable: row order on ties
        key = (cols["source"][i], cols["record"][i], cols["doi"][i])
        w = want.setdefault(key, {"count": 0, "forms": 0, "place": (9, 9), "first": i})
        w["count"] += cols["count"][i]
        w["forms"] |= cols["forms"][i]
        w["place"] = min(w["place"], (cols["shard"][i], cols["doc"][i]))
    expected = sorted(
        (
            (*w["place"], cols["first_offset"][w["first"]], k[2]),
            {
                "source": k[0],
                "record": k[1],
                "doi": k[2],
                "count": w["count"],
                "first_raw": cols["first_raw"][w["first"]],
                "first_line": cols["first_line"][w["first"]],
                "forms": forms_of(w["forms"]),
            },
        )
        for k, w in want.items()
    )
    got = [
        {k: m[k] for k in ("source", "record", "doi", "count", "first_raw", "first_line", "forms")}
        for m in mentions.to_pylist()
    ]
    assert got == [e for _k, e in expected]
    per_doi: dict[str, list[int]] = {}
    first_source: dict[str, str] = {}
    for e in got:
        per_doi.setdefault(e["doi"], []).append(e["count"])
        first_source.setdefault(e["doi"], e["source"])
    assert [
        (d["doi"], d["occurrences"], d["documents"], d["first_source"]) for d in dois.to_pylist()
    ] == sorted((d, sum(c), len(c), first_source[d]) for d, c in per_doi.items())
