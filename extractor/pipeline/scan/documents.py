"""The documents of one input of a shard with their mentions: a small text file read whole, a
text file (or a byte range of one) read in windows, or a record format's records — gathered into
batches where they are plainly texts of their own (batches.py), each read alone otherwise
(records.py). The shard (shard.py) hands what this yields to its part files."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from ...match.kinds import kind_of
from ..errors import input_errors, read_each
from ..fields import FieldCheck, asks_fields
from ..formats import FORMATS, FileText, Records, StreamedText, each_record, records
from ..table import Mentions
from ..units import Chunk, Doc, DocBatch, Progress, ScanConfig, ShardResult, ShardSpec
from .batches import Batch, batch_docs
from .reading import Reading
from .records import citing, file_text_chunks, record_chunk, streamed_record_chunks
from .text import text_chunks, typed_by_head, whole_chunk

if TYPE_CHECKING:
    from .sinks import OccurrenceSink


def input_docs(
    spec: ShardSpec, config: ScanConfig, progress: Progress, result: ShardResult, occ: OccurrenceSink
) -> Iterator[Doc | DocBatch]:
    """The documents of one input file (or byte range, or row group) with their mentions,
    numbered from 0 in the input; records of no kind or name of their own come in batches. An
    input that cannot be read raises InputError (its reading's faults only: errors.py)."""
    # one table for the input's documents, emptied by each (a table per document paid for its
    # storage again each time: a quarter of the time of a file of distinct DOIs)
    table = Mentions()
    data = None
    if not spec.fmt:
        with input_errors():
            spec, data = typed_by_head(spec, config)
        result.formats[spec.path] = spec.fmt
    r = Reading(spec, config, progress, result, occ)
    if data is not None:
        yield Doc(spec.source, None, 0, whole_chunk(r, data, table))
        return
    if FORMATS[spec.fmt].records is None:  # the file is one text, read in windows
        for chunk in text_chunks(r):
            yield Doc(spec.source, None, 0, chunk)
        return
    batch = None if config.occurrences else Batch()
    # the format's reading: its faults are the input's, what is done with each record is not
    items = read_each(records(spec, config, result, progress))
    if batch is None:
        items = each_record(items)
    # the fields a user named that no record holds are said (fields.py)
    check = FieldCheck(spec.source, config, spec.fmt) if asks_fields(config) else None
    number = 0
    for item in items:
        n = number
        if isinstance(item, Records):
            result.documents += len(item.texts)
            number += len(item.texts)
            if check is not None:
                check.see_all(item.rids, item.metas)
            if config.citing_field is not None:
                item = Records(item.rids, item.texts, [citing(r, m) for m in item.metas])
            if batch is not None and batch.extend(n, item.rids, item.texts, item.metas):
                yield from batch_docs(r, batch, table)
            continue
        number += 1
        rid, text, kind, meta, name, preface = item
        if check is not None and not isinstance(text, StreamedText):
            check.see(rid, meta)
        # a PDF's link annotations are more of the PDF before them: one document
        result.documents += kind is None or not kind_of(kind).continues
        if batch is not None:
            if kind is None and name is None and not preface and type(text) is str:
                if batch.add(n, text, rid, citing(r, meta)):
                    yield from batch_docs(r, batch, table)
                continue
            if batch.count:  # the records before this one, handed on first
                yield from batch_docs(r, batch, table)
        if isinstance(text, FileText):
            for chunk in file_text_chunks(r, text, rid, kind, name):
                yield Doc(spec.source, rid, n, chunk, citing(r, meta))
            continue
        if isinstance(text, StreamedText):
            since = len(occ)
            chunks: Iterable[Chunk] = streamed_record_chunks(r, text, kind, name)
            if text.rid is None or None in text.meta:
                # The id (or a provenance field) may stand after the text: known at its end.
                chunks = list(chunks)
                if text.rid is None:
                    text.rid = text.line_id
                occ.set_record(since, text.rid)
            if check is not None:
                check.see(text.rid, text.meta)
            text.meta = citing(r, text.meta)
            for chunk in chunks:  # when the id came first, as they come
                yield Doc(spec.source, text.rid, n, chunk, text.meta)
            continue
        yield Doc(
            spec.source, rid, n, record_chunk(r, text, rid, kind, table, name, preface), citing(r, meta)
        )
    if batch is not None and batch.count:
        yield from batch_docs(r, batch, table)
    if check is not None:
        check.close(result)
