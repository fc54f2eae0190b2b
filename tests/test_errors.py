"""Honest error classes (errors.py): only a fault of reading an input makes it a rejected input; a
fault of the matcher, the mention table or the writers stops the run, says what failed and where,
and publishes nothing."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest

from extractor.cli import main
from extractor.pipeline.errors import Fatal
from extractor.pipeline.scan import matchers, sinks

from .helpers import run_json, scan_here, table


def _inputs(tmp_path: Path) -> list[Path]:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("doi:10.1000/1 and 10.1000/2\n")
    (tmp_path / "in" / "b.txt").write_text("see 10.1000/3\n")
    return [tmp_path / "in"]


def _boom(*args: Any, **kw: Any) -> Any:
    raise ValueError("a fault of the program")


@pytest.mark.parametrize(
    ("where", "owner", "name"),
    [
        ("the matcher", matchers.CMatcher, "__call__"),
        ("the part writer", sinks.PartWriter, "add_chunk"),
    ],
)
def test_a_fault_of_the_program_stops_the_run_and_publishes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, owner: Any, name: str
) -> None:
    """A ValueError of the matcher (or the writers) is the program's: not a rejected input with
    the run going on, but the run stopped, the fault and the input named, nothing published."""
    monkeypatch.setattr(owner, name, _boom)
    with pytest.raises(Fatal) as caught:
        scan_here(_inputs(tmp_path), tmp_path / "out")
    assert "ValueError: a fault of the program" in str(caught.value)
    assert "a.txt" in str(caught.value) or "b.txt" in str(caught.value)
    assert not (tmp_path / "out" / "_run.json").exists()
    assert not (tmp_path / "out" / "mentions").exists()


def test_the_command_says_the_fault_and_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(matchers.CMatcher, "__call__", _boom)
    rc = main(["scan", str(_inputs(tmp_path)[0]), "-o", str(tmp_path / "out"), "--workers", "1", "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "the program failed while reading" in err and "ValueError: a fault of the program" in err
    assert "rejected" not in err


def test_a_fault_of_reading_an_input_is_still_a_rejected_input(tmp_path: Path) -> None:
    """A corrupt compressed input (its decompressor's fault) is rejected, named, and the other
    inputs read: the run goes on."""
    inputs = _inputs(tmp_path)
    data = bytearray(gzip.compress(b"".join(b"doi:10.1000/x%d\n" % i for i in range(5000))))
    data[len(data) // 2 : len(data) // 2 + 64] = bytes(range(64))  # its deflate stream broken
    (tmp_path / "in" / "c.txt.gz").write_bytes(bytes(data))
    scan_here(inputs, tmp_path / "out")
    rejected = run_json(tmp_path / "out")["rejected"]
    assert [r["source"].endswith("c.txt.gz") for r in rejected] == [True]
    assert {r["doi"] for r in table(tmp_path / "out", "dois")} == {"10.1000/1", "10.1000/2", "10.1000/3"}
