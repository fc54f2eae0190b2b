"""`find -j N`: several inputs read by N processes, printed exactly as one process prints them
— in the inputs' order, grep's options (-c, -l, -m, -u, --format) and messages about unreadable
inputs alike."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from extractor.cli import build_parser, main
from extractor.cli import find as find_cli


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


def _large_texts(tmp_path: Path) -> list[str]:
    """Texts cut into many ranges when SPLIT_MIN is small: DOIs on every line in every display
    form, a DOI across a PDF line break and a URL holding one, at every distance from a cut."""
    lines = []
    for j in range(1500):
        lines.append(
            f"ref {j}: doi:10.{1000 + j % 13}/x{j}. https://doi.org/10.1038%2Fnphys{j % 50} "
            f"(10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-{j % 7}) doi:\n10.5555/l{j}\n"
        )  # a label at a line's end names the DOI on the next line: a cut falls between them
    plain = tmp_path / "big.txt"
    plain.write_text("".join(lines))
    pdf = tmp_path / "big.pdf.txt"
    # names broken at line ends, joined by the PDF rules (spec §5): a cut falls between the halves
    pdf.write_text(
        "\x0c".join(f"see doi:10.1016/j.cell.{j}.\n01.002 and 10.1038/nphys-\n{j}\n" for j in range(1500))
    )
    html = tmp_path / "big.html"
    html.write_text(
        "<!doctype html><html><body>"
        + "".join(f"<p><a href='https://doi.org/10.5555/h{j}'>x</a> 10.5555/p{j}</p>\n" for j in range(3000))
        + "</body></html>"
    )
    return [str(plain), str(pdf), str(html)]


def _every_kind(tmp_path: Path) -> list[str]:
    """_large_texts, the plain one gzipped too, and a BibTeX file (a source syntax)."""
    texts = _large_texts(tmp_path)
    gz = tmp_path / "big.txt.gz"
    gz.write_bytes(gzip.compress(Path(texts[0]).read_bytes()))
    bib = tmp_path / "refs.bib"
    bib.write_text("".join(f"@article{{k{j}, doi = {{10.1103/PhysRev.{j}}}}}\n" for j in range(50)))
    return [*texts, str(gz), str(bib)]


@pytest.mark.parametrize(
    "options",
    [[], ["-n"], ["-c"], ["--format", "tsv"], ["--format", "jsonl"], ["-H", "-n"]],
    ids=["plain", "line", "count", "tsv", "jsonl", "named-line"],
)
def test_a_large_file_read_in_ranges_prints_what_one_process_prints(
    tmp_path: Path, options: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(find_cli, "PARALLEL_MIN", 0)
    monkeypatch.setattr(find_cli, "SPLIT_MIN", 4096)
    for path in _large_texts(tmp_path):
        parts = find_cli._parts(path, path, build_parser().parse_args(["find", path]), 2)
        assert len(parts) > 5, path  # read in ranges indeed
        code_one = main(["find", "-j", "1", *options, path])
        one = capsys.readouterr()
        code_many = main(["find", "-j", "2", *options, path])
        many = capsys.readouterr()
        assert (code_many, many.out, many.err) == (code_one, one.out, one.err), path
        assert code_one == 0 and one.out


def test_options_that_read_on_from_the_hits_before_keep_a_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(find_cli, "SPLIT_MIN", 4096)
    path = _large_texts(tmp_path)[0]
    for options in (["-u"], ["-m", "3"], ["-l"], ["-q"]):
        assert find_cli._parts(path, path, build_parser().parse_args(["find", *options, path]), 2) == [None]


def test_line_numbers_of_offsets_asked_in_any_order() -> None:
    """find -n's line counter counts on from the offset asked before, and from its block's start
    when asked for one behind it (a URL hit that holds the DOI before it starts before it)."""
    import random

    from extractor.pipeline.grep import LineCounter

    rng = random.Random(7)
    data = bytes(rng.choice(b"ab\n") for _ in range(20_000))
    lines = LineCounter()
    for i in range(0, len(data), 1000):
        lines.feed(data[i : i + 1000])
    offsets = sorted(rng.randrange(len(data) - 15_000, len(data)) for _ in range(300))
    offsets += [offsets[j] - rng.randrange(0, 50) for j in range(0, 300, 7)]  # some asked again, behind
    for off in offsets:
        assert lines.line_of(off) == data.count(b"\n", 0, off) + 1


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_count_alone_is_the_number_of_dois_printed(
    tmp_path: Path, jobs: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`find -c` of a text (whole, or in byte ranges) is the matcher's own count, no hit made in
    Python: the DOIs `find` prints of it, one a line, in every kind and syntax."""
    monkeypatch.setattr(find_cli, "PARALLEL_MIN", 0)
    monkeypatch.setattr(find_cli, "SPLIT_MIN", 4096)
    paths = _every_kind(tmp_path)
    for path in paths:
        assert main(["find", "-j", jobs, path]) == 0
        printed = capsys.readouterr().out.count("\n")
        assert main(["find", "-c", "-j", jobs, path]) == 0
        assert capsys.readouterr().out == f"{printed}\n", path
        assert printed > 40


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_dois_a_line_written_a_window_at_a_time_are_those_read_hit_by_hit(
    tmp_path: Path, jobs: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`find` with nothing but the DOIs to print writes each window's at once, with no Hit made;
    `-m` with a bound never reached reads the same input hit by hit: the same lines, in every kind
    and syntax, named or not."""
    monkeypatch.setattr(find_cli, "PARALLEL_MIN", 0)
    monkeypatch.setattr(find_cli, "SPLIT_MIN", 4096)
    paths = _every_kind(tmp_path)
    for names in ([], ["-H"]):
        for path in paths:
            assert main(["find", "-j", jobs, *names, path]) == 0
            fast = capsys.readouterr().out
            assert main(["find", "-j", jobs, *names, "-m", "1000000000", path]) == 0
            assert capsys.readouterr().out == fast, path
            assert fast.count("\n") > 40


def _timed_square(n: int, delay: float) -> tuple[int, float]:
    """n², and when it was done (the monotonic clock, one for all processes)."""
    import time

    time.sleep(delay)
    return n * n, time.monotonic()


def _slow_square(n: int, delay: float) -> int:
    import time

    time.sleep(delay)
    return n * n


def test_the_engines_ordered_map_gives_results_in_the_jobs_order_and_stops_when_asked() -> None:
    """find's processes (engines/pool.py): a later job done first waits for the ones before it;
    a reader that stops early leaves no worker behind."""
    import multiprocessing
    import time

    from extractor.engines.pool import ordered_map

    # the first job ends last: the others, on the other worker, end while it sleeps
    jobs = [(n, 2.0 if n == 0 else 0.0) for n in range(6)]
    got = list(ordered_map(_timed_square, jobs, 2))
    assert [square for square, _ended in got] == [n * n for n in range(6)]
    assert got[0][1] > max(ended for _square, ended in got[1:])  # so the order is the map's, not the ends'

    results = ordered_map(_slow_square, [(n, 0.05) for n in range(50)], 2)
    assert next(results) == 0
    results.close()  # the pool is told to stop at once: its workers end with their running job
    for _ in range(100):
        if not multiprocessing.active_children():
            break
        time.sleep(0.1)
    assert multiprocessing.active_children() == []
