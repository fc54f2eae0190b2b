"""The documents of one input with their mentions: the one place that picks the C matcher
(plain text, on raw bytes) or the Python matcher (HTML, PDF text, other prefixes).

A text input is one document; a JSONL or Parquet input gives a document per record. A document
with very many DOIs comes in several chunks, so memory stays bounded.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import Any

from ..match import FORMS, FindStats, Hit, find_spans
from ..match.native import CHit, Mentions, scan
from .decode import clean, detect_kind, is_binary
from .dedupe import mentions_of
from .errors import InputError, describe, is_corrupt_input
from .read import StreamedText, open_stream, records
from .sinks import OccurrenceSink, dict_chunk, drain
from .units import Chunk, Doc, Progress, ScanConfig, ShardResult, ShardSpec, TextHit, no_progress
from .windows import (
    BYTE_RESERVE,
    RANGE_OVERLAP,
    byte_blocks,
    char_blocks,
    map_file,
    scan_blocks,
    scan_mapped,
    scan_plain,
    text_blocks,
)


def uses_c(kind: str, allow_other_prefix: bool) -> bool:
    """Whether a text of this kind goes to the C matcher: plain text, 10-prefixes only (the C
    port has find.py's rules for text that is neither HTML nor PDF)."""
    return kind == "plain" and not allow_other_prefix


def _c_hits(config: ScanConfig) -> list[CHit] | None:
    return [] if config.occurrences else None


def _python_chunks(
    found: Iterator[TextHit], config: ScanConfig, occ: OccurrenceSink, source: str, rid: str | None
) -> Iterator[Chunk]:
    if config.occurrences:
        found = occ.tee(found, source, rid)
    for m in mentions_of(found, config.max_mentions):
        yield dict_chunk(m, config.buckets)


def _text_chunks(
    spec: ShardSpec, config: ScanConfig, progress: Progress, result: ShardResult, occ: OccurrenceSink
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
    stream, comp = open_stream(spec.path)
    with stream:
        mm = map_file(stream, config.map_min) if comp is None and not config.allow_other_prefix else None
        if mm is not None:
            with mm:
                head = mm[base : base + config.block_size]
                why = is_binary(head)
                if why:
                    raise InputError(why)
                kind = spec.kind or detect_kind(spec.source, head)
                if uses_c(kind, config.allow_other_prefix):
                    hits = _c_hits(config)
                    table = Mentions()
                    start = 3 if base == 0 and head.startswith(b"\xef\xbb\xbf") else base  # after a BOM
                    found = scan_mapped(
                        mm, start, result, progress, table, hits, range_lo, range_hi, config.map_window
                    )
                    yield from drain(
                        found, table, hits, occ, spec.source, None, config.buckets, config.max_mentions
                    )
                    if range_lo == 0:
                        result.documents += 1
                    return
        if base:
            stream.seek(base)
        limit = None if range_hi is None else range_hi - base + 8 * BYTE_RESERVE
        blocks = byte_blocks(stream, base, limit, progress, result, config.block_size)
        first = next(blocks)
        kind = spec.kind or detect_kind(spec.source, first[0])
        blocks = itertools.chain([first], blocks)
        if uses_c(kind, config.allow_other_prefix):
            hits = _c_hits(config)
            table = Mentions()
            found_c = scan_plain(blocks, result, progress, table, hits, range_lo, range_hi)
            yield from drain(
                found_c, table, hits, occ, spec.source, None, config.buckets, config.max_mentions
            )
        else:
            text_hits = scan_blocks(
                text_blocks(blocks), kind, config.allow_other_prefix, result, progress, range_lo, range_hi
            )
            yield from _python_chunks(text_hits, config, occ, spec.source, None)
        if range_lo == 0:
            result.documents += 1


def _streamed_record_chunks(
    text: StreamedText,
    unit: ShardSpec,
    config: ScanConfig,
    progress: Progress,
    result: ShardResult,
    occ: OccurrenceSink,
) -> Iterable[Chunk]:
    """A record too large to hold: its text is read in blocks, like a file; offsets count
    characters."""
    blocks = char_blocks(text.chunks)
    first = next(blocks)
    kind = unit.kind or detect_kind(None, first[0][:65536].encode("utf-8", "replace"))
    blocks = itertools.chain([first], blocks)
    if uses_c(kind, config.allow_other_prefix):
        utf8 = ((t.encode("utf-8"), pos, last) for t, pos, last in blocks)
        hits = _c_hits(config)
        table = Mentions()
        found = scan_plain(utf8, result, progress, table, hits, chars=True)
        return drain(found, table, hits, occ, unit.source, text.rid, config.buckets, config.max_mentions)
    return _python_chunks(
        scan_blocks(blocks, kind, config.allow_other_prefix, result, progress, char_offsets=True),
        config,
        occ,
        unit.source,
        text.rid,
    )


def _record_chunks(
    text: str,
    rid: str | None,
    unit: ShardSpec,
    config: ScanConfig,
    progress: Progress,
    result: ShardResult,
    occ: OccurrenceSink,
) -> Iterator[Chunk]:
    """A record's text held whole (records are many and small: no block machinery); offsets
    count characters."""
    text = clean(text)[0]
    kind = unit.kind or detect_kind(None, text[:65536].encode("utf-8", "replace"))
    if uses_c(kind, config.allow_other_prefix):
        data = text.encode("utf-8")
        table = Mentions()
        hits = _c_hits(config)
        reported, _end, too_long = scan(data, 0, len(data), 0, len(data) + 1, 0, table, hits, chars=True)
        result.too_long += too_long
        result.hits += reported
        progress(0, reported)
        if hits:
            occ.add_c_hits(hits, unit.source, rid)
        yield table.take(config.buckets)
        return
    stats = FindStats()
    spans = find_spans(text, kind, allow_other_prefix=config.allow_other_prefix, stats=stats)
    result.too_long += stats.too_long
    result.hits += len(spans)
    progress(0, len(spans))
    yield from _python_chunks(
        (TextHit(d, s, f, text, s, e) for s, e, f, d in spans), config, occ, unit.source, rid
    )


def unit_docs(
    unit: ShardSpec, config: ScanConfig, progress: Progress, result: ShardResult, occ: OccurrenceSink
) -> Iterator[Doc]:
    """The documents of one input file (or byte range, or row group) with their mentions,
    numbered from 0 in the unit. An input that cannot be read raises InputError."""
    try:
        if unit.fmt == "text":
            for chunk in _text_chunks(unit, config, progress, result, occ):
                yield Doc(unit.source, None, 0, chunk)
            return
        for n, (rid, text) in enumerate(records(unit, config, result, progress)):
            result.documents += 1
            if isinstance(text, StreamedText):
                since = len(occ)
                chunks = _streamed_record_chunks(text, unit, config, progress, result, occ)
                if text.rid is None:
                    # The id stands after the text, so it is known only at its end.
                    chunks = list(chunks)
                    occ.set_record(since, text.rid)
                for chunk in chunks:  # when the id came first, as they come
                    yield Doc(unit.source, text.rid, n, chunk)
                continue
            for chunk in _record_chunks(text, rid, unit, config, progress, result, occ):
                yield Doc(unit.source, rid, n, chunk)
    except InputError:
        raise
    except Exception as exc:
        if is_corrupt_input(exc):  # truncated or corrupt archives and files
            raise InputError(describe(exc)) from exc
        raise


def hits_in_stream(
    stream: Any, source: str, kind: str | None, allow_other_prefix: bool = False, block_size: int = 1 << 20
) -> Iterator[Hit]:
    """Every DOI in a binary stream, read in bounded blocks, as a Hit whose offsets count bytes;
    raises InputError for binary or corrupt data. `kind` None detects it from `source` and the
    content."""
    result = ShardResult(0)
    blocks = byte_blocks(stream, 0, None, no_progress, result, block_size)
    try:
        first = next(blocks)
        blocks = itertools.chain([first], blocks)
        if kind is None:
            kind = detect_kind(source, first[0])
        if uses_c(kind, allow_other_prefix):
            hits: list[CHit] = []
            for _ in scan_plain(blocks, result, no_progress, Mentions(), hits):
                for a, b, f, d, raw in hits:
                    yield Hit(a, b, clean(raw)[0], FORMS[f], d)
                hits.clear()
            return
        for h in scan_blocks(text_blocks(blocks), kind, allow_other_prefix, result, no_progress):
            raw = h.raw
            yield Hit(h.offset, h.offset + len(raw.encode("utf-8", "surrogateescape")), raw, h.form, h.doi)
    except InputError:
        raise
    except Exception as exc:
        if is_corrupt_input(exc):
            raise InputError(describe(exc)) from exc
        raise
