"""Inputs in object storage (issue 10): a real S3 API — moto's server, started here on
127.0.0.1 — holding text, gzip, a JSONL file big enough to be split into byte ranges and a
Parquet file; `scan s3://…` reads them as it reads the same files on disk, with the endpoint
and credentials from the standard AWS_* variables only."""

from __future__ import annotations

import gzip
import json
import os
import socket
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from .helpers import SCAN, free_port, make_corpus, moto_s3, run_json, table

pytest.importorskip("moto.server")
boto3 = pytest.importorskip("boto3")
pytest.importorskip("s3fs")


@pytest.fixture(scope="module")
def s3() -> Iterator[dict[str, str]]:
    """The server, and the environment a client of it needs (nothing else is configured)."""
    with moto_s3() as env:
        yield env


def _client(env: dict[str, str]) -> Any:
    return boto3.client(
        "s3",
        endpoint_url=env["AWS_ENDPOINT_URL"],
        aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
        region_name=env["AWS_DEFAULT_REGION"],
    )


def _scan(env: dict[str, str], *args: str, check: int | None = 0) -> subprocess.CompletedProcess[str]:
    p = subprocess.run(
        [*SCAN, *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )
    if check is not None:
        assert p.returncode == check, p.stderr
    return p


def _local_corpus(tmp_path: Path) -> Path:
    src = make_corpus(tmp_path)
    (src / "refs.txt.gz").write_bytes(gzip.compress(b"see doi:10.1000/gz1 and 10.1038/nature12373\n" * 50))
    recs = "".join(
        json.dumps({"id": f"r{i}", "text": f"cites 10.5555/rec{i % 700} and doi:10.1000/182"}) + "\n"
        for i in range(4000)
    )
    (src / "records.jsonl").write_text(recs)
    # declared encodings (issue 11), read from the store as from disk: a UTF-16 text with its
    # byte order mark, gzipped too, and a page whose <meta charset> is not UTF-8
    utf16 = "\ufeffNotes: doi:10.1000/utf16.é and 10.1038/nphys1170\n".encode("utf-16-le")
    (src / "notes16.txt").write_bytes(utf16)
    (src / "notes16.txt.gz").write_bytes(gzip.compress(utf16))
    (src / "latin.html").write_bytes(
        "<html><head><meta charset='iso-8859-1'></head><p>doi:10.1000/latin.é</p>".encode("latin-1")
    )
    pq.write_table(
        pa.table({"id": ["p1", "p2", "p3"], "text": ["https://doi.org/10.1000/pq1", None, "10.1000/pq2"]}),
        src / "docs.parquet",
        row_group_size=1,
    )
    return src


def _upload(env: dict[str, str], bucket: str, src: Path) -> None:
    client = _client(env)
    client.create_bucket(Bucket=bucket)
    for path in sorted(src.rglob("*")):
        if path.is_file():
            client.upload_file(str(path), bucket, f"corpus/{path.relative_to(src)}")


def _rows(out: Path) -> Counter[tuple[Any, ...]]:
    """Mentions without the source's spelling (a local path here, a URL there)."""
    return Counter(
        (Path(m["source"]).name, m["record"], m["doi"], m["count"], m["first_byte_offset"], m["first_raw"])
        for m in table(out, "mentions")
    )


def test_scan_reads_object_storage_as_it_reads_disk(tmp_path: Path, s3: dict[str, str]) -> None:
    src = _local_corpus(tmp_path)
    _upload(s3, "papers", src)
    local, remote = tmp_path / "local", tmp_path / "remote"
    args = ["--quiet", "--occurrences", "--shard-size", "60000"]
    _scan(s3, str(src), "-o", str(local), *args)
    _scan(s3, "s3://papers/corpus/", "-o", str(remote), *args)
    assert _rows(remote) == _rows(local) and len(_rows(local)) > 1000
    decoded = {(r[0], r[2]) for r in _rows(remote)}
    assert {("notes16.txt", "10.1000/utf16.é"), ("notes16.txt.gz", "10.1000/utf16.é")} <= decoded
    assert ("latin.html", "10.1000/latin.é") in decoded
    run = run_json(remote)
    assert run["shards"] == run_json(local)["shards"] > 3  # records.jsonl split into byte ranges
    assert run["bytes_read"] == run_json(local)["bytes_read"]
    assert run["hits"] == run_json(local)["hits"]
    assert all(i["source"].startswith("s3://papers/corpus/") for i in run["inputs"])
    assert [d["doi"] for d in table(remote, "dois")] == [d["doi"] for d in table(local, "dois")]
    # a glob over objects, and an object named alone
    glob_out = tmp_path / "glob"
    _scan(s3, "s3://papers/corpus/doc0*.txt", "s3://papers/corpus/refs.txt.gz", "-o", str(glob_out), "-q")
    sources = {Path(m["source"]).name for m in table(glob_out, "mentions")}
    assert sources == {f"doc{i:02d}.txt" for i in range(10)} | {"refs.txt.gz"}


def test_missing_objects_and_buckets_are_rejected_with_a_reason(tmp_path: Path, s3: dict[str, str]) -> None:
    _client(s3).create_bucket(Bucket="near-empty")
    _client(s3).put_object(Bucket="near-empty", Key="a.txt", Body=b"doi:10.1000/182\n")
    out = tmp_path / "out"
    p = _scan(
        s3,
        "s3://near-empty/a.txt",
        "s3://near-empty/missing.txt",
        "s3://near-empty/*.pdf.txt",
        "-o",
        str(out),
        "-q",
        check=1,
    )
    assert "Traceback" not in p.stderr
    rejected = {r["source"]: r["reason"] for r in run_json(out)["rejected"]}
    assert rejected == {
        "s3://near-empty/missing.txt": "no such object or prefix",
        "s3://near-empty/*.pdf.txt": "no object matches the pattern",
    }
    assert [m["doi"] for m in table(out, "mentions")] == ["10.1000/182"]


@pytest.mark.slow
def test_a_store_that_cannot_be_read_stops_the_run_and_keeps_a_finished_result(
    tmp_path: Path, s3: dict[str, str]
) -> None:
    """A bucket that does not exist, a store that does not answer: no input of it can be read,
    so the run cannot work — exit 2 with the reason before anything is written, a finished
    result in OUT kept. A missing object in a bucket that exists stays a rejected input (above)."""
    _client(s3).create_bucket(Bucket="crawl")
    _client(s3).put_object(Bucket="crawl", Key="corpus/a.txt", Body=b"doi:10.1000/182\n")
    out = tmp_path / "out"
    _scan(s3, "s3://crawl/corpus/", "-o", str(out), "-q")
    rows = table(out, "mentions")
    p = _scan(s3, "s3://no-such-bucket/corpus/", "-o", str(out), check=2)
    assert "no bucket 'no-such-bucket'" in p.stderr and "Traceback" not in p.stderr
    down = {**s3, "AWS_ENDPOINT_URL": f"http://127.0.0.1:{free_port()}"}  # nothing listens there
    p = _scan(down, "s3://crawl/corpus/", "-o", str(out), check=2)
    assert "does not answer" in p.stderr and "Traceback" not in p.stderr
    assert table(out, "mentions") == rows and run_json(out)["rejected"] == []


def _store(env: dict[str, str]) -> Any:
    import s3fs

    return s3fs.S3FileSystem(
        key=env["AWS_ACCESS_KEY_ID"],
        secret=env["AWS_SECRET_ACCESS_KEY"],
        client_kwargs={"endpoint_url": env["AWS_ENDPOINT_URL"], "region_name": env["AWS_DEFAULT_REGION"]},
    )


@pytest.mark.slow
def test_output_in_object_storage_is_staged_then_published(tmp_path: Path, s3: dict[str, str]) -> None:
    """-o s3://…: the run is staged in a folder, then its datasets are published; read back from
    the store they equal a local run's; a later run leaves none of the earlier run's objects."""
    import pyarrow.dataset as ds

    src = _local_corpus(tmp_path)
    _client(s3).create_bucket(Bucket="results")
    local = tmp_path / "local"
    _scan(s3, str(src), "-o", str(local), "-q", "--occurrences")
    p = _scan(s3, str(src), "-o", "s3://results/run", "--stage", str(tmp_path / "stage"), "--occurrences")
    assert "published" in p.stderr and "s3://results/run" in p.stderr
    assert (tmp_path / "stage" / "_run.json").exists()  # a stage the user named is kept
    store = _store(s3)
    for name in ("mentions", "dois", "occurrences"):
        got = ds.dataset(f"results/run/{name}", format="parquet", filesystem=store).to_table()
        assert got.equals(ds.dataset(str(local / name), format="parquet").to_table()), name
    assert json.loads(store.cat_file("results/run/_run.json"))["hits"] == run_json(local)["hits"]
    assert not [k for k in store.find("results/run") if "_publishing-" in k or "/_shards/" in k]
    # a smaller run to the same place (--force: start over) leaves only its own objects
    small = tmp_path / "small"
    small.mkdir()
    (small / "one.txt").write_text("doi:10.1000/182\n")
    _scan(s3, str(small), "-o", "s3://results/run", "--stage", str(tmp_path / "stage"), "-q", "--force")
    store.invalidate_cache()  # s3fs caches listings: the objects changed under it
    keys = {k.split("results/run/", 1)[1] for k in store.find("results/run")}
    staged = {
        str(p.relative_to(tmp_path / "stage"))
        for d in ("mentions", "dois")
        for p in (tmp_path / "stage" / d).rglob("*")
        if p.is_file()
    }
    assert keys == staged | {"_run.json", ".doi-extract"}
    got = ds.dataset("results/run/mentions", format="parquet", filesystem=store).to_table()
    assert got.column("doi").to_pylist() == ["10.1000/182"]


@pytest.mark.slow
def test_a_run_to_the_store_killed_and_resumed_equals_a_clean_one(tmp_path: Path, s3: dict[str, str]) -> None:
    """Killed (SIGKILL, the whole process group) after some shards completed: the same command
    resumes from the stage's completion markers and publishes the clean run's result."""
    import pyarrow.dataset as ds

    from .test_scan import start_scan, wait_for_a_completed_shard

    src = make_corpus(tmp_path)
    for i in range(8):
        (src / f"more{i}.txt").write_text("".join(f"doi:10.1234/k{i}.{j}\n" for j in range(40000)))
    _client(s3).create_bucket(Bucket="resume")
    args = ["--quiet", "--workers", "2", "--shard-size", "30000"]
    _scan(s3, str(src), "-o", "s3://resume/clean", "--stage", str(tmp_path / "clean"), *args)
    stage = tmp_path / "stage"
    killed = [str(src), "-o", "s3://resume/killed", "--stage", str(stage)]
    p = start_scan(*killed, *args, env={**os.environ, **s3}, start_new_session=True)
    wait_for_a_completed_shard(stage)
    os.killpg(p.pid, 9)
    p.wait()
    markers = len(list((stage / "_shards").glob("*.done")))
    assert 0 < markers < run_json(tmp_path / "clean")["shards"]
    store = _store(s3)
    assert not store.exists("resume/killed/_run.json")  # nothing published: no commit point
    _scan(s3, *killed, *args)
    assert run_json(stage)["shards_resumed"] >= markers
    store.invalidate_cache()
    for name in ("mentions", "dois"):
        a = ds.dataset(f"resume/clean/{name}", format="parquet", filesystem=store).to_table()
        assert a.num_rows and a.equals(
            ds.dataset(f"resume/killed/{name}", format="parquet", filesystem=store).to_table()
        )


def test_an_output_prefix_holding_other_objects_is_refused(tmp_path: Path, s3: dict[str, str]) -> None:
    _client(s3).create_bucket(Bucket="mine")
    _client(s3).put_object(Bucket="mine", Key="data/thesis.txt", Body=b"my thesis")
    src = make_corpus(tmp_path)
    p = _scan(s3, str(src), "-o", "s3://mine/data", "--stage", str(tmp_path / "stage"), "-q", check=2)
    assert "did not write" in p.stderr and "Traceback" not in p.stderr
    assert _store(s3).find("mine/data") == ["mine/data/thesis.txt"]
    assert not Path("s3:").exists()


@pytest.fixture
def s3_with_auth() -> Iterator[dict[str, str]]:
    """A second server that checks every request's key (moto's IAM checks from the first
    action on), and a client environment whose key it has never issued."""
    import sys
    import time

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        env={**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": "0"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    try:
        yield {
            "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
            "AWS_ACCESS_KEY_ID": "AKIANOTISSUEDBYTHIS",
            "AWS_SECRET_ACCESS_KEY": "wrong",
            "AWS_DEFAULT_REGION": "us-east-1",
        }
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_bad_credentials_are_a_clear_error_before_any_work(
    tmp_path: Path, s3_with_auth: dict[str, str]
) -> None:
    """Issue 10: a key the store refuses rejects an input with the store's reason (exit 1), and
    stops a run to an output in the store before it scans anything (exit 2) — no traceback."""
    p = _scan(s3_with_auth, "s3://corpus/a.txt", "-o", str(tmp_path / "out"), "-q", check=1)
    assert "Traceback" not in p.stderr
    [rejected] = run_json(tmp_path / "out")["rejected"]
    assert rejected["source"] == "s3://corpus/a.txt" and rejected["reason"].startswith("access denied: ")
    assert "Access Key Id" in rejected["reason"]  # the store's own words
    src = make_corpus(tmp_path)
    stage = tmp_path / "stage"
    p = _scan(s3_with_auth, str(src), "-o", "s3://results/run1", "--stage", str(stage), check=2)
    assert p.stderr.startswith("doi-extract scan: cannot write to s3://results/run1: access denied: ")
    assert "Traceback" not in p.stderr and not stage.exists()  # stopped before the scan


def test_an_output_bucket_that_does_not_exist_stops_the_run_at_once(
    tmp_path: Path, s3: dict[str, str]
) -> None:
    src = make_corpus(tmp_path)
    stage = tmp_path / "stage"
    p = _scan(s3, str(src), "-o", "s3://no-such-bucket/out", "--stage", str(stage), check=2)
    assert p.stderr == "doi-extract scan: cannot write to s3://no-such-bucket/out: no such bucket\n"
    assert not stage.exists()


@pytest.mark.slow
def test_the_default_stage_is_removed_once_published(tmp_path: Path, s3: dict[str, str]) -> None:
    """A run to the store leaves no full local copy in the user's cache (at 10 TB of input,
    ~90 GB), unless --keep-work asks for an incremental rerun's parts."""
    src = _local_corpus(tmp_path)
    _client(s3).create_bucket(Bucket="staged")
    env = {**s3, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    stages = tmp_path / "cache" / "doi-extractor" / "stage"
    _scan(env, str(src), "-o", "s3://staged/a", "-q")
    assert _store(s3).exists("staged/a/_run.json")
    assert not stages.exists() or not any(stages.iterdir())
    _scan(env, str(src), "-o", "s3://staged/b", "-q", "--keep-work")
    (kept,) = stages.iterdir()
    assert (kept / "_run.json").exists() and (kept / "_shards").is_dir()


def test_archives_and_a_multistream_dump_in_object_storage_read_as_on_disk(
    tmp_path: Path, s3: dict[str, str]
) -> None:
    """A zip and a tar.gz shared among shards by member offsets, and a multistream dump by its
    index, read from the store by range as from disk."""
    import tarfile
    import zipfile

    from .wikidump import WikiPage, write_multistream

    src = tmp_path / "dumps"
    src.mkdir()
    members = {
        f"m{i:03d}.txt": f"doi:10.1000/m{i} ".encode() + os.urandom(3000).hex().encode() for i in range(60)
    }
    with zipfile.ZipFile(src / "big.zip", "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in members.items():
            z.writestr(n, d)
    with tarfile.open(src / "bundle.tar.gz", "w:gz") as t:
        t.add(src / "big.zip", arcname="inner/big.zip")
    pages = [WikiPage(f"P{i}", "{{cite journal|doi=10.1000/w" + str(i) + "}}", i + 1) for i in range(300)]
    write_multistream(str(src / "wiki-multistream.xml.bz2"), pages, per_stream=10)
    _upload(s3, "dumps", src)
    args = ["--quiet", "--shard-size", "60000"]
    _scan(s3, str(src), "-o", str(tmp_path / "local"), *args)
    _scan(s3, "s3://dumps/corpus/", "-o", str(tmp_path / "remote"), *args)
    assert _rows(tmp_path / "remote") == _rows(tmp_path / "local")
    records = {(r[0], r[1]) for r in _rows(tmp_path / "remote")}
    assert ("big.zip", "m007.txt") in records and ("bundle.tar.gz", "inner/big.zip!/m007.txt") in records
    assert ("wiki-multistream.xml.bz2", "P299") in records
    assert len(records) == 60 + 60 + 300
    run = run_json(tmp_path / "remote")
    assert run["shards"] == run_json(tmp_path / "local")["shards"] >= 5  # the zip in parts


@pytest.mark.parametrize(
    "merge_rows",
    # small: buckets too large to merge at once are split, their slices read again (many
    # requests of a slow server: the thorough profile)
    [100_000, pytest.param(4000, marks=pytest.mark.slow)],
    ids=["merged", "split"],
)
def test_the_work_kept_in_the_store_gives_a_local_scans_rows(
    tmp_path: Path, s3: dict[str, str], monkeypatch: pytest.MonkeyPatch, merge_rows: int
) -> None:
    """ScanConfig.work, what a cluster that shares no folder runs on (tests/test_shared_nothing.py
    runs it on one): each shard's files shipped to the store under its attempt's name, marker
    last; the merges reading their slices back by ranged GETs; the datasets staged in the store
    and moved into place by publication; a rerun resumes every shard from the markers there."""
    import pyarrow.dataset as ds

    from extractor.pipeline.out.publish import preflight, publish, remove_work

    from .helpers import scan_here

    for k, v in s3.items():
        monkeypatch.setenv(k, v)
    src = make_corpus(tmp_path)
    (src / "records.jsonl").write_text(
        "".join(
            json.dumps({"id": f"r{i}", "text": f"cites 10.5555/rec{i % 700}"}) + "\n" for i in range(3000)
        )
    )
    config: dict[str, Any] = {
        "occurrences": True,
        "shard_size": 20000,
        "flush_rows": 2000,
        "merge_rows": merge_rows,
    }
    local = tmp_path / "local"
    scan_here([src], local, **config)
    bucket = f"work{merge_rows}"
    _client(s3).create_bucket(Bucket=bucket)
    preflight(f"s3://{bucket}/run")  # as the CLI does, before the shards write there
    report = scan_here([src], tmp_path / "stage", work=f"s3://{bucket}/run", **config)
    assert report.staged.startswith(f"s3://{bucket}/run/_work/staged-")
    store = _store(s3)
    markers = store.find(f"{bucket}/run/_shards")
    assert len(markers) == report.shards > 3
    attempt = json.loads(store.cat_file(markers[0]))["attempt"]
    assert any(attempt in p for p in store.find(f"{bucket}/run/_work/parts"))
    assert not (tmp_path / "stage" / "mentions").exists()  # nothing merged on this disk
    publish(str(tmp_path / "stage"), f"s3://{bucket}/run", report.staged)
    for name in ("mentions", "dois", "occurrences"):
        got = ds.dataset(f"{bucket}/run/{name}", format="parquet", filesystem=store).to_table()
        assert got.equals(ds.dataset(str(local / name), format="parquet").to_table()), name
    again = scan_here([src], tmp_path / "stage", force=True, work=f"s3://{bucket}/run", **config)
    assert again.shards_resumed == again.shards
    remove_work(f"s3://{bucket}/run")
    store.invalidate_cache()
    assert not [p for p in store.find(f"{bucket}/run") if "/_shards/" in p or "/_work/" in p]


def test_work_in_the_store_is_a_url_and_reads_no_standard_input(tmp_path: Path) -> None:
    """What workers that share no folder cannot read is refused before anything is written."""
    from extractor.pipeline import ScanConfig

    with pytest.raises(ValueError, match="work must be a URL"):
        ScanConfig(out=str(tmp_path), work=str(tmp_path / "work"))
    p = subprocess.run(
        [*SCAN, "-", "-o", "s3://results/run", "--stage", "s3://results/work"],
        input="doi:10.1000/182\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2 and "standard input cannot be read by workers" in p.stderr
