"""What `find` reads, grep's way: an input's hits as a stream is read (a text file, stdin), record
by record (a record file, read as a scan reads it), or by byte range (a large text file shared
by processes); counted or listed with no Python object per hit where nothing else is asked.
The processes that share the ranges are the engines' (engines/pool.py); the printing is the
CLI's."""

from __future__ import annotations

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
from .io.decode import HEAD_BYTES, clean, detect_kind, syntax_for, text_told
from .io.read import open_input
from .scan.matchers import match_record, matcher_for, prefaced
from .scan.records import streamed_source
from .scan.text import stream_source
from .scan.windows import BYTE_RESERVE, RANGE_OVERLAP, FileSource, StreamSource, scan_windows
from .units import ScanConfig, ShardResult, ShardSpec, Told, no_progress


def input_told(path: str, text_field: str = "text", id_field: str = "id", kind: str | None = None) -> Told:
    """What an input file is, as a scan's planner tells it (formats.tell_input)."""
    with input_errors(), open_input(path) as f:
        head = f.read(FORMAT_HEAD)
        return tell_input(path, head, ScanConfig(out="", kind=kind, text_field=text_field, id_field=id_field))


def hits_in_records(
    path: str,
    path_told: Told,
    allow_other_prefix: bool = False,
    text_field: str = "text",
    id_field: str = "id",
    syntax: str | None = None,
    said: dict[str, str | None] | None = None,
    result: ShardResult | None = None,
    derive: tuple[str, ...] = (),
) -> Iterator[tuple[str | None, Hit]]:
    """(record id, hit) for every DOI of a record file (a format with records: JSONL, Parquet,
    WARC, a raw PDF), told what it is by input_told and read as a scan reads it; a hit's
    offsets count characters of its record's text (bytes of it for a record too large to
    hold). `syntax`: forced as --syntax forces it (None: each record's told by its head), the
    one a record is read in put in `said["syntax"]` before its hits. Raises InputError for an
    input that cannot be read; one cut short is read to the cut, named in `result.partial`."""
    said = {} if said is None else said
    kind = path_told.kind
    config = ScanConfig(
        out="",
        kind=kind,
        syntax=syntax,
        allow_other_prefix=allow_other_prefix,
        text_field=text_field,
        id_field=id_field,
        derive=derive,
    )
    result = result or ShardResult(0)
    # an --id-field that no record holds is said (fields.py): its records are counted here
    check = FieldCheck(path, config, path_told.fmt) if asks_fields(config) else None
    # the format's reading: its faults are the input's, the matcher's are the program's
    for rid, text, rkind, meta, name, preface in each_record(
        read_each(records(ShardSpec(0, path, path, path_told), config, result, no_progress))
    ):
        if check is not None:
            check.see(rid if not isinstance(text, StreamedText) else text.rid or text.line_id, meta)
        if isinstance(text, FileText):  # a member of an archive: a file's bytes
            for h in hits_in_stream(
                text.stream,
                name or "",
                rkind or kind,
                allow_other_prefix,
                syntax=syntax,
                said=said,
                derive=derive,
            ):
                yield rid, h
            continue
        if isinstance(text, StreamedText):
            # read in windows; its id may stand after its text, so its hits wait for it
            src = streamed_source(text)
            syn = said["syntax"] = syntax_for(syntax, name, src.head)
            k = rkind or kind or detect_kind(name, src.head)
            got = list(_stream_hits(src, k, allow_other_prefix, syn, derive))
            for h in got:
                yield (text.rid or text.line_id), h
            continue
        text = clean(text)[0]
        k = rkind or kind or detect_kind(name, text[:HEAD_BYTES])
        syn = said["syntax"] = syntax_for(syntax, name, preface + text[:HEAD_BYTES])
        # the matcher a scan uses (C where it reads the kind and syntax), as for a text input
        hits: list[CHit] = []
        data, skip = prefaced(text, preface)
        match_record(data, k, allow_other_prefix, None, hits, syn, skip, derive)
        for a, b, f, d, raw, _line in hits:
            yield rid, Hit(a, b, clean(raw)[0], FORMS[f], d)
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
        return planned if planned.told is not None else None


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
        start for each hit, a file of 400,000 hits took 109 s)."""
        for start, before, data in reversed(self.blocks):
            if start <= offset:
                at, lines = self._last
                if not (start <= at <= offset):
                    at, lines = start, before
                lines += data.count(b"\n", at - start, offset - start)
                self._last = (offset, lines)
                return lines + 1
        raise ValueError(f"offset {offset} is behind the lines kept")


def hits_in_stream(
    stream: Any,
    source: str,
    kind: str | None,
    allow_other_prefix: bool = False,
    block_size: int = 1 << 20,
    lines: LineCounter | None = None,
    syntax: str | None = None,
    said: dict[str, str | None] | None = None,
    derive: tuple[str, ...] = (),
) -> Iterator[Hit]:
    """Every DOI in a binary stream, read in bounded windows, as a Hit whose offsets count
    bytes; raises InputError for binary or corrupt data. `kind` None detects it from `source`
    and the content; `syntax` as --syntax gives it (None: told by `source` and the content),
    and the syntax read is put in `said["syntax"]`. `lines`, when given, is fed the bytes
    searched (for line numbers)."""
    hits: list[CHit] = []
    windows = _stream_windows(
        stream, source, kind, allow_other_prefix, block_size, lines, syntax, said, hits, derive
    )
    for _line, h in _window_hits(windows, hits):
        yield h


def count_in_stream(
    stream: Any,
    source: str,
    kind: str | None,
    allow_other_prefix: bool = False,
    block_size: int = 1 << 20,
    syntax: str | None = None,
    said: dict[str, str | None] | None = None,
    derive: tuple[str, ...] = (),
) -> int:
    """How many DOIs hits_in_stream gives, counted by the matcher with no Python object per hit
    (find -c)."""
    return sum(
        _stream_windows(
            stream, source, kind, allow_other_prefix, block_size, None, syntax, said, None, derive
        )
    )


def doi_lists_in_stream(
    stream: Any,
    source: str,
    kind: str | None,
    allow_other_prefix: bool = False,
    block_size: int = 1 << 20,
    syntax: str | None = None,
    said: dict[str, str | None] | None = None,
    derive: tuple[str, ...] = (),
) -> Iterator[list[str]]:
    """The canonical DOIs hits_in_stream gives, a list a window, with no Hit made (find's one
    DOI a line)."""
    hits: list[CHit] = []
    windows = _stream_windows(
        stream, source, kind, allow_other_prefix, block_size, None, syntax, said, hits, derive
    )
    yield from _window_dois(windows, hits)


def _stream_windows(
    stream: Any,
    source: str,
    kind: str | None,
    allow_other_prefix: bool,
    block_size: int,
    lines: LineCounter | None,
    syntax: str | None,
    said: dict[str, str | None] | None,
    hits: list[CHit] | None,
    derive: tuple[str, ...] = (),
) -> Iterator[int]:
    """The hits of each window of a stream as hits_in_stream reads it, listed in `hits`."""
    src = stream_source(stream, block_size, None if lines is None else lines.feed)
    told = text_told(Told("text", kind=kind), source, src.head, syntax)
    if said is not None:
        said["syntax"] = told.syntax or None
    assert told.kind is not None
    match = matcher_for(told.kind, allow_other_prefix, None, hits, told.syntax or None, derive)
    yield from scan_windows(src, match, ShardResult(0), no_progress)


def _stream_hits(
    src: StreamSource,
    kind: str,
    allow_other_prefix: bool,
    syntax: str | None = None,
    derive: tuple[str, ...] = (),
) -> Iterator[Hit]:
    hits: list[CHit] = []
    windows = scan_windows(
        src, matcher_for(kind, allow_other_prefix, None, hits, syntax, derive), ShardResult(0), no_progress
    )
    for _line, h in _window_hits(windows, hits):
        yield h
