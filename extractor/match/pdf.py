"""Repair of DOIs that text extraction from a PDF broke across lines or spaces (spec §5).

The decision uses the evidence a reader uses: the character before the break, what the next
line starts with, and — for breaks that could be either — whether the joined string is a DOI
the same document shows unbroken, or has the shape of this registrant's other DOIs there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .canonical import canonical_key
from .forms import Form
from .rules import CLOSE, OPEN, RUN, end_of_name

MAX_JOINS = 6

_LINEBREAK = re.compile(r"[ \t]*\r?\n[ \t]*")
_BOX_BREAK = re.compile(r"[ \t]*\r?\n[ \t]*\r?\n[ \t]*(?=\S)")
_SPACES = re.compile(r"[ \t]{1,2}")
_NEXT_TOKEN = re.compile(r'[^\s"]{1,300}')

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
# Spec §5: spaces and TABs a PDF tool put inside a DOI. The left piece ends inside the DOI: after
# "-" (10.1158/2159-\t8290.CD-\t21-\t1033), after an abbreviation and "." (appi. ajp.2010…),
# inside an open bracket (SICI's <15::AID-…); and the right side is no word of prose: it has a
# digit.
_ABBREVIATION_DOT = re.compile(r"(?:^|[/.])[a-z]{1,12}\.\Z")
_SICI_CHECK = re.compile(r"[0-9]\.[0-9]\.CO;[0-9]", re.I)
_CONTINUATION = re.compile(r"[^\s]*[0-9]")
_VIEW_TAIL = re.compile(
    r"/(?:abstract|full|pdf|epdf|pdfdirect|fulltext|html|references|suppinfo|citedby|figures|tables|download)/?\Z",
    re.I,
)
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
        if last == "." and _PAGE_NUMBER.match(line or nxt):
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
    m = _VIEW_TAIL.search(so_far + nxt)
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
_MAX_LINE = 1000
_COLUMN_SLACK = 4
_HANGING_INDENT = 12


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
        nl = text.find("\n", g.end(), g.end() + _MAX_LINE)
        after_gap = g.end()
    else:
        nl = text.find("\n", b, b + _MAX_LINE)
    if nl < 0:
        return None
    line_start = text.rfind("\n", max(0, b - _MAX_LINE), b) + 1
    here = _block_starts(text[line_start:b])
    next_start = nl + 1
    next_end = text.find("\n", next_start, next_start + _MAX_LINE)
    nxt = _block_starts(text[next_start : next_end if next_end >= 0 else next_start + _MAX_LINE])
    if not nxt or not here:
        return None  # a blank line: a paragraph or page break ends the DOI
    if after_gap is not None:
        # Only a column boundary, seen again on the next line, lets the DOI go on below; a wide
        # gap inside a justified column ends it.
        gap_col = after_gap - line_start
        if not any(abs(c - gap_col) <= _COLUMN_SLACK for c in nxt):
            return None
    for col in reversed(here):
        for c in nxt:
            if abs(c - col) <= _COLUMN_SLACK:
                return next_start + c
    if m is not None and len(here) == 1 and len(nxt) >= 1 and abs(nxt[0] - here[0]) <= _HANGING_INDENT:
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
    nl = text.find("\n", m.start(1), m.start(1) + _MAX_LINE)
    return _GAP.search(text, m.start(1), nl if nl >= 0 else m.start(1) + _MAX_LINE) is None


_BREAK_THEN_TOKEN = re.compile(_LINEBREAK.pattern + "(" + _NEXT_TOKEN.pattern + ")")


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
        if _new_below(text, b):
            break
        so_far = "".join(text[a:e] for a, e in pieces)
        cont = _continuation(text, b)
        if cont is None and so_far[-1] in "-/" and _suffix(so_far):
            # pdfminer sets its text boxes apart by a blank line: a DOI that stops in "-" or "/",
            # which no DOI ends with, goes on in the next box (a column's end broke it)
            bm = _BOX_BREAK.match(text, b)
            if bm is not None and not _PAGE_NUMBER.match(text, bm.end()):
                cont = bm.end()
        if cont is None:
            if so_far[-1] not in "-/.>" and _HAS_OPENER.search(so_far) is None:
                break  # no space can be inside this DOI (_space_join): the common case, at once
            sm = _SPACES.match(text, b)
            if sm is None:
                break
            # spaces or TABs inside the DOI (spec §5)
            nm = _NEXT_TOKEN.match(text, sm.end())
            if nm is None or not _space_join(so_far, nm.group()):
                break
            run = RUN.match(text, sm.end()).group()  # type: ignore[union-attr]  # a starred pattern always matches
            pieces = [*pieces, (sm.end(), sm.end() + len(run))]
            continue
        start = cont
        nm = _NEXT_TOKEN.match(text, start)
        if nm is None:
            break
        join, guess = _decide(so_far, nm.group(), evidence, text[start : start + 8])
        uncertain = uncertain or guess
        if not join:
            break
        run = RUN.match(text, start).group()  # type: ignore[union-attr]  # a starred pattern always matches
        pieces = [*pieces, (start, start + len(run))]
    return pieces, uncertain
