"""HTML in C (issue 11: HTML at plain-text speed): the C port of html.py's views and their search
(native.html_spans) gives exactly what find_spans(…, "html") gives — html.py and find.py stay the
reference — on the corpora, the spec table's HTML rows, hostile markup and generated pages."""

from __future__ import annotations

import functools
import html
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from extractor.match import FORMS, find_spans, native
from extractor.match.html import html_views
from extractor.pipeline.io.decode import byte_offsets, clean

from .helpers import PIECES
from .spec_table import ALL_TABLES, Row

pytestmark = pytest.mark.skipif(not native.HAVE_C, reason="the C matcher is not built")

ROOT = Path(__file__).resolve().parent.parent


def reference(data: bytes) -> list[tuple[int, int, str, str]]:
    """find_spans(…, "html") on the bytes as a shard reads them, offsets made bytes."""
    text = data.decode("utf-8", "surrogateescape")
    spans = find_spans(clean(text)[0], "html")
    chars = sorted({s.start for s in spans} | {s.end for s in spans})
    at = dict(zip(chars, byte_offsets(text, chars), strict=True))
    return [(at[s.start], at[s.end], str(s.form), s.doi) for s in spans]


def agree(data: bytes) -> None:
    got = [(a, e, str(FORMS[f]), d) for a, e, f, d in native.html_spans(data)[0]]
    assert got == reference(data), data[:300]


def views_agree(data: bytes) -> None:
    """The three views themselves: the same text (invalid bytes read as U+FFFD)."""
    from extractor.match import _cscan

    doc = clean(data.decode("utf-8", "surrogateescape"))[0]
    want = [v.text for v in html_views(doc)]
    got = [
        clean(t.decode("utf-8", "surrogateescape"))[0] for t, _segs in _cscan.html_views(data, html.unescape)
    ]
    assert got == want


def html_files() -> Iterator[Path]:
    for d in ("corpora/labelled/html", "corpora/labelled-kinds/html", "corpora/labelled-kinds-seed99/html"):
        yield from sorted((ROOT / d).glob("*"))
    yield from sorted((ROOT / "corpora/bench/html").glob("page-000[0-4]*.html"))


@pytest.mark.parametrize("path", list(html_files()), ids=lambda p: p.name)
def test_c_html_agrees_on_corpora(path: Path) -> None:
    data = path.read_bytes()
    agree(data)
    views_agree(data)


HTML_ROWS = [
    (f"{name}-{i}", row)
    for name, rows in ALL_TABLES.items()
    for i, row in enumerate(rows)
    if row.kind == "html"
]


@pytest.mark.parametrize(("name", "row"), HTML_ROWS, ids=[n for n, _ in HTML_ROWS])
def test_c_html_agrees_on_the_spec_table(name: str, row: Row) -> None:
    agree(row.text.encode("utf-8", "surrogateescape"))


# Markup the view rules react to: inline and block tags, comments, CDATA, declarations, raw-text
# elements in any case (and look-alikes: long s), JSON scripts and their escapes, attributes
# quoted, unquoted and broken, character references of every kind, non-ASCII whitespace.
MARKUP = [
    "<p>",
    "</p>",
    "<a href='https://doi.org/10.1000/1'>",
    "</a>",
    "<a>",
    "<span>",
    "</span>",
    "<wbr>",
    "<BR/>",
    "<i>",
    "</I>",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "<!DOCTYPE html>",
    "<?xml version='1.0'?>",
    '<script type="application/ld+json">',
    "<script type='text/json'>",
    "<SCRIPT TYPE=JSON>",
    "<script>",
    "</script>",
    "</SCRIPT >",
    "</ſcript>",
    "<style>",
    "</style>",
    "<title>",
    "</title>",
    "<textarea>",
    "</textarea>",
    "&amp;",
    "&#47;",
    "&#x2F;",
    "&#X2f",
    "&lt;",
    "&gt;",
    "&ampx",
    "&#12345678;",
    "&#x110000;",
    "&#0;",
    "&#1;",  # html.unescape makes it nothing at all
    "&#xFFFE;",
    "&#32;",
    "&#x7e;",
    "&#x7f;",
    "&#39",
    "&AMP;",
    "&quot;",
    "&#x80;",
    "&copy",
    "&notanentity;",
    "&",
    "\\/",
    "\\u002F",
    "\\ud83d\\ude00",
    "\\ud800",
    "\\",
    '"',
    "'",
    ">",
    "<",
    "<a x='>'",
    '<a x=">" y=\'',
    '<meta content="doi:10.1000/182">',
    "<meta name=citation_doi content=10.1234/abc>",
    "<div data-doi=10.5555/x&amp;y >",
    "<img src=x alt='https://doi.org/10.1000/in%2Falt'>",
    "<link href=https://doi.org/ab12 rel=cite>",
    "<a\u00a0href='10.1000/nbsp'>",
    "<é>",
    "< p>",
    "</ >",
    "\u00a0",
    "\n",
    " ",
    "=",
    "/",
    # spec §7, XML: elements whose text is one DOI, read as after a label
    '<article-id pub-id-type="doi">',
    "</article-id>",
    "<pub-id pub-id-type=DOI>",
    "<pub-id pub-id-type='pmid'>",
    "<object-id pub-id-type>",
    '<ArticleId IdType="doi">',
    '<ELocationID EIdType="doi" ValidYN="Y">',
    "<doi>",
    "</doi>",
    "<idno type=DOI>",
    '<identifier identifierType="doi" x="y">',
    '<idno typ="doi">',
    "10.5/100",
    "\n  \t",
    # spec §6: links whose target and text may name one DOI
    '<ext-link ext-link-type="uri" xlink:href="https://doi.org/10.1000/182">',
    "</ext-link>",
    "<A HREF=10.1000/182>",
    "<a xlink:HREF='doi:10.1000/182' href=x>",
    "<uri xlink:href=https://dx.doi.org/10.1000/1>",
    "<a href>",
    "<a\u212a href='10.1000/1'>",
    "doi: ",
    "10.1000/182",
]


@given(st.lists(st.sampled_from(MARKUP + PIECES), max_size=40))
def test_c_html_agrees_on_generated_markup(pieces: list[str]) -> None:
    data = "".join(pieces).encode("utf-8", "surrogateescape")
    agree(data)
    views_agree(data)


@pytest.mark.parametrize(
    "text",
    [
        "<a x='>'" * 3000,  # one quote kind, odd: no tag can end at any '>'
        '<a href="' * 2000,
        "<p>" + "&amp;" * 5000 + "10.1000/x</p>",
        "<div " + "a" * 9000 + ">10.1000/182</div>",  # over _MAX_TAG: read as text
        "<div title='" + "é" * 5000 + "'>10.1000/182</div>",  # 10,000 bytes, 5,000 characters
        "<script type=application/ld+json>" + '{"a":"10.1000\\/' + "x" * 3000 + '"}' + "</script>",
        "<p>10.1000/" + "a" * 2500 + "</p><p>10.1000/after</p>",  # a token dropped as too long
        "<!--" + "10.1000/in-comment " * 100,  # an unclosed comment runs to the end
    ],
    ids=lambda t: t[:20],
)
def test_c_html_agrees_on_hostile_markup(text: str) -> None:
    agree(text.encode())


def test_invalid_bytes_apart_in_the_markup_do_not_join_in_a_view() -> None:
    """`\xc3<a>\x81`: two invalid bytes, one on each side of an inline tag, are two U+FFFD in
    the document decoded whole; side by side in the flow view they must not become an Á (found
    by the generated markup below)."""
    for data in (b"doi:10.1000/x\xc3<a>\x81y", b"<p>10.1000/\xe2\x82</b>\xac1</p>", b"\xc3<a href='x'>\x81"):
        agree(data)
        views_agree(data)


def test_c_html_decodes_references_through_the_function_given() -> None:
    """html.unescape stays the one table of character references: the C port asks it."""
    from extractor.match import _cscan

    asked: list[str] = []

    @functools.wraps(html.unescape)
    def unescape(ref: str) -> str:
        asked.append(ref)
        return html.unescape(ref)

    spans, _dropped, _too_long = _cscan.html_spans(b"<p>doi:10.1000&#47;182 &amp; &nope; x</p>", unescape)
    assert asked == ["&nope;"]  # &#47; and &amp; are decoded in C (printable ASCII, the usual four)
    assert [(a, e, d) for a, e, _f, d in spans] == [(3, 22, "10.1000/182")]


def test_a_scan_reads_html_in_c_as_in_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whole scans, HTML read by the C port and by html.py + find.py: the same mentions and
    occurrences — lines of a page, character offsets of HTML records, a page over many windows
    (hits across their cuts), invalid bytes and character references."""
    import json

    from extractor.pipeline.scan import matchers

    from .helpers import scan_here, table

    src = tmp_path / "in"
    src.mkdir()
    page = (
        "<html><head><title>T &amp; 10.1000/title</title>"
        "<meta name='citation_doi' content='10.1234/meta.1'>"
        '<script type="application/ld+json">{"sameAs": "https:\\/\\/doi.org\\/10.5555\\/ld"}</script></head>\n'
        "<body><p>See doi:10.1000/182 and <a href='https://doi.org/10.1038/nphys1170'>it</a>.</p>\n"
    )
    row = "<tr><td>{i}</td><td>doi:10.{p}/x.{i}&#47;y</td><td><a href='https://doi.org/10.{p}/l{i}'>l</a></td></tr>\n"
    big = page + "".join(row.format(i=i, p=1000 + i % 50) for i in range(6000)) + "</body></html>\n"
    (src / "big.html").write_text(big)  # ~640 KB: many windows of 64 KiB below
    (src / "bad.html").write_bytes(page.encode() + b"<p>10.1000/\xff\xfebad and 10.1000/ok\xe9</p>\n")
    (src / "pages.jsonl").write_text(
        "".join(json.dumps({"id": f"r{i}", "text": "é" * i + page}) + "\n" for i in range(5))
    )
    config: dict[str, Any] = {
        "occurrences": True,
        "kind": None,
        "map_min": 0,
        "map_window": 64 << 10,
        "block_size": 16 << 10,
    }
    scan_here([src], tmp_path / "c", **config)
    monkeypatch.setattr(matchers, "uses_c", lambda kind, other: kind.name == "plain" and native.HAVE_C)
    scan_here([src], tmp_path / "py", **config)
    for name in ("mentions", "occurrences", "dois"):
        assert table(tmp_path / "c", name) == table(tmp_path / "py", name), name
    assert len(table(tmp_path / "c", "occurrences")) > 12000
