"""`doi-extract find`: grep-like output, formats, kinds and exit codes."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from extractor.pipeline.io.decode import detect_kind

from .helpers import run_json

SAMPLE = Path(__file__).resolve().parent.parent / "corpora" / "sample"


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "extractor.cli", *args], input=stdin, capture_output=True, timeout=120
    )


def run_code(code: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -c code args…` in a child process: what a fresh process loads and does."""
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=120
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
    f.write_text("x https://doi.org/10.1000/182 funded by doi:10.13039/501100000780\n")
    tsv = run("find", "--format", "tsv", str(f)).stdout.decode().splitlines()
    assert tsv == [
        f"{f}\t2\t10.1000/182\tresolver-url\thttps://doi.org/10.1000/182\twork",
        f"{f}\t40\t10.13039/501100000780\tdoi-label\tdoi:10.13039/501100000780\tfunder",  # spec §6
    ]
    rec = json.loads(run("find", "--format", "jsonl", str(f)).stdout.splitlines()[0])
    assert rec == {
        "source": str(f),
        "offset": 2,
        "end": 29,
        "doi": "10.1000/182",
        "form": "resolver-url",
        "entity": "work",
        "raw": "https://doi.org/10.1000/182",
    }
    assert json.loads(run("find", "--format", "jsonl", str(f)).stdout.splitlines()[1])["entity"] == "funder"


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
    # a record's text, given as str, is told the same way (only its first 64 KiB of UTF-8)
    assert detect_kind(name, head.decode()) == kind
    assert detect_kind(name, "é" * 40000 + head.decode()) == detect_kind(name, ("é" * 40000).encode() + head)


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
        "work",
    ]


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        (None, "cannot read manifest {m}: No such file or directory"),
        ('{"bad json\n', "{m} line 1: not valid JSON"),
        ('{"doc": "a.txt", "genre": "plain", "gold": []}\n[1]\n', "{m} line 2: a JSON list, not an object"),
        ('{"doc": "a.txt"}\n', "{m} line 1: field 'genre' missing"),
        ('{"doc": "a.txt", "genre": "plain", "gold": "10.1/x"}\n', "{m} line 1: field 'gold' not a list"),
        ('{"doc": "gone.txt", "genre": "plain", "gold": []}\n', "cannot read document 'gone.txt'"),
        (b"\xff\xfe{}", "{m}: not UTF-8 text"),
    ],
    ids=["missing", "json", "array", "no-genre", "gold-type", "no-document", "binary"],
)
def test_score_names_what_is_wrong_with_a_manifest(
    tmp_path: Path, manifest: str | bytes | None, message: str
) -> None:
    """Issue 13: a missing or malformed manifest ended in a traceback."""
    (tmp_path / "a.txt").write_text("doi:10.1000/182")
    m = tmp_path / "manifest.jsonl"
    if isinstance(manifest, bytes):
        m.write_bytes(manifest)
    elif manifest is not None:
        m.write_text(manifest)
    p = run("score", str(m))
    assert p.returncode == 2
    err = p.stderr.decode()
    assert message.format(m=m) in err and "Traceback" not in err, err


def test_score_reports_a_good_manifest(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("see doi:10.1000/182 and 10.1234/wrong")
    m = tmp_path / "manifest.jsonl"
    m.write_text('{"doc": "a.txt", "genre": "plain", "gold": ["10.1000/182", "10.1000/missed"]}\n')
    p = run("score", "--json", str(m))
    assert p.returncode == 0, p.stderr
    micro = json.loads(p.stdout)["ALL (micro)"]
    assert (micro["tp"], micro["fp"], micro["fn"]) == (1, 1, 1)


@pytest.mark.parametrize(
    ("given", "bytes_"), [("32MiB", 32 << 20), ("32MB", 32_000_000), ("1.5GB", 1_500_000_000), ("4096", 4096)]
)
def test_shard_size_takes_units(tmp_path: Path, given: str, bytes_: int) -> None:
    """Issue 13: `--shard-size 32MB` was refused although the help spoke in MiB."""
    p = run("scan", str(SAMPLE), "-o", str(tmp_path / "o"), "-q", "--shard-size", given)
    assert p.returncode == 0, p.stderr
    assert json.loads((tmp_path / "o" / "_run.json").read_text())["options"]["shard_size"] == bytes_


def test_a_bad_size_names_its_flag(tmp_path: Path) -> None:
    p = run("scan", str(SAMPLE), "-o", str(tmp_path / "o"), "--shard-size", "32XB")
    assert p.returncode == 2 and "argument --shard-size: not a size: '32XB'" in p.stderr.decode()


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("doi:10.1000/1 10.1000/2 and 10.1000/1 again\n")
    (root / "sub" / "b.txt.gz").write_bytes(gzip.compress(b"https://doi.org/10.1000/3\n"))
    (root / "c.txt").write_text("no DOI here\n")
    return root


def test_find_recurses_into_directories_and_names_the_inputs(tmp_path: Path) -> None:
    """Issue 13: `find .` said "Is a directory"; with several inputs no line said where it was."""
    root = _tree(tmp_path)
    for args in ((str(root),), ("-r", str(root))):
        p = run("find", *args)
        assert p.returncode == 0, p.stderr
        assert p.stdout.decode().splitlines() == [
            f"{root}/a.txt:10.1000/1",
            f"{root}/a.txt:10.1000/2",
            f"{root}/a.txt:10.1000/1",
            f"{root}/sub/b.txt.gz:10.1000/3",
        ]
    one = run("find", str(root / "a.txt")).stdout.decode().splitlines()
    assert one == ["10.1000/1", "10.1000/2", "10.1000/1"]  # one input: no name, as grep
    assert run("find", "-H", str(root / "a.txt")).stdout.decode().startswith(f"{root}/a.txt:10.1000/1\n")
    assert run("find", "--no-filename", str(root)).stdout.decode().splitlines()[-1] == "10.1000/3"
    globbed = run("find", "-u", str(root / "*.txt"), f"@{_list(tmp_path, root / 'sub' / 'b.txt.gz')}")
    assert globbed.stdout.decode().splitlines() == [
        f"{root}/a.txt:10.1000/1",
        f"{root}/a.txt:10.1000/2",
        f"{root}/sub/b.txt.gz:10.1000/3",
    ]


def _list(tmp_path: Path, *paths: Path) -> Path:
    listing = tmp_path / "inputs.lst"
    listing.write_text("".join(f"{p}\n" for p in paths))
    return listing


def test_find_counts_and_lists_files_like_grep(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    assert run("find", "-c", str(root)).stdout.decode().splitlines() == [
        f"{root}/a.txt:3",
        f"{root}/c.txt:0",
        f"{root}/sub/b.txt.gz:1",
    ]
    assert run("find", "-c", "-u", str(root / "a.txt")).stdout == b"2\n"
    assert run("find", "-l", str(root)).stdout.decode().splitlines() == [
        f"{root}/a.txt",
        f"{root}/sub/b.txt.gz",
    ]
    assert run("find", "-l", "--null", str(root)).stdout == f"{root}/a.txt\0{root}/sub/b.txt.gz\0".encode()
    assert run("find", "--null", str(root / "a.txt"), str(root / "c.txt")).stdout.startswith(
        f"{root}/a.txt\x0010.1000/1\n".encode()
    )
    none = run("find", "-l", str(root / "c.txt"))
    assert none.returncode == 1 and none.stdout == b""


def test_find_names_inputs_that_are_not_there(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    p = run("find", str(root / "a.txt"), str(root / "missing.txt"), str(root / "*.nothing"))
    assert p.returncode == 2
    err = p.stderr.decode()
    assert "missing.txt: no such file or directory" in err and "*.nothing: no file matches the pattern" in err
    assert p.stdout.decode().splitlines()[0] == f"{root}/a.txt:10.1000/1"


def test_score_reads_each_document_as_its_genre_and_reports_per_tool(tmp_path: Path) -> None:
    """Issue 12: PDF text from pypdf or PDFium has no form feed to detect it by; the row's genre
    is the kind, and the breakdown names the manifest's PDF tool."""
    (tmp_path / "a.pypdf.txt").write_text("FEBS Lett. 197: 4-15. doi:10.1016/0014-\n5793(77)80070-7\n")
    (tmp_path / "a.pdfminer.txt").write_text("FEBS Lett. 197: 4-15. doi:10.1016/0014-\n\n5793(77)80070-7\n")
    gold = ["10.1016/0014-5793(77)80070-7"]
    m = tmp_path / "manifest.jsonl"
    m.write_text(
        "".join(
            json.dumps({"doc": f"a.{t}.txt", "genre": "pdf", "tool": t, "gold": gold}) + "\n"
            for t in ("pypdf", "pdfminer")
        )
    )
    p = run("score", "--json", str(m))
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    for key in ("genre=pdf", "tool=pypdf", "tool=pdfminer"):
        assert (got[key]["tp"], got[key]["fp"], got[key]["fn"]) == (2 if key == "genre=pdf" else 1, 0, 0), key


def test_find_reads_record_files_as_records(tmp_path: Path) -> None:
    """Issues 11 and 13: `find` read a JSONL file as bytes, so `\\/`-escaped slashes hid its
    DOIs (scan found them); record files are read record by record, with each record's id."""
    f = tmp_path / "r.jsonl"
    f.write_text(
        '{"id": "a", "text": "see https:\\/\\/doi.org\\/10.1000\\/182"}\n{"text": "doi:10.1000\\/2"}\n'
    )
    assert run("find", str(f)).stdout.decode().split() == ["10.1000/182", "10.1000/2"]
    rows = [json.loads(x) for x in run("find", "--format", "jsonl", str(f)).stdout.decode().splitlines()]
    assert [(r["record"], r["doi"], r["raw"]) for r in rows] == [
        ("a", "10.1000/182", "https://doi.org/10.1000/182"),
        ("line 2", "10.1000/2", "doi:10.1000/2"),
    ]
    tsv = run("find", "--format", "tsv", str(f)).stdout.decode().splitlines()
    assert [line.split("\t")[5] for line in tsv] == ["a", "line 2"]
    nested = tmp_path / "n.jsonl"
    nested.write_text('{"meta": {"body": "doi:10.1000/n"}}\n')
    assert run("find", "--text-field", "meta.body", str(nested)).stdout.decode().split() == ["10.1000/n"]
    p = run("find", str(nested))
    assert p.returncode == 2 and "no record has a 'text' field" in p.stderr.decode()


def test_find_line_numbers(tmp_path: Path) -> None:
    """Issue 13: grep's -n — the line of each hit, in plain, compressed, UTF-16 and long inputs."""
    text = "one doi:10.1000/1\ntwo\nthree https://doi.org/10.1000/3 and 10.1000/4\n"
    f = tmp_path / "a.txt"
    f.write_text(text)
    want = ["1:10.1000/1", "3:10.1000/3", "3:10.1000/4"]
    assert run("find", "-n", str(f)).stdout.decode().split() == want
    assert run("find", "-n", "-", stdin=gzip.compress(text.encode())).stdout.decode().split() == want
    u = tmp_path / "u.txt"
    u.write_bytes(text.encode("utf-16"))
    assert run("find", "-n", str(u)).stdout.decode().split() == want
    big = tmp_path / "big.txt"
    big.write_text("filler\n" * 700_000 + text)  # past the first blocks the counter keeps
    assert run("find", "-n", str(big)).stdout.decode().split() == [
        f"{700_000 + int(w.split(':')[0])}:{w.split(':', 1)[1]}" for w in want
    ]
    both = run("find", "-n", "-H", str(f)).stdout.decode().splitlines()
    assert both[0] == f"{f}:1:10.1000/1"


def test_find_tsv_header_names_the_columns_of_one_rectangular_table(tmp_path: Path) -> None:
    """Issue 13: TSV with an optional header; text files and record files in one table."""
    f = tmp_path / "a.txt"
    f.write_text("x https://doi.org/10.1000/182\n")
    r = tmp_path / "r.jsonl"
    r.write_text('{"id": "a", "text": "doi:10.1000/2"}\n')
    lines = run("find", "--format", "tsv", "--header", str(f), str(r)).stdout.decode().splitlines()
    rows = [line.split("\t") for line in lines]
    assert rows[0] == ["source", "offset", "doi", "form", "raw", "record", "entity"]
    assert rows[1:] == [
        [str(f), "2", "10.1000/182", "resolver-url", "https://doi.org/10.1000/182", "", "work"],
        [str(r), "0", "10.1000/2", "doi-label", "doi:10.1000/2", "a", "work"],
    ]
    # without --header a record column for record files only, the entity last
    assert len(run("find", "--format", "tsv", str(f)).stdout.decode().split("\t")) == 6
    assert len(run("find", "--format", "tsv", str(r)).stdout.decode().split("\t")) == 7


def _scan_in_a_child(tmp_path: Path, after: str, variable: str, chosen: str | None) -> str:
    """What a child process prints that runs a one-worker scan of a small file (the command's
    own setup of the process), with the environment `variable` unset or `chosen`, then `after`."""
    import os

    (tmp_path / "a.txt").write_text("doi:10.1000/182\n")
    code = (
        "import os, sys; from extractor.cli import main; main(['scan', sys.argv[1], '-o', sys.argv[2],"
        f" '-q', '--workers', '1', '--force']); {after}"
    )
    env = {k: v for k, v in os.environ.items() if k != variable}
    if chosen:
        env[variable] = chosen
    done = run_code(code, str(tmp_path / "a.txt"), str(tmp_path / "out"), env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("chosen", [None, "mimalloc"])
def test_arrow_buffers_come_from_the_system_allocator_unless_the_user_chose(
    tmp_path: Path, chosen: str | None
) -> None:
    """The command sets Arrow's allocator to the C library's before pyarrow loads (it returns
    freed buffers to the OS: a process's peak is what it holds at once, issue 14); a user's
    ARROW_DEFAULT_MEMORY_POOL is kept."""
    printed = _scan_in_a_child(
        tmp_path,
        "import pyarrow as pa; print(pa.default_memory_pool().backend_name)",
        "ARROW_DEFAULT_MEMORY_POOL",
        chosen,
    )
    assert printed.split() == [chosen or "system"]


def test_openblas_runs_one_thread_unless_the_user_chose(tmp_path: Path) -> None:
    """pyarrow loads NumPy, whose OpenBLAS would start a spinning thread per core in every scan
    process: the command asks it for one before anything loads it (one thread fewer than a
    user's choice of two gives), and a user's choice is kept."""
    import os

    pytest.importorskip("numpy")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("OpenBLAS starts no thread of its own on one core")
    after = "import numpy; print(os.environ['OPENBLAS_NUM_THREADS'], len(os.listdir('/proc/self/task')))"
    seen = {}
    for chosen in (None, "2"):
        value, threads = _scan_in_a_child(tmp_path, after, "OPENBLAS_NUM_THREADS", chosen).split()
        seen[chosen] = (value, int(threads))
    assert seen[None][0] == "1" and seen["2"][0] == "2"
    assert seen[None][1] == seen["2"][1] - 1


def test_a_scan_does_not_load_pandas_yet_pyarrow_still_reaches_it(tmp_path: Path) -> None:
    """pyarrow's first conversion looks for pandas and loads it where installed (~0.25 s a
    process, issue 14); `scan` answers that look "absent" once, and pandas is still imported for
    real when asked for (`to_pandas`), afterwards as before."""
    pytest.importorskip("pandas")
    (tmp_path / "a.txt").write_text("doi:10.1000/182 and 10.1000/183\n")
    code = (
        "import sys; from extractor.cli import main; rc = main(['scan', sys.argv[1], '-o', sys.argv[2],"
        " '-q', '--workers', '1']); print(rc, 'pandas' in sys.modules);"
        " import pyarrow.parquet as pq; df = pq.read_table(sys.argv[2] + '/dois').to_pandas();"
        " print(type(df).__name__, sorted(df['doi']))"
    )
    done = run_code(code, str(tmp_path / "a.txt"), str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["0 False", "DataFrame ['10.1000/182', '10.1000/183']"]


def test_scan_starts_its_workers_server_before_it_loads_the_matcher(tmp_path: Path) -> None:
    """The workers' server loads the pipeline, the matcher and pyarrow (0.4-0.5 s), and the
    shards wait for it: it starts first thing, while this process loads its own. So the console
    script's import of the CLI loads neither the matcher nor pyarrow (the matcher was 85 ms of it,
    every worker ready that much later)."""
    (tmp_path / "a.txt").write_text("doi:10.1000/182\n")
    code = (
        "import sys; import extractor.cli\n"
        "from multiprocessing import forkserver\n"
        "loaded = sorted(m for m in ('extractor.match', 'pyarrow') if m in sys.modules)\n"
        "started = []\n"
        "real = forkserver.ensure_running\n"
        "def ensure_running():\n"
        "    started.append(sorted(m for m in ('extractor.match', 'pyarrow') if m in sys.modules))\n"
        "    real()\n"
        "forkserver.ensure_running = ensure_running\n"
        "rc = extractor.cli.main(['scan', sys.argv[1], '-o', sys.argv[2], '--workers', '2', '--quiet'])\n"
        "print(rc, loaded, started[:1], file=sys.stderr)"
    )
    done = run_code(code, str(tmp_path / "a.txt"), str(tmp_path / "out"))
    assert done.stderr.splitlines()[-1] == "0 [] [[]]", done.stderr
    assert run_json(tmp_path / "out")["distinct_dois"] == 1


def test_a_scan_ends_without_the_interpreters_teardown_its_output_whole(tmp_path: Path) -> None:
    """The console script ends a scan's process at once (cli.run): what it printed reaches its
    reader whole, its status is the scan's, and the exit handlers of all it loaded are not run
    (the teardown was 40 ms of a 1 s scan). A scan that fails still gives its status."""
    (tmp_path / "a.txt").write_text("doi:10.1000/182 and 10.1000/183\n")
    code = (
        "import atexit, sys; import extractor.cli\n"
        "atexit.register(lambda: print('teardown', file=sys.stderr))\n"
        "sys.argv = ['doi-extract', *sys.argv[1:]]\n"
        "extractor.cli.run()"
    )

    done = run_code(code, "scan", str(tmp_path / "a.txt"), "-o", str(tmp_path / "out"), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["distinct_dois"] == 2
    assert "teardown" not in done.stderr
    failed = run_code(code, "scan", str(tmp_path / "missing.txt"), "-o", str(tmp_path / "out2"), "--json")
    assert failed.returncode not in (0, None) and "teardown" not in failed.stderr
    # every other command ends as Python does
    version = run_code(code, "--version")
    assert version.returncode == 0 and "teardown" in version.stderr


@pytest.mark.parametrize(
    ("argv", "printed"),
    [
        (["find", "{file}"], ["10.1000/182", "10.1000/183"]),
        (["find", "-c", "-j", "2", "{file}", "{file}"], ["{file}:2", "{file}:2"]),
        (["--version"], None),
    ],
)
def test_find_and_the_parser_load_no_pyarrow(
    tmp_path: Path, argv: list[str], printed: list[str] | None
) -> None:
    """`find` is grep-like: what it loads is its start-up on every small input, and pyarrow with
    numpy was 0.16 s of 0.35. Only `scan` and `summary`, which write or read Parquet, load it."""
    (tmp_path / "a.txt").write_text("doi:10.1000/182 and 10.1000/183\n")
    code = (
        "import sys, json; from extractor.cli import main\n"
        "try:\n    rc = main(json.loads(sys.argv[1]))\nexcept SystemExit as e:\n    rc = e.code\n"
        "print(rc, sorted(m for m in ('pyarrow', 'numpy') if m in sys.modules), file=sys.stderr)"
    )
    file = str(tmp_path / "a.txt")
    done = run_code(code, json.dumps([w.replace("{file}", file) for w in argv]))
    assert done.stderr.splitlines()[-1] == "0 []", done.stderr
    if printed is not None:
        assert done.stdout.splitlines() == [w.replace("{file}", file) for w in printed]


# What `find` on a text file never needs: the record formats' readers, the compressions it does not
# meet, the Python rules (the C matcher has them), the scan's output and engines, pyarrow.
NOT_FOR_TEXT = (
    "logging",  # find logs only at -v and -vv
    "pyarrow",
    "numpy",
    "fsspec",
    "orjson",
    "isal",
    "zstandard",
    "tarfile",
    "zipfile",
    "bz2",
    "lzma",
    "gzip",
    "hashlib",
    "extractor.match.matcher",
    "extractor.match.pdftext",
    "extractor.match.html",
    "extractor.match.rules",
    "extractor.match.tails",
    "extractor.match.derive",
    "extractor.match.identifiers",
    "extractor.match.syntaxes.tex",
    "extractor.match.syntaxes.wikitext",
    "extractor.pipeline.io.seekgz",
    "extractor.pipeline.formats.archive",
    "extractor.pipeline.formats.csvrecords",
    "extractor.pipeline.formats.jsonl",
    "extractor.pipeline.formats.jsonlines",
    "extractor.pipeline.formats.mediawiki",
    "extractor.pipeline.formats.members",
    "extractor.pipeline.formats.parquet",
    "extractor.pipeline.formats.pdf",
    "extractor.pipeline.formats.warc",
    "csv",
    "json",  # printed as JSON lines only with --format jsonl
    "threading",  # a bzip2 stream's read-ahead
    "extractor.pipeline.out",
    "extractor.engines",
    "extractor.cli.score",
    "extractor.cli.summary",
    "extractor.cli.scan",
)


def test_find_on_a_text_file_loads_only_what_it_reads(tmp_path: Path) -> None:
    """A command imports what it uses: `find` on a text file (a shell loop calls it per file)
    reads it with the C matcher, and loads none of NOT_FOR_TEXT; the same file as gzip loads
    gzip's reader (and its thread) and no other."""
    (tmp_path / "a.txt").write_text("see doi:10.1000/182 here\n")
    (tmp_path / "a.txt.gz").write_bytes(gzip.compress(b"see doi:10.1000/183 here\n"))
    code = (
        "import sys, extractor.cli\n"
        "rc = extractor.cli.main(['find', sys.argv[1]])\n"
        f"print(rc, sorted(m for m in {NOT_FOR_TEXT!r} if any(k == m or k.startswith(m + '.') for k in sys.modules)))"
    )
    done = run_code(code, str(tmp_path / "a.txt"))
    assert done.stdout.splitlines() == ["10.1000/182", "0 []"], done.stderr
    done = run_code(code, str(tmp_path / "a.txt.gz"))
    lines = done.stdout.splitlines()
    assert lines[0] == "10.1000/183", done.stderr
    # python-isal's reader decompresses in a thread of its own
    assert set(eval(lines[1].split(" ", 1)[1])) <= {"gzip", "isal", "threading"}


def test_the_records_find_starts_with_are_made_from_evaluated_annotations(tmp_path: Path) -> None:
    """typing.NamedTuple compiles a string annotation of each field (a ForwardRef) as its class is
    made, which every `find` pays before its first byte: the modules `find` loads for a text file
    that define one do not defer their annotations (`from __future__ import annotations`)."""
    (tmp_path / "a.txt").write_text("see doi:10.1000/182 here\n")
    code = (
        "import __future__, sys, extractor.cli\n"
        "extractor.cli.main(['find', sys.argv[1]])\n"
        "mods = [m for n, m in sorted(sys.modules.items()) if n.startswith('extractor')]\n"
        "print([m.__name__ for m in mods if isinstance(vars(m).get('annotations'), __future__._Feature) and "
        "any(isinstance(c, type) and issubclass(c, tuple) and hasattr(c, '_fields') and c.__module__ == m.__name__ "
        "for c in vars(m).values())])"
    )
    done = run_code(code, str(tmp_path / "a.txt"))
    assert done.stdout.splitlines() == ["10.1000/182", "[]"], done.stderr


def test_canonicalize_loads_no_pipeline_and_no_rules_it_does_not_use() -> None:
    """`from extractor import canonicalize` (a data-cleaning script) loads the rules that read one
    identifier, not the pipeline, pyarrow, nor the PDF, HTML and spec §8 rules."""
    code = (
        "import sys\nfrom extractor import canonicalize\n"
        "assert canonicalize('https://doi.org/10.1000/ABC') == '10.1000/abc'\n"
        "print(sorted(m for m in sys.modules if m.startswith(('pyarrow', 'extractor.pipeline', "
        "'extractor.match.pdftext', 'extractor.match.html', 'extractor.match.derive'))))"
    )
    done = run_code(code)
    assert done.stdout.strip() == "[]", done.stderr


def test_the_scan_command_loads_no_numpy(tmp_path: Path) -> None:
    """The command's own process (and its workers) loads pyarrow without NumPy, most of pyarrow's
    import (arrow_setup.load_for_scan); a caller's process that runs main() keeps its pyarrow as
    it would load it (the test above reads pandas after)."""
    (tmp_path / "a.txt").write_text("doi:10.1000/182\n")
    for workers in ("1", "2"):
        done = subprocess.run(
            [
                *(sys.executable, "-X", "importtime", "-m", "extractor", "scan", str(tmp_path / "a.txt")),
                *("-o", str(tmp_path / f"out{workers}"), "--quiet", "--workers", workers),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
        # (an import refused is listed too: numpy's own modules are not)
        assert "pyarrow.parquet" in loaded and not any(m.startswith("numpy.") for m in loaded)
        assert run_json(tmp_path / f"out{workers}")["distinct_dois"] == 1
