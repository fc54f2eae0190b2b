"""The fast path of the matcher gives exactly what the full rules give (spec §2–§4)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import extractor.match.find as F
from extractor.pipeline.decode import decode_bytes, detect_kind

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


_PIECES = [
    "10.1000/182",
    "10.12345/abc.def",
    "doi:",
    "DOI ",
    "doi ",
    "https://doi.org/",
    "http://dx.doi.org/",
    "urn:doi:",
    "info:doi/",
    "hdl.handle.net/",
    "www.doi.org/",
    "https:////doi.org/",
    "http:/dx.doi.org/",
    " ",
    "\n",
    ".",
    ",",
    ";",
    ":",
    "(",
    ")",
    "[",
    "]",
    '"',
    "'",
    "<",
    ">",
    "x",
    "-",
    "/",
    "#",
    "?",
    "&",
    "%2F",
    "Á",
    "\u00ad",
    "\u00a0",
    "10.",
    "1234",
    "/a",
]


@given(st.lists(st.sampled_from(_PIECES), max_size=25))
@settings(max_examples=1500)
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
