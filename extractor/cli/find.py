"""`doi-extract find`: grep-like, the DOIs of each input printed as they are found."""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import glob
import io
import json
import logging
import os
import sys
from collections.abc import Iterator
from typing import Any, NamedTuple, TextIO

from ..pipeline.errors import Fatal, InputError
from ..pipeline.inputs import expand_inputs
from ..pipeline.read import open_stream, usable_cpus
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
    jobs = [(source, path, named, end_name) for source, path in paths]
    for got in _found(jobs, args, out, complain):
        found = found or got.dois > 0
        error = error or got.error
        if args.quiet and got.dois:
            return 0  # grep -q: the first DOI decides, whatever else is wrong
    if error:
        return 2
    return 0 if found else 1


# Below this many bytes of input find reads them in its own process: starting workers would
# cost more than they save (as scan runs a small job in its own process).
PARALLEL_MIN = 32 << 20


def _workers(args: argparse.Namespace) -> int:
    """-j: the processes to read inputs in (default: the CPUs this process may use)."""
    return max(1, args.jobs) if args.jobs is not None else usable_cpus()


def _input_bytes(jobs: list[tuple[str, str, bool, str]]) -> int:
    """About how many bytes the inputs hold (an object in a store counts as large)."""
    total = 0
    for _source, path, _named, _end in jobs:
        with contextlib.suppress(OSError):  # a file gone since: read (and named) as missing
            total += PARALLEL_MIN if "://" in path else os.path.getsize(path)
    return total


def _found(
    jobs: list[tuple[str, str, bool, str]], args: argparse.Namespace, out: TextIO, complain: Any
) -> Iterator[Found]:
    """Each input's Found, in the inputs' order: read here one after the other, or by -j
    processes when there are several inputs and enough bytes, their output printed in the
    inputs' order (as grep prints it)."""
    workers = min(_workers(args), len(jobs))
    if workers > 1 and all(path != "-" for _s, path, _n, _e in jobs) and _input_bytes(jobs) >= PARALLEL_MIN:
        yield from _in_pool(jobs, args, out, workers)
        return
    for source, path, named, end_name in jobs:
        yield find_one(source, path, named, end_name, args, out, complain)


def _in_pool(
    jobs: list[tuple[str, str, bool, str]], args: argparse.Namespace, out: TextIO, workers: int
) -> Iterator[Found]:
    """The inputs read by `workers` processes, each input's output printed whole in turn."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # fork: this process holds no thread here, and a worker then starts at once
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
    pool = ProcessPoolExecutor(workers, mp_context=ctx)
    try:
        # the options as plain values (the namespace holds the parser's functions too)
        plain = {
            k: v for k, v in vars(args).items() if isinstance(v, str | int | float | list | tuple | None)
        }
        futures = [pool.submit(_find_in_worker, job, plain) for job in jobs]
        for fut in futures:
            got = fut.result()
            if not args.no_messages:
                for message in got.messages:
                    print(message, file=sys.stderr)
            out.write(got.text)
            yield got
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _find_in_worker(job: tuple[str, str, bool, str], options: dict[str, Any]) -> Found:
    """find_one in a worker process: what it prints and says, returned to be printed in order."""
    args = argparse.Namespace(**options)
    buf = io.StringIO()
    messages: list[str] = []

    def complain(where: str, why: object) -> None:
        messages.append(f"doi-extract: {where}: {why}")

    got = find_one(*job, args, buf, complain)
    return got._replace(text=buf.getvalue(), messages=tuple(messages))


class Found(NamedTuple):
    """What reading one input gave: its DOIs counted, whether it could not be read, and (read in
    another process) what it printed and the messages about it."""

    dois: int
    error: bool
    text: str = ""
    messages: tuple[str, ...] = ()


def find_one(
    source: str, path: str, named: bool, end_name: str, args: argparse.Namespace, out: TextIO, complain: Any
) -> Found:
    """The DOIs of one input, printed to `out` as they are found, grep's way (-c, -l, -m, -q)."""
    prefix = source + end_name if named else ""
    count = 0
    if args.max_count == 0:
        return Found(0, False)  # grep -m 0: nothing read
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
                count += 1
                log.debug("%s: %s at %d", source, doi, offset)
                if args.quiet:
                    return Found(count, False)  # grep -q: the first DOI decides
                if args.files_with_matches:
                    break
                if args.count:
                    if count == args.max_count:
                        break
                    continue
                if args.format == "tsv":
                    # a record input adds its record id as a sixth column
                    rec_col = "" if fmt == "text" and not args.header else "\t" + _tsv(record or "")
                    out.write(f"{_tsv(source)}\t{offset}\t{_tsv(doi)}\t{hit.form}\t{_tsv(raw)}{rec_col}\n")
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
        return Found(count, True)
    except (InputError, EOFError, ValueError) as exc:
        complain(source, exc)
        return Found(count, True)
    if args.quiet:
        return Found(count, False)
    if args.files_with_matches and count:
        out.write(source + ("\0" if args.null else "\n"))
    elif args.count:
        out.write(f"{prefix}{count}\n")
    return Found(count, False)


_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _tsv(field: str) -> str:
    """A TSV field with backslash, tab and line breaks escaped (a file name may hold any of them),
    as the linear TSV convention writes them."""
    return field.translate(_TSV_ESCAPES)
