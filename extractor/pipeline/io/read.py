"""Reading inputs' bytes: a local file or an object, compression told by magic bytes and undone
in bounded steps, byte ranges cut at line ends, heads, whole small files, and counts of what was
read. The formats (formats/) read their records through these.

Owns the bytes (ripgrep's "searcher"): nothing here knows what a DOI is.
"""

from __future__ import annotations

import contextlib
import io
import os
import zlib
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from ..units import Progress
from . import remote

# gzip through python-isal's igzip when it is installed (the `fast` extra): the same format and
# errors (EOFError, BadGzipFile), about 3x the stdlib's speed. Loaded with the first gzip input
# (gzip_readers); a test sets GZIP_FILE to the stdlib's to read the same bytes both ways.
GZIP_FILE: Any = None  # IGzipFile, or the stdlib's GzipFile
GZIP_THREADED: Any = None  # isal.igzip_threaded (a reader that decompresses ahead), or None


def gzip_readers() -> tuple[Any, Any]:
    """(the gzip file class, python-isal's threaded reader or None)."""
    global GZIP_FILE, GZIP_THREADED
    if GZIP_FILE is None:
        try:
            from isal import igzip_threaded
            from isal.igzip import IGzipFile

            GZIP_FILE, GZIP_THREADED = IGzipFile, igzip_threaded
        except ImportError:  # pragma: no cover - the stdlib fallback is tested by forcing it
            import gzip

            GZIP_FILE = gzip.GzipFile
    return GZIP_FILE, GZIP_THREADED


_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)
# bzip2: "BZh", the block size 1-9, then a block's magic (π's digits) or, for an empty stream,
# the end-of-stream magic (√π's): "BZh" alone also starts a text (a "BZh…" line).
_BZIP2_NEXT = (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")
MAGIC_BYTES = 10


def display_name(path: str) -> str:
    """A path as valid text: bytes of a file name that are not UTF-8 (decoded by Python as lone
    surrogates, which Parquet and JSON cannot store) are written as \\xNN escapes."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        pass
    try:
        data = path.encode("utf-8", "surrogateescape")  # bytes of a file name
    except UnicodeEncodeError:
        data = path.encode("utf-8", "surrogatepass")  # a \udXXX escape from JSON
    return data.decode("utf-8", "backslashreplace")


def detect_compression(head: bytes) -> str | None:
    """The compression of a stream from its first bytes (MAGIC_BYTES of them, or all a shorter
    stream has): gzip, bzip2, xz, zstd or None."""
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    if head[:3] == b"BZh" and head[3:4] in b"123456789" and len(head) > 3:
        block = head[4:MAGIC_BYTES]
        if any(m.startswith(block) for m in _BZIP2_NEXT):  # whole, or a stream cut short
            return "bzip2"
    return None


def open_input(path: str) -> BinaryIO:
    """An input file as a seekable binary stream: a local path, or a URL of a file system that
    fsspec reaches (s3://, gs://, …; remote.py)."""
    if remote.is_url(path):
        return remote.open_binary(path)
    return open(path, "rb")


def open_stream(path: str | BinaryIO, read_ahead: bool = False) -> tuple[BinaryIO, str | None]:
    """A binary stream of the decompressed contents of `path` (or of an open binary stream
    with peek, such as stdin), and the compression its first bytes tell (an input nothing was
    told of: stdin, an archive's member; a planned input's is known, see `decompressed`)."""
    raw = open_input(path) if isinstance(path, str) else path
    head = raw.peek(MAGIC_BYTES)[:MAGIC_BYTES] if hasattr(raw, "peek") else b""
    comp = detect_compression(head)
    return decompressed(raw, comp, read_ahead), comp


def decompressed(raw: BinaryIO, comp: str | None, read_ahead: bool = False) -> BinaryIO:
    """A binary stream of what `raw` holds in compression `comp` (None: `raw` itself). With
    `read_ahead`, a gzip file of READ_AHEAD_MIN bytes or more is decompressed ahead, in a thread
    of python-isal's (igzip_threaded) that releases the GIL while it works, so that it runs on
    another core as the blocks before are searched (gzip input cost 1.7x plain text with one
    worker; ripgrep's -z decompresses in another process likewise)."""
    if comp is None:
        return raw
    if comp == "gzip":
        gzip_file, threaded = gzip_readers()
        if read_ahead and threaded is not None and _stored_size(raw) >= READ_AHEAD_MIN:
            return threaded.open(raw, "rb", threads=1)
        return gzip_file(fileobj=raw)
    if comp == "bzip2":
        import bz2

        return bz2.BZ2File(raw)  # type: ignore[return-value]
    if comp == "xz":
        import lzma

        return lzma.LZMAFile(raw)  # type: ignore[return-value]
    return io.BufferedReader(ZstdReader(raw), buffer_size=1 << 16)


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


def open_counted(
    path: str, comp: str | None, progress: Progress, cut: Callable[[str, int], None] | None = None
) -> tuple[BinaryIO, BinaryIO, Progress]:
    """An input's file, its stream decompressed from `comp` (the compression told at planning),
    and `progress` counting bytes of the file (DiskProgress when compressed); the caller closes
    both streams. A large gzip file is decompressed ahead (decompressed's read_ahead). With
    `cut`, a compressed stream cut short ends where it was cut (until_cut) and `cut(why, bytes
    given)` is told so."""
    raw = open_input(path)
    try:
        stream = decompressed(raw, comp, read_ahead=True)
    except BaseException:
        raw.close()
        raise
    if cut is not None:
        stream = until_cut(stream, comp, path, cut)
    return raw, stream, (progress if comp is None else DiskProgress(raw, progress))


def until_cut(
    stream: BinaryIO, comp: str | None, path: str | None, cut: Callable[[str, int], None]
) -> BinaryIO:
    """A decompressed stream read up to where its file was cut short (UntilCut); the stream as it
    is when it is not compressed. A gzip file's last bytes before the cut are had again from
    `path` by zlib (gzip_after), which python-isal and its read-ahead thread drop."""
    if comp is None:
        return stream
    rest = (lambda skip: gzip_after(path, skip)) if comp == "gzip" and path not in (None, "-") else None
    return io.BufferedReader(UntilCut(stream, cut, rest), buffer_size=1 << 16)


def gzip_after(path: str, skip: int) -> Iterator[bytes]:
    """A gzip file's decompressed bytes from `skip` on, member after member, as far as they can
    be had: up to the cut of a file cut short (zlib gives what it decoded before it)."""
    with open_input(path) as f:
        dec = zlib.decompressobj(31)
        pos = 0
        while block := f.read(1 << 20):
            while block:
                data = dec.decompress(block)
                if pos + len(data) > skip:
                    yield data[max(0, skip - pos) :]
                pos += len(data)
                block = b""
                if dec.eof:  # the next member, if any
                    block, dec = dec.unused_data, zlib.decompressobj(31)


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


# Below this a file decompresses in about the time a thread takes to start and stop.
READ_AHEAD_MIN = 1 << 20


def _stored_size(raw: BinaryIO) -> int:
    """The size of an open input as stored (a local file's, or a remote file object's `size`);
    0 when unknown."""
    try:
        return os.fstat(raw.fileno()).st_size
    except (OSError, AttributeError, io.UnsupportedOperation):
        size = getattr(raw, "size", 0)
        return size if isinstance(size, int) else 0


class ZstdReader(io.RawIOBase):
    """A zstd stream of one or more frames, in bounded steps, raising EOFError when the last
    frame is cut short.

    zstandard's `stream_reader` bounds what one read gives (its `decompressobj` does not: 300
    bytes of a bomb became 10 MB in one call, 64 KiB some GB) but ends a truncated
    stream silently; so the compressed bytes pass through a walk of the frame and block headers
    (`ZstdFrames`), which knows whether the stream stopped at a frame's end.
    """

    def __init__(self, raw: BinaryIO) -> None:
        import zstandard

        self._raw = raw
        self._frames = ZstdFrames()
        tee: Any = ReadTap(raw, self._frames.feed)  # a readable stream; the stubs want IO[bytes]
        self._reader = zstandard.ZstdDecompressor().stream_reader(
            tee, read_size=1 << 16, read_across_frames=True, closefd=False
        )

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n: int = self._reader.readinto(b)
        if n == 0 and len(b) and not self._frames.complete:
            raise EOFError("truncated zstd stream: the last frame has no end")
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


# zstd framing (RFC 8878 §3.1): what ZstdFrames and io/seekzst.py read of a frame's headers.
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def zstd_skippable(magic: bytes) -> bool:
    """Whether four bytes open a skippable frame (§3.1.2: 0x184D2A5?, little-endian)."""
    return len(magic) == 4 and magic[1:] == b"\x2a\x4d\x18" and magic[0] & 0xF0 == 0x50


def zstd_header(descriptor: int) -> tuple[int, bool]:
    """The bytes of a frame header after its descriptor (window, dictionary id, content size:
    §3.1.1.1), and whether a checksum ends the frame."""
    single = descriptor >> 5 & 1
    fcs = (1 if single else 0, 2, 4, 8)[descriptor >> 6]
    return (0 if single else 1) + (0, 1, 2, 4)[descriptor & 3] + fcs, bool(descriptor >> 2 & 1)


def zstd_block(header: int) -> tuple[bool, int] | None:
    """A block header's (last block, content bytes that follow it) (§3.1.1.2); None for the
    reserved block type (not zstd)."""
    kind = header >> 1 & 3
    if kind == 3:
        return None
    return bool(header & 1), 1 if kind == 1 else header >> 3


class ZstdFrames:
    """Walks the frame and block headers of a zstd stream as its bytes pass (RFC 8878 §3.1:
    frame header, blocks with their sizes, optional checksum; skippable frames), to tell whether
    it ended where a frame ends. Block contents are skipped by count, so this costs a few steps
    per block of up to 128 KiB."""

    def __init__(self) -> None:
        self._state = "magic"
        self._need = 4  # header bytes the state reads
        self._head = b""
        self._skip = 0  # content bytes to pass over
        self._checksum = False
        self.broken = False  # not zstd framing: the decompressor reports that itself

    @property
    def complete(self) -> bool:
        return self.broken or (self._state == "magic" and not self._head and not self._skip)

    def feed(self, data: bytes) -> None:
        i, n = 0, len(data)
        while i < n and not self.broken:
            if self._skip:
                k = min(self._skip, n - i)
                self._skip -= k
                i += k
                continue
            take = min(self._need - len(self._head), n - i)
            self._head += data[i : i + take]
            i += take
            if len(self._head) == self._need:
                head, self._head = self._head, b""
                self._step(head)

    def _step(self, head: bytes) -> None:
        state = self._state
        if state == "magic":
            if head == ZSTD_MAGIC:
                self._state, self._need = "descriptor", 1
            elif zstd_skippable(head):
                self._state, self._need = "skippable", 4
            else:
                self.broken = True
        elif state == "skippable":
            self._skip = int.from_bytes(head, "little")
            self._state, self._need = "magic", 4
        elif state == "descriptor":
            self._skip, self._checksum = zstd_header(head[0])
            self._state, self._need = "block", 3
        elif state == "block":
            block = zstd_block(int.from_bytes(head, "little"))
            if block is None:
                self.broken = True
                return
            last, self._skip = block
            if last:
                self._state, self._need = ("checksum", 4) if self._checksum else ("magic", 4)
        else:  # checksum
            self._state, self._need = "magic", 4


def read_head(stream: Any, n: int) -> bytes:
    """The first `n` bytes of a decompressed stream, or what came before a truncation: its
    format is told by its head (a WARC cut short is still a WARC, its records before the cut
    read), and a reader of the whole stream reports the cut."""
    out = bytearray()
    read = getattr(stream, "read1", stream.read)
    try:
        while len(out) < n:
            chunk = read(n - len(out))
            if not chunk:
                break
            out += chunk
    except EOFError:
        pass
    return bytes(out)


def format_head(path: str, n: int) -> bytes:
    """The first `n` decompressed bytes of a file, or those before a truncation (read_head).
    A gzip head is read by the stdlib, which gives what it decompressed before the cut (isal's
    reader gives nothing then)."""
    raw = open_input(path)
    with raw:
        head = raw.peek(MAGIC_BYTES)[:MAGIC_BYTES] if hasattr(raw, "peek") else b""
        if detect_compression(head) == "gzip":
            import gzip

            with gzip.GzipFile(fileobj=raw) as gz:
                return read_head(gz, n)
        stream, _comp = open_stream(raw)
        with stream:
            return read_head(stream, n)


def read_upto(path: str, limit: int) -> bytes | None:
    """The bytes of a file as stored when it holds at most `limit` of them, else None: a small
    file in one read (a local one without a buffered file object: its cost is per file)."""
    if remote.is_url(path):
        with open_input(path) as f:
            data = f.read(limit + 1)
        return data if len(data) <= limit else None
    fd = os.open(path, os.O_RDONLY)
    try:
        # sized by the file (a read sized by `limit` allocated that much: 2.5x the time of a
        # small file's read), then on to its end in case it grew
        want = os.fstat(fd).st_size + 1
        pieces = []
        total = 0
        while total <= limit:
            piece = os.read(fd, min(want, limit + 1 - total))
            if not piece:
                break
            pieces.append(piece)
            total += len(piece)
            want = 1 << 16
    finally:
        os.close(fd)
    data = b"".join(pieces)
    return data if len(data) <= limit else None


def read_all(path: str) -> bytes:
    """The whole decompressed contents of one file (for `find`, which reads a file at once)."""
    stream, _ = open_stream(path)
    with stream:
        return stream.read()


def byte_range(path: str, start: int, stop: int) -> BinaryIO:
    """Bytes [start, stop) of an uncompressed file (stop -1: to its end), as a stream."""
    f = open_input(path)
    f.seek(start)
    return limited(f, stop - start if stop >= 0 else -1)


def limited(stream: BinaryIO, n: int) -> BinaryIO:
    """The next `n` bytes of a stream (n < 0: all the rest), as a stream; closing it closes the
    stream."""
    if n < 0:
        return stream
    return io.BufferedReader(Limited(stream, n), buffer_size=1 << 20)


class Limited(io.RawIOBase):
    """The next `left` bytes of a stream (a byte range of a file, a shard of a dump); closing it
    closes the stream, unless `owns` is False (a part of a file read on after it)."""

    def __init__(self, stream: BinaryIO, left: int, owns: bool = True) -> None:
        super().__init__()
        self._s = stream
        self._left = left
        self._owns = owns

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if self._left <= 0:
            return 0
        view = memoryview(b)[: self._left]
        n = self._s.readinto(view)  # type: ignore[attr-defined]
        self._left -= n or 0
        return n or 0

    def close(self) -> None:
        if self._owns:
            self._s.close()
        super().close()


def line_ranges(f: Any, size: int, shard_size: int) -> list[tuple[int, int]]:
    """A seekable file of `size` bytes as byte ranges of about `shard_size`, each cut just after
    a newline ([start, stop), the last to the end: -1)."""
    cuts = [0]
    while cuts[-1] + shard_size < size:
        c = _line_cut(f, cuts[-1] + shard_size)
        if c >= size:
            break
        cuts.append(c)
    return [(a, b) for a, b in zip(cuts, [*cuts[1:], -1], strict=True)]


def _line_cut(f: Any, pos: int) -> int:
    """The offset just after the first newline at or after `pos` (or the end of file)."""
    f.seek(pos)
    while True:
        chunk = f.read(1 << 16)
        if not chunk:
            return f.tell()
        i = chunk.find(b"\n")
        if i >= 0:
            return f.tell() - len(chunk) + i + 1


def lines_at(f: Any, offsets: list[int]) -> list[int]:
    """How many lines end before each byte offset (ascending) of a seekable file: one pass."""
    out, lines, pos = [], 0, 0
    f.seek(0)
    for offset in offsets:
        while pos < offset:
            block = f.read(min(8 << 20, offset - pos))
            if not block:
                break
            lines += block.count(b"\n")
            pos += len(block)
        out.append(lines)
    return out


def lines_before(path: str, offset: int) -> int:
    """How many lines end before byte `offset` of a file."""
    with open_input(path) as f:
        return lines_at(f, [offset])[0]


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


class Bzip2Process(io.RawIOBase):
    """The decompressed bytes of a stream of bz2 streams, decompressed by a `bzip2 -dc` process
    (when the system has one): bz2 is the slowest step of reading a Wikipedia dump, and Python's
    decompressor, run in a thread, waits for the GIL at every step of its output buffer — it
    ran at two thirds of its speed beside the parsing thread. As ripgrep's -z, another process
    does it. The stored bytes are fed to it by a thread (reads and writes release the GIL);
    EOFError when bzip2 finds the stream cut short or corrupt, after the bytes before the fault."""

    def __init__(self, raw: Any, exe: str) -> None:
        import subprocess
        import threading

        super().__init__()
        self._proc = subprocess.Popen(
            [exe, "-dc"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        out: Any = self._proc.stdout
        self._out = out
        # a pipe holds 64 KiB: bzip2 would wait on every page parsed; 1 MiB (Linux's most for
        # an unprivileged process) lets it run ahead
        with contextlib.suppress(OSError, AttributeError, ValueError):
            import fcntl

            fcntl.fcntl(out.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)
        self._feeder = threading.Thread(target=self._feed, args=(raw,), daemon=True)
        self._feeder.start()

    def _feed(self, raw: Any) -> None:
        stdin: Any = self._proc.stdin
        try:
            while True:
                data = raw.read(1 << 20)
                if not data:
                    break
                stdin.write(data)
        except (OSError, ValueError):  # bzip2 stopped (a corrupt stream), or this was closed
            pass
        finally:
            with contextlib.suppress(OSError):
                stdin.close()

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n: int = self._out.readinto(b)
        if n == 0 and len(b):
            code = self._proc.wait()
            if code != 0:
                err = self._proc.stderr.read().decode("utf-8", "replace") if self._proc.stderr else ""
                # its first line says what (`bzip2: Compressed file ends unexpectedly;`)
                first = err.strip().splitlines()[0].rstrip(";") if err.strip() else f"bzip2: exit {code}"
                raise EOFError(first)
        return n

    def read1(self, n: int = -1) -> bytes:
        """What the pipe has, up to `n` bytes (at least one, unless it ended)."""
        data: bytes = self._out.read1(n if n > 0 else 1 << 20)
        if not data:
            self.readinto(bytearray(1))  # ended: raises when bzip2 failed
        return data

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._feeder.join()
        for f in (self._proc.stdout, self._proc.stderr):
            if f is not None:
                f.close()
        super().close()


def bzip2_reader(raw: Any) -> BinaryIO | None:
    """A `bzip2 -dc` process's output for a stream of bz2 streams (Bzip2Process), or None when
    the system has no bzip2 (DOI_EXTRACTOR_NO_BZIP2 set: the same, for tests)."""
    import shutil

    exe = None if os.environ.get("DOI_EXTRACTOR_NO_BZIP2") else shutil.which("bzip2")
    return None if exe is None else Bzip2Process(raw, exe)  # type: ignore[return-value]
