"""One shard of a scan: read its bytes, find the DOIs, write partial results, mark it done.

`run_shard` knows nothing of the executor: it takes a plan entry and an output folder, reports
progress through a callback, and completes (part files renamed into place, then a completion
marker), with the inputs it could not read listed in its result; it raises only a passing
fault, for the caller to retry.
"""

from __future__ import annotations

import codecs
import errno
import itertools
import json
import mmap
import os
import re
import stat
import time
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import pyarrow as pa

from . import _cscan, dedupe
from .decode import detect_kind
from .dedupe import ShardHit, bucket_of, mentions_of
from .find import MAX_DOI_CHARS, FindStats, find_spans
from .forms import FORMS, forms_mask
from .read import BLOCK_SIZE, StreamedText, display_name, is_corrupt_input, iter_jsonl_records, open_stream
from .write import OCCURRENCES_SCHEMA, PARTIAL_SCHEMA, atomically, write_arrow, write_part

PART_EXT = ".arrow"

# A hit that starts before this many characters from the end of a block may not be complete
# yet: it is left for the next block, which starts LEFT_CONTEXT characters before it.
_TAIL_RESERVE = MAX_DOI_CHARS + 4 * 400
LEFT_CONTEXT = 1024
# Byte-range shards read this much before their range, for the left context of the first hit.
RANGE_OVERLAP = 4096
MAX_RECORD_BYTES = 16 << 20  # a longer JSONL record is streamed, not parsed whole


class InputError(Exception):
    """An input that cannot be read: reported with its reason, the run goes on."""


@dataclass(slots=True)
class ShardSpec:
    """A unit of work: a whole file, a byte range of one, a Parquet row group, or a group of
    small files (each its own document), so that a tree of millions of files is not millions
    of shards."""

    index: int
    source: str  # the input path as given
    path: str
    fmt: str  # text, jsonl or parquet
    kind: str | None  # forced kind, or None to detect
    start: int = 0  # byte range for text; row group for parquet
    stop: int = -1
    key: str = ""
    files: tuple[tuple[str, str, str], ...] = ()  # a group of small files: (source, path, fmt)


@dataclass(slots=True)
class ShardResult:
    index: int
    bytes_read: int = 0
    documents: int = 0
    hits: int = 0
    invalid_bytes: int = 0
    too_long: int = 0
    skipped_records: int = 0
    error: str | None = None
    rejected: list[dict[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    kinds: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class Options:
    out: str
    buckets: int
    occurrences: bool
    text_field: str
    id_field: str
    allow_other_prefix: bool


Progress = Callable[[int, int], None]  # (bytes, hits) since the last call


# Control bytes that text does not contain (tab, line feed, vertical tab, form feed, carriage
# return and escape are kept).
_CONTROL_BYTES = bytes([*range(0, 8), 14, 15, *range(16, 27), *range(28, 32)])


def _is_binary(head: bytes) -> str | None:
    """Why `head` is not text, or None: a PDF, or mostly control bytes."""
    if head.startswith(b"%PDF-"):
        return "a PDF file, not text: extract its text first (pdftotext)"
    if not head:
        return None
    sample = head[:65536]
    controls = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
    if controls > len(sample) * 0.03:
        return "binary data (control bytes in the first block)"
    return None


def _byte_blocks(
    stream: Any, base: int, limit: int | None, progress: Progress, result: ShardResult
) -> Iterator[tuple[bytes, int, bool]]:
    """Raw blocks (data, byte offset of data[0], is_last), reading at most `limit` bytes; the
    first is checked for binary data and loses a UTF-8 byte order mark at the start of a file.

    One block is read ahead, so that the last block is known to be the last: a small file is
    one block, searched once.
    """

    def read() -> bytes:
        nonlocal limit
        want = BLOCK_SIZE if limit is None else min(BLOCK_SIZE, limit)
        data: bytes = stream.read(want) if want > 0 else b""
        if limit is not None:
            limit -= len(data)
        result.bytes_read += len(data)
        progress(len(data), 0)
        return data

    data = read()
    why = _is_binary(data)
    if why:
        raise InputError(why)
    if base == 0 and data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
        base = 3
    while True:
        ahead = read() if data and (limit is None or limit > 0) else b""
        last = not ahead
        yield data, base, last
        if last:
            return
        base += len(data)
        data = ahead


def _text_blocks(blocks: Iterator[tuple[bytes, int, bool]]) -> Iterator[tuple[str, int, bool]]:
    """Decoded blocks (text, byte offset of text[0], is_last).

    Invalid UTF-8 bytes decode to lone surrogates (surrogateescape), one per byte, so that
    character offsets still map exactly to byte offsets.
    """
    decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
    for data, base, last in blocks:
        yield decoder.decode(data, final=last), base, last


# Lone surrogates: invalid bytes decoded with surrogateescape, or \udXXX escapes in JSON.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _clean(text: str) -> tuple[str, int]:
    """Lone surrogates (invalid bytes) to U+FFFD, keeping the length; and how many there were."""
    if text.isascii():
        return text, 0
    try:
        text.encode("utf-8")  # fails only on lone surrogates; far faster than searching for them
    except UnicodeEncodeError:
        return _SURROGATE.subn("\ufffd", text)
    return text, 0


def _byte_offsets(text: str, starts: list[int]) -> list[int]:
    """UTF-8 byte offsets of sorted character offsets into `text` (surrogates are one byte)."""
    if text.isascii():
        return list(starts)
    out = []
    pos = 0
    acc = 0
    for s in starts:
        acc += len(text[pos:s].encode("utf-8", "surrogateescape"))
        pos = s
        out.append(acc)
    return out


def _scan_blocks(
    blocks: Iterator[tuple[str, int, bool]],
    kind: str,
    opts: Options,
    result: ShardResult,
    progress: Progress,
    range_lo: int = 0,
    range_hi: int | None = None,
    char_offsets: bool = False,
) -> Iterator[ShardHit]:
    """The hits in a stream of text blocks, in order, with their absolute offsets.

    Blocks are (text, offset of text[0], is_last). Each block is searched together with the
    end of the one before (left context), and hits too near its end wait for the next block,
    so a hit across a block boundary is found once and whole. Offsets are UTF-8 byte offsets,
    or character offsets with `char_offsets`. Only hits starting in [range_lo, range_hi) are
    given: a byte-range shard owns those.
    """
    carry = ""  # raw text (with surrogates) kept from the previous block
    carry_clean = ""  # the same, cleaned (_clean keeps lengths, so it is the end of the last block)
    carry_base = 0  # offset of carry[0], or of the next block when carry is empty
    done_upto = 0  # hits starting before this character of the block were handled already
    stats = FindStats()
    for text, tbase, last in blocks:
        if not carry:
            carry_base = tbase
        raw_block = carry + text
        clean_new, bad = _clean(text)
        result.invalid_bytes += bad
        block = carry_clean + clean_new
        cut = len(block) if last else max(0, len(block) - _TAIL_RESERVE)
        spans = [
            h
            for h in find_spans(block, kind, allow_other_prefix=opts.allow_other_prefix, stats=stats)
            if done_upto <= h[0] < cut
        ]
        starts = [h[0] for h in spans]
        n_hits = 0
        for (s, e, form, doi), off in zip(spans, starts if char_offsets else _byte_offsets(raw_block, starts), strict=True):
            ab = carry_base + off
            if ab < range_lo or (range_hi is not None and ab >= range_hi):
                continue
            n_hits += 1
            yield doi, ab, form, block, s, e
        result.hits += n_hits
        progress(0, n_hits)
        if last:
            break
        keep = max(0, cut - LEFT_CONTEXT)
        # A hit that ran past the cut covers the start of the next block up to its end.
        done_upto = max(cut, spans[-1][1] if spans else 0) - keep
        carry_base += keep if char_offsets else len(raw_block[:keep].encode("utf-8", "surrogateescape"))
        carry = raw_block[keep:]
        carry_clean = block[keep:]
        if range_hi is not None and carry_base > range_hi:
            break
    result.too_long += stats.too_long


# Plain text is searched by the C matcher on the bytes themselves: no decoding, and byte offsets
# as they are. Its windows are in bytes, four per character of the text windows above.
_BYTE_RESERVE = 4 * _TAIL_RESERVE
_BYTE_LEFT = 4 * LEFT_CONTEXT


def _scan_plain(
    blocks: Iterator[tuple[bytes, int, bool]],
    result: ShardResult,
    progress: Progress,
    table: Any,
    hits: list[tuple[int, int, int, str, str]] | None,
    range_lo: int = 0,
    range_hi: int | None = None,
    chars: bool = False,
) -> Iterator[int]:
    """Scan blocks of plain UTF-8 text into the mention `table` (and `hits`, with absolute
    offsets), yielding after each block so that the caller can drain them.

    The same block logic as _scan_blocks, in bytes: each block is searched with the end of the
    one before, and hits too near its end wait for the next one. With `chars` (valid UTF-8: a
    record's text), offsets and block bases count characters, not bytes.
    """
    carry = b""
    carry_base = 0
    done_upto = 0  # hits starting before this byte of the buffer were handled already
    counted = 0  # invalid bytes are counted up to this byte of the buffer
    for data, dbase, last in blocks:
        if not carry:
            carry_base = dbase
        buf = carry + data if carry else data
        n = len(buf)
        cut = n if last else max(0, n - _BYTE_RESERVE)
        bad, counted = _cscan.invalid_bytes(buf, counted, n if last else max(counted, n - 4))
        result.invalid_bytes += bad
        rlo = range_lo - carry_base
        rhi = n + 1 if range_hi is None else range_hi - carry_base
        reported, last_end, too_long = _cscan.scan(buf, done_upto, cut, rlo, rhi, carry_base, table, hits, chars=chars)
        result.hits += reported
        result.too_long += too_long
        progress(0, reported)
        yield reported
        if last:
            return
        keep = max(0, cut - _BYTE_LEFT)
        while keep < n and buf[keep] & 0xC0 == 0x80:  # a character boundary
            keep += 1
        done_upto = max(cut, last_end) - keep
        counted -= keep
        carry_base += len(buf[:keep].decode("utf-8")) if chars else keep
        carry = buf[keep:]
        if range_hi is not None and carry_base > range_hi:
            return


# An uncompressed file is read through a memory map, in windows of this size: no copies, and
# the pages behind the window are dropped, so memory stays flat on a file of any size.
MAP_WINDOW = 8 << 20
MAP_MIN = 4 << 20  # a smaller file is read at once: mapping it costs more than the copy
_DONTNEED = getattr(mmap, "MADV_DONTNEED", None)  # not on Windows: pages are then left to the OS


def _scan_mapped(
    mm: mmap.mmap,
    base: int,
    result: ShardResult,
    progress: Progress,
    table: Any,
    hits: list[tuple[int, int, int, str, str]] | None,
    range_lo: int = 0,
    range_hi: int | None = None,
) -> Iterator[int]:
    """_scan_plain over a memory-mapped file from byte `base`, window by window (same protocol:
    yields after each window; hits get absolute offsets)."""
    size = len(mm)
    stop = size if range_hi is None else min(size, range_hi + 8 * _BYTE_RESERVE)
    view = memoryview(mm)
    try:
        start = base  # the window's first byte
        done = base  # hits starting before this byte were handled already
        counted = max(base, range_lo)  # invalid bytes are counted from here, up to the range's end
        count_to = stop if range_hi is None else min(stop, range_hi)
        owned = counted
        dropped = 0
        while True:
            end = min(stop, start + MAP_WINDOW)
            last = end >= stop
            n = end - start
            cut = n if last else n - _BYTE_RESERVE
            upto = count_to if last else min(count_to, start + cut)
            if upto > counted:
                bad, nxt = _cscan.invalid_bytes(view[:end], counted, upto)
                result.invalid_bytes += bad
                counted = nxt
            rhi = n + 1 if range_hi is None else range_hi - start
            reported, last_end, too_long = _cscan.scan(view[start:end], done - start, cut, range_lo - start, rhi, start, table, hits)
            result.hits += reported
            result.too_long += too_long
            # progress counts the bytes the shard owns, so that a run's total is the inputs' size
            own = min(end if last else start + cut, count_to) - owned
            owned += max(0, own)
            result.bytes_read += max(0, own)
            progress(max(0, own), reported)
            yield reported
            if last:
                return
            done = max(start + cut, start + last_end)
            start = start + cut - _BYTE_LEFT
            while mm[start] & 0xC0 == 0x80:  # a character boundary
                start += 1
            page = (start // mmap.PAGESIZE) * mmap.PAGESIZE
            if page > dropped and _DONTNEED is not None:
                mm.madvise(_DONTNEED, dropped, page - dropped)
                dropped = page
            if range_hi is not None and start > range_hi:
                return
    finally:
        view.release()


# The distinct DOIs of (part of) one document as columns — DOI, count, first offset, first raw
# text, display forms (a bit mask of forms.FORMS indices) — grouped by the hash bucket of the
# DOI: bucket b's rows are [bounds[b], bounds[b + 1]).
Chunk = tuple[list[str], list[int], list[int], list[str], list[int], list[int]]


def _dict_chunk(mentions: dict[str, Any], buckets: int) -> Chunk:
    """A chunk of the mentions that mentions_of gives (the decoded-text paths)."""
    keyed = sorted(((bucket_of(m.doi, buckets), i, m) for i, m in enumerate(mentions.values())), key=lambda t: t[:2])
    bounds = [0] * (buckets + 1)
    for b, _i, _m in keyed:
        bounds[b + 1] += 1
    for b in range(buckets):
        bounds[b + 1] += bounds[b]
    ms = [m for _b, _i, m in keyed]
    return (
        [m.doi for m in ms],
        [m.count for m in ms],
        [m.first_offset for m in ms],
        [m.first_raw for m in ms],
        [forms_mask(m.forms) for m in ms],
        bounds,
    )


def _drain(
    found: Iterator[int],
    table: Any,
    hits: list[tuple[int, int, int, str, str]] | None,
    source: str,
    rid: str | None,
    occ: dict[str, list[Any]],
    buckets: int,
) -> Iterator[Chunk]:
    """The mention chunks of a plain-text scan, recording occurrences as it goes."""
    for _ in found:
        if hits:
            for a, _b, f, d, raw in hits:
                _occ_row(occ, source, rid, a, _clean(raw)[0], FORMS[f].value, d)
            hits.clear()
        if len(table) >= dedupe.MAX_MENTIONS:
            yield table.take(buckets)
    yield table.take(buckets)


def _record_chunks(
    blocks: Iterable[tuple[bytes, int, bool]],
    opts: Options,
    progress: Progress,
    result: ShardResult,
    source: str,
    rid: str | None,
    occ: dict[str, list[Any]],
) -> Iterator[Chunk]:
    """The mention chunks of a record's plain text, given as UTF-8 blocks, by the C matcher;
    offsets count characters."""
    table = _cscan.Mentions()
    hits: list[tuple[int, int, int, str, str]] | None = [] if opts.occurrences else None
    yield from _drain(_scan_plain(iter(blocks), result, progress, table, hits, chars=True), table, hits, source, rid, occ,
                      opts.buckets)


def _scan_text(
    spec: ShardSpec, opts: Options, progress: Progress, result: ShardResult, occ: dict[str, list[Any]]
) -> Iterator[Chunk]:
    """The mentions of a text shard whose start it owns, with absolute byte offsets.

    A shard owns the hits that start in its byte range [start, stop); it reads from a little
    before `start` (left context) to well past `stop` (so a hit across the cut is complete),
    which is how a DOI straddling a cut is found exactly once. Plain text goes to the C matcher
    as bytes (through a memory map when the file is not compressed); HTML and PDF text are
    decoded and read by find_spans.
    """
    range_lo, range_hi = spec.start, (None if spec.stop < 0 else spec.stop)
    base = max(0, range_lo - RANGE_OVERLAP) if range_lo else 0
    plain_ok = not opts.allow_other_prefix
    stream, comp = open_stream(spec.path)
    with stream:
        mm = _map(stream) if comp is None and plain_ok else None
        if mm is not None:
            with mm:
                head = mm[base : base + BLOCK_SIZE]
                why = _is_binary(head)
                if why:
                    raise InputError(why)
                kind = spec.kind or detect_kind(spec.source, head)
                if kind == "plain":
                    result.kinds[kind] = result.kinds.get(kind, 0) + 1
                    table = _cscan.Mentions()
                    hits: list[tuple[int, int, int, str, str]] | None = [] if opts.occurrences else None
                    start = 3 if base == 0 and head.startswith(b"\xef\xbb\xbf") else base  # after a BOM
                    yield from _drain(_scan_mapped(mm, start, result, progress, table, hits, range_lo, range_hi),
                                      table, hits, spec.source, None, occ, opts.buckets)
                    if range_lo == 0:
                        result.documents += 1
                    return
        if base:
            stream.seek(base)
        limit = None if range_hi is None else range_hi - base + 8 * _BYTE_RESERVE
        blocks = _byte_blocks(stream, base, limit, progress, result)
        first = next(blocks)
        kind = spec.kind or detect_kind(spec.source, first[0])
        result.kinds[kind] = result.kinds.get(kind, 0) + 1
        blocks = itertools.chain([first], blocks)
        if kind == "plain" and plain_ok:
            table = _cscan.Mentions()
            hits = [] if opts.occurrences else None
            yield from _drain(_scan_plain(blocks, result, progress, table, hits, range_lo, range_hi),
                              table, hits, spec.source, None, occ, opts.buckets)
        else:
            found = _scan_blocks(_text_blocks(blocks), kind, opts, result, progress, range_lo, range_hi)
            if opts.occurrences:
                found = _tee_occ(found, occ, spec.source, None)
            for m in mentions_of(found):
                yield _dict_chunk(m, opts.buckets)
        if range_lo == 0:
            result.documents += 1


def _map(stream: Any) -> mmap.mmap | None:
    """A read-only memory map of an open regular file, or None (a pipe, an empty file)."""
    try:
        fd = stream.fileno()
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size < MAP_MIN:
            return None
        return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError, AttributeError):
        return None


def hits_in_stream(
    stream: Any, source: str, kind: str | None, allow_other_prefix: bool = False
) -> Iterator[tuple[str, int, str, str]]:
    """(doi, byte offset, form, raw) of every DOI in a binary stream, read in bounded blocks;
    raises InputError for binary or corrupt data. `kind` None detects it from `source` and the
    content."""
    opts = Options("", 1, False, "text", "id", allow_other_prefix)
    result = ShardResult(0)
    blocks = _byte_blocks(stream, 0, None, _no_progress, result)
    try:
        first = next(blocks)
        blocks = itertools.chain([first], blocks)
        if kind is None:
            kind = detect_kind(source, first[0])
        if kind == "plain" and not allow_other_prefix:
            hits: list[tuple[int, int, int, str, str]] = []
            for _ in _scan_plain(blocks, result, _no_progress, _cscan.Mentions(), hits):
                for a, _b, f, d, raw in hits:
                    yield d, a, FORMS[f].value, _clean(raw)[0]
                hits.clear()
            return
        for doi, off, form, text, s, e in _scan_blocks(_text_blocks(blocks), kind, opts, result, _no_progress):
            yield doi, off, form, text[s:e]
    except InputError:
        raise
    except Exception as exc:
        if is_corrupt_input(exc):
            raise InputError(_describe(exc)) from exc
        raise


def _no_progress(nbytes: int, nhits: int) -> None:
    """Progress is not reported (the `find` command)."""


def _char_blocks(chunks: Iterator[str]) -> Iterator[tuple[str, int, bool]]:
    """Blocks (text, character offset, is_last) from the decoded pieces of a streamed record."""
    pos = 0
    prev: str | None = None
    for c in chunks:
        c = _clean(c)[0]
        if prev is not None:
            yield prev, pos, False
            pos += len(prev)
        prev = c
    yield prev or "", pos, True


def _records(
    spec: ShardSpec, opts: Options, result: ShardResult, progress: Progress
) -> Iterator[tuple[str | None, str | StreamedText]]:
    """(record id, text) for each record of a JSONL or Parquet shard."""
    if spec.fmt == "parquet":
        import pyarrow.parquet as pq

        pf = pq.ParquetFile(spec.path)
        names = pf.schema_arrow.names
        if opts.text_field not in names:
            raise InputError(f"no column {opts.text_field!r} in the Parquet file")
        cols = [opts.text_field] + ([opts.id_field] if opts.id_field in names else [])
        groups = [spec.start] if spec.stop >= 0 else list(range(pf.num_row_groups))
        for g in groups:
            result.bytes_read += pf.metadata.row_group(g).total_byte_size
            progress(pf.metadata.row_group(g).total_byte_size, 0)
            for batch in pf.iter_batches(batch_size=1024, columns=cols, row_groups=[g]):
                texts = batch.column(opts.text_field).to_pylist()
                ids = batch.column(opts.id_field).to_pylist() if opts.id_field in names else [None] * len(texts)
                for rid, text in zip(ids, texts, strict=True):
                    if isinstance(text, str):
                        yield (None if rid is None else display_name(str(rid))), text
                    else:
                        result.skipped_records += 1
        return
    stream, _ = open_stream(spec.path)
    with stream:
        counting = _CountingReader(stream, progress, result)
        for rid, text, _n in iter_jsonl_records(counting, opts.text_field, opts.id_field, MAX_RECORD_BYTES):
            if text is None:
                result.skipped_records += 1
                continue
            yield rid, text


class _CountingReader:
    """A read-only stream wrapper that reports bytes read as progress."""

    def __init__(self, stream: Any, progress: Progress, result: ShardResult) -> None:
        self._s = stream
        self._progress = progress
        self._result = result

    def read(self, n: int = -1) -> bytes:
        data: bytes = self._s.read(n)
        self._result.bytes_read += len(data)
        self._progress(len(data), 0)
        return data

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def readable(self) -> bool:
        return True

    @property
    def closed(self) -> bool:
        return False


def shard_paths(out: str, spec: ShardSpec) -> tuple[str, str, str]:
    """Base names of a shard's part files and occurrence files, and its completion marker
    (part files are BASE-NNNN.arrow, occurrence files BASE-NNNN.parquet)."""
    name = f"{spec.index:06d}-{spec.key}"
    parts = os.path.join(out, "_work", "parts", name)
    occ = os.path.join(out, "_work", "occurrences", name)
    done = os.path.join(out, "_shards", name + ".done")
    return parts, occ, done


# Errors are classed as datatrove does: retry (a passing fault of the system), skip this
# input (InputError: the input cannot be read), or fatal (anything else: the run stops).
_TRANSIENT_ERRNOS = frozenset({errno.EINTR, errno.EAGAIN, errno.EBUSY, errno.ETIMEDOUT, errno.ESTALE, errno.EIO})


def is_transient(exc: BaseException) -> bool:
    """Whether an input error is a passing fault worth retrying."""
    cause = exc.__cause__ if isinstance(exc, InputError) else exc
    return isinstance(cause, OSError) and cause.errno in _TRANSIENT_ERRNOS


Doc = tuple[str, str | None, int, Chunk]  # (source, record id, document number, mentions)


def _unit_docs(unit: ShardSpec, opts: Options, progress: Progress, result: ShardResult, occ: dict[str, list[Any]]) -> Iterator[Doc]:
    """The documents of one input file (or byte range, or row group) with their mentions,
    numbered from 0 in the unit; a document with very many DOIs comes in several chunks."""
    try:
        if unit.fmt == "text":
            for chunk in _scan_text(unit, opts, progress, result, occ):
                yield unit.source, None, 0, chunk
            return
        for n, (rid, text) in enumerate(_records(unit, opts, result, progress)):
            result.documents += 1
            if isinstance(text, StreamedText):
                # A record too large to hold: its text is read in blocks, like a file.
                blocks = _char_blocks(text.chunks)
                first = next(blocks)
                kind = unit.kind or detect_kind(None, first[0][:65536])
                result.kinds[kind] = result.kinds.get(kind, 0) + 1
                blocks = itertools.chain([first], blocks)
                first_row = len(occ["record"])
                chunks: Iterable[Chunk]
                if kind == "plain" and not opts.allow_other_prefix:
                    utf8 = ((t.encode("utf-8"), pos, last) for t, pos, last in blocks)
                    chunks = _record_chunks(utf8, opts, progress, result, unit.source, text.rid, occ)
                else:
                    found = _scan_blocks(blocks, kind, opts, result, progress, char_offsets=True)
                    if opts.occurrences:
                        found = _tee_occ(found, occ, unit.source, text.rid)
                    chunks = (_dict_chunk(m, opts.buckets) for m in mentions_of(found))
                if text.rid is None:
                    # The id stands after the text, so it is known only at its end.
                    chunks = list(chunks)
                    occ["record"][first_row:] = [text.rid] * (len(occ["record"]) - first_row)
                for chunk in chunks:  # when the id came first, as they come
                    yield unit.source, text.rid, n, chunk
                continue
            text = _clean(text)[0]
            kind = unit.kind or detect_kind(None, text[:65536])
            if kind == "plain" and not opts.allow_other_prefix:
                # The C matcher on the record's UTF-8 in one call (no block machinery: records are
                # many and small), offsets counted in characters.
                data = text.encode("utf-8")
                table = _cscan.Mentions()
                hits: list[tuple[int, int, int, str, str]] | None = [] if opts.occurrences else None
                reported, _end, too_long = _cscan.scan(data, 0, len(data), 0, len(data) + 1, 0, table, hits, chars=True)
                result.too_long += too_long
                result.hits += reported
                progress(0, reported)
                for a, _b, f, d, raw in hits or ():
                    _occ_row(occ, unit.source, rid, a, raw, FORMS[f].value, d)
                yield unit.source, rid, n, table.take(opts.buckets)
                continue
            stats = FindStats()
            spans = find_spans(text, kind, allow_other_prefix=opts.allow_other_prefix, stats=stats)
            result.too_long += stats.too_long
            result.hits += len(spans)
            progress(0, len(spans))
            rec_hits: Iterator[ShardHit] = ((d, s, f, text, s, e) for s, e, f, d in spans)
            if opts.occurrences:
                rec_hits = _tee_occ(rec_hits, occ, unit.source, rid)
            for chunk in mentions_of(rec_hits):
                yield unit.source, rid, n, _dict_chunk(chunk, opts.buckets)
    except InputError:
        raise
    except Exception as exc:
        if is_corrupt_input(exc):  # truncated or corrupt archives and files
            raise InputError(_describe(exc)) from exc
        raise


FLUSH_ROWS = 50_000  # partial rows (or occurrences) a shard holds before writing a part file


class _PartWriter:
    """Buffers a shard's rows per bucket and writes a numbered part file when they grow: one
    file for all buckets, its record batches in bucket order (the layout, bucket -> [first
    batch, batches], goes into the completion marker).

    A large chunk (a file's mentions) becomes an Arrow table at once, sliced per bucket; small
    ones (a small file's, a record's) gather in one set of column lists with their bucket,
    split by bucket at the flush: per row there is no Python work, per chunk a few calls.
    """

    BIG = 1024  # rows from which a chunk is made a table of its own

    def __init__(self, base: str) -> None:
        self.base = base
        self.layouts: list[dict[int, list[int]]] = []
        self._empty()

    def _empty(self) -> None:
        self.tables: list[tuple[int, pa.Table]] = []  # (bucket, rows)
        self.cols: dict[str, list[Any]] = {name: [] for name in (*PARTIAL_SCHEMA.names, "_bucket")}
        self.rows = 0

    def add_chunk(self, shard: int, doc: int, source: str, rid: str | None, chunk: Chunk) -> None:
        """A document's mention rows, each to the bucket of its DOI (the chunk comes grouped by
        bucket: bucket b's rows are one slice)."""
        dois, counts, offsets, raws, forms, bounds = chunk
        n = len(dois)
        if not n:
            return
        self.rows += n
        filled = [b for b in range(len(bounds) - 1) if bounds[b + 1] > bounds[b]]
        if n >= self.BIG:
            table = pa.Table.from_arrays(
                [
                    pa.repeat(pa.scalar(shard, pa.int64()), n),
                    pa.repeat(pa.scalar(doc, pa.int64()), n),
                    pa.repeat(pa.scalar(source, pa.string()), n),
                    pa.nulls(n, pa.string()) if rid is None else pa.repeat(pa.scalar(rid, pa.string()), n),
                    pa.array(dois, pa.string()),
                    pa.array(counts, pa.int64()),
                    pa.array(offsets, pa.int64()),
                    pa.array(raws, pa.string()),
                    pa.array(forms, pa.int32()),
                ],
                schema=PARTIAL_SCHEMA,
            )
            self.tables += [(b, table.slice(bounds[b], bounds[b + 1] - bounds[b])) for b in filled]
            return
        cols = self.cols
        cols["shard"] += [shard] * n
        cols["doc"] += [doc] * n
        cols["source"] += [source] * n
        cols["record"] += [rid] * n
        cols["doi"] += dois
        cols["count"] += counts
        cols["first_offset"] += offsets
        cols["first_raw"] += raws
        cols["forms"] += forms
        for b in filled:
            cols["_bucket"] += [b] * (bounds[b + 1] - bounds[b])

    def mark(self) -> tuple[int, int]:
        return len(self.tables), len(self.cols["doi"])

    def rollback(self, mark: tuple[int, int]) -> None:
        """Drop rows buffered since `mark` (rows already written stay)."""
        del self.tables[mark[0] :]
        for col in self.cols.values():
            del col[mark[1] :]
        self.rows = sum(t.num_rows for _b, t in self.tables) + len(self.cols["doi"])

    def flush(self) -> None:
        by_bucket: dict[int, list[pa.RecordBatch]] = {}
        for b, t in self.tables:
            by_bucket.setdefault(b, []).extend(t.to_batches())
        if self.cols["doi"]:
            buckets = self.cols.pop("_bucket")
            small = pa.Table.from_pydict(self.cols, schema=PARTIAL_SCHEMA).append_column("_bucket", pa.array(buckets, pa.int32()))
            small = small.sort_by([("_bucket", "ascending")])  # a stable sort: input order within a bucket
            ends = small["_bucket"].to_pylist()
            start = 0
            while start < len(ends):
                b = ends[start]
                stop = bisect_right(ends, b, start)
                by_bucket.setdefault(b, []).extend(small.slice(start, stop - start).drop_columns(["_bucket"]).to_batches())
                start = stop
        if by_bucket:
            layout = write_part(f"{self.base}-{len(self.layouts):04d}{PART_EXT}", dict(sorted(by_bucket.items())), PARTIAL_SCHEMA)
            self.layouts.append(layout)
        self._empty()


def run_shard(spec: ShardSpec, opts: Options, progress: Progress) -> ShardResult:
    """Process one shard and mark it complete.

    An input of the shard that cannot be read is reported in the result's `rejected` and the
    others go on; a passing fault (is_transient) is raised for the caller to retry. Rows are
    written in part files as they accumulate, so memory stays bounded whatever the input; the
    completion marker lists the part files, so a killed attempt's leftovers are never read.
    """
    t0 = time.monotonic()
    result = ShardResult(spec.index)
    occ: dict[str, list[Any]] = {k: [] for k in OCCURRENCES_SCHEMA.names}
    part_base, occ_base, done = shard_paths(opts.out, spec)
    parts = _PartWriter(part_base)
    occ_files = 0
    units = [ShardSpec(spec.index, src, path, fmt, spec.kind, 0, -1, spec.key) for src, path, fmt in spec.files] or [spec]
    doc_base = 0
    for unit in units:
        counts = (result.documents, result.hits, len(occ["doi"]))
        mark = parts.mark()
        n_docs = 0
        try:
            for source, rid, n, chunk in _unit_docs(unit, opts, progress, result, occ):
                n_docs = max(n_docs, n + 1)
                parts.add_chunk(spec.index, doc_base + n, source, rid, chunk)
                if parts.rows >= FLUSH_ROWS:
                    parts.flush()
                    mark = (0, 0)
                if len(occ["doi"]) >= FLUSH_ROWS:
                    occ_files = _flush_occ(occ_base, occ_files, occ)
                    counts = (counts[0], counts[1], 0)
        except InputError as exc:
            if is_transient(exc):
                raise
            result.rejected.append({"source": unit.source, "reason": str(exc)})
            result.documents, result.hits = counts[0], counts[1]
            parts.rollback(mark)
            for col in occ.values():
                del col[counts[2] :]
            continue
        doc_base += n_docs
    parts.flush()
    occ_files = _flush_occ(occ_base, occ_files, occ)
    result.seconds = time.monotonic() - t0
    with atomically(done) as tmp, open(tmp, "w", encoding="utf-8") as f:
        json.dump({"result": asdict(result), "parts": parts.layouts, "occurrence_parts": occ_files}, f)
    return result


def _flush_occ(base: str, written: int, occ: dict[str, list[Any]]) -> int:
    """Write the buffered occurrence rows as the next numbered Parquet file; files written."""
    if not occ["doi"]:
        return written
    write_arrow(f"{base}-{written:04d}.parquet", pa.Table.from_pydict(occ, schema=OCCURRENCES_SCHEMA))
    for col in occ.values():
        col.clear()
    return written + 1


PartRef = tuple[str, int, int]  # a part file, its first record batch for a bucket, how many


def completed_parts(out: str, spec: ShardSpec) -> tuple[dict[int, list[PartRef]], list[str]] | None:
    """The part-file batches of a completed shard by bucket, and its occurrence files; None if
    the shard has not completed."""
    base, occ_base, done = shard_paths(out, spec)
    try:
        with open(done, encoding="utf-8") as f:
            marker = json.load(f)
    except (OSError, ValueError):
        return None
    by_bucket: dict[int, list[PartRef]] = {}
    for k, layout in enumerate(marker.get("parts", [])):
        for b, (first, count) in layout.items():
            by_bucket.setdefault(int(b), []).append((f"{base}-{k:04d}{PART_EXT}", first, count))
    occ_files = [f"{occ_base}-{k:04d}.parquet" for k in range(marker.get("occurrence_parts", 0))]
    return by_bucket, occ_files


def _occ_row(occ: dict[str, list[Any]], source: str, rid: str | None, off: int, raw: str, form: str, doi: str) -> None:
    occ["source"].append(source)
    occ["record"].append(rid)
    occ["offset"].append(off)
    occ["raw"].append(raw)
    occ["form"].append(form)
    occ["doi"].append(doi)


def _tee_occ(hits: Iterator[ShardHit], occ: dict[str, list[Any]], source: str, rid: str | None) -> Iterator[ShardHit]:
    """Pass hits through, recording each as an occurrence row."""
    for hit in hits:
        doi, off, form, text, s, e = hit
        _occ_row(occ, source, rid, off, text[s:e], str(form), doi)
        yield hit


def _describe(exc: BaseException) -> str:
    name = type(exc).__name__
    if name == "error":  # zlib.error
        name = f"corrupt compressed data ({type(exc).__module__})"
    msg = getattr(exc, "strerror", None) or str(exc)
    if isinstance(exc, EOFError):
        return f"truncated compressed data ({msg or name})"
    return f"{name}: {msg}" if msg else name
