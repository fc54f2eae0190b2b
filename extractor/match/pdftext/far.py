"""Far joins (spec §5): a DOI's rest farther down than the next line — past a page number, blank
lines or -layout's other column — taken where the piece cannot be a whole DOI (it stops in `/` or
`-`, is a journal's code alone, or is no whole DOI of its registrant's shape); and the C
matcher's entry points to them, on UTF-8 bytes."""

from __future__ import annotations

import re

from .breaks import (
    CODE_ONLY,
    DOI_CHAR_START,
    HAS_DIGIT,
    LINEBREAK,
    PAGE_NUMBER,
    SEPARATOR,
    STARTS_NEW,
    complete_name,
    suffix_of,
)
from .evidence import key_of
from .layout import (
    COLUMN_SLACK,
    FAR_CHARS,
    GAP,
    MAX_LINE,
    PASSED_COLUMN,
    below,
    doi_columns,
    in_column,
    layout_line,
)
from .shapes import SHAPES, whole_by_shape

_NUMBER_TOKEN = re.compile(r"[0-9]+(?:[ \t\r]|\Z)")
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
# Where a piece stops for far_rest: a line end, or a column gap with the other column after it.
_CUT_HERE = re.compile(r"[ \t]*\r?\n|[ \t]{3,}[^ \t\r\n]")


def _code_only(so_far: str) -> bool:
    """Whether the piece's suffix is a journal's code alone (CODE_ONLY: nbm., fmicb.), which no
    DOI is: it goes on below, as a piece that stops in `/` or `-` does."""
    suffix = suffix_of(so_far)
    return suffix is not None and CODE_ONLY.fullmatch(suffix) is not None


def _a_piece(so_far: str) -> bool:
    """Whether `so_far` may be a piece of a DOI of its registrant's shape (Shape.piece): the
    cheap test before far_rest reads lines."""
    key = key_of(so_far)
    prefix, _, suffix = key.partition("/")
    shape = SHAPES.get(prefix)
    if shape is None or whole_by_shape(key):  # whole already (most DOIs at a line end): faster
        return False
    return shape.piece.fullmatch(suffix) is not None


def go_far(text: str, b: int, so_far: str, start: int, pages: frozenset[int] = frozenset()) -> int:
    """Where the DOI `so_far` cut at `b` goes on, given the next line's `start` the line-by-line
    join took (-1 for none): far_rest's when there is none, or when the line taken is a page
    number or running header and far_rest finds the rest past it. -1 when it does not go on."""
    if start >= 0 and not PAGE_NUMBER.match(text, start):
        return start
    far = far_rest(text, b, so_far, pages)
    if far is None or (start >= 0 and PAGE_NUMBER.match(text, far)):
        return start  # a number alone below the number the next line holds: that one is the rest
    return far


def far_rest(text: str, b: int, so_far: str, pages: frozenset[int] = frozenset()) -> int | None:
    """Where the rest of a DOI cut at `b` (a line end) starts when the line-by-line join did not
    take the next line (spec §5): on the next line when it completes the registrant's shape
    (SHAPES) against the page-number and prose rules, or past blank lines, a page number or
    running header and, in -layout text, lines with nothing in the DOI's column, where the rest
    completes the shape. A piece that stops in `/` or `-` (no DOI ends so) goes on past them
    with any rest that starts no new item, one that is a journal's code alone with a number.
    A -layout line may go on with the other column's text after a gap."""
    if _CUT_HERE.match(text, b) is None or not worth_a_walk(text, b, False):
        return None
    cut = so_far[-1] in "-/"
    code = not cut and _code_only(so_far)
    if not cut and not code and not _a_piece(so_far):
        return None
    m = SEPARATOR.search(so_far)
    # no whole DOI of its registrant's shape yet, told once: a rest that makes it one is taken
    incomplete = (
        m is not None
        and so_far[: m.start()] in SHAPES
        and whole_by_shape(key_of(complete_name(so_far))) is False
    )
    if not cut and not code and not incomplete:
        return None

    # stopped at a column gap (-layout), the other column not seen again below: the line-by-line
    # join, which asks for that column, took nothing, and a cut piece goes on in its own column
    at_gap = LINEBREAK.match(text, b) is None

    def rest(run: str, skipped: int) -> bool | None:
        if incomplete and whole_by_shape(key_of(complete_name(so_far + run))) is True:
            return True
        if (skipped or at_gap) and cut and DOI_CHAR_START.match(run) and not STARTS_NEW.match(run):
            # taken, unless the line is one to pass over, when the rest has a digit: what a far
            # join makes must look minted, never a piece and a heading, a view word, a word of
            # the other column or a run of names (10.1371/ + Reviews, …-145-2- + Smithlysogeny)
            if so_far[-1] == "-" and (
                (len(run) == 1 and run.isalnum()) or (run.isdigit() and skipped == PASSED_COLUMN)
            ):
                # one character alone below a piece cut in "-", which no DOI ends with, is its
                # check character (…-01752- + 4, (77)90093- + x), as on the next line
                # (breaks.decide), and a number alone past -layout's other column its rest (y77- +
                # 183; past blank lines a page number), when no line after it is taken
                return True
            return None if HAS_DIGIT.search(run) else False
        if skipped and code and run[0] in "0123456789" and not STARTS_NEW.match(run):
            return None  # a journal's code alone goes on with its number
        return False

    return below(text, b, rest, page_top=True, pages=pages)


# What a DOI's prefix cut after "10." goes on with below: the registrant's code and separator.
_REGISTRANT = re.compile(r"([0-9]{4,9}(?:\.[0-9]+)*)(/|%2[Ff])")


def far_anchor(text: str, p: int) -> tuple[int, int] | None:
    """(start of the registrant's code, end of its separator) of a DOI whose prefix is cut after
    its `10.` at `p` where the anchor cannot read on (spec §5): in -layout text the other
    column's text follows on the line, or a page number or blank lines stand between. The code
    is on a line below, in the DOI's column, past those `far_rest` passes over."""
    b = p + 3
    if _CUT_HERE.match(text, b) is None or not worth_a_walk(text, b, True):
        return None
    found: list[int] = []

    def registrant(run: str, skipped: int) -> bool | None:
        m = _REGISTRANT.match(run)
        if m is None:
            return False
        found.append(m.end())
        return True

    r = below(text, b, registrant)
    return None if r is None else (r, r + found[-1])


def worth_a_walk(text: str, b: int, anchor: bool) -> bool:
    """The cheap test of the line after a break at `b` before far_rest or far_anchor walk (the C
    matcher makes it too, and asks them only then): it is blank; or, for a cut `10.`, it holds
    a `/`; or it has nothing in the DOI's columns (-layout's other column); or its token in the
    DOI's column is a number (a page number, a running header, a numeric rest the page-number
    rule refused); or the DOI stopped at a column gap and the line has nothing in that other
    column. Lines of DOIs one under another go on at once."""
    nl = text.find("\n", b, b + FAR_CHARS)
    if nl < 0:
        return False
    s = nl + 1
    e = text.find("\n", s, s + MAX_LINE)
    line, segments = layout_line(text[s : e if e >= 0 else s + MAX_LINE])
    if not segments:
        return True
    if anchor and ("/" in line or "%2f" in line.lower()):
        return True
    columns = doi_columns(text, b)
    if columns is None:
        return False
    ls, c0, c1 = columns
    if not any(a < c1 and z > c0 for a, z in segments):
        return True
    gap = GAP.match(text, b)
    if gap is not None and text[gap.end() : gap.end() + 1] not in ("", "\r", "\n"):
        # stopped at a column gap, and the next line has nothing in the other column: the
        # line-by-line join, which looks for that column there, took nothing
        other = gap.end() - ls
        if not any(abs(a - other) <= COLUMN_SLACK for a, _ in segments):
            return True
    col = in_column(segments, c0)
    return col is not None and _NUMBER_TOKEN.match(line, col) is not None


def far_anchor_bytes(window: memoryview, p: int) -> tuple[int, int] | None:
    """far_anchor for the C matcher, on UTF-8 bytes from over a line before the `10.`: byte
    offsets. The C matcher's own bytes, valid during the call only."""
    text = str(window, "utf-8", "surrogateescape")
    r = far_anchor(text, _char_at(window, p))
    return None if r is None else (_byte_at(text, r[0]), _byte_at(text, r[1]))


def _char_at(window: memoryview, i: int) -> int:
    """The character offset of byte `i` of UTF-8 bytes (read as the C matcher's text is)."""
    return len(str(window[:i], "utf-8", "surrogateescape"))


def _byte_at(text: str, i: int) -> int:
    """The byte offset of character `i` of a text read by _char_at."""
    return len(text[:i].encode("utf-8", "surrogateescape"))


def may_go_far(so_far: str) -> bool:
    """Whether far_rest may find a rest for the piece: past its prefix, it stops in `/` or `-`
    or is a journal's code alone, or its registrant has a shape and it does not end as a whole
    DOI of the shape does (its last run of digits, after "." or "-", as long as Shape.ends says:
    most DOIs of the registrant at a line end; nor digits after a letter, a component's or
    another form's). The C matcher asks go_far only then."""
    m = SEPARATOR.search(so_far)
    if m is None:
        return False
    if so_far[-1] in "-/" or _code_only(so_far):
        return True
    shape = SHAPES.get(so_far[: m.start()])
    if shape is None or not so_far[m.end() : m.end() + 1] or so_far[m.end()].lower() not in shape.heads:
        return False  # no shape, or another form of the registrant's (S0960-9822(00)…, s41564-…)
    d = len(so_far)
    while d > m.end() and so_far[d - 1] in "0123456789":
        d -= 1
    if d < len(so_far) and d > m.end() and so_far[d - 1] in _ASCII_LETTERS:
        return False  # digits after a letter: a component or another form (t001, nature12477)
    return d == len(so_far) or d == m.end() or so_far[d - 1] not in ".-" or len(so_far) - d not in shape.ends


def go_far_bytes(window: memoryview, b: int, so_far: str, start: int, pages: frozenset[int]) -> int:
    """go_far for the C matcher, on UTF-8 bytes from over a line before the break: byte offsets.
    The C matcher's own bytes, valid during the call only."""
    if so_far[-1] not in "-/" and not _code_only(so_far) and not _a_piece(so_far):
        return start  # far_rest would find nothing: told before the window is read
    text = str(window, "utf-8", "surrogateescape")
    r = go_far(text, _char_at(window, b), so_far, _char_at(window, start) if start >= 0 else start, pages)
    return r if r < 0 else _byte_at(text, r)
