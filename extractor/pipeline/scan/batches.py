"""Records read as one batch: records of no kind, name or preface of their own, with no
occurrences asked for, are gathered (BATCH_RECORDS of them, or BATCH_CHARS of text) and read into
one mention table keyed by record — the texts that are plainly prose by one C call a run of them,
from a list of str or an Arrow column's buffers, any other alone — their rows handed on as Arrow
columns (DocBatch). Also the Arrow batch API's and DuckDB's reading (texts_mentions)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...match import native
from ...match.kinds import kind_of
from ..io.decode import HEAD_BYTES
from ..table import Columns, Mentions, MentionTable
from ..units import DocBatch, InputType, MetaValues, ScanConfig, ShardResult, ShardSpec, no_progress
from .reading import Reading, match_text

# texts_mentions lists no occurrence: a batch is read only where none is asked for
_NO_OCCURRENCES: Any = None


# A batch of records (this module's, not a format's): at most this many, or this many characters
# of text, are read before their rows are handed on.
BATCH_RECORDS = 4096
BATCH_CHARS = 8 << 20


class Batch:
    """Records gathered to be read as one batch (batch_docs): their ids and provenance, and their
    texts in runs — lists of str, or Arrow string arrays as a Parquet reader gives them."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.number = 0
        self.runs: list[Any] = []
        self.count = 0
        self.rids: list[str | None] = []
        self.metas: list[MetaValues] = []
        self.chars = 0

    def _list_run(self) -> list[str]:
        """The last run of texts when it is a list of str, else a new one."""
        if not self.runs or not isinstance(self.runs[-1], list):
            self.runs.append([])
        run: list[str] = self.runs[-1]
        return run

    def _full(self) -> bool:
        return self.count >= BATCH_RECORDS or self.chars >= BATCH_CHARS

    def add(self, number: int, text: str, rid: str | None, meta: MetaValues) -> bool:
        """Gather one record; True when the batch is full."""
        if not self.count:
            self.number = number
        self._list_run().append(text)
        self.count += 1
        self.rids.append(rid)
        self.metas.append(meta)
        self.chars += len(text)
        return self._full()

    def extend(self, number: int, rids: list[str | None], texts: Any, metas: list[MetaValues]) -> bool:
        """Gather a reader's batch of records (formats.Records: their texts a list of str or an
        Arrow string array); True when the batch is full."""
        if not self.count:
            self.number = number
        if isinstance(texts, list):
            self._list_run().extend(texts)
            self.chars += sum(map(len, texts))
        else:
            self.runs.append(texts)
            self.chars += texts.nbytes
        self.count += len(texts)
        self.rids += rids
        self.metas += metas
        return self._full()


def prose_in_c(
    kind: str | None, syntax: str | None, allow_other_prefix: bool, derive: tuple[str, ...]
) -> bool:
    """Whether the texts of a batch read in this kind and syntax (None: each text's own) that are
    plainly prose are read in C, a run of them a call: plain text's C reading, nothing derived,
    no other prefix."""
    return (
        native.HAVE_C
        and not derive
        and not allow_other_prefix
        and (kind is None or kind_of(kind).c_entry == "scan")
        and syntax in (None, "auto", "none")
    )


def prose_sniffs(kind: str | None, syntax: str | None) -> tuple[int, bool, bool]:
    """What the C prose test reads of each text (native.scan_texts' head, sniff_kind and
    sniff_syntax): its kind's marks unless the kind is forced, its syntaxes' unless "none"."""
    return HEAD_BYTES, kind is None, syntax != "none"


def batch_docs(r: Reading, batch: Batch, table: MentionTable) -> Iterator[DocBatch]:
    """The mentions of a batch of records (of no kind or name of their own, nothing before their
    text, no occurrences asked), read into one table keyed by record: the texts that are plainly
    prose in one C call a run of them (native.scan_texts, scan_arrow_texts), any other by
    records.match_text, as records.record_chunk reads it, in the records' order. The rows are handed on
    whenever the table holds config.max_mentions (a batch of reference lists holds hundreds of
    thousands of distinct DOIs), and at the end; the batch is emptied."""
    spec, config, result = r.spec, r.config, r.result
    in_c = prose_in_c(spec.kind, config.syntax, config.allow_other_prefix, config.derive)
    sniffs = prose_sniffs(spec.kind, config.syntax)
    limit = config.max_mentions

    def rows() -> DocBatch:
        cols = table.take_columns(config.buckets, True)
        return DocBatch(spec.source, batch.number, batch.rids, batch.metas, Columns(*cols[:-1]), cols[-1])

    doc = 0
    for texts in batch.runs:
        n = len(texts)
        arrow = None if isinstance(texts, list) else texts.buffers()
        i = 0
        while i < n:
            if in_c:
                if arrow is None:
                    i, reported, too_long = native.scan_texts(texts, i, table, *sniffs, doc, limit)
                else:
                    import pyarrow as pa  # loaded already: the reader gave an Arrow array

                    large = pa.types.is_large_string(texts.type)
                    i, reported, too_long = native.scan_arrow_texts(
                        arrow[1], arrow[2], texts.offset, n, large, i, table, *sniffs, doc, limit
                    )
                result.hits += reported
                result.too_long += too_long
                r.progress(0, reported)
                if len(table) >= limit:
                    yield rows()
                    continue
                if i == n:
                    break
            table.set_doc(doc + i)
            text = texts[i] if arrow is None else texts[i].as_py()
            match_text(r, text, None, table, None)
            i += 1
            if len(table) >= limit:
                yield rows()
        doc += n
    yield rows()  # the last rows, or none: the batch's records are numbered all the same
    batch.clear()


def texts_mentions(texts: Any, config: ScanConfig, result: ShardResult) -> Iterator[DocBatch]:
    """The mentions of a run of record texts — a list of str, or an Arrow string array of valid
    UTF-8 with no nulls — read as a scan reads a batch of records of no name of their own
    (batch_docs: in the kind config.kind forces, else each its own), each row keyed by its
    text's place in the run (DocBatch.docs); one batch at least, the last perhaps of no rows.
    The Arrow batch API's and DuckDB's reading."""
    batch = Batch()
    n = len(texts)
    batch.extend(0, [None] * n, texts, [()] * n)
    spec = ShardSpec(0, "", "", InputType("records", kind=config.kind))
    yield from batch_docs(Reading(spec, config, no_progress, result, _NO_OCCURRENCES), batch, Mentions())
