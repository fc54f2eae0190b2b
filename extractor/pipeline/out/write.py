"""Parquet sinks: explicit schemas, zstd compression, temporary name then rename."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

import pyarrow as pa

from ..io.remote import is_url, put
from ..units import SELF_CITATION

# Offsets in the unit of what was searched, each unit its own column: bytes of a text
# file (decompressed; its line too), characters of a record's text (JSONL, Parquet, WARC, a raw
# PDF's text); the other column is null.
MENTIONS_SCHEMA = pa.schema(
    [
        pa.field("source", pa.string(), nullable=False),
        pa.field("record", pa.string()),
        pa.field("doi", pa.string(), nullable=False),
        pa.field("count", pa.int64(), nullable=False),
        pa.field("first_byte_offset", pa.int64()),
        pa.field("first_char_offset", pa.int64()),
        pa.field("first_line", pa.int64()),
        pa.field("first_raw", pa.string(), nullable=False),
        pa.field("forms", pa.list_(pa.string()), nullable=False),
        # the article a component DOI (a figure, table, supplement) belongs to: match.components
        pa.field("parent_doi", pa.string()),
        # what the DOI names, "funder" (the Funder Registry's prefix) or "work": match.entities
        pa.field("entity", pa.string(), nullable=False),
    ]
)
DOIS_SCHEMA = pa.schema(
    [
        pa.field("doi", pa.string(), nullable=False),
        pa.field("occurrences", pa.int64(), nullable=False),
        pa.field("documents", pa.int64(), nullable=False),
        pa.field("first_source", pa.string(), nullable=False),
        pa.field("first_record", pa.string()),  # the record of its first mention (a page, a row)
        pa.field("parent_doi", pa.string()),
        pa.field("entity", pa.string(), nullable=False),
    ]
)
# The types a provenance column may have in mentions/ (provenance.column_types).
META_TYPES = {"string": pa.string(), "int64": pa.int64(), "double": pa.float64(), "bool": pa.bool_()}
OCCURRENCES_SCHEMA = pa.schema(
    [
        pa.field("source", pa.string(), nullable=False),
        pa.field("record", pa.string()),
        pa.field("byte_offset", pa.int64()),
        pa.field("char_offset", pa.int64()),
        pa.field("line", pa.int64()),
        pa.field("raw", pa.string(), nullable=False),
        pa.field("form", pa.string(), nullable=False),
        pa.field("doi", pa.string(), nullable=False),
        pa.field("entity", pa.string(), nullable=False),
    ]
)
# What a shard writes per hash bucket: a mention row plus where it stands in the run's order,
# its one offset (bytes when it has a line, else characters), its line counted from the shard's
# range, and its display forms as a bit mask of match.FORMS indices (merged with OR).
PARTIAL_SCHEMA = pa.schema(
    [
        pa.field("shard", pa.int64(), nullable=False),
        pa.field("doc", pa.int64(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("record", pa.string()),
        pa.field("doi", pa.string(), nullable=False),
        pa.field("count", pa.int64(), nullable=False),
        pa.field("first_offset", pa.int64(), nullable=False),
        pa.field("first_line", pa.int64()),
        pa.field("first_raw", pa.string(), nullable=False),
        pa.field("forms", pa.int32(), nullable=False),
    ]
)


def with_meta(schema: pa.Schema, columns: Sequence[str], types: Sequence[str] = ()) -> pa.Schema:
    """A schema with provenance columns (ScanConfig.meta_columns) after its own: text (as the
    part files hold them), or of the types given (META_TYPES' names, one per column)."""
    for i, name in enumerate(columns):
        schema = schema.append(pa.field(name, META_TYPES[types[i]] if i < len(types) else pa.string()))
    return schema


def mentions_schema(columns: Sequence[str], types: Sequence[str] = (), citing: bool = False) -> pa.Schema:
    """mentions/' schema: its own columns, the provenance columns, and self_citation when the
    last of them is the citing DOI."""
    schema = with_meta(MENTIONS_SCHEMA, columns, types)
    return schema.append(pa.field(SELF_CITATION, pa.bool_())) if citing else schema


# A shard's occurrence files, in the same terms.
PARTIAL_OCCURRENCES_SCHEMA = pa.schema(
    [
        pa.field("source", pa.string(), nullable=False),
        pa.field("record", pa.string()),
        pa.field("offset", pa.int64(), nullable=False),
        pa.field("line", pa.int64()),
        pa.field("raw", pa.string(), nullable=False),
        pa.field("form", pa.string(), nullable=False),
        pa.field("doi", pa.string(), nullable=False),
    ]
)


def write_table(path: str, columns: dict[str, Sequence[Any]], schema: pa.Schema) -> None:
    """Write one Parquet file atomically: a temporary name in the same folder, then rename."""
    table = pa.Table.from_pydict(dict(columns), schema=schema) if columns else schema.empty_table()
    write_arrow(path, table)


@contextmanager
def atomically(path: str) -> Iterator[str]:
    """A temporary name beside `path` to write to; renamed to `path` when the block completes.
    For a URL of object storage, a local temporary file, put as one object when the block
    completes (a store writes an object whole or not at all: its rename)."""
    if is_url(path):
        fd, tmp = tempfile.mkstemp(prefix="doi-extract-put-")
        os.close(fd)
        try:
            yield tmp
            put(tmp, path)
        finally:
            with suppress(OSError):
                os.remove(tmp)
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        yield tmp
    except BaseException:  # interrupted or failed: no half-written file is left behind
        with suppress(OSError):
            os.remove(tmp)
        raise
    os.replace(tmp, path)


# Offsets and line numbers are nearly all distinct within a file: a Parquet dictionary tried on
# them and given up costs time and makes larger files. Sources and record ids come in runs (a
# document's mentions one after another), which zstd folds as well as a dictionary does, without
# hashing a path per row. Every other column (DOIs cited again, raw texts, counts, forms) is
# dictionary-encoded: smaller and faster to write (benchmarks/RESULTS.md, "Design figures").
_PLAIN = frozenset(
    {"first_byte_offset", "first_char_offset", "first_line", "byte_offset", "char_offset", "line"}
    | {"source", "record", "first_source", "first_record"}
)


def _dictionary_columns(schema: pa.Schema) -> list[str]:
    """The Parquet column paths of `schema` to dictionary-encode: all but positions, sources and
    record ids."""
    return [
        f"{f.name}.list.element" if pa.types.is_list(f.type) else f.name
        for f in schema
        if f.name not in _PLAIN
    ]


def write_arrow(path: str, table: pa.Table) -> None:
    import pyarrow.parquet as pq  # here: a worker that writes only partial results never needs it

    with atomically(path) as tmp:
        pq.write_table(table, tmp, compression="zstd", use_dictionary=_dictionary_columns(table.schema))
