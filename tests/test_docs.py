"""The documents in docs/ (issue 13) against the code they describe: every public name has a
docstring, complete type hints and a place in docs/api.md; every output column and `_run.json`
key is in docs/output.md; every relative link of the README and docs/ leads to a file."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import extractor
import extractor.arrow
import extractor.engines
import extractor.pipeline
from extractor.pipeline.out.summary import summarize
from extractor.pipeline.out.write import DOIS_SCHEMA, MENTIONS_SCHEMA, OCCURRENCES_SCHEMA

from .helpers import make_corpus, scan_here

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PUBLIC: list[tuple[ModuleType, str]] = [
    (m, n) for m in (extractor, extractor.arrow, extractor.pipeline, extractor.engines) for n in m.__all__
]


def _functions(obj: Any) -> list[tuple[str, Any]]:
    """A public function, or a class's own public methods (and its __init__)."""
    if inspect.isfunction(obj):
        return [(obj.__name__, obj)]
    if inspect.isclass(obj):
        return [
            (f"{obj.__name__}.{n}", f)
            for n, f in vars(obj).items()
            if inspect.isfunction(f)
            and (not n.startswith("_") or n == "__init__")
            and f.__module__.startswith("extractor")  # not what typing adds to a Protocol
        ]
    return []


@pytest.mark.parametrize(("module", "name"), PUBLIC, ids=[f"{m.__name__}.{n}" for m, n in PUBLIC])
def test_every_public_name_is_documented_and_typed(module: ModuleType, name: str) -> None:
    obj = getattr(module, name)
    assert f"`{name}" in (DOCS / "api.md").read_text(), f"{name} is not in docs/api.md"
    if name == "__version__":
        return
    assert (inspect.getdoc(obj) or "").strip(), f"{name} has no docstring"
    for qual, fn in _functions(obj):
        sig = inspect.signature(fn)
        missing = [
            p.name
            for p in sig.parameters.values()
            if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty
        ]
        assert not missing, f"{qual}: parameters without a type: {missing}"
        assert sig.return_annotation is not inspect.Signature.empty, f"{qual}: no return type"


def test_every_output_column_and_run_key_is_in_output_md(tmp_path: Path) -> None:
    text = (DOCS / "output.md").read_text()
    for schema in (MENTIONS_SCHEMA, DOIS_SCHEMA, OCCURRENCES_SCHEMA, extractor.arrow.batch_schema()):
        for name in schema.names:
            assert f"| `{name}` |" in text, name
    out = tmp_path / "out"
    scan_here([make_corpus(tmp_path)], out, occurrences=True)
    run = summarize(str(out)).run
    for key in run:
        assert f"| `{key}` |" in text, key
    for key in run["timings"]:
        assert f"`{key}`" in text, key
    for form in extractor.Form:
        assert f"| `{form.value}` |" in text, form


def test_relative_links_lead_to_files() -> None:
    for doc in [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *DOCS.glob("*.md")]:
        for target in re.findall(r"\]\(([^)#:\s]+)(?:#[^)]*)?\)", doc.read_text()):
            assert (doc.parent / target).exists(), f"{doc.name}: dead link {target}"


def test_architecture_names_every_module() -> None:
    """ARCHITECTURE.md's tables keep up with the code: every module of match/, pipeline/ and
    engines/ (and each C part) is named there."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    pkg = ROOT / "extractor"
    modules = [
        *pkg.glob("match/*.py"),
        *pkg.glob("match/*/*.py"),
        *pkg.glob("pipeline/*.py"),
        *pkg.glob("pipeline/*/*.py"),
        *pkg.glob("engines/*.py"),
        *pkg.glob("*/_*.c"),
        *pkg.glob("*/cscan/*.[ch]"),
    ]
    # named as `name.py`, or by its path in its layer (`io/read.py`)
    missing = [
        str(p.relative_to(pkg))
        for p in modules
        if p.name != "__init__.py"
        and f"`{p.name}`" not in text
        and f"`{p.relative_to(pkg).relative_to(p.relative_to(pkg).parts[0])}`" not in text
    ]
    assert missing == []


def test_the_benchmark_record_stays_short() -> None:
    """benchmarks/RESULTS.md is the current record, read whole: the harness refuses to make it
    longer than RESULTS_MAX_LINES, and this holds a hand edit to it."""
    from benchmarks.harness import RESULTS_MAX_LINES

    lines = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8").count("\n")
    assert lines <= RESULTS_MAX_LINES, lines
