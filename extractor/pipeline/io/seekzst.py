"""One large zstd file of several frames in many shards: a frame decompresses on its own (RFC
8878 §3.1.1), so a range of the text starts decompressing at the frame it falls in, with no
window to keep. One pass decompresses the file frame by frame to cut its text at line ends (as
seekgz.py cuts a gzip file's) and to know where each frame's text starts; a range's seek point
is then that frame's offset in the file and in the text (20 bytes in its plan).

A file of one frame (what `zstd FILE` writes) cannot be cut; zstd's seekable format, pzstd and
files of concatenated parts have many. A file that does not end where a frame ends (cut short)
or that zstd cannot read is one shard, read up to its fault by the usual reader.
"""

from __future__ import annotations

import bisect
import io
import os
import struct
from typing import Any, BinaryIO

from .compression import ZSTD_MAGIC, ZstdReader, zstd_block, zstd_header, zstd_skippable
from .cuts import BLOCK, FRAME_SEEK, REACH, Cuts, GzipPlan
from .read import open_input
from .streams import Limited

_SEEK = struct.Struct("<4sQQ")  # FRAME_SEEK, the frame's offset in the file, in the text


def frames(f: Any) -> list[tuple[int, int]] | None:
    """(offset, size) of each zstd frame of a file, skippable frames passed over, walked by its
    frame and block headers (RFC 8878 §3.1.1.1-2) with the blocks' contents skipped; None when
    the file is not zstd frames ending where its last frame ends."""
    end = f.seek(0, os.SEEK_END)
    pos, found = 0, []
    while pos < end:
        f.seek(pos)
        magic = f.read(4)
        if zstd_skippable(magic):
            pos += 8 + int.from_bytes(f.read(4), "little")
            continue
        descriptor = f.read(1)
        if magic != ZSTD_MAGIC or not descriptor:
            return None
        header, checksum = zstd_header(descriptor[0])
        at = pos + 5 + header
        while True:
            f.seek(at)
            head = f.read(3)
            block = zstd_block(int.from_bytes(head, "little")) if len(head) == 3 else None
            if block is None:  # the file ends in a block header, or not zstd
                return None
            last, size = block
            at += 3 + size
            if last:
                break
        at += 4 if checksum else 0
        if at > end:
            return None
        found.append((pos, at - pos))
        pos = at
    return found if pos == end else None


def plan_frames(path: str, shard_size: int, head_bytes: int) -> GzipPlan | None:
    """A zstd file's text in ranges at line ends, with the lines before each and the frame each
    starts decompressing at; None for a file of one frame, cut short or not read by zstd."""
    import zstandard

    try:
        with open_input(path) as f:
            found = frames(f)
            if found is None or len(found) < 2:
                return None
            cuts = Cuts(shard_size, head_bytes)
            starts = []  # each frame's offset in the text
            dctx = zstandard.ZstdDecompressor()
            for offset, size in found:
                starts.append(cuts.pos)
                f.seek(offset)
                # the frame's bytes alone: zstandard's reader goes on into the next frame
                frame: Any = Limited(f, size, owns=False)  # readable; the stubs want IO[bytes]
                reader = dctx.stream_reader(frame, read_size=1 << 20, closefd=False)
                while block := reader.read(BLOCK):
                    cuts.feed(block)
    except (OSError, EOFError, zstandard.ZstdError):
        return None
    parts, line0 = cuts.parts()
    seeks = []
    for start, _stop in parts:
        k = bisect.bisect_right(starts, max(0, start - REACH)) - 1
        seeks.append(_SEEK.pack(FRAME_SEEK, found[k][0], starts[k]))
    return GzipPlan(parts, line0, cuts.head, cuts.pos, seeks)


def open_frame(path: str, seek: bytes, start: int) -> BinaryIO:
    """A zstd file's text from byte `start`, decompressed from the start of the frame it falls
    in (its range's seek point), the bytes before `start` in that frame read and dropped."""
    _magic, offset, text = _SEEK.unpack(seek)
    raw = open_input(path)
    try:
        raw.seek(offset)
        reading = _FromFrame(io.BufferedReader(ZstdReader(raw), buffer_size=1 << 16), text)
        reading.seek(start)
    except BaseException:
        raw.close()
        raise
    return reading  # type: ignore[return-value]


class _FromFrame(io.RawIOBase):
    """A decompressed stream that starts at text offset `at`: tell and seek (forward only, by
    reading) in the text's offsets, as a shard reading from its range's base asks."""

    def __init__(self, stream: Any, at: int) -> None:
        super().__init__()
        self._stream = stream
        self._at = at

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n = self._stream.readinto(b)
        self._at += n
        return n

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        if whence != os.SEEK_SET or offset < self._at:
            raise io.UnsupportedOperation("a zstd range reads forward from its frame")
        while self._at < offset:
            got = self._stream.read(min(BLOCK, offset - self._at))
            if not got:
                raise EOFError("the zstd file ends before the range planned (changed since?)")
            self._at += len(got)
        return self._at

    def tell(self) -> int:
        return self._at

    def close(self) -> None:
        if not self.closed:
            self._stream.close()
        super().close()
