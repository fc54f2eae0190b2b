"""Reading inputs: compression detected by magic bytes, bounded blocks, and record formats.

Owns the bytes (ripgrep's "searcher"): nothing here knows what a DOI is.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import json
import lzma
import os
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, BinaryIO

from ..match.jsonstr import JsonStringDecoder
from . import remote
from .errors import InputError
from .provenance import Meta, field_of, from_headers, from_record, meta_value
from .units import Progress, ScanConfig, ShardResult, ShardSpec

# gzip through python-isal's igzip when it is installed (the `fast` extra): the same format and
# errors (EOFError, BadGzipFile), about 3× the stdlib's speed (issue 14); JSONL lines through
# orjson, with the stdlib reading every line orjson refuses, so both give the same records.
try:
    from isal import igzip_threaded as _igzip_threaded
    from isal.igzip import IGzipFile as _GzipFile
except ImportError:  # pragma: no cover - the stdlib fallback is tested by forcing it
    _GzipFile = gzip.GzipFile  # type: ignore[misc,assignment]
    _igzip_threaded = None  # type: ignore[assignment]
try:
    import orjson as _orjson
except ImportError:  # pragma: no cover
    _orjson = None  # type: ignore[assignment]


def load_json_line(line: bytes) -> Any:
    """A JSON text: orjson's reading, or the stdlib's for what orjson refuses (lone surrogate
    escapes, NaN, integers over 64 bits, invalid UTF-8 — raised as UnicodeDecodeError as ever)."""
    if _orjson is not None:
        try:
            return _orjson.loads(line)
        except _orjson.JSONDecodeError:
            pass
    return json.loads(line)


_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)


def display_name(path: str) -> str:
    """A path as valid text: bytes of a file name that are not UTF-8 (decoded by Python as lone
    surrogates, which Parquet and JSON cannot store) are written as \\xNN escapes."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        pass
    try:
        data = path.encode("utf-8", "surrogateescape")  # bytes of a file name
    except UnicodeEncodeError:
        data = path.encode("utf-8", "surrogatepass")  # a \udXXX escape from JSON
    return data.decode("utf-8", "backslashreplace")


def detect_compression(head: bytes) -> str | None:
    """The compression of a stream from its first bytes: gzip, bzip2, xz, zstd or None."""
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return None


def open_input(path: str) -> BinaryIO:
    """An input file as a seekable binary stream: a local path, or a URL of a file system that
    fsspec reaches (s3://, gs://, …; remote.py)."""
    if remote.is_url(path):
        return remote.open_binary(path)
    return open(path, "rb")


def open_stream(path: str | BinaryIO, read_ahead: bool = False) -> tuple[BinaryIO, str | None]:
    """A binary stream of the decompressed contents of `path` (or of an open binary stream
    with peek, such as stdin), and the compression found. With `read_ahead`, a gzip file of
    READ_AHEAD_MIN bytes or more is decompressed ahead, in a thread of python-isal's
    (igzip_threaded) that releases the GIL while it works, so that it runs on another core as
    the blocks before are searched (issue 14: gzip input cost 1.7x plain text with one worker;
    ripgrep's -z decompresses in another process likewise)."""
    raw = open_input(path) if isinstance(path, str) else path
    head = raw.peek(8)[:8] if hasattr(raw, "peek") else b""
    comp = detect_compression(head)
    if comp is None:
        return raw, None
    if comp == "gzip":
        if read_ahead and _igzip_threaded is not None and _stored_size(raw) >= READ_AHEAD_MIN:
            return _igzip_threaded.open(raw, "rb", threads=1), comp
        return _GzipFile(fileobj=raw), comp  # type: ignore[return-value]
    if comp == "bzip2":
        return bz2.BZ2File(raw), comp  # type: ignore[return-value]
    if comp == "xz":
        return lzma.LZMAFile(raw), comp  # type: ignore[return-value]
    return io.BufferedReader(ZstdReader(raw), buffer_size=1 << 16), comp


class DiskProgress:
    """Progress in bytes of a compressed file as stored: the planner's total is the files' sizes,
    so a decompressed stream reports how far its file has been read, not what it gave (issue 13:
    a gzip input's bar ran past 100 %)."""

    def __init__(self, raw: BinaryIO, progress: Progress) -> None:
        self._raw = raw
        self._progress = progress
        self._done = 0

    def __call__(self, nbytes: int, nhits: int) -> None:
        pos = self._raw.tell()
        self._progress(max(0, pos - self._done), nhits)
        self._done = max(pos, self._done)


def open_counted(path: str, progress: Progress) -> tuple[BinaryIO, BinaryIO, str | None, Progress]:
    """An input's file, its decompressed stream, the compression found, and `progress` counting
    bytes of the file (DiskProgress when compressed); the caller closes both streams. A large
    gzip file is decompressed ahead (open_stream's read_ahead)."""
    raw = open_input(path)
    try:
        stream, comp = open_stream(raw, read_ahead=True)
    except BaseException:
        raw.close()
        raise
    return raw, stream, comp, (progress if comp is None else DiskProgress(raw, progress))


# Below this a file decompresses in about the time a thread takes to start and stop.
READ_AHEAD_MIN = 1 << 20


def _stored_size(raw: BinaryIO) -> int:
    """The size of an open input as stored (a local file's, or a remote file object's `size`);
    0 when unknown."""
    try:
        return os.fstat(raw.fileno()).st_size
    except (OSError, AttributeError, io.UnsupportedOperation):
        size = getattr(raw, "size", 0)
        return size if isinstance(size, int) else 0


class ZstdReader(io.RawIOBase):
    """A zstd stream of one or more frames, in bounded steps, raising EOFError when the last
    frame is cut short.

    zstandard's `stream_reader` bounds what one read gives (its `decompressobj` does not: 300
    bytes of a bomb became 10 MB in one call, 64 KiB some GB, issue 15) but ends a truncated
    stream silently; so the compressed bytes pass through a walk of the frame and block headers
    (`ZstdFrames`), which knows whether the stream stopped at a frame's end.
    """

    def __init__(self, raw: BinaryIO) -> None:
        import zstandard

        self._raw = raw
        self._frames = ZstdFrames()
        tee: Any = ReadTap(raw, self._frames.feed)  # a readable stream; the stubs want IO[bytes]
        self._reader = zstandard.ZstdDecompressor().stream_reader(
            tee, read_size=1 << 16, read_across_frames=True, closefd=False
        )

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n: int = self._reader.readinto(b)
        if n == 0 and len(b) and not self._frames.complete:
            raise EOFError("truncated zstd stream: the last frame has no end")
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


class ZstdFrames:
    """Walks the frame and block headers of a zstd stream as its bytes pass (RFC 8878 §3.1:
    frame header, blocks with their sizes, optional checksum; skippable frames), to tell whether
    it ended where a frame ends. Block contents are skipped by count, so this costs a few steps
    per block of up to 128 KiB."""

    _MAGIC = b"\x28\xb5\x2f\xfd"

    def __init__(self) -> None:
        self._state = "magic"
        self._need = 4  # header bytes the state reads
        self._head = b""
        self._skip = 0  # content bytes to pass over
        self._checksum = False
        self.broken = False  # not zstd framing: the decompressor reports that itself

    @property
    def complete(self) -> bool:
        return self.broken or (self._state == "magic" and not self._head and not self._skip)

    def feed(self, data: bytes) -> None:
        i, n = 0, len(data)
        while i < n and not self.broken:
            if self._skip:
                k = min(self._skip, n - i)
                self._skip -= k
                i += k
                continue
            take = min(self._need - len(self._head), n - i)
            self._head += data[i : i + take]
            i += take
            if len(self._head) == self._need:
                head, self._head = self._head, b""
                self._step(head)

    def _step(self, head: bytes) -> None:
        state = self._state
        if state == "magic":
            if head == self._MAGIC:
                self._state, self._need = "descriptor", 1
            elif head[1:] == b"\x2a\x4d\x18" and head[0] & 0xF0 == 0x50:
                self._state, self._need = "skippable", 4
            else:
                self.broken = True
        elif state == "skippable":
            self._skip = int.from_bytes(head, "little")
            self._state, self._need = "magic", 4
        elif state == "descriptor":
            d = head[0]
            single = d >> 5 & 1
            fcs = (1 if single else 0, 2, 4, 8)[d >> 6]
            self._checksum = bool(d >> 2 & 1)
            rest = (0 if single else 1) + (0, 1, 2, 4)[d & 3] + fcs
            self._state, self._need = "block", 3
            self._skip = rest
        elif state == "block":
            h = int.from_bytes(head, "little")
            last, kind, size = h & 1, h >> 1 & 3, h >> 3
            if kind == 3:
                self.broken = True
            self._skip = 1 if kind == 1 else size
            if last:
                self._state, self._need = ("checksum", 4) if self._checksum else ("magic", 4)
        else:  # checksum
            self._state, self._need = "magic", 4


def read_head(stream: Any, n: int) -> bytes:
    """The first `n` bytes of a decompressed stream, or what came before a truncation: its
    format is told by its head (a WARC cut short is still a WARC, its records before the cut
    read), and a reader of the whole stream reports the cut."""
    out = bytearray()
    read = getattr(stream, "read1", stream.read)
    try:
        while len(out) < n:
            chunk = read(n - len(out))
            if not chunk:
                break
            out += chunk
    except EOFError:
        pass
    return bytes(out)


def format_head(path: str, n: int) -> bytes:
    """The first `n` decompressed bytes of a file, or those before a truncation (read_head).
    A gzip head is read by the stdlib, which gives what it decompressed before the cut (isal's
    reader gives nothing then)."""
    raw = open_input(path)
    with raw:
        head = raw.peek(8)[:8] if hasattr(raw, "peek") else b""
        if detect_compression(head) == "gzip":
            with gzip.GzipFile(fileobj=raw) as gz:
                return read_head(gz, n)
        stream, _comp = open_stream(raw)
        with stream:
            return read_head(stream, n)


def read_upto(path: str, limit: int) -> bytes | None:
    """The bytes of a file as stored when it holds at most `limit` of them, else None: a small
    file in one read (a local one without a buffered file object: issue 11, per-file costs)."""
    if remote.is_url(path):
        with open_input(path) as f:
            data = f.read(limit + 1)
        return data if len(data) <= limit else None
    fd = os.open(path, os.O_RDONLY)
    try:
        # sized by the file (a read sized by `limit` allocated that much: 2.5x the time of a
        # small file's read), then on to its end in case it grew
        want = os.fstat(fd).st_size + 1
        pieces = []
        total = 0
        while total <= limit:
            piece = os.read(fd, min(want, limit + 1 - total))
            if not piece:
                break
            pieces.append(piece)
            total += len(piece)
            want = 1 << 16
    finally:
        os.close(fd)
    data = b"".join(pieces)
    return data if len(data) <= limit else None


def read_all(path: str) -> bytes:
    """The whole decompressed contents of one file (for `find`, which reads a file at once)."""
    stream, _ = open_stream(path)
    with stream:
        return stream.read()


class StreamedText:
    """The text field of a record too large to hold, decoded chunk by chunk.

    `rid` is the record id when it stands before the text; it is filled in after the text was
    read when it stands after it, and is `line_id` (its line) when the record has none.
    """

    def __init__(self, rid: str | None, chunks: Iterator[str], meta: Meta = ()) -> None:
        self.rid = rid
        self.chunks = chunks
        self.line_id: str | None = None
        self.meta = meta  # provenance fields found before the text (after it: see _stream_string)


# A JSON string or a bracket: enough to know how deep a key stands.
_JSON_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[][{}]')


def _top_level_key(line: bytes, field_re: re.Pattern[bytes], depth: int = 0) -> re.Match[bytes] | None:
    """The first match of `field_re` that is a key of the record itself, not of an object
    nested in it (a long record's `"meta": {"text": …}` before its own `"text"`, issue 15);
    `depth` is how deep `line` starts."""
    pos = 0
    for m in field_re.finditer(line):
        if m.start() < pos:
            continue  # inside a string passed over below
        for t in _JSON_TOKEN.finditer(line, pos, m.start()):
            c = t.group()[:1]
            depth += 1 if c in (b"{", b"[") else -1 if c in (b"}", b"]") else 0
        if depth == 1:
            return m
        pos = m.start()
    return None


def _value_in(data: bytes, field: str, depth: int = 0) -> Any:
    """A string or number field of a long record, in a piece of its line: the record's own key,
    not a nested object's (`depth` is how deep `data` starts: 1 for the rest of the line after
    the text); None when it is not there."""
    key = re.compile(
        rb'"' + re.escape(field.encode()) + rb'"\s*:\s*("(?:[^"\\]|\\.){0,1000}"|-?[0-9][0-9.eE+-]{0,40})'
    )
    m = _top_level_key(data, key, depth)
    if m is None:
        return None
    try:
        return json.loads(m.group(1))
    except ValueError:
        return None


def _id_in(data: bytes, id_field: str, depth: int = 0) -> str | None:
    """The record id in a piece of a long record's line (see _value_in)."""
    value = _value_in(data, id_field, depth)
    return None if value is None else display_name(str(value))


def _meta_in(data: bytes, fields: Sequence[tuple[str, str]], depth: int = 0) -> Meta:
    """Provenance fields in a piece of a long record's line (each by its name as one key)."""
    return tuple(meta_value(_value_in(data, path, depth)) for _, path in fields)


def _stream_string(
    line: bytes,
    start: int,
    buf: BinaryIO,
    rec: StreamedText,
    id_field: str,
    fields: Sequence[tuple[str, str]] = (),
) -> Iterator[str]:
    """Decoded text of a JSON string whose inside starts at line[start:], reading on from `buf`;
    then the rest of the record's line is read past (an id and provenance fields found there
    fill those not found before the text)."""
    dec = codecs.getincrementaldecoder("utf-8")("replace")
    js = JsonStringDecoder()
    view = memoryview(line)
    pieces = (bytes(view[i : i + (1 << 20)]) for i in range(start, len(line), 1 << 20))
    while True:
        data = next(pieces, None)
        if data is None:
            data = buf.readline(1 << 20)  # a JSON string holds no raw newline: the line goes on
        text = dec.decode(data, final=not data)
        out = js.feed(text)
        if out:
            yield out
        if js.done or not data:
            break
    tail = js.rest.encode("utf-8")
    if not tail.endswith(b"\n"):
        for data in pieces:
            tail += data
            if len(tail) > 1 << 20:
                tail = tail[-(1 << 20) :]
        while not tail.endswith(b"\n"):
            more = buf.readline(1 << 20)
            if not more:
                break
            tail = (tail + more)[-(1 << 20) :]
    if rec.rid is None:
        rec.rid = _id_in(tail, id_field, depth=1)
    if None in rec.meta:
        after = _meta_in(tail, fields, depth=1)
        rec.meta = tuple(a if a is not None else b for a, b in zip(rec.meta, after, strict=True))


class Skipped(str):
    """Why a record has no text to search (given in place of its text)."""


class MissingField(Skipped):
    """A record without the text field at all (a file none of whose records has it is rejected)."""


def iter_jsonl_records(
    stream: BinaryIO | io.RawIOBase,
    text_field: str,
    id_field: str,
    max_line: int = 16 << 20,
    fields: Sequence[tuple[str, str]] = (),
) -> Iterator[tuple[str | None, str | StreamedText | Skipped, int, Meta]]:
    """(record id, text, line number, provenance) for each line of a JSONL stream; provenance
    holds the values of `fields` (provenance.py).

    A line longer than `max_line` bytes is not held whole: its text field is given as a
    StreamedText, decoded piece by piece (the caller reads it before the next record; its
    provenance is the StreamedText's). A line that is not a JSON object, or has no string in its
    text field, gives (None, Skipped(why), n, ()).
    """
    buf: Any = stream if hasattr(stream, "peek") else io.BufferedReader(stream, buffer_size=1 << 20)
    n = 0
    field_re = re.compile(rb'"' + re.escape(text_field.encode()) + rb'"\s*:\s*"')
    while True:
        line = buf.readline(max_line + 1)
        if not line:
            return
        n += 1
        if len(line) > max_line and not line.endswith(b"\n"):
            m = _top_level_key(line, field_re)
            if m is None:
                while True:  # drain the over-long line in bounded pieces
                    more = buf.readline(1 << 20)
                    if not more or more.endswith(b"\n"):
                        break
                yield None, Skipped(f"over {max_line} bytes with no top-level {text_field!r} string"), n, ()
                continue
            head = line[: m.start()]
            rec = StreamedText(_id_in(head, id_field), iter(()), _meta_in(head, fields))
            rec.chunks = _stream_string(line, m.end(), buf, rec, id_field, fields)
            del line, head
            yield rec.rid, rec, n, rec.meta
            for _ in rec.chunks:  # make sure the record was read to its end
                pass
            continue
        if not line.strip():
            continue
        try:
            obj = load_json_line(line)
        except UnicodeDecodeError:
            # Invalid UTF-8 in a record: read it with the bytes kept as lone surrogates (made
            # U+FFFD and counted where its text is searched), not dropped whole (issue 15).
            try:
                obj = json.loads(line.decode("utf-8", "surrogateescape"))
            except ValueError:
                yield None, Skipped("not valid JSON"), n, ()
                continue
        except ValueError:
            yield None, Skipped("not valid JSON"), n, ()
            continue
        if not isinstance(obj, dict):
            yield None, Skipped(f"a JSON {_json_type(obj)}, not an object"), n, ()
            continue
        has_text, text = field_of(obj, text_field)
        _, rid = field_of(obj, id_field)
        if type(rid) is float and _orjson is not None:
            # orjson reads an integer over 64 bits as a float; the stdlib keeps its digits
            rid = field_of(json.loads(line.decode("utf-8", "surrogateescape")), id_field)[1]
        if isinstance(text, str):
            yield (None if rid is None else display_name(str(rid))), text, n, from_record(obj, fields)
        elif not has_text:
            yield None, MissingField(f"no {text_field!r} field"), n, ()
        else:
            yield None, Skipped(f"{text_field!r} is a JSON {_json_type(text)}, not a string"), n, ()


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    names: dict[type, str] = {dict: "object", list: "array", str: "string"}
    return names.get(type(value), "number")


def records(
    spec: ShardSpec, config: ScanConfig, result: ShardResult, progress: Progress
) -> Iterator[tuple[str | None, str | StreamedText, str | None, Meta]]:
    """(record id, text, kind, provenance) for each record of a JSONL, Parquet, WARC or PDF
    shard (kind None: decided on the text, or by --kind; provenance: the values of
    config.meta_fields); a record with no text is skipped, counted, and named (line, row or
    record, and why) in the result."""
    ranged = spec.fmt == "jsonl" and (spec.start > 0 or spec.stop >= 0)
    # a byte range of a JSONL file names its lines from the file's first line: counted by the
    # planner for a local file, else by this shard when one is named
    base: list[int] = [spec.line0] if spec.line0 >= 0 else []

    def lines_first() -> int:
        if not base:
            base.append(lines_before(spec.path, spec.start))
        return base[0]

    skipped = SkippedRecords(spec.source, result, lines_first if ranged else None)
    try:
        if spec.fmt == "parquet":
            for rid, row_text, meta in _parquet_records(spec, config, result, progress, skipped):
                yield rid, row_text, None, meta
            return
        if spec.fmt == "warc":
            yield from _warc_records(spec, config, result, progress, skipped)
            return
        if spec.fmt == "pdf":
            yield from _pdf_document(spec, config, result, progress, skipped)
            return
        if ranged:
            raw = stream = byte_range(spec.path, spec.start, spec.stop)
            disk = progress
        else:
            raw, stream, _comp, disk = open_counted(spec.path, progress)
        with raw, stream:

            def counted(data: bytes) -> None:
                result.bytes_read += len(data)
                disk(len(data), 0)

            counting = ReadTap(stream, counted)
            texts = missing = 0
            for rid, text, n, meta in iter_jsonl_records(
                counting, config.text_field, config.id_field, config.max_record_bytes, config.meta_fields
            ):
                if isinstance(text, Skipped):
                    skipped.add("line", n, text)
                    missing += isinstance(text, MissingField)
                    continue
                texts += 1
                if rid is None:
                    # never merged with the file's other id-less records (issue 11)
                    line_id = f"line {n + (lines_first() if ranged else 0)}"
                    if isinstance(text, StreamedText):
                        text.line_id = line_id  # its id may still stand after its text
                    else:
                        rid = line_id
                yield rid, text, None, meta
            if texts == 0 and missing:
                raise InputError(f"no record has a {config.text_field!r} field")
    except InputError:
        skipped.count = 0  # a rejected input contributes nothing, its skipped records neither
        raise
    finally:
        skipped.close()


# A raw PDF is read whole (PDFium needs random access); one larger than this is rejected.
MAX_PDF_BYTES = 1 << 30


def _pdf_document(
    spec: ShardSpec, config: ScanConfig, result: ShardResult, progress: Progress, skipped: SkippedRecords
) -> Iterator[tuple[str | None, str, str | None, Meta]]:
    """A raw PDF file as one document of PDF text (pdffile.py); a stop at the page or time
    limit is named as a skipped part of it. Provenance fields name entries of its document
    information (Title, Author, CreationDate, …)."""
    from .pdffile import pdf_text

    with open_stream(spec.path)[0] as f:
        data = f.read(MAX_PDF_BYTES + 1)
    result.bytes_read += len(data)
    progress(len(data), 0)
    if len(data) > MAX_PDF_BYTES:
        raise InputError(f"a PDF over {MAX_PDF_BYTES >> 20} MiB")
    got = pdf_text(data)
    if got.stop is not None:
        skipped.add("record", 1, got.stop)
    meta = from_headers(got.info, fields=config.meta_fields)
    yield None, got.text, "pdf", meta
    if got.links:
        # its link annotations, one URI a line: searched as links (form pdf-link), counted in
        # the same document (offsets into this list of URIs)
        yield None, "\n".join(got.links), "pdf-link", meta


def _warc_records(
    spec: ShardSpec, config: ScanConfig, result: ShardResult, progress: Progress, skipped: SkippedRecords
) -> Iterator[tuple[str | None, str, str | None, Meta]]:
    """The documents of a WARC or WET file (warc.py), its compressed bytes counted as read;
    provenance fields name headers of the record (WARC, then HTTP)."""
    from .warc import iter_warc_records

    # FastWARC reads a seekable stream itself (it panics on one that cannot seek): the bytes
    # read are counted from its position, record by record
    with open_input(spec.path) as raw:
        done = 0
        for uri, text, kind, n, headers in iter_warc_records(
            raw, config.max_record_bytes, bool(config.meta_fields)
        ):
            pos = raw.tell()
            if pos > done:
                result.bytes_read += pos - done
                progress(pos - done, 0)
                done = pos
            if text is None:
                skipped.add("record", n, f"{uri}: {kind}" if uri else str(kind))
            else:
                meta = from_headers(*headers, fields=config.meta_fields)
                yield (None if uri is None else display_name(uri)), text, config.kind or kind, meta


def _parquet_records(
    spec: ShardSpec, config: ScanConfig, result: ShardResult, progress: Progress, skipped: SkippedRecords
) -> Iterator[tuple[str | None, str, Meta]]:
    import pyarrow.parquet as pq

    # a local file by its path (pyarrow reads it natively); an object through fsspec
    pf = pq.ParquetFile(open_input(spec.path) if remote.is_url(spec.path) else spec.path)
    schema = pf.schema_arrow
    if not _has_column(schema, config.text_field):
        raise InputError(f"no column {config.text_field!r} in the Parquet file")
    has_id = _has_column(schema, config.id_field)
    # provenance columns the file has (a row of a file without one has null)
    metas = [path if _has_column(schema, path) else None for _, path in config.meta_fields]
    # a nested field is read by its top column (pyarrow selects struct children by prefix)
    cols = sorted(
        {
            f.split(".")[0] if f not in schema.names else f
            for f in (config.text_field, config.id_field, *metas)
            if f is not None and (f != config.id_field or has_id)
        }
    )
    groups = [spec.start] if spec.stop >= 0 else list(range(pf.num_row_groups))
    for g in groups:
        row = sum(pf.metadata.row_group(i).num_rows for i in range(g))
        meta = pf.metadata.row_group(g)
        result.bytes_read += meta.total_byte_size
        # progress in bytes as stored, as the planner's total counts them
        progress(sum(meta.column(c).total_compressed_size for c in range(meta.num_columns)), 0)
        for batch in pf.iter_batches(batch_size=1024, columns=cols, row_groups=[g]):
            texts = _column(batch, config.text_field).to_pylist()
            ids = _column(batch, config.id_field).to_pylist() if has_id else [None] * len(texts)
            values = [
                [meta_value(v) for v in _column(batch, m).to_pylist()] if m else [None] * len(texts)
                for m in metas
            ]
            rows = list(zip(*values, strict=True)) if values else [()] * len(texts)
            for rid, text, meta in zip(ids, texts, rows, strict=True):
                if isinstance(text, str):
                    # a row without an id is named by its row (issue 11), never merged
                    yield (f"row {row}" if rid is None else display_name(str(rid))), text, tuple(meta)
                else:
                    skipped.add(
                        "row", row, f"{config.text_field!r} is {'null' if text is None else 'not a string'}"
                    )
                row += 1


def _has_column(schema: Any, path: str) -> bool:
    """Whether an Arrow schema has a column by name or by dotted path into structs."""
    if path in schema.names:
        return True
    typ: Any = schema
    for part in path.split("."):
        names = [f.name for f in typ] if hasattr(typ, "__iter__") else []
        if part not in names:
            return False
        typ = typ.field(part).type if hasattr(typ, "field") else None
        if typ is None:
            return False
    return True


def _column(batch: Any, path: str) -> Any:
    """A batch's column by name or by dotted path into structs (`meta.text`)."""
    if path in batch.schema.names:
        return batch.column(path)
    first, *rest = path.split(".")
    col = batch.column(first)
    for part in rest:
        col = col.field(part)
    return col


def byte_range(path: str, start: int, stop: int) -> BinaryIO:
    """Bytes [start, stop) of an uncompressed file (stop -1: to its end), as a stream."""
    f = open_input(path)
    f.seek(start)
    if stop < 0:
        return f
    return io.BufferedReader(_Limited(f, stop - start), buffer_size=1 << 20)


class _Limited(io.RawIOBase):
    """The next `left` bytes of a stream; closing it closes the stream."""

    def __init__(self, stream: BinaryIO, left: int) -> None:
        super().__init__()
        self._s = stream
        self._left = left

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if self._left <= 0:
            return 0
        view = memoryview(b)[: self._left]
        n = self._s.readinto(view)  # type: ignore[attr-defined]
        self._left -= n or 0
        return n or 0

    def close(self) -> None:
        self._s.close()
        super().close()


def lines_at(f: Any, offsets: list[int]) -> list[int]:
    """How many lines end before each byte offset (ascending) of a seekable file: one pass."""
    out, lines, pos = [], 0, 0
    f.seek(0)
    for offset in offsets:
        while pos < offset:
            block = f.read(min(8 << 20, offset - pos))
            if not block:
                break
            lines += block.count(b"\n")
            pos += len(block)
        out.append(lines)
    return out


def lines_before(path: str, offset: int) -> int:
    """How many lines end before byte `offset` of a file."""
    with open_input(path) as f:
        return lines_at(f, [offset])[0]


class SkippedRecords:
    """The records of one input that had no text: counted, the first few named (issue 15: a
    malformed line was only a count in _run.json)."""

    SHOWN = 5

    def __init__(self, source: str, result: ShardResult, before: Callable[[], int] | None = None) -> None:
        self.source = source
        self.result = result
        self.count = 0
        self.first: list[dict[str, Any]] = []
        self._before = before  # how many records (lines) come before this shard's, asked once
        self._base: int | None = None

    def add(self, unit: str, number: int, reason: str) -> None:
        self.count += 1
        if len(self.first) < self.SHOWN:
            if self._base is None:
                self._base = self._before() if self._before is not None else 0
            self.first.append({unit: number + self._base, "reason": str(reason)})

    def close(self) -> None:
        if self.count:
            self.result.skipped_records += self.count
            self.result.skipped.append({"source": self.source, "records": self.count, "first": self.first})


class ReadTap(io.RawIOBase):
    """A read-only raw stream over another that shows each piece read to `seen` (the byte count
    for progress, the zstd frame walk); closing it leaves the other open: its owner closes it."""

    def __init__(self, stream: Any, seen: Callable[[bytes], None]) -> None:
        super().__init__()
        self._s = stream
        self._seen = seen

    def read(self, size: int = -1) -> bytes:
        data: bytes = self._s.read(size)
        self._seen(data)
        return data

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def readable(self) -> bool:
        return True
