"""What a finished scan found, read back from its output folder: totals from `_run.json`, and
from the Parquet datasets the most cited DOIs, the registrant prefixes, the display forms and
how many documents cite each DOI (`doi-extract summary`).

The datasets are read batch by batch, so a run with hundreds of millions of rows is summarized
in memory that grows with `top` and the number of distinct prefixes, not with the rows.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from ...match.entities import FUNDER, FUNDER_PREFIX, WORK
from ..io import remote

# documents citing a DOI, in bins: (label, lowest, highest or None)
DOCUMENT_BINS: tuple[tuple[str, int, int | None], ...] = (
    ("1", 1, 1),
    ("2", 2, 2),
    ("3-5", 3, 5),
    ("6-10", 6, 10),
    ("11-100", 11, 100),
    ("> 100", 101, None),
)


class NotAnOutput(Exception):
    """The folder holds no finished scan (no `_run.json`, or no datasets)."""


@dataclass
class Summary:
    """The facts of one run's output, ready to print or render."""

    out: str
    run: dict[str, Any]
    top_dois: list[dict[str, Any]] = field(default_factory=list)  # doi, documents, occurrences
    prefixes: list[dict[str, Any]] = field(default_factory=list)  # prefix, dois, mentions
    prefixes_total: int = 0
    forms: list[dict[str, Any]] = field(default_factory=list)  # form, mentions
    documents_per_doi: list[dict[str, Any]] = field(default_factory=list)  # bin, dois
    # what the DOIs name (spec §6): entity ("work", "funder"), dois, mentions (document, DOI), occurrences
    entities: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _join(out: str, name: str) -> str:
    return f"{out.rstrip('/')}/{name}" if remote.is_url(out) else os.path.join(out, name)


def _dataset(out: str, name: str) -> ds.Dataset:
    path = _join(out, name)
    if remote.is_url(out):
        fs, inner = remote.filesystem(path)
        return ds.dataset(inner, format="parquet", filesystem=fs)
    if not os.path.isdir(path):
        raise NotAnOutput(f"no {name}/ dataset in {out}")
    return ds.dataset(path, format="parquet")


def _run_json(out: str) -> dict[str, Any]:
    path = _join(out, "_run.json")
    try:
        if remote.is_url(out):
            fs, inner = remote.filesystem(path)
            with fs.open(inner, "rb") as f:
                data: dict[str, Any] = json.load(f)
                return data
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
            return data
    except FileNotFoundError:
        raise NotAnOutput(f"no _run.json in {out}: not the output of a finished doi-extract scan") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise NotAnOutput(f"{path} is not a run record: {exc}") from None


def summarize(out: str, top: int = 10) -> Summary:
    """The summary of the scan written to `out` (a folder, or a URL of object storage)."""
    run = _run_json(out)
    summary = Summary(out=out, run=run)
    best: list[tuple[int, int, str]] = []  # the `top` most cited so far: (-documents, -occurrences, doi)
    by_prefix: Counter[str] = Counter()
    docs_by_prefix: Counter[str] = Counter()
    bins = [0] * len(DOCUMENT_BINS)
    entities = {name: [0, 0, 0] for name in (WORK, FUNDER)}  # dois, mentions, occurrences
    order = [("documents", "descending"), ("occurrences", "descending"), ("doi", "ascending")]
    for batch in _dataset(out, "dois").to_batches(columns=["doi", "documents", "occurrences"]):
        dois = batch.column("doi")
        documents = batch.column("documents")
        funder = pc.starts_with(dois, FUNDER_PREFIX)  # match.entities (an output of any version)
        for name, rows in ((FUNDER, funder), (WORK, pc.invert(funder))):
            kept = batch.filter(rows)
            totals = entities[name]
            totals[0] += kept.num_rows
            totals[1] += pc.sum(kept.column("documents")).as_py() or 0
            totals[2] += pc.sum(kept.column("occurrences")).as_py() or 0
        if top and batch.num_rows:
            # only a batch's own best can enter the overall best
            idx = pc.select_k_unstable(batch, k=min(top, batch.num_rows), sort_keys=order)
            rows = batch.take(idx).to_pylist()
            best = sorted(best + [(-r["documents"], -r["occurrences"], r["doi"]) for r in rows])[:top]
        # the registrant prefix: everything before the first "/" (ISO 26324 §4)
        prefix = pc.list_element(pc.split_pattern(dois, "/", max_splits=1), 0)
        for p, n in zip(*_value_counts(prefix), strict=True):
            by_prefix[p] += n
        grouped = (
            pa.table({"prefix": prefix, "documents": documents})
            .group_by("prefix")
            .aggregate([("documents", "sum")])
        )
        for p, n in zip(grouped["prefix"].to_pylist(), grouped["documents_sum"].to_pylist(), strict=True):
            docs_by_prefix[p] += n
        for b, (_label, lo, hi) in enumerate(DOCUMENT_BINS):
            mask = pc.greater_equal(documents, lo)
            if hi is not None:
                mask = pc.and_(mask, pc.less_equal(documents, hi))
            bins[b] += pc.sum(mask.cast("int64")).as_py() or 0
    summary.top_dois = [{"doi": doi, "documents": -d, "occurrences": -o} for d, o, doi in best]
    summary.prefixes_total = len(by_prefix)
    summary.prefixes = [
        # mentions: (document, DOI) pairs, the documents of each of its DOIs summed
        {"prefix": p, "dois": n, "mentions": docs_by_prefix[p]}
        for p, n in sorted(by_prefix.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    ]
    summary.entities = [
        {"entity": name, "dois": d, "mentions": m, "occurrences": o} for name, (d, m, o) in entities.items()
    ]
    summary.documents_per_doi = [
        {"documents": label, "dois": n} for (label, _lo, _hi), n in zip(DOCUMENT_BINS, bins, strict=True)
    ]
    forms: Counter[str] = Counter()
    for batch in _dataset(out, "mentions").to_batches(columns=["forms"]):
        for f, n in zip(*_value_counts(pc.list_flatten(batch.column("forms"))), strict=True):
            forms[f] += n
    summary.forms = [
        {"form": f, "mentions": n} for f, n in sorted(forms.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    return summary


def _value_counts(values: Any) -> tuple[list[Any], list[int]]:
    counts = pc.value_counts(values)
    return counts.field("values").to_pylist(), counts.field("counts").to_pylist()


def size_text(run: dict[str, Any]) -> str:
    """A run's input size in a unit that suits it."""
    n = float(run.get("input_bytes", run.get("bytes_read", 0)))
    for unit in ("bytes", "KB", "MB"):
        if n < 1000:
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


def run_line(run: dict[str, Any]) -> str:
    """How a run was made, as far as its `_run.json` records it: time, matcher, version."""
    facts = []
    wall = run.get("timings", {}).get("wall_seconds")
    if wall is not None:
        facts.append(f"scanned in {wall:.1f} s")
    if "matcher" in run:
        facts.append(f"{run['matcher']} matcher")
    if "version" in run:
        facts.append(f"doi-extractor {run['version']}")
    return ", ".join(facts)
