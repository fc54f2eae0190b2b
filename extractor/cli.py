"""The `doi-extract` command: `find` (grep-like) and `scan` (corpus to Parquet).

A thin shell: argument parsing and output formatting around the library's pure functions.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TextIO

from . import __version__
from .find import KINDS


def cmd_find(args: argparse.Namespace, out: TextIO) -> int:
    """Print the DOIs of each input: exit 0 when any was found, 1 when none, 2 on error.

    Inputs are read in bounded blocks, so a file or pipe of any size streams through.
    """
    from .read import open_stream
    from .shard import InputError, hits_in_stream

    found = False
    error = False
    for path in args.files or ["-"]:
        source = path
        try:
            stream, _comp = open_stream(sys.stdin.buffer if path == "-" else path)
            with stream:
                seen: set[str] = set()
                name = None if path == "-" else path
                for doi, offset, form, raw in hits_in_stream(stream, name or "", args.kind, args.other_prefixes):
                    if args.unique:
                        if doi in seen:
                            continue
                        seen.add(doi)
                    found = True
                    if args.format == "tsv":
                        flat = raw.replace("\t", " ").replace("\n", "\\n").replace("\r", "\\r")
                        out.write(f"{source}\t{offset}\t{doi}\t{form}\t{flat}\n")
                    elif args.format == "jsonl":
                        end = offset + len(raw.encode("utf-8", "surrogateescape"))
                        rec = {"source": source, "offset": offset, "end": end, "doi": doi, "form": str(form), "raw": raw}
                        out.write(json.dumps(rec, ensure_ascii=False) + "\n")
                    else:
                        out.write(doi + "\n")
        except OSError as exc:
            print(f"doi-extract: {path}: {exc.strerror or exc}", file=sys.stderr)
            error = True
        except (InputError, EOFError, ValueError) as exc:
            print(f"doi-extract: {path}: {exc}", file=sys.stderr)
            error = True
    if error:
        return 2
    return 0 if found else 1


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="doi-extract", description="Find DOIs in text, HTML and PDF-extracted text.")
    ap.add_argument("--version", action="version", version=f"doi-extract {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)

    f = sub.add_parser("find", help="print the canonical DOIs found in files (like grep -o)")
    f.add_argument("files", nargs="*", help="input files (stdin when none or '-'); compressed files are read")
    f.add_argument("--unique", "-u", action="store_true", help="print each DOI once per input")
    f.add_argument("--format", choices=("plain", "tsv", "jsonl"), default="plain",
                   help="plain: one DOI a line; tsv/jsonl add source, offset, form and raw text")
    f.add_argument("--kind", choices=KINDS, help="input kind (default: detected by name and content)")
    f.add_argument("--other-prefixes", action="store_true",
                   help="accept prefixes other than 10. behind an explicit doi: label (spec §2)")

    from .scan import add_scan_arguments

    s = sub.add_parser("scan", help="extract DOIs from a whole corpus into deduplicated Parquet")
    add_scan_arguments(s)

    sc = sub.add_parser("score", help="score the extractor against a labelled corpus manifest")
    from .score import add_score_arguments

    add_score_arguments(sc)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    if (sys.argv[1:] if argv is None else list(argv))[:1] == ["scan"]:
        from .procs import start_worker_server

        start_worker_server()  # the workers' server loads its modules while this process does
    args = build_parser().parse_args(argv)
    try:
        if args.command == "find":
            return cmd_find(args, sys.stdout)
        if args.command == "scan":
            from .scan import cmd_scan

            return cmd_scan(args)
        if args.command == "score":
            from .score import cmd_score

            return cmd_score(args)
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("doi-extract: interrupted", file=sys.stderr)
        return 130
    return 2


if __name__ == "__main__":
    sys.exit(main())
