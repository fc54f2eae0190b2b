"""Deduplication: hits to per-document mentions, and mentions to global DOI rows.

Bucketed by a stable hash of the canonical DOI, so that a run whose distinct DOIs do not fit
in one process's memory is deduplicated bucket by bucket (datatrove's exact-dedup approach).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa

from ...match import COMPONENT_RULES, FORMS, forms_of
from ...match.entities import FUNDER, FUNDER_PREFIX, WORK
from ..units import CITING_COLUMN
from .write import DOIS_SCHEMA, mentions_schema


def merge_bucket(
    table: pa.Table,
    line_bases: dict[int, int] | None = None,
    meta: Sequence[str] = (),
    types: Sequence[str] = (),
) -> tuple[pa.Table, pa.Table]:
    """Merge the partial mention rows of one bucket into final mentions and DOI rows.

    Partial rows of the same (source, record, doi) — a file split into byte ranges, or a
    document's mentions given in chunks — merge into one: counts added, the first offset, its
    line and raw text kept, forms united, the earliest (shard, doc) kept as the row's place.
    Output order depends only on that place (shard, document, offset), never on how many
    workers ran. `line_bases` shifts the lines of a byte range's shard (counted from the
    range's start) by the newlines of the ranges before it. The provenance columns `meta` are
    taken from the row with the first offset (a record's rows all hold its values), read into
    their `types` (provenance.column_types); with the citing DOI among them, self_citation
    says whether the cited DOI is it. A component DOI's article is its parent_doi.
    """
    import pyarrow.compute as pc  # here, not at the top: a shard worker starts sooner without it

    table = shift_lines(table, "first_line", line_bases)

    # Sources and records as codes into their distinct values: a bucket holds few sources and a
    # record id per document, and every copy below (the sort, the filters, the final order) then
    # moves four bytes a row instead of a path (the merge's memory is its copies).
    sources, src_codes = _codes(table["source"])
    records, rec_codes = _codes(table["record"])
    place = pc.add(pc.shift_left(table["shard"], 32), table["doc"])
    t = pa.table(
        {
            "_src": src_codes,
            "_rec": rec_codes,
            "doi": table["doi"],
            "count": table["count"],
            "_place": place,
            "forms": table["forms"],
        }
    )
    del place
    # In C the rows are grouped as they stand, each group's first row the one of its least first
    # offset (no sort of the rows, no copy of their DOIs in that order: a third of the merge).
    grouped = _group_native(t, table["first_offset"])
    if grouped is None:
        # Sorted by offset, a group's least row number is its first offset and raw text: "min"
        # of a row number and one take cost less than hash "first" aggregations.
        order = pc.sort_indices(table["first_offset"])
        g = _group_arrow(t.take(order))
        grouped = order.take(g["_row"]), g["count"], g["_place"], g["forms"]
        del order, g
    first, count, place, mask = grouped  # first: the row of `table` with each group's first offset
    del grouped, t
    # The groups in output order, found on their numbers alone; each column is then taken once,
    # through `first`, from the rows (a group's source, record and DOI are its first row's).
    first_offset = table["first_offset"].take(first)
    order = _place_order(place, first_offset, lambda: table["doi"].take(first))
    first = first.take(order)
    g = pa.table(
        {
            "first_offset": first_offset.take(order),
            "first_line": table["first_line"].take(first),
            "doi": table["doi"].take(first),
            "_first": first,
            "_src": src_codes.take(first),
            "_rec": rec_codes.take(first),
            "count": count.take(order),
            "_mask": mask.take(order),
        }
    )
    del first, count, place, mask, first_offset, order, src_codes, rec_codes
    masks = pc.unique(g["_mask"])
    names = pa.array([forms_of(m) for m in masks.to_pylist()], pa.list_(pa.string()))
    citing = CITING_COLUMN in meta
    schema = mentions_schema(meta, types, citing)
    values = [pc.cast(table[name].take(g["_first"]), schema.field(name).type) for name in meta]
    mentions = pa.Table.from_arrays(
        [
            sources.take(g["_src"]),
            records.take(g["_rec"]),
            g["doi"],
            g["count"],
            *offset_columns(g["first_offset"], g["first_line"]),
            g["first_line"],
            table["first_raw"].take(g["_first"]),
            names.take(pc.index_in(g["_mask"], masks)),
            *parent_and_entity(g["doi"]),
            *values,
            *([pc.equal(g["doi"], values[meta.index(CITING_COLUMN)])] if citing else []),
        ],
        schema=schema,
    )
    del g
    per_doi = _per_doi_native(mentions)
    if per_doi is None:
        per_doi = _per_doi_arrow(mentions)
    doi, occurrences, documents, first = per_doi
    dois = pa.Table.from_arrays(
        [
            doi,
            occurrences,
            documents,
            mentions["source"].take(first),
            mentions["record"].take(first),
            mentions["parent_doi"].take(first),  # a DOI's parent is its first mention's
            mentions["entity"].take(first),
        ],
        schema=DOIS_SCHEMA,
    ).sort_by([("doi", "ascending")])
    return mentions, dois


def _place_order(place: pa.Array, first_offset: pa.Array, dois: Callable[[], pa.Array]) -> pa.Array:
    """The order of groups by (place, first offset, DOI). Two groups share a place and a first
    offset only where two DOIs start at one place of one document, which the matcher never
    reports: the DOIs (`dois()`, a copy of every group's) are read only when some do."""
    import pyarrow.compute as pc

    keys = [("_place", "ascending"), ("first_offset", "ascending")]
    order = pc.sort_indices(pa.table({"_place": place, "first_offset": first_offset}), sort_keys=keys)
    if len(order) > 1:
        p, o = place.take(order), first_offset.take(order)
        tie = pc.and_(pc.equal(p[1:], p[:-1]), pc.equal(o[1:], o[:-1]))
        if pc.any(tie).as_py():
            both = pa.table({"_place": place, "first_offset": first_offset, "doi": dois()})
            order = pc.sort_indices(both, sort_keys=[*keys, ("doi", "ascending")])
    return order


def _codes(column: pa.ChunkedArray) -> tuple[pa.Array, pa.Array]:
    """A column's distinct values (null among them) and each row's int32 code into them, in one
    hash pass (distinct values, then a lookup of every row, took twice as long)."""
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(column.combine_chunks(), null_encoding="encode")
    return encoded.dictionary, encoded.indices


def parent_and_entity(dois: pa.Array | pa.ChunkedArray) -> tuple[Any, Any]:
    """The parent_doi (match.components' rules, read by Arrow's RE2 as Python's re reads them;
    null where it is no component) and the entity (entities) of each DOI of a column, read once
    per distinct DOI (a bucket of records' mentions cites each DOI many times) and given to each
    row."""
    import pyarrow.compute as pc

    distinct = pc.unique(dois)
    where = pc.index_in(dois, value_set=distinct)
    parents = pa.nulls(len(distinct), pa.string())
    for rule in COMPONENT_RULES:
        found = pc.struct_field(pc.extract_regex(distinct, rule.pattern), "parent")
        parents = pc.coalesce(parents, found)
    parent = pa.nulls(len(dois), pa.string()) if parents.null_count == len(parents) else parents.take(where)
    return parent, entities(distinct).take(where)


def parent_dois(dois: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """The parent_doi of each DOI of a column (parent_and_entity's first)."""
    return parent_and_entity(dois)[0]


def entities(dois: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """The entity of each DOI of a column (match.entities: "funder" for the Funder Registry's
    prefix, else "work")."""
    import pyarrow.compute as pc

    return pc.if_else(pc.starts_with(dois, FUNDER_PREFIX), FUNDER, WORK)


_GROUP_COLUMNS = ["_src", "_rec", "doi", "count", "_row", "_place", "forms"]


def _per_doi_arrow(mentions: pa.Table) -> tuple[Any, Any, Any, Any]:
    """Per DOI of `mentions`: the DOI, its occurrences, its documents and the first mention's row."""
    per_doi = (
        pa.table(
            {"doi": mentions["doi"], "count": mentions["count"], "_row": _row_numbers(mentions.num_rows)}
        )
        .group_by("doi", use_threads=False)
        .aggregate([("count", "sum"), ("count", "count"), ("_row", "min")])
    )
    return per_doi["doi"], per_doi["count_sum"], per_doi["count_count"], per_doi["_row_min"]


def _per_doi_native(mentions: pa.Table) -> tuple[Any, Any, Any, Any] | None:
    """_per_doi_arrow in one hash pass in C (every source and record code 0); None without the
    C part (a group-by of 4 M distinct DOIs was a tenth of their merge)."""
    doi = mentions["doi"].combine_chunks()
    grouped = _hash_groups(doi, mentions["count"].combine_chunks())
    if grouped is None:
        return None
    first, count, _place, _forms, rows = grouped
    return doi.take(first), count, rows, first


def _group_native(
    t: pa.Table, first_offsets: Any = None
) -> tuple[pa.Array, pa.Array, pa.Array, pa.Array] | None:
    """The groups of rows `t` by (source, record, DOI): each group's first row (into t), counts
    summed, least place and forms OR-ed. The rows come in first-offset order, or in any order
    with their `first_offsets` (a group's first row is then its least offset's, the earliest on
    a tie). One hash pass in C over the columns' buffers; None without the C part."""
    cols = {name: t[name].combine_chunks() for name in ("_src", "_rec", "doi", "count", "_place", "forms")}
    offsets = None if first_offsets is None else first_offsets.combine_chunks()
    grouped = _hash_groups(
        cols["doi"], cols["count"], cols["_place"], cols["_src"], cols["_rec"], cols["forms"], offsets
    )
    if grouped is None:
        return None
    first, count, place, forms, _rows = grouped
    return first, count, place, forms


def _hash_groups(
    doi: pa.Array,
    counts: pa.Array,
    places: pa.Array | None = None,
    src: pa.Array | None = None,
    rec: pa.Array | None = None,
    forms: pa.Array | None = None,
    first_offsets: pa.Array | None = None,
) -> tuple[pa.Array, pa.Array, pa.Array, pa.Array, pa.Array] | None:
    """table.group_mentions on Arrow arrays without nulls (a column not given is all 0):
    per group its first row, counts summed, least place, forms OR-ed and rows, as arrays; None
    without the C part or where a column has nulls."""
    from ..table import HAVE_C, group_mentions

    given = [a for a in (doi, counts, places, src, rec, forms, first_offsets) if a is not None]
    if not HAVE_C or any(a.null_count for a in given):
        return None
    n = len(doi)
    zeros = pa.py_buffer(bytes(8 * n))
    _valid, offsets, data = doi.buffers()
    grouped = group_mentions(
        zeros if src is None else _values(src, 4),
        zeros if rec is None else _values(rec, 4),
        offsets,
        data if data is not None else pa.py_buffer(b""),
        doi.offset,
        _values(counts, 8),
        zeros if places is None else _values(places, 8),
        zeros if forms is None else _values(forms, 4),
        n,
        None if first_offsets is None else _values(first_offsets, 8),
    )
    assert grouped is not None
    k = len(grouped[0]) // 4
    types = (pa.int32(), pa.int64(), pa.int64(), pa.int32(), pa.int64())
    first, count, place, ors, rows = (
        pa.Array.from_buffers(typ, k, [None, pa.py_buffer(b)]) for typ, b in zip(types, grouped, strict=True)
    )
    return first, count, place, ors, rows


def _values(a: pa.Array, width: int) -> pa.Buffer:
    """The value buffer of a fixed-width array without nulls, from its offset."""
    return a.buffers()[1].slice(a.offset * width, len(a) * width)


def _group_arrow(t: pa.Table) -> pa.Table:
    """The groups of rows `t` (in first-offset order) by (source, record, DOI) with Arrow's
    kernels (the package without its C part): each group with its first row `_row`, as
    _group_native gives them."""
    import pyarrow.compute as pc

    t = t.append_column("_row", _row_numbers(t.num_rows))
    # Most keys are seen once (a document's mentions are distinct within it; only a document
    # given in chunks or a file in byte ranges repeats one): those rows are their own groups,
    # and only the rows of repeated keys are aggregated (the merge of 4 M distinct
    # DOIs spent most of its time aggregating groups of one). A key can repeat only where its
    # DOI does, so the (source, record, DOI) keys are built for those rows alone.
    again = _repeated(t["doi"])
    if again is not None:
        maybe = t.filter(again)
        key = pc.binary_join_element_wise(
            pc.cast(maybe["_src"], pa.string()), pc.cast(maybe["_rec"], pa.string()), maybe["doi"], "/"
        )
        dup = _repeated(key)
        del key
        parts = [t.filter(pc.invert(again))]
        if dup is None:  # DOIs repeated only across documents: every key still seen once
            parts.append(maybe)
        else:
            parts += [maybe.filter(pc.invert(dup)), _aggregate(maybe.filter(dup))]
        del maybe, dup
        g = pa.concat_tables([p.select(_GROUP_COLUMNS) for p in parts])
        del parts
    else:
        g = t.select(_GROUP_COLUMNS)
    return g


def _repeated(values: pa.ChunkedArray) -> pa.ChunkedArray | None:
    """Which values occur more than once, or None when none does."""
    import pyarrow.compute as pc

    seen = pc.value_counts(values)
    repeated = seen.field("values").filter(pc.greater(seen.field("counts"), 1))
    return pc.is_in(values, value_set=repeated) if len(repeated) else None


def _aggregate(t: pa.Table) -> pa.Table:
    """Rows of repeated (source, record, doi) keys merged: counts added, the least row (the
    first offset) and place kept, the forms' bit masks OR-ed."""
    import pyarrow.compute as pc

    bits = range(len(FORMS))
    for b in bits:
        t = t.append_column(f"_f{b}", pc.not_equal(pc.bit_wise_and(t["forms"], 1 << b), 0))
    g = t.group_by(["_src", "_rec", "doi"], use_threads=False).aggregate(
        [("count", "sum"), ("_row", "min"), ("_place", "min")] + [(f"_f{b}", "any") for b in bits]
    )
    mask = pa.repeat(pa.scalar(0, pa.int32()), g.num_rows)
    for b in bits:
        mask = pc.bit_wise_or(mask, pc.multiply(pc.cast(g[f"_f{b}_any"], pa.int32()), 1 << b))
    return pa.table(
        {
            "_src": g["_src"],
            "_rec": g["_rec"],
            "doi": g["doi"],
            "count": g["count_sum"],
            "_row": g["_row_min"],
            "_place": g["_place_min"],
            "forms": pc.cast(mask, pa.int32()),
        }
    )


def offset_columns(
    offsets: pa.ChunkedArray, lines: pa.ChunkedArray
) -> tuple[pa.ChunkedArray, pa.ChunkedArray]:
    """One offset column as two, by unit: bytes where the hit has a line (a text file), else
    characters (a record's text)."""
    import pyarrow.compute as pc

    in_file = pc.is_valid(lines)
    none = pa.scalar(None, pa.int64())
    return pc.if_else(in_file, offsets, none), pc.if_else(in_file, none, offsets)


def shift_lines(table: pa.Table, column: str, line_bases: dict[int, int] | None) -> pa.Table:
    """The lines of rows from the shards in `line_bases` (a byte range after a file's first,
    whose lines were counted from its start) shifted by the newlines before the range."""
    if not line_bases:
        return table
    import pyarrow.compute as pc

    shards = pa.array(sorted(line_bases), pa.int64())
    bases = pa.array([line_bases[k] for k in sorted(line_bases)], pa.int64())
    add = pc.fill_null(bases.take(pc.index_in(table["shard"], shards)), 0)
    i = table.schema.get_field_index(column)
    return table.set_column(i, table.schema.field(i), pc.add(table[column], add))


def _row_numbers(n: int) -> pa.Array:
    """0, 1, …, n - 1 as an Arrow array."""
    import pyarrow.compute as pc

    return (
        pc.subtract(pc.cumulative_sum(pa.repeat(pa.scalar(1, pa.int64()), n)), 1)
        if n
        else pa.array([], pa.int64())
    )
