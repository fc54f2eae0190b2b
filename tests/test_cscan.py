"""The C matcher on raw bytes (extractor/match/_cscan.c, run through match/native.py) gives exactly what find.find_spans gives.

find.py is the reference: every rule of the spec is written and tested there (test_spec.py);
the C port is held to it here, on the corpora and on generated text built from the pieces the
rules react to (labels, resolvers, tails, escapes, brackets, look-alike letters, invalid bytes).
Without the C part there is nothing to hold: the module is skipped (test_no_c.py covers that
build).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from extractor.match import FORMS, canonical, ctables, find_spans, forms, kind_of, native, tails
from extractor.match.native import find_spans_utf8
from extractor.match.pdftext import hyphens as pdf_rules
from extractor.match.pdftext.far import may_go_far
from extractor.match.pdftext.shapes import _GLUED_PAGE, SHAPES, glued_gate, glued_page_end
from extractor.match.syntaxes import syntax_of
from extractor.pipeline.io.decode import clean
from extractor.pipeline.scan.matchers import CMatcher, PythonMatcher, Window
from extractor.pipeline.table import Mentions

from .helpers import PDF_PIECES, PIECES, REHYPHENATION_EXAMPLES
from .spec_table import ENDS, REPORTED, SYNTAX, Row

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(not native.HAVE_C, reason="the C matcher is not built")


def char_spans(data: bytes, kind: str = "plain") -> list[tuple[int, int, str, str]]:
    """The C matcher's hits on `data`, with character offsets (as find_spans gives them)."""
    text = data.decode("utf-8", "surrogateescape")
    b2c = {}
    b = 0
    for i, ch in enumerate(text):
        b2c[b] = i
        b += len(ch.encode("utf-8", "surrogateescape"))
    b2c[b] = len(text)
    return [(b2c[s], b2c[e], str(form), doi) for s, e, form, doi in find_spans_utf8(data, kind)]


def reference(data: bytes, kind: str = "plain") -> list[tuple[int, int, str, str]]:
    """find_spans on the text as a shard reads it: invalid bytes as U+FFFD, one per byte."""
    text = clean(data.decode("utf-8", "surrogateescape"))[0]
    return [(s, e, str(f), d) for s, e, f, d in find_spans(text, kind)]


def agree(data: bytes, kind: str = "plain") -> None:
    assert char_spans(data, kind) == reference(data, kind), data


def corpus_files() -> Iterator[Path]:
    for d in (
        "corpora/sample",
        "corpora/labelled/plain",
        "corpora/labelled/html",
        "corpora/labelled-seed777/plain",
    ):
        yield from sorted((ROOT / d).glob("*"))


@pytest.mark.parametrize("path", list(corpus_files()), ids=lambda p: p.name)
def test_c_matcher_agrees_on_corpora(path: Path) -> None:
    agree(path.read_bytes())  # HTML too, read as plain text: markup is a hard test of the end rules


@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_c_matcher_agrees_on_generated_text(pieces: list[str]) -> None:
    agree("".join(pieces).encode("utf-8", "surrogateescape"))


# Long tokens (no whitespace), as the left context of an anchor reads them back up to
# LEFT_WINDOW characters: URL evidence near or far behind the anchor or cut off by the window,
# token stops, non-ASCII and invalid bytes that make characters fewer than bytes.
EVIDENCE = [
    "",
    "https://",
    "x+1.-://",
    "9://",
    "WwW.",
    "www",
    "example.org/",
    "a.bc/",
    "/seg/",
    ")",
    "(",
    "\u2028",
    "é",
    "\udcff",
    ",",
]
FILL = ["a", "9", "é", ")", "a.b", "-", "\udcff", "10.1234/)", "%2F"]
ANCHORS = ["/10.1234/x", "10.1234/)", "doi:10.1234/abc", "=10.5555/q", "10.1234/x)", "%2F10.1234%2Fy"]


@st.composite
def long_tokens(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        parts.append(draw(st.sampled_from(EVIDENCE)))
        parts.append(draw(st.sampled_from(FILL)) * draw(st.integers(0, 700)))
        parts.append(draw(st.sampled_from(ANCHORS)))
    return "".join(parts)


@given(long_tokens())
def test_c_left_context_of_long_tokens_agrees(text: str) -> None:
    """The left context read from what the scan learnt of the text before (LeftCache), for
    anchors in a token longer than 64 characters, as find.py reads it back whole."""
    for kind in ("plain", "pdf"):
        agree(text.encode("utf-8", "surrogateescape"), kind)


@st.composite
def close_anchors(draw: st.DrawFn) -> str:
    """A long token, then anchors a few characters apart in it: each left context after the
    first is told by the cache the one before brought up to date."""
    parts = [draw(st.sampled_from(EVIDENCE)), "a" * draw(st.integers(40, 600))]
    for _ in range(draw(st.integers(2, 6))):
        parts.append(draw(st.sampled_from([*FILL, "https://doi.org/", "x.org/"])) * draw(st.integers(0, 12)))
        parts.append(
            draw(st.sampled_from([*ANCHORS, "doi.org/10.1234/z", "é10.1234/é", "info:doi/10.1234/i"]))
        )
    return "".join(parts)


@given(close_anchors())
def test_c_left_context_of_close_anchors_agrees(text: str) -> None:
    for kind in ("plain", "pdf"):
        agree(text.encode("utf-8", "surrogateescape"), kind)


@given(st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from([1, 2, 300, 1200, 2600])), max_size=10))
def test_c_matcher_agrees_on_long_tokens(pieces: list[tuple[str, int]]) -> None:
    # Pieces repeated hundreds of times: anchors, runs and brackets near every window's bound.
    agree("".join(p * k for p, k in pieces).encode("utf-8", "surrogateescape"))


@pytest.mark.parametrize(
    "text",
    [
        "see 10.1234/" + "a" * 300 + " and 10.1234/b",  # past the short window
        "see 10.1234/" + "a" * 1990 + "<b> x",
        "see 10.1234/" + "a" * 2500 + " then 10.1234/after",  # too long: dropped with its token
        "x 10." + "1" * 3000 + "/abc 10.1000/182",  # an absurd registrant
        "x 10." + "1" * 1500 + "/" + "a" * 2500 + " 10.1000/182",  # a long registrant and a long run
        "x 10." + "1" * 1500 + "/" + "(" * 2100 + " 10.1000/182",
        "x 10.1234/" + "(" * 3000 + " 10.1000/182",
        "10.1234/a," * 400,
        "doi:" + " " * 12 + "10.1038/sj.npp.1300301",  # a spaced label 24 characters back
        "https://doi.org/" + "/x" * 300 + "10.1234/5",
    ],
    ids=[
        "long",
        "long-tag",
        "too-long",
        "huge-anchor",
        "long-anchor-long-run",
        "long-anchor-brackets",
        "brackets",
        "comma-joined",
        "spaced-label",
        "long-url",
    ],
)
def test_c_matcher_agrees_on_long_runs(text: str) -> None:
    agree(text.encode())


@given(
    st.integers(0, 40),
    st.sampled_from([",", ";", "?", "&", "#", ")", "]", "(", "", "?ab="]),
    st.sampled_from(["<", "</", "<a", "</ab", "<a:b.c-d_"]),
    st.integers(0, 40),
    st.sampled_from(["", " ", ">", "/", "!", "?x=1", ",10.1234/x", "(", ")", "é"]),
    st.sampled_from(["", "https://doi.org/", "doi:", "urn:doi:", "x.org/"]),
)
def test_c_matcher_agrees_on_cuts_near_its_first_window(
    filler: int, cut: str, tag: str, name: int, stop: str, prefix: str
) -> None:
    # The C matcher decides a cut in its first characters before reading the short window;
    # a tag name running past them (rules._TAGLIKE) must still be read as the reference reads it.
    for kind in ("plain", "pdf"):
        agree(f"{prefix}10.1234/{'a' * filler}{cut}{tag}{'b' * name}{stop} 10.1000/1".encode(), kind)


@given(
    st.integers(0, 300),
    st.sampled_from([")", "]", "}", ",10.1234/x", ";a=1", "?ab=", "<b>", "\ufffd", ""]),
    st.sampled_from(["-", "/", ".", "a", "(", "é"]),
    st.sampled_from(["\n", " \n", "\n\n", "   ", "\n  "]),
    st.sampled_from(["cd", "(1)", "123", "10.1234/y", "Next"]),
    st.sampled_from(["", " and 10.1234/x123\n456 z", " and 10.1234/x99\n9999 z and 10.1234/x12345 w"]),
)
def test_c_pdf_matcher_agrees_on_a_cut_before_a_break(
    run: int, cut: str, last: str, brk: str, nxt: str, evidence: str
) -> None:
    """PDF text: a cut in the first characters ends the name without a join only when the run
    goes on past the short window (no break is read in it); a run that ends at a line break
    within the short window is joined, or left on a guess, as find.py does: a guess makes the
    hit's name no evidence for the other breaks (`evidence`, spec §5)."""
    text = f"see 10.1234/x123456{cut}{'c' * run}{last}{brk}{nxt} y{evidence}\n"
    agree(text.encode("utf-8", "surrogateescape"), "pdf")


@pytest.mark.parametrize("pad", [0, 6, 40])
@pytest.mark.parametrize("trigger", ["1g/", "1G/", "xg/", "10/", "rg/"])
def test_only_10_slash_and_rg_slash_trigger_a_short_doi(trigger: str, pad: int) -> None:
    """The cmatcher fuzz target: the vector search for "10." and "?g/" returned every candidate
    starting with "1" as a "10", so "doi.org/1g/0" was the shortDOI 10/0 (only in texts long
    enough for the vector loop)."""
    for text in (f"doi.org/{trigger}0abc", f"see doi.o{trigger}0abc1", f"x doi.org/{trigger}abcd1234 y"):
        agree((text + " " * pad + "\x1e\x1e" + "é" * pad).encode())


# ---- PDF text (native.pdf_scan): the rules of find_spans(…, "pdf") -----------------------------


def pdf_files() -> Iterator[Path]:
    for d in (
        "corpora/labelled/pdf",
        "corpora/labelled-seed777/pdf",
        "corpora/labelled-kinds/pdf",
        "corpora/labelled-columns/pdf",
    ):
        yield from sorted((ROOT / d).glob("*.txt"))  # (not the raw PDFs beside the texts)


@pytest.mark.parametrize("path", list(pdf_files()), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_c_pdf_matcher_agrees_on_pdf_corpora(path: Path) -> None:
    """Text as pdftotext (default and -layout), PDFium, pdfminer and others extract it: lines
    broken inside DOIs, columns, running headers, reference numbers."""
    agree(path.read_bytes(), "pdf")


@pytest.mark.parametrize("prefix", sorted(SHAPES))
@given(data=st.data())
def test_every_piece_of_a_registrants_shape_is_read_as_one(prefix: str, data: st.DataObject) -> None:
    """pdf.Shape.piece is the cheap test before far_rest reads lines: every start of a whole DOI
    of the shape must pass it, and a whole one ends as Shape.ends says (the C matcher then asks
    nothing of it)."""
    shape = SHAPES[prefix]
    whole = data.draw(st.from_regex(shape.whole, fullmatch=True).filter(str.isascii))
    for i in range(1, len(whole)):
        assert shape.piece.fullmatch(whole[:i]), whole[:i]
    assert not may_go_far(f"{prefix}/{whole}")


@pytest.mark.parametrize("prefix", sorted(SHAPES))
@given(data=st.data())
def test_a_glued_page_number_is_cut_only_where_the_c_matcher_asks(prefix: str, data: st.DataObject) -> None:
    """pdf.glued_gate is the C matcher's test before it asks glued_page_end: every name the rule
    cuts must pass it. Whole DOIs of the shape, with a page number or range glued or not, and
    with what hypothesis makes of digits, hyphens and letters after them."""
    shape = SHAPES[prefix]
    whole = data.draw(st.from_regex(shape.whole, fullmatch=True).filter(str.isascii))
    tail = data.draw(st.from_regex(r"[0-9]{0,6}(?:[-\u2013][0-9]{0,5})?[a-z0-9]{0,2}", fullmatch=True))
    name = f"{prefix}/{whole}{tail}"
    a = len(prefix) + 1
    cut = glued_page_end(name, len(name), a)
    assert cut == len(name) or glued_gate(name, a), name
    if tail and tail[0] in "123456789" and _GLUED_PAGE.match(tail) and len(shape.ends) == 1:
        assert cut == a + len(whole), name  # the whole DOI of a one-length shape, its page cut off
    if not tail:
        assert cut == len(name)  # a whole DOI is never cut
    agree(f"doi:{name}\n".encode(), "pdf")


@pytest.mark.parametrize(
    "text",
    [
        # a host whose letter IGNORECASE folds to ASCII (U+017F), in a token the cache reads
        "ſ.rgx/abstract1./886/doi:10.academic.oup.com/x/article/doi/%C3%8110.1000/2",
        # a "10." cut at a column gap, then one cut at the line's end
        "10.   10.\n1234//",
        # the line after a break, told in C before the Python rules walk (pdf.worth_a_walk)
        "doi:10.1371/journal.pgen.   x\n   1001674   y\n",
        "doi:10.1371/journal.pgen.   x\n   1001674\n",
        "  a doi:10.1038/   right column\n  nmeth.\n\n3098\n",
        "doi:10.1016/j.cell.2009.01.\n\fPage 3\n042\n",
        "x" * 1200 + " doi:10.1038/nmeth.\n\n2942\n",
    ],
)
@pytest.mark.parametrize("kind", ["plain", "pdf"])
def test_c_matcher_agrees_on_what_differential_runs_found(text: str, kind: str) -> None:
    agree(text.encode("utf-8"), kind)


@pytest.mark.parametrize(
    ("name", "row"),
    [(n, r) for n, rows in ENDS.items() for r in rows if r.kind == "pdf"],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_c_pdf_matcher_agrees_on_the_spec_table(name: str, row: Row) -> None:
    agree(row.text.encode("utf-8"), "pdf")


@given(st.lists(st.sampled_from(PDF_PIECES + PIECES), max_size=40))
def test_c_pdf_matcher_agrees_on_generated_text(pieces: list[str]) -> None:
    agree("".join(pieces).encode("utf-8", "surrogateescape"), "pdf")


@given(st.lists(st.tuples(st.sampled_from(PDF_PIECES), st.sampled_from([1, 2, 300, 1200, 2600])), max_size=8))
def test_c_pdf_matcher_agrees_on_long_tokens(pieces: list[tuple[str, int]]) -> None:
    # joins of long pieces: logical names past every window, the evidence keys of such names
    agree("".join(p * k for p, k in pieces).encode("utf-8", "surrogateescape"), "pdf")


@pytest.mark.parametrize(
    "text",
    [
        "Ref. 10.1016/0022-3956\n(75)90026-6 and more",  # "(" goes on after an ISSN
        "10.1371/journal.pone.\n0046041 and 10.1371/journal.pone.0046041.t001\n",  # evidence: a parent
        "10.1234/x123\n456 and 10.1234/x123456 and 10.1234/x999999",  # evidence: the DOI and shapes
        "10.1234/x123\n456 and 10.1234/x123456 and 10.1234/x999",  # the DOI seen whole, its shape not
        "10.1234/x123\n456 and 10.1234/x999999 and 10.1234/x999",  # both shapes seen: not joined
        "10.1371/journal.pone.00\n46041 and 10.1371/journal.pone.0046041.t001 and 10.1371/journal.pone.99",
        "see https://doi.\norg/10.1234/abc def",  # a resolver broken across a line
        "see https://doi.   x\n org/10.1234/abc def",  # ... across a column gap
        "https://doi.org/ \n10.1234/abcd and http://dx.doi.org/\n10.1234/abcd",  # the DOI on the next line
        "10. 1016/j.cell.2020.01.001 x 10.\n1371/journal.pbio.0020334 x 1-10. 10.1038/nature123 x",
        "doi: 10.1158/2159-\t8290.CD-\t21-\t1033. next appi. 10.1176/appi. ajp.2010.09091234 x",
        "Smith (2010) 10.1002/(SICI)1097-4571(199806)49:8<693::AID-\nASI4>3.0.CO;2-O.\n",
        "col a text  10.1234/abcdef-    other col text\nmore a text 123456 tail    other col more\n",
        "résumé é   10.1234/abcdef-   éé col\néé more   é 12345 tail\n",  # columns count characters
        "10.1234/abc\u00ad\ndef 10.5555/\ufb01le\u2010x-\n12 x",  # soft hyphen; ligature, look-alike dash
        "10.1234/abc/\n\nxyz123 more\n10.1234/abc.\n154 A. Sundström et al.\n",  # boxes; a running header
        "https://onlinelibrary.wiley.com/doi/abs/10.1002/x.123/abstra\nct more",  # a view segment
        "10.1111/j.1365-\n2133.1977.tb1 x\n10.1234/a-\n10.1234/b-\n[12] 10.1234/c\n",
        "https://x.org/a?id=10.1234%2Fabc\nThe next line 10.1234%2F\nabc x 10.1234%2fab-\n12 x\n",  # %2F separators
        "x 10." + "1" * 3000 + "/abc 10.1000/182 see 10.1234/" + "a" * 300 + "-\n" + "b1" * 10 + " x",
        "10.1234/" + "(" * 2100 + "-\n" + "1" * 2100 + "-\n" + "2" * 2100 + " x",  # brackets past a window
    ],
)
def test_c_pdf_matcher_agrees_on_layouts(text: str) -> None:
    agree(text.encode(), "pdf")


@pytest.mark.parametrize(
    "name",
    [
        *REHYPHENATION_EXAMPLES,
        "10.2190/DAC5-TPV6XUHL-CRMſ",  # IGNORECASE: ſ is an S
        "10.1016/٠٠٢٢٣٩٥٦(75)900266",  # \d: Arabic-Indic digits
        "10.1234/abc.2020.00001",  # no rule
    ],
)
def test_c_pdf_matcher_rehyphenates_as_the_python_rules(name: str) -> None:
    """pdftotext's lost hyphens put back (pdf.DEHYPHENATION_RULES): the C matcher's prefilter
    (may_rehyphenate) lets through each rule's example, so the keys are the Python rules' keys."""
    agree(f"see {name} and doi:{name}.\n".encode(), "pdf")


_WORDS = ["see", "The", "and", "[12]", "PMID", "•", "154", "x", "abstract", "doi:", "https://doi.org/", "é"]
_DOIS = [
    "10.1234/x123456",
    "10.1371/journal.pone.0046041",
    "10.1002/(SICI)1097-4571(199806)49",
    "10.1234/ab-cd-12",
]


@st.composite
def _layout(draw: st.DrawFn) -> str:
    """A page of one or two columns, as pdftotext -layout sets them: the left column's lines
    padded to its width, a gap, the right column; DOIs broken anywhere, their rest indented
    by a few columns (the column search's slack and hanging indent), some DOIs whole elsewhere
    (the evidence)."""
    width = draw(st.integers(12, 40))
    two = draw(st.booleans())
    gap = draw(st.integers(1, 6))
    lines = []
    for _ in range(draw(st.integers(2, 6))):
        doi = draw(st.sampled_from(_DOIS))
        cut = draw(st.integers(1, len(doi) - 1))
        words = " ".join(draw(st.lists(st.sampled_from(_WORDS), max_size=3)))
        indent = " " * draw(st.integers(0, 14))
        for left in (
            f"{words} {doi[:cut]}",
            indent + doi[cut:] + draw(st.sampled_from(["", ".", " and", ","])),
        ):
            right = " ".join(draw(st.lists(st.sampled_from(_WORDS + _DOIS), max_size=3))) if two else ""
            lines.append(left.ljust(width) + (" " * gap + right if right else ""))
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["", "12", "154 A. Sundström et al.", doi])))
    return "\n".join(lines) + "\n"


@given(_layout())
def test_c_pdf_matcher_agrees_on_generated_layouts(text: str) -> None:
    agree(text.encode(), "pdf")


@given(
    st.lists(st.sampled_from(PDF_PIECES), max_size=40),
    st.integers(0, 400),
    st.integers(0, 400),
    st.integers(0, 400),
    st.integers(0, 400),
    st.booleans(),
    st.integers(-1, 5),
)
# a URL hit holding the one before it, not ASCII: its byte offset was read in order of start
@example(["https:////doi.org/", "10.1000/182", ")", "10.1000/182", "154 A. Sundström"], 0, 1, 0, 0, False, 0)
def test_c_pdf_matcher_reads_windows_as_the_python_matcher(
    pieces: list[str], lo: int, cut: int, rlo: int, rhi: int, chars: bool, line_base: int
) -> None:
    """As the window loop calls it: hits chosen by start, anchors before `lo` passed over, the
    end of the last hit, candidates too long, offsets in bytes or characters, lines — the same
    table rows, hits and returns as windows.PythonMatcher (find_spans) gives."""
    data = "".join(pieces).encode("utf-8", "surrogateescape")
    n = len(data)
    lo, rlo = min(lo, n), min(rlo, n)
    cut = max(lo, min(cut, n + 1))
    if chars:
        while 0 < lo < n and data[lo] & 0xC0 == 0x80:  # a character's start, as windows give
            lo -= 1
    got = []
    pdf = kind_of("pdf")
    for make in (lambda t, h: CMatcher(t, h, pdf), lambda t, h: PythonMatcher(pdf, False, t, h)):
        tab = Mentions()
        hits: list[tuple[int, int, int, str, str, int | None]] = []
        ret = make(tab, hits)(
            Window(data, lo, cut, rlo, rhi, 7, chars, line_base, 0, n if line_base >= 0 else -1)
        )
        got.append((ret, hits, tab.take()))
    assert got[0] == got[1]


@pytest.mark.parametrize("kind", ["plain", "pdf"])
def test_candidates_too_long_are_counted_and_passed_over_by_both_matchers(kind: str) -> None:
    """Spec §4: a candidate no rule ends within MAX_DOI_CHARS is dropped with its token,
    counted, and its token's end is where the window's reading ended — in C as in Python."""
    long = "10.1234/" + "a" * 2500
    data = f"see {long} then 10.1234/after and {long}x".encode()
    got = []
    for match in (
        CMatcher(Mentions(), None, kind_of(kind)),
        PythonMatcher(kind_of(kind), False, Mentions(), None),
    ):
        got.append(match(Window(data, 0, len(data) + 1, 0, len(data), 0, False)))
    assert got[0] == got[1] == (1, len(data), 2, -1)


def test_mentions_table_aggregates_per_document() -> None:
    data = b"a 10.1000/182 b doi:10.1000/182 c https://doi.org/10.1000/ABC d 10.1000/abc."
    table = Mentions()
    hits: list[tuple[int, int, int, str, str, int | None]] = []
    reported, last_end, too_long, _lines = native.scan(data, 0, len(data), 0, len(data), 100, table, hits)
    assert (reported, too_long, len(table)) == (4, 0, 2)
    assert [h[:2] for h in hits] == [
        (102, 113),
        (116, 131),
        (134, 161),
        (164, 175),
    ]  # offsets + base, as in the table
    dois, counts, offsets, raws, masks, lines, bounds = table.take()
    assert dois == ["10.1000/182", "10.1000/abc"]
    assert lines == [None, None] and {h[5] for h in hits} == {None}  # lines not asked for
    assert counts == [2, 2]
    assert offsets == [102, 134]
    assert raws == ["10.1000/182", "https://doi.org/10.1000/ABC"]
    assert masks == [0b11, 0b101]  # bare + doi-label; bare + resolver-url
    assert bounds == [0, 2]
    assert len(table) == 0 and last_end == len(data) - 1


def test_window_and_range_select_the_hits_reported() -> None:
    data = b"10.1000/1 10.1000/2 10.1000/3"
    hits: list[tuple[int, int, int, str, str, int | None]] = []
    reported, last_end, _, _ = native.scan(data, 5, 25, 12, 40, 0, None, hits)
    assert hits == [(20, 29, 0, "10.1000/3", "10.1000/3", None)]  # starts in [5, 25) and in [12, 40)
    assert reported == 1 and last_end == len(data)  # the end of the last hit in the window


def test_lines_of_hits_are_counted_from_a_given_byte_and_newline_count() -> None:
    """A text file's hits carry their 1-based line — `line_base` newlines before byte
    `line_from` — in the hits and, for each DOI's first offset, in the table."""
    data = b"x\n\n10.1000/a here\nand 10.1000/b\n\n\nhttps://doi.org/10.1000/a\n"
    table = Mentions()
    hits: list[tuple[int, int, int, str, str, int | None]] = []
    native.scan(data, 0, len(data), 0, len(data), 0, table, hits, line_base=10, line_from=2)
    # the newline at byte 1 is before line_from (in line_base), the one at byte 2 counted
    assert [(h[3], h[5]) for h in hits] == [("10.1000/a", 12), ("10.1000/b", 13), ("10.1000/a", 16)]
    dois, _counts, _offsets, _raws, _masks, lines, _bounds = table.take()
    assert dict(zip(dois, lines, strict=True)) == {"10.1000/a": 12, "10.1000/b": 13}
    for a, b in ((0, len(data)), (3, 20), (5, 5), (-4, 99)):
        assert native.newlines(data, a, b) == data[max(a, 0) : b].count(b"\n")
    assert native.newlines(b"\n" * 100 + b"x" * 33) == 100  # past the 16-byte steps
    # a newline in every byte, past the 255 steps of 16 bytes that the byte counters hold
    every = b"\n" * (255 * 16 * 3 + 21)
    for a, b in ((0, len(every)), (1, len(every) - 2), (7, 255 * 16 + 9), (4080, 8161)):
        assert native.newlines(every, a, b) == b - a


@given(st.binary(max_size=200), st.integers(0, 40))
@example(bytes(range(256)), 0)
@example(b"\x05" * (255 * 16 * 3 + 21), 7)  # a control byte in every byte, over many 16-byte steps
def test_control_bytes_are_counted_in_c_as_python_counts_them(data: bytes, skip: int) -> None:
    """A file's head is told binary by its control bytes (decode.is_binary): C counts them 16
    bytes a step as the Python rule counts them, every byte value, every length and alignment."""
    from extractor.match.bounds import CONTROL_BYTES
    from extractor.match.native import _control_bytes

    view = memoryview(data)[skip:]
    assert native.control_bytes(view) == _control_bytes(view) == sum(b in CONTROL_BYTES for b in view)
    for c in range(256):  # each byte value alone, and in runs across the 16-byte steps
        for n in (1, 33):
            assert native.control_bytes(bytes([c]) * n) == (n if c in CONTROL_BYTES else 0)


def test_character_offsets_are_counted_over_long_runs_of_multibyte_text() -> None:
    """A record's offsets are in characters: counted in 16-byte steps whose byte counters are
    summed every 255 steps, so the runs between hits here are longer than that: ASCII (a lead
    byte in every place), and characters of one to four bytes."""
    filler = "aé€😀 " * 1500  # 11 bytes, 5 characters a time: 16,500 bytes between hits
    text = (
        f"{filler}10.1000/a {filler}doi:10.1000/ü {filler}x"
        "https://doi.org/10.1000/c é 10.1000/d"
        f"{filler[:4093]} 10.1000/e {'a' * 9000} 10.1000/f"
    )
    data = text.encode()
    hits: list[tuple[int, int, int, str, str, int | None]] = []
    native.scan(data, 0, len(data), 0, len(data) + 1, 7, None, hits, chars=True)
    want = [
        text.index(raw) + 7
        for raw in ("10.1000/a", "doi:10.1000/ü", "https://", "10.1000/d", "10.1000/e", "10.1000/f")
    ]
    assert [h[0] for h in hits] == want
    assert [h[1] - h[0] for h in hits] == [len(h[4]) for h in hits]


@pytest.mark.parametrize("line_to", [0, 2, 5, 20, 40, 57])
def test_the_matcher_counts_the_newlines_up_to_line_to_once(line_to: int) -> None:
    """The window loop takes the matcher's newline count up to the next window's start
    (on from the hits' count, backwards when that start is before the last hit) instead of
    counting the window's bytes a second time — the C matcher and the Python one alike."""
    data = b"x\n\n10.1000/a here\nand 10.1000/b\n\n\nhttps://doi.org/10.1000/a\n"
    plain = kind_of("plain")
    for match in (CMatcher(Mentions(), None, plain), PythonMatcher(plain, False, Mentions(), None)):
        got = match(Window(data, 0, len(data), 0, len(data), 0, False, 10, 2, line_to))
        assert got.newlines == (
            data[2:line_to].count(b"\n") if line_to >= 2 else -data[line_to:2].count(b"\n")
        )
        assert match(Window(data, 0, len(data), 0, len(data), 0, False, 10, 2)).newlines == -1  # not asked
        assert (
            match(Window(data, 0, len(data), 0, len(data), 0, False, -1, 2, line_to)).newlines == -1
        )  # no lines


def test_invalid_bytes_are_counted_like_the_decoder() -> None:
    for data in (b"abc", b"\xff", b"\xe2\x82A", b"\xc3\x81\xed\xa0\x80", "é€😀".encode() + b"\x80" * 9):
        text = data.decode("utf-8", "surrogateescape")
        assert native.invalid_bytes(data) == (clean(text)[1], len(data)), data
    # a character cut by the end of a block is counted where it is whole, not as two bad bytes
    data = b"ab\xe2\x82\xac"
    assert native.invalid_bytes(data, 0, 3) == (0, 5)


def test_the_generated_tables_are_what_their_generator_writes() -> None:
    """cscan/tables.h is generated from the Python rules (ctables.py), never edited by hand: the
    file in the tree is what the generator writes now, and the extension was built from it."""
    assert ctables.HEADER.read_text(encoding="utf-8") == ctables.render(), (
        "cscan/tables.h is out of step: python -m extractor.match.ctables"
    )
    assert native.table_differences(full=True) == native.table_differences() == []


def test_every_hand_port_is_of_the_rule_as_it_is() -> None:
    """The text each hand port was written from (cscan/ported.h, checked by the extension as it
    loads against the generated PY_RULES) is each rule's own text now."""
    c = _cscan_tables()
    assert c["ported"] == c["rules"] == tuple(x for row in ctables.ported_rules() for x in row)


def _cscan_tables() -> dict[str, Any]:
    from extractor.match import _cscan

    tables: dict[str, Any] = _cscan.tables()
    return tables


@pytest.mark.parametrize(
    ("module", "name", "edit", "ported"),
    [
        (
            tails,
            "TAIL_RULES",
            lambda rules: (rules[0], (re.compile(r"\.pdfx\Z", re.I), None), *rules[2:]),
            True,
        ),
        (pdf_rules, "DEHYPHENATION_RULES", lambda rules: (*rules[:-1], (rules[-1][0], r"\1--\2")), True),
        (forms, "FORMS", lambda fs: (*fs[:2], fs[3], fs[2], *fs[4:]), False),
        (tails, "VIEWS", lambda views: (*views[:-1], "pdfplus2"), False),
        (canonical, "PDF_HYPHENS", lambda hyphens: hyphens + "\u2e3a", False),
    ],
)
def test_a_rule_edited_on_one_side_is_caught(
    monkeypatch: pytest.MonkeyPatch, module: Any, name: str, edit: Callable[[Any], Any], ported: bool
) -> None:
    """A rule or table edited in Python only is caught by its content, not by a count: a pattern
    or a replacement changed (a hand port left behind: the extension would refuse to load), two
    forms swapped, a word renamed, a character added (the generated header is out of step)."""
    before = ctables.render()
    rules_before = ctables.ported_rules()
    monkeypatch.setattr(module, name, edit(getattr(module, name)))
    if name == "FORMS":
        monkeypatch.setattr(ctables, "FORMS", getattr(module, name))
    if name == "VIEWS":  # the tail rule built from the list, as tails.py builds it
        rule = re.compile(r"/(?:" + "|".join(tails.VIEWS) + r")(?:\.html?)?/?\Z", re.I | re.A)
        monkeypatch.setattr(tails, "TAIL_RULES", (tails.TAIL_RULES[0], (rule, None), *tails.TAIL_RULES[2:]))
    assert ctables.render() != before
    assert (ctables.ported_rules() != rules_before) == ported


# Pieces of wikitext (spec §7): the separators, labels, comments and references its view reads.
WIKI_PIECES = [
    "{{",
    "}}",
    "[[",
    "]]",
    "|",
    "''",
    "'''",
    "<!--",
    "-->",
    "{{cite journal",
    "{{doi|",
    "{{ DOI |",
    "{{Doi\u2003|",
    "|doi=",
    " doi = ",
    "10.1000/182",
    "10.1038/tp.2013.61",
    "10.5/100",
    "https://doi.org/",
    "&#124;",
    "&lt;",
    "&amp;",
    "<ref>",
    "</ref>",
    "é",
    "\udcff",
    " ",
    "\n",
    "x",
    "10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O",
    # spec §6: external links
    "[https://doi.org/10.1000/182 ",
    "[//doi.org/10.1000/182 ",
    "[HTTP://dx.doi.org/10.1000/182\t",
    "[ftp://x/10.1000/182 ",
    "[",
    "]",
]


def syntax_spans(data: bytes, syntax: str) -> list[tuple[int, int, str, str]]:
    """A syntax's C matcher's hits, with character offsets (as find_spans gives them)."""
    text = data.decode("utf-8", "surrogateescape")
    b2c, b = {}, 0
    for i, ch in enumerate(text):
        b2c[b] = i
        b += len(ch.encode("utf-8", "surrogateescape"))
    b2c[b] = len(text)
    spans, _dropped, _n = native.syntax_spans(data, syntax)
    return [(b2c[s], b2c[e], str(FORMS[f]), doi) for s, e, f, doi in spans]


def syntax_reference(data: bytes, syntax: str) -> list[tuple[int, int, str, str]]:
    text = clean(data.decode("utf-8", "surrogateescape"))[0]
    return [(s, e, str(f), d) for s, e, f, d in find_spans(text, syntax=syntax)]


# Pieces of CSV and TSV (spec §7): delimiters, quotes, line ends, DOI columns' headers.
CSV_PIECES = [
    ",",
    ";",
    "\t",
    "|",
    '"',
    '""',
    "\n",
    "\r\n",
    "\r",
    "\x0c",
    "\u2028",
    "DOI",
    " di ",
    "\ufeffDoi",
    "title",
    " ",
    "10.1000/182",
    "10.5/100",
    "doi:10.1000/183",
    "https://doi.org/10.1000/a,b",
    "é",
    "\udcff",
    "x",
]


# Pieces of LaTeX and BibTeX (spec §7): escapes, words, the commands whose argument is read,
# fields' values in braces and quotes, comments, braces.
TEX_PIECES = [
    "{",
    "}",
    '"',
    "%",
    "\\",
    "\\_",
    "{\\_}",
    "\\%",
    "\\#",
    "\\&",
    "\\$",
    "\\-",
    "\\,",
    "\\ ",
    "\\\u2003",
    "\\~{}",
    "~",
    "$<$",
    "$>$",
    "$",
    "\\textunderscore",
    "\\textless{}",
    "\\textgreater ",
    "\\textasciitildex",
    "\\allowbreak",
    "\\doi{",
    "\\doi {",
    "\\url{",
    "\\urlx{",
    "\\href{",
    "\\href{https://doi.org/10.1000/182}",
    "{10.1000/182}",
    " {",
    "\\nolinkurl\n{",
    "\\emph{",
    "@article{key,",
    "doi = {",
    " DOI=",
    "url = ",
    "note\u2003= ",
    "x_1-",
    "=",
    "10.1000/182",
    "10.1007/978-3-319-24277-4",
    "10.5/100",
    "https://doi.org/",
    "é",
    "\udcff",
    " ",
    "\n",
    "\t",
    "x",
    "10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O",
    # whole constructs, which single pieces seldom make
    "@article{k,\n doi\t= {10.1002/{SICI}1097},",
    '@misc{k, doi\u2003=\n"10.1000/{a}b"}',
    "\\url{x}% 10.1000/182\n",
    "\\href{https://doi.org/10.1000/a%b}{10.1000/c}",
]


def syntax_files() -> Iterator[tuple[str, Path]]:
    """The source files of the syntaxes read in C: the labelled corpus's and the shared real ones."""
    own = ROOT / "corpora" / "labelled-syntaxes" / "plain"
    shared = ROOT.parent / "shared" / "corpora-markup-dev" / "docs" / "plain"
    for syntax, patterns in (
        ("wikitext", ("*.wikitext",)),
        ("csv", ("*.csv", "*.tsv")),
        ("latex", ("*.tex",)),
        ("bibtex", ("*.bib",)),
    ):
        for folder in (own, shared):
            for pattern in patterns:
                yield from ((syntax, p) for p in sorted(folder.glob(pattern)))


# The pieces each syntax read in C is generated from.
SYNTAX_PIECES = {"wikitext": WIKI_PIECES, "csv": CSV_PIECES, "latex": TEX_PIECES, "bibtex": TEX_PIECES}


@pytest.mark.parametrize(("syntax", "path"), list(syntax_files()), ids=lambda x: getattr(x, "name", x))
def test_c_syntax_matcher_agrees_on_files(syntax: str, path: Path) -> None:
    data = path.read_bytes()
    assert syntax_spans(data, syntax) == syntax_reference(data, syntax)


# The spec's §6 and §7 rows of each syntax read in C.
C_SYNTAX_ROWS = [
    (f"{name}-{i}", row)
    for name, rows in {**REPORTED, **SYNTAX}.items()
    for i, row in enumerate(rows)
    if row.syntax is not None and syntax_of(row.syntax).c_entry is not None
]


@pytest.mark.parametrize(("name", "row"), C_SYNTAX_ROWS, ids=[n for n, _ in C_SYNTAX_ROWS])
def test_c_syntax_matcher_agrees_on_the_spec_table(name: str, row: Row) -> None:
    assert row.syntax is not None
    data = row.text.encode("utf-8", "surrogateescape")
    assert syntax_spans(data, row.syntax) == syntax_reference(data, row.syntax)
    assert [d for _s, _e, _f, d in syntax_spans(data, row.syntax)] == row.dois


@pytest.mark.parametrize("syntax", sorted(SYNTAX_PIECES))
@given(data=st.data())
def test_c_syntax_matcher_agrees_on_generated_text(syntax: str, data: st.DataObject) -> None:
    pieces = data.draw(st.lists(st.sampled_from(SYNTAX_PIECES[syntax]), max_size=40))
    text = "".join(pieces).encode("utf-8", "surrogateescape")
    assert syntax_spans(text, syntax) == syntax_reference(text, syntax), text


@pytest.mark.parametrize("syntax", sorted(SYNTAX_PIECES))
@given(data=st.data())
def test_c_syntax_matcher_reads_windows_as_the_python_matcher(syntax: str, data: st.DataObject) -> None:
    """As the window loop calls it (hits chosen by start in [lo, cut), offsets, the end of the
    last hit): the same table rows, hits and returns as the Python matcher in the syntax."""
    pieces = data.draw(st.lists(st.sampled_from(SYNTAX_PIECES[syntax]), max_size=40))
    lo, cut, rlo, rhi = (data.draw(st.integers(0, 300)) for _ in range(4))
    chars = data.draw(st.booleans())
    text = "".join(pieces).encode("utf-8", "surrogateescape")
    n = len(text)
    lo, rlo = min(lo, n), min(rlo, n)
    cut = max(lo, min(cut, n + 1))
    plain = kind_of("plain")
    entry = syntax_of(syntax).c_entry
    got = []
    for make in (
        lambda t, h: CMatcher(t, h, plain, entry),
        lambda t, h: PythonMatcher(plain, False, t, h, syntax),
    ):
        tab = Mentions()
        hits: list[tuple[int, int, int, str, str, int | None]] = []
        ret = make(tab, hits)(Window(text, lo, cut, rlo, rhi, 3, chars, 0, 0, n))
        got.append((ret, hits, tab.take()))
    assert got[0] == got[1]
