"""Component DOIs: figures, tables, equations and supplements that publishers register under an
article's DOI, and the article each belongs to (`parent_doi`), so that a citation graph can fold
them into their article (a paper "cites" its own figures in its JATS; other papers cite a figure).

One row of COMPONENT_RULES per publisher's pattern, on canonical DOIs (lower case): a regular
expression whose group `parent` is the article's DOI. The patterns are written in the syntax
Python's re and RE2 (Arrow's compute functions) read alike, so the pipeline applies the same
table to a whole column at once. To add a publisher: one row, and a row of examples in
tests/test_components.py.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class ComponentRule(NamedTuple):
    """One publisher's component DOIs: what they are, and the pattern with group `parent`."""

    what: str
    pattern: str


COMPONENT_RULES: tuple[ComponentRule, ...] = (
    # PLOS: after journal.<journal>.<7 digits>, figures .g001, tables .t001, supporting
    # information .s001, equations .e001, the .sg/.sd/.sv of older articles, .st001 and .ex001
    # (one or two letters, three or four digits), and the images .social_logo, .disease_logo,
    # .poverty_logo (seen in 122 real PLOS articles).
    ComponentRule(
        "PLOS figures, tables, equations, supporting information and images",
        r"^(?P<parent>10\.1371/journal\.[a-z]+\.[0-9]{7})\.(?:[a-z]{1,2}[0-9]{3,4}|[a-z]+_logo)$",
    ),
    # PeerJ: /fig-1, /table-1, /supp-1 after the article's DOI (PeerJ and PeerJ Computer Science).
    ComponentRule(
        "PeerJ figures, tables and supplements",
        r"^(?P<parent>10\.7717/peerj(?:-cs)?\.[0-9]+)/(?:fig|table|supp|supplemental)-[0-9]+$",
    ),
    # eLife: a three-digit component after the article number (figures, digest, decision letter),
    # or a sub-article .saN (the decision letter and author response, .sa1 and .sa2 of a real
    # eLife JATS article, elife-52882-v2.xml).
    ComponentRule(
        "eLife figures, digests, decision letters and author responses",
        r"^(?P<parent>10\.7554/elife\.[0-9]{5,})\.(?:[0-9]{3}|sa[0-9]+)$",
    ),
    # Copernicus (EGU journals): the supplement of <journal>-<volume>-<page>-<year>.
    ComponentRule(
        "Copernicus supplements",
        r"^(?P<parent>10\.5194/[a-z]+-[0-9]+-[0-9]+-[0-9]{4})-supplement$",
    ),
)

_COMPILED = tuple(re.compile(r.pattern) for r in COMPONENT_RULES)


def parent_doi(doi: str) -> str | None:
    """The article a component DOI belongs to (canonical DOIs in, canonical out), or None for a
    DOI that is no publisher's component."""
    for pattern in _COMPILED:
        m = pattern.fullmatch(doi)  # "$" as RE2 reads it: the end of the text, not before a last newline
        if m is not None:
            return m.group("parent")
    return None
