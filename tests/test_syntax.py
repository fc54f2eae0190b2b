"""Source syntaxes (spec §7) through the product: told by a file's name or a text's head, forced
by --syntax, read by scan, find, score and extract_batch alike, and reported (find's JSONL,
_run.json). The rules themselves are rows of tests/spec_table.py (SYNTAX)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from extractor import find_dois
from extractor.arrow import extract_batch
from extractor.match.syntaxes import SYNTAX_TABLE, detect_syntax, syntax_of

from .helpers import run_json, scan_here, table

WIKITEXT = (
    "'''Anarchism''' is a political philosophy.<ref>{{cite journal |last=Long |doi=10.2307/446800"
    "|publisher=University |title=X}}</ref> See {{doi|10.1073/pnas.95.12.6705}}.\n"
    "== References ==\n{{Reflist}}\n[[Category:Anarchism]]\n"
)
BIBTEX = "@article{k,\n  doi = {10.1007/978-3-319-24277-4\\_9},\n  title = {On {DNA}},\n}\n"
CSV = "Authors,Title,Year,DOI\nA. B.,On x,2004,10.1371/journal.pbio.0020334\nC. D.,On y,2011,10.5/100\n"
EXPECTED = {
    "page.wikitext": ["10.2307/446800", "10.1073/pnas.95.12.6705"],
    "refs.bib": ["10.1007/978-3-319-24277-4_9"],
    "export.csv": ["10.1371/journal.pbio.0020334", "10.5/100"],
}
TEXTS = {"page.wikitext": WIKITEXT, "refs.bib": BIBTEX, "export.csv": CSV}


def test_every_syntax_is_told_by_each_of_its_names() -> None:
    for name, s in SYNTAX_TABLE.items():
        assert syntax_of(name) is s
        for suffix in s.suffixes:
            assert detect_syntax(f"dir/File{suffix.upper()}") == name
            assert detect_syntax(f"x{suffix}.gz") == name
    assert detect_syntax("notes.txt") is None and detect_syntax("page.html") is None
    with pytest.raises(ValueError, match="syntax must be one of"):
        syntax_of("rtf")


@pytest.mark.parametrize(
    ("head", "syntax"),
    [
        (WIKITEXT, "wikitext"),
        (BIBTEX, "bibtex"),
        ("\\documentclass{article}\n\\begin{document}\nsee \\doi{10.1/x}", "latex"),
        ('{"message": {"DOI": "10.1000/182"}}', "json"),
        ("A paragraph of prose citing 10.1000/182 (a {{curly}} word, 50% of it).", None),
    ],
)
def test_a_syntax_is_told_by_its_head_where_no_name_tells(head: str, syntax: str | None) -> None:
    assert detect_syntax(None, head) == syntax


def test_the_prose_reading_runs_on_where_the_syntax_stops() -> None:
    """What §7 mends: read as prose, the template separator and the field delimiter are taken
    into the DOI (the symptom of the issue); read in the syntax, they end it."""
    assert [h.doi for h in find_dois("{{cite|doi=10.1038/tp.2013.61|first=G}}")] == [
        "10.1038/tp.2013.61|first=g"
    ]
    assert [h.doi for h in find_dois("{{cite|doi=10.1038/tp.2013.61|first=G}}", syntax="wikitext")] == [
        "10.1038/tp.2013.61"
    ]
    assert [h.doi for h in find_dois("doi,10.1000/188,title")] == ["10.1000/188,title"]


def test_scan_reads_each_file_in_its_syntax_and_reports_it(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name, text in TEXTS.items():
        (src / name).write_text(text)
    (src / "big.wikitext.gz").write_bytes(gzip.compress((WIKITEXT * 400).encode()))
    (src / "notes.txt").write_text("prose: doi:10.1000/182|x\n")
    out = tmp_path / "out"
    scan_here([src], out, occurrences=True)
    got: dict[str, set[str]] = {}
    for row in table(out, "mentions"):
        got.setdefault(Path(row["source"]).name, set()).add(row["doi"])
    for name, dois in EXPECTED.items():
        assert got[name] == set(dois), name
    assert got["big.wikitext.gz"] == set(EXPECTED["page.wikitext"])
    assert got["notes.txt"] == {"10.1000/182|x"}  # prose: §1–§6 alone
    report = run_json(out)
    assert report["documents_by_syntax"] == {"bibtex": 1, "csv": 1, "wikitext": 2}
    assert report["options"]["syntax"] is None
    for row in table(out, "occurrences"):  # raw text and offsets as in the source
        if not row["source"].endswith(".gz"):
            data = (src / Path(row["source"]).name).read_bytes()
            at = row["byte_offset"]
            assert data[at : at + len(row["raw"].encode())].decode() == row["raw"]


def test_a_forced_syntax_and_none_override_the_names(tmp_path: Path) -> None:
    src = tmp_path / "refs.txt"
    src.write_text("{{cite|doi=10.1038/nn1833|url=x}}\n")
    forced, prose = tmp_path / "forced", tmp_path / "prose"
    scan_here([src], forced, syntax="wikitext")
    scan_here([tmp_path / "refs.txt"], prose, syntax="none")
    assert [r["doi"] for r in table(forced, "mentions")] == ["10.1038/nn1833"]
    assert [r["doi"] for r in table(prose, "mentions")] == ["10.1038/nn1833|url=x"]


def test_a_large_file_split_in_ranges_is_read_in_its_syntax_in_every_range(tmp_path: Path) -> None:
    """The syntax is decided once for the file at planning, as its kind is: a range further on
    has no head of its own to tell it by."""
    src = tmp_path / "big.wikitext"
    src.write_text(WIKITEXT * 3000)
    out = tmp_path / "out"
    scan_here([src], out, shard_size=64 << 10, map_min=0)
    assert run_json(out)["shards"] > 3
    assert {r["doi"] for r in table(out, "mentions")} == set(EXPECTED["page.wikitext"])


def test_find_reads_syntaxes_by_name_and_reports_them(tmp_path: Path) -> None:
    for name, text in TEXTS.items():
        (tmp_path / name).write_text(text)
    cmd = [sys.executable, "-m", "extractor.cli", "find", "--format", "jsonl"]
    p = subprocess.run(
        [*cmd, *sorted(str(tmp_path / n) for n in TEXTS)], capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 0, p.stderr
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    for name, dois in EXPECTED.items():
        mine = [r for r in rows if r["source"].endswith(name)]
        assert [r["doi"] for r in mine] == dois
        assert {r["syntax"] for r in mine} == {Path(name).suffix.lstrip(".").replace("bib", "bibtex")}
    p = subprocess.run(
        [*cmd, "--syntax", "none", str(tmp_path / "export.csv")], capture_output=True, text=True, timeout=120
    )
    prose = [json.loads(line) for line in p.stdout.splitlines()]
    # as prose, 10.5/100 (a registrant of one digit) is no DOI: only a DOI column's label makes it one
    assert [r["doi"] for r in prose] == ["10.1371/journal.pbio.0020334"]
    assert all("syntax" not in r for r in prose)


def test_extract_batch_reads_each_text_in_its_syntax() -> None:
    batch = pa.table({"id": ["w", "b", "p"], "text": [WIKITEXT, BIBTEX, "doi:10.1000/1|x"]})
    got = extract_batch(batch)
    by_id: dict[str, list[str]] = {}
    for row in got.to_pylist():
        by_id.setdefault(row["id"], []).append(row["doi"])
    assert by_id == {"w": EXPECTED["page.wikitext"], "b": EXPECTED["refs.bib"], "p": ["10.1000/1|x"]}
    forced = extract_batch(pa.table({"id": ["p"], "text": ["doi:10.1000/1|x"]}), syntax="wikitext")
    assert forced.column("doi").to_pylist() == ["10.1000/1|x"]  # no template: "|" is text
    with pytest.raises(ValueError, match="syntax must be one of"):
        extract_batch(batch, syntax="rtf")


@pytest.mark.parametrize("syntax", sorted(SYNTAX_TABLE))
def test_hostile_input_is_read_in_linear_time_in_every_syntax(syntax: str) -> None:
    """Runs of each syntax's own delimiters and escapes, 100 KB each: read once, in time linear
    in the text (a field end looked for to the text's end for every field, or an emphasis mark
    looking for its twin across a run, made these quadratic; times in benchmarks/, never
    asserted)."""
    for piece in ("{{", "|", "}}", "[[", "''", "\\_", "{", '"', "%", ",", "_10.1", "_10.1_", "@article{"):
        text = piece * (100_000 // len(piece)) + " doi:10.1000/182"
        assert [h.doi for h in find_dois(text, syntax=syntax)][-1:] in (["10.1000/182"], []), (syntax, piece)


def test_a_head_without_a_syntax_s_marks_is_prose_to_its_sniff() -> None:
    """Each sniff says no to a head holding none of its row's marks (syntaxes.Marks), so that
    detect_syntax and the C batch may pass such a head by the marks alone; and the C table of
    marks is the registry's (native checks it at import)."""
    from extractor.match import native
    from extractor.match.syntaxes import MARKS, SYNTAX_TABLE, Marks, marked

    heads = [
        "{{cite journal|doi=10.1/x}}\n== Refs ==\n[[Category:X]]",
        "\\documentclass{article}\n\\begin{thebibliography}",
        "@article{k,\n  doi = {10.1/x}\n}",
        '[{"doi": "10.1/x"}]',
        '{"a": "b"}',
    ]
    for row in SYNTAX_TABLE.values():
        if row.sniff is None:
            assert row.marks is None, row.name
            continue
        assert isinstance(row.marks, Marks), row.name
        for head in heads:
            if row.sniff(head):
                assert marked(head), (row.name, head)
        # take the row's marks out of a head it says yes to: it says no
        for head in heads:
            if row.sniff(head):
                bare = head
                for c in row.marks.opens + row.marks.anywhere + row.marks.line_start + row.marks.pair:
                    bare = bare.replace(c, " ")
                assert not row.sniff(bare), (row.name, bare)
    assert MARKS.pair and native.table_differences() == []  # syntax_marks among the tables


@given(
    st.lists(
        st.sampled_from(
            ["a", " ", "\n", "\t", "\x1c", "\xa0", "\u3000", "é", "@", "[", "{", "{{", "\\", "x@y", "\ufffd"]
        ),
        max_size=12,
    ).map("".join)
    | st.text(max_size=40),
    st.binary(max_size=3),
)
def test_marks_read_on_bytes_are_the_decoded_texts(text: str, junk: bytes) -> None:
    """marked_bytes (a file's head, not decoded) says what marked says of the head decoded, or that
    only the decoded text can tell: Unicode white space, invalid bytes and marks mixed."""
    from extractor.match.syntaxes import marked, marked_bytes

    data = text.encode("utf-8") + junk
    said = marked_bytes(data)
    assert said is None or said == marked(data.decode("utf-8", "replace"))


@given(
    st.lists(st.sampled_from(["a", "{", "}", "{{", "\n", "é", "\\", " "]), max_size=30).map("".join)
    | st.text(max_size=40)
)
def test_a_run_of_two_is_found_wherever_it_stands(text: str) -> None:
    """The syntaxes' runs of two (wikitext's `{{`) are looked for by their first character and a
    regular expression's search: they are found exactly where `in` finds them, in a text and in
    its bytes, at its start, its end and between other marks."""
    from extractor.match.syntaxes import _PAIR_TESTS, _PAIR_TESTS_BYTES, _PAIRS, _holds_pair

    for head in (text, "x" * 5000 + text, text + "{"):
        assert _holds_pair(head, _PAIR_TESTS) == any(p in head for p in _PAIRS)
        data = head.encode()
        assert _holds_pair(data, _PAIR_TESTS_BYTES) == any(p.encode() in data for p in _PAIRS)


def test_marks_read_on_bytes_decide_most_heads() -> None:
    """A head with none of the marks, or an e-mail's @ after a word, is prose without decoding;
    a mark is told at once."""
    from extractor.match.syntaxes import marked_bytes

    assert marked_bytes("Résumé of the work, see author@example.org, 10.1000/1 [2]\n".encode()) is False
    assert marked_bytes(b"  @article{x, doi = {10.1/2}}") is True
    assert marked_bytes(b'\n  {"a": 1}') is True
    assert marked_bytes("\u00a0@x".encode()) is None  # U+00A0 is white space to str.isspace


@pytest.mark.parametrize(
    ("head", "want"),
    [
        ("x" * 70 + "\n@article{a,", True),  # the line before is another line's
        ("x" * 70 + "\n" + " " * 40 + "@article{a,", True),  # white space past the few read first
        ("x" * 70 + " " * 40 + "@media print", False),  # a page's long line: mid-line
        ("\u3000" * 30 + "@x", True),  # Unicode white space before it, as str.isspace says
        ("é" * 30 + " @x", False),
        ("@ at the start", True),
    ],
)
def test_a_line_start_mark_is_told_by_its_whole_line(head: str, want: bool) -> None:
    """A line-start mark (BibTeX's @) is one where nothing but white space stands before it on its
    line, however far its line goes back; on bytes, a line of non-ASCII before it is for the
    decoded text to tell."""
    from extractor.match.syntaxes import marked, marked_bytes

    assert marked(head) is want
    said = marked_bytes(head.encode())
    assert said is want or (said is None and not head.isascii())
