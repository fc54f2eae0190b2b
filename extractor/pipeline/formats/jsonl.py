"""JSON Lines (dolma, datatrove, peS2o; `.jsonl`, `.ndjson`, or `*.json.gz` whose first line is a
record with the text field): a document per record, its text field searched, its id and
provenance fields kept. Lines are parsed by orjson when installed (the `fast` extra), the stdlib
reading every line orjson refuses, so both give the same records; a line too long to hold has its
text streamed (StreamedText). This module is the format's row; jsonlines.py reads the lines."""

from __future__ import annotations

from collections.abc import Iterator

from ..errors import InputError
from ..io import remote
from ..io.cuts import GzipPlan
from ..io.read import byte_range, line_ranges, lines_at, lines_before, open_counted
from ..io.streams import ReadTap, limited
from ..provenance import field_of
from ..units import Progress, ScanConfig, ShardResult, ShardSpec
from .base import Format, PlanInput, Planned, Record, Records, SkippedRecords, StreamedText, split_gzip

NAMES = (".jsonl", ".ndjson", ".jsonlines")


def tell(name: str, head: bytes, text_field: str, id_field: str) -> bool:
    """By name, or by a first line that is a JSON object holding the text field (dolma's and
    datatrove's `*.json.gz`)."""
    if name.endswith(NAMES):
        return True
    if not head.startswith(b"{"):
        return False
    from .jsonlines import load_json_line  # a head that may be JSON

    end = head.find(b"\n")
    try:
        first = load_json_line(head if end < 0 else head[:end])
    except ValueError:  # not JSON, or a line longer than the head
        return False
    return isinstance(first, dict) and bool(field_of(first, text_field)[0])


def plan(inp: PlanInput) -> Planned:
    """An uncompressed file in byte ranges cut at line ends, each with its first line number (a
    record without an id is named by its line): one pass over a local file at memchr speed. A
    compressed stream can only be decompressed from its start: one shard.

    A file of a few ranges whose first record has an id is planned without that pass (-1: the
    shard counts the lines before its range itself, when it names a record or a skipped line by
    its line, which records with ids seldom need): the pass was a tenth of a records run's time.
    Not a file of many ranges, where shards that each counted their way from the file's start
    would read it over and over."""
    if inp.input_type.compression is not None:
        return split_gzip(inp, _gzip_ranges)  # a large gzip file: ranges of its text (io/seekgz.py)
    parts = line_ranges(inp.f, inp.size, inp.config.shard_size)
    cuts = [a for a, _ in parts]
    lazy = remote.is_url(inp.path) or (
        len(cuts) <= LAZY_LINE_RANGES and _first_has_id(inp.head, inp.config.id_field)
    )
    line0 = [-1] * len(cuts) if lazy else lines_at(inp.f, cuts)
    return Planned(parts, line0)


def _gzip_ranges(split: GzipPlan) -> Planned:
    """A gzip file's plan of its pass's ranges: records named by their lines from the pass's
    count."""
    return Planned(split.parts, split.line0, seeks=split.seeks, text_size=split.size)


# The most ranges a file may have and its shards still count the lines before their own: at
# most this many passes over the ranges before, when every shard names a record by its line.
LAZY_LINE_RANGES = 8


def _first_has_id(head: bytes, id_field: str) -> bool:
    """Whether the first line of a file's head is a JSON object with a value in its id field."""
    from .jsonlines import load_json_line

    end = head.find(b"\n")
    try:
        first = load_json_line(head if end < 0 else head[:end])
    except ValueError:
        return False
    return isinstance(first, dict) and field_of(first, id_field)[1] is not None


def records(
    spec: ShardSpec, config: ScanConfig, result: ShardResult, progress: Progress, skipped: SkippedRecords
) -> Iterator[Record | Records]:
    """The records of a JSONL file or byte range of one; a line with no text is skipped and
    named by its line, counted from the file's first line (the planner counted the lines before a
    local range; this shard counts them when it names one)."""
    from .jsonlines import CRun, MissingField, Skipped, iter_jsonl_blocks  # with the first JSONL read

    ranged = spec.start > 0 or spec.stop >= 0
    base: list[int] = [spec.line0] if spec.line0 >= 0 else []

    def lines_first() -> int:
        if not base:
            base.append(lines_before(spec.path, spec.start))
        return base[0]

    def line_name(n: int) -> str:
        """A record without an id is named by its line, never merged with the file's others."""
        return f"line {n + (lines_first() if ranged else 0)}"

    if ranged:
        skipped.before = lines_first
        if spec.seek_points:  # a range of a gzip file's text, from its seek points
            from ..io import seekgz

            raw = stream = limited(
                seekgz.open_at(spec.path, spec.seek_points, spec.start), spec.stop - spec.start
            )
        else:
            raw = stream = byte_range(spec.path, spec.start, spec.stop)
        disk = progress
    else:
        raw, stream, disk = open_counted(
            spec.path, spec.input_type.compression, progress, result.text_cut(spec.source)
        )
    with raw, stream:

        def counted(data: bytes) -> None:
            result.bytes_read += len(data)
            disk(len(data), 0)

        counting = ReadTap(stream, counted)
        texts = missing = 0
        for block in iter_jsonl_blocks(
            counting, config.text_field, config.id_field, config.max_record_bytes, config.record_fields
        ):
            # the block's records held whole, given as one batch
            batch: Records = Records([], [], [])
            if isinstance(block, CRun):
                texts += len(block.rids)
                yield Records(
                    [
                        line_name(n) if rid is None else rid
                        for rid, n in zip(block.rids, block.lines, strict=True)
                    ],
                    block.texts(),
                    block.metas,
                )
                continue
            for rid, text, n, meta in block:
                if isinstance(text, Skipped):
                    skipped.add("line", n, text)
                    missing += isinstance(text, MissingField)
                    continue
                texts += 1
                if rid is None:
                    line_id = line_name(n)
                    if isinstance(text, StreamedText):
                        text.line_id = line_id  # its id may still stand after its text
                    else:
                        rid = line_id
                if isinstance(text, StreamedText):
                    if batch.texts:
                        yield batch
                        batch = Records([], [], [])
                    yield Record(rid, text, None, meta)
                    continue
                batch.rids.append(rid)
                batch.texts.append(text)
                batch.metas.append(meta)
            if batch.texts:
                yield batch
        if texts == 0 and missing:
            raise InputError(f"no record has a {config.text_field!r} field")


FORMAT = Format("jsonl", tell, plan, records, ranges=True)
