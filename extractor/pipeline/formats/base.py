"""What an input format is to the pipeline: how it is told, planned into shards and read into
documents (the `Format` record each format module fills in), and what its readers share."""

from collections.abc import Callable, Iterator
from typing import Any, BinaryIO, NamedTuple

from ..io.cuts import GzipPlan
from ..io.decode import HEAD_BYTES
from ..provenance import Meta
from ..units import InputType, Progress, ScanConfig, ShardResult, ShardSpec


class StreamedText:
    """The text of a record too large to hold, decoded chunk by chunk (a chunk may be given as
    bytes of valid UTF-8, cut at a character boundary: an archive member's, not decoded).

    `rid` is the record id when it stands before the text; it is filled in after the text was
    read when it stands after it, and is `line_id` (its line) when the record has none.
    """

    def __init__(self, rid: str | None, chunks: Iterator[str | bytes], meta: Meta = ()) -> None:
        self.rid = rid
        self.chunks = chunks
        self.line_id: str | None = None
        self.meta = meta  # provenance fields found before the text (JSONL: after it, see jsonl.py)


class FileText:
    """A document that is a file's bytes though it is not a file on disk (an archive member):
    read as a text file is — transcoded where it declares another encoding, offsets in bytes,
    lines counted — so that its rows are those the same bytes give as a file. `stream` is
    binary with `peek`, read by the consumer before the next record."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream


class Record(NamedTuple):
    """One document of a record format."""

    rid: str | None  # its record id (None: named by the shard, or the file's only document)
    text: str | StreamedText | FileText
    kind: str | None  # None: decided on its text (and `name`), or by --kind
    meta: Meta = ()  # its provenance values, in ScanConfig.record_fields' order
    # the file name it had (an archive member's): its kind and source syntax are told by it as
    # a file's are (spec §7: a `.bib` member is BibTeX); None: by its text alone
    name: str | None = None
    # text read before its own and not searched for hits, which its syntax needs (a CSV row's
    # header line: §7's DOI column); offsets count from the end of it
    preface: str = ""


class Records(NamedTuple):
    """Consecutive records given at once (a Parquet batch, a block of JSONL lines): each a text
    held whole, of no kind, name or preface of its own, so that the shard can read them as one
    batch with no Python work per record beyond the reader's."""

    rids: list[str | None]
    # a list of str, or an Arrow string array of valid UTF-8 with no nulls (a Parquet batch's
    # column: read in C from its buffers, no Python object per text)
    texts: Any
    metas: list[Meta]  # per record, in ScanConfig.record_fields' order


def each_record(items: Iterator[Record | Records]) -> Iterator[Record]:
    """A format's records one by one, its batches taken apart (for a reader that wants each)."""
    for item in items:
        if isinstance(item, Records):
            texts = item.texts if isinstance(item.texts, list) else item.texts.to_pylist()
            for rid, text, meta in zip(item.rids, texts, item.metas, strict=True):
                yield Record(rid, text, None, meta)
        else:
            yield item


class PlanInput(NamedTuple):
    """A large input file as the planner opened it, to be planned into shards."""

    f: BinaryIO  # the file as stored, seekable
    path: str
    source: str  # as the user named it
    size: int
    input_type: InputType  # what it is (formats.tell_input)
    head: bytes  # its first bytes as stored (read.FORMAT_HEAD of them)
    config: ScanConfig


class Planned(NamedTuple):
    """How a file is cut into shards: its parts — byte ranges [start, stop) (stop -1: to the
    end) or row groups (g, g) — and, per part, its first line (JSONL ranges name their records
    by line); `input_type` when the plan told more of the file than the planner knew (a text's kind
    and syntax, on its head: decode.text_input_type). A gzip file cut in ranges of its text
    (io/seekgz.py) has each part's seek points in `seeks` and its text's size in `text_size`."""

    parts: list[tuple[int, int]] | tuple[tuple[int, int], ...] = ((0, -1),)
    line0: list[int] | tuple[int, ...] = ()
    input_type: InputType | None = None
    seeks: list[bytes] | tuple[bytes, ...] = ()
    text_size: int = -1
    # a pass over a large compressed file to run before its ranges are known (split_gzip): the
    # file is one shard until it has run and said otherwise
    then: "GzipPass | None" = None


class GzipPass(NamedTuple):
    """A pass over a large gzip or bzip2 file (seekgz.plan_ranges's arguments), run where the
    engine runs its work (a cluster's worker reads the file, several files at once), and what
    makes the file's plan of the pass's ranges."""

    args: tuple[Any, ...]
    finish: Callable[[GzipPlan], Planned]

    @property
    def compression(self) -> str:
        """The file's compression (the pass's fourth argument)."""
        return str(self.args[3])


def split_gzip(inp: PlanInput, finish: Callable[[GzipPlan], Planned]) -> Planned:
    """A large gzip or bzip2 input's text to be cut in byte ranges at line ends (io/seekgz.py),
    where that can be: rapidgzip installed, a scan (not find's ranges, which read a file as
    stored), not refused (ScanConfig.split_gzip False); else one shard. The pass is left to the
    planner's caller (GzipPass), who also decides where it is not asked for; the file may be
    local or an object in a store, its ranges' seek points travel in their shards' plans."""
    from ..io import seekgz

    if (
        inp.input_type.compression not in seekgz.SPLIT_WORKERS
        or inp.config.split_gzip is False
        or not inp.config.out
        or not seekgz.available(inp.input_type.compression)
    ):
        return Planned()
    args = (inp.path, inp.config.shard_size, HEAD_BYTES, inp.input_type.compression)
    return Planned(then=GzipPass(args, finish))


class Format(NamedTuple):
    """One input format: a row of the registry (formats/__init__.py).

    - `tell(name, head, text_field, id_field)`: whether a file is of this format, from its
      lower-case name without a compression suffix and its first decompressed bytes (asked in
      registry order), and the record fields asked for (a CSV naming one is a record file);
    - `plan(input)`: how a large file of it is cut into shards (None: one shard); it may raise
      InputError to reject the file;
    - `records(spec, config, result, progress, skipped)`: its documents, one per record, or
      consecutive records of text alone as one `Records` (None: the file is one text, read in
      windows by search.py);
    - `names`: file names planned by their contents whatever their size (a Parquet file is a
      shard per row group);
    - `ranges`: its shards are byte ranges of the file (read from `start` to `stop`);
    - `extra`: the package extra its reader needs, if any;
    - `needs`: the module that extra brings, checked before a run reads anything (a run that
      cannot read its inputs stops at once, never a rejected input per file);
    - `suffixes`: names its files have (without a compression suffix), for that check on the
      small files the planner does not open (the format itself is told by content).
    """

    name: str
    tell: Callable[[str, bytes, str, str], bool]
    plan: Callable[[PlanInput], Planned] | None = None
    records: (
        Callable[[ShardSpec, ScanConfig, ShardResult, Progress, "SkippedRecords"], Iterator[Record | Records]]
        | None
    ) = None
    names: tuple[str, ...] = ()
    ranges: bool = False
    extra: str | None = None
    needs: str | None = None
    suffixes: tuple[str, ...] = ()


class SkippedRecords:
    """The records of one input that had no text: counted, the first few named (a malformed
    line was only a count in _run.json)."""

    SHOWN = 5

    def __init__(self, source: str, result: ShardResult, before: Callable[[], int] | None = None) -> None:
        self.source = source
        self.result = result
        self.count = 0
        self.first: list[dict[str, Any]] = []
        # how many records (lines) come before this shard's, asked once, when one is named
        self.before = before
        self._base: int | None = None

    def add(self, unit: str, number: int, reason: str) -> None:
        self.count += 1
        if len(self.first) < self.SHOWN:
            if self._base is None:
                self._base = self.before() if self.before is not None else 0
            self.first.append({unit: number + self._base, "reason": str(reason)})

    def close(self) -> None:
        if self.count:
            self.result.skipped_records += self.count
            self.result.skipped.append({"source": self.source, "records": self.count, "first": self.first})


class FlaggedRows:
    """Rows of one input read in a way its user must know of — a field count not its header's, an
    id another row holds too —: counted, the first few row numbers kept, said once per input
    (ShardResult.notes, _run.json's `input_notes`)."""

    SHOWN = 5

    def __init__(self, source: str, what: str) -> None:
        self.source = source
        self.what = what
        self.count = 0
        self.first: list[int] = []

    def add(self, row: int) -> None:
        self.count += 1
        if len(self.first) < self.SHOWN:
            self.first.append(row)

    def close(self, result: ShardResult) -> None:
        if self.count:
            result.notes.append(
                {"source": self.source, "what": self.what, "rows": self.count, "first": self.first}
            )
