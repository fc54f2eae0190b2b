# Types of the C matcher (_cscan.c); match/native.py is its only importer.
from collections.abc import Callable, Mapping
from typing import Any

Chunk = tuple[list[str], list[int], list[int], list[str], list[int], list[int | None], list[int]]

class Mentions:
    def __len__(self) -> int: ...
    def take(self, buckets: int = 1, /) -> Chunk: ...
    def take_columns(
        self, buckets: int = 1, /
    ) -> tuple[bytes, bytes, bytes, bytes, bytes, bytes, bytes, bytes, bytes | None, list[int]]: ...
    def add(self, doi: str, offset: int, form: int, raw: str, line: int = -1, /) -> None: ...

def scan(
    data: Any,
    lo: int,
    hi: int,
    rlo: int,
    rhi: int,
    base: int = 0,
    mentions: Mentions | None = None,
    hits: list[tuple[int, int, int, str, str, int | None]] | None = None,
    chars: bool = False,
    line_base: int = -1,
    line_from: int = 0,
    line_to: int = -1,
) -> tuple[int, int, int, int]: ...
def pdf_scan(
    data: Any,
    lo: int,
    hi: int,
    rlo: int,
    rhi: int,
    base: int = 0,
    mentions: Mentions | None = None,
    hits: list[tuple[int, int, int, str, str, int | None]] | None = None,
    chars: bool = False,
    line_base: int = -1,
    line_from: int = 0,
    line_to: int = -1,
    rekey: Mapping[str, str] | None = None,
) -> tuple[int, int, int, int]: ...
def html_spans(
    data: Any, unescape: Callable[[str], str], /
) -> tuple[list[tuple[int, int, int, str]], list[tuple[int, int]], int]: ...
def html_scan(
    data: Any,
    unescape: Callable[[str], str],
    lo: int,
    hi: int,
    rlo: int,
    rhi: int,
    base: int = 0,
    mentions: Mentions | None = None,
    hits: list[tuple[int, int, int, str, str, int | None]] | None = None,
    chars: bool = False,
    line_base: int = -1,
    line_from: int = 0,
    line_to: int = -1,
) -> tuple[int, int, int, int]: ...
def html_views(data: Any, unescape: Callable[[str], str], /) -> list[tuple[bytes, list[int]]]: ...
def newlines(data: Any, start: int = 0, stop: int = -1, /) -> int: ...
def invalid_bytes(data: Any, start: int = 0, stop: int = ..., /) -> tuple[int, int]: ...
def bucket_of(doi: str, buckets: int, /) -> int: ...
def buckets_of(offsets: Any, data: Any, start: int, n: int, buckets: int, /) -> bytes: ...
def group_mentions(
    src: Any,
    rec: Any,
    doi_offsets: Any,
    doi_data: Any,
    doi_start: int,
    counts: Any,
    places: Any,
    forms: Any,
    n: int,
    /,
) -> tuple[bytes, bytes, bytes, bytes, bytes]: ...
def tables() -> dict[str, Any]: ...
