"""The engines on the same plain files: in-process, a local pool, a Dask cluster."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .harness import median_runs, run_measured, scan_cmd


@contextlib.contextmanager
def dask_cluster(tmp: Path, workers: int) -> Iterator[str]:
    """A `dask scheduler` and `workers` one-thread `dask worker` processes on 127.0.0.1, each
    started in a folder of its own as a cluster's are; its address."""
    import socket

    from distributed import Client

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    dask = str(Path(sys.executable).parent / "dask")
    home = tmp / "dask-cluster"
    home.mkdir()
    cmds = [[dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]]
    cmds += [[dask, "worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--no-dashboard"]] * workers
    procs = []
    try:
        for cmd in cmds:
            procs.append(
                subprocess.Popen(cmd, cwd=home, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            )
            time.sleep(0.5)
        with Client(address, timeout=60) as client:
            client.wait_for_workers(workers, timeout=60)
        yield address
    finally:
        for p in reversed(procs):
            p.terminate()
            p.wait()
        shutil.rmtree(home, ignore_errors=True)


def compare_engines(
    inputs: list[str], warm: list[str], nbytes: int, repeat: int, tmp: Path, say: Any
) -> None:
    """One table: a scan of `inputs` (`nbytes`) with 2 workers by the local pool, by a Dask
    LocalCluster the run starts, and by a cluster already running (warmed by a scan of `warm`'s
    first file: a running cluster's workers have read inputs before, the pipeline imported)."""
    drop = lambda: shutil.rmtree(tmp / "out", ignore_errors=True)  # noqa: E731
    scan2 = scan_cmd(inputs, str(tmp / "out"), 2)
    with dask_cluster(tmp, 2) as address:
        run_measured([*scan_cmd(warm[:1], str(tmp / "out"), 2), "--dask", address])
        drop()
        local, dask, running = median_runs(
            [scan2, [*scan2, "--dask", "local"], [*scan2, "--dask", address]], repeat, drop
        )
    mb = nbytes / 1e6
    say(
        f"{f'engine ({mb:.0f} MB of plain text, 2 workers)':<44} {'seconds':>8} {'MB/s':>8} {'peak tree MB':>13}"
    )
    for label, m in (
        ("local process pool", local),
        ("Dask LocalCluster (--dask local)", dask),
        ("Dask cluster already running (--dask tcp://)", running),
    ):
        say(f"{label:<44} {m.seconds:>8.2f} {mb / m.seconds:>8.1f} {m.peak_tree_mb:>13.0f}")
    say(
        f"Dask / local at {mb:.0f} MB: {dask.seconds / local.seconds:.2f}x with a LocalCluster started by the "
        f"run, {running.seconds / local.seconds:.2f}x on a running cluster (target <= 1.15x)"
    )


def engine_tables(plain_files: list[str], nbytes: int, repeat: int, tmp: Path, say: Any) -> None:
    """The local process pool against a Dask LocalCluster of as many workers and a cluster
    already running (issue 10: within 15 %), on the corpus and on it four times over; and the
    same files read from an S3 API (moto's server on 127.0.0.1) against disk."""
    say()
    compare_engines(plain_files, plain_files, nbytes, repeat, tmp, say)
    # Dask's costs are fixed (its client's import, the scheduler's round trips), so they weigh
    # less as a job grows: the same comparison on the corpus four times over, as hard links (no
    # disk; distinct paths, so each is read: an input reached twice by one path is read once).
    copies = 4
    big = tmp / "copies"
    try:
        for c in range(copies):
            (big / str(c)).mkdir(parents=True)
            for f in plain_files:
                os.link(f, big / str(c) / Path(f).name)
    except OSError as exc:
        say(f"(no comparison on {copies} copies: cannot hard-link the corpus into {tmp}: {exc})")
    else:
        compare_engines([str(big)], plain_files, nbytes * copies, repeat, tmp, say)
    finally:
        shutil.rmtree(big, ignore_errors=True)

    drop = lambda: shutil.rmtree(tmp / "out", ignore_errors=True)  # noqa: E731
    import socket

    import boto3
    from moto.server import ThreadedMotoServer

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    env = {
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    try:
        client = boto3.client(
            "s3",
            endpoint_url=env["AWS_ENDPOINT_URL"],
            region_name="us-east-1",
            aws_access_key_id="bench",
            aws_secret_access_key="bench",
        )
        client.create_bucket(Bucket="bench")
        files = plain_files[:4]
        for f in files:
            client.upload_file(f, "bench", f"plain/{Path(f).name}")
        part = sum(os.path.getsize(f) for f in files)
        os.environ.update(env)
        disk, s3 = median_runs(
            [
                scan_cmd(files, str(tmp / "out"), 2),
                scan_cmd([f"s3://bench/plain/{Path(f).name}" for f in files], str(tmp / "out"), 2),
            ],
            repeat,
            drop,
        )
    finally:
        server.stop()
    say()
    say(f"{f'{len(files)} files, {part / 1e6:.0f} MB, 2 workers':<44} {'seconds':>8} {'MB/s':>8}")
    for label, m in (("from disk", disk), ("from S3 (moto server, 127.0.0.1)", s3)):
        say(f"{label:<44} {m.seconds:>8.2f} {part / 1e6 / m.seconds:>8.1f}")
