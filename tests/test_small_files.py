"""A tree of small files (issue 11): planned from their sizes alone, each told its format by the
shard that reads it, and a small text read whole in one window — with the rows, counts and
formats a scan gives when it plans every file by its contents."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import given
from hypothesis import strategies as st

from extractor.pipeline import InputType, ScanConfig, ShardResult, ShardSpec
from extractor.pipeline.formats import FORMAT_HEAD, tell_input
from extractor.pipeline.io.inputs import expand_inputs, plan_shards
from extractor.pipeline.io.read import read_upto
from extractor.pipeline.out.parts import shard_paths
from extractor.pipeline.scan.documents import input_docs
from extractor.pipeline.scan.sinks import OccurrenceSink
from extractor.pipeline.units import Doc, DocBatch, chunk_counts, no_progress

from .helpers import PIECES, TEXT, run_json, scan_here, table


def _warc(path: Path) -> bool:
    """A small WARC of two HTML responses, when warcio is installed."""
    try:
        from warcio.statusandheaders import StatusAndHeaders
        from warcio.warcwriter import WARCWriter
    except ImportError:
        return False
    with open(path, "wb") as out:
        w = WARCWriter(out, gzip=True)
        for uri, body in (
            ("https://a.example/1", b"<p>doi:10.1000/warc.1</p>"),
            ("https://a.example/2", TEXT.encode()),
        ):
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
            w.write_record(
                w.create_warc_record(uri, "response", payload=io.BytesIO(body), http_headers=headers)
            )
    return True


def _tree(root: Path) -> dict[str, str]:
    """Small files of every format a scan reads (and two it rejects): name -> format."""
    root.mkdir()
    formats = {}

    def put(name: str, data: bytes, fmt: str) -> None:
        (root / name).write_bytes(data)
        formats[name] = fmt

    put("a.txt", TEXT.encode(), "text")
    put(
        "b.html",
        b"<p>See <a href='https://doi.org/10.1000/182'>doi:10.1000/182</a> &amp; 10.1000/x&#47;y</p>",
        "text",
    )
    put("c-utf16.txt", ("UTF-16: 10.1000/utf16é\n" + TEXT).encode("utf-16"), "text")
    put("d-bom.txt", b"\xef\xbb\xbf" + TEXT.encode(), "text")
    put("e-latin.html", "<meta charset='iso-8859-1'><p>doi:10.1000/café</p>".encode("latin-1"), "text")
    put("f.txt.gz", gzip.compress(TEXT.encode() * 3), "text")
    put(
        "g.json.gz",
        gzip.compress(
            b"".join(json.dumps({"text": f"r{i} 10.1000/rec.{i}"}).encode() + b"\n" for i in range(5))
        ),
        "jsonl",
    )
    put(
        "h.jsonl",
        b"\n".join(json.dumps({"id": f"j{i}", "text": f"doi:10.1000/j{i}"}).encode() for i in range(4)),
        "jsonl",
    )
    put("i-invalid.txt", b"bad \xff\xfe bytes 10.1000/inv\xffalid\r\nline\n10.1000/ok", "text")
    put(
        "j-refs.pdf.txt",
        b"Text 10.1016/j.cell.\n2020.01.001 wrapped\x0cnext page 10.1038/nature12373\n",
        "text",
    )
    put("k-empty.txt", b"", "text")
    put("l-binary", bytes(range(256)) * 4, "text")  # rejected: binary data
    sink = io.BytesIO()
    pq.write_table(
        pa.table({"id": [f"p{i}" for i in range(9)], "text": [f"10.1000/pq.{i}" for i in range(9)]}),
        sink,
        row_group_size=4,
    )
    put("m-no-suffix", sink.getvalue(), "parquet")  # by its magic: a group's file, read whole
    if _warc(root / "n.warc.gz"):
        formats["n.warc.gz"] = "warc"
    return formats


def _rows(out: Path, name: str) -> list[str]:
    rows = table(out, name)
    for r in rows:
        for k, v in r.items():
            if isinstance(v, str) and "/tree/" in v:
                r[k] = Path(v).name
    return sorted(json.dumps(r, sort_keys=True, default=str) for r in rows)


def test_small_files_of_every_format_are_told_by_their_shard(tmp_path: Path) -> None:
    formats = _tree(tmp_path / "tree")
    files, _ = expand_inputs([str(tmp_path / "tree")], str(tmp_path / "spool"))
    specs, rejected, total = plan_shards(files, ScanConfig(out=str(tmp_path / "x")))
    assert [s.fmt for s in specs] == ["group"] and not rejected
    assert {f for _s, _p, f in specs[0].files} == {""}  # not opened to plan: told by the shard
    assert total == sum(p.stat().st_size for p in (tmp_path / "tree").iterdir())

    grouped, each = tmp_path / "grouped", tmp_path / "each"
    scan_here([tmp_path / "tree"], grouped, occurrences=True, keep_work=True)
    # every file (but the empty one) larger than the shard size: planned by its contents, alone
    scan_here([tmp_path / "tree"], each, occurrences=True, shard_size=1)
    a, b = run_json(grouped), run_json(each)
    assert a["shards"] == 1 and b["shards"] > len(formats) - 1
    told = {Path(i["path"]).name: i["format"] for i in a["inputs"]}
    assert told == formats
    # (the planner rejects a large binary file before listing it as an input)
    assert told == {Path(i["path"]).name: i["format"] for i in b["inputs"]} | {"l-binary": "text"}
    for key in (
        "documents",
        "hits",
        "mentions",
        "bytes_read",
        "invalid_bytes_replaced",
        "records_skipped",
        "rejected",
        "skipped_binary",
    ):
        assert a[key] == b[key], key
    # binary data found by walking, by the planner or by a group's shard: passed over alike
    assert a["rejected"] == [] and [Path(n).name for n in a["skipped_binary"]["first"]] == ["l-binary"]
    for name in ("mentions", "occurrences", "dois"):
        assert _rows(grouped, name) == _rows(each, name), name
    # a rerun resumes the completed shard, and still names each file's format from its marker
    scan_here([tmp_path / "tree"], grouped, occurrences=True, keep_work=True)
    again = run_json(grouped)
    assert (
        again["shards_resumed"] == 1
        and {Path(i["path"]).name: i["format"] for i in again["inputs"]} == formats
    )
    assert {"10.1000/utf16é", "10.1000/café", "10.1000/pq.8", "10.1000/rec.4", "10.1000/x/y"} <= {
        m["doi"] for m in table(grouped, "mentions")
    }


def test_a_parquet_file_by_its_name_is_still_a_shard_per_row_group(tmp_path: Path) -> None:
    pq.write_table(
        pa.table({"text": [f"10.1000/g.{i}" for i in range(9)]}), tmp_path / "t.parquet", row_group_size=4
    )
    files, _ = expand_inputs([str(tmp_path / "t.parquet")], str(tmp_path / "spool"))
    specs, _, _ = plan_shards(files, ScanConfig(out=str(tmp_path / "x")))
    assert [(s.fmt, s.start, s.stop) for s in specs] == [("parquet", g, g) for g in range(3)]


def test_read_upto_reads_a_file_whole_or_declines(tmp_path: Path) -> None:
    p = tmp_path / "f"
    for size in (0, 1, 4095, 4096, 4097, 70_000):
        data = bytes(i % 251 for i in range(size))
        p.write_bytes(data)
        assert read_upto(str(p), 4096) == (data if size <= 4096 else None), size
        assert read_upto(str(p), 1 << 20) == data, size


_BYTES = [s.encode("utf-8", "surrogateescape") for s in PIECES] + [
    b"\xef\xbb\xbf",
    b"\xff",
    b"\xe2\x82",
    b"\n",
    b"\r\n",
    b"\x0c",
    b"<p>",
    b"<a href='https://doi.org/",
    b"&amp;",
    b"\x00",
    b" ",
]


def _one(doc: Doc | DocBatch) -> Doc:
    assert isinstance(doc, Doc), "a text file is one document, never a batch of records"
    return doc


def _search(path: Path, fmt: str, config: ScanConfig, out: Path) -> tuple[Any, ...]:
    """A file's documents, counts and occurrences: told by its shard (fmt ""), or told as the
    planner tells a file and read in format `fmt`."""
    result = ShardResult(0)
    told = InputType("")
    if fmt:
        told = tell_input(str(path), path.read_bytes()[:FORMAT_HEAD], config)._replace(fmt=fmt)
    occ = OccurrenceSink(shard_paths(str(out), ShardSpec(0, "", "", InputType("text"))), 1 << 30)
    try:
        docs = [
            (d.number, d.record, chunk_counts(d.chunk), d.chunk[0])
            for d in map(
                _one, input_docs(ShardSpec(0, "f", str(path), told), config, no_progress, result, occ)
            )
        ]
    except Exception as exc:  # a rejected input: the same reason either way
        return ("rejected", str(exc))
    fields = result.as_dict()
    fields.pop("formats")
    return docs, fields, dict(occ.cols)


@given(st.lists(st.sampled_from(_BYTES), max_size=60), st.sampled_from([".txt", ".html", ".pdf.txt"]))
def test_a_file_read_whole_is_searched_as_its_stream_is(pieces: list[bytes], suffix: str) -> None:
    """scan_whole (one window, no generators) against scan_windows over a stream of the same
    bytes: the same documents, rows, occurrences and counts (bytes, invalid bytes, lines)."""
    import tempfile

    data = b"".join(pieces)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ("f" + suffix)
        path.write_bytes(data)
        for block in (1 << 20, 64):  # read whole; or declined (larger than a block): streamed
            config = ScanConfig(out=tmp, buckets=4, occurrences=True, block_size=block)
            assert _search(path, "", config, Path(tmp)) == _search(path, "text", config, Path(tmp))
