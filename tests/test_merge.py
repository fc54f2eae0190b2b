"""The bucket merge (dedupe.py, finalize.py): large buckets merged in pieces, small ones together,
the C grouping and Arrow's equal to a plain merge row by row."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from extractor.pipeline import ScanConfig
from extractor.pipeline.table import HAVE_C

from .helpers import run_json, scan_here, table

BLOCK = 1 << 20


def test_a_bucket_too_large_to_hold_is_merged_in_pieces_to_the_same_rows(tmp_path: Path) -> None:
    """Issue 15: one bucket's partial rows were merged at once, so the merge grew with the
    input (a 2 GB document, 624 MB). Over `merge_rows` a bucket is split by a finer hash and
    merged piece by piece: the same rows, and each piece holds at most about merge_rows."""
    src = tmp_path / "in"
    src.mkdir()
    for k in range(3):
        body = "".join(f"doi:10.1000/{i % 5000} and 10.1000/{(i * 7) % 4000}x. " for i in range(k, 9000, 3))
        (src / f"f{k}.txt").write_text(body + "\n" + body[: len(body) // 2])
    whole, split = tmp_path / "whole", tmp_path / "split"
    scan_here([src], whole, buckets=2, shard_size=40_000)
    scan_here([src], split, buckets=2, shard_size=40_000, merge_rows=900)
    for name in ("mentions", "dois"):
        key = "source" if name == "mentions" else "doi"
        a = sorted(table(whole, name), key=lambda r: (r[key], r["doi"]))
        b = sorted(table(split, name), key=lambda r: (r[key], r["doi"]))
        assert a == b and len(a) > 5000, name
    pieces = sorted(p.name for p in (split / "dois").iterdir())
    assert len(pieces) > 4 and all(p.startswith(("part-00000-", "part-00001-")) for p in pieces)
    assert max(pq.read_metadata(split / "mentions" / p).num_rows for p in pieces) < 2 * 900
    assert run_json(split)["mentions"] == run_json(whole)["mentions"]
    assert not [p for p in os.listdir(split) if p.startswith(".spill")]


def test_small_buckets_are_merged_as_one_and_large_ones_alone() -> None:
    """Issue 14: a merge per bucket paid its fixed costs 16 times on a small run. Consecutive
    buckets holding together at most a quarter of merge_rows are one job; a larger bucket is a
    job alone. The jobs depend on the rows only (never on the workers), so the output does not
    either."""
    from extractor.pipeline.out.finalize import _merge_groups
    from extractor.pipeline.out.parts import PartRef

    def part(rows_by_bucket: dict[int, int]) -> tuple[dict[int, list[PartRef]], list[str]]:
        return {b: [PartRef(f"p{b}", b, 1, r)] for b, r in rows_by_bucket.items()}, []

    config = ScanConfig(out="o", buckets=8, merge_rows=400)  # a group holds at most 100 rows
    parts = [part({0: 20, 1: 30, 3: 40, 4: 10, 5: 600, 6: 5}), None, part({0: 10, 3: 1, 7: 95})]
    got = [
        (first, [(f.path, f.rows) for f in files], rows)
        for first, files, rows in _merge_groups(parts, config)
    ]
    assert got == [
        (0, [("p0", 20), ("p0", 10), ("p1", 30)], 60),
        (3, [("p3", 40), ("p3", 1), ("p4", 10)], 51),
        (5, [("p5", 600)], 600),
        (6, [("p6", 5), ("p7", 95)], 100),
    ]


_RECORDS = [None, "r1", "r\x00x", "r", "r\x00"]  # NULs: joined keys that could collide


@given(
    st.lists(
        st.tuples(
            st.integers(0, 3),  # shard
            st.integers(0, 4),  # document (its record follows from it)
            st.integers(0, 12),  # DOI
            st.integers(1, 4),  # count
            st.integers(0, 60),  # first offset (ties too)
            st.integers(0, 8),  # form
        ),
        max_size=120,
    )
)
@pytest.mark.parametrize("grouping", ["C", "Arrow"])
def test_merge_bucket_equals_a_plain_merge(
    grouping: str, rows: list[tuple[int, int, int, int, int, int]]
) -> None:
    """The merge (grouped in one hash pass in C, or, without the C part, with Arrow's kernels:
    keys seen once taken as they are, repeated ones aggregated; issue 14) gives what merging row
    by row gives: per (source, record, DOI) the counts added, the first offset with its line and
    raw text (the earliest row among equal offsets), the forms united, the earliest place; rows
    in (place, offset, DOI) order."""
    from unittest import mock

    from extractor.pipeline.out import dedupe

    if grouping == "C" and not HAVE_C:
        pytest.skip("the package was built without its C part")
    # the other way of grouping is made to fail, so that each run proves the one it names
    others: dict[str, dict[str, Any]]
    if grouping == "C":
        others = {
            "_group_arrow": {"side_effect": AssertionError},
            "_per_doi_arrow": {"side_effect": AssertionError},
        }
    else:
        others = {"_group_native": {"return_value": None}, "_per_doi_native": {"return_value": None}}
    with contextlib.ExitStack() as stack:
        for name, how in others.items():
            stack.enter_context(mock.patch.object(dedupe, name, **how))
        _check_merge_bucket(rows)


@pytest.mark.skipif(not HAVE_C, reason="the package was built without its C part")
def test_group_mentions_refuses_buffers_that_do_not_hold_its_rows() -> None:
    """The merge's C grouping reads only what the buffers hold: short columns, offsets past the
    data or going backwards are a ValueError, never a read out of bounds."""
    from extractor.pipeline.table import group_mentions

    i32 = pa.array([0, 0], pa.int32()).buffers()[1]
    i64 = pa.array([1, 1], pa.int64()).buffers()[1]
    _v, offs, data = pa.array(["10.1/a", "10.1/a"]).buffers()
    assert group_mentions(i32, i32, offs, data, 0, i64, i64, i32, 2) == (
        b"\0\0\0\0",
        (2).to_bytes(8, "little"),
        (1).to_bytes(8, "little"),
        b"\0\0\0\0",
        (2).to_bytes(8, "little"),
    )
    bad_offsets = pa.py_buffer(b"".join(k.to_bytes(4, "little", signed=True) for k in (0, 9, 3)))
    for args in (
        (i32, i32, offs, data, 0, i64, i64, i32, 3),  # more rows than the columns hold
        (i32, i32, offs, data, 1, i64, i64, i32, 2),  # offsets from past their end
        (i32, i32, bad_offsets, data, 0, i64, i64, i32, 2),  # backwards
        (i32, i32, offs, pa.py_buffer(b"10.1"), 0, i64, i64, i32, 2),  # past the data
        (i32, i32, offs, data, 0, i64, i64, i32, -1),
    ):
        with pytest.raises(ValueError):
            group_mentions(*args)


@pytest.mark.skipif(not HAVE_C, reason="the package was built without its C part")
def test_the_merges_c_helpers_answer_alike_from_threads_at_once() -> None:
    """group_mentions and buckets_of work without the GIL (a run of one worker merges its buckets
    in threads): each call's state is its own, so threads calling them at once on different
    columns get what one call after another gets; bad offsets are still a ValueError."""
    from concurrent.futures import ThreadPoolExecutor

    from extractor.pipeline.table import buckets_of, group_mentions

    def columns(seed: int) -> tuple[Any, ...]:
        n = 20_000
        dois = pa.array([f"10.{1000 + (i * seed) % 37}/{(i * 7919 + seed) % 4001}" for i in range(n)])
        codes = pa.array([(i * seed) % 5 for i in range(n)], pa.int32()).buffers()[1]
        counts = pa.array([1 + i % 3 for i in range(n)], pa.int64()).buffers()[1]
        places = pa.array([(i * 31 + seed) % 997 for i in range(n)], pa.int64()).buffers()[1]
        forms = pa.array([1 << (i % 9) for i in range(n)], pa.int32()).buffers()[1]
        _v, offs, data = dois.buffers()
        return codes, codes, offs, data, 0, counts, places, forms, n

    def both(cols: tuple[Any, ...]) -> tuple[Any, ...]:
        return group_mentions(*cols), buckets_of(cols[2], cols[3], 0, cols[-1], 16)

    inputs = [columns(seed) for seed in range(1, 9)]
    alone = [both(cols) for cols in inputs]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(both, inputs * 3)) == alone * 3
    assert len(set(alone)) == len(alone)  # the inputs differ, so their answers do
    backwards = pa.py_buffer(b"".join(k.to_bytes(4, "little", signed=True) for k in (0, 9, 3)))
    with pytest.raises(ValueError):
        buckets_of(backwards, pa.py_buffer(b"10.1/a10.1/b"), 0, 2, 16)


def _check_merge_bucket(rows: list[tuple[int, int, int, int, int, int]]) -> None:
    from extractor.match import forms_of
    from extractor.pipeline.out.dedupe import merge_bucket
    from extractor.pipeline.out.write import PARTIAL_SCHEMA

    cols: dict[str, list[Any]] = {k: [] for k in PARTIAL_SCHEMA.names}
    for i, (shard, doc, d, count, offset, form) in enumerate(rows):
        for k, v in (
            ("shard", shard),
            ("doc", doc),
            ("source", f"s{shard % 2}"),
            ("record", _RECORDS[doc]),
            ("doi", f"10.1/{d}"),
            ("count", count),
            ("first_offset", offset),
            ("first_line", offset // 7 + 1 if doc % 2 else None),
            ("first_raw", f"raw{i}"),
            ("forms", 1 << form),
        ):
            cols[k].append(v)
    mentions, dois = merge_bucket(pa.Table.from_pydict(cols, schema=PARTIAL_SCHEMA))
    want: dict[tuple[Any, ...], dict[str, Any]] = {}
    for i in sorted(range(len(rows)), key=lambda i: cols["first_offset"][i]):  # stable: row order on ties
        key = (cols["source"][i], cols["record"][i], cols["doi"][i])
        w = want.setdefault(key, {"count": 0, "forms": 0, "place": (9, 9), "first": i})
        w["count"] += cols["count"][i]
        w["forms"] |= cols["forms"][i]
        w["place"] = min(w["place"], (cols["shard"][i], cols["doc"][i]))
    expected = sorted(
        (
            (*w["place"], cols["first_offset"][w["first"]], k[2]),
            {
                "source": k[0],
                "record": k[1],
                "doi": k[2],
                "count": w["count"],
                "first_raw": cols["first_raw"][w["first"]],
                "first_line": cols["first_line"][w["first"]],
                "forms": forms_of(w["forms"]),
            },
        )
        for k, w in want.items()
    )
    got = [
        {k: m[k] for k in ("source", "record", "doi", "count", "first_raw", "first_line", "forms")}
        for m in mentions.to_pylist()
    ]
    assert got == [e for _k, e in expected]
    per_doi: dict[str, list[int]] = {}
    first_source: dict[str, str] = {}
    for e in got:
        per_doi.setdefault(e["doi"], []).append(e["count"])
        first_source.setdefault(e["doi"], e["source"])
    assert [
        (d["doi"], d["occurrences"], d["documents"], d["first_source"]) for d in dois.to_pylist()
    ] == sorted((d, sum(c), len(c), first_source[d]) for d, c in per_doi.items())


def _partial(n: int, first: int, meta: list[str]) -> pa.RecordBatch:
    from extractor.pipeline.out.write import PARTIAL_SCHEMA, with_meta

    cols: dict[str, list[Any]] = {
        "shard": [0] * n,
        "doc": list(range(n)),
        "source": ["a.txt"] * n,
        "record": [None] * n,
        "doi": [f"10.1000/{first + i}" for i in range(n)],
        "count": [1] * n,
        "first_offset": list(range(n)),
        "first_line": [None] * n,
        "first_raw": ["doi:x"] * n,
        "forms": [1] * n,
    }
    return pa.RecordBatch.from_pydict(
        cols | {m: ["v"] * n for m in meta}, schema=with_meta(PARTIAL_SCHEMA, meta)
    )


def test_a_buckets_rows_are_read_from_their_place_in_the_part_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The layout a part file's writing returns holds each bucket's byte range; the merge reads
    the bucket's messages there, the first bucket's behind the file's magic and schema, with no
    footer to open and parse. Where the schema is not the file's, the footer is read."""
    from extractor.pipeline.out import parts
    from extractor.pipeline.out.write import PARTIAL_SCHEMA, with_meta

    schema = with_meta(PARTIAL_SCHEMA, ["url"])
    path = str(tmp_path / "p.arrow")
    layout = parts.write_part(
        path, {0: [_partial(3, 0, ["url"]), _partial(2, 10, ["url"])], 5: [_partial(4, 20, ["url"])]}, schema
    )
    refs = {b: parts.PartRef(path, *where) for b, where in layout.items()}
    by_footer = {b: parts.read_part(ref._replace(start=-1)) for b, ref in refs.items()}
    assert [t.num_rows for t in by_footer.values()] == [5, 4]
    with monkeypatch.context() as m:
        m.setattr(pa, "memory_map", None)  # the footer's way is closed: only the byte range answers
        for b, ref in refs.items():
            assert parts.read_part(ref, schema).equals(by_footer[b])
    other = with_meta(PARTIAL_SCHEMA, ["url", "year"])
    assert parts.read_part(refs[5], other).equals(by_footer[5])
