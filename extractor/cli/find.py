"""`doi-extract find`: grep-like, the DOIs of each input printed as they are found."""

import argparse
import contextlib
import glob
import io
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO

from ..match import Hit
from ..match.entities import entity_of
from ..pipeline.cpus import usable_cpus
from ..pipeline.errors import BinaryInput, Fatal, InputError
from ..pipeline.fields import field_note, present_fields
from ..pipeline.grep import (
    FindOptions,
    LineCounter,
    TextRange,
    count_in_range,
    doi_lists_in_range,
    hits_in_range,
    hits_in_records,
    stream_count,
    stream_doi_lists,
    stream_hits,
    text_ranges,
    type_of_input,
)
from ..pipeline.io.compression import decompressed
from ..pipeline.io.inputs import expand_inputs
from ..pipeline.io.read import lines_before, open_input, open_stream, until_cut
from ..pipeline.units import InputType, ScanConfig, ShardResult
from .levels import logs

if TYPE_CHECKING:
    import logging


class Job(NamedTuple):
    """An input as find reads it: its name as typed, its path, whether its name is printed, what
    ends the name, whether it was found by walking a folder or a pattern."""

    source: str
    path: str
    named: bool
    end_name: str
    walked: bool


class FindResult(NamedTuple):
    """What reading one input gave: its DOIs counted, whether it could not be read, and (read in
    another process) what it printed and the messages about it."""

    dois: int
    error: bool
    text: str = ""
    messages: tuple[str, ...] = ()


def _log(args: argparse.Namespace, level: str) -> "logging.Logger | None":
    """find's logger where records of `level` (DEBUG or INFO) are asked (-vv, -v, --log-level),
    or None: find logs nothing at the default level, and then loads no logging."""
    if not logs(args, level):
        return None
    import logging

    return logging.getLogger(__name__)


def _inputs(
    items: list[str], include: list[str], exclude: list[str]
) -> tuple[list[tuple[str, str, bool]], list[tuple[str, str]]]:
    """(name as the user typed it, path, whether it was found by walking) of the files to read —
    directories recursively, globs, @lists, as scan expands them — and the items that name none,
    with why. The files found in a directory or by a pattern are kept when their name matches an
    --include glob (if any) and no --exclude glob, as grep's are; a file named outright is
    always read."""
    paths: list[tuple[str, str, bool]] = []
    problems: list[tuple[str, str]] = []
    for item in items:
        if item == "-":
            paths.append(("(standard input)", "-", False))
            continue
        walked: set[str] = set()
        try:
            files, rejected = expand_inputs([item], os.devnull, None, walked, include, exclude)
        except Fatal as exc:  # a store that does not answer: this input, not the others
            problems.append((item, str(exc)))
            continue
        paths += [(source, path, path in walked) for source, path in files]
        problems += [(r["source"], r["reason"]) for r in rejected]
    return paths, problems


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
        out.write("source\toffset\tdoi\tform\traw\trecord\tentity\n")
    jobs = [Job(source, path, named, end_name, walked) for source, path, walked in paths]
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


def _input_bytes(jobs: list[Job]) -> int:
    """About how many bytes the inputs hold (an object in a store counts as large)."""
    total = 0
    for _source, path, *_ in jobs:
        with contextlib.suppress(OSError):  # a file gone since: read (and named) as missing
            total += PARALLEL_MIN if "://" in path else os.path.getsize(path)
    return total


def _found(jobs: list[Job], args: argparse.Namespace, out: TextIO, complain: Any) -> Iterator[FindResult]:
    """Each input's FindResult, in the inputs' order: read here one after the other, or by -j
    processes when there are enough bytes — several inputs, or a large text file cut into byte
    ranges as scan cuts it — their output printed in the inputs' order (as grep prints it)."""
    workers = _workers(args)
    if workers > 1 and all(job[1] != "-" for job in jobs) and _input_bytes(jobs) >= PARALLEL_MIN:
        parts = [_parts(path, source, args, workers) for source, path, *_ in jobs]
        if len(jobs) > 1 or len(parts[0]) > 1:
            yield from _in_pool(jobs, parts, args, out, min(workers, sum(map(len, parts))))
            return
    for job in jobs:
        yield find_one(job, args, out, complain)


# A range of a text file read by one worker (search.text_ranges): start, stop, kind, syntax;
# None for the whole input.
Part = tuple[int, int, str, str | None] | None


def _parts(path: str, source: str, args: argparse.Namespace, workers: int) -> list[Part]:
    """An input's parts for the workers: a large uncompressed text file its byte ranges, planned
    as scan plans it (so each reads in the kind and syntax of the whole file), when every hit
    can be printed as its range finds it — not with -u, -m, -l or -q, which read on from the
    hits before; any other input whole."""
    if _reads_on(args) or "://" in path:
        return [None]
    try:
        size = os.path.getsize(path)
        if size < 2 * SPLIT_MIN:
            return [None]
        config = ScanConfig(
            out="",
            kind=args.kind,
            syntax=None if args.syntax == "auto" else args.syntax,
            text_field=args.text_field,
            id_field=args.id_field,
            # ranges of a size that gives each worker several, so that the workers end together
            shard_size=max(SPLIT_MIN, size // (4 * workers)),
        )
        planned = text_ranges(path, source, config)
    except (OSError, InputError):
        return [None]  # read whole, where what is wrong with it is told as ever
    if planned is None or len(planned.parts) < 2:
        return [None]
    told = planned.input_type
    assert told is not None  # text_ranges gives a plan that told the text
    return [(a, b, told.kind or "plain", told.syntax or None) for a, b in planned.parts]


# A text file smaller than twice this is read by one worker; a larger one in ranges of this or more.
SPLIT_MIN = 16 << 20


def _in_pool(
    jobs: list[Job],
    parts: list[list[Part]],
    args: argparse.Namespace,
    out: TextIO,
    workers: int,
) -> Iterator[FindResult]:
    """The inputs (and the ranges of a large one) read by `workers` processes (the engines'
    ordered_map), each input's output printed whole in turn; a ranged input's count added up,
    a message about it said once."""
    from ..engines.pool import ordered_map

    # the options as plain values (the namespace holds the parser's functions too)
    plain = {k: v for k, v in vars(args).items() if isinstance(v, str | int | float | list | tuple | None)}
    results = ordered_map(
        _find_in_worker,
        [(job, plain, part) for job, ps in zip(jobs, parts, strict=True) for part in ps],
        workers,
    )
    try:
        for (source, _path, named, end_name, _walked), ps in zip(jobs, parts, strict=True):
            got = FindResult(0, False)
            messages: list[str] = []
            for _part in ps:
                one = next(results)
                out.write(one.text)
                messages += [m for m in one.messages if m not in messages]
                got = FindResult(got.dois + one.dois, got.error or one.error)
            if not args.no_messages:
                for message in messages:
                    print(message, file=sys.stderr)
            if len(ps) > 1 and args.count and not got.error:
                out.write(f"{source + end_name if named else ''}{got.dois}\n")
            yield got
        for _ in results:  # none left: the pool's end, waited for
            pass
    finally:
        results.close()


def _find_in_worker(job: Job, options: dict[str, Any], part: Part = None) -> FindResult:
    """find_one in a worker process: what it prints and says, returned to be printed in order."""
    args = argparse.Namespace(**options)
    buf = io.StringIO()
    messages: list[str] = []

    def complain(where: str, why: object) -> None:
        messages.append(f"doi-extract: {where}: {why}")

    got = find_one(Job(*job), args, buf, complain, part)
    return got._replace(text=buf.getvalue(), messages=tuple(messages))


def find_one(job: Job, args: argparse.Namespace, out: TextIO, complain: Any, part: Part = None) -> FindResult:
    """The DOIs of one input, printed to `out` as they are found, grep's way (-c, -l, -m, -q);
    with `part`, those of that byte range of it only, its count not printed (the caller adds up
    the ranges'). A binary file found by walking (`walked`) is passed over without a word, as
    ripgrep passes over one (logged at INFO); named outright, it is said, as grep says it."""
    source, path, named, end_name, walked = job
    prefix = source + end_name if named else ""
    count = 0
    debug, info = _log(args, "DEBUG"), _log(args, "INFO")
    if args.max_count == 0:
        return FindResult(0, False)  # grep -m 0: nothing read
    # where an input cut short (a partial download) stopped: its DOIs before are printed
    read = ShardResult(0)
    try:
        # record files (JSONL, Parquet, WARC, raw PDFs) are read record by record, as scan
        # reads them; every other input as a stream of text
        opts = options(args)
        if path == "-":  # nothing told of stdin but by its first bytes
            stream, comp = open_stream(sys.stdin.buffer)
            told = InputType("text", comp)
        else:
            told = type_of_input(path, opts)
            stream = decompressed(open_input(path), told.compression)
        stream = until_cut(stream, told.compression, path, read.text_cut(source))
        with stream:
            seen: set[str] = set()
            if args.format == "jsonl":
                from json import dumps  # here: a text's DOIs printed as lines need no JSON
            name = None if path == "-" else path
            lines = LineCounter() if args.line_number and told.fmt == "text" else None
            syntax: str | None = None  # the syntax the input (or its last record) is read in
            found_hits: Iterator[tuple[str | None, Hit, int | None, str | None]]
            # -c alone, of a text: the matcher's own count, no Python object per hit
            counted = args.count and not _reads_on(args)
            # a range of the file is read in its file's kind and syntax
            in_range = None
            if part is not None:
                start, stop, kind, syntax = part
                in_range = TextRange(path, start, stop, kind, args.other_prefixes, syntax, args.derive)
            if counted and in_range is not None:
                count = count_in_range(in_range)
                found_hits = iter(())
            elif counted and told.fmt == "text":
                syntax, count = stream_count(stream, name or "", opts)
                found_hits = iter(())
            elif _one_doi_a_line(args) and (in_range is not None or told.fmt == "text"):
                # a text's DOIs a line each, nothing else: written a window at a time, no Hit made
                if in_range is not None:
                    lists = doi_lists_in_range(in_range)
                else:
                    syntax, lists = stream_doi_lists(stream, name or "", opts)
                for dois in lists:
                    count += len(dois)
                    out.write("".join([prefix + doi + "\n" for doi in dois]))
                found_hits = iter(())
            elif in_range is not None:
                # a range's lines count from its start: the newlines of the ranges before it added
                base = lines_before(path, start) if args.line_number else 0
                found_hits = (
                    (None, h, None if line is None else line + base, syntax)
                    for line, h in hits_in_range(in_range)
                )
            elif told.fmt == "text":
                syntax, text_hits = stream_hits(stream, name or "", opts, lines)
                found_hits = ((None, h, None, syntax) for h in text_hits)
            else:  # a record file, record by record as scan reads it
                found_hits = (
                    (r.record, r.hit, None, r.syntax) for r in hits_in_records(path, told, opts, read)
                )
            for record, hit, line, syntax in found_hits:
                doi, offset, raw = hit.doi, hit.start, hit.raw
                if args.unique:
                    if doi in seen:
                        continue
                    seen.add(doi)
                count += 1
                if debug is not None:
                    debug.debug("%s: %s at %d", source, doi, offset)
                if args.quiet:
                    return FindResult(count, False)  # grep -q: the first DOI decides
                if args.files_with_matches:
                    break
                if args.count:
                    if count == args.max_count:
                        break
                    continue
                if args.format == "tsv":
                    # a record input adds its record id as a sixth column
                    # and what the DOI names (spec §6) last, so that no column moves
                    rec_col = "" if told.fmt == "text" and not args.header else "\t" + _tsv(record or "")
                    row = f"{_tsv(source)}\t{offset}\t{_tsv(doi)}\t{hit.form}\t{_tsv(raw)}{rec_col}"
                    out.write(f"{row}\t{entity_of(doi)}\n")
                elif args.format == "jsonl":
                    rec = {
                        "source": source,
                        **({} if told.fmt == "text" else {"record": record}),
                        "offset": offset,
                        "end": hit.end,
                        "doi": doi,
                        "form": str(hit.form),
                        "entity": entity_of(doi),
                        "raw": raw,
                        **({"syntax": syntax} if syntax else {}),
                    }
                    out.write(dumps(rec, ensure_ascii=False) + "\n")
                elif args.line_number:
                    if line is not None:
                        where = str(line)
                    else:
                        where = str(lines.line_of(offset)) if lines is not None else (record or "")
                    out.write(f"{prefix}{where}:{doi}\n")
                else:
                    out.write(prefix + doi + "\n")
                if count == args.max_count:
                    break  # -m NUM: the rest of this input is not read
            if info is not None:
                info.info("%s: %d DOIs (%s, syntax %s)", source, count, told.fmt, syntax or "none")
    except BrokenPipeError:
        raise  # our reader has gone: not an error of this input (cli.main ends quietly)
    except OSError as exc:
        complain(source, exc.strerror or exc)
        return FindResult(count, True)
    except BinaryInput as exc:
        if walked:
            if info is not None:
                info.info("%s: passed over, %s", source, exc)
            return FindResult(0, False)
        complain(source, exc)
        return FindResult(count, True)
    except (InputError, EOFError, ValueError) as exc:
        complain(source, exc)
        return FindResult(count, True)
    for p in read.partial:
        complain(source, f"cut short at {p['at']} ({p['reason']}); the DOIs before it are given")
    cut = bool(read.partial)
    for held in read.fields.values():  # a field named that no record holds: said, as a bad --text-field is
        for option, field in held["unheld"]:
            present = present_fields(path, told.fmt, told.compression, field)
            complain(source, field_note(source, option, field, held["records"], present)["what"])
            cut = True
    if args.quiet or part is not None:
        return FindResult(count, cut)
    if args.files_with_matches and count:
        out.write(source + ("\0" if args.null else "\n"))
    elif args.count:
        out.write(f"{prefix}{count}\n")
    return FindResult(count, cut)


def _reads_on(args: argparse.Namespace) -> bool:
    """Whether an option reads an input's hits on from those before (-u, -m, -l, -q): neither
    counted by the matcher nor cut into ranges."""
    return bool(args.unique or args.max_count is not None or args.files_with_matches or args.quiet)


def _one_doi_a_line(args: argparse.Namespace) -> bool:
    """Whether find prints each DOI alone on its line, every DOI (no -n, -c, -u, -m, -l or -q,
    the plain format) and logs none of them."""
    return (
        args.format == "plain"
        and not (args.line_number or args.count or _reads_on(args))
        and _log(args, "DEBUG") is None
    )


def options(args: argparse.Namespace) -> FindOptions:
    """How the command line asks find to read its inputs."""
    return FindOptions(
        kind=args.kind,
        syntax=None if args.syntax == "auto" else args.syntax,
        allow_other_prefix=args.other_prefixes,
        derive=args.derive,
        text_field=args.text_field,
        id_field=args.id_field,
    )


_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _tsv(field: str) -> str:
    """A TSV field with backslash, tab and line breaks escaped (a file name may hold any of them),
    as the linear TSV convention writes them."""
    return field.translate(_TSV_ESCAPES)
