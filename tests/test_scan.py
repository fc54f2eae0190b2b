"""`doi-extract scan`: inputs, compression, shards, workers, resume and faults (issue 3)."""

from __future__ import annotations

import bz2
import gzip
import itertools
import json
import lzma
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from extractor.read import BLOCK_SIZE

TEXT = (
    "Intro. See doi:10.1000/182 and https://doi.org/10.1038/nature12373.\n"
    "Again DOI: 10.1000/182; and 10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O.\n"
)


def scan(*args: str, check: int | None = 0) -> subprocess.CompletedProcess[str]:
    p = subprocess.run([sys.executable, "-m", "extractor.cli", "scan", *args], capture_output=True, text=True, timeout=300)
    if check is not None:
        assert p.returncode == check, p.stderr
    return p


def table(out: Path, name: str) -> list[dict[str, Any]]:
    return ds.dataset(str(out / name), format="parquet").to_table().to_pylist()


def run_json(out: Path) -> dict[str, Any]:
    return json.loads((out / "_run.json").read_text())


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
    scan(str(src), "-o", str(out), "--workers", "2", "--quiet")
    mentions = table(out, "mentions")
    by_source: dict[str, set[tuple[str, int, int]]] = {}
    for m in mentions:
        by_source.setdefault(os.path.basename(m["source"]), set()).add((m["doi"], m["count"], m["first_offset"]))
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


def test_nul_byte_after_first_read_buffer_does_not_end_file(tmp_path: Path) -> None:
    body = ("filler words " * 80 + "\n") * (BLOCK_SIZE // 1000 + 10)
    f = tmp_path / "nul.txt"
    f.write_bytes(b"doi:10.1000/first\n" + body.encode() + b"\x00\x00 doi:10.1000/after-nul\x00 end\n")
    out = tmp_path / "out"
    scan(str(f), "-o", str(out), "--quiet")
    assert {m["doi"] for m in table(out, "mentions")} == {"10.1000/first", "10.1000/after-nul"}


def test_line_longer_than_read_block(tmp_path: Path) -> None:
    filler = "x" * 100 + " "
    line = filler * (BLOCK_SIZE // 101 + 50)
    doi_at = len(line) // 2
    line = line[:doi_at] + " doi:10.1000/in-the-middle " + line[doi_at:] + " https://doi.org/10.1000/at-end"
    f = tmp_path / "long.txt"
    f.write_text(line)
    out = tmp_path / "out"
    scan(str(f), "-o", str(out), "--quiet")
    rows = {m["doi"]: m for m in table(out, "mentions")}
    assert set(rows) == {"10.1000/in-the-middle", "10.1000/at-end"}
    raw = f.read_bytes()
    for m in rows.values():
        assert raw[m["first_offset"] :].startswith(m["first_raw"].encode())


def test_doi_straddling_a_shard_cut_found_exactly_once(tmp_path: Path) -> None:
    lines = [f"line {i} cites doi:10.1234/item.{i} in the text\n" for i in range(4000)]
    lines[1000] = "a label at the end of a line DOI:\n"  # label and DOI on two lines, across a cut
    lines[1001] = "10.1234/across-the-cut and more\n"
    data = "".join(lines).encode()
    f = tmp_path / "big.txt"
    f.write_bytes(data)
    whole, split = tmp_path / "whole", tmp_path / "split"
    scan(str(f), "-o", str(whole), "--quiet")
    for cut in range(40_000, 50_000, 2500):
        scan(str(f), "-o", str(split), "--quiet", "--shard-size", str(cut), "--force", "--workers", "2")
        assert run_json(split)["shards"] > 1
        assert table(split, "mentions") == table(whole, "mentions")
        assert table(split, "dois") == table(whole, "dois")
    assert any(m["doi"] == "10.1234/across-the-cut" for m in table(whole, "mentions"))


def test_jsonl_and_parquet_records(tmp_path: Path) -> None:
    recs = [{"id": "a", "text": "doi:10.1000/182 and doi:10.1000/182"}, {"id": 7, "text": "<p>10.1038/nature12373</p>"},
            {"id": "c", "body": "no text field"}, {"id": "d", "text": "nothing here"}]
    jl = tmp_path / "docs.jsonl"
    jl.write_text("\n".join(json.dumps(r) for r in recs) + "\nnot json\n")
    pqf = tmp_path / "docs.parquet"
    pq.write_table(pa.table({"doc_id": ["p1", "p2"], "content": ["https://doi.org/10.1000/182", "x"]}), pqf)
    out = tmp_path / "out"
    scan(str(jl), "-o", str(out), "--quiet")
    rows = [(m["record"], m["doi"], m["count"]) for m in table(out, "mentions")]
    assert sorted(rows) == [("7", "10.1038/nature12373", 1), ("a", "10.1000/182", 2)]
    assert run_json(out)["records_skipped"] == 2
    out2 = tmp_path / "out2"
    scan(str(pqf), "-o", str(out2), "--quiet", "--text-field", "content", "--id-field", "doc_id")
    assert [(m["record"], m["doi"], m["first_offset"]) for m in table(out2, "mentions")] == [("p1", "10.1000/182", 0)]


def _corpus(tmp_path: Path) -> Path:
    src = tmp_path / "corpus"
    src.mkdir()
    for i in range(12):
        text = "".join(f"Ref {j}: doi:10.{1000 + j % 7}/doc{i}.ref{j}\n" for j in range(300))
        (src / f"doc{i:02d}.txt").write_text(text + "shared: 10.1000/182\n")
    (src / "page.html").write_text("<p>https://doi.org/10.1000%2F182 and <b>10.1038/nature12373</b></p>")
    return src


def test_one_and_two_workers_give_identical_output(tmp_path: Path) -> None:
    src = _corpus(tmp_path)
    a, b = tmp_path / "a", tmp_path / "b"
    scan(str(src), "-o", str(a), "--workers", "1", "--quiet", "--occurrences")
    scan(str(src), "-o", str(b), "--workers", "2", "--quiet", "--occurrences", "--shard-size", "4000")
    for name in ("mentions", "dois", "occurrences"):
        assert table(a, name) == table(b, name), name
    assert len(table(a, "occurrences")) == run_json(a)["hits"] == 12 * 301 + 2


def test_killed_run_resumes_to_the_same_output(tmp_path: Path) -> None:
    src = _corpus(tmp_path)
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    scan(str(src), "-o", str(clean), "--quiet", "--workers", "1", "--shard-size", "3000")
    for delay in (0.6, 1.2, 2.0):
        p = subprocess.Popen([sys.executable, "-m", "extractor.cli", "scan", str(src), "-o", str(killed), "--quiet",
                              "--workers", "2", "--shard-size", "3000", "--force"], start_new_session=True)
        time.sleep(delay)
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        scan(str(src), "-o", str(killed), "--quiet", "--workers", "2", "--shard-size", "3000")
        assert table(killed, "mentions") == table(clean, "mentions")
        assert table(killed, "dois") == table(clean, "dois")
        assert not [n for n in os.listdir(killed) if ".tmp" in n]


def test_rerun_skips_completed_shards(tmp_path: Path) -> None:
    src = _corpus(tmp_path)
    out = tmp_path / "out"
    scan(str(src), "-o", str(out), "--quiet")
    first = table(out, "mentions")
    scan(str(src), "-o", str(out), "--quiet")
    assert run_json(out)["shards_resumed"] == run_json(out)["shards"]
    assert table(out, "mentions") == first
    scan(str(src), "-o", str(out), "--quiet", "--force")
    assert run_json(out)["shards_resumed"] == 0


def test_rejected_inputs_reported_while_others_processed(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("doi:10.1000/182\n")
    truncated = tmp_path / "trunc.gz"
    truncated.write_bytes(gzip.compress(b"doi:10.1000/lost\n" * 1000)[:-30])
    binary = tmp_path / "image.bin"
    binary.write_bytes(bytes(range(256)) * 64)
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n")
    bad_utf8 = tmp_path / "latin1.txt"
    bad_utf8.write_bytes("caf\xe9 doi:10.1000/latin\n".encode("latin-1"))
    out = tmp_path / "out"
    p = scan(str(good), str(truncated), str(binary), str(pdf), str(bad_utf8), str(tmp_path / "missing.txt"), "-o", str(out),
             "--quiet", check=1)
    run = run_json(out)
    reasons = {os.path.basename(r["source"]): r["reason"] for r in run["rejected"]}
    assert set(reasons) == {"trunc.gz", "image.bin", "paper.pdf", "missing.txt"}
    assert "truncated" in reasons["trunc.gz"] or "EOF" in reasons["trunc.gz"]
    assert "PDF" in reasons["paper.pdf"]
    assert "missing.txt" in p.stderr
    assert {m["doi"] for m in table(out, "mentions")} == {"10.1000/182", "10.1000/latin"}
    assert run["invalid_bytes_replaced"] == 1


def test_inputs_globs_lists_and_stdin(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("doi:10.1000/a\n")
    (tmp_path / "b.txt").write_text("doi:10.1000/b\n")
    (tmp_path / "list").write_text(f"{tmp_path / 'b.txt'}\n# a comment\n")
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-m", "extractor.cli", "scan", str(tmp_path / "a*.txt"), f"@{tmp_path / 'list'}", "-",
                        "-o", str(out), "--quiet"], input=b"doi:10.1000/stdin\n", capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    got = {(os.path.basename(m["source"]), m["doi"]) for m in table(out, "mentions")}
    assert got == {("a.txt", "10.1000/a"), ("b.txt", "10.1000/b"), ("-", "10.1000/stdin")}


def test_output_schema_is_explicit(tmp_path: Path) -> None:
    src = _corpus(tmp_path)
    out = tmp_path / "out"
    scan(str(src), "-o", str(out), "--quiet")
    files = sorted((out / "mentions").glob("part-*.parquet"))
    assert files
    schema = pq.read_schema(files[0])
    assert schema.names == ["source", "record", "doi", "count", "first_offset", "first_raw", "forms"]
    assert schema.field("forms").type == pa.list_(pa.string())
    assert pq.ParquetFile(files[0]).metadata.row_group(0).column(0).compression == "ZSTD"
    row = next(m for m in table(out, "mentions") if m["source"].endswith("page.html") and m["doi"] == "10.1000/182")
    assert row["forms"] == ["resolver-url"] and row["first_raw"] == "https://doi.org/10.1000%2F182"


@pytest.mark.slow
def test_demo_script_scans_the_sample(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent
    p = subprocess.run([str(root / "scripts" / "demo"), str(tmp_path / "out")], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert "distinct DOIs" in p.stdout
    assert len(table(tmp_path / "out", "dois")) == 27


def test_enormous_jsonl_record_is_streamed_not_held(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import extractor.shard as shard

    monkeypatch.setattr(shard, "MAX_RECORD_BYTES", 1 << 20)  # records over 1 MiB are streamed
    filler = "lorem ipsum dolor – sit amet, consectetur adipiscing élit 😀 " * 40  # offsets count characters
    parts = [filler + f"doi:10.1234\\/rec.{i}\\n" for i in range(400)]  # JSON escapes inside
    big_text = "".join(parts)
    f = tmp_path / "big.jsonl"
    f.write_text('{"id": "first", "text": "' + big_text + '"}\n'
                 '{"text": "' + big_text + '", "id": 99}\n'
                 '{"id": "small", "text": "doi:10.1234/small"}\n', encoding="utf-8")
    opts = shard.Options(str(tmp_path / "out"), 4, True, "text", "id", False)
    spec = shard.ShardSpec(0, str(f), str(f), "jsonl", None, 0, -1, "k")
    res = shard.run_shard(spec, opts, lambda a, b: None)
    assert res.error is None and res.documents == 3 and res.skipped_records == 0
    occ = pq.read_table(shard.shard_paths(opts.out, spec)[1] + "-0000.parquet").to_pylist()
    by_record: dict[str | None, list[dict[str, Any]]] = {}
    for row in occ:
        by_record.setdefault(row["record"], []).append(row)
    assert set(by_record) == {"first", "99", "small"}
    decoded = json.loads('"' + big_text + '"')
    for rid in ("first", "99"):
        rows = by_record[rid]
        assert [r["doi"] for r in rows] == [f"10.1234/rec.{i}" for i in range(400)]
        assert all(decoded[r["offset"] :].startswith(r["raw"]) for r in rows)  # character offsets


def test_transient_errors_are_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    import extractor.scan as scan_mod

    f = tmp_path / "a.txt"
    f.write_text("doi:10.1000/182\n")
    opts = scan_mod.Options(str(tmp_path / "out"), 2, False, "text", "id", False)
    spec = scan_mod.ShardSpec(0, str(f), str(f), "text", None, 0, -1, "k")
    calls = []
    real = scan_mod.run_shard

    def flaky(*args: Any) -> Any:
        calls.append(1)
        if len(calls) < 3:
            raise scan_mod.InputError("Input/output error") from OSError(errno.EIO, "Input/output error")
        return real(*args)

    monkeypatch.setattr(scan_mod, "run_shard", flaky)
    monkeypatch.setattr(scan_mod.time, "sleep", lambda s: None)
    assert scan_mod._work(spec, opts).error is None and len(calls) == 3
    calls.clear()
    monkeypatch.setattr(scan_mod, "run_shard", lambda *a: (_ for _ in ()).throw(scan_mod.InputError("not gzip")))
    assert scan_mod._work(spec, opts).error == "not gzip"


def test_ctrl_c_stops_cleanly_with_nothing_half_written(tmp_path: Path) -> None:
    src = _corpus(tmp_path)
    for i in range(30):
        (src / f"more{i:02d}.txt").write_text("".join(f"doi:10.1234/x{i}.{j}\n" for j in range(20000)))
    out = tmp_path / "out"
    # read as PDF text (the slowest kind), so that the interrupt comes while shards run
    p = subprocess.Popen([sys.executable, "-m", "extractor.cli", "scan", str(src), "-o", str(out), "--workers", "2",
                          "--kind", "pdf", "--quiet"], stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert "interrupted" in err
    visible = [str(q.relative_to(out)) for q in out.rglob("*") if not q.name.startswith(".")]
    assert not [v for v in visible if ".tmp" in v]
    assert not (out / "mentions").exists()  # nothing published from an interrupted run
    scan(str(src), "-o", str(out), "--quiet")
    assert len(table(out, "dois")) > 0


def test_small_files_are_grouped_and_a_bad_one_rejected_alone(tmp_path: Path) -> None:
    src = tmp_path / "many"
    src.mkdir()
    for i in range(300):
        (src / f"f{i:03d}.txt").write_text(f"see doi:10.1000/file.{i}\n")
    (src / "f150.txt.gz").write_bytes(gzip.compress(b"doi:10.1000/lost\n" * 500)[:-20])  # corrupt, mid-group
    out = tmp_path / "out"
    p = scan(str(src), "-o", str(out), "--quiet", "--workers", "2", "--shard-size", "4000", check=1)
    run = run_json(out)
    assert 1 < run["shards"] < 20  # not one shard per file
    assert [os.path.basename(r["source"]) for r in run["rejected"]] == ["f150.txt.gz"]
    assert "f150.txt.gz" in p.stderr
    assert {m["doi"] for m in table(out, "mentions")} == {f"10.1000/file.{i}" for i in range(300)}
    assert run["documents"] == 300
    scan(str(src), "-o", str(out), "--quiet", check=1)  # resumed: still reports the rejected input
    assert [os.path.basename(r["source"]) for r in run_json(out)["rejected"]] == ["f150.txt.gz"]


def test_bounded_buffers_give_the_same_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Spilling part files and chunking a document's mentions change memory, not results."""
    import argparse

    import extractor.dedupe as dedupe
    import extractor.scan as scan_mod
    import extractor.shard as shard

    src = _corpus(tmp_path)
    (src / "records.jsonl").write_text("\n".join(json.dumps({"id": i, "text": f"doi:10.1000/r{i} doi:10.1000/r{i}"})
                                                for i in range(40)) + "\n")

    def run(out: Path) -> list[dict[str, Any]]:
        args = argparse.Namespace(kind=None, shard_size=5000)
        opts = shard.Options(str(out), 4, True, "text", "id", False)
        files, _ = scan_mod.expand_inputs([str(src)], str(out / "_spool"))
        specs, _, _ = scan_mod.plan_shards(files, args, "k")
        done = {s.index: shard.run_shard(s, opts, lambda a, b: None) for s in specs}
        scan_mod.finalize(str(out), specs, done, opts)
        return [table(out, n) for n in ("mentions", "dois", "occurrences")]

    plain = run(tmp_path / "a")
    monkeypatch.setattr(shard, "FLUSH_ROWS", 7)
    monkeypatch.setattr(dedupe, "MAX_MENTIONS", 5)
    spilled = run(tmp_path / "b")
    assert spilled == plain
    assert len(list((tmp_path / "b" / "_work" / "parts").glob("*.arrow"))) > len(
        list((tmp_path / "a" / "_work" / "parts").glob("*.arrow")))


def _descendants(pid: int) -> list[int]:
    """Children, grandchildren, …: workers are forked from a fork server, a child of the scan."""
    from benchmarks.run import _children_rss

    parents = _children_rss()[0]
    out: list[int] = []
    frontier = [pid]
    while frontier:
        kids = [c for c, p in parents.items() if p in frontier]
        out += kids
        frontier = kids
    return out


def _is_worker(pid: int) -> bool:
    try:
        return b"multiprocessing" in Path(f"/proc/{pid}/cmdline").read_bytes()  # a zombie's is empty
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal is Linux's")
def test_killed_scan_leaves_no_orphan_workers(tmp_path: Path) -> None:
    src = _corpus(tmp_path)
    for i in range(20):
        (src / f"more{i:02d}.txt").write_text("".join(f"doi:10.1234/x{i}.{j}\n" for j in range(30000)))
    p = subprocess.Popen([sys.executable, "-m", "extractor.cli", "scan", str(src), "-o", str(tmp_path / "out"),
                          "--workers", "2", "--quiet", "--shard-size", "100000"])
    workers: list[int] = []
    deadline = time.monotonic() + 20
    while len(workers) < 3 and time.monotonic() < deadline:  # the fork server and two workers
        workers = [c for c in _descendants(p.pid) if _is_worker(c)]
        time.sleep(0.05)
    assert workers, "no worker started"
    os.kill(p.pid, signal.SIGKILL)  # the parent only, as an OOM killer would
    p.wait()
    deadline = time.monotonic() + 10
    while any(_is_worker(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = [w for w in workers if _is_worker(w)]
    assert not alive, f"orphan workers still running: {alive}"


@pytest.mark.parametrize("fmt", ["gz", "bz2", "xz", "zst"])
def test_corrupt_archive_of_every_format_is_rejected_not_fatal(tmp_path: Path, fmt: str) -> None:
    data = b"doi:10.1000/182\n" * 2000
    comp = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress, "zst": zstandard.ZstdCompressor().compress}[fmt]
    blob = comp(data)
    (tmp_path / f"garbage.{fmt}").write_bytes(blob[:6] + bytes(range(256)) * 4)  # magic, then noise
    (tmp_path / f"truncated.{fmt}").write_bytes(blob[: len(blob) // 2])
    (tmp_path / "good.txt").write_text("doi:10.1000/good\n")
    out = tmp_path / "out"
    p = scan(str(tmp_path / f"garbage.{fmt}"), str(tmp_path / f"truncated.{fmt}"), str(tmp_path / "good.txt"),
             "-o", str(out), "--quiet", check=1)
    assert "Traceback" not in p.stderr
    assert {os.path.basename(r["source"]) for r in run_json(out)["rejected"]} == {f"garbage.{fmt}", f"truncated.{fmt}"}
    assert {m["doi"] for m in table(out, "mentions")} == {"10.1000/good"}
    f = subprocess.run([sys.executable, "-m", "extractor.cli", "find", str(tmp_path / f"garbage.{fmt}")],
                       capture_output=True, text=True, timeout=60)
    assert f.returncode == 2 and "Traceback" not in f.stderr


def test_multi_frame_zstd_is_read_to_its_end(tmp_path: Path) -> None:
    # Concatenated frames (pzstd, cat a.zst b.zst) are one stream: every frame is read.
    z = zstandard.ZstdCompressor()
    f = tmp_path / "frames.zst"
    f.write_bytes(z.compress(b"doi:10.1000/first\n" * 100) + z.compress(b"doi:10.1000/second\n" * 100))
    out = tmp_path / "out"
    scan(str(f), "-o", str(out), "--quiet")
    assert {(m["doi"], m["count"]) for m in table(out, "mentions")} == {("10.1000/first", 100), ("10.1000/second", 100)}


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses file names that are not UTF-8")
def test_file_name_that_is_not_utf8(tmp_path: Path) -> None:
    d = tmp_path / "in"
    d.mkdir()
    with open(os.path.join(os.fsencode(d), b"caf\xe9-refs.txt"), "wb") as f:
        f.write(b"doi:10.1000/182\n")
    out = tmp_path / "out"
    scan(str(d), "-o", str(out), "--quiet")
    assert [m["source"] for m in table(out, "mentions")] == [f"{d}/caf\\xe9-refs.txt"]


def test_lone_surrogates_in_json_records_are_not_fatal(tmp_path: Path) -> None:
    f = tmp_path / "r.jsonl"
    f.write_text('{"id": "a\\udce9", "text": "doi:10.1000/x\\udce9y and doi:10.1000/182 \\ud800"}\n')
    out = tmp_path / "out"
    scan(str(f), "-o", str(out), "--quiet", "--occurrences")
    rows = table(out, "occurrences")
    assert [(r["record"], r["doi"]) for r in rows] == [("a\\xe9", "10.1000/x\ufffdy"), ("a\\xe9", "10.1000/182")]


def test_no_dois_still_gives_readable_datasets_and_output_is_never_input(tmp_path: Path) -> None:
    (tmp_path / "prose.txt").write_text("nothing to see here\n")
    out = tmp_path / "out"
    scan(str(tmp_path), "-o", str(out), "--quiet")
    assert table(out, "mentions") == [] and table(out, "dois") == []
    assert pq.read_schema(next((out / "dois").glob("*.parquet"))).names == ["doi", "occurrences", "documents", "first_source"]
    (tmp_path / "refs.txt").write_text("doi:10.1000/182\n")
    scan(str(tmp_path), "-o", str(out), "--quiet")  # out/ lies inside the scanned folder
    assert [os.path.basename(i["source"]) for i in run_json(out)["inputs"]] == ["prose.txt", "refs.txt"]
    assert run_json(out)["rejected"] == []


def _mixed_text(n: int) -> bytes:
    """Plain text with DOIs in many forms, non-ASCII prose, invalid bytes and long lines."""
    forms = ["10.1000/{i}", "doi:10.1000/{i}", "https://doi.org/10.1000/X{i}", "“10.1002/(SICI){i}”",
             "https://x.org/doi/abs/10.1000/{i}/abstract", "?id=doi%3A10.1000%2F{i}&s=1", "urn:doi:10.1000/{i}"]
    parts = []
    for i in range(n):
        parts.append(f"Étude {i} – voir " + forms[i % len(forms)].format(i=i) + (".\n" if i % 9 else " "))
        if i % 97 == 0:
            parts.append("x" * 3000)
    data = "".join(parts).encode()
    return data[:5000] + b"\xff\xe2\x82 " + data[5000:]


@pytest.mark.parametrize("ranges", [1, 7], ids=["whole", "byte-ranges"])
def test_mapped_and_streamed_plain_text_agree_with_the_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 ranges: int) -> None:
    import extractor.shard as shard
    from extractor.find import find_spans

    monkeypatch.setattr(shard, "MAP_WINDOW", 64 << 10)  # many windows and blocks, each boundary a chance to err
    monkeypatch.setattr(shard, "MAP_MIN", 0)  # map this small file too
    monkeypatch.setattr(shard, "BLOCK_SIZE", 48 << 10)
    data = _mixed_text(30_000)
    text = data.decode("utf-8", "surrogateescape")
    spans = find_spans(shard._clean(text)[0])
    starts = shard._byte_offsets(text, [s for s, _e, _f, _d in spans])
    want = sorted((b, d, str(f)) for b, (_s, _e, f, d) in zip(starts, spans, strict=True))
    cuts = [0] + [data.index(b"\n", len(data) * k // ranges) + 1 for k in range(1, ranges)] + [-1]
    opts = shard.Options(str(tmp_path), 4, True, "text", "id", False)
    for name, payload, comp in (("a.txt", data, False), ("b.txt.gz", gzip.compress(data), True)):
        (tmp_path / name).write_bytes(payload)
        got, bad, counts = [], 0, 0
        for a, b in itertools.pairwise(cuts):
            spec = shard.ShardSpec(0, name, str(tmp_path / name), "text", None, a, -1 if comp else b)
            occ: dict[str, list[Any]] = {k: [] for k in ("source", "record", "offset", "raw", "form", "doi")}
            result = shard.ShardResult(0)
            chunks = list(shard._scan_text(spec, opts, lambda n, h: None, result, occ))
            got += list(zip(occ["offset"], occ["doi"], occ["form"], strict=True))
            bad += result.invalid_bytes
            counts += sum(sum(c[1]) for c in chunks)
            if comp:
                break  # a compressed file is one shard
        assert sorted(got) == want, name
        assert counts == len(want) and bad == 3, name
    with open(tmp_path / "a.txt", "rb") as f:
        mapped = shard._map(f)
        assert mapped is not None  # the plain file above did take the memory-mapped path
        mapped.close()


def test_record_offsets_count_characters_like_the_reference(tmp_path: Path) -> None:
    import extractor.shard as shard
    from extractor.find import find_spans

    texts = ["Étude – voir doi:10.1000/1 et “10.1000/ÄB”.", "😀 " * 50 + "https://doi.org/10.1000/2?x=1",
             "x\udcff 10.1000/3 \u00a010.1000/4", "no DOI here"]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(texts)))
    spec = shard.ShardSpec(0, "r.jsonl", str(tmp_path / "r.jsonl"), "jsonl", None)
    opts = shard.Options(str(tmp_path), 4, True, "text", "id", False)
    occ: dict[str, list[Any]] = {k: [] for k in ("source", "record", "offset", "raw", "form", "doi")}
    list(shard._unit_docs(spec, opts, lambda n, h: None, shard.ShardResult(0), occ))
    want = [(str(i), s, t[s:e], str(f), d) for i, t in enumerate(texts)
            for s, e, f, d in find_spans(shard._clean(t)[0])]
    got = list(zip(occ["record"], occ["offset"], occ["raw"], occ["form"], occ["doi"], strict=True))
    assert got == [(r, s, shard._clean(raw)[0], f, d) for r, s, raw, f, d in want]
    assert len(got) == 5


def test_a_small_file_is_searched_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import extractor.shard as shard

    calls: list[int] = []
    real = shard.find_spans
    monkeypatch.setattr(shard, "find_spans", lambda text, *a, **k: calls.append(len(text)) or real(text, *a, **k))
    page = tmp_path / "p.html"
    page.write_text('<p>See <a href="https://doi.org/10.1000/182">doi:10.1000/182</a>.</p>')
    opts = shard.Options(str(tmp_path / "out"), 4, False, "text", "id", False)
    chunks = list(shard._scan_text(shard.ShardSpec(0, "p.html", str(page), "text", None), opts,
                                   lambda n, h: None, shard.ShardResult(0), {}))
    assert len(calls) == 1  # the last block is known as such: no second pass over the same text
    assert sum(sum(c[1]) for c in chunks) == 2


_JSON_PIECES = ["a", "é", "😀", "10.1000/1", '\\"', "\\\\", "\\/", "\\n", "\\u002F", "\\u00e9", "\\ud83d\\ude00",
                "\\ude00", "\\ud83d", "\\uZZZZ", " "]


@given(st.lists(st.sampled_from(_JSON_PIECES), max_size=40), st.lists(st.integers(1, 30), min_size=1, max_size=10))
@settings(max_examples=500, deadline=None)
def test_streamed_json_string_decodes_like_json_loads(pieces: list[str], cuts: list[int]) -> None:
    from extractor.read import JsonStringDecoder

    body = "".join(pieces)
    raw = body + '"' + ', "id": 1}'
    decoder = JsonStringDecoder()
    out, pos, k = [], 0, 0
    while not decoder.done and pos < len(raw):  # fed in pieces cut anywhere, escapes included
        step = cuts[k % len(cuts)]
        out.append(decoder.feed(raw[pos : pos + step]))
        pos += step
        k += 1
    assert decoder.done and decoder.rest + raw[pos:] == ', "id": 1}'
    # json.loads is the reference, with lone or broken surrogate escapes read as U+FFFD
    want = json.loads('"' + body + '"') if "\\uZZZZ" not in body else None
    if want is not None:
        want = "".join("\ufffd" if 0xD800 <= ord(c) < 0xE000 else c for c in want)
        assert "".join(out) == want
