"""Provenance columns (issue 11, `--meta-field`): fields of the citing record copied into its
mention rows, so that `citing → cited` edges come straight out of mentions/ — from JSONL and
Parquet records (nested, numbers, missing), WARC headers and a PDF's document information."""

from __future__ import annotations

import datetime
import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from extractor.pipeline.out.write import MENTIONS_SCHEMA, PARTIAL_SCHEMA
from extractor.pipeline.provenance import RESERVED, column_types, meta_fields, meta_text, meta_value
from extractor.pipeline.units import CITING_COLUMN, SELF_CITATION

from .helpers import SCAN, run_json, scan_here, table

# (--meta-field value, (column, path)) — the column a user gets without naming one
NAMING = [
    ("url", ("url", "url")),
    ("metadata.url", ("metadata_url", "metadata.url")),
    ("WARC-Date", ("warc_date", "WARC-Date")),
    ("WARC-Record-ID", ("warc_record_id", "WARC-Record-ID")),
    ("citing=metadata.doi", ("citing", "metadata.doi")),
    ("Title", ("title", "Title")),
]


@pytest.mark.parametrize(("given", "expected"), NAMING)
def test_a_meta_field_names_its_column(given: str, expected: tuple[str, str]) -> None:
    assert meta_fields([given]) == (expected,)


def test_the_reserved_names_are_the_output_columns() -> None:
    """A provenance column may not take the name of a column that mentions/ or a part file has:
    the names are listed without pyarrow, and must stay the schemas' own."""
    assert {*MENTIONS_SCHEMA.names, *PARTIAL_SCHEMA.names, CITING_COLUMN, SELF_CITATION} == RESERVED


@pytest.mark.parametrize(
    ("given", "why"),
    [
        (["doi"], "has a column 'doi'"),  # a column of mentions/ itself
        (["first_offset"], "has a column"),  # the shard's bookkeeping column
        (["x=doi", "x=url"], "a second column 'x'"),
        (["url", "URL"], "a second column 'url'"),
        (["a b=x"], "not a name"),
        (["_x=y"], "has a column"),
        (["x="], "no field"),
        (["9=x"], "not a name"),
    ],
)
def test_a_meta_field_that_cannot_be_a_column_is_refused(given: list[str], why: str) -> None:
    with pytest.raises(ValueError, match=why):
        meta_fields(given)


@pytest.mark.parametrize(
    ("value", "kept", "text"),
    [
        ("https://x.example/1", "https://x.example/1", "https://x.example/1"),
        (None, None, None),
        # numbers and booleans keep their type (their column's type, when all agree), held in
        # the part files as their JSON text
        (2020, 2020, "2020"),
        (1.5, 1.5, "1.5"),
        (True, True, "true"),
        (1 << 70, str(1 << 70), str(1 << 70)),  # beyond int64: text
        (["a", "é"], '["a","é"]', '["a","é"]'),
        ({"k": 1}, '{"k":1}', '{"k":1}'),
        (b"bytes", "bytes", "bytes"),
        (datetime.date(2024, 1, 2), "2024-01-02", "2024-01-02"),
        (
            "bad \udcff byte",
            "bad \ufffd\ufffd\ufffd byte",
            "bad \ufffd\ufffd\ufffd byte",
        ),  # a JSON reading's bytes
    ],
)
def test_a_meta_value_keeps_its_type_and_is_held_as_text(value: Any, kept: Any, text: str | None) -> None:
    assert meta_value(value) == kept and type(meta_value(value)) is type(kept)
    assert meta_text(meta_value(value)) == text


@pytest.mark.parametrize(
    ("tags", "types"),
    [
        ([{"y": ["int"]}, {"y": ["int", "null"]}], ("int64",)),
        ([{"y": ["int"]}, {"y": ["float"]}], ("double",)),
        ([{"y": ["bool"]}, {}], ("bool",)),
        ([{"y": ["int"]}, {"y": ["str"]}], ("string",)),  # 2011 and "2011": text
        ([{"y": ["bool", "int"]}], ("string",)),
        ([{"y": ["null"]}], ("string",)),
        ([{}], ("string",)),  # an earlier version's shard: no tags
    ],
)
def test_a_columns_type_is_what_every_shard_held(
    tags: list[dict[str, list[str]]], types: tuple[str, ...]
) -> None:
    assert column_types(tags, ["y"]) == types


def edges(out: Path, *columns: str) -> list[tuple[Any, ...]]:
    return sorted(
        (tuple(m[c] for c in ("record", *columns, "doi")) for m in table(out, "mentions")),
        key=lambda row: tuple("" if v is None else v for v in row),
    )


RECORDS: list[dict[str, Any]] = [
    {
        "id": "p1",
        "metadata": {"url": "https://x.example/p1", "doi": "10.9999/citing.1"},
        "year": 2020,
        "text": "See 10.1000/182 and doi:10.1038/nphys1170.",
    },
    {"id": "p2", "metadata": {"url": "https://x.example/p2"}, "text": "Cites 10.1000/182 again."},
    {"text": "No id, no metadata: 10.5555/abc"},
]
EXPECTED = [
    ("line 3", None, None, None, "10.5555/abc"),
    ("p1", "https://x.example/p1", "10.9999/citing.1", 2020, "10.1000/182"),
    ("p1", "https://x.example/p1", "10.9999/citing.1", 2020, "10.1038/nphys1170"),
    ("p2", "https://x.example/p2", None, None, "10.1000/182"),
]


def test_jsonl_fields_become_columns_of_mentions(tmp_path: Path) -> None:
    f = tmp_path / "papers.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    out = tmp_path / "out"
    fields = meta_fields(["metadata.url", "citing=metadata.doi", "year"])
    scan_here([f], out, meta_fields=fields)
    assert edges(out, "metadata_url", "citing", "year") == EXPECTED
    schema = pq.read_schema(next((out / "mentions").glob("*.parquet")))
    assert schema.names[-3:] == ["metadata_url", "citing", "year"]
    assert [schema.field(n).type for n in schema.names[-3:]] == [pa.string(), pa.string(), pa.int64()]
    assert run_json(out)["meta_types"] == {"metadata_url": "string", "citing": "string", "year": "int64"}


def test_jsonl_in_byte_ranges_and_long_records_keep_their_fields(tmp_path: Path) -> None:
    """A file split in byte ranges gives the same rows as one shard; a record too long to hold
    (streamed) reads its fields before its text, and after it."""
    pad = " filler" * 400  # ~2.8 KB of text: over the max_record_bytes below
    recs = [dict(r, text=r["text"] + pad) for r in RECORDS]
    # the id and a field after the text: known only at the record's end
    recs[1] = {"text": recs[1]["text"], "id": "p2", "metadata": recs[1]["metadata"]}
    f = tmp_path / "papers.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in recs))
    fields = meta_fields(["metadata.url", "citing=metadata.doi", "year"])
    whole, ranged, streamed = (tmp_path / n for n in ("whole", "ranged", "streamed"))
    scan_here([f], whole, meta_fields=fields)
    scan_here([f], ranged, meta_fields=fields, shard_size=1000)
    assert run_json(ranged)["shards"] == 3
    assert edges(ranged, "metadata_url", "citing", "year") == EXPECTED
    assert edges(whole, "metadata_url", "citing", "year") == EXPECTED
    # a streamed record reads a field by its name as one key (no dotted paths): url and year
    flat = [dict(r, url=r.get("metadata", {}).get("url")) for r in recs]
    g = tmp_path / "flat.jsonl"
    g.write_text("".join(json.dumps(r) + "\n" for r in flat))
    scan_here([g], streamed, meta_fields=meta_fields(["url", "year"]), max_record_bytes=1024)
    assert edges(streamed, "url", "year") == [(e[0], e[1], e[3], e[4]) for e in EXPECTED]


def test_parquet_fields_nested_and_typed(tmp_path: Path) -> None:
    rows = [
        {
            "id": "p1",
            "meta": {"url": "https://x.example/p1", "published": datetime.date(2021, 5, 6)},
            "text": "doi:10.1000/a",
        },
        {"id": "p2", "meta": {"url": None, "published": None}, "text": "doi:10.1000/b"},
    ]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "r.parquet")
    out = tmp_path / "out"
    scan_here([tmp_path], out, meta_fields=meta_fields(["meta.url", "meta.published", "absent"]))
    assert edges(out, "meta_url", "meta_published", "absent") == [
        ("p1", "https://x.example/p1", "2021-05-06", None, "10.1000/a"),
        ("p2", None, None, None, "10.1000/b"),
    ]


def test_text_files_have_null_fields_beside_records(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("see doi:10.1000/txt\n")
    (tmp_path / "r.jsonl").write_text(json.dumps({"id": "r", "url": "u", "text": "10.1000/rec"}) + "\n")
    out = tmp_path / "out"
    scan_here([tmp_path], out, meta_fields=meta_fields(["url"]))
    assert edges(out, "url") == [(None, None, "10.1000/txt"), ("r", "u", "10.1000/rec")]


def test_warc_headers_are_fields(tmp_path: Path) -> None:
    """Common Crawl's provenance: the record id and crawl date beside the target URI (record)."""
    pytest.importorskip("fastwarc")
    warcio = pytest.importorskip("warcio")
    from warcio.archiveiterator import ArchiveIterator
    from warcio.statusandheaders import StatusAndHeaders

    path = tmp_path / "crawl.warc.gz"
    with open(path, "wb") as fh:
        w = warcio.warcwriter.WARCWriter(fh, gzip=True)
        for i in range(2):
            http = StatusAndHeaders(
                "200 OK",
                [("Content-Type", "text/html"), ("Last-Modified", f"Mon, 0{i + 1} Jan 2024 00:00:00 GMT")],
                protocol="HTTP/1.1",
            )
            body = f"<p>Cites <a href='https://doi.org/10.1000/w{i}'>it</a></p>".encode()
            w.write_record(
                w.create_warc_record(
                    f"https://site.example/{i}", "response", payload=io.BytesIO(body), http_headers=http
                )
            )
    with open(path, "rb") as fh:
        heads = [
            (r.rec_headers.get_header("WARC-Record-ID"), r.rec_headers.get_header("WARC-Date"))
            for r in ArchiveIterator(fh)
        ]
    out = tmp_path / "out"
    scan_here(
        [path], out, meta_fields=meta_fields(["WARC-Record-ID", "warc-date", "Last-Modified", "X-None"])
    )
    assert edges(out, "warc_record_id", "warc_date", "last_modified", "x_none") == [
        (
            f"https://site.example/{i}",
            *heads[i],
            f"Mon, 0{i + 1} Jan 2024 00:00:00 GMT",
            None,
            f"10.1000/w{i}",
        )
        for i in range(2)
    ]


def test_a_pdfs_document_information_is_fields(tmp_path: Path) -> None:
    fpdf = pytest.importorskip("fpdf")
    pytest.importorskip("pypdfium2")
    pdf = fpdf.FPDF()
    pdf.set_title("A citing paper")
    pdf.set_author("A. Author")
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    pdf.multi_cell(100, 5, "References\n1. doi:10.1000/from-a-pdf")
    pdf.link(10, 10, 40, 5, "https://doi.org/10.1000/in-a-link")
    (tmp_path / "paper.pdf").write_bytes(bytes(pdf.output()))
    out = tmp_path / "out"
    scan_here([tmp_path], out, meta_fields=meta_fields(["Title", "Author", "Keywords"]))
    assert edges(out, "title", "author", "keywords") == [
        (None, "A citing paper", "A. Author", None, "10.1000/from-a-pdf"),
        (None, "A citing paper", "A. Author", None, "10.1000/in-a-link"),
    ]


def test_a_rerun_with_other_fields_redoes_the_shards(tmp_path: Path) -> None:
    f = tmp_path / "papers.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    out = tmp_path / "out"
    scan_here([f], out, keep_work=True)
    assert "year" not in pq.read_schema(next((out / "mentions").glob("*.parquet"))).names
    scan_here([f], out, keep_work=True, meta_fields=meta_fields(["year"]))
    assert sorted(r for r in edges(out, "year") if r[1]) == [
        ("p1", 2020, "10.1000/182"),
        ("p1", 2020, "10.1038/nphys1170"),
    ]


def test_cli_meta_field_builds_a_citation_graph(tmp_path: Path) -> None:
    f = tmp_path / "papers.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    out = tmp_path / "out"
    p = subprocess.run(
        [*SCAN, str(f), "-o", str(out), "-q", "--meta-field", "citing=metadata.doi", "--meta-field", "year"],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    graph = pq.read_table(out / "mentions").filter(pa.compute.is_valid(pa.compute.field("citing")))
    assert sorted(zip(graph["citing"].to_pylist(), graph["doi"].to_pylist(), strict=True)) == [
        ("10.9999/citing.1", "10.1000/182"),
        ("10.9999/citing.1", "10.1038/nphys1170"),
    ]
    p = subprocess.run(
        [*SCAN, str(f), "-o", str(tmp_path / "o2"), "--meta-field", "doi"], capture_output=True, text=True
    )
    assert p.returncode == 2 and "--meta-field 'doi': mentions/ has a column 'doi'" in p.stderr
    assert not (tmp_path / "o2" / "mentions").exists()
