"""What the cutting of one large compressed file into ranges of its text shares, whatever its
compression (seekgz.py: gzip and bzip2; seekzst.py: zstd frames): the plan a pass makes, the
cuts at line ends, how far a shard reads around its range."""

from typing import NamedTuple

# The blocks the planning pass reads (its memory: one of them).
BLOCK = 4 << 20
# A zstd range's seek point (seekzst.py), told from a gzip range's (zlib's header) by this.
FRAME_SEEK = b"ZSTF"
# How far before its start and past its stop a shard may read its range's text: a text shard
# reads from scan.windows.RANGE_OVERLAP before and to 8 * BYTE_RESERVE after (held by a test);
# its seek points cover this much more on either side.
REACH = 1 << 20


class GzipPlan(NamedTuple):
    """A compressed file's text planned in ranges: [start, stop) of its decompressed bytes (the
    last to the end: -1), the lines before each range, the text's first bytes, its size, and
    each range's seek points (a gzip range's index of its own, seekgz._Index.for_ranges; a zstd
    range's frame, seekzst.py)."""

    parts: list[tuple[int, int]]
    line0: list[int]
    head: bytes
    size: int
    seeks: list[bytes]


class Cuts:
    """A text's cuts into ranges of about `shard_size` bytes, each just after a newline as
    line_ranges cuts an uncompressed file, with the lines before each, as its blocks pass; its
    first bytes and size."""

    def __init__(self, shard_size: int, head_bytes: int) -> None:
        self.shard_size, self.head_bytes = shard_size, head_bytes
        self.cuts, self.line0 = [0], [0]
        self.pos = self.lines = 0
        self.head = b""
        self.want = shard_size  # the next cut: after the first newline at or after this offset

    def feed(self, block: bytes) -> None:
        if not self.head:
            self.head = block[: self.head_bytes]
        while self.want < self.pos + len(block):
            at = block.find(b"\n", max(0, self.want - self.pos))
            if at < 0:
                break  # the cut falls in a later block
            self.cuts.append(self.pos + at + 1)
            self.line0.append(self.lines + block.count(b"\n", 0, at + 1))
            self.want = self.cuts[-1] + self.shard_size
        self.lines += block.count(b"\n")
        self.pos += len(block)

    def parts(self) -> tuple[list[tuple[int, int]], list[int]]:
        """The ranges [start, stop) (the last to the end: -1) and the lines before each."""
        cuts, line0 = list(self.cuts), list(self.line0)
        if len(cuts) > 1 and cuts[-1] >= self.pos:
            cuts.pop()
            line0.pop()
        return [(a, b) for a, b in zip(cuts, [*cuts[1:], -1], strict=True)], line0
