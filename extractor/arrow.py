"""The Arrow batch API: `extract_batch(batch, text="text", id="id", kind=None) -> pyarrow.Table`,
for Spark (`mapInArrow`), Ray Data, Dask, Polars and DuckDB jobs (README, "From other engines");
`canonicalize_array(array)`, canonicalize over a column of identifiers; `find_array(array)`, each
text's distinct DOIs as a list (DuckDB's `doi_find`: extractor.duckdb)."""

from __future__ import annotations

from .pipeline.batch import batch_schema, canonicalize_array, extract_batch, find_array

__all__ = ["batch_schema", "canonicalize_array", "extract_batch", "find_array"]
