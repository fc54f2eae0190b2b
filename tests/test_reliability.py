"""A finished result is never lost to a run not meant to replace it, and a run that cannot work
stops before it writes (exit 2): a mistyped input, other inputs, an extra not installed."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import SCAN, make_corpus, run_json, table


def scan(*args: str, check: int, cwd: Path | None = None, code: str = "") -> subprocess.CompletedProcess[str]:
    cmd = [
        sys.executable,
        "-c",
        code + "from extractor.cli import main; sys.exit(main(sys.argv[1:]))",
        "scan",
        *args,
    ]
    p = subprocess.run(
        cmd if code else [*SCAN, *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
    )
    assert p.returncode == check, p.stderr
    return p


def test_a_mistyped_input_keeps_the_finished_result(tmp_path: Path) -> None:
    make_corpus(tmp_path)
    scan("corpus", "-o", "out", "-q", check=0, cwd=tmp_path)
    rows, run = table(tmp_path / "out", "mentions"), run_json(tmp_path / "out")
    p = scan("corpsu/*.txt", "-o", "out", check=2, cwd=tmp_path)
    assert "no file matches the pattern" in p.stderr and "was kept" in p.stderr
    assert table(tmp_path / "out", "mentions") == rows and run_json(tmp_path / "out") == run


@pytest.mark.slow
def test_other_inputs_never_silently_replace_a_finished_result(tmp_path: Path) -> None:
    make_corpus(tmp_path)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "b.txt").write_text("doi:10.5555/other\n")
    scan("corpus", "-o", "out", "-q", check=0, cwd=tmp_path)
    rows = table(tmp_path / "out", "mentions")
    p = scan("other", "-o", "out", check=2, cwd=tmp_path)
    assert "holds a finished scan of other inputs" in p.stderr and "--force" in p.stderr
    assert table(tmp_path / "out", "mentions") == rows
    # the same inputs, named another way (./corpus, an absolute path): a rerun, its sources
    # named as this run names them
    for name in ("./corpus", str(tmp_path / "corpus")):
        scan(name, "-o", "out", "-q", check=0, cwd=tmp_path)
        assert [(m["doi"], m["count"]) for m in table(tmp_path / "out", "mentions")] == [
            (m["doi"], m["count"]) for m in rows
        ]
    # --force: meant to replace it
    scan("other", "-o", "out", "-q", "--force", check=0, cwd=tmp_path)
    assert [m["doi"] for m in table(tmp_path / "out", "mentions")] == ["10.5555/other"]


def test_a_format_whose_extra_is_missing_stops_before_writing_when_named(tmp_path: Path) -> None:
    """A WARC named outright without FastWARC (a PDF without pypdfium2) is a run that cannot
    work, not a bad input: exit 2 with what to install, the finished result kept. Found by
    walking a folder, it is a rejected input with that reason, and the rest is read (exit 1)."""
    make_corpus(tmp_path)
    scan("corpus", "-o", "out", "-q", check=0, cwd=tmp_path)
    rows = table(tmp_path / "out", "mentions")
    (tmp_path / "corpus" / "crawl.warc.gz").write_bytes(
        gzip.compress(b"WARC/1.0\r\nWARC-Type: warcinfo\r\n\r\n")
    )
    blocked = "import sys; sys.modules['fastwarc'] = None; "
    hint = "warc input needs fastwarc: pip install 'doi-extractor[warc]'"
    p = scan("corpus/crawl.warc.gz", "corpus/doc00.txt", "-o", "out", check=2, cwd=tmp_path, code=blocked)
    assert hint in p.stderr
    assert table(tmp_path / "out", "mentions") == rows
    p = scan("corpus", "-o", "walked", check=1, cwd=tmp_path, code=blocked)
    assert f"rejected corpus/crawl.warc.gz: {hint}" in p.stderr, p.stderr
    assert f"1 input rejected (most: {hint}" in p.stderr
    assert sorted(r["doi"] for r in table(tmp_path / "walked", "mentions")) == sorted(r["doi"] for r in rows)


def _read_bytes(pid: int) -> int:
    """Bytes a process and its children have read (/proc's rchar): how far a scan has come."""
    total = 0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/io") as f:
                total += int(next(x for x in f if x.startswith("rchar:")).split()[1])
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except (OSError, StopIteration, ValueError):
            continue
    return total


def _truncate_while_scanning(tmp_path: Path, engine: list[str], n: int) -> tuple[int, str]:
    """A scan of a file cut to a tenth while it is read (the real fault, in the scan's own
    engine): cut once the scan's processes have read a quarter of it, so the cut falls while
    it is read, however fast this machine is. Its exit status and stderr."""
    import time

    f = tmp_path / f"big{n}.txt"
    # text the C matcher reads at tens of MB/s (a DOI a few bytes long, repeated): seconds
    f.write_bytes(b"10.1234/a)" * (6 << 20))
    size = f.stat().st_size
    p = subprocess.Popen(
        [*SCAN, str(f), "-o", str(tmp_path / f"out{n}"), "-q", *engine],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
    )
    deadline = time.monotonic() + 120
    while p.poll() is None and _read_bytes(p.pid) < size // 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.truncate(f, size // 10)
    _out, err = p.communicate(timeout=300)
    return p.returncode, err


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/io"), reason="needs /proc's per-process read counts")
def test_a_file_cut_while_it_is_read_is_rejected_in_every_engine(tmp_path: Path) -> None:
    """The in-process engine (a job under 128 MiB, the default) died of SIGBUS when a memory-
    mapped file was cut under it; every engine rejects the file with the reason and goes on —
    the cut made while the scan reads it, never killed by a signal."""
    for n, engine in enumerate(([], ["--workers", "1"], ["--workers", "2", "--shard-size", "8MiB"])):
        rc, err = _truncate_while_scanning(tmp_path, engine, n)
        assert rc == 1, (engine, rc, err)  # rejected: never read whole, never killed by a signal
        assert "shrank while it was read" in err and "Traceback" not in err, err


@pytest.mark.slow
def test_ctrl_c_says_so_at_once_and_a_running_unit_stops_at_its_next_window(tmp_path: Path) -> None:
    """Ctrl-C on one large unit used to print nothing and stop only when the unit ended. The
    unit here takes many seconds (text that is slow to match, read in windows); after Ctrl-C
    the scan says at once what it does, stops at the unit's next window, keeps no half-done
    shard, and a rerun resumes and completes."""
    import signal
    import time

    slow = tmp_path / "slow.txt"
    # 120 MB of DOIs joined in one token, read by the Python matcher (--other-prefixes): many
    # minutes today (the C matcher reads it at ~30 MB/s, and '10.1234/)' repeated at ~500)
    slow.write_bytes(b"10.1234/a)" * ((120 << 20) // 10))
    for engine in ([], ["--workers", "2"]):
        out = tmp_path / f"out{len(engine)}"
        p = subprocess.Popen(
            [*SCAN, str(slow), "-o", str(out), "--shard-size", "1GiB", "--other-prefixes", *engine],
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
        )
        time.sleep(3)  # the pool started and the unit under way
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        _out, err = p.communicate(timeout=300)
        stopped_in = time.monotonic() - t0
        assert p.returncode == 130, err
        assert "stopping — each running shard stops at its next window" in err
        assert "Traceback" not in err and "leaked" not in err, err
        assert not list(out.glob("_shards/*.done")) and not (out / "_run.json").exists()
        # liveness, with a wide margin: the unit alone takes many minutes (a window is read in
        # under a second alone; 17.7 s was seen on a machine also running a test suite)
        assert stopped_in < 60, stopped_in


def test_a_stop_file_left_by_a_killed_run_is_cleared(tmp_path: Path) -> None:
    """A run killed while its pool was stopping leaves its stop file; the next run into OUT
    clears it, so that its own workers never read it."""
    from extractor.pipeline.out.output import begin_output, output_folder

    make_corpus(tmp_path)
    scan("corpus", "-o", "out", "-q", check=0, cwd=tmp_path)
    (tmp_path / "out" / ".stop-99999").write_text("")
    with output_folder(str(tmp_path / "out")):
        begin_output(str(tmp_path / "out"))  # as a run does once its start-up checks pass
        assert not (tmp_path / "out" / ".stop-99999").exists()


def test_rejected_inputs_are_listed_in_the_order_of_their_shards_not_of_their_finishing(
    tmp_path: Path,
) -> None:
    """_run.json is the same from one run to the next: shards run largest first (and workers
    finish them in any order), but their rejected inputs are listed in the shards' order."""
    from .helpers import scan_here

    src = tmp_path / "in"
    src.mkdir()
    names = ["a.jsonl.gz", "b.jsonl.gz", "c.jsonl.gz", "d.txt"]
    for i, name in enumerate(names[:3]):  # a shard each (compressed), the last the largest: run first
        body = "".join(f'{{"id": "{os.urandom(8).hex()}", "body": "x"}}\n' for _ in range(100 * (i + 1)))
        (src / name).write_bytes(gzip.compress(body.encode()))
    (src / "d.txt").write_text("see doi:10.1000/182\n" * 100)
    scan_here([src / n for n in names], tmp_path / "out", shard_size=1000, split_gzip=False)
    rejected = [r["source"] for r in run_json(tmp_path / "out")["rejected"]]
    assert rejected == [str(src / n) for n in names[:3]]


def test_an_input_that_kills_its_worker_is_rejected_alone_and_its_group_is_read(tmp_path: Path) -> None:
    """A shard of grouped small files whose worker is SIGKILLed while it reads one of them: the
    pool is broken and started again, the shard redone; the input the dead worker was reading
    (here a FIFO that never gives a byte, where it is killed each time) is rejected alone after
    three deaths, named with the signal, and every other input of the group is read."""
    import signal
    import threading
    import time

    from extractor.engines import LocalEngine
    from extractor.engines.local import WORKER_DEATHS
    from extractor.pipeline import InputType, ScanConfig, ShardSpec
    from extractor.pipeline.out.output import output_folder

    src = tmp_path / "grp"
    src.mkdir()
    files = []
    for i in range(8):
        f = src / f"f{i:03d}.md"
        if i == 3:
            os.mkfifo(f)  # opened, it blocks: its worker is killed while it reads it
        else:
            f.write_text(f"Cites doi:10.1000/{i}.\n")
        files.append((str(f), str(f), ""))
    spec = ShardSpec(0, str(src), str(src), InputType("group"), files=tuple(files))
    out = tmp_path / "out"
    kills: list[int] = []
    with output_folder(str(out)), LocalEngine(workers=2) as engine:
        done = threading.Event()

        def killer() -> None:
            deadline = time.monotonic() + 120
            while not done.is_set():
                for pid, (_shard, i) in list(getattr(engine, "_reading", {}).items()):
                    if i == 3 and pid not in kills:
                        kills.append(pid)
                        os.kill(pid, signal.SIGKILL)
                if time.monotonic() > deadline:  # no worker to kill: the FIFO let go, the test fails
                    with open(src / "f003.md", "w"):
                        pass
                    deadline += 1
                time.sleep(0.01)

        t = threading.Thread(target=killer, daemon=True)
        t.start()
        try:
            (res,) = list(engine.run_shards([spec], ScanConfig(out=str(out)), lambda n, h: None))
        finally:
            done.set()
            t.join()
    assert len(kills) == WORKER_DEATHS
    assert res.error is None
    assert res.rejected == [
        {
            "source": str(src / "f003.md"),
            "reason": f"the worker process reading it was killed by SIGKILL, {WORKER_DEATHS} times",
        }
    ]
    assert res.documents == 7  # the group's other inputs, read


def test_a_script_without_its_main_guard_fails_at_once_and_publishes_nothing(tmp_path: Path) -> None:
    """docs/api.md's run_scan saved as a script without `if __name__ == "__main__":`: each worker
    process imports the script again and would start a scan of its own. It stops at once, with
    a message naming the guard; OUT holds no result (a finished one before it stays as it was)."""
    make_corpus(tmp_path)
    script = tmp_path / "unguarded.py"
    script.write_text(
        "from extractor.engines import LocalEngine\n"
        "from extractor.pipeline import ScanConfig, output_folder, run_scan\n\n"
        'with output_folder("out"), LocalEngine(workers=2) as engine:\n'
        '    report = run_scan(["corpus/"], ScanConfig(out="out", shard_size=4096), engine)\n'
    )
    p = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert p.returncode == 1
    assert 'needs `if __name__ == "__main__":`' in p.stderr.splitlines()[-1]
    assert not (tmp_path / "out" / "_run.json").exists()


def test_a_start_up_check_that_fails_leaves_out_as_it_was(tmp_path: Path) -> None:
    """A run that cannot start (a PDF named without pypdfium2, a store whose package is missing)
    exits 2 saying what to install, and claims nothing: a new OUT is not made, an earlier one
    keeps every name it had, and no "completed shards are kept" is said of a run that never ran."""
    make_corpus(tmp_path)
    (tmp_path / "paper.pdf").write_bytes(
        b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
    )
    blocked = "import sys; sys.modules['pypdfium2'] = None; "
    p = scan("paper.pdf", "-o", "new", check=2, cwd=tmp_path, code=blocked)
    assert "cannot start: " in p.stderr and "pypdfium2" in p.stderr and "completed shards" not in p.stderr
    assert not (tmp_path / "new").exists()
    scan("corpus", "-o", "out", "-q", check=0, cwd=tmp_path)
    before = sorted(os.listdir(tmp_path / "out"))
    scan("paper.pdf", "-o", "out", "--force", check=2, cwd=tmp_path, code=blocked)
    assert sorted(os.listdir(tmp_path / "out")) == before
    (tmp_path / "empty").mkdir()
    s3 = "import sys; sys.modules['s3fs'] = None; "
    p = scan("s3://bucket/x.txt", "-o", "empty", check=2, cwd=tmp_path, code=s3)
    assert "needs s3fs" in p.stderr and os.listdir(tmp_path / "empty") == []
