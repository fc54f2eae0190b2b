"""One large gzip or bzip2 file in many shards: its decompressed text cut into byte ranges at
line ends in one pass of rapidgzip (which reads both), keeping the seek points from which each
shard starts decompressing its own range. A shard's seek points travel in its plan (a few,
compressed: tens of kB), so workers need share no folder with the planner, and the file may be
on a local disk or in object storage.

Without rapidgzip (the `fast` extra), or for a file it cannot read to its end (cut short,
corrupt), the file is one shard, as any compressed file is.
"""

from __future__ import annotations

import atexit
import bisect
import importlib.util
import io
import os
import struct
import tempfile
import weakref
import zlib
from typing import Any, BinaryIO, NamedTuple

from ..cpus import usable_cpus
from . import remote
from .cuts import BLOCK, FRAME_SEEK, REACH, Cuts, GzipPlan
from .read import open_input

# The workers (a cluster's threads) from which a file of each compression is cut by default
# (io/inputs.plan_shards). The pass decodes the whole file once more (rapidgzip) and a shard
# decodes its range in the thread that scans it: one worker would pay the pass for nothing, and
# on 2 cores a gzip or zstd file as one shard, decompressed ahead on the other core, is as fast
# as its ranges; bzip2, much slower to decompress, gains from ranges on 2 cores already
# (benchmarks/RESULTS.md, "Design figures").
# The compressions planned here are its keys (read.py's names): rapidgzip reads and indexes both.
SPLIT_WORKERS = {"gzip": 4, "bzip2": 2, "zstd": 4}
# The least text between two seek points a shard keeps: rapidgzip decodes from one point to the
# next as one piece, so this bounds a shard's memory (and its plan's size: a point is a 32 KiB
# window). The first point past a range's reach is always kept: without it rapidgzip decoded
# all the rest of the file as one piece, in memory.
SPAN = 16 << 20


def available(compression: str = "gzip") -> bool:
    """Whether a file of this compression can be cut: gzip and bzip2 with rapidgzip (the `fast`
    extra), zstd always (zstandard, which reads it at all)."""
    if compression == "zstd":
        return True
    try:
        return importlib.util.find_spec("rapidgzip") is not None
    except (ImportError, ValueError):
        return False


def plan_ranges(
    path: str, shard_size: int, head_bytes: int, compression: str = "gzip", threads: int | None = None
) -> GzipPlan | None:
    """A gzip file's text in ranges of about `shard_size` bytes, each cut just after a newline as
    line_ranges cuts an uncompressed file, with the lines before each and the seek points each
    starts from, in one pass on `threads` (the CPUs this process may use). None when rapidgzip
    cannot read the file to its end, or gives an index of a format not read here. A zstd file
    is cut at its frames' starts instead (seekzst.py)."""
    if compression == "zstd":  # frames decompress on their own: no windows to keep
        from .seekzst import plan_frames

        return plan_frames(path, shard_size, head_bytes)
    import rapidgzip

    if threads is None:
        threads = usable_cpus()
    cuts = Cuts(shard_size, head_bytes)
    url = remote.is_url(path)
    src: Any = open_input(path) if url else path
    try:
        with tempfile.TemporaryFile() as index:
            with rapidgzip.open(src, parallelization=_pass_threads(compression, threads, url)) as f:
                while block := f.read(BLOCK):
                    cuts.feed(block)
                f.export_index(index)
            if not (_whole(path, cuts.pos) if compression == "gzip" else _bzip2_ends(path)):
                return None
            parts, line0 = cuts.parts()
            found = _Index.read(index)
            seeks = found.for_ranges(parts) if found is not None else None
    except Exception:  # rapidgzip's own errors for a cut or corrupt stream: the file is one shard
        return None
    finally:
        if url:
            src.close()
    if seeks is None:
        return None
    return GzipPlan(parts, line0, cuts.head, cuts.pos, seeks)


def _pass_threads(compression: str, threads: int, url: bool) -> int:
    """rapidgzip's threads for the pass. gzip on 2 cores: 1 (its parallel decoding first finds
    block starts and decodes with markers, which cost more than the second core gave); bzip2's
    blocks decode apart, so every CPU; one for an object read through Python, which serializes
    the reads."""
    if url or (compression == "gzip" and threads <= 2):
        return 1
    return max(1, threads)


_HEAD = struct.Struct("<5sBBQQII")
_POINT = struct.Struct("<QQBB")


class _Index(NamedTuple):
    """rapidgzip's exported index (indexed_gzip's GZIDX format, version 1): a header, the seek
    points (compressed offset, text offset, bits, whether a window follows) and the windows."""

    f: Any
    header: bytes  # magic, version, flags, sizes, spacing, window size (the count follows)
    points: list[tuple[int, int, int, int]]
    window: int
    windows_at: list[int]  # each point's window's offset in `f` (-1: none)

    @classmethod
    def read(cls, f: Any) -> _Index | None:
        f.seek(0)
        fixed = f.read(_HEAD.size + 4)
        if len(fixed) < _HEAD.size + 4:
            return None
        magic, version, _flags, _csize, _usize, _spacing, window = _HEAD.unpack_from(fixed)
        if magic != b"GZIDX" or version != 1:
            return None
        (n,) = struct.unpack_from("<I", fixed, _HEAD.size)
        table = f.read(n * _POINT.size)
        points = [_POINT.unpack_from(table, i * _POINT.size) for i in range(n)]
        if not points or points[0][1] != 0:
            return None
        at, windows_at = f.tell(), []
        for p in points:
            windows_at.append(at if p[3] else -1)
            at += window if p[3] else 0
        return cls(f, fixed[: _HEAD.size], points, window, windows_at)

    def for_ranges(self, parts: list[tuple[int, int]]) -> list[bytes]:
        """Each range's seek points, as an index of their own."""
        texts = [p[1] for p in self.points]
        return [self._subset(self._chosen(texts, a, b)) for a, b in parts]

    @staticmethod
    def _chosen(texts: list[int], start: int, stop: int) -> list[int]:
        """The points a range [start, stop) reads from: the last at or before its reach, then
        points SPAN of text apart, and the first past its reach."""
        lo = bisect.bisect_right(texts, max(0, start - REACH)) - 1
        end = None if stop < 0 else stop + REACH
        chosen = [lo]
        for k in range(lo + 1, len(texts)):
            if end is not None and texts[k] >= end:
                chosen.append(k)
                break
            if texts[k] - texts[chosen[-1]] >= SPAN:
                chosen.append(k)
        return chosen

    def _subset(self, chosen: list[int]) -> bytes:
        out = [self.header, struct.pack("<I", len(chosen))]
        out += [_POINT.pack(*self.points[k]) for k in chosen]
        for k in chosen:
            if self.windows_at[k] >= 0:
                self.f.seek(self.windows_at[k])
                out.append(self.f.read(self.window))
        return zlib.compress(b"".join(out), 1)


def _whole(path: str, size: int) -> bool:
    """Whether the pass read the whole text: rapidgzip gives what it could decode of a stream cut
    short, without a word. A gzip member's last four bytes are its text's size (mod 2**32,
    RFC 1952 §2.3.1), which a cut or damaged file does not end with; a file of several members
    (concatenated parts, bgzip) ends with its last member's, which is whole where it decodes
    from its header to the file's end, its CRC and size checked (`_last_member_whole`)."""
    with open_input(path) as f:
        f.seek(-4, os.SEEK_END)
        if int.from_bytes(f.read(4), "little") == size % (1 << 32):
            return True
        return _last_member_whole(f)


# How far from its end a file's last gzip member is looked for (a larger last member: the file
# is one shard; concatenated parts of a few MB, or bgzip's 64 kB blocks, are found at once).
LAST_MEMBER = 16 << 20


def _last_member_whole(f: Any) -> bool:
    """Whether a file of several gzip members ends with a whole one: from the last member header
    (1f 8b 08) within LAST_MEMBER of its end that zlib decodes to the file's last byte, with the
    member's CRC-32 and size as its trailer says (a header's bytes found inside compressed data
    fail to decode, or end elsewhere)."""
    end = f.seek(0, os.SEEK_END)
    base = max(0, end - LAST_MEMBER)
    f.seek(base)
    tail = f.read(end - base)
    at = len(tail)
    while True:
        at = tail.rfind(b"\x1f\x8b\x08", 0, at)
        if at < 0:
            return False  # no member within reach ends the file whole
        d = zlib.decompressobj(31)
        rest = tail[at:]
        try:
            while not d.eof:
                out = d.decompress(rest, 1 << 20)  # bounded: the output is dropped as it comes
                rest = d.unconsumed_tail
                if not out and not rest:
                    break  # the file ends inside this member
        except zlib.error:
            continue  # not a member's start
        if d.eof and not d.unused_data:
            return True


# bzip2's end-of-stream marker, a 48-bit magic (sqrt(pi)) before the stream's 32-bit CRC and
# 0-7 bits of padding to a byte: the last stream of a whole file ends so.
_BZ2_EOS = 0x177245385090


def _bzip2_ends(path: str) -> bool:
    """Whether a bzip2 file ends with its end-of-stream marker: rapidgzip raises for a stream cut
    inside a block, and a cut between blocks leaves no marker (the file is then one shard, read
    up to its cut by the usual reader, which names it)."""
    with open_input(path) as f:
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - 11))
        return _bzip2_ends_stream(f.read(11))


def _bzip2_ends_stream(data: bytes) -> bool:
    """Whether bzip2 data ends with its end-of-stream marker, CRC and padding."""
    if len(data) < 11:
        return False
    tail = int.from_bytes(data[-11:], "big")
    return any((tail >> (pad + 32)) & ((1 << 48) - 1) == _BZ2_EOS for pad in range(8))


def open_at(path: str, seeks: bytes, start: int) -> BinaryIO:
    """A gzip file's decompressed stream from byte `start` of its text, started at the seek
    point before it (its range's, from the plan): no decompression of what comes before."""
    if seeks.startswith(FRAME_SEEK):  # a zstd file's frame (seekzst.py)
        from .seekzst import open_frame

        return open_frame(path, seeks, start)
    import rapidgzip

    src: Any = open_input(path) if remote.is_url(path) else path
    try:
        f: Any = rapidgzip.open(src, parallelization=1)
    except BaseException:
        if src is not path:
            src.close()
        raise
    reading = _Reading(f, None if src is path else src)
    _OPEN.add(reading)
    try:
        f.import_index(io.BytesIO(zlib.decompress(seeks)))
        reading.seek(start)
    except (RuntimeError, ValueError) as exc:  # rapidgzip's words for a file not as planned
        reading.close()
        raise EOFError(f"the compressed file changed since it was planned: {exc}") from exc
    except BaseException:
        reading.close()
        raise
    return reading  # type: ignore[return-value]


# rapidgzip aborts the process (std::terminate) when a reader is still open as Python finalizes:
# any left open (a shard's generator dropped mid-read) are closed at exit, before that.
_OPEN: weakref.WeakSet[_Reading] = weakref.WeakSet()


@atexit.register
def _close_open() -> None:
    for reading in list(_OPEN):
        reading.close()


class _Reading(io.RawIOBase):
    """rapidgzip's reader with its faults told as a damaged input's (EOFError): it raises a
    RuntimeError where the file no longer holds what was planned (changed since, cut)."""

    def __init__(self, f: Any, src: Any = None) -> None:
        super().__init__()
        self._f = f
        self._src = src  # an object's file, which rapidgzip reads through

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        try:
            return int(self._f.readinto(b))
        except RuntimeError as exc:
            raise EOFError(f"the compressed file changed since it was planned: {exc}") from exc

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        try:
            return int(self._f.seek(offset, whence))
        except RuntimeError as exc:
            raise EOFError(f"the compressed file changed since it was planned: {exc}") from exc

    def tell(self) -> int:
        return int(self._f.tell())

    def close(self) -> None:
        if not self.closed:
            self._f.close()
            if self._src is not None:
                self._src.close()
        super().close()
