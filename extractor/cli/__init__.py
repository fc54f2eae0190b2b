"""The `doi-extract` command: `find` (grep-like), `scan` (corpus to Parquet), `score`.

A thin shell: argument parsing and output formatting around the pipeline and the engines.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from .. import __version__
from .levels import LEVELS, log_level, logs


class _Help(argparse.RawDescriptionHelpFormatter):
    """Epilogs as written (examples keep their lines); each option's default named when its help
    does not say it already."""

    def __init__(
        self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None
    ):
        # the terminal's width as shutil.get_terminal_size reads it, without loading shutil (and
        # with it bz2 and lzma) for every parser argparse builds a formatter for
        if width is None:
            width = _columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            "default" in text
            or default in (None, False, [], argparse.SUPPRESS)
            or not action.option_strings
            or action.nargs == 0
        ):
            return text
        return f"{text} (default: %(default)s)"


def _columns() -> int:
    """The terminal's columns: $COLUMNS, else the terminal's own, else 80 (shutil's reading)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def _common() -> argparse.ArgumentParser:
    """The options every subcommand takes: how much it logs to stderr."""
    c = argparse.ArgumentParser(add_help=False, formatter_class=_Help)
    c.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=argparse.SUPPRESS,
        help="log what the run does to stderr: -v inputs, plan and merge; -vv every shard",
    )
    c.add_argument(
        "--log-level", choices=LEVELS, default=argparse.SUPPRESS, help="log level (default: WARNING)"
    )
    return c


EXIT_CODES = """exit status:
  0  DOIs were found (find), or the run read every input (scan, score, summary)
  1  no DOI was found (find), or some inputs were rejected or cut short, or a named field held
     by no record (scan: the rest is written)
  2  an error: bad arguments, an output that cannot be used, a missing extra
  130 interrupted (Ctrl-C); a scan keeps its completed shards, rerun it to resume"""

EXTRAS = """extras, by what the inputs need (pip install 'doi-extractor[NAME]'):
  warc    WARC/WET archives (FastWARC)       pdf     raw PDF files (PDFium)
  s3      s3:// inputs and outputs           gcs     gs:// inputs and outputs
  dask    scan --dask ADDRESS                report  summary --html
  fast    gzip and JSONL read faster (the same records)"""

ENVIRONMENT = """environment:
  AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_PROFILE, AWS_REGION
                      credentials and region of s3:// inputs and outputs
  AWS_ENDPOINT_URL    an S3-compatible store (MinIO, Ceph, R2) instead of AWS
  XDG_CACHE_HOME      where an object-store output is staged (default ~/.cache)
  DOI_EXTRACTOR_CPUS  the CPUs each worker may keep busy (set by scan: usable CPUs / workers);
                      with 2 or more, a bz2 dump is decompressed beside the worker (bzip2)"""

FIND_EXAMPLES = """examples:
  doi-extract find paper.txt                    every DOI, in order, canonical
  doi-extract find -u -c corpus/                distinct DOIs per file of a folder
  doi-extract find -r --include '*.bib' refs/   the .bib files of a tree only
  doi-extract find -q notes.md && echo cites    exit status only
  doi-extract find -m 1 *.html                  the first DOI of each page
  zcat dump.jsonl.gz | doi-extract find --json  one JSON object a hit (source, offset, form, raw)"""

SCAN_EXAMPLES = """examples:
  doi-extract scan corpus/ -o out               a folder, deduplicated into out/ (Parquet)
  doi-extract scan 'crawl/*.warc.gz' -o out -j 8
  doi-extract scan s3://bucket/texts/ -o s3://bucket/dois/
  doi-extract scan docs.jsonl --text-field body --id-field doc_id -o out
  doi-extract scan enwiki-*-multistream.xml.bz2 -o wiki    Wikipedia's articles, a page a record
  doi-extract scan arXiv_src_*.tar pmc/*.tar.gz -o out     archives read in place
  doi-extract scan big/ -o out --dask tcp://scheduler:8786
  rerun the same command to resume; --force starts over"""

SUMMARY_EXAMPLES = """examples:
  doi-extract summary out/                      totals, top DOIs, prefixes and forms
  doi-extract summary out/ --json | jq .run.hits  the run's hits
  doi-extract summary out/ --html report.html   a one-page report (report extra)"""

SCORE_EXAMPLES = """examples:
  doi-extract score corpora/labelled/manifest.jsonl
  doi-extract score manifest.jsonl --by derivation --errors 5 --json"""

COMPLETION_EXAMPLES = """examples:
  doi-extract completion bash > ~/.local/share/bash-completion/completions/doi-extract
  doi-extract completion zsh > "${fpath[1]}/_doi-extract"
  eval "$(doi-extract completion bash)"          this shell only"""


def _epilog(*parts: str) -> str:
    return "\n\n".join(parts)


COMMANDS = ("find", "scan", "summary", "score", "completion")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; with `only`, that command's arguments alone (the others
    named, so that the top level's usage and errors are the same), and only its modules loaded."""
    # the arguments name the matcher's kinds and syntaxes: loaded here and not with this module,
    # since `scan` starts its workers' server before anything else is loaded (main)
    from .scan_args import add_reading_arguments, add_scan_arguments, add_walk_filters

    common = _common()
    ap = argparse.ArgumentParser(
        prog="doi-extract",
        description="Find DOIs in text, HTML and PDF-extracted text: `find` prints them as grep does, "
        "`scan` writes a corpus's DOIs, deduplicated, to Parquet.",
        formatter_class=_Help,
        parents=[common],
        epilog=_epilog(
            "examples:\n  doi-extract find paper.txt\n  doi-extract scan corpus/ -o out\n"
            "  doi-extract COMMAND --help                    each command's options and examples",
            EXIT_CODES,
            EXTRAS,
            ENVIRONMENT,
        ),
    )
    ap.add_argument(
        "--version", action="version", version=f"doi-extract {__version__} ({_matcher()} matcher)"
    )
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help_: str, *epilog: str) -> argparse.ArgumentParser | None:
        if only is not None and name != only:
            sub.add_parser(name, help=help_, add_help=False)
            return None
        return sub.add_parser(
            name,
            help=help_,
            description=help_[:1].upper() + help_[1:] + ".",
            parents=[common],
            formatter_class=_Help,
            epilog=_epilog(*epilog),
        )

    f = command(
        "find",
        "print the canonical DOIs found in files (like grep -o)",
        FIND_EXAMPLES,
        EXIT_CODES,
        EXTRAS,
        ENVIRONMENT,
    )
    if f is not None:
        _find_arguments(f, add_reading_arguments, add_walk_filters)
    s = command(
        "scan",
        "extract DOIs from a whole corpus into deduplicated Parquet",
        SCAN_EXAMPLES,
        EXIT_CODES,
        EXTRAS,
        ENVIRONMENT,
    )
    if s is not None:
        add_scan_arguments(s)
    sm = command(
        "summary",
        "what a finished scan found: top DOIs, prefixes, forms, rejected inputs",
        SUMMARY_EXAMPLES,
        EXIT_CODES,
        ENVIRONMENT,
    )
    if sm is not None:
        from .summary import add_summary_arguments

        add_summary_arguments(sm)
    sc = command(
        "score", "score the extractor against a labelled corpus manifest", SCORE_EXAMPLES, EXIT_CODES
    )
    if sc is not None:
        from .score import add_score_arguments

        add_score_arguments(sc)
    co = command("completion", "print a shell completion script for bash or zsh", COMPLETION_EXAMPLES)
    if co is not None:
        co.add_argument("shell", choices=("bash", "zsh"))
    ap.set_defaults(subparsers=sub.choices)
    return ap


def _find_arguments(f: argparse.ArgumentParser, add_reading_arguments: Any, add_walk_filters: Any) -> None:
    """`find`'s own arguments."""
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
        "--json", action="store_const", dest="format", const="jsonl", help="the same as --format jsonl"
    )
    f.add_argument(
        "--quiet", "-q", action="store_true", help="print nothing; exit 0 at the first DOI found (as grep -q)"
    )
    f.add_argument(
        "--max-count",
        "-m",
        type=int,
        metavar="NUM",
        help="stop reading an input after NUM DOIs (with -u: NUM distinct)",
    )
    f.add_argument(
        "--no-messages", "-s", action="store_true", help="no messages about missing or unreadable inputs"
    )
    add_walk_filters(f)
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
        "--jobs",
        "-j",
        type=int,
        metavar="N",
        help="read several inputs, or byte ranges of a large text file, in N processes, printing in the "
        "inputs' order (default: the CPUs this process may use; inputs under 32 MiB in all are read in "
        "this process)",
    )
    f.add_argument(
        "--line-number",
        "-n",
        action="store_true",
        help="start each line with the line number of the hit (a record's id for record files)",
    )
    add_reading_arguments(f)
    f.add_argument(
        "--other-prefixes",
        action="store_true",
        help="accept prefixes other than 10. behind an explicit doi: label (spec §2)",
    )


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The arguments, or exit 2 with the usage of the command they were given to (argparse's
    top level would show its own usage for a subcommand's unknown option)."""
    from .scan_args import attach_derive

    words = list(sys.argv[1:] if argv is None else argv)
    # the command named first: only its arguments are built (and its modules loaded); with none
    # (a top-level --help, a mistake) every command's
    ap = build_parser(next((w for w in words if w in COMMANDS), None))
    args, extra = ap.parse_known_args(attach_derive(words))
    if extra:
        parser = args.subparsers.get(args.command, ap)
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _logging(args: argparse.Namespace) -> None:
    """Log records of the package to stderr at the level asked. `find` logs only below WARNING
    (-v, -vv; cli/find.py): at the other levels it runs without loading logging."""
    if args.command == "find" and not logs(args, "INFO"):
        return
    import logging

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("doi-extract: %(levelname)s: %(message)s"))
    log = logging.getLogger("extractor")
    log.addHandler(handler)
    log.setLevel(log_level(args))


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


def main(argv: Sequence[str] | None = None, *, own_process: bool = False) -> int:
    """The command's exit status. `own_process`: this process is the command's alone and ends
    with it (run(): the console script, `python -m extractor`), never a caller's to use after."""
    # Arrow's buffers from the C library's allocator, unless the user chose another: it gives a
    # large freed buffer back to the OS, where mimalloc and jemalloc keep it for reuse, so a
    # process's peak memory is what it holds at once, not what it ever held (a merge of millions
    # of distinct DOIs peaked higher with mimalloc, at the same speed).
    # Read by pyarrow as it loads, here or in the workers' server, which inherits it.
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    # pyarrow loads NumPy where it is installed, and NumPy's OpenBLAS starts a thread per core
    # that spins before it sleeps: CPU a process that does no linear algebra takes from the other
    # workers on shared cores. Read as OpenBLAS loads, here or in the workers' server, which
    # inherits it.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["scan"] and _workers_asked(words) != 1:
        from ..engines.procs import start_worker_server

        # First thing, before the arguments are parsed (which loads the pipeline): the workers'
        # server loads its modules while this process loads its own.
        start_worker_server()
    args = _parse(argv)
    _logging(args)
    if args.command == "completion":
        from .completion import completion_script

        sys.stdout.write(completion_script(build_parser(), args.shell))
        return 0
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
            from ..pipeline.arrow_setup import load_for_scan

            load_for_scan(own_process)  # before the pipeline loads pyarrow its own way
            from .scan import cmd_scan

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


def run() -> NoReturn:
    """The console script and `python -m extractor`: main(), the process's exit status. A scan
    ends without the interpreter's teardown of all that it loaded (pyarrow, the matcher: a
    fixed cost that a short run feels), its output written and closed, its engine shut down, and stdout,
    stderr and the log flushed first."""
    rc = main(own_process=True)
    if sys.argv[1:2] == ["scan"]:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            pass  # the reader has gone: quiet, as grep is
        except (OSError, ValueError):
            rc = rc or 120  # the interpreter's own status when its final flush fails
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.flush()
        import logging  # loaded by the scan already

        logging.shutdown()
        os._exit(rc)
    sys.exit(rc)


if __name__ == "__main__":
    run()
