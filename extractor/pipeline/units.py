"""The typed records that flow through a scan: its configuration, the shards it is cut into,
what a shard reports, and the mention chunks a document gives."""

from array import array
from collections.abc import Callable
from typing import Any, NamedTuple, cast

from .. import __version__
from .table import Columns, Rows

# The layout of a shard's partial results (part files, marker, bucket hash): a shard completed
# under another layout is not reused, it is redone.
# A record's provenance values (provenance.meta_value): text, or numbers and booleans as typed.
MetaValues = tuple[str | int | float | bool | None, ...]
# The provenance column --citing-field fills, with the citing work's canonical DOI.
CITING_COLUMN = "citing_doi"
# After the provenance columns when --citing-field gives citing_doi: whether the cited DOI is it.
SELF_CITATION = "self_citation"
PARTS_FORMAT = 5  # 4: the first line of each mention and occurrence; 5: each bucket's byte range


class _ScanFields(NamedTuple):
    out: str
    buckets: int = 16
    occurrences: bool = False
    text_field: str = "text"
    id_field: str = "id"
    # provenance columns of mentions/: (column, field path) each (provenance.py, --meta-field)
    meta_fields: tuple[tuple[str, str], ...] = ()
    # the record field that holds the citing work's DOI (--citing-field): mentions/ then has
    # citing_doi (canonical) and self_citation
    citing_field: str | None = None
    allow_other_prefix: bool = False
    # the sources of spec §8 whose identifiers give derived DOIs (match/derive.py; --derive)
    derive: tuple[str, ...] = ()
    kind: str | None = None  # forced kind of every text input, or None to detect
    # forced source syntax (spec §7) of every document, "none" for prose, or None to detect
    syntax: str | None = None
    shard_size: int = 32 << 20  # larger uncompressed text files are split in byte ranges
    # a large gzip or bzip2 text or JSONL file in ranges of its text (io/seekgz.py): True, False,
    # or None for when the scan has seekgz.SPLIT_WORKERS workers of its compression or more
    split_gzip: bool | None = None
    # the namespaces of a MediaWiki dump whose pages are read (None: all; formats/mediawiki.py)
    wiki_namespaces: tuple[int, ...] | None = (0,)
    # ---
    block_size: int = 1 << 20  # bytes read at a time from a stream
    map_window: int = 8 << 20  # bytes of a file read and searched at a time (windows.FileSource)
    map_min: int = 4 << 20  # a smaller file is read, not mapped
    max_record_bytes: int = 16 << 20  # a longer JSONL record is streamed, not parsed whole
    flush_rows: int = 50_000  # partial rows (or occurrences) a shard holds before writing a part file
    max_mentions: int = 25_000  # distinct DOIs of one document held before they are handed on
    merge_rows: int = 100_000  # partial rows one merge holds (~0.8 KB each at peak); a larger bucket is split
    # Keep _work/ and _shards/ after a complete run, so that a rerun is incremental
    # (by default only the datasets and _run.json remain). Not part of key(): it changes no result.
    keep_work: bool = False
    # Where the shards' part files and completion markers and the merged datasets are kept when
    # not in `out`: a URL of object storage, for a cluster whose workers share no folder with
    # the client or each other (shard.work, out/parts.ship). Not part of key().
    work: str = ""


class ScanConfig(_ScanFields):
    """What a scan does, built by keyword (the CLI builds one from its arguments, tests and
    library users directly). The sizes below the line bound memory; tests make them small to
    put every window, flush and chunk boundary in a small input. An immutable record, handed to
    the workers as it is (_replace makes one changed)."""

    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> "ScanConfig":
        self = super().__new__(cls, *args, **kwargs)
        for name in (
            "buckets",
            "shard_size",
            "block_size",
            "map_window",
            "flush_rows",
            "max_mentions",
            "merge_rows",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive, not {getattr(self, name)}")
        if self.work and "://" not in self.work:
            raise ValueError(f"work must be a URL of object storage (s3://…), not {self.work!r}")
        return self

    @property
    def record_fields(self) -> tuple[tuple[str, str], ...]:
        """The fields read from each record: the provenance fields, then the citing field."""
        if self.citing_field is None:
            return self.meta_fields
        return (*self.meta_fields, (CITING_COLUMN, self.citing_field))

    @property
    def meta_columns(self) -> tuple[str, ...]:
        """The provenance columns mentions/ has after its own (citing_doi last, when asked)."""
        return tuple(name for name, _ in self.record_fields)

    def key(self) -> str:
        """What a shard's results depend on besides its input: a completed shard is reused only
        by a run with the same key."""
        import json  # here: a scan's key, which `find` never asks for

        ident = json.dumps(
            [
                __version__,
                PARTS_FORMAT,
                self.kind,
                self.syntax,
                self.text_field,
                self.id_field,
                self.meta_fields,
                self.citing_field,
                self.occurrences,
                self.buckets,
                self.allow_other_prefix,
                self.wiki_namespaces,
                *([self.derive] if self.derive else []),
            ]
        )
        import hashlib  # OpenSSL's, loaded where a shard is named

        return hashlib.blake2b(ident.encode(), digest_size=6).hexdigest()


class InputType(NamedTuple):
    """What an input is — format, compression, declared encoding, kind, source syntax — decided
    once and carried down the stages, so that no stage asks again what another knows: its
    format, compression and encoding at planning (formats.tell_input; a small file's by its
    shard, from its first bytes), a text's kind and syntax then from its text's first bytes
    (decode.text_input_type), by the planner where it read them or by the shard that starts it."""

    fmt: str  # a name in formats.FORMATS; "group" for a group's shard, "" for its file not yet told
    compression: str | None = None  # gzip, bzip2, xz, zstd, or None
    encoding: str | None = None  # the encoding a text declares when not UTF-8: it is read transcoded
    # plain, html or pdf: forced (--kind) or told by a text's head; None: not yet told (a
    # record format's documents: each its own)
    kind: str | None = None
    # the source syntax (spec §7), "" for prose; None: not yet told (a record's: its own)
    syntax: str | None = None


class ShardSpec(NamedTuple):
    """A unit of work: a whole file, a byte range of one, a Parquet row group, or a group of
    small files (each its own document), so that a tree of millions of files is not millions
    of shards."""

    index: int  # type: ignore[assignment]  # the field shadows tuple.index, never called on it
    source: str  # the input path as given
    path: str
    input_type: InputType  # what the input is, as far as planning told it
    start: int = 0  # byte range for text; row group for parquet
    stop: int = -1
    key: str = ""
    # a group of small files: (source, path, format), the format "" until the shard tells it
    files: tuple[tuple[str, str, str], ...] = ()
    # lines of the file before a JSONL byte range (its records' line numbers); -1: not counted
    # at planning (an object in a store, read by range only), counted by the shard when needed
    line0: int = 0
    size: int = -1  # the bytes of its file(s) at planning (-1: not known)
    # a gzip file's seek points for this range (io/seekgz.py): [start, stop) is of its text
    seek_points: bytes = b""

    @property
    def fmt(self) -> str:
        """Its format (InputType.fmt)."""
        return self.input_type.fmt

    @property
    def kind(self) -> str | None:
        """Its text's kind, forced or told (InputType.kind)."""
        return self.input_type.kind

    def inputs(self) -> list["ShardSpec"]:
        """The inputs read one after the other: the files of a group, or the shard itself."""
        kind = self.input_type.kind
        return [
            ShardSpec(self.index, s, p, InputType(f, kind=kind), 0, -1, self.key) for s, p, f in self.files
        ] or [self]


class ShardResult:
    """What a shard did: counts for _run.json, and the inputs it could not read. Mutable: the
    shard's readers count into it as they go; its fields (_FIELDS) are what its marker keeps."""

    __slots__ = (
        "bytes_read",
        "citing_without_doi",
        "documents",
        "error",
        "fields",
        "formats",
        "hits",
        "index",
        "invalid_bytes",
        "meta_types",
        "newlines",
        "not_text",
        "notes",
        "partial",
        "rejected",
        "seconds",
        "skipped",
        "skipped_records",
        "syntaxes",
        "tallies",
        "too_long",
    )

    # Each field's type and what it starts as (a new list or dict for each result).
    index: int
    bytes_read: int
    documents: int
    hits: int
    invalid_bytes: int
    too_long: int
    skipped_records: int
    # in the bytes the shard owns: the line numbers of later ranges start after them
    newlines: int
    skipped: list[dict[str, Any]]  # per input: how many records had no text, the first few
    error: str | None
    rejected: list[dict[str, Any]]
    seconds: float
    formats: dict[str, str]  # path -> format, of a group's files
    syntaxes: dict[str, int]  # documents read in each syntax (spec §7)
    # per provenance column, the kinds of value its records held (provenance.meta_tag): the
    # column's type in mentions/ is decided from all shards' (provenance.column_types)
    meta_types: dict[str, list[str]]
    citing_without_doi: int  # records whose citing field held no DOI
    # what a format counts of its own (archive members read and skipped, wiki pages passed over)
    tallies: dict[str, int]
    # per input, rows read in a way the user must know of (formats.base.FlaggedRows): what, how
    # many, the first few row numbers
    notes: list[dict[str, Any]]
    # inputs cut short (a partial download): what was read before the cut is kept; per input,
    # where the reading stopped (a byte of its text, a member, a record) and why
    partial: list[dict[str, str]]
    # per input, the records read and the fields a user named that none of them held ([option,
    # field] pairs: fields.FieldCheck)
    fields: dict[str, dict[str, Any]]
    # binary data walked into and passed over (archive members here; files by the run): how
    # many, and the first few names
    not_text: dict[str, Any]

    def __init__(self, index: int, **fields: Any) -> None:
        """A shard's result, every field at its start (0, None, empty) but those given by name
        (what a completion marker kept: ShardResult(**marker))."""
        unknown = fields.keys() - _STARTS.keys()
        if unknown:
            raise TypeError(f"ShardResult has no field {', '.join(sorted(unknown))}")
        self.index = index
        for name, start in _STARTS.items():
            setattr(self, name, fields[name] if name in fields else start())

    def as_dict(self) -> dict[str, Any]:
        """Its fields by name (what a completion marker keeps; ShardResult(**d) reads it back)."""
        return {name: getattr(self, name) for name in self.__slots__}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShardResult) and self.as_dict() == other.as_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"ShardResult({', '.join(f'{k}={v!r}' for k, v in self.as_dict().items())})"

    def cut_short(self, source: str, at: str, reason: str) -> None:
        """Name an input whose reading stopped early at `at`, what was read before kept."""
        self.partial.append({"source": source, "at": at, "reason": reason})

    def text_cut(self, source: str) -> Callable[[str, int], None]:
        """What a compressed input's stream tells when it is cut short (read.UntilCut)."""
        return lambda why, n: self.cut_short(source, f"byte {n} of its decompressed text", why)

    def pass_over(self, name: str) -> None:
        """Count binary data walked into (an archive's image or font member) as passed over."""
        add_passed_over(self.not_text, name)

    def tally(self, what: str, n: int = 1) -> None:
        """Count `n` more of a format's own tally."""
        self.tallies[what] = self.tallies.get(what, 0) + n


PASSED_OVER_SHOWN = 10  # names of binary data passed over kept in _run.json's skipped_binary


def add_passed_over(tally: dict[str, Any], name: str, n: int = 1) -> None:
    """Count `n` binary inputs (or members) passed over into a {count, first} tally."""
    tally["count"] += n
    if len(tally["first"]) < PASSED_OVER_SHOWN:
        tally["first"].append(name)


# What each field of a ShardResult starts as (a callable: a new list or dict for each result).
_STARTS: dict[str, Callable[[], Any]] = {
    **dict.fromkeys(
        ("bytes_read", "documents", "hits", "invalid_bytes", "too_long", "skipped_records", "newlines"), int
    ),
    "citing_without_doi": int,
    "seconds": float,
    "error": lambda: None,
    **dict.fromkeys(("skipped", "rejected", "notes", "partial"), list),
    **dict.fromkeys(("formats", "syntaxes", "meta_types", "tallies", "fields"), dict),
    "not_text": lambda: {"count": 0, "first": []},
}


Progress = Callable[[int, int], None]  # (bytes, hits) since the last call


def no_progress(nbytes: int, nhits: int) -> None:
    """Progress that goes nowhere (the `find` command, tests)."""


# The distinct DOIs of (part of) one document as columns — DOI, count, first offset, first raw
# text, display forms (a bit mask of match.FORMS indices), first line (None for a record's
# text) — grouped by the hash bucket of the DOI: bucket b's rows are [bounds[b], bounds[b + 1]).
# As lists for a few rows; as Arrow buffers (Columns) for many, with no Python object per row.
Chunk = Rows | Columns

COLUMNS_FROM = 1024  # distinct DOIs from which a document's rows are taken as Columns


def take_chunk(table: Any, buckets: int) -> Chunk:
    """A mention table's rows, emptying it: as Columns when they are many."""
    if len(table) >= COLUMNS_FROM:
        return Columns(*table.take_columns(buckets))
    return cast(Rows, table.take(buckets))


def chunk_counts(chunk: Chunk) -> list[int]:
    """The hit count of each row of a chunk."""
    if isinstance(chunk, Columns):
        return array("q", chunk.counts).tolist()
    return chunk[1]


class Doc(NamedTuple):
    """Mentions of one document of a unit (or a chunk of them, for a document with very many)."""

    source: str
    record: str | None
    number: int  # the document's number in its unit, from 0
    chunk: Chunk
    meta: MetaValues = ()  # its provenance fields' values (ScanConfig.record_fields)


class DocBatch(NamedTuple):
    """Mentions of consecutive records of a unit read as one batch: one table's rows, each with
    the place of its record in the batch (`docs`, int64), so that no record costs a chunk."""

    source: str
    number: int  # the first record's number in its unit, from 0
    records: list[str | None]  # the records' ids
    metas: list[MetaValues]  # their provenance fields' values
    chunk: Columns
    docs: bytes
