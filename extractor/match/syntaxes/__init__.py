"""The registry of source syntaxes (spec §7): markup and data syntaxes whose own delimiters a DOI
never crosses and whose escapes are undone before §1–§5 apply.

Each syntax turns its source into views (html.View): texts whose boundaries the matcher never
reads across, with the map from their offsets back to the source, so a hit keeps its raw text
and offsets as written. A syntax is told by the file's name, else by its content, or forced.

A new syntax is one module beside these (its `views`) and one row of SYNTAX_TABLE.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from ..html import View
from . import csvtext, jsontext, markdown, tex, wikitext


class Syntax(NamedTuple):
    """One source syntax and how the matcher reads it."""

    name: str
    # The views of a source text, each searched by the kind's rules (plain text's).
    views: Callable[[str], list[View]]
    # File names (lower case, without a compression suffix) that are of this syntax.
    suffixes: tuple[str, ...]
    # Whether a text's head looks like this syntax when no name tells (None: never guessed).
    sniff: Callable[[str], bool] | None = None
    # The native function that searches it in C, or None (the Python matcher reads it).
    c_entry: str | None = None


SYNTAX_TABLE: dict[str, Syntax] = {
    s.name: s
    for s in (
        Syntax(
            "wikitext", wikitext.views, (".wiki", ".wikitext", ".mediawiki"), wikitext.sniff, "wikitext_scan"
        ),
        Syntax(
            "latex", tex.latex_views, (".tex", ".ltx", ".bbl", ".sty", ".cls"), tex.sniff_latex, "latex_scan"
        ),
        Syntax("bibtex", tex.bibtex_views, (".bib",), tex.sniff_bibtex, "bibtex_scan"),
        Syntax("csv", csvtext.views, (".csv", ".tsv", ".tab"), None, "csv_scan"),
        Syntax("json", jsontext.views, (".json", ".ipynb", ".geojson", ".csljson"), jsontext.sniff),
        Syntax("markdown", markdown.views, (".md", ".markdown", ".mdown", ".rmd", ".qmd"), None),
    )
}

SYNTAXES: tuple[str, ...] = tuple(SYNTAX_TABLE)
# (name, sniff) of the syntaxes that may be told by content: asked of every record's text.
_SNIFFERS = tuple((s.name, s.sniff) for s in SYNTAX_TABLE.values() if s.sniff is not None)
# What --syntax (and syntax= of the library's batch API) takes: detect, prose, or a syntax.
SYNTAX_CHOICES: tuple[str, ...] = ("auto", "none", *SYNTAXES)

_COMPRESSED = re.compile(r"\.(?:gz|bz2|xz|zst|zstd)$")


def syntax_of(name: str) -> Syntax:
    """The registry's entry for a syntax's name; ValueError for a name it does not hold."""
    try:
        return SYNTAX_TABLE[name]
    except KeyError:
        raise ValueError(f"syntax must be one of {SYNTAXES}, not {name!r}") from None


def detect_syntax(name: str | None, head: str | None = None) -> str | None:
    """The syntax of a document from its name, else from its first characters (stdin, records,
    archive members); None for prose (§1–§6 alone)."""
    if name:
        lname = _COMPRESSED.sub("", name.lower())
        for s in SYNTAX_TABLE.values():
            if lname.endswith(s.suffixes):
                return s.name
    if head and (
        # every sniff wants one of these (a template's "{{", a TeX command, a BibTeX entry, a
        # JSON text's start): most prose, asked record by record, is passed at memchr's speed
        "{" in head or "\\" in head or "@" in head or head.lstrip()[:1] == "["
    ):
        for syntax, sniff in _SNIFFERS:
            if sniff(head):
                return syntax
    return None
