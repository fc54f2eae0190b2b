"""The registry of input formats: one module per format, one row here, asked by the planner
(inputs.py), the shard (search.py) and `find` alike.

A format module says how to tell a file of its format (name, magic bytes, head), how to plan a
large one into shards, and what documents it yields (ids, provenance, kind); see base.Format.
Formats are told in the order of ENTRIES: the first whose cheap test (Entry.may_be, here) and
then whose module's `tell` say yes, text last; a module is loaded when its format may be the
file's, or is read.

A new format is one module beside these and one row below; nothing in match/ or engines/
changes.
"""

import functools
import importlib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import NamedTuple

from ..errors import InputError
from ..io.compression import detect_compression
from ..io.decode import HEAD_BYTES, declared_encoding
from ..io.read import format_head
from ..units import InputType, Progress, ScanConfig, ShardResult, ShardSpec
from .base import (
    FileText,
    Format,
    PlanInput,
    Planned,
    Record,
    Records,
    SkippedRecords,
    StreamedText,
    each_record,
)


class Entry(NamedTuple):
    """A format as the registry holds it before its module is loaded: the module, and a cheap
    test on a file's name (lower case, without a compression suffix) and first bytes that every
    file of the format passes, so that the module's own `tell` is asked only where it may say
    yes: `find` on a text file loads no record format's reader."""

    module: str
    may_be: Callable[[str, bytes], bool]


def _starts(*magic: bytes) -> Callable[[str, bytes], bool]:
    return lambda name, head: head.startswith(magic)


def _archive(name: str, head: bytes) -> bool:
    # zip's local or end-of-directory header first (APPNOTE 4.3.6), tar's `ustar` magic at byte
    # 257 (POSIX.1), or an archive's name
    return (
        head.startswith((b"PK\x03\x04", b"PK\x05\x06"))
        or head[257:262] == b"ustar"
        or name.endswith((".tar", ".tgz", ".tbz", ".tbz2", ".txz", ".tzst", ".zip"))
    )


# a dump's root element after white space, an XML declaration and comments: its head's first
# character, after white space, opens a tag (an anchored match: a search of a page's whole head
# cost more than the dump's own test)
_OPENS_TAG = re.compile(rb"\s*<")


def _mediawiki(name: str, head: bytes) -> bool:
    return _OPENS_TAG.match(head) is not None


def _jsonl(name: str, head: bytes) -> bool:
    return head.startswith(b"{") or name.endswith((".jsonl", ".ndjson", ".jsonlines"))


def _csv(name: str, head: bytes) -> bool:
    # a `.txt` is a TSV of records (Web of Science's export) only with a TAB in its first line
    return name.endswith((".csv", ".tsv", ".tab")) or (
        name.endswith(".txt") and b"\t" in head[:HEAD_BYTES].split(b"\n", 1)[0]
    )


# In the order formats are told: magic bytes before names, names before contents, text last.
ENTRIES: dict[str, Entry] = {
    "parquet": Entry("parquet", _starts(b"PAR1")),
    "warc": Entry("warc", _starts(b"WARC/1.0", b"WARC/1.1", b"WARC/0.1", b"WARC/0.9")),
    "pdf": Entry("pdf", _starts(b"%PDF-")),
    "archive": Entry("archive", _archive),
    "mediawiki": Entry("mediawiki", _mediawiki),
    "jsonl": Entry("jsonl", _jsonl),
    "csv": Entry("csvrecords", _csv),
    "text": Entry("text", lambda name, head: True),
}


class _Formats(Mapping[str, Format]):
    """The formats by name, in the order they are told; a format's module is loaded when its
    row is first asked for."""

    def __init__(self) -> None:
        self._loaded: dict[str, Format] = {}

    def __getitem__(self, name: str) -> Format:
        fmt = self._loaded.get(name)
        if fmt is None:
            fmt = importlib.import_module(f".{ENTRIES[name].module}", __name__).FORMAT
            self._loaded[name] = fmt
        return fmt

    def __contains__(self, name: object) -> bool:
        return name in ENTRIES

    def __iter__(self) -> Iterator[str]:
        return iter(ENTRIES)

    def __len__(self) -> int:
        return len(ENTRIES)


FORMATS = _Formats()

# The formats whose files are read in the encoding they declare (decode.declared_encoding); JSON
# is UTF-8 (RFC 8259 §8.1), the others binary or their own.
TRANSCODED = ("text", "csv")

# What is read of a file to tell its format: a JSONL record's first line, within reason.
FORMAT_HEAD = 1 << 16

_COMPRESSED = (".gz", ".bz2", ".xz", ".zst", ".zstd")

__all__ = [
    "FORMATS",
    "FORMAT_HEAD",
    "FileText",
    "Format",
    "PlanInput",
    "Planned",
    "Record",
    "Records",
    "SkippedRecords",
    "StreamedText",
    "each_record",
    "format_by_name",
    "format_of",
    "missing_extras",
    "records",
    "split_names",
    "tell_input",
]


def missing_extras(formats: Iterable[str]) -> list[str]:
    """What to install for the formats given, where a reader's module is absent: one line each
    ("warc input needs fastwarc: pip install 'doi-extractor[warc]'")."""
    out = []
    for name in sorted(set(formats)):
        f = FORMATS.get(name)
        if f is not None and f.needs is not None and not _importable(f.needs):
            out.append(
                f"{name} input needs {f.needs}: pip install 'doi-extractor[{f.extra}]' (or '.[{f.extra}]' in a clone)"
            )
    return out


def _bare_name(path: str) -> str:
    """A file's name in lower case without its compression suffix (`x.warc.gz` → `x.warc`)."""
    name = path.lower()
    for suffix in _COMPRESSED:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def format_by_name(path: str) -> str | None:
    """The format a file's name says it is (Format.suffixes), or None."""
    name = _bare_name(path)
    return next((fmt for fmt, suffixes in _suffixes() if name.endswith(suffixes)), None)


@functools.cache
def _suffixes() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each format's file names (Format.suffixes), its module loaded once: a run asks per file."""
    return tuple((f.name, f.suffixes) for f in FORMATS.values() if f.suffixes)


def split_names() -> tuple[str, ...]:
    """File names planned by their contents whatever their size (a Parquet file: a shard per
    row group)."""
    return tuple(n for f in FORMATS.values() for n in f.names)


def _importable(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a module set to None in sys.modules: blocked
        return False


def format_of(path: str, head: bytes, text_field: str = "text", id_field: str = "id") -> str:
    """The format of a file from its name and first decompressed bytes: the first of FORMATS
    that tells it (text when none does)."""
    name = _bare_name(path)
    return next(
        f
        for f, e in ENTRIES.items()
        if e.may_be(name, head) and FORMATS[f].tell(name, head, text_field, id_field)
    )


def tell_input(path: str, stored: bytes, config: ScanConfig) -> InputType:
    """What a file is, from its first bytes as stored (FORMAT_HEAD of them): its compression;
    its format, told by what the compression holds (a .warc.gz, a .json.gz: the head read again
    through the decompressor); a text's declared encoding. Its kind is the one forced, if any;
    a text's kind and syntax are told by its text's head after (decode.text_input_type)."""
    comp = detect_compression(stored)
    head = format_head(path, FORMAT_HEAD) if comp is not None else stored
    fmt = format_of(path, head, config.text_field, config.id_field)
    encoding = declared_encoding(head[:HEAD_BYTES]) if fmt in TRANSCODED else None
    return InputType(fmt, comp, encoding, config.kind)


def records(
    spec: ShardSpec, config: ScanConfig, result: ShardResult, progress: Progress
) -> Iterator[Record | Records]:
    """(record id, text, kind, provenance) for each document of a shard of a record format
    (kind None: decided on the text, or by --kind; provenance: the values of
    config.record_fields), or a batch of them (Records); a record with no text is skipped,
    counted, and named (line, row or record, and why) in the result."""
    read = FORMATS[spec.fmt].records
    if read is None:
        raise ValueError(f"{spec.fmt} files are read as text, not as records")
    skipped = SkippedRecords(spec.source, result)
    try:
        yield from read(spec, config, result, progress, skipped)
    except InputError:
        skipped.count = 0  # a rejected input contributes nothing, its skipped records neither
        raise
    finally:
        skipped.close()
