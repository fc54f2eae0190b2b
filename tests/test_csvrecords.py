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

from .helpers import SCAN, run_json, scan_here, table
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


# A Scopus export's shape: its header, then rows of which two hold an unquoted comma inside a
# field (one field more than the header), so that every cell after it moves one place right.
SCOPUS = (
    "\ufeffAuthors,Title,Year,Source title,DOI,Link,Abstract,Document Type,Source,EID\n"
    'A. One,"Paper one",2020,J. Chem,10.1016/j.one.2020.01.001,https://www.scopus.com/x?eid=2-s2.0-1,"Cites 10.1000/c1.",Article,Scopus,2-s2.0-1\n'
    'B. Two,Paper two, with a comma,2021,J. Bio,10.1038/two.2021.2,https://www.scopus.com/x?eid=2-s2.0-2,"Cites doi:10.1000/c2.",Article,Scopus,2-s2.0-2\n'
    'C. Three,"Paper three",2022,J. Phys,10.1103/three.3,https://www.scopus.com/x?eid=2-s2.0-3,"None.",Article,Scopus,2-s2.0-3\n'
    "D. Four,Paper four, also cut,2022,J. Four,10.1002/four.4,https://www.scopus.com/x?eid=2-s2.0-4,Cites 10.1000/c4.,Review,Scopus,2-s2.0-4\n"
)


def test_a_row_whose_field_count_differs_from_the_header_is_a_record_of_its_own(tmp_path: Path) -> None:
    """A ragged row gives no id or field value by position (its EID column holds `Scopus`): it
    is named by its row, searched whole, counted in _run.json; its neighbours are not merged."""
    (tmp_path / "scopus.csv").write_text(SCOPUS, encoding="utf-8")
    scan_here([tmp_path / "scopus.csv"], tmp_path / "out", id_field="EID", meta_fields=(("year", "Year"),))
    got = {(r["record"], r["doi"], r["year"]) for r in rows(tmp_path / "out")}
    assert got == {
        ("2-s2.0-1", "10.1016/j.one.2020.01.001", "2020"),
        ("2-s2.0-1", "10.1000/c1", "2020"),
        ("row 2", "10.1038/two.2021.2", None),
        ("row 2", "10.1000/c2", None),
        ("2-s2.0-3", "10.1103/three.3", "2022"),
        ("row 4", "10.1002/four.4", None),
        ("row 4", "10.1000/c4", None),
    }
    assert "Scopus" not in {r["record"] for r in rows(tmp_path / "out")}
    (note,) = run_json(tmp_path / "out")["input_notes"]
    assert note["rows"] == 2 and note["first"] == [2, 4] and note["what"].startswith("rows whose field count")
    # with a text column, the ragged row's whole text is searched, not the cell at its place
    scan_here([tmp_path / "scopus.csv"], tmp_path / "abs", id_field="EID", text_field="Abstract")
    pairs = {(r["record"], r["doi"]) for r in rows(tmp_path / "abs")}
    assert ("row 2", "10.1000/c2") in pairs and ("row 4", "10.1038/two.2021.2") not in pairs
    assert ("2-s2.0-3", "10.1103/three.3") not in pairs  # a regular row: its text cell alone


def test_ragged_rows_of_every_shape_are_never_read_by_position(tmp_path: Path) -> None:
    """Where Python's csv and pandas part ways: fewer fields than the header, a trailing
    separator, a quote opened inside an unquoted field, a TSV with a tab in a field."""
    cases = {
        "short.csv": ("id,doi,text\nA,10.1000/a,x\nB,10.1000/b\nC,10.1000/c,z\n", {"row 2"}),
        "trailing.csv": ("id,doi,text\nA,10.1000/a,x,\nB,10.1000/b,y\n", {"row 1"}),
        "inner-quote.csv": ('id,doi,text\nA,10.1000/a,say "a, b" here\nB,10.1000/b,y\n', {"row 1"}),
        "tab.tsv": ("id\tdoi\ttext\nA\t10.1000/a\tx\ty\nB\t10.1000/b\tz\n", {"row 1"}),
    }
    for name, (text, ragged) in cases.items():
        (tmp_path / name).write_text(text)
        out = tmp_path / f"out-{name}"
        scan_here([tmp_path / name], out)
        records = {r["record"] for r in rows(out)}
        assert ragged <= records, name
        # every DOI is found once, under a record that is the row's own id or its number
        dois = [str(r["doi"]) for r in rows(out)]
        assert sorted(dois) == sorted(set(dois)), name
        assert records <= {"A", "B", "C", "row 1", "row 2", "row 3"}, name
        (note,) = run_json(out)["input_notes"]
        assert note["rows"] == len(ragged), name


def test_an_id_held_by_two_rows_is_said(tmp_path: Path) -> None:
    (tmp_path / "d.csv").write_text(
        "id,text\nA,10.1000/a\nB,10.1000/b\nA,10.1000/c\n,10.1000/d\n,10.1000/e\n"
    )
    scan_here([tmp_path / "d.csv"], tmp_path / "out")
    assert {(r["record"], r["doi"]) for r in rows(tmp_path / "out")} == {
        ("A", "10.1000/a"),
        ("B", "10.1000/b"),
        ("A", "10.1000/c"),
        ("row 4", "10.1000/d"),  # an empty id names no record
        ("row 5", "10.1000/e"),
    }
    (note,) = run_json(tmp_path / "out")["input_notes"]
    assert (note["rows"], note["first"]) == (1, [3]) and "'id'" in note["what"]


def test_scan_says_ragged_rows_once_per_input_and_exits_0(tmp_path: Path) -> None:
    (tmp_path / "scopus.csv").write_text(SCOPUS, encoding="utf-8")
    proc = subprocess.run(
        [*SCAN, str(tmp_path / "scopus.csv"), "-o", str(tmp_path / "out"), "--id-field", "EID"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "field count" in line]
    assert len(lines) == 1 and "scopus.csv" in lines[0] and ": 2 (rows 2, 4)" in lines[0], proc.stderr


# Export shapes of other databases: Dimensions writes a line about the data before its header;
# Springer's SearchResults.csv quotes every cell; Lens names its id "Lens ID".
EXPORTS = {
    "dimensions.csv": (
        "\"About the data: Exported on Nov 28, 2026. Criteria: 'DOI extraction'.\"\n"
        '"Rank","Publication ID","DOI","Title","Abstract"\n'
        '"1","pub.1","10.1000/dim.1","One","Cites doi:10.1000/c1."\n'
        '"2","pub.2","10.1000/dim.2","Two, ""quoted""","None."\n',
        "Publication ID",
        {("pub.1", "10.1000/dim.1"), ("pub.1", "10.1000/c1"), ("pub.2", "10.1000/dim.2")},
    ),
    "SearchResults.csv": (
        '"Item Title","Publication Title","Book Series Title","Journal Volume","Journal Issue",'
        '"Item DOI","Authors","Publication Year","URL","Content Type"\n'
        '"A","J. One",,"1","2","10.1007/s00125-019-4859-x","X Y","2019",'
        '"http://link.springer.com/article/10.1007/s00125-019-4859-x","Article"\n'
        '"B","J. Two",,"3",,"10.1007/bf01406719","Z","1970","http://link.springer.com/10.1007/BF01406719","Article"\n',
        "Item DOI",
        {
            ("10.1007/s00125-019-4859-x", "10.1007/s00125-019-4859-x"),
            ("10.1007/bf01406719", "10.1007/bf01406719"),
        },
    ),
    # Web of Science's tab-delimited export, as it names it: DI its DOI column (spec §7), no quoting
    "savedrecs.txt": (
        "\ufeffPT\tAU\tTI\tSO\tDI\tUT\n"
        'J\tSmith, J\tA "quoted" title, cites 10.1000/wos.c\tNATURE\t10.1038/wos.1\tWOS:000001\n'
        "J\tDoe, A\tAnother\tCELL\t10.1016/wos.2\tWOS:000002\n",
        "UT",
        {
            ("WOS:000001", "10.1038/wos.1"),
            ("WOS:000001", "10.1000/wos.c"),
            ("WOS:000002", "10.1016/wos.2"),
        },
    ),
    "lens-export.csv": (
        "Lens ID,Title,DOI,Source Title\n"
        "000-111-222,Paper one,10.1000/lens.1,J\n"
        "000-111-333,Paper two,10.1000/lens.2,J\n",
        "Lens ID",
        {("000-111-222", "10.1000/lens.1"), ("000-111-333", "10.1000/lens.2")},
    ),
}


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_exports_of_other_databases_read_a_record_per_row(tmp_path: Path, name: str) -> None:
    text, id_field, want = EXPORTS[name]
    (tmp_path / name).write_text(text, encoding="utf-8")
    scan_here([tmp_path / name], tmp_path / "out", id_field=id_field)
    assert {(r["record"], r["doi"]) for r in rows(tmp_path / "out")} == want
    run = run_json(tmp_path / "out")
    assert run["input_notes"] == [] and run["rejected"] == []
