"""The Arrow batch API: `extract_batch(batch, text="text", id="id", kind=None) -> pyarrow.Table`,
for Spark (`mapInArrow`), Ray Data, Dask, Polars and DuckDB jobs (README, "From other engines")."""

from __future__ import annotations

from .pipeline.batch import batch_schema, extract_batch

__all__ = ["batch_schema", "extract_batch"]
