"""CSV and TSV (spec §7; RFC 4180): a DOI never crosses a field delimiter outside quotes; inside
a quoted field `""` is a `"`. The delimiter — `,` `;` TAB or `|` — is told from the first lines.
A cell in a column headed `DOI` (any case) or `DI` (Web of Science's tag) holds one DOI, read as
after a label."""

from __future__ import annotations

from ..html import View

_DELIMITERS = ("\t", ",", ";", "|")
_DOI_HEADERS = frozenset({"doi", "di"})


def delimiter(doc: str) -> str:
    """The delimiter of a CSV text: the candidate found on every one of its first lines (outside
    quotes), the most often; a comma when none is."""
    lines = [line for line in doc[:65536].splitlines()[:10] if line.strip()]
    best, best_count = ",", 0
    for d in _DELIMITERS:
        counts = [_outside_quotes(line).count(d) for line in lines]
        if counts and min(counts) > 0 and min(counts) > best_count:
            best, best_count = d, min(counts)
    return best


def _outside_quotes(line: str) -> str:
    return "".join(part for i, part in enumerate(line.split('"')) if i % 2 == 0)


def views(doc: str) -> list[View]:
    """One view: each field's text (unquoted) between boundaries; a DOI column's cells behind
    a label."""
    view = View()
    sep = delimiter(doc)
    n = len(doc)
    pos = 0
    col = 0
    row = 0
    header: list[str] = []
    doi_cols: set[int] = set()
    field_end = _Ends(doc, sep)
    while pos <= n:
        # one field from pos: quoted, or up to the next delimiter or line end
        cell_text: list[str] = []
        if pos < n and doc[pos] == '"':
            view.atomic("", pos, 1)
            i = pos + 1
            start = i
            if col in doi_cols:
                view.linear("doi:", start)
            while i < n:
                q = doc.find('"', i)
                if q < 0:
                    view.linear(doc[i:], i)
                    cell_text.append(doc[i:])
                    i = n
                    break
                view.linear(doc[i:q], i)
                cell_text.append(doc[i:q])
                if doc.startswith('""', q):
                    view.atomic('"', q, 2)
                    cell_text.append('"')
                    i = q + 2
                    continue
                view.atomic("", q, 1)
                i = q + 1
                break
            # anything after the closing quote, up to the delimiter, is text of the field
            end = field_end(i)
            view.linear(doc[i:end], i)
        else:
            end = field_end(pos)
            if col in doi_cols and end > pos:
                view.linear("doi:", pos)
            view.linear(doc[pos:end], pos)
            cell_text.append(doc[pos:end])
        if row == 0:
            header.append("".join(cell_text).strip().strip("\ufeff").lower())
        if end >= n:
            break
        if doc[end] == sep:
            view.atomic("\n", end, 1)
            col += 1
            pos = end + 1
            continue
        # a line end: the next record
        eol = 2 if doc.startswith("\r\n", end) else 1
        view.atomic("\n", end, eol)
        pos = end + eol
        if row == 0:
            doi_cols = {i for i, h in enumerate(header) if h in _DOI_HEADERS}
        row += 1
        col = 0
    return [view.finish()]


class _Ends:
    """Where unquoted fields end — the next delimiter or line end, or the text's end — each
    kind of end looked for once past the last (no scan to the text's end for every field)."""

    def __init__(self, doc: str, sep: str) -> None:
        self.doc = doc
        self.seps = (sep, "\n", "\r")
        self.next = [-1, -1, -1]  # the next of each at or after where it was last looked for

    def __call__(self, i: int) -> int:
        n = len(self.doc)
        for k, ch in enumerate(self.seps):
            if self.next[k] < i and self.next[k] != n:
                j = self.doc.find(ch, i)
                self.next[k] = n if j < 0 else j
        return min(j for j in self.next if j >= i) if any(j >= i for j in self.next) else n
