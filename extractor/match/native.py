"""The C matcher (_cscan.c): find.py's rules for plain text, run on raw UTF-8 bytes.

The only module that imports the extension. At import it checks that the tables compiled into
C equal the Python rules they port (tails, trailing and format characters, brackets, windows,
forms), so a rule added on one side only fails at once instead of making the two disagree;
tests/test_cscan.py holds the rules themselves to find.py.
"""

from __future__ import annotations

from typing import Any

from . import _cscan
from .canonical import FORMAT_CHARS
from .find import LEFT_WINDOW, Span
from .forms import FORMS
from .rules import CLOSE, MAX_DOI_CHARS, OPEN, SHORT_WINDOW, TRAILING
from .tails import RXIV_TAILS, TAIL_RULES, VIEWS

# A hit as the C matcher reports it: (start, end, index in FORMS, canonical DOI, raw text).
CHit = tuple[int, int, int, str, str]

# Counts each DOI of a document by its canonical key; take(buckets) hands out a Chunk.
Mentions = _cscan.Mentions
# (data, lo, hi, rlo, rhi, base, mentions, hits, chars=False) -> (reported, last_end, too_long)
scan = _cscan.scan
# (data, start, stop) -> (invalid bytes, next start)
invalid_bytes = _cscan.invalid_bytes


def bucket_of(doi: str, buckets: int) -> int:
    """A stable bucket for a DOI (the same in every process and run, unlike hash()): FNV-1a of
    its UTF-8 bytes, in C because it runs once per distinct DOI of every document."""
    return _cscan.bucket_of(doi, buckets)


def buckets_of(offsets: Any, data: Any, start: int, n: int, buckets: int) -> bytes:
    """bucket_of for rows [start, start + n) of a string column given as its buffers (int32
    offsets, UTF-8 data, as Arrow keeps them): n int32s, no Python object per row."""
    return _cscan.buckets_of(offsets, data, start, n, buckets)


def find_spans_utf8(data: bytes) -> list[Span]:
    """find_spans for plain text given as UTF-8 bytes, with byte offsets: the same rules, run by
    the C matcher on the bytes themselves (invalid bytes read as U+FFFD)."""
    hits: list[CHit] = []
    _cscan.scan(data, 0, len(data), 0, len(data), 0, None, hits)
    return [Span(s, e, FORMS[f], d) for s, e, f, d, _raw in hits]


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
        "tail_rules": len(TAIL_RULES),
        "max_doi_chars": MAX_DOI_CHARS,
        "short_window": SHORT_WINDOW,
        "left_window": LEFT_WINDOW,
        "forms": len(FORMS),
    }


def table_differences() -> list[str]:
    """The tables on which the C matcher and the Python rules differ (none, when in step)."""
    c, py = _cscan.tables(), _python_tables()
    return [f"{k}: C {c.get(k)!r} != Python {v!r}" for k, v in py.items() if c.get(k) != v]


_DIFF = table_differences()
if _DIFF:
    raise ImportError(
        "the C matcher is out of step with the Python rules; rebuild it (pip install -e .): "
        + "; ".join(_DIFF)
    )
