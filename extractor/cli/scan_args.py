"""`doi-extract scan`'s arguments, apart from the command itself: building the parser for any
command loads only this, never the pipeline and its pyarrow."""

from __future__ import annotations

import argparse
import re

from ..match.forms import DERIVE_CHOICES
from ..match.kinds import KINDS
from ..match.syntaxes import SYNTAX_CHOICES

DEFAULT_SHARD_BYTES = 32 << 20


_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "kib": 2**10, "m": 10**6, "mb": 10**6, "mib": 2**20}
_UNITS |= {"g": 10**9, "gb": 10**9, "gib": 2**30, "t": 10**12, "tb": 10**12, "tib": 2**40}


def namespaces(value: str) -> tuple[int, ...] | None:
    """--wiki-namespaces: 'all' (None), or namespace numbers separated by commas."""
    if value.strip().lower() == "all":
        return None
    try:
        return tuple(sorted({int(v) for v in value.split(",") if v.strip()}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not 'all' or namespace numbers: {value!r}") from None


def size(value: str) -> int:
    """A size in bytes, or with a unit: 32MiB (2^20), 32MB (10^6), 1GiB, 1.5GB."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", value)
    unit = m.group(2).lower() if m else ""
    if m is None or unit not in _UNITS:
        raise argparse.ArgumentTypeError(f"not a size: {value!r} (bytes, or e.g. 32MiB, 500MB, 1GiB)")
    return int(float(m.group(1)) * _UNITS[unit])


def add_syntax_argument(ap: argparse.ArgumentParser, scope: str = "") -> None:
    """--syntax, its choices and their names from the registry of syntaxes (spec §7)."""
    names = ", ".join(c for c in SYNTAX_CHOICES if c not in ("auto", "none"))
    ap.add_argument(
        "--syntax",
        choices=SYNTAX_CHOICES,
        default="auto",
        help=f"source syntax of spec §7 ({names}){scope}, none for prose (default: auto, told by name and content)",
    )


def add_reading_arguments(ap: argparse.ArgumentParser) -> None:
    """How `find` and `scan` read their inputs: --kind, --syntax, --text-field, --id-field."""
    ap.add_argument(
        "--kind", choices=KINDS, help="input kind of every text input (default: detected by name and content)"
    )
    add_syntax_argument(ap)
    add_derive_argument(ap)
    ap.add_argument(
        "--text-field",
        default="text",
        help="record field or CSV/TSV column holding the text (JSONL, Parquet; dotted: meta.text)",
    )
    ap.add_argument(
        "--id-field",
        default="id",
        help="record field or CSV/TSV column holding the record id (dotted path; a CSV/TSV naming it "
        "is read a row a record)",
    )


def derive_list(value: str) -> tuple[str, ...]:
    """--derive's value: "all", or source names separated by commas (match/derive.py)."""
    from ..match.derive import derive_sources

    try:
        return derive_sources(True if value == "all" else value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def attach_derive(words: list[str]) -> list[str]:
    """The words with --derive's optional value attached (--derive=SOURCES): the word after a
    bare --derive is its value only when it names sources, else it is an input, read with
    every source (`find --derive paper.txt`)."""
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            out += words[i:]
            break
        if word == "--derive":
            after = words[i + 1] if i + 1 < len(words) else None
            # a value when it names a source (an unknown name beside one is an error, said)
            named = after is not None and any(
                n.strip().lower() in (*DERIVE_CHOICES, "all") for n in after.split(",")
            )
            out.append(f"--derive={after}" if named else "--derive=all")
            i += 2 if named else 1
            continue
        out.append(word)
        i += 1
    return out


def add_derive_argument(ap: argparse.ArgumentParser) -> None:
    """--derive: the DOIs of spec §8, made from registrants' own identifiers (only when asked)."""
    ap.add_argument(
        "--derive",
        nargs="?",
        const="all",
        default=(),
        type=derive_list,
        metavar="SOURCES",
        help="also report the DOIs spec §8 derives from identifiers (arXiv IDs, Zenodo, SSRN, eLife, "
        f"PeerJ and Nature URLs), as forms derived-SOURCE: every source, or some of {','.join(DERIVE_CHOICES)}",
    )


def add_walk_filters(ap: argparse.ArgumentParser) -> None:
    """--include and --exclude: which files found by walking a folder or a pattern are read
    (`find` and `scan` alike; a file named outright always is)."""
    ap.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="read only the files of directories and patterns whose name matches GLOB (repeatable)",
    )
    ap.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="skip the files of directories and patterns whose name matches GLOB (repeatable)",
    )


def add_scan_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "inputs", nargs="+", help="files, directories, glob patterns, @LIST files, or - for stdin"
    )
    ap.add_argument("-o", "--out", required=True, help="output folder (created; rerunning resumes)")
    add_walk_filters(ap)
    ap.add_argument(
        "--workers",
        "-j",
        type=int,
        help="worker processes (default: the CPUs this process may use; then a job of less than "
        "128 MiB runs in this process, where starting workers would cost more than they save)",
    )
    ap.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run on a Dask cluster: its scheduler (tcp://HOST:8786), or 'local' to start one with "
        "--workers processes (needs the dask extra)",
    )
    ap.add_argument(
        "--stage",
        metavar="DIR|URL",
        help="with -o in object storage: the folder the run is staged in before it is published "
        "(default: one per output URL under ~/.cache/doi-extractor/stage), or a URL of the store "
        "to keep the shards' work in, so that no folder is shared (the default with --dask ADDRESS)",
    )
    add_reading_arguments(ap)
    ap.add_argument(
        "--meta-field",
        action="append",
        default=[],
        metavar="[NAME=]FIELD",
        help="copy a field of the citing record into a column of mentions/ (repeatable): a JSONL/"
        "Parquet field (dotted: metadata.url), a WARC header (WARC-Date, WARC-Record-ID) or a PDF's "
        "information entry (Title); the column is NAME, else the field in lower case with _ for "
        "other characters",
    )
    ap.add_argument(
        "--citing-field",
        metavar="FIELD",
        help="a field of each record that holds the citing work's own DOI, in any display form (dotted: "
        "metadata.doi): mentions/ gains citing_doi (canonical; null when the field holds none) and "
        "self_citation, for a citation graph",
    )
    ap.add_argument(
        "--wiki-namespaces",
        type=namespaces,
        default=(0,),
        metavar="LIST",
        help="the namespaces of a MediaWiki dump whose pages are read: numbers separated by commas "
        "(0,118), or 'all' (default: 0, the articles; redirects are never read)",
    )
    ap.add_argument("--occurrences", action="store_true", help="also write every hit to occurrences/")
    ap.add_argument(
        "--force",
        action="store_true",
        help="start over: discard earlier work in OUT, and replace its result with this run's "
        "(kept when this run can read none of its inputs)",
    )
    ap.add_argument(
        "--keep-work",
        action="store_true",
        help="keep the shards' partial files after a complete run, so that a rerun only reads new or changed inputs",
    )
    ap.add_argument("--quiet", "-q", action="store_true", help="no progress bar or status lines")
    ap.add_argument(
        "--json",
        action="store_true",
        help="print the run's summary (as _run.json holds it) as JSON on stdout",
    )
    ap.add_argument(
        "--buckets", type=int, default=16, help="hash buckets for deduplication (memory per merge step)"
    )
    ap.add_argument(
        "--shard-size",
        type=size,
        default=DEFAULT_SHARD_BYTES,
        help="split uncompressed files larger than this (bytes, or with a unit: 32MiB, 500MB, 1GiB; "
        "default 32MiB)",
    )
    ap.add_argument(
        "--split-gzip",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="read a large gzip or bzip2 text or JSONL file in ranges of its text, a shard each, from "
        "the seek points of one pass (the fast extra's rapidgzip), and a zstd file of several frames "
        "from its frames; default: when the scan has 4 workers or more for gzip and zstd (a "
        "cluster's: all its threads), 2 for bzip2 (io/seekgz.py's SPLIT_WORKERS), where the pass pays",
    )
    ap.add_argument(
        "--other-prefixes", action="store_true", help="accept non-10 prefixes behind a doi: label"
    )
