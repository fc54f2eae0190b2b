"""The compression policy: a stream's compression told by its magic bytes, and undone in bounded
steps by the fastest reader this machine has — gzip by python-isal (decompressed ahead in a
thread for a large file), bzip2 by a `bzip2 -dc` process beside the reader where the system has
one, xz by the stdlib, zstd frame by frame (a stream cut short told from one that ended). A
gzip file's bytes before a cut are had again by zlib (gzip_after)."""

from __future__ import annotations

import contextlib
import io
import os
import zlib
from collections.abc import Iterator
from typing import Any, BinaryIO

from .streams import ReadTap

# gzip through python-isal's igzip when it is installed (the `fast` extra): the same format and
# errors (EOFError, BadGzipFile), several times the stdlib's speed. Loaded with the first gzip input
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


def decompressed(raw: BinaryIO, comp: str | None, read_ahead: bool = False) -> BinaryIO:
    """A binary stream of what `raw` holds in compression `comp` (None: `raw` itself). With
    `read_ahead`, a gzip file of READ_AHEAD_MIN bytes or more is decompressed ahead, in a thread
    of python-isal's (igzip_threaded) that releases the GIL while it works, so that it runs on
    another core as the blocks before are searched (ripgrep's -z decompresses in another process
    likewise)."""
    if comp is None:
        return raw
    if comp == "gzip":
        gzip_file, threaded = gzip_readers()
        if read_ahead and threaded is not None and _stored_size(raw) >= READ_AHEAD_MIN:
            return threaded.open(raw, "rb", threads=1)
        return gzip_file(fileobj=raw)
    if comp == "bzip2":
        if read_ahead and _stored_size(raw) >= READ_AHEAD_MIN:
            proc = bzip2_reader(raw)  # decompressed beside the reader, as gzip's thread does
            if proc is not None:
                return io.BufferedReader(proc, buffer_size=1 << 16)  # type: ignore[type-var]
        import bz2

        return bz2.BZ2File(raw)  # type: ignore[return-value]
    if comp == "xz":
        import lzma

        return lzma.LZMAFile(raw)  # type: ignore[return-value]
    return io.BufferedReader(ZstdReader(raw), buffer_size=1 << 16)


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


def gzip_after(f: BinaryIO, skip: int) -> Iterator[bytes]:
    """A gzip file's decompressed bytes from `skip` on, member after member, as far as they can
    be had: up to the cut of a file cut short (zlib gives what it decoded before it). `f` is the
    file as stored, read from its start and closed."""
    with f:
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
                # its first line says what: `bzip2: Compressed file ends unexpectedly;` for a stream
                # cut short (EOFError, as the stdlib's decompressor raises), anything else for a
                # corrupt one (`Data integrity error`: OSError, as the stdlib's)
                first = err.strip().splitlines()[0].rstrip(";") if err.strip() else f"bzip2: exit {code}"
                raise (EOFError if "ends unexpectedly" in first else OSError)(first)
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
