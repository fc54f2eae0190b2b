"""Records read in batches (scan/batches.py): one mention table keyed by record and DOI, the texts that
are plainly prose scanned by one C call a run of them, every other read as one record alone.
A batch must give exactly what the records read one by one give."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from extractor.match import native
from extractor.match.syntaxes import MARKS, detect_syntax
from extractor.pipeline.io.decode import HEAD_BYTES, detect_kind
from extractor.pipeline.scan import batches
from extractor.pipeline.table import HAVE_C as TABLE_IN_C
from extractor.pipeline.table import Columns, Mentions, PyMentions

from .helpers import run_json, scan_here, table

needs_c = pytest.mark.skipif(not native.HAVE_C, reason="the C matcher was not built")


def _rows(t: Any) -> tuple[list[tuple[int, str, int]], list[int]]:
    """(document, DOI, count) of each row a table hands out, and the bucket bounds."""
    *cols, docs = t.take_columns(4, True)
    c = Columns(*cols)
    dois = pa.Array.from_buffers(
        pa.string(), c.rows, [None, pa.py_buffer(c.doi_offsets), pa.py_buffer(c.doi_data)]
    )
    counts = memoryview(c.counts).cast("q").tolist()
    places = memoryview(docs).cast("q").tolist()
    return list(zip(places, dois.to_pylist(), counts, strict=True)), c.bounds


@pytest.mark.parametrize("make", [PyMentions, *([Mentions] if TABLE_IN_C else [])])
def test_a_batch_table_keys_its_rows_by_record_and_doi(make: Any) -> None:
    t = make()
    t.add("10.1/a", 5, 0, "10.1/a")
    t.set_doc(1)
    t.add("10.1/a", 3, 0, "10.1/A")
    t.add("10.1/a", 9, 1, "doi:10.1/a")
    t.add("10.1/b", 1, 0, "10.1/b")
    t.set_doc(3)
    t.add("10.1/b", 0, 0, "10.1/b")
    rows, bounds = _rows(t)
    assert sorted(rows) == [(0, "10.1/a", 1), (1, "10.1/a", 2), (1, "10.1/b", 1), (3, "10.1/b", 1)]
    # grouped by the DOI's bucket, first seen within each: a record's rows in record order
    assert bounds[-1] == 4 and rows.index((0, "10.1/a", 1)) < rows.index((1, "10.1/a", 2))
    assert len(t) == 0
    t.add("10.1/a", 0, 0, "10.1/a")  # emptied: the next batch's first record is document 0
    assert _rows(t)[0] == [(0, "10.1/a", 1)]


@pytest.mark.skipif(not TABLE_IN_C, reason="the C table was not built")
def test_the_c_batch_table_gives_the_python_ones_buffers() -> None:
    tables = [Mentions(), PyMentions()]
    for t in tables:
        for doc in range(50):
            t.set_doc(doc)
            for j in range(doc % 7 + 1):
                t.add(f"10.{1000 + j}/x{doc % 5}", doc * 10 + j, j % 3, f"10.{1000 + j}/X{doc % 5}")
    assert tables[0].take_columns(8, True) == tables[1].take_columns(8, True)


# Pieces of record texts that the sniffs of decode.detect_kind and syntaxes.detect_syntax react
# to, and look-alikes of them that prose has ("p < 0.05", an e-mail address, "[1]").
_PIECES = [
    "<!doctype html>",
    "<html>",
    "<p>",
    "<a href='x'>",
    "<?xml version='1.0'?>",
    "<br/>",
    "p < 0.05",
    "a<b",
    "<",
    "{{cite journal |doi=10.1/x}}",
    "== Refs ==",
    "[[Category:X]]",
    "{x}",
    "{",
    "\\section{Intro}",
    "\\documentclass{article}",
    "\\",
    "@article{k,",
    "@book {k,",
    "\n@misc{k,",
    "user@example.org",
    "@",
    ' {"a": "b"}',
    '["x"]',
    "[1]",
    "\x0c",
    "\n",
    " ",
    "\t",
    "\xa0",
    "\u2003",
    "é",
    "text",
    "10.1234/abc",
]
# and each mark of the registry's syntaxes (syntaxes.MARKS), where it counts and where it does
# not: a syntax added with marks of its own is read here with no list to extend
_PIECES += [
    *MARKS.opens,
    *(" " + c for c in MARKS.opens),
    *("x" + c for c in MARKS.opens),
    *MARKS.anywhere,
    *MARKS.pair.split(),
    *(p[0] for p in MARKS.pair.split()),
    *("\n" + c for c in MARKS.line_start),
    *("x" + c for c in MARKS.line_start),
]


@needs_c
@given(st.lists(st.sampled_from(_PIECES), max_size=8))
def test_a_text_read_in_c_as_prose_is_prose_to_every_sniff(pieces: list[str]) -> None:
    text = "".join(pieces)
    for sniff_kind, sniff_syntax in ((True, True), (True, False), (False, True)):
        stop, _, _ = native.scan_texts([text], 0, Mentions(), HEAD_BYTES, sniff_kind, sniff_syntax)
        if stop == 1:  # read in C: the Python sniffs must agree that it is prose
            if sniff_kind:
                assert detect_kind(None, text) == "plain"
                assert detect_kind(None, text.encode("utf-8")) == "plain"
            if sniff_syntax:
                assert detect_syntax(None, text) is None


@needs_c
def test_prose_is_read_in_c_and_its_look_alikes_too() -> None:
    """The fast path is taken where it should be: the check is not merely 'never'."""
    for text in ("Results: p < 0.05 (10.1234/a)", "Mail user@example.org [1] {x}", "", "x" * 100):
        assert native.scan_texts([text], 0, Mentions(), HEAD_BYTES, True, True)[0] == 1, text
    for text in (
        "<p>x</p>",
        "x\x0cy",
        "{{cite}}",
        "\\bibitem",
        "@article{k,",
        " lead",
        "[1] first",
        "\ud800",
    ):
        assert native.scan_texts([text], 0, Mentions(), HEAD_BYTES, True, True)[0] == 0, text
    # the head is the first `head` characters: what lies past 4 * head bytes is never read
    assert native.scan_texts(["x" * 31 + "<p>"], 0, Mentions(), 8, True, True)[0] == 0
    assert native.scan_texts(["x" * 32 + "<p>"], 0, Mentions(), 8, True, True)[0] == 1


def _records() -> list[dict[str, Any]]:
    """Records of every sort a batch meets: prose (some with a '<' or an e-mail), HTML, PDF
    text, the syntaxes, an invalid byte, no id, no DOI, a DOI twice, and provenance."""
    texts = [
        "See doi:10.1234/abc and https://doi.org/10.1234/ABC.",
        "p < 0.05 in 10.5555/xyz-1 (n = 3); mail a@b.org",
        "<html><body><p>Ref: <a href='https://doi.org/10.1000%2F182'>x</a></p></body></html>",
        "page one 10.1234/pdf-\x0c\nbreak 10.1234/abc",
        "{{cite journal |doi=10.1038/nature12373 }} and {{cite web}}\n== Refs ==",
        "@article{k, doi = {10.1103/PhysRevLett.1.1}}",
        "\\documentclass{article}\\begin{document}10.1234/tex\\end{document}",
        '{"doi": "10.1234/json", "title": "x"}',
        "bad byte \ud800 then 10.1234/after",
        "no DOI at all",
        "",
        "  leading space 10.1234/space",
        "[1] 10.1234/abc again; 10.9999/" + "x" * 400,
    ]
    out = []
    for i in range(60):
        t = texts[i % len(texts)]
        rec: dict[str, Any] = {"text": t + f" 10.4242/r{i % 9}", "src": f"s{i % 4}" if i % 5 else i}
        if i % 11:
            rec["id"] = f"r{i % 17}"
        out.append(rec)
    return out


def _same_scan(tmp_path: Path, inputs: list[Path], monkeypatch: Any, **config: Any) -> None:
    """A scan whose records are read in batches gives what it gives read one by one (a scan
    with occurrences reads each record alone); several batches, as small ones."""
    monkeypatch.setattr(batches, "BATCH_RECORDS", 7)
    outs = []
    for occurrences in (False, True):
        out = tmp_path / f"out-{occurrences}"
        scan_here(inputs, out, occurrences=occurrences, buckets=4, **config)
        outs.append(out)
    for name in ("mentions", "dois"):
        assert table(outs[0], name) == table(outs[1], name)
    runs = [run_json(o) for o in outs]
    for key in (
        "documents",
        "hits",
        "too_long",
        "invalid_bytes",
        "syntaxes",
        "skipped_records",
        "meta_types",
    ):
        assert runs[0].get(key) == runs[1].get(key), key
    assert runs[0]["hits"] > 60


@pytest.mark.parametrize("meta", [False, True])
@pytest.mark.parametrize("max_mentions", [25_000, 3])
def test_jsonl_records_in_batches_as_one_by_one(
    tmp_path: Path, monkeypatch: Any, meta: bool, max_mentions: int
) -> None:
    """With a small max_mentions a batch's rows are handed on in many parts, after any record."""
    src = tmp_path / "r.jsonl"
    lines = [json.dumps(r) for r in _records()]
    lines.insert(20, '{"id": "x", "text": 5}')  # skipped: no text
    lines.insert(30, json.dumps({"id": "big", "text": "10.1234/big " * 40}))  # streamed (max_record_bytes)
    src.write_text("\n".join(lines) + "\n")
    extra = {"meta_fields": (("src", "src"),), "citing_field": "id"} if meta else {}
    _same_scan(tmp_path, [src], monkeypatch, max_record_bytes=300, max_mentions=max_mentions, **extra)


@pytest.mark.parametrize("text_type", [pa.string(), pa.large_string()])
def test_parquet_records_in_batches_as_one_by_one(tmp_path: Path, monkeypatch: Any, text_type: Any) -> None:
    """A row group's text column read in C from its buffers, each text not plainly prose read
    alone; a row group with a null text read row by row; the rows handed on in many parts."""
    recs = _records()
    texts: list[str | None] = [r["text"].replace("\ud800", "\ufffd") for r in recs]
    texts[40] = None  # its row group (rows 25-49) is read row by row, the null named
    src = tmp_path / "r.parquet"
    pq.write_table(
        pa.table(
            {
                "id": [r.get("id") for r in recs],
                "text": pa.array(texts, text_type),
                "src": [str(r["src"]) for r in recs],
            }
        ),
        src,
        row_group_size=25,
    )
    _same_scan(tmp_path, [src], monkeypatch, meta_fields=(("src", "src"),), max_mentions=2)


@pytest.mark.parametrize("syntax", ["none", "bibtex"])
def test_a_forced_syntax_in_batches_as_one_by_one(tmp_path: Path, monkeypatch: Any, syntax: str) -> None:
    src = tmp_path / "r.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in _records()))
    _same_scan(tmp_path, [src], monkeypatch, syntax=syntax)


def test_a_forced_kind_in_batches_as_one_by_one(tmp_path: Path, monkeypatch: Any) -> None:
    src = tmp_path / "r.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in _records()))
    _same_scan(tmp_path, [src], monkeypatch, kind="pdf")


@needs_c
@pytest.mark.parametrize("text_type", [pa.string(), pa.large_string()])
def test_an_arrow_array_is_read_as_its_strings_are(text_type: Any) -> None:
    """scan_arrow_texts on an array's buffers (a slice of one: its offset counts) reads what
    scan_texts reads of the same strings, and stops where it stops."""
    texts = [r["text"].replace("\ud800", "\ufffd") for r in _records()]
    arr = pa.array(["10.1/skipped"] * 3 + texts, text_type).slice(3)
    head = (HEAD_BYTES, True, True)
    got = []
    for read in ("arrow", "str"):
        t = Mentions()
        i, stops = 0, []
        while i < len(texts):
            if read == "arrow":
                bufs = arr.buffers()
                i, _, _ = native.scan_arrow_texts(
                    bufs[1], bufs[2], arr.offset, len(arr), text_type == pa.large_string(), i, t, *head, 5
                )
            else:
                i, _, _ = native.scan_texts(texts, i, t, *head, 5)
            stops.append(i)
            i += 1
        got.append((stops, _rows(t)))
    assert got[0] == got[1]
    assert got[0][1][0] and all(doc >= 5 for doc, _, _ in got[0][1][0])


@needs_c
@pytest.mark.parametrize("table", [False, True])
def test_an_arrow_batch_lists_each_texts_hits_as_a_scan_of_it_lists_them(table: bool) -> None:
    """scan_arrow_texts with a list of hits (extract_batch's occurrences) lists, text by text,
    what scan() lists of each text alone, offsets in characters, each text's end in `ends`; a
    table given beside it counts the same hits; it stops where a text is not plainly prose."""
    texts = [r["text"].replace("\ud800", "\ufffd") for r in _records()]
    arr = pa.array(["10.1/skipped"] * 2 + texts, pa.string()).slice(2)
    _valid, offsets, data = arr.buffers()
    i, checked = 0, 0
    while i < len(texts):
        hits: list[Any] = []
        ends: list[int] = []
        t = Mentions() if table else None
        stop, reported, _ = native.scan_arrow_texts(
            offsets, data, arr.offset, len(arr), False, i, t, HEAD_BYTES, True, True, 0, 0, hits, ends
        )
        assert len(ends) == stop - i and reported == len(hits) == (ends[-1] if ends else 0)
        last = 0
        for text, end in zip(texts[i:stop], ends, strict=True):
            alone: list[Any] = []
            raw = text.encode()
            native.scan(raw, 0, len(raw), 0, len(raw) + 1, 0, None, alone, chars=True)
            assert hits[last:end] == alone, text
            last, checked = end, checked + bool(alone)
        if t is not None:
            assert sum(count for _doc, _doi, count in _rows(t)[0]) == len(hits)
        i = stop + 1
    assert checked > 3
    with pytest.raises(TypeError):  # no table and no list: nowhere for the hits to go
        native.scan_arrow_texts(offsets, data, arr.offset, len(arr), False, 0, None, HEAD_BYTES, True, True)


@needs_c
def test_a_batch_stops_when_its_table_is_full() -> None:
    """scan_texts stops after the text that brought the table to max_rows rows, that text read:
    a batch of reference lists is handed on in parts, its memory bounded."""
    texts = [" ".join(f"10.1000/r{i}.{j}" for j in range(10)) for i in range(20)]
    t = Mentions()
    stop, reported, _ = native.scan_texts(texts, 0, t, HEAD_BYTES, True, True, 0, 25)
    assert (stop, reported, len(t)) == (3, 30, 30)
    assert native.scan_texts(texts, 0, Mentions(), HEAD_BYTES, True, True, 0, 0)[0] == 20
