"""A shard's partial results on disk: part files, occurrence files and the completion marker.

The one module that knows their names and format. A shard writes Arrow IPC part files
(uncompressed, one record batch per hash bucket, in bucket order) and Parquet occurrence files, each
under a temporary name then renamed; its completion marker, written last, lists them, so the
leftovers of a killed attempt are never read. The merge reads them back by bucket.
"""

from __future__ import annotations

import json
import os
import uuid
from typing import Any, NamedTuple

import pyarrow as pa

from ..io.remote import fetch, fetch_existing, fetch_ranges, is_url, put
from ..units import ShardResult, ShardSpec
from .write import atomically

PART_EXT = ".arrow"

# A shard's partial rows are read once, by the merge, on the machine or shared disk that wrote
# them: Arrow IPC files cost far less to write and to open than Parquet (a shard writes one per
# flush, a record batch per bucket), and uncompressed they are memory-mapped back as they are.
# Compressing them cost more of the shards' and the merge's time than the disk it saved (work
# files that go when the run completes: benchmarks/RESULTS.md, "Design figures").
PART_OPTIONS = pa.ipc.IpcWriteOptions(compression=None)


class PartRef(NamedTuple):
    """One bucket's rows in a part file: record batches [first, first + batches), `rows` rows
    (0 when a marker of an earlier version did not say), their messages at bytes [start, end) of
    the file (-1 where it did not say)."""

    path: str
    first: int
    batches: int
    rows: int = 0
    start: int = -1
    end: int = -1


class ShardPaths(NamedTuple):
    """Base names of a shard's part files (BASE-NNNN.arrow) and occurrence files
    (BASE-NNNN.parquet), and its completion marker."""

    parts: str
    occurrences: str
    marker: str

    def part(self, n: int) -> str:
        return f"{self.parts}-{n:04d}{PART_EXT}"

    def occurrence_file(self, n: int) -> str:
        return f"{self.occurrences}-{n:04d}.parquet"

    def of_attempt(self, attempt: str) -> ShardPaths:
        """The names of the files one attempt of a shard shipped to object storage (ship)."""
        return ShardPaths(f"{self.parts}-{attempt}", f"{self.occurrences}-{attempt}", self.marker)


def shard_paths(out: str, spec: ShardSpec) -> ShardPaths:
    name = f"{spec.index:06d}-{spec.key}"
    return ShardPaths(
        os.path.join(out, "_work", "parts", name),
        os.path.join(out, "_work", "occurrences", name),
        os.path.join(out, "_shards", name + ".done"),
    )


def write_part(
    path: str, by_bucket: dict[int, list[pa.RecordBatch]], schema: pa.Schema
) -> dict[int, list[int]]:
    """Write a part file atomically: each bucket's record batches, in bucket order; returns its
    layout, bucket -> [first batch, batches, rows, start, end], the bucket's messages lying at
    bytes [start, end) of the file (the merge reads them there, with no footer to parse)."""
    layout: dict[int, list[int]] = {}
    with (
        atomically(path) as tmp,
        pa.OSFile(tmp, "wb") as sink,
        pa.ipc.new_file(sink, schema, options=PART_OPTIONS) as writer,
    ):
        i = 0
        for b, batches in by_bucket.items():
            start = sink.tell()
            for batch in batches:
                writer.write_batch(batch)
            layout[b] = [i, len(batches), sum(batch.num_rows for batch in batches), start, sink.tell()]
            i += len(batches)
    return layout


def _from_range(data: bytes, ref: PartRef, schema: pa.Schema) -> pa.Table | None:
    """One bucket's record batches from the bytes of their range, or None when they are not of
    the layout's schema or count."""
    # the first bucket's range starts with the file's magic and schema, written with its
    # first batch
    messages = pa.ipc.MessageReader.open_stream(pa.py_buffer(data[8:] if data[:6] == b"ARROW1" else data))
    batches: list[pa.RecordBatch] = []
    try:
        while len(batches) < ref.batches:
            message = messages.read_next_message()
            if message.type != "schema":
                batches.append(pa.ipc.read_record_batch(message, schema))
    except (pa.ArrowInvalid, StopIteration):
        return None  # not the layout's schema: read as the file says
    if batches and sum(b.num_rows for b in batches) == ref.rows:
        return pa.Table.from_batches(batches, schema)
    return None


def _open_part(path: str) -> Any:
    """A part file to read as Arrow IPC: memory-mapped, or an object of the store fetched whole."""
    return pa.BufferReader(fetch(path)) if is_url(path) else pa.memory_map(path)


def read_part(ref: PartRef, schema: pa.Schema | None = None) -> pa.Table:
    """The record batches of one bucket of a part file written by write_part with `schema`: read
    from their place where the layout says it, else found through the file's footer (opening and
    parsing it for each bucket of each part was a fifth of a merge)."""
    return read_parts([ref], schema)[0]


def _fetched(refs: list[PartRef]) -> dict[PartRef, bytes]:
    """The bytes of slices of part files in object storage, asked of the store at once, the
    slices that follow one another in a file in one request (a merge's consecutive buckets)."""
    spans: list[list[Any]] = []  # [path, start, end, refs]
    for ref in sorted(refs, key=lambda r: (r.path, r.start)):
        last = spans[-1] if spans else None
        if last is not None and last[0] == ref.path and last[2] == ref.start:
            last[2] = ref.end
            last[3].append(ref)
        else:
            spans.append([ref.path, ref.start, ref.end, [ref]])
    datas = fetch_ranges([sp[0] for sp in spans], [sp[1] for sp in spans], [sp[2] for sp in spans])
    out: dict[PartRef, bytes] = {}
    for (_path, start, _end, members), data in zip(spans, datas, strict=True):
        for ref in members:
            out[ref] = data[ref.start - start : ref.end - start]
    return out


def read_parts(refs: list[PartRef], schema: pa.Schema | None = None) -> list[pa.Table]:
    """read_part of each slice; slices in object storage are asked of the store at once."""
    ranged = [r for r in refs if schema is not None and r.start >= 0]
    fetched = _fetched([r for r in ranged if is_url(r.path)])
    out = []
    for ref in refs:
        table = None
        if schema is not None and ref.start >= 0:
            data = fetched.get(ref)
            if data is None:
                with open(ref.path, "rb") as f:
                    f.seek(ref.start)
                    data = f.read(ref.end - ref.start)
            table = _from_range(data, ref, schema)
        if table is None:
            with _open_part(ref.path) as source:
                reader = pa.ipc.open_file(source)
                table = pa.Table.from_batches(
                    [reader.get_batch(i) for i in range(ref.first, ref.first + ref.batches)], reader.schema
                )
        out.append(table)
    return out


def write_marker(
    paths: ShardPaths, result: ShardResult, layouts: list[dict[int, list[int]]], occurrence_files: int
) -> None:
    """Mark a shard complete: its result and the layout of every part file it wrote."""
    with atomically(paths.marker) as tmp, open(tmp, "w", encoding="utf-8") as f:
        json.dump({"result": result.as_dict(), "parts": layouts, "occurrence_parts": occurrence_files}, f)


def _marker(paths: ShardPaths) -> dict[str, Any] | None:
    try:
        with open(paths.marker, encoding="utf-8") as f:
            marker: dict[str, Any] = json.load(f)
            return marker
    except (OSError, ValueError):
        return None


def completed_markers(out: str, specs: list[ShardSpec]) -> dict[int, dict[str, Any]]:
    """The completion markers of the shards that completed in an earlier run, by shard: in
    object storage, one listing and the markers asked of the store at once (a GET per shard in
    turn took a resume of thousands of shards minutes)."""
    if not is_url(out):
        return {s.index: m for s in specs if (m := _marker(shard_paths(out, s))) is not None}
    urls = {shard_paths(out, s).marker: s.index for s in specs}
    found = {}
    for url, data in fetch_existing(list(urls)).items():
        try:
            found[urls[url]] = json.loads(data)
        except ValueError:
            continue  # not a marker this version wrote: the shard is done again
    return found


def marker_result(marker: dict[str, Any]) -> ShardResult:
    """The result a completion marker holds."""
    return ShardResult(**marker["result"])


def completed_parts(
    out: str, spec: ShardSpec, marker: dict[str, Any]
) -> tuple[dict[int, list[PartRef]], list[str]]:
    """The part-file batches of a completed shard by bucket, and its occurrence files, as its
    completion marker (completed_markers) lists them."""
    paths = shard_paths(out, spec)
    # A shard shipped to object storage names its files by its attempt (ship below).
    attempt = marker.get("attempt")
    if attempt:
        paths = paths.of_attempt(attempt)
    by_bucket: dict[int, list[PartRef]] = {}
    for k, layout in enumerate(marker.get("parts", [])):
        for b, (first, count, *rows) in layout.items():
            by_bucket.setdefault(int(b), []).append(PartRef(paths.part(k), first, count, *rows))
    occ_files = [paths.occurrence_file(k) for k in range(marker.get("occurrence_parts", 0))]
    return by_bucket, occ_files


def ship(local: str, spec: ShardSpec, out: str) -> None:
    """A shard completed in the folder `local` put in object storage under `out`: its part and
    occurrence files under names of this attempt, then its completion marker, which names the
    attempt. Two attempts of one shard (a task Dask ran twice) never write each other's files,
    and the marker read is always one attempt's, whole."""
    here, there = shard_paths(local, spec), shard_paths(out, spec)
    with open(here.marker, encoding="utf-8") as f:
        marker: dict[str, Any] = json.load(f)
    attempt = uuid.uuid4().hex[:10]
    named = there.of_attempt(attempt)
    for k in range(len(marker.get("parts", []))):
        put(here.part(k), named.part(k))
    for k in range(marker.get("occurrence_parts", 0)):
        put(here.occurrence_file(k), named.occurrence_file(k))
    marker["attempt"] = attempt
    with atomically(there.marker) as tmp, open(tmp, "w", encoding="utf-8") as f:
        json.dump(marker, f)
