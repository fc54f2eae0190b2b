"""What every benchmark shares: a process tree timed and its peak memory polled, medians and alternating rounds, the corpus and ripgrep made ready, the two-process capacity, and RESULTS.md written."""

from __future__ import annotations

import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
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
    """Run `cmd` (output discarded), the RSS of its whole process tree polled every 50 ms by a
    thread while this one waits for the process: wall time to its exit (not to the poll after
    it), peak memory, CPU seconds as last seen."""
    with tempfile.TemporaryFile() as err_file:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err_file)
        peaks = [0, 0]  # the tree's, the largest process's
        seen: dict[int, float] = {}  # CPU seconds of each process of the tree, last seen
        done = threading.Event()

        def poll() -> None:
            while not done.is_set():
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
                peaks[0] = max(peaks[0], sum(sizes))
                peaks[1] = max(peaks[1], max(sizes, default=0))
                done.wait(0.05)

        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        p.wait()
        seconds = time.perf_counter() - t0
        done.set()
        poller.join()
        if p.returncode not in (0, 1):
            err_file.seek(0)
            raise RuntimeError(
                f"{cmd[0]} failed ({p.returncode}): {err_file.read().decode(errors='replace')[-500:]}"
            )
    return Measure(seconds, peaks[0] / 2**20, peaks[1] / 2**20, sum(seen.values()))


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


def timed(fn: Any, *args: Any) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def best(fn: Any, *args: Any, rounds: int = 3) -> float:
    """The fastest of a few runs: the machine's neighbours add up to 2x to single runs."""
    return min(timed(fn, *args) for _ in range(rounds))


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


# The record is read whole by whoever weighs a change: it stays this short (tests/test_docs.py).
RESULTS_MAX_LINES = 400


def record(lines: list[str], argv: list[str] | None, repeat: int) -> None:
    """Put a run's figures in benchmarks/RESULTS.md, in place of the last ones of the same
    command (the file is the current record; its history is git's)."""
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    args = [a for a in (argv or sys.argv[1:]) if a != "--record"]
    title = f"## `python -m benchmarks {' '.join(args)}`".rstrip()
    section = (
        f"{title}\n\n{datetime.date.today().isoformat()}; {machine}; medians of {repeat} runs.\n\n```\n"
        + "\n".join(lines)
        + "\n```\n"
    )
    path = ROOT / "benchmarks" / "RESULTS.md"
    text = path.read_text(encoding="utf-8")
    start = text.find(title + "\n")
    if start < 0:
        text = text.rstrip() + "\n\n" + section
    else:
        end = text.find("\n## ", start + len(title))
        text = text[:start] + section + ("\n" + text[end + 1 :] if end >= 0 else "")
    lines_now = text.count("\n")
    if lines_now > RESULTS_MAX_LINES:
        raise SystemExit(
            f"benchmarks/RESULTS.md would be {lines_now} lines, over {RESULTS_MAX_LINES}: fold an older "
            "section into its summary first (its history is git's); the figures above were not recorded"
        )
    path.write_text(text, encoding="utf-8")
