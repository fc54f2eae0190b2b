"""WARC and WET files (Common Crawl, the Internet Archive, institutional crawls): each response,
resource or conversion record is a document, read with FastWARC (the `warc` extra).

A record's id is its `WARC-Target-URI`; its kind comes from the HTTP `Content-Type` (a
response) or the record's own (a resource, or a WET conversion): HTML, plain text, PDF. Its
charset comes from the HTTP header or the page's own declaration; HTTP headers are never
searched; chunked and compressed HTTP bodies are decoded (FastWARC's auto_decode). Records of
other types are passed over; documents of other content types, records cut short and records
too large to hold are skipped, counted and named, and the rest of the file is read.

FastWARC over warcio: several times as fast on gzipped WARCs (benchmarks/RESULTS.md, "Design
figures"), with the same records; both stop at a truncated gzip member.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator
from typing import Any, BinaryIO

from ...match.kinds import kind_of
from ..errors import InputError
from ..io.decode import HEAD_BYTES, codec_name, declared_encoding
from ..io.read import display_name, open_input
from ..provenance import from_headers
from ..units import Progress, ScanConfig, ShardResult, ShardSpec
from .base import Format, Record, SkippedRecords

INSTALL_HINT = "WARC input needs FastWARC: pip install 'doi-extractor[warc]' (or '.[warc]' in a clone)"

WARC_MAGIC = (b"WARC/1.0", b"WARC/1.1", b"WARC/0.1", b"WARC/0.9")

# Content types read, by kind (spec terms); a PDF's text is extracted (formats/pdf.py).
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml", "text/xml", "application/xml"})
_PLAIN_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown", "application/json", "text/csv"})
_CHARSET = re.compile(r"charset\s*=\s*[\"']?([A-Za-z0-9._:-]{1,40})", re.I)


def _charset_of(content_type: str | None) -> str | None:
    m = _CHARSET.search(content_type or "")
    return m.group(1) if m else None


def is_warc(head: bytes) -> bool:
    """Whether decompressed bytes start a WARC file."""
    return head.startswith(WARC_MAGIC)


def kind_of_content(content_type: str | None) -> tuple[str | None, str]:
    """The kind (spec terms) of a document of this Content-Type, or None with the reason it is
    not read."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media in _HTML_TYPES or media.endswith("+xml"):
        return "html", media
    if media in _PLAIN_TYPES or media.startswith("text/"):
        return "plain", media
    if media == "application/pdf":
        return "pdf", media  # a raw PDF: its text extracted (formats/pdf.py)
    return None, f"content type {media or 'missing'!r}"


def decode_body(body: bytes, charset: str | None, kind: str) -> str:
    """A document's text: by the charset its HTTP header names, else the one an HTML page
    declares (decode.declared_encoding, as for a file), else UTF-8; bytes that are not of that
    charset read as U+FFFD (counted where the text is searched), never dropped."""
    codec = codec_name(charset)
    if codec is None and kind_of(kind).views:  # markup, which may declare its charset
        codec = declared_encoding(body[:HEAD_BYTES])
    if codec is None or codec == "utf-8":
        return body.decode("utf-8", "surrogateescape")
    return body.decode(codec, "replace")


Headers = tuple[dict[str, str], ...]


CUT_RECORD = "cut short (the file ends inside this record)"
CUT_END = "the file ends inside its last record: records after it may be lost (a truncated file)"
CUT_GZIP = "the file ends inside a gzip member: the records in it were not read (a truncated file)"


def gzip_ends_whole(stream: BinaryIO, start: int) -> bool:
    """Whether the gzip members from byte `start` (the last record's, in a WARC gzipped per
    record) to the end of the file are whole; a file gzipped whole, whose records stand at no
    member start, is checked from its first byte. Memory stays bounded: the output is dropped
    as it comes."""
    for pos in (start, 0) if start else (0,):
        stream.seek(pos)
        d: Any = None
        buf = b""
        try:
            while True:
                if not buf:
                    buf = stream.read(1 << 20)
                    if not buf:
                        if d is None and pos:
                            break  # nothing at `start` (the end of a file gzipped whole)
                        return d is None or d.eof
                if d is None or d.eof:
                    d = zlib.decompressobj(31)
                d.decompress(buf, 1 << 16)
                buf = d.unused_data if d.eof else d.unconsumed_tail
        except zlib.error:
            continue  # not a member start: the file is gzipped whole
    return False


def plain_ends_whole(stream: BinaryIO, start: int) -> bool:
    """Whether the uncompressed WARC record at byte `start` (the last one read) ends where the
    file ends: its headers, its Content-Length of block, then CRLF CRLF (WARC 1.1 §4)."""
    stream.seek(start)
    head = stream.read(1 << 16)
    end = head.find(b"\r\n\r\n")
    m = re.search(rb"(?im)^content-length:[ \t]*([0-9]{1,18})[ \t]*\r?$", head[:end]) if end >= 0 else None
    if m is None:
        return False
    size = stream.seek(0, 2)
    return size >= start + end + 4 + int(m.group(1)) + 4


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
    gzipped = stream.read(2) == b"\x1f\x8b"
    stream.seek(0)
    last_pos = -1  # where the last record read starts (in a gzip per record: its member)
    # every record type is read, the others passed over here: the last record of the file,
    # whatever its type, tells whether the file ends whole
    it: Any = ArchiveIterator(stream, parse_http=True, auto_decode="all", fsspec_args=False)
    while True:
        try:
            record = next(it)
        except StopIteration:
            # FastWARC ends quietly where a gzip member is cut short: the records in it are lost
            if last_pos >= 0 and not (
                gzip_ends_whole(stream, last_pos) if gzipped else plain_ends_whole(stream, last_pos)
            ):
                yield None, None, CUT_GZIP if gzipped else CUT_END, n + 1, ()
            return
        except OSError as exc:  # a malformed record: nothing after it can be found again
            yield None, None, f"malformed WARC record ({exc}); the rest of the file was not read", n + 1, ()
            return
        last_pos = record.stream_pos
        if not record.record_type & wanted:
            continue
        n += 1
        uri = record.headers.get("WARC-Target-URI")
        if record.headers.get("Content-Length") is None:  # its headers end early
            yield uri, None, CUT_RECORD, n, ()
            continue
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
        kind, why = kind_of_content(content_type)
        if record.content_length > max_bytes:
            record.reader.consume()
            yield uri, None, why if kind is None else f"over {max_bytes} bytes", n, headers
            continue
        try:
            body = record.reader.read()
        except OSError:  # a chunked or compressed body that the end of the file cuts short
            yield uri, None, CUT_RECORD, n, headers
            return
        # (a body shorter than its record: cut short, unless it was decoded; the headers asked
        # only then, FastWARC's lookups being a tenth of a small page's time)
        if len(body) < record.content_length and not (
            record.is_http
            and any(record.http_headers.get(h) for h in ("Content-Encoding", "Transfer-Encoding"))
        ):
            yield uri, None, f"{CUT_RECORD}: {len(body)} of {record.content_length} bytes", n, headers
            continue
        if kind is None:
            yield uri, None, why, n, headers
            continue
        if content_type and content_type.split(";", 1)[0].strip().lower() == "application/pdf":
            from .pdf import pdf_text

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


def records(
    spec: ShardSpec, config: ScanConfig, result: ShardResult, progress: Progress, skipped: SkippedRecords
) -> Iterator[Record]:
    """The documents of a WARC or WET file, its compressed bytes counted as read; provenance
    fields name headers of the record (WARC, then HTTP)."""
    # FastWARC reads a seekable stream itself (it panics on one that cannot seek): the bytes
    # read are counted from its position, record by record
    with open_input(spec.path) as raw:
        done = 0
        for uri, text, kind, n, headers in iter_warc_records(
            raw, config.max_record_bytes, bool(config.record_fields)
        ):
            pos = raw.tell()
            if pos > done:
                result.bytes_read += pos - done
                progress(pos - done, 0)
                done = pos
            if text is None and str(kind).startswith((CUT_RECORD, CUT_END, CUT_GZIP)):
                # a partial download: the records before are kept, the input named as partial
                result.cut_short(spec.source, f"record {n}" + (f" ({uri})" if uri else ""), str(kind))
            elif text is None:
                skipped.add("record", n, f"{uri}: {kind}" if uri else str(kind))
            else:
                meta = from_headers(*headers, fields=config.record_fields)
                yield Record(None if uri is None else display_name(uri), text, config.kind or kind, meta)


def tell(name: str, head: bytes, text_field: str, id_field: str) -> bool:
    """By its first decompressed bytes: a WARC or WET record's version line."""
    return is_warc(head)


FORMAT = Format(
    "warc", tell, None, records, extra="warc", needs="fastwarc", suffixes=(".warc", ".wet", ".arc")
)
