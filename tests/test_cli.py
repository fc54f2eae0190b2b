"""`doi-extract find`: grep-like output, formats, kinds and exit codes."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from extractor.pipeline.decode import detect_kind

SAMPLE = Path(__file__).resolve().parent.parent / "corpora" / "sample"


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "extractor.cli", *args], input=stdin, capture_output=True, timeout=120
    )


def test_find_prints_one_canonical_doi_per_hit(tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_text("doi:10.1000/182 and https://doi.org/10.1000/182. Also 10.1038/NATURE12373.\n")
    p = run("find", str(f))
    assert p.returncode == 0
    assert p.stdout.decode().splitlines() == ["10.1000/182", "10.1000/182", "10.1038/nature12373"]
    p = run("find", "--unique", str(f))
    assert p.stdout.decode().splitlines() == ["10.1000/182", "10.1038/nature12373"]


def test_find_exit_status_like_grep(tmp_path: Path) -> None:
    empty = tmp_path / "none.txt"
    empty.write_text("no identifiers here, only 10.5/100 and 10.10.10.10/24\n")
    assert run("find", str(empty)).returncode == 1
    p = run("find", str(tmp_path / "missing.txt"))
    assert p.returncode == 2
    assert b"missing.txt" in p.stderr


def test_find_reads_stdin_and_dash() -> None:
    assert run("find", stdin=b"doi:10.1000/182\n").stdout == b"10.1000/182\n"
    assert run("find", "-", stdin=b"doi:10.1000/182\n").stdout == b"10.1000/182\n"


def test_find_tsv_and_jsonl_formats(tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_text("x https://doi.org/10.1000/182\n")
    tsv = run("find", "--format", "tsv", str(f)).stdout.decode().splitlines()
    assert tsv == [f"{f}\t2\t10.1000/182\tresolver-url\thttps://doi.org/10.1000/182"]
    rec = json.loads(run("find", "--format", "jsonl", str(f)).stdout)
    assert rec == {
        "source": str(f),
        "offset": 2,
        "end": 29,
        "doi": "10.1000/182",
        "form": "resolver-url",
        "raw": "https://doi.org/10.1000/182",
    }


def test_find_reads_compressed_input(tmp_path: Path) -> None:
    f = tmp_path / "a.txt.gz"
    f.write_bytes(gzip.compress(b"doi:10.1000/182\n"))
    assert run("find", str(f)).stdout == b"10.1000/182\n"


def test_find_kind_detection_and_override(tmp_path: Path) -> None:
    html = b"<html><body><p>doi:10.1000/<i>182</i></p></body></html>"
    f = tmp_path / "page.html"
    f.write_bytes(html)
    assert run("find", str(f)).stdout == b"10.1000/182\n"
    g = tmp_path / "page.txt"
    g.write_bytes(html)
    assert run("find", str(g)).stdout == b"10.1000/182\n"  # detected by content
    # Read as plain text, the tag "<i>" ends the DOI before its suffix: nothing is found.
    assert run("find", "--kind", "plain", str(g)).returncode == 1


@pytest.mark.parametrize(
    ("name", "head", "kind"),
    [
        ("a.html", b"", "html"),
        ("a.txt", b"<!DOCTYPE html><html><head>", "html"),
        ("a.pdf.txt", b"plain words", "pdf"),
        ("a.txt", b"page one\x0cpage two", "pdf"),
        ("a.txt", b"just text with a < b and c > d", "plain"),
        (None, b"<p>para</p><div>x</div>", "html"),
        ("article.nxml", b"", "html"),
        (None, b'<?xml version="1.0"?><article>', "html"),
    ],
)
def test_kind_detection(name: str | None, head: bytes, kind: str) -> None:
    assert detect_kind(name, head) == kind


def test_find_on_sample_corpus_matches_its_labels() -> None:
    manifest = [
        json.loads(line) for line in (SAMPLE.parent / "sample.manifest.jsonl").read_text().splitlines()
    ]
    for row in manifest:
        got = set(run("find", str(SAMPLE.parent / row["doc"])).stdout.decode().split())
        assert got == set(row["gold"]), row["doc"]


def test_tsv_fields_escape_tabs_and_line_breaks(tmp_path: Path) -> None:
    """Issue 15: a file name with a tab or a newline broke `find --format tsv`."""
    f = tmp_path / "a\tb\nc.txt"
    f.write_text("see doi:10.1000/182\n")
    p = run("find", "--format", "tsv", str(f))
    assert p.returncode == 0
    lines = p.stdout.decode().splitlines()
    assert len(lines) == 1
    fields = lines[0].split("\t")
    assert fields[0] == str(f).replace("\t", "\\t").replace("\n", "\\n") and fields[2:] == [
        "10.1000/182",
        "doi-label",
        "doi:10.1000/182",
    ]
