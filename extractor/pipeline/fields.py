"""The record fields a user names — `--id-field`, `--meta-field`, `--citing-field` — and the inputs
whose records hold none of one: said once per input, with the fields its records do have (one
differing only in case proposed), so that a misspelled field is never a silent column of nulls,
a run of records named `line N`, or a citation graph without edges.

A shard counts what its records held (FieldCheck, into ShardResult.fields); the run adds up an
input's shards (unheld) and words each field no record held (field_note).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from .units import CITING_COLUMN, MetaValues, ScanConfig, ShardResult, ShardSpec

# The names a record without an id is given by the formats that read an id field; the default
# field ("id"), which many record files lack, is not said.
_FALLBACK_ID = re.compile(r"(?:line|row) \d+\Z")
ID_FORMATS = ("jsonl", "parquet", "csv")
DEFAULT_ID_FIELD = "id"


def asks_fields(config: ScanConfig) -> bool:
    """Whether a scan names record fields that FieldCheck checks."""
    return bool(config.record_fields) or config.id_field != DEFAULT_ID_FIELD


class FieldCheck:
    """Which named fields some record of one input (in one shard) held: a value that is not
    null. Checks stop for a field once a record held it, so most inputs cost a few records."""

    __slots__ = ("id_label", "meta", "records", "source", "unheld")

    def __init__(self, source: str, config: ScanConfig, fmt: str) -> None:
        self.source = source
        self.records = 0
        self.id_label: tuple[str, str] | None = None
        if config.id_field != DEFAULT_ID_FIELD and fmt in ID_FORMATS:
            self.id_label = ("--id-field", config.id_field)
        # (position in the record's values, option, field) of each provenance field
        self.meta = [
            (i, "--citing-field" if name == CITING_COLUMN else "--meta-field", path)
            for i, (name, path) in enumerate(config.record_fields)
        ]
        self.unheld = {(o, f) for _i, o, f in self.meta} | ({self.id_label} if self.id_label else set())

    def see(self, rid: str | None, meta: MetaValues) -> None:
        """One record, its id as named (the format's fallback name when it had none) and values."""
        self.records += 1
        if not self.unheld:
            return
        if self.id_label in self.unheld and rid is not None and _FALLBACK_ID.match(rid) is None:
            self.unheld.discard(self.id_label)
        for i, option, path in self.meta:
            if i < len(meta) and meta[i] is not None:
                self.unheld.discard((option, path))

    def see_all(self, rids: Sequence[str | None], metas: Sequence[MetaValues]) -> None:
        """A batch of records."""
        if not self.unheld:
            self.records += len(rids)
            return
        for rid, meta in zip(rids, metas or [()] * len(rids), strict=True):
            self.see(rid, meta)

    def close(self, result: ShardResult) -> None:
        """Count what the shard's records of this input held into `result`."""
        if self.records and (self.id_label or self.meta):
            seen = result.fields.setdefault(self.source, {"records": 0, "unheld": None})
            seen["records"] += self.records
            mine = sorted([o, f] for o, f in self.unheld)
            seen["unheld"] = mine if seen["unheld"] is None else [u for u in seen["unheld"] if u in mine]


def unheld(results: Iterable[ShardResult]) -> dict[str, tuple[int, list[tuple[str, str]]]]:
    """Per input, the records its shards read and the named fields none of them held."""
    out: dict[str, tuple[int, list[tuple[str, str]]]] = {}
    for r in results:
        for source, seen in r.fields.items():
            mine = [(o, f) for o, f in seen["unheld"]]
            if source in out:
                n, before = out[source]
                out[source] = (n + seen["records"], [u for u in before if u in mine])
            else:
                out[source] = (seen["records"], mine)
    return {s: v for s, v in out.items() if v[1]}


def field_note(source: str, option: str, field: str, records: int, present: Sequence[str]) -> dict[str, Any]:
    """The note of a named field that no record of `source` held (input_notes' shape: `rows` the
    records read, `first` empty), naming the fields they do have and one differing only in case."""
    what = f"no record holds the field {field!r} named by {option}"
    if present:
        shown = ", ".join(present[:12]) + (", …" if len(present) > 12 else "")
        what += f" (its records' fields: {shown})"
        same = [p for p in present if p.lower() == field.lower() and p != field]
        if same:
            what += f"; did you mean {same[0]!r}?"
    return {"source": source, "what": what, "rows": records, "first": [], "option": option, "field": field}


def jsonl_field_names(head: bytes, field: str) -> list[str]:
    """The fields of the first records of a JSONL text: top-level keys, or the keys where a
    dotted `field` leads (metadata.doi: metadata's), in order of first sight."""
    import json  # here: `find` on a text reads no record's fields

    names: dict[str, None] = {}
    parents = field.split(".")[:-1]
    for line in head.splitlines()[:100]:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        for key in parents:
            rec = rec.get(key) if isinstance(rec, dict) else None
        if isinstance(rec, dict):
            names.update(dict.fromkeys(k for k in rec if isinstance(k, str)))
    prefix = ".".join(parents)
    return [f"{prefix}.{n}" if prefix else n for n in names]


HEAD = 1 << 20  # the bytes of an input read for its fields' names


def present_fields(path: str, fmt: str, compression: str | None, field: str) -> list[str]:
    """The fields an input's records have, as its format names them (JSONL keys where a dotted
    field leads, Parquet columns, a CSV header); empty for a format without such names or an
    input that cannot be read again."""
    from .io.compression import decompressed
    from .io.read import open_input

    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            with open_input(path) as f:
                return list(pq.read_schema(f).names)
        if fmt not in ("jsonl", "csv"):
            return []
        with open_input(path) as raw, decompressed(raw, compression) as f:
            head = f.read(HEAD)
    except (OSError, ValueError, EOFError):  # read once already: a note goes without the names
        return []
    if fmt == "csv":
        from .formats.csvrecords import field_names

        return field_names(path, head)
    return jsonl_field_names(head[: head.rfind(b"\n") + 1] or head, field)


def field_notes(specs: Sequence[ShardSpec], results: Sequence[ShardResult]) -> list[dict[str, Any]]:
    """A note per input and named field that none of the input's records held, in input order."""
    missing = unheld(results)
    if not missing:
        return []
    formats = {path: fmt for r in results for path, fmt in r.formats.items()}
    notes = []
    seen: set[str] = set()
    for spec in specs:
        for one in spec.inputs():
            if one.source not in missing or one.source in seen:
                continue
            seen.add(one.source)
            records, fields = missing[one.source]
            fmt = one.fmt or formats.get(one.path, "")
            for option, field in fields:
                present = present_fields(one.path, fmt, one.input_type.compression, field)
                notes.append(field_note(one.source, option, field, records, present))
    return notes
