"""One large gzip or bzip2 file in many shards (io/seekgz.py): its text cut in ranges at line ends
by one pass of rapidgzip, each shard decompressing its own range from the seek points; the rows
are those of the same text uncompressed, and without rapidgzip the file is one shard, as before."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import random
from pathlib import Path
from typing import Any

import pytest

from extractor.pipeline.io import seekgz

from .helpers import run_json, scan_here, table

pytest.importorskip("rapidgzip")

SHARD = 64 << 10


def _noise(i: int) -> str:
    """Words gzip cannot shrink much, so that the file is large as stored too."""
    return random.Random(i).getrandbits(96).to_bytes(12, "big").hex()


def _records(n: int) -> bytes:
    lines = []
    for i in range(n):
        record: dict[str, Any] = {
            "text": f"see doi:10.1000/{i} {_noise(i)} and https://doi.org/10.1038/NATURE{i % 97}."
        }
        if i % 5:
            record["id"] = f"r{i}"  # a fifth without an id: named by its line
        lines.append(json.dumps(record) + "\n")
    lines[7] = '{"id": "no-text"}\n'  # a skipped line, named by its line too
    return "".join(lines).encode()


def _text(n: int) -> bytes:
    return "".join(
        f"ligne {i} – doi:10.1000/{i} {_noise(i)}, 10.1038/nature{i % 97}\n" for i in range(n)
    ).encode()


def _rows(out: Path, name: str) -> list[str]:
    """A dataset's rows but for the input's name."""
    drop = {"source", "first_source"}
    return sorted(str({k: v for k, v in r.items() if k not in drop}) for r in table(out, name))


# bzip2 in blocks of 100 kB (level 1), so that the file holds several and its ranges start inside
COMPRESSIONS = {"gz": gzip.compress, "bz2": lambda data: bz2.compress(data, 1)}


def _streams(data: bytes) -> bytes:
    """bzip2 in several streams, as pbzip2 and lbzip2 write it."""
    third = len(data) // 3
    return b"".join(bz2.compress(data[i : i + third], 1) for i in range(0, len(data), third))


def _members(data: bytes) -> bytes:
    """gzip in several members, as parts concatenated (`cat part*.gz`) are."""
    third = len(data) // 3
    return b"".join(gzip.compress(data[i : i + third]) for i in range(0, len(data), third))


def _frames(data: bytes) -> bytes:
    """zstd in several frames, as pzstd, zstd's seekable format and parts concatenated write it."""
    import zstandard

    fifth = len(data) // 5
    compressor = zstandard.ZstdCompressor()
    return b"".join(compressor.compress(data[i : i + fifth]) for i in range(0, len(data), fifth))


PACKERS = {**COMPRESSIONS, "streams.bz2": _streams, "members.gz": _members, "frames.zst": _frames}


@pytest.mark.parametrize("ext", list(PACKERS))
@pytest.mark.parametrize(("name", "data"), [("r.jsonl", _records(6000)), ("t.txt", _text(6000))])
def test_a_gzip_file_in_ranges_gives_the_rows_of_its_text(
    tmp_path: Path, name: str, data: bytes, ext: str
) -> None:
    plain = tmp_path / "plain" / name
    packed = tmp_path / "packed" / f"{name}.{ext}"
    for p, body in (
        (plain, data),
        (packed, PACKERS[ext](data)),
    ):
        p.parent.mkdir()
        p.write_bytes(body)
    assert packed.stat().st_size >= SHARD  # planned by its contents, not grouped
    scan_here([plain], tmp_path / "a", shard_size=SHARD, occurrences=True)
    scan_here([packed], tmp_path / "b", shard_size=SHARD, occurrences=True, keep_work=True, split_gzip=True)
    a, b = run_json(tmp_path / "a"), run_json(tmp_path / "b")
    assert b["shards"] == a["shards"] > 2
    assert (b["hits"], b["documents"], b["bytes_read"]) == (a["hits"], a["documents"], a["bytes_read"])
    assert [s["first"] for s in b["skipped_records"]] == [s["first"] for s in a["skipped_records"]]
    for dataset in ("mentions", "occurrences", "dois"):
        assert _rows(tmp_path / "b", dataset) == _rows(tmp_path / "a", dataset), dataset
    assert not (tmp_path / "b" / "_work" / "seek").exists()  # the seek points are in the plans


def test_without_rapidgzip_or_when_cut_a_gzip_file_is_one_shard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _records(6000)
    packed = tmp_path / "in" / "r.jsonl.gz"
    packed.parent.mkdir()
    packed.write_bytes(gzip.compress(data))
    scan_here([packed], tmp_path / "split", shard_size=SHARD, split_gzip=True)
    with monkeypatch.context() as m:
        m.setattr(seekgz, "available", lambda compression="gzip": False)
        scan_here([packed], tmp_path / "whole", shard_size=SHARD, split_gzip=True)
    scan_here([packed], tmp_path / "asked-not", shard_size=SHARD, split_gzip=False)
    assert run_json(tmp_path / "asked-not")["shards"] == 1
    assert run_json(tmp_path / "whole")["shards"] == 1 < run_json(tmp_path / "split")["shards"]
    assert _rows(tmp_path / "whole", "mentions") == _rows(tmp_path / "split", "mentions")
    # a download cut short: rapidgzip cannot read it to its end, so it is read as one stream,
    # its records before the cut kept and the cut named (tests/test_messy.py)
    cut = tmp_path / "cut" / "r.jsonl.gz"
    cut.parent.mkdir()
    whole = packed.read_bytes()
    cut.write_bytes(whole[: len(whole) * 2 // 3])
    scan_here([cut], tmp_path / "cut-out", shard_size=SHARD, split_gzip=True)
    run = run_json(tmp_path / "cut-out")
    assert run["shards"] == 1 and run["partial"] and 0 < run["documents"] < 6000
    # parts concatenated: the last one cut, or one before it (rapidgzip refuses that one)
    members = _members(data)
    first = len(gzip.compress(data[: len(data) // 3]))
    for i, body in enumerate((members[:-100], members[: first // 2] + members[first:])):
        cut = tmp_path / "cut" / f"members{i}.jsonl.gz"
        cut.write_bytes(body)
        scan_here([cut], tmp_path / f"members-out{i}", shard_size=SHARD, split_gzip=True)
        assert run_json(tmp_path / f"members-out{i}")["shards"] == 1, i


def test_a_bzip2_file_cut_short_is_one_shard(tmp_path: Path) -> None:
    """Cut inside a block, rapidgzip fails the pass; cut between two blocks, the file lacks its
    end-of-stream marker (seekgz._bzip2_ends): either way one stream, read up to the cut."""
    whole = COMPRESSIONS["bz2"](_records(6000))
    (tmp_path / "in").mkdir()
    assert seekgz._bzip2_ends_stream(whole) and not seekgz._bzip2_ends_stream(whole[:-3])
    for level in (1, 9):  # the marker at every bit offset a file can end it at
        for n in range(0, 400, 7):
            assert seekgz._bzip2_ends_stream(bz2.compress(random.Random(n).randbytes(n), level))
    for i, size in enumerate((len(whole) * 2 // 3, len(whole) - 3)):
        cut = tmp_path / "in" / f"r{i}.jsonl.bz2"
        cut.write_bytes(whole[:size])
        scan_here([cut], tmp_path / f"out{i}", shard_size=SHARD, split_gzip=True)
        run = run_json(tmp_path / f"out{i}")
        assert run["shards"] == 1 and run["partial"], size


def test_scan_split_gzip_on_the_command_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    packed = tmp_path / "r.jsonl.gz"
    packed.write_bytes(gzip.compress(_records(6000)))
    for flag, many in (("--split-gzip", True), ("--no-split-gzip", False)):
        out = tmp_path / flag
        cmd = [sys.executable, "-m", "extractor.cli", "scan", str(packed), "-o", str(out)]
        p = subprocess.run(
            [*cmd, "--shard-size", str(SHARD), flag, "--workers", "2"],
            check=True,
            capture_output=True,
            text=True,
        )
        assert (run_json(out)["shards"] > 1) is many
        # the pass is a wait before the first shard: said, with how to do without it
        assert ("reading a large compressed file once first" in p.stderr) is many, p.stderr


def test_by_default_bzip2_is_split_for_two_workers_and_gzip_for_four(tmp_path: Path) -> None:
    """bzip2 decompresses so slowly that two workers over its ranges beat one shard on 2 cores;
    gzip's second decompression pays from 4 (seekgz.SPLIT_WORKERS, benchmarks/RESULTS.md). The
    count is the engine's workers (a cluster's threads), not the planner's CPUs; asked for or
    refused, a file is split or not whatever the count."""
    from extractor.pipeline.io.inputs import plan_shards
    from extractor.pipeline.units import ScanConfig

    data = _records(6000)
    (tmp_path / "in").mkdir()
    files = []
    for ext, compress in COMPRESSIONS.items():
        path = tmp_path / "in" / f"r.jsonl.{ext}"
        path.write_bytes(compress(data))
        files.append((str(path), str(path)))

    def split(workers: int, asked: bool | None = None) -> set[str]:
        config = ScanConfig(out=str(tmp_path / "out"), shard_size=SHARD, split_gzip=asked)
        specs, _, _ = plan_shards(files, config, workers=workers)
        return {s.path.rsplit(".", 1)[1] for s in specs if s.seek_points}

    assert [split(w) for w in (1, 2, 4)] == [set(), {"bz2"}, {"bz2", "gz"}]
    assert split(1, True) == {"bz2", "gz"} and split(8, False) == set()
    scan_here([files[1][0]], tmp_path / "one", shard_size=SHARD)  # one worker in process
    assert run_json(tmp_path / "one")["shards"] == 1


def test_a_range_reads_its_text_from_its_own_seek_points(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each range carries the seek points it needs (the last before its reach, SPAN apart, the
    first past it), so its shard reads exactly its text with no other file; they cover what a
    text shard reads around its range (seekgz.REACH)."""
    import zlib

    from extractor.pipeline.scan.windows import BYTE_RESERVE, RANGE_OVERLAP

    assert max(RANGE_OVERLAP, 8 * BYTE_RESERVE) <= seekgz.REACH
    # 23 MB that gzip cannot shrink much: rapidgzip keeps a seek point every ~0.3-1 MB stored
    # (one generator for all the noise: _text's generator a line took 3.4 s here)
    noise = random.Random(0).randbytes(12 * 300_000).hex()
    data = "".join(
        f"ligne {i} – doi:10.1000/{i} {noise[24 * i : 24 * i + 24]}, 10.1038/nature{i % 97}\n"
        for i in range(300_000)
    ).encode()
    path = tmp_path / "t.txt.gz"
    path.write_bytes(gzip.compress(data, 1))
    monkeypatch.setattr(seekgz, "REACH", 1000)
    monkeypatch.setattr(seekgz, "SPAN", 1)
    plan = seekgz.plan_ranges(str(path), 1 << 20, 10, threads=1)
    assert plan is not None and len(plan.parts) > 10
    assert plan.size == len(data) and plan.head == data[:10]

    def points(seeks: bytes) -> list[int]:
        """The text offsets of an index's seek points."""
        raw = zlib.decompress(seeks)
        n = int.from_bytes(raw[31:35], "little")
        return [int.from_bytes(raw[35 + 18 * i + 8 : 35 + 18 * i + 16], "little") for i in range(n)]

    every = sorted({p for s in plan.seeks for p in points(s)})
    assert len(every) > 4
    for (a, b), seeks in zip(plan.parts, plan.seeks, strict=True):
        own = points(seeks)  # the last point before the range, those in it, the first past it
        assert own[0] <= a - 1000 or own[0] == 0
        assert b < 0 or own[-1] >= b + 1000
        assert len(own) < len(every) and own == [p for p in every if own[0] <= p <= own[-1]]
    for (a, b), seeks in zip(plan.parts, plan.seeks, strict=True):
        with seekgz.open_at(str(path), seeks, a) as f:
            got = f.read(len(data) if b < 0 else b - a)
        assert got == data[a : None if b < 0 else b]
    changed = tmp_path / "changed.txt.gz"
    changed.write_bytes(gzip.compress(data[: len(data) // 2]))
    with pytest.raises(EOFError):  # the file is no longer the one planned
        seekgz.open_at(str(changed), plan.seeks[-1], plan.parts[-1][0]).read()


def test_the_passes_run_where_the_planner_is_told_and_a_file_stays_whole_where_one_says_no(
    tmp_path: Path,
) -> None:
    """plan_shards leaves the passes over large compressed files to its caller (run_scan gives
    the engine's map: a cluster's workers read them, several at once); the shards are the same
    wherever the passes ran, numbered in input order, and a file whose pass said no is one."""
    from concurrent.futures import ProcessPoolExecutor

    from extractor.pipeline.io.inputs import plan_shards
    from extractor.pipeline.units import ScanConfig

    (tmp_path / "in").mkdir()
    names = ["a.jsonl.gz", "b.txt", "c.txt.bz2", "d.txt"]
    bodies = [gzip.compress(_records(6000)), _text(2000), COMPRESSIONS["bz2"](_text(6000)), b"10.1000/x\n"]
    for name, body in zip(names, bodies, strict=True):
        (tmp_path / "in" / name).write_bytes(body)
    files = [(str(tmp_path / "in" / n), str(tmp_path / "in" / n)) for n in names]
    config = ScanConfig(out=str(tmp_path / "out"), shard_size=SHARD, split_gzip=True)
    asked: list[tuple[Any, ...]] = []

    def in_a_pool(jobs: list[tuple[Any, ...]]) -> list[Any]:
        asked.extend(jobs)
        with ProcessPoolExecutor(2) as pool:
            return list(pool.map(seekgz.plan_ranges, *zip(*jobs, strict=True)))

    here = plan_shards(files, config)
    there = plan_shards(files, config, in_a_pool)
    assert there == here and [a[0] for a in asked] == [files[0][1], files[2][1]]
    specs, _, total = here
    assert [s.index for s in specs] == list(range(len(specs)))
    by_file = [[s for s in specs if s.path == p] for _, p in files[:3]]
    assert len(by_file[0]) > 2 and len(by_file[2]) > 2 and all(s.seek_points for s in by_file[0])
    assert specs[-1].files  # the small file, grouped after the others
    assert total == len(_records(6000)) + len(_text(2000)) + len(_text(6000)) + len(bodies[3])
    whole, _, total = plan_shards(files, config, lambda jobs: [None] * len(jobs))
    assert [len([s for s in whole if s.path == p]) for _, p in files[:3]] == [1, len(by_file[1]), 1]
    assert total == sum(len(b) for b in bodies)  # as stored


def test_a_file_of_several_members_is_whole_where_its_last_member_decodes_to_its_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its size field is its last member's (RFC 1952 §2.3.1), so the pass's text size does not
    tell; the last member found near the end decoding to the file's last byte does."""
    import io

    members = _members(_text(3000))
    assert seekgz._last_member_whole(io.BytesIO(members))
    assert not seekgz._last_member_whole(io.BytesIO(members[:-1]))
    assert not seekgz._last_member_whole(io.BytesIO(members + b"\x1f\x8b\x08"))  # a header alone
    monkeypatch.setattr(seekgz, "LAST_MEMBER", 10)  # the last member beyond reach: not known
    assert not seekgz._last_member_whole(io.BytesIO(members))


def test_a_zstd_file_is_cut_at_its_frames_and_one_of_one_frame_or_cut_short_is_whole(tmp_path: Path) -> None:
    """A frame decompresses on its own (RFC 8878 §3.1.1): a range starts at the frame its text
    falls in (seekzst.py). `zstd FILE` writes one frame, which cannot be cut; a file that does
    not end where a frame ends is read as one stream up to its cut, and named."""
    import zstandard

    from extractor.pipeline.io import seekzst

    data = _records(6000)
    frames = _frames(data)
    found = seekzst.frames(io.BytesIO(frames))
    assert found is not None and len(found) == 6 and sum(size for _, size in found) == len(frames)
    skippable = b"\x50\x2a\x4d\x18" + (4).to_bytes(4, "little") + b"seek"  # passed over
    assert seekzst.frames(io.BytesIO(frames + skippable)) == found
    (tmp_path / "in").mkdir()
    for name, body in (
        ("one.jsonl.zst", zstandard.ZstdCompressor().compress(data)),
        ("cut.jsonl.zst", frames[:-7]),
    ):
        (tmp_path / "in" / name).write_bytes(body)
        scan_here([tmp_path / "in" / name], tmp_path / name, shard_size=SHARD, split_gzip=True)
        assert run_json(tmp_path / name)["shards"] == 1, name
    assert run_json(tmp_path / "cut.jsonl.zst")["partial"]
