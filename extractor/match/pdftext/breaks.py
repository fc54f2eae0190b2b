"""Spec §5: whether a DOI broken at a line end (or by spaces) goes on with what follows — the
evidence a reader uses: the character before the break, what the next line starts with, and, for
breaks that could be either, whether the joined string is a DOI the document shows unbroken or
has the shape of its registrant's other DOIs there."""

from __future__ import annotations

import re

from ..forms import Form
from ..rules import CLOSE, OPEN, end_of_name
from .evidence import Evidence, key_of, shape_of

MAX_JOINS = 6

LINEBREAK = re.compile(r"[ \t]*\r?\n[ \t]*")
BOX_BREAK = re.compile(r"[ \t]*\r?\n[ \t]*\r?\n[ \t]*(?=\S)")
SPACES = re.compile(r"[ \t]{1,2}")
# The longest token read after a break for the rest of a DOI.
NEXT_TOKEN = 300
NEXT_TOKEN_RUN = re.compile(rf'[^\s"]{{1,{NEXT_TOKEN}}}')

# What a next line starts with when it is not the rest of a DOI: a new label, identifier or
# URL, a reference number ("46." "[46]" "(46)" "46)"), a PMID, a bullet or dash.
STARTS_NEW = re.compile(
    r"""(?iax)(?:
        doi(?u:\b) | doi[:：] | p?mid(?u:\b) | pmid[:：] | pubmed | medline | pmcid | pmc\d | https?: | www\. | urn: | info: | isbn | issn
      | arxiv | 10\.\d{4,}
      | \[\d+\]? | \(\d+\) | \d{1,4}[.)\]]\Z | [•·▪–—]
    )"""
)
DOI_CHAR_START = re.compile(r"[0-9A-Za-z(\[<_-]")
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
PAGE_NUMBER = re.compile(r"[1-9][0-9]{0,3}(?:[ \t]*(?:\r?\n|\Z)|[ \t]+[A-Z])")
# But no DOI is a journal's code alone (none of the 9,240 DOIs of the corpora's gold): a suffix
# that is one (nbm., vetr.) goes on with a number alone on the next line (10.1002/nbm. + 4520).
CODE_ONLY = re.compile(r"[A-Za-z]{2,12}\.")
# Spec §5: spaces and TABs a PDF tool put inside a DOI. The left piece ends inside the DOI: after
# "-" (10.1158/2159-\t8290.CD-\t21-\t1033), after an abbreviation and "." (appi. ajp.2010…),
# inside an open bracket (SICI's <15::AID-…); and the right side is no word of prose: it has a
# digit.
_ABBREVIATION_DOT = re.compile(r"(?:^|[/.])[a-z]{1,12}\.\Z")
_SICI_CHECK = re.compile(r"[0-9]\.[0-9]\.CO;[0-9]", re.I | re.A)
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
VIEW_TAIL = re.compile(r"/(?:" + "|".join(VIEW_SEGMENTS) + r")/?\Z", re.I | re.A)
_LOWER_OR_DIGIT = re.compile(r"[a-z0-9]")
# A word of prose: lower case, or capitalized (showed, The, Alvarez-Ponce).
_PROSE_WORD = re.compile(r"[A-Z]?[a-z]+(?:-[A-Z]?[a-z]+)*\Z")


HAS_DIGIT = re.compile(r"[0-9]")
HAS_OPENER = re.compile("[" + re.escape(OPEN) + "]")
# What starts a new identifier rather than a DOI's rest (the reference numbers of STARTS_NEW
# are for line starts; mid-line, "21-\t1033." is a DOI's last piece).
_NEW_ID = re.compile(
    r"(?ia)doi(?u:\b)|doi[:：]|https?:|www\.|urn:|info:|10\.[0-9]{4,}|p?mid(?u:\b)|pmid[:：]|pmcid|arxiv|isbn|issn"
)


def complete_name(s: str) -> str:
    return s[: end_of_name(s, Form.BARE, "")]


# The prefix's separator: "/", or "%2F" in a percent-encoded DOI (10.1234%2Fabc, spec §1).
SEPARATOR = re.compile("/|%2[Ff]")


def suffix_of(so_far: str) -> str | None:
    """The DOI's suffix read so far — after its separator — or None while still in the prefix.
    A percent-encoded separator counts: 10.1234%2Fabc at a line end is a whole DOI, not a prefix
    that goes on with the next line's word."""
    m = SEPARATOR.search(so_far)
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


def space_join(so_far: str, nxt: str) -> bool:
    """Whether a space or TAB after the DOI piece `so_far` is inside the DOI, `nxt` its rest (spec §5)."""
    last = so_far[-1]
    if last == ">":
        inside = "<" in so_far and _SICI_CHECK.match(nxt) is not None
    elif last == ".":
        inside = _ABBREVIATION_DOT.search(suffix_of(so_far) or "") is not None
    else:
        # "10.1016/ j.cell…" (a space right after the prefix), "2159-\t8290", "11:1< 15::AID-"
        inside = last in "-/" or (HAS_OPENER.search(so_far) is not None and _open_bracket(so_far))
    return (
        inside
        and DOI_CHAR_START.match(nxt) is not None
        and HAS_DIGIT.search(nxt) is not None
        and _NEW_ID.match(nxt) is None
    )


def _rest_by_evidence(so_far: str, nxt: str, evidence: Evidence) -> bool:
    """Whether the document's own DOIs join `so_far` and `nxt`: the joined DOI is one of them, or
    its shape is theirs and the piece's alone is not."""
    joined = key_of(complete_name(so_far + nxt))
    if joined in evidence.dois:
        return True
    return (
        shape_of(joined) in evidence.shapes and shape_of(key_of(complete_name(so_far))) not in evidence.shapes
    )


def decide(so_far: str, nxt: str, evidence: Evidence | None, line: str = "") -> tuple[bool, bool]:
    """(join, uncertain): whether the DOI `so_far`, broken at a line end, goes on with `nxt` on the
    next line, and whether that was a guess. `line` is that line from `nxt` on (its start)."""
    suffix = suffix_of(so_far)
    if suffix is not None:
        if nxt[0] == "(" and (_ISSN_END.search(so_far) or _open_bracket(so_far)):
            return True, False
        last = so_far[-1]
        if last == "\u00ad" and DOI_CHAR_START.match(nxt) and not STARTS_NEW.match(nxt):
            return True, False  # a soft hyphen at a line end: the tool's hyphenation point
        if last.isalnum() and _GLUED_DASH.match(nxt):
            return True, False
        page = PAGE_NUMBER.match(line or nxt) if last == "." else None
        if page and page.group()[-1].isupper():
            return False, False  # a page number before a running header
        if page and not CODE_ONLY.fullmatch(suffix):
            # A number alone on the next line is a page number, unless the document's own DOIs
            # show its registrant's DOIs going on so (bmj.1.6072. + 1324), or the document's
            # pages are numbered and this is none of their numbers (wjg.v27.i20. + 2630 among
            # pages 1740-1742): a guess until then.
            if evidence is None:
                return False, True
            number = int(page.group().strip())
            rest = _rest_by_evidence(so_far, nxt, evidence)
            return rest or (bool(evidence.pages) and number not in evidence.pages), False
    if STARTS_NEW.match(nxt) or not DOI_CHAR_START.match(nxt):
        return False, False
    if not suffix:
        return True, False  # the break is inside the prefix or right after it: a DOI goes on
    last = so_far[-1]
    if evidence is not None:
        joined = key_of(complete_name(so_far + nxt))
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
        if last == "-" and len(nxt) == 1 and nxt.isalnum() and line[1:2] in ("", "\n", "\r"):
            return True, False  # one character alone on its line: a check character (…90093- + x)
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
    if _rest_by_evidence(so_far, nxt, evidence):
        return True, False  # the shape of this registrant's DOIs joined, and not alone
    return False, True


# pdftotext -layout sets columns apart by runs of spaces; within a column, words mostly by one
