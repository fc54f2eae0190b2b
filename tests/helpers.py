"""Shared by the scan tests: a scan run in this process, and its output read back."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow.dataset as ds

from extractor.engines import InProcessEngine
from extractor.pipeline import RunReport, ScanConfig, output_folder, run_scan

TEXT = (
    "Intro. See doi:10.1000/182 and https://doi.org/10.1038/nature12373.\n"
    "Again DOI: 10.1000/182; and 10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O.\n"
)


def scan_here(inputs: Sequence[Path | str], out: Path, force: bool = False, **config: Any) -> RunReport:
    """A whole scan through the in-process engine: the pipeline's public entry, real tracebacks."""
    with output_folder(str(out), force), InProcessEngine(retry_sleep=0) as engine:
        return run_scan([str(i) for i in inputs], ScanConfig(out=str(out), **config), engine)


def table(out: Path, name: str) -> list[dict[str, Any]]:
    return ds.dataset(str(out / name), format="parquet").to_table().to_pylist()


def run_json(out: Path) -> dict[str, Any]:
    return json.loads((out / "_run.json").read_text())


def make_corpus(tmp_path: Path) -> Path:
    src = tmp_path / "corpus"
    src.mkdir()
    for i in range(12):
        text = "".join(f"Ref {j}: doi:10.{1000 + j % 7}/doc{i}.ref{j}\n" for j in range(300))
        (src / f"doc{i:02d}.txt").write_text(text + "shared: 10.1000/182\n")
    (src / "page.html").write_text("<p>https://doi.org/10.1000%2F182 and <b>10.1038/nature12373</b></p>")
    return src
