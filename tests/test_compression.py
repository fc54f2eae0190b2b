"""Compressed inputs (gzip, bzip2, xz, zstd; io/compression.py): the same text in every compression, damaged
and truncated streams rejected not fatal, bombs read in bounded memory, the fast readers equal
to the stdlib's."""

from __future__ import annotations

import bz2
import gzip
import itertools
import lzma
import os
import random
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import zstandard

from extractor.pipeline.io import compression, read

from .helpers import TEXT, run_json, scan_here, table

BLOCK = 1 << 20


def test_same_text_in_every_compression_format(tmp_path: Path) -> None:
    data = TEXT.encode()
    src = tmp_path / "in"
    src.mkdir()
    (src / "plain.txt").write_bytes(data)
    (src / "g.txt.gz").write_bytes(gzip.compress(data))
    (src / "b.bz2").write_bytes(bz2.compress(data))
    (src / "x.txt.xz").write_bytes(lzma.compress(data))
    (src / "z.zst").write_bytes(zstandard.ZstdCompressor().compress(data))
    (src / "gz-named-txt.txt").write_bytes(gzip.compress(data))  # magic bytes decide, not names
    out = tmp_path / "out"
    scan_here([src], out)
    by_source: dict[str, set[tuple[str, int, int]]] = {}
    for m in table(out, "mentions"):
        by_source.setdefault(os.path.basename(m["source"]), set()).add(
            (m["doi"], m["count"], m["first_byte_offset"])
        )
    assert len(by_source) == 6
    expected = by_source["plain.txt"]
    raw = TEXT.encode()
    assert expected == {
        ("10.1000/182", 2, raw.index(b"doi:10.1000/182")),
        ("10.1038/nature12373", 1, raw.index(b"https://doi.org/10.1038")),
        ("10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-o", 1, raw.index(b"10.1002")),
    }
    assert all(v == expected for v in by_source.values())
    dois = {d["doi"]: d for d in table(out, "dois")}
    assert dois["10.1000/182"]["occurrences"] == 12 and dois["10.1000/182"]["documents"] == 6


def test_a_text_that_starts_with_a_magics_letters_is_a_text(tmp_path: Path) -> None:
    # bzip2's "BZh" is letters: its block size and a block's (or the end's) magic must follow
    texts = [b"BZh, a code in a list: doi:10.1000/1\n", b"BZh9 then words doi:10.1000/2\n"]
    for i, data in enumerate(texts):
        (tmp_path / f"t{i}.txt").write_bytes(data)
    out = tmp_path / "out"
    scan_here(sorted(tmp_path.glob("t*.txt")), out)
    assert sorted(m["doi"] for m in table(out, "mentions")) == ["10.1000/1", "10.1000/2"]
    assert compression.detect_compression(bz2.compress(b"")) == "bzip2"  # an empty stream: its end magic
    assert compression.detect_compression(bz2.compress(b"doi")[:6]) == "bzip2"  # one cut short
    assert compression.detect_compression(b"BZh91AY&SX") is None


def test_nul_byte_after_first_read_buffer_does_not_end_file(tmp_path: Path) -> None:
    body = ("filler words " * 80 + "\n") * (BLOCK // 1000 + 10)
    f = tmp_path / "nul.txt"
    f.write_bytes(b"doi:10.1000/first\n" + body.encode() + b"\x00\x00 doi:10.1000/after-nul\x00 end\n")
    out = tmp_path / "out"
    scan_here([f], out)
    assert {m["doi"] for m in table(out, "mentions")} == {"10.1000/first", "10.1000/after-nul"}


def test_line_longer_than_read_block(tmp_path: Path) -> None:
    filler = "x" * 100 + " "
    line = filler * (BLOCK // 101 + 50)
    doi_at = len(line) // 2
    line = line[:doi_at] + " doi:10.1000/in-the-middle " + line[doi_at:] + " https://doi.org/10.1000/at-end"
    f = tmp_path / "long.txt"
    f.write_text(line)
    out = tmp_path / "out"
    scan_here([f], out)
    rows = {m["doi"]: m for m in table(out, "mentions")}
    assert set(rows) == {"10.1000/in-the-middle", "10.1000/at-end"}
    raw = f.read_bytes()
    for m in rows.values():
        assert raw[m["first_byte_offset"] :].startswith(m["first_raw"].encode())


@pytest.mark.parametrize("fmt", ["gz", "bz2", "xz", "zst"])
def test_corrupt_archive_of_every_format_is_rejected_not_fatal(tmp_path: Path, fmt: str) -> None:
    data = b"doi:10.1000/182\n" * 2000
    compressors: dict[str, Callable[[bytes], bytes]] = {
        "gz": gzip.compress,
        "bz2": bz2.compress,
        "xz": lzma.compress,
        "zst": zstandard.ZstdCompressor().compress,
    }
    comp = compressors[fmt]
    blob = comp(data)
    (tmp_path / f"garbage.{fmt}").write_bytes(blob[:6] + bytes(range(256)) * 4)  # magic, then noise
    (tmp_path / f"truncated.{fmt}").write_bytes(blob[: len(blob) // 2])
    (tmp_path / "good.txt").write_text("doi:10.1000/good\n")
    out = tmp_path / "out"
    scan_here([tmp_path / f"garbage.{fmt}", tmp_path / f"truncated.{fmt}", tmp_path / "good.txt"], out)
    run = run_json(out)
    assert {os.path.basename(r["source"]) for r in run["rejected"]} == {f"garbage.{fmt}"}
    # cut short, not corrupt: read up to the cut, and named (tests/test_messy.py)
    assert [os.path.basename(p["source"]) for p in run["partial"]] == [f"truncated.{fmt}"]
    assert "10.1000/good" in {m["doi"] for m in table(out, "mentions")}


def _large_gzip_text(lines: int) -> bytes:
    """Text that gzip leaves larger than compression.READ_AHEAD_MIN, so it is read ahead in a thread."""
    rng = random.Random(7)
    return b"".join(
        b"%08x %s doi:10.%d/%x.%x\n"
        % (n, rng.randbytes(24).hex().encode(), 1000 + n % 97, rng.getrandbits(40), n)
        for n in range(lines)
    )


def test_a_large_gzip_read_ahead_gives_what_its_plain_text_gives(tmp_path: Path) -> None:
    """Issue 14: a gzip file of READ_AHEAD_MIN or more is decompressed in a thread ahead of the
    search; its rows are those of the same text uncompressed, and no thread is left behind."""
    data = _large_gzip_text(60_000)
    blob = gzip.compress(data, compresslevel=1)
    assert len(blob) >= compression.READ_AHEAD_MIN
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "refs.txt").write_bytes(data)
    (tmp_path / "b" / "refs.txt").write_bytes(blob)  # the same name: sources compare equal
    threads = threading.active_count()
    plain = scan_here([tmp_path / "a"], tmp_path / "out-a", shard_size=1 << 40)
    packed = scan_here([tmp_path / "b"], tmp_path / "out-b")
    assert threading.active_count() == threads
    assert packed.summary["hits"] == plain.summary["hits"] == 60_000
    rows = [
        [{k: v for k, v in m.items() if k != "source"} for m in table(tmp_path / out, "mentions")]
        for out in ("out-a", "out-b")
    ]
    assert rows[0] == rows[1]


@pytest.mark.parametrize("damage", ["truncated", "garbled"])
def test_a_large_damaged_gzip_read_ahead_is_rejected_not_fatal(tmp_path: Path, damage: str) -> None:
    """The read-ahead thread's error reaches the shard as a plain reader's would: the input is
    rejected with its reason, the scan goes on, and the thread stops."""
    blob = gzip.compress(_large_gzip_text(60_000), compresslevel=1)
    cut = len(blob) * 2 // 3
    bad = blob[:cut] if damage == "truncated" else blob[:cut] + bytes(range(256)) * 64 + blob[cut:]
    (tmp_path / "bad.txt.gz").write_bytes(bad)
    (tmp_path / "good.txt").write_text("doi:10.1000/good\n")
    threads = threading.active_count()
    out = tmp_path / "out"
    scan_here([tmp_path / "bad.txt.gz", tmp_path / "good.txt"], out)
    assert threading.active_count() == threads
    run = run_json(out)
    # corrupt: rejected whole; cut short: read up to the cut, and named
    named = run["rejected"] if damage != "truncated" else run["partial"]
    assert [os.path.basename(r["source"]) for r in named] == ["bad.txt.gz"]
    assert "10.1000/good" in {m["doi"] for m in table(out, "mentions")}


def test_multi_frame_zstd_is_read_to_its_end(tmp_path: Path) -> None:
    # Concatenated frames (pzstd, cat a.zst b.zst) are one stream: every frame is read.
    z = zstandard.ZstdCompressor()
    f = tmp_path / "frames.zst"
    f.write_bytes(z.compress(b"doi:10.1000/first\n" * 100) + z.compress(b"doi:10.1000/second\n" * 100))
    out = tmp_path / "out"
    scan_here([f], out)
    assert {(m["doi"], m["count"]) for m in table(out, "mentions")} == {
        ("10.1000/first", 100),
        ("10.1000/second", 100),
    }


def _zstd_streams() -> list[list[bytes]]:
    """Streams as their frames, of every header shape: content size or not, checksum or not,
    levels, a dictionary id, empty, RLE-heavy, several frames and skippable frames."""
    text = b"doi:10.1000/182 and more text\n" * 3000
    skippable = b"\x5a\x2a\x4d\x18" + (6).to_bytes(4, "little") + b"hello!"
    dict_data = zstandard.train_dictionary(
        1024, [b"sample %d doi:10.1000/%d\n" % (i, i) * 20 for i in range(200)]
    )
    frames = [
        zstandard.ZstdCompressor().compress(text),
        zstandard.ZstdCompressor(level=19, write_checksum=True).compress(text),
        zstandard.ZstdCompressor(write_content_size=False).compress(b"x" * 300_000),
        zstandard.ZstdCompressor().compress(b""),
        zstandard.ZstdCompressor(dict_data=dict_data, write_dict_id=True).compress(text[:500]),
    ]
    return [[f] for f in frames] + [[frames[0], skippable, frames[1], frames[3]], [skippable, frames[2]]]


def test_zstd_frame_walk_knows_where_every_frame_ends() -> None:
    """ZstdFrames (RFC 8878 §3.1) is what tells a truncated zstd stream from a whole one: fed
    any stream cut anywhere, it is complete exactly at the ends of frames."""
    for parts in _zstd_streams():
        blob = b"".join(parts)
        ends = set(itertools.accumulate(len(p) for p in parts))
        for cut in sorted({*range(0, len(blob), max(1, len(blob) // 300)), *ends, *(e - 1 for e in ends)}):
            frames = compression.ZstdFrames()
            for i in range(0, cut, 7):  # fed in small pieces, as headers straddle reads
                frames.feed(blob[i : min(i + 7, cut)])
            assert frames.complete == (cut == 0 or cut in ends), (cut, len(blob))


def test_a_truncated_zstd_stream_is_an_error_at_any_cut(tmp_path: Path) -> None:
    for parts in _zstd_streams()[:3]:
        blob = parts[0]
        for cut in range(4, len(blob), max(1, len(blob) // 40)):  # 4: the magic, or it is no zstd
            f = tmp_path / "cut.zst"
            f.write_bytes(blob[:cut])
            with pytest.raises((EOFError, zstandard.ZstdError)):
                read.read_all(str(f))


def test_a_zstd_bomb_is_read_in_bounded_memory(tmp_path: Path) -> None:
    """Issue 15: 98 KB of zstd (3 GiB of one byte) took a worker to 2.1 GB, as one call of
    zstandard's decompressobj gives all that its input holds. Read here in a fresh process."""
    bomb = tmp_path / "bomb.zst"
    cctx = zstandard.ZstdCompressor(level=19)
    with open(bomb, "wb") as f, cctx.stream_writer(f) as w:
        block = b"a" * (1 << 24)
        for _ in range(48):  # 768 MiB
            w.write(block)
    assert bomb.stat().st_size < 100_000
    code = (
        "import resource, sys\n"
        "from extractor.pipeline.io.read import open_stream\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "s, _ = open_stream(sys.argv[1])\n"
        "n = 0\n"
        "while (b := s.read(1 << 20)):\n"
        "    n += len(b)\n"
        "print(n, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(bomb)], capture_output=True, text=True, check=True)
    n, grown_mb = map(int, out.stdout.split())
    assert n == 48 << 24
    assert grown_mb < 32, out.stdout


def test_fast_readers_give_what_the_stdlib_gives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 14: gzip through python-isal and JSONL lines through orjson (the fast extra) read
    every input to the same records as the stdlib — orjson's refusals (lone surrogate escapes,
    NaN, integers over 64 bits, invalid UTF-8) are read by the stdlib — and a corrupt member is
    the same rejected input."""
    from extractor.pipeline.formats import jsonlines
    from extractor.pipeline.io import compression

    assert (
        jsonlines.orjson_module() is not None and compression.gzip_readers()[0] is not gzip.GzipFile
    )  # the fast path is on
    lines = [
        b'{"id": "a", "text": "doi:10.1000/1"}',
        b'{"id": "b", "text": "lone \\ud800 doi:10.1000/2"}',
        b'{"id": "c", "text": "doi:10.1000/3", "score": NaN}',
        b'{"id": 123456789012345678901234567890, "text": "doi:10.1000/4"}',
        b'{"id": "e", "text": "caf\xe9 doi:10.1000/5"}',
        b'{"id": "f", "text": "doi:10.1000/6", "id": "f2"}',
        b"[1, 2]",
        b'{"id": "h", "text": 7}',
        b'{"id": "i" "text": "broken"}',
        b'{"id": "j", "text": "\\u00e9t\\u00e9 doi:10.1000/\\u00e9"}',
    ]
    f = tmp_path / "r.jsonl.gz"
    f.write_bytes(gzip.compress(b"\n".join(lines[:5]) + b"\n") + gzip.compress(b"\n".join(lines[5:]) + b"\n"))
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(f.read_bytes()[:-30])

    def read_both() -> list[Any]:
        got: list[Any] = []
        for path in (f, bad):
            try:
                with read.open_stream(str(path))[0] as stream:
                    recs = [
                        (rid, t if isinstance(t, str) else repr(t), n)
                        for rid, t, n, _meta in jsonlines.iter_jsonl_records(stream, "text", "id")
                    ]
                got.extend(recs)
            except (EOFError, OSError) as exc:
                # a truncated input is rejected whole (how far each reader got before it is not
                # a result: isal reads larger steps)
                got.append(("error", type(exc).__name__))
        return got

    fast = read_both()
    monkeypatch.setattr(jsonlines, "ORJSON", None)
    monkeypatch.setattr(compression, "GZIP_FILE", gzip.GzipFile)
    assert read_both() == fast
    assert [r[0] for r in fast if r[0] != "error"][:6] == [
        "a",
        "b",
        "c",
        "123456789012345678901234567890",
        "e",
        "f2",
    ]
    assert fast[-1] == ("error", "EOFError")


def test_lines_of_a_compressed_and_a_utf16_file(tmp_path: Path) -> None:
    text = "".join(f"line {i}: doi:10.1000/{i}\n" if i % 7 == 0 else f"line {i}\n" for i in range(5000))
    (tmp_path / "a.txt.gz").write_bytes(gzip.compress(text.encode()))
    (tmp_path / "b.txt").write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    out = tmp_path / "out"
    scan_here([tmp_path / "a.txt.gz", tmp_path / "b.txt"], out, block_size=4096)
    for m in table(out, "mentions"):
        assert m["first_line"] == int(m["doi"].split("/")[1]) + 1, m
