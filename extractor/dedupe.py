"""Deduplication: hits to per-document mentions, and mentions to global DOI rows.

Bucketed by a stable hash of the canonical DOI, so that a run whose distinct DOIs do not fit
in one process's memory is deduplicated bucket by bucket (datatrove's exact-dedup approach).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ._cscan import bucket_of as _bucket_of


def bucket_of(doi: str, buckets: int) -> int:
    """A stable bucket for a DOI (the same in every process and run, unlike hash()): FNV-1a of
    its UTF-8 bytes, computed in C because it runs once per distinct DOI of every document."""
    return _bucket_of(doi, buckets)


@dataclass(slots=True)
class Mention:
    """One (document, DOI) pair: how often, where first, and in which display forms."""

    doi: str
    count: int
    first_offset: int
    first_raw: str
    forms: set[str] = field(default_factory=set)


# A hit as the shard passes it on: (doi, offset, form, text, start, end); the raw text is
# text[start:end], sliced only for the first hit of each DOI.
ShardHit = tuple[str, int, str, str, int, int]


MAX_MENTIONS = 25_000  # distinct DOIs of one document held at once; more are given in chunks


def mentions_of(hits: Iterable[ShardHit], limit: int | None = None) -> Iterator[dict[str, Mention]]:
    """Per-document aggregation of hits given in order of offset, keyed by canonical DOI.

    A document with more than `limit` distinct DOIs is given in several chunks, so that memory
    stays bounded; merge_bucket adds the chunks of a (document, DOI) back together.
    """
    limit = limit or MAX_MENTIONS
    out: dict[str, Mention] = {}
    get = out.get
    for doi, offset, form, text, s, e in hits:
        m = get(doi)
        if m is None:
            if len(out) >= limit:
                yield out
                out = {}
                get = out.get
            out[doi] = Mention(doi, 1, offset, text[s:e], {form})
        else:
            m.count += 1
            m.forms.add(form)
    yield out


def merge_bucket(rows: dict[str, list[Any]]) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """Merge the partial mention rows of one bucket into final mentions and DOI rows.

    Partial rows of the same (source, record, doi) — a file split into byte ranges — merge
    into one. Output order depends only on the input order (shard, document, offset), never
    on how many workers ran.
    """
    merged: dict[tuple[str, str | None, str], list[Any]] = {}
    n = len(rows["doi"])
    for i in range(n):
        key = (rows["source"][i], rows["record"][i], rows["doi"][i])
        order = (rows["shard"][i], rows["doc"][i])
        cur = merged.get(key)
        if cur is None:
            merged[key] = [order, rows["count"][i], rows["first_offset"][i], rows["first_raw"][i], list(rows["forms"][i])]
        else:
            cur[0] = min(cur[0], order)
            cur[1] += rows["count"][i]
            if rows["first_offset"][i] < cur[2]:
                cur[2], cur[3] = rows["first_offset"][i], rows["first_raw"][i]
            for f in rows["forms"][i]:
                if f not in cur[4]:
                    cur[4].append(f)
    items = sorted(merged.items(), key=lambda kv: (kv[1][0], kv[1][2], kv[0][2]))
    mentions: dict[str, list[Any]] = {k: [] for k in ("source", "record", "doi", "count", "first_offset", "first_raw", "forms")}
    per_doi: dict[str, list[Any]] = {}
    for (source, record, doi), (_order, count, off, raw, forms) in items:
        mentions["source"].append(source)
        mentions["record"].append(record)
        mentions["doi"].append(doi)
        mentions["count"].append(count)
        mentions["first_offset"].append(off)
        mentions["first_raw"].append(raw)
        mentions["forms"].append(sorted(forms))
        d = per_doi.get(doi)
        if d is None:
            per_doi[doi] = [count, 1, source]
        else:
            d[0] += count
            d[1] += 1
    dois: dict[str, list[Any]] = {"doi": [], "occurrences": [], "documents": [], "first_source": []}
    for doi in sorted(per_doi):
        occ, docs, first = per_doi[doi]
        dois["doi"].append(doi)
        dois["occurrences"].append(occ)
        dois["documents"].append(docs)
        dois["first_source"].append(first)
    return mentions, dois
