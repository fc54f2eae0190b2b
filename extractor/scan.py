"""`doi-extract scan`: a corpus in, deduplicated Parquet out, over worker processes.

A thin shell around `shard.run_shard` (the work) and `dedupe.merge_bucket` (the merge): this
module expands inputs, plans shards, runs them in a process pool with resumable completion
markers, owns the progress display, and writes the final datasets and `_run.json`.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import queue
import shutil
import sys
import tempfile
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

import pyarrow as pa

from . import __version__
from .dedupe import merge_bucket
from .find import KINDS
from .procs import die_with_parent
from .procs import mp_context as _mp_context
from .read import detect_compression, display_name
from .shard import (
    InputError,
    Options,
    PartRef,
    ShardResult,
    ShardSpec,
    completed_parts,
    is_transient,
    run_shard,
    shard_paths,
)
from .write import (
    DOIS_SCHEMA,
    MENTIONS_SCHEMA,
    OCCURRENCES_SCHEMA,
    PARTIAL_SCHEMA,
    atomically,
    read_part,
    write_arrow,
    write_table,
)

DEFAULT_SHARD_BYTES = 32 << 20
_SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__"}


def add_scan_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("inputs", nargs="+", help="files, directories, glob patterns, @LIST files, or - for stdin")
    ap.add_argument("-o", "--out", required=True, help="output folder (created; rerunning resumes)")
    ap.add_argument("--workers", "-j", type=int, default=os.cpu_count() or 1, help="worker processes (default: all cores)")
    ap.add_argument("--kind", choices=KINDS, help="input kind for every text input (default: detected)")
    ap.add_argument("--text-field", default="text", help="record field/column holding the text (JSONL, Parquet)")
    ap.add_argument("--id-field", default="id", help="record field/column holding the record id")
    ap.add_argument("--occurrences", action="store_true", help="also write every hit to occurrences/")
    ap.add_argument("--force", action="store_true", help="start over: discard earlier results in OUT")
    ap.add_argument("--quiet", "-q", action="store_true", help="no progress bar or status lines")
    ap.add_argument("--buckets", type=int, default=16, help="hash buckets for deduplication (memory per merge step)")
    ap.add_argument("--shard-size", type=int, default=DEFAULT_SHARD_BYTES, help="split uncompressed text files larger than this many bytes")
    ap.add_argument("--other-prefixes", action="store_true", help="accept non-10 prefixes behind a doi: label")


# ----------------------------------------------------------------------------- inputs


def expand_inputs(
    items: list[str], spool_dir: str, out: str | None = None
) -> tuple[list[tuple[str, str]], list[dict[str, str]]]:
    """(source as given, path) for every input file, and the inputs rejected with reasons.

    Files inside the output folder `out` are never inputs (scanning "." into ./out)."""
    files: list[tuple[str, str]] = []
    rejected: list[dict[str, str]] = []
    seen: set[str] = set()
    out_real = os.path.join(os.path.realpath(out), "") if out else None

    def add(source: str, path: str) -> None:
        key = os.path.realpath(path)
        if out_real and key.startswith(out_real):
            return
        if key not in seen:
            seen.add(key)
            files.append((display_name(source), path))

    def expand(item: str, depth: int = 0) -> None:
        if item == "-":
            os.makedirs(spool_dir, exist_ok=True)
            path = os.path.join(spool_dir, "stdin")
            with open(path, "wb") as f:
                shutil.copyfileobj(sys.stdin.buffer, f, 1 << 20)
            files.append(("-", path))
            return
        if item.startswith("@") and depth < 4:
            try:
                with open(item[1:], encoding="utf-8") as f:
                    for line in f:
                        line = line.strip()
                        if line and not line.startswith("#"):
                            expand(line, depth + 1)
            except OSError as exc:
                rejected.append({"source": display_name(item), "reason": f"cannot read list: {exc.strerror or exc}"})
            return
        if os.path.isdir(item):
            for root, dirs, names in os.walk(item):
                dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
                for name in sorted(names):
                    if not name.startswith("."):
                        path = os.path.join(root, name)
                        add(path, path)
            return
        if os.path.exists(item):
            add(item, item)
            return
        if glob.has_magic(item):
            matches = sorted(glob.glob(item, recursive=True))
            if not matches:
                rejected.append({"source": display_name(item), "reason": "no file matches the pattern"})
            for path in matches:
                expand(path, depth + 1) if os.path.isdir(path) else add(path, path)
            return
        rejected.append({"source": display_name(item), "reason": "no such file or directory"})

    for item in items:
        expand(item)
    return files, rejected


def _format_of(path: str, head: bytes) -> str:
    name = path.lower()
    for suffix in (".gz", ".bz2", ".xz", ".zst", ".zstd"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    if head.startswith(b"PAR1"):
        return "parquet"
    if name.endswith((".jsonl", ".ndjson", ".jsonlines")):
        return "jsonl"
    return "text"


def _line_cut(f: Any, pos: int) -> int:
    """The offset just after the first newline at or after `pos` (or the end of file)."""
    f.seek(pos)
    while True:
        chunk = f.read(1 << 16)
        if not chunk:
            return f.tell()
        i = chunk.find(b"\n")
        if i >= 0:
            return f.tell() - len(chunk) + i + 1


MAX_GROUP_FILES = 4096


def plan_shards(files: list[tuple[str, str]], args: argparse.Namespace, opts_key: str) -> tuple[list[ShardSpec], list[dict[str, str]], int]:
    """Shards for the input files, rejected inputs, and the total bytes to read.

    A large uncompressed text file is split into byte ranges cut at line ends; a Parquet file
    is a shard per row group; other large files are a shard each; small files are grouped, in
    input order, into shards of about --shard-size bytes.
    """
    specs: list[ShardSpec] = []
    rejected: list[dict[str, str]] = []
    total = 0
    group: list[tuple[str, str, str]] = []
    group_ident: list[str] = []
    group_bytes = 0

    def key_of(ident: str) -> str:
        return hashlib.blake2b(f"{ident}|{opts_key}".encode("utf-8", "surrogateescape"), digest_size=8).hexdigest()

    def flush() -> None:
        nonlocal group, group_ident, group_bytes
        if group:
            src, path, _fmt = group[0]
            specs.append(ShardSpec(len(specs), src, path, "group", args.kind, 0, -1, key_of("\n".join(group_ident)),
                                   tuple(group)))
        group, group_ident, group_bytes = [], [], 0

    for source, path in files:
        try:
            st = os.stat(path)
            with open(path, "rb") as f:
                head = f.read(8)
                fmt = _format_of(path, head)
                comp = detect_compression(head)
                ident = f"{os.path.realpath(path)}|{st.st_size}|{st.st_mtime_ns}|{fmt}"
                parts: list[tuple[int, int]] | None = None
                if fmt == "parquet":
                    import pyarrow.parquet as pq  # only for Parquet inputs: start-up is part of every run

                    n = pq.ParquetFile(path).num_row_groups
                    parts = [(g, g) for g in range(n)] or [(0, -1)]
                elif fmt == "text" and comp is None and st.st_size > args.shard_size:
                    cuts = [0]
                    while cuts[-1] + args.shard_size < st.st_size:
                        c = _line_cut(f, cuts[-1] + args.shard_size)
                        if c >= st.st_size:
                            break
                        cuts.append(c)
                    parts = [(a, b) for a, b in zip(cuts, [*cuts[1:], -1], strict=True)]
                elif st.st_size >= args.shard_size:
                    parts = [(0, -1)]
        except OSError as exc:
            rejected.append({"source": source, "reason": exc.strerror or str(exc)})
            continue
        except Exception as exc:  # a corrupt Parquet footer
            rejected.append({"source": source, "reason": f"{type(exc).__name__}: {exc}"})
            continue
        total += st.st_size
        if parts is None:
            group.append((source, path, fmt))
            group_ident.append(ident)
            group_bytes += st.st_size
            if group_bytes >= args.shard_size or len(group) >= MAX_GROUP_FILES:
                flush()
            continue
        flush()
        for a, b in parts:
            specs.append(ShardSpec(len(specs), source, path, fmt, args.kind, a, b, key_of(f"{ident}|{a}|{b}")))
    flush()
    return specs, rejected, total


# ----------------------------------------------------------------------------- workers

_QUEUE: Any = None


def _init_worker(q: Any) -> None:
    global _QUEUE
    _QUEUE = q
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    die_with_parent()


class _Throttle:
    """Sends progress to the parent at most every 0.25 s."""

    def __init__(self) -> None:
        self.bytes = 0
        self.hits = 0
        self.last = time.monotonic()

    def __call__(self, nbytes: int, nhits: int) -> None:
        self.bytes += nbytes
        self.hits += nhits
        now = time.monotonic()
        if now - self.last >= 0.25:
            self.flush()
            self.last = now

    def flush(self) -> None:
        if _QUEUE is not None and (self.bytes or self.hits):
            _QUEUE.put((self.bytes, self.hits))
        self.bytes = self.hits = 0


def _warm_up() -> None:
    """Import and initialise what merge_bucket uses (Arrow compute, Acero, Parquet)."""
    import pyarrow.parquet  # noqa: F401 - loaded for the merges that follow

    pa.table({"k": [1], "v": [1]}).group_by("k", use_threads=False).aggregate([("v", "sum")])


RETRIES = 3


class _Fatal(Exception):
    """An error that stops the run: not an unreadable input, not a passing fault."""


def _work(spec: ShardSpec, opts: Options) -> ShardResult:
    """Worker entry point: run a shard, retrying passing faults; an unreadable input becomes a
    result with an error."""
    progress = _Throttle()
    for attempt in range(RETRIES):
        try:
            result = run_shard(spec, opts, progress)
            break
        except InputError as exc:
            if is_transient(exc) and attempt + 1 < RETRIES:
                time.sleep(0.5 * 2**attempt)
                continue
            result = ShardResult(spec.index, error=str(exc))
            break
        except MemoryError:
            result = ShardResult(spec.index, error="out of memory reading this input")
            break
    progress.flush()
    return result


# ----------------------------------------------------------------------------- progress


class _Progress:
    """Progress owned by the parent: a tqdm bar on a terminal, status lines in logs, or nothing."""

    def __init__(self, total_bytes: int, total_files: int, quiet: bool) -> None:
        self.total = total_bytes
        self.files_total = total_files
        self.bytes = self.hits = self.files = 0
        self.t0 = time.monotonic()
        self.last_line = self.t0
        self.bar = None
        self.quiet = quiet
        if not quiet and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total_bytes, unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr, smoothing=0.1)

    def update(self, nbytes: int, nhits: int) -> None:
        self.bytes += nbytes
        self.hits += nhits
        if self.bar is not None:
            self.bar.update(nbytes)
            self.bar.set_postfix_str(f"files {self.files}/{self.files_total} DOIs {self.hits}", refresh=False)
        elif not self.quiet and time.monotonic() - self.last_line >= 30:
            self.last_line = time.monotonic()
            print(self.status(), file=sys.stderr, flush=True)

    def status(self) -> str:
        dt = max(1e-9, time.monotonic() - self.t0)
        return (f"doi-extract scan: {self.bytes / 1e6:.1f}/{self.total / 1e6:.1f} MB, shards {self.files}/{self.files_total}, "
                f"{self.hits} DOIs, {self.bytes / 1e6 / dt:.1f} MB/s")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# ----------------------------------------------------------------------------- the run


# The layout of a shard's partial results (part files, marker, bucket hash): a shard completed
# under another layout is not reused, it is redone.
PARTS_FORMAT = 2


def _opts_key(args: argparse.Namespace) -> str:
    ident = json.dumps([__version__, PARTS_FORMAT, args.kind, args.text_field, args.id_field, args.occurrences,
                        args.buckets, args.other_prefixes])
    return hashlib.blake2b(ident.encode(), digest_size=6).hexdigest()


def _clear(out: str) -> None:
    for name in ("_work", "_shards", "mentions", "dois", "occurrences", "_run.json", "_spool"):
        p = os.path.join(out, name)
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.remove(p)


def _publish(out: str, name: str, tmpdir: str) -> None:
    """Put a finished dataset folder in place: the old one is moved aside, then removed."""
    final = os.path.join(out, name)
    old = None
    if os.path.exists(final):
        old = tempfile.mkdtemp(prefix=f".{name}.old-", dir=out)
        os.replace(final, os.path.join(old, name))
    os.replace(tmpdir, final)
    if old:
        shutil.rmtree(old, ignore_errors=True)


def merge_bucket_files(files: list[PartRef], dest_mentions: str, dest_dois: str) -> tuple[int, int]:
    """Merge one bucket's partial rows into its mentions and DOI part files; row counts."""
    table = pa.concat_tables([read_part(*ref) for ref in files]).cast(PARTIAL_SCHEMA)
    mentions, dois = merge_bucket(table)
    del table
    write_arrow(dest_mentions, mentions)
    write_arrow(dest_dois, dois)
    return mentions.num_rows, dois.num_rows


def finalize(
    out: str, specs: list[ShardSpec], done: dict[int, ShardResult], opts: Options, pool: ProcessPoolExecutor | None = None
) -> dict[str, int]:
    """Merge the partial results bucket by bucket (buckets in parallel) into mentions/ and
    dois/, and gather occurrences/; the datasets are published when complete."""
    counts = {"mentions": 0, "dois": 0, "occurrences": 0}
    parts = [completed_parts(out, s) for s in specs if s.index in done and done[s.index].error is None]
    staging = {n: tempfile.mkdtemp(prefix=f".{n}.tmp-", dir=out) for n in ("mentions", "dois")}
    try:
        jobs = []
        for b in range(opts.buckets):
            files = [f for p in parts if p is not None for f in p[0].get(b, [])]
            if files:
                jobs.append((files, os.path.join(staging["mentions"], f"part-{b:05d}.parquet"),
                             os.path.join(staging["dois"], f"part-{b:05d}.parquet")))
        if pool is not None and len(jobs) > 1:
            results = list(pool.map(merge_bucket_files, *zip(*jobs, strict=True)))
        else:
            results = [merge_bucket_files(*job) for job in jobs]
        for n_mentions, n_dois in results:
            counts["mentions"] += n_mentions
            counts["dois"] += n_dois
        if not jobs:  # nothing found: still a dataset with its schema, so that readers work
            write_table(os.path.join(staging["mentions"], "part-00000.parquet"), {}, MENTIONS_SCHEMA)
            write_table(os.path.join(staging["dois"], "part-00000.parquet"), {}, DOIS_SCHEMA)
        if opts.occurrences:
            import pyarrow.parquet as pq

            staging["occurrences"] = tempfile.mkdtemp(prefix=".occurrences.tmp-", dir=out)
            i = 0
            for p in parts:
                for path in p[1] if p is not None else []:
                    t = pq.read_table(path, schema=OCCURRENCES_SCHEMA)
                    counts["occurrences"] += t.num_rows
                    if t.num_rows:
                        pq.write_table(t, os.path.join(staging["occurrences"], f"part-{i:05d}.parquet"), compression="zstd")
                        i += 1
        for name, tmpdir in staging.items():
            _publish(out, name, tmpdir)
    except BaseException:
        # Interrupted or failed: nothing is published, and no staging folder is left behind.
        for tmpdir in staging.values():
            shutil.rmtree(tmpdir, ignore_errors=True)
        raise
    return counts


def cmd_scan(args: argparse.Namespace) -> int:
    """Run a scan; exit 0 when every input was read, 1 when any was rejected, 2 on a fatal error."""
    t0 = time.monotonic()
    out = args.out
    if args.workers < 1 or args.buckets < 1 or args.shard_size < 1:
        print("doi-extract scan: --workers, --buckets and --shard-size must be positive", file=sys.stderr)
        return 2
    try:
        os.makedirs(out, exist_ok=True)
        if args.force:
            _clear(out)
        for stale in glob.glob(os.path.join(out, ".*.tmp-*")) + glob.glob(os.path.join(out, ".*.old-*")):
            shutil.rmtree(stale, ignore_errors=True)
    except OSError as exc:
        print(f"doi-extract scan: cannot use output folder {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    opts = Options(os.path.abspath(out), args.buckets, args.occurrences, args.text_field, args.id_field, args.other_prefixes)
    files, rejected = expand_inputs(args.inputs, os.path.join(out, "_spool"), out)
    specs, rej2, total = plan_shards(files, args, _opts_key(args))
    rejected += rej2
    for r in rejected:
        print(f"doi-extract scan: rejected {r['source']}: {r['reason']}", file=sys.stderr)

    done: dict[int, ShardResult] = {}
    todo: list[ShardSpec] = []
    for s in specs:
        marker = shard_paths(opts.out, s)[2]
        if os.path.exists(marker):
            with open(marker, encoding="utf-8") as f:
                done[s.index] = ShardResult(**json.load(f)["result"])
            rejected.extend(done[s.index].rejected)
        else:
            todo.append(s)
    resumed = len(done)
    progress = _Progress(total, len(specs), args.quiet)
    progress.files = resumed
    interrupted = False
    pool: ProcessPoolExecutor | None = None
    try:
        if todo or args.workers > 1:
            # One pool for the shards and then the bucket merges: workers start once.
            ctx = _mp_context()
            q = ctx.Queue()
            pool = ProcessPoolExecutor(max_workers=min(args.workers, max(len(todo), opts.buckets)), mp_context=ctx,
                                       initializer=_init_worker, initargs=(q,))
        try:
            # Largest first, so that no worker is left with a big shard at the end; the output
            # order depends on shard numbers only.
            by_size = sorted(todo, key=lambda s: -_shard_bytes(s))
            pending: set[Future[ShardResult]] = {pool.submit(_work, s, opts) for s in by_size} if pool else set()
            if pool is not None and args.workers > 1:
                # Queued behind the shards: a worker out of shards, waiting for the others, loads
                # what the bucket merges need instead of loading it on the merges' clock.
                for _ in range(args.workers):
                    pool.submit(_warm_up)
            while pending:
                finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                _drain(q, progress)
                for fut in finished:
                    try:
                        res = fut.result()
                    except Exception as exc:  # fatal: a fault of the program or system
                        raise _Fatal(f"{type(exc).__name__}: {exc}") from exc
                    done[res.index] = res
                    progress.files += 1
                    problems = list(res.rejected)
                    if res.error:
                        problems.append({"source": specs[res.index].source, "reason": res.error})
                    for r in problems:
                        rejected.append(r)
                        print(f"doi-extract scan: rejected {r['source']}: {r['reason']}", file=sys.stderr)
            if pool is not None:
                _drain(q, progress)
        except BaseException:
            # On Ctrl-C, queued shards are dropped; running ones finish (each is atomic).
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
                pool = None
            raise
    except KeyboardInterrupt:
        interrupted = True
    except _Fatal as exc:
        progress.close()
        print(f"doi-extract scan: fatal error, stopping (completed shards are kept): {exc}", file=sys.stderr)
        return 2
    finally:
        progress.close()
    if interrupted:
        print("doi-extract scan: interrupted; completed shards are kept, rerun the same command to resume", file=sys.stderr)
        return 130
    try:
        counts = finalize(opts.out, specs, done, opts, pool if args.workers > 1 else None)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    ok = [r for r in done.values() if r.error is None]
    run = {
        "version": __version__,
        "inputs": [
            {"source": src, "path": display_name(path), "format": fmt, "shard": s.index}
            for s in specs
            for src, path, fmt in (s.files or ((s.source, s.path, s.fmt),))
        ],
        "options": {k: v for k, v in vars(args).items() if k not in ("inputs", "func")},
        "bytes_read": sum(r.bytes_read for r in ok),
        "input_bytes": total,
        "documents": sum(r.documents for r in ok),
        "hits": sum(r.hits for r in ok),
        "mentions": counts["mentions"],
        "distinct_dois": counts["dois"],
        "occurrences_written": counts["occurrences"],
        "invalid_bytes_replaced": sum(r.invalid_bytes for r in ok),
        "candidates_too_long": sum(r.too_long for r in ok),
        "records_skipped": sum(r.skipped_records for r in ok),
        "shards": len(specs),
        "shards_resumed": resumed,
        "rejected": rejected,
        "timings": {"wall_seconds": round(time.monotonic() - t0, 3), "shard_seconds": round(sum(r.seconds for r in ok), 3)},
    }
    with atomically(os.path.join(out, "_run.json")) as tmp, open(tmp, "w", encoding="utf-8", errors="backslashreplace") as f:
        json.dump(run, f, indent=2, ensure_ascii=False, default=str)
    if not args.quiet:
        print(f"doi-extract scan: {len(specs)} shards, {run['bytes_read'] / 1e6:.1f} MB, {run['hits']} hits, "
              f"{counts['dois']} distinct DOIs in {run['timings']['wall_seconds']} s -> {out}", file=sys.stderr)
    return 1 if rejected else 0


def _shard_bytes(spec: ShardSpec) -> int:
    """About how many bytes a shard reads (for the order of work only)."""
    if spec.stop >= 0 and spec.fmt == "text":
        return spec.stop - spec.start
    try:
        return sum(os.path.getsize(p) for _s, p, _f in spec.files) if spec.files else os.path.getsize(spec.path)
    except OSError:
        return 0


def _drain(q: Any, progress: _Progress) -> None:
    while True:
        try:
            nbytes, nhits = q.get_nowait()
        except queue.Empty:
            return
        progress.update(nbytes, nhits)


