# Types of the C matcher (_cscan.c); match/native.py is its only importer.
from collections.abc import Callable, Mapping
from typing import Any

# A table the matcher counts hits into (cscan/sink.h): the pipeline's mention table, or any
# object with add(doi, offset, form, raw, line).
Sink = Any
Hits = list[tuple[int, int, int, str, str, int | None]]

def scan(
    data: Any,
    lo: int,
    hi: int,
    rlo: int,
    rhi: int,
    base: int = 0,
    mentions: Sink | None = None,
    hits: Hits | None = None,
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
    mentions: Sink | None = None,
    hits: Hits | None = None,
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
    mentions: Sink | None = None,
    hits: Hits | None = None,
    chars: bool = False,
    line_base: int = -1,
    line_from: int = 0,
    line_to: int = -1,
) -> tuple[int, int, int, int]: ...

# The source syntaxes whose views are built in C (spec §7): html_spans' and html_scan's
# arguments and results.
wikitext_spans = html_spans
csv_spans = html_spans
latex_spans = html_spans
bibtex_spans = html_spans
wikitext_scan = html_scan
csv_scan = html_scan
latex_scan = html_scan
bibtex_scan = html_scan

def canonical_column(
    offsets: Any,
    data: Any,
    validity: Any | None,
    offset: int,
    length: int,
    large: bool,
    fallback: Callable[[str], str | None],
    /,
) -> tuple[bytes, bytes, bytes, int]: ...
def html_views(data: Any, unescape: Callable[[str], str], /) -> list[tuple[bytes, list[int]]]: ...
def scan_texts(
    texts: list[str],
    start: int,
    mentions: Any,
    head: int,
    sniff_kind: bool,
    sniff_syntax: bool,
    doc_base: int = 0,
    max_rows: int = 0,
    /,
) -> tuple[int, int, int]: ...
def scan_arrow_texts(
    offsets: Any,
    data: Any,
    offset: int,
    length: int,
    large: bool,
    start: int,
    mentions: Any,
    head: int,
    sniff_kind: bool,
    sniff_syntax: bool,
    doc_base: int = 0,
    max_rows: int = 0,
    hits: list[Any] | None = None,
    ends: list[int] | None = None,
    /,
) -> tuple[int, int, int]: ...
def set_far(
    go_far: Callable[[memoryview, int, str, int, frozenset[int]], int],
    far_anchor: Callable[[memoryview, int], tuple[int, int] | None],
    glued: Callable[[str, int, int], int],
    prefixes: tuple[str, ...],
    ends: tuple[tuple[int, ...], ...],
    heads: tuple[str, ...],
    far_chars: int,
    /,
) -> None: ...
def newlines(data: Any, start: int = 0, stop: int = -1, /) -> int: ...
def control_bytes(data: Any, /) -> int: ...
def invalid_bytes(data: Any, start: int = 0, stop: int = ..., /) -> tuple[int, int]: ...
def tables(full: bool = False, /) -> dict[str, Any]: ...
