"""A field named by --id-field, --meta-field or --citing-field that no record of an input holds
is said — once per input, on stderr, with the fields its records do have and one differing only
in case — recorded in _run.json's input_notes and shown by `summary`; scan exits 1 with its
results written, find exits 2. A field some record holds is no note, whichever shard read it."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .helpers import run_json, scan_here, table

# PLOS-like records: the citing paper's DOI in "doi", a text citing others.
RECORDS = [
    {"id": f"p{i}", "doi": f"10.1371/journal.pone.{i:07d}", "year": 2017, "text": f"cites doi:10.1000/{i}"}
    for i in range(40)
]


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "extractor.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_a_misspelled_citing_field_is_said_once_and_the_results_are_written(tmp_path: Path) -> None:
    (tmp_path / "plos.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    p = cli("scan", "plos.jsonl", "-o", "out", "--citing-field", "DOI", "--id-field", "ID", cwd=tmp_path)
    assert p.returncode == 1, p.stderr
    said = [line for line in p.stderr.splitlines() if "no record holds" in line]
    assert said == [
        "doi-extract scan: plos.jsonl: no record holds the field 'DOI' named by --citing-field "
        "(its records' fields: id, doi, year, text); did you mean 'doi'? (40 records read)",
        "doi-extract scan: plos.jsonl: no record holds the field 'ID' named by --id-field "
        "(its records' fields: id, doi, year, text); did you mean 'id'? (40 records read)",
    ]
    run = run_json(tmp_path / "out")
    notes = [(n["option"], n["field"], n["rows"]) for n in run["input_notes"]]
    assert notes == [("--citing-field", "DOI", 40), ("--id-field", "ID", 40)]
    assert run["citing_without_doi"] == 40
    assert len(table(tmp_path / "out", "mentions")) == 40  # the results, written all the same
    summary = cli("summary", "out", cwd=tmp_path).stdout
    assert "plos.jsonl: no record holds the field 'DOI' named by --citing-field" in summary
    assert "Records whose --citing-field held no DOI: 40" in summary
    ok = cli("scan", "plos.jsonl", "-o", "ok", "--citing-field", "doi", "--id-field", "id", cwd=tmp_path)
    assert ok.returncode == 0 and "no record holds" not in ok.stderr
    assert run_json(tmp_path / "ok")["input_notes"] == []


def test_a_field_is_checked_over_every_shard_of_an_input(tmp_path: Path) -> None:
    """A JSONL read in byte ranges: a field only the last range's records hold is held by the
    input; one held by none is said once, not once per shard."""
    rows = [dict(r) for r in RECORDS]
    rows[-1]["venue"] = "PLOS ONE"
    f = tmp_path / "plos.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out"
    fields = (("venue", "venue"), ("nosuchfield", "nosuchfield"))
    scan_here([f], out, meta_fields=fields, shard_size=400)
    run = run_json(out)
    assert run["shards"] > 3
    assert [(n["field"], n["rows"]) for n in run["input_notes"]] == [("nosuchfield", 40)]


def test_parquet_and_csv_name_their_columns(tmp_path: Path) -> None:
    pq.write_table(pa.Table.from_pylist(RECORDS), tmp_path / "plos.parquet")
    with open(tmp_path / "scopus.csv", "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(["Authors", "Title", "DOI", "Abstract"])
        w.writerow(["A. B.", "On x", "10.1371/journal.pbio.0020334", "cites 10.1000/182"])
    for name, text in (("plos.parquet", "text"), ("scopus.csv", "Abstract")):
        p = cli("scan", name, "-o", name + ".out", "--text-field", text, "--meta-field", "Year", cwd=tmp_path)
        assert p.returncode == 1, p.stderr
    notes = {
        n["source"]: n["what"]
        for o in ("plos.parquet", "scopus.csv")
        for n in run_json(tmp_path / (o + ".out"))["input_notes"]
    }
    assert notes["plos.parquet"] == (
        "no record holds the field 'Year' named by --meta-field (its records' fields: id, doi, year, text); "
        "did you mean 'year'?"
    )
    assert notes["scopus.csv"] == (
        "no record holds the field 'Year' named by --meta-field (its records' fields: Authors, Title, DOI, Abstract)"
    )


def test_find_exits_2_on_an_id_field_no_record_holds(tmp_path: Path) -> None:
    (tmp_path / "plos.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS[:2]))
    p = cli("find", "--id-field", "ID", "--format", "tsv", "plos.jsonl", cwd=tmp_path)
    assert p.returncode == 2
    assert len(p.stdout.splitlines()) == 2  # its DOIs, printed all the same
    assert p.stderr.strip().endswith(
        "plos.jsonl: no record holds the field 'ID' named by --id-field "
        "(its records' fields: id, doi, year, text); did you mean 'id'?"
    )
    assert cli("find", "--id-field", "id", "plos.jsonl", cwd=tmp_path).returncode == 0
