"""Spec §8, derived DOIs: the rows of tests/spec_table.py's DERIVED, found only when asked, by
find_dois, find and scan alike, by the C and the Python matchers alike; a source per row of
match/derive.py's DERIVED, each named with its rule in the README."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from extractor import canonicalize, find_dois
from extractor.match.derive import DERIVE_CHOICES, DERIVED, derive_sources
from extractor.match.forms import Form

from .helpers import run_json, scan_here, table
from .spec_table import DERIVED as ROWS
from .spec_table import Row

CASES = [
    pytest.param(rule, row, id=f"{rule}-{i}") for rule, rows in ROWS.items() for i, row in enumerate(rows)
]
ROOT = Path(__file__).parent.parent


@pytest.mark.parametrize(("rule", "row"), CASES)
def test_derived(rule: str, row: Row) -> None:
    hits = list(find_dois(row.text, row.kind, derive=True, syntax=row.syntax))
    assert [h.doi for h in hits] == row.dois, hits
    if row.forms is not None:
        assert [str(h.form) for h in hits] == row.forms
    for h in hits:
        assert row.text[h.start : h.end] == h.raw
        assert canonicalize(h.doi) == h.doi  # a derived DOI is canonical (spec §8, §1)
    plain = [h for h in find_dois(row.text, row.kind, syntax=row.syntax) if h.form.startswith("derived-")]
    assert plain == []  # never without the option


def test_some_sources_only_and_unknown_ones_named() -> None:
    text = "arXiv:1706.03762 and zenodo.org/records/5"
    assert [h.doi for h in find_dois(text, derive="zenodo")] == ["10.5281/zenodo.5"]
    assert [h.doi for h in find_dois(text, derive=["arxiv"])] == ["10.48550/arxiv.1706.03762"]
    with pytest.raises(ValueError, match="no derived-DOI source bogus: the sources are arxiv"):
        derive_sources("arxiv,bogus")


def test_every_source_has_its_form_and_its_row_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    for source in DERIVED:
        assert Form(f"derived-{source.name}")
        assert f"| {source.name} | {source.rule} | {source.published} |" in readme, source.name


def test_scan_finds_them_in_c_and_python_alike_and_only_when_asked(tmp_path: Path) -> None:
    rows = [r for rows in ROWS.values() for r in rows]
    doc = tmp_path / "in" / "refs.txt"
    doc.parent.mkdir()
    names = {("plain", None): "refs.txt", ("plain", "bibtex"): "refs.bib", ("plain", "markdown"): "refs.md"}
    names[("html", None)] = "refs.html"
    for (kind, syntax), name in names.items():
        texts = [r.text for r in rows if (r.kind, r.syntax) == (kind, syntax)]
        (doc.parent / name).write_text("\n".join(texts) + "\n")
    assert {(r.kind, r.syntax) for r in rows} == set(names)
    want = sorted({d for rows in ROWS.values() for r in rows for d in r.dois})
    got = {}
    for other in (False, True):  # the C matcher, then the Python one (other prefixes)
        out = tmp_path / f"out-{other}"
        scan_here([doc.parent], out, derive=DERIVE_CHOICES, allow_other_prefix=other, occurrences=True)
        got[other] = sorted(
            (r["doi"], r["byte_offset"], r["line"], r["raw"], r["form"]) for r in table(out, "occurrences")
        )
        assert sorted({r["doi"] for r in table(out, "dois")}) == want
        assert len(got[other]) == sum(len(r.dois) for r in rows)  # spec §6: a link is one occurrence
    assert got[False] == got[True]
    scan_here([doc.parent], tmp_path / "plain")
    forms = {f for r in table(tmp_path / "plain", "mentions") for f in r["forms"]}
    assert forms and not any(f.startswith("derived-") for f in forms)


def test_find_derive_as_an_option_with_or_without_sources(tmp_path: Path) -> None:
    paper = tmp_path / "paper.txt"
    paper.write_text("Vaswani et al., arXiv:1706.03762; data: https://zenodo.org/records/42\n")

    def find(*args: str) -> list[str]:
        cmd = [sys.executable, "-m", "extractor.cli", "find", *args]
        return subprocess.run(cmd, capture_output=True, text=True).stdout.split()

    both = ["10.48550/arxiv.1706.03762", "10.5281/zenodo.42"]
    assert find(str(paper)) == []
    assert find("--derive", str(paper)) == both  # the word after it is an input
    assert find(str(paper), "--derive") == both
    assert find("--derive", "zenodo", str(paper)) == both[1:]
    assert find("--derive=arxiv", str(paper)) == both[:1]
    bad = subprocess.run(
        [sys.executable, "-m", "extractor.cli", "find", "--derive", "zenodo,bogus", str(paper)],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "no derived-DOI source bogus" in bad.stderr


def test_the_arrow_functions_and_duckdb_derive_when_asked() -> None:
    import pyarrow as pa

    from extractor.arrow import extract_batch, find_array

    texts = ["see arXiv:1706.03762 and doi:10.1000/182", "zenodo.org/records/42"]
    batch = pa.table({"id": ["a", "b"], "text": texts})
    rows = extract_batch(batch, derive=True).to_pylist()
    assert [(r["id"], r["form"], r["doi"]) for r in rows] == [
        ("a", "derived-arxiv", "10.48550/arxiv.1706.03762"),
        ("a", "doi-label", "10.1000/182"),
        ("b", "derived-zenodo", "10.5281/zenodo.42"),
    ]
    assert [r["doi"] for r in extract_batch(batch).to_pylist()] == ["10.1000/182"]
    assert find_array(pa.array(texts), derive="zenodo").to_pylist() == [
        ["10.1000/182"],
        ["10.5281/zenodo.42"],
    ]
    duckdb = pytest.importorskip("duckdb")
    import extractor.duckdb

    con = duckdb.connect()
    extractor.duckdb.register(con, derive=True)
    got = con.execute("SELECT doi_find(?)", [texts[0]]).fetchone()
    assert got == (["10.48550/arxiv.1706.03762", "10.1000/182"],)


# A physics package's references as INSPIRE exports them (real papers): LaTeX in the values,
# SLACcitation's "%%" (a comment's mark in LaTeX, nothing in BibTeX), an arXiv ID given by
# `eprint` and `archivePrefix` alone for the preprint that has no DOI.
INSPIRE_BIB = r"""@article{Maldacena:1997re,
    author = "Maldacena, Juan Martin",
    title = "{The Large $N$ limit of superconformal field theories and supergravity}",
    eprint = "hep-th/9711200",
    archivePrefix = "arXiv",
    reportNumber = "HUTP-97-A097",
    doi = "10.1023/A:1026654312961",
    journal = "Adv. Theor. Math. Phys.",
    volume = "2",
    pages = "231--252",
    year = "1998",
    SLACcitation = "%%CITATION = HEP-TH/9711200;%%"
}

@article{Witten:1998qj,
    author = "Witten, Edward",
    title = "{Anti-de Sitter space and holography}",
    abstract = "Recently, it has been proposed by Maldacena that large $N$ limits of certain
                conformal field theories in $d$ dimensions can be described in terms of
                supergravity (typeset with \usepackage{amsmath} and \section{Introduction}).",
    eprint = "hep-th/9802150",
    archivePrefix = "arXiv",
    doi = "10.4310/ATMP.1998.v2.n2.a2",
    journal = "Adv. Theor. Math. Phys.",
    volume = "2",
    pages = "253--291",
    year = "1998",
    SLACcitation = "%%CITATION = HEP-TH/9802150;%%"
}

@article{ATLAS:2012yve,
    author = "Aad, Georges and others",
    collaboration = "ATLAS",
    title = "{Observation of a new particle in the search for the Standard Model Higgs boson
             with the ATLAS detector at the LHC}",
    eprint = "1207.7214",
    archivePrefix = "arXiv",
    primaryClass = "hep-ex",
    reportNumber = "CERN-PH-EP-2012-218",
    doi = "10.1016/j.physletb.2012.08.020",
    journal = "Phys. Lett. B",
    volume = "716",
    pages = "1--29",
    year = "2012"
}

@misc{Vaswani:2017lxt,
    author = "Vaswani, Ashish and others",
    title = "{Attention Is All You Need}",
    eprint = "1706.03762",
    archivePrefix = "arXiv",
    primaryClass = "cs.CL",
    month = "6",
    year = "2017"
}
"""
INSPIRE_DOIS = [
    "10.48550/arxiv.hep-th/9711200",
    "10.1023/a:1026654312961",
    "10.48550/arxiv.hep-th/9802150",
    "10.4310/atmp.1998.v2.n2.a2",
    "10.48550/arxiv.1207.7214",
    "10.1016/j.physletb.2012.08.020",
    "10.48550/arxiv.1706.03762",
]


@pytest.mark.parametrize("joined", [False, True], ids=["as-exported", "joined-onto-one-line"])
def test_a_bib_without_its_name_is_told_by_its_entries_and_its_eprints_derived(
    tmp_path: Path, joined: bool
) -> None:
    """BibTeX is told by its entries whatever LaTeX its values name and however its lines fall
    (spec §7), so the "%%" inside a value comments nothing out; each arXiv `eprint` is a derived
    hit (spec §8). Read from stdin by find, and from a file of no telling name by scan."""
    bib = " ".join(line.strip() for line in INSPIRE_BIB.splitlines()) if joined else INSPIRE_BIB
    cmd = [sys.executable, "-m", "extractor.cli", "find", "--derive", "arxiv", "-"]
    out = subprocess.run(cmd, input=bib, capture_output=True, text=True, check=True).stdout.split()
    assert out == INSPIRE_DOIS
    doc = tmp_path / "in" / "references.txt"
    doc.parent.mkdir()
    doc.write_text(bib)
    scan_here([doc], tmp_path / "out", derive=("arxiv",), occurrences=True)
    assert run_json(tmp_path / "out")["documents_by_syntax"] == {"bibtex": 1}
    hits = sorted(table(tmp_path / "out", "occurrences"), key=lambda r: r["byte_offset"])
    assert [r["doi"] for r in hits] == INSPIRE_DOIS
    eprints = [r for r in hits if r["form"] == "derived-arxiv"]
    assert [r["raw"] for r in eprints] == ["hep-th/9711200", "hep-th/9802150", "1207.7214", "1706.03762"]
    for r in eprints:  # the span is the `eprint` value as written
        start = r["byte_offset"]
        assert bib.encode()[start : start + len(r["raw"])].decode() == r["raw"]
