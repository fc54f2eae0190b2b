"""A tar stream read by its headers, one parser for planning a tar's ranges and for reading its
members (POSIX ustar, pax extended headers, GNU long names and base-256 sizes; V7): tarfile's
reading of a member's header costs most of a small member's time in Python. A header whose
checksum is wrong raises ReadError; the stream ending inside a header or a member, EOFError."""

from collections.abc import Iterator
from typing import Any, NamedTuple

from ..io.streams import Limited


class ReadError(Exception):
    """A tar stream's header that is no header (a bad checksum, a malformed pax record): named
    as tarfile names it."""


def is_tar(head: bytes) -> bool:
    """Whether decompressed bytes start a POSIX or GNU tar: the `ustar` magic of its first
    header, and the header's checksum (POSIX.1 ustar: the octal sum of its 512 bytes with the
    checksum field read as spaces, unsigned or, in old tars, signed). A text that has `ustar` at
    byte 257 is no archive."""
    if len(head) < 512 or head[257:262] != b"ustar":
        return False
    digits = head[148:156].split(b"\x00", 1)[0].strip()
    if not digits or digits.strip(b"01234567"):
        return False
    block = head[:148] + b" " * 8 + head[156:512]
    return int(digits, 8) in (sum(block), sum(b - 256 if b > 127 else b for b in block))


class TarEntry(NamedTuple):
    """A member of a tar stream: its path, size, mtime, the offset of its first header in the
    stream, whether it is a regular file, and its bytes (read them before the next entry)."""

    name: str
    size: int
    mtime: float
    offset: int
    regular: bool
    body: Any


_REGULAR = (b"0", b"\x00", b"7")


def _number(field: bytes) -> int:
    """A header's numeric field: octal digits, or GNU's base-256 (the high bit set)."""
    if field[:1] and field[0] & 0x80:
        return int.from_bytes(field[1:], "big")
    digits = field.split(b"\x00", 1)[0].strip()
    return int(digits, 8) if digits else 0


def _text(field: bytes) -> str:
    return field.split(b"\x00", 1)[0].decode("utf-8", "surrogateescape")


def _pax(data: bytes) -> dict[str, str]:
    """A pax extended header's records, `LEN KEY=VALUE\\n` each (POSIX.1-2001)."""
    out: dict[str, str] = {}
    pos = 0
    while pos < len(data):
        sp = data.find(b" ", pos)
        if sp < 0:
            break
        try:
            n = int(data[pos:sp])
        except ValueError:
            raise ReadError("a malformed pax header") from None
        if n <= 0:
            raise ReadError("a malformed pax header")
        key, _, value = data[sp + 1 : pos + n - 1].partition(b"=")
        out[key.decode("utf-8", "replace")] = value.decode("utf-8", "surrogateescape")
        pos += n
    return out


def tar_entries(stream: Any, seek: bool = False) -> Iterator[TarEntry]:
    """The entries of a tar stream read once, in order, by their headers. With `seek` (a file,
    to plan it), a member's bytes are passed over by seeking, never read; its body is then not
    to be read. A header whose checksum is wrong raises ReadError, the stream ending inside one
    EOFError."""
    pos = 0
    pax: dict[str, str] = {}
    long_name: str | None = None
    first = -1  # where the extended headers of the next member began
    while True:
        head = stream.read(512)
        if not head or head == bytes(512):
            return  # the end blocks (or a stream that ends at a member boundary)
        if len(head) < 512:
            raise EOFError("the archive ends inside a header")
        stored = _number(head[148:156])
        computed = sum(head[:148]) + 256 + sum(head[156:])
        if stored != computed:
            raise ReadError(f"a header with a bad checksum at byte {pos}")
        offset = pos if first < 0 else first
        pos += 512
        kind = head[156:157]
        size = _number(head[124:136])
        padded = (size + 511) & ~511
        if kind in (b"x", b"g", b"L", b"K"):  # headers of the next member, or of all
            data = _exactly(stream, padded)[:size]
            pos += padded
            if kind == b"x":
                pax = _pax(data)
            elif kind == b"L":
                long_name = _text(data)
            if kind != b"g":
                first = offset
            continue
        name = _text(head[0:100])
        if head[257:263] == b"ustar\x00" and head[345:346] != b"\x00":  # POSIX: prefix/name
            name = _text(head[345:500]) + "/" + name
        name = pax.get("path", long_name if long_name is not None else name)
        if "size" in pax:
            size = int(pax["size"])
            padded = (size + 511) & ~511
        mtime = float(pax.get("mtime", _number(head[136:148])))
        regular = kind in _REGULAR and not name.endswith("/")
        body = Limited(
            stream, size if regular else 0, owns=False, ends_early="the archive ends inside a member"
        )
        if seek:
            yield TarEntry(name, size, mtime, offset, regular, body)
            stream.seek(padded, 1)
            pos += padded
            pax, long_name, first = {}, None, -1
            continue
        if not regular:
            _exactly(stream, padded)
        else:
            yield TarEntry(name, size, mtime, offset, True, body)
            body.drain()
            _exactly(stream, padded - size)
        pos += padded
        pax, long_name, first = {}, None, -1
        if not regular:
            yield TarEntry(name, size, mtime, offset, False, body)


def _exactly(stream: Any, n: int) -> bytes:
    """The next `n` bytes of a stream (read past in blocks when large); EOFError when it ends."""
    if n > 1 << 20:
        while n > 0:
            got = stream.read(min(n, 1 << 20))
            if not got:
                raise EOFError("the archive ends inside a member")
            n -= len(got)
        return b""
    data = stream.read(n)
    if len(data) < n:
        raise EOFError("the archive ends inside a member")
    return data


def tar_offsets(f: Any) -> list[tuple[int, int]]:
    """(header offset, bytes) of each entry of a plain tar file, read by tar_entries with its
    members' bytes passed over by seeking (the planner's: a tar of many GB is not read to plan
    it). ReadError or EOFError where the tar is damaged."""
    return [(e.offset, e.size) for e in tar_entries(f, seek=True)]
