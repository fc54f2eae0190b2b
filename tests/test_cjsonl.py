"""The JSONL reader's C part (formats/_cjsonl.c): a record's text and id read straight from its
line, for the lines whose reading is plain; any other line is left to Python's reading (orjson,
then the stdlib's). Either way a line reads the same: the C reader never decides a line that
Python would read otherwise."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from extractor.pipeline.formats import jsonlines

from .helpers import scan_here, table

pytestmark = pytest.mark.skipif(jsonlines._cjsonl is None, reason="the C reader was not built")
read_lines = jsonlines._cjsonl.read_lines if jsonlines._cjsonl is not None else None

# Lines the C reader reads: (line, id, text).
PLAIN = [
    (b'{"id": "a", "text": "doi:10.1000/1"}', "a", "doi:10.1000/1"),
    (b'{"text": "no id"}', None, "no id"),
    (b'{"text": "null id", "id": null}', None, "null id"),
    (b'  {"text":"tight","id":"t"}  \r', "t", "tight"),
    (b'{"text": "esc \\" \\\\ \\/ \\b \\f \\n \\r \\t end"}', None, 'esc " \\ / \b \f \n \r \t end'),
    (b'{"text": "\\u00e9\\u20ac \\ud83d\\ude00 \\u0000"}', None, "\u00e9\u20ac \U0001f600 \x00"),
    ('{"text": "β-sitosterol 10.1000/β", "id": "ü"}'.encode(), "ü", "β-sitosterol 10.1000/β"),
    (
        b'{"meta": {"text": "nested, not it", "a": [1, -2.5e-3, 0, true, false, null, {}, []]}, "text": "top"}',
        None,
        "top",
    ),
    (b'{"text": "", "id": ""}', "", ""),
    (b'{"n": 123456789012345678901234567890, "text": "big number elsewhere"}', None, "big number elsewhere"),
    (b'{"text": "' + b"x" * 5000 + b' 10.1000/long"}', None, "x" * 5000 + " 10.1000/long"),
]

# Lines the C reader leaves to Python, each for its reason.
LEFT = [
    b'{"text": 5}',  # a text that is not a string: Python names why
    b'{"text": null}',
    b'{"id": 7, "text": "a number id"}',  # Python makes it "7"
    b'{"id": ["x"], "text": "an array id"}',
    b'{"no_text": "x"}',
    b'{"text": "a", "text": "b"}',  # the last wins in Python
    b'{"id": "a", "id": "b", "text": "x"}',
    b'{"te\\u0078t": "a key spelled with an escape"}',
    b'{"text": "lone \\ud800 surrogate"}',
    b'{"text": "lone \\udc00 low"}',
    b'{"text": "x", "other": "\\ud800"}',
    b'{"text": "bad utf-8 \xff"}',
    b'{"text": "raw\tcontrol"}',
    b'{"text": "bad escape \\x"}',
    b'{"text": "x", "n": NaN}',  # the stdlib reads it
    b'{"text": "x", "n": 01}',
    b'{"text": "x",}',
    b'{"text": "x"} trailing',
    b'\xef\xbb\xbf{"text": "a byte order mark"}',
    b'\x0c{"text": "a form feed first"}',
    b"[1, 2]",
    b'"just a string"',
    b'{"text": "x", "deep": ' + b"[" * 70 + b"]" * 70 + b"}",
    b'{"text": "unterminated}',
]


def _python(line: bytes, n: int = 1) -> jsonlines.JsonlLine:
    return jsonlines._line_record(line, n, "text", "id", ())


@pytest.mark.parametrize(("line", "rid", "text"), PLAIN)
def test_a_plain_record_is_read_in_c_as_python_reads_it(line: bytes, rid: str | None, text: str) -> None:
    assert read_lines is not None
    pos, lines, _offsets, data, rids, at, _spans = read_lines(line + b"\n", 0, b"text", b"id")
    assert (pos, lines, rids, at) == (len(line) + 1, 1, [rid], [0])
    assert data.decode() == text
    assert _python(line)[:2] == (rid, text)


@pytest.mark.parametrize("line", LEFT)
def test_a_line_not_plain_is_left_to_python(line: bytes) -> None:
    """The reader stops before it, having read the plain lines before it; the next call goes on
    after it."""
    assert read_lines is not None
    data = b'{"text": "before"}\n\n' + line + b'\n{"text": "after"}\n'
    pos, lines, _offsets, text, rids, _at, _spans = read_lines(data, 0, b"text", b"id")
    assert (pos, lines, text, rids) == (data.index(line), 2, b"before", [None])
    after = data.index(b"\n", pos) + 1
    assert read_lines(data, after, b"text", b"id")[3:5] == (b"after", [None])


# Pieces of JSON lines, valid and not, that a line is made of
_KEYS = ['"text"', '"id"', '"meta"', '"te\\u0078t"', '"id"', '"x"', "text", '"text"', '"meta.doi"', '"url"']
_VALUES = [
    '"doi:10.1000/1"',
    '"a\\"b"',
    '"\\u00e9\\ud83d\\ude00"',
    '"\\ud800"',
    '"tab\there"',
    '"é 10.1000/β"',
    "null",
    "true",
    "-1.5e3",
    "01",
    "NaN",
    '[1, {"text": "inner"}]',
    "{}",
    '"unterminated',
    '""',
    "[",
    '{"doi": "10.1000/m", "n": 3}',
    '{"doi": {"deeper": [1, "two"]}}',
    "12345678901234567890123",
    '["a", {"b": null}]',
]

# Provenance fields a scan may ask for: top-level, dotted, a dotted key held whole
_FIELDS = [
    (),
    (("url", "url"),),
    (("doi", "meta.doi"),),
    (("m", "meta"), ("x", "x"), ("d", "meta.doi.deeper")),
]


@st.composite
def _lines(draw: st.DrawFn) -> bytes:
    pairs = draw(st.lists(st.tuples(st.sampled_from(_KEYS), st.sampled_from(_VALUES)), max_size=4))
    if draw(st.booleans()):  # most records have their text
        pairs.insert(draw(st.integers(0, len(pairs))), ('"text"', '"doi:10.1000/1"'))
    sep = draw(st.sampled_from([", ", ",", " , ", ", ", ",,"]))
    body = "{" + sep.join(f"{k}: {v}" for k, v in pairs) + "}"
    raw = body.encode()
    junk = draw(st.sampled_from([b"", b" ", b"\r", b"\xff", b"x", b"\x0c", b"}"]))
    where = draw(st.sampled_from(["start", "end", "none", "none"]))
    return junk + raw if where == "start" else raw + junk if where == "end" else raw


@given(st.lists(_lines(), min_size=1, max_size=6))
def test_any_line_read_in_c_reads_as_python_reads_it(lines: list[bytes]) -> None:
    """Lines drawn from valid and invalid pieces: each line the C reader reads gives the id and
    text that Python's reading gives it (or is blank to both); each it leaves, it leaves whole."""
    assert read_lines is not None
    data = b"".join(line + b"\n" for line in lines)
    pos, n = 0, 0
    while pos < len(data):
        pos2, count, offsets, text, rids, at, _spans = read_lines(data, pos, b"text", b"id")
        ends = memoryview(offsets).cast("i")
        for k, (rid, line_at) in enumerate(zip(rids, at, strict=True)):
            got = (rid, text[ends[k] : ends[k + 1]].decode())
            assert got == _python(lines[n + line_at])[:2], lines[n + line_at]
        for j in range(n, n + count):
            if j - n not in at:
                assert not lines[j].strip()  # a line read but no record: a blank one
        n += count
        if pos2 < len(data):
            assert data[pos2:].startswith(lines[n] + b"\n")
            pos2 += len(lines[n]) + 1
            n += 1
        pos = pos2
    assert n == len(lines)


def _read(data: bytes, fields: tuple[tuple[str, str], ...], c: bool) -> list[jsonlines.JsonlLine]:
    """The stream's records read with the C reader, or with Python's reading alone."""
    saved = jsonlines._cjsonl
    if not c:
        jsonlines._cjsonl = None  # type: ignore[assignment]
    try:
        return list(jsonlines.iter_jsonl_records(io.BytesIO(data), "text", "id", fields=fields))
    finally:
        jsonlines._cjsonl = saved


@given(st.lists(_lines(), min_size=1, max_size=8), st.sampled_from(_FIELDS))
def test_any_stream_reads_as_python_reads_it_provenance_too(
    lines: list[bytes], fields: tuple[tuple[str, str], ...]
) -> None:
    """A stream of such lines read with the C reader and without: the same records, line numbers
    and skipped lines, and the same provenance values (read by JSON from the places the C reader
    gives, a dotted path followed in Python as provenance.field_of follows it)."""
    data = b"".join(line + b"\n" for line in lines)
    assert _read(data, fields, True) == _read(data, fields, False)


@pytest.mark.parametrize("fields", _FIELDS[1:])
def test_provenance_read_in_c_as_python_reads_it(fields: tuple[tuple[str, str], ...]) -> None:
    """Top-level, dotted and held-whole paths, nested values, numbers beyond int64, absent ones."""
    lines = [
        b'{"text": "t", "meta": {"doi": "10.1/x", "n": 3}, "url": "http://a", "x": 1}',
        b'{"text": "u", "meta": {"doi": {"deeper": [1, "two"]}}, "x": 12345678901234567890123}',
        b'{"text": "v", "meta.doi": "held whole", "meta": {"doi": "not this"}, "x": null}',
        b'{"text": "w", "meta": [1, 2], "x": {"y": true}}',
        b'{"text": "no fields"}',
    ]
    data = b"".join(line + b"\n" for line in lines)
    got = _read(data, fields, True)
    assert got == _read(data, fields, False)
    runs = list(jsonlines.iter_jsonl_blocks(io.BytesIO(data), "text", "id", fields=fields))
    assert [type(r) for r in runs] == [jsonlines.CRun]  # all five read in C
    assert len({meta for _, _, _, meta in got}) >= 2


def test_a_file_reads_the_same_with_the_c_reader_and_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every line of PLAIN and LEFT, with blank lines, in a stream of several buffers: the same
    records (ids, texts, lines) and skipped lines either way, and a scan's rows."""
    lines = [line for line, _, _ in PLAIN] + LEFT + [b"", b"  "]
    numbered = [b'{"id": "r%d", "text": "see doi:10.1000/%d."}' % (i, i % 50) for i in range(3000)]
    body = b"\n".join(lines[i % len(lines)] if i % 3 else numbered[i] for i in range(3000)) + b"\n"
    path = tmp_path / "recs.jsonl"
    path.write_bytes(body)

    def read() -> list[jsonlines.JsonlLine]:
        return list(jsonlines.iter_jsonl_records(io.BytesIO(body), "text", "id"))

    with_c = read()
    scan_here([path], tmp_path / "c")
    monkeypatch.setattr(jsonlines, "_cjsonl", None)
    without = read()
    scan_here([path], tmp_path / "py")
    assert with_c == without
    assert sum(isinstance(t, str) and not isinstance(t, jsonlines.Skipped) for _, t, _, _ in with_c) > 1000
    for name in ("mentions", "dois"):
        assert table(tmp_path / "c", name) == table(tmp_path / "py", name)
    assert len(table(tmp_path / "c", "dois")) > 50
    assert (
        json.loads((tmp_path / "c" / "_run.json").read_text())["skipped_records"]
        == json.loads((tmp_path / "py" / "_run.json").read_text())["skipped_records"]
    )
