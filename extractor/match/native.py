"""The C matcher (_cscan.c): find.py's rules for plain text, run on raw UTF-8 bytes, and
html.py's views built in C and searched by the same rules (tests/test_chtml.py holds them to
find_spans(…, "html")).

The only module that imports the extension. At import it checks that the tables compiled into
C equal the Python rules they port (tails, trailing and format characters, brackets, windows,
forms), so a rule added on one side only fails at once instead of making the two disagree;
tests/test_cscan.py holds the rules themselves to find.py.
"""

from __future__ import annotations

import codecs
import functools
import html
import re
from array import array
from typing import Any, NamedTuple

from .canonical import FORMAT_CHARS, PDF_HYPHENS
from .find import LEFT_WINDOW, REHYPHENATED, Span
from .forms import FORMS
from .pdf import DEHYPHENATION_RULES
from .rules import CLOSE, MAX_DOI_CHARS, OPEN, SHORT_WINDOW, TRAILING
from .tails import MEDIA_EXTENSIONS, RESOURCE_SEGMENTS, RXIV_TAILS, TAIL_RULES, VIEWS

try:
    from . import _cscan
except ImportError:  # built without a C compiler (setup.py: the extension is optional)
    _cscan = None  # type: ignore[assignment]

# Whether the C extension is here. Without it every text goes to the Python matcher (the
# reference for every rule, so results are the same, only slower) and the helpers below run
# in Python: the package installs and works where nothing can be compiled (issue 13).
HAVE_C = _cscan is not None
MATCHER = "C" if HAVE_C else "Python (the C extension was not built)"

# A hit as the C matcher reports it: (start, end, index in FORMS, canonical DOI, raw text, 1-based
# line or None when lines are not counted).
CHit = tuple[int, int, int, str, str, int | None]

_MASK64 = (1 << 64) - 1


def _fnv1a(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & _MASK64
    return h


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
    """The mention table in Python, for when the C extension is absent: the same rows, in the
    same order, as _cscan.Mentions (rows first-seen within each bucket)."""

    def __init__(self) -> None:
        self._rows: dict[
            str, list[Any]
        ] = {}  # doi -> [count, first offset, form mask, first raw, first line]

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, doi: str, offset: int, form: int, raw: str, line: int = -1, /) -> None:
        row = self._rows.get(doi)
        if row is None:
            self._rows[doi] = [1, offset, 1 << form, raw, None if line < 0 else line]
            return
        row[0] += 1
        row[2] |= 1 << form
        if offset < row[1]:
            row[1], row[3], row[4] = offset, raw, None if line < 0 else line

    def take(
        self, buckets: int = 1, /
    ) -> tuple[list[str], list[int], list[int], list[str], list[int], list[int | None], list[int]]:
        if buckets < 1:
            raise ValueError("buckets must be positive")
        groups: list[list[tuple[str, list[Any]]]] = [[] for _ in range(buckets)]
        for doi, row in self._rows.items():
            groups[bucket_of(doi, buckets)].append((doi, row))
        self._rows = {}
        rows = [r for g in groups for r in g]
        bounds = [0]
        for g in groups:
            bounds.append(bounds[-1] + len(g))
        return (
            [d for d, _ in rows],
            [r[0] for _, r in rows],
            [r[1] for _, r in rows],
            [r[3] for _, r in rows],
            [r[2] for _, r in rows],
            [r[4] for _, r in rows],
            bounds,
        )

    def take_columns(
        self, buckets: int = 1, /
    ) -> tuple[bytes, bytes, bytes, bytes, bytes, bytes, bytes, bytes, bytes | None, list[int]]:
        dois, counts, offsets, raws, masks, lines, bounds = self.take(buckets)
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
        )


_ESCAPED = re.compile("[\udc80-\udcff]")  # invalid bytes, as surrogateescape decodes them


def _invalid_bytes(data: Any, start: int = 0, stop: int = -1, /) -> tuple[int, int]:
    """_cscan.invalid_bytes in Python: the invalid UTF-8 bytes among the characters starting in
    [start, stop), and where the first character at or after `stop` starts."""
    n = len(data)
    if stop < 0 or stop > n:
        stop = n
    start = max(0, start)
    if start >= stop:
        return 0, start
    decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
    bad = len(_ESCAPED.findall(decoder.decode(bytes(data[start:stop]))))
    # The start of a character that goes on past `stop`: complete, it is one character; broken
    # (a bad byte or the end), each of its bytes before `stop` is an invalid one, and the next
    # character starts at `stop` (as the C decoder reads them, byte by byte).
    before = len(decoder.getstate()[0])
    i = stop
    while before:
        if i >= n:
            return bad + before, stop
        out = decoder.decode(bytes(data[i : i + 1]))
        i += 1
        if out:
            return (bad + before, stop) if _ESCAPED.match(out) else (bad, i)
    return bad, stop


def _newlines(data: Any, start: int = 0, stop: int = -1, /) -> int:
    n = len(data)
    if stop < 0 or stop > n:
        stop = n
    start = max(0, start)
    return bytes(data[start:stop]).count(b"\n") if start < stop else 0


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


if _cscan is not None:
    # Counts each DOI of a document by its canonical key; take(buckets) hands out its rows as
    # lists, take_columns(buckets) as Arrow buffers (Columns).
    Mentions: Any = _cscan.Mentions
    # (data, lo, hi, rlo, rhi, base, mentions, hits, chars=False, line_base=-1, line_from=0,
    # line_to=-1) -> (reported, last_end, too_long, newlines in data[line_from:line_to] or -1)
    scan: Any = _cscan.scan
    # (data, start, stop) -> (invalid bytes, next start)
    invalid_bytes: Any = _cscan.invalid_bytes
    # (data, start, stop) -> newline bytes in data[start:stop] (line numbers of text files)
    newlines: Any = _cscan.newlines
else:
    Mentions = PyMentions
    scan = None
    invalid_bytes = _invalid_bytes
    newlines = _newlines


def bucket_of(doi: str, buckets: int) -> int:
    """A stable bucket for a DOI (the same in every process and run, unlike hash()): FNV-1a of
    its UTF-8 bytes, in C because it runs once per distinct DOI of every document."""
    return _cscan.bucket_of(doi, buckets) if _cscan is not None else _bucket_of(doi, buckets)


def buckets_of(offsets: Any, data: Any, start: int, n: int, buckets: int) -> bytes:
    """bucket_of for rows [start, start + n) of a string column given as its buffers (int32
    offsets, UTF-8 data, as Arrow keeps them): n int32s, no Python object per row."""
    if _cscan is not None:
        return _cscan.buckets_of(offsets, data, start, n, buckets)
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
) -> tuple[bytes, bytes, bytes, bytes, bytes] | None:
    """The merge's groups of n partial mention rows by (source code, record code, DOI), given as
    column buffers in first-offset order: per group in first-seen order, its first row (int32),
    counts summed (int64), least place (int64), form masks OR-ed (int32) and rows (int64); codes
    all 0 group by DOI alone. None without the C part (the merge then groups with Arrow's
    kernels)."""
    if _cscan is None:
        return None
    result: tuple[bytes, bytes, bytes, bytes, bytes] = _cscan.group_mentions(
        src, rec, doi_offsets, doi_data, doi_start, counts, places, forms, n
    )
    return result


def find_spans_utf8(data: bytes, kind: str = "plain") -> list[Span]:
    """find_spans for plain or PDF text given as UTF-8 bytes, with byte offsets: the same rules,
    run by the C matcher on the bytes themselves (invalid bytes read as U+FFFD)."""
    if kind not in ("plain", "pdf"):
        raise ValueError(f"kind must be 'plain' or 'pdf', not {kind!r}")
    if _cscan is None:
        from .find import find_spans

        text = data.decode("utf-8", "surrogateescape")
        spans = find_spans(_ESCAPED.sub("\ufffd", text), kind)
        return [Span(_byte_at(text, s.start), _byte_at(text, s.end), s.form, s.doi) for s in spans]
    hits: list[CHit] = []
    if kind == "pdf":
        _cscan.pdf_scan(data, 0, len(data), 0, len(data), 0, None, hits, rekey=REHYPHENATED)
    else:
        _cscan.scan(data, 0, len(data), 0, len(data), 0, None, hits)
    return [Span(s, e, FORMS[f], d) for s, e, f, d, _raw, _line in hits]


@functools.lru_cache(maxsize=1 << 12)
def _unescape(ref: str) -> str:
    """One character reference decoded, as html.py decodes it (html.unescape; the same few
    references recur on every page)."""
    return html.unescape(ref)


def html_spans(data: Any) -> tuple[list[tuple[int, int, int, str]], list[tuple[int, int]], int]:
    """find_spans(text, "html") on HTML given as UTF-8 bytes, in C (issue 11: the Python views
    ran at 5–10 MB/s): (start, end, form index, DOI) sorted, in bytes of the markup; (anchor,
    token end) of each candidate dropped as too long; and how many were. Needs the C matcher."""
    if _cscan is None:
        raise RuntimeError("html_spans needs the C matcher")
    spans, dropped, too_long = _cscan.html_spans(data, _unescape)
    return spans, dropped, too_long


def html_scan(
    data: Any,
    lo: int,
    hi: int,
    rlo: int,
    rhi: int,
    base: int = 0,
    mentions: Any = None,
    hits: list[CHit] | None = None,
    chars: bool = False,
    line_base: int = -1,
    line_from: int = 0,
    line_to: int = -1,
) -> tuple[int, int, int, int]:
    """scan() for HTML: the hits of html_spans that start in [lo, hi) and [rlo, rhi) counted in
    `mentions` and/or listed in `hits` as scan() does, their raw text the markup's; (reported,
    end of the last hit or dropped token chosen, too long, newlines of data[line_from:line_to])."""
    if _cscan is None:
        raise RuntimeError("html_scan needs the C matcher")
    return _cscan.html_scan(
        data, _unescape, lo, hi, rlo, rhi, base, mentions, hits, chars, line_base, line_from, line_to
    )


def pdf_scan(
    data: Any,
    lo: int,
    hi: int,
    rlo: int,
    rhi: int,
    base: int = 0,
    mentions: Any = None,
    hits: list[CHit] | None = None,
    chars: bool = False,
    line_base: int = -1,
    line_from: int = 0,
    line_to: int = -1,
) -> tuple[int, int, int, int]:
    """scan() for text extracted from a PDF: the rules of find_spans(…, "pdf") — DOIs joined
    across lines, columns and spaces, a second reading with the document's evidence — in C
    (issue 11: the Python rules ran at about 10 MB/s)."""
    if _cscan is None:
        raise RuntimeError("pdf_scan needs the C matcher")
    result: tuple[int, int, int, int] = _cscan.pdf_scan(
        data, lo, hi, rlo, rhi, base, mentions, hits, chars, line_base, line_from, line_to, REHYPHENATED
    )
    return result


def _byte_at(text: str, i: int) -> int:
    return len(text[:i].encode("utf-8", "surrogateescape"))


def _python_tables() -> dict[str, object]:
    pairs = "".join(o + c for c, o in sorted(zip(CLOSE, OPEN, strict=True)))
    return {
        "trailing": "".join(sorted(TRAILING)),
        "format": "".join(sorted(FORMAT_CHARS)),
        "openers": "".join(sorted(OPEN)),
        "closers": "".join(sorted(CLOSE)),
        "pairs": pairs,
        "views": VIEWS,
        "rxiv": RXIV_TAILS,
        "segments": RESOURCE_SEGMENTS,
        "media": MEDIA_EXTENSIONS,
        "tail_rules": len(TAIL_RULES),
        "max_doi_chars": MAX_DOI_CHARS,
        "short_window": SHORT_WINDOW,
        "left_window": LEFT_WINDOW,
        "forms": len(FORMS),
        "dehyphenation_rules": len(DEHYPHENATION_RULES),
        "pdf_hyphens": "".join(sorted(PDF_HYPHENS)),
    }


def table_differences() -> list[str]:
    """The tables on which the C matcher and the Python rules differ (none, when in step)."""
    if _cscan is None:
        return []
    c, py = _cscan.tables(), _python_tables()
    return [f"{k}: C {c.get(k)!r} != Python {v!r}" for k, v in py.items() if c.get(k) != v]


_DIFF = table_differences()
if _DIFF:
    raise ImportError(
        "the C matcher is out of step with the Python rules; rebuild it (pip install -e .): "
        + "; ".join(_DIFF)
    )
