"""Shards and whole runs in this process (the in-process engine): planning, resume, rejected
inputs, retries, bounded buffers, odd files and folders, progress."""

from __future__ import annotations

import bz2
import errno
import gzip
import json
import os
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard

from extractor.engines.inprocess import InProcessEngine
from extractor.pipeline import InputType, ScanConfig, ShardResult, ShardSpec
from extractor.pipeline.errors import InputError
from extractor.pipeline.out.output import output_folder
from extractor.pipeline.run import FinishedOutput, Observer, run_scan
from extractor.pipeline.scan.documents import input_docs
from extractor.pipeline.shard import run_shard, work
from extractor.pipeline.units import no_progress

from .helpers import corrupt_gzip, make_corpus, occurrence_sink, run_json, scan_here, table

BLOCK = 1 << 20


def test_rerun_skips_completed_shards(tmp_path: Path) -> None:
    src = make_corpus(tmp_path)
    out = tmp_path / "out"
    scan_here([src], out, keep_work=True)
    first = table(out, "mentions")
    scan_here([src], out, keep_work=True)
    assert run_json(out)["shards_resumed"] == run_json(out)["shards"]
    assert table(out, "mentions") == first
    scan_here([src], out, force=True)
    assert run_json(out)["shards_resumed"] == 0


def test_a_complete_run_leaves_only_its_result(tmp_path: Path) -> None:
    """Issue 13: a 4-file input left 33 files, `_work/` 4x the size of `mentions/`. After a
    complete run only the datasets and _run.json remain (and the folder's marker); --keep-work
    keeps the partial files for an incremental rerun."""
    src = make_corpus(tmp_path)
    out = tmp_path / "out"
    scan_here([src], out, occurrences=True)
    assert sorted(os.listdir(out)) == [
        ".doi-extract",
        ".doi-extract.lock",
        "_run.json",
        "dois",
        "mentions",
        "occurrences",
    ]
    first = table(out, "mentions")
    scan_here([src], out, occurrences=True)  # nothing to resume from: read again, same result
    assert run_json(out)["shards_resumed"] == 0 and table(out, "mentions") == first
    kept = tmp_path / "kept"
    scan_here([src], kept, keep_work=True)
    assert {"_work", "_shards"} <= set(os.listdir(kept))


def test_rejected_inputs_reported_while_others_processed(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("doi:10.1000/182\n")
    truncated = tmp_path / "trunc.gz"  # cut short: read up to the cut, named as partial
    truncated.write_bytes(gzip.compress(b"doi:10.1000/lost\n" * 1000)[:-30])
    corrupt = tmp_path / "corrupt.gz"
    corrupt.write_bytes(corrupt_gzip(b"doi:10.1000/lost\n" * 1000))
    binary = tmp_path / "image.bin"
    binary.write_bytes(bytes(range(256)) * 64)
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n")
    bad_utf8 = tmp_path / "latin1.txt"
    bad_utf8.write_bytes("caf\xe9 doi:10.1000/latin\n".encode("latin-1"))
    out = tmp_path / "out"
    report = scan_here([good, truncated, corrupt, binary, pdf, bad_utf8, tmp_path / "missing.txt"], out)
    run = run_json(out)
    reasons = {os.path.basename(r["source"]): r["reason"] for r in run["rejected"]}
    assert reasons == {os.path.basename(r["source"]): r["reason"] for r in report.rejected}
    assert set(reasons) == {"corrupt.gz", "image.bin", "paper.pdf", "missing.txt"}
    assert "corrupt" in reasons["corrupt.gz"] or "CRC" in reasons["corrupt.gz"], reasons
    assert [os.path.basename(p["source"]) for p in run["partial"]] == ["trunc.gz"]
    assert "PDF" in reasons["paper.pdf"]
    # the cut gzip's DOIs before the cut are kept; nothing of the corrupt one
    assert {m["doi"] for m in table(out, "mentions")} == {"10.1000/182", "10.1000/latin", "10.1000/lost"}
    assert run["invalid_bytes_replaced"] == 1


@pytest.mark.parametrize("flush_rows", [50_000, 1_000], ids=["buffered", "flushed-mid-input"])
def test_an_input_rejected_part_way_contributes_no_rows(tmp_path: Path, flush_rows: int) -> None:
    """Issue 9: a corrupt gzip (its CRC broken) is rejected, and none of the rows read before
    the fault reach the output, whether they were still buffered or already written to a part
    file."""
    data = b"".join(b"see doi:10.1000/line.%d here\n" % i for i in range(200_000))
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(corrupt_gzip(data))
    group = tmp_path / "group"
    group.mkdir()
    (group / "a.txt").write_text("doi:10.1000/before\n")
    (group / "b.txt.gz").write_bytes(cut.read_bytes())  # mid-group, with small files around it
    (group / "c.txt").write_text("doi:10.1000/after\n")
    for inputs, want in (([cut], set()), ([group], {"10.1000/before", "10.1000/after"})):
        out = tmp_path / f"out-{len(want)}"
        report = scan_here(
            inputs, out, flush_rows=flush_rows, occurrences=True, shard_size=1 << 30, keep_work=True
        )
        assert [os.path.basename(r["source"]) for r in report.rejected] in (["cut.txt.gz"], ["b.txt.gz"])
        assert {m["doi"] for m in table(out, "mentions")} == want
        assert {o["doi"] for o in table(out, "occurrences")} == want
        assert run_json(out)["hits"] == len(want) == len(table(out, "occurrences"))
        if flush_rows < 50_000 and inputs == [cut]:
            assert len(list((out / "_work" / "parts").glob("*.arrow"))) > 1  # rows had been written


def test_output_schema_is_explicit(tmp_path: Path) -> None:
    src = make_corpus(tmp_path)
    out = tmp_path / "out"
    scan_here([src], out)
    files = sorted((out / "mentions").glob("part-*.parquet"))
    assert files
    schema = pq.read_schema(files[0])
    assert schema.names == [
        "source",
        "record",
        "doi",
        "count",
        "first_byte_offset",
        "first_char_offset",
        "first_line",
        "first_raw",
        "forms",
        "parent_doi",
        "entity",
    ]
    assert schema.field("forms").type == pa.list_(pa.string())
    assert pq.ParquetFile(files[0]).metadata.row_group(0).column(0).compression == "ZSTD"
    row = next(
        m for m in table(out, "mentions") if m["source"].endswith("page.html") and m["doi"] == "10.1000/182"
    )
    assert row["forms"] == ["resolver-url"] and row["first_raw"] == "https://doi.org/10.1000%2F182"


def test_transient_errors_are_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import extractor.pipeline.shard as shard

    f = tmp_path / "a.txt"
    f.write_text("doi:10.1000/182\n")
    config = ScanConfig(out=str(tmp_path / "out"), buckets=2)
    spec = ShardSpec(0, str(f), str(f), InputType("text"), 0, -1, "k")
    calls = []
    real = shard.run_shard

    def flaky(*args: Any) -> Any:
        calls.append(1)
        if len(calls) < 3:
            raise InputError("Input/output error") from OSError(errno.EIO, "Input/output error")
        return real(*args)

    monkeypatch.setattr(shard, "run_shard", flaky)
    assert work(spec, config, no_progress, sleep=0).error is None and len(calls) == 3
    calls.clear()
    monkeypatch.setattr(shard, "run_shard", lambda *a: (_ for _ in ()).throw(InputError("not gzip")))
    assert work(spec, config, no_progress, sleep=0).error == "not gzip"


def test_small_files_are_grouped_and_a_bad_one_rejected_alone(tmp_path: Path) -> None:
    src = tmp_path / "many"
    src.mkdir()
    for i in range(300):
        (src / f"f{i:03d}.txt").write_text(f"see doi:10.1000/file.{i}\n")
    (src / "f150.txt.gz").write_bytes(corrupt_gzip(b"doi:10.1000/lost\n" * 500))  # corrupt, mid-group
    out = tmp_path / "out"
    scan_here([src], out, shard_size=4000)
    run = run_json(out)
    assert 1 < run["shards"] < 20  # not one shard per file
    assert [os.path.basename(r["source"]) for r in run["rejected"]] == ["f150.txt.gz"]
    assert {m["doi"] for m in table(out, "mentions")} == {f"10.1000/file.{i}" for i in range(300)}
    assert run["documents"] == 300
    scan_here([src], out, shard_size=4000)  # resumed: still reports the rejected input
    assert [os.path.basename(r["source"]) for r in run_json(out)["rejected"]] == ["f150.txt.gz"]


def test_bounded_buffers_give_the_same_output(tmp_path: Path) -> None:
    """Spilling part files and chunking a document's mentions change memory, not results."""
    src = make_corpus(tmp_path)
    (src / "records.jsonl").write_text(
        "\n".join(json.dumps({"id": i, "text": f"doi:10.1000/r{i} doi:10.1000/r{i}"}) for i in range(40))
        + "\n"
    )

    def run(out: Path, **small: Any) -> list[list[dict[str, Any]]]:
        scan_here([src], out, buckets=4, occurrences=True, shard_size=5000, keep_work=True, **small)
        return [table(out, n) for n in ("mentions", "dois", "occurrences")]

    plain = run(tmp_path / "a")
    spilled = run(tmp_path / "b", flush_rows=7, max_mentions=5)
    assert spilled == plain
    assert len(list((tmp_path / "b" / "_work" / "parts").glob("*.arrow"))) > len(
        list((tmp_path / "a" / "_work" / "parts").glob("*.arrow"))
    )


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses file names that are not UTF-8")
def test_file_name_that_is_not_utf8(tmp_path: Path) -> None:
    d = tmp_path / "in"
    d.mkdir()
    with open(os.path.join(os.fsencode(d), b"caf\xe9-refs.txt"), "wb") as f:
        f.write(b"doi:10.1000/182\n")
    out = tmp_path / "out"
    scan_here([d], out)
    assert [m["source"] for m in table(out, "mentions")] == [f"{d}/caf\\xe9-refs.txt"]


def test_no_dois_still_gives_readable_datasets_and_output_is_never_input(tmp_path: Path) -> None:
    (tmp_path / "prose.txt").write_text("nothing to see here\n")
    out = tmp_path / "out"
    scan_here([tmp_path], out)
    assert table(out, "mentions") == [] and table(out, "dois") == []
    assert pq.read_schema(next((out / "dois").glob("*.parquet"))).names == [
        "doi",
        "occurrences",
        "documents",
        "first_source",
        "first_record",
        "parent_doi",
        "entity",
    ]
    (tmp_path / "refs.txt").write_text("doi:10.1000/182\n")
    scan_here([tmp_path], out)  # out/ lies inside the scanned folder
    assert [os.path.basename(i["source"]) for i in run_json(out)["inputs"]] == ["prose.txt", "refs.txt"]
    assert run_json(out)["rejected"] == []


def test_kind_and_binary_are_decided_once_per_input(tmp_path: Path) -> None:
    """Issue 15: detected per byte range, one HTML-like line made a range of a plain file read
    as HTML (its DOIs changed with --shard-size)."""
    # An entity in each DOI: read as HTML it is decoded (10.1234/item.7), as plain text not.
    lines = [f"cites doi:10.1234/item&#46;{i} more\n" for i in range(4000)]
    for k in range(1000, 4000, 100):  # markup, but only after the head the kind is decided on
        lines[k] = "<p>a line of markup <b>here</b> <div>and <span>there</span></div></p>\n"
    f = tmp_path / "notes.txt"
    f.write_text("".join(lines))
    whole = tmp_path / "whole"
    scan_here([f], whole, occurrences=True)
    for cut in (20_000, 50_000):
        split = tmp_path / f"split{cut}"
        scan_here([f], split, occurrences=True, shard_size=cut)
        assert run_json(split)["shards"] > 1
        assert table(split, "occurrences") == table(whole, "occurrences")
    assert all("&#46;" in o["doi"] for o in table(whole, "occurrences"))  # plain, as its head says


def test_a_range_of_control_bytes_does_not_reject_part_of_an_input(tmp_path: Path) -> None:
    """Issue 15: binary-ness is the input's, decided on its head: a byte range further on with
    control bytes (a log's escape codes) was rejected alone, the rest of the file kept."""
    lines = [f"cites doi:10.1234/item.{i} here\n" for i in range(6000)]
    lines[3000:3300] = ["\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f\x10\x11\n"] * 300
    f = tmp_path / "log.txt"
    f.write_text("".join(lines))
    for map_min in (0, 1 << 40):  # mapped, then streamed
        out = tmp_path / f"out{map_min}"
        report = scan_here([f], out, shard_size=20_000, map_min=map_min)
        assert run_json(out)["shards"] > 5 and report.rejected == []
        assert len(table(out, "mentions")) == 5700
    (tmp_path / "bin.txt").write_bytes(bytes(range(32)) * 3000)  # binary at its head: the whole input
    report = scan_here([tmp_path / "bin.txt"], tmp_path / "out-bin", shard_size=20_000)
    assert [r["reason"] for r in report.rejected] == ["binary data (control bytes in the first block)"]
    assert run_json(tmp_path / "out-bin")["shards"] == 0


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_special_files_and_the_output_folder_are_rejected_not_waited_for(tmp_path: Path) -> None:
    """Issue 15: a FIFO among the inputs hung the scan; OUT given as an input gave 0 inputs."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text("doi:10.1000/182\n")
    os.mkfifo(src / "pipe")
    out = tmp_path / "out"
    report = scan_here([src], out)
    assert [(os.path.basename(r["source"]), r["reason"]) for r in report.rejected] == [
        ("pipe", "not a regular file (a FIFO, socket or device)")
    ]
    assert [m["doi"] for m in table(out, "mentions")] == ["10.1000/182"]
    fresh = tmp_path / "fresh"
    report = scan_here([fresh], fresh)
    assert [r["reason"] for r in report.rejected] == ["is the output folder, or inside it"]
    # into a finished output, a run with nothing to read keeps what is there
    with pytest.raises(FinishedOutput, match="is the output folder, or inside it"):
        scan_here([out], out)
    assert [m["doi"] for m in table(out, "mentions")] == ["10.1000/182"]


def test_an_unreadable_directory_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 15: an unreadable directory was skipped unreported. (The fault is injected: this
    machine runs the tests as root, which reads every directory.)"""
    src = tmp_path / "in"
    (src / "locked").mkdir(parents=True)
    (src / "locked" / "a.txt").write_text("doi:10.1000/locked\n")
    (src / "b.txt").write_text("doi:10.1000/182\n")
    real = os.scandir

    def scandir(path: Any = ".") -> Any:
        if not isinstance(path, int) and os.fspath(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    report = scan_here([src], tmp_path / "out")
    assert [(os.path.basename(r["source"]), r["reason"]) for r in report.rejected] == [
        ("locked", "cannot read directory: Permission denied")
    ]
    assert [m["doi"] for m in table(tmp_path / "out", "mentions")] == ["10.1000/182"]


def test_a_file_cut_short_while_it_is_read_is_rejected_not_fatal(tmp_path: Path) -> None:
    """Issue 15: a mapped file truncated during the scan killed the worker (SIGBUS) and the run."""
    f = tmp_path / "growing.txt"
    f.write_bytes(b"".join(b"see doi:10.1000/%d here\n" % i for i in range(400_000)))
    (tmp_path / "other.txt").write_text("doi:10.1000/182\n")
    cut: list[int] = []

    def progress(nbytes: int, nhits: int) -> None:
        if not cut:  # after the first window, another process cuts the file short
            cut.append(1)
            os.truncate(f, 100_000)

    config = ScanConfig(out=str(tmp_path / "out"), map_window=1 << 20, map_min=0)
    spec = ShardSpec(0, str(f), str(f), InputType("text"))
    with pytest.raises(InputError, match="shrank"):
        list(input_docs(spec, config, progress, ShardResult(0), occurrence_sink(tmp_path)))
    f.write_bytes(b"".join(b"see doi:10.1000/%d here\n" % i for i in range(400_000)))
    cut.clear()
    group = ShardSpec(
        0,
        "g",
        str(f),
        InputType("group"),
        files=((str(f), str(f), "text"), ("o", str(tmp_path / "other.txt"), "text")),
    )
    res = run_shard(group, config, progress)
    assert [r["source"] for r in res.rejected] == [str(f)] and "shrank" in res.rejected[0]["reason"]
    assert res.documents == 1 and res.hits == 1


class _Tally(Observer):
    def planned(self, total_bytes: int, shards: int, resumed: int) -> None:
        self.total, self.read = total_bytes, 0

    def progress(self, nbytes: int, nhits: int) -> None:
        self.read += nbytes


@pytest.mark.parametrize("name", ["t.txt.gz", "t.txt.bz2", "t.txt.zst", "t.jsonl.gz", "t.txt", "t.parquet"])
def test_progress_counts_bytes_as_stored_and_ends_at_the_total(tmp_path: Path, name: str) -> None:
    """Issue 13: the planner's total is the files' sizes, but a compressed input reported the
    bytes it decompressed to, so the bar ran past 100 % and vanished."""
    lines = [f"see doi:10.1000/{i} and some words around it" for i in range(20_000)]
    f = tmp_path / name
    if name.endswith(".parquet"):
        pq.write_table(pa.table({"text": lines}), f, row_group_size=5_000)
    else:
        data = (
            "".join(json.dumps({"text": t}) + "\n" for t in lines)
            if ".jsonl" in name
            else "".join(t + "\n" for t in lines)
        ).encode()
        if name.endswith(".gz"):
            data = gzip.compress(data)
        elif name.endswith(".bz2"):
            data = bz2.compress(data)
        elif name.endswith(".zst"):
            data = zstandard.ZstdCompressor().compress(data)
        f.write_bytes(data)
    tally = _Tally()
    with output_folder(str(tmp_path / "out"), False), InProcessEngine(retry_sleep=0) as engine:
        report = run_scan([str(f)], ScanConfig(out=str(tmp_path / "out")), engine, tally)
    assert report.summary["hits"] == 20_000
    assert tally.total == f.stat().st_size
    if name.endswith(".parquet"):  # row groups as stored; the footer is not read as text
        assert 0.9 * tally.total < tally.read <= tally.total
    else:
        assert tally.read == tally.total


def test_real_paths_resolve_as_os_path_realpath(tmp_path: Path) -> None:
    """inputs.RealPaths resolves each folder once (issue 14) and gives what realpath gives:
    through a linked folder, for a linked file, with .. and for a relative name."""
    import os

    from extractor.pipeline.io.inputs import RealPaths

    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "f").write_text("x")
    (tmp_path / "lnk").symlink_to(tmp_path / "a" / "b")
    (tmp_path / "a" / "fl").symlink_to(tmp_path / "a" / "b" / "f")
    real = RealPaths()
    for p in ("lnk/f", "a/fl", "a/b/../b/f", "a/b/f", "lnk/", "lnk"):
        assert real(str(tmp_path / p)) == os.path.realpath(tmp_path / p), p
    assert real("no-such-name") == os.path.realpath("no-such-name")


class _Inputs(Observer):
    def __init__(self) -> None:
        self.seen: list[tuple[int, int]] = []

    def inputs_done(self, done: int, total: int) -> None:
        self.seen.append((done, total))


def test_progress_counts_inputs_not_shards(tmp_path: Path) -> None:
    """A user counts the files they gave: a group of small files is several inputs in one shard,
    a file in byte ranges one input in several; each counts once, when its last shard is done."""
    for i in range(5):
        (tmp_path / f"small{i}.txt").write_text(f"doi:10.1000/{i}\n")
    big = tmp_path / "big.txt"
    big.write_text("".join(f"line {i} doi:10.1000/b{i}\n" for i in range(3000)))
    obs = _Inputs()
    with output_folder(str(tmp_path / "out"), False), InProcessEngine(retry_sleep=0) as engine:
        report = run_scan(
            [str(tmp_path)],
            ScanConfig(out=str(tmp_path / "out"), shard_size=20_000, keep_work=True),
            engine,
            obs,
        )
    assert report.shards > 2  # the small files' group and the big file's ranges
    assert obs.seen[0] == (0, 6) and obs.seen[-1] == (6, 6)
    assert [d for d, _ in obs.seen] == sorted(d for d, _ in obs.seen)
    # a rerun resumes every shard: every input is done from the start
    obs = _Inputs()
    with output_folder(str(tmp_path / "out"), False), InProcessEngine(retry_sleep=0) as engine:
        run_scan(
            [str(tmp_path)],
            ScanConfig(out=str(tmp_path / "out"), shard_size=20_000, keep_work=True),
            engine,
            obs,
        )
    assert obs.seen == [(6, 6)]
