"""One windowing core over an input's bytes: each window is searched together with the end of
the one before, and hits too near its end wait for the next, so a hit across a window boundary
is found once and whole, in bounded memory on an input of any size.

The windows come from a source (a file read with pread into one buffer, or the blocks of a
stream); a matcher (matchers.py) searches each.
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Iterator
from typing import Any, Protocol

from ...match import native
from ...match.bounds import MAX_DOI_CHARS, PAGE_CHARS
from ..errors import InputError, input_errors
from ..io.decode import HEAD_BYTES, clean, input_head
from ..units import Progress, ShardResult
from .matchers import Matcher, Window

# A hit that starts in the last BYTE_RESERVE bytes of a window may not be complete yet: it is
# left for the next window, which starts BYTE_LEFT bytes before the cut (the left context of
# its first hits). Both are in bytes, four per character of the matcher's own windows.
BYTE_RESERVE = 4 * (MAX_DOI_CHARS + 4 * 400)
BYTE_LEFT = 4 * (PAGE_CHARS + 1)  # a PDF text's page above the hit (bounds.PAGE_CHARS)
# Byte-range shards read this much before their range, for the left context of the first hit.
RANGE_OVERLAP = BYTE_LEFT
# The least window a file is read in (a smaller one cannot move past its held-back end).
MIN_WINDOW = 2 * (BYTE_RESERVE + BYTE_LEFT)


class Source(Protocol):
    """Where the windows come from. `start` is the byte offset of the first window."""

    start: int

    def window(self, pos: int) -> tuple[Any, bool]:
        """The bytes from offset `pos` on (a window's worth), and whether they reach the end."""
        ...

    def pace(self, hits: int) -> None:
        """The last window gave `hits` (a source may size its next window by them)."""
        ...

    def passed(self, pos: int) -> None:
        """Bytes before `pos` will not be asked for again."""
        ...


class FileSource:
    """A regular file read in windows with pread into one buffer, reused: memory stays flat on
    a file of any size, and a file cut short while it is read gives a short read — rejected
    with that reason — where a memory map's pages past the new end killed the process (SIGBUS)
    when the matcher touched them. Its head is checked and trimmed by decode.input_head.

    The window is paced by the hits it gave: what one window finds is held until it is drained
    (each distinct DOI about 1 KB on its way to a part file), so text dense with DOIs is read
    in smaller windows — 8 MiB of nothing but distinct DOIs held 240,000 of them and took a
    shard to 300 MB . Windows start at PACE_MIN and grow while hits are sparse.
    """

    PACE_HITS = 32_768  # hits one window should give at most (ordinary text: about 20,000 per 8 MiB)
    PACE_MIN = 1 << 20

    def __init__(self, fd: int, start: int, stop: int, window: int) -> None:
        self.fd = fd
        with input_errors():
            first = os.pread(fd, HEAD_BYTES, start)
        self.head, start = input_head(first, start)
        self.current: memoryview | None = None  # the window handed out last
        self.start = start
        self.stop = stop
        # a window must reach past the bytes held back at its end and the left context kept
        # for the next, or the next would start where it did: smaller ones never advanced
        window = max(window, MIN_WINDOW)
        self.max_size = window
        self.size = min(window, self.PACE_MIN)
        self.buf = bytearray(min(window, max(0, stop - start)))  # never resized: windows view it

    def window(self, pos: int) -> tuple[Any, bool]:
        end = min(self.stop, pos + self.size)
        if self.current is not None:
            self.current.release()
        want = end - pos
        view = memoryview(self.buf)[:want]
        with input_errors():
            got = _pread_into(self.fd, view, pos)
        if got < want:
            view.release()
            size = os.fstat(self.fd).st_size
            raise InputError(f"the file shrank while it was read (to {size} bytes)")
        self.current = view
        return view, end >= self.stop

    def pace(self, hits: int) -> None:
        """The last window gave `hits`: the next is smaller if they were too many, larger if
        few (never under a quarter of PACE_MIN, never over the configured window)."""
        if hits > self.PACE_HITS:
            self.size = max(self.PACE_MIN // 4, self.size * self.PACE_HITS // hits)
        elif hits < self.PACE_HITS // 2:
            self.size = min(self.max_size, self.size * 2)

    def passed(self, pos: int) -> None:
        """Nothing to drop: the buffer is reused, the page cache is the system's."""

    def release(self) -> None:
        """Let the buffer go: the last window's view released (it may still be referenced by
        the traceback of an error raised while it was searched)."""
        if self.current is not None:
            self.current.release()


def _pread_into(fd: int, view: memoryview, pos: int) -> int:
    """Bytes read into `view` from offset `pos` (fewer only at the file's end), retried on a
    short read that is not the end."""
    done = 0
    while done < len(view):
        if _PREADV is not None:
            n = _PREADV(fd, [view[done:]], pos + done)
        else:  # no preadv (macOS before 11): pread's bytes copied in
            chunk = os.pread(fd, len(view) - done, pos + done)
            n = len(chunk)
            view[done : done + n] = chunk
        if n == 0:
            break
        done += n
    return done


_PREADV = getattr(os, "preadv", None)


class StreamSource:
    """A stream read in blocks: a window is what is left of the last one and the next block.

    One block is read ahead, so that the last window is known to be the last (a small file is
    one window, searched once). A file's head is checked and trimmed by decode.input_head.
    """

    def __init__(
        self,
        stream: Any,
        start: int,
        limit: int | None,
        block_size: int,
        blocks: Iterator[bytes] | None = None,
    ) -> None:
        self.stream = stream
        self.limit = limit
        self.block_size = block_size
        self.blocks = blocks
        data = self._read()
        if blocks is None:  # a file's bytes, not a record's text
            data, start = input_head(data, start)
        self.start = start
        self.buf = b""
        self.buf_start = start
        self.ahead = data

    @classmethod
    def of_blocks(cls, blocks: Iterator[bytes]) -> StreamSource:
        """A source over blocks already in memory (a streamed record's text, encoded)."""
        return cls(None, 0, None, 0, blocks)

    @property
    def head(self) -> bytes:
        """The first bytes (for detecting the kind), before any window is taken."""
        return self.ahead[:HEAD_BYTES]

    def _read(self) -> bytes:
        """The next block: reading (a decompressor, a transcoder, a format's streamed text) is
        where an input's faults surface, as InputError."""
        with input_errors():
            if self.blocks is not None:
                return next(self.blocks, b"")
            want = self.block_size if self.limit is None else min(self.block_size, self.limit)
            data: bytes = self.stream.read(want) if want > 0 else b""
        if self.limit is not None:
            self.limit -= len(data)
        return data

    def window(self, pos: int) -> tuple[Any, bool]:
        data = self.ahead
        self.ahead = self._read() if data and (self.limit is None or self.limit > 0) else b""
        keep = self.buf[pos - self.buf_start :]
        self.buf = keep + data if keep else data
        self.buf_start = pos
        return self.buf, not self.ahead

    def pace(self, hits: int) -> None:
        """Nothing to do: blocks are small (a MiB) already."""

    def passed(self, pos: int) -> None:
        """Nothing to do: the window's copy is replaced at the next one."""

    def release(self) -> None:
        """Nothing held beyond the last window's copy."""


def scan_windows(
    source: Source,
    match: Matcher,
    result: ShardResult,
    progress: Progress,
    range_lo: int = 0,
    range_hi: int | None = None,
    chars: bool = False,
) -> Iterator[int]:
    """Search the input window by window; yields after each window (the number of hits), so
    that the caller can drain the mention table and the hits.

    Only hits starting in [range_lo, range_hi) are counted: a byte-range shard owns those, and
    reads on past its range so that a hit across the cut is complete. With `chars` (valid
    UTF-8: a record's text), offsets count characters, not bytes; else (a text file) each hit
    gets its line, counted from the range's first line (a later range's lines are shifted by the
    newlines of the ranges before it when the shards are merged: result.newlines counts those
    the shard owns). Bytes read and invalid bytes are counted for the bytes the shard owns.
    """
    pos = source.start  # the window's first byte
    units = 0 if chars else pos  # the same, in the units of the offsets reported
    done = 0  # hits starting before this byte of the window were handled already
    counted = max(pos, range_lo)  # owned bytes are counted from here (invalid bytes, progress)
    owned_to = range_hi
    skipping = False  # the last window ended inside a token dropped as too long
    lines = not chars
    line_pos, line_count = max(pos, range_lo), 0  # newlines in [range_lo, line_pos)
    while True:
        buf, last = source.window(pos)
        n = len(buf)
        cut = n if last else max(0, n - BYTE_RESERVE)
        upto = pos + (n if last else max(0, n - 4))  # invalid bytes: up to a whole character
        if owned_to is not None:
            upto = min(upto, owned_to)
        gained = 0
        if upto > counted:
            bad, nxt = native.invalid_bytes(buf, counted - pos, upto - pos)
            result.invalid_bytes += bad
            gained = pos + nxt - counted
            counted = pos + nxt
        rlo = range_lo - pos
        rhi = n + 1 if range_hi is None else range_hi - pos
        if skipping:  # a token dropped as too long ran into this window: passed over to its end
            done = token_end(buf, done)
        keep = max(0, cut - BYTE_LEFT)  # where the next window starts
        while keep < n and buf[keep] & 0xC0 == 0x80:  # a character boundary
            keep += 1
        # the matcher counts the newlines up to where they are next needed — the next window's
        # start, or the end of what the shard owns — so that each byte is counted once
        line_to = -1
        if lines and not last and pos + keep > line_pos:
            line_to = keep
        elif lines and last and (owned_to is None or line_pos <= owned_to):
            line_to = n if owned_to is None else min(n, owned_to - pos)
        reported, last_end, too_long, newlines = match(
            Window(
                buf, done, cut, rlo, rhi, units, chars, line_count if lines else -1, line_pos - pos, line_to
            )
        )
        result.hits += reported
        result.too_long += too_long
        result.bytes_read += gained
        skipping = max(done, last_end) >= n
        if not last:  # read now, before the bytes can change
            done = max(cut, last_end, done) - keep
            units += len(bytes(buf[:keep]).decode("utf-8")) if chars else keep
            if line_to >= 0:
                if owned_to is not None and line_pos <= owned_to < pos + keep:  # the owned range ends here
                    result.newlines += line_count + native.newlines(buf, line_pos - pos, owned_to - pos)
                line_count += newlines
                line_pos = pos + keep
            pos += keep
        elif line_to >= 0:
            result.newlines += line_count + newlines
        progress(gained, reported)
        yield reported
        if last:
            return
        source.pace(reported)
        source.passed(pos)
        if range_hi is not None and pos > range_hi:
            return


def scan_whole(data: bytes, start: int, match: Matcher, result: ShardResult, progress: Progress) -> None:
    """scan_windows for a file's bytes held whole, from byte `start` of the file (past a byte
    order mark): one window, the last, searched with no generator around it (a tree of small
    pages cost more per file than per byte). Counts as scan_windows counts."""
    n = len(data)
    bad, gained = native.invalid_bytes(data, 0, n)
    reported, _end, too_long, newlines = match(Window(data, 0, n, -start, n + 1, start, False, 0, 0, n))
    result.invalid_bytes += bad
    result.hits += reported
    result.too_long += too_long
    result.bytes_read += gained
    result.newlines += newlines
    progress(gained, reported)


def token_end(buf: Any, start: int) -> int:
    """Where the token going on at byte `start` of `buf` ends: its first character that ends a
    DOI's run (spec §4), or the end of `buf`."""
    from ...match.rules import RUN_END

    decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
    pos = start
    n = len(buf)
    while pos < n:
        piece = bytes(buf[pos : pos + (64 << 10)])
        text = decoder.decode(piece, final=pos + len(piece) >= n)
        m = RUN_END.search(clean(text)[0])  # invalid bytes read as U+FFFD, as the matchers read them
        if m is not None:
            return pos + len(text[: m.start()].encode("utf-8", "surrogateescape"))
        pos += len(piece)
        pos -= len(decoder.getstate()[0])  # bytes of a character cut at the piece's end, read again
        decoder.reset()
    return n


def regular_file(stream: Any, min_size: int) -> int | None:
    """The descriptor of an open regular file of at least `min_size` bytes, read in windows
    (FileSource), or None (a pipe, a smaller file: reading it at once costs less)."""
    try:
        fd: int = stream.fileno()
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size < max(1, min_size):
            return None
        return fd
    except (OSError, ValueError, AttributeError):
        return None
