"""Spec §5, the joins of a DOI across line breaks and spaces, piece by piece: the line-by-line
decision (breaks.py) in the DOI's column (layout.py), and the far joins (far.py)."""

from __future__ import annotations

from collections.abc import Callable

from ..rules import RUN
from .breaks import (
    BOX_BREAK,
    HAS_OPENER,
    MAX_JOINS,
    NEXT_TOKEN_RUN,
    PAGE_NUMBER,
    SPACES,
    decide,
    space_join,
    suffix_of,
)
from .evidence import Evidence
from .far import go_far, may_go_far
from .layout import continuation, new_below


def join_pieces(
    text: str,
    p: int,
    q: int,
    pieces: list[tuple[int, int]],
    evidence: Evidence | None,
    pages: Callable[[], frozenset[int]],
) -> tuple[list[tuple[int, int]], bool]:
    """Extend a DOI that starts at `p` across line breaks where the break falls inside it.

    `pieces` are (start, end) spans of the text that make up the DOI so far; returns the
    spans after joining, and whether a break was left unjoined on a guess. `pages` gives the
    text's page numbers (evidence.page_numbers), which a far join passes over.
    """
    uncertain = False
    for _ in range(MAX_JOINS):
        b = pieces[-1][1]
        so_far = "".join(text[a:e] for a, e in pieces)
        nxt = _next_piece(text, b, so_far, evidence)
        uncertain = uncertain or nxt is None
        start = -1 if nxt is None else nxt
        if may_go_far(so_far):
            start = go_far(text, b, so_far, start, pages())
        if start < 0:
            break
        run = RUN.match(text, start).group()  # type: ignore[union-attr]  # a starred pattern always matches
        pieces = [*pieces, (start, start + len(run))]
    return pieces, uncertain


def _next_piece(text: str, b: int, so_far: str, evidence: Evidence | None) -> int | None:
    """Where the DOI `so_far`, stopping at `b`, goes on in the next line or after spaces: an
    offset, -1 when it does not, None when it does not on a guess."""
    if new_below(text, b):
        return -1
    cont = continuation(text, b)
    if cont is None and so_far[-1] in "-/" and suffix_of(so_far) is not None:
        # pdfminer sets its text boxes apart by a blank line: a DOI that stops in "-" or "/",
        # which no DOI ends with, goes on in the next box (a column's end broke it)
        bm = BOX_BREAK.match(text, b)
        if bm is not None and not PAGE_NUMBER.match(text, bm.end()):
            cont = bm.end()
    if cont is None:
        if so_far[-1] not in "-/.>" and HAS_OPENER.search(so_far) is None:
            return -1  # no space can be inside this DOI (space_join): the common case, at once
        sm = SPACES.match(text, b)
        if sm is None:
            return -1
        # spaces or TABs inside the DOI (spec §5)
        nm = NEXT_TOKEN_RUN.match(text, sm.end())
        if nm is None or not space_join(so_far, nm.group()):
            return -1
        return sm.end()
    nm = NEXT_TOKEN_RUN.match(text, cont)
    if nm is None:
        return -1
    join, guess = decide(so_far, nm.group(), evidence, text[cont : cont + 8])
    if not join:
        return None if guess else -1
    return cont
