"""`find -j N`: several inputs read by N processes, printed exactly as one process prints them
— in the inputs' order, grep's options (-c, -l, -m, -u, --format) and messages about unreadable
inputs alike."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from extractor.cli import find as find_cli
from extractor.cli import main


@pytest.fixture
def inputs(tmp_path: Path) -> list[str]:
    paths = []
    for i in range(7):
        text = "".join(
            f"ref {j}: doi:10.{1000 + i}/x{j} and 10.1038/nphys1170\n" for j in range(200 * (7 - i))
        )
        p = tmp_path / f"f{i}.txt.gz"
        p.write_bytes(gzip.compress(text.encode()))
        paths.append(str(p))
    (tmp_path / "none.txt").write_text("no identifier here\n")
    (tmp_path / "bin.dat").write_bytes(bytes(range(32)) * 100)
    (tmp_path / "recs.jsonl").write_text('{"id": "a", "text": "doi:10.1000/rec"}\n')
    return [
        *paths[:3],
        str(tmp_path / "none.txt"),
        str(tmp_path / "missing.txt"),
        str(tmp_path / "bin.dat"),
        *paths[3:],
        str(tmp_path / "recs.jsonl"),
    ]


@pytest.mark.parametrize(
    "options",
    [[], ["-c"], ["-l"], ["-u", "-m", "5"], ["--format", "tsv"], ["--json"], ["-n"]],
    ids=["plain", "count", "files", "unique-max", "tsv", "json", "line"],
)
def test_parallel_find_prints_what_one_process_prints(
    inputs: list[str], options: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(find_cli, "PARALLEL_MIN", 0)  # small inputs: in the workers all the same
    code_one = main(["find", "-j", "1", *options, *inputs])
    one = capsys.readouterr()
    code_many = main(["find", "-j", "3", *options, *inputs])
    many = capsys.readouterr()
    assert (code_many, many.out, many.err) == (code_one, one.out, one.err)
    assert code_one == 2 and "missing.txt" in one.err and "bin.dat" in one.err
    assert one.out


def test_parallel_find_quiet_stops_at_the_first_doi(
    inputs: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(find_cli, "PARALLEL_MIN", 0)
    assert main(["find", "-j", "3", "-q", *inputs]) == 0
    assert capsys.readouterr().out == ""
    assert main(["find", "-j", "3", "-q", inputs[3]]) == 1  # no DOI in it


def test_small_inputs_are_read_in_this_process(inputs: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pool(*_args: object) -> None:
        raise AssertionError("a pool for inputs under PARALLEL_MIN")

    monkeypatch.setattr(find_cli, "_in_pool", no_pool)
    assert main(["find", "-j", "4", "-c", *inputs]) == 2
