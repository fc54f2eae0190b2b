"""Reading inputs' bytes: a local file or an object, opened and decompressed (compression.py),
byte ranges cut at line ends, heads, whole small files. The formats (formats/) read their
records through these; the stream adapters they use are streams.py's.

Owns the bytes (ripgrep's "searcher"): nothing here knows what a DOI is.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from typing import Any, BinaryIO

from ..units import Progress
from . import remote
from .compression import MAGIC_BYTES, decompressed, detect_compression, gzip_after
from .streams import DiskProgress, UntilCut, limited


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
        # sized by the file (a read sized by `limit` allocated that much, which cost more than a
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


def until_cut(
    stream: BinaryIO, comp: str | None, path: str | None, cut: Callable[[str, int], None]
) -> BinaryIO:
    """A decompressed stream read up to where its file was cut short (UntilCut); the stream as it
    is when it is not compressed. A gzip file's last bytes before the cut are had again from
    `path` by zlib (gzip_after), which python-isal and its read-ahead thread drop."""
    if comp is None:
        return stream
    rest = (
        (lambda skip: gzip_after(open_input(path), skip))
        if comp == "gzip" and path not in (None, "-")
        else None
    )
    return io.BufferedReader(UntilCut(stream, cut, rest), buffer_size=1 << 16)


def byte_range(path: str, start: int, stop: int) -> BinaryIO:
    """Bytes [start, stop) of an uncompressed file (stop -1: to its end), as a stream."""
    f = open_input(path)
    f.seek(start)
    return limited(f, stop - start if stop >= 0 else -1)
