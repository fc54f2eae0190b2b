"""The Dask engine on a real cluster (issue 10): a `dask scheduler` and two `dask worker`
processes started here on 127.0.0.1, a scan through them equal row for row to the local
engine's, a worker killed mid-run survived, and `--dask local`."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import pyarrow.dataset as ds
import pytest

from .helpers import SCAN, free_port, make_corpus, run_json
from .test_scan import scan, start_scan, wait_for_a_completed_shard

distributed = pytest.importorskip("distributed")

DASK = str(Path(sys.executable).parent / "dask")
C = TypeVar("C", bound="Cluster")


class Cluster:
    """A scheduler and workers as separate processes, each in its own session (to kill whole)."""

    def __init__(self, tmp: Path, env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.tmp = tmp
        # in a folder of their own, as a cluster's processes are: not the scan's working folder
        self.cwd = cwd or tmp
        self.env = env
        self.procs: list[subprocess.Popen[bytes]] = []
        self._start([DASK, "scheduler", "--host", "127.0.0.1", "--port", str(self.port), "--no-dashboard"])

    def _start(self, cmd: list[str]) -> subprocess.Popen[bytes]:
        log = open(self.tmp / f"proc{len(self.procs)}.log", "wb")  # noqa: SIM115 - closed with the process
        p = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=self.cwd, env=self.env
        )
        self.procs.append(p)
        return p

    def add_worker(self) -> subprocess.Popen[bytes]:
        return self._start(
            [
                DASK,
                "worker",
                self.address,
                "--host",
                "127.0.0.1",
                "--nthreads",
                "1",
                "--no-dashboard",
                "--local-directory",
                str(self.tmp),
            ]
        )

    def wait_for_workers(self, n: int) -> None:
        with distributed.Client(self.address, timeout=60) as client:
            client.wait_for_workers(n, timeout=60)

    def kill(self, p: subprocess.Popen[bytes]) -> None:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()

    def stop(self) -> None:
        for p in reversed(self.procs):
            if p.poll() is None:
                self.kill(p)


def running(c: C) -> Iterator[C]:
    """A cluster with two workers, for a fixture to yield from: stopped, processes and all, after."""
    try:
        c.add_worker()
        c.add_worker()
        c.wait_for_workers(2)
        yield c
    finally:
        c.stop()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    yield from running(Cluster(tmp_path))


def _corpus(tmp_path: Path, lines: int = 20000) -> Path:
    src = make_corpus(tmp_path)
    for i in range(6):
        (src / f"more{i}.txt").write_text(
            "".join(f"doi:10.1234/k{i}.{j} see 10.1000/182\n" for j in range(lines))
        )
    (src / "recs.jsonl").write_text(
        "".join(f'{{"id": "r{i}", "text": "x 10.5555/{i} y"}}\n' for i in range(3000))
    )
    return src


def _same_output(a: Path, b: Path) -> None:
    # compared as Arrow tables: a million rows as Python dicts took the test to 2.4 GB
    for name in ("mentions", "dois", "occurrences"):
        if (a / name).exists() or (b / name).exists():
            ta = ds.dataset(str(a / name), format="parquet").to_table()
            assert ta.num_rows and ta.equals(ds.dataset(str(b / name), format="parquet").to_table()), name
    assert run_json(a)["hits"] == run_json(b)["hits"]


@pytest.mark.slow  # a real cluster's start and a whole scan on it: CI's thorough profile runs it
def test_a_scan_on_a_dask_cluster_equals_the_local_engine(tmp_path: Path, cluster: Cluster) -> None:
    src = _corpus(tmp_path)
    local, dask = tmp_path / "local", tmp_path / "dask"
    common = ["--quiet", "--occurrences", "--shard-size", "100000"]
    scan(str(src), "-o", str(local), "--workers", "2", *common)
    scan(str(src), "-o", str(dask), "--dask", cluster.address, *common)
    _same_output(local, dask)
    options = run_json(dask)["options"]
    assert options["engine"] == "dask" and options["workers"] == 2
    assert run_json(dask)["shards"] > 10


@pytest.mark.slow
def test_relative_inputs_are_read_by_workers_started_elsewhere(tmp_path: Path, cluster: Cluster) -> None:
    """A relative input named to the scan is read by workers whose working folder is another
    (before: every input rejected as "no such file or directory" on the workers)."""
    (tmp_path / "here").mkdir()
    make_corpus(tmp_path / "here")
    local, dask = tmp_path / "local", tmp_path / "dask"
    common = ["corpus", "--quiet", "--shard-size", "20000"]
    for out, engine in ((local, ["--workers", "2"]), (dask, ["--dask", cluster.address])):
        p = subprocess.run(
            [*SCAN, *common, "-o", str(out), *engine],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path / "here",
        )
        assert p.returncode == 0, p.stderr
    _same_output(local, dask)
    assert not run_json(dask)["rejected"]
    assert {
        m["source"] for m in ds.dataset(str(dask / "mentions")).to_table(columns=["source"]).to_pylist()
    } == {f"corpus/doc{i:02d}.txt" for i in range(12)} | {"corpus/page.html"}


@pytest.mark.slow
def test_a_worker_killed_mid_run_is_survived(tmp_path: Path, cluster: Cluster) -> None:
    """Dask reschedules a lost worker's shards; shard outputs are atomic, so the result equals
    a clean run's."""
    src = _corpus(tmp_path)
    for i in range(12):
        (src / f"slow{i}.txt").write_text("".join(f"10.1234/s{i}.{j} " for j in range(40000)))
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    args = ["--quiet", "--shard-size", "200000"]
    scan(str(src), "-o", str(clean), "--workers", "2", *args)
    p = start_scan(str(src), "-o", str(killed), "--dask", cluster.address, *args, stderr=subprocess.PIPE)
    wait_for_a_completed_shard(killed)
    at_kill = len(list((killed / "_shards").glob("*.done")))
    cluster.kill(cluster.procs[1])  # the first worker, nanny and all
    _, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    assert at_kill < run_json(killed)["shards"], "the kill came after the last shard"
    _same_output(clean, killed)


@pytest.mark.slow
def test_dask_local_starts_its_own_cluster(tmp_path: Path) -> None:
    src = make_corpus(tmp_path)
    local, dask = tmp_path / "local", tmp_path / "dask"
    scan(str(src), "-o", str(local), "--workers", "1", "-q", "--occurrences")
    p = scan(str(src), "-o", str(dask), "--dask", "local", "--workers", "2", "--occurrences")
    _same_output(local, dask)
    assert run_json(dask)["options"]["workers"] == 2
    # the dashboard a Dask user watches a run in, served by the cluster on this machine
    assert re.search(r"Dask dashboard at http://127\.0\.0\.1:\d+/status", p.stderr), p.stderr


def test_without_distributed_dask_says_how_to_install_it(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['distributed'] = None; from extractor.cli import main; "
        f"sys.exit(main(['scan', {str(tmp_path)!r}, '-o', {str(tmp_path / 'o')!r}, '--dask', 'local']))"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert "pip install 'doi-extractor[dask]'" in p.stderr and "Traceback" not in p.stderr


@pytest.mark.slow
def test_an_unreachable_scheduler_is_a_clear_error(tmp_path: Path) -> None:
    src = make_corpus(tmp_path)
    t0 = time.monotonic()
    p = scan(str(src), "-o", str(tmp_path / "o"), "--dask", f"tcp://127.0.0.1:{free_port()}", check=2)
    assert "cannot reach the Dask scheduler" in p.stderr and "Traceback" not in p.stderr
    assert time.monotonic() - t0 < 60
