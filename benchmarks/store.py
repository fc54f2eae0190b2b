"""What a scan on a cluster that shares no folder asks of object storage: a local S3 API server
(moto's, its request log read back), a running two-worker Dask cluster, plain files in the store
scanned into the store; requests by kind, per shard and per merge, bytes written beside the
result, and the time against the same scan staged in a local folder."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from .engines import dask_cluster
from .harness import run_measured, scan_cmd

# A request line of werkzeug's log: method and path (with its query); some in terminal colours.
_COLOUR = re.compile(r"\x1b\[[0-9;]*m")
_LINE = re.compile(r'"(GET|PUT|POST|HEAD|DELETE) (\S+) HTTP/1\.1" (\d+)')


def _kind(method: str, path: str) -> str:
    """A request's kind, by what it reaches: the scan's work, its staged datasets, markers,
    inputs, the result."""
    if "list-type=2" in path:
        return "LIST"
    if "delete" in path and method == "POST":
        return "DELETE (batch)"
    place = "input"
    for mark, name in (
        ("/_shards/", "marker"),
        ("/_work/parts/", "part file"),
        ("/_work/occurrences/", "occurrence file"),
        ("/_work/staged-", "staged dataset"),
        ("/_run.json", "_run.json"),
        ("/.doi-extract", "output marker"),
        ("/mentions/", "result (a copy, in the store)"),
        ("/dois/", "result (a copy, in the store)"),
    ):
        if mark in path:
            place = name
            break
    return f"{method} {place}"


def _server(log: Path) -> tuple[subprocess.Popen[bytes], dict[str, str]]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = (
        "import sys, time; from moto.server import ThreadedMotoServer as S; "
        f"s = S(ip_address='127.0.0.1', port={port}, verbose=True); s.start(); "
        "sys.stdin.read(); s.stop()"
    )
    p = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stderr=log.open("wb"), stdout=subprocess.DEVNULL
    )
    env = {
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.1)
    return p, env


def _requests(log: Path, since: int) -> tuple[Counter[str], int]:
    """Requests by kind logged after byte `since` of the log; and the log's size now."""
    data = log.read_bytes()
    counts: Counter[str] = Counter()
    for line in data[since:].decode("utf-8", "replace").splitlines():
        m = _LINE.search(_COLOUR.sub("", line))
        if m:
            counts[_kind(m.group(1), m.group(2))] += 1
    return counts, len(data)


def store_tables(plain_files: list[str], files: int, tmp: Path, say: Any) -> None:
    """`files` plain files of the corpus uploaded to the store, scanned on a two-worker Dask
    cluster into the store (the work kept there: --keep-work, to weigh it), then again staged in
    a local folder; the requests each asked of the store."""
    import boto3

    log = tmp / "moto.log"
    server, env = _server(log)
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        client = boto3.client("s3")
        client.create_bucket(Bucket="bench")
        chosen = plain_files[:files]
        nbytes = 0
        for f in chosen:
            client.upload_file(f, "bench", f"in/{Path(f).name}")
            nbytes += os.path.getsize(f)
        with dask_cluster(tmp, 2) as address:
            _, at = _requests(log, 0)
            base = scan_cmd(["s3://bench/in/"], "s3://bench/out", 2)
            work = run_measured([*base, "--dask", address, "--keep-work"])
            counts, at = _requests(log, at)
            listing = client.get_paginator("list_objects_v2").paginate(Bucket="bench", Prefix="out/")
            sizes: Counter[str] = Counter()
            for page in listing:
                for o in page.get("Contents", []):
                    sizes[_kind("PUT", "/bench/" + o["Key"]).removeprefix("PUT ")] += o["Size"]
            run = json.loads(client.get_object(Bucket="bench", Key="out/_run.json")["Body"].read())
            staged = run_measured(
                [
                    *scan_cmd(["s3://bench/in/"], "s3://bench/out2", 2),
                    "--dask",
                    address,
                    "--stage",
                    str(tmp / "stage"),
                ]
            )
            staged_counts, _ = _requests(log, at)
    finally:
        server.communicate(b"", timeout=60)
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    shards = run["shards"]
    say(
        f"{len(chosen)} plain files, {nbytes / 1e6:.0f} MB in the store, {shards} shards, "
        f"{run['mentions']} mention rows, 2 Dask workers on this machine's 2 cores"
    )
    say(f"{'requests of the work in the store (--dask, --keep-work)':<58} {'count':>7} {'per shard':>10}")
    for kind, n in sorted(counts.items()):
        say(f"{kind:<58} {n:>7} {n / shards:>10.2f}")
    say(f"{'total':<58} {sum(counts.values()):>7} {sum(counts.values()) / shards:>10.2f}")
    say(f"{'bytes kept in the store':<58} {'MB':>7} {'x input':>10}")
    for kind, n in sorted(sizes.items()):
        say(f"{kind:<58} {n / 1e6:>7.1f} {n / nbytes:>10.3f}")
    say(
        f"seconds: work in the store {work.seconds:.2f}, staged in a local folder {staged.seconds:.2f} "
        f"({sum(staged_counts.values())} requests)"
    )
