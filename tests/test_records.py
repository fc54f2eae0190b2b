"""Record files as datasets keep them (issue 11): compressed JSONL found by content, nested
fields by dotted path, a record without an id named by its line or row, a text field that no
record has an error for that input."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import zstandard

from .helpers import run_json, scan_here, table


def mentions(out: Path) -> list[tuple[str, str | None, str]]:
    return sorted((Path(m["source"]).name, m["record"], m["doi"]) for m in table(out, "mentions"))


def test_dolma_style_json_gz_is_read_as_records_by_content(tmp_path: Path) -> None:
    """dolma and datatrove keep JSONL as *.json.gz: found by a first line that is an object with
    the text field; a one-object API response without that field stays text."""
    docs = [{"id": "d1", "text": "cites doi:10.1000/1"}, {"id": "d2", "text": "cites 10.1000/2"}]
    (tmp_path / "part-0000.json.gz").write_bytes(
        gzip.compress("".join(json.dumps(d) + "\n" for d in docs).encode())
    )
    (tmp_path / "shard.json.zst").write_bytes(
        zstandard.ZstdCompressor().compress(
            (json.dumps({"id": "z", "text": "doi:10.1000/3"}) + "\n").encode()
        )
    )
    (tmp_path / "api.json").write_text(json.dumps({"message": {"DOI": "10.1000/api", "title": "x"}}))
    out = tmp_path / "out"
    scan_here([tmp_path], out)
    assert mentions(out) == [
        ("api.json", None, "10.1000/api"),
        ("part-0000.json.gz", "d1", "10.1000/1"),
        ("part-0000.json.gz", "d2", "10.1000/2"),
        ("shard.json.zst", "z", "10.1000/3"),
    ]


def test_nested_fields_by_dotted_path_in_jsonl_and_parquet(tmp_path: Path) -> None:
    rows = [
        {"meta": {"text": "doi:10.1000/a", "url": "https://x.example/1"}},
        {"meta": {"text": "doi:10.1000/b", "url": None}},
    ]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "r.parquet")
    out = tmp_path / "out"
    scan_here([tmp_path], out, text_field="meta.text", id_field="meta.url")
    assert mentions(out) == [
        ("r.jsonl", "https://x.example/1", "10.1000/a"),
        ("r.jsonl", "line 2", "10.1000/b"),
        ("r.parquet", "https://x.example/1", "10.1000/a"),
        ("r.parquet", "row 1", "10.1000/b"),
    ]


def test_records_without_ids_are_never_merged(tmp_path: Path) -> None:
    """Issue 11: two id-less records of one file collapsed into one (file, NULL) mention row,
    and a DOI cited by both showed documents 1."""
    lines = [json.dumps({"text": f"doc {i} cites doi:10.1000/shared and 10.1000/own{i}"}) for i in range(40)]
    f = tmp_path / "big.jsonl"
    f.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    # small shards: byte ranges of the file, each naming its lines from the file's first line
    scan_here([f], out, shard_size=600)
    assert run_json(out)["shards"] > 3
    rows = table(out, "mentions")
    assert sorted({r["record"] for r in rows}) == sorted(f"line {i + 1}" for i in range(40))
    own = {r["record"]: r["doi"] for r in rows if r["doi"] != "10.1000/shared"}
    assert all(own[f"line {i + 1}"] == f"10.1000/own{i}" for i in range(40))
    (shared,) = [d for d in table(out, "dois") if d["doi"] == "10.1000/shared"]
    assert shared["documents"] == 40 and shared["occurrences"] == 40


def test_a_text_field_no_record_has_rejects_the_input(tmp_path: Path) -> None:
    (tmp_path / "r.jsonl").write_text(json.dumps({"body": "doi:10.1000/x"}) + "\n")
    (tmp_path / "ok.jsonl").write_text(
        json.dumps({"text": "doi:10.1000/ok"}) + "\n" + json.dumps({"b": 1}) + "\n"
    )
    out = tmp_path / "out"
    scan_here([tmp_path], out)
    run = run_json(out)
    assert [(Path(r["source"]).name, r["reason"]) for r in run["rejected"]] == [
        ("r.jsonl", "no record has a 'text' field")
    ]
    assert mentions(out) == [("ok.jsonl", "line 1", "10.1000/ok")]
    assert run["records_skipped"] == 1  # ok.jsonl's second line, named as before
