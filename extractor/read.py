"""Reading inputs: compression detected by magic bytes, bounded blocks, and record formats.

Owns the bytes (ripgrep's "searcher"): nothing here knows what a DOI is.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
from collections.abc import Iterator
from typing import BinaryIO

BLOCK_SIZE = 4 << 20  # bytes read at a time: memory per worker stays bounded by a few blocks

_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)


def detect_compression(head: bytes) -> str | None:
    """The compression of a stream from its first bytes: gzip, bzip2, xz, zstd or None."""
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return None


def open_stream(path: str) -> tuple[BinaryIO, str | None]:
    """A binary stream of the decompressed contents of `path`, and the compression found."""
    raw = open(path, "rb")  # noqa: SIM115 - returned to the caller, who closes it
    head = raw.peek(8)[:8] if hasattr(raw, "peek") else b""
    comp = detect_compression(head)
    if comp is None:
        return raw, None
    if comp == "gzip":
        return gzip.GzipFile(fileobj=raw), comp  # type: ignore[return-value]
    if comp == "bzip2":
        return bz2.BZ2File(raw), comp  # type: ignore[return-value]
    if comp == "xz":
        return lzma.LZMAFile(raw), comp  # type: ignore[return-value]
    import zstandard

    return zstandard.ZstdDecompressor().stream_reader(raw, closefd=True), comp  # type: ignore[return-value]


def read_all(path: str) -> bytes:
    """The whole decompressed contents of one file (for `find`, which reads a file at once)."""
    stream, _ = open_stream(path)
    with stream:
        return stream.read()


def iter_blocks(stream: BinaryIO, block_size: int = BLOCK_SIZE) -> Iterator[bytes]:
    """Blocks of at most `block_size` bytes until the stream ends."""
    while True:
        block = stream.read(block_size)
        if not block:
            return
        yield block


def iter_jsonl_records(
    stream: BinaryIO, text_field: str, id_field: str, max_line: int = 256 << 20
) -> Iterator[tuple[str | None, str | None, int]]:
    """(record id, text, line number) for each line of a JSONL stream.

    A line longer than `max_line` bytes is skipped and reported as (None, None, n): one
    enormous record must not make a worker hold it whole.
    """
    buf = io.BufferedReader(stream, buffer_size=1 << 20) if not hasattr(stream, "peek") else stream
    n = 0
    while True:
        line = buf.readline(max_line + 1)
        if not line:
            return
        n += 1
        if len(line) > max_line and not line.endswith(b"\n"):
            # Drain the rest of the over-long line in bounded pieces.
            while True:
                more = buf.readline(1 << 20)
                if not more or more.endswith(b"\n"):
                    break
            yield None, None, n
            continue
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            yield None, None, n
            continue
        if not isinstance(rec, dict):
            yield None, None, n
            continue
        text = rec.get(text_field)
        rid = rec.get(id_field)
        yield (None if rid is None else str(rid)), (text if isinstance(text, str) else None), n


def file_size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
