"""The spec tables (tests/spec_table.py) drive detection, canonicalization, idempotence and URLs.

Test ids name the rule of ../shared/spec/extraction-rules.md that each row checks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from extractor import canonicalize, entity_of, find_dois, is_equivalent, to_uri, to_url
from extractor.match.canonical import fold_ascii, percent_decode

from .spec_table import ALL_TABLES, Row

CASES = [
    pytest.param(rule, row, id=f"{rule}-{i}")
    for rule, rows in ALL_TABLES.items()
    for i, row in enumerate(rows)
]


@pytest.mark.parametrize(("rule", "row"), CASES)
def test_detection(rule: str, row: Row) -> None:
    hits = list(find_dois(row.text, row.kind, syntax=row.syntax))
    assert [h.doi for h in hits] == row.dois, [h for h in hits]
    if row.forms is not None:
        assert [str(h.form) for h in hits] == row.forms
    for h in hits:
        assert row.text[h.start : h.end] == h.raw
        assert h.raw.strip() == h.raw


def test_funder_dois_name_funders_and_every_other_doi_a_work() -> None:
    """Spec §6, funder DOIs: the prefix 10.13039 names a funder of the Funder Registry."""
    for rule, rows in ALL_TABLES.items():
        for row in rows:
            want = "funder" if rule == "funder_dois" else "work"
            assert {entity_of(d) for d in row.dois} <= {want}, (rule, row)
    assert ALL_TABLES["funder_dois"] and entity_of("10.13039x/1") == "work"


# Rows that name no DOI (negative examples) are checked by test_detection alone.
RENDER_CASES = [c for c in CASES if c.values[1].dois]  # type: ignore[union-attr]


@pytest.mark.parametrize(("rule", "row"), RENDER_CASES)
def test_canonical_is_idempotent_and_renders(rule: str, row: Row) -> None:
    for doi in row.dois:
        if any(ch.isspace() for ch in doi):
            assert canonicalize(doi) is None  # spec §4: whitespace ends a DOI
        elif "%" in doi:
            # Spec §1, "percent-decode once": a literal %XX left in a canonical DOI is an escape
            # again when the DOI is read as an identifier, so it is decoded (or kept, when it is
            # not valid UTF-8 or decodes to a control), never idempotent by construction.
            assert canonicalize(doi) == fold_ascii(percent_decode(doi))
        else:
            assert canonicalize(doi) == doi
            assert canonicalize(to_uri(doi)) == doi
            assert canonicalize(to_url(doi)) == doi
            assert is_equivalent(doi, to_url(doi))


def test_uri_form_2024_draft_example_2() -> None:
    # 2024 URI draft §2, Example 2: the URI percent-encodes the UTF-8 of Á and É; case is kept.
    assert (
        to_uri("10.26321/Á.GUTIÉRREZ.ZARZA.02.2018.03")
        == "doi:10.26321/%C3%81.GUTI%C3%89RREZ.ZARZA.02.2018.03"
    )
    assert to_uri("10.5594/SMPTE.ST2067-21.2020") == "doi:10.5594/SMPTE.ST2067-21.2020"


def test_url_form_niso_mandatory_encoding() -> None:
    # NISO Z39.84-2005 Appendix E, table 1: % " # and space are always encoded in URLs.
    assert to_url("10.1000/456#789") == "https://doi.org/10.1000/456%23789"
    assert to_url('doi:10.1006/rwei.1999".0001') == "https://doi.org/10.1006/rwei.1999%22.0001"
    assert to_url("10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O") == (
        "https://doi.org/10.1002/(SICI)1097-4571(199806)49:8%3C693::AID-ASI4%3E3.0.CO;2-O"
    )


def test_urn_2020_four_forms_are_equivalent() -> None:
    forms = [
        "urn:doi:10.1000/456%23789",
        "https://doi.org/10.1000/456%23789",
        "doi:10.1000/456#789",
        "10.1000/456#789",
    ]
    assert {canonicalize(f) for f in forms} == {"10.1000/456#789"}
    assert all(is_equivalent(forms[0], f) for f in forms)


def test_equivalence_is_by_code_point_not_normalized() -> None:
    # 2024 URI draft Note 1: Á (U+00C1) and A + U+0301 are different DOI names.
    assert not is_equivalent("10.26321/\u00c1", "10.26321/A\u0301")
    assert is_equivalent("10.123/ABC", "10.123/AbC")  # NISO Z39.84-2005 §4


def test_canonicalize_rejects_non_dois() -> None:
    for s in ["", "doi:", "10.1000", "10.1000/", "hello", "11.1000/182", "doi: 10.1000/ 182"]:
        assert canonicalize(s) is None, s
    assert canonicalize("  https://dx.doi.org/10.1000/182  ") == "10.1000/182"


def test_non_10_prefixes_behind_label_with_option() -> None:
    # 2002 URI draft §2.3 examples (a)–(c): prefixes other than 10. (spec §2, off by default).
    text = "doi:alpha-beta/182.342-24 and doi:10.abc/ab/cd/ef and doi:1.23/2002/january/21/4690"
    assert [h.doi for h in find_dois(text)] == []
    got = [h.doi for h in find_dois(text, allow_other_prefix=True)]
    assert got == ["alpha-beta/182.342-24", "10.abc/ab/cd/ef", "1.23/2002/january/21/4690"]
    assert canonicalize("doi:10.abc/ab/cd/ef", allow_other_prefix=True) == "10.abc/ab/cd/ef"
    assert canonicalize("doi:10.abc/ab/cd/ef") is None


def test_percent_decode_keeps_bad_escapes() -> None:
    assert percent_decode("%C3%81%2F") == "Á/"
    assert percent_decode("%C3") == "%C3"  # truncated UTF-8 sequence
    assert percent_decode("100%") == "100%"
    assert percent_decode("%00%7F") == "%00%7F"  # controls stay encoded


def test_niso_jama_example_loses_trailing_colon_in_text() -> None:
    # Spec §4: NISO's 10.1001/PUBS.JAMA(278)3,JOC7055-ABSY: ends in ":"; in running text it is lost.
    assert [h.doi for h in find_dois("doi:10.1001/PUBS.JAMA(278)3,JOC7055-ABSY:")] == [
        "10.1001/pubs.jama(278)3,joc7055-absy"
    ]
    # canonicalize agrees with find (its keys are compared with find's): one identifier is read
    # by the same end rules, so the example's ":" is lost there too, as the spec accepts.
    assert canonicalize("10.1001/PUBS.JAMA(278)3,JOC7055-ABSY:") == "10.1001/pubs.jama(278)3,joc7055-absy"


def test_offsets_point_into_html_markup() -> None:
    doc = '<p>See <a href="https://doi.org/10.1000%2F182">doi&#58;10.1000/183</a>.</p>'
    hits = list(find_dois(doc, "html"))
    assert [(h.raw, str(h.form)) for h in hits] == [
        ("https://doi.org/10.1000%2F182", "resolver-url"),
        ("doi&#58;10.1000/183", "doi-label"),
    ]
    assert all(doc[h.start : h.end] == h.raw for h in hits)


def test_candidate_longer_than_window_is_dropped_and_counted() -> None:
    # Spec §4: a candidate longer than the window is dropped and counted, never truncated.
    from extractor import FindStats
    from extractor.match.rules import MAX_DOI_CHARS

    stats = FindStats()
    long_doi = "doi:10.1234/" + "a" * (MAX_DOI_CHARS + 10)
    assert [h.doi for h in find_dois(f"{long_doi} and doi:10.1000/182", stats=stats)] == ["10.1000/182"]
    assert stats.too_long == 1
    stats = FindStats()
    assert [h.doi for h in find_dois("10.1234/" * 5000, stats=stats)] == []
    assert stats.too_long >= 1


def test_doi_lists_without_spaces_are_split() -> None:
    # Spec §2: "," or ";" directly followed by a new 10.NNNN/ starts a second DOI — however long the line.
    line = ",".join(f"10.1234/item{i}" for i in range(3000)) + ";doi:10.5555/last"
    got = [h.doi for h in find_dois(line)]
    assert got == [f"10.1234/item{i}" for i in range(3000)] + ["10.5555/last"]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ('<a href="' * 2000, "html"),
        ("<a title='>'" * 2000, "html"),
        ("<!--" * 2000 + "10.1000/182", "html"),
        ("&amp;" * 20000, "html"),
        ("<a" * 5000 + ">", "html"),
        ("10.1234/a-\n" * 2000, "pdf"),
        ("https://doi.org/10.\n" * 2000, "pdf"),
        ("%" * 20000 + "10.1000%2F182", "plain"),
        ("10.1234/" + "(" * 20000, "plain"),
    ],
)
def test_hostile_input_is_handled(text: str, kind: str) -> None:
    hits = list(find_dois(text, kind))
    assert all(text[h.start : h.end] == h.raw for h in hits)


def test_html_offsets_hold_after_text_whose_lowercase_is_longer() -> None:
    # "İ".lower() is two code points: offsets must not come from a lower-cased copy.
    doc = '<p>İİİİİİ</p><script>var x = "10.9999/js";</SCRIPT><p>doi:10.1000/182</p>'
    hits = list(find_dois(doc, "html"))
    assert [(h.doi, h.raw) for h in hits] == [("10.1000/182", "doi:10.1000/182")]


@pytest.mark.parametrize(
    ("text", "doi"),
    [
        # issue 15: a URL holding "10." before its DOI (an IP address, a version)
        ("http://192.168.10.1/doi/10.1000/182", "10.1000/182"),
        ("https://x.org/v10.2/doi/abs/10.1000/10.5/abstract", "10.1000/10.5"),
        # spec §2: a suffix of format characters only is empty
        ("10.1000/\u00ad", None),
        ("doi:10.1000/\u200b", None),
        # NISO Z39.84-2005 §4.1: no control character is part of a DOI, nor a lone surrogate
        ("10.1000/a\x01b", None),
        ("10.1000/a\x85b", None),
        ("10.1000/a\ud800b", None),
        # spec §2: one line break may follow a label (as find_dois reads it)
        ("DOI:\n10.1177/0269215510375901", "10.1177/0269215510375901"),
        ("doi:\n\n10.1177/0269215510375901", None),
        # RFC 7972's colon, or the slash find_dois also reads there
        ("urn:eidr:10.5240:7D2A-D7B0", "10.5240/7d2a-d7b0"),
        ("urn:eidr:10.5240/7D2A-D7B0", "10.5240/7d2a-d7b0"),
    ],
)
def test_canonicalize_one_identifier(text: str, doi: str | None) -> None:
    assert canonicalize(text) == doi


@pytest.mark.parametrize(
    ("value", "doi"),
    [
        # a column with gaps: None, pandas' NaN, numbers — no DOI, not an error
        (None, None),
        (float("nan"), None),
        (10.1000, None),
        (b"10.1000/182", None),
        # one DOI with a sentence's punctuation after it: the DOI find_dois reports (spec §4)
        ("DOI: 10.1038/nature06958.", "10.1038/nature06958"),
        ("10.1000/182).", "10.1000/182"),
        ("https://doi.org/10.1000/182;", "10.1000/182"),
        ("(doi:10.1000/182)", None),
    ],
)
def test_canonicalize_reads_any_value_as_find_reads_one_doi(value: object, doi: str | None) -> None:
    assert canonicalize(value) == doi
    if isinstance(value, str) and doi is not None:
        assert [h.doi for h in find_dois(value)] == [doi]


# Every row of the spec's tables that is one URL in plain text, read as one identifier: the
# table drives canonicalize as it drives find_dois (a shields.io badge's escapes were kept).
ONE_URL_ROWS = [
    pytest.param(row.text, row.dois[0], id=f"{rule}-{i}")
    for rule, rows in ALL_TABLES.items()
    for i, row in enumerate(rows)
    if row.kind == "plain"
    and row.syntax is None
    and len(row.dois) == 1
    and row.text.lower().startswith(("http://", "https://"))
    and not any(c.isspace() for c in row.text)
]


@pytest.mark.parametrize(("url", "doi"), ONE_URL_ROWS)
def test_canonicalize_reads_each_url_of_the_tables_as_find_does(url: str, doi: str) -> None:
    assert canonicalize(url) == doi


@pytest.mark.parametrize(
    "doi", ["10.1000/abc/", "10.1000/abc.", "10.1000/x)", "10.1000/x)y", "10.1000/a,", "10.1000/q?"]
)
def test_url_reads_back_as_the_same_doi(doi: str) -> None:
    """Spec §4 cuts trailing punctuation, a trailing slash and an unbalanced bracket from a URL:
    to_url encodes what they would cut, so the URL is the same DOI (issue 15)."""
    url = to_url(doi)
    assert canonicalize(url) == doi
    assert [h.doi for h in find_dois(f"see {url}.")] == [doi]


def test_the_repository_copy_of_the_spec_is_the_shared_one() -> None:
    """Issue 13: the README linked the spec outside the repository (a dead link in a clone, the
    sdist and a package index). The copy in docs/ must say what the shared original says."""
    root = Path(__file__).resolve().parent.parent
    original = root.parent / "shared" / "spec" / "extraction-rules.md"
    if not original.exists():
        pytest.skip("the shared original is not beside the repository (an sdist)")
    copy = (root / "docs" / "extraction-rules.md").read_text(encoding="utf-8")
    header, _, body = copy.partition("\n")
    assert header.startswith("<!--") and header.endswith("-->")
    assert body == original.read_text(encoding="utf-8"), (
        "docs/extraction-rules.md is out of step: copy it again"
    )
