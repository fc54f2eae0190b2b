"""Windows over an input's bytes, each searched with the end of the one before, so that a hit
across a window boundary is found once and whole, in bounded memory on an input of any size.

Plain text goes to the C matcher on the bytes themselves (a memory map for a file, blocks for a
stream); HTML and PDF text are decoded and read by the Python matcher in text blocks.
"""

from __future__ import annotations

import codecs
import mmap
import os
import stat
from collections.abc import Iterator
from typing import Any

from ..match import FindStats, find_spans, native
from ..match.find import MAX_DOI_CHARS
from ..match.native import CHit, Mentions
from .decode import byte_offsets, clean, is_binary
from .errors import InputError
from .units import Progress, ShardResult, TextHit

# A hit that starts before this many characters from the end of a block may not be complete
# yet: it is left for the next block, which starts LEFT_CONTEXT characters before it.
_TAIL_RESERVE = MAX_DOI_CHARS + 4 * 400
LEFT_CONTEXT = 1024
# Byte-range shards read this much before their range, for the left context of the first hit.
RANGE_OVERLAP = 4096


def byte_blocks(
    stream: Any, base: int, limit: int | None, progress: Progress, result: ShardResult, block_size: int
) -> Iterator[tuple[bytes, int, bool]]:
    """Raw blocks (data, byte offset of data[0], is_last), reading at most `limit` bytes; the
    first is checked for binary data and loses a UTF-8 byte order mark at the start of a file.

    One block is read ahead, so that the last block is known to be the last: a small file is
    one block, searched once.
    """

    def read() -> bytes:
        nonlocal limit
        want = block_size if limit is None else min(block_size, limit)
        data: bytes = stream.read(want) if want > 0 else b""
        if limit is not None:
            limit -= len(data)
        result.bytes_read += len(data)
        progress(len(data), 0)
        return data

    data = read()
    why = is_binary(data)
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


def text_blocks(blocks: Iterator[tuple[bytes, int, bool]]) -> Iterator[tuple[str, int, bool]]:
    """Decoded blocks (text, byte offset of text[0], is_last).

    Invalid UTF-8 bytes decode to lone surrogates (surrogateescape), one per byte, so that
    character offsets still map exactly to byte offsets.
    """
    decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
    for data, base, last in blocks:
        yield decoder.decode(data, final=last), base, last


# Lone surrogates: invalid bytes decoded with surrogateescape, or \udXXX escapes in JSON.


def scan_blocks(
    blocks: Iterator[tuple[str, int, bool]],
    kind: str,
    allow_other_prefix: bool,
    result: ShardResult,
    progress: Progress,
    range_lo: int = 0,
    range_hi: int | None = None,
    char_offsets: bool = False,
) -> Iterator[TextHit]:
    """The hits in a stream of text blocks, in order, with their absolute offsets.

    Blocks are (text, offset of text[0], is_last). Each block is searched together with the
    end of the one before (left context), and hits too near its end wait for the next block,
    so a hit across a block boundary is found once and whole. Offsets are UTF-8 byte offsets,
    or character offsets with `char_offsets`. Only hits starting in [range_lo, range_hi) are
    given: a byte-range shard owns those.
    """
    carry = ""  # raw text (with surrogates) kept from the previous block
    carry_clean = ""  # the same, cleaned (clean keeps lengths, so it is the end of the last block)
    carry_base = 0  # offset of carry[0], or of the next block when carry is empty
    done_upto = 0  # hits starting before this character of the block were handled already
    stats = FindStats()
    for text, tbase, last in blocks:
        if not carry:
            carry_base = tbase
        raw_block = carry + text
        clean_new, bad = clean(text)
        result.invalid_bytes += bad
        block = carry_clean + clean_new
        cut = len(block) if last else max(0, len(block) - _TAIL_RESERVE)
        spans = [
            h
            for h in find_spans(block, kind, allow_other_prefix=allow_other_prefix, stats=stats)
            if done_upto <= h[0] < cut
        ]
        starts = [h[0] for h in spans]
        n_hits = 0
        for (s, e, form, doi), off in zip(
            spans, starts if char_offsets else byte_offsets(raw_block, starts), strict=True
        ):
            ab = carry_base + off
            if ab < range_lo or (range_hi is not None and ab >= range_hi):
                continue
            n_hits += 1
            yield TextHit(doi, ab, form, block, s, e)
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
BYTE_RESERVE = 4 * _TAIL_RESERVE
_BYTE_LEFT = 4 * LEFT_CONTEXT


def scan_plain(
    blocks: Iterator[tuple[bytes, int, bool]],
    result: ShardResult,
    progress: Progress,
    table: Mentions,
    hits: list[CHit] | None,
    range_lo: int = 0,
    range_hi: int | None = None,
    chars: bool = False,
) -> Iterator[int]:
    """Scan blocks of plain UTF-8 text into the mention `table` (and `hits`, with absolute
    offsets), yielding after each block so that the caller can drain them.

    The same block logic as scan_blocks, in bytes: each block is searched with the end of the
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
        cut = n if last else max(0, n - BYTE_RESERVE)
        bad, counted = native.invalid_bytes(buf, counted, n if last else max(counted, n - 4))
        result.invalid_bytes += bad
        rlo = range_lo - carry_base
        rhi = n + 1 if range_hi is None else range_hi - carry_base
        reported, last_end, too_long = native.scan(
            buf, done_upto, cut, rlo, rhi, carry_base, table, hits, chars=chars
        )
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


# An uncompressed file is read through a memory map, in windows of ScanConfig.map_window bytes:
# no copies, and the pages behind the window are dropped, so memory stays flat on any size.
_DONTNEED = getattr(mmap, "MADV_DONTNEED", None)  # not on Windows: pages are then left to the OS


def scan_mapped(
    mm: mmap.mmap,
    base: int,
    result: ShardResult,
    progress: Progress,
    table: Mentions,
    hits: list[CHit] | None,
    range_lo: int = 0,
    range_hi: int | None = None,
    window: int = 8 << 20,
) -> Iterator[int]:
    """scan_plain over a memory-mapped file from byte `base`, window by window (same protocol:
    yields after each window; hits get absolute offsets)."""
    size = len(mm)
    stop = size if range_hi is None else min(size, range_hi + 8 * BYTE_RESERVE)
    view = memoryview(mm)
    try:
        start = base  # the window's first byte
        done = base  # hits starting before this byte were handled already
        counted = max(base, range_lo)  # invalid bytes are counted from here, up to the range's end
        count_to = stop if range_hi is None else min(stop, range_hi)
        owned = counted
        dropped = 0
        while True:
            end = min(stop, start + window)
            last = end >= stop
            n = end - start
            cut = n if last else n - BYTE_RESERVE
            upto = count_to if last else min(count_to, start + cut)
            if upto > counted:
                bad, nxt = native.invalid_bytes(view[:end], counted, upto)
                result.invalid_bytes += bad
                counted = nxt
            rhi = n + 1 if range_hi is None else range_hi - start
            reported, last_end, too_long = native.scan(
                view[start:end], done - start, cut, range_lo - start, rhi, start, table, hits
            )
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


def map_file(stream: Any, min_size: int) -> mmap.mmap | None:
    """A read-only memory map of an open regular file, or None (a pipe, a file under `min_size`
    bytes: reading it at once costs less than mapping it)."""
    try:
        fd = stream.fileno()
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size < max(1, min_size):
            return None
        return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError, AttributeError):
        return None


def char_blocks(chunks: Iterator[str]) -> Iterator[tuple[str, int, bool]]:
    """Blocks (text, character offset, is_last) from the decoded pieces of a streamed record."""
    pos = 0
    prev: str | None = None
    for c in chunks:
        c = clean(c)[0]
        if prev is not None:
            yield prev, pos, False
            pos += len(prev)
        prev = c
    yield prev or "", pos, True
