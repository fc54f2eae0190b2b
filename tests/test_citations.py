"""A citation graph from records (docs/citation-graphs.md): --citing-field gives citing_doi in
canonical form and self_citation, every DOI its parent_doi, meta fields keep their types, and
the guide's query builds the graph an S2ORC-like file should give."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from extractor.pipeline.provenance import meta_fields

from .helpers import run_json, scan_here, table

ROOT = Path(__file__).resolve().parent.parent

# Papers as S2ORC/CORE-like records: the paper's own DOI as each source writes it, a text that
# cites others, cites itself and holds its own figures' and tables' DOIs (JATS does).
PAPERS = [
    {
        "id": "cell",
        "year": 2009,
        "oa": False,
        "metadata": {"doi": "https://doi.org/10.1016/J.CELL.2009.01.042"},
        "text": "As we showed (doi:10.1016/j.cell.2009.01.042), see 10.1038/nature12373 and "
        "https://doi.org/10.1000/182. Funded by the NSF (https://doi.org/10.13039/100000001).",
    },
    {
        "id": "plos",
        "year": 2004,
        "oa": True,
        "metadata": {"doi": "doi:10.1371/journal.pbio.0020334"},
        "text": "Figure 1 (10.1371/journal.pbio.0020334.g001), Table 1 (10.1371/journal.pbio.0020334.t001); "
        "we build on 10.1016/j.cell.2009.01.042 and the figure 10.7717/peerj.506/fig-2.",
    },
    {
        "id": "preprint",
        "year": 2020,
        "oa": True,
        "metadata": {"doi": "not yet registered"},
        "text": "cites 10.1371/journal.pbio.0020334.g002 and 10.1000/182",
    },
    {"id": "bare", "year": 2021, "oa": True, "text": "cites 10.1000/182 (no metadata at all)"},
]

GRAPH = [  # (citing, cited, mentions): components folded, the paper's own DOI and figures gone
    ("10.1016/j.cell.2009.01.042", "10.1000/182", 1),
    ("10.1016/j.cell.2009.01.042", "10.1038/nature12373", 1),
    ("10.1371/journal.pbio.0020334", "10.1016/j.cell.2009.01.042", 1),
    ("10.1371/journal.pbio.0020334", "10.7717/peerj.506", 1),
]


def readme_graph_sql() -> str:
    """The citation-graph query of docs/citation-graphs.md, as written there."""
    text = (ROOT / "docs" / "citation-graphs.md").read_text()
    block = re.search(r"```sql\n(-- one edge per \(citing, cited\) article.*?)```", text, re.S)
    assert block is not None, "the guide's citation-graph query"
    return block.group(1)


def test_the_readmes_graph_is_the_papers_citations(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    f = tmp_path / "papers.jsonl"
    f.write_text("".join(json.dumps(p) + "\n" for p in PAPERS))
    out = tmp_path / "out"
    scan_here([f], out, citing_field="metadata.doi", meta_fields=meta_fields(["year", "oa"]))
    sql = readme_graph_sql().replace("'out/mentions/*.parquet'", f"'{out}/mentions/*.parquet'")
    assert duckdb.sql(sql).fetchall() == GRAPH
    rows = {(m["record"], m["doi"]): m for m in table(out, "mentions")}
    own = rows[("cell", "10.1016/j.cell.2009.01.042")]
    assert (own["citing_doi"], own["self_citation"]) == ("10.1016/j.cell.2009.01.042", True)
    fig = rows[("plos", "10.1371/journal.pbio.0020334.g001")]
    assert (fig["parent_doi"], fig["self_citation"]) == ("10.1371/journal.pbio.0020334", False)
    pre = rows[("preprint", "10.1000/182")]
    assert (pre["citing_doi"], pre["self_citation"]) == (None, None)
    assert run_json(out)["citing_without_doi"] == 2  # "not yet registered", and no field at all
    # the paper's year stays a number, its flag a boolean
    schema = pq.read_schema(next((out / "mentions").glob("*.parquet")))
    assert schema.names[-6:] == ["parent_doi", "entity", "year", "oa", "citing_doi", "self_citation"]
    assert [schema.field(n).type for n in ("year", "oa", "citing_doi", "self_citation")] == [
        pa.int64(),
        pa.bool_(),
        pa.string(),
        pa.bool_(),
    ]
    assert run_json(out)["meta_types"] == {"year": "int64", "oa": "bool", "citing_doi": "string"}
    funder = rows[("cell", "10.13039/100000001")]  # found, and named for what it is: no edge
    assert (funder["entity"], own["entity"]) == ("funder", "work")
    dois = {d["doi"]: d for d in table(out, "dois")}
    assert dois["10.13039/100000001"]["entity"] == "funder"
    assert dois["10.1371/journal.pbio.0020334.g002"]["parent_doi"] == "10.1371/journal.pbio.0020334"
    assert dois["10.1000/182"]["first_record"] == "cell"


def test_parquet_records_byte_ranges_and_a_rerun_give_the_same_graph(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    pq.write_table(pa.Table.from_pylist(PAPERS), tmp_path / "papers.parquet", row_group_size=2)
    f = tmp_path / "papers.jsonl"
    f.write_text("".join(json.dumps(p) + "\n" for p in PAPERS))
    for name, inputs, shard_size in (
        ("pq", [tmp_path / "papers.parquet"], 32 << 20),
        ("ranged", [f], 200),  # JSONL in byte ranges, a shard each
    ):
        out = tmp_path / name
        for _ in range(2):  # the rerun resumes every shard and gives the same types
            scan_here(
                inputs,
                out,
                citing_field="metadata.doi",
                meta_fields=meta_fields(["year"]),
                keep_work=True,
                shard_size=shard_size,
            )
        assert run_json(out)["shards_resumed"] == run_json(out)["shards"] > 1
        sql = readme_graph_sql().replace("'out/mentions/*.parquet'", f"'{out}/mentions/*.parquet'")
        assert duckdb.sql(sql).fetchall() == GRAPH
        assert run_json(out)["meta_types"] == {"year": "int64", "citing_doi": "string"}


def test_citing_field_from_the_command_line_and_its_names_reserved(tmp_path: Path) -> None:
    f = tmp_path / "papers.jsonl"
    f.write_text("".join(json.dumps(p) + "\n" for p in PAPERS))
    cmd = [sys.executable, "-m", "extractor", "scan", str(f), "-o", str(tmp_path / "out"), "-q", "--json"]
    done = subprocess.run(
        [*cmd, "--citing-field", "metadata.doi"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["citing_without_doi"] == 2
    for taken in ("citing_doi=metadata.doi", "self_citation=year", "parent_doi=year"):
        with pytest.raises(ValueError, match="of its own"):
            meta_fields([taken])


# A JATS article as PLOS writes it (its structure; the DOIs are real): a funder in its funding
# group, references whose DOI is both the link's target and its text, one cited twice.
JATS = """<?xml version="1.0" encoding="UTF-8"?>
<article xmlns:xlink="http://www.w3.org/1999/xlink"><front><article-meta>
<article-id pub-id-type="doi">10.1371/journal.pone.0178565</article-id>
<funding-group><award-group id="award001"><funding-source><institution-wrap>
<institution-id institution-id-type="funder-id">http://dx.doi.org/10.13039/501100001407</institution-id>
<institution>Department of Biotechnology, Ministry of Science and Technology</institution>
</institution-wrap></funding-source><award-id>BT/EB/PAN IIT/2012</award-id></award-group></funding-group>
</article-meta></front><body><p>As shown before [<xref ref-type="bibr" rid="ref1">1</xref>].</p></body>
<back><ref-list><title>References</title>
<ref id="ref1"><label>1</label><mixed-citation publication-type="journal"><name><surname>Kaneko</surname>
</name>. <article-title>Sequence analysis of the genome</article-title>. <source>DNA Res</source>.
<year>1996</year>;<volume>3</volume>:<fpage>109</fpage>. doi: <ext-link ext-link-type="uri"
xlink:href="https://doi.org/10.1093/dnares/3.3.109" xlink:type="simple">10.1093/dnares/3.3.109</ext-link>
</mixed-citation></ref>
<ref id="ref2"><label>2</label><mixed-citation publication-type="journal">Idem. doi: <ext-link
ext-link-type="uri" xlink:href="http://dx.doi.org/10.1038/35088063" xlink:type="simple">10.1038/35088063</ext-link>
</mixed-citation></ref>
<ref id="ref3"><label>3</label><mixed-citation publication-type="journal">Again, doi: <ext-link
ext-link-type="uri" xlink:href="https://doi.org/10.1038/35088063" xlink:type="simple">10.1038/35088063</ext-link>
</mixed-citation></ref>
</ref-list></back></article>
"""


def test_a_jats_article_counts_each_reference_once_and_names_its_funder(tmp_path: Path) -> None:
    """Spec §6: a reference whose link and text name one DOI is one mention (two references to
    one DOI are two), and the funder is found, named `funder` and left out of the graph. Also
    on a real PLOS article of the shared corpus, where one is beside the project."""
    duckdb = pytest.importorskip("duckdb")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "article.xml").write_text(JATS)
    records = [{"id": "pone", "doi": "10.1371/journal.pone.0178565", "text": JATS}]
    (tmp_path / "in" / "articles.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "out"
    scan_here([tmp_path / "in"], out, kind="html", citing_field="doi")
    got = sorted((m["record"] or "", m["doi"], m["count"], m["entity"]) for m in table(out, "mentions"))
    for record in ("", "pone"):
        assert [g[1:] for g in got if g[0] == record] == [
            ("10.1038/35088063", 2, "work"),
            ("10.1093/dnares/3.3.109", 1, "work"),
            ("10.13039/501100001407", 1, "funder"),
            ("10.1371/journal.pone.0178565", 1, "work"),
        ]
    sql = readme_graph_sql().replace("'out/mentions/*.parquet'", f"'{out}/mentions/*.parquet'")
    assert duckdb.sql(sql).fetchall() == [
        ("10.1371/journal.pone.0178565", "10.1038/35088063", 2),
        ("10.1371/journal.pone.0178565", "10.1093/dnares/3.3.109", 1),
    ]
    real = (
        ROOT.parent / "shared" / "corpora-markup-dev" / "docs" / "html" / "jats__encoda__plosone-0178565.xml"
    )
    if real.exists():
        scan_here([real], tmp_path / "real")
        rows = table(tmp_path / "real", "mentions")
        text = real.read_text()
        linked = re.findall(r'doi: <ext-link[^>]*xlink:href="[^"]*?(10\.[^"]+)"[^>]*>\1</ext-link>', text)
        assert len(linked) >= 20
        counts = {m["doi"]: m["count"] for m in rows}
        assert all(counts[d.lower()] == linked.count(d) for d in linked)
        assert {m["doi"] for m in rows if m["entity"] == "funder"} == {"10.13039/501100001407"}
