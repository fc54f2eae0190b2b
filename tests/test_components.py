"""Component DOIs and their article (parent_doi): each publisher's row of COMPONENT_RULES with
examples of its own, and the pipeline's column-wise reading (Arrow's RE2) equal to parent_doi."""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from extractor.match import COMPONENT_RULES, parent_doi
from extractor.pipeline.out.dedupe import parent_dois

EXAMPLES = [
    # PLOS: figures, tables, equations, supporting information (corpora-dev's JATS and PDFs)
    ("10.1371/journal.pbio.0020334.g001", "10.1371/journal.pbio.0020334"),
    ("10.1371/journal.pone.0093988.t002", "10.1371/journal.pone.0093988"),
    ("10.1371/journal.pone.0093988.e001", "10.1371/journal.pone.0093988"),
    ("10.1371/journal.pcbi.1000100.s001", "10.1371/journal.pcbi.1000100"),
    ("10.1371/journal.pmed.0030236.sg001", "10.1371/journal.pmed.0030236"),
    ("10.1371/journal.pone.0212345.st001", "10.1371/journal.pone.0212345"),  # a table's text
    ("10.1371/journal.pone.0212345.ex001", "10.1371/journal.pone.0212345"),
    ("10.1371/journal.pntd.0007654.social_logo", "10.1371/journal.pntd.0007654"),
    ("10.1371/journal.pntd.0007654.disease_logo", "10.1371/journal.pntd.0007654"),
    ("10.1371/journal.pntd.0007654.poverty_logo", "10.1371/journal.pntd.0007654"),
    ("10.1371/journal.pbio.0020334", None),  # the article itself
    ("10.1371/journal.pbio.0020334.g01", None),  # not PLOS's three or four digits
    # PeerJ
    ("10.7717/peerj.506/fig-2", "10.7717/peerj.506"),
    ("10.7717/peerj-cs.12/table-1", "10.7717/peerj-cs.12"),
    ("10.7717/peerj.506/supp-1", "10.7717/peerj.506"),
    ("10.7717/peerj.506", None),
    # eLife
    ("10.7554/elife.57838.003", "10.7554/elife.57838"),
    ("10.7554/elife.52882.sa1", "10.7554/elife.52882"),  # the decision letter (sub-article)
    ("10.7554/elife.52882.sa2", "10.7554/elife.52882"),  # the author response
    ("10.7554/elife.52882.s", None),
    ("10.7554/elife.57838", None),
    # Copernicus
    ("10.5194/acp-13-1-2013-supplement", "10.5194/acp-13-1-2013"),
    ("10.5194/acp-13-1-2013", None),
    # look-alikes that are articles: BMJ's e-locators, other publishers' suffixes
    ("10.1136/bmj.e5661", None),
    ("10.1000/journal.pbio.0020334.g001", None),
    ("10.1371/journal.pbio.0020334.g001x", None),
    ("10.7554/elife.57838.003\n", None),  # as RE2 reads "$": never before a last line break
]


@pytest.mark.parametrize(("doi", "parent"), EXAMPLES)
def test_parent_doi_of_each_publishers_components(doi: str, parent: str | None) -> None:
    assert parent_doi(doi) == parent


def test_every_rule_has_an_example() -> None:
    import re

    for rule in COMPONENT_RULES:
        assert any(p is not None and re.match(rule.pattern, d) for d, p in EXAMPLES), rule.what


def test_the_column_reading_is_parent_doi() -> None:
    dois = [d for d, _ in EXAMPLES]
    assert parent_dois(pa.array(dois)).to_pylist() == [p for _, p in EXAMPLES]
    assert parent_dois(pa.chunked_array([dois[:3], dois[3:]])).to_pylist() == [p for _, p in EXAMPLES]


PIECES = [
    "10.1371/journal.",
    "pbio.",
    "0020334",
    ".g001",
    ".t01",
    ".e",
    "0",
    "10.7717/peerj",
    "-cs",
    ".506",
    "/fig-",
    "2",
    "10.7554/elife.",
    "57838",
    ".003",
    "10.5194/acp-13-1-2013",
    "-supplement",
    "é",
    "\n",
    "x",
]


@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=6).map("".join), max_size=20))
def test_re2_and_python_read_the_rules_alike(dois: list[str]) -> None:
    assert parent_dois(pa.array(dois, pa.string())).to_pylist() == [parent_doi(d) for d in dois]
