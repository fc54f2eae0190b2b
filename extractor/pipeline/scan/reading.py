"""What a shard reads an input with, as one value (Reading), and the core of every document's
reading: a source's windows searched by the matcher of the document's kind into a mention
table, its rows handed on in chunks as they grow (each hit listed too, with occurrences); a
record's text held whole searched in one call (match_text)."""

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from ...match.native import CHit
from ..io.decode import HEAD_BYTES, clean, detect_kind
from ..table import Mentions, MentionTable
from ..units import Chunk, Progress, ScanConfig, ShardResult, ShardSpec, take_chunk
from .matchers import document_syntax, match_record, matcher_for, prefaced
from .windows import scan_windows

if TYPE_CHECKING:
    # the scan's sink, which needs pyarrow: `find` reads through these modules without it
    from .sinks import OccurrenceSink


class Reading(NamedTuple):
    """One input of a shard as it is read: the input (a file, a byte range of one, a row group, a
    group's file), the scan's configuration, where progress goes, what the shard counts, and
    where each hit goes when occurrences are asked for."""

    spec: ShardSpec
    config: ScanConfig
    progress: Progress
    result: ShardResult
    occurrences: "OccurrenceSink"

    def with_progress(self, progress: Progress) -> "Reading":
        """The same reading, reporting its progress elsewhere."""
        return self._replace(progress=progress)

    def hits(self) -> list[CHit] | None:
        """A list for each hit of a document, where occurrences are asked for, else None."""
        return [] if self.config.occurrences else None


def chunks(
    r: Reading,
    source: Any,
    kind: str,
    record: str | None = None,
    range_lo: int = 0,
    range_hi: int | None = None,
    chars: bool = False,
    syntax: str | None = None,
) -> Iterator[Chunk]:
    """The mention chunks of one document (of `record`, None for a text file's) read window by
    window from `source`, its hits listed as occurrences as they go."""
    table = Mentions()
    hits = r.hits()
    match = matcher_for(kind, r.config.allow_other_prefix, table, hits, syntax, r.config.derive)
    found = scan_windows(source, match, r.result, r.progress, range_lo, range_hi, chars)
    yield from drain(r, found, table, hits, record)


def drain(
    r: Reading, found: Iterator[int], table: MentionTable, hits: list[CHit] | None, record: str | None
) -> Iterator[Chunk]:
    """The mention chunks of a scan in windows (which yields after each window): the table's rows
    whenever it holds config.max_mentions, and at the end; each hit recorded as an occurrence."""
    for _ in found:
        if hits:
            r.occurrences.add_c_hits(hits, r.spec.source, record)
            hits.clear()
        if len(table) >= r.config.max_mentions:
            yield take_chunk(table, r.config.buckets)
    yield take_chunk(table, r.config.buckets)


def match_text(
    r: Reading,
    text: str,
    kind: str | None,
    table: MentionTable,
    hits: list[CHit] | None,
    name: str | None = None,
    preface: str = "",
) -> None:
    """Count a record's hits (its text held whole: one window, one call) in `table`, its kind
    and syntax told by its name (an archive member's) and head; offsets count characters."""
    config, result = r.config, r.result
    text, bad = clean(text)  # invalid bytes of the record (see formats/jsonl.py)
    result.invalid_bytes += bad
    syntax = document_syntax(config.syntax, name, preface + text[:HEAD_BYTES], result)
    kind = kind or r.spec.kind or (detect_kind(name, text[:HEAD_BYTES]) if name else None)
    data, skip = prefaced(text, preface)
    reported, too_long = match_record(
        data, kind, config.allow_other_prefix, table, hits, syntax, skip, config.derive
    )
    result.too_long += too_long
    result.hits += reported
    r.progress(0, reported)
