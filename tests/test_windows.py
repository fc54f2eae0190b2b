"""The windowing core (windows.py): a file read in windows, mapped or streamed, gives what the
whole text gives — hits across window and shard boundaries found once, windows paced by their
hits, long tokens passed over, the phase of joined PDF lines kept, lines and offsets exact."""

from __future__ import annotations

import gzip
import io
import itertools
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from extractor.match import find_dois, find_spans
from extractor.match.pdftext.breaks import MAX_JOINS
from extractor.pipeline import InputType, ScanConfig, ShardResult, ShardSpec
from extractor.pipeline.grep import FindOptions, stream_hits
from extractor.pipeline.io.decode import byte_offsets, clean
from extractor.pipeline.scan.documents import input_docs
from extractor.pipeline.scan.windows import FileSource, regular_file
from extractor.pipeline.units import chunk_counts, no_progress

from .helpers import PIECES, occurrence_sink, run_json, scan_here, table
from .spec_table import CLEANING

BLOCK = 1 << 20


def test_doi_straddling_a_shard_cut_found_exactly_once(tmp_path: Path) -> None:
    lines = [f"line {i} cites doi:10.1234/item.{i} in the text\n" for i in range(4000)]
    lines[1000] = "a label at the end of a line DOI:\n"  # label and DOI on two lines, across a cut
    lines[1001] = "10.1234/across-the-cut and more\n"
    data = "".join(lines).encode()
    f = tmp_path / "big.txt"
    f.write_bytes(data)
    whole, split = tmp_path / "whole", tmp_path / "split"
    scan_here([f], whole)
    for cut in range(40_000, 50_000, 2500):
        scan_here([f], split, force=True, shard_size=cut)
        assert run_json(split)["shards"] > 1
        assert table(split, "mentions") == table(whole, "mentions")
        assert table(split, "dois") == table(whole, "dois")
    assert any(m["doi"] == "10.1234/across-the-cut" for m in table(whole, "mentions"))


def _mixed_text(n: int) -> bytes:
    """Plain text with DOIs in many forms, non-ASCII prose, invalid bytes and long lines."""
    forms = [
        "10.1000/{i}",
        "doi:10.1000/{i}",
        "https://doi.org/10.1000/X{i}",
        "“10.1002/(SICI){i}”",
        "https://x.org/doi/abs/10.1000/{i}/abstract",
        "?id=doi%3A10.1000%2F{i}&s=1",
        "urn:doi:10.1000/{i}",
    ]
    parts = []
    for i in range(n):
        parts.append(f"Étude {i} – voir " + forms[i % len(forms)].format(i=i) + (".\n" if i % 9 else " "))
        if i % 97 == 0:
            parts.append("x" * 3000)
    data = "".join(parts).encode()
    return data[:5000] + b"\xff\xe2\x82 " + data[5000:]


@pytest.mark.parametrize("ranges", [1, 7], ids=["whole", "byte-ranges"])
def test_mapped_and_streamed_plain_text_agree_with_the_reference(tmp_path: Path, ranges: int) -> None:
    # many windows and blocks, each boundary a chance to err; the small file is mapped too
    config = ScanConfig(
        out=str(tmp_path), buckets=4, occurrences=True, map_window=64 << 10, map_min=0, block_size=48 << 10
    )
    data = _mixed_text(30_000)
    text = data.decode("utf-8", "surrogateescape")
    spans = find_spans(clean(text)[0])
    starts = byte_offsets(text, [s.start for s in spans])
    want = sorted((b, s.doi, str(s.form)) for b, s in zip(starts, spans, strict=True))
    cuts = [0] + [data.index(b"\n", len(data) * k // ranges) + 1 for k in range(1, ranges)] + [-1]
    for name, payload, comp in (("a.txt", data, False), ("b.txt.gz", gzip.compress(data), True)):
        (tmp_path / name).write_bytes(payload)
        got, bad, counts = [], 0, 0
        for a, b in itertools.pairwise(cuts):
            spec = ShardSpec(
                0,
                name,
                str(tmp_path / name),
                InputType("text", "gzip" if comp else None),
                a,
                -1 if comp else b,
            )
            occ = occurrence_sink(tmp_path)
            result = ShardResult(0)
            docs = list(input_docs(spec, config, no_progress, result, occ))
            got += list(zip(occ.cols["offset"], occ.cols["doi"], occ.cols["form"], strict=True))
            bad += result.invalid_bytes
            counts += sum(sum(chunk_counts(d.chunk)) for d in docs)
            if comp:
                break  # a compressed file is one shard
        assert sorted(got) == want, name
        assert counts == len(want) and bad == 3, name
    with open(tmp_path / "a.txt", "rb") as f:
        assert regular_file(f, config.map_min) is not None  # the plain file above took the windowed path


def test_windows_are_paced_by_their_hits(tmp_path: Path) -> None:
    """Issue 15: text of nothing but distinct DOIs held a whole 8 MiB window's worth of them
    (240,000) before they were handed on. Windows now shrink where hits are dense and grow back
    where they are sparse, and hits across their changing boundaries are still found once."""
    dense = "".join(f"doi:10.1000/{i} " for i in range(150_000)).encode()
    sparse = b"no identifier on this line at all, only words\n" * 60_000
    data = sparse + dense + sparse + dense[:100_000]
    (tmp_path / "d.txt").write_bytes(data)
    with open(tmp_path / "d.txt", "rb") as f:
        src = FileSource(f.fileno(), 0, len(data), 8 << 20)
        sizes = []
        for hits in (0, 0, 100_000, 100_000, 40_000, 0, 0, 0, 0):
            sizes.append(src.size)
            src.pace(hits)
        src.release()
    assert sizes[0] == FileSource.PACE_MIN
    assert sizes[2] == 4 << 20 and sizes[3] < sizes[2] // 3 and min(sizes) >= FileSource.PACE_MIN // 4
    assert sizes[-1] > sizes[5] and max(sizes) <= 8 << 20
    spans = find_spans(data.decode())
    want = sorted((s.start, s.doi) for s in spans)
    config = ScanConfig(out=str(tmp_path), occurrences=True, map_min=0)
    occ = occurrence_sink(tmp_path)
    list(
        input_docs(
            ShardSpec(0, "d.txt", str(tmp_path / "d.txt"), InputType("text")),
            config,
            no_progress,
            ShardResult(0),
            occ,
        )
    )
    assert sorted(zip(occ.cols["offset"], occ.cols["doi"], strict=True)) == want
    assert len(want) > 150_000


_LONG_PIECES = [p for p in PIECES if p not in ("\x1c", "\x85")]  # control bytes: a binary file


@given(
    st.lists(st.tuples(st.sampled_from(_LONG_PIECES), st.sampled_from([1, 2, 300, 1200, 2600])), max_size=8)
)
def test_windows_agree_with_the_whole_text_on_long_tokens(pieces: list[tuple[str, int]]) -> None:
    """Spec §4: a candidate too long is dropped with the rest of its token. Issue 15: read in
    windows, a token that ran past a window's end was searched again from the next window on
    (4 of 19,000 fuzz cases found a DOI there that find_dois drops)."""
    data = "".join(p * k for p, k in pieces).encode("utf-8", "surrogateescape")
    text = clean(data.decode("utf-8", "surrogateescape"))[0]
    for kind in ("plain", "pdf"):
        want = [s.doi for s in find_spans(text, kind)]
        got = [
            h.doi
            for h in stream_hits(io.BytesIO(data), "x.txt", FindOptions(kind=kind, block_size=4096)).hits
        ]
        assert got == want, kind


def test_a_dropped_token_is_passed_over_into_the_next_windows() -> None:
    text = "*" + "10.1000%2F11" * 2600 + ":" * 1200 + "?id=" * 1200 + "10.12345/abc.def" + "-" * 1200 + "ı"
    assert find_spans(text) == []
    opts = FindOptions(kind="plain", block_size=4096)
    assert list(stream_hits(io.BytesIO(text.encode()), "x.txt", opts).hits) == []
    after = stream_hits(io.BytesIO(text.encode() + b" 10.1000/after"), "x.txt", opts)
    assert [h.doi for h in after.hits] == ["10.1000/after"]


@pytest.mark.parametrize("lines", [1078, 1200, 2500])
def test_windows_keep_the_phase_of_joined_pdf_lines(tmp_path: Path, lines: int) -> None:
    """Spec §5: `10.1234/a-` at a line end joins the next line, so a chain of such lines is read
    MAX_JOINS + 1 at a time from its start. Issue 15 (streams fuzz target): a window starting inside
    the chain started it anew, so the DOIs after it were cut at other lines than in the whole text."""
    data = ("1031234=10.1234/a-\n" * lines).encode()
    want = [(s.start, s.doi) for s in find_spans(data.decode(), "pdf")]
    per = MAX_JOINS + 1
    assert len(want) == lines // per + (lines % per > 0)
    _pdf_windows_agree(tmp_path, data, want)


def _pdf_windows_agree(tmp_path: Path, data: bytes, want: list[tuple[int, str]], **config: Any) -> None:
    """PDF text read in small windows, by `find` and by `scan` (with `config`), gives the hits
    (start, DOI) the whole text gives."""
    got = [
        (h.start, h.doi)
        for h in stream_hits(io.BytesIO(data), "x.txt", FindOptions(kind="pdf", block_size=4096)).hits
    ]
    assert got == want
    path = tmp_path / "in.txt"
    path.write_bytes(data)
    out = tmp_path / "out"
    scan_here([path], out, kind="pdf", occurrences=True, map_min=0, map_window=32 << 10, **config)
    assert sorted((r["byte_offset"], r["doi"]) for r in table(out, "occurrences")) == want


def test_windows_keep_a_page_above_each_hit_for_its_column_top(tmp_path: Path) -> None:
    """Spec §5: a DOI at the foot of a -layout page's left column goes on at the head of its other
    column, up to a page above the piece (bounds.PAGE_CHARS): read in windows, or in byte ranges,
    each hit sees that page as the whole text does (windows.BYTE_LEFT, RANGE_OVERLAP)."""
    row = CLEANING["pdf_rest_at_the_head_of_the_pages_other_column"][0]
    first, rest = row.text.split("\n", 1)
    filler = (
        f"{'  of the text of a reference in the left column':<82}  and of one in the right column\n" * 120
    )
    pages = [
        f"{first}\n{filler}{rest}".replace("1293", str(1293 + i)).replace("014", f"{i:03d}")
        for i in range(60)
    ]
    data = "".join(pages).encode()
    assert len(pages[0]) > 4 * 1024 * 2
    want = [(s.start, s.doi) for s in find_spans(data.decode(), "pdf")]
    assert sum(d.startswith("10.1016/j.molimm.2021.04.") and len(d) == 28 for _, d in want) == 60
    _pdf_windows_agree(tmp_path, data, want, shard_size=200_000)


@pytest.mark.parametrize("kind", ["plain", "pdf"])
def test_windows_resume_by_anchor_where_url_hits_overlap(tmp_path: Path, kind: str) -> None:
    """Spec §4: a URL's DOI starts where its URL starts, up to 512 characters before the `10.`,
    so in one long URL-like token each hit starts before the end of the hit before it. Issue 15
    (streams fuzz target): the next window dropped the hits starting before the last window's
    end, 656 of 1,000 here; windows now resume by anchor, as the whole text does."""
    data = ("ttps://doi.?org/10.1000/182." * 1000).encode()
    want = [(s.start, s.doi) for s in find_spans(data.decode(), kind)]
    hits = list(find_dois(data.decode(), kind))
    assert len(want) == 1000 and hits[1].start < hits[0].end  # overlapping hits
    got = [
        (h.start, h.doi)
        for h in stream_hits(io.BytesIO(data), "x.txt", FindOptions(kind=kind, block_size=4096)).hits
    ]
    assert got == want
    path = tmp_path / "urls.txt"
    path.write_bytes(data)
    out = tmp_path / "out"
    scan_here([path], out, kind=kind, occurrences=True, map_min=0, map_window=32 << 10, shard_size=9000)
    assert sorted((r["byte_offset"], r["doi"]) for r in table(out, "occurrences")) == want


def _markup(n: int) -> bytes:
    """HTML with DOIs in text, links and entities, non-ASCII prose and an invalid byte."""
    forms = [
        '<a href="https://doi.org/10.1000/{i}">doi:10.1000/{i}</a>',
        "<p>voir 10.1000/É{i}.</p>",
        "<li>https://x.org/doi/abs/10.1000/{i}/abstract</li>",
        "<td>doi&#58;10.1002&#47;{i}</td>",
    ]
    parts = [f"<div>Étude {i} – " + forms[i % len(forms)].format(i=i) + "</div>\n" for i in range(n)]
    data = "".join(parts).encode()
    return data[:5000] + b"\xff" + data[5000:]


@pytest.mark.parametrize("kind", ["html", "pdf"])
def test_python_matcher_windows_agree_with_the_whole_text(tmp_path: Path, kind: str) -> None:
    """The window core with the Python matcher: many small windows give what find_spans gives
    on the whole text, offsets in bytes, whether the file is mapped or streamed."""
    data = _markup(6000) if kind == "html" else _mixed_text(8000)
    text = data.decode("utf-8", "surrogateescape")
    spans = find_spans(clean(text)[0], kind)
    starts = byte_offsets(text, [s.start for s in spans])
    want = sorted((b, s.doi, str(s.form)) for b, s in zip(starts, spans, strict=True))
    assert len(want) > 5000
    for map_min in (0, 1 << 40):  # mapped, then streamed
        config = ScanConfig(
            out=str(tmp_path),
            occurrences=True,
            kind=kind,
            map_window=64 << 10,
            map_min=map_min,
            block_size=48 << 10,
        )
        (tmp_path / "doc.txt").write_bytes(data)
        occ = occurrence_sink(tmp_path)
        result = ShardResult(0)
        list(
            input_docs(
                ShardSpec(0, "doc.txt", str(tmp_path / "doc.txt"), InputType("text", kind=kind)),
                config,
                no_progress,
                result,
                occ,
            )
        )
        got = sorted(zip(occ.cols["offset"], occ.cols["doi"], occ.cols["form"], strict=True))
        assert got == want, map_min
        assert result.invalid_bytes == clean(text)[1] > 0 and result.bytes_read == len(data)


def test_a_small_file_is_searched_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import extractor.pipeline.scan.windows as windows

    calls: list[int] = []
    # HTML is read by the C port where it is built, else by find_spans
    where, name = (windows.native, "html_scan") if windows.native.HAVE_C else (windows, "find_spans")
    real = getattr(where, name)

    def counted(text: Any, *a: Any, **k: Any) -> Any:
        calls.append(len(text))
        return real(text, *a, **k)

    monkeypatch.setattr(where, name, counted)
    page = tmp_path / "p.html"
    page.write_text('<p>See <a href="https://doi.org/10.1000/182">doi:10.1000/182</a>.</p>')
    config = ScanConfig(out=str(tmp_path / "out"), buckets=4)
    docs = list(
        input_docs(
            ShardSpec(0, "p.html", str(page), InputType("text")),
            config,
            no_progress,
            ShardResult(0),
            occurrence_sink(tmp_path),
        )
    )
    assert len(calls) == 1  # the last block is known as such: no second pass over the same text
    assert sum(sum(chunk_counts(d.chunk)) for d in docs) == 1  # spec §6: a link is one occurrence


@pytest.mark.parametrize("kind", ["plain", "html", "pdf"])
def test_lines_and_offsets_by_unit_whatever_the_shards(tmp_path: Path, kind: str) -> None:
    """Issue 13: a text file's hits carry their line (first_line in mentions/, line in
    occurrences/) and a byte offset; a record's a character offset and no line. A file cut into
    byte ranges gives every range's lines from the file's first line, as one shard does."""
    rng = random.Random(13)
    lines = []
    for i in range(3000):
        words = " ".join(
            rng.choice(["cites", "the", "work", "of", "ünïcode", "😀"]) for _ in range(rng.randrange(0, 12))
        )
        lines.append(f"{words} doi:10.1234/l{i} {words}" if i % 3 == 0 else words)
    data = ("\n".join(lines) + "\n").encode()
    name = {"plain": "t.txt", "html": "t.html", "pdf": "t.pdf.txt"}[kind]
    f = tmp_path / name
    f.write_bytes(data if kind != "html" else b"<html><body>\n" + data + b"</body></html>\n")
    raw = f.read_bytes()
    want = {m.start(): raw[: m.start()].count(b"\n") + 1 for m in re.finditer(rb"doi:10\.1234/l\d+", raw)}
    outs = {}
    for shard_size in (1 << 30, 20_000):
        out = tmp_path / f"out{shard_size}"
        scan_here([f], out, occurrences=True, shard_size=shard_size, map_min=0, map_window=16 << 10)
        assert run_json(out)["shards"] == (1 if shard_size > 1e6 else pytest.approx(len(raw) / 20_000, abs=2))
        occ = table(out, "occurrences")
        assert {r["byte_offset"]: r["line"] for r in occ} == want
        assert all(r["char_offset"] is None for r in occ)
        mentions = table(out, "mentions")
        assert {m["first_byte_offset"]: m["first_line"] for m in mentions} == want
        assert all(m["first_char_offset"] is None for m in mentions)
        outs[shard_size] = (occ, mentions)
    assert outs[1 << 30] == outs[20_000]
    # a record's text: character offsets, no line
    rec = tmp_path / "r.jsonl"
    rec.write_text(json.dumps({"id": "a", "text": "é\nline two doi:10.1000/182"}) + "\n")
    out = tmp_path / "rec"
    scan_here([rec], out, occurrences=True)
    (m,) = table(out, "mentions")
    assert (m["first_char_offset"], m["first_byte_offset"], m["first_line"]) == (11, None, None)
    (o,) = table(out, "occurrences")
    assert (o["char_offset"], o["byte_offset"], o["line"]) == (11, None, None)
