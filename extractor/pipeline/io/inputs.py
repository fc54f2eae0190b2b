"""What a scan reads: inputs expanded to files, and files planned into shards."""

from __future__ import annotations

import fnmatch
import glob
import os
import stat
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..cpus import usable_cpus
from ..errors import InputError, NotStarted, StoreError, StoreUnreachable, rejected_entry
from ..formats import FORMAT_HEAD, FORMATS, PlanInput, split_names, tell_input
from ..formats.base import GzipPass, Planned
from ..units import InputType, ScanConfig, ShardSpec
from . import remote
from .cuts import GzipPlan
from .read import display_name, open_input

_SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__"}


class RealPaths:
    """os.path.realpath with each folder resolved once: a tree of many small files cost ~8
    lstat calls a file, twice over (a fixed cost per file); a file that is itself a symbolic
    link is still resolved whole."""

    def __init__(self) -> None:
        self._dirs: dict[str, str] = {}

    def __call__(self, path: str, link: bool | None = None) -> str:
        """The real path of `path`; `link`: whether it is a symbolic link, when known."""
        folder, name = os.path.split(path)
        if not name or name in (".", "..") or (os.path.islink(path) if link is None else link):
            return os.path.realpath(path)
        real = self._dirs.get(folder)
        if real is None:
            real = self._dirs[folder] = os.path.realpath(folder or ".")
        return os.path.join(real, name)


def wanted(name: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    """Whether a file name matches an --include glob (when there are any) and no --exclude glob."""
    if include and not any(fnmatch.fnmatch(name, g) for g in include):
        return False
    return not any(fnmatch.fnmatch(name, g) for g in exclude)


def expand_inputs(
    items: list[str],
    spool_dir: str,
    out: str | None = None,
    walked: set[str] | None = None,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> tuple[list[tuple[str, str]], list[dict[str, str]]]:
    """(source as given, absolute path or URL) for every input file, and the inputs rejected
    with reasons; `walked`, when given, gets the paths found by walking a folder or matching a
    pattern (not named outright). Those are kept when their name matches an `include` glob (if
    any) and no `exclude` glob, as grep's --include and --exclude keep them; a file named
    outright always is.

    Files inside the output folder `out` are never inputs (scanning "." into ./out)."""
    files: list[tuple[str, str]] = []
    rejected: list[dict[str, str]] = []
    seen: set[str] = set()
    out_real = os.path.join(os.path.realpath(out), "") if out else None
    realpath = RealPaths()

    def add(source: str, path: str, found: bool = False) -> None:
        url = remote.is_url(path)
        key = path if url else realpath(path)
        if out_real and key.startswith(out_real):
            return
        if found and not wanted(os.path.basename(path), include, exclude):
            return
        if key not in seen:
            seen.add(key)
            # absolute: a shard may be read by a process elsewhere (a Dask worker started in
            # another folder: a relative input was "no such file" there); shown as given
            files.append((display_name(source), path if url else os.path.abspath(path)))
            if found and walked is not None:
                walked.add(files[-1][1])

    def expand(item: str, depth: int = 0) -> None:
        if item == "-":
            os.makedirs(spool_dir, exist_ok=True)
            path = os.path.join(spool_dir, "stdin")
            with open(path, "wb") as f:
                import shutil

                shutil.copyfileobj(sys.stdin.buffer, f, 1 << 20)
            files.append(("-", path))
            return
        if remote.is_url(item):
            try:
                for url in remote.expand(item):
                    add(url, url, url != item)
            except StoreUnreachable as exc:  # no input of it can be read: the run cannot work
                raise NotStarted(f"{display_name(item)}: {exc}") from exc
            except StoreError as exc:
                rejected.append({"source": display_name(item), "reason": str(exc)})
            return
        item = remote.local_path(item)
        if item.startswith("@") and depth < 4:
            try:
                with open(item[1:], encoding="utf-8") as listing:
                    for line in listing:
                        line = line.strip()
                        if line and not line.startswith("#"):
                            expand(line, depth + 1)
            except OSError as exc:
                rejected.append(
                    {"source": display_name(item), "reason": f"cannot read list: {exc.strerror or exc}"}
                )
            return
        if os.path.isdir(item):
            if out_real and os.path.join(os.path.realpath(item), "").startswith(out_real):
                rejected.append(
                    {"source": display_name(item), "reason": "is the output folder, or inside it"}
                )
                return

            def unreadable(exc: OSError) -> None:
                where = display_name(exc.filename or item)
                rejected.append({"source": where, "reason": f"cannot read directory: {exc.strerror or exc}"})

            for root, dirs, names in os.walk(item, onerror=unreadable):
                dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
                for name in sorted(names):
                    if not name.startswith("."):
                        path = os.path.join(root, name)
                        add(path, path, True)
            return
        if os.path.exists(item):
            add(item, item)
            return
        if glob.has_magic(item):
            matches = sorted(glob.glob(item, recursive=True))
            if not matches:
                rejected.append({"source": display_name(item), "reason": "no file matches the pattern"})
            for path in matches:
                expand(path, depth + 1) if os.path.isdir(path) else add(path, path, True)
            return
        rejected.append({"source": display_name(item), "reason": "no such file or directory"})

    for item in items:
        expand(item)
    return files, rejected


MAX_GROUP_FILES = 4096

# Runs the passes over large compressed files (seekgz.plan_ranges's arguments, a tuple a file)
# and gives each file's ranges, or None where it stays one shard: an engine's map.
Passes = Callable[[list[tuple[Any, ...]]], list[GzipPlan | None]]


def _passes_here(jobs: list[tuple[Any, ...]]) -> list[GzipPlan | None]:
    """The passes in this process, one after another."""
    from . import seekgz

    return [seekgz.plan_ranges(*job) for job in jobs]


def plan_shards(
    files: list[tuple[str, str]], config: ScanConfig, passes: Passes | None = None, workers: int | None = None
) -> tuple[list[ShardSpec], list[dict[str, str]], int]:
    """Shards for the input files, rejected inputs, and the total bytes to read.

    A large file is planned by its format (formats/): an uncompressed text or JSONL file in byte
    ranges cut at line ends, a Parquet file (by its name, or a large one by its contents) a
    shard per row group, others a shard each; small files are grouped, in input order, into
    shards of about --shard-size bytes, planned from their sizes alone (the shard tells each
    one's format). A large gzip or bzip2 file to be cut in ranges of its text needs a pass over
    it (io/seekgz.py): `passes` runs them all at once (the scan's engine: a cluster's workers
    read the files, not the planner; in this process when not given), and a file stays one
    shard where its pass says no. Unless asked (ScanConfig.split_gzip), the passes run only for
    a scan of `workers` (the engine's; default: the CPUs this process may use) that they pay
    for: seekgz.SPLIT_WORKERS of the file's compression or more.
    """
    specs: list[ShardSpec] = []
    waiting: list[tuple[int, GzipPass, str, int]] = []  # (its one shard, the pass, ident, size)
    rejected: list[dict[str, str]] = []
    total = 0
    group: list[tuple[str, str, str]] = []
    group_ident: list[str] = []
    group_bytes = 0

    opts_key = config.key()
    realpath = RealPaths()

    def key_of(ident: str) -> str:
        import hashlib

        return hashlib.blake2b(
            f"{ident}|{opts_key}".encode("utf-8", "surrogateescape"), digest_size=8
        ).hexdigest()

    def file_specs(
        first: int, source: str, path: str, told: InputType, ident: str, size: int, planned: Planned | None
    ) -> list[ShardSpec]:
        """A file's shards, numbered from `first`, as its format planned it (a shard a part; the
        whole file when not planned)."""
        return [
            ShardSpec(
                first + i,
                source,
                path,
                planned.input_type if planned and planned.input_type else told,
                a,
                b,
                key_of(f"{ident}|{a}|{b}"),
                line0=planned.line0[i] if planned and planned.line0 else 0,
                size=size,
                seek_points=planned.seeks[i] if planned and planned.seeks else b"",
            )
            for i, (a, b) in enumerate(planned.parts if planned else [(0, -1)])
        ]

    def flush() -> None:
        nonlocal group, group_ident, group_bytes
        if group:
            src, path, _fmt = group[0]
            specs.append(
                ShardSpec(
                    len(specs),
                    src,
                    path,
                    InputType("group", kind=config.kind),
                    0,
                    -1,
                    key_of("\n".join(group_ident)),
                    tuple(group),
                    size=group_bytes,
                )
            )
        group, group_ident, group_bytes = [], [], 0

    by_content = split_names()
    for source, path in files:
        try:
            if remote.is_url(path):
                size, version = remote.stat(path)
                ident_path = path
            else:
                st = os.lstat(path)
                link = stat.S_ISLNK(st.st_mode)
                if link:
                    st = os.stat(path)
                if not stat.S_ISREG(st.st_mode):
                    # a FIFO would hang the scan, a device never end
                    rejected.append(
                        {"source": source, "reason": "not a regular file (a FIFO, socket or device)"}
                    )
                    continue
                size, version, ident_path = st.st_size, str(st.st_mtime_ns), realpath(path, link)
            if size < config.shard_size and not path.lower().endswith(by_content):
                # A small file is planned from its size alone: never split, it joins a group
                # whose shard tells its format (in the workers, in parallel: opening each of
                # 8,514 small pages here was a third of their scan).
                total += size
                group.append((source, path, ""))
                group_ident.append(f"{ident_path}|{size}|{version}")
                group_bytes += size
                if group_bytes >= config.shard_size or len(group) >= MAX_GROUP_FILES:
                    flush()
                continue
            with open_input(path) as f:
                head = f.read(FORMAT_HEAD)
                told = tell_input(path, head, config)
                ident = f"{ident_path}|{size}|{version}|{told.fmt}"
                plan = FORMATS[told.fmt].plan
                planned = plan(PlanInput(f, path, source, size, told, head, config)) if plan else None
        except OSError as exc:
            rejected.append({"source": source, "reason": exc.strerror or str(exc)})
            continue
        except InputError as exc:  # binary data
            rejected.append(rejected_entry(source, exc))
            continue
        except Exception as exc:  # a corrupt Parquet footer
            rejected.append({"source": source, "reason": f"{type(exc).__name__}: {exc}"})
            continue
        flush()
        if planned is not None and planned.then is not None:
            waiting.append((len(specs), planned.then, ident, size))
        total += size
        specs += file_specs(len(specs), source, path, told, ident, size, planned)
    flush()
    if config.split_gzip is None:  # by default, where the workers reading the ranges pay the pass
        many = usable_cpus() if workers is None else workers
        from . import seekgz

        waiting = [w for w in waiting if many >= seekgz.SPLIT_WORKERS[w[1].compression]]
    if waiting:
        done = (passes or _passes_here)([job.args for _, job, _, _ in waiting])
        ranges: dict[int, list[ShardSpec]] = {}
        for (i, job, ident, size), split in zip(waiting, done, strict=True):
            if split is not None and len(split.parts) > 1:
                planned = job.finish(split)
                whole = specs[i]
                ranges[i] = file_specs(i, whole.source, whole.path, whole.input_type, ident, size, planned)
                # a gzip file read in ranges of its text: its shards count the text's bytes
                total += planned.text_size - size
        specs = [
            r._replace(index=i) for i, r in enumerate(r for s in specs for r in ranges.get(s.index, (s,)))
        ]
    return specs, rejected, total


def shard_bytes(spec: ShardSpec) -> int:
    """About how many bytes a shard reads (for the order of work only): its byte range, else
    the size of its file(s) at planning."""
    if spec.stop >= 0 and spec.fmt in FORMATS and FORMATS[spec.fmt].ranges:
        return spec.stop - spec.start
    return max(spec.size, 0)
