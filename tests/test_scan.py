"""`doi-extract scan` end to end, as a user runs it: the command line, worker processes, exit
codes, kills and Ctrl-C. The pipeline itself is tested in this process (helpers.scan_here) by
the modules of each stage: test_shards.py, test_windows.py, test_records.py, test_merge.py."""

from __future__ import annotations

import gzip
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from .helpers import SCAN, corrupt_gzip, make_corpus, run_json, table


def start_scan(*args: str, **popen: Any) -> subprocess.Popen[Any]:
    """`doi-extract scan ARGS` started in the background."""
    return subprocess.Popen([*SCAN, *args], **popen)


def wait_for_a_completed_shard(out: Path) -> None:
    """Until the first completion marker is written (a minute at most)."""
    deadline = time.monotonic() + 60
    while not list((out / "_shards").glob("*.done")) and time.monotonic() < deadline:
        time.sleep(0.01)


def scan(*args: str, check: int | None = 0) -> subprocess.CompletedProcess[str]:
    p = subprocess.run([*SCAN, *args], capture_output=True, text=True, timeout=300)
    if check is not None:
        assert p.returncode == check, p.stderr
    return p


def test_one_and_two_workers_give_identical_output(tmp_path: Path) -> None:
    src = make_corpus(tmp_path)
    a, b = tmp_path / "a", tmp_path / "b"
    scan(str(src), "-o", str(a), "--workers", "1", "--quiet", "--occurrences")
    scan(str(src), "-o", str(b), "--workers", "2", "--quiet", "--occurrences", "--shard-size", "4000")
    for name in ("mentions", "dois", "occurrences"):
        assert table(a, name) == table(b, name), name
    assert len(table(a, "occurrences")) == run_json(a)["hits"] == 12 * 301 + 2
    # the pool's start is a phase of its own: two workers were started, one runs here
    started = run_json(b)["timings"]["pool_start_seconds"]
    assert isinstance(started, float) and 0 < started < run_json(b)["timings"]["shards_wall_seconds"]
    assert run_json(a)["timings"]["pool_start_seconds"] is None


@pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or shutil.which("taskset") is None, reason="no taskset"
)
def test_default_workers_are_the_cpus_this_process_may_use(tmp_path: Path) -> None:
    """Issue 10: under `taskset -c 0` the default is one worker, not the machine's core count."""
    src = make_corpus(tmp_path)
    p = subprocess.run(
        ["taskset", "-c", "0", *SCAN, str(src), "-o", str(tmp_path / "o"), "-q"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert run_json(tmp_path / "o")["options"]["workers"] == 1
    scan(str(src), "-o", str(tmp_path / "all"), "-q")
    assert run_json(tmp_path / "all")["options"]["workers"] == len(os.sched_getaffinity(0))


def test_a_small_job_with_the_default_workers_runs_in_process(tmp_path: Path) -> None:
    """Issue 14: under local.SMALL_JOB bytes a pool's start costs more than its workers save, so
    a scan that was not told --workers runs in its own process; told, it starts the pool. The
    rows are the same either way."""
    src = make_corpus(tmp_path)
    scan(str(src), "-o", str(tmp_path / "default"), "-q")
    scan(str(src), "-o", str(tmp_path / "two"), "-q", "--workers", "2")
    assert run_json(tmp_path / "default")["options"]["engine"] == "in-process"
    assert run_json(tmp_path / "two")["options"]["engine"] == "local"
    for name in ("mentions", "dois"):
        assert table(tmp_path / "default", name) == table(tmp_path / "two", name), name


@pytest.mark.slow
def test_killed_run_resumes_to_the_same_output(tmp_path: Path) -> None:
    """Killed (SIGKILL, the whole process group) once some shards are complete and others not:
    the rerun resumes from the completion markers and gives the clean run's output."""
    src = make_corpus(tmp_path)
    for i in range(8):
        (src / f"more{i}.txt").write_text("".join(f"doi:10.1234/k{i}.{j}\n" for j in range(40000)))
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    scan(str(src), "-o", str(clean), "--quiet", "--workers", "2", "--shard-size", "30000")
    p = start_scan(
        str(src),
        "-o",
        str(killed),
        "--quiet",
        "--workers",
        "2",
        "--shard-size",
        "30000",
        start_new_session=True,
    )
    wait_for_a_completed_shard(killed)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    markers = len(list((killed / "_shards").glob("*.done")))
    assert 0 < markers < run_json(clean)["shards"], (
        "the kill did not fall between the first and the last shard"
    )
    assert not (killed / "_run.json").exists()
    scan(str(src), "-o", str(killed), "--quiet", "--workers", "2", "--shard-size", "30000")
    assert run_json(killed)["shards_resumed"] >= markers
    assert table(killed, "mentions") == table(clean, "mentions")
    assert table(killed, "dois") == table(clean, "dois")
    assert not [n for n in os.listdir(killed) if ".tmp" in n]


def test_rejected_inputs_exit_1_and_are_named_on_stderr(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("doi:10.1000/182\n")
    truncated = tmp_path / "trunc.gz"  # cut short: read up to the cut, and named (exit 1)
    truncated.write_bytes(gzip.compress(b"doi:10.1000/lost\n" * 1000)[:-30])
    corrupt = tmp_path / "corrupt.gz"  # rejected whole
    corrupt.write_bytes(corrupt_gzip(b"doi:10.1000/corrupt\n" * 1000))
    out = tmp_path / "out"
    p = scan(
        str(good),
        str(truncated),
        str(corrupt),
        str(tmp_path / "missing.txt"),
        "-o",
        str(out),
        "--quiet",
        "--workers",
        "2",
        check=1,
    )
    assert "partial " in p.stderr and "trunc.gz" in p.stderr and "Traceback" not in p.stderr
    assert "rejected " in p.stderr and "corrupt.gz" in p.stderr and "missing.txt" in p.stderr
    assert {m["doi"] for m in table(out, "mentions")} == {"10.1000/182", "10.1000/lost"}
    f = subprocess.run(
        [sys.executable, "-m", "extractor.cli", "find", str(truncated)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert f.returncode == 2 and "Traceback" not in f.stderr


def test_skipped_records_are_named_on_stderr_and_the_run_succeeds(tmp_path: Path) -> None:
    jl = tmp_path / "recs.jsonl"
    jl.write_text('{"text": "doi:10.1000/1"}\n{oops\n' + '{"id": 1}\n' * 9)
    p = scan(str(jl), "-o", str(tmp_path / "out"), "--quiet")
    assert (
        f"skipped 10 records of {jl} with no text: line 2 (not valid JSON), line 3 (no 'text' field), "
        "line 4 (no 'text' field), line 5 (no 'text' field), line 6 (no 'text' field), …"
    ) in p.stderr


def test_inputs_globs_lists_and_stdin(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("doi:10.1000/a\n")
    (tmp_path / "b.txt").write_text("doi:10.1000/b\n")
    (tmp_path / "list").write_text(f"{tmp_path / 'b.txt'}\n# a comment\n")
    out = tmp_path / "out"
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "extractor.cli",
            "scan",
            str(tmp_path / "a*.txt"),
            f"@{tmp_path / 'list'}",
            "-",
            "-o",
            str(out),
            "--quiet",
        ],
        input=b"doi:10.1000/stdin\n",
        capture_output=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    got = {(os.path.basename(m["source"]), m["doi"]) for m in table(out, "mentions")}
    assert got == {("a.txt", "10.1000/a"), ("b.txt", "10.1000/b"), ("-", "10.1000/stdin")}


@pytest.mark.slow
def test_demo_script_scans_the_sample(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent
    p = subprocess.run(
        [str(root / "scripts" / "demo"), str(tmp_path / "out")], capture_output=True, text=True, timeout=600
    )
    assert p.returncode == 0, p.stderr
    assert "distinct DOIs" in p.stdout
    assert len(table(tmp_path / "out", "dois")) == 27


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2"], ids=["in-process", "pool"])
def test_ctrl_c_stops_cleanly_with_nothing_half_written(tmp_path: Path, workers: str) -> None:
    src = make_corpus(tmp_path)
    for i in range(30):
        (src / f"more{i:02d}.txt").write_text("".join(f"doi:10.1234/x{i}.{j}\n" for j in range(20000)))
    out = tmp_path / "out"
    # read as PDF text (the slowest kind), in small shards, so that the interrupt comes while shards run
    p = start_scan(
        str(src),
        "-o",
        str(out),
        "--workers",
        workers,
        "--kind",
        "pdf",
        "--quiet",
        "--shard-size",
        "100000",
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_a_completed_shard(out)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert "interrupted" in err
    visible = [str(q.relative_to(out)) for q in out.rglob("*") if not q.name.startswith(".")]
    assert not [v for v in visible if ".tmp" in v]
    assert not (out / "mentions").exists()  # nothing published from an interrupted run
    scan(str(src), "-o", str(out), "--quiet")
    assert len(table(out, "dois")) > 0


def _descendants(pid: int) -> list[int]:
    """Children, grandchildren, …: workers are forked from a fork server, a child of the scan."""
    from benchmarks.harness import children_rss

    parents = children_rss()[0]
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
    src = make_corpus(tmp_path)
    for i in range(20):
        (src / f"more{i:02d}.txt").write_text("".join(f"doi:10.1234/x{i}.{j}\n" for j in range(30000)))
    p = start_scan(
        str(src), "-o", str(tmp_path / "out"), "--workers", "2", "--quiet", "--shard-size", "100000"
    )
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


def _semaphores() -> set[str]:
    return {n for n in os.listdir("/dev/shm") if n.startswith("sem.")}


def _semaphores_of(pid: int) -> set[str]:
    """The named semaphores a process and its descendants have mapped (from /proc/PID/maps,
    "(deleted)" once their names are removed): this scan's, whatever other processes the
    machine (another test worker) runs at the same time."""
    names: set[str] = set()
    for p in (pid, *_descendants(pid)):
        try:
            with open(f"/proc/{p}/maps", encoding="utf-8", errors="replace") as f:
                maps = f.read()
        except OSError:
            continue
        for line in maps.splitlines():
            at = line.find("/dev/shm/sem.")
            if at >= 0:
                names.add(line[at + len("/dev/shm/") :].split()[0])
    return names


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="named semaphores are files in /dev/shm on Linux")
@pytest.mark.parametrize("whole_group", [True, False], ids=["group", "parent"])
def test_a_killed_scan_leaves_no_semaphore(tmp_path: Path, whole_group: bool) -> None:
    """SIGKILL of the scan's process group left the pool's eight named semaphores in /dev/shm,
    and of the parent alone made the resource tracker warn of 'leaked semaphore objects': the
    names are removed once every worker has opened them (procs.unlink_semaphores)."""
    src = make_corpus(tmp_path)
    for i in range(20):
        (src / f"more{i:02d}.txt").write_text("".join(f"doi:10.1234/x{i}.{j}\n" for j in range(80000)))
    p = start_scan(
        str(src),
        "-o",
        str(tmp_path / "out"),
        "--workers",
        "2",
        "--quiet",
        "--shard-size",
        "100000",
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    # this scan's named semaphores, not those of whatever else runs beside it (-n 2: another
    # test's pool): mapped by its processes, their names perhaps removed already (the workers
    # may open them before a poll of 10 ms sees them in /dev/shm)
    ours: set[str] = set()
    pool = 0
    while pool < 4 and p.poll() is None and time.monotonic() < deadline:
        ours |= _semaphores_of(p.pid)
        pool = len([c for c in _descendants(p.pid) if _is_worker(c)])
        time.sleep(0.01)  # the pool starting: its queues' semaphores made
    ours |= _semaphores_of(p.pid)
    assert ours, "no pool was started"
    while ours & _semaphores() and time.monotonic() < deadline:
        time.sleep(0.01)  # the workers opening them, then their names removed
    # the fork server, the resource tracker and the two workers: the pool still running
    assert len([c for c in _descendants(p.pid) if _is_worker(c)]) >= 4, "the pool ended before it was killed"
    if whole_group:
        os.killpg(p.pid, signal.SIGKILL)
    else:
        os.kill(p.pid, signal.SIGKILL)  # the tracker and the workers outlive it a moment
    _, err = p.communicate(timeout=60)  # until the last holder of stderr (the tracker) ends
    assert not ours & _semaphores()
    assert b"leaked semaphore" not in err, err.decode()


def test_a_folder_that_is_not_ours_is_never_touched(tmp_path: Path) -> None:
    """Issue 15: -o pointed at a folder of the user's replaced its dois/ and mentions/."""
    (tmp_path / "in.txt").write_text("doi:10.1000/182\n")
    user = tmp_path / "thesis"
    (user / "dois").mkdir(parents=True)
    (user / "dois" / "thesis.txt").write_text("my work")
    (user / ".draft.tmp-1").write_text("mine too")
    for force in ([], ["--force"]):
        p = scan(str(tmp_path / "in.txt"), "-o", str(user), "--quiet", *force, check=2)
        assert "not written by doi-extract" in p.stderr and "Traceback" not in p.stderr
    assert (user / "dois" / "thesis.txt").read_text() == "my work"
    assert sorted(q.name for q in user.rglob("*")) == [".draft.tmp-1", "dois", "thesis.txt"]
    out = tmp_path / "out"
    scan(str(tmp_path / "in.txt"), "-o", str(out), "--quiet")  # a new folder is ours
    assert (out / ".doi-extract").exists()
    (out / ".doi-extract").unlink()  # as a version before the marker left it: still ours
    scan(str(tmp_path / "in.txt"), "-o", str(out), "--quiet", "--force")
    assert [m["doi"] for m in table(out, "mentions")] == ["10.1000/182"]


def test_a_second_scan_into_the_same_folder_stops_at_once(tmp_path: Path) -> None:
    """Issue 15: two scans into one OUT lost buckets silently; the second now waits for nothing."""
    from extractor.pipeline import output_folder

    (tmp_path / "in.txt").write_text("doi:10.1000/182\n")
    out = tmp_path / "out"
    with output_folder(str(out)):  # a scan holding OUT
        p = scan(str(tmp_path / "in.txt"), "-o", str(out), "--quiet", check=2)
    assert "another scan is writing" in p.stderr
    assert not (out / "mentions").exists()
    scan(str(tmp_path / "in.txt"), "-o", str(out), "--quiet")  # free again once it ended


def test_a_closed_stderr_does_not_stop_the_scan(tmp_path: Path) -> None:
    """Issue 15: `scan … 2>&1 | head -1` exited 0 having written nothing."""
    (tmp_path / "in.txt").write_text("doi:10.1000/182\n")
    out = tmp_path / "out"
    p = start_scan(
        str(tmp_path / "in.txt"), str(tmp_path / "missing.txt"), "-o", str(out), stderr=subprocess.PIPE
    )
    assert p.stderr is not None
    p.stderr.close()  # the reader is gone before the first line
    assert p.wait(timeout=120) == 1  # an input was rejected: 1, as when stderr is read
    assert [m["doi"] for m in table(out, "mentions")] == ["10.1000/182"]


def test_find_ends_quietly_when_its_reader_goes(tmp_path: Path) -> None:
    f = tmp_path / "many.txt"
    f.write_text("".join(f"doi:10.1000/{i}\n" for i in range(300_000)))
    p = subprocess.Popen(
        [sys.executable, "-m", "extractor.cli", "find", str(f)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert p.stdout is not None and p.stderr is not None
    assert p.stdout.readline() == b"10.1000/0\n"
    p.stdout.close()  # `| head -1`
    err = p.stderr.read()
    assert p.wait(timeout=120) == 0 and err == b""


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_worker_killed_by_the_system_is_replaced_and_its_shard_redone(tmp_path: Path) -> None:
    """Issue 15: a worker killed by the OS (OOM) aborted the run (BrokenProcessPool, exit 2)."""
    src = make_corpus(tmp_path)
    for i in range(12):
        (src / f"more{i:02d}.txt").write_text("".join(f"doi:10.1234/w{i}.{j}\n" for j in range(20000)))
    clean, out = tmp_path / "clean", tmp_path / "out"
    args = ["--workers", "2", "--quiet", "--shard-size", "30000", "--keep-work"]  # 170 shards
    scan(str(src), "-o", str(clean), *args)
    p = start_scan(str(src), "-o", str(out), *args, stderr=subprocess.PIPE, text=True)
    wait_for_a_completed_shard(out)
    server = [c for c in _descendants(p.pid) if _is_worker(c)]
    workers = [c for c in _descendants(p.pid) if _is_worker(c) and c not in _children(p.pid)]
    assert server and workers, "no worker found"
    os.kill(workers[0], signal.SIGKILL)  # as the OOM killer would
    at_kill = len(list((out / "_shards").glob("*.done")))
    _, err = p.communicate(timeout=300)
    assert at_kill < run_json(out)["shards"] == len(list((out / "_shards").glob("*.done")))
    assert p.returncode == 0, err
    assert table(out, "mentions") == table(clean, "mentions")
    assert table(out, "dois") == table(clean, "dois")


def _children(pid: int) -> list[int]:
    from benchmarks.harness import children_rss

    return [c for c, parent in children_rss()[0].items() if parent == pid]


@pytest.fixture
def small_disk(tmp_path: Path) -> Any:
    """A real small filesystem (a tmpfs mounted by the test, unmounted after it) where the
    machine lets us mount one; the injected ENOSPC below runs everywhere else."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=300k", "tmpfs", str(disk)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def _footprint(path: Path) -> int:
    """Bytes of the files under `path` as a tmpfs holds them (whole pages)."""
    return sum(-(-f.stat().st_size // 4096) * 4096 for f in path.rglob("*") if f.is_file())


@pytest.mark.parametrize(
    ("room", "where"),  # room: what the disk holds, as (share of the shards' work files, of the result)
    [
        ((0.1, 0.0), "fatal error, stopping"),
        ((1.0, 0.25), "cannot write the output"),
        ((1.0, 0.75), "cannot write the output"),
    ],
)
@pytest.mark.slow
def test_a_full_disk_fails_the_run_keeps_nothing_half_written_and_resumes(
    tmp_path: Path, small_disk: Path, room: tuple[float, float], where: str
) -> None:
    """Issue 15: a real filesystem running full — in the workers' part files or in the merge's
    output — is a failed run (exit 2, the OS's message, no traceback) that publishes no partial
    dois/ or mentions/; with room again the same command completes, equal to a clean run."""
    src = tmp_path / "refs.txt"
    src.write_text(
        "".join(f"ref {i} doi:10.{1000 + i % 500}/x{i}.{i * 7919 % 1000003}\n" for i in range(60_000))
    )
    clean = tmp_path / "clean"
    scan(str(src), "-o", str(clean), "--workers", "2", "--quiet", "--keep-work")
    work = sum(_footprint(clean / name) for name in ("_work", "_shards"))
    size = int(work * room[0] + (_footprint(clean) - work) * room[1]) // 4096 * 4096
    subprocess.run(["mount", "-o", f"remount,size={size}", str(small_disk)], check=True)
    out = small_disk / "out"
    p = scan(str(src), "-o", str(out), "--workers", "2", "--quiet", check=None)
    assert p.returncode == 2 and "No space left on device" in p.stderr and "Traceback" not in p.stderr, (
        p.stderr
    )
    assert where in p.stderr  # in a worker's part files, or in the merge
    assert not (out / "dois").exists() and not (out / "mentions").exists()
    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
    scan(str(src), "-o", str(out), "--workers", "2", "--quiet")
    for name in ("dois", "mentions"):
        assert sorted(table(out, name), key=str) == sorted(table(clean, name), key=str), name
    assert run_json(out)["distinct_dois"] == 60_000


def test_a_full_disk_during_the_merge_is_a_failed_run_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 15: ENOSPC or a read-only OUT during the merge gave a traceback and exit 1 (which
    means "inputs rejected"). The fault is injected, for machines where no tmpfs can be mounted
    (test_a_full_disk_fails_the_run_keeps_nothing_half_written_and_resumes fills a real one)."""
    import errno

    import extractor.pipeline.out.finalize as finalize
    from extractor.cli import main

    (tmp_path / "in.txt").write_text("doi:10.1000/182\n")

    def full(path: str, table: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", path)

    monkeypatch.setattr(finalize, "write_arrow", full)
    code = main(["scan", str(tmp_path / "in.txt"), "-o", str(tmp_path / "out"), "--quiet", "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "No space left on device" in err and "Traceback" not in err
    assert not (tmp_path / "out" / "mentions").exists()
    monkeypatch.undo()
    assert (
        main(["scan", str(tmp_path / "in.txt"), "-o", str(tmp_path / "out"), "--quiet", "--workers", "1"])
        == 0
    )
