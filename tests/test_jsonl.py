"""Record files (formats/jsonl.py, formats/parquet.py): records named by id, line or row, byte
ranges of a large JSONL file, records too large to hold streamed, odd JSON read as the stdlib
reads it."""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from extractor.match import find_spans
from extractor.match.jsonstr import JsonStringDecoder
from extractor.pipeline import InputType, ScanConfig, ShardResult, ShardSpec
from extractor.pipeline.formats import jsonl
from extractor.pipeline.formats.base import PlanInput
from extractor.pipeline.io import seekgz
from extractor.pipeline.io.decode import clean
from extractor.pipeline.out.parts import shard_paths
from extractor.pipeline.scan.documents import input_docs
from extractor.pipeline.shard import run_shard
from extractor.pipeline.units import no_progress

from .helpers import occurrence_sink, run_json, scan_here, table

BLOCK = 1 << 20


def test_records_without_text_are_named_with_their_line_or_row(tmp_path: Path) -> None:
    """Issue 15: a malformed line, or a text that is not a string, was only a count in _run.json."""
    jl = tmp_path / "recs.jsonl"
    lines = ['{"text": "doi:10.1000/1"}', "[1, 2]", '{"text": null}', '{"text": 5}', "{bad", ""]
    lines += ['{"text": ["a"]}', '{"text": {"x": 1}}', '"just a string"']
    jl.write_text("\n".join(lines) + "\n")
    pqf = tmp_path / "recs.parquet"
    pq.write_table(pa.table({"text": ["10.1000/2", None, "x", None]}), pqf, row_group_size=2)
    out = tmp_path / "out"
    scan_here([jl, pqf], out)
    run = run_json(out)
    assert run["records_skipped"] == 9
    by_source = {sk["source"]: sk for sk in run["skipped_records"]}
    assert by_source[str(jl)]["records"] == 7
    assert by_source[str(jl)]["first"] == [
        {"line": 2, "reason": "a JSON array, not an object"},
        {"line": 3, "reason": "'text' is a JSON null, not a string"},
        {"line": 4, "reason": "'text' is a JSON number, not a string"},
        {"line": 5, "reason": "not valid JSON"},
        {"line": 7, "reason": "'text' is a JSON array, not a string"},
    ]
    assert by_source[str(pqf)] == {
        "source": str(pqf),
        "records": 2,
        "first": [{"row": 1, "reason": "'text' is null"}, {"row": 3, "reason": "'text' is null"}],
    }
    assert {m["doi"] for m in table(out, "mentions")} == {"10.1000/1", "10.1000/2"}


@pytest.mark.parametrize("first_has_id", [True, False])
def test_a_big_jsonl_file_is_read_in_byte_ranges(
    tmp_path: Path, first_has_id: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 10: an uncompressed JSONL file larger than the shard size is split at line ends like
    text, so several workers share it; the output equals one shard's, skipped records and
    records without an id keep their line numbers in the file (counted by the planner, or by a
    shard itself when the first record has an id), and a gzip copy gives the same rows, in the
    same ranges of its text (io/seekgz.py)."""
    rng = random.Random(5)
    lines = []
    for i in range(6000):
        if i % 997 == 500:
            lines.append("{broken json")
            continue
        body = " ".join(
            rng.choice(["see", "doi:10.1000/182", f"10.1234/r{i}", "Étude", "x"]) for _ in range(12)
        )
        named = i % 7 if i else first_has_id  # every seventh record named by its line
        record = {"id": f"r{i}", "text": body} if named else {"text": body}
        lines.append(json.dumps(record, ensure_ascii=i % 2 == 0))
    lines[3000] = json.dumps({"id": "huge", "text": "10.5555/long " + "y" * 200_000})  # past a cut
    data = ("\n".join(lines) + "\n").encode()
    jl = tmp_path / "big.jsonl"
    jl.write_bytes(data)
    # the shards count their own lines whatever their number (only a file of few ranges, else)
    monkeypatch.setattr(jsonl, "LAZY_LINE_RANGES", 1000)
    whole, split = tmp_path / "whole", tmp_path / "split"
    scan_here([jl], whole, occurrences=True)
    assert run_json(whole)["shards"] == 1
    scan_here([jl], split, occurrences=True, shard_size=50_000)
    assert run_json(split)["shards"] > 10
    for name in ("mentions", "dois", "occurrences"):
        assert table(split, name) == table(whole, name), name
    broken = [
        {"line": i + 1, "reason": "not valid JSON"} for i in range(len(lines)) if lines[i] == "{broken json"
    ]
    for out in (whole, split):
        assert run_json(out)["records_skipped"] == len(broken)
        assert run_json(out)["skipped_records"][0]["first"] == broken[:5]
        assert run_json(out)["documents"] == 6000 - len(broken)
        assert run_json(out)["bytes_read"] == len(data)
    gz = tmp_path / "big.jsonl.gz"
    gz.write_bytes(gzip.compress(data))
    scan_here([gz], tmp_path / "gz", shard_size=50_000, split_gzip=True)
    # with rapidgzip, the ranges of its text (io/seekgz.py); else one shard
    assert run_json(tmp_path / "gz")["shards"] == (run_json(split)["shards"] if seekgz.available() else 1)
    assert run_json(tmp_path / "gz")["skipped_records"][0]["first"] == broken[:5]
    dois = [(r["doi"], r["occurrences"], r["documents"]) for r in table(whole, "dois")]
    assert [(r["doi"], r["occurrences"], r["documents"]) for r in table(tmp_path / "gz", "dois")] == dois
    unsourced = [{k: v for k, v in r.items() if k != "source"} for r in table(whole, "mentions")]
    assert [
        {k: v for k, v in r.items() if k != "source"} for r in table(tmp_path / "gz", "mentions")
    ] == unsourced


def test_jsonl_and_parquet_records(tmp_path: Path) -> None:
    recs = [
        {"id": "a", "text": "doi:10.1000/182 and doi:10.1000/182"},
        {"id": 7, "text": "<p>10.1038/nature12373</p>"},
        {"id": "c", "body": "no text field"},
        {"id": "d", "text": "nothing here"},
    ]
    jl = tmp_path / "docs.jsonl"
    jl.write_text("\n".join(json.dumps(r) for r in recs) + "\nnot json\n")
    pqf = tmp_path / "docs.parquet"
    pq.write_table(pa.table({"doc_id": ["p1", "p2"], "content": ["https://doi.org/10.1000/182", "x"]}), pqf)
    out = tmp_path / "out"
    scan_here([jl], out)
    rows = [(m["record"], m["doi"], m["count"]) for m in table(out, "mentions")]
    assert sorted(rows) == [("7", "10.1038/nature12373", 1), ("a", "10.1000/182", 2)]
    assert run_json(out)["records_skipped"] == 2
    assert run_json(out)["skipped_records"] == [
        {
            "source": str(jl),
            "records": 2,
            "first": [{"line": 3, "reason": "no 'text' field"}, {"line": 5, "reason": "not valid JSON"}],
        }
    ]
    out2 = tmp_path / "out2"
    scan_here([pqf], out2, text_field="content", id_field="doc_id")
    assert [(m["record"], m["doi"], m["first_char_offset"]) for m in table(out2, "mentions")] == [
        ("p1", "10.1000/182", 0)
    ]


def test_enormous_jsonl_record_is_streamed_not_held(tmp_path: Path) -> None:
    filler = "lorem ipsum dolor – sit amet, consectetur adipiscing élit 😀 " * 40  # offsets count characters
    parts = [filler + f"doi:10.1234\\/rec.{i}\\n" for i in range(400)]  # JSON escapes inside
    big_text = "".join(parts)
    f = tmp_path / "big.jsonl"
    f.write_text(
        '{"id": "first", "text": "' + big_text + '"}\n'
        '{"text": "' + big_text + '", "id": 99}\n'
        '{"id": "small", "text": "doi:10.1234/small"}\n',
        encoding="utf-8",
    )
    config = ScanConfig(out=str(tmp_path / "out"), buckets=4, occurrences=True, max_record_bytes=1 << 20)
    spec = ShardSpec(0, str(f), str(f), InputType("jsonl"), 0, -1, "k")
    res = run_shard(spec, config, no_progress)
    assert res.error is None and res.documents == 3 and res.skipped_records == 0
    occ = pq.read_table(shard_paths(config.out, spec).occurrence_file(0)).to_pylist()
    by_record: dict[str | None, list[dict[str, Any]]] = {}
    for row in occ:
        by_record.setdefault(row["record"], []).append(row)
    assert set(by_record) == {"first", "99", "small"}
    decoded = json.loads('"' + big_text + '"')
    for rid in ("first", "99"):
        rows = by_record[rid]
        assert [r["doi"] for r in rows] == [f"10.1234/rec.{i}" for i in range(400)]
        assert all(decoded[r["offset"] :].startswith(r["raw"]) for r in rows)  # character offsets


def test_lone_surrogates_in_json_records_are_not_fatal(tmp_path: Path) -> None:
    f = tmp_path / "r.jsonl"
    f.write_text('{"id": "a\\udce9", "text": "doi:10.1000/x\\udce9y and doi:10.1000/182 \\ud800"}\n')
    out = tmp_path / "out"
    scan_here([f], out, occurrences=True)
    rows = table(out, "occurrences")
    assert [(r["record"], r["doi"]) for r in rows] == [
        ("a\\xe9", "10.1000/x"),  # spec §4: U+FFFD ends a DOI
        ("a\\xe9", "10.1000/182"),
    ]


def test_json_ld_surrogate_pair_is_one_character_in_scan_and_find(tmp_path: Path) -> None:
    """Issue 9: the HTML view of JSON-LD decodes escapes as the JSONL reader does; a surrogate
    pair is one character, never two lone surrogates that reject the page (U+20000, a letter: an
    emoji would end the DOI, spec §4)."""
    page = (
        '<html><head><script type="application/ld+json">{"@id": "https://doi.org/10.1000/smile\\ud840\\udc00",'
        ' "sameAs": "doi:10.1000/lone\\ud83dx"}</script></head><body><p>text</p></body></html>'
    )
    f = tmp_path / "page.html"
    f.write_text(page)
    out = tmp_path / "out"
    report = scan_here([f], out, occurrences=True)
    assert report.rejected == []
    assert {o["doi"] for o in table(out, "occurrences")} == {"10.1000/smile\U00020000", "10.1000/lone"}
    from extractor import find_dois

    assert [h.doi for h in find_dois(page, "html")] == ["10.1000/smile\U00020000", "10.1000/lone"]

    p = subprocess.run(
        [sys.executable, "-m", "extractor.cli", "find", str(f)], capture_output=True, text=True, timeout=60
    )
    assert p.returncode == 0 and p.stdout.split() == ["10.1000/smile\U00020000", "10.1000/lone"]


def test_record_offsets_count_characters_like_the_reference(tmp_path: Path) -> None:
    texts = [
        "Étude – voir doi:10.1000/1 et “10.1000/ÄB”.",
        "😀 " * 50 + "https://doi.org/10.1000/2?x=1",
        "x\udcff 10.1000/3 \u00a010.1000/4",
        "no DOI here",
    ]
    (tmp_path / "r.jsonl").write_text(
        "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(texts))
    )
    spec = ShardSpec(0, "r.jsonl", str(tmp_path / "r.jsonl"), InputType("jsonl"))
    config = ScanConfig(out=str(tmp_path), buckets=4, occurrences=True)
    occ = occurrence_sink(tmp_path)
    list(input_docs(spec, config, no_progress, ShardResult(0), occ))
    want = [
        (str(i), s.start, clean(t[s.start : s.end])[0], str(s.form), s.doi)
        for i, t in enumerate(texts)
        for s in find_spans(clean(t)[0])
    ]
    c = occ.cols
    got = list(zip(c["record"], c["offset"], c["raw"], c["form"], c["doi"], strict=True))
    assert got == want
    assert len(got) == 5


_JSON_PIECES = [
    "a",
    "é",
    "😀",
    "10.1000/1",
    '\\"',
    "\\\\",
    "\\/",
    "\\n",
    "\\u002F",
    "\\u00e9",
    "\\ud83d\\ude00",
    "\\ude00",
    "\\ud83d",
    "\\uZZZZ",
    " ",
]


@given(
    st.lists(st.sampled_from(_JSON_PIECES), max_size=40),
    st.lists(st.integers(1, 30), min_size=1, max_size=10),
)
def test_streamed_json_string_decodes_like_json_loads(pieces: list[str], cuts: list[int]) -> None:
    body = "".join(pieces)
    raw = body + '"' + ', "id": 1}'
    decoder = JsonStringDecoder()
    out, pos, k = [], 0, 0
    while not decoder.done and pos < len(raw):  # fed in pieces cut anywhere, escapes included
        step = cuts[k % len(cuts)]
        out.append(decoder.feed(raw[pos : pos + step]))
        pos += step
        k += 1
    assert decoder.done and decoder.rest + raw[pos:] == ', "id": 1}'
    # json.loads is the reference, with lone or broken surrogate escapes read as U+FFFD
    want = json.loads('"' + body + '"') if "\\uZZZZ" not in body else None
    if want is not None:
        want = "".join("\ufffd" if 0xD800 <= ord(c) < 0xE000 else c for c in want)
        assert "".join(out) == want


@given(st.lists(st.sampled_from(_JSON_PIECES), max_size=30))
def test_html_json_view_decodes_like_the_streamed_decoder(pieces: list[str]) -> None:
    """One decoder for both: what the JSON-LD view reads equals what the JSONL reader reads."""
    from extractor.match.html import html_views

    body = "".join(pieces).replace("\\uZZZZ", "")
    page = f'<script type="application/ld+json">{{"x": "{body}"}}</script>'
    decoder = JsonStringDecoder()
    streamed = decoder.feed(body + '"')
    assert html_views(page)[2].text == f'{{"x": "{streamed}"}}\n'


def test_jsonl_record_with_an_invalid_byte_is_read_and_counted(tmp_path: Path) -> None:
    """Issue 15: one invalid UTF-8 byte dropped the whole record, silently."""
    f = tmp_path / "r.jsonl"
    f.write_bytes(b'{"id": "a", "text": "caf\xe9 doi:10.1000/182"}\n{"id": "b", "text": "doi:10.1000/2"}\n')
    out = tmp_path / "out"
    scan_here([f], out)
    assert sorted((m["record"], m["doi"]) for m in table(out, "mentions")) == [
        ("a", "10.1000/182"),
        ("b", "10.1000/2"),
    ]
    run = run_json(out)
    assert run["invalid_bytes_replaced"] == 1 and run["records_skipped"] == 0


def test_streamed_record_reads_its_own_text_not_a_nested_one(tmp_path: Path) -> None:
    """Issue 15: a record over the streaming size whose first "text" key was inside a nested
    object was read from that value; its own text was never searched."""
    body = "lorem ipsum " * 20_000 + "doi:10.1000/own"
    f = tmp_path / "big.jsonl"
    f.write_text(
        json.dumps({"meta": {"id": "m", "text": "doi:10.1000/nested"}, "id": "r1", "text": body})
        + "\n"
        + json.dumps({"text": body, "refs": [{"id": "x"}], "id": "r2"})
        + "\n"
    )
    out = tmp_path / "out"
    scan_here([f], out, max_record_bytes=1 << 16)
    assert sorted((m["record"], m["doi"]) for m in table(out, "mentions")) == [
        ("r1", "10.1000/own"),
        ("r2", "10.1000/own"),
    ]


def test_a_file_of_many_ranges_has_its_lines_counted_at_planning(tmp_path: Path) -> None:
    """A JSONL file whose first record has an id leaves the lines before each range to its
    shards when it has few ranges; with many, the planner counts them in one pass (shards that
    each counted from the file's start would read it over and over)."""
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps({"id": f"r{i}", "text": "x" * 50}) + "\n" for i in range(2000)))
    lines_per_range = []
    for shard_size in (40_000, 4_000):
        with open(path, "rb") as f:
            head = f.read(1 << 16)
            config = ScanConfig(out="", shard_size=shard_size)
            planned = jsonl.plan(
                PlanInput(f, str(path), str(path), path.stat().st_size, InputType("jsonl"), head, config)
            )
        lines_per_range.append(list(planned.line0))
    few, many = lines_per_range
    assert 1 < len(few) <= jsonl.LAZY_LINE_RANGES and set(few) == {-1}
    assert len(many) > jsonl.LAZY_LINE_RANGES and many[0] == 0 and many == sorted(set(many))
