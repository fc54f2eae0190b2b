"""WARC and WET files (Common Crawl, the Internet Archive, institutional crawls): each response,
resource or conversion record is a document, read with FastWARC (the `warc` extra).

A record's id is its `WARC-Target-URI`; its kind comes from the HTTP `Content-Type` (a
response) or the record's own (a resource, or a WET conversion): HTML, plain text, PDF. Its
charset comes from the HTTP header or the page's own declaration; HTTP headers are never
searched; chunked and compressed HTTP bodies are decoded (FastWARC's auto_decode). Records of
other types are passed over; documents of other content types, records cut short and records
too large to hold are skipped, counted and named, and the rest of the file is read.

FastWARC over warcio: on gzipped WARCs it reads about 4× as fast (111 vs 29 MB/s of payload on
3,000 pages, benchmarks/RESULTS.md), with the same records; both stop at a truncated gzip member.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, BinaryIO

from .decode import HEAD_BYTES, codec_name, declared_encoding
from .errors import InputError

INSTALL_HINT = "WARC input needs FastWARC: pip install 'doi-extractor[warc]' (or '.[warc]' in a clone)"

WARC_MAGIC = (b"WARC/1.0", b"WARC/1.1", b"WARC/0.1", b"WARC/0.9")

# Content types read, by kind (spec terms); a PDF's text is extracted (pdffile.py).
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml", "text/xml", "application/xml"})
_PLAIN_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown", "application/json", "text/csv"})
_CHARSET = re.compile(r"charset\s*=\s*[\"']?([A-Za-z0-9._:-]{1,40})", re.I)


def _charset_of(content_type: str | None) -> str | None:
    m = _CHARSET.search(content_type or "")
    return m.group(1) if m else None


def is_warc(head: bytes) -> bool:
    """Whether decompressed bytes start a WARC file."""
    return head.startswith(WARC_MAGIC)


def kind_of(content_type: str | None) -> tuple[str | None, str]:
    """The kind (spec terms) of a document of this Content-Type, or None with the reason it is
    not read."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media in _HTML_TYPES or media.endswith("+xml"):
        return "html", media
    if media in _PLAIN_TYPES or media.startswith("text/"):
        return "plain", media
    if media == "application/pdf":
        return "pdf", media  # a raw PDF: its text extracted (pdffile.py)
    return None, f"content type {media or 'missing'!r}"


def decode_body(body: bytes, charset: str | None, kind: str) -> str:
    """A document's text: by the charset its HTTP header names, else the one an HTML page
    declares (decode.declared_encoding, as for a file), else UTF-8; bytes that are not of that
    charset read as U+FFFD (counted where the text is searched), never dropped."""
    codec = codec_name(charset)
    if codec is None and kind == "html":
        codec = declared_encoding(body[:HEAD_BYTES])
    if codec is None or codec == "utf-8":
        return body.decode("utf-8", "surrogateescape")
    return body.decode(codec, "replace")


Headers = tuple[dict[str, str], ...]


def iter_warc_records(
    stream: BinaryIO, max_bytes: int, with_headers: bool = False
) -> Iterator[tuple[str | None, str | None, str | None, int, Headers]]:
    """(target URI, text, kind, number, headers) for each document record of a WARC stream
    (text None: a record skipped, `kind` then its reason; headers, when asked for: the record's
    WARC headers and its HTTP headers, for provenance fields). Other record types are passed
    over."""
    try:
        from fastwarc.warc import ArchiveIterator, WarcRecordType
    except ImportError:
        raise InputError(INSTALL_HINT) from None
    wanted = WarcRecordType.response | WarcRecordType.resource | WarcRecordType.conversion
    n = 0
    it: Any = ArchiveIterator(
        stream, record_types=wanted, parse_http=True, auto_decode="all", fsspec_args=False
    )
    while True:
        try:
            record = next(it)
        except StopIteration:
            return
        except OSError as exc:  # a malformed record: nothing after it can be found again
            yield None, None, f"malformed WARC record ({exc}); the rest of the file was not read", n + 1, ()
            return
        n += 1
        uri = record.headers.get("WARC-Target-URI")
        if record.record_type == WarcRecordType.response and not record.is_http:
            yield uri, None, "a response record without an HTTP message", n, ()
            continue
        headers: Headers = ()
        if with_headers:
            headers = (dict(record.headers.items()),)
            if record.is_http:
                headers += (dict(record.http_headers.items()),)
        if record.is_http:
            content_type, charset = record.http_content_type, record.http_charset
        else:
            content_type = record.headers.get("Content-Type")
            charset = _charset_of(content_type)
        kind, why = kind_of(content_type)
        if kind is None:
            yield uri, None, why, n, headers
            continue
        if record.content_length > max_bytes:
            record.reader.consume()
            yield uri, None, f"over {max_bytes} bytes", n, headers
            continue
        body = record.reader.read()
        if content_type and content_type.split(";", 1)[0].strip().lower() == "application/pdf":
            from .pdffile import pdf_text

            try:
                got = pdf_text(body)
            except InputError as exc:  # encrypted, broken, images only: this record, not the file
                yield uri, None, f"a PDF: {exc}", n, headers
                continue
            if got.stop is not None:
                yield uri, None, f"a PDF, in part: {got.stop} (the rest of its text searched)", n, headers
            yield uri, got.text, "pdf", n, headers
            if got.links:
                yield uri, "\n".join(got.links), "pdf-link", n, headers
            continue
        yield uri, decode_body(body, charset, kind), kind, n, headers
