"""Where a shard's hits go: mention rows by hash bucket into part files, and (with
--occurrences) every hit into occurrence files. Both buffer in bounded batches and can take
back what a rejected input added, as long as it was not written yet."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ...match import FORMS
from ...match.native import CHit
from ..io.decode import clean
from ..out.parts import ShardPaths, write_part
from ..out.write import PARTIAL_OCCURRENCES_SCHEMA, PARTIAL_SCHEMA, with_meta, write_arrow
from ..provenance import meta_tag, meta_text
from ..table import Columns
from ..units import Chunk, DocBatch, MetaValues


class OccurrenceSink:
    """Every hit as an occurrence row, written as numbered Parquet files when they grow (one
    offset column and the line; finalize.py gives the offset its unit's column and the line the
    newlines of the ranges before the shard's)."""

    def __init__(self, paths: ShardPaths, flush_rows: int) -> None:
        self.paths = paths
        self.flush_rows = flush_rows
        self.files = 0
        self.cols: dict[str, list[Any]] = {k: [] for k in PARTIAL_OCCURRENCES_SCHEMA.names}

    def __len__(self) -> int:
        return len(self.cols["doi"])

    def add(
        self,
        source: str,
        rid: str | None,
        offset: int,
        raw: str,
        form: str,
        doi: str,
        line: int | None = None,
    ) -> None:
        cols = self.cols
        cols["source"].append(source)
        cols["record"].append(rid)
        cols["offset"].append(offset)
        cols["line"].append(line)
        cols["raw"].append(raw)
        cols["form"].append(form)
        cols["doi"].append(doi)

    def add_c_hits(self, hits: list[CHit], source: str, rid: str | None) -> None:
        """The C matcher's hits (their raw text may hold lone surrogates from invalid bytes)."""
        for a, _b, f, d, raw, line in hits:
            self.add(source, rid, a, clean(raw)[0], FORMS[f].value, d, line)

    def set_record(self, since: int, rid: str | None) -> None:
        """Give the rows from row `since` on their record id (known only after the record's text)."""
        col = self.cols["record"]
        col[since:] = [rid] * (len(col) - since)

    def mark(self) -> tuple[int, int]:
        return self.files, len(self)

    def rollback(self, mark: tuple[int, int]) -> bool:
        """Drop the rows added since `mark`; False when some were written to a file since."""
        if self.files != mark[0]:
            return False
        for col in self.cols.values():
            del col[mark[1] :]
        return True

    def flush_if_full(self) -> None:
        if len(self) >= self.flush_rows:
            self.flush()

    def flush(self) -> None:
        if not self.cols["doi"]:
            return
        write_arrow(
            self.paths.occurrence_file(self.files),
            pa.Table.from_pydict(self.cols, schema=PARTIAL_OCCURRENCES_SCHEMA),
        )
        for col in self.cols.values():
            col.clear()
        self.files += 1


def columns_arrays(c: Columns) -> list[pa.Array]:
    """A Columns chunk's arrays in PARTIAL_SCHEMA's order from doi on: doi, count, first_offset,
    first_line, first_raw, forms — the table's own buffers, no copy per row."""
    n = c.rows
    buf = pa.py_buffer
    return [
        pa.Array.from_buffers(pa.string(), n, [None, buf(c.doi_offsets), buf(c.doi_data)]),
        pa.Array.from_buffers(pa.int64(), n, [None, buf(c.counts)]),
        pa.Array.from_buffers(pa.int64(), n, [None, buf(c.offsets)]),
        pa.Array.from_buffers(
            pa.int64(), n, [None if c.lines_valid is None else buf(c.lines_valid), buf(c.lines)]
        ),
        pa.Array.from_buffers(pa.string(), n, [None, buf(c.raw_offsets), buf(c.raw_data)]),
        pa.Array.from_buffers(pa.int32(), n, [None, buf(c.masks)]),
    ]


class PartWriter:
    """Buffers a shard's rows per bucket and writes a numbered part file when they grow: one
    file for all buckets, its record batches in bucket order (the layout, bucket -> [first
    batch, batches], goes into the completion marker).

    A large chunk (a file's mentions, taken as Columns) becomes an Arrow table at once from its
    buffers, sliced per bucket; small ones (a small file's, a record's) gather in one set of
    column lists with their bucket, split by bucket at the flush: per row there is no Python
    work, per chunk a few calls.
    """

    def __init__(self, paths: ShardPaths, flush_rows: int, meta: Sequence[str] = ()) -> None:
        self.paths = paths
        self.flush_rows = flush_rows
        self.meta = tuple(meta)  # provenance columns, after the partial schema's own
        self.schema = with_meta(PARTIAL_SCHEMA, self.meta)
        # the kinds of value each provenance column received (provenance.meta_tag)
        self.tags: dict[str, set[str]] = {name: set() for name in self.meta}
        self.layouts: list[dict[int, list[int]]] = []
        self._empty()

    def _empty(self) -> None:
        self.tables: list[tuple[int, pa.Table]] = []  # (bucket, rows)
        self.cols: dict[str, list[Any]] = {name: [] for name in (*self.schema.names, "_bucket")}
        self.rows = 0

    def add_chunk(
        self,
        shard: int,
        doc: int,
        source: str,
        rid: str | None,
        chunk: Chunk,
        meta: MetaValues = (),
    ) -> None:
        """A document's mention rows, each to the bucket of its DOI (the chunk comes grouped by
        bucket: bucket b's rows are one slice), with its provenance values (one per column),
        held as text and their kinds noted."""
        n = chunk.rows if isinstance(chunk, Columns) else len(chunk[0])
        if not n:
            return
        for name, v in zip(self.meta, meta, strict=False):
            self.tags[name].add(meta_tag(v))
        meta = tuple(meta_text(v) for v in meta)
        self.rows += n
        bounds = chunk[-1]
        filled = [b for b in range(len(bounds) - 1) if bounds[b + 1] > bounds[b]]
        if isinstance(chunk, Columns):
            self._add_table(
                shard,
                pa.repeat(pa.scalar(doc, pa.int64()), n),
                source,
                pa.nulls(n, pa.string()) if rid is None else pa.repeat(pa.scalar(rid, pa.string()), n),
                chunk,
                [pa.repeat(pa.scalar(v, pa.string()), n) for v in meta or (None,) * len(self.meta)],
            )
            return
        dois, counts, offsets, raws, forms, lines, _bounds = chunk
        cols = self.cols
        cols["shard"] += [shard] * n
        cols["doc"] += [doc] * n
        cols["source"] += [source] * n
        cols["record"] += [rid] * n
        cols["doi"] += dois
        cols["count"] += counts
        cols["first_offset"] += offsets
        cols["first_line"] += lines
        cols["first_raw"] += raws
        cols["forms"] += forms
        for name, v in zip(self.meta, meta or (None,) * len(self.meta), strict=True):
            cols[name] += [v] * n
        for b in filled:
            cols["_bucket"] += [b] * (bounds[b + 1] - bounds[b])

    def add_batch(self, shard: int, doc: int, batch: DocBatch) -> None:
        """A batch of records' mention rows (search.py), each row's document, id and provenance
        taken by the place of its record in the batch: a few Arrow calls per batch, none per row."""
        chunk = batch.chunk
        n = chunk.rows
        if not n:
            return
        self.rows += n
        places = pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(batch.docs)])
        metas: list[pa.Array] = []
        if self.meta:
            # the kinds of value noted of the records with rows, as add_chunk notes them
            found = set(memoryview(batch.docs).cast("q"))
            for k, name in enumerate(self.meta):
                values = [m[k] if k < len(m) else None for m in batch.metas]
                self.tags[name].update(meta_tag(values[j]) for j in found if k < len(batch.metas[j]))
                metas.append(pa.array([meta_text(v) for v in values], pa.string()).take(places))
        self._add_table(
            shard,
            pa.array(range(doc, doc + len(batch.records)), pa.int64()).take(places),
            batch.source,
            pa.array(batch.records, pa.string()).take(places),
            chunk,
            metas,
        )

    def _add_table(
        self, shard: int, docs: pa.Array, source: str, rids: pa.Array, chunk: Columns, metas: list[pa.Array]
    ) -> None:
        """Rows given as columns, sliced by bucket (the chunk's rows come grouped by bucket)."""
        n = chunk.rows
        bounds = chunk.bounds
        table = pa.Table.from_arrays(
            [
                pa.repeat(pa.scalar(shard, pa.int64()), n),
                docs,
                pa.repeat(pa.scalar(source, pa.string()), n),
                rids,
                *columns_arrays(chunk),
                *metas,
            ],
            schema=self.schema,
        )
        self.tables += [
            (b, table.slice(bounds[b], bounds[b + 1] - bounds[b]))
            for b in range(len(bounds) - 1)
            if bounds[b + 1] > bounds[b]
        ]

    def mark(self) -> tuple[int, int, int]:
        """Where the rows stand now: files written, tables and rows buffered."""
        return len(self.layouts), len(self.tables), len(self.cols["doi"])

    def rollback(self, mark: tuple[int, int, int]) -> bool:
        """Drop the rows buffered since `mark`; False when some were written to a file since,
        so that they can no longer be taken back."""
        if len(self.layouts) != mark[0]:
            return False
        del self.tables[mark[1] :]
        for col in self.cols.values():
            del col[mark[2] :]
        self.rows = sum(t.num_rows for _b, t in self.tables) + len(self.cols["doi"])
        return True

    def flush_if_full(self) -> None:
        if self.rows >= self.flush_rows:
            self.flush()

    def flush(self) -> None:
        by_bucket: dict[int, list[pa.RecordBatch]] = {}
        for b, t in self.tables:
            by_bucket.setdefault(b, []).extend(t.to_batches())
        if self.cols["doi"]:
            buckets = self.cols.pop("_bucket")
            small = pa.Table.from_pydict(self.cols, schema=self.schema).append_column(
                "_bucket", pa.array(buckets, pa.int32())
            )
            small = small.sort_by([("_bucket", "ascending")])  # a stable sort: input order within a bucket
            ends = small["_bucket"].to_pylist()
            start = 0
            while start < len(ends):
                b = ends[start]
                stop = bisect_right(ends, b, start)
                by_bucket.setdefault(b, []).extend(
                    small.slice(start, stop - start).drop_columns(["_bucket"]).to_batches()
                )
                start = stop
        if by_bucket:
            layout = write_part(
                self.paths.part(len(self.layouts)), dict(sorted(by_bucket.items())), self.schema
            )
            self.layouts.append(layout)
        self._empty()
