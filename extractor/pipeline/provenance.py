"""Provenance columns (`--meta-field`): fields of the citing record — its URL, its
own DOI, a date — copied into every mention row of it, so that `citing → cited` edges come
straight out of mentions/.

A field is named by a dotted path into a JSONL record or a Parquet row (`metadata.url`), or by
a header name of a WARC record (`WARC-Date`, `WARC-Record-ID`; its WARC headers first, then its
HTTP headers, either case). Its column is `NAME=` when given, else the path in lower case with
every character other than a letter, digit or `_` made `_` (`WARC-Date` → `warc_date`), so it
needs no quoting in SQL. Values keep their type where the source has one: a column whose
records all hold integers is int64, numbers double, booleans bool; any other column is text (a
string as it is, anything else as its JSON text). A record without the field (and every text
file) has null.

`--citing-field` names the field that holds the citing work's own DOI, in any display form: its
column `citing_doi` holds the canonical DOI (null when the field holds none) and `self_citation`
whether the cited DOI is it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .units import CITING_COLUMN, SELF_CITATION, MetaValues

# The columns mentions/ has of its own, and the shard's bookkeeping columns beside them.
# The columns of write's MENTIONS_SCHEMA and PARTIAL_SCHEMA, named here so that reading a record's
# provenance needs no pyarrow (`find` loads none); a test holds the two lists equal.
RESERVED = frozenset(
    {
        *("source", "record", "doi", "count", "first_byte_offset", "first_char_offset", "first_line"),
        *("first_raw", "forms", "parent_doi", "entity", "shard", "doc", "first_offset"),
        CITING_COLUMN,
        SELF_CITATION,
    }
)

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_NOT_NAME = re.compile(r"[^a-z0-9_]")

# One value per field, in the order the fields were given: text, or a number or boolean kept as
# the source typed it (meta_value).
Meta = MetaValues


def meta_fields(specs: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """(column, path) for each `--meta-field` value (`PATH` or `NAME=PATH`); ValueError naming
    the value when a column is not a plain name, is one mentions/ has (citing_doi and
    self_citation too), or is given twice."""
    out: list[tuple[str, str]] = []
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep:
            name, path = _NOT_NAME.sub("_", spec.lower()), spec
        if not path:
            raise ValueError(f"{spec!r}: no field named")
        if not _NAME.match(name):
            raise ValueError(f"{spec!r}: the column {name!r} is not a name (give one: NAME=PATH)")
        if name in RESERVED or name.startswith("_"):
            raise ValueError(
                f"{spec!r}: mentions/ has a column {name!r} of its own (give another: NAME=PATH)"
            )
        if any(name == n for n, _ in out):
            raise ValueError(f"{spec!r}: a second column {name!r} (give another: NAME=PATH)")
        out.append((name, path))
    return tuple(out)


_INT64 = range(-(1 << 63), 1 << 63)


def meta_value(value: Any) -> str | int | float | bool | None:
    """A field's value: a string as it is (bytes that are not UTF-8 as U+FFFD), null as null, a
    number or boolean as it is (an integer beyond int64 as text), a list or object as compact
    JSON, anything else (a Parquet date or timestamp) as its str()."""
    if value is None or isinstance(value, (bool, float)) or (isinstance(value, int) and value in _INT64):
        return value
    if isinstance(value, str):
        return _valid(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, (int, list, dict)):
        import json  # here: `find` on a text reads no record's fields

        return _valid(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str))
    return str(value)


def meta_text(value: str | int | float | bool | None) -> str | None:
    """A value as the part files hold it: text, a number or boolean as its JSON text (read back
    into its type by the merge, column_types)."""
    if value is None or isinstance(value, str):
        return value
    import json

    return json.dumps(value)


def meta_tag(value: str | int | float | bool | None) -> str:
    """The kind of a value, for the type of its column: str, int, float, bool or null."""
    return "null" if value is None else type(value).__name__


# A column's type in mentions/ from the kinds of value its records held.
_TYPES = (
    (frozenset({"int"}), "int64"),
    (frozenset({"int", "float"}), "double"),
    (frozenset({"bool"}), "bool"),
)


def column_types(tags: Sequence[Mapping[str, Sequence[str]]], columns: Sequence[str]) -> tuple[str, ...]:
    """The type of each provenance column, from every shard's tags (ShardResult.meta_types):
    int64 when every value was an integer, double when numbers, bool when booleans, else (and
    for citing_doi) string."""
    out = []
    for name in columns:
        seen = {t for shard in tags for t in shard.get(name, ())} - {"null"}
        kind = "string"
        if seen and name != CITING_COLUMN:
            kind = next((typ for allowed, typ in _TYPES if seen <= allowed), "string")
        out.append(kind)
    return tuple(out)


def _valid(text: str) -> str:
    """Text Parquet can store: lone surrogates (invalid bytes kept by a JSON reading) as U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def from_record(obj: Mapping[str, Any], fields: Sequence[tuple[str, str]]) -> Meta:
    """The fields' values in a parsed record (a dotted path reads into nested objects; a key that
    holds the dots itself is taken first)."""
    return tuple(meta_value(field_of(obj, path)[1]) for _, path in fields)


def from_headers(*headers: Mapping[str, str] | None, fields: Sequence[tuple[str, str]]) -> Meta:
    """The fields' values among header sets searched in turn (a WARC record's, then its HTTP
    message's), names compared without case."""
    lowered = [{k.lower(): v for k, v in h.items()} for h in headers if h is not None]
    out: list[str | None] = []
    for _, path in fields:
        key = path.lower()
        out.append(next((h[key] for h in lowered if key in h), None))
    return tuple(out)


def field_of(obj: Mapping[str, Any], path: str) -> tuple[bool, Any]:
    """(found, value) of a field by name, or by dotted path into nested objects (`meta.text`);
    a key that itself holds the dots is taken first."""
    if path in obj:
        return True, obj[path]
    value: Any = obj
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return False, None
        value = value[part]
    return True, value
