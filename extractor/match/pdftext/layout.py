"""The geometry of text from a PDF (spec §5): `pdftotext -layout` sets columns apart by runs of
spaces, and a DOI's rest is found below it, in its own column — on the next line, or past blank
lines, page numbers, running headers and the other column's lines (`below`)."""

from __future__ import annotations

import re
from collections.abc import Callable

from ..bounds import PAGE_CHARS
from ..rules import RUN
from .breaks import LINEBREAK, NEXT_TOKEN_RUN, STARTS_NEW

GAP = re.compile(r"[ \t]{3,}")
_SEGMENT = re.compile(r"[^ \t\n]+(?:[ \t]{1,2}[^ \t\n]+)*")
MAX_LINE = 1000
COLUMN_SLACK = 4
HANGING_INDENT = 12


_BREAK_THEN_TOKEN = re.compile(LINEBREAK.pattern + "(" + NEXT_TOKEN_RUN.pattern + ")")
FAR_LINES = 4  # lines read past (blank, a page number, the other column's) for a DOI's rest
FAR_CHARS = 1024  # and never further than this past the break (within a scan window's overlap)
_PAGE_ALONE = re.compile(r"[1-9][0-9]{0,3}")
_SEGMENT_BACK = re.compile(r"(?:[^ \t\n]+(?:[ \t]{1,2}[^ \t\n]+)*)?")
# A running header or page number line: "154 A. Sundström et al." or "Page 3".
_RUNNING_HEAD = re.compile(r"[1-9][0-9]{0,3}[ \t]+[A-Z]|(?ai:page)[ \t]+[0-9]+\Z")


def _block_starts(line: str) -> list[int]:
    """Columns where the blocks of a layout line start (blocks are apart by 3+ spaces)."""
    return [m.start() for m in _SEGMENT.finditer(line)]


def _line_start(text: str, i: int) -> int:
    """Where the line holding `i` starts, its newline looked for in the MAX_LINE characters
    before (0 when none is: a line too long to be a column's is read from there as from 0)."""
    return text.rfind("\n", max(0, i - MAX_LINE), i) + 1


def _line_above(text: str, line_start: int) -> list[int]:
    """The block starts of the line before the one that starts at `line_start` (none for the
    first line; a line longer than MAX_LINE read from MAX_LINE characters before its end)."""
    if line_start == 0:
        return []
    end = line_start - 1
    return _block_starts(text[_line_start(text, end) : end])


def continuation(text: str, b: int) -> int | None:
    """Where the rest of a DOI that stops at `b` would start.

    The DOI stops at a line end, or at a column gap with the other column's text after it. Its
    rest is on the next line, in the DOI's own column: the next line's block that starts where
    one of the blocks before the DOI on its line starts (nearest the DOI first — justified text
    has wide gaps inside a column too). A small hanging indent is allowed in single-column text.
    """
    m = LINEBREAK.match(text, b)
    after_gap = None  # column of the text after a gap that ends the DOI on its line
    if m is None:
        g = GAP.match(text, b)
        if g is None or g.end() >= len(text) or text[g.end()] in "\r\n":
            return None
        nl = text.find("\n", g.end(), g.end() + MAX_LINE)
        after_gap = g.end()
    else:
        nl = text.find("\n", b, b + MAX_LINE)
    if nl < 0:
        return None
    line_start = _line_start(text, b)
    here = _block_starts(text[line_start:b])
    next_start = nl + 1
    next_end = text.find("\n", next_start, next_start + MAX_LINE)
    nxt = _block_starts(text[next_start : next_end if next_end >= 0 else next_start + MAX_LINE])
    if not nxt or not here:
        return None  # a blank line: a paragraph or page break ends the DOI
    if after_gap is not None:
        # Only a column boundary, seen again on the next line or on the line above, lets the DOI
        # go on below; a wide gap inside a justified column ends it.
        gap_col = after_gap - line_start
        if not any(abs(c - gap_col) <= COLUMN_SLACK for c in nxt + _line_above(text, line_start)):
            return None
    for col in reversed(here):
        for c in nxt:
            if abs(c - col) <= COLUMN_SLACK:
                return next_start + c
    if m is not None and len(here) == 1 and len(nxt) >= 1 and abs(nxt[0] - here[0]) <= HANGING_INDENT:
        return next_start + nxt[0]
    return None


def elsewhere(text: str, b: int, r: int) -> bool:
    """Whether the registrant's code at `r` of a prefix cut after its `10.` at `b` (by a line
    break or a column gap) is another column's: the layout puts the DOI's rest elsewhere (spec §5,
    -layout sets columns side by side: a cut `10.` goes on in its own column)."""
    between = text[b:r]
    if "\n" not in between and GAP.search(between) is None:
        return False
    cont = continuation(text, b)
    if cont is not None:
        return cont != r
    if "\n" not in between:
        return False
    # no block of the next line goes on in the DOI's column: the code is the DOI's only there
    # (its block's start, or a hanging indent in), and not the other column's
    here = _block_starts(text[_line_start(text, b) : b])
    x = r - (text.rfind("\n", b, r) + 1)
    return bool(here) and not here[-1] - COLUMN_SLACK <= x <= here[-1] + HANGING_INDENT


def new_below(text: str, b: int) -> bool:
    """The DOI stops at `b` at a line end and the next line, one block (no column gap), starts
    something new (STARTS_NEW, not "("): whichever place continuation picked, decide would
    not join it, and no space join or box break can follow — decided without the column
    search, as for each DOI of a reference list."""
    m = _BREAK_THEN_TOKEN.match(text, b)
    if m is None or text[m.start(1)] == "(" or STARTS_NEW.match(m.group(1)) is None:
        return False
    nl = text.find("\n", m.start(1), m.start(1) + MAX_LINE)
    return GAP.search(text, m.start(1), nl if nl >= 0 else m.start(1) + MAX_LINE) is None


def doi_columns(text: str, b: int) -> tuple[int, int, int] | None:
    """(its line's start, its block's first column, its last column) of a DOI that stops at `b`:
    the block is the last of _SEGMENT's on its line, read back from `b`. None when no newline
    is in the MAX_LINE characters before (a line too long to be a column's)."""
    nl = text.rfind("\n", max(0, b - MAX_LINE), b)
    if nl < 0 and b > MAX_LINE:
        return None
    ls = nl + 1
    block = _SEGMENT_BACK.match(text[ls:b][::-1]).end()  # type: ignore[union-attr]  # a starred pattern always matches
    return ls, b - ls - block, b - ls


def layout_line(raw: str) -> tuple[str, list[tuple[int, int]]]:
    """A line below a break, form feeds and CRs read as spaces, and its blocks (_SEGMENT's
    spans, in columns)."""
    line = raw.replace("\f", " ").replace("\r", " ")
    return line, [(g.start(), g.end()) for g in _SEGMENT.finditer(line)]


def in_column(segments: list[tuple[int, int]], c0: int) -> int | None:
    """The first block that starts in the DOI's column: where its block starts, or a hanging
    indent in."""
    return next((a for a, _ in segments if c0 - COLUMN_SLACK <= a <= c0 + HANGING_INDENT), None)


# What below() passed over before a line, as `take` is told it: nothing, blank lines, page
# numbers or running headers, or (besides) -layout's other column's lines.
NOT_PASSED, PASSED, PASSED_COLUMN = 0, 1, 2


def column_top(text: str, b: int) -> int | None:
    """Where the rest of a DOI that ends the left -layout column of its page at `b` starts: at
    the head of the page's other column, on the page's first lines above it (-layout sets a
    page's columns side by side, so what follows a column's foot is printed at the page's top).
    None without the page's top within PAGE_CHARS, without another column right of the piece
    (_other_column), or without that column's token on the page's first line (past blank lines
    and a running header)."""
    columns = doi_columns(text, b)
    lo = b - PAGE_CHARS
    f = text.rfind("\f", max(0, lo), b)
    if columns is None or (f < 0 and lo > 0) or (f > 0 and text[f - 1] != "\n"):
        return None  # no page's top within reach, or a form feed inside a line
    top = max(f, 0)  # the page's first line, its form feed a column as pdftotext sets it
    other = _other_column(text[top : columns[0]], columns[2])
    if other is None:
        return None
    i = top
    for _ in range(FAR_LINES):
        e = text.find("\n", i, b)
        if e < 0:
            return None
        line, segments = layout_line(text[i:e])
        if segments and not _RUNNING_HEAD.match(line.strip()):
            col = next((a for a, _ in segments if abs(a - other) <= COLUMN_SLACK), None)
            return None if col is None else i + col
        i = e + 1
    return None


_COLUMN_LINES = 3  # lines of a page whose blocks start at a column, for it to be one


def _other_column(page: str, c1: int) -> int | None:
    """The column where the page's other column starts, right of a piece that ends at column
    `c1`: the block start right of it that most of the page's lines above the piece share
    (within COLUMN_SLACK; at least _COLUMN_LINES of them), or None (a page of one column)."""
    starts = [[a for a, _ in layout_line(line)[1] if a > c1] for line in page.split("\n")]
    best, votes = None, _COLUMN_LINES - 1
    for a in sorted({a for line in starts for a in line}):
        n = sum(any(abs(x - a) <= COLUMN_SLACK for x in line) for line in starts)
        if n > votes:
            best, votes = a, n
    return best


def below(
    text: str,
    b: int,
    take: Callable[[str, int], bool | None],
    page_top: bool = False,
    pages: frozenset[int] = frozenset(),
) -> int | None:
    """Where a DOI cut at `b` goes on below: the first line, at most FAR_LINES down and FAR_CHARS
    on, with a token in the DOI's column (its block's start, or a hanging indent in) that `take`
    takes (True), past blank lines, running headers, page numbers and lines with nothing in the
    DOI's column (-layout's other column) that it does not take; `take` None takes the token
    unless its line is one to pass over. A number alone on its line that `take` takes is taken
    only when no line after it is (a page number or the rest: j.canlet.2021.05. + 1578 + 024).
    With `page_top`, a DOI that ends its column's page goes on at the head of the page's other
    column (column_top) when `take` takes that token. A number alone that is one of the
    document's `pages` (evidence.page_numbers) is passed over. The token's offset, or None."""
    columns = doi_columns(text, b)
    if columns is None or columns[1] == columns[2]:
        return None  # a line too long to be a column's, or no block before `b`
    _, c0, c1 = columns
    limit = min(len(text), b + FAR_CHARS)
    i = text.find("\n", b, limit)
    skipped = NOT_PASSED  # what the walk passed over before this line
    new_page = False
    number: int | None = None  # a number alone that was taken, if nothing after it is
    for _ in range(FAR_LINES + 1):
        if i < 0:
            break
        start = i + 1
        end = text.find("\n", start, limit)
        raw = text[start : end if end >= 0 else limit]
        if page_top and not new_page and number is None and "\f" in raw:
            top = column_top(text, b)
            if top is not None:
                run = RUN.match(text, top).group()  # type: ignore[union-attr]  # a starred pattern always matches
                if run and take(run, PASSED_COLUMN) is not False:
                    return top
        new_page = new_page or "\f" in raw
        line, segments = layout_line(raw)
        i = end
        if not segments:
            skipped = skipped or PASSED
            continue
        body = line.strip()
        alone = _PAGE_ALONE.fullmatch(body) is not None
        if _RUNNING_HEAD.match(body) or (alone and int(body) in pages):
            # "154 A. Sundström et al.", or the document's page number: never a DOI's rest
            skipped = skipped or PASSED
            continue
        if new_page:  # a page's first line: the rest of a column's last DOI starts it
            col: int | None = segments[0][0]
            new_page = False
        else:
            col = in_column(segments, c0)
        run = "" if col is None else RUN.match(line, col).group()  # type: ignore[union-attr]  # a starred pattern always matches
        took = take(run, skipped) if run else False
        if took and number is not None and STARTS_NEW.match(run):
            took = False  # after a number that completes it, a reference number (119.) does not
        if took and not alone:
            return start + col  # type: ignore[operator]  # run is empty when col is None
        if alone:  # a page number, or the rest: a line after it may say
            if took and number is None:
                number = start + col  # type: ignore[operator]
            skipped = skipped or PASSED
            continue
        if not any(a < c1 and e > c0 for a, e in segments):
            skipped = PASSED_COLUMN  # the other column's line (-layout): nothing in the DOI's column
            continue
        if took is None:
            return start + col  # type: ignore[operator]
        break
    return number
