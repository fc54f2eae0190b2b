"""The shapes of registrants' DOIs (spec §5): what a whole DOI of Elsevier, Nature, Annual Reviews
or PLOS looks like, by which a piece cut at a line end is known to go on, and a page number
glued to a whole DOI is cut off."""

from __future__ import annotations

import re
from typing import NamedTuple

from ..canonical import PDF_HYPHENS

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
    # JAMA and the Archives: jama<journal>.<year>.<number> (jamapediatrics.2021.1319), the Archives'
    # arch<journal>.<year>.<fourteen digits>, and the older <journal>.<volume>.<issue>.<page>
    # (403 of MEDLINE's 426 10.1001 DOIs; the rest add a letter for a part)
    "10.1001": Shape(
        re.compile(
            r"(?:jama|arch)[a-z]{0,16}\.(?:[0-9]{4}\.(?:[0-9]{3,5}|[0-9]{14})|[0-9]{2,3}\.[0-9]{1,2}\.[0-9]{1,5})"
        ),
        re.compile(r"[ja][a-z]{0,19}(?:\.[0-9]{0,14}){0,3}"),
        (1, 2, 3, 4, 5, 14),
        "aj",
    ),
    # AJR: ajr.<volume>.<issue>.<page> (669 of MEDLINE's 679 10.2214 DOIs, the rest with -a, -b for a
    # part, which a whole DOI's test need not know: a piece ending in a letter is never walked on)
    "10.2214": Shape(
        re.compile(r"ajr\.[0-9]{2,3}\.[0-9]{1,2}\.[0-9]{1,5}"),
        re.compile(_opening("ajr.", r"[0-9]{0,3}(?:\.(?:[0-9]{0,2}(?:\.[0-9]{0,5})?)?)?")),
        (1, 2, 3, 4, 5),
        "a",
    ),
    # Spandidos: <journal>.<year>.<number> (or.2021.7945, etm.2020.9123: all 148 of MEDLINE's)
    "10.3892": Shape(
        re.compile(r"[a-z]{2,4}\.[0-9]{4}\.[0-9]{3,5}"),
        re.compile(r"[a-z]{1,4}(?:\.(?:[0-9]{0,4}(?:\.[0-9]{0,5})?)?)?"),
        (3, 4, 5),
        "abcdefghijklmnopqrstuvwxyz",
    ),
    # J Exp Med: jem.<volume>.<issue>.<page>, or jem.<eight digits> since 2001 (35 of MEDLINE's 35)
    "10.1084": Shape(
        re.compile(r"jem\.(?:[0-9]{2,3}\.[0-9]{1,2}\.[0-9]{1,5}|[0-9]{8})"),
        re.compile(_opening("jem.", r"[0-9]{0,8}(?:\.(?:[0-9]{0,2}(?:\.[0-9]{0,5})?)?)?")),
        (1, 2, 3, 4, 5, 8),
        "j",
    ),
    # Radiology: <volume>.<issue>.<page>, or radiol.<ten digits> (146 of MEDLINE's 147; 127.1.265b)
    "10.1148": Shape(
        re.compile(r"[0-9]{2,3}\.[0-9]{1,2}\.[0-9]{1,5}|radiol\.[0-9]{10}"),
        re.compile(
            r"[0-9]{1,3}(?:\.(?:[0-9]{0,2}(?:\.[0-9]{0,5})?)?)?|" + _opening("radiol.", r"[0-9]{0,10}")
        ),
        (1, 2, 3, 4, 5, 10),
        "0123456789r",
    ),
    # PLOS: journal.<journal>.<seven digits>
    "10.1371": Shape(
        re.compile(r"journal\.p[a-z]{2,4}\.[0-9]{7}"),
        re.compile(_opening("journal.", r"p[a-z]{0,4}(?:\.[0-9]{0,6})?")),
        (7,),
        "j",
    ),
}


def whole_by_shape(key: str) -> bool | None:
    """Whether the canonical key is a whole DOI of its registrant's shape (SHAPES): None when the
    registrant has no row."""
    prefix, _, suffix = key.partition("/")
    shape = SHAPES.get(prefix)
    if shape is None:
        return None
    m = shape.whole.match(suffix)
    return m is not None and (m.end() == len(suffix) or suffix[m.end()] == ".")


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
