"""What `find` reads, grep's way: an input's hits as a stream is read (a text file, stdin), record
by record (a record file, read as a scan reads it), or by byte range (a large text file shared
by processes); counted or listed with no Python object per hit where nothing else is asked.
The processes that share the ranges are the engines' (engines/pool.py); the printing is the
CLI's."""

import os
from collections.abc import Iterator
from typing import Any, NamedTuple

from ..match import FORMS, Hit
from ..match.native import CHit
from .errors import input_errors, read_each
from .fields import FieldCheck, asks_fields
from .formats import (
    FORMAT_HEAD,
    FORMATS,
    FileText,
    PlanInput,
    Planned,
    StreamedText,
    each_record,
    records,
    tell_input,
)
from .io.decode import HEAD_BYTES, clean, detect_kind, syntax_for, text_input_type
from .io.read import open_input
from .scan.matchers import match_record, matcher_for, prefaced
from .scan.records import streamed_source
from .scan.text import stream_source
from .scan.windows import BYTE_RESERVE, RANGE_OVERLAP, FileSource, StreamSource, scan_windows
from .units import InputType, ScanConfig, ShardResult, ShardSpec, no_progress


class FindOptions(NamedTuple):
    """How find reads its inputs: the kind and source syntax forced (None: told by each input's
    name and head, or each record's), other prefixes accepted or not, the sources of spec §8,
    the record fields, and the size of a stream's blocks."""

    kind: str | None = None
    syntax: str | None = None
    allow_other_prefix: bool = False
    derive: tuple[str, ...] = ()
    text_field: str = "text"
    id_field: str = "id"
    block_size: int = 1 << 20

    def config(self) -> ScanConfig:
        """The scan's settings that read an input as these options do."""
        return ScanConfig(
            out="",
            kind=self.kind,
            syntax=self.syntax,
            allow_other_prefix=self.allow_other_prefix,
            text_field=self.text_field,
            id_field=self.id_field,
            derive=self.derive,
        )


PLAIN = FindOptions()  # every kind and syntax told by the input, 10-prefixes only, nothing derived


class RecordHit(NamedTuple):
    """A DOI of a record file: its record's id, the hit, and the source syntax its record was read in."""

    record: str | None
    hit: Hit
    syntax: str | None


def type_of_input(path: str, opts: FindOptions = PLAIN) -> InputType:
    """What an input file is, as a scan's planner tells it (formats.tell_input)."""
    with input_errors(), open_input(path) as f:
        head = f.read(FORMAT_HEAD)
        return tell_input(path, head, opts.config())


def hits_in_records(
    path: str, path_type: InputType, opts: FindOptions = PLAIN, result: ShardResult | None = None
) -> Iterator[RecordHit]:
    """Every DOI of a record file (a format with records: JSONL, Parquet, WARC, a raw PDF), told
    what it is by type_of_input and read as a scan reads it; a hit's offsets count characters of
    its record's text (bytes of it for a record too large to hold), each record read in the
    syntax opts.syntax forces or its head tells. Raises InputError for an input that cannot be
    read; one cut short is read to the cut, named in `result.partial`."""
    kind = path_type.kind
    config = opts.config()._replace(kind=kind)
    result = result or ShardResult(0)
    # an --id-field that no record holds is said (fields.py): its records are counted here
    check = FieldCheck(path, config, path_type.fmt) if asks_fields(config) else None
    # the format's reading: its faults are the input's, the matcher's are the program's
    for rid, text, rkind, meta, name, preface in each_record(
        read_each(records(ShardSpec(0, path, path, path_type), config, result, no_progress))
    ):
        if check is not None:
            check.see(rid if not isinstance(text, StreamedText) else text.rid or text.line_id, meta)
        if isinstance(text, FileText):  # a member of an archive: a file's bytes
            member = stream_hits(text.stream, name or "", opts._replace(kind=rkind or kind))
            for h in member.hits:
                yield RecordHit(rid, h, member.syntax)
            continue
        if isinstance(text, StreamedText):
            # read in windows; its id may stand after its text, so its hits wait for it
            src = streamed_source(text)
            syn = syntax_for(opts.syntax, name, src.head)
            k = rkind or kind or detect_kind(name, src.head)
            got = list(_source_hits(src, opts._replace(kind=k, syntax=syn)))
            for h in got:
                yield RecordHit(text.rid or text.line_id, h, syn)
            continue
        text = clean(text)[0]
        k = rkind or kind or detect_kind(name, text[:HEAD_BYTES])
        syn = syntax_for(opts.syntax, name, preface + text[:HEAD_BYTES])
        # the matcher a scan uses (C where it reads the kind and syntax), as for a text input
        hits: list[CHit] = []
        data, skip = prefaced(text, preface)
        match_record(data, k, opts.allow_other_prefix, None, hits, syn, skip, opts.derive)
        for a, b, f, d, raw, _line in hits:
            yield RecordHit(rid, Hit(a, b, clean(raw)[0], FORMS[f], d), syn)
    if check is not None:
        check.close(result)


def text_ranges(path: str, source: str, config: ScanConfig) -> Planned | None:
    """A local uncompressed text file planned as a scan plans it (formats/text.py): byte ranges
    cut at line ends, its kind and syntax decided once, on its head; None when it is another
    format, or read as one stream (compressed, transcoded). Raises InputError for a binary file."""
    with input_errors(), open(path, "rb") as f:
        head = f.read(FORMAT_HEAD)
        told = tell_input(path, head, config)
        plan = FORMATS[told.fmt].plan
        if told.fmt != "text" or plan is None:
            return None
        size = os.fstat(f.fileno()).st_size
        planned = plan(PlanInput(f, path, source, size, told, head, config))
        return planned if planned.input_type is not None else None


class TextRange(NamedTuple):
    """A byte range [start, stop) of a text file (stop -1: to the end) as one of find's processes
    reads it: in the kind and syntax decided for the whole file (text_ranges), other prefixes
    accepted or not, the sources of spec §8 asked for."""

    path: str
    start: int
    stop: int
    kind: str
    allow_other_prefix: bool = False
    syntax: str | None = None
    derive: tuple[str, ...] = ()


def hits_in_range(r: TextRange) -> Iterator[tuple[int | None, Hit]]:
    """(line, hit) for each DOI that starts in the range, read as a scan's shard of that range
    reads it — from a little before its start to well past its stop, so that a DOI across a cut
    is found once, by the range it starts in. Offsets count bytes of the file; lines count from
    the range's first line."""
    hits: list[CHit] = []
    yield from _window_hits(_range_windows(r, hits), hits)


def doi_lists_in_range(r: TextRange) -> Iterator[list[str]]:
    """The canonical DOIs hits_in_range gives, a list a window, with no Hit made."""
    hits: list[CHit] = []
    yield from _window_dois(_range_windows(r, hits), hits)


def count_in_range(r: TextRange) -> int:
    """How many DOIs hits_in_range gives, counted by the matcher with no Python object per hit."""
    return sum(_range_windows(r, None))


def _range_windows(r: TextRange, hits: list[CHit] | None) -> Iterator[int]:
    """The hits of each window of a byte range as hits_in_range reads it, listed in `hits`."""
    with input_errors():
        f = open(r.path, "rb")  # noqa: SIM115  # closed below, where its windows end
    with f:
        fd = f.fileno()
        size = os.fstat(fd).st_size
        base = max(0, r.start - RANGE_OVERLAP) if r.start else 0
        hi = None if r.stop < 0 else r.stop
        windows = FileSource(fd, base, size if hi is None else min(size, hi + 8 * BYTE_RESERVE), 8 << 20)
        match = matcher_for(r.kind, r.allow_other_prefix, None, hits, r.syntax, r.derive)
        try:
            yield from scan_windows(windows, match, ShardResult(0), no_progress, r.start, hi)
        finally:
            windows.release()


def _window_hits(windows: Iterator[int], hits: list[CHit]) -> Iterator[tuple[int | None, Hit]]:
    """(line, hit) for each hit a scan's windows list in `hits`, window by window."""
    for _ in windows:
        for a, b, form, doi, raw, line in hits:
            yield line, Hit(a, b, clean(raw)[0], FORMS[form], doi)
        hits.clear()


def _window_dois(windows: Iterator[int], hits: list[CHit]) -> Iterator[list[str]]:
    """The canonical DOIs a scan's windows list in `hits`, a list a window."""
    for _ in windows:
        yield [h[3] for h in hits]
        hits.clear()


class LineCounter:
    """Line numbers of byte offsets in a stream read once, in order: the bytes it was fed, kept
    only for the last few blocks (a hit is reported within a window of where reading is)."""

    KEEP = 16

    def __init__(self) -> None:
        self.blocks: list[tuple[int, int, bytes]] = []  # (offset, lines before it, bytes)
        self.offset = 0
        self.lines = 0
        self._last = (-1, 0)  # (offset, newlines before it) of the last line_of

    def feed(self, data: bytes) -> None:
        if data:
            self.blocks.append((self.offset, self.lines, bytes(data)))
            self.offset += len(data)
            self.lines += data.count(b"\n")
            if len(self.blocks) > self.KEEP:
                del self.blocks[0]

    def line_of(self, offset: int) -> int:
        """The 1-based line of a byte offset fed lately. Hits come in order: the newlines are
        counted on from the offset asked before in the same block (counted from the block's
        start for each hit, a file of many hits was read in quadratic time)."""
        for start, before, data in reversed(self.blocks):
            if start <= offset:
                at, lines = self._last
                if not (start <= at <= offset):
                    at, lines = start, before
                lines += data.count(b"\n", at - start, offset - start)
                self._last = (offset, lines)
                return lines + 1
        raise ValueError(f"offset {offset} is behind the lines kept")


class StreamHits(NamedTuple):
    """A text stream as find reads it: the source syntax its head told (None: prose), and its hits."""

    syntax: str | None
    hits: Iterator[Hit]


def stream_hits(
    stream: Any, source: str, opts: FindOptions = PLAIN, lines: LineCounter | None = None
) -> StreamHits:
    """Every DOI in a binary stream, read in bounded windows, as a Hit whose offsets count
    bytes; raises InputError for binary or corrupt data. opts.kind None detects it from `source`
    and the content; opts.syntax as --syntax gives it (None: told by `source` and the content).
    `lines`, when given, is fed the bytes searched (for line numbers)."""
    hits: list[CHit] = []
    syntax, windows = _stream_windows(stream, source, opts, hits, lines)
    return StreamHits(syntax, (h for _line, h in _window_hits(windows, hits)))


def stream_count(stream: Any, source: str, opts: FindOptions = PLAIN) -> tuple[str | None, int]:
    """The syntax stream_hits reads a stream in, and how many DOIs it gives, counted by the
    matcher with no Python object per hit (find -c)."""
    syntax, windows = _stream_windows(stream, source, opts, None)
    return syntax, sum(windows)


def stream_doi_lists(
    stream: Any, source: str, opts: FindOptions = PLAIN
) -> tuple[str | None, Iterator[list[str]]]:
    """The syntax stream_hits reads a stream in, and its canonical DOIs, a list a window, with no
    Hit made (find's one DOI a line)."""
    hits: list[CHit] = []
    syntax, windows = _stream_windows(stream, source, opts, hits)
    return syntax, _window_dois(windows, hits)


def _stream_windows(
    stream: Any, source: str, opts: FindOptions, hits: list[CHit] | None, lines: LineCounter | None = None
) -> tuple[str | None, Iterator[int]]:
    """The syntax a stream is told to be in by its head, and the hits of each of its windows,
    listed in `hits`."""
    src = stream_source(stream, opts.block_size, None if lines is None else lines.feed)
    told = text_input_type(InputType("text", kind=opts.kind), source, src.head, opts.syntax)
    assert told.kind is not None
    syntax = told.syntax or None
    return syntax, _source_windows(src, opts._replace(kind=told.kind, syntax=syntax), hits)


def _source_windows(src: StreamSource, opts: FindOptions, hits: list[CHit] | None) -> Iterator[int]:
    """The windows of a source read in opts' kind and syntax (both told), listed in `hits`."""
    assert opts.kind is not None
    match = matcher_for(opts.kind, opts.allow_other_prefix, None, hits, opts.syntax, opts.derive)
    yield from scan_windows(src, match, ShardResult(0), no_progress)


def _source_hits(src: StreamSource, opts: FindOptions) -> Iterator[Hit]:
    hits: list[CHit] = []
    for _line, h in _window_hits(_source_windows(src, opts, hits), hits):
        yield h
