"""Without the C parts (the matcher, match/_cscan.c, and the mention table, pipeline/_ctable.c):
they are optional at build time (a failed compile warns and installs the rest), `import
extractor` never needs them, and the Python fallbacks give exactly what they give — so a scan
without either writes the same rows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from extractor.match import native
from extractor.pipeline import table as mention_table

from .helpers import PIECES, make_corpus, run_json, table

ROOT = Path(__file__).resolve().parent.parent
_TEXT_PIECES = [p for p in PIECES if not any("\ud800" <= c <= "\udfff" for c in p)]  # a DOI holds none
needs_c = pytest.mark.skipif(not (native.HAVE_C and mention_table.HAVE_C), reason="compares with the C parts")

# Run Python with the C parts hidden, as an install without a compiler has them.
WITHOUT_C = (
    "import sys; sys.modules['extractor.match._cscan'] = sys.modules['extractor.pipeline._ctable'] = None\n"
    "sys.modules['extractor.pipeline.formats._cjsonl'] = None\n"
)
# The matcher in C with the table in Python: hits reach the table through its add() (sink.h).
WITHOUT_C_TABLE = "import sys; sys.modules['extractor.pipeline._ctable'] = None\n"


def _python_without_c(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_C + code], capture_output=True, text=True, timeout=300, cwd=ROOT
    )


def test_the_extension_is_optional_at_build_time(tmp_path: Path) -> None:
    """CC=false: the compiles fail, the build still succeeds (setup.py: optional=True)."""
    p = subprocess.run(
        [
            sys.executable,
            "setup.py",
            "-q",
            "build_ext",
            "--build-lib",
            str(tmp_path / "lib"),
            "--build-temp",
            str(tmp_path / "tmp"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "CC": "false"},
    )
    assert p.returncode == 0, p.stderr[-2000:]
    assert not list((tmp_path / "lib").rglob("_c*.so")), "a C part was built although CC=false"


@needs_c
def test_a_scan_without_the_extension_writes_the_same_rows(tmp_path: Path) -> None:
    src = make_corpus(tmp_path)
    (src / "bad.txt").write_bytes(
        b"doi:10.1000/x\xff\xfe 10.1234/\xc3\xa9t\xe9 https://doi.org/10.1000/182\n" * 300
    )
    for pdf_text in sorted((ROOT / "corpora" / "labelled" / "pdf").glob("*.pdf.txt"))[:6]:
        (src / pdf_text.name).write_bytes(pdf_text.read_bytes())  # PDF text: its rules in C or Python
    with_c, without, half = tmp_path / "c", tmp_path / "py", tmp_path / "half"
    code = (
        "from extractor.cli import main\n"
        "import extractor.pipeline.table as t; assert not t.HAVE_C\n"
        "sys.exit(main(['scan', {src!r}, '-o', {out!r}, '-q', '--workers', '1', '--occurrences', '--buckets', '4']))"
    )
    for out, prefix in ((with_c, ""), (without, WITHOUT_C), (half, WITHOUT_C_TABLE)):
        p = (
            subprocess.run(
                [sys.executable, "-c", prefix + "import sys\n" + code.format(src=str(src), out=str(out))],
                capture_output=True,
                text=True,
                timeout=300,
                cwd=ROOT,
            )
            if prefix
            else None
        )
        if p is None:
            from .test_scan import scan

            scan(str(src), "-o", str(out), "-q", "--workers", "1", "--occurrences", "--buckets", "4")
        else:
            assert p.returncode == 0, p.stderr
    for name in ("mentions", "dois", "occurrences"):
        assert table(with_c, name) == table(without, name) == table(half, name), name
    assert run_json(without)["matcher"].startswith("Python") and run_json(with_c)["matcher"] == "C"
    assert run_json(half)["matcher"] == "C"
    assert run_json(without)["invalid_bytes_replaced"] == run_json(with_c)["invalid_bytes_replaced"] > 0


def test_import_find_and_version_without_the_extension() -> None:
    p = _python_without_c(
        "import extractor\n"
        "print([h.doi for h in extractor.find_dois('see doi:10.1000/182 and 10.1038/NATURE1')])\n"
        "from extractor.cli import main\n"
        "main(['--version'])\n"
    )
    assert "Traceback" not in p.stderr and "circular" not in p.stderr
    assert "['10.1000/182', '10.1038/nature1']" in p.stdout
    assert "Python (the C extension was not built) matcher" in p.stdout


@needs_c
@given(
    st.lists(
        st.sampled_from([b"a" * 16, b"a" * 64, b"a", b"\xff", b"\xe2\x82\xac", b"\xc3", b"\xf0\x9f\x98"]),
        max_size=12,
    ).map(b"".join)
    | st.binary(max_size=64),
    st.integers(0, 300),
    st.integers(-1, 300),
)
@example(b"a" * 130, 0, 64)  # ASCII read 64 bytes a step up to `stop`, the data going on past it
@example(b"a" * 80 + b"\xff", 3, 67)
def test_invalid_bytes_in_python_equals_c(data: bytes, start: int, stop: int) -> None:
    """The C count reads ASCII many bytes a step (16, 64): runs of ASCII of those lengths around
    invalid bytes and characters cut by `stop` give what the decoder gives."""
    assert native._invalid_bytes(data, start, stop) == native.invalid_bytes(data, start, stop)


@needs_c
@given(
    st.binary(max_size=80).map(lambda b: b.replace(b"\x01", b"\n")), st.integers(-2, 90), st.integers(-1, 90)
)
def test_newlines_in_python_equals_c(data: bytes, start: int, stop: int) -> None:
    assert native._newlines(data, start, stop) == native.newlines(data, start, stop)


@needs_c
@given(st.lists(st.sampled_from([*_TEXT_PIECES, "é", "😀", "x"]), max_size=8), st.integers(1, 40))
def test_buckets_in_python_equal_c(pieces: list[str], buckets: int) -> None:
    doi = "10.1000/" + "".join(pieces)
    assert mention_table._bucket_of(doi, buckets) == mention_table.bucket_of(doi, buckets)
    arr = pa.array([doi, "10.1/a", "", doi + "z"])
    _valid, offs, data = arr.buffers()
    py = mention_table._buckets_of(offs, data, 1, 3, buckets)
    assert py == mention_table.buckets_of(offs, data, 1, 3, buckets)


@needs_c
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["10.1/a", "10.1/b", "10.2/é", "10.3/c"]),
            st.integers(0, 50),
            st.integers(0, 9),
            st.integers(-1, 9),
        ),
        max_size=30,
    ),
    st.integers(1, 5),
)
def test_the_python_mention_table_equals_c(adds: list[tuple[str, int, int, int]], buckets: int) -> None:
    Mentions, PyMentions = mention_table.Mentions, mention_table.PyMentions
    c, py, c2, py2 = Mentions(), PyMentions(), Mentions(), PyMentions()
    for doi, offset, form, line in adds:
        for table_ in (c, py, c2, py2):
            raw = doi if offset % 3 == 0 else f"raw{offset}"  # the key itself, or not
            table_.add(doi, offset, form, raw, line)  # line -1: none (a record's text)
    assert len(c) == len(py)
    assert c.take(buckets) == py.take(buckets)
    assert c2.take_columns(buckets) == py2.take_columns(buckets)  # the same Arrow buffers
    assert len(py) == 0 and json.dumps(py.take(1)) == json.dumps(([], [], [], [], [], [], [0, 0]))
