"""The fuzz targets of fuzz/: their seed corpus (the inputs that found each defect) replayed as
regression cases, and a short coverage-guided run of each (issue 15)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fuzz.targets import TARGETS

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"


@pytest.mark.parametrize(
    ("target", "path"),
    [(t, p) for t in TARGETS for p in sorted((CORPUS / t).iterdir())],
    ids=lambda v: v if isinstance(v, str) else v.name,
)
def test_seed_corpus_input_holds(target: str, path: Path) -> None:
    TARGETS[target](path.read_bytes())


@pytest.mark.slow
@pytest.mark.parametrize("target", sorted(TARGETS))
def test_a_short_fuzz_run_finds_nothing(target: str, tmp_path: Path) -> None:
    pytest.importorskip("atheris")  # its wheels exist for Linux only
    p = subprocess.run(
        [sys.executable, "-m", "fuzz", target, "--seconds", "4"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    assert "stat::number_of_executed_units" in p.stderr
