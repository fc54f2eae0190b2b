"""The `doi-extract` command: `find` (grep-like), `scan` (corpus to Parquet), `score`.

A thin shell: argument parsing and output formatting around the pipeline and the engines.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .. import __version__
from ..match import KINDS
from ..match.syntaxes import SYNTAX_CHOICES


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="doi-extract", description="Find DOIs in text, HTML and PDF-extracted text."
    )
    ap.add_argument(
        "--version", action="version", version=f"doi-extract {__version__} ({_matcher()} matcher)"
    )
    sub = ap.add_subparsers(dest="command", required=True)

    f = sub.add_parser("find", help="print the canonical DOIs found in files (like grep -o)")
    f.add_argument(
        "files",
        nargs="*",
        help="files, directories, glob patterns, @LIST files (stdin when none or '-'); compressed files are read",
    )
    f.add_argument("--unique", "-u", action="store_true", help="print each DOI once per input")
    f.add_argument(
        "--format",
        choices=("plain", "tsv", "jsonl"),
        default="plain",
        help="plain: one DOI a line; tsv/jsonl add source, offset, form and raw text",
    )
    f.add_argument(
        "--header",
        action="store_true",
        help="with --format tsv: a first line naming the columns, and a record column on every row",
    )
    f.add_argument(
        "--recursive",
        "-r",
        action="store_true",
        help="read directories recursively (they always are, as in rg)",
    )
    names = f.add_mutually_exclusive_group()
    names.add_argument(
        "--with-filename",
        "-H",
        action="store_true",
        default=None,
        help="name the input on each line (default with several)",
    )
    names.add_argument(
        "--no-filename", action="store_false", dest="with_filename", help="never name the input"
    )
    what = f.add_mutually_exclusive_group()
    what.add_argument(
        "--count", "-c", action="store_true", help="print how many DOIs each input holds (with -u: distinct)"
    )
    what.add_argument(
        "--files-with-matches", "-l", action="store_true", help="print only the names of inputs holding a DOI"
    )
    f.add_argument("--null", "-0", action="store_true", help="end a file name with NUL, not ':' or a newline")
    f.add_argument(
        "--line-number",
        "-n",
        action="store_true",
        help="start each line with the line number of the hit (a record's id for record files)",
    )
    f.add_argument("--kind", choices=KINDS, help="input kind (default: detected by name and content)")
    f.add_argument(
        "--syntax",
        choices=SYNTAX_CHOICES,
        default="auto",
        help="source syntax of spec §7 (wikitext, latex, bibtex, csv, json, markdown), none for prose (default: auto, told by name and content)",
    )
    f.add_argument(
        "--text-field", default="text", help="JSONL/Parquet field holding the text (dotted: meta.text)"
    )
    f.add_argument("--id-field", default="id", help="JSONL/Parquet field holding the record id (dotted path)")
    f.add_argument(
        "--other-prefixes",
        action="store_true",
        help="accept prefixes other than 10. behind an explicit doi: label (spec §2)",
    )

    from .scan import add_scan_arguments

    s = sub.add_parser("scan", help="extract DOIs from a whole corpus into deduplicated Parquet")
    add_scan_arguments(s)

    sm = sub.add_parser(
        "summary", help="what a finished scan found: top DOIs, prefixes, forms, rejected inputs"
    )
    from .summary import add_summary_arguments

    add_summary_arguments(sm)

    sc = sub.add_parser("score", help="score the extractor against a labelled corpus manifest")
    from .score import add_score_arguments

    add_score_arguments(sc)
    return ap


def _matcher() -> str:
    """Which matcher runs plain text (C, or Python where the extension was not built)."""
    from ..match.native import MATCHER

    return MATCHER


def _workers_asked(words: list[str]) -> int | None:
    """The --workers / -j value on a command line, read before it is parsed (None if absent)."""
    value = None
    for i, w in enumerate(words):
        for flag in ("--workers", "-j"):
            if w == flag and i + 1 < len(words):
                value = words[i + 1]
            elif w.startswith(flag + "=") or (flag == "-j" and w.startswith("-j") and w[2:].isdigit()):
                value = w.split("=", 1)[1] if "=" in w else w[2:]
    try:
        return None if value is None else int(value)
    except ValueError:
        return None


def main(argv: Sequence[str] | None = None) -> int:
    # Arrow's buffers from the C library's allocator, unless the user chose another: it gives a
    # large freed buffer back to the OS, where mimalloc and jemalloc keep it for reuse, so a
    # process's peak memory is what it holds at once, not what it ever held (a merge of
    # 4 M distinct DOIs peaked at 267-296 MB with mimalloc, 203 with this, at the same speed).
    # Read by pyarrow as it loads, here or in the workers' server, which inherits it.
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["scan"] and _workers_asked(words) != 1:
        from ..engines.procs import start_worker_server

        # First thing, before the arguments are parsed (which loads the pipeline): the workers'
        # server loads its modules while this process loads its own.
        start_worker_server()
    args = build_parser().parse_args(argv)
    if args.command == "find":
        from .find import cmd_find

        try:
            return cmd_find(args, sys.stdout)
        except BrokenPipeError:
            # The reader of our output has gone (`find … | head`): end quietly, as grep and rg do;
            # stdout is pointed at /dev/null so that the interpreter's final flush cannot fail.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
    try:
        if args.command == "scan":
            from ..pipeline.arrow_setup import skip_pandas
            from .scan import cmd_scan

            skip_pandas()
            return cmd_scan(args)
        if args.command == "summary":
            from .summary import cmd_summary

            return cmd_summary(args, sys.stdout)
        if args.command == "score":
            from .score import cmd_score

            return cmd_score(args)
    except KeyboardInterrupt:
        print("doi-extract: interrupted", file=sys.stderr)
        return 130
    return 2


if __name__ == "__main__":
    sys.exit(main())
