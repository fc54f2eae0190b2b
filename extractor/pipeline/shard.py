"""One shard of a scan: read its inputs, find the DOIs, write partial results, mark it done.

`run_shard` knows nothing of the engine that runs it: it takes a shard, the configuration and a
progress callback, writes its part files (temporary name, then rename) and last its completion
marker. An input it cannot read is listed in its result and contributes no row at all; a
passing fault is raised, and `work` (what an engine runs) retries it.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from typing import Any

from .errors import Fatal, InputError, is_transient, rejected_entry
from .io.remote import is_url
from .out.parts import shard_paths, ship, write_marker
from .scan.documents import input_docs
from .scan.sinks import OccurrenceSink, PartWriter
from .units import DocBatch, Progress, ScanConfig, ShardResult, ShardSpec, no_progress

RETRIES = 3


class _Redo(Exception):
    """An input of the shard was rejected after some of its rows were written: the shard is run
    again without it."""

    def __init__(self, index: int, entry: dict[str, Any]) -> None:
        self.index = index  # the input's, in ShardSpec.inputs()
        self.entry = entry  # its rejected entry (errors.rejected_entry)


def _attempt(
    spec: ShardSpec,
    config: ScanConfig,
    progress: Progress,
    skip: dict[int, dict[str, Any]],
    on_input: Callable[[int], None] | None,
) -> ShardResult:
    result = ShardResult(spec.index)
    paths = shard_paths(config.out, spec)
    parts = PartWriter(paths, config.flush_rows, config.meta_columns)
    occ = OccurrenceSink(paths, config.flush_rows)
    reported = max(skip, default=-1)  # inputs up to this one reported their progress already
    doc_base = 0
    for i, one in enumerate(spec.inputs()):
        if i in skip:
            result.rejected.append(skip[i])
            continue
        if on_input is not None:
            on_input(i)
        counts = (result.documents, result.hits)
        part_mark, occ_mark = parts.mark(), occ.mark()
        n_docs = 0
        try:
            for doc in input_docs(one, config, no_progress if i <= reported else progress, result, occ):
                if isinstance(doc, DocBatch):
                    n_docs = max(n_docs, doc.number + len(doc.records))
                    parts.add_batch(spec.index, doc_base + doc.number, doc)
                else:
                    n_docs = max(n_docs, doc.number + 1)
                    parts.add_chunk(
                        spec.index, doc_base + doc.number, doc.source, doc.record, doc.chunk, doc.meta
                    )
                parts.flush_if_full()
                occ.flush_if_full()
        except InputError as exc:
            if is_transient(exc):
                raise
            # A rejected input contributes no row: those still buffered are dropped; if some
            # were written already, the shard is done again without this input.
            entry = rejected_entry(one.source, exc)
            if not (parts.rollback(part_mark) and occ.rollback(occ_mark)):
                raise _Redo(i, entry) from exc
            result.rejected.append(entry)
            result.partial = [p for p in result.partial if p["source"] != one.source]
            result.documents, result.hits = counts
            continue
        doc_base += n_docs
    parts.flush()
    occ.flush()
    result.meta_types = {name: sorted(tags) for name, tags in parts.tags.items()}
    write_marker(paths, result, parts.layouts, occ.files)
    return result


def run_shard(
    spec: ShardSpec,
    config: ScanConfig,
    progress: Progress,
    skip: dict[int, dict[str, Any]] | None = None,
    on_input: Callable[[int], None] | None = None,
) -> ShardResult:
    """Process one shard and mark it complete.

    An input of the shard that cannot be read is reported in the result's `rejected` and the
    others go on; a passing fault (is_transient) is raised for the caller to retry. Rows are
    written in part files as they accumulate, so memory stays bounded whatever the input; the
    completion marker lists the part files, so a killed attempt's leftovers are never read.
    `skip`: inputs (by their number in spec.inputs()) rejected before it runs, with their
    entries (one that killed its worker); `on_input(i)` is told as input i is begun.
    """
    t0 = time.monotonic()
    skip = dict(skip or {})
    while True:
        try:
            result = _attempt(spec, config, progress, skip, on_input)
            break
        except _Redo as redo:
            skip[redo.index] = redo.entry
    result.seconds = time.monotonic() - t0
    return result


def work(
    spec: ShardSpec,
    config: ScanConfig,
    progress: Progress,
    sleep: float = 0.5,
    skip: dict[int, dict[str, Any]] | None = None,
    on_input: Callable[[int], None] | None = None,
) -> ShardResult:
    """What an engine runs for a shard: run it, retrying passing faults (after `sleep` seconds,
    doubling); an unreadable input becomes a result with an error. With the work in object
    storage (config.work), the shard runs in a folder of its own here and is shipped to the
    store when complete: nothing it writes needs to be seen by another machine's file system."""
    if not is_url(config.work):
        return _work_here(spec, config, progress, sleep, skip, on_input)
    local = tempfile.mkdtemp(prefix="doi-extract-shard-")
    try:
        result = _work_here(spec, config._replace(out=local, work=""), progress, sleep, skip, on_input)
        if result.error is None:
            ship(local, spec, config.work)
        return result
    finally:
        shutil.rmtree(local, ignore_errors=True)


def _work_here(
    spec: ShardSpec,
    config: ScanConfig,
    progress: Progress,
    sleep: float,
    skip: dict[int, dict[str, Any]] | None,
    on_input: Callable[[int], None] | None,
) -> ShardResult:
    for attempt in range(RETRIES):
        try:
            return run_shard(spec, config, progress, skip, on_input)
        except InputError as exc:
            if is_transient(exc) and attempt + 1 < RETRIES:
                time.sleep(sleep * 2**attempt)
                continue
            return ShardResult(spec.index, error=str(exc))
        except MemoryError:
            return ShardResult(spec.index, error="out of memory reading this input")
    raise AssertionError("unreachable")


def shard_fault(spec: ShardSpec, exc: BaseException) -> Fatal:
    """What a fault of the program (or the system) in a shard says, to stop the run: what
    failed and where, never a bad input's reason (errors.py)."""
    return Fatal(
        f"the program failed while reading {spec.source} (shard {spec.index}): {type(exc).__name__}: {exc}"
    )
