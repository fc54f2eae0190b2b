"""A JSONL stream read into records, a line at a time: each line's text field, id and provenance
fields (orjson where installed, the stdlib for every line it refuses, so both give the same
records; the C reader, `_cjsonl`, for each line whose reading is plain, straight into an Arrow
string column's buffers); a line too long to hold has its text streamed (StreamedText)."""

from __future__ import annotations

import codecs
import io
import json
import re
import sys
from collections.abc import Iterator, Sequence
from typing import Any, BinaryIO, NamedTuple

from ...match.jsonstr import JsonStringDecoder
from ..io.read import display_name
from ..provenance import Meta, field_of, from_record, meta_value
from .base import StreamedText

try:
    from . import _cjsonl
except ImportError:  # built where a C compiler was; else every line is read in Python
    _cjsonl = None  # type: ignore[assignment]

# orjson (the `fast` extra) where installed, loaded with the first JSON line read (orjson_module);
# a test sets ORJSON to None to read the same lines with the stdlib alone.
_UNLOADED: Any = object()
ORJSON: Any = _UNLOADED


def orjson_module() -> Any:
    """orjson, or None where it is not installed."""
    global ORJSON
    if ORJSON is _UNLOADED:
        try:
            import orjson

            ORJSON = orjson
        except ImportError:  # pragma: no cover - the stdlib fallback is tested by forcing it
            ORJSON = None
    return ORJSON


def load_json_line(line: bytes) -> Any:
    """A JSON text: orjson's reading, or the stdlib's for what orjson refuses (lone surrogate
    escapes, NaN, integers over 64 bits, invalid UTF-8 — raised as UnicodeDecodeError as ever)."""
    orjson = orjson_module()
    if orjson is not None:
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            pass
    return json.loads(line)


# A JSON string or a bracket: enough to know how deep a key stands.
_JSON_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[][{}]')


def _top_level_key(line: bytes, field_re: re.Pattern[bytes], depth: int = 0) -> re.Match[bytes] | None:
    """The first match of `field_re` that is a key of the record itself, not of an object
    nested in it (a long record's `"meta": {"text": …}` before its own `"text"`);
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


# One line of a JSONL stream as read: (record id, text, line number, provenance).
JsonlLine = tuple[str | None, str | StreamedText | Skipped, int, Meta]


class CRun(NamedTuple):
    """Consecutive records read in C (_cjsonl.read_lines): their ids (None where a record has
    none), line numbers, texts as an Arrow string column's int32 offsets and UTF-8 data, and
    provenance values."""

    rids: list[str | None]
    lines: list[int]
    offsets: bytes
    data: bytes
    metas: list[Meta]

    def texts(self) -> Any:
        """The texts: an Arrow string array where a scan has loaded pyarrow (no Python object per
        text), else str (`find` loads no pyarrow)."""
        n = len(self.rids)
        if "pyarrow" in sys.modules:
            import pyarrow as pa

            return pa.Array.from_buffers(
                pa.string(), n, [None, pa.py_buffer(self.offsets), pa.py_buffer(self.data)]
            )
        at = memoryview(self.offsets).cast("i")
        return [self.data[at[i] : at[i + 1]].decode() for i in range(n)]


class _CReader(NamedTuple):
    """_cjsonl.read_lines with the top-level keys whose values the provenance fields are read
    from: each field's path as one key, and a dotted path's first part."""

    read: Any
    keys: tuple[bytes, ...]
    # per provenance field: its path, and the places in `keys` of the path and of its first part
    fields: tuple[tuple[str, int, int], ...]

    def metas(self, data: bytes, spans: list[int], records: int) -> list[Meta]:
        """Each record's provenance values, as provenance.from_record reads them from the parsed
        record: its fields' values read by JSON from their places in the line."""
        if not self.fields:
            return [()] * records
        orjson = orjson_module()
        loads = orjson.loads if orjson is not None else json.loads
        width = 2 * len(self.keys)
        out: list[Meta] = []
        for base in range(0, width * records, width):
            values = []
            for path, whole, first in self.fields:
                at = base + 2 * whole
                if spans[at] < 0 and whole != first:  # a dotted path into its first part's object
                    at = base + 2 * first
                    found = None if spans[at] < 0 else loads(data[spans[at] : spans[at + 1]])
                    value = field_of({path.split(".")[0]: found}, path)[1]
                else:
                    value = None if spans[at] < 0 else loads(data[spans[at] : spans[at + 1]])
                values.append(meta_value(value))
            out.append(tuple(values))
        return out


def _c_reader(text_field: str, id_field: str, fields: Sequence[tuple[str, str]]) -> _CReader | None:
    """The C reader where it reads these records as Python would: the text and id fields each a
    top-level key (a dotted path is followed in Python), apart from each other and from the
    provenance fields' keys."""
    if _cjsonl is None or "." in text_field or "." in id_field or text_field == id_field:
        return None
    keys: dict[str, int] = {}
    for _, path in fields:
        keys.setdefault(path, len(keys))
        keys.setdefault(path.split(".")[0], len(keys))
    if text_field in keys or id_field in keys:
        return None
    return _CReader(
        _cjsonl.read_lines,
        tuple(k.encode() for k in keys),
        tuple((path, keys[path], keys[path.split(".")[0]]) for _, path in fields),
    )


def iter_jsonl_records(
    stream: BinaryIO | io.RawIOBase,
    text_field: str,
    id_field: str,
    max_line: int = 16 << 20,
    fields: Sequence[tuple[str, str]] = (),
) -> Iterator[JsonlLine]:
    """(record id, text, line number, provenance) for each line of a JSONL stream; provenance
    holds the values of `fields` (provenance.py).

    A line longer than `max_line` bytes is not held whole: its text field is given as a
    StreamedText, decoded piece by piece (the caller reads it before the next record; its
    provenance is the StreamedText's). A line that is not a JSON object, or has no string in its
    text field, gives (None, Skipped(why), n, ()).
    """
    for block in iter_jsonl_blocks(stream, text_field, id_field, max_line, fields):
        if isinstance(block, CRun):
            texts = block.texts()
            texts = texts if isinstance(texts, list) else texts.to_pylist()
            yield from zip(block.rids, texts, block.lines, block.metas, strict=True)
        else:
            yield from block


def iter_jsonl_blocks(
    stream: BinaryIO | io.RawIOBase,
    text_field: str,
    id_field: str,
    max_line: int = 16 << 20,
    fields: Sequence[tuple[str, str]] = (),
) -> Iterator[list[JsonlLine] | CRun]:
    """iter_jsonl_records' lines in lists: every whole line of the read buffer at once (a
    megabyte of them, split at memchr's speed), a line across the buffer's end or too long to
    hold alone. Where the C reader runs, the plain records among them come as CRun, in order."""
    buf: Any = stream if hasattr(stream, "peek") else io.BufferedReader(stream, buffer_size=1 << 20)
    n = 0
    field_re = re.compile(rb'"' + re.escape(text_field.encode()) + rb'"\s*:\s*"')
    reader = _c_reader(text_field, id_field, fields)
    keys = (text_field.encode(), id_field.encode(), reader.keys if reader is not None else ())
    while True:
        # the whole lines buffered, when none of them is longer than a line held whole may be
        end = buf.peek(1 << 20).rfind(b"\n", 0, max_line + 1)
        if end >= 0:
            data = buf.read(end + 1)
            if reader is None:
                block: list[JsonlLine] = []
                for line in data.split(b"\n")[:-1]:
                    n += 1
                    if line.strip():
                        block.append(_line_record(line, n, text_field, id_field, fields))
                yield block
                continue
            pos = 0
            left: list[JsonlLine] = []
            while pos < len(data):
                pos, lines, offsets, text, rids, at, spans = reader.read(data, pos, *keys)
                if rids:
                    if left:
                        yield left
                        left = []
                    yield CRun(
                        rids, [n + 1 + a for a in at], offsets, text, reader.metas(data, spans, len(rids))
                    )
                n += lines
                if pos < len(data):  # a line the C reader leaves to Python (never a blank one)
                    cut = data.index(b"\n", pos)
                    n += 1
                    left.append(_line_record(data[pos:cut], n, text_field, id_field, fields))
                    pos = cut + 1
            if left:
                yield left
            continue
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
                yield [
                    (None, Skipped(f"over {max_line} bytes with no top-level {text_field!r} string"), n, ())
                ]
                continue
            head = line[: m.start()]
            rec = StreamedText(_id_in(head, id_field), iter(()), _meta_in(head, fields))
            rec.chunks = _stream_string(line, m.end(), buf, rec, id_field, fields)
            del line, head
            yield [(rec.rid, rec, n, rec.meta)]
            for _ in rec.chunks:  # make sure the record was read to its end
                pass
            continue
        if line.strip():
            yield [_line_record(line, n, text_field, id_field, fields)]


def _line_record(
    line: bytes, n: int, text_field: str, id_field: str, fields: Sequence[tuple[str, str]]
) -> JsonlLine:
    """A line held whole (not blank), parsed into its record."""
    orjson = orjson_module()
    try:
        obj = orjson.loads(line) if orjson is not None else json.loads(line)
    except ValueError:
        obj = _NOT_READ
    if type(obj) is dict:
        # a record's own text and id fields as most records have them: no path to follow
        text = obj.get(text_field)
        if type(text) is str:
            rid = (
                obj[id_field] if id_field in obj else field_of(obj, id_field)[1] if "." in id_field else None
            )
            if rid is None or type(rid) is str:
                meta = from_record(obj, fields) if fields else ()
                return (None if rid is None else display_name(rid)), text, n, meta
    elif obj is not _NOT_READ:
        return None, Skipped(f"a JSON {_json_type(obj)}, not an object"), n, ()
    return _line_record_slow(line, n, text_field, id_field, fields)


# What a line orjson refuses (or the stdlib) is read as before the careful reading.
_NOT_READ = object()


def _line_record_slow(
    line: bytes, n: int, text_field: str, id_field: str, fields: Sequence[tuple[str, str]]
) -> JsonlLine:
    """_line_record of a line that is not plainly a record with its text: each case told."""
    try:
        obj = load_json_line(line)
    except UnicodeDecodeError:
        # Invalid UTF-8 in a record: read it with the bytes kept as lone surrogates (made
        # U+FFFD and counted where its text is searched), not dropped whole.
        try:
            obj = json.loads(line.decode("utf-8", "surrogateescape"))
        except ValueError:
            return None, Skipped("not valid JSON"), n, ()
    except ValueError:
        return None, Skipped("not valid JSON"), n, ()
    if not isinstance(obj, dict):
        return None, Skipped(f"a JSON {_json_type(obj)}, not an object"), n, ()
    has_text, text = field_of(obj, text_field)
    _, rid = field_of(obj, id_field)
    if type(rid) is float and orjson_module() is not None:
        # orjson reads an integer over 64 bits as a float; the stdlib keeps its digits
        rid = field_of(json.loads(line.decode("utf-8", "surrogateescape")), id_field)[1]
    if isinstance(text, str):
        return (None if rid is None else display_name(str(rid))), text, n, from_record(obj, fields)
    if not has_text:
        return None, MissingField(f"no {text_field!r} field"), n, ()
    return None, Skipped(f"{text_field!r} is a JSON {_json_type(text)}, not a string"), n, ()


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    names: dict[type, str] = {dict: "object", list: "array", str: "string"}
    return names.get(type(value), "number")
