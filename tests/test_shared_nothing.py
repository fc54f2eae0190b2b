"""A Dask cluster as clouds run one: workers that share no folder with the client or each other,
inputs and output in object storage (moto's S3 server on 127.0.0.1). Each worker runs in a
mount namespace of its own (`unshare -m`) with a tmpfs over the tests' temporary folders (where
the client's stage and inputs are) and over its own temporary folder, so that anything a
worker would read of the client's disk, or of another worker's, is not there. A gzip JSONL
object among the inputs is read in ranges (its pass and its shards on the workers). The result
read back from the store equals a local scan's; a worker killed mid-run (SIGKILL) and a new one
joining change nothing; a client interrupted and rerun elsewhere resumes from the markers in
the store."""

from __future__ import annotations

import gzip
import os
import random
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest

from extractor.pipeline.out.output import MARKER

from .helpers import SCAN, run_json
from .test_dask import DASK, Cluster, running
from .test_dask import _corpus as dask_corpus
from .test_s3 import _client, _store, _upload, s3  # noqa: F401 - s3 is the server fixture

pytest.importorskip("distributed")
REPO = Path(__file__).resolve().parent.parent


def _can_unshare() -> bool:
    if shutil.which("unshare") is None:
        return False
    p = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", "mount -t tmpfs tmpfs /mnt"],
        capture_output=True,
        timeout=30,
    )
    return p.returncode == 0


pytestmark = [
    pytest.mark.slow,  # a cluster's start and several scans on it: CI's thorough profile runs them
    pytest.mark.skipif(not _can_unshare(), reason="needs unshare -m and mount (root)"),
]


def _private(hidden: list[Path], keep: list[Path], home: Path, cmd: list[str]) -> list[str]:
    """`cmd` in a mount namespace of its own: a tmpfs over each of `hidden` (what is under them
    is not there any more), the folders of `keep` under them bound back (this interpreter, its
    packages), and `home` a fresh folder of the tmpfs, its working folder and temporary folder."""
    keep = [k for k in keep if any(k.is_relative_to(h) for h in hidden)]
    script = ["set -e"]
    for i, k in enumerate(keep):
        script += [f"mkdir -p /run/keep{i}", f"mount --bind {shlex.quote(str(k))} /run/keep{i}"]
    for h in hidden:
        script.append(f"mount -t tmpfs tmpfs {shlex.quote(str(h))}")
    for i, k in enumerate(keep):
        script += [f"mkdir -p {shlex.quote(str(k))}", f"mount --bind /run/keep{i} {shlex.quote(str(k))}"]
    script += [f"mkdir -p {shlex.quote(str(home))}", f"cd {shlex.quote(str(home))}"]
    script.append(f"TMPDIR={shlex.quote(str(home))} exec " + " ".join(shlex.quote(c) for c in cmd))
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", "\n".join(script)]


class PrivateCluster(Cluster):
    """test_dask's cluster, each worker in a mount namespace of its own, every process with the
    store's environment and started from the root folder."""

    def __init__(self, tmp: Path, env: dict[str, str]) -> None:
        self.workers = 0
        super().__init__(tmp, {**os.environ, **env}, Path("/"))

    def add_worker(self) -> subprocess.Popen[bytes]:
        self.workers += 1
        # the tests' temporary folders (the client's inputs, stage and cache are there) and the
        # client's cache hidden; the worker's own folder inside its tmpfs
        hidden = [self.tmp.parent.parent]
        cache = Path.home() / ".cache" / "doi-extractor"
        if cache.is_dir():
            hidden.append(cache)
        home = self.tmp.parent.parent / f"worker{self.workers}"
        cmd = [DASK, "worker", self.address, "--host", "127.0.0.1", "--nthreads", "1", "--no-dashboard"]
        cmd += ["--local-directory", str(home)]
        return self._start(_private(hidden, [REPO, Path(sys.prefix)], home, cmd))


@pytest.fixture
def cluster(tmp_path: Path, s3: dict[str, str]) -> Iterator[PrivateCluster]:  # noqa: F811
    yield from running(PrivateCluster(tmp_path, s3))


def _corpus(tmp_path: Path, slow: int = 0) -> Path:
    """test_dask's corpus, smaller (the store is moto's, in Python), with `slow` files of 20,000
    DOIs each to kill a worker among, and a large gzip JSONL file to be read in ranges."""
    src = dask_corpus(tmp_path, lines=8000)
    for i in range(slow):
        (src / f"slow{i}.txt").write_text("".join(f"10.1234/s{i}.{j} " for j in range(20000)))
    records = "".join(
        f'{{"id": "g{i}", "text": "{random.Random(i).getrandbits(128):x} cites doi:10.7777/g{i % 900}"}}\n'
        for i in range(6000)
    )
    (src / "big.jsonl.gz").write_bytes(gzip.compress(records.encode()))
    return src


def _env(s3: dict[str, str], cache: Path) -> dict[str, str]:  # noqa: F811
    return {**os.environ, **s3, "XDG_CACHE_HOME": str(cache)}


def _scan(env: dict[str, str], *args: str, check: int | None = 0) -> subprocess.CompletedProcess[str]:
    p = subprocess.run([*SCAN, *args], capture_output=True, text=True, timeout=600, env=env)
    if check is not None:
        assert p.returncode == check, p.stderr
    return p


def _download(s3: dict[str, str], url: str, to: Path) -> Path:  # noqa: F811
    _store(s3).get(url.removeprefix("s3://").rstrip("/") + "/", str(to), recursive=True)
    return to


def _rows(out: Path, name: str) -> pa.Table:
    """A dataset's rows, each source by its file name (a local path here, a URL there), sorted."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    t = ds.dataset(str(out / name), format="parquet").to_table()
    for col in ("source", "first_source"):
        if col in t.column_names:
            t = t.set_column(t.column_names.index(col), col, pc.replace_substring_regex(t[col], ".*/", ""))
    keys = [c for c in t.column_names if not pa.types.is_list(t.schema.field(c).type)]
    return t.sort_by([(c, "ascending") for c in keys])


def _same(local: Path, remote: Path) -> None:
    for name in ("mentions", "dois", "occurrences"):
        assert _rows(remote, name).equals(_rows(local, name)), name
    assert _rows(local, "occurrences").num_rows > 1000
    assert run_json(remote)["hits"] == run_json(local)["hits"]


def _objects(s3: dict[str, str], bucket: str, prefix: str) -> list[str]:  # noqa: F811
    pages = _client(s3).get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    return [o["Key"] for page in pages for o in page.get("Contents", [])]


# --split-gzip: big.jsonl.gz in ranges of its text, its pass and its shards on the workers
ARGS = ["--quiet", "--occurrences", "--shard-size", "60000", "--split-gzip"]


def test_a_cluster_that_shares_no_folder_scans_object_storage_into_object_storage(
    tmp_path: Path,
    s3: dict[str, str],  # noqa: F811
    cluster: PrivateCluster,
) -> None:
    src = _corpus(tmp_path)
    _upload(s3, "corpus", src)
    env = _env(s3, tmp_path / "cache")
    local = tmp_path / "local"
    _scan(env, str(src), "-o", str(local), "--workers", "2", *ARGS)
    p = _scan(env, "s3://corpus/corpus/", "-o", "s3://corpus/out", "--dask", cluster.address, *ARGS)
    assert "published" not in p.stderr  # quiet
    remote = _download(s3, "s3://corpus/out", tmp_path / "remote")
    _same(local, remote)
    run = run_json(remote)
    assert run["shards"] > 10 and not run["rejected"]
    assert [i["source"] for i in run["inputs"]].count("s3://corpus/corpus/big.jsonl.gz") > 2
    assert run["options"]["work"] == "s3://corpus/out"
    # the work is gone from the store once published; the client's stage from its disk
    assert sorted({k.split("/")[1] for k in _objects(s3, "corpus", "out/")}) == [
        MARKER,
        "_run.json",
        "dois",
        "mentions",
        "occurrences",
    ]
    assert not any((tmp_path / "cache").rglob("*.parquet"))


def test_a_worker_killed_mid_run_and_a_new_one_change_nothing(
    tmp_path: Path,
    s3: dict[str, str],  # noqa: F811
    cluster: PrivateCluster,
) -> None:
    src = _corpus(tmp_path, slow=12)
    _upload(s3, "kill", src)
    env = _env(s3, tmp_path / "cache")
    local = tmp_path / "local"
    _scan(env, str(src), "-o", str(local), "--workers", "2", *ARGS)
    p = subprocess.Popen(
        [*SCAN, "s3://kill/corpus/", "-o", "s3://kill/out", "--dask", cluster.address, *ARGS],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not _objects(s3, "kill", "out/_shards/") and time.monotonic() < deadline:
        time.sleep(0.05)
    markers = len(_objects(s3, "kill", "out/_shards/"))
    cluster.kill(cluster.procs[1])  # the first worker, nanny and all
    cluster.add_worker()
    _, err = p.communicate(timeout=600)
    assert p.returncode == 0, err
    remote = _download(s3, "s3://kill/out", tmp_path / "remote")
    assert 0 < markers < run_json(remote)["shards"], "the kill came after the last shard"
    _same(local, remote)


def test_a_client_interrupted_is_resumed_from_the_store_by_another(
    tmp_path: Path,
    s3: dict[str, str],  # noqa: F811
    cluster: PrivateCluster,
) -> None:
    """The client stopped with SIGKILL after some shards completed; the same command on another
    machine (a cache folder of its own) resumes from the completion markers in the store."""
    src = _corpus(tmp_path, slow=12)
    _upload(s3, "resume", src)
    local = tmp_path / "local"
    _scan(_env(s3, tmp_path / "cache"), str(src), "-o", str(local), "--workers", "2", *ARGS)
    command = [*SCAN, "s3://resume/corpus/", "-o", "s3://resume/out", "--dask", cluster.address, *ARGS]
    p = subprocess.Popen(command, env=_env(s3, tmp_path / "first"), stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while len(_objects(s3, "resume", "out/_shards/")) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    p.kill()
    p.wait()
    _scan(_env(s3, tmp_path / "second"), *command[len(SCAN) :])
    remote = _download(s3, "s3://resume/out", tmp_path / "remote")
    assert run_json(remote)["shards_resumed"] >= 3
    _same(local, remote)
