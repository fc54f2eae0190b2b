# Types of the C matcher (_cscan.c); match/native.py is its only importer.
from typing import Any

Chunk = tuple[list[str], list[int], list[int], list[str], list[int], list[int]]

class Mentions:
    def __len__(self) -> int: ...
    def take(self, buckets: int = 1, /) -> Chunk: ...
    def add(self, doi: str, offset: int, form: int, raw: str, /) -> None: ...

def scan(
    data: Any,
    lo: int,
    hi: int,
    rlo: int,
    rhi: int,
    base: int = 0,
    mentions: Mentions | None = None,
    hits: list[tuple[int, int, int, str, str]] | None = None,
    chars: bool = False,
) -> tuple[int, int, int]: ...
def invalid_bytes(data: Any, start: int = 0, stop: int = ..., /) -> tuple[int, int]: ...
def bucket_of(doi: str, buckets: int, /) -> int: ...
def tables() -> dict[str, Any]: ...
