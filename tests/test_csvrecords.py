"""CSV and TSV exports as record files (formats/csvrecords.py): a row a record when the header
names --text-field or --id-field; the text cell searched, or the whole row in the CSV syntax of
spec §7 behind its header; quoted line ends inside a row; a CSV naming neither is one document."""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from extractor import find_dois

from .helpers import run_json, scan_here, table
from .wikidump import MARKUP_DEV

IEEE = Path(MARKUP_DEV) / "docs" / "plain" / "csv__litstudy__resources_ieee.csv"

PAPERS = (
    "id,title,text,year\n"
    'W1,"A, title","Cites doi:10.1000/x1 and\nhttps://doi.org/10.1038/nphys1170 on a second line.",2020\n'
    "W2,Plain,nothing here,2021\n"
    'W3,"Quoted ""title""","Two: 10.5555/a ""10.5555/b""",2022\n'
)


def rows(out: Path) -> list[dict[str, object]]:
    return sorted(table(out, "mentions"), key=lambda r: (r["record"], r["doi"]))


def test_a_text_column_is_searched_row_by_row_named_by_the_id_column(tmp_path: Path) -> None:
    (tmp_path / "papers.csv").write_text(PAPERS)
    scan_here([tmp_path / "papers.csv"], tmp_path / "out", meta_fields=(("year", "year"), ("title", "title")))
    got = [
        (r["record"], r["doi"], r["first_char_offset"], r["year"], r["title"]) for r in rows(tmp_path / "out")
    ]
    assert got == [
        ("W1", "10.1000/x1", 6, "2020", "A, title"),
        ("W1", "10.1038/nphys1170", 25, "2020", "A, title"),
        ("W3", "10.5555/a", 5, "2022", 'Quoted "title"'),
        ("W3", "10.5555/b", 16, "2022", 'Quoted "title"'),
    ]
    run = run_json(tmp_path / "out")
    assert run["documents"] == 3 and run["inputs"] and run["documents_by_syntax"] == {}
    # each cell gives what find_dois gives on it
    text = "Cites doi:10.1000/x1 and\nhttps://doi.org/10.1038/nphys1170 on a second line."
    assert [(h.doi, h.start) for h in find_dois(text)] == [(g[1], g[2]) for g in got[:2]]


def test_rows_without_an_id_column_are_named_by_their_number(tmp_path: Path) -> None:
    (tmp_path / "t.tsv").write_text("title\ttext\nA\tdoi:10.1000/a\nB\tdoi:10.1000/b\n")
    scan_here([tmp_path / "t.tsv"], tmp_path / "out")
    assert [(r["record"], r["doi"]) for r in rows(tmp_path / "out")] == [
        ("row 1", "10.1000/a"),
        ("row 2", "10.1000/b"),
    ]


def test_without_a_text_column_the_whole_row_is_read_in_the_csv_syntax_behind_its_header(
    tmp_path: Path,
) -> None:
    tsv = (
        "EID\tTitle\tDOI\n"
        "2-s1\tPaper one\t10.1016/j.cell.2013.05.039\n"
        '2-s2\t"title with 10.1000/intitle, ""quoted"""\t10.1038/X\n'
    )
    (tmp_path / "scopus.tsv").write_text(tsv)
    scan_here([tmp_path / "scopus.tsv"], tmp_path / "out", id_field="EID")
    got = [(r["record"], r["doi"], r["first_char_offset"], r["forms"]) for r in rows(tmp_path / "out")]
    assert got == [
        (
            "2-s1",
            "10.1016/j.cell.2013.05.039",
            15,
            ["doi-label"],
        ),  # §7: a DOI column's cell, as after a label
        ("2-s2", "10.1000/intitle", 17, ["bare"]),
        ("2-s2", "10.1038/x", 46, ["doi-label"]),
    ]
    # the same file scanned whole (no id column named) is one document in the CSV syntax
    scan_here([tmp_path / "scopus.tsv"], tmp_path / "whole")
    assert {(r["record"], r["doi"]) for r in rows(tmp_path / "whole")} == {
        (None, "10.1016/j.cell.2013.05.039"),
        (None, "10.1000/intitle"),
        (None, "10.1038/x"),
    }


def test_a_real_export_gives_as_records_what_it_gives_whole(tmp_path: Path) -> None:
    if not IEEE.exists():
        pytest.skip("corpora-markup-dev is not beside the project")
    shutil.copyfile(IEEE, tmp_path / "ieee.csv")
    with open(IEEE, "rb") as f, gzip.open(tmp_path / "ieee2.csv.gz", "wb") as g:
        shutil.copyfileobj(f, g)
    scan_here([tmp_path / "ieee.csv"], tmp_path / "whole")
    whole = {r["doi"] for r in rows(tmp_path / "whole")}
    assert len(whole) >= 5
    for name in ("ieee.csv", "ieee2.csv.gz"):
        out = tmp_path / f"rows-{name}"
        scan_here([tmp_path / name], out, id_field="Document Identifier", text_field="Abstract")
        assert {r["record"] for r in rows(out)} <= {"IEEE Journals", "IEEE Conferences", "IEEE Magazines"}
        # whole rows behind the header: the DOI column's cells
        out = tmp_path / f"whole-rows-{name}"
        scan_here([tmp_path / name], out, id_field="Document Title")
        assert {r["doi"] for r in rows(out)} == whole
        assert len({r["record"] for r in rows(out)}) == len(whole)


def test_a_row_whose_quotes_stay_open_is_named_and_the_rows_before_kept(tmp_path: Path) -> None:
    (tmp_path / "cut.csv").write_text('id,text\nA,doi:10.1000/a\nB,"doi:10.1000/b never closed\n')
    scan_here([tmp_path / "cut.csv"], tmp_path / "out")
    assert [(r["record"], r["doi"]) for r in rows(tmp_path / "out")] == [("A", "10.1000/a")]
    (skip,) = run_json(tmp_path / "out")["skipped_records"]
    assert skip["first"] == [{"row": 2, "reason": "a quoted field left open to the end of the file"}]


def test_a_quote_inside_an_unquoted_field_is_a_character_as_spreadsheets_read_it(tmp_path: Path) -> None:
    (tmp_path / "q.csv").write_text('id,text\nA,he said "see doi:10.1000/a\nB,doi:10.1000/b\n')
    scan_here([tmp_path / "q.csv"], tmp_path / "out")
    assert [(r["record"], r["doi"]) for r in rows(tmp_path / "out")] == [
        ("A", "10.1000/a"),
        ("B", "10.1000/b"),
    ]


def test_find_reads_csv_records_by_the_fields_named(tmp_path: Path) -> None:
    (tmp_path / "papers.csv").write_text(PAPERS)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "extractor.cli",
            "find",
            "--text-field",
            "title",
            str(tmp_path / "papers.csv"),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1 and proc.stdout == ""  # no DOI in the titles
    proc = subprocess.run(
        [sys.executable, "-m", "extractor.cli", "find", str(tmp_path / "papers.csv")],
        capture_output=True,
        text=True,
    )
    assert proc.stdout.split() == ["10.1000/x1", "10.1038/nphys1170", "10.5555/a", "10.5555/b"]
