"""A record's reading (a JSONL line, a Parquet row, a WARC or archive member, a wiki page): its
text held whole and read in one call, or read in windows where it is too large to hold (a
streamed text) or a file's bytes (an archive member); its kind and source syntax told by its
name and head, offsets in characters (in bytes, lines counted, for a member read as a file)."""

from __future__ import annotations

from collections.abc import Iterator

from ...match.native import CHit
from ..formats import FileText, StreamedText
from ..io.decode import clean, detect_kind
from ..table import MentionTable
from ..units import Chunk, MetaValues, take_chunk
from .matchers import document_syntax
from .reading import Reading, chunks, match_text
from .text import stream_source
from .windows import StreamSource


def streamed_record_chunks(
    r: Reading, text: StreamedText, kind: str | None = None, name: str | None = None
) -> Iterator[Chunk]:
    """A record too large to hold: its text is read in windows, like a file; offsets count
    characters. Its kind and syntax are told by its name (an archive member's) and head."""
    source = streamed_source(text)
    kind = kind or r.spec.kind or detect_kind(name, source.head)
    syntax = document_syntax(r.config.syntax, name, source.head, r.result)
    yield from chunks(r, source, kind, text.rid, chars=True, syntax=syntax)


def file_text_chunks(
    r: Reading, text: FileText, rid: str | None, kind: str | None, name: str | None
) -> Iterator[Chunk]:
    """A file's bytes that are not a file on disk (an archive member), read as a text file's
    stream is (stream_source): offsets in bytes, lines counted. Its bytes were counted as the
    container's, in progress (hits only here)."""
    src = stream_source(text.stream, r.config.block_size)
    k = kind or r.spec.kind or detect_kind(name or "", src.head)
    syntax = document_syntax(r.config.syntax, name, src.head, r.result)
    progress = r.progress

    def hits_only(nbytes: int, nhits: int) -> None:
        progress(0, nhits)

    yield from chunks(r.with_progress(hits_only), src, k, rid, syntax=syntax)


def streamed_source(text: StreamedText) -> StreamSource:
    """A record too large to hold as a source of windows: its text, cleaned, in UTF-8 (a chunk
    given as bytes is valid UTF-8 already)."""
    return StreamSource.of_blocks(
        t if isinstance(t, bytes) else clean(t)[0].encode("utf-8") for t in text.chunks if t
    )


def record_chunk(
    r: Reading,
    text: str,
    rid: str | None,
    kind: str | None,
    table: MentionTable,
    name: str | None = None,
    preface: str = "",
) -> Chunk:
    """A record's text held whole (records are many and small: one window, one call); offsets
    count characters; `table` is empty, and emptied again. Its kind and syntax are told by its
    name (an archive member's) and head."""
    hits: list[CHit] | None = r.hits()
    match_text(r, text, kind, table, hits, name, preface)
    if hits:
        r.occurrences.add_c_hits(hits, r.spec.source, rid)
    return take_chunk(table, r.config.buckets)


def citing(r: Reading, meta: MetaValues) -> MetaValues:
    """A record's values with its citing field (the last, --citing-field) read as one identifier:
    the canonical DOI, or null when it holds none (counted)."""
    config = r.config
    if config.citing_field is None:
        return meta
    if not meta:  # a record format without fields (none was found)
        meta = (None,) * len(config.record_fields)
    from ...match.identifiers import canonicalize  # the rules, loaded where a citing field is read

    doi = canonicalize(meta[-1])
    if doi is None:
        r.result.citing_without_doi += 1
    return (*meta[:-1], doi)
