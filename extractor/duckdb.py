"""The extractor inside DuckDB: `register(con)` adds SQL functions to a connection —
`doi_find(text)`, each text's distinct canonical DOIs in the order of their first hit, and
`doi_canonicalize(value)`, a value's canonical DOI or NULL — as Arrow-vectorized functions on
the C matcher, so that `SELECT id, unnest(doi_find(text)) FROM 'records.parquet'` reads with
DuckDB's own Parquet reader and finds what `scan` finds."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["register"]


def register(
    con: Any,
    *,
    kind: str | None = None,
    syntax: str | None = None,
    allow_other_prefix: bool = False,
    derive: bool | str | Iterable[str] | None = None,
) -> None:
    """Add `doi_find(VARCHAR) -> VARCHAR[]` and `doi_canonicalize(VARCHAR) -> VARCHAR` to the
    DuckDB connection `con`. A NULL gives NULL. `kind` (plain, html, pdf) and `syntax` (a source
    syntax of spec §7, or "none") force how every text is read, as scan's --kind and --syntax;
    by default each text's are told by its content. `derive` makes doi_find report the DOIs of
    spec §8 too (True, or sources by name), as find_dois's does."""
    # SQL types by their names, which every DuckDB takes (its type objects moved from
    # duckdb.typing to duckdb.sqltype, which costs a module more to load)
    varchar = "VARCHAR"

    # the matcher and pyarrow are loaded by the first call, where DuckDB hands over the first texts
    def doi_find(texts: Any) -> Any:
        from .arrow import find_array

        return find_array(texts, kind, syntax=syntax, allow_other_prefix=allow_other_prefix, derive=derive)

    def doi_canonicalize(values: Any) -> Any:
        from .arrow import canonicalize_array

        return canonicalize_array(values)

    con.create_function(
        "doi_find",
        doi_find,
        [varchar],
        "VARCHAR[]",
        type="arrow",
        null_handling="special",
        side_effects=False,
    )
    con.create_function(
        "doi_canonicalize",
        doi_canonicalize,
        [varchar],
        varchar,
        type="arrow",
        null_handling="special",
        side_effects=False,
    )
