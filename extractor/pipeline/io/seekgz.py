"""One large gzip or bzip2 file in many shards: its decompressed text cut into byte ranges at
line ends in one pass of rapidgzip (which reads both), decompressing on several threads and
keeping seek points (its index, a file beside the run's work) from which each shard starts
decompressing its own range.

Without rapidgzip (the `fast` extra), for an input in object storage, or for a file it cannot
read to its end (cut short, corrupt), the file is one shard, as any compressed file is.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import io
import os
import weakref
from typing import Any, BinaryIO, NamedTuple

# The blocks the planning pass reads (its memory: one of them).
BLOCK = 4 << 20
# The CPUs from which a file of each compression is cut by default. The pass decodes the whole
# file once more (rapidgzip) and a shard decodes its range in the thread that scans it. gzip: on
# 2 cores a 1 GB .jsonl.gz took 16.4 s in ranges with two workers against 11.2 s as one shard,
# whose gzip is decompressed ahead on the other core; with more cores the pass divides among
# them and the ranges among the workers. bzip2 decompresses ~5x slower than gzip, so the ranges
# pay on 2 cores already: 214 MB of JSONL as .bz2 took 8.98-9.38 s in ranges with two workers
# against 10.8-11.8 s as one shard (benchmarks/RESULTS.md).
# The compressions planned here are its keys (read.py's names): rapidgzip reads and indexes both.
SPLIT_CPUS = {"gzip": 4, "bzip2": 2}


class GzipPlan(NamedTuple):
    """A gzip file's text planned in ranges: [start, stop) of its decompressed bytes (the last
    to the end: -1), the lines before each range, the text's first bytes, its size, and the
    seek points' file."""

    parts: list[tuple[int, int]]
    line0: list[int]
    head: bytes
    size: int
    seek_points: str


def available() -> bool:
    """Whether rapidgzip is installed (the `fast` extra)."""
    try:
        return importlib.util.find_spec("rapidgzip") is not None
    except (ImportError, ValueError):
        return False


def index_path(out: str, path: str) -> str:
    """Where the seek points of a gzip input are kept during a run: under its work folder,
    named by the input as it is now (removed with the work, unless it is kept)."""
    st = os.stat(path)
    ident = f"{os.path.realpath(path)}|{st.st_size}|{st.st_mtime_ns}".encode("utf-8", "surrogateescape")
    name = hashlib.blake2b(ident, digest_size=8).hexdigest()
    return os.path.join(out, "_work", "seek", f"{name}.gzidx")


def plan_ranges(
    path: str, shard_size: int, index: str, threads: int, head_bytes: int, compression: str = "gzip"
) -> GzipPlan | None:
    """A gzip file's text in ranges of about `shard_size` bytes, each cut just after a newline as
    line_ranges cuts an uncompressed file, with the lines before each, in one pass; its seek
    points written to `index`. None when rapidgzip cannot read the file to its end."""
    import rapidgzip

    cuts, line0 = [0], [0]
    pos = lines = 0
    head = b""
    want = shard_size  # the next cut: after the first newline at or after this offset
    try:
        with rapidgzip.open(path, parallelization=max(1, threads)) as f:
            while True:
                block = f.read(BLOCK)
                if not block:
                    break
                if not head:
                    head = block[:head_bytes]
                while want < pos + len(block):
                    at = block.find(b"\n", max(0, want - pos))
                    if at < 0:
                        break  # the cut falls in a later block
                    cuts.append(pos + at + 1)
                    line0.append(lines + block.count(b"\n", 0, at + 1))
                    want = cuts[-1] + shard_size
                lines += block.count(b"\n")
                pos += len(block)
            os.makedirs(os.path.dirname(index), exist_ok=True)
            f.export_index(index)
    except Exception:  # rapidgzip's own errors for a cut or corrupt stream: one shard, as before
        return None
    if not (_whole(path, pos) if compression == "gzip" else _bzip2_ends(path)):
        return None
    if len(cuts) > 1 and cuts[-1] >= pos:
        cuts.pop()
        line0.pop()
    parts = [(a, b) for a, b in zip(cuts, [*cuts[1:], -1], strict=True)]
    return GzipPlan(parts, line0, head, pos, index)


def _whole(path: str, size: int) -> bool:
    """Whether the pass read the whole text: rapidgzip gives what it could decode of a stream cut
    short, without a word; a gzip member's last four bytes are its text's size (mod 2**32,
    RFC 1952 §2.3.1), which a cut or damaged file does not end with. A file of several members
    (bgzip, concatenated) is told by its last member alone, so it is read as one shard too."""
    with open(path, "rb") as f:
        f.seek(-4, os.SEEK_END)
        return int.from_bytes(f.read(4), "little") == size % (1 << 32)


# bzip2's end-of-stream marker, a 48-bit magic (sqrt(pi)) before the stream's 32-bit CRC and
# 0-7 bits of padding to a byte: the last stream of a whole file ends so.
_BZ2_EOS = 0x177245385090


def _bzip2_ends(path: str) -> bool:
    """Whether a bzip2 file ends with its end-of-stream marker: rapidgzip raises for a stream cut
    inside a block, and a cut between blocks leaves no marker (the file is then one shard, read
    up to its cut by the usual reader, which names it)."""
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - 11))
        return _bzip2_ends_stream(f.read(11))


def _bzip2_ends_stream(data: bytes) -> bool:
    """Whether bzip2 data ends with its end-of-stream marker, CRC and padding."""
    if len(data) < 11:
        return False
    tail = int.from_bytes(data[-11:], "big")
    return any((tail >> (pad + 32)) & ((1 << 48) - 1) == _BZ2_EOS for pad in range(8))


def open_at(path: str, index: str, start: int) -> BinaryIO:
    """A gzip file's decompressed stream from byte `start` of its text, started at the seek
    point before it (the planner's index): no decompression of what comes before."""
    import rapidgzip

    f: Any = rapidgzip.open(path, parallelization=1)
    try:
        f.import_index(index)
        f.seek(start)
    except BaseException:
        f.close()
        raise
    reading = _Reading(f)
    _OPEN.add(reading)
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

    def __init__(self, f: Any) -> None:
        super().__init__()
        self._f = f

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
        super().close()
