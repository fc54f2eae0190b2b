"""Run a fuzz target with atheris, or replay its corpus.

    python -m fuzz TARGET [--seconds N] [--replay]

The seed corpus is fuzz/corpus/TARGET/ (the inputs that found each defect, kept as regression
cases); new inputs go to a temporary folder, so the repository is never written. Prints the
figures libFuzzer reports (executions, coverage) and exits non-zero on a crash, whose input is
written to fuzz/crashes/.

Run this way, atheris sees the Python code only; `scripts/fuzz TARGET` runs the same target with
the C parts built by clang for libFuzzer's coverage and ASan, so that the C branches steer it too
(the cmatcher target starts from 1,196 edges instead of 347).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def replay(name: str) -> int:
    """Run every corpus input of a target once (no atheris needed); how many."""
    from .targets import TARGETS

    files = sorted((HERE / "corpus" / name).iterdir())
    for f in files:
        TARGETS[name](f.read_bytes())
    return len(files)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "target",
        choices=(
            "library",
            "cmatcher",
            "streams",
            "markup",
            "syntaxes",
            "columns",
            "archives",
            "wikidump",
            "csvrecords",
            "batches",
            "jsonl",
        ),
    )
    ap.add_argument("--seconds", type=int, default=600, help="how long to fuzz (default 600)")
    ap.add_argument("--replay", action="store_true", help="only run the seed corpus once")
    a = ap.parse_args(argv)
    if a.replay:
        print(f"{a.target}: {replay(a.target)} corpus inputs, no failure")
        return 0
    import atheris

    with atheris.instrument_imports(include=["extractor"]):
        from .targets import TARGETS

    target = TARGETS[a.target]
    crashes = HERE / "crashes"
    crashes.mkdir(exist_ok=True)
    # libFuzzer's memory limit reads the peak RSS, which a process inherits from its parent
    # across fork and exec (getrusage(2)): run from a test suite grown to 2.6 GB, every input
    # was "out of memory". The limit is 2 GiB above what this process started with.
    inherited = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    with tempfile.TemporaryDirectory() as work:
        max_len = 4096 if a.target in ("library", "cmatcher") else 1024
        args = [
            sys.argv[0],
            work,
            str(HERE / "corpus" / a.target),
            f"-max_total_time={a.seconds}",
            f"-max_len={max_len}",
            "-timeout=20",
            f"-rss_limit_mb={2048 + inherited}",
            f"-artifact_prefix={crashes}{os.sep}{a.target}-",
            "-print_final_stats=1",
        ]
        atheris.Setup(args, target)
        atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main())
