"""WARC and WET input (issue 11): real files written by warcio's writer, read by the scan as a
user hands them over — each document record a record of its own, its id the target URI."""

from __future__ import annotations

import gzip
import io
import json
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest

from extractor.pipeline.errors import Fatal

from .helpers import run_json, scan_here, table

warcio = pytest.importorskip("warcio")
pytest.importorskip("fastwarc")

from warcio.statusandheaders import StatusAndHeaders  # noqa: E402
from warcio.warcwriter import WARCWriter  # noqa: E402


def _http(content_type: str, *extra: tuple[str, str]) -> Any:
    return StatusAndHeaders("200 OK", [("Content-Type", content_type), *extra], protocol="HTTP/1.1")


def _chunked(body: bytes) -> bytes:
    half = len(body) // 2
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in (body[:half], body[half:])) + b"0\r\n\r\n"


def _response(w: Any, uri: str, body: bytes, content_type: str, *headers: tuple[str, str]) -> None:
    w.write_record(
        w.create_warc_record(
            uri, "response", payload=io.BytesIO(body), http_headers=_http(content_type, *headers)
        )
    )


def write_crawl(path: Path, gzip_records: bool = True) -> None:
    """A crawl as Common Crawl writes one: warcinfo, a request, responses of several content
    types and charsets (one chunked, one gzip-encoded), a resource, each record gzipped alone."""
    with open(path, "wb") as out:
        w = WARCWriter(out, gzip=gzip_records)
        w.write_record(w.create_warcinfo_record(path.name, {"software": "tests"}))
        w.write_record(
            w.create_warc_record(
                "https://a.example/page",
                "request",
                payload=io.BytesIO(
                    b"GET /page HTTP/1.1\r\nHost: a.example\r\nX-Doi: 10.9999/request\r\n\r\n"
                ),
            )
        )
        page = (
            "<html><head><meta charset='utf-8'></head><body><p>See doi:10.1000/html&amp;x é</p></body></html>"
        )
        _response(
            w,
            "https://a.example/page",
            page.encode(),
            "text/html; charset=utf-8",
            ("X-Doi", "10.9999/header"),
        )
        latin = "<p>café doi:10.1000/latiné</p>".encode("latin-1")
        _response(w, "https://b.example/latin1", latin, "text/html; charset=iso-8859-1")
        declared = '<meta charset="windows-1252"><p>doi:10.1000/€uro</p>'.encode("cp1252")
        _response(w, "https://b.example/declared", declared, "text/html")
        chunked = _chunked(b"<p>https://doi.org/10.1000/chunked</p>")
        _response(w, "https://c.example/chunked", chunked, "text/html", ("Transfer-Encoding", "chunked"))
        gzipped = gzip.compress(b"plain text 10.1000/gzipped.")
        _response(w, "https://c.example/gzipped", gzipped, "text/plain", ("Content-Encoding", "gzip"))
        w.write_record(
            w.create_warc_record(
                "https://d.example/notes.txt",
                "resource",
                payload=io.BytesIO(b"notes: 10.1000/resource"),
                warc_content_type="text/plain",
            )
        )
        _response(w, "https://e.example/fig.png", b"\x89PNG\r\n 10.1000/png", "image/png")
        _response(w, "https://e.example/paper.pdf", b"%PDF-1.4 10.1000/pdf", "application/pdf")


EXPECTED = [
    ("https://a.example/page", "10.1000/html&x"),
    ("https://b.example/declared", "10.1000/€uro"),
    ("https://b.example/latin1", "10.1000/latiné"),
    ("https://c.example/chunked", "10.1000/chunked"),
    ("https://c.example/gzipped", "10.1000/gzipped"),
    ("https://d.example/notes.txt", "10.1000/resource"),
]


def mentions(out: Path) -> list[tuple[str, str]]:
    return sorted((m["record"], m["doi"]) for m in table(out, "mentions"))


def test_each_document_record_is_a_record_with_its_target_uri(tmp_path: Path) -> None:
    crawl = tmp_path / "crawl.warc.gz"
    write_crawl(crawl)
    out = tmp_path / "out"
    scan_here([crawl], out)
    # HTTP headers, the request and warcinfo are never read; charsets from the header or the
    # page; chunked and gzip-encoded bodies decoded
    assert mentions(out) == EXPECTED
    run = run_json(out)
    assert run["documents"] == 6 and run["invalid_bytes_replaced"] == 0
    (entry,) = run["skipped_records"]
    assert entry["records"] == 2
    png, pdf = (f["reason"] for f in entry["first"])
    assert png == "https://e.example/fig.png: content type 'image/png'"
    # a PDF record is read as a PDF (tests/test_pdffile.py); this one is no real PDF
    assert pdf.startswith("https://e.example/paper.pdf: a PDF: not a readable PDF"), pdf


def test_every_packing_reads_the_same(tmp_path: Path) -> None:
    """Detected by content: uncompressed, gzip per record, the whole file gzipped, any name."""
    plain = tmp_path / "a" / "crawl.warc"
    plain.parent.mkdir()
    write_crawl(plain, gzip_records=False)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "dump.bin.gz").write_bytes(gzip.compress(plain.read_bytes()))
    for folder in ("a", "b"):
        out = tmp_path / f"out-{folder}"
        scan_here([tmp_path / folder], out)
        assert mentions(out) == EXPECTED, folder


def test_wet_conversion_records_are_plain_text(tmp_path: Path) -> None:
    wet = tmp_path / "CC-MAIN-x.warc.wet.gz"
    with open(wet, "wb") as f:
        w = WARCWriter(f, gzip=True)
        w.write_record(w.create_warcinfo_record(wet.name, {"software": "tests"}))
        for i in range(3):
            w.write_record(
                w.create_warc_record(
                    f"https://f.example/{i}",
                    "conversion",
                    payload=io.BytesIO(f"extracted text https://doi.org/10.1000/wet{i} <b>".encode()),
                    warc_content_type="text/plain",
                )
            )
    out = tmp_path / "out"
    scan_here([wet], out, occurrences=True)
    assert mentions(out) == [(f"https://f.example/{i}", f"10.1000/wet{i}") for i in range(3)]
    assert {o["form"] for o in table(out, "occurrences")} == {"resolver-url"}


def test_a_malformed_record_is_reported_and_what_came_before_is_kept(tmp_path: Path) -> None:
    good = tmp_path / "good.warc"
    write_crawl(good, gzip_records=False)
    data = good.read_bytes()
    # the third record's Content-Length made too small: its block ends inside its headers
    at = data.index(b"Content-Length: ", data.index(b"https://b.example/latin1"))
    end = data.index(b"\r\n", at)
    bad = tmp_path / "bad.warc"
    bad.write_bytes(data[:at] + b"Content-Length: 10" + data[end:])
    out = tmp_path / "out"
    scan_here([bad], out)
    assert mentions(out) == [("https://a.example/page", "10.1000/html&x")]
    run = run_json(out)
    assert run["rejected"] == []
    reasons = [f["reason"] for f in run["skipped_records"][0]["first"]]
    assert any("malformed WARC record" in r and "the rest of the file was not read" in r for r in reasons), (
        reasons
    )


def test_without_fastwarc_a_run_of_warcs_stops_with_the_install_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that cannot read its WARCs cannot work: it stops before writing, with what to
    install (tests/test_reliability.py: exit 2 from the command line, a finished result kept)."""
    crawl = tmp_path / "crawl.warc.gz"
    write_crawl(crawl)
    (tmp_path / "note.txt").write_text("doi:10.1000/note")
    monkeypatch.setitem(sys.modules, "fastwarc", None)
    monkeypatch.setitem(sys.modules, "fastwarc.warc", None)
    out = tmp_path / "out"
    with pytest.raises(Fatal, match=r"warc input needs fastwarc: pip install 'doi-extractor\[warc\]'"):
        scan_here([crawl, tmp_path / "note.txt"], out)
    assert not (out / "_run.json").exists()
    # found by walking a folder, it is a rejected input with that reason; the rest is read
    report = scan_here([tmp_path], out)
    assert [r["reason"].split(":")[0] for r in report.rejected] == ["warc input needs fastwarc"]


def test_a_deflate_stream_named_warc_is_not_read_as_one(tmp_path: Path) -> None:
    # a deflate stream that is not gzip is no WARC: read as the text it is not (binary, rejected)
    f = tmp_path / "x.warc"
    f.write_bytes(zlib.compress(b"WARC/1.0\r\n" * 100))
    out = tmp_path / "out"
    scan_here([f], out)
    assert json.dumps(run_json(out)["rejected"]).count("x.warc") == 1


def test_find_reads_a_warc_record_by_record(tmp_path: Path) -> None:
    from .test_cli import run

    crawl = tmp_path / "crawl.warc.gz"
    write_crawl(crawl)
    p = run("find", "--format", "jsonl", str(crawl))
    assert p.returncode == 0, p.stderr
    got = sorted((r["record"], r["doi"]) for r in map(json.loads, p.stdout.decode().splitlines()))
    assert got == EXPECTED


@pytest.mark.parametrize("packing", ["gzip per record", "gzip whole", "uncompressed"])
def test_a_truncated_warc_is_reported_whatever_the_cut(tmp_path: Path, packing: str) -> None:
    """A download cut short: FastWARC ends quietly inside a gzip member, gives a record whose
    headers or body end early — each cut is named in `partial`, the records before it kept
    (issue 11: a truncated last gzip member was lost unreported)."""
    good = tmp_path / "good.warc.gz"
    write_crawl(good, gzip_records=packing == "gzip per record")
    data = good.read_bytes()
    if packing == "gzip whole":
        data = gzip.compress(data)
    whole = tmp_path / "whole"
    scan_here([good if packing != "gzip whole" else _write(tmp_path / "w.warc.gz", data)], whole)
    assert run_json(whole)["partial"] == []
    want = mentions(whole)
    first = want[0]  # the first page's DOI: in the first record, before most cuts
    seen = 0
    for cut in range(7, len(data) - 600, max(1, (len(data) - 600) // 23)):
        bad = _write(tmp_path / f"cut{cut}.warc.gz", data[: len(data) - cut])
        out = tmp_path / f"out{cut}"
        scan_here([bad], out)
        got = mentions(out)
        run = run_json(out)
        reasons = [p["reason"] for p in run["partial"]]
        assert set(got) <= set(want) and not run["rejected"], (cut, got, run["rejected"])
        seen += first in got
        rest = data[len(data) - cut :]
        if rest.startswith((b"WARC/", b"\x1f\x8b")):
            continue  # cut where a record (or its gzip member) starts: nothing tells of it
        if got != want:  # something was lost: it is said
            assert any("cut short" in r or "ends inside" in r for r in reasons), (cut, reasons)
    assert seen >= 15  # the records before a cut are kept


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path
