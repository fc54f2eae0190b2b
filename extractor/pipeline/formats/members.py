"""The members of an archive read as documents: a tar's and a zip's in turn (a zip by its central
directory, or by its local headers when that is lost), each a text, a PDF, or a container of its
own read in turn (a compressed file, an archive in an archive), every member's bytes watched by
its bomb guard. Read faults are values the reader acts on: a cut archive keeps the members
before the cut, named; a corrupt one is rejected."""

from __future__ import annotations

import functools
import io
import itertools
import struct
import zlib
from collections.abc import Iterator
from typing import Any

from ...match.kinds import kind_of
from ..errors import InputError
from ..io.compression import MAGIC_BYTES, decompressed, detect_compression
from ..io.decode import HEAD_BYTES, NOT_TEXT, is_binary
from ..io.read import display_name
from ..io.streams import Chunks, ReadTap
from ..provenance import Meta, from_headers
from ..units import Progress, ScanConfig, ShardResult
from . import bomb
from .base import FileText, Record, SkippedRecords
from .bomb import Bomb, Counted, Guard, read_guarded
from .tar import ReadError, is_tar, tar_entries
from .zip import ZipBody, is_zip, zip64_sizes

# Containers within containers (a gzip, a tar, a zip: one level each) read at most this deep.
MAX_DEPTH = 4
# A zip inside a stream is held in memory to be read (its directory is at its end), and so is a
# PDF: at most this much, within the 250 MB a process may use.
MAX_HELD = 128 << 20

# Members passed over by name, unread: images, media, fonts, compiled code.
NOT_TEXT_NAMES = (
    ".png", ".jpg", ".jpeg", ".gif", ".tif", ".tiff", ".bmp", ".webp", ".ico", ".heic",
    ".mp3", ".mp4", ".m4a", ".avi", ".mov", ".mkv", ".wav", ".ogg", ".flac", ".webm",
    ".woff", ".woff2", ".ttf", ".otf", ".eot", ".class", ".jar", ".so", ".dll", ".exe",
    ".o", ".a", ".pyc", ".dylib", ".wasm",
)  # fmt: skip
_COMPRESSED_SUFFIX = (".gz", ".bz2", ".xz", ".zst", ".zstd", ".z")


@functools.cache
def read_errors() -> tuple[type[BaseException], ...]:
    """What reading a cut or corrupt archive raises (a bz2 or zstd stream: OSError, EOFError);
    the archive modules loaded with the first archive read."""
    import lzma
    import zipfile

    return (ReadError, zipfile.BadZipFile, EOFError, OSError, zlib.error, lzma.LZMAError)


def _joined(first: bytes, rest: Any) -> Chunks:
    """Bytes already read, then the rest of the stream they came from."""
    return Chunks(itertools.chain([first], iter(functools.partial(rest.read, 1 << 16), b"")))


def quote(path: str) -> str:
    """A member path as a piece of a record name: `%` and `!` escaped, so `!/` only joins."""
    return display_name(path).replace("%", "%25").replace("!", "%21")


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

    def pass_over(self, rid: str) -> None:
        """A member that is binary data (an image, a font; by its name or its bytes): no text to
        lose, passed over as a file walked into is (counted in _run.json's skipped_binary)."""
        self.result.pass_over(f"{self.skipped.source}!/{rid}")  # as a nested member is named
        self.result.tally("archive members skipped")

    def read(self, record: Record) -> Record:
        """A member's document, tallied as read."""
        if record.kind is None or not kind_of(record.kind).continues:  # a PDF's links are more of it
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
                if info.file_size > bomb.BOMB_MIN and info.file_size > bomb.BOMB_RATIO * max(
                    1, info.compress_size
                ):
                    self.skip(
                        rid,
                        f"a bomb: {info.file_size >> 20} MiB from {info.compress_size >> 10} KiB (over {bomb.BOMB_RATIO}×)",
                    )
                    continue
                if info.filename.lower().endswith(NOT_TEXT_NAMES):
                    self.pass_over(rid)
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
            csize, usize = zip64_sizes(extra, csize, usize)
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
            body = ZipBody(f, method, csize if not flags & 8 else -1)
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
        if name.lower().endswith(NOT_TEXT_NAMES):
            self.pass_over(rid)
            return
        assert self.raw is not None
        guard = Guard(self.raw)
        limit = self.config.max_record_bytes
        first = read_guarded(f, limit + 1, guard)
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
        if why == NOT_TEXT:
            self.pass_over(rid)
            return
        if why:
            self.skip(rid, "not text: " + why.split(" (")[0])
            return
        # A member is a file: read as the same bytes on disk are (FileText), in the same units.
        rest = _Guarded(None if whole else f, guard)
        stream = io.BufferedReader(_joined(first, rest), 1 << 16)
        yield self.read(Record(rid, FileText(stream), None, meta, name))
        while stream.read(1 << 20):  # read to its end whatever the consumer did
            pass
        if isinstance(rest.stopped, Bomb):
            self.skip(rid, f"{rest.stopped}; read no further", member=False)
        elif rest.stopped is not None:  # the container names it (cut short or corrupt), and reads no further
            raise rest.stopped

    def container(
        self, first: bytes, f: Any, comp: str | None, name: str, rid: str, depth: int, guard: Guard
    ) -> Iterator[Record]:
        """A compressed member (read as what it holds, named without its suffix), or an
        archive in an archive (its members named under it)."""
        stream: Any = io.BufferedReader(
            ReadTap(_joined(first, f), lambda data: guard.feed(len(data))), buffer_size=1 << 16
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

        data = first + read_guarded(f, MAX_HELD + 1 - len(first), guard)
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
    bomb or a cut ends it quietly, kept in `stopped` for the reader to act on once the consumer
    is done: raised in the consumer's window loop, it would end the whole input."""

    def __init__(self, f: Any, guard: Guard) -> None:
        self._f = f
        self._guard = guard
        self.stopped: BaseException | None = None  # the Bomb, or the read error, that ended it

    def read(self, n: int) -> bytes:
        if self._f is None:
            return b""
        try:
            data: bytes = self._f.read(min(n, 1 << 20))
            self._guard.feed(len(data))
        except Bomb as exc:
            self.stopped = exc
            data = b""
        except read_errors() as exc:
            self.stopped = exc
            data = b""
        if not data:
            self._f = None
        return data


def is_cut(exc: BaseException) -> bool:
    """Whether a read error says the data end early (a partial download), not that they are
    corrupt: every decompressor and the tar and zip walks raise EOFError for that."""
    return isinstance(exc, EOFError) or "unexpected end of data" in str(exc)


def _why(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
