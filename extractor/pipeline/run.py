"""A whole scan over an engine: inputs planned into shards, completed shards kept (resume), the
rest run by the engine, partial results merged and published, `_run.json` written.

The pipeline knows nothing of who runs the shards: any object with the Engine protocol below
does (engines/: in-process, local process pool). Nor of how progress is shown: it reports to an
Observer (the CLI's progress bar).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from .. import __version__
from ..match.native import MATCHER
from .errors import NOT_TEXT_KEY, Fatal, NotStarted
from .fields import field_notes
from .formats import SkippedRecords, format_by_name, missing_extras
from .io.cuts import GzipPlan
from .io.inputs import expand_inputs, plan_shards, shard_bytes
from .io.read import display_name
from .io.remote import is_url
from .io.seekgz import plan_ranges
from .out.finalize import finalize
from .out.output import OutputInUse, begin_output, clear_result, refuse_in_a_worker
from .out.parts import completed_markers, marker_result
from .out.write import atomically
from .units import PASSED_OVER_SHOWN, Progress, ScanConfig, ShardResult, ShardSpec, add_passed_over

log = logging.getLogger(__name__)

R = TypeVar("R")


class Engine(Protocol):
    """Who runs a scan's tasks (engines/ has the implementations)."""

    name: str
    workers: int

    def run_shards(
        self, specs: Sequence[ShardSpec], config: ScanConfig, progress: Progress
    ) -> Iterator[ShardResult]:
        """Run shard.work for every shard (largest first is best), yielding each result as it
        completes; progress (bytes, hits) is reported through `progress` in this process. An
        error that is not a shard's own result raises errors.Fatal."""
        ...

    def map(self, fn: Callable[..., R], jobs: Sequence[tuple[Any, ...]]) -> list[R]:
        """fn(*job) for every job (the bucket merges), results in job order."""
        ...


class Observer:
    """What a scan reports as it goes; the CLI shows it, a library caller may ignore it."""

    def cutting(self, files: int) -> None:
        """Large compressed files are read once each, to cut them into ranges of their text,
        before they are planned (io/seekgz.py): a wait before the first shard."""

    def planned(self, total_bytes: int, shards: int, resumed: int) -> None:
        """The shards are planned: `resumed` of them completed in an earlier run."""

    def progress(self, nbytes: int, nhits: int) -> None:
        """Bytes read and hits found since the last call."""

    def shard_done(self, result: ShardResult) -> None:
        """A shard completed (its rejected inputs are reported by `rejected` too)."""

    def inputs_done(self, done: int, total: int) -> None:
        """Input files read to their end, of all the run's (a file in byte ranges or row groups
        is done with its last shard; a group's files with theirs)."""

    def rejected(self, source: str, reason: str) -> None:
        """An input that could not be read."""

    def skipped(self, source: str, records: int, first: list[dict[str, Any]]) -> None:
        """Records of an input that had no text to search: how many, and the first few (line or
        row, and why)."""

    def noted(self, source: str, what: str, rows: int, first: list[int]) -> None:
        """Rows of an input read in a way the user must know of (a CSV row whose field count is
        not its header's, an id held twice): what, how many, the first few row numbers."""

    def partial(self, source: str, at: str, reason: str) -> None:
        """An input cut short: what was read before `at` is kept."""


@dataclass(slots=True)
class RunReport:
    """What a run did, as written to `_run.json`."""

    shards: int = 0
    shards_resumed: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    rejected: list[dict[str, str]] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    # inputs cut short, read up to the cut (ShardResult.partial)
    partial: list[dict[str, str]] = field(default_factory=list)
    # with the work in object storage (ScanConfig.work): the prefix the datasets are staged
    # under, for out/publish.py to move into place
    staged: str = ""
    # the notes of fields a user named that no record of an input held (fields.field_notes)
    unheld_fields: list[dict[str, Any]] = field(default_factory=list)
    # binary data walked into, passed over: {"count": N, "first": [names]}
    skipped_binary: dict[str, Any] = field(default_factory=lambda: {"count": 0, "first": []})


class FinishedOutput(OutputInUse):
    """OUT holds a finished scan that this run is not meant to replace (other inputs, or none
    readable): stopped before anything was written."""


def _pass_over(
    entries: list[dict[str, Any]], walked_sources: set[str], passed_over: dict[str, Any]
) -> list[dict[str, Any]]:
    """The rejected entries left when binary data (errors.NotText) found by walking is passed over,
    counted in `passed_over`; binary data named outright stays rejected."""
    kept = []
    for e in entries:
        if e.get(NOT_TEXT_KEY) and e["source"] in walked_sources:
            add_passed_over(passed_over, e["source"])
        else:
            kept.append({k: v for k, v in e.items() if k != NOT_TEXT_KEY})
    return kept


def _members_passed_over(files: dict[str, Any], results: list[ShardResult]) -> dict[str, Any]:
    """The run's binary data passed over: files walked into, then archives' members."""
    out = {"count": files["count"], "first": list(files["first"])}
    for r in results:
        out["count"] += r.not_text["count"]
        out["first"] += r.not_text["first"][: max(0, PASSED_OVER_SHOWN - len(out["first"]))]
    return out


def _nothing_read(rejected: list[dict[str, str]], out: str) -> FinishedOutput:
    """The refusal of a run none of whose inputs could be read, into a finished OUT."""
    why = "; ".join(f"{r['source']}: {r['reason']}" for r in rejected[:3])
    return FinishedOutput(f"no input could be read ({why}); the finished scan in {out} was kept")


def named_inputs(inputs: Sequence[str]) -> list[str]:
    """The inputs as told, made comparable across runs: local paths (and @lists) absolute, URLs
    and stdin as they are."""
    out = []
    for item in inputs:
        at = "@" if item.startswith("@") else ""
        name = item[len(at) :]
        out.append(item if item == "-" or is_url(name) else at + os.path.abspath(name))
    return out


def _finished(out: str) -> dict[str, Any] | None:
    """The _run.json of a finished scan in OUT, or None."""
    try:
        with open(os.path.join(out, "_run.json"), encoding="utf-8") as f:
            run: dict[str, Any] = json.load(f)
            return run
    except (OSError, ValueError):
        return None


def _readable(
    files: list[tuple[str, str]], walked: set[str]
) -> tuple[list[tuple[str, str]], list[dict[str, str]]]:
    """The files a run can read, and those found by walking whose format's extra is missing
    (told by name, as the preflight tells a small file's), rejected with what to install."""
    keep: list[tuple[str, str]] = []
    out: list[dict[str, str]] = []
    for source, path in files:
        fmt = format_by_name(path) if path in walked else None
        missing = missing_extras([fmt]) if fmt else []
        if missing:
            out.append({"source": source, "reason": missing[0]})
        else:
            keep.append((source, path))
    return keep, out


def _formats(specs: list[ShardSpec]) -> set[str]:
    """The formats a run's shards read: planned, or told by name for a group's small files."""
    found = {s.fmt for s in specs if s.fmt and s.fmt != "group"}
    found |= {f or format_by_name(p) or "" for s in specs for _src, p, f in s.files}
    return found - {""}


def _sources(spec: ShardSpec) -> list[str]:
    """The input files a shard reads (part of): a group's files, or its one file."""
    return [p for _s, p, _f in spec.files] or [spec.path]


def _inputs(specs: list[ShardSpec], done: dict[int, ShardResult]) -> list[dict[str, Any]]:
    """_run.json's inputs: each file with its format, as planned or as its shard told it."""
    rows = []
    for s in specs:
        told = done[s.index].formats if s.index in done else {}
        for src, path, fmt in s.files or ((s.source, s.path, s.fmt),):
            rows.append(
                {
                    "source": src,
                    "path": display_name(path),
                    "format": fmt or told.get(path, ""),
                    "shard": s.index,
                }
            )
    return rows


def run_scan(
    inputs: list[str],
    config: ScanConfig,
    engine: Engine,
    observer: Observer | None = None,
    replace: bool = False,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> RunReport:
    """Scan `inputs` into config.out (claimed with output.output_folder) with `engine`. KeyboardInterrupt and
    errors.Fatal propagate: completed shards are kept, nothing half-written is published, and
    the same call resumes. A finished result in OUT is replaced by a run of the same inputs, or
    of any with `replace` (--force), and never by a run that could read none of its inputs.
    `include` and `exclude` choose among the files found by walking (expand_inputs)."""
    refuse_in_a_worker()  # a script without its __main__ guard, imported again by a worker
    t0 = time.monotonic()
    started = process_age()
    obs = observer or Observer()
    out = config.out
    named = named_inputs(inputs)
    finished = _finished(out)
    walked: set[str] = set()
    files, rejected = expand_inputs(inputs, os.path.join(out, "_spool"), out, walked, include, exclude)
    # A file found by walking a folder or a pattern whose reader needs an extra that is not
    # installed (a logo PDF in a source tree) is a rejected input, the extra named; one named
    # outright, or a run with no other input, stops before anything is written.
    files, left_out = _readable(files, walked)
    if left_out and not files:
        raise NotStarted("; ".join(sorted({r["reason"] for r in left_out})))
    rejected += left_out

    def passes(jobs: list[tuple[Any, ...]]) -> list[GzipPlan | None]:
        """The passes over large compressed files to cut, where the shards will run: on a
        cluster, its workers read those files, several at once, not this process."""
        obs.cutting(len(jobs))
        return engine.map(plan_ranges, jobs)

    specs, rej2, total = plan_shards(files, config, passes, engine.workers)
    rejected += rej2
    # Before anything is written: a run that cannot read its formats stops; a finished result
    # is replaced only by a run of the same inputs (a resume, an incremental rerun) — other
    # inputs, or none readable, leave it as it is (and so with --force: see `replace`).
    missing = missing_extras(_formats(specs))
    if missing:
        raise NotStarted("; ".join(missing))
    if finished is not None:
        if not specs:
            raise _nothing_read(rejected, out)
        before = finished.get("named_inputs")
        if not replace and before is not None and sorted(before) != sorted(named):
            shown = ", ".join(before[:3]) + (", …" if len(before) > 3 else "")
            raise FinishedOutput(
                f"{out} holds a finished scan of other inputs ({shown}); nothing was touched. "
                "Write elsewhere with -o, or replace it with --force"
            )
    # the checks passed: the run begins writing into OUT (marked, an earlier run's work cleared
    # with --force); before this, a run that stops leaves OUT as it was
    begin_output(out, replace)
    # binary data found by walking (an image, a font) is passed over, counted; named, rejected
    walked_sources = {source for source, path in files if path in walked}
    passed_over: dict[str, Any] = {"count": 0, "first": []}
    rejected = _pass_over(rejected, walked_sources, passed_over)
    for r in rejected:
        obs.rejected(r["source"], r["reason"])

    done: dict[int, ShardResult] = {}
    todo: list[ShardSpec] = []
    markers = completed_markers(config.work or out, specs)
    for s in specs:
        if s.index not in markers:
            todo.append(s)
        else:
            done[s.index] = prior = marker_result(markers[s.index])
            rejected.extend(_pass_over(prior.rejected, walked_sources, passed_over))
            for p in prior.partial:
                obs.partial(p["source"], p["at"], p["reason"])
    resumed = len(done)
    log.info(
        "%d input files, %d rejected; %d shards of %.1f MB (%d done before) on %s with %d workers",
        len(files),
        len(rejected),
        len(specs),
        total / 1e6,
        resumed,
        engine.name,
        engine.workers,
    )
    obs.planned(total, len(specs), resumed)
    # shards left per input file, so that progress can count the inputs a user named or has
    left = Counter(src for s in specs for src in _sources(s))
    for i in done:
        left.subtract(_sources(specs[i]))
    inputs_read = sum(1 for n in left.values() if n <= 0)
    obs.inputs_done(inputs_read, len(left))
    t_plan = time.monotonic()
    # Largest first, so that no worker is left with a big shard at the end; the output order
    # depends on shard numbers only.
    # each shard's rejected inputs, said as they come, kept in the shards' order (not the order
    # the workers finished them in): _run.json is the same from one run to the next
    shard_rejected: dict[int, list[dict[str, str]]] = {}
    for res in engine.run_shards(sorted(todo, key=lambda s: -shard_bytes(s)), config, obs.progress):
        done[res.index] = res
        problems = shard_rejected[res.index] = _pass_over(list(res.rejected), walked_sources, passed_over)
        if res.error:  # a shard that failed whole: each of its inputs named, none lost in silence
            listed = {r["source"] for r in problems}
            problems += [
                {"source": one.source, "reason": res.error}
                for one in specs[res.index].inputs()
                if one.source not in listed
            ]
        for r in problems:
            obs.rejected(r["source"], r["reason"])
        for sk in res.skipped:
            obs.skipped(sk["source"], sk["records"], sk["first"])
        for note in res.notes:
            obs.noted(note["source"], note["what"], note["rows"], note["first"])
        for p in res.partial:
            obs.partial(p["source"], p["at"], p["reason"])
        log.debug(
            "shard %d (%s): %d bytes, %d documents, %d hits in %.3f s%s",
            res.index,
            specs[res.index].source,
            res.bytes_read,
            res.documents,
            res.hits,
            res.seconds,
            f"; error: {res.error}" if res.error else "",
        )
        obs.shard_done(res)
        for src in _sources(specs[res.index]):
            left[src] -= 1
            inputs_read += left[src] == 0
        obs.inputs_done(inputs_read, len(left))
    t_shards = time.monotonic()
    rejected += [r for i in sorted(shard_rejected) for r in shard_rejected[i]]
    read_any = any(r.error is None and len(r.rejected) < len(specs[i].inputs()) for i, r in done.items())
    if done and all(r.error is not None for r in done.values()):
        # every shard failed (its workers killed): no result, and an earlier one stays as it was
        raise Fatal(f"no shard could be read, nothing was published: {rejected[0]['reason']}")
    if finished is not None:
        if not read_any:
            raise _nothing_read(rejected, out)
        if replace:
            clear_result(out)
    log.info("shards read in %.3f s; merging", t_shards - t_plan)
    counts = finalize(out, specs, done, config, engine)
    log.info("merged: %d mentions of %d distinct DOIs", counts["mentions"], counts["dois"])
    writing = counts.pop("write_seconds")
    staged = counts.pop("staged", "")
    ok = sorted((r for r in done.values() if r.error is None), key=lambda r: r.index)
    partial = [p for r in ok for p in r.partial]
    # a field named by --id-field, --meta-field or --citing-field that no record of an input held
    unheld = field_notes(specs, ok)
    for note in unheld:
        obs.noted(note["source"], note["what"], note["rows"], note["first"])
    options = {k: v for k, v in config._asdict().items() if k != "out" and (k != "work" or v)}
    summary = {
        "version": __version__,
        # the inputs as the run was told them (absolute paths, URLs): a later run of others
        # does not replace this one's result without --force
        "named_inputs": named,
        "inputs": _inputs(specs, done),
        "options": {**options, "engine": engine.name, "workers": engine.workers},
        "matcher": MATCHER,
        "bytes_read": sum(r.bytes_read for r in ok),
        "input_bytes": total,
        "documents": sum(r.documents for r in ok),
        "documents_by_syntax": _summed(r.syntaxes for r in ok),
        "hits": sum(r.hits for r in ok),
        "mentions": counts["mentions"],
        "distinct_dois": counts["dois"],
        "occurrences_written": counts["occurrences"],
        # the type each provenance column has in mentions/ (provenance.column_types)
        "meta_types": counts["meta_types"],
        # records whose --citing-field held no DOI (their citing_doi is null)
        "citing_without_doi": sum(r.citing_without_doi for r in ok),
        "invalid_bytes_replaced": sum(r.invalid_bytes for r in ok),
        "candidates_too_long": sum(r.too_long for r in ok),
        "records_skipped": sum(r.skipped_records for r in ok),
        # what the formats counted of their own: archive members, wiki pages passed over
        "tallies": _summed(r.tallies for r in ok),
        "skipped_records": _skipped_by_input(ok),
        # per input, rows read in a way the user must know of (formats.base.FlaggedRows)
        "input_notes": [n for r in ok for n in r.notes] + unheld,
        # binary data walked into (folders, patterns, archives' members): passed over, counted
        "skipped_binary": _members_passed_over(passed_over, ok),
        "shards": len(specs),
        "shards_resumed": resumed,
        "rejected": rejected,
        # inputs cut short (a partial download): read up to the cut, which is named
        "partial": partial,
        "timings": {
            "startup_seconds": started,
            "wall_seconds": round(time.monotonic() - t0, 3),
            "plan_seconds": round(t_plan - t0, 3),
            # a local pool's start, to its last worker ready (None: no pool was started)
            "pool_start_seconds": getattr(engine, "pool_start_seconds", None),
            "shards_wall_seconds": round(t_shards - t_plan, 3),
            "merge_seconds": round(time.monotonic() - t_shards, 3),
            "shard_seconds": round(sum(r.seconds for r in ok), 3),
            "parquet_write_seconds": round(writing, 3),
        },
    }
    with (
        atomically(os.path.join(out, "_run.json")) as tmp,
        open(tmp, "w", encoding="utf-8", errors="backslashreplace") as f,
    ):
        json.dump(summary, f, indent=2, ensure_ascii=False, default=str)
    if not config.keep_work:
        # The result is complete: what it was made from goes, markers first, so that a run
        # stopped half-way through this leaves shards to redo, never a marker without its part.
        for name in ("_shards", "_work", "_spool"):
            shutil.rmtree(os.path.join(out, name), ignore_errors=True)
    return RunReport(
        len(specs), resumed, counts, rejected, summary, partial, staged, unheld, summary["skipped_binary"]
    )


def _summed(counts: Iterable[dict[str, int]]) -> dict[str, int]:
    """Counts by name over the shards, sorted by name: documents read in each source syntax
    (spec §7; prose is not counted), the formats' own tallies."""
    out: dict[str, int] = {}
    for c in counts:
        for name, n in c.items():
            out[name] = out.get(name, 0) + n
    return dict(sorted(out.items()))


def process_age() -> float | None:
    """Seconds since this process started (Linux: /proc), or None: before a scan begins, the
    interpreter's start, the imports and the worker pool's start (fixed costs)."""
    try:
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        with open("/proc/uptime", "rb") as f:
            uptime = float(f.read().split()[0])
        ticks = os.sysconf("SC_CLK_TCK")
        return round(max(0.0, uptime - int(fields[19]) / ticks), 3)
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def _skipped_by_input(results: Sequence[ShardResult]) -> list[dict[str, Any]]:
    """The records skipped per input, an input split into several shards counted once."""
    merged: dict[str, dict[str, Any]] = {}
    for r in sorted(results, key=lambda r: r.index):
        for sk in r.skipped:
            m = merged.setdefault(sk["source"], {"source": sk["source"], "records": 0, "first": []})
            m["records"] += sk["records"]
            m["first"] = (m["first"] + sk["first"])[: SkippedRecords.SHOWN]
    return list(merged.values())
