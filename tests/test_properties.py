"""Properties that must hold for every DOI, checked on generated ones (hypothesis)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from extractor import canonicalize, find_dois, to_uri, to_url
from extractor.match import Form, fold_ascii

from .helpers import PIECES

# Suffix characters seen in real DOIs (Crossref's advice plus SICI punctuation), and a few
# non-ASCII letters; the suffix never ends in punctuation that running text would strip.
_INNER = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._;()/:<>ÁéßΩ"
_KEY_VALUE = re.compile(r";[A-Za-z][A-Za-z0-9_-]*(?:[:=]|\Z)")  # a ":" may follow in the text
_LAST = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ÁéΩ"


def _balanced(s: str) -> bool:
    stack = []
    pairs = {")": "(", ">": "<"}
    for ch in s:
        if ch in "(<":
            stack.append(ch)
        elif ch in pairs and (not stack or stack.pop() != pairs[ch]):
            return False
    return not stack


@st.composite
def doi_names(draw: st.DrawFn) -> str:
    registrant = draw(st.integers(1000, 999999))
    sub = draw(st.sampled_from(["", ".1", ".25"]))
    body = draw(st.text(_INNER, min_size=0, max_size=30))
    last = draw(st.text(_LAST, min_size=1, max_size=3))
    suffix = body + last
    if not _balanced(suffix) or "10." in suffix or suffix.startswith("/"):
        suffix = "x" + "".join(ch for ch in suffix if ch not in "()<>/")
    if "<" in suffix:  # "<x" would read as an HTML tag in plain text
        suffix = suffix.replace("<", "<1")
    if _KEY_VALUE.search(suffix):  # ";key:" ends a DOI (spec §4): make it SICI's ";2-"
        suffix = suffix.replace(";", ";2")
    return f"10.{registrant}{sub}/{suffix}"


def _encode_all(name: str) -> str:
    prefix, _, suffix = name.partition("/")
    return prefix + "%2F" + "".join(f"%{b:02X}" for b in suffix.encode("utf-8"))


FORMS = [
    lambda n: n,
    lambda n: "doi:" + n,
    lambda n: "DOI: " + n,
    lambda n: "doi " + n,
    lambda n: "urn:doi:" + to_url(n)[len("https://doi.org/") :],
    lambda n: "info:doi/" + n,
    lambda n: to_url(n),
    lambda n: "http://dx.doi.org/" + to_url(n)[len("https://doi.org/") :],
    lambda n: "https://hdl.handle.net/" + to_url(n)[len("https://doi.org/") :],
    lambda n: to_uri(n),
    lambda n: "https://doi.org/" + _encode_all(n),
    lambda n: "https://example.org/openurl?id=doi%3A" + _encode_all(n)[0:] + "&sid=x",
]


@given(doi_names())
def test_canonicalize_is_idempotent(name: str) -> None:
    c = canonicalize(name)
    assert c == fold_ascii(name)
    assert canonicalize(c) == c


@given(doi_names(), st.sampled_from(range(len(FORMS))))
def test_every_display_form_canonicalizes_to_the_same_key(name: str, form: int) -> None:
    shown = FORMS[form](name)
    assert canonicalize(shown) == fold_ascii(name), shown


_BEFORE = ["", " ", "see ", "(", "[", "“", "«", "'", "(see ", "ref. ", "\n", "1. ", "—"]
_AFTER = ["", " ", ".", ",", ";", ")", "]", "”", "»", "'", ").", "], and", ":", "!", "?", " (2019)"]


@given(
    doi_names(),
    st.sampled_from(range(len(FORMS))),
    st.sampled_from(_BEFORE),
    st.sampled_from(_AFTER),
    st.sampled_from(["plain", "pdf"]),
)
def test_doi_in_random_sentence_context_found_once(
    name: str, form: int, before: str, after: str, kind: str
) -> None:
    shown = FORMS[form](name)
    closer = {"(": ")", "[": "]", "(see ": ")"}.get(before, "")
    text = f"Prior work {before}{shown}{closer}{after} shows this."
    hits = list(find_dois(text, kind))
    assert [h.doi for h in hits] == [fold_ascii(name)], text
    assert text[hits[0].start : hits[0].end] == hits[0].raw


@given(st.text(max_size=200))
def test_any_text_never_raises_and_offsets_are_exact(text: str) -> None:
    for kind in ("plain", "html", "pdf"):
        for h in find_dois(text, kind):
            assert text[h.start : h.end] == h.raw
            assert h.doi.startswith("10.") or (h.form is Form.SHORT_DOI and h.doi.startswith("10/"))


_MARKUP = [
    "<",
    ">",
    "</",
    "a",
    "p",
    "i",
    "script",
    "style",
    "href=",
    "data-doi=",
    '"',
    "'",
    "&amp;",
    "&#47;",
    "&#x2F;",
    "&",
    "#",
    ";",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "\\/",
    "\\u002F",
    "10.1000/x",
    "doi:",
    "https://doi.org/",
    " ",
    "\n",
    "\f",
    "   ",
    "-",
    ".",
    "(",
    ")",
    "%2F",
    "\u00ad",
    'type="application/ld+json"',
]


@given(st.lists(st.sampled_from(_MARKUP), max_size=60))
def test_markup_shaped_garbage_never_raises_and_offsets_are_exact(pieces: list[str]) -> None:
    text = "".join(pieces)
    for kind in ("html", "pdf", "plain"):
        for h in find_dois(text, kind):
            assert text[h.start : h.end] == h.raw
            assert h.doi.startswith("10.") and "/" in h.doi


@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_each_hit_read_alone_is_the_same_doi(pieces: list[str]) -> None:
    """What find_dois reports as one DOI, canonicalize reads as that DOI (issue 15: `urn:eidr:`
    hits, labels followed by a line break). URL forms are left out: where a URL ends in text
    depends on what follows its raw span (`<x` then more text), which the raw span alone lacks."""
    text = "".join(pieces)
    for hit in find_dois(text):
        if not hit.form.is_url and hit.form is not Form.PERCENT:
            assert canonicalize(hit.raw) == hit.doi, hit
