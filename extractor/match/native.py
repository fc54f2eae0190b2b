"""The C matcher (_cscan.c, from cscan/): find.py's rules for plain text, PDF text and HTML,
run on raw UTF-8 bytes (tests/test_cscan.py and tests/test_chtml.py hold it to find_spans).

The only module that imports the extension. At import it checks that the tables compiled into
C equal the Python rules they port, by content: characters, brackets, windows, the tail and
rehyphenation rules' patterns and the forms in order; a rule changed on one side only fails at
once instead of making the two disagree.
"""

from __future__ import annotations

import codecs
import functools
import html
import re
from collections.abc import Callable
from typing import Any

from .canonical import FORMAT_CHARS, PDF_HYPHENS
from .find import LEFT_WINDOW, REHYPHENATED, Span
from .forms import FORMS
from .identifiers import canonicalize
from .pdf import DEHYPHENATION_RULES, FAR_CHARS, SHAPES, far_anchor_bytes, glued_page_end, go_far_bytes
from .rules import CLOSE, MAX_DOI_CHARS, OPEN, SHORT_WINDOW, TRAILING
from .syntaxes import MARKS
from .tails import DOI_PATH_MARKER, MEDIA_EXTENSIONS, RESOURCE_SEGMENTS, RXIV_TAILS, TAIL_RULES, VIEWS

try:
    from . import _cscan
except ImportError:  # built without a C compiler (setup.py: the extension is optional)
    _cscan = None  # type: ignore[assignment]

# Whether the C extension is here. Without it every text goes to the Python matcher (the
# reference for every rule, so results are the same, only slower) and the helpers below run
# in Python: the package installs and works where nothing can be compiled.
HAVE_C = _cscan is not None
MATCHER = "C" if HAVE_C else "Python (the C extension was not built)"

# A hit as the C matcher reports it: (start, end, index in FORMS, canonical DOI, raw text, 1-based
# line or None when lines are not counted).
CHit = tuple[int, int, int, str, str, int | None]

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


def _no_c(*args: Any, **kw: Any) -> tuple[int, int, int, int]:
    raise RuntimeError("this needs the C matcher, which was not built")


if _cscan is not None:
    # (data, lo, hi, rlo, rhi, base, mentions, hits, chars=False, line_base=-1, line_from=0,
    # line_to=-1) -> (reported, last_end, too_long, newlines in data[line_from:line_to] or -1);
    # `mentions` is a sink (match/cscan/sink.h): a table with add(doi, offset, form, raw, line)
    scan = _cscan.scan
    # (texts, start, mentions, head, sniff_kind, sniff_syntax, doc_base) -> (next, reported,
    # too_long): scan() of a batch of records' texts from `start` on, each document doc_base + its
    # index in `mentions`, up to the first that is not plainly prose (see _cscan.c)
    scan_texts = _cscan.scan_texts
    # scan_texts for an Arrow string array's buffers: (offsets, data, offset, length, large, start,
    # mentions, head, sniff_kind, sniff_syntax, doc_base) -> (next, reported, too_long)
    scan_arrow_texts = _cscan.scan_arrow_texts
    # (data, start, stop) -> (invalid bytes, next start)
    invalid_bytes = _cscan.invalid_bytes
    # (data, start, stop) -> newline bytes in data[start:stop] (line numbers of text files)
    newlines = _cscan.newlines
    _cscan.set_far(
        go_far_bytes,
        far_anchor_bytes,
        glued_page_end,
        tuple(SHAPES),
        tuple(s.ends for s in SHAPES.values()),
        tuple(s.heads for s in SHAPES.values()),
        FAR_CHARS,
    )
else:
    scan = _no_c
    scan_texts = _no_c
    scan_arrow_texts = _no_c
    invalid_bytes = _invalid_bytes
    newlines = _newlines


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


Spans = tuple[list[tuple[int, int, int, str]], list[tuple[int, int]], int]


def syntax_spans(data: Any, syntax: str = "html") -> Spans:
    """find_spans on a document read through views built in C — HTML (find_spans(text, "html"))
    or a source syntax read in C (spec §7: "wikitext", "csv", "latex", "bibtex"; find_spans(text,
    syntax=…)) — given as UTF-8 bytes: (start, end, form index, DOI) sorted, in bytes of the source; (anchor, token
    end) of each candidate dropped as too long; and how many were. Needs the C matcher."""
    if _cscan is None:
        raise RuntimeError("syntax_spans needs the C matcher")
    spans: Any = getattr(_cscan, f"{syntax}_spans")
    result: Spans = spans(data, _unescape)
    return result


def html_spans(data: Any) -> Spans:
    """syntax_spans of HTML, in C (the Python views ran at 5–10 MB/s)."""
    return syntax_spans(data, "html")


# scan()'s arguments and result, for a document read through views built in C.
ViewsScan = Callable[..., tuple[int, int, int, int]]


def _views_scan(entry: str) -> ViewsScan:
    """scan() for a document whose views are built in C (HTML, or a source syntax): the hits of
    its views that start in [lo, hi) and [rlo, rhi) of the source, counted in `mentions` and/or
    listed in `hits` as scan() does, their raw text the source's; (reported, end of the last hit
    or dropped token chosen, too long, newlines of data[line_from:line_to])."""

    def views_scan(
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
        if _cscan is None:
            raise RuntimeError(f"{entry} needs the C matcher")
        result: tuple[int, int, int, int] = getattr(_cscan, entry)(
            data, _unescape, lo, hi, rlo, rhi, base, mentions, hits, chars, line_base, line_from, line_to
        )
        return result

    views_scan.__name__ = entry
    return views_scan


# HTML and the source syntaxes read in C, each its views built and searched in C (the kind's
# and the syntax registry's c_entry name these).
html_scan = _views_scan("html_scan")
wikitext_scan = _views_scan("wikitext_scan")
csv_scan = _views_scan("csv_scan")
latex_scan = _views_scan("latex_scan")
bibtex_scan = _views_scan("bibtex_scan")


def canonical_column(
    offsets: Any, data: Any, validity: Any | None, offset: int, length: int, large: bool
) -> tuple[bytes, bytes, bytes, int] | None:
    """canonicalize over an Arrow string column's buffers (offsets int32, or int64 when `large`;
    validity None when no value is null), in C: (validity, offsets, data) of the canonical
    DOIs' column of the same type, and its null count; None without the C matcher."""
    if _cscan is None:
        return None
    return _cscan.canonical_column(offsets, data, validity, offset, length, large, canonicalize)


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
    (the Python rules ran at about 10 MB/s)."""
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
        # the rules by their patterns: (pattern, flags, context) and (pattern, flags, replacement)
        "tail_rules": tuple(
            s
            for p, ctx in TAIL_RULES
            for s in (p.pattern, str(int(p.flags)), "" if ctx is None else ctx.pattern)
        ),
        "max_doi_chars": MAX_DOI_CHARS,
        "short_window": SHORT_WINDOW,
        "left_window": LEFT_WINDOW,
        "forms": tuple(f.value for f in FORMS),
        "dehyphenation_rules": tuple(
            s for p, repl in DEHYPHENATION_RULES for s in (p.pattern, str(int(p.flags)), repl)
        ),
        "pdf_hyphens": "".join(sorted(PDF_HYPHENS)),
        # the marks that send a record's text to the syntaxes' sniffs (syntaxes.Marks)
        "syntax_marks": tuple(MARKS),
        "doi_path_marker": (DOI_PATH_MARKER.pattern, str(int(DOI_PATH_MARKER.flags))),
    }


def table_differences(full: bool = False) -> list[str]:
    """The tables on which the C matcher and the Python rules differ (none, when in step). The
    character classes are read over the Basic Multilingual Plane, where all of them lie (at every
    import), or with `full` over every code point (tests)."""
    if _cscan is None:
        return []
    c, py = _cscan.tables(full), _python_tables()
    return [f"{k}: C {c.get(k)!r} != Python {v!r}" for k, v in py.items() if c.get(k) != v]


_DIFF = table_differences()
if _DIFF:
    raise ImportError(
        "the C matcher is out of step with the Python rules; rebuild it (pip install -e .): "
        + "; ".join(_DIFF)
    )
