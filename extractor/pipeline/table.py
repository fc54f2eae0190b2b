"""The mention table (one document's hits counted by canonical DOI) and the merge's bucket
hashes and grouping: in C (_ctable.c) where it was built, else the same in Python.

The table is a sink of the matcher (match/cscan/sink.h): the C matcher counts each hit into the C
table with no Python object made, and calls the Python table's `add` otherwise.
"""

from array import array
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

try:
    from . import _ctable
except ImportError:  # built without a C compiler (setup.py: the part is optional)
    _ctable = None  # type: ignore[assignment]

# Whether the C table is here. Without it the table, the buckets and the merge's grouping run in
# Python (group_mentions: Arrow's kernels), with the same rows in the same order.
HAVE_C = _ctable is not None

_MASK64 = (1 << 64) - 1


def _fnv1a(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & _MASK64
    return h


# take()'s rows: dois, counts, first offsets, first raws, form masks, first lines, bucket bounds.
Rows = tuple[list[str], list[int], list[int], list[str], list[int], list[int | None], list[int]]


class MentionTable(Protocol):
    """A mention table, in C or in Python."""

    def __len__(self) -> int: ...
    def add(self, doi: str, offset: int, form: int, raw: str, line: int = -1, /) -> None: ...
    def take(self, buckets: int = 1, /) -> Rows: ...
    def take_columns(self, buckets: int = 1, docs: bool = False, /) -> Any: ...
    def set_doc(self, doc: int, /) -> None: ...


class Columns(NamedTuple):
    """A mention table's rows as the buffers of Arrow arrays (Mentions.take_columns): a
    document with thousands of distinct DOIs handed on with no Python object per row. Strings are
    int32 offsets and UTF-8 data; counts, offsets and lines int64; masks int32; lines_valid a
    validity bitmap of the lines (None when every row has one)."""

    doi_offsets: bytes
    doi_data: bytes
    counts: bytes
    offsets: bytes
    raw_offsets: bytes
    raw_data: bytes
    masks: bytes
    lines: bytes
    lines_valid: bytes | None
    bounds: list[int]

    @property
    def rows(self) -> int:
        return len(self.counts) // 8


def _string_buffers(values: list[str]) -> tuple[bytes, bytes]:
    data = [v.encode("utf-8") for v in values]
    offsets = array("i", [0])
    for d in data:
        offsets.append(offsets[-1] + len(d))
    return offsets.tobytes(), b"".join(data)


class PyMentions:
    """The mention table in Python, for when the C part is absent: the same rows, in the same
    order, as _ctable.Mentions (rows first-seen within each bucket; in a batch of records, keyed
    by document and DOI)."""

    def __init__(self) -> None:
        # (doc, doi) -> [count, first offset, form mask, first raw, first line]
        self._rows: dict[tuple[int, str], list[Any]] = {}
        self._doc = 0

    def __len__(self) -> int:
        return len(self._rows)

    def set_doc(self, doc: int, /) -> None:
        self._doc = doc

    def add(self, doi: str, offset: int, form: int, raw: str, line: int = -1, /) -> None:
        row = self._rows.get((self._doc, doi))
        if row is None:
            self._rows[(self._doc, doi)] = [1, offset, 1 << form, raw, None if line < 0 else line]
            return
        row[0] += 1
        row[2] |= 1 << form
        if offset < row[1]:
            row[1], row[3], row[4] = offset, raw, None if line < 0 else line

    def take(self, buckets: int = 1, /) -> Rows:
        return self._take(buckets)[0]

    def _take(self, buckets: int) -> tuple[Rows, list[int]]:
        if buckets < 1:
            raise ValueError("buckets must be positive")
        groups: list[list[tuple[tuple[int, str], list[Any]]]] = [[] for _ in range(buckets)]
        for key, row in self._rows.items():
            groups[bucket_of(key[1], buckets)].append((key, row))
        self._rows = {}
        self._doc = 0
        rows = [r for g in groups for r in g]
        bounds = [0]
        for g in groups:
            bounds.append(bounds[-1] + len(g))
        return (
            [d for (_, d), _ in rows],
            [r[0] for _, r in rows],
            [r[1] for _, r in rows],
            [r[3] for _, r in rows],
            [r[2] for _, r in rows],
            [r[4] for _, r in rows],
            bounds,
        ), [doc for (doc, _), _ in rows]

    def take_columns(self, buckets: int = 1, docs: bool = False, /) -> Any:
        (dois, counts, offsets, raws, masks, lines, bounds), row_docs = self._take(buckets)
        valid = None
        if None in lines:
            bits = bytearray((len(lines) + 7) // 8)
            for j, line in enumerate(lines):
                if line is not None:
                    bits[j >> 3] |= 1 << (j & 7)
            valid = bytes(bits)
        return (
            *_string_buffers(dois),
            array("q", counts).tobytes(),
            array("q", offsets).tobytes(),
            *_string_buffers(raws),
            array("i", masks).tobytes(),
            array("q", [0 if line is None else line for line in lines]).tobytes(),
            valid,
            bounds,
            *((array("q", row_docs).tobytes(),) if docs else ()),
        )


# Counts each DOI of a document by its canonical key; take(buckets) hands out its rows as
# lists, take_columns(buckets) as Arrow buffers (Columns). Emptied by either, its storage kept:
# a scan reuses one table for the documents of a unit.
Mentions: Callable[[], MentionTable] = PyMentions if _ctable is None else _ctable.Mentions


def _bucket_of(doi: str, buckets: int, /) -> int:
    if buckets < 1:
        raise ValueError("buckets must be positive")
    return _fnv1a(doi.encode("utf-8")) % buckets


def _buckets_of(offsets: Any, data: Any, start: int, n: int, buckets: int, /) -> bytes:
    offs = memoryview(offsets).cast("B").cast("i")
    body = bytes(memoryview(data).cast("B"))
    return array(
        "i", (_fnv1a(body[offs[i] : offs[i + 1]]) % buckets for i in range(start, start + n))
    ).tobytes()


def bucket_of(doi: str, buckets: int) -> int:
    """A stable bucket for a DOI (the same in every process and run, unlike hash()): FNV-1a of
    its UTF-8 bytes, in C because it runs once per distinct DOI of every document."""
    return _ctable.bucket_of(doi, buckets) if _ctable is not None else _bucket_of(doi, buckets)


def buckets_of(offsets: Any, data: Any, start: int, n: int, buckets: int) -> bytes:
    """bucket_of for rows [start, start + n) of a string column given as its buffers (int32
    offsets, UTF-8 data, as Arrow keeps them): n int32s, no Python object per row."""
    if _ctable is not None:
        return _ctable.buckets_of(offsets, data, start, n, buckets)
    return _buckets_of(offsets, data, start, n, buckets)


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
    first_offsets: Any = None,
) -> tuple[bytes, bytes, bytes, bytes, bytes] | None:
    """The merge's groups of n partial mention rows by (source code, record code, DOI), given as
    column buffers in first-offset order: per group in first-seen order, its first row (int32),
    counts summed (int64), least place (int64), form masks OR-ed (int32) and rows (int64); codes
    all 0 group by DOI alone. None without the C part (the merge then groups with Arrow's
    kernels). With `first_offsets` (int64) the rows may come in any order: a group's first row is
    the one of its least first offset, the earliest on a tie."""
    if _ctable is None:
        return None
    if first_offsets is None:
        return _ctable.group_mentions(src, rec, doi_offsets, doi_data, doi_start, counts, places, forms, n)
    return _ctable.group_mentions(
        src, rec, doi_offsets, doi_data, doi_start, counts, places, forms, n, first_offsets
    )


def doi_lists(
    docs: Any, ats: Any, doi_offsets: Any, doi_data: Any, doi_start: int, rows: int, texts: int
) -> tuple[bytes, bytes, bytes]:
    """Each of `texts` texts' DOIs as the buffers of an Arrow list<string> column — the lists'
    int32 offsets, the strings' int32 offsets and data — from `rows` rows of a batch's mention
    table: each row's text and first offset (int64 buffers) and DOI (a string column's int32
    offsets from row doi_start, and data), ordered by (text, offset, DOI)."""
    if _ctable is not None:
        return _ctable.doi_lists(docs, ats, doi_offsets, doi_data, doi_start, rows, texts)
    doc = memoryview(docs).cast("B").cast("q")
    at = memoryview(ats).cast("B").cast("q")
    offs = memoryview(doi_offsets).cast("B").cast("i")
    data = bytes(doi_data)
    keyed = sorted(
        (doc[i], at[i], data[offs[doi_start + i] : offs[doi_start + i + 1]], i) for i in range(rows)
    )
    lists = array("i", [0] * (texts + 1))
    for d, _at, _doi, _i in keyed:
        lists[d + 1] += 1
    for t in range(texts):
        lists[t + 1] += lists[t]
    strings = [doi for _d, _at, doi, _i in keyed]
    ends = array("i", [0])
    for s in strings:
        ends.append(ends[-1] + len(s))
    return lists.tobytes(), ends.tobytes(), b"".join(strings)
