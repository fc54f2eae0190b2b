"""Repair of DOIs that text extraction from a PDF broke across lines or spaces (spec §5).

The decision uses the evidence a reader uses: the character before the break, what the next
line starts with, and — for breaks that could be either — whether the joined string is a DOI
the same document shows unbroken, or has the shape of this registrant's other DOIs there.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from .canonical import PDF_HYPHENS, canonical_key
from .forms import Form
from .rules import CLOSE, OPEN, RUN, end_of_name

MAX_JOINS = 6

_LINEBREAK = re.compile(r"[ \t]*\r?\n[ \t]*")
_BOX_BREAK = re.compile(r"[ \t]*\r?\n[ \t]*\r?\n[ \t]*(?=\S)")
_SPACES = re.compile(r"[ \t]{1,2}")
# The longest token read after a break for the rest of a DOI.
NEXT_TOKEN = 300
_NEXT_TOKEN = re.compile(rf'[^\s"]{{1,{NEXT_TOKEN}}}')

# What a next line starts with when it is not the rest of a DOI: a new label, identifier or
# URL, a reference number ("46." "[46]" "(46)" "46)"), a PMID, a bullet or dash.
_STARTS_NEW = re.compile(
    r"""(?ix)(?:
        doi\b | doi[:：] | p?mid\b | pmid[:：] | pubmed | medline | pmcid | pmc\d | https?: | www\. | urn: | info: | isbn | issn
      | arxiv | 10\.\d{4,}
      | \[\d+\]? | \(\d+\) | \d{1,4}[.)\]]\Z | [•·▪–—]
    )"""
)
_DOI_CHAR_START = re.compile(r"[0-9A-Za-z(\[<_-]")
# Spec §5: a continuation may start with "(" when the piece ends in an ISSN-like NNNN-NNN[NX]
# (Elsevier's pre-2000 10.1016/0022-3956 + (75)90026-6) or inside an open bracket of the DOI.
_ISSN_END = re.compile(r"[0-9]{4}-[0-9]{3}[0-9Xx]\Z")
# A line that starts with "-" or "_" glued to a letter or digit goes on with a token the layout
# broke (https://doi.org/10.18429/JACoW + -HP071-WEPTY035): prose never starts a line so.
_GLUED_DASH = re.compile(r"[-_][0-9A-Za-z]")
# Spec §5: a page number or running header is not a DOI's rest: a number without a leading zero
# alone on its line (pypdf and PDFium join pages with a newline) or before a running header
# ("154 A. Sundström et al."). A DOI's numeric pieces after a "." carry their zeros (…2008.04.
# + 026).
_PAGE_NUMBER = re.compile(r"[1-9][0-9]{0,3}(?:[ \t]*(?:\r?\n|\Z)|[ \t]+[A-Z])")
# But no DOI is a journal's code alone (none of the 9,240 DOIs of the corpora's gold): a suffix
# that is one (nbm., vetr.) goes on with a number alone on the next line (10.1002/nbm. + 4520).
_CODE_ONLY = re.compile(r"[A-Za-z]{2,12}\.")
# Spec §5: spaces and TABs a PDF tool put inside a DOI. The left piece ends inside the DOI: after
# "-" (10.1158/2159-\t8290.CD-\t21-\t1033), after an abbreviation and "." (appi. ajp.2010…),
# inside an open bracket (SICI's <15::AID-…); and the right side is no word of prose: it has a
# digit.
_ABBREVIATION_DOT = re.compile(r"(?:^|[/.])[a-z]{1,12}\.\Z")
_SICI_CHECK = re.compile(r"[0-9]\.[0-9]\.CO;[0-9]", re.I)
_CONTINUATION = re.compile(r"[^\s]*[0-9]")
# A publisher's view segment at the end of what a join made: the join went too far.
VIEW_SEGMENTS = (
    "abstract",
    "full",
    "pdf",
    "epdf",
    "pdfdirect",
    "fulltext",
    "html",
    "references",
    "suppinfo",
    "citedby",
    "figures",
    "tables",
    "download",
)
VIEW_TAIL = re.compile(r"/(?:" + "|".join(VIEW_SEGMENTS) + r")/?\Z", re.I)
_LOWER_OR_DIGIT = re.compile(r"[a-z0-9]")
# A word of prose: lower case, or capitalized (showed, The, Alvarez-Ponce).
_PROSE_WORD = re.compile(r"[A-Z]?[a-z]+(?:-[A-Z]?[a-z]+)*\Z")


# pdftotext (default mode) drops the hyphen of a word hyphenated at a line end, which moves the
# rest of a DOI up to its line: nothing positional is left to see. Where the DOI structure of a
# large registrant makes the hyphenless form impossible, the hyphen is put back. Each rule is
# (pattern on the DOI name, replacement); extend the table as registrant patterns turn up, and
# with it the C matcher's prefilter of the names a rule may touch (_cscan.c, may_rehyphenate;
# native.py checks the count).
DEHYPHENATION_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # An ISSN is always NNNN-NNNX: Elsevier 0005-2795(77)…, S0140-6736(11)…, Wiley 1097-0142(2001…),
    # (SICI)1097-4571(1998…).
    (re.compile(r"\A(10\.\d+/(?:\(SICI\))?S?)(\d{4})(\d{3}[\dX])(?=\()", re.I), r"\1\2-\3"),
    # Blackwell/Wiley j.1365-2133.1977…
    (re.compile(r"\A(10\.\d+/j\.)(\d{4})(\d{3}[\dX])(?=\.)", re.I), r"\1\2-\3"),
    # SICI check: …>3.0.CO;2-O
    (re.compile(r"(>\d\.\d\.CO;\d)([\dA-Z])\Z", re.I), r"\1-\2"),
    # Springer sJJJJJ-YYY-NNNNN-C
    (re.compile(r"\A(10\.\d+/s\d{5})(\d{3}-\d{5}-[\dA-Z])\Z", re.I), r"\1-\2"),  # check: digit or letter
    (re.compile(r"\A(10\.\d+/s\d{5}-\d{3})(\d{5}-[\dA-Z])\Z", re.I), r"\1-\2"),
    # …and before its check character: s41418-021-00798-9 (none of MEDLINE's 2,274 has six digits)
    (re.compile(r"\A(10\.\d+/s\d{5}-\d{3}-\d{5})([\dA-Z])\Z", re.I), r"\1-\2"),
    # Baywood/SAGE (10.2190) ids of four blocks of four: DAC5-TPV6-XUHL-CRMV
    (
        re.compile(
            r"\A(10\.\d+/)(?=(?:[^-]*-){2})([A-Z0-9]{4})-?([A-Z0-9]{4})-?([A-Z0-9]{4})-?([A-Z0-9]{4})\Z", re.I
        ),
        r"\1\2-\3-\4-\5",
    ),
    # Lippincott 00006534-197903000-00011 (under 10.1097, 10.1288 and others)
    (re.compile(r"\A(10\.\d+/\d{8})-?(\d{9})-?(\d{5})\Z"), r"\1-\2-\3"),
    # SICI contribution id: <148::AID-JCLP2270350124>
    (re.compile(r"(::AID)(?=[A-Z])", re.I), r"\1-"),
    # Elsevier's pre-2000 item number and check digit: (79)90007-2
    (re.compile(r"(\(\d{2}\)\d{5})([\dX])\Z", re.I), r"\1-\2"),
    # An ISSN at the start of the suffix is never run into the next number: 0022-1317-34-1-189
    (re.compile(r"\A(10\.\d+/(?!97[89])\d{4}-\d{3}[\dX])(?=\d)", re.I), r"\1-"),  # 978/979: an ISBN
    # Thieme s-0028-1095566
    (re.compile(r"\A(10\.1055/[a-z])-?(\d{4})-?(\d{7})\Z", re.I), r"\1-\2-\3"),
    # Annual Reviews annurev-pathol-020712-163923
    (re.compile(r"\A(10\.1146/annurev-[a-z]+)(\d{6}-\d{6})\Z", re.I), r"\1-\2"),
    # Chinese Medical Association cma.j.cn511374-20200924-00691 (all 18 of MEDLINE's)
    (re.compile(r"\A(10\.3760/cma\.j\.cn\d{6})-?(\d{8})-?(\d{5})\Z", re.I), r"\1-\2-\3"),
)


def _any_of(rules: list[re.Pattern[str]]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?{'i' if p.flags & re.I else ''}:{p.pattern})" for p in rules))


# Whether any rule can apply at all: a match of the rules anchored at the name's start and a
# search of the others (which start with a literal: the search skips to it), instead of a
# substitution per rule, for the names (most) that no rule touches.
_ANY_AT_START = _any_of([p for p, _ in DEHYPHENATION_RULES if p.pattern.startswith(r"\A")])
_ANY_INSIDE = _any_of([p for p, _ in DEHYPHENATION_RULES if not p.pattern.startswith(r"\A")])


def rehyphenate(name: str) -> str:
    """The DOI name with hyphens put back where pdftotext's dehyphenation took them out."""
    if _ANY_AT_START.match(name) is None and _ANY_INSIDE.search(name) is None:
        return name
    for pattern, repl in DEHYPHENATION_RULES:
        name = pattern.sub(repl, name)
    return name


def _key(name: str) -> str:
    return canonical_key(name, True)


def shape_of(key: str) -> str:
    """Registrant prefix and the character classes of the suffix: 10.1371/aaaaaaa.aaaa.9999999."""
    prefix, _, suffix = key.partition("/")
    return prefix + "/" + re.sub(r"[0-9]", "9", re.sub(r"[a-z]", "a", suffix))


@dataclass(slots=True)
class Evidence:
    """What a PDF document says about its own DOIs, for deciding line-break joins (spec §5)."""

    dois: set[str] = field(default_factory=set)
    shapes: set[str] = field(default_factory=set)
    parents: set[str] = field(default_factory=set)

    def add(self, key: str, certain: bool) -> None:
        self.dois.add(key)
        if certain:
            self.shapes.add(shape_of(key))
        slash = key.find("/")
        for i in range(slash + 2, len(key)):
            if key[i] in "./":
                self.parents.add(key[:i])

    def extends(self, key: str) -> bool:
        """True when `key` is a whole-component prefix of a DOI seen, as a parent of its
        figure or table DOIs (10.1371/journal.pone.0046041 of …0046041.t001)."""
        return key in self.parents


def _complete_name(s: str) -> str:
    return s[: end_of_name(s, Form.BARE, "")]


# The prefix's separator: "/", or "%2F" in a percent-encoded DOI (10.1234%2Fabc, spec §1).
_SEPARATOR = re.compile("/|%2[Ff]")


def _suffix(so_far: str) -> str | None:
    """The DOI's suffix read so far — after its separator — or None while still in the prefix.
    A percent-encoded separator counts: 10.1234%2Fabc at a line end is a whole DOI, not a prefix
    that goes on with the next line's word."""
    m = _SEPARATOR.search(so_far)
    return None if m is None else so_far[m.end() :]


def _open_bracket(s: str) -> bool:
    """True when `s` has a bracket opened and not closed (the DOI cannot end inside it)."""
    depth = 0
    for ch in s:
        if ch in OPEN:
            depth += 1
        elif ch in CLOSE and depth:
            depth -= 1
    return depth > 0


def _space_join(so_far: str, nxt: str) -> bool:
    """Whether a space or TAB after the DOI piece `so_far` is inside the DOI, `nxt` its rest (spec §5)."""
    last = so_far[-1]
    if last == ">":
        inside = "<" in so_far and _SICI_CHECK.match(nxt) is not None
    elif last == ".":
        inside = _ABBREVIATION_DOT.search(_suffix(so_far) or "") is not None
    else:
        # "10.1016/ j.cell…" (a space right after the prefix), "2159-\t8290", "11:1< 15::AID-"
        inside = last in "-/" or (_HAS_OPENER.search(so_far) is not None and _open_bracket(so_far))
    return (
        inside
        and _DOI_CHAR_START.match(nxt) is not None
        and _HAS_DIGIT.search(nxt) is not None
        and _NEW_ID.match(nxt) is None
    )


_HAS_DIGIT = re.compile(r"[0-9]")
_HAS_OPENER = re.compile("[" + re.escape(OPEN) + "]")
# What starts a new identifier rather than a DOI's rest (the reference numbers of _STARTS_NEW
# are for line starts; mid-line, "21-\t1033." is a DOI's last piece).
_NEW_ID = re.compile(
    r"(?i)doi\b|doi[:：]|https?:|www\.|urn:|info:|10\.[0-9]{4,}|p?mid\b|pmid[:：]|pmcid|arxiv|isbn|issn"
)


def _decide(so_far: str, nxt: str, evidence: Evidence | None, line: str = "") -> tuple[bool, bool]:
    """(join, uncertain): whether the DOI `so_far`, broken at a line end, goes on with `nxt` on the
    next line, and whether that was a guess. `line` is that line from `nxt` on (its start)."""
    suffix = _suffix(so_far)
    if suffix is not None:
        if nxt[0] == "(" and (_ISSN_END.search(so_far) or _open_bracket(so_far)):
            return True, False
        last = so_far[-1]
        if last == "\u00ad" and _DOI_CHAR_START.match(nxt) and not _STARTS_NEW.match(nxt):
            return True, False  # a soft hyphen at a line end: the tool's hyphenation point
        if last.isalnum() and _GLUED_DASH.match(nxt):
            return True, False
        page = _PAGE_NUMBER.match(line or nxt) if last == "." else None
        if page and (page.group()[-1].isupper() or not _CODE_ONLY.fullmatch(suffix)):
            return False, False
    if _STARTS_NEW.match(nxt) or not _DOI_CHAR_START.match(nxt):
        return False, False
    if not suffix:
        return True, False  # the break is inside the prefix or right after it: a DOI goes on
    last = so_far[-1]
    if evidence is not None:
        joined = _key(_complete_name(so_far + nxt))
        if joined in evidence.dois or evidence.extends(joined):
            return True, False
    if last in "-_/.":
        # A DOI goes on with a piece that has a digit (t001, 026, pbio.0020334, 5472.CAN-06-1501)
        # or with Wiley's final "x"; a word (showed, a, Alvarez-Ponce) is the prose after it.
        word = nxt.rstrip(".,;:)]")
        if _CONTINUATION.match(word) or (last == "." and word == "x"):
            return True, False
        if last == "-" and not _PROSE_WORD.match(word):
            return True, False  # a DOI does not end in "-": …-0548- + PDN (APS), an acronym
        return False, True
    if not last.isalnum():
        return False, evidence is None  # the document's own DOIs could still join it
    # A break after a letter or digit: a layout engine broke an over-long token, or the DOI
    # ended with the line. A URL broken inside a publisher's view segment (…/abstra + ct) goes
    # on; otherwise only the document's own DOIs can tell.
    m = VIEW_TAIL.search(so_far + nxt)
    if m is not None and m.start() < len(so_far):
        return True, False
    if evidence is None:
        return False, True
    joined = _key(_complete_name(so_far + nxt))
    alone = _key(_complete_name(so_far))
    if shape_of(joined) in evidence.shapes and shape_of(alone) not in evidence.shapes:
        return True, False
    return False, True


# pdftotext -layout sets columns apart by runs of spaces; within a column, words mostly by one
# or two (justified lines have wider gaps too, which is why every block start is a candidate).
_GAP = re.compile(r"[ \t]{3,}")
_SEGMENT = re.compile(r"[^ \t\n]+(?:[ \t]{1,2}[^ \t\n]+)*")
MAX_LINE = 1000
COLUMN_SLACK = 4
HANGING_INDENT = 12


def _block_starts(line: str) -> list[int]:
    """Columns where the blocks of a layout line start (blocks are apart by 3+ spaces)."""
    return [m.start() for m in _SEGMENT.finditer(line)]


def _continuation(text: str, b: int) -> int | None:
    """Where the rest of a DOI that stops at `b` would start.

    The DOI stops at a line end, or at a column gap with the other column's text after it. Its
    rest is on the next line, in the DOI's own column: the next line's block that starts where
    one of the blocks before the DOI on its line starts (nearest the DOI first — justified text
    has wide gaps inside a column too). A small hanging indent is allowed in single-column text.
    """
    m = _LINEBREAK.match(text, b)
    after_gap = None  # column of the text after a gap that ends the DOI on its line
    if m is None:
        g = _GAP.match(text, b)
        if g is None or g.end() >= len(text) or text[g.end()] in "\r\n":
            return None
        nl = text.find("\n", g.end(), g.end() + MAX_LINE)
        after_gap = g.end()
    else:
        nl = text.find("\n", b, b + MAX_LINE)
    if nl < 0:
        return None
    line_start = text.rfind("\n", max(0, b - MAX_LINE), b) + 1
    here = _block_starts(text[line_start:b])
    next_start = nl + 1
    next_end = text.find("\n", next_start, next_start + MAX_LINE)
    nxt = _block_starts(text[next_start : next_end if next_end >= 0 else next_start + MAX_LINE])
    if not nxt or not here:
        return None  # a blank line: a paragraph or page break ends the DOI
    if after_gap is not None:
        # Only a column boundary, seen again on the next line, lets the DOI go on below; a wide
        # gap inside a justified column ends it.
        gap_col = after_gap - line_start
        if not any(abs(c - gap_col) <= COLUMN_SLACK for c in nxt):
            return None
    for col in reversed(here):
        for c in nxt:
            if abs(c - col) <= COLUMN_SLACK:
                return next_start + c
    if m is not None and len(here) == 1 and len(nxt) >= 1 and abs(nxt[0] - here[0]) <= HANGING_INDENT:
        return next_start + nxt[0]
    return None


def _new_below(text: str, b: int) -> bool:
    """The DOI stops at `b` at a line end and the next line, one block (no column gap), starts
    something new (_STARTS_NEW, not "("): whichever place _continuation picked, _decide would
    not join it, and no space join or box break can follow — decided without the column
    search, as for each DOI of a reference list."""
    m = _BREAK_THEN_TOKEN.match(text, b)
    if m is None or text[m.start(1)] == "(" or _STARTS_NEW.match(m.group(1)) is None:
        return False
    nl = text.find("\n", m.start(1), m.start(1) + MAX_LINE)
    return _GAP.search(text, m.start(1), nl if nl >= 0 else m.start(1) + MAX_LINE) is None


_BREAK_THEN_TOKEN = re.compile(_LINEBREAK.pattern + "(" + _NEXT_TOKEN.pattern + ")")


# The shape every DOI of a kind has at a registrant that sets them so (spec §5): a piece cut at
# a line end that is no whole DOI of its shape goes on where the rest completes the shape, also
# past a page number, blank lines or, in -layout text, the other column's lines. One row per
# registrant prefix: the whole DOI's pattern on the lower-case suffix (a whole DOI may go on
# with a component, `.g001`), and one that every piece of it matches (a cheap test first:
# tests/test_cscan.py checks it against generated DOIs). Add a row where a registrant's DOIs
# are set so.


class Shape(NamedTuple):
    whole: re.Pattern[str]
    piece: re.Pattern[str]
    ends: tuple[int, ...]  # how many digits a whole DOI's last run has (after "." or "-")
    heads: str  # the letters a piece starts with (lower case: the C matcher's first test)


def _opening(word: str, then: str) -> str:
    """A pattern of every start of `word`, and of `word` followed by a start of `then`."""
    out = then
    for ch in reversed(word):
        out = f"{re.escape(ch)}(?:{out})?"
    return out


SHAPES: dict[str, Shape] = {
    # Elsevier's journal DOIs: j.<journal>.<year>.<month>.<item> (3 digits, 4 for a meeting's
    # abstracts), j.<journal>.<year>.<article> or .e<article> (j.neuroimage.2012.01.021,
    # j.ajog.2020.12.1198, j.jclepro.2019.118596, j.heliyon.2021.e07173: all 8,650 in MEDLINE)
    "10.1016": Shape(
        re.compile(r"j\.[a-z][a-z0-9]*\.(?:19|20)[0-9]{2}\.(?:[01][0-9]\.[0-9]{3,4}|[0-9]{6}|e[0-9]{5})"),
        re.compile(
            _opening(
                "j.",
                r"[a-z][a-z0-9]*(?:\.(?:[12][0-9]{0,3}(?:\.(?:[0-9]{0,6}(?:\.[0-9]{0,4})?|e[0-9]{0,5}))?)?)?",
            )
        ),
        (3, 4, 6),
        "j",
    ),
    # Nature's journals: <journal>.<number> (nmeth.3098, ng.2401)
    "10.1038": Shape(
        re.compile(r"n[a-z]{1,9}\.[0-9]{3,5}"),
        re.compile(_opening("n", r"[a-z]{1,9}(?:\.[0-9]{0,4})?")),
        (3, 4, 5),
        "n",
    ),
    # Annual Reviews: annurev.<journal>.<volume>.<yymmdd>.<six digits>, or the dashed form
    "10.1146": Shape(
        re.compile(r"annurev\.[a-z]+\.[0-9]{1,3}\.[0-9]{6}\.[0-9]{6}|annurev-[a-z]+-[0-9]{6}-[0-9]{6}"),
        re.compile(
            _opening("annurev", r"[.-](?:[a-z]+(?:[.-](?:[0-9]{1,6}(?:[.-][0-9]{0,6}){0,2}[.-]?)?)?)?")
        ),
        (6,),
        "a",
    ),
    # PLOS: journal.<journal>.<seven digits>
    "10.1371": Shape(
        re.compile(r"journal\.p[a-z]{2,4}\.[0-9]{7}"),
        re.compile(_opening("journal.", r"p[a-z]{0,4}(?:\.[0-9]{0,6})?")),
        (7,),
        "j",
    ),
}
FAR_LINES = 4  # lines read past (blank, a page number, the other column's) for a DOI's rest
FAR_CHARS = 1024  # and never further than this past the break (within a scan window's overlap)


def whole_by_shape(key: str) -> bool | None:
    """Whether the canonical key is a whole DOI of its registrant's shape (SHAPES): None when the
    registrant has no row."""
    prefix, _, suffix = key.partition("/")
    shape = SHAPES.get(prefix)
    if shape is None:
        return None
    m = shape.whole.match(suffix)
    return m is not None and (m.end() == len(suffix) or suffix[m.end()] == ".")


def _code_only(so_far: str) -> bool:
    """Whether the piece's suffix is a journal's code alone (_CODE_ONLY: nbm., fmicb.), which no
    DOI is: it goes on below, as a piece that stops in `/` or `-` does."""
    suffix = _suffix(so_far)
    return suffix is not None and _CODE_ONLY.fullmatch(suffix) is not None


def _a_piece(so_far: str) -> bool:
    """Whether `so_far` may be a piece of a DOI of its registrant's shape (Shape.piece): the
    cheap test before far_rest reads lines."""
    key = _key(so_far)
    prefix, _, suffix = key.partition("/")
    shape = SHAPES.get(prefix)
    if shape is None or whole_by_shape(key):  # whole already (most DOIs at a line end): faster
        return False
    return shape.piece.fullmatch(suffix) is not None


def go_far(text: str, b: int, so_far: str, start: int) -> int:
    """Where the DOI `so_far` cut at `b` goes on, given the next line's `start` the line-by-line
    join took (-1 for none): far_rest's when there is none, or when the line taken is a page
    number or running header and far_rest finds the rest past it. -1 when it does not go on."""
    if start >= 0 and not _PAGE_NUMBER.match(text, start):
        return start
    far = far_rest(text, b, so_far)
    return start if far is None else far


def far_rest(text: str, b: int, so_far: str) -> int | None:
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
    m = _SEPARATOR.search(so_far)
    # no whole DOI of its registrant's shape yet, told once: a rest that makes it one is taken
    incomplete = (
        m is not None
        and so_far[: m.start()] in SHAPES
        and whole_by_shape(_key(_complete_name(so_far))) is False
    )
    if not cut and not code and not incomplete:
        return None

    # stopped at a column gap (-layout), the other column not seen again below: the line-by-line
    # join, which asks for that column, took nothing, and a cut piece goes on in its own column
    at_gap = _LINEBREAK.match(text, b) is None

    def rest(run: str, skipped: bool) -> bool | None:
        if incomplete and whole_by_shape(_key(_complete_name(so_far + run))) is True:
            return True
        if (skipped or at_gap) and cut and _DOI_CHAR_START.match(run) and not _STARTS_NEW.match(run):
            return None  # taken, unless the line is one to pass over
        if skipped and code and run[0] in "0123456789" and not _STARTS_NEW.match(run):
            return None  # a journal's code alone goes on with its number
        return False

    return _below(text, b, rest)


# A page number or range glued to a DOI at a page end, by a tool that joins a page's last line
# to the next page's header with no space: `journal.pgen.1001373` + `1100–1104` (the hyphens
# PDF text folds, PDF_HYPHENS).
_HYPHEN = "[-" + PDF_HYPHENS + "]"
_GLUED_PAGE = re.compile(r"[1-9][0-9]{0,4}(?:" + _HYPHEN + r"[1-9][0-9]{0,4})?\Z")
_LAST_RUNS = re.compile(r"(?:([0-9]+)" + _HYPHEN + r")?([0-9]+)\Z")  # the last run, or the one before -N
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _one_length_shape(name: str, a: int) -> Shape | None:
    """The shape (SHAPES) of the registrant of a name whose anchor is its first `a` characters,
    ending in "/", when the shape's last run has one length; else None."""
    if a < 2 or name[a - 1] != "/":
        return None
    shape = SHAPES.get(name[: a - 1])
    return shape if shape is not None and len(shape.ends) == 1 else None


def glued_page_end(name: str, n: int, a: int) -> int:
    """Where the DOI read as `name[:n]` (its anchor `a` characters, ending in "/") ends when a
    page number is glued to it (spec §5): its registrant's shape (SHAPES) has one length of last
    run, the name is no whole DOI of it, and a whole DOI of it followed by nothing but a page
    number or range is. Unambiguous only there: a shape whose last run may be 3 or 4 digits
    (Elsevier's, Nature's) cannot tell `0211100` from 021 + 1100 or 0211 + 100. Else `n`."""
    shape = _one_length_shape(name, a)
    if shape is None:
        return n
    suffix = name[a:n].translate(_ASCII_LOWER)
    m = shape.whole.match(suffix)
    if m is None or m.end() == len(suffix) or not _GLUED_PAGE.match(suffix, m.end()):
        return n
    return a + m.end()


def glued_gate(name: str, a: int) -> bool:
    """Whether glued_page_end may cut `name` (ending where end_of_name ends it): the C matcher
    asks it only then. The registrant's shape has one length of last run, and the last run of
    digits, or the one before a hyphen and the last, is longer than it."""
    shape = _one_length_shape(name, a)
    if shape is None:
        return False
    m = _LAST_RUNS.search(name, a)
    return m is not None and max(len(m.group(1) or ""), len(m.group(2))) > shape.ends[0]


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

    def registrant(run: str, skipped: bool) -> bool | None:
        m = _REGISTRANT.match(run)
        if m is None:
            return False
        found.append(m.end())
        return True

    r = _below(text, b, registrant)
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
    line, segments = _layout_line(text[s : e if e >= 0 else s + MAX_LINE])
    if not segments:
        return True
    if anchor and ("/" in line or "%2f" in line.lower()):
        return True
    columns = _doi_columns(text, b)
    if columns is None:
        return False
    ls, c0, c1 = columns
    if not any(a < c1 and z > c0 for a, z in segments):
        return True
    gap = _GAP.match(text, b)
    if gap is not None and text[gap.end() : gap.end() + 1] not in ("", "\r", "\n"):
        # stopped at a column gap, and the next line has nothing in the other column: the
        # line-by-line join, which looks for that column there, took nothing
        other = gap.end() - ls
        if not any(abs(a - other) <= COLUMN_SLACK for a, _ in segments):
            return True
    col = _in_column(segments, c0)
    return col is not None and _NUMBER_TOKEN.match(line, col) is not None


def _doi_columns(text: str, b: int) -> tuple[int, int, int] | None:
    """(its line's start, its block's first column, its last column) of a DOI that stops at `b`:
    the block is the last of _SEGMENT's on its line, read back from `b`. None when no newline
    is in the MAX_LINE characters before (a line too long to be a column's)."""
    nl = text.rfind("\n", max(0, b - MAX_LINE), b)
    if nl < 0 and b > MAX_LINE:
        return None
    ls = nl + 1
    block = _SEGMENT_BACK.match(text[ls:b][::-1]).end()  # type: ignore[union-attr]  # a starred pattern always matches
    return ls, b - ls - block, b - ls


def _layout_line(raw: str) -> tuple[str, list[tuple[int, int]]]:
    """A line below a break, form feeds and CRs read as spaces, and its blocks (_SEGMENT's
    spans, in columns)."""
    line = raw.replace("\f", " ").replace("\r", " ")
    return line, [(g.start(), g.end()) for g in _SEGMENT.finditer(line)]


def _in_column(segments: list[tuple[int, int]], c0: int) -> int | None:
    """The first block that starts in the DOI's column: where its block starts, or a hanging
    indent in."""
    return next((a for a, _ in segments if c0 - COLUMN_SLACK <= a <= c0 + HANGING_INDENT), None)


def _below(text: str, b: int, take: Callable[[str, bool], bool | None]) -> int | None:
    """Where a DOI cut at `b` goes on below: the first line, at most FAR_LINES down and FAR_CHARS
    on, with a token in the DOI's column (its block's start, or a hanging indent in) that `take`
    takes (True), past blank lines, running headers, page numbers and lines with nothing in the
    DOI's column (-layout's other column) that it does not take; `take` None takes the token
    unless its line is one to pass over. A number alone on its line that `take` takes is taken
    only when no line after it is (a page number or the rest: j.canlet.2021.05. + 1578 + 024).
    The token's offset, or None."""
    columns = _doi_columns(text, b)
    if columns is None or columns[1] == columns[2]:
        return None  # a line too long to be a column's, or no block before `b`
    _, c0, c1 = columns
    limit = min(len(text), b + FAR_CHARS)
    i = text.find("\n", b, limit)
    skipped = new_page = False
    number: int | None = None  # a number alone that was taken, if nothing after it is
    for _ in range(FAR_LINES + 1):
        if i < 0:
            break
        start = i + 1
        end = text.find("\n", start, limit)
        raw = text[start : end if end >= 0 else limit]
        new_page = new_page or "\f" in raw
        line, segments = _layout_line(raw)
        i = end
        if not segments:
            skipped = True
            continue
        body = line.strip()
        if _RUNNING_HEAD.match(body):  # "154 A. Sundström et al.": never a DOI's rest
            skipped = True
            continue
        if new_page:  # a page's first line: the rest of a column's last DOI starts it
            col: int | None = segments[0][0]
            new_page = False
        else:
            col = _in_column(segments, c0)
        run = "" if col is None else RUN.match(line, col).group()  # type: ignore[union-attr]  # a starred pattern always matches
        took = take(run, skipped) if run else False
        if took and number is not None and _STARTS_NEW.match(run):
            took = False  # after a number that completes it, a reference number (119.) does not
        alone = _PAGE_ALONE.fullmatch(body) is not None
        if took and not alone:
            return start + col  # type: ignore[operator]  # run is empty when col is None
        if alone:  # a page number, or the rest: a line after it may say
            if took and number is None:
                number = start + col  # type: ignore[operator]
            skipped = True
            continue
        if not any(a < c1 and e > c0 for a, e in segments):
            skipped = True  # the other column's line (-layout): nothing in the DOI's column
            continue
        if took is None:
            return start + col  # type: ignore[operator]
        break
    return number


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
    m = _SEPARATOR.search(so_far)
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


def go_far_bytes(window: memoryview, b: int, so_far: str, start: int) -> int:
    """go_far for the C matcher, on UTF-8 bytes from over a line before the break: byte offsets.
    The C matcher's own bytes, valid during the call only."""
    if so_far[-1] not in "-/" and not _code_only(so_far) and not _a_piece(so_far):
        return start  # far_rest would find nothing: told before the window is read
    text = str(window, "utf-8", "surrogateescape")
    r = go_far(text, _char_at(window, b), so_far, _char_at(window, start) if start >= 0 else start)
    return r if r < 0 else _byte_at(text, r)


_PAGE_ALONE = re.compile(r"[1-9][0-9]{0,3}")
_NUMBER_TOKEN = re.compile(r"[0-9]+(?:[ \t\r]|\Z)")
_SEGMENT_BACK = re.compile(r"(?:[^ \t\n]+(?:[ \t]{1,2}[^ \t\n]+)*)?")
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
# Where a piece stops for far_rest: a line end, or a column gap with the other column after it.
_CUT_HERE = re.compile(r"[ \t]*\r?\n|[ \t]{3,}[^ \t\r\n]")
# A running header or page number line: "154 A. Sundström et al." or "Page 3".
_RUNNING_HEAD = re.compile(r"[1-9][0-9]{0,3}[ \t]+[A-Z]|(?i:page)[ \t]+[0-9]+\Z")


def join_pieces(
    text: str, p: int, q: int, pieces: list[tuple[int, int]], evidence: Evidence | None
) -> tuple[list[tuple[int, int]], bool]:
    """Extend a DOI that starts at `p` across line breaks where the break falls inside it.

    `pieces` are (start, end) spans of the text that make up the DOI so far; returns the
    spans after joining, and whether a break was left unjoined on a guess.
    """
    uncertain = False
    for _ in range(MAX_JOINS):
        b = pieces[-1][1]
        so_far = "".join(text[a:e] for a, e in pieces)
        nxt = _next_piece(text, b, so_far, evidence)
        uncertain = uncertain or nxt is None
        start = -1 if nxt is None else nxt
        if may_go_far(so_far):
            start = go_far(text, b, so_far, start)
        if start < 0:
            break
        run = RUN.match(text, start).group()  # type: ignore[union-attr]  # a starred pattern always matches
        pieces = [*pieces, (start, start + len(run))]
    return pieces, uncertain


def _next_piece(text: str, b: int, so_far: str, evidence: Evidence | None) -> int | None:
    """Where the DOI `so_far`, stopping at `b`, goes on in the next line or after spaces: an
    offset, -1 when it does not, None when it does not on a guess."""
    if _new_below(text, b):
        return -1
    cont = _continuation(text, b)
    if cont is None and so_far[-1] in "-/" and _suffix(so_far) is not None:
        # pdfminer sets its text boxes apart by a blank line: a DOI that stops in "-" or "/",
        # which no DOI ends with, goes on in the next box (a column's end broke it)
        bm = _BOX_BREAK.match(text, b)
        if bm is not None and not _PAGE_NUMBER.match(text, bm.end()):
            cont = bm.end()
    if cont is None:
        if so_far[-1] not in "-/.>" and _HAS_OPENER.search(so_far) is None:
            return -1  # no space can be inside this DOI (_space_join): the common case, at once
        sm = _SPACES.match(text, b)
        if sm is None:
            return -1
        # spaces or TABs inside the DOI (spec §5)
        nm = _NEXT_TOKEN.match(text, sm.end())
        if nm is None or not _space_join(so_far, nm.group()):
            return -1
        return sm.end()
    nm = _NEXT_TOKEN.match(text, cont)
    if nm is None:
        return -1
    join, guess = _decide(so_far, nm.group(), evidence, text[cont : cont + 8])
    if not join:
        return None if guess else -1
    return cont
