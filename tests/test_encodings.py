"""Declared encodings (issue 11): UTF-16 and UTF-32 with a byte order mark, and an HTML or XML
declaration of another charset, are read as the text they are — not rejected as binary, not
misread as UTF-8 — by scan and find alike."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from .helpers import run_json, scan_here, table
from .test_cli import run

TEXT = "Références : doi:10.1000/été, voir https://doi.org/10.1000/182\n"
CASES = {
    "utf16le.txt": TEXT.encode("utf-16"),  # BOM, little-endian on this machine
    "utf16be.txt": b"\xfe\xff" + TEXT.encode("utf-16-be"),
    "utf32.txt": TEXT.encode("utf-32"),
    "cp1252.html": '<html><head><meta charset="windows-1252"></head><p>doi:10.1000/€uro</p>'.encode("cp1252"),
    "latin1.xml": '<?xml version="1.0" encoding="ISO-8859-1"?><a><id>10.1000/café</id></a>'.encode("latin-1"),
}
WANT = {
    "utf16le.txt": ["10.1000/été", "10.1000/182"],
    "utf16be.txt": ["10.1000/été", "10.1000/182"],
    "utf32.txt": ["10.1000/été", "10.1000/182"],
    "cp1252.html": ["10.1000/€uro"],
    "latin1.xml": ["10.1000/café"],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_find_reads_a_declared_encoding(tmp_path: Path, name: str) -> None:
    f = tmp_path / name
    f.write_bytes(CASES[name])
    p = run("find", str(f))
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode().split() == WANT[name]


def test_scan_reads_declared_encodings_whole_and_compressed(tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    for name, data in CASES.items():
        (src / name).write_bytes(data)
    (src / "utf16.txt.gz").write_bytes(gzip.compress(CASES["utf16le.txt"]))
    # a UTF-16 file over the shard size is one shard (a byte range would cut its characters)
    big = ("filler line of text\n" * 400 + TEXT).encode("utf-16")
    (src / "big-utf16.txt").write_bytes(big)
    out = tmp_path / "out"
    scan_here([src], out, shard_size=4096)
    run_ = run_json(out)
    assert run_["rejected"] == [] and run_["invalid_bytes_replaced"] == 0
    got: dict[str, list[str]] = {}
    for m in table(out, "mentions"):
        got.setdefault(Path(m["source"]).name, []).append(m["doi"])
    want = {**WANT, "utf16.txt.gz": WANT["utf16le.txt"], "big-utf16.txt": WANT["utf16le.txt"]}
    assert {k: sorted(v) for k, v in got.items()} == {k: sorted(v) for k, v in want.items()}
    assert sum(m["count"] for m in table(out, "mentions") if m["source"].endswith("big-utf16.txt")) == 2
