"""Benchmarks: `doi-extract scan` against a raw ripgrep scan, and the finder in memory.

    python -m benchmarks [--size 1GB] [--repeat 3] [--record]

In one run: generates the benchmark corpus if absent (scripts/make_corpus.py bench), times
`rg -j1 -o` with Crossref's DOI pattern and `doi-extract scan` with 1 and 2 workers over the
same files (plain, gzip, JSONL, HTML), measures the peak memory of each whole process tree,
times `find_dois` per display form and kind, and checks memory on a 1 GB line with no
newline and on one enormous JSONL record. Each timing is the median of --repeat runs.
--record appends the figures to benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CROSSREF = r"10.\d{4,9}/[-._;()/:A-Z0-9]+"


@dataclass
class Measure:
    seconds: float
    peak_tree_mb: float
    peak_proc_mb: float
    cpu_seconds: float = 0.0  # of the process tree, as last seen by the polling (to ~50 ms a process)


def children_rss(cpu: dict[int, float] | None = None) -> tuple[dict[int, int], dict[int, int]]:
    """(ppid of each pid, RSS in bytes of each pid) from /proc; `cpu`, when given, gets each
    pid's CPU seconds (user and system)."""
    ppid: dict[int, int] = {}
    rss: dict[int, int] = {}
    page = os.sysconf("SC_PAGE_SIZE")
    tick = os.sysconf("SC_CLK_TCK")
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            ppid[int(name)] = int(fields[1])
            rss[int(name)] = int(fields[21]) * page
            if cpu is not None:
                cpu[int(name)] = (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            continue
    return ppid, rss


def run_measured(cmd: list[str]) -> Measure:
    """Run `cmd` (output discarded), polling the RSS of its whole process tree; wall time and
    peak memory."""
    with tempfile.TemporaryFile() as err_file:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err_file)
        peak_tree = peak_proc = 0
        seen: dict[int, float] = {}  # CPU seconds of each process of the tree, last seen
        while p.poll() is None:
            cpu: dict[int, float] = {}
            ppid, rss = children_rss(cpu)
            tree = {p.pid}
            grew = True
            while grew:
                grew = False
                for pid, parent in ppid.items():
                    if parent in tree and pid not in tree:
                        tree.add(pid)
                        grew = True
            sizes = [rss.get(pid, 0) for pid in tree]
            seen.update({pid: cpu[pid] for pid in tree if pid in cpu})
            peak_tree = max(peak_tree, sum(sizes))
            peak_proc = max(peak_proc, max(sizes, default=0))
            time.sleep(0.05)
        seconds = time.perf_counter() - t0
        if p.returncode not in (0, 1):
            err_file.seek(0)
            raise RuntimeError(
                f"{cmd[0]} failed ({p.returncode}): {err_file.read().decode(errors='replace')[-500:]}"
            )
    return Measure(seconds, peak_tree / 2**20, peak_proc / 2**20, sum(seen.values()))


def median_run(cmd: list[str], repeat: int, before: Callable[[], object] | None = None) -> Measure:
    return median_runs([cmd], repeat, before)[0]


def median_runs(
    cmds: list[list[str]], repeat: int, before: Callable[[], object] | None = None
) -> list[Measure]:
    """Median wall time (and peak memory) of each command, run round by round (A B C, A B C, …)
    so that the machine's drift over minutes falls on every command alike, not on their ratio."""
    runs: list[list[Measure]] = [[] for _ in cmds]
    for _ in range(repeat):
        for cmd, out in zip(cmds, runs, strict=True):
            if before:
                before()
            out.append(run_measured(cmd))
    result = []
    for ms in runs:
        ms.sort(key=lambda m: m.seconds)
        mid = ms[len(ms) // 2]
        result.append(Measure(mid.seconds, max(m.peak_tree_mb for m in ms), max(m.peak_proc_mb for m in ms)))
    return result


def compile_package() -> None:
    """Compile the package's bytecode, as `pip install .` does: an editable install under
    PYTHONDONTWRITEBYTECODE (as on this machine) would compile every module of it again at every
    start of the command, ~0.1 s a run that no installed copy pays (issue 14: fixed costs)."""
    import extractor

    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", os.path.dirname(extractor.__file__)],
        check=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    )


def ensure_rg() -> str:
    rg = shutil.which("rg")
    if rg:
        return rg
    print("ripgrep is absent: installing Debian's ripgrep package (apt-get install ripgrep)", file=sys.stderr)
    subprocess.run(["apt-get", "update", "-qq"], check=False)
    subprocess.run(["apt-get", "install", "-y", "-qq", "ripgrep"], check=True)
    rg = shutil.which("rg")
    assert rg, "ripgrep could not be installed"
    return rg


def ensure_corpus(corpus: Path, size: str) -> dict[str, object]:
    meta = corpus / "corpus.json"
    if not meta.exists():
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "scripts" / "make_corpus.py"),
                "bench",
                "--size",
                size,
                "--out",
                str(corpus),
            ],
            check=True,
        )
    return json.loads(meta.read_text())


def dir_bytes(d: Path) -> int:
    return sum(f.stat().st_size for f in d.iterdir() if f.is_file())


def scan_cmd(inputs: list[str], out: str, workers: int) -> list[str]:
    exe = shutil.which("doi-extract") or str(Path(sys.executable).parent / "doi-extract")
    return [exe, "scan", *inputs, "-o", out, "--workers", str(workers), "--force", "--quiet"]


def bench_find(kind_texts: dict[str, str]) -> list[tuple[str, float, float | None, int]]:
    """(label, MB/s of find_dois, MB/s of the C matcher on the UTF-8 bytes or None, hits) on
    in-memory texts, best of 3 runs with cold caches (the texts share their DOI names, so a
    warm cache would flatter every run after the first)."""
    from extractor import find_dois
    from extractor.match.find import clear_caches
    from extractor.match.native import find_spans_utf8

    res: list[tuple[str, float, float | None, int]] = []
    for label, text in kind_texts.items():
        kind = "html" if label.startswith("html") else "pdf" if label.startswith("pdf") else "plain"
        best = float("inf")
        hits = 0
        for _ in range(3):
            clear_caches()
            t0 = time.perf_counter()
            hits = sum(1 for _ in find_dois(text, kind))
            best = min(best, time.perf_counter() - t0)
        data = text.encode()
        # what scan runs: plain text in C; HTML's views and PDF text's rules in C, into a mention table
        c_run = {"plain": find_spans_utf8, "html": _html_into_table, "pdf": _pdf_into_table}[kind]
        c_best = min(_timed(c_run, data) for _ in range(3))
        res.append((label, len(data) / 1e6 / best, len(data) / 1e6 / c_best, hits))
    return res


def _html_into_table(data: bytes) -> None:
    from extractor.match import native
    from extractor.pipeline.table import Mentions

    native.html_scan(data, 0, len(data), 0, len(data) + 1, 0, Mentions(), None)


def _pdf_into_table(data: bytes) -> None:
    from extractor.match import native
    from extractor.match.find import clear_caches
    from extractor.pipeline.table import Mentions

    clear_caches()  # the rehyphenation cache, cold as find_dois' caches are
    native.pdf_scan(data, 0, len(data), 0, len(data) + 1, 0, Mentions(), None)


def _timed(fn: Any, *args: Any) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def _best(fn: Any, *args: Any, rounds: int = 3) -> float:
    """The fastest of a few runs: the machine's neighbours add up to 2x to single runs."""
    return min(_timed(fn, *args) for _ in range(rounds))


def _form_texts(n_bytes: int) -> dict[str, str]:
    """Texts of about n_bytes with DOIs in one display form at ~2 per KB, in prose."""
    rng = random.Random(7)
    words = [
        "the",
        "of",
        "and",
        "in",
        "to",
        "a",
        "with",
        "for",
        "was",
        "were",
        "on",
        "by",
        "that",
        "cells",
        "patients",
        "study",
        "results",
        "analysis",
        "protein",
        "expression",
        "increased",
        "significantly",
        "compared",
    ]
    forms = {
        "bare": "{}",
        "doi-label": "doi:{}",
        "resolver-url": "https://doi.org/{}",
        "dx-resolver-url": "http://dx.doi.org/{}",
        "urn": "urn:doi:{}",
        "info-uri": "info:doi/{}",
        "other-url": "https://onlinelibrary.wiley.com/doi/abs/{}/abstract",
        "percent-encoded": "https://example.org/openurl?id=doi%3A{}&x=1",
        "no-dois (prose only)": "",
    }
    out = {}
    for label, fmt in forms.items():
        parts: list[str] = []
        size = 0
        i = 0
        while size < n_bytes:
            chunk = " ".join(rng.choice(words) for _ in range(80)) + " "
            if fmt:
                doi = f"10.{1000 + i % 9000}/j.abc.2020.{i:05d}"
                if "%3A" in fmt:
                    doi = doi.replace("/", "%2F")
                chunk += fmt.format(doi) + ". "
            parts.append(chunk)
            size += len(chunk)
            i += 1
        out[label] = "".join(parts)
    base = out["doi-label"]
    out["html (same text in markup)"] = (
        "<html><body>" + "".join(f"<p>{p}</p>" for p in base.split(". ")) + "</body></html>"
    )
    out["pdf (same text, wrapped)"] = "\n".join(base[i : i + 90] for i in range(0, len(base), 90))
    return out


def find_tables(say: Any) -> None:
    """The finder in memory, per display form and per kind, and on hostile inputs."""
    say()
    say(f"{'find_dois in memory (8 MB each, cold caches)':<44} {'MB/s':>8} {'hits':>8} {'C MB/s':>8}")
    for label, mbs, c_mbs, h in bench_find(_form_texts(8 << 20)):
        say(f"{label:<44} {mbs:>8.1f} {h:>8} {'' if c_mbs is None else f'{c_mbs:.1f}':>8}")
    # Hostile inputs: each megabyte should cost about what a megabyte of citation-dense text
    # costs, and 8 MB eight times what 1 MB costs (the ratio 8/1 near 8: linear time).
    say()
    say(
        f"{'hostile input (1 MB and 8 MB)':<44} {'MB/s':>8} {'8/1':>6} {'hits/MB':>8} {'C MB/s':>8} {'C 8/1':>6}"
        f" {'C spans':>8}"
    )
    # C MB/s: the C matcher as scan runs it (hits counted into a document's mention table);
    # C spans: find_spans_utf8, one Python Span per hit (the library's bytes API). HTML rows: the
    # C port of its views (native.html_scan) into a mention table; PDF rows: native.pdf_scan.
    from extractor.match.native import find_spans_utf8, scan
    from extractor.pipeline.table import Mentions

    def c_scan(data: bytes) -> None:
        scan(data, 0, len(data), 0, len(data), 0, Mentions(), None)

    # Best of 3 runs each (a new mention table each run, as each document has its own).
    for label, text1, kind in _hostile_texts():
        text8 = text1 * 8
        t1 = _best(lambda t=text1, k=kind: sum(1 for _ in find_dois_kind(t, k)))
        t8 = _best(lambda t=text8, k=kind: sum(1 for _ in find_dois_kind(t, k)))
        hits = sum(1 for _ in find_dois_kind(text1, kind))
        c = ""
        if kind == "plain":
            c1 = _best(c_scan, text1.encode())
            c8 = _best(c_scan, text8.encode())
            spans = _best(find_spans_utf8, text1.encode())
            c = f"{len(text1) / 1e6 / c1:>8.1f} {c8 / c1:>6.1f} {len(text1) / 1e6 / spans:>8.1f}"
        elif kind == "html":  # the views in C (native.html_scan), as scan runs HTML
            c1 = _best(_html_into_table, text1.encode())
            c8 = _best(_html_into_table, text8.encode())
            c = f"{len(text1) / 1e6 / c1:>8.1f} {c8 / c1:>6.1f}"
        elif kind == "pdf":  # PDF text's rules in C (native.pdf_scan), as scan runs it
            c1 = _best(_pdf_into_table, text1.encode())
            c8 = _best(_pdf_into_table, text8.encode())
            c = f"{len(text1) / 1e6 / c1:>8.1f} {c8 / c1:>6.1f}"
        say(f"{label:<44} {len(text1) / 1e6 / t1:>8.1f} {t8 / t1:>6.1f} {hits:>8} {c}")


def syntax_tables(say: Any) -> None:
    """The source syntaxes read in C (spec §7), in memory as a scan reads a document: the
    project's labelled exports and pages of each syntax repeated to 8 MB, their views built and
    searched into a mention table; beside it the Python views and matcher (find_dois) on 1 MB."""
    from extractor import find_dois
    from extractor.match import native
    from extractor.match.syntaxes import SYNTAX_TABLE, detect_syntax
    from extractor.pipeline.table import Mentions

    folder = ROOT / "corpora" / "labelled-syntaxes" / "plain"
    say()
    say(f"{'source syntax in memory (8 MB, best of 5)':<44} {'C MB/s':>8} {'hits/MB':>8} {'Py MB/s':>8}")
    for suffix in sorted({p.suffix for p in folder.iterdir()}):
        syntax = detect_syntax(f"x{suffix}")
        entry = SYNTAX_TABLE[syntax].c_entry if syntax else None
        if entry is None:
            continue
        files = sorted(folder.glob(f"*{suffix}"))
        # whole files joined by blank lines: each syntax's constructs close within a file
        one = b"\n\n".join(p.read_bytes() for p in files)
        data = one * max(1, (8 << 20) // len(one))
        scan = getattr(native, entry)

        def into_table(d: bytes, scan: Any = scan) -> None:
            scan(d, 0, len(d), 0, len(d) + 1, 0, Mentions(), None)

        best = _best(into_table, data, rounds=5)
        hits: list[Any] = []
        scan(one, 0, len(one), 0, len(one) + 1, 0, None, hits)
        text = (one * max(1, (1 << 20) // len(one))).decode("utf-8", "replace")
        py = _best(lambda t=text, s=syntax: sum(1 for _ in find_dois(t, syntax=s)), rounds=1)
        say(
            f"{f'{syntax} ({suffix}, {len(files)} files)':<44} {len(data) / 1e6 / best:>8.1f}"
            f" {len(hits) / (len(one) / 1e6):>8.0f} {len(text.encode()) / 1e6 / py:>8.1f}"
        )


def canonicalize_tables(say: Any) -> None:
    """A column of a million identifiers (bare, doi:, resolver URLs, SICI-like parentheses, a
    fifth null) to canonical DOIs: canonicalize_array (C on the Arrow buffers) against
    canonicalize value by value (what `df.doi.map(canonicalize)` costs)."""
    import pyarrow as pa

    from extractor import canonicalize
    from extractor.arrow import canonicalize_array

    rng = random.Random(1)
    forms = ["10.{}/J.ABC.{}", "https://doi.org/10.{}/abc.{}", "doi:10.{}/X{}", "10.{}/(SICI){}", None]
    values = [
        None if (f := rng.choice(forms)) is None else f.format(rng.randint(1000, 9999), rng.randint(0, 10**6))
        for _ in range(1_000_000)
    ]
    array = pa.array(values)
    c = _best(canonicalize_array, array)
    py = _best(lambda: [canonicalize(v) for v in values], rounds=1)
    say()
    say(f"{'a column of 1M identifiers':<44} {'seconds':>8} {'M/s':>8}")
    say(f"{'canonicalize_array (C)':<44} {c:>8.3f} {1 / c:>8.2f}")
    say(f"{'canonicalize value by value':<44} {py:>8.3f} {1 / py:>8.2f}")


def pages_tables(html_dir: Path, tmp: Path, say: Any) -> None:
    """Small HTML pages, one worker in this process (issue 11): what a scan's shard costs per
    file against its floor — reading the files alone and the C matcher alone — and the same
    pages as the records of a WARC (when warcio is installed to write one)."""
    from extractor.match.native import html_scan
    from extractor.pipeline.arrow_setup import skip_pandas
    from extractor.pipeline.io.inputs import expand_inputs, plan_shards
    from extractor.pipeline.io.read import read_upto
    from extractor.pipeline.shard import run_shard
    from extractor.pipeline.table import Mentions
    from extractor.pipeline.units import ScanConfig, no_progress

    skip_pandas()  # as the scan's workers are set up
    paths = sorted(str(p) for p in html_dir.iterdir())
    datas = [p.read_bytes() for p in sorted(html_dir.iterdir())]
    size = sum(map(len, datas))

    def read_all() -> None:
        for p in paths:
            read_upto(p, 1 << 20)

    def scan_all() -> None:
        for d in datas:
            html_scan(
                d,
                0,
                len(d),
                0,
                len(d) + 1,
                0,
                Mentions(),
                None,
                chars=False,
                line_base=0,
                line_from=0,
                line_to=len(d),
            )

    def shards(inputs: list[str]) -> float:
        out = tmp / "pages-out"
        config = ScanConfig(out=str(out))
        best = float("inf")
        for _ in range(3):
            shutil.rmtree(out, ignore_errors=True)
            files, _rej = expand_inputs(inputs, str(tmp / "spool"))
            specs, _rej, _total = plan_shards(files, config)
            (out / "_shards").mkdir(parents=True)
            t0 = time.perf_counter()
            for spec in specs:
                run_shard(spec, config, no_progress)
            best = min(best, time.perf_counter() - t0)
        shutil.rmtree(out, ignore_errors=True)
        return best

    say()
    say(
        f"{len(paths)} HTML pages, {size / 1e6:.1f} MB, one worker (best of 3)  {'seconds':>8} {'MB/s':>8} {'us/page':>8}"
    )
    rows = [
        ("read alone (open, read, close)", _best(read_all)),
        ("html_scan alone (bytes in memory)", _best(scan_all)),
        ("a scan's shards, in process", shards([str(html_dir)])),
    ]
    warc = tmp / "pages.warc.gz"
    if write_pages_warc(paths, warc):
        rows.append(
            (f"the pages as a WARC ({warc.stat().st_size / 1e6:.1f} MB gzipped)", shards([str(warc)]))
        )
        warc.unlink()
    for label, seconds in rows:
        say(f"{label:<44} {seconds:>8.3f} {size / 1e6 / seconds:>8.1f} {seconds / len(paths) * 1e6:>8.1f}")


def write_pages_warc(paths: list[str], warc: Path) -> bool:
    """The pages as HTTP responses of a WARC gzipped per record, as a crawler writes them."""
    try:
        from warcio.statusandheaders import StatusAndHeaders
        from warcio.warcwriter import WARCWriter
    except ImportError:
        return False
    import io

    with open(warc, "wb") as out:
        w = WARCWriter(out, gzip=True)
        for p in paths:
            headers = StatusAndHeaders(
                "200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1"
            )
            uri = "https://pages.example/" + os.path.basename(p)
            body = io.BytesIO(Path(p).read_bytes())
            w.write_record(w.create_warc_record(uri, "response", payload=body, http_headers=headers))
    return True


SHAPES = ("four", "varied", "distinct", "exports")


def shapes_tables(rg: str, repeat: int, tmp: Path, say: Any) -> None:
    """Issue 14: corpora shaped unlike the benchmark (scripts/make_corpus.py shapes) — 4 files of
    ~150 MB, files of very different sizes, nothing but distinct DOIs, real export styles — each
    against `rg -j1 -o` in the same rounds, with where a 1-worker scan's time goes and the peak
    memory of its largest process."""
    shapes = ROOT / "corpora" / "bench-shapes"
    if not (shapes / "shapes.json").exists():
        subprocess.run([sys.executable, str(ROOT / "scripts" / "make_corpus.py"), "shapes"], check=True)
    drop = lambda: shutil.rmtree(tmp / "out", ignore_errors=True)  # noqa: E731
    say()
    say(
        f"{'corpus (issue 14 shapes)':<12} {'MB':>6} {'files':>5} {'rg s':>6} {'scan1 s':>8} {'x rg':>6} "
        f"{'scan2 s':>8} {'2w/1w':>6} {'proc MB':>8} | 1 worker: start-up, plan, shards, merge (Parquet)"
    )
    for name in SHAPES:
        files = sorted(str(p) for p in (shapes / name).iterdir())
        nbytes = sum(os.path.getsize(f) for f in files)
        rg_cmd = [rg, "-j1", "-o", "-i", "--no-filename", "--no-line-number", CROSSREF, *files]
        rg_m, s1, s2 = median_runs(
            [rg_cmd, scan_cmd(files, str(tmp / "out"), 1), scan_cmd(files, str(tmp / "out"), 2)], repeat, drop
        )
        drop()
        run_measured(scan_cmd(files, str(tmp / "out"), 1))
        t = json.loads((tmp / "out" / "_run.json").read_text())["timings"]
        say(
            f"{name:<12} {nbytes / 1e6:>6.0f} {len(files):>5} {rg_m.seconds:>6.2f} {s1.seconds:>8.2f} "
            f"{s1.seconds / rg_m.seconds:>6.2f} {s2.seconds:>8.2f} {s1.seconds / s2.seconds:>6.2f} "
            f"{max(s1.peak_proc_mb, s2.peak_proc_mb):>8.0f} | {t['startup_seconds']}, {t['plan_seconds']}, "
            f"{t['shards_wall_seconds']}, {t['merge_seconds']} ({t['parquet_write_seconds']})"
        )


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


def check_memory(size: str, tmp: Path, say: Any) -> None:
    """Scan a file of one line with no newline, and one enormous JSONL record, of `size`."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from make_corpus import parse_size

    msize = parse_size(size) if size != "0" else 0
    if not msize:
        return
    say()
    for label, path, write in (
        (f"one line, no newline, {size}", tmp / "one-line.txt", write_one_line_file),
        (f"one JSONL record of {size}", tmp / "huge.jsonl", write_huge_record),
    ):
        write(path, msize)
        m = run_measured(scan_cmd([str(path)], str(tmp / "out"), 1))
        found = json.loads((tmp / "out" / "_run.json").read_text())["hits"]
        say(
            f"{label:<44} {m.seconds:>8.2f} {msize / 1e6 / m.seconds:>8.1f} "
            f"{found:>11} {m.peak_tree_mb:>13.0f} {m.peak_proc_mb:>13.0f}"
        )
        path.unlink()


def two_process_capacity() -> float:
    """The machine's two-process capacity now: how much faster two CPU-bound processes finish
    their work together than one after the other (2.0 on two free cores; under 1 to 1.95 on
    this machine's shared ones, from one minute to the next)."""
    loop = [sys.executable, "-c", "sum(i * i for i in range(12_000_000))"]
    t0 = time.perf_counter()
    subprocess.run(loop, check=True)
    one = time.perf_counter() - t0
    t0 = time.perf_counter()
    procs = [subprocess.Popen(loop) for _ in range(2)]
    for p in procs:
        p.wait()
    both = time.perf_counter() - t0
    return 2 * one / both


def write_multistream_dump(path: Path, pages: int, per_stream: int = 100) -> tuple[int, int]:
    """A Wikipedia-like multistream dump and its index (tests/wikidump.py's writer) of `pages`
    pages, their texts the real wikitext of corpora-markup-dev in turn; (bytes as XML, stored)."""
    import bz2
    from concurrent.futures import ProcessPoolExecutor

    sys.path.insert(0, str(ROOT))
    from tests.wikidump import FOOTER, HEADER, markup_dev_pages

    real = [p for p, _ in markup_dev_pages()]
    assert real, "corpora-markup-dev is not beside the project"
    groups = []
    for g in range(0, pages, per_stream):
        xml = []
        for i in range(g, min(pages, g + per_stream)):
            src = real[i % len(real)]
            src.title, src.page_id = f"{src.title.split(' #')[0]} #{i}", i + 1
            xml.append(src.xml())
        groups.append(("".join(xml), [(i + 1, f"Page #{i}") for i in range(g, min(pages, g + per_stream))]))
    raw = len(HEADER) + len(FOOTER) + sum(len(x.encode()) for x, _ in groups)
    with ProcessPoolExecutor(2) as pool:
        blobs = list(pool.map(bz2.compress, [x.encode() for x, _ in groups], chunksize=16))
    index = []
    with open(path, "wb") as f:
        f.write(bz2.compress(HEADER.encode()))
        for blob, (_x, ids) in zip(blobs, groups, strict=True):
            off = f.tell()
            f.write(blob)
            index += [f"{off}:{pid}:{title}\n" for pid, title in ids]
        f.write(bz2.compress(FOOTER.encode()))
    idx = Path(str(path)[: -len(".xml.bz2")] + "-index.txt.bz2")
    idx.write_bytes(bz2.compress("".join(index).encode()))
    return raw, path.stat().st_size


def archive_tables(corpus: Path, repeat: int, tmp: Path, say: Any) -> None:
    """Issue 30: a .tar.gz of many small documents against `tar xzf` and a scan of the folder; a
    multistream Wikipedia-like dump against `bzip2 -dc`, one worker and two beside the machine's
    two-process capacity; and the peak memory of a 3 GiB zip bomb and a 3 GiB tar.gz bomb."""
    import gzip
    import io
    import tarfile
    import zipfile

    drop = lambda: shutil.rmtree(tmp / "out", ignore_errors=True)  # noqa: E731
    # many small documents (html pages and small texts), as a PMC or Zenodo bundle holds
    src = tmp / "bundle"
    shutil.copytree(corpus / "html", src / "html")
    shutil.copytree(corpus / "small", src / "small")
    nbytes = sum(f.stat().st_size for f in src.rglob("*") if f.is_file())
    members = sum(1 for f in src.rglob("*") if f.is_file())
    tgz = tmp / "bundle.tar.gz"
    with tarfile.open(tgz, "w:gz", compresslevel=6) as t:
        t.add(src, arcname="bundle")
    shutil.rmtree(src)
    unpack = tmp / "unpacked"
    untar_scan = [
        "bash",
        "-c",
        f"rm -rf {unpack} && mkdir -p {unpack} && tar xzf {tgz} -C {unpack} && "
        + " ".join(scan_cmd([str(unpack)], str(tmp / "out"), 1)),
    ]
    untar_scan2 = [*untar_scan[:2], untar_scan[2].replace("--workers 1", "--workers 2")]
    ms = median_runs(
        [
            ["bash", "-c", f"rm -rf {unpack} && mkdir -p {unpack} && tar xzf {tgz} -C {unpack}"],
            untar_scan,
            scan_cmd([str(tgz)], str(tmp / "out"), 1),
            untar_scan2,
        ],
        repeat,
        drop,
    )
    run = json.loads((tmp / "out" / "_run.json").read_text())
    say()
    say(
        f"A .tar.gz of {members} small documents ({nbytes / 1e6:.0f} MB; {tgz.stat().st_size / 1e6:.0f} MB stored), "
        f"{run['hits']} hits; medians of {repeat} alternating rounds"
    )
    say(f"{'what':<52} {'seconds':>8} {'MB/s':>8} {'peak proc MB':>13}")
    for label, m in zip(
        (
            "tar xzf (to disk)",
            "tar xzf, then scan the folder --workers 1",
            "scan bundle.tar.gz --workers 1",
            "tar xzf, then scan the folder --workers 2",
        ),
        ms,
        strict=True,
    ):
        say(f"{label:<52} {m.seconds:>8.2f} {nbytes / 1e6 / m.seconds:>8.1f} {m.peak_proc_mb:>13.0f}")
    say(
        f"scan of the .tar.gz / (tar xzf + scan, 1 worker): {ms[2].seconds / ms[1].seconds:.2f}x (issue 30: <= 1)"
    )
    shutil.rmtree(unpack, ignore_errors=True)
    tgz.unlink()

    dump = tmp / "wiki-20240601-pages-articles-multistream.xml.bz2"
    raw, stored = write_multistream_dump(dump, 30_000)
    shard = "--shard-size=4MiB"
    one = [*scan_cmd([str(dump)], str(tmp / "out"), 1), shard]
    two = [*scan_cmd([str(dump)], str(tmp / "out"), 2), shard]
    bzcat = ["bash", "-c", f"bzip2 -dc {dump} > /dev/null"]
    say()
    say(
        f"A multistream dump of 30,000 pages of real wikitext ({raw / 1e6:.0f} MB of XML, {stored / 1e6:.0f} MB "
        f"stored, its index beside it); medians of {repeat} alternating rounds, each with the two-process capacity"
    )
    rounds: list[tuple[float, float, float, float, float]] = []
    for _ in range(repeat):
        cap = two_process_capacity()
        b = run_measured(bzcat).seconds
        m1 = run_measured(one)  # its CPU seconds: the scan's, its worker's and its bzip2 processes'
        s1, cpu1 = m1.seconds, m1.cpu_seconds
        s2 = run_measured(two).seconds
        drop()
        rounds.append((cap, b, s1, s2, cpu1))
    rounds.sort(key=lambda r: r[2])
    cap, b, s1, s2, _cpu = rounds[len(rounds) // 2]
    run_measured(two)
    shards = json.loads((tmp / "out" / "_run.json").read_text())["shards"]
    say(f"{'what':<52} {'seconds':>8} {'MB/s of XML':>12}")
    for label, secs in (
        ("bzip2 -dc > /dev/null", b),
        ("scan --workers 1", s1),
        (f"scan --workers 2 ({shards} shards)", s2),
    ):
        say(f"{label:<52} {secs:>8.2f} {raw / 1e6 / secs:>12.1f}")
    for c, bb, t1, t2, cpu in rounds:
        # one worker already keeps more than one core busy (its bzip2 process decompresses beside
        # it): two workers are held to the CPU seconds of the work over the cores the machine gives
        say(
            f"  round: capacity {c:.2f}x; 1 worker / bzip2 -dc {t1 / bb:.2f}x (issue 30: <= 1.2); "
            f"1 worker keeps {cpu / t1:.2f} cores busy; 2 workers' speed-up {t1 / t2:.2f}x; "
            f"2 workers' use of the machine (CPU s / (wall × capacity)) {cpu / (t2 * c):.2f} (issue 30: >= 0.92)"
        )
    dump.unlink()

    say()
    say("Bombs of 3 GiB (a member of the digit 0, which is text), one worker: the scan's peak memory")
    zbomb = tmp / "bomb.zip"
    with zipfile.ZipFile(zbomb, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("before.txt", "doi:10.1000/before")
        with z.open("zeros.txt", "w", force_zip64=True) as o:
            block = b"0" * (1 << 24)  # text: a bomb of NUL bytes is refused as binary at once
            for _ in range(3 << 6):
                o.write(block)
        z.writestr("after.txt", "doi:10.1000/after")
    tbomb = tmp / "bomb.tar.gz"
    with (
        open(tbomb, "wb") as raw_f,
        gzip.GzipFile(fileobj=raw_f, mode="wb", compresslevel=1) as gz,
        tarfile.open(fileobj=gz, mode="w|") as t,
    ):
        zeros = tarfile.TarInfo("zeros.txt")
        zeros.size = 3 << 30

        class Zeros:
            def __init__(self) -> None:
                self.left = 3 << 30

            def read(self, n: int) -> bytes:
                n = min(n, self.left)
                self.left -= n
                return b"0" * n

        t.addfile(zeros, Zeros())  # type: ignore[arg-type]
        after = tarfile.TarInfo("after.txt")
        data = b"doi:10.1000/after"
        after.size = len(data)
        t.addfile(after, io.BytesIO(data))
    say(f"{'what':<52} {'seconds':>8} {'peak proc MB':>13} {'stored MB':>10}")
    for label, path in (("zip bomb (3 GiB member)", zbomb), ("tar.gz bomb (3 GiB member)", tbomb)):
        m = run_measured(scan_cmd([str(path)], str(tmp / "out"), 1))
        got = json.loads((tmp / "out" / "_run.json").read_text())
        assert got["hits"] >= 1, got
        say(f"{label:<52} {m.seconds:>8.2f} {m.peak_proc_mb:>13.0f} {path.stat().st_size / 1e6:>10.1f}")
        say(f"  skipped: {got['skipped_records'][0]['first'][0]['reason']}")
        path.unlink()


# DuckDB over a Parquet of records, as a user with one types it first (issue 31): Crossref's
# pattern, lower(), grouped by record and DOI, written to Parquet; argv: parquet, out, threads.
DUCKDB_QUERY = """
import sys, duckdb
con = duckdb.connect()
con.execute(f"SET threads={int(sys.argv[3])}")
con.execute(
    "COPY (SELECT id, doi, count(*) AS n FROM (SELECT id, lower(unnest(regexp_extract_all(text, "
    + "'(?i)10\\\\.\\\\d{4,9}/[-._;()/:a-z0-9]+'))) AS doi FROM read_parquet('" + sys.argv[1] + "')) "
    + "GROUP BY id, doi) TO '" + sys.argv[2] + "' (FORMAT parquet)"
)
"""


def records_tables(corpus: Path, repeat: int, tmp: Path, say: Any) -> None:
    """Issue 31: the same documents as text files, as JSONL records and as a Parquet of records,
    scanned by one worker and two, against DuckDB's query over the Parquet with one thread and
    two; medians of alternating rounds, the two-process capacity measured in each round."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    parts = sorted((corpus / "jsonl").iterdir())[:3]
    src = tmp / "records"
    for d in ("text", "jsonl"):
        (src / d).mkdir(parents=True)
    ids: list[str] = []
    texts: list[str] = []
    for part in parts:
        shutil.copy(part, src / "jsonl" / part.name)
        with (
            open(part, encoding="utf-8") as f,
            open(src / "text" / f"{part.stem}.txt", "w", encoding="utf-8") as dst,
        ):
            for line in f:
                r = json.loads(line)
                ids.append(str(r["id"]))
                texts.append(r["text"])
                dst.write(r["text"] + "\n\n")
    parquet = src / "records.parquet"
    pq.write_table(pa.table({"id": ids, "text": texts}), parquet, row_group_size=4096)
    nbytes = sum(len(t.encode("utf-8")) for t in texts)
    text_files = sorted(str(p) for p in (src / "text").iterdir())
    jsonl_files = sorted(str(p) for p in (src / "jsonl").iterdir())
    out = str(tmp / "out")
    duck_out = str(tmp / "duck.parquet")
    cmds = {
        "text files, 1 worker": scan_cmd(text_files, out, 1),
        "JSONL records, 1 worker": scan_cmd(jsonl_files, out, 1),
        "Parquet records, 1 worker": scan_cmd([str(parquet)], out, 1),
        "DuckDB over the Parquet, 1 thread": [
            sys.executable,
            "-c",
            DUCKDB_QUERY,
            str(parquet),
            duck_out,
            "1",
        ],
        "text files, 2 workers": scan_cmd(text_files, out, 2),
        "JSONL records, 2 workers": scan_cmd(jsonl_files, out, 2),
        "Parquet records, 2 workers": scan_cmd([str(parquet)], out, 2),
        "DuckDB over the Parquet, 2 threads": [
            sys.executable,
            "-c",
            DUCKDB_QUERY,
            str(parquet),
            duck_out,
            "2",
        ],
    }
    rounds = alternating_rounds(cmds, repeat, lambda: shutil.rmtree(out, ignore_errors=True))
    _times, med, capacities = rounds
    pairs = pq.read_table(duck_out).num_rows
    shutil.rmtree(out, ignore_errors=True)
    run_measured(cmds["Parquet records, 1 worker"])
    ours = pq.read_table(Path(out) / "mentions").num_rows
    say_rounds(
        say,
        f"records (issue 31): {len(texts):,} documents, {nbytes / 1e6:.0f} MB of text",
        rounds,
        nbytes,
        "x files",
        lambda label: "text files, 2 workers" if "2 " in label else "text files, 1 worker",
    )
    say(
        f"(record, DOI) pairs: doi-extract {ours:,} (every display form, canonical), DuckDB {pairs:,}; "
        f"targets (issue 31): records <= 1.1x files with one worker; Parquet faster than DuckDB, 1 worker "
        f"vs 1 thread ({med['Parquet records, 1 worker'] / med['DuckDB over the Parquet, 1 thread']:.2f}x) "
        f"and 2 vs 2 ({med['Parquet records, 2 workers'] / med['DuckDB over the Parquet, 2 threads']:.2f}x); "
        f"two workers' speed-up on files {med['text files, 1 worker'] / med['text files, 2 workers']:.2f}x "
        f"against a median capacity of {sorted(capacities)[len(capacities) // 2]:.2f}"
    )


def alternating_rounds(
    cmds: dict[str, list[str]], repeat: int, before: Callable[[], object] | None = None
) -> tuple[dict[str, list[float]], dict[str, float], list[float]]:
    """Each command run once a round, `repeat` rounds, the machine's two-process capacity measured
    at each round's start: (seconds by command and round, their medians, the capacities)."""
    times: dict[str, list[float]] = {k: [] for k in cmds}
    capacities = []
    for _ in range(repeat):
        capacities.append(two_process_capacity())
        for label, cmd in cmds.items():
            if before is not None:
                before()
            times[label].append(run_measured(cmd).seconds)
    return times, {k: sorted(v)[len(v) // 2] for k, v in times.items()}, capacities


def say_rounds(
    say: Any,
    title: str,
    rounds: tuple[dict[str, list[float]], dict[str, float], list[float]],
    nbytes: int,
    ratio: str,
    ref_of: Callable[[str], str],
) -> None:
    """alternating_rounds' figures as a table under `title` with the rounds' capacities: each
    command's median, MB/s, its ratio to the median of ref_of(its label), and each round's time."""
    times, med, capacities = rounds
    say()
    say(
        f"{title}; medians of {len(capacities)} alternating rounds; two-process capacity per round "
        f"{', '.join(f'{c:.2f}' for c in capacities)}"
    )
    w = max(map(len, med)) + 2
    say(f"{'what':<{w}} {'seconds':>8} {'MB/s':>7} {ratio:>8} {'rounds':>24}")
    for label, t in med.items():
        each = " ".join(f"{x:.2f}" for x in times[label])
        say(f"{label:<{w}} {t:>8.2f} {nbytes / 1e6 / t:>7.1f} {t / med[ref_of(label)]:>8.2f} {each:>24}")


def find_jobs_tables(rg: str, plain_files: list[str], repeat: int, tmp: Path, say: Any) -> None:
    """Issue 31: `find` over one large text file (the corpus's first three plain files as one),
    printing every DOI and counting them, with one process and with two reading its byte ranges,
    against `rg -j1 -o` and `rg -j1 -c`; medians of alternating rounds, the two-process capacity
    measured in each."""
    big = tmp / "one-file.txt"
    with open(big, "wb") as dst:
        for part in plain_files[:3]:
            with open(part, "rb") as src:
                shutil.copyfileobj(src, dst)
    nbytes = big.stat().st_size
    exe = shutil.which("doi-extract") or str(Path(sys.executable).parent / "doi-extract")
    cmds = {
        "rg -j1 -o (Crossref pattern)": [rg, "-j1", "-o", "-i", CROSSREF, str(big)],
        "find -j 1": [exe, "find", "-j", "1", str(big)],
        "find -j 2": [exe, "find", "-j", "2", str(big)],
        "rg -j1 -c (Crossref pattern)": [rg, "-j1", "-c", "-i", CROSSREF, str(big)],
        "find -c -j 1": [exe, "find", "-c", "-j", "1", str(big)],
        "find -c -j 2": [exe, "find", "-c", "-j", "2", str(big)],
    }
    rounds = alternating_rounds(cmds, repeat)
    _times, med, capacities = rounds
    say_rounds(
        say,
        f"find over one text file (issue 31): {nbytes / 1e6:.0f} MB",
        rounds,
        nbytes,
        "x rg",
        lambda label: "rg -j1 -c (Crossref pattern)" if "-c" in label else "rg -j1 -o (Crossref pattern)",
    )
    say(
        f"two processes' speed-up: printing {med['find -j 1'] / med['find -j 2']:.2f}x, counting "
        f"{med['find -c -j 1'] / med['find -c -j 2']:.2f}x, against a median capacity of "
        f"{sorted(capacities)[len(capacities) // 2]:.2f}"
    )


def plain_tables(rg: str, plain_files: list[str], repeat: int, tmp: Path, say: Any) -> None:
    """Issue 31: `scan` of plain text files with one worker and two against `rg -j1 -o`, over
    the whole plain corpus (1 GB) and its first four files (210 MB: a small job, where the fixed
    costs weigh); medians of alternating rounds, the two-process capacity measured in each."""
    out = str(tmp / "plain-out")
    for files in (plain_files, plain_files[:4]):
        nbytes = sum(Path(f).stat().st_size for f in files)
        cmds = {
            "rg -j1 -o": [rg, "-j1", "-o", "-i", "--no-filename", "--no-line-number", CROSSREF, *files],
            "scan --workers 1": scan_cmd(files, out, 1),
            "scan --workers 2": scan_cmd(files, out, 2),
        }
        rounds = alternating_rounds(cmds, repeat, lambda: shutil.rmtree(out, ignore_errors=True))
        _times, med, capacities = rounds
        say_rounds(
            say,
            f"plain files, {nbytes / 1e6:.0f} MB ({len(files)} files)",
            rounds,
            nbytes,
            "x rg",
            lambda label: "rg -j1 -o",
        )
        cap = sorted(capacities)[len(capacities) // 2]
        up = med["scan --workers 1"] / med["scan --workers 2"]
        say(f"2-worker speed-up {up:.2f}x against a median capacity of {cap:.2f}: {up / cap:.2f} of it")


def write_small_files(source: Path, folder: Path, count: int, size: int = 2500) -> int:
    """Cut the first lines of a corpus file into `count` files of about `size` bytes (a corpus
    of one small document per file: the per-file cost); how many were written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    buf: list[bytes] = []
    n = 0
    with open(source, "rb") as f:
        for line in f:
            buf.append(line)
            n += len(line)
            if n >= size:
                (folder / f"doc-{written:06d}.txt").write_bytes(b"".join(buf))
                written += 1
                buf, n = [], 0
                if written >= count:
                    break
    return written


def write_pdf_text(sources: list[Path], folder: Path, width: int = 90, page_lines: int = 60) -> int:
    """Each corpus file as pdftotext would give it from a typeset page: lines of `width`
    characters (words and DOIs broken at the margin), a form feed every `page_lines` lines, in
    a `.pdf.txt` file (so the PDF rules read it); the bytes written."""
    folder.mkdir(parents=True, exist_ok=True)
    total = 0
    for src in sources:
        text = src.read_text(encoding="utf-8", errors="replace").replace("\n", " ")
        lines = [text[i : i + width] for i in range(0, len(text), width)]
        pages = ["\n".join(lines[i : i + page_lines]) for i in range(0, len(lines), page_lines)]
        data = ("\n\f".join(pages) + "\n").encode("utf-8")
        (folder / f"{src.stem}.pdf.txt").write_bytes(data)
        total += len(data)
    return total


def _hostile_texts() -> list[tuple[str, str, str]]:
    mb = 1_000_000
    return [
        ("10.1234/(((( (one candidate)", "10.1234/" + "(" * (mb - 8), "plain"),
        ("10.1234/ repeated, no spaces", "10.1234/" * (mb // 8), "plain"),
        ("DOIs joined by commas, no spaces", ",".join(f"10.1234/{i}" for i in range(mb // 13)), "plain"),
        (
            "DOIs of real length joined by commas",
            ",".join(f"10.{1000 + i % 9000}/j.cell.{2000 + i % 25}.{i:05d}" for i in range(mb // 28)),
            "plain",
        ),
        ("% repeated", "%" * mb, "plain"),
        ("10. repeated (a run with no separator)", "10." * (mb // 3), "plain"),
        ("10. repeated (pdf)", "10." * (mb // 3), "pdf"),
        ("&amp; repeated (html)", "<p>" + "&amp;" * (mb // 5) + "</p>", "html"),
        ('<a href=" repeated, never closed (html)', '<a href="' * (mb // 9), "html"),
        ("<a x='>' repeated (html)", "<a x='>'" * (mb // 8), "html"),
        ("10.1234/a-<newline> repeated (pdf)", "10.1234/a-\n" * (mb // 11), "pdf"),
        # closing brackets and separators after an empty suffix, bare and behind a label, in
        # each kind: every anchor in one long token (100 KB and 800 KB: the Python matcher
        # reads these at a tenth of a MB a second)
        *(
            (
                f"{label}10.1234/{c} repeated ({kind}, 0.1 MB)",
                f"{label}10.1234/{c}" * (mb // 10 // (9 + len(label))),
                kind,
            )
            for c in ")]}>,;"
            for label in ("", "doi:")
            for kind in ("plain", "html", "pdf")
        ),
    ]


def find_dois_kind(text: str, kind: str) -> Iterator[Any]:
    from extractor import find_dois

    return find_dois(text, kind)


def write_one_line_file(path: Path, size: int) -> None:
    rng = random.Random(3)
    chunk = "".join(f"word{rng.randint(0, 999)} " for _ in range(2000))
    with open(path, "w") as f:
        written = 0
        i = 0
        while written < size:
            s = chunk + f"doi:10.1234/line.{i} "
            f.write(s)
            written += len(s)
            i += 1


def write_huge_record(path: Path, size: int) -> None:
    with open(path, "w") as f:
        f.write('{"id": "huge", "text": "')
        written = 0
        i = 0
        while written < size:
            s = "lorem ipsum dolor sit amet " * 40 + f"doi:10.1234\\/rec.{i} "
            f.write(s)
            written += len(s)
            i += 1
        f.write('"}\n{"id": "small", "text": "doi:10.1234/small"}\n')


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="1GB", help="benchmark corpus size when it must be generated")
    ap.add_argument("--corpus", default=str(ROOT / "corpora" / "bench"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--memory-file", default="1GB", help="size of the one-line and one-record memory checks (0 to skip)"
    )
    ap.add_argument("--record", action="store_true", help="append the figures to benchmarks/RESULTS.md")
    ap.add_argument(
        "--only",
        choices=(
            "memory",
            "find",
            "engines",
            "shapes",
            "pages",
            "syntaxes",
            "canonicalize",
            "archives",
            "records",
            "find-jobs",
            "plain",
        ),
        help="run only this part (the scans are skipped)",
    )
    a = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT / "scripts"))

    corpus = Path(a.corpus)
    meta = ensure_corpus(corpus, a.size)
    rg = ensure_rg()
    compile_package()
    plain = corpus / "plain"
    plain_files = sorted(str(p) for p in plain.iterdir())
    nbytes = dir_bytes(plain)
    lines: list[str] = []

    def say(s: str = "") -> None:
        print(s, flush=True)
        lines.append(s)

    say(f"corpus: {corpus} — {nbytes / 1e6:.0f} MB plain text in {len(plain_files)} files ({meta})")
    tmp = Path(tempfile.mkdtemp(prefix="doi-bench-"))
    try:
        if a.only == "memory":
            check_memory(a.memory_file, tmp, say)
        elif a.only == "find":
            find_tables(say)
        elif a.only == "engines":
            engine_tables(plain_files, nbytes, a.repeat, tmp, say)
        elif a.only == "shapes":
            shapes_tables(rg, a.repeat, tmp, say)
        elif a.only == "pages":
            pages_tables(corpus / "html", tmp, say)
        elif a.only == "syntaxes":
            syntax_tables(say)
        elif a.only == "canonicalize":
            canonicalize_tables(say)
        elif a.only == "archives":
            archive_tables(corpus, a.repeat, tmp, say)
        elif a.only == "records":
            records_tables(corpus, a.repeat, tmp, say)
        elif a.only == "find-jobs":
            find_jobs_tables(rg, plain_files, a.repeat, tmp, say)
        elif a.only == "plain":
            plain_tables(rg, plain_files, a.repeat, tmp, say)
        if a.only:
            if a.record:
                record(lines, argv, a.repeat)
            return 0
        # ripgrep's raw scan: the physical reference.
        rg_cmd = [rg, "-j1", "-o", "-i", "--no-filename", "--no-line-number", CROSSREF, *plain_files]
        counts = subprocess.run(
            [rg, "-j1", "-i", "--count-matches", "--no-filename", CROSSREF, *plain_files],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        rg_hits = sum(int(x) for x in counts.split())
        drop = lambda: shutil.rmtree(tmp / "out", ignore_errors=True)  # noqa: E731
        rg_m, s1, s2 = median_runs(
            [rg_cmd, scan_cmd(plain_files, str(tmp / "out"), 1), scan_cmd(plain_files, str(tmp / "out"), 2)],
            a.repeat,
            drop,
        )
        hits = json.loads((tmp / "out" / "_run.json").read_text())["hits"]
        say()
        say(
            f"{'what':<44} {'seconds':>8} {'MB/s':>8} {'hits/s':>11} {'peak tree MB':>13} {'peak proc MB':>13}"
        )
        for label, m, h in (
            ("rg -j1 -o (Crossref pattern)", rg_m, rg_hits),
            ("doi-extract scan --workers 1", s1, hits),
            ("doi-extract scan --workers 2", s2, hits),
        ):
            say(
                f"{label:<44} {m.seconds:>8.2f} {nbytes / 1e6 / m.seconds:>8.1f} {h / m.seconds:>11.0f} "
                f"{m.peak_tree_mb:>13.0f} {m.peak_proc_mb:>13.0f}"
            )
        say(
            f"ratio scan(1 worker) / rg: {s1.seconds / rg_m.seconds:.2f}x (issue 14: <= 2.5x); "
            f"2-worker speed-up: {s1.seconds / s2.seconds:.2f}x (issue 14: >= 1.85x); "
            f"hits: scan {hits}, rg {rg_hits} (rg finds bare-pattern matches only)"
        )
        # Compressed input against decompression alone.
        gz = sorted(str(p) for p in (corpus / "gzip").iterdir())
        dec, sg, s1g = median_runs(
            [
                ["sh", "-c", "gzip -dc " + " ".join(gz) + " > /dev/null"],
                scan_cmd(gz, str(tmp / "out"), 1),
                scan_cmd(plain_files, str(tmp / "out"), 1),
            ],
            a.repeat,
            drop,
        )
        say(f"{'gzip -dc (decompression alone)':<44} {dec.seconds:>8.2f}")
        say(
            f"{'doi-extract scan gzip --workers 1':<44} {sg.seconds:>8.2f} {nbytes / 1e6 / sg.seconds:>8.1f} "
            f"{'':>11} {sg.peak_tree_mb:>13.0f} {sg.peak_proc_mb:>13.0f}"
        )
        say(
            f"gzip overhead: scan(gz) - scan(plain) = {sg.seconds - s1g.seconds:.2f} s vs decompression {dec.seconds:.2f} s "
            f"(plain scan timed in the same rounds: {s1g.seconds:.2f} s; scan(gz) / scan(plain) "
            f"{sg.seconds / s1g.seconds:.2f}x, issue 14: <= 1.3x)"
        )
        jl = sorted(str(p) for p in (corpus / "jsonl").iterdir())[:4]
        jl_bytes = sum(os.path.getsize(p) for p in jl)
        sj = median_run(scan_cmd(jl, str(tmp / "out"), 1), a.repeat, drop)
        say(
            f"{'scan JSONL records (4 files) --workers 1':<44} {sj.seconds:>8.2f} {jl_bytes / 1e6 / sj.seconds:>8.1f} "
            f"{'':>11} {sj.peak_tree_mb:>13.0f} {sj.peak_proc_mb:>13.0f}"
        )
        small_dir = tmp / "small"
        n_small = write_small_files(Path(plain_files[0]), small_dir, 20_000)
        s_bytes = dir_bytes(small_dir)
        ss = median_run(scan_cmd([str(small_dir)], str(tmp / "out"), 1), a.repeat, drop)
        say(
            f"{f'scan {n_small} small plain files --workers 1':<44} {ss.seconds:>8.2f} {s_bytes / 1e6 / ss.seconds:>8.1f} "
            f"{'':>11} {ss.peak_tree_mb:>13.0f} {ss.peak_proc_mb:>13.0f}"
        )
        shutil.rmtree(small_dir)
        html_dir = corpus / "html"
        h_bytes = dir_bytes(html_dir)
        sh = median_run(scan_cmd([str(html_dir)], str(tmp / "out"), 1), a.repeat, drop)
        say(
            f"{'scan HTML pages --workers 1':<44} {sh.seconds:>8.2f} {h_bytes / 1e6 / sh.seconds:>8.1f} "
            f"{'':>11} {sh.peak_tree_mb:>13.0f} {sh.peak_proc_mb:>13.0f}"
        )
        pdf_dir = tmp / "pdf"
        p_bytes = write_pdf_text([Path(p) for p in plain_files[:2]], pdf_dir)
        sp = median_run(scan_cmd([str(pdf_dir)], str(tmp / "out"), 1), a.repeat, drop)
        say(
            f"{'scan PDF text (2 files, wrapped) --workers 1':<44} {sp.seconds:>8.2f} {p_bytes / 1e6 / sp.seconds:>8.1f} "
            f"{'':>11} {sp.peak_tree_mb:>13.0f} {sp.peak_proc_mb:>13.0f}"
        )
        shutil.rmtree(pdf_dir)
        pages_tables(html_dir, tmp, say)
        find_tables(say)
        syntax_tables(say)
        canonicalize_tables(say)
        check_memory(a.memory_file, tmp, say)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if a.record:
        record(lines, argv, a.repeat)
    return 0


def record(lines: list[str], argv: list[str] | None, repeat: int) -> None:
    """Append a run's figures to benchmarks/RESULTS.md."""
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    with open(ROOT / "benchmarks" / "RESULTS.md", "a", encoding="utf-8") as f:
        f.write(
            f"\n## {datetime.date.today().isoformat()} — `python -m benchmarks {' '.join(argv or sys.argv[1:])}`\n\n"
        )
        f.write(f"Machine: {machine}. Medians of {repeat} runs.\n\n```\n" + "\n".join(lines) + "\n```\n")


if __name__ == "__main__":
    sys.exit(main())
