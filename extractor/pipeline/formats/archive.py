"""Archives as corpora are downloaded — tar (plain, gzip, bzip2, xz, zstd) and zip (stored,
deflate, bzip2, lzma; zip64) — read in place: each member a document, nothing extracted to disk.

A member's record is its path in the archive; a member of a nested archive (arXiv's bulk
sources: a tar of per-paper `.gz`, each a gzipped tar or one gzipped `.tex`) is named by the
paths of its containers and its own joined by `!/` (`2401/2401.00001.gz!/main.tex`), each path
with `%` and `!` written `%25` and `%21`, so a record name splits back into paths one way only.
A member's kind and source syntax are told by its own name and content as a file's are (spec
§7: a `.bib` member is BibTeX); a PDF is read through the `pdf` extra; images, binaries and
members nested deeper than MAX_DEPTH are skipped and named.

Memory stays bounded whatever a member's size: a member over ScanConfig.max_record_bytes is
streamed through the windows. A member that inflates past BOMB_RATIO times the archive bytes
it took, once over BOMB_MIN (or past MAX_MEMBER), is a bomb: named and skipped, the rest of the
archive read. A cut or corrupt archive keeps the members before the fault and names the fault
(a zip whose central directory is lost is read by its local headers).

A zip's members are shared among shards by their offsets (its central directory gives them), a
plain tar's likewise by its headers; a compressed tar is one shard, as a `.gz` is.
"""

from __future__ import annotations

import functools
import io
import struct
import zlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple

from ..errors import InputError
from ..io.decode import HEAD_BYTES, is_binary
from ..io.read import MAGIC_BYTES, ReadTap, decompressed, detect_compression, display_name, open_input
from ..provenance import Meta, from_headers
from ..units import Progress, ScanConfig, ShardResult, ShardSpec
from .base import FileText, Format, PlanInput, Planned, Record, SkippedRecords

# Containers within containers (a gzip, a tar, a zip: one level each) read at most this deep.
MAX_DEPTH = 4
# A bomb: a member inflated past BOMB_RATIO × the archive bytes read for it, once past BOMB_MIN
# (text compresses 3–10×, a log 50×; deflate's ceiling is ~1,030×), or past MAX_MEMBER at all.
BOMB_RATIO = 100
BOMB_MIN = 64 << 20
MAX_MEMBER = 1 << 36
# A zip inside a stream is held in memory to be read (its directory is at its end), and so is a
# PDF: at most this much, within the 250 MB a process may use.
MAX_HELD = 128 << 20

if TYPE_CHECKING:
    import tarfile


@functools.cache
def read_errors() -> tuple[type[BaseException], ...]:
    """What reading a cut or corrupt archive raises (a bz2 or zstd stream: OSError, EOFError);
    the archive modules loaded with the first archive read."""
    import lzma
    import tarfile
    import zipfile

    return (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, zlib.error, lzma.LZMAError)


TAR_NAMES = (".tar", ".tgz", ".tbz", ".tbz2", ".txz", ".tzst")
ZIP_NAMES = (".zip",)
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
# Members passed over by name, unread: images, media, fonts, compiled code.
_NOT_TEXT = (
    ".png", ".jpg", ".jpeg", ".gif", ".tif", ".tiff", ".bmp", ".webp", ".ico", ".heic",
    ".mp3", ".mp4", ".m4a", ".avi", ".mov", ".mkv", ".wav", ".ogg", ".flac", ".webm",
    ".woff", ".woff2", ".ttf", ".otf", ".eot", ".class", ".jar", ".so", ".dll", ".exe",
    ".o", ".a", ".pyc", ".dylib", ".wasm",
)  # fmt: skip
_COMPRESSED_SUFFIX = (".gz", ".bz2", ".xz", ".zst", ".zstd", ".z")


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


def is_zip(head: bytes) -> bool:
    """Whether bytes start a zip (a local file header, or an empty zip's end record)."""
    return head.startswith(_ZIP_MAGIC)


def tell(name: str, head: bytes, text_field: str, id_field: str) -> bool:
    """By its first (decompressed) bytes, or by name."""
    return is_tar(head) or is_zip(head) or name.endswith(TAR_NAMES + ZIP_NAMES)


def quote(path: str) -> str:
    """A member path as a piece of a record name: `%` and `!` escaped, so `!/` only joins."""
    return display_name(path).replace("%", "%25").replace("!", "%21")


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


class _Joined(io.RawIOBase):
    """Bytes already read, then the rest of the stream they came from."""

    def __init__(self, first: bytes, rest: Any) -> None:
        super().__init__()
        self._first = memoryview(first)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if self._first:
            n = min(len(b), len(self._first))
            b[:n] = self._first[:n]
            self._first = self._first[n:]
            return n
        data = self._rest.read(len(b))
        b[: len(data)] = data
        return len(data)


class Reader:
    """The documents of one archive file (or of the shard of it a spec names)."""

    def __init__(
        self, config: ScanConfig, result: ShardResult, progress: Progress, skipped: SkippedRecords
    ) -> None:
        self.config = config
        self.result = result
        self.progress = progress
        self.skipped = skipped
        self.members = 0
        self.raw: Counted | None = None
        self._shown = 0

    def skip(self, rid: str, reason: str, member: bool = True) -> None:
        """Name what was not read: a member (tallied), or a fault of the archive."""
        self.skipped.add("member", self.members, f"{rid}: {reason}")
        if member:
            self.result.tally("archive members skipped")

    def read(self, record: Record) -> Record:
        """A member's document, tallied as read."""
        if record.kind != "pdf-link":
            self.result.tally("archive members read")
        return record

    def moved(self) -> None:
        """Progress in bytes of the archive as stored."""
        if self.raw is not None and self.raw.read_bytes > self._shown:
            self.progress(self.raw.read_bytes - self._shown, 0)
            self._shown = self.raw.read_bytes

    # -- containers -------------------------------------------------------------------------

    def cut_short(self, where: str, exc: BaseException, why: str = "") -> None:
        """The archive (or an archive in it) ends early: the members before are kept and the
        input named as partial, at `where` (the member the reading stopped in); a corrupt one (a
        checksum or data error) is rejected whole (InputError)."""
        if not is_cut(exc):
            raise InputError(f"corrupt archive at {where}: {why + '; ' if why else ''}{_why(exc)}") from exc
        self.result.cut_short(self.skipped.source, where, f"{why + '; ' if why else ''}{_why(exc)}")

    def next_member(self, prefix: str) -> str:
        """The place of the member the reading would have come to next."""
        return f"member {self.members + 1}" + (f" (in {prefix.removesuffix('!/')})" if prefix else "")

    def tar(self, stream: Any, prefix: str, depth: int, stop: int = -1) -> Iterator[Record]:
        """The members of a tar stream read in order (stop: no member whose header starts at or
        past this offset of the stream)."""
        entries = tar_entries(stream)
        while True:
            try:
                entry = next(entries, None)
            except read_errors() as exc:
                if self.members == 0 and not prefix and not is_cut(exc):
                    self.skip("…", f"not a readable tar ({_why(exc)})", member=False)
                else:
                    self.cut_short(self.next_member(prefix), exc)
                return
            if entry is None or (stop >= 0 and entry.offset >= stop):
                return
            if not entry.regular:
                continue  # folders, links, devices: not documents
            rid = prefix + quote(entry.name)
            self.members += 1
            meta = self.meta(entry.size, entry.mtime)
            try:
                yield from self.member(entry.body, entry.name, rid, entry.size, depth, meta)
            except read_errors() as exc:
                self.cut_short(f"member {self.members} ({rid})", exc)
                return
            self.moved()

    def zip(self, f: Any, prefix: str, depth: int, start: int = 0, stop: int = -1) -> Iterator[Record]:
        """The members of a zip by its central directory (those whose local header starts in
        [start, stop)), or by its local headers when the directory is lost."""
        import zipfile

        try:
            zf = zipfile.ZipFile(f)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
            f.seek(0)
            yield from self.zip_by_headers(f, prefix, depth, f"no readable central directory ({_why(exc)})")
            return
        with zf:
            for info in sorted(zf.infolist(), key=lambda i: i.header_offset):
                if info.header_offset < start or (stop >= 0 and info.header_offset >= stop):
                    continue
                if info.is_dir():
                    continue
                self.members += 1
                rid = prefix + quote(info.filename)
                if info.flag_bits & 1:
                    self.skip(rid, "an encrypted member")
                    continue
                if info.file_size > BOMB_MIN and info.file_size > BOMB_RATIO * max(1, info.compress_size):
                    self.skip(
                        rid,
                        f"a bomb: {info.file_size >> 20} MiB from {info.compress_size >> 10} KiB (over {BOMB_RATIO}×)",
                    )
                    continue
                if info.filename.lower().endswith(_NOT_TEXT):
                    self.skip(rid, "not text (by its name)")
                    continue
                meta = self.meta(info.file_size, info.date_time)
                try:
                    with zf.open(info) as mf:
                        yield from self.member(mf, info.filename, rid, info.file_size, depth, meta)
                except NotImplementedError as exc:  # a compression method zipfile does not read
                    self.skip(rid, f"not read ({_why(exc)})")
                except read_errors() as exc:
                    # a member whose data fail their CRC or end early, though the directory is whole
                    raise InputError(
                        f"corrupt archive at member {self.members} ({rid}): {_why(exc)}"
                    ) from exc
                self.moved()

    def zip_by_headers(self, f: Any, prefix: str, depth: int, why: str) -> Iterator[Record]:
        """A zip read member by member from its local headers (APPNOTE 4.3.7), for one whose
        central directory is cut off or corrupt: stored members of known size and deflated or
        bzip2 members (their streams know their end) are read, up to the first fault."""
        while True:
            sig = f.read(4)
            if sig != b"PK\x03\x04":
                if self.members == 0 and not prefix:
                    self.skip("…", f"{why}; no member's local header at its start", member=False)
                elif sig[:2] != b"PK" or not sig:
                    self.cut_short(self.next_member(prefix), EOFError("no local header follows"), why)
                return
            fixed = f.read(26)
            if len(fixed) < 26:
                self.cut_short(
                    self.next_member(prefix), EOFError("the archive ends inside a member's header"), why
                )
                return
            _v, flags, method, _t, _d, _crc, csize, usize, nlen, xlen = struct.unpack("<HHHHHIIIHH", fixed)
            raw_name = f.read(nlen)
            extra = f.read(xlen)
            name = raw_name.decode("utf-8" if flags & 0x800 else "cp437", "replace")
            csize, usize = _zip64_sizes(extra, csize, usize)
            rid = prefix + quote(name)
            self.members += 1
            if flags & 1 or (method == 0 and flags & 8) or method not in (0, 8, 12):
                reason = "an encrypted member" if flags & 1 else f"compression method {method}"
                self.skip(rid, f"{why}; not read past this member ({reason})")
                self.cut_short(
                    f"member {self.members} ({rid})",
                    EOFError(f"no member after it can be found ({reason})"),
                    why,
                )
                return
            body = _ZipBody(f, method, csize if not flags & 8 else -1)
            if name.endswith("/"):
                body.read_all()
            else:
                try:
                    yield from self.member(body, name, rid, usize if not flags & 8 else -1, depth, ())
                except read_errors() as exc:
                    self.cut_short(f"member {self.members} ({rid})", exc, why)
                    return
            try:
                body.read_all()
            except read_errors() as exc:
                self.cut_short(f"member {self.members} ({rid})", exc, why)
                return
            if flags & 8:  # the data descriptor: optional signature, CRC, sizes (64-bit in zip64)
                desc = f.read(4)
                f.read(12 if desc == b"PK\x07\x08" else 8)
            self.moved()

    # -- one member -------------------------------------------------------------------------

    def meta(self, size: int, mtime: Any) -> Meta:
        """A member's provenance fields: `size` and `mtime` (ISO 8601)."""
        if not self.config.record_fields:
            return ()
        import datetime as dt

        if isinstance(mtime, tuple):
            stamp = dt.datetime(*mtime).isoformat()
        else:
            stamp = dt.datetime.fromtimestamp(mtime, dt.UTC).isoformat()
        return from_headers({"size": str(size), "mtime": stamp}, fields=self.config.record_fields)

    def member(self, f: Any, name: str, rid: str, size: int, depth: int, meta: Meta) -> Iterator[Record]:
        """The documents of one member: a text, a PDF, or a container read in turn."""
        if name.lower().endswith(_NOT_TEXT):
            self.skip(rid, "not text (by its name)")
            return
        assert self.raw is not None
        guard = Guard(self.raw)
        limit = self.config.max_record_bytes
        first = _read(f, limit + 1, guard)
        whole = len(first) <= limit
        comp = detect_compression(first[:MAGIC_BYTES])
        if comp is not None or is_tar(first) or is_zip(first):
            if depth >= MAX_DEPTH:
                self.skip(rid, f"an archive or compressed file nested over {MAX_DEPTH} deep")
                return
            yield from self.container(first, f, comp, name, rid, depth, guard)
            return
        if first.startswith(b"%PDF-"):
            yield from self.pdf(first, f, rid, name, meta, guard)
            return
        why = is_binary(first[:HEAD_BYTES])
        if why:
            self.skip(rid, "not text: " + why.split(" (")[0])
            return
        # A member is a file: read as the same bytes on disk are (FileText), in the same units.
        state: dict[str, BaseException] = {}
        stream = io.BufferedReader(_Joined(first, _Guarded(None if whole else f, guard, state)), 1 << 16)
        yield self.read(Record(rid, FileText(stream), None, meta, name))
        while stream.read(1 << 20):  # read to its end whatever the consumer did
            pass
        if "bomb" in state:
            self.skip(rid, f"{state['bomb']}; read no further", member=False)
        if "cut" in state:  # the container names it (cut short or corrupt), and reads no further
            raise state["cut"]

    def container(
        self, first: bytes, f: Any, comp: str | None, name: str, rid: str, depth: int, guard: Guard
    ) -> Iterator[Record]:
        """A compressed member (read as what it holds, named without its suffix), or an
        archive in an archive (its members named under it)."""
        stream: Any = io.BufferedReader(
            ReadTap(_Joined(first, f), lambda data: guard.feed(len(data))), buffer_size=1 << 16
        )
        if comp is not None:
            inner = decompressed(stream, comp)
            bare = name
            for suffix in _COMPRESSED_SUFFIX:
                if bare.lower().endswith(suffix):
                    bare = bare[: -len(suffix)]
                    break
            try:
                yield from self.member(inner, bare, rid, -1, depth + 1, ())
            except read_errors() as exc:
                self.skip(rid, f"its compressed stream is cut short or corrupt ({_why(exc)})")
            except Bomb as exc:
                self.skip(rid, str(exc))
            return
        try:
            if is_tar(first):
                yield from self.tar(stream, rid + "!/", depth + 1)
            else:
                data = stream.read(MAX_HELD + 1)
                if len(data) > MAX_HELD:
                    self.skip(rid, f"a zip inside an archive over {MAX_HELD >> 20} MiB")
                    return
                yield from self.zip(io.BytesIO(data), rid + "!/", depth + 1)
        except Bomb as exc:
            self.skip(rid, str(exc))

    def pdf(self, first: bytes, f: Any, rid: str, name: str, meta: Meta, guard: Guard) -> Iterator[Record]:
        """A PDF member, its text extracted (the `pdf` extra) and its links after it."""
        from .pdf import pdf_text

        data = first + _read(f, MAX_HELD + 1 - len(first), guard)
        if len(data) > MAX_HELD:
            self.skip(rid, f"a PDF over {MAX_HELD >> 20} MiB")
            return
        self.result.bytes_read += len(data)
        try:
            got = pdf_text(data)
        except InputError as exc:  # encrypted, broken, images only, or no pdf extra: this member
            self.skip(rid, f"a PDF: {exc}")
            return
        if got.stop is not None:
            self.skip(rid, f"a PDF, in part: {got.stop}", member=False)
        yield self.read(Record(rid, got.text, "pdf", meta, name))
        if got.links:
            yield Record(rid, "\n".join(got.links), "pdf-link", meta, name)


class _Guarded:
    """A member's stream past its first bytes, fed to its bomb guard (None: it had no more). A
    bomb or a cut ends it quietly, said in `state`: raised in the consumer's window loop, it
    would end the whole input."""

    def __init__(self, f: Any, guard: Guard, state: dict[str, BaseException]) -> None:
        self._f = f
        self._guard = guard
        self._state = state

    def read(self, n: int) -> bytes:
        data = None if self._f is None else _read_block(self._f, self._guard, self._state, min(n, 1 << 20))
        if not data:
            self._f = None
            return b""
        return data


class _ZipBody(io.RawIOBase):
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
    import tarfile

    out: dict[str, str] = {}
    pos = 0
    while pos < len(data):
        sp = data.find(b" ", pos)
        if sp < 0:
            break
        try:
            n = int(data[pos:sp])
        except ValueError:
            raise tarfile.ReadError("a malformed pax header") from None
        if n <= 0:
            raise tarfile.ReadError("a malformed pax header")
        key, _, value = data[sp + 1 : pos + n - 1].partition(b"=")
        out[key.decode("utf-8", "replace")] = value.decode("utf-8", "surrogateescape")
        pos += n
    return out


def tar_entries(stream: Any) -> Iterator[TarEntry]:
    """The entries of a tar stream read once, in order, by their headers (POSIX ustar, pax
    extended headers, GNU long names and base-256 sizes; V7): tarfile's reading costs ~100 µs a
    member in Python, most of a small member's time. A header whose checksum is wrong, or the
    stream ending inside one, raises tarfile.ReadError or EOFError."""
    import tarfile

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
            raise tarfile.ReadError(f"a header with a bad checksum at byte {pos}")
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
        body = _Bounded(stream, size if regular else 0)
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


class _Bounded(io.RawIOBase):
    """The next `left` bytes of a stream (a tar member's): EOFError if it ends first."""

    def __init__(self, stream: Any, left: int) -> None:
        super().__init__()
        self._s = stream
        self.left = left

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if self.left <= 0:
            return 0
        n = min(len(b), self.left)
        data = self._s.read(n)
        if not data:
            raise EOFError("the archive ends inside a member")
        b[: len(data)] = data
        self.left -= len(data)
        return len(data)

    def drain(self) -> None:
        """Read past what is left of it."""
        _exactly(self._s, self.left)
        self.left = 0


def _forget(tf: tarfile.TarFile) -> None:
    """Drop the members a TarFile keeps of those read (it keeps every one: millions, in a large
    archive read once in order)."""
    tf.members = []  # type: ignore[attr-defined]  # set in TarFile.__init__, not in the stubs


def _zip64_sizes(extra: bytes, csize: int, usize: int) -> tuple[int, int]:
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


def _read(f: Any, n: int, guard: Guard) -> bytes:
    """Up to `n` bytes of a member, fed to its guard."""
    out = bytearray()
    while len(out) < n:
        data = f.read(min(n - len(out), 1 << 20))
        if not data:
            break
        out += data
        guard.feed(len(data))
    return bytes(out)


def _read_block(f: Any, guard: Guard, state: dict[str, BaseException], size: int = 1 << 20) -> bytes | None:
    """A large member's next block (b"" at its end), fed to its bomb guard; None when a bomb or a
    cut ends it, said in `state` (raised in the consumer's loop it would end the whole input)."""
    try:
        data: bytes = f.read(size)
        guard.feed(len(data))
    except Bomb as exc:
        state["bomb"] = exc
        return None
    except read_errors() as exc:
        state["cut"] = exc
        return None
    return data


def is_cut(exc: BaseException) -> bool:
    """Whether a read error says the data end early (a partial download), not that they are
    corrupt: every decompressor and the tar and zip walks raise EOFError for that."""
    return isinstance(exc, EOFError) or "unexpected end of data" in str(exc)


def _why(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def plan(inp: PlanInput) -> Planned:
    """A zip in parts of about --shard-size bytes of members, cut at local headers (its central
    directory gives their offsets); a plain tar likewise by its headers; a compressed tar is one
    shard (a stream decompresses from its start only)."""
    import tarfile
    import zipfile

    if inp.told.compression is not None:
        return Planned()
    inp.f.seek(0)
    offsets: list[tuple[int, int]] = []  # (header offset, stored bytes)
    if is_zip(inp.head):
        try:
            with zipfile.ZipFile(inp.f) as zf:
                offsets = sorted((i.header_offset, i.compress_size) for i in zf.infolist())
        except (zipfile.BadZipFile, OSError, EOFError, ValueError):
            return Planned()  # read by its local headers, in one shard
    else:
        try:
            with tarfile.open(fileobj=inp.f, mode="r:") as tf:
                while (ti := tf.next()) is not None:
                    offsets.append((ti.offset, ti.size))
                    _forget(tf)
        except (tarfile.TarError, OSError, EOFError):
            return Planned()  # a cut tar: one shard names the fault
    return Planned(_parts(offsets, inp.config.shard_size))


def _parts(offsets: list[tuple[int, int]], shard_size: int) -> list[tuple[int, int]]:
    """Byte ranges [a, b) of an archive, cut at member offsets, of about shard_size bytes each."""
    cuts = [0]
    acc = 0
    for off, size in offsets:
        if acc >= shard_size and off > cuts[-1]:
            cuts.append(off)
            acc = 0
        acc += size
    return [(a, b) for a, b in zip(cuts, [*cuts[1:], -1], strict=True)]


def records(
    spec: ShardSpec, config: ScanConfig, result: ShardResult, progress: Progress, skipped: SkippedRecords
) -> Iterator[Record]:
    """The documents of an archive's members (of those in the spec's byte range)."""
    reader = Reader(config, result, progress, skipped)
    with open_input(spec.path) as f:
        raw = reader.raw = Counted(f)
        head = f.read(8)
        f.seek(0)
        try:
            # a zip by its first bytes, or by its name when they are no compressor's (a zip cut
            # or damaged at its start is still read by what headers it has)
            if is_zip(head) or (spec.told.compression is None and spec.path.lower().endswith(ZIP_NAMES)):
                yield from reader.zip(raw, "", 0, spec.start, spec.stop)
            else:
                stream: Any = io.BufferedReader(raw, buffer_size=1 << 20)
                if spec.start:
                    stream.seek(spec.start)
                with decompressed(stream, spec.told.compression) as inner:
                    yield from reader.tar(inner, "", 0, spec.stop - spec.start if spec.stop >= 0 else -1)
        except Bomb as exc:
            reader.skip("the archive", str(exc))
        reader.moved()
    if reader.members == 0 and skipped.count:  # nothing of an archive in it
        raise InputError(skipped.first[0]["reason"] if skipped.first else "not a readable archive")


FORMAT = Format("archive", tell, plan, records, ranges=True, suffixes=TAR_NAMES + ZIP_NAMES)
