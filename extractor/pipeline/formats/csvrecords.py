"""CSV and TSV exports as record files (`.csv`, `.tsv`, `.tab`, in any compression) when their
header row names the --text-field or the --id-field column: a document per row (RFC 4180: a
quoted field may hold line ends), named by its --id-field cell or `row N` (N from 1, the header
not counted), --meta-field reaching other columns by header.

With a text column, that cell is searched, as prose unless its head tells a syntax. Without one,
the whole row is searched in the CSV syntax of spec §7, its header line read before it (a cell
of a column headed DOI is one DOI) and never searched itself. A CSV whose header names neither
field is one document in the CSV syntax, as any text file (formats/text.py).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Any

from ..errors import InputError
from ..io.decode import HEAD_BYTES
from ..io.read import display_name, open_counted
from ..provenance import from_record
from ..units import Progress, ScanConfig, ShardResult, ShardSpec
from .base import FlaggedRows, Format, Record, SkippedRecords

NAMES = (".csv", ".tsv", ".tab")

# What a run says of a CSV's rows that are not read as their header says (FlaggedRows).
RAGGED = (
    "rows whose field count differs from the header's (each read as a record of its own, named "
    "by its row, its whole text searched, no id or field value taken by position)"
)
DUPLICATE_ID = "rows whose id another row before them holds too"
# Ids remembered per file to find a repeated one (8-byte hashes); past this many, no more are.
MAX_IDS = 4_000_000


# Rows an export may write before its header (Dimensions: `"About the data: Exported on …"`).
PREAMBLE_ROWS = 3


def _first_rows(head: str, sep: str) -> list[list[str]]:
    """The cells of a CSV text's first rows, where its header may be."""
    out: list[list[str]] = []
    try:
        for row in csv.reader(iter(head.splitlines(keepends=True)), delimiter=sep, strict=False):
            out.append(row)
            if len(out) > PREAMBLE_ROWS:
                break
    except csv.Error:  # a NUL byte, or a row longer than the head
        pass
    return out


# Web of Science writes its tab-delimited export as `savedrecs.txt`: a `.txt` file is a TSV of
# records when its first line holds a TAB and names a field asked for.
TAB_TEXT = ".txt"


def _separator(name: str, head: str) -> str:
    if name.endswith((".tsv", ".tab", TAB_TEXT)):
        return "\t"
    from ...match.syntaxes.csvtext import delimiter

    return delimiter(head)


def field_names(name: str, head: bytes) -> list[str]:
    """The cells of a CSV text's header (its first row naming a field, else its first row): what
    its records' fields are called, for a note on a field none of them holds."""
    text = head.decode("utf-8-sig", "replace")
    rows = _first_rows(text, _separator(name.lower(), text))
    return next((r for r in rows if len(r) > 1), rows[0] if rows else [])


def tell(name: str, head: bytes, text_field: str, id_field: str) -> bool:
    """By name, and a header row naming the text or the id field."""
    head = head[:HEAD_BYTES]
    # the name and a TAB in the first line, on the bytes: a head is decoded only for what may be
    # a CSV (every text file is asked)
    if not name.endswith(NAMES) and not (name.endswith(TAB_TEXT) and b"\t" in head.split(b"\n", 1)[0]):
        return False
    text = head.decode("utf-8-sig", "replace")
    return any(
        text_field in cells or id_field in cells for cells in _first_rows(text, _separator(name, text))
    )


class _Lines:
    """The lines a csv reader takes, kept until its row is taken: each row's text as written."""

    def __init__(self, lines: Iterator[str]) -> None:
        self._lines = lines
        self.taken: list[str] = []

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self.taken.append(line)
        return line

    def row(self) -> str:
        out = "".join(self.taken)
        self.taken.clear()
        return out


def _rows(
    lines: Iterator[str], sep: str, limit: int, quoted: bool = True
) -> Iterator[tuple[int, list[str] | str, str]]:
    """(row number from 0, its cells — or why it has none — and its text as written) for each row:
    read by Python's csv module (RFC 4180 quoting; a quote inside an unquoted field is literal);
    a field over `limit` characters, or a quoted field still open where the text ends, gives a
    reason instead of cells."""
    csv.field_size_limit(max(csv.field_size_limit(), limit))
    taken = _Lines(lines)
    reader = csv.reader(
        taken, delimiter=sep, strict=False, quoting=csv.QUOTE_MINIMAL if quoted else csv.QUOTE_NONE
    )
    n = 0
    while True:
        try:
            cells: list[str] | str = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            cells = f"not a CSV row ({exc})"
        raw = taken.row()
        if (
            quoted and not isinstance(cells, str) and raw.count('"') % 2
        ):  # an open quote at the end of the text?
            try:
                next(csv.reader(iter([raw]), delimiter=sep, strict=True))
            except csv.Error as exc:
                if "unexpected end of data" in str(exc):
                    cells = "a quoted field left open to the end of the file"
        yield n, cells, raw
        n += 1


def records(
    spec: ShardSpec, config: ScanConfig, result: ShardResult, progress: Progress, skipped: SkippedRecords
) -> Iterator[Record]:
    """The rows of a CSV file as records."""
    raw, stream, disk = open_counted(
        spec.path, spec.input_type.compression, progress, result.text_cut(spec.source)
    )
    with raw, stream:
        head = stream.peek(HEAD_BYTES)[:HEAD_BYTES] if hasattr(stream, "peek") else b""
        codec = spec.input_type.encoding or "utf-8-sig"
        # newline="": line ends kept as written (a quoted field's own, \r\n), as csv wants
        lines: Any = io.TextIOWrapper(
            stream, codec, "surrogateescape" if codec == "utf-8-sig" else "replace", newline=""
        )
        name = spec.path.lower()
        for suffix in (".gz", ".bz2", ".xz", ".zst", ".zstd"):
            name = name.removesuffix(suffix)
        sep = _separator(name, head.decode("utf-8-sig", "replace"))
        # Web of Science's tab-delimited text quotes nothing: a '"' is a character of its field
        rows = _rows(lines, sep, config.max_record_bytes, quoted=not name.endswith(TAB_TEXT))
        # the header: the first row naming a field asked for, after a preamble of a few rows
        for _ in range(PREAMBLE_ROWS + 1):
            first = next(rows, None)
            if first is None:
                return
            n0, header, header_raw = first
            if isinstance(header, str):
                raise InputError(f"its header row is {header}")
            if config.text_field in header or config.id_field in header:
                break
        else:
            raise InputError(f"no column {config.text_field!r} or {config.id_field!r} in the header")
        text_col = header.index(config.text_field) if config.text_field in header else None
        id_col = header.index(config.id_field) if config.id_field in header else None
        row_name = "row.tsv" if sep == "\t" else "row.csv"
        preface = header_raw if header_raw.endswith("\n") else header_raw + "\n"
        ragged = FlaggedRows(spec.source, RAGGED)
        repeated = FlaggedRows(spec.source, f"{DUPLICATE_ID} (column {config.id_field!r})")
        ids: set[int] = set()
        done = 0
        for n, cells, row in rows:
            n -= n0  # rows count from the header
            nbytes = len(row.encode("utf-8", "surrogateescape"))
            result.bytes_read += nbytes
            done += nbytes
            if done >= 1 << 20:
                disk(done, 0)
                done = 0
            if isinstance(cells, str):
                skipped.add("row", n, cells)
                continue
            if not cells:
                continue  # a blank line
            if len(cells) != len(header):
                # An unquoted separator inside a field (Scopus writes them) moves every cell after
                # it: no cell is known to be the id, a field or the text, so none is taken by
                # position; the row is a record of its own, searched whole in the CSV syntax.
                # Nor is its header read before it: a cell under the DOI heading may be another's.
                ragged.add(n)
                meta = from_record({}, config.record_fields) if config.record_fields else ()
                yield Record(f"row {n}", row, None, meta, row_name)
                continue
            # an empty id cell names no record: the row is named by its number, as without the column
            cell = cells[id_col] if id_col is not None else ""
            rid = display_name(cell) if cell else f"row {n}"
            if cell and len(ids) < MAX_IDS:
                key = hash(cell)
                if key in ids:
                    repeated.add(n)
                ids.add(key)
            meta = (
                from_record(dict(zip(header, cells, strict=True)), config.record_fields)
                if config.record_fields
                else ()
            )
            if text_col is None:
                # read in the CSV syntax (a name that tells it), behind its header
                yield Record(rid, row, None, meta, row_name, preface)
            else:
                yield Record(rid, cells[text_col], None, meta)
        disk(done, 0)
        ragged.close(result)
        repeated.close(result)


FORMAT = Format("csv", tell, None, records, suffixes=NAMES)
