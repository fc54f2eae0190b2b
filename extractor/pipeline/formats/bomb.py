"""The bomb guard of an archive's members: what a member gives, watched against the archive bytes
read meanwhile, so that a member inflating past BOMB_RATIO times what it took (once past
BOMB_MIN), or past MAX_MEMBER at all, is named and passed over instead of read."""

from __future__ import annotations

import io
from typing import Any, BinaryIO

# A bomb: a member inflated past BOMB_RATIO × the archive bytes read for it, once past BOMB_MIN
# (text compresses 3–10×, a log 50×; deflate's ceiling is ~1,030×), or past MAX_MEMBER at all.
BOMB_RATIO = 100
BOMB_MIN = 64 << 20
MAX_MEMBER = 1 << 36


class Bomb(Exception):
    """A member inflating past the limits."""


class Counted(io.RawIOBase):
    """A seekable file counting the bytes read from it (the archive as stored: progress, and
    what a member cost, for the bomb check)."""

    def __init__(self, f: BinaryIO) -> None:
        super().__init__()
        self.f = f
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n = self.f.readinto(b)  # type: ignore[attr-defined]
        self.read_bytes += n or 0
        return n or 0

    def seek(self, pos: int, whence: int = 0) -> int:
        return self.f.seek(pos, whence)

    def tell(self) -> int:
        return self.f.tell()


class Guard:
    """Watches the bytes a member gives against the archive bytes read meanwhile (BOMB_RATIO)."""

    def __init__(self, raw: Counted) -> None:
        self.raw = raw
        self.since = raw.read_bytes
        self.out = 0

    def feed(self, n: int) -> None:
        self.out += n
        if self.out > MAX_MEMBER:
            raise Bomb(f"inflates past {MAX_MEMBER >> 30} GiB")
        if self.out > BOMB_MIN:
            took = max(1, self.raw.read_bytes - self.since)
            if self.out > BOMB_RATIO * took:
                raise Bomb(
                    f"a bomb: {self.out >> 20} MiB inflated from {took >> 10} KiB (over {BOMB_RATIO}×)"
                )


def read_guarded(f: Any, n: int, guard: Guard) -> bytes:
    """Up to `n` bytes of a member, fed to its guard."""
    out = bytearray()
    while len(out) < n:
        data = f.read(min(n - len(out), 1 << 20))
        if not data:
            break
        out += data
        guard.feed(len(data))
    return bytes(out)
