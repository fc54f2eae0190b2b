"""The mention table (pipeline/_ctable.c, through pipeline/table.py): one document's hits counted
by canonical DOI, handed out by bucket as lists or as Arrow buffers, and the matcher's sink
(match/cscan/sink.h): the C matcher counts into the C table with no Python object, and into any
other table through its add()."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from extractor.match import native
from extractor.pipeline import table as mention_table
from extractor.pipeline.table import HAVE_C, Columns, Mentions, PyMentions, bucket_of

pytestmark = pytest.mark.skipif(not (HAVE_C and native.HAVE_C), reason="the C parts are not built")

DOCUMENT = (
    b"x 10.1000/a https://doi.org/10.1000/B\n10.1000/\xc3\xa9t\xc3\xa9 doi:10.1000/x\xff1 "
    + b" ".join(b"10.1234/%d" % (i % 700) for i in range(3000))
    + b"\n10.1000/a 10.1234/7 DOI:10.1000/\xe2\x80\x8bA"
)


@pytest.mark.parametrize("scan", ["scan", "pdf_scan", "html_scan"])
def test_the_matcher_counts_into_any_table_with_add(scan: str) -> None:
    """A table without the C entry point (the Python table, where _ctable was not built) is
    called through add(): the same rows, raws, lines and order as the C table's."""
    got = []
    for table in (Mentions(), PyMentions()):
        hits: list[Any] = []
        ret = getattr(native, scan)(DOCUMENT, 0, len(DOCUMENT), 0, len(DOCUMENT), 3, table, hits, line_base=0)
        got.append((ret, hits, table.take(4)))
    assert got[0] == got[1]
    assert len(got[0][2][0]) > 700


def test_a_table_that_is_no_sink_is_refused() -> None:
    with pytest.raises(TypeError, match="add"):
        native.scan(b"10.1000/1", 0, 9, 0, 9, 0, object(), None)


def _columns_as_lists(c: Columns) -> tuple[list[Any], ...]:
    """take_columns' buffers read back through Arrow, as take() gives its rows."""
    import pyarrow as pa

    from extractor.pipeline.scan.sinks import columns_arrays

    doi, count, offset, line, raw, mask = (a.to_pylist() for a in columns_arrays(c))
    for a in columns_arrays(c):
        a.validate(full=True)  # offsets, UTF-8 and bitmap as Arrow requires them
    assert isinstance(doi, list) and pa.types.is_string(columns_arrays(c)[0].type)
    return doi, count, offset, raw, mask, line, c.bounds


def test_take_columns_gives_the_rows_of_take_as_arrow_buffers() -> None:
    """A document with thousands of distinct DOIs hands on its rows as Arrow buffers, no Python
    object per row: the same rows, order and buckets as take(), raw texts that
    differ from the key (case, labels, a later earlier offset) and lines with gaps."""
    data = (
        b"x 10.1000/a https://doi.org/10.1000/B\n10.1000/\xc3\xa9t\xc3\xa9 doi:10.1000/x\xff1 "
        + b" ".join(b"10.1234/%d" % i for i in range(3000))
        + b"\n10.1000/a 10.1234/7"
    )
    for buckets in (1, 3, 16):
        tables = Mentions(), Mentions()
        for t in tables:
            native.scan(data, 0, len(data), 0, len(data), 0, t, None, line_base=0)
            t.add("10.1000/record", 5, 2, "DOI 10.1000/RECORD", -1)  # a row with no line
            t.add("10.1000/a", 0, 1, "earlier raw", 1)  # an earlier offset replaces the raw
        rows = tables[0].take(buckets)
        cols = Columns(*tables[1].take_columns(buckets))
        assert _columns_as_lists(cols) == rows
        assert cols.rows == len(rows[0]) == 3005 and cols.lines_valid is not None
        assert {"10.1000/x", "10.1000/été", "10.1000/b"} <= set(rows[0])  # an invalid byte ends a DOI
        assert {"earlier raw", "https://doi.org/10.1000/B", "doi:10.1000/x"} <= set(rows[3])
        assert len(tables[1]) == 0 and Columns(*tables[1].take_columns(buckets)).rows == 0


def test_a_table_emptied_by_take_is_reused_from_empty() -> None:
    """A scan keeps one table for a unit's documents, each emptying it: nothing of a large
    document's rows or hash slots shows through, whether the next is small or grows past it."""
    table = Mentions()
    data = " ".join(f"10.1234/{i}" for i in range(5000)).encode()
    native.scan(data, 0, len(data), 0, len(data), 0, table, None)
    assert len(table) == 5000
    table.take()
    for size in (3, 20_000):
        assert len(table) == 0
        data = " ".join(f"10.1234/{i}" for i in range(0, 2 * size, 2)).encode()
        native.scan(data, 0, len(data), 0, len(data), 0, table, None)
        dois, counts, *_ = table.take()
        assert dois == [f"10.1234/{i}" for i in range(0, 2 * size, 2)] and set(counts) == {1}
        native.scan(b"10.1234/2 10.1234/2", 0, 19, 0, 19, 0, table, None)
        assert table.take()[:2] == (["10.1234/2"], [2])


def test_mentions_come_grouped_by_bucket() -> None:
    data = " ".join(f"10.1000/{i}" for i in range(100)).encode()
    table = Mentions()
    native.scan(data, 0, len(data), 0, len(data), 0, table, None)
    dois, *_, bounds = table.take(8)
    assert len(bounds) == 9 and bounds[0] == 0 and bounds[-1] == 100
    for b in range(8):
        group = dois[bounds[b] : bounds[b + 1]]
        assert all(bucket_of(d, 8) == b for d in group)
        assert group == sorted(group, key=lambda d: int(d.split("/")[1]))  # first-seen order kept


def test_bucket_of_is_stable_and_spreads() -> None:
    fnv = 0xCBF29CE484222325
    for byte in b"10.1000/182":
        fnv = ((fnv ^ byte) * 0x100000001B3) % (1 << 64)
    assert bucket_of("10.1000/182", 1000) == fnv % 1000  # FNV-1a: the same in every process
    spread = {bucket_of(f"10.1000/{i}", 16) for i in range(200)}
    assert spread == set(range(16))


@pytest.mark.skipif(not HAVE_C, reason="the C part was not built")
@given(
    st.lists(
        st.tuples(
            st.integers(0, 5),
            st.integers(0, 40),
            st.sampled_from(["10.1/a", "10.1/b", "10.2/é", "10.1/ab", ""]),
        ),
        max_size=40,
    ),
    st.integers(0, 3),
)
def test_doi_lists_in_c_equal_python(rows: list[tuple[int, int, str]], start: int) -> None:
    """Each text's DOIs ordered by (text, offset, DOI) — rows in any order, ties of text and
    offset — and cut by text: the C part's buffers are the Python reading's."""
    from array import array

    texts = 6
    pad = [(0, 0, "x")] * start  # rows before the array's first (an offset into its buffers)
    dois = [d.encode() for _t, _a, d in pad + rows]
    offs = array("i", [0])
    for d in dois:
        offs.append(offs[-1] + len(d))
    args = (
        array("q", [t for t, _a, _d in rows]).tobytes(),
        array("q", [a for _t, a, _d in rows]).tobytes(),
        offs.tobytes(),
        b"".join(dois),
        start,
        len(rows),
        texts,
    )
    c_out = mention_table.doi_lists(*args)
    saved = mention_table._ctable
    try:
        mention_table._ctable = None  # type: ignore[assignment]
        py_out = mention_table.doi_lists(*args)
    finally:
        mention_table._ctable = saved
    assert c_out == py_out
