"""Stream adapters, one of each: a byte range of a stream (Limited), a tap that shows each piece
read (ReadTap: progress, the zstd frame walk), a decompressed stream read up to the cut of a
file cut short (UntilCut), and progress in bytes of a compressed file as stored (DiskProgress)."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from ..units import Progress


class DiskProgress:
    """Progress in bytes of a compressed file as stored: the planner's total is the files' sizes,
    so a decompressed stream reports how far its file has been read, not what it gave
    (a gzip input's bar ran past 100 %)."""

    def __init__(self, raw: BinaryIO, progress: Progress) -> None:
        self._raw = raw
        self._progress = progress
        self._done = 0

    def __call__(self, nbytes: int, nhits: int) -> None:
        pos = self._raw.tell()
        self._progress(max(0, pos - self._done), nhits)
        self._done = max(pos, self._done)


class UntilCut(io.RawIOBase):
    """A decompressed stream that ends where its compressed file was cut short (a partial
    download: EOFError from every decompressor) instead of raising, so that the text before the
    cut is read as any text is; a corrupt stream still raises.

    The bytes after the last white space read are held until more follow: at a cut they are
    dropped, since they may be the start of a DOI the cut ended early (a DOI holds no white
    space, spec §2). `cut(why, n)` is told the reason and the `n` bytes given before it. A
    decompressor may drop what it decoded in the step that met the cut; `rest(n)`, when given,
    yields the bytes from the `n`th on, up to the cut, decoded again.
    """

    HOLD_MAX = 1 << 16  # a run this long without white space is given on, not held
    STEP = 1 << 16  # bytes asked of the decompressor at a time

    def __init__(
        self,
        stream: BinaryIO,
        cut: Callable[[str, int], None],
        rest: Callable[[int], Iterator[bytes]] | None = None,
    ) -> None:
        self._stream = stream
        self._cut = cut
        self._rest = rest
        self._held = b""
        self._ready = b""
        self._done = False
        self._why: str | None = None
        # one step of the decompressor (read1): a read of many steps that meets the cut raises,
        # and what its earlier steps gave is lost with it
        self._read: Callable[[int], bytes] = getattr(stream, "read1", stream.read)
        self._taken = 0  # bytes had from the stream (or from `rest`)
        self.given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        while not self._ready and not self._done:
            self._fill()
        n = min(len(b), len(self._ready))
        b[:n] = self._ready[:n]
        self._ready = self._ready[n:]
        self.given += n
        return n

    def _fill(self) -> None:
        try:
            data = self._read(self.STEP)
        except EOFError as exc:
            self._why = str(exc) or "the compressed data ends early"
            if self._rest is None:
                return self._end()
            pieces = self._rest(self._taken)
            self._rest = None
            self._read = lambda n: next(pieces, b"")
            return None
        if not data:
            return self._end()
        self._taken += len(data)
        data = self._held + data
        end = max(data.rfind(c) for c in (b" ", b"\n", b"\r", b"\t", b"\f", b"\v")) + 1
        if len(data) - end > self.HOLD_MAX:
            end = len(data)
        self._ready, self._held = data[:end], data[end:]
        return None

    def _end(self) -> None:
        """The stream's end: its held bytes given, or, at a cut, dropped and the cut told."""
        self._done = True
        if self._why is None:
            self._ready, self._held = self._held, b""
        else:
            self._held = b""
            self._cut(self._why, self.given + len(self._ready))

    def close(self) -> None:
        self._stream.close()
        super().close()


def limited(stream: BinaryIO, n: int) -> BinaryIO:
    """The next `n` bytes of a stream (n < 0: all the rest), as a stream; closing it closes the
    stream."""
    if n < 0:
        return stream
    return io.BufferedReader(Limited(stream, n), buffer_size=1 << 20)


class Limited(io.RawIOBase):
    """The next `left` bytes of a stream (a byte range of a file, a shard of a dump, a tar
    member); closing it closes the stream, unless `owns` is False (a part of a file read on
    after it). With `ends_early`, a stream that ends before them raises EOFError saying so (a
    tar member's body cut short)."""

    def __init__(self, stream: BinaryIO, left: int, owns: bool = True, ends_early: str | None = None) -> None:
        super().__init__()
        self._s = stream
        self.left = left
        self._owns = owns
        self._ends_early = ends_early

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if self.left <= 0:
            return 0
        view = memoryview(b)[: self.left]
        n = self._s.readinto(view) or 0  # type: ignore[attr-defined]
        if n == 0 and len(view) and self._ends_early is not None:
            raise EOFError(self._ends_early)
        self.left -= n
        return n

    def drain(self) -> None:
        """Read past what is left of it."""
        while self.left > 0 and self.readinto(bytearray(min(self.left, 1 << 16))):
            pass

    def close(self) -> None:
        if self._owns:
            self._s.close()
        super().close()


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


class Chunks(io.RawIOBase):
    """A stream of the chunks an iterator gives, read in this thread (bytes read already, then
    the rest of their stream: `Chunks(chain([head], iter(partial(rest.read, n), b"")))`)."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        super().__init__()
        self._chunks = chunks
        self._rest = b""

    def readable(self) -> bool:
        return True

    def _next(self) -> bytes:
        """The next chunk, b"" at the end."""
        return next(self._chunks, b"")

    def readinto(self, b: Any) -> int:
        if not self._rest:
            self._rest = self._next()
        n = min(len(b), len(self._rest))
        b[:n] = self._rest[:n]
        self._rest = self._rest[n:]
        return n


class ReadAhead(Chunks):
    """A stream's bytes produced ahead, in a thread: bz2's decompression releases the GIL, so it
    runs on another core while the pages before are parsed and searched (as gzip's does,
    compression.py)."""

    def __init__(self, chunks: Iterator[bytes], depth: int = 4) -> None:
        # here: only a bzip2 stream is read ahead (`find` on a text starts no thread)
        import threading
        from queue import Queue

        super().__init__(chunks)
        self._q: Queue[bytes | BaseException] = Queue(depth)
        self._stop = False
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self) -> None:
        try:
            for data in self._chunks:
                if self._stop:
                    return
                self._q.put(data)
            self._q.put(b"")
        except BaseException as exc:  # handed to the reader, raised there
            self._q.put(exc)

    def _next(self) -> bytes:
        """The next chunk from the thread, b"" at the end (left for the reads after); its error
        raised here, again at each read after."""
        got = self._q.get()
        if isinstance(got, BaseException) or not got:
            self._q.put(got)
        if isinstance(got, BaseException):
            raise got
        return got

    def close(self) -> None:
        import queue

        self._stop = True
        while self._t.is_alive():  # unblock a full queue
            with contextlib.suppress(queue.Empty):
                self._q.get(timeout=0.05)
        super().close()
