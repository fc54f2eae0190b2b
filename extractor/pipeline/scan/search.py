"""The documents of one input with their mentions: the one place that picks the C matcher
(plain text, PDF text and HTML, on raw bytes) or the Python matcher (other prefixes, or no C).

A text input is one document; a JSONL or Parquet input gives a document per record. A document
with very many DOIs comes in several chunks, so memory stays bounded.
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ...match import native
from ...match.kinds import Kind, kind_of
from ...match.native import CHit
from ...match.syntaxes import syntax_of
from ..errors import InputError, input_errors
from ..formats import (
    FORMAT_HEAD,
    FORMATS,
    FileText,
    Records,
    StreamedText,
    each_record,
    records,
    tell_input,
)
from ..io.decode import HEAD_BYTES, clean, declared_encoding, detect_kind, input_head, syntax_for, text_told
from ..io.read import ReadTap, open_counted, open_input, read_upto
from ..table import Columns, Mentions, MentionTable
from ..units import (
    Chunk,
    Doc,
    DocBatch,
    MetaValues,
    Progress,
    ScanConfig,
    ShardResult,
    ShardSpec,
    Told,
    no_progress,
    take_chunk,
)
from .windows import (
    BYTE_RESERVE,
    RANGE_OVERLAP,
    CMatcher,
    DerivingMatcher,
    FileSource,
    Matcher,
    PythonMatcher,
    StreamSource,
    Window,
    regular_file,
    scan_whole,
    scan_windows,
)

if TYPE_CHECKING:
    # the scan's sink, which needs pyarrow: `find` reads through this module without it
    from .sinks import OccurrenceSink


def uses_c(kind: Kind, allow_other_prefix: bool) -> bool:
    """Whether a text of this kind goes to the C matcher: a kind with a C entry point,
    10-prefixes only (the C port has find.py's rules for those)."""
    return kind.c_entry is not None and not allow_other_prefix and native.HAVE_C


def matcher_for(
    kind: str,
    allow_other_prefix: bool,
    table: MentionTable | None,
    hits: list[CHit] | None,
    syntax: str | None = None,
    derive: tuple[str, ...] = (),
) -> Matcher:
    """The matcher for a text of this kind, read in this source syntax (spec §7; None: prose):
    the one place where C or Python is chosen. A syntax with a C entry point is read in C, any
    other by the Python matcher through its views; with `derive`, the DOIs spec §8 derives
    from those sources' identifiers are found after it (DerivingMatcher)."""
    match = _matcher(kind_of(kind), allow_other_prefix, table, hits, syntax)
    return DerivingMatcher(match, derive, table, hits) if derive else match


def _matcher(
    k: Kind, allow_other_prefix: bool, table: MentionTable | None, hits: list[CHit] | None, syntax: str | None
) -> Matcher:
    if syntax is None and uses_c(k, allow_other_prefix):
        return CMatcher(table, hits, k)
    entry = syntax_of(syntax).c_entry if syntax is not None else None
    if entry is not None and native.HAVE_C and not allow_other_prefix:
        return CMatcher(table, hits, k, entry)
    return PythonMatcher(k, allow_other_prefix, table, hits, syntax)


def document_syntax(
    forced: str | None, name: str | None, head: bytes | str, result: ShardResult
) -> str | None:
    """The source syntax a record is read in (a record is a document of its own, told by its
    name and head: decode.syntax_for), None for prose; counted in `result` by document."""
    return _counted(syntax_for(forced, name, head), result)


def _counted(syntax: str | None, result: ShardResult) -> str | None:
    """A document's source syntax (None or "" for prose), counted in `result`."""
    if syntax:
        result.syntaxes[syntax] = result.syntaxes.get(syntax, 0) + 1
    return syntax or None


def prefaced(text: str, preface: str) -> tuple[bytes, tuple[int, int]]:
    """A record's text as the UTF-8 bytes searched, its preface (Record.preface) before it, and
    the preface's length in (bytes, characters)."""
    if not preface:
        return text.encode("utf-8"), (0, 0)
    head = clean(preface)[0].encode("utf-8")
    return head + text.encode("utf-8"), (len(head), len(preface))


def match_record(
    data: Any,
    kind: str | None,
    allow_other_prefix: bool,
    table: MentionTable | None,
    hits: list[CHit] | None,
    syntax: str | None = None,
    preface: tuple[int, int] = (0, 0),
    derive: tuple[str, ...] = (),
) -> tuple[int, int]:
    """Search a record's whole text (valid UTF-8 bytes) in one call, its kind detected from it
    unless given, read in `syntax` (None: prose); offsets count characters. `preface`: (bytes,
    characters) at its start that are read but not searched for hits (Record.preface), offsets
    counting from their end. (reported, candidates too long)"""
    match = matcher_for(
        kind or detect_kind(None, bytes(data[:HEAD_BYTES])), allow_other_prefix, table, hits, syntax, derive
    )
    skip, chars = preface
    found = match(Window(data, 0, len(data), skip, len(data) + 1, -chars, True))
    return found.reported, found.too_long


def _chunks(
    source: Any,
    kind: str,
    config: ScanConfig,
    progress: Progress,
    result: ShardResult,
    occ: OccurrenceSink,
    where: tuple[str, str | None],
    range_lo: int = 0,
    range_hi: int | None = None,
    chars: bool = False,
    syntax: str | None = None,
) -> Iterator[Chunk]:
    """The mention chunks of one document read window by window, recording occurrences."""
    table = Mentions()
    hits: list[CHit] | None = [] if config.occurrences else None
    match = matcher_for(kind, config.allow_other_prefix, table, hits, syntax, config.derive)
    found = scan_windows(source, match, result, progress, range_lo, range_hi, chars)
    yield from drain(found, table, hits, occ, where[0], where[1], config.buckets, config.max_mentions)


def drain(
    found: Iterator[int],
    table: MentionTable,
    hits: list[CHit] | None,
    occ: OccurrenceSink,
    source: str,
    rid: str | None,
    buckets: int,
    max_mentions: int,
) -> Iterator[Chunk]:
    """The mention chunks of a C-matcher scan (which yields after each window), recording
    occurrences as it goes."""
    for _ in found:
        if hits:
            occ.add_c_hits(hits, source, rid)
            hits.clear()
        if len(table) >= max_mentions:
            yield take_chunk(table, buckets)
    yield take_chunk(table, buckets)


def _text_reading(
    spec: ShardSpec, config: ScanConfig, head: bytes, result: ShardResult
) -> tuple[str, str | None]:
    """The kind and source syntax (None: prose) of a text shard's document: those its file was
    told at planning, else told now by the head of its text (decode.text_told); its syntax
    counted once, by the shard that starts the file."""
    told = text_told(spec.told, spec.source, head, config.syntax)
    assert told.kind is not None
    if spec.start == 0:
        return told.kind, _counted(told.syntax, result)
    return told.kind, told.syntax or None


def _not_cut(stream: Any, planned: int) -> None:
    """InputError when a regular file is now shorter than the bytes the shard was planned to
    read (cut since the plan, or while an earlier shard read it)."""
    try:
        st = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return
    if stat.S_ISREG(st.st_mode) and st.st_size < planned:
        raise InputError(f"the file shrank while it was read (to {st.st_size} bytes)")


def _text_chunks(
    spec: ShardSpec, config: ScanConfig, progress: Progress, result: ShardResult, occ: OccurrenceSink
) -> Iterator[Chunk]:
    """The mentions of a text shard whose start it owns, with absolute byte offsets.

    A shard owns the hits that start in its byte range [start, stop); it reads from a little
    before `start` (left context) to well past `stop` (so a hit across the cut is complete),
    which is how a DOI straddling a cut is found exactly once. An uncompressed file is read in
    windows (FileSource), anything else as a stream.
    """
    range_lo, range_hi = spec.start, (None if spec.stop < 0 else spec.stop)
    base = max(0, range_lo - RANGE_OVERLAP) if range_lo else 0
    comp, encoding = spec.told.compression, spec.told.encoding
    if spec.seek_points:  # a range of a gzip file's text, from its seek points (io/seekgz.py)
        from ..io import seekgz

        raw = stream = seekgz.open_at(spec.path, spec.seek_points, base)
    else:
        raw, stream, progress = open_counted(spec.path, comp, progress, result.text_cut(spec.source))
    with raw, stream:
        if encoding is not None:  # a text in another encoding is one shard (formats/text.py)
            source = StreamSource.of_blocks(_decoded_blocks(stream, encoding, config.block_size))
            kind, syntax = _text_reading(spec, config, source.head, result)
            yield from _chunks(
                source, kind, config, progress, result, occ, (spec.source, None), syntax=syntax
            )
            result.documents += 1
            return
        if comp is None:
            _not_cut(stream, max(base, range_hi or 0, spec.size))
        fd = regular_file(stream, config.map_min) if comp is None else None
        windows: FileSource | StreamSource
        if fd is not None:
            size = os.fstat(fd).st_size
            stop = size if range_hi is None else min(size, range_hi + 8 * BYTE_RESERVE)
            windows = FileSource(fd, base, stop, config.map_window)
        else:
            if base:
                stream.seek(base)
            limit = None if range_hi is None else range_hi - base + 8 * BYTE_RESERVE
            windows = StreamSource(stream, base, limit, config.block_size)
        kind, syntax = _text_reading(spec, config, windows.head, result)
        try:
            yield from _chunks(
                windows,
                kind,
                config,
                progress,
                result,
                occ,
                (spec.source, None),
                range_lo,
                range_hi,
                syntax=syntax,
            )
        finally:
            windows.release()
        if range_lo == 0:
            result.documents += 1


def _told(unit: ShardSpec, config: ScanConfig) -> tuple[ShardSpec, bytes | None]:
    """A group's file told what it is by its first bytes (formats.tell_input, as the planner
    tells a large file), and its bytes when it is UTF-8 text of one block, searched as they
    are."""
    data = read_upto(unit.path, config.block_size)
    if data is None:
        with open_input(unit.path) as f:
            told = tell_input(unit.path, f.read(FORMAT_HEAD), config)
    else:
        told = tell_input(unit.path, data[:FORMAT_HEAD], config)
        if told.fmt != "text" or told.compression or told.encoding:
            data = None  # read as the planner's file of this format is (streamed, transcoded)
    return ShardSpec(unit.index, unit.source, unit.path, told, unit.start, unit.stop, unit.key), data


def _whole_chunk(
    unit: ShardSpec,
    data: bytes,
    config: ScanConfig,
    progress: Progress,
    result: ShardResult,
    occ: OccurrenceSink,
    table: MentionTable,
) -> Chunk:
    """The mentions of a small text file read whole, found as a stream of it would be; `table`
    is empty, and emptied again."""
    data, start = input_head(data, 0)
    kind, syntax = _text_reading(unit, config, data[:HEAD_BYTES], result)
    hits: list[CHit] | None = [] if config.occurrences else None
    match = matcher_for(kind, config.allow_other_prefix, table, hits, syntax, config.derive)
    scan_whole(data, start, match, result, progress)
    if hits:
        occ.add_c_hits(hits, unit.source, None)
    result.documents += 1
    return take_chunk(table, config.buckets)


def _transcoded(stream: Any, block_size: int) -> Iterator[bytes] | None:
    """A stream's UTF-8 blocks when it declares another encoding — UTF-16/32 with a BOM, an XML or
    HTML charset — else None (UTF-8 text, read as it is). Offsets then count bytes of
    that UTF-8; bytes not of the encoding read as U+FFFD."""
    peek = getattr(stream, "peek", None)
    encoding = declared_encoding(peek(HEAD_BYTES)[:HEAD_BYTES]) if peek else None
    return None if encoding is None else _decoded_blocks(stream, encoding, block_size)


def _decoded_blocks(stream: Any, encoding: str, block_size: int) -> Iterator[bytes]:
    dec = codecs.getincrementaldecoder(encoding)("replace")
    while True:
        data = stream.read(block_size)
        text = dec.decode(data, final=not data)
        if text:
            yield text.encode("utf-8", "replace")
        if not data:
            return


def _streamed_record_chunks(
    text: StreamedText,
    unit: ShardSpec,
    config: ScanConfig,
    progress: Progress,
    result: ShardResult,
    occ: OccurrenceSink,
    kind: str | None = None,
    name: str | None = None,
) -> Iterator[Chunk]:
    """A record too large to hold: its text is read in windows, like a file; offsets count
    characters. Its kind and syntax are told by its name (an archive member's) and head."""
    source = streamed_source(text)
    kind = kind or unit.kind or detect_kind(name, source.head)
    syntax = document_syntax(config.syntax, name, source.head, result)
    yield from _chunks(
        source, kind, config, progress, result, occ, (unit.source, text.rid), chars=True, syntax=syntax
    )


def _file_text_chunks(
    text: FileText,
    rid: str | None,
    kind: str | None,
    name: str | None,
    unit: ShardSpec,
    config: ScanConfig,
    progress: Progress,
    result: ShardResult,
    occ: OccurrenceSink,
) -> Iterator[Chunk]:
    """A file's bytes that are not a file on disk (an archive member), read as a text file's
    stream is (stream_source): offsets in bytes, lines counted. Its bytes were counted as the
    container's, in progress (hits only here)."""
    src = stream_source(text.stream, config.block_size)
    k = kind or unit.kind or detect_kind(name or "", src.head)
    syntax = document_syntax(config.syntax, name, src.head, result)

    def hits_only(nbytes: int, nhits: int) -> None:
        progress(0, nhits)

    yield from _chunks(src, k, config, hits_only, result, occ, (unit.source, rid), syntax=syntax)


def streamed_source(text: StreamedText) -> StreamSource:
    """A record too large to hold as a source of windows: its text, cleaned, in UTF-8 (a chunk
    given as bytes is valid UTF-8 already)."""
    return StreamSource.of_blocks(
        t if isinstance(t, bytes) else clean(t)[0].encode("utf-8") for t in text.chunks if t
    )


def _record_chunks(
    text: str,
    rid: str | None,
    kind: str | None,
    unit: ShardSpec,
    config: ScanConfig,
    progress: Progress,
    result: ShardResult,
    occ: OccurrenceSink,
    table: MentionTable,
    name: str | None = None,
    preface: str = "",
) -> Chunk:
    """A record's text held whole (records are many and small: one window, one call); offsets
    count characters; `table` is empty, and emptied again. Its kind and syntax are told by its
    name (an archive member's) and head."""
    hits: list[CHit] | None = [] if config.occurrences else None
    _match_text(text, kind, unit, config, progress, result, table, hits, name, preface)
    if hits:
        occ.add_c_hits(hits, unit.source, rid)
    return take_chunk(table, config.buckets)


def _match_text(
    text: str,
    kind: str | None,
    unit: ShardSpec,
    config: ScanConfig,
    progress: Progress,
    result: ShardResult,
    table: MentionTable,
    hits: list[CHit] | None,
    name: str | None = None,
    preface: str = "",
) -> None:
    """Count a record's hits (its text held whole: one window, one call) in `table`, its kind
    and syntax told by its name (an archive member's) and head; offsets count characters."""
    text, bad = clean(text)  # invalid bytes of the record (see formats/jsonl.py)
    result.invalid_bytes += bad
    syntax = document_syntax(config.syntax, name, preface + text[:HEAD_BYTES], result)
    kind = kind or unit.kind or (detect_kind(name, text[:HEAD_BYTES]) if name else None)
    data, skip = prefaced(text, preface)
    reported, too_long = match_record(
        data, kind, config.allow_other_prefix, table, hits, syntax, skip, config.derive
    )
    result.too_long += too_long
    result.hits += reported
    progress(0, reported)


# A batch of records (search.py's, not a format's): at most this many, or this many characters
# of text, are read before their rows are handed on.
BATCH_RECORDS = 4096
BATCH_CHARS = 8 << 20


class _Batch:
    """Records gathered to be read as one batch (_batch_docs): their ids and provenance, and their
    texts in runs — lists of str, or Arrow string arrays as a Parquet reader gives them."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.number = 0
        self.runs: list[Any] = []
        self.count = 0
        self.rids: list[str | None] = []
        self.metas: list[MetaValues] = []
        self.chars = 0

    def _list_run(self) -> list[str]:
        """The last run of texts when it is a list of str, else a new one."""
        if not self.runs or not isinstance(self.runs[-1], list):
            self.runs.append([])
        run: list[str] = self.runs[-1]
        return run

    def _full(self) -> bool:
        return self.count >= BATCH_RECORDS or self.chars >= BATCH_CHARS

    def add(self, number: int, text: str, rid: str | None, meta: MetaValues) -> bool:
        """Gather one record; True when the batch is full."""
        if not self.count:
            self.number = number
        self._list_run().append(text)
        self.count += 1
        self.rids.append(rid)
        self.metas.append(meta)
        self.chars += len(text)
        return self._full()

    def extend(self, number: int, records: Records) -> bool:
        """Gather a reader's batch of records; True when the batch is full."""
        if not self.count:
            self.number = number
        texts = records.texts
        if isinstance(texts, list):
            self._list_run().extend(texts)
            self.chars += sum(map(len, texts))
        else:
            self.runs.append(texts)
            self.chars += texts.nbytes
        self.count += len(texts)
        self.rids += records.rids
        self.metas += records.metas
        return self._full()


def _batch_docs(
    batch: _Batch,
    unit: ShardSpec,
    config: ScanConfig,
    progress: Progress,
    result: ShardResult,
    table: MentionTable,
) -> Iterator[DocBatch]:
    """The mentions of a batch of records (of no kind or name of their own, nothing before their
    text, no occurrences asked), read into one table keyed by record: the texts that are plainly
    prose in one C call a run of them (native.scan_texts, scan_arrow_texts), any other by
    _match_text, as _record_chunks reads it, in the records' order. The rows are handed on
    whenever the table holds config.max_mentions (a batch of reference lists holds hundreds of
    thousands of distinct DOIs), and at the end; the batch is emptied."""
    in_c = (
        native.HAVE_C
        and not config.derive
        and not config.allow_other_prefix
        and unit.kind in (None, "plain")
        and config.syntax in (None, "auto", "none")
    )
    sniffs = (HEAD_BYTES, unit.kind is None, config.syntax != "none")
    limit = config.max_mentions

    def rows() -> DocBatch:
        cols = table.take_columns(config.buckets, True)
        return DocBatch(unit.source, batch.number, batch.rids, batch.metas, Columns(*cols[:-1]), cols[-1])

    doc = 0
    for texts in batch.runs:
        n = len(texts)
        arrow = None if isinstance(texts, list) else texts.buffers()
        i = 0
        while i < n:
            if in_c:
                if arrow is None:
                    i, reported, too_long = native.scan_texts(texts, i, table, *sniffs, doc, limit)
                else:
                    import pyarrow as pa  # loaded already: the reader gave an Arrow array

                    large = pa.types.is_large_string(texts.type)
                    i, reported, too_long = native.scan_arrow_texts(
                        arrow[1], arrow[2], texts.offset, n, large, i, table, *sniffs, doc, limit
                    )
                result.hits += reported
                result.too_long += too_long
                progress(0, reported)
                if len(table) >= limit:
                    yield rows()
                    continue
                if i == n:
                    break
            table.set_doc(doc + i)
            text = texts[i] if arrow is None else texts[i].as_py()
            _match_text(text, None, unit, config, progress, result, table, None)
            i += 1
            if len(table) >= limit:
                yield rows()
        doc += n
    yield rows()  # the last rows, or none: the batch's records are numbered all the same
    batch.clear()


def texts_mentions(texts: Any, config: ScanConfig, result: ShardResult) -> Iterator[DocBatch]:
    """The mentions of a run of record texts — a list of str, or an Arrow string array of valid
    UTF-8 with no nulls — read as a scan reads a batch of records of no name of their own
    (_batch_docs: in the kind config.kind forces, else each its own), each row keyed by its
    text's place in the run (DocBatch.docs); one batch at least, the last perhaps of no rows.
    The Arrow batch API's and DuckDB's reading."""
    batch = _Batch()
    n = len(texts)
    batch.extend(0, Records([None] * n, texts, [()] * n))
    unit = ShardSpec(0, "", "", Told("records", kind=config.kind))
    yield from _batch_docs(batch, unit, config, no_progress, result, Mentions())


def unit_docs(
    unit: ShardSpec, config: ScanConfig, progress: Progress, result: ShardResult, occ: OccurrenceSink
) -> Iterator[Doc | DocBatch]:
    """The documents of one input file (or byte range, or row group) with their mentions,
    numbered from 0 in the unit; records of no kind or name of their own come in batches. An
    input that cannot be read raises InputError."""
    # one table for the unit's documents, emptied by each (a table per document paid for its
    # storage again each time: a quarter of the time of a file of distinct DOIs)
    table = Mentions()
    with input_errors():
        data = None
        if not unit.fmt:
            unit, data = _told(unit, config)
            result.formats[unit.path] = unit.fmt
        if data is not None:
            yield Doc(unit.source, None, 0, _whole_chunk(unit, data, config, progress, result, occ, table))
            return
        if FORMATS[unit.fmt].records is None:  # the file is one text, read in windows
            for chunk in _text_chunks(unit, config, progress, result, occ):
                yield Doc(unit.source, None, 0, chunk)
            return
        batch = None if config.occurrences else _Batch()
        items = records(unit, config, result, progress)
        if batch is None:
            items = each_record(items)
        number = 0
        for item in items:
            n = number
            if isinstance(item, Records):
                result.documents += len(item.texts)
                number += len(item.texts)
                if config.citing_field is not None:
                    item = Records(item.rids, item.texts, [_citing(m, config, result) for m in item.metas])
                if batch is not None and batch.extend(n, item):
                    yield from _batch_docs(batch, unit, config, progress, result, table)
                continue
            number += 1
            rid, text, kind, meta, name, preface = item
            # a PDF's link annotations are more of the PDF before them: one document
            result.documents += kind is None or not kind_of(kind).continues
            if batch is not None:
                if kind is None and name is None and not preface and type(text) is str:
                    if batch.add(n, text, rid, _citing(meta, config, result)):
                        yield from _batch_docs(batch, unit, config, progress, result, table)
                    continue
                if batch.count:  # the records before this one, handed on first
                    yield from _batch_docs(batch, unit, config, progress, result, table)
            if isinstance(text, FileText):
                for chunk in _file_text_chunks(text, rid, kind, name, unit, config, progress, result, occ):
                    yield Doc(unit.source, rid, n, chunk, _citing(meta, config, result))
                continue
            if isinstance(text, StreamedText):
                since = len(occ)
                chunks: Iterable[Chunk] = _streamed_record_chunks(
                    text, unit, config, progress, result, occ, kind, name
                )
                if text.rid is None or None in text.meta:
                    # The id (or a provenance field) may stand after the text: known at its end.
                    chunks = list(chunks)
                    if text.rid is None:
                        text.rid = text.line_id
                    occ.set_record(since, text.rid)
                text.meta = _citing(text.meta, config, result)
                for chunk in chunks:  # when the id came first, as they come
                    yield Doc(unit.source, text.rid, n, chunk, text.meta)
                continue
            yield Doc(
                unit.source,
                rid,
                n,
                _record_chunks(text, rid, kind, unit, config, progress, result, occ, table, name, preface),
                _citing(meta, config, result),
            )
        if batch is not None and batch.count:
            yield from _batch_docs(batch, unit, config, progress, result, table)


def _citing(meta: MetaValues, config: ScanConfig, result: ShardResult) -> MetaValues:
    """A record's values with its citing field (the last, --citing-field) read as one identifier:
    the canonical DOI, or null when it holds none (counted)."""
    if config.citing_field is None:
        return meta
    if not meta:  # a record format without fields (none was found)
        meta = (None,) * len(config.record_fields)
    from ...match.identifiers import canonicalize  # the rules, loaded where a citing field is read

    doi = canonicalize(meta[-1])
    if doi is None:
        result.citing_without_doi += 1
    return (*meta[:-1], doi)


def stream_source(stream: Any, block_size: int, feed: Callable[[bytes], None] | None = None) -> StreamSource:
    """A text file's stream (or an archive member's) as a source of windows: transcoded to UTF-8
    when it declares another encoding, the bytes searched given to `feed` (find's line numbers)."""
    blocks = _transcoded(stream, block_size)
    if blocks is not None:
        return StreamSource.of_blocks(blocks if feed is None else _fed(blocks, feed))
    return StreamSource(stream if feed is None else ReadTap(stream, feed), 0, None, block_size)


def _fed(blocks: Iterator[bytes], feed: Callable[[bytes], None]) -> Iterator[bytes]:
    """The blocks, each given to `feed` on its way."""
    for data in blocks:
        feed(data)
        yield data
