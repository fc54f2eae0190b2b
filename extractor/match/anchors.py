"""Where a DOI can start (spec §2): every `10.<digits>/` anchor of a text, in order, in time linear
in the text whatever it holds — and, in text from a PDF, an anchor whose prefix a space or a
line break splits, or whose registrant's code went below its `10.` (pdftext.far_anchor)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import NamedTuple


def _far_anchor() -> Callable[[str, int], tuple[int, int] | None]:
    """pdftext.far_anchor, loaded with the first PDF text: plain text never needs it."""
    from .pdftext import far_anchor

    return far_anchor


def _elsewhere() -> Callable[[str, int, int], bool]:
    """pdftext.elsewhere, loaded as _far_anchor is."""
    from .pdftext import elsewhere

    return elsewhere


# Every 10-prefix DOI: "10." + registrant digits (dot-subdivided) + "/" or "%2F". The ":" is
# for EIDR URNs (RFC 7972 swaps the first "/" for ":"); it is accepted only after urn:eidr:.
# The separator is optional in the pattern, so that a run with no separator is a match (group 2
# None) and the search goes on after it: the anchors inside such a run end where it ends, before
# the same character, and fail the same way; as a required group, each of them re-read the run
# (quadratic time on "10.10.10…").
ANCHOR = re.compile(r"10\.([0-9]+(?:\.[0-9]+)*)(/|%2[Ff]|:)?")


# In PDF text a space or one line break (PDFium's are CRLF) may sit inside the prefix ("10. 1016/",
# "10.\n1371/");
# not before another "10.": "1–10. 10.1038/x" is a page range ending in 10, then a DOI (spec §2).
ANCHOR_PDF = re.compile(
    r"10\.(?:(?:[ \t]+(?:\r?\n[ \t]*)?|\r?\n[ \t]*)(?!10\.[0-9]))?([0-9]+(?:\.[0-9]+)*)(?:[ \t]?(/|%2[Ff]|:))?"
)


class FarAnchor(NamedTuple):
    """An anchor whose `10.` is cut from its registrant's code (pdftext.far_anchor): the code and
    separator at `r` on a line below, read as ANCHOR_PDF's match would be."""

    p: int
    r: int
    q: int
    digits: str
    sep: str

    def start(self) -> int:
        return self.p

    def end(self) -> int:
        return self.q

    def group(self, i: int) -> str:
        return self.digits if i == 1 else self.sep


_CUT_TEN = re.compile(r"10\.(?=[ \t\r\n])")


_DIGITS = frozenset("0123456789")


def pdf_anchor_matches(text: str) -> Iterator[re.Match[str] | FarAnchor]:
    """ANCHOR_PDF's matches; after a run with no separator the search goes on at its last "10."
    (in PDF text "10.10. 1016/" has an anchor that starts inside the run). A `10.` at a line end
    or column gap where no anchor with a separator starts is read with its registrant's code
    below, where there is one (pdftext.far_anchor)."""
    search = ANCHOR_PDF.search
    cuts = _CUT_TEN.finditer(text)
    cut = next(cuts, None)
    pos = 0
    while True:
        m = search(text, pos)
        ms = len(text) if m is None else m.start()
        # a prefix cut after its `10.` whose code the regex read from another -layout column (the
        # next line's other column, or past a column gap): no anchor; far_anchor reads its own
        astray = (
            m is not None
            and m.start(1) > ms + 3
            and m.group(2) is not None
            and _elsewhere()(text, ms + 3, m.start(1))
        )
        while cut is not None and cut.start() <= ms:
            c = cut.start()
            cut = next(cuts, None)
            if (
                c < pos
                or (c == ms and m is not None and m.group(2) in ("/", "%2F", "%2f") and not astray)
                or (c > 0 and text[c - 1] in _DIGITS)
            ):
                continue  # "410." ends a page range: glued to a digit, no DOI starts there (spec §2)
            far = _far_anchor()(text, c)
            if far is not None:
                r, q = far
                sep = text[q - 1] if text[q - 1] == "/" else text[q - 3 : q]
                yield FarAnchor(c, r, q, text[r : q - len(sep)], sep)
        if m is None:
            return
        if not astray:
            yield m
        pos = m.end() if m.group(2) is not None else max(m.start() + 1, m.end() - 2)


def anchors(text: str, pdf: bool) -> Iterator[tuple[int, str, str, int]]:
    """(start, prefix digits, separator, end) of every `10.<digits>/` anchor, in order, in time
    linear in the text whatever it holds."""
    for m in pdf_anchor_matches(text) if pdf else ANCHOR.finditer(text):
        if m.group(2) is not None:
            yield m.start(), m.group(1), m.group(2), m.end()
