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

from ...match.syntaxes.csvtext import delimiter
from ..decode import HEAD_BYTES, declared_encoding
from ..errors import InputError
from ..provenance import from_record
from ..read import display_name, open_counted
from ..units import Progress, ScanConfig, ShardResult, ShardSpec
from .base import Format, Record, SkippedRecords

NAMES = (".csv", ".tsv", ".tab")


def _header(head: str, sep: str) -> list[str]:
    """The cells of a CSV text's first row."""
    try:
        return next(csv.reader(iter(head.splitlines(keepends=True)), delimiter=sep, strict=False), [])
    except csv.Error:  # a NUL byte, or a first row longer than the head
        return []


def _separator(name: str, head: str) -> str:
    return "\t" if name.endswith((".tsv", ".tab")) else delimiter(head)


def tell(name: str, head: bytes, text_field: str, id_field: str) -> bool:
    """By name, and a header row naming the text or the id field."""
    if not name.endswith(NAMES):
        return False
    text = head[:HEAD_BYTES].decode("utf-8-sig", "replace")
    cells = _header(text, _separator(name, text))
    return text_field in cells or id_field in cells


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


def _rows(lines: Iterator[str], sep: str, limit: int) -> Iterator[tuple[int, list[str] | str, str]]:
    """(row number from 0, its cells — or why it has none — and its text as written) for each row:
    read by Python's csv module (RFC 4180 quoting; a quote inside an unquoted field is literal);
    a field over `limit` characters, or a quoted field still open where the text ends, gives a
    reason instead of cells."""
    csv.field_size_limit(max(csv.field_size_limit(), limit))
    taken = _Lines(lines)
    reader = csv.reader(taken, delimiter=sep, strict=False)
    n = 0
    while True:
        try:
            cells: list[str] | str = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            cells = f"not a CSV row ({exc})"
        raw = taken.row()
        if not isinstance(cells, str) and raw.count('"') % 2:  # an open quote at the end of the text?
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
    raw, stream, _comp, disk = open_counted(spec.path, progress)
    with raw, stream:
        head = stream.peek(HEAD_BYTES)[:HEAD_BYTES] if hasattr(stream, "peek") else b""
        codec = declared_encoding(head) or "utf-8-sig"
        # newline="": line ends kept as written (a quoted field's own, \r\n), as csv wants
        lines: Any = io.TextIOWrapper(
            stream, codec, "surrogateescape" if codec == "utf-8-sig" else "replace", newline=""
        )
        name = spec.path.lower()
        for suffix in (".gz", ".bz2", ".xz", ".zst", ".zstd"):
            name = name.removesuffix(suffix)
        sep = _separator(name, head.decode("utf-8-sig", "replace"))
        rows = _rows(lines, sep, config.max_record_bytes)
        first = next(rows, None)
        if first is None:
            return
        _n, header, header_raw = first
        if isinstance(header, str):
            raise InputError(f"its header row is {header}")
        text_col = header.index(config.text_field) if config.text_field in header else None
        id_col = header.index(config.id_field) if config.id_field in header else None
        if text_col is None and id_col is None:
            raise InputError(f"no column {config.text_field!r} or {config.id_field!r} in the header")
        done = 0
        for n, cells, row in rows:
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
            rid = display_name(cells[id_col]) if id_col is not None and id_col < len(cells) else f"row {n}"
            meta = (
                from_record(dict(zip(header, cells, strict=False)), config.record_fields)
                if config.record_fields
                else ()
            )
            if text_col is None:
                # read in the CSV syntax (a name that tells it), behind its header
                preface = header_raw if header_raw.endswith("\n") else header_raw + "\n"
                yield Record(rid, row, None, meta, "row.tsv" if sep == "\t" else "row.csv", preface)
            elif text_col < len(cells):
                yield Record(rid, cells[text_col], None, meta)
            else:
                skipped.add("row", n, f"{len(cells)} cells: no {config.text_field!r} cell")
        disk(done, 0)


FORMAT = Format("csv", tell, None, records, suffixes=NAMES)
