"""Deduplication: hits to per-document mentions, and mentions to global DOI rows.

Bucketed by a stable hash of the canonical DOI, so that a run whose distinct DOIs do not fit
in one process's memory is deduplicated bucket by bucket (datatrove's exact-dedup approach).
"""

from __future__ import annotations

import pyarrow as pa

from ..match import FORMS, forms_of
from .write import DOIS_SCHEMA, MENTIONS_SCHEMA


def merge_bucket(table: pa.Table) -> tuple[pa.Table, pa.Table]:
    """Merge the partial mention rows of one bucket into final mentions and DOI rows.

    Partial rows of the same (source, record, doi) — a file split into byte ranges, or a
    document's mentions given in chunks — merge into one: counts added, the first offset and
    its raw text kept, forms united, the earliest (shard, doc) kept as the row's place. Output
    order depends only on that place (shard, document, offset), never on how many workers ran.
    """
    import pyarrow.compute as pc  # here, not at the top: a shard worker starts sooner without it

    rec_key = pc.if_else(
        pc.is_null(table["record"]), "n", pc.binary_join_element_wise("r", table["record"], "")
    )
    place = pc.add(pc.shift_left(table["shard"], 32), table["doc"])
    # Sorted by offset, a group's least row number is its first offset and raw text: "min" of a
    # row number and one take cost less than hash "first" aggregations, and only the grouping
    # columns are sorted, the texts taken once.
    order = pc.sort_indices(table["first_offset"])
    t = pa.table(
        {
            "source": table["source"],
            "_rec": rec_key,
            "doi": table["doi"],
            "count": table["count"],
            "_place": place,
            "forms": table["forms"],
        }
    ).take(order)
    t = t.append_column("_row", _row_numbers(t.num_rows))
    bits = range(len(FORMS))
    for b in bits:
        t = t.append_column(f"_f{b}", pc.not_equal(pc.bit_wise_and(t["forms"], 1 << b), 0))
    g = t.group_by(["source", "_rec", "doi"], use_threads=False).aggregate(
        [("count", "sum"), ("_row", "min"), ("_place", "min")] + [(f"_f{b}", "any") for b in bits]
    )
    mask = pa.repeat(pa.scalar(0, pa.int32()), g.num_rows)
    for b in bits:
        mask = pc.bit_wise_or(mask, pc.multiply(pc.cast(g[f"_f{b}_any"], pa.int32()), 1 << b))
    first = order.take(g["_row_min"])  # the row of the table with each group's first offset
    g = pa.table(
        {
            "_place": g["_place_min"],
            "first_offset": table["first_offset"].take(first),
            "doi": g["doi"],
            "_first": first,
            "_rec": g["_rec"],
            "source": g["source"],
            "count": g["count_sum"],
            "_mask": mask,
        }
    ).sort_by([("_place", "ascending"), ("first_offset", "ascending"), ("doi", "ascending")])
    record = pc.if_else(
        pc.equal(g["_rec"], "n"), pa.scalar(None, pa.string()), pc.utf8_slice_codeunits(g["_rec"], 1)
    )
    masks = pc.unique(g["_mask"])
    names = pa.array([forms_of(m) for m in masks.to_pylist()], pa.list_(pa.string()))
    mentions = pa.Table.from_arrays(
        [
            g["source"],
            record,
            g["doi"],
            g["count"],
            g["first_offset"],
            table["first_raw"].take(g["_first"]),
            names.take(pc.index_in(g["_mask"], masks)),
        ],
        schema=MENTIONS_SCHEMA,
    )
    per_doi = pa.table(
        {"doi": mentions["doi"], "count": mentions["count"], "_row": _row_numbers(mentions.num_rows)}
    )
    per_doi = per_doi.group_by("doi", use_threads=False).aggregate(
        [("count", "sum"), ("count", "count"), ("_row", "min")]
    )
    dois = pa.Table.from_arrays(
        [
            per_doi["doi"],
            per_doi["count_sum"],
            per_doi["count_count"],
            mentions["source"].take(per_doi["_row_min"]),
        ],
        schema=DOIS_SCHEMA,
    ).sort_by([("doi", "ascending")])
    return mentions, dois


def _row_numbers(n: int) -> pa.Array:
    """0, 1, …, n - 1 as an Arrow array."""
    import pyarrow.compute as pc

    return (
        pc.subtract(pc.cumulative_sum(pa.repeat(pa.scalar(1, pa.int64()), n)), 1)
        if n
        else pa.array([], pa.int64())
    )
