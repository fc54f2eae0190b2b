"""The Arrow batch API (issue 10): extract_batch equals find_dois on the same texts, and hands
its table to the engines users call it from — a Dask DataFrame, DuckDB, Polars."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from extractor import canonicalize, entity_of, find_dois
from extractor.arrow import batch_schema, canonicalize_array, extract_batch, find_array
from extractor.match import native
from extractor.pipeline.io.decode import clean, detect_kind

from .helpers import PIECES, scan_here, table

TEXTS = [
    "see doi:10.1000/182 and https://doi.org/10.1038/NATURE12373.",
    "Étude 10.1234/é5 (voir aussi urn:doi:10.1000/ABC) fin",
    '<p>x <a href="https://doi.org/10.1000/abc">doi:10.1000/abc</a></p><div>10.1002/xyz&amp;</div>',
    "Smith J. Nature 455: 1-10. doi:10.1038/na-\nture07953\f next page 10.1000/182",
    "no DOI here",
    "",
    # a URL hit holding the hit before it starts before it (offsets in characters counted back)
    "é 10.5240:https://doi.org/10.1000/182）10.1000/182",
]


def expected(texts: Sequence[str | None], ids: Sequence[object], kind: str | None) -> list[dict[str, object]]:
    rows = []
    for rid, t in zip(ids, texts, strict=True):
        if t is None:
            continue
        k = kind or detect_kind(None, t.encode())
        rows += [
            {
                "id": rid,
                "char_offset": h.start,
                "raw": h.raw,
                "form": h.form.value,
                "doi": h.doi,
                "entity": entity_of(h.doi),
            }
            for h in find_dois(t, k)
        ]
    return rows


@pytest.mark.parametrize("kind", [None, "plain", "html", "pdf"])
def test_extract_batch_equals_find_dois(kind: str | None) -> None:
    ids = [f"doc{i}" for i in range(len(TEXTS))]
    got = extract_batch(pa.record_batch({"id": ids, "text": TEXTS}), kind=kind)
    assert got.schema == batch_schema(pa.string())
    assert got.to_pylist() == expected(list(TEXTS), list(ids), kind)
    assert got.num_rows >= 5


@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=12), min_size=1, max_size=6))
def test_extract_batch_equals_find_dois_on_generated_texts(texts: list[list[str]]) -> None:
    # Arrow strings are UTF-8: lone surrogates (invalid bytes in a file) cannot be in them.
    values = [clean("".join(t))[0] for t in texts]
    got = extract_batch(pa.record_batch({"text": values}), id=None)
    assert got.to_pylist() == expected(list(values), list(range(len(values))), None)


def test_nulls_slices_chunks_and_string_types() -> None:
    texts = [TEXTS[0], None, TEXTS[1], TEXTS[2]]
    ids = [10, 11, None, 13]
    want = expected(texts, ids, None)
    batch = pa.record_batch({"k": pa.array(ids, pa.int64()), "body": texts})
    got = extract_batch(batch, text="body", id="k")
    assert got.schema == batch_schema(pa.int64()) and got.to_pylist() == want
    # a slice of a batch (its buffers start before it), a table of several chunks
    assert extract_batch(batch.slice(2), text="body", id="k").to_pylist() == [
        r for r in want if r["id"] != 10
    ]
    chunked = pa.Table.from_batches([batch.slice(0, 1), batch.slice(1, 2), batch.slice(3)])
    assert chunked.column("body").num_chunks == 3
    assert extract_batch(chunked, text="body", id="k").to_pylist() == want
    for typ in (pa.large_string(), pa.dictionary(pa.int32(), pa.string())):
        other = pa.record_batch({"k": pa.array(ids), "body": pa.array(texts).cast(typ)})
        assert extract_batch(other, text="body", id="k").to_pylist() == want


def test_invalid_utf8_in_a_string_array_reads_as_scan_reads_it() -> None:
    data = "x 10.1000/a\xff b doi:10.1000/É c".encode("latin-1").replace(b"\xc9", "É".encode())
    arr = pa.Array.from_buffers(
        pa.string(),
        1,
        [None, pa.py_buffer(pa.array([0, len(data)], pa.int32()).buffers()[1]), pa.py_buffer(data)],
    )
    got = extract_batch(pa.record_batch({"text": arr}), id=None).to_pylist()
    text = clean(data.decode("utf-8", "surrogateescape"))[0]
    assert got == expected([text], [0], "plain")
    assert [r["doi"] for r in got] == ["10.1000/a", "10.1000/É"]  # §4: U+FFFD ends it; §1: ASCII case only


def test_bad_arguments_are_named() -> None:
    batch = pa.record_batch({"id": [1], "text": ["10.1000/182"], "n": [3]})
    with pytest.raises(KeyError, match="no text column 'body'"):
        extract_batch(batch, text="body")
    with pytest.raises(KeyError, match="no id column 'doc'"):
        extract_batch(batch, id="doc")
    with pytest.raises(TypeError, match="'n' holds int64"):
        extract_batch(batch, text="n")
    with pytest.raises(ValueError, match="kind must be one of"):
        extract_batch(batch, kind="docx")


def test_extract_batch_equals_the_occurrences_of_a_scan(tmp_path: Path) -> None:
    """The same columns and meaning as `occurrences/` of a scan of the same records."""
    import json

    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps({"id": f"r{i}", "text": t}) + "\n" for i, t in enumerate(TEXTS)))
    scan_here([path], tmp_path / "out", occurrences=True)
    occ = [
        {
            "id": r["record"],
            "char_offset": r["char_offset"],
            "raw": r["raw"],
            "form": r["form"],
            "doi": r["doi"],
            "entity": r["entity"],
        }
        for r in table(tmp_path / "out", "occurrences")
    ]
    got = extract_batch(pa.record_batch({"id": [f"r{i}" for i in range(len(TEXTS))], "text": TEXTS}))
    key = lambda r: (r["id"], r["char_offset"])  # noqa: E731
    assert sorted(got.to_pylist(), key=key) == sorted(occ, key=key)


def _frame_texts() -> tuple[list[str], list[str]]:
    texts = [TEXTS[i % len(TEXTS)] + f" ref 10.5555/{i}" for i in range(200)]
    return [f"d{i}" for i in range(200)], texts


def test_from_a_dask_dataframe() -> None:
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    ids, texts = _frame_texts()
    frame = dd.from_pandas(pd.DataFrame({"id": ids, "text": texts}), npartitions=4)
    meta = batch_schema().empty_table().to_pandas()

    def per_partition(part: pd.DataFrame) -> pd.DataFrame:
        return extract_batch(pa.Table.from_pandas(part, preserve_index=False)).to_pandas()

    got = frame.map_partitions(per_partition, meta=meta).compute(scheduler="processes", num_workers=2)
    assert got.to_dict("records") == expected(list(texts), list(ids), None)


def test_from_duckdb_and_polars() -> None:
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    ids, texts = _frame_texts()
    con = duckdb.connect()
    con.execute("create table docs(id varchar, text varchar)")
    con.executemany("insert into docs values (?, ?)", list(zip(ids, texts, strict=True)))
    reader = con.sql("select id, text from docs order by id").to_arrow_reader(64)
    hits = pa.concat_tables(extract_batch(b) for b in reader)
    want = expected(list(texts), list(ids), None)
    assert hits.num_rows == len(want)
    # DuckDB queries the Arrow table by its Python name
    got = con.execute("select doi, count(distinct id) from hits group by doi order by doi").fetchall()
    assert got == sorted(
        {(d, len({r["id"] for r in want if r["doi"] == d})) for d in {r["doi"] for r in want}}
    )
    frame = pl.DataFrame({"id": ids, "text": texts})
    from_polars = pl.from_arrow(extract_batch(frame.to_arrow()))
    assert isinstance(from_polars, pl.DataFrame)
    assert sorted(from_polars.rows()) == sorted(tuple(r.values()) for r in hits.to_pylist())


@pytest.mark.slow
def test_from_ray_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/cleaning.md's Ray Data line, as written: map_batches hands each block to extract_batch as
    an Arrow table. A one-CPU Ray started here on 127.0.0.1, its usage report off."""
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    ids, texts = _frame_texts()
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")
    try:
        ds = ray.data.from_arrow(pa.table({"id": ids, "text": texts}))
        got = ds.map_batches(extract_batch, batch_format="pyarrow").take_all()
    finally:
        ray.shutdown()
    key = lambda r: (r["id"], r["char_offset"])  # noqa: E731
    assert sorted(got, key=key) == sorted(expected(list(texts), list(ids), None), key=key)


@pytest.mark.slow
def test_from_spark(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/cleaning.md's Spark line, as written: mapInArrow hands each partition to the function as
    an iterator of record batches, and takes back the batches it yields. A local Spark of one
    core, bound to 127.0.0.1, its web UI off; it needs a Java runtime (.ci/run installs one)."""
    if shutil.which("java") is None:
        pytest.skip("Spark needs a Java runtime (Debian: default-jre-headless)")
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    monkeypatch.setenv("SPARK_LOCAL_IP", "127.0.0.1")
    ids, texts = _frame_texts()
    spark = (
        SparkSession.builder.master("local[1]")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    try:
        spark_df = spark.createDataFrame(
            list(zip(ids, texts, strict=True)), "id string, text string"
        ).repartition(3)

        def dois(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            for b in batches:
                yield from extract_batch(b).to_batches()

        got = [
            r.asDict()
            for r in spark_df.mapInArrow(
                dois, "id string, char_offset long, raw string, form string, doi string, entity string"
            ).collect()
        ]
    finally:
        spark.stop()
    key = lambda r: (r["id"], r["char_offset"])  # noqa: E731
    assert sorted(got, key=key) == sorted(expected(list(texts), list(ids), None), key=key)


# Pieces of identifier columns: the prefixes C folds itself and look-alikes it must leave to
# canonicalize, DOIs, trailing punctuation, brackets, escapes, whitespace, non-ASCII.
ID_PIECES = [
    "10.1000/182",
    "10.1038/NATURE.1",
    "10.5/X-y_z:1",
    "10.1000.5/a/b",
    "10.",
    "10/abc",
    "10.1000/",
    "doi:",
    "DOI: ",
    "doi\t",
    "doi ",
    "https://doi.org/",
    "HTTP://DX.DOI.ORG/",
    "https://www.doi.org/",
    "doi.org/",
    "urn:doi:",
    "info:doi/",
    "https://example.org/doi/",
    "%2F",
    "%41",
    ".",
    ",",
    ")",
    "(",
    "<",
    ">",
    "/",
    "-",
    "?x=1",
    "#",
    " ",
    "\n",
    "\x1f",
    "\u00a0",
    "é",
    "\u00ad",
    "a",
    "Z",
    "9",
]


@given(
    st.lists(st.one_of(st.none(), st.lists(st.sampled_from(ID_PIECES), max_size=6).map("".join)), max_size=30)
)
def test_canonicalize_array_is_canonicalize_element_wise(values: list[str | None]) -> None:
    want = [canonicalize(v) for v in values]
    for string_type in (pa.string(), pa.large_string()):
        array = pa.array(values, string_type)
        got = canonicalize_array(array)
        assert got.type == string_type and got.to_pylist() == want
        got.validate(full=True)
        if len(values) > 2:  # a slice reads from its offset
            assert canonicalize_array(array.slice(1, len(values) - 2)).to_pylist() == want[1:-1]


# URLs of publishers and other sites, read in C by the plain scan (column.c's col_url_key)
_URL_STARTS = [
    "https://",
    "http://",
    "HTTPS://",
    "https://link.springer.com/article/",
    "http://www.scopus.com/x?doi=",
]


@given(
    st.lists(
        st.tuples(st.sampled_from(_URL_STARTS), st.lists(st.sampled_from(PIECES), max_size=8)).map(
            lambda t: clean(t[0] + "".join(t[1]))[0]
        ),
        max_size=30,
    )
)
def test_canonicalize_array_reads_urls_as_canonicalize(values: list[str]) -> None:
    assert canonicalize_array(pa.array(values)).to_pylist() == [canonicalize(v) for v in values]


# The shapes column.c's col_plain_url_key takes without the plain scan, and every edge of it:
# other hosts and keys, a second "10.", short and long prefixes, "%2F", suffixes with the tails
# spec §4 cuts (.pdf, .mp4, .full, view segments, bioRxiv's v1), trailing marks, what follows.
_PLAIN_URL_HEADS = [
    "http://link.springer.com/article/",
    "https://link.springer.com/chapter/",
    "https://rd.springer.com/content/pdf/",
    "https://example.org/files/",
    "https://www.biorxiv.org/content/",
    "https://www.example.com/content/",
    "https://www.scopus.com/inward/record.uri?eid=2-s2.0-85021796043&doi=",
    "https://www.scopus.com/inward/record.uri?doi=",
    "https://x.org/a?DOI=",
    "https://x.org/a?xdoi=",
    "https://x.org/a?doi=10.1000/1&doi=",
    "https://x.org/rg/",
    "https://x.org/10/",
]
_PLAIN_URL_PREFIXES = ["10.1007", "10.1101", "10.1016", "10.123", "10.1234567890", "10.1000.12", "10.1000."]
_PLAIN_URL_SUFFIX = st.text(alphabet="aZ09.-_v", max_size=10) | st.text(alphabet="aZ09.-_v/%()~", max_size=10)
_PLAIN_URL_TAILS = [
    "",
    ".pdf",
    ".mp4",
    ".full",
    "/fulltext",
    "/abstract",
    "v1",
    "3v12",
    "v12.full",
    ".",
    "-",
    ")",
    ".012",
]
_PLAIN_URL_AFTER = [
    "",
    "&partnerID=40&md5=5df2345b1da7ec6d74aac1bac03e31ab",
    "?x=1",
    "#a",
    "&x=10.5555/z",
    " ",
]


@given(
    st.lists(
        st.tuples(
            st.sampled_from(_PLAIN_URL_HEADS),
            st.sampled_from(_PLAIN_URL_PREFIXES),
            st.sampled_from(["/", "%2f", "%2F", "%2"]),
            _PLAIN_URL_SUFFIX,
            st.sampled_from(_PLAIN_URL_TAILS),
            st.sampled_from(_PLAIN_URL_AFTER),
        ).map("".join),
        max_size=30,
    )
)
def test_canonicalize_array_reads_plain_publisher_urls_as_canonicalize(values: list[str]) -> None:
    assert canonicalize_array(pa.array(values)).to_pylist() == [canonicalize(v) for v in values]


# One value at each edge of col_plain_url_key's shapes, read as canonicalize reads it.
PLAIN_URL_EDGES = [
    "http://link.springer.com/article/10.1007/s00125-019-4859-x",
    "http://link.springer.com/chapter/10.1007/978-3-319-12345-6_7",
    "http://link.springer.com/article/10.1007/a.pdf",
    "http://link.springer.com/article/10.1007/a.mp4",
    "http://link.springer.com/article/10.1007/a.full",
    "http://link.springer.com/article/10.1007/fulltext",
    "http://link.springer.com/article/10.1007/s1-2/fulltext",
    "http://link.springer.com/article/10.1007/a.",
    "http://link.springer.com/article/10.1007/a-",
    "http://link.springer.com/article/10.1007/a_",
    "http://link.springer.com/article/10.1007%2Fabc",
    "http://link.springer.com/article/10.123/abc",
    "http://link.springer.com/article/10.1234567890/abc",
    "http://link.springer.com/article/10.1000.12/abc",
    "http://link.springer.com/article/10.1000./abc",
    "https://www.example.com/content/10.1101/0123v1",
    "https://www.example.com/content/10.1101/2020.01.01.0123v1",
    "https://www.example.com/content/10.1101/0123v",
    "https://www.example.com/content/10.1234/abcv1",
    "https://www.example.com/10/content/10.1234/abc",
    "https://www.example.com/rg/10.1234/abc",
    "https://www.example.com/a10.1234/abc",
    "https://www.example.com/10.1234/abc?x=1",
    "https://www.example.com/10.1234/abc#top",
    "https://www.scopus.com/inward/record.uri?eid=2-s2.0-1&doi=10.1016%2fj.cell.2015.03.012&partnerID=40",
    "https://www.scopus.com/inward/record.uri?doi=10.1016%2Fj.cell.2015.03.012",
    "https://www.scopus.com/inward/record.uri?eid=1&doi=10.1016%2fj.cell.2015.pdf&partnerID=40",
    "https://www.scopus.com/inward/record.uri?eid=1&doi=10.1016%2fj.cell.2015.03.012.e1&x=1",
    "https://www.scopus.com/inward/record.uri?eid=1&DOI=10.1016%2fabc.1&x=1",
    "https://www.scopus.com/inward/record.uri?eid=1&xdoi=10.1016%2fabc.1&x=1",
    "https://www.scopus.com/inward/record.uri?eid=1&doi=10.1016%2fabc.1&x=10.5555/z",
    "https://www.scopus.com/inward/record.uri?eid=1&doi=10.1016%2fabc.1%2fx&x=1",
    "https://www.scopus.com/inward/record.uri?eid=1&doi=10.1016%2fabc%29&x=1",
    "https://x.com/go?u=https://doi.org/b6v3&doi=10.1234/abc",
    "https://x.com/go?u=doi:10/b6v3&doi=10.1234/abc",
    # a token's stop before the DOI's "/" ends the URL there: the DOI is bare, and no URL's (fuzz
    # target columns, fuzz/corpus/columns/found-token-stop-before-a-urls-doi)
    *(f"https://ab.org{c}/10.1038/A.1" for c in "'(,;<>[{"),
    "https://doA.org[/10.1038/A.1",
    "https://ab.org/x(y/10.1038/A.1",
]


@pytest.mark.parametrize("value", PLAIN_URL_EDGES)
def test_canonicalize_array_reads_each_plain_url_edge_as_canonicalize(value: str) -> None:
    assert canonicalize_array(pa.array([value])).to_pylist() == [canonicalize(value)]


def test_canonicalize_array_reads_publisher_urls_in_c() -> None:
    """A publisher's URL and a query string's doi= never reach Python: a fallback that fails
    shows it; a shortDOI in a URL is canonicalize's."""
    if not native.HAVE_C:
        pytest.skip("needs the C matcher")
    from extractor.match import _cscan

    def refuse(value: str) -> str | None:
        raise AssertionError(value)

    values = [
        "https://link.springer.com/article/10.1007/s00125-019-4859-x/fulltext.html",
        "http://link.springer.com/article/10.1155/2010/359081",
        "https://www.scopus.com/inward/record.uri?eid=2-s2.0-1&doi=10.1016%2fj.cell.2020.01.001&partnerID=40",
        "https://www.sciencedirect.com/science/article/pii/S0092867420300",
    ]
    valid, offsets, data = pa.array(values).buffers()
    _v, _o, d, nulls = _cscan.canonical_column(offsets, data, valid, 0, 4, False, refuse)
    assert (d, nulls) == (b"10.1007/s00125-019-4859-x10.1155/2010/35908110.1016/j.cell.2020.01.001", 1)
    _valid, offsets, data = pa.array(["https://x.org/go?u=https://doi.org/b6v3"]).buffers()
    with pytest.raises(AssertionError, match="b6v3"):
        _cscan.canonical_column(offsets, data, None, 0, 1, False, refuse)


def test_canonicalize_array_takes_chunks_dictionaries_nulls_and_what_is_no_string() -> None:
    chunked = pa.chunked_array([["doi:10.1000/ABC", None], [], ["https://doi.org/10.1000/x."]])
    assert canonicalize_array(chunked).to_pylist() == ["10.1000/abc", None, "10.1000/x"]
    assert canonicalize_array(pa.array(["10.1000/A", "10.1000/A"]).dictionary_encode()).to_pylist() == [
        "10.1000/a",
        "10.1000/a",
    ]
    assert canonicalize_array(pa.nulls(3)).to_pylist() == [None, None, None]
    # numbers and bytes hold no DOI, as canonicalize says of them
    assert (
        canonicalize_array(pa.array([1, 2])).to_pylist() == [None, None] == [canonicalize(1), canonicalize(2)]
    )
    assert canonicalize_array(pa.array([b"10.1000/182"])).to_pylist() == [canonicalize(b"10.1000/182")]
    assert find_array(pa.array([1.5])).to_pylist() == [None]


def test_the_array_functions_take_any_column_map_canonicalize_takes() -> None:
    """A pandas object column of links among gaps and numbers (as a spreadsheet export gives):
    canonicalize_array gives what `map(canonicalize)` gives, value for value, at C speed for the
    strings; find_array a null list where no string is."""
    pd = pytest.importorskip("pandas")
    col = pd.Series(
        ["https://doi.org/10.1000/ABC", None, float("nan"), 2019, 3.5, b"10.1000/182", "DOI: 10.1038/x."],
        dtype=object,
    )
    assert canonicalize_array(col).to_pylist() == [canonicalize(v) for v in col]
    assert find_array(col).to_pylist() == [["10.1000/abc"], None, None, None, None, None, ["10.1038/x"]]


def test_canonicalize_array_folds_plain_dois_in_c() -> None:
    """The values that are plainly one DOI never reach Python: a fallback that fails shows it."""
    if not native.HAVE_C:
        pytest.skip("needs the C matcher")
    from extractor.match import _cscan

    def refuse(value: str) -> str | None:
        raise AssertionError(value)

    array = pa.array(["10.1000/ABC", " doi:10.5/X-1 ", "HTTPS://DOI.ORG/10.1038/A.B_C:D", None])
    valid, offsets, data = array.buffers()
    _v, _o, d, nulls = _cscan.canonical_column(offsets, data, valid, 0, 4, False, refuse)
    assert (d, nulls) == (b"10.1000/abc10.5/x-110.1038/a.b_c:d", 1)
    _valid, offsets, data = pa.array(["10.1000/x."]).buffers()
    with pytest.raises(AssertionError, match=r"10\.1000/x\."):  # a sentence's "." is canonicalize's
        _cscan.canonical_column(offsets, data, None, 0, 1, False, refuse)


def test_canonicalize_array_one_liners_of_the_docs() -> None:
    """docs/api.md's pandas and Polars lines."""
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    df = pd.DataFrame({"doi": ["https://doi.org/10.1000/ABC", None, float("nan"), "DOI: 10.1038/x."]})
    df["doi"] = df["doi"].map(canonicalize)  # value by value
    assert [None if pd.isna(x) else x for x in df["doi"]] == ["10.1000/abc", None, None, "10.1038/x"]
    df = pd.DataFrame({"doi": ["https://doi.org/10.1000/ABC", None, "DOI: 10.1038/x."]})
    df["doi"] = canonicalize_array(pa.array(df["doi"])).to_pandas()  # in C
    assert [None if pd.isna(x) else x for x in df["doi"]] == ["10.1000/abc", None, "10.1038/x"]
    frame = pl.DataFrame({"doi": ["https://doi.org/10.1000/ABC", None]})
    frame = frame.with_columns(pl.from_arrow(canonicalize_array(frame["doi"].to_arrow())).alias("doi"))
    assert frame["doi"].to_list() == ["10.1000/abc", None]
