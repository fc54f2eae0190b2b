"""`doi-extract find`: grep-like, the DOIs of each input printed as they are found."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TextIO

from ..pipeline.errors import InputError
from ..pipeline.inputs import expand_inputs
from ..pipeline.read import open_stream
from ..pipeline.search import LineCounter, hits_in_records, hits_in_stream, input_format


def _inputs(items: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """The files to read — directories recursively, globs, @lists, as scan expands them (issue
    13) — and the items that name none, with why."""
    paths: list[str] = []
    problems: list[tuple[str, str]] = []
    for item in items:
        if item == "-":
            paths.append("-")
            continue
        files, rejected = expand_inputs([item], spool_dir=os.devnull)
        paths += [p for _s, p in files]
        problems += [(r["source"], r["reason"]) for r in rejected]
    return paths, problems


def cmd_find(args: argparse.Namespace, out: TextIO) -> int:
    """Print the DOIs of each input: exit 0 when any was found, 1 when none, 2 on error.

    Inputs are read in bounded blocks, so a file or pipe of any size streams through. With
    several inputs each line starts with the input's name (-H, --no-filename); -c counts, -l
    names the inputs that hold a DOI (reading each only to its first), as grep does.
    """
    found = False
    error = False
    items = args.files or ["-"]
    paths, problems = _inputs(items)
    for source, why in problems:
        print(f"doi-extract: {source}: {why}", file=sys.stderr)
        error = True
    # as grep: names when several inputs are given (or found), unless told
    several = len(items) > 1 or len(paths) > 1 or bool(args.recursive)
    named = args.with_filename if args.with_filename is not None else several
    end_name = "\0" if args.null else ":"
    if args.header and args.format == "tsv" and not (args.count or args.files_with_matches):
        # with a header every row has the record column (empty for a text file): one table
        out.write("source\toffset\tdoi\tform\traw\trecord\n")
    for path in paths:
        source = "(standard input)" if path == "-" else path
        prefix = source + end_name if named else ""
        count = 0
        try:
            # record files (JSONL, Parquet, WARC, raw PDFs) are read record by record, as scan
            # reads them; every other input as a stream of text
            fmt = "text" if path == "-" else input_format(path, args.text_field)
            stream, _comp = open_stream(sys.stdin.buffer if path == "-" else path)
            with stream:
                seen: set[str] = set()
                name = None if path == "-" else path
                lines = LineCounter() if args.line_number and fmt == "text" else None
                syntax = None if args.syntax == "auto" else args.syntax
                told: dict[str, str | None] = {}  # the syntax each document is read in
                found_hits = (
                    (
                        (None, h)
                        for h in hits_in_stream(
                            stream,
                            name or "",
                            args.kind,
                            args.other_prefixes,
                            lines=lines,
                            syntax=syntax,
                            told=told,
                        )
                    )
                    if fmt == "text"
                    else hits_in_records(
                        path,
                        fmt,
                        args.kind,
                        args.other_prefixes,
                        args.text_field,
                        args.id_field,
                        syntax=syntax,
                        told=told,
                    )
                )
                for record, hit in found_hits:
                    doi, offset, raw = hit.doi, hit.start, hit.raw
                    if args.unique:
                        if doi in seen:
                            continue
                        seen.add(doi)
                    found = True
                    count += 1
                    if args.files_with_matches:
                        break
                    if args.count:
                        continue
                    if args.format == "tsv":
                        # a record input adds its record id as a sixth column
                        rec_col = "" if fmt == "text" and not args.header else "\t" + _tsv(record or "")
                        out.write(
                            f"{_tsv(source)}\t{offset}\t{_tsv(doi)}\t{hit.form}\t{_tsv(raw)}{rec_col}\n"
                        )
                    elif args.format == "jsonl":
                        rec = {
                            "source": source,
                            **({} if fmt == "text" else {"record": record}),
                            "offset": offset,
                            "end": hit.end,
                            "doi": doi,
                            "form": str(hit.form),
                            "raw": raw,
                            **({"syntax": told["syntax"]} if told.get("syntax") else {}),
                        }
                        out.write(json.dumps(rec, ensure_ascii=False) + "\n")
                    elif args.line_number:
                        where = str(lines.line_of(offset)) if lines is not None else (record or "")
                        out.write(f"{prefix}{where}:{doi}\n")
                    else:
                        out.write(prefix + doi + "\n")
        except BrokenPipeError:
            raise  # our reader has gone: not an error of this input (cli.main ends quietly)
        except OSError as exc:
            print(f"doi-extract: {path}: {exc.strerror or exc}", file=sys.stderr)
            error = True
            continue
        except (InputError, EOFError, ValueError) as exc:
            print(f"doi-extract: {path}: {exc}", file=sys.stderr)
            error = True
            continue
        if args.files_with_matches and count:
            out.write(source + ("\0" if args.null else "\n"))
        elif args.count:
            out.write(f"{prefix}{count}\n")
    if error:
        return 2
    return 0 if found else 1


_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _tsv(field: str) -> str:
    """A TSV field with backslash, tab and line breaks escaped (a file name may hold any of them),
    as the linear TSV convention writes them."""
    return field.translate(_TSV_ESCAPES)
