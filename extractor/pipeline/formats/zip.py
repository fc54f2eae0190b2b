"""A zip read by its local headers (APPNOTE 4.3.7), for one whose central directory is cut off or
corrupt: a member's data from its local header on, and its sizes from a zip64 extra field."""

from __future__ import annotations

import io
import struct
import zlib
from typing import Any

ZIP_NAMES = (".zip",)
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


def is_zip(head: bytes) -> bool:
    """Whether bytes start a zip (a local file header, or an empty zip's end record)."""
    return head.startswith(_ZIP_MAGIC)


class ZipBody(io.RawIOBase):
    """A member's data read from its local header on: stored (`size` bytes), deflated or bzip2
    (to the end of its stream)."""

    def __init__(self, f: Any, method: int, size: int) -> None:
        import bz2

        super().__init__()
        self._f = f
        self._left = size
        self._d: Any = (
            None if method == 0 else zlib.decompressobj(-15) if method == 8 else bz2.BZ2Decompressor()
        )
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def read(self, n: int = -1) -> bytes:
        n = 1 << 16 if n is None or n < 0 else n
        if self._d is None:
            data = self._f.read(min(n, self._left)) if self._left > 0 else b""
            if self._left > 0 and not data:
                raise EOFError("the archive ends inside a stored member")
            self._left -= len(data)
            return data
        while True:
            if self._pending:
                out, self._pending = self._pending[:n], self._pending[n:]
                return out
            if self._d.eof:
                return b""
            chunk = self._f.read(1 << 16)
            if not chunk:
                raise EOFError("the archive ends inside a compressed member")
            out = self._d.decompress(chunk)
            tail = self._d.unused_data
            if tail:  # what follows the member's stream: give it back to the file
                self._f.seek(-len(tail), 1)
            self._pending = out

    def read_all(self) -> None:
        while self.read(1 << 16):
            pass


def zip64_sizes(extra: bytes, csize: int, usize: int) -> tuple[int, int]:
    """A local header's sizes, from its zip64 extra field when they are 0xFFFFFFFF."""
    pos = 0
    while pos + 4 <= len(extra):
        tag, n = struct.unpack_from("<HH", extra, pos)
        if tag == 1:
            vals = list(struct.unpack_from(f"<{min(n // 8, 2)}Q", extra, pos + 4))
            if usize == 0xFFFFFFFF and vals:
                usize = vals.pop(0)
            if csize == 0xFFFFFFFF and vals:
                csize = vals.pop(0)
        pos += 4 + n
    return csize, usize
