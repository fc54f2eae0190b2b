"""The end of a scan: partial results merged bucket by bucket into mentions/ and dois/,
occurrences/ gathered, each dataset published whole (staged under a temporary name, then
renamed into place)."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from typing import Any, NamedTuple, Protocol, TypeVar

import pyarrow as pa

from ..io.remote import fetch, is_url, remove_under
from ..provenance import column_types
from ..units import CITING_COLUMN, ScanConfig, ShardResult, ShardSpec
from .dedupe import entities, merge_bucket, offset_columns
from .parts import PART_EXT, PartRef, completed_markers, completed_parts, read_parts
from .write import (
    DOIS_SCHEMA,
    OCCURRENCES_SCHEMA,
    PARTIAL_OCCURRENCES_SCHEMA,
    PARTIAL_SCHEMA,
    mentions_schema,
    with_meta,
    write_arrow,
    write_table,
)

R = TypeVar("R")


class Mapper(Protocol):
    """What the merge needs of an engine: fn(*job) for every job, results in job order."""

    def map(self, fn: Callable[..., R], jobs: Sequence[tuple[Any, ...]]) -> list[R]: ...


def _publish(out: str, name: str, tmpdir: str) -> None:
    """Put a finished dataset folder in place: the old one is moved aside, then removed."""
    final = os.path.join(out, name)
    old = None
    if os.path.exists(final):
        old = tempfile.mkdtemp(prefix=f".{name}.old-", dir=out)
        os.replace(final, os.path.join(old, name))
    os.replace(tmpdir, final)
    if old:
        shutil.rmtree(old, ignore_errors=True)


def merge_bucket_files(
    files: list[PartRef],
    dest_mentions: str,
    dest_dois: str,
    line_bases: dict[int, int] | None = None,
    meta: Sequence[str] = (),
    types: Sequence[str] = (),
) -> tuple[int, int, float]:
    """Merge one bucket's partial rows into its mentions and DOI part files; row counts, and the
    seconds spent writing Parquet."""
    schema = with_meta(PARTIAL_SCHEMA, meta)
    return _merge_into(
        pa.concat_tables(read_parts(files, schema)).cast(schema),
        dest_mentions,
        dest_dois,
        line_bases,
        meta,
        types,
    )


def _merge_into(
    table: pa.Table,
    dest_mentions: str,
    dest_dois: str,
    line_bases: dict[int, int] | None,
    meta: Sequence[str] = (),
    types: Sequence[str] = (),
) -> tuple[int, int, float]:
    """Merge partial rows into a mentions and a DOI part file; their row counts and the seconds
    spent writing them."""
    mentions, dois = merge_bucket(table, line_bases, meta, types)
    del table
    t0 = time.perf_counter()
    write_arrow(dest_mentions, mentions)
    write_arrow(dest_dois, dois)
    return mentions.num_rows, dois.num_rows, time.perf_counter() - t0


class SplitBucket(NamedTuple):
    """A bucket merged in pieces: its number, the run's buckets, and how many pieces."""

    bucket: int
    buckets: int
    ways: int


def merge_split_bucket(
    files: list[PartRef],
    split: SplitBucket,
    dest_mentions: str,
    dest_dois: str,
    spill: str,
    line_bases: dict[int, int] | None = None,
    meta: Sequence[str] = (),
    types: Sequence[str] = (),
) -> tuple[int, int, float]:
    """Merge a bucket too large to hold in `ways` pieces: its rows are first written out by the
    finer bucket of their DOI (hash mod buckets × ways, whose remainder mod `buckets` is this
    bucket), one batch at a time, then each piece is merged alone into DEST-NN files. So the
    merge's memory is bounded whatever one bucket holds (one huge document). `spill`: a folder
    for the pieces, or "" for one of this process's own (a worker that shares no folder)."""
    import pyarrow.compute as pc

    if not spill:
        spill = tempfile.mkdtemp(prefix="doi-extract-spill-")
        try:
            return merge_split_bucket(files, split, dest_mentions, dest_dois, spill, line_bases, meta, types)
        finally:
            shutil.rmtree(spill, ignore_errors=True)
    bucket, buckets, ways = split
    os.makedirs(spill, exist_ok=True)
    paths = [os.path.join(spill, f"{bucket:05d}-{w:03d}{PART_EXT}") for w in range(ways)]
    written = [0] * ways
    schema = with_meta(PARTIAL_SCHEMA, meta)
    # spills are read once, at once, on this machine: uncompressed, memory-mapped back (zstd
    # cost a third of a split merge's time)
    writers = [pa.ipc.new_file(p, schema) for p in paths]
    try:
        for group in _fetch_groups(files):
            for batch in (b for t in read_parts(group, schema) for b in t.to_batches()):
                batch = batch.cast(schema)
                fine = _finer_buckets(batch["doi"], buckets, ways)
                for w in range(ways):
                    piece = batch.filter(pc.equal(fine, pa.scalar(w, pa.int32())))
                    if piece.num_rows:
                        writers[w].write_batch(piece)
                        written[w] += piece.num_rows
    finally:
        for w in writers:
            w.close()
    rows = [0, 0]
    writing = 0.0
    for w, path in enumerate(paths):
        if written[w]:
            stem = f"-{w:03d}.parquet"
            n_mentions, n_dois, seconds = _merge_into(
                _read_spill(path),
                dest_mentions.removesuffix(".parquet") + stem,
                dest_dois.removesuffix(".parquet") + stem,
                line_bases,
                meta,
                types,
            )
            rows[0] += n_mentions
            rows[1] += n_dois
            writing += seconds
        os.remove(path)
    return rows[0], rows[1], writing


# A split bucket's slices read this many at a time, up to this many rows: in object storage
# one batch of concurrent GETs each (one GET after another took a task of 100,000 part files
# half an hour), the memory they take bounded as a merge's is.
FETCH_SLICES = 256
FETCH_ROWS = 100_000


def _fetch_groups(files: list[PartRef]) -> Iterator[list[PartRef]]:
    """Consecutive slices, at most FETCH_SLICES and FETCH_ROWS rows (at least one slice) a group."""
    group: list[PartRef] = []
    rows = 0
    for ref in files:
        if group and (len(group) >= FETCH_SLICES or rows + ref.rows > FETCH_ROWS):
            yield group
            group, rows = [], 0
        group.append(ref)
        rows += ref.rows
    if group:
        yield group


def _finer_buckets(dois: pa.Array, buckets: int, ways: int) -> pa.Array:
    """For DOIs of one bucket, which of its `ways` pieces each falls in (C, on the Arrow buffers)."""
    import pyarrow.compute as pc

    from ..table import buckets_of

    _valid, offsets, data = dois.buffers()
    fine = buckets_of(offsets, data, dois.offset, len(dois), buckets * ways)
    # an int32 divisor: a Python int made Arrow widen every row to int64 first
    return pc.divide(
        pa.Array.from_buffers(pa.int32(), len(dois), [None, pa.py_buffer(fine)]),
        pa.scalar(buckets, pa.int32()),
    )


def _read_spill(path: str) -> pa.Table:
    with pa.memory_map(path) as source:
        return pa.ipc.open_file(source).read_all()


def _merge_groups(
    parts: list[tuple[dict[int, list[PartRef]], list[str]] | None], config: ScanConfig
) -> Iterator[tuple[int, list[PartRef], int]]:
    """The merge jobs: (first bucket, its part-file slices, rows). Consecutive buckets that
    together hold at most a quarter of `merge_rows` are merged as one, so a small run pays a
    merge's fixed costs (reading, two Parquet files) a few times, not `--buckets` times (issue
    14: 16 merges of 82 k rows took a third of a 150 MB run), and still leaves jobs to share
    among workers; a bucket over `merge_rows` is split by merge_split_bucket. The groups depend
    on the rows alone, never on the workers, so the output's files and order do not either. A
    DOI is in one bucket, so a group's rows merge as a bucket's do."""
    share = max(1, config.merge_rows // 4)
    first, rows = 0, 0
    files: list[PartRef] = []
    for b in range(config.buckets):
        slices = [f for p in parts if p is not None for f in p[0].get(b, [])]
        if not slices:
            continue
        n = sum(f.rows for f in slices)
        if files and rows + n > share:
            yield first, files, rows
            files, rows = [], 0
        if not files:
            first = b
        files += slices
        rows += n
    if files:
        yield first, files, rows


def gather_occurrences(path: str, line_base: int, dest: str) -> tuple[int, float]:
    """A shard's occurrence file written as a file of occurrences/: lines counted from the
    file's start (`line_base`, the lines of the ranges before the shard's), one offset column
    per unit; its rows, and the seconds spent writing."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    t = pq.read_table(
        pa.BufferReader(fetch(path)) if is_url(path) else path, schema=PARTIAL_OCCURRENCES_SCHEMA
    )
    if not t.num_rows:
        return 0, 0.0
    t0 = time.perf_counter()
    line = pc.add(t["line"], line_base)
    write_arrow(
        dest,
        pa.Table.from_arrays(
            [
                t["source"],
                t["record"],
                *offset_columns(t["offset"], line),
                line,
                t["raw"],
                t["form"],
                t["doi"],
                entities(t["doi"]),
            ],
            schema=OCCURRENCES_SCHEMA,
        ),
    )
    return t.num_rows, time.perf_counter() - t0


def line_bases(specs: list[ShardSpec], done: dict[int, ShardResult]) -> dict[int, int]:
    """For each byte range of a text file after its first, the newlines of the ranges before it
    (a shard counts its lines from its range's start: the merge adds these)."""
    ranges: dict[str, list[ShardSpec]] = {}
    for s in specs:
        if s.fmt == "text" and not s.files and (s.start > 0 or s.stop >= 0):
            ranges.setdefault(s.path, []).append(s)
    bases: dict[int, int] = {}
    for parts in ranges.values():
        before = 0
        for s in sorted(parts, key=lambda s: s.start):
            if before:
                bases[s.index] = before
            before += done[s.index].newlines if s.index in done else 0
    return bases


def finalize(
    out: str, specs: list[ShardSpec], done: dict[int, ShardResult], config: ScanConfig, engine: Mapper
) -> dict[str, Any]:
    """Merge the partial results bucket by bucket (buckets in parallel) into mentions/ and
    dois/, and gather occurrences/; the datasets are published when complete. With the work in
    object storage (config.work), the merges read their slices from the store and write the
    datasets there, staged under a prefix of their own (`counts["staged"]`) for out/publish.py to
    move into place: nothing goes through a folder the workers would have to share."""
    counts: dict[str, Any] = {"mentions": 0, "dois": 0, "occurrences": 0, "write_seconds": 0.0}
    ok = [s for s in specs if s.index in done and done[s.index].error is None]
    root = config.work or out
    markers = completed_markers(root, ok)
    parts = [completed_parts(root, s, markers[s.index]) if s.index in markers else None for s in ok]
    bases = line_bases(specs, done)
    remote = is_url(root)
    staged = ""
    if remote:
        staged = f"{root}/_work/staged-{uuid.uuid4().hex[:12]}"
        counts["staged"] = staged
        staging = {n: f"{staged}/{n}" for n in ("mentions", "dois")}
        spill = ""
    else:
        staging = {n: tempfile.mkdtemp(prefix=f".{n}.tmp-", dir=out) for n in ("mentions", "dois")}
        spill = os.path.join(out, f".spill.tmp-{os.getpid()}")
    try:
        jobs: list[tuple[Any, ...]] = []
        big: list[tuple[Any, ...]] = []
        meta = config.meta_columns
        types = column_types([done[s.index].meta_types for s in ok], meta)
        counts["meta_types"] = dict(zip(meta, types, strict=True))
        for first, files, rows in _merge_groups(parts, config):
            dests = (
                f"{staging['mentions']}/part-{first:05d}.parquet",
                f"{staging['dois']}/part-{first:05d}.parquet",
            )
            ways = -(-rows // config.merge_rows)
            if ways > 1:
                big.append(
                    (files, SplitBucket(first, config.buckets, ways), *dests, spill, bases, meta, types)
                )
            else:
                jobs.append((files, *dests, bases, meta, types))
        results = engine.map(merge_bucket_files, jobs) + engine.map(merge_split_bucket, big)
        for n_mentions, n_dois, seconds in results:
            counts["mentions"] += n_mentions
            counts["dois"] += n_dois
            counts["write_seconds"] += seconds
        if not jobs and not big:  # nothing found: still a dataset with its schema, so that readers work
            write_table(
                f"{staging['mentions']}/part-00000.parquet",
                {},
                mentions_schema(meta, types, CITING_COLUMN in meta),
            )
            write_table(f"{staging['dois']}/part-00000.parquet", {}, DOIS_SCHEMA)
        if config.occurrences:
            staging["occurrences"] = (
                f"{staged}/occurrences" if remote else tempfile.mkdtemp(prefix=".occurrences.tmp-", dir=out)
            )
            # a shard writes no empty occurrence file: numbered in the shards' order, they are
            # the dataset's files in the same order
            occ_files = [
                (path, bases.get(spec.index, 0))
                for spec, p in zip(ok, parts, strict=True)
                for path in (p[1] if p is not None else [])
            ]
            occ_jobs = [
                (path, base, f"{staging['occurrences']}/part-{i:05d}.parquet")
                for i, (path, base) in enumerate(occ_files)
            ]
            for rows, seconds in engine.map(gather_occurrences, occ_jobs):
                counts["occurrences"] += rows
                counts["write_seconds"] += seconds
        if not remote:
            for name, tmpdir in staging.items():
                _publish(out, name, tmpdir)
    except BaseException:
        # Interrupted or failed: nothing is published, and no staging folder is left behind.
        if remote:
            with suppress(OSError):
                remove_under(staged)
        else:
            for tmpdir in staging.values():
                shutil.rmtree(tmpdir, ignore_errors=True)
        raise
    finally:
        if spill:
            shutil.rmtree(spill, ignore_errors=True)
    return counts
