"""A text file's reading (a whole file, a byte range of one, a group's small file): read in
windows with pread where it is a regular uncompressed file, else as a stream (decompressed,
transcoded to UTF-8 where it declares another encoding); its kind and source syntax told by its
head where planning did not tell them; offsets in bytes, each hit with its line."""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Callable, Iterator
from typing import Any

from ...match.native import CHit
from ..errors import InputError, input_errors
from ..formats import FORMAT_HEAD, tell_input
from ..io.decode import HEAD_BYTES, declared_encoding, input_head, text_input_type
from ..io.read import open_counted, open_input, read_upto
from ..io.streams import ReadTap
from ..table import MentionTable
from ..units import Chunk, ScanConfig, ShardSpec, take_chunk
from .matchers import counted_syntax, matcher_for
from .reading import Reading, chunks
from .windows import BYTE_RESERVE, RANGE_OVERLAP, FileSource, StreamSource, regular_file, scan_whole


def text_reading(r: Reading, head: bytes) -> tuple[str, str | None]:
    """The kind and source syntax (None: prose) of a text shard's document: those its file was
    told at planning, else told now by the head of its text (decode.text_input_type); its syntax
    counted once, by the shard that starts the file."""
    spec = r.spec
    told = text_input_type(spec.input_type, spec.source, head, r.config.syntax)
    assert told.kind is not None
    if spec.start == 0:
        return told.kind, counted_syntax(told.syntax, r.result)
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


def text_chunks(r: Reading) -> Iterator[Chunk]:
    """The mentions of a text shard whose start it owns, with absolute byte offsets.

    A shard owns the hits that start in its byte range [start, stop); it reads from a little
    before `start` (left context) to well past `stop` (so a hit across the cut is complete),
    which is how a DOI straddling a cut is found exactly once. An uncompressed file is read in
    windows (FileSource), anything else as a stream.
    """
    spec, config, result = r.spec, r.config, r.result
    range_lo, range_hi = spec.start, (None if spec.stop < 0 else spec.stop)
    base = max(0, range_lo - RANGE_OVERLAP) if range_lo else 0
    comp, encoding = spec.input_type.compression, spec.input_type.encoding
    with input_errors():
        if spec.seek_points:  # a range of a gzip file's text, from its seek points (io/seekgz.py)
            from ..io import seekgz

            raw = stream = seekgz.open_at(spec.path, spec.seek_points, base)
        else:
            raw, stream, progress = open_counted(spec.path, comp, r.progress, result.text_cut(spec.source))
            r = r.with_progress(progress)
    with raw, stream:
        if encoding is not None:  # a text in another encoding is one shard (formats/text.py)
            source = StreamSource.of_blocks(_decoded_blocks(stream, encoding, config.block_size))
            kind, syntax = text_reading(r, source.head)
            yield from chunks(r, source, kind, syntax=syntax)
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
        kind, syntax = text_reading(r, windows.head)
        try:
            yield from chunks(r, windows, kind, None, range_lo, range_hi, syntax=syntax)
        finally:
            windows.release()
        if range_lo == 0:
            result.documents += 1


def typed_by_head(spec: ShardSpec, config: ScanConfig) -> tuple[ShardSpec, bytes | None]:
    """A group's file told what it is by its first bytes (formats.tell_input, as the planner
    tells a large file), and its bytes when it is UTF-8 text of one block, searched as they
    are."""
    data = read_upto(spec.path, config.block_size)
    if data is None:
        with open_input(spec.path) as f:
            told = tell_input(spec.path, f.read(FORMAT_HEAD), config)
    else:
        told = tell_input(spec.path, data[:FORMAT_HEAD], config)
        if told.fmt != "text" or told.compression or told.encoding:
            data = None  # read as the planner's file of this format is (streamed, transcoded)
    return ShardSpec(spec.index, spec.source, spec.path, told, spec.start, spec.stop, spec.key), data


def whole_chunk(r: Reading, data: bytes, table: MentionTable) -> Chunk:
    """The mentions of a small text file read whole, found as a stream of it would be; `table`
    is empty, and emptied again."""
    data, start = input_head(data, 0)
    kind, syntax = text_reading(r, data[:HEAD_BYTES])
    hits: list[CHit] | None = r.hits()
    match = matcher_for(kind, r.config.allow_other_prefix, table, hits, syntax, r.config.derive)
    scan_whole(data, start, match, r.result, r.progress)
    if hits:
        r.occurrences.add_c_hits(hits, r.spec.source, None)
    r.result.documents += 1
    return take_chunk(table, r.config.buckets)


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


def stream_source(stream: Any, block_size: int, feed: Callable[[bytes], None] | None = None) -> StreamSource:
    """A text file's stream (or an archive member's) as a source of windows: transcoded to UTF-8
    when it declares another encoding, the bytes searched given to `feed` (find's line numbers)."""
    with input_errors():  # its head peeked at: read
        blocks = _transcoded(stream, block_size)
    if blocks is not None:
        return StreamSource.of_blocks(blocks if feed is None else _fed(blocks, feed))
    return StreamSource(stream if feed is None else ReadTap(stream, feed), 0, None, block_size)


def _fed(blocks: Iterator[bytes], feed: Callable[[bytes], None]) -> Iterator[bytes]:
    """The blocks, each given to `feed` on its way."""
    for data in blocks:
        feed(data)
        yield data
