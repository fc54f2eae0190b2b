"""The fast path of the matcher gives exactly what the full rules give (spec §2–§4)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import extractor.match.left as L
import extractor.match.matcher as F
from extractor.pipeline.io.decode import decode_bytes, detect_kind

from .helpers import FAST_PIECES, PDF_PIECES, REHYPHENATION_EXAMPLES

ROOT = Path(__file__).resolve().parent.parent


def both(text: str, kind: str) -> tuple[list[F.Hit], list[F.Hit]]:
    try:
        F.FAST_PATH = True
        fast = list(F.find_dois(text, kind))
        F.FAST_PATH = False
        full = list(F.find_dois(text, kind))
    finally:
        F.FAST_PATH = True
    return fast, full


def corpus_files() -> Iterator[Path]:
    for d in ("corpora/sample", "corpora/labelled/plain", "corpora/labelled/html"):
        yield from sorted((ROOT / d).glob("*"))


@pytest.mark.parametrize("path", list(corpus_files()), ids=lambda p: p.name)
def test_fast_path_agrees_on_corpora(path: Path) -> None:
    data = path.read_bytes()
    text, _ = decode_bytes(data)
    fast, full = both(text, detect_kind(str(path), data))
    assert fast == full


@given(st.lists(st.sampled_from(FAST_PIECES), max_size=25))
def test_fast_path_agrees_on_generated_text(pieces: list[str]) -> None:
    text = "".join(pieces)
    for kind in ("plain", "html"):
        fast, full = both(text, kind)
        assert fast == full, text


@pytest.mark.parametrize("first", [1, 150, 190, 200, 1900])
@pytest.mark.parametrize("dots", [0, 3, 30, 700])
def test_fast_path_sees_a_second_doi_only_where_the_full_rules_do(first: int, dots: int) -> None:
    """The cmatcher fuzz target: the fast path's lookahead for ",10.NNNN/" was unbounded, so a
    separator 2,000 characters on (past every window the full rules read) split the name."""
    text = "10.1234/" + "a" * first + ",10.1234" + ".10" * dots + "/b and more"
    for kind in ("plain", "html"):
        fast, full = both(text, kind)
        assert fast == full, (first, dots)


def full_pdf_rules(text: str, monkeypatch: pytest.MonkeyPatch) -> list[F.Hit]:
    """find_dois(text, "pdf") with the shortcuts switched off: every break through the column
    search (pdftext.layout.new_below, as joins reads it), every name through each rule of
    first_cut (rules._ANY_CUT)."""
    import re

    import extractor.match.pdftext.joins as J
    import extractor.match.rules as R

    with monkeypatch.context() as m:
        m.setattr(J, "new_below", lambda text, b: False)
        m.setattr(R, "_ANY_CUT", re.compile(""))
        F.clear_caches()
        full = list(F.find_dois(text, "pdf"))
    F.clear_caches()
    return full


@given(st.lists(st.sampled_from(PDF_PIECES), max_size=30))
def test_pdf_shortcuts_agree_with_the_full_rules(pieces: list[str]) -> None:
    """Issue 15: a DOI at a line end whose next line starts something new is decided without
    the column search, and a name with no character any cut rule reacts to is whole at once;
    both give what the full rules give."""
    text = "".join(pieces)
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert list(F.find_dois(text, "pdf")) == full_pdf_rules(text, monkeypatch), text


def test_pdf_shortcuts_agree_on_the_pdf_corpora() -> None:
    paths = sorted((ROOT / "corpora" / "labelled" / "pdf").glob("*"))
    assert paths
    with pytest.MonkeyPatch.context() as monkeypatch:
        for path in paths:
            text, _ = decode_bytes(path.read_bytes())
            assert list(F.find_dois(text, "pdf")) == full_pdf_rules(text, monkeypatch), path.name


def test_rehyphenation_prefilter_passes_every_name_a_rule_changes() -> None:
    """rehyphenate's two prefilters (rules anchored at the start, rules with a literal inside)
    let through every name some rule of DEHYPHENATION_RULES rewrites."""
    import extractor.match.pdftext.hyphens as P

    for name in REHYPHENATION_EXAMPLES:
        full = name
        for pattern, repl in P.DEHYPHENATION_RULES:
            full = pattern.sub(repl, full)
        assert full != name, name  # each example is rewritten by some rule ...
        assert P.rehyphenate(name) == full, name  # ... and the prefilter lets it through


@pytest.mark.parametrize(
    "text",
    [
        "Ref. 10.1016/0022-3956\n(75)90026-6 and more",  # "(" goes on after an ISSN (spec §5)
        "left    10.1234/a-\nPMID    5678\n",  # the DOI's own column goes on below a new id
        "left    10.1234/ab-\nPMID      5678 x\n",
        "10.1234/a-\n10.1234/b-\n[12] 10.1234/c\n",
        "doi:10.1000/ab-\n   https://example.org/x\n",
        "10.1371/journal.pone.\n0046041 and 10.1371/journal.pone.0046041.t001\n",
    ],
)
def test_pdf_shortcuts_agree_on_layouts(text: str) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert list(F.find_dois(text, "pdf")) == full_pdf_rules(text, monkeypatch)


# Suffixes empty by their first character (find._Scanner._empty_suffix): closing brackets,
# a comma or semicolon before the next DOI, next to long anchors, long runs and PDF breaks.
EMPTY_PIECES = [
    "10.1234/",
    "doi:10.1234/",
    "https://x.org/10.1234/",
    ")",
    "]",
    "}",
    ">",
    "）",
    ",",
    ";",
    ",10.1234/y",
    ";doi:10.1234/z",
    "10.1234/x",
    "(",
    "\n",
    "-\n",
    " ",
    "a",
    "c" * 250,
    "c" * 12,
    "10." + "1" * 2260 + "/",
    " and 10.1234/x123\n456",
    " 10.1234/x123456",
]


def with_and_without_the_shortcut(text: str, kind: str) -> tuple[tuple[object, ...], tuple[object, ...]]:
    out = []
    for shortcut in (True, False):
        stats = F.FindStats()
        saved = F._Scanner._empty_suffix
        if not shortcut:
            F._Scanner._empty_suffix = lambda self, q, anchor: False  # type: ignore[method-assign]
        try:
            hits = list(F.find_dois(text, kind, stats=stats))
        finally:
            F._Scanner._empty_suffix = saved  # type: ignore[method-assign]
        out.append((hits, stats.too_long, stats.dropped))
    return out[0], out[1]


@given(st.lists(st.sampled_from(EMPTY_PIECES), max_size=20))
def test_an_empty_suffix_told_early_agrees_with_the_full_reading(pieces: list[str]) -> None:
    """An anchor whose suffix opens with an unbalanced closing bracket, or with a comma or
    semicolon before the next DOI, is passed over before its left context is read: the hits and
    the counts of candidates too long are those of the full reading, in every kind (a PDF run that
    ends within the short window is read for the join it may try)."""
    text = "".join(pieces)
    for kind in ("plain", "html", "pdf"):
        early, full = with_and_without_the_shortcut(text, kind)
        assert early == full, (kind, text)


# The left context's shortcuts (find._GLUED_LAST, find._urlish) answer as the patterns they skip.
GLUED_STEMS = ["dx.doi.org", "doi.org", "hdl.handle.net", "urn:doi", "urn:eidr", "info:doi", "info%3Adoi%2"]
GLUED_STEMS += ["doi%3", "do", "doi", "x/doi", "https://doi.org"]


def test_a_glued_left_context_ends_in_one_of_the_characters_told() -> None:
    """LEFT_GLUED is anchored at the token's end: every character a match can end with (under
    IGNORECASE, in the Basic Multilingual Plane, where all case folds into ASCII lie) is one of
    _GLUED_LAST, so a token ending otherwise is passed over without the search."""
    for cp in range(0x10000):
        c = chr(cp)
        if 0xD800 <= cp <= 0xDFFF or c in L._GLUED_LAST or not L._TOKEN_REV.fullmatch(c):
            continue  # (a token holds no whitespace, quote, bracket, comma or semicolon)
        for stem in GLUED_STEMS:
            assert L.LEFT_GLUED.search(stem + c) is None, (stem, hex(cp))


URL_PIECES = [
    "://",
    ":/",
    "www.",
    "WwW.",
    "ww",
    "http",
    "x",
    "ſ",
    "K",
    "a.bc/",
    "/seg/",
    "é",
    "9",
    ".",
    "-",
    "+",
]


@given(st.lists(st.sampled_from(URL_PIECES), max_size=12))
def test_urlish_shortcut_is_the_full_search(pieces: list[str]) -> None:
    token = "".join(pieces)
    assert L._urlish(token) == (L.URLISH.search(token) is not None), token
