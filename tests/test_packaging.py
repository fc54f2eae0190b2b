"""Packaging (issue 13): an SPDX license with its file, one version, type hints shipped
(py.typed), and an sdist that holds everything its own tests read."""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

import extractor

ROOT = Path(__file__).resolve().parent.parent
# What the tests of an unpacked sdist read: the package, the tests, their corpora and seeds.
NEEDED = (
    "extractor/",
    "docs/",
    "tests/",
    "fuzz/corpus/",
    "scripts/",
    "benchmarks/",
    "corpora/sample",
    "corpora/labelled",
)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--sdist",
            "--wheel",
            "--no-isolation",
            "--outdir",
            str(out),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return out


# the build of an sdist and a wheel (the C parts compiled): CI's thorough profile runs these
@pytest.mark.slow
def test_the_sdist_holds_what_its_tests_read(dist: Path) -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("compares with the repository's files")
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
        info = tar.extractfile(f"doi_extractor-{extractor.__version__}/PKG-INFO")
        assert info is not None
        meta = info.read().decode()
    missing = [f for f in tracked if f.startswith(NEEDED) and f not in names]
    assert not missing, missing[:10]
    assert {
        "LICENSE",
        "README.md",
        "ARCHITECTURE.md",
        "tests/spec_table.py",
        "tests/accuracy_floors.json",
        "constraints-min.txt",
    } <= names
    assert not [n for n in names if n.endswith((".so", ".pyc")) or n.startswith("fuzz/crashes/")]
    assert f"Version: {extractor.__version__}\n" in meta
    assert "License-Expression: MIT\n" in meta and "License-File: LICENSE\n" in meta
    assert "Classifier: Typing :: Typed\n" in meta


@pytest.mark.slow
def test_the_wheel_ships_type_hints_and_the_license(dist: Path) -> None:
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    assert {"extractor/py.typed", "extractor/match/_cscan.pyi"} <= names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert not [n for n in names if n.startswith(("tests/", "fuzz/"))]


def test_the_pythons_declared_are_the_pythons_tested_and_built() -> None:
    """Issue 13: the classifiers, the wheels cibuildwheel builds and the CPythons scripts/test
    runs the suite on name the same versions, from requires-python's floor up."""
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    floor = meta["project"]["requires-python"].removeprefix(">=")
    classified = sorted(
        c.rsplit(" ", 1)[1]
        for c in meta["project"]["classifiers"]
        if c.startswith("Programming Language :: Python :: 3.")
    )
    built = sorted(f"3.{b[3:].split('-')[0]}" for b in meta["tool"]["cibuildwheel"]["build"].split())
    script = (ROOT / "scripts" / "_other_pythons.sh").read_text()
    others = re.search(r"for v in ([0-9. ]+); do", script)
    assert others is not None
    tested = sorted([floor, *others.group(1).split()])
    assert classified == built == tested and classified[0] == floor
    # the floors the minimum-versions run installs are the ones declared
    pins = dict(
        line.split("==")
        for line in (ROOT / "constraints-min.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    )
    for dep in meta["project"]["dependencies"]:
        name, low = dep.split(">=")
        assert pins[name] == low or pins[name].startswith(low + "."), (name, pins[name], low)


def test_every_test_file_the_scripts_name_exists() -> None:
    """A test file renamed but still named by scripts/ or .ci/ would fail only on another Python,
    at the end of a CI run: every `tests/….py` those files name is one of the suite's."""
    named = {
        m
        for path in [*(ROOT / "scripts").iterdir(), *(ROOT / ".ci").iterdir()]
        if path.is_file()
        for m in re.findall(r"tests/[A-Za-z0-9_/]+\.py", path.read_text(errors="replace"))
    }
    assert named, "the scripts name no test file: the pattern no longer reads them"
    assert sorted(n for n in named if not (ROOT / n).is_file()) == []
