"""`doi-extract find`: grep-like, the DOIs of each input printed as they are found."""

from __future__ import annotations

import argparse
import fnmatch
import glob
import json
import logging
import os
import sys
from typing import TextIO

from ..pipeline.errors import Fatal, InputError
from ..pipeline.inputs import expand_inputs
from ..pipeline.read import open_stream
from ..pipeline.search import LineCounter, hits_in_records, hits_in_stream, input_format

log = logging.getLogger(__name__)


def _inputs(
    items: list[str], include: list[str], exclude: list[str]
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(name as the user typed it, path) of the files to read — directories recursively, globs,
    @lists, as scan expands them — and the items that name none, with why. The files found in
    a directory or by a pattern are kept when their name matches an --include glob (if any) and
    no --exclude glob, as grep's are; a file named outright is always read."""
    paths: list[tuple[str, str]] = []
    problems: list[tuple[str, str]] = []
    for item in items:
        if item == "-":
            paths.append(("(standard input)", "-"))
            continue
        try:
            files, rejected = expand_inputs([item], spool_dir=os.devnull)
        except Fatal as exc:  # a store that does not answer: this input, not the others
            problems.append((item, str(exc)))
            continue
        for source, path in files:
            if source != item and not _wanted(os.path.basename(source), include, exclude):
                continue
            paths.append((source, path))
        problems += [(r["source"], r["reason"]) for r in rejected]
    return paths, problems


def _wanted(name: str, include: list[str], exclude: list[str]) -> bool:
    if include and not any(fnmatch.fnmatch(name, g) for g in include):
        return False
    return not any(fnmatch.fnmatch(name, g) for g in exclude)


def cmd_find(args: argparse.Namespace, out: TextIO) -> int:
    """Print the DOIs of each input: exit 0 when any was found, 1 when none, 2 on error.

    Inputs are read in bounded blocks, so a file or pipe of any size streams through. With
    several inputs each line starts with the input's name as typed (-H, --no-filename); -c
    counts, -l names the inputs that hold a DOI (reading each only to its first), -m stops an
    input after NUM, -q prints nothing and stops at the first, -s keeps quiet about inputs that
    cannot be read, as grep does.
    """
    found = False
    error = False
    items = args.files or ["-"]
    if args.max_count is not None and args.max_count < 0:
        print("doi-extract find: -m/--max-count must not be negative", file=sys.stderr)
        return 2
    paths, problems = _inputs(items, args.include, args.exclude)

    def complain(where: str, why: object) -> None:
        if not args.no_messages:
            print(f"doi-extract: {where}: {why}", file=sys.stderr)

    for source, why in problems:
        complain(source, why)
        error = True
    # as grep: names when several inputs are given (or found), unless told
    several = (
        len(items) > 1
        or len(paths) > 1
        or bool(args.recursive)
        or any(os.path.isdir(i) or glob.has_magic(i) for i in items)
    )
    named = args.with_filename if args.with_filename is not None else several
    end_name = "\0" if args.null else ":"
    if args.header and args.format == "tsv" and not (args.count or args.files_with_matches or args.quiet):
        # with a header every row has the record column (empty for a text file): one table
        out.write("source\toffset\tdoi\tform\traw\trecord\n")
    for source, path in paths:
        prefix = source + end_name if named else ""
        count = 0
        if args.max_count == 0:
            continue  # grep -m 0: nothing read
        try:
            # record files (JSONL, Parquet, WARC, raw PDFs) are read record by record, as scan
            # reads them; every other input as a stream of text
            fmt = "text" if path == "-" else input_format(path, args.text_field, args.id_field)
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
                    log.debug("%s: %s at %d", source, doi, offset)
                    if args.quiet:
                        return 0  # grep -q: the first DOI decides, whatever else is wrong
                    if args.files_with_matches:
                        break
                    if args.count:
                        if count == args.max_count:
                            break
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
                    if count == args.max_count:
                        break  # -m NUM: the rest of this input is not read
                log.info("%s: %d DOIs (%s, syntax %s)", source, count, fmt, told.get("syntax") or "none")
        except BrokenPipeError:
            raise  # our reader has gone: not an error of this input (cli.main ends quietly)
        except OSError as exc:
            complain(source, exc.strerror or exc)
            error = True
            continue
        except (InputError, EOFError, ValueError) as exc:
            complain(source, exc)
            error = True
            continue
        if args.quiet:
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
