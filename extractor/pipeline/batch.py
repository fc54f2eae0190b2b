"""DOIs of an Arrow batch of texts, as an Arrow table: the extractor as a function that Spark's
`mapInArrow`, Ray Data's `map_batches`, Dask's `map_partitions`, Polars and DuckDB can call.

One row per hit, the columns and meaning of a scan's `occurrences/`: the record's id,
the hit's offset in characters of its text, its raw text, display form and canonical DOI. Each
text is searched as `scan` searches a record: its kind detected from its content unless given,
plain text, PDF text and HTML by the C matcher straight from the Arrow buffer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pyarrow as pa

from ..match import native
from ..match.entities import entity_of
from ..match.forms import FORMS
from ..match.kinds import KINDS
from ..match.native import CHit, invalid_bytes
from ..match.syntaxes import SYNTAX_CHOICES
from .io.decode import HEAD_BYTES, clean, syntax_for
from .scan.batches import prose_in_c, prose_sniffs, texts_mentions
from .scan.matchers import match_record
from .scan.sinks import columns_arrays
from .table import doi_lists
from .units import ScanConfig, ShardResult

_STRING = pa.string()


def batch_schema(id_type: pa.DataType = _STRING) -> pa.Schema:
    """The schema extract_batch returns for an id column of `id_type` (int64 when ids are row
    numbers): what Spark's mapInArrow and other engines ask to be declared up front."""
    return pa.schema(
        [
            pa.field("id", id_type),
            pa.field("char_offset", pa.int64(), nullable=False),
            pa.field("raw", pa.string(), nullable=False),
            pa.field("form", pa.string(), nullable=False),
            pa.field("doi", pa.string(), nullable=False),
            pa.field("entity", pa.string(), nullable=False),  # spec §6: "funder" or "work"
        ]
    )


def extract_batch(
    batch: pa.RecordBatch | pa.Table,
    text: str = "text",
    id: str | None = "id",
    kind: str | None = None,
    *,
    allow_other_prefix: bool = False,
    syntax: str | None = None,
    derive: bool | str | Iterable[str] | None = None,
) -> pa.Table:
    """Every DOI in column `text` of `batch`, one row per hit (see batch_schema).

    `id` names the column whose value each hit carries (None: the row's number in the batch);
    `kind` is one of plain, html, pdf for every text, or None to detect each text's kind as scan
    does; `syntax` a source syntax of spec §7 for every text ("wikitext", "latex", "bibtex",
    "csv", "json", "markdown"), "none" for prose, or None to tell each text's by its head as
    scan does. A null text has no hits. Offsets count characters of the text. `derive` asks for
    the DOIs of spec §8 too, as find_dois's does (hits of form derived-<source>).
    """
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS} or None, not {kind!r}")
    if syntax is not None and syntax not in SYNTAX_CHOICES:
        raise ValueError(f"syntax must be one of {SYNTAX_CHOICES} or None, not {syntax!r}")
    names = batch.schema.names
    if text not in names:
        raise KeyError(f"no text column {text!r} in the batch (its columns: {', '.join(names)})")
    if id is not None and id not in names:
        raise KeyError(
            f"no id column {id!r} in the batch (its columns: {', '.join(names)}); id=None numbers the rows"
        )
    sources = _sources(derive)
    column = _string_column(batch.column(text), text)
    texts = _strings(column)
    ids = batch.column(id) if id is not None else None
    id_type = ids.type if ids is not None else pa.int64()
    rows: list[int] = []
    cols: dict[str, list[Any]] = {"char_offset": [], "raw": [], "form": [], "doi": [], "entity": []}
    # the texts that are plainly prose, read in C a run at a time (batch_docs' reading); any
    # other, one by one
    prose = _prose_hits(column, kind, syntax) if prose_in_c(kind, syntax, allow_other_prefix, sources) else {}
    for row, data in enumerate(texts):
        if data is None:
            continue
        hits = prose.get(row)
        if hits is None:
            hits = _hits(data, kind, allow_other_prefix, syntax, sources)
        rows += [row] * len(hits)
        for at, _end, form, doi, raw, _line in hits:
            cols["char_offset"].append(at)
            cols["raw"].append(raw)
            cols["form"].append(FORMS[form].value)
            cols["doi"].append(doi)
            cols["entity"].append(entity_of(doi))
    if ids is None:
        id_col: pa.Array | pa.ChunkedArray = pa.array(rows, pa.int64())
    else:
        id_col = ids.take(pa.array(rows, pa.int64()))
    return pa.Table.from_arrays(
        [id_col, *(pa.array(cols[k], pa.int64() if k == "char_offset" else pa.string()) for k in cols)],
        schema=batch_schema(id_type),
    )


_DOI_LIST = pa.list_(pa.string())


def find_array(
    array: Any,
    kind: str | None = None,
    *,
    syntax: str | None = None,
    allow_other_prefix: bool = False,
    derive: bool | str | Iterable[str] | None = None,
) -> pa.Array | pa.ChunkedArray:
    """Each text's distinct canonical DOIs in the order of their first hit, as a list of strings
    (null where the text is null), each text read as scan reads a record — the mention table's
    batch reading, in C from the Arrow buffers — so that its (row, DOI) pairs are scan's
    (record, DOI) pairs. Takes what canonicalize_array takes; `kind`, `syntax` and `derive` as
    extract_batch's."""
    array = _arrow_strings(array, "find_array")
    if isinstance(array, pa.ChunkedArray):
        return pa.chunked_array(
            [
                find_array(c, kind, syntax=syntax, allow_other_prefix=allow_other_prefix, derive=derive)
                for c in array.chunks
            ],
            type=_DOI_LIST,
        )
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS} or None, not {kind!r}")
    if syntax is not None and syntax not in SYNTAX_CHOICES:
        raise ValueError(f"syntax must be one of {SYNTAX_CHOICES} or None, not {syntax!r}")
    n = len(array)
    texts = array.fill_null("") if array.null_count else array
    # one bucket: the rows are ordered below, so the table's hash buckets would only cost
    config = ScanConfig(
        out="",
        buckets=1,
        kind=kind,
        syntax=syntax,
        allow_other_prefix=allow_other_prefix,
        derive=_sources(derive),
    )
    docs, offsets, dois = [], [], []
    for rows in texts_mentions(texts, config, ShardResult(0)):
        cols = columns_arrays(rows.chunk)
        docs.append(pa.Array.from_buffers(pa.int64(), rows.chunk.rows, [None, pa.py_buffer(rows.docs)]))
        dois.append(cols[0])
        offsets.append(cols[2])
    # texts_mentions gives one batch at least (the last, of no rows when there are none); the
    # rows ordered by (text, first offset, DOI) and cut by text in C, on the buffers (no Python
    # value handed to pyarrow: its first conversion of one looks for pandas; arrow_setup.py)
    doc, at, doi = pa.concat_arrays(docs), pa.concat_arrays(offsets), pa.concat_arrays(dois)
    _valid, doi_offsets, doi_data = doi.buffers()
    lists, ends, strings = doi_lists(
        doc.buffers()[1], at.buffers()[1], doi_offsets, doi_data or b"", doi.offset, len(doi), n
    )
    child = pa.Array.from_buffers(pa.string(), len(doi), [None, pa.py_buffer(ends), pa.py_buffer(strings)])
    offsets_array = pa.Array.from_buffers(pa.int32(), n + 1, [None, pa.py_buffer(lists)])
    mask = array.is_null() if array.null_count else None
    return pa.ListArray.from_arrays(offsets_array, child, mask=mask)


def canonicalize_array(array: Any) -> pa.Array | pa.ChunkedArray:
    """canonicalize over a column of identifiers: each value's canonical DOI, null where it is
    null or holds none — in C on the Arrow buffers (the values that are not plainly one DOI read
    by canonicalize itself). A string or large_string array (dictionary-encoded too) gives an
    array of the same type; a chunked array, chunk by chunk; a pandas or Polars Series, a
    string_view array, as the Arrow array they convert to."""
    array = _arrow_strings(array, "canonicalize_array")
    if isinstance(array, pa.ChunkedArray):
        return pa.chunked_array([canonicalize_array(c) for c in array.chunks], type=_value_type(array.type))
    if pa.types.is_dictionary(array.type):
        array = array.cast(array.type.value_type)
    if pa.types.is_null(array.type):
        return pa.nulls(len(array), pa.string())
    large = pa.types.is_large_string(array.type)
    valid, offsets, data = array.buffers()
    done = native.canonical_column(offsets, data or b"", valid, array.offset, len(array), large)
    if done is None:  # no C matcher: the same, value by value
        from ..match.identifiers import canonicalize

        return pa.array([canonicalize(v) for v in array.to_pylist()], type=array.type)
    vout, oout, dout, nulls = done
    return pa.Array.from_buffers(
        array.type, len(array), [pa.py_buffer(vout), pa.py_buffer(oout), pa.py_buffer(dout)], null_count=nulls
    )


def _sources(derive: bool | str | Iterable[str] | None) -> tuple[str, ...]:
    """derive.derive_sources, its rules loaded only where spec §8 is asked for."""
    if not derive:
        return ()
    from ..match.derive import derive_sources

    return derive_sources(derive)


def _arrow_strings(values: Any, what: str) -> pa.Array | pa.ChunkedArray:
    """A column as an Arrow array of strings: a pandas or Polars Series converted as it is,
    a string_view array cast to large_string (the C readers take offsets and data)."""
    if not isinstance(values, (pa.Array, pa.ChunkedArray)):
        to_arrow = getattr(values, "to_arrow", None)  # a Polars Series
        if callable(to_arrow):
            values = to_arrow()
        elif hasattr(values, "dtype") and hasattr(values, "array"):  # a pandas Series
            try:
                values = pa.array(values, from_pandas=True)
            except (pa.ArrowTypeError, pa.ArrowInvalid):
                # an object column of strings among other values (None, NaN, numbers, bytes):
                # what is no string holds no DOI, as canonicalize says of it
                values = pa.array([v if isinstance(v, str) else None for v in values], pa.string())
        else:
            raise TypeError(
                f"{what} takes an Arrow, pandas or Polars column of strings, not {type(values).__name__}"
            )
    is_view = getattr(pa.types, "is_string_view", None)  # pyarrow 16 and later
    if is_view is not None and is_view(values.type):
        values = values.cast(pa.large_string())
    kind = _value_type(values.type)
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        # numbers, bytes, dates: no value of them is a string, none holds a DOI (canonicalize)
        return pa.nulls(len(values), pa.string())
    return values


def _value_type(t: pa.DataType) -> pa.DataType:
    if pa.types.is_dictionary(t):
        return t.value_type
    return pa.string() if pa.types.is_null(t) else t


def _string_column(column: pa.Array | pa.ChunkedArray, name: str) -> pa.Array | pa.ChunkedArray:
    """A text column as strings (a dictionary-encoded one decoded once); TypeError for any other."""
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        raise TypeError(f"text column {name!r} holds {column.type}, not strings")
    return column


def _strings(column: pa.Array | pa.ChunkedArray) -> list[memoryview | None]:
    """The UTF-8 bytes of each value of a string column (_string_column), as views of its Arrow
    buffers."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    out: list[memoryview | None] = []
    for chunk in chunks:
        if len(chunk) == 0:
            continue
        valid, offsets, data = chunk.buffers()
        offs = memoryview(offsets).cast("q" if pa.types.is_large_string(chunk.type) else "i")
        body = memoryview(data) if data is not None else memoryview(b"")
        nulls = chunk.is_null().to_pylist() if valid is not None else None
        base = chunk.offset
        for i in range(len(chunk)):
            if nulls is not None and nulls[i]:
                out.append(None)
            else:
                out.append(body[offs[base + i] : offs[base + i + 1]])
    return out


def _prose_hits(
    column: pa.Array | pa.ChunkedArray, kind: str | None, syntax: str | None
) -> dict[int, list[CHit]]:
    """The hits of each text of a string column that is plainly prose (native.scan_arrow_texts
    with a list of hits: what _hits finds in it, without a Python call per text), by row; a
    text that is not, or a chunk that is not valid UTF-8 throughout, is left to _hits."""
    found: dict[int, list[CHit]] = {}
    base = 0
    for chunk in column.chunks if isinstance(column, pa.ChunkedArray) else [column]:
        n = len(chunk)
        texts = chunk.fill_null("") if chunk.null_count else chunk
        _valid, offsets, data = texts.buffers()
        large = pa.types.is_large_string(texts.type)
        offs = memoryview(offsets).cast("q" if large else "i")
        data = data if data is not None else b""
        if n and not invalid_bytes(data, offs[texts.offset], offs[texts.offset + n])[0]:
            i = 0
            while i < n:
                hits: list[CHit] = []
                stops: list[int] = []
                stop, _reported, _too_long = native.scan_arrow_texts(
                    offsets,
                    data,
                    texts.offset,
                    n,
                    large,
                    i,
                    None,
                    *prose_sniffs(kind, syntax),
                    0,
                    0,
                    hits,
                    stops,
                )
                last = 0
                for j, end in enumerate(stops):  # texts i … stop - 1 read, each one's hits up to its end
                    found[base + i + j] = hits[last:end]
                    last = end
                i = stop + 1  # text `stop` is not plainly prose: _hits reads it
        base += n
    return found


def _hits(
    data: memoryview,
    kind: str | None,
    allow_other_prefix: bool,
    syntax: str | None,
    derive: tuple[str, ...] = (),
) -> list[CHit]:
    """A text's hits as the C matcher reports them, offsets in characters."""
    if invalid_bytes(data, 0, len(data))[0]:  # not valid UTF-8 after all: read as scan reads it
        data = memoryview(clean(bytes(data).decode("utf-8", "surrogateescape"))[0].encode("utf-8"))
    hits: list[CHit] = []
    syn = syntax_for(syntax, None, bytes(data[:HEAD_BYTES]))
    match_record(data, kind, allow_other_prefix, None, hits, syn, derive=derive)  # as scan searches a record
    return hits
