"""The extractor inside DuckDB (extractor.duckdb) and the column functions under it: doi_find's
(id, DOI) pairs are scan's (record, DOI) pairs, each text's DOIs in the order of their first
hit; doi_canonicalize is canonicalize; pandas and Polars columns are taken as they are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from extractor import canonicalize, find_dois
from extractor.arrow import canonicalize_array, find_array
from extractor.pipeline.io.decode import clean, detect_kind

from .helpers import PIECES, scan_here, table

duckdb = pytest.importorskip("duckdb")

TEXTS = [
    "see doi:10.1000/182 and https://doi.org/10.1038/NATURE12373, again 10.1000/182.",
    '<p>x <a href="https://doi.org/10.1000/abc">doi:10.1000/abc</a></p><div>10.1002/xyz&amp;</div>',
    "Smith J. Nature 455: 1-10. doi:10.1038/na-\nture07953\f next page 10.1000/182",
    "@article{k, doi = {10.1000/bib_1}, url = {https://doi.org/10.1000/bib_2}}",
    "Étude 10.1234/é5 (voir aussi urn:doi:10.1000/ABC) fin",
    "no DOI here",
    "",
    None,
]
VALUES = [
    "https://doi.org/10.1000/ABC",
    "doi:10.1000/x.",
    "https://link.springer.com/article/10.1007/s00125-019-4859-x/fulltext.html",
    "https://www.scopus.com/record/display.uri?eid=2&doi=10.1016%2Fj.cell.2020.01.001&origin=x",
    "info:doi/10.1000/182",
    "nothing",
    "",
    None,
]


def _connection(**options: Any) -> Any:
    import extractor.duckdb

    con = duckdb.connect()
    extractor.duckdb.register(con, **options)
    return con


def test_doi_find_gives_the_pairs_scan_gives(tmp_path: Path) -> None:
    """The query a citation-graph builder types, over a Parquet of records, against scan."""
    ids = [f"r{i}" for i in range(len(TEXTS) * 40)]
    texts = [
        TEXTS[i % len(TEXTS)] if i % 7 else f"ref 10.5555/{i} and {TEXTS[i % len(TEXTS)]}"
        for i in range(len(ids))
    ]
    records = tmp_path / "records.parquet"
    pq.write_table(pa.table({"id": ids, "text": texts}), records, row_group_size=64)
    scan_here([records], tmp_path / "out")
    want = {(r["record"], r["doi"]) for r in table(tmp_path / "out", "mentions")}
    con = _connection()
    got = con.sql(f"SELECT id, unnest(doi_find(text)) AS doi FROM '{records}'").fetchall()
    assert len(got) == len(set(got)) and set(got) == want and len(want) > 100


def test_doi_find_is_each_texts_distinct_dois_in_the_order_of_their_first_hit() -> None:
    con = _connection()
    rows = con.execute("SELECT doi_find(t) FROM unnest(?::VARCHAR[]) AS v(t)", [TEXTS]).fetchall()
    for text, (got,) in zip(TEXTS, rows, strict=True):
        if text is None:
            assert got is None
            continue
        hits = sorted(find_dois(text, detect_kind(None, text.encode())), key=lambda h: h.start)
        assert got == list(dict.fromkeys(h.doi for h in hits)), text


# a text as Arrow holds it: valid UTF-8 (a lone surrogate of PIECES, an invalid byte, as U+FFFD)
@given(
    st.lists(
        st.lists(st.sampled_from(PIECES), max_size=12).map(lambda p: clean("".join(p))[0]),
        min_size=1,
        max_size=8,
    )
)
def test_find_array_is_find_dois_text_by_text(texts: list[str]) -> None:
    got = find_array(pa.array(texts)).to_pylist()
    for text, dois in zip(texts, got, strict=True):
        hits = sorted(find_dois(text, detect_kind(None, text.encode())), key=lambda h: (h.start, h.doi))
        assert dois == list(dict.fromkeys(h.doi for h in hits)), text


def test_texts_read_by_threads_at_once_give_what_one_read_after_another_gives() -> None:
    """The C reading of a column's texts lets go of the GIL (DuckDB's threads call doi_find over
    row groups at once): each call's table and buffers are its own, so threads reading different
    columns at once, and DuckDB with four threads over many texts, give what one call after
    another gives."""
    from concurrent.futures import ThreadPoolExecutor

    pieces = [t for t in TEXTS if t] * 40
    columns = [pa.array(pieces[k:]) for k in range(8)]  # each of its own length
    alone = [find_array(c).to_pylist() for c in columns]
    with ThreadPoolExecutor(4) as pool:
        assert [a.to_pylist() for a in pool.map(find_array, columns * 3)] == alone * 3
    assert len({str(a) for a in alone}) == len(alone) and any(any(a) for a in alone)
    con = _connection()
    con.execute("SET threads = 4")
    many = [f"{t} (row {i})" for i, t in enumerate(pieces * 8)]
    got = con.execute("SELECT doi_find(t) FROM unnest(?::VARCHAR[]) AS v(t)", [many]).fetchall()
    assert [g for (g,) in got] == find_array(pa.array(many)).to_pylist()


def test_doi_canonicalize_is_canonicalize() -> None:
    con = _connection()
    got = [
        r[0]
        for r in con.execute(
            "SELECT doi_canonicalize(v) FROM unnest(?::VARCHAR[]) AS t(v)", [VALUES]
        ).fetchall()
    ]
    assert got == [None if v is None else canonicalize(v) for v in VALUES]
    assert got[2] == "10.1007/s00125-019-4859-x" and got[3] == "10.1016/j.cell.2020.01.001"


def test_a_forced_kind_and_syntax_read_every_text_so() -> None:
    """register's kind and syntax are scan's --kind and --syntax: every text read so."""
    html = "10.1000/b&amp; and more"
    tex = r"see \doi{10.1000/a\_b}"

    def found(**options: object) -> tuple[object, ...]:
        return tuple(
            _connection(**options).execute("SELECT doi_find(?), doi_find(?)", [html, tex]).fetchone()
        )

    assert found() == (["10.1000/b&amp"], ["10.1000/a\\_b"])
    assert found(kind="html") == (["10.1000/b&"], ["10.1000/a\\_b"])  # the entity read as HTML
    assert found(syntax="latex")[1] == ["10.1000/a_b"]  # spec §7: TeX's escape read
    assert found(syntax="latex") == tuple(
        find_array(pa.array([t]), syntax="latex")[0].as_py() for t in (html, tex)
    )


def test_pandas_and_polars_columns_are_taken_as_they_are() -> None:
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    want = [None if v is None else canonicalize(v) for v in VALUES]
    assert canonicalize_array(pd.Series(VALUES)).to_pylist() == want
    assert canonicalize_array(pl.Series(VALUES)).to_pylist() == want
    assert canonicalize_array(pa.array(VALUES, pa.string_view())).to_pylist() == want
    found = find_array(pa.array(TEXTS)).to_pylist()
    assert find_array(pl.Series(TEXTS)).to_pylist() == found
    assert find_array(pd.Series(TEXTS)).to_pylist() == found
    assert find_array(pa.chunked_array([TEXTS[:3], TEXTS[3:]])).to_pylist() == found
    frame = pl.DataFrame({"text": TEXTS})
    # Polars' own batches (docs/cleaning.md): a column of lists, one per text
    lists = frame.select(pl.col("text").map_batches(lambda s: pl.from_arrow(find_array(s)))).to_series()
    assert lists.to_list() == found
    with pytest.raises(TypeError, match="column of strings"):
        canonicalize_array([1, 2])


def _blocks(section: str) -> list[str]:
    """The Python blocks of a section of docs/cleaning.md, as written."""
    text = (Path(__file__).parent.parent / "docs" / "cleaning.md").read_text()
    body = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    return [b.split("```", 1)[0] for b in body.split("```python\n")[1:]]


def test_the_cleaning_guides_duckdb_and_polars_lines_run_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pl = pytest.importorskip("polars")
    monkeypatch.chdir(tmp_path)
    papers = {
        "id": ["p1", "p2"],
        "doi": ["https://doi.org/10.1000/P1", "10.1000/p2"],
        "text": ["cites 10.1000/p2 and doi:10.1000/P1 (itself)", "cites https://doi.org/10.1000/X."],
    }
    pq.write_table(pa.table(papers), tmp_path / "papers.parquet")
    (tmp_path / "scopus.csv").write_text(
        'Title,Link\nA,"https://www.scopus.com/inward/record.uri?eid=2&doi=10.1016%2Fj.x.2020.01.001&partnerID=40"\n'
    )
    duck, polars = _blocks("Inside DuckDB and Polars")
    names: dict[str, object] = {}
    exec(compile(duck, "cleaning.md", "exec"), names)
    con = names["con"]
    edges = con.sql(duck.split('con.sql("""', 1)[1].split('""")', 1)[0]).fetchall()  # type: ignore[attr-defined]
    assert sorted(edges) == [("10.1000/p1", "10.1000/p2"), ("10.1000/p2", "10.1000/x")]
    links = con.sql("SELECT doi_canonicalize(Link) AS doi, Title FROM 'scopus.csv'").fetchall()  # type: ignore[attr-defined]
    assert links == [("10.1016/j.x.2020.01.001", "A")]
    df = pl.DataFrame({"text": papers["text"], "link": papers["doi"]})
    got: dict[str, object] = {"pl": pl, "df": df}
    exec(compile(polars, "cleaning.md", "exec"), got)
    out = got["df"]
    assert out["dois"].to_list() == [["10.1000/p2", "10.1000/p1"], ["10.1000/x"]]  # type: ignore[index]
    assert out["doi"].to_list() == ["10.1000/p1", "10.1000/p2"]  # type: ignore[index]
