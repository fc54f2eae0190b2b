"""Derived DOIs (spec §8, only when asked): an item cited by its registrant's own identifier —
an arXiv ID, a Zenodo record, an SSRN abstract, an eLife, PeerJ or Nature article URL — cites the
DOI its registrant makes from that identifier by a published rule.

A source is one row of DERIVED: its name (the hit's form is `derived-<name>`), the pattern of
how the identifier is written, the rule that makes the DOI, and where the registrant publishes
it. A new registrant is a row here and its form in forms.py. Pure functions on text; the
pipeline runs them after whichever matcher read a window, so C and Python find the same.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from .forms import DERIVE_CHOICES, Form

# Where an identifier ends (spec §8: as a DOI in URL context ends, §4): not inside a word, so
# that trailing punctuation, a query, a fragment, a path segment or an extension stops it.
_END = r"(?![0-9A-Za-z_])"
# A host written with its scheme and `www.` or without (any case: the patterns are IGNORECASE);
# not a label inside another host name.
_HOST = r"(?<!(?u:[\w.@-]))(?:https?://)?(?:www\.)?"

# arXiv's identifiers (https://info.arxiv.org/help/arxiv_identifier.html): YYMM.NNNN from 0704 to
# 1412, YYMM.NNNNN from 1501; before April 2007 archive(.SUBJECT-CLASS)/YYMMNNN.
_MONTH = r"(?:0[1-9]|1[0-2])"
_ARXIV_NEW = (
    rf"(?P<new>(?:0[7-9]{_MONTH}|1[0-4]{_MONTH})\.[0-9]{{4}}(?![0-9])"
    rf"|(?:1[5-9]|[2-9][0-9]){_MONTH}\.[0-9]{{5}})"
)
_ARXIV_OLD = r"(?P<archive>[a-z]+(?:-[a-z]+)?)(?:\.[a-z]{2})?/(?P<number>[0-9]{2}" + _MONTH + r"[0-9]{3})"
_ARXIV_ID = rf"(?:{_ARXIV_NEW}|{_ARXIV_OLD})(?:v[0-9]+)?"


class Source(NamedTuple):
    """A registrant whose items' DOIs are made from their own identifiers (a row of §8)."""

    name: str  # the hit's form is derived-<name>
    pattern: re.Pattern[str]  # how an identifier is written
    doi: Callable[[re.Match[str]], str]  # the DOI its rule makes (canonical: ASCII lower case)
    rule: str  # the rule, as the README tells it
    published: str  # where the registrant publishes it


def _arxiv(m: re.Match[str]) -> str:
    # the version is dropped: the DOI names the paper; an old-style ID without its subject class
    if m["new"]:
        return f"10.48550/arxiv.{m['new']}"
    return f"10.48550/arxiv.{m['archive'].lower()}/{m['number']}"


def _one(prefix: str) -> Callable[[re.Match[str]], str]:
    return lambda m: prefix + m["n"].lower()


def _peerj(m: re.Match[str]) -> str:
    return f"10.7717/peerj-cs.{m['n']}" if m["cs"] else f"10.7717/peerj.{m['n']}"


def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE | re.ASCII)


DERIVED: tuple[Source, ...] = (
    Source(
        "arxiv",
        _compile(rf"(?:{_HOST}arxiv\.org/(?:abs|pdf)/|(?<![\w-])arxiv:){_ARXIV_ID}(?:\.pdf)?{_END}"),
        _arxiv,
        "`arXiv:ID`, `arxiv.org/abs/ID`, `arxiv.org/pdf/ID` → `10.48550/arXiv.ID` (the version "
        "dropped; an old-style ID without its subject class)",
        "arXiv's help, https://info.arxiv.org/help/doi.html (and https://blog.arxiv.org/2022/02/17/new-arxiv-articles-are-now-automatically-assigned-dois)",
    ),
    Source(
        "zenodo",
        _compile(rf"{_HOST}zenodo\.org/records?/(?P<n>[0-9]+){_END}"),
        _one("10.5281/zenodo."),
        "`zenodo.org/records/N` → `10.5281/zenodo.N`",
        "each record's page gives its DOI; Zenodo's DOI versioning: https://zenodo.org/records/1256592",
    ),
    Source(
        "ssrn",
        _compile(
            rf"{_HOST}ssrn\.com/abstract=(?P<n>[0-9]+){_END}"
            rf"|{_HOST}papers\.ssrn\.com/sol3/papers\.cfm\?abstract_id=(?P<n2>[0-9]+){_END}"
        ),
        lambda m: f"10.2139/ssrn.{m['n'] or m['n2']}",
        "`ssrn.com/abstract=N`, `papers.ssrn.com/sol3/papers.cfm?abstract_id=N` → `10.2139/ssrn.N`",
        "SSRN's FAQ, https://www.elsevier.support/ssrn/answer/doi (a DOI for each paper posted with its full text)",
    ),
    Source(
        "elife",
        _compile(rf"{_HOST}elifesciences\.org/articles/(?P<n>[0-9]+){_END}"),
        _one("10.7554/elife."),
        "`elifesciences.org/articles/N` → `10.7554/eLife.N`",
        "each article's page gives its DOI",
    ),
    Source(
        "peerj",
        _compile(rf"{_HOST}peerj\.com/articles/(?P<cs>cs-)?(?P<n>[0-9]+){_END}"),
        _peerj,
        "`peerj.com/articles/N` → `10.7717/peerj.N`, `peerj.com/articles/cs-N` → `10.7717/peerj-cs.N`",
        "each article's page gives its DOI",
    ),
    Source(
        "nature",
        _compile(
            rf"{_HOST}nature\.com/articles/(?P<n>s[0-9]{{5}}-[0-9]{{3}}-[0-9]{{4,5}}-[0-9x]|nature[0-9]+){_END}"
        ),
        _one("10.1038/"),
        "`nature.com/articles/ID` → `10.1038/ID`, for IDs `sNNNNN-NNN-NNNN(N)-C` and `natureN` only",
        "each article's page gives its DOI, the ID in these two shapes",
    ),
)

SOURCES: dict[str, Source] = {s.name: s for s in DERIVED}
if tuple(SOURCES) != DERIVE_CHOICES:
    raise ImportError("derive.DERIVED must have a row for each derived form of forms.FORMS, in its order")

# What every written identifier holds, in any case: a text without any is passed at once.
_ANY = re.compile(
    r"arxiv|zenodo\.org|ssrn\.com|elifesciences\.org|peerj\.com|nature\.com", re.IGNORECASE | re.ASCII
)
_ANY_BYTES = re.compile(_ANY.pattern.encode(), re.IGNORECASE)


def derive_sources(names: bool | str | Iterable[str] | None) -> tuple[str, ...]:
    """The sources asked for: True (or "all") every one, a comma-separated string or names some,
    None or False none. An unknown name raises ValueError, naming the sources there are."""
    if names is None or names is False:
        return ()
    if names is True or names == "all":
        return DERIVE_CHOICES
    items = names.split(",") if isinstance(names, str) else list(names)
    asked = [n.strip().lower() for n in items if n.strip()]
    unknown = [n for n in asked if n not in SOURCES]
    if unknown:
        raise ValueError(
            f"no derived-DOI source {', '.join(unknown)}: the sources are {', '.join(DERIVE_CHOICES)}"
        )
    return tuple(n for n in DERIVE_CHOICES if n in asked)


def may_hold(data: bytes | memoryview) -> bool:
    """Whether raw UTF-8 bytes may hold a derived identifier (a quick pass before decoding)."""
    return _ANY_BYTES.search(data) is not None


def derived_spans(
    text: str, sources: Sequence[str], syntax: str | None = None
) -> list[tuple[int, int, Form, str]]:
    """(start, end, form, DOI) of each derived identifier of `sources` in `text` (spec §8), in
    order of start; a hit's span is the URL or labelled identifier as written. In BibTeX
    (`syntax`), an entry's `eprint` field is an arXiv ID where the entry says so (bibtex_eprints)."""
    if not sources or _ANY.search(text) is None:
        return []
    out = []
    for name in sources:
        source = SOURCES[name]
        form = Form(f"derived-{name}")
        for m in source.pattern.finditer(text):
            out.append((m.start(), m.end(), form, source.doi(m)))
    if syntax == "bibtex" and "arxiv" in sources:
        out += bibtex_eprints(text)
    out.sort(key=lambda s: (s[0], s[1]))
    return out


# Spec §8: BibTeX's and biblatex's own arXiv fields. An entry starts at its "@type{" (or "(");
# its `eprint` is an arXiv ID, written without a label, where its `archiveprefix` (BibTeX) or
# `eprinttype` (biblatex) is arxiv: field names and that value in any ASCII case, a value in
# braces, in quotes, or bare.
_ENTRY_START = re.compile(r"@[A-Za-z]+\s*[{(]")
_EPRINT_FIELDS = re.compile(
    r"(?<![A-Za-z0-9_-])(?P<name>eprint|archiveprefix|eprinttype)\s*=\s*"
    r'(?:\{\s*(?P<braced>[^{}]*?)\s*\}|"\s*(?P<quoted>[^"{}]*?)\s*"|(?P<bare>[A-Za-z0-9._/-]+))',
    re.IGNORECASE | re.ASCII,
)
_ARXIV_ALONE = re.compile(_ARXIV_ID, re.IGNORECASE | re.ASCII)


def bibtex_eprints(text: str) -> list[tuple[int, int, Form, str]]:
    """(start, end, form, DOI) of each BibTeX entry's `eprint` that its entry calls an arXiv ID;
    the span is the value as written (inside its braces or quotes)."""
    starts = [m.start() for m in _ENTRY_START.finditer(text)]
    bounds = zip([0, *starts], [*starts, len(text)], strict=True)  # text before the first: a cut entry
    out = []
    for a, b in bounds:
        arxiv = False
        eprints = []
        for m in _EPRINT_FIELDS.finditer(text, a, b):
            group = "braced" if m["braced"] is not None else "quoted" if m["quoted"] is not None else "bare"
            if m["name"].lower() == "eprint":
                eprints.append((m.start(group), m.end(group)))
            elif m[group].lower() == "arxiv":
                arxiv = True
        if not arxiv:
            continue
        for s, e in eprints:
            idm = _ARXIV_ALONE.fullmatch(text, s, e)
            if idm is not None:
                out.append((s, e, Form.DERIVED_ARXIV, _arxiv(idm)))
    return out
