"""Parquet files of records (Hugging Face datasets, S2ORC, CORE): a document per row, its text
column searched (a dotted path reaches into structs), its id and provenance columns kept; a
file is a shard per row group."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import InputError
from ..io import remote
from ..io.read import display_name, open_input
from ..provenance import Meta, meta_value
from ..units import Progress, ScanConfig, ShardResult, ShardSpec
from .base import Format, PlanInput, Planned, Record, Records, SkippedRecords

# Names planned by their contents whatever their size: a shard per row group.
NAMES = (".parquet", ".pq")


def tell(name: str, head: bytes, text_field: str, id_field: str) -> bool:
    """By its magic bytes."""
    return head.startswith(b"PAR1")


def plan(inp: PlanInput) -> Planned:
    """A shard per row group."""
    import pyarrow.parquet as pq  # only for Parquet inputs: start-up is part of every run

    inp.f.seek(0)
    n = pq.ParquetFile(inp.f).num_row_groups
    return Planned([(g, g) for g in range(n)] or [(0, -1)])


def records(
    spec: ShardSpec, config: ScanConfig, result: ShardResult, progress: Progress, skipped: SkippedRecords
) -> Iterator[Record | Records]:
    """The rows of a Parquet file, or of one row group of it (a shard); a row whose text is null
    or not a string is skipped and named by its row."""
    import pyarrow.parquet as pq

    # a local file by its path (pyarrow reads it natively); an object through fsspec
    pf = pq.ParquetFile(open_input(spec.path) if remote.is_url(spec.path) else spec.path)
    schema = pf.schema_arrow
    if not _has_column(schema, config.text_field):
        raise InputError(f"no column {config.text_field!r} in the Parquet file")
    has_id = _has_column(schema, config.id_field)
    # provenance columns the file has (a row of a file without one has null)
    metas = [path if _has_column(schema, path) else None for _, path in config.record_fields]
    # a nested field is read by its top column (pyarrow selects struct children by prefix)
    cols = sorted(
        {
            f.split(".")[0] if f not in schema.names else f
            for f in (config.text_field, config.id_field, *metas)
            if f is not None and (f != config.id_field or has_id)
        }
    )
    groups = [spec.start] if spec.stop >= 0 else list(range(pf.num_row_groups))
    for g in groups:
        row = sum(pf.metadata.row_group(i).num_rows for i in range(g))
        meta = pf.metadata.row_group(g)
        result.bytes_read += meta.total_byte_size
        # progress in bytes as stored, as the planner's total counts them
        progress(sum(meta.column(c).total_compressed_size for c in range(meta.num_columns)), 0)
        for batch in pf.iter_batches(batch_size=4096, columns=cols, row_groups=[g]):
            column = _column(batch, config.text_field)
            n = len(column)
            ids = _column(batch, config.id_field).to_pylist() if has_id else [None] * n
            values = [
                [meta_value(v) for v in _column(batch, m).to_pylist()] if m else [None] * n for m in metas
            ]
            rows: list[Meta] = list(zip(*values, strict=True)) if values else [()] * n
            if n and _whole_texts(column):
                # every row has its text: the column as it is, read from its buffers (a row without
                # an id is named by its row)
                names: list[str | None] = (
                    ids  # valid UTF-8 strings all: each its own display name
                    if has_id and _whole_texts(_column(batch, config.id_field))
                    else [
                        f"row {row + j}" if rid is None else display_name(str(rid))
                        for j, rid in enumerate(ids)
                    ]
                )
                yield Records(names, column, rows)
                row += n
                continue
            texts = column.to_pylist()
            for rid, text, meta in zip(ids, texts, rows, strict=True):
                if isinstance(text, str):
                    # a row without an id is named by its row, never merged
                    yield Record(
                        f"row {row}" if rid is None else display_name(str(rid)), text, None, tuple(meta)
                    )
                else:
                    skipped.add(
                        "row", row, f"{config.text_field!r} is {'null' if text is None else 'not a string'}"
                    )
                row += 1


def _whole_texts(column: Any) -> bool:
    """Whether a column holds a string in every row, all valid UTF-8 (Arrow's own check, at SIMD
    speed): else a text column's rows are read one by one, a null or other value skipped and
    named, and an id column's ids each made a name."""
    import pyarrow as pa

    if column.null_count or not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        return False
    try:
        column.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def _has_column(schema: Any, path: str) -> bool:
    """Whether an Arrow schema has a column by name or by dotted path into structs."""
    if path in schema.names:
        return True
    typ: Any = schema
    for part in path.split("."):
        names = [f.name for f in typ] if hasattr(typ, "__iter__") else []
        if part not in names:
            return False
        typ = typ.field(part).type if hasattr(typ, "field") else None
        if typ is None:
            return False
    return True


def _column(batch: Any, path: str) -> Any:
    """A batch's column by name or by dotted path into structs (`meta.text`)."""
    if path in batch.schema.names:
        return batch.column(path)
    first, *rest = path.split(".")
    col = batch.column(first)
    for part in rest:
        col = col.field(part)
    return col


FORMAT = Format("parquet", tell, plan, records, names=NAMES)
