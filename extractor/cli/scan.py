"""`doi-extract scan`: arguments to a ScanConfig and an engine, a progress display, exit codes."""

from __future__ import annotations

import argparse
import errno
import importlib.util
import json
import os
import shutil
import signal
import sys
import threading
import time
from collections import Counter
from typing import Any

from ..engines import make_engine
from ..pipeline import Observer, OutputInUse, RunReport, ScanConfig, ShardResult, output_folder, run_scan
from ..pipeline.cpus import usable_cpus
from ..pipeline.errors import Fatal, NotStarted, StoreError
from ..pipeline.io.remote import is_url
from ..pipeline.out.publish import default_stage, preflight, publish, remove_work
from ..pipeline.provenance import meta_fields


def say(message: str) -> None:
    """A line on stderr. A closed stderr (`scan … 2>&1 | head -1`) must not stop the scan: the
    line is dropped and so are the ones after it."""
    global _STDERR_OPEN
    if not _STDERR_OPEN:
        return
    try:
        print(message, file=sys.stderr, flush=True)
    except (BrokenPipeError, ValueError):
        _STDERR_OPEN = False
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        _STDERR_OPEN = False


_STDERR_OPEN = True


class Interrupt:
    """Ctrl-C as a request: the first one is noted and acted on at the next progress report (a
    known point: between windows in-process, between completions with a pool), so that it never
    lands inside a library holding a lock; a second one stops at once."""

    def __init__(self) -> None:
        self.requested = False
        self._old: Any = None

    def _handler(self, signum: int, frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        # at once, not when the running work has stopped: what happens, and what to do next
        say(
            "doi-extract scan: stopping — each running shard stops at its next window or record "
            "(completed shards are kept: rerun the same command to resume; Ctrl-C again stops at once)"
        )

    def __enter__(self) -> Interrupt:
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)


class ProgressDisplay(Observer):
    """Progress owned by the parent: a tqdm bar on a terminal, status lines in logs, or nothing."""

    def __init__(self, quiet: bool, interrupt: Interrupt | None = None) -> None:
        self.interrupt = interrupt
        self.total = self.files_total = 0
        self.bytes = self.hits = self.files = 0
        self.inputs = self.inputs_total = 0
        self.t0 = time.monotonic()
        self.last_line = self.t0
        self.bar: Any = None
        self.quiet = quiet

    def cutting(self, files: int) -> None:
        if not self.quiet:
            which = "a large compressed file" if files == 1 else f"{files} large compressed files"
            them = "it" if files == 1 else "them"
            say(
                f"doi-extract scan: reading {which} once first, to cut {them} into ranges for "
                "several workers (--no-split-gzip: one shard each)"
            )

    def planned(self, total_bytes: int, shards: int, resumed: int) -> None:
        self.total, self.files_total, self.files = total_bytes, shards, resumed
        if not self.quiet and sys.stderr.isatty():
            from tqdm import tqdm

            # the inputs' bytes as stored (compressed ones too), in MB as the final line says them
            self.bar = tqdm(
                total=total_bytes,
                unit="B",
                unit_scale=True,
                unit_divisor=1000,
                file=sys.stderr,
                smoothing=0.1,
            )

    def shard_done(self, result: ShardResult) -> None:
        self.files += 1

    def inputs_done(self, done: int, total: int) -> None:
        self.inputs, self.inputs_total = done, total
        if self.bar is not None:  # the last input's count is shown too
            self.bar.set_postfix_str(self.postfix())

    def postfix(self) -> str:
        return f"inputs {self.inputs}/{self.inputs_total}, DOIs {self.hits}"

    def rejected(self, source: str, reason: str) -> None:
        self.input_line(f"rejected {source}: {reason}")

    def input_line(self, line: str) -> None:
        """A line about one input, above the bar when there is one."""
        if self.bar is not None:
            self.bar.write(f"doi-extract scan: {line}", file=sys.stderr)
        else:
            say(f"doi-extract scan: {line}")

    def skipped(self, source: str, records: int, first: list[dict[str, Any]]) -> None:
        where = ", ".join(f"{k} {v} ({d['reason']})" for d in first for k, v in d.items() if k != "reason")
        more = ", …" if records > len(first) else ""
        self.input_line(
            f"skipped {records} record{'s' if records > 1 else ''} of {source} with no text: {where}{more}"
        )

    def noted(self, source: str, what: str, rows: int, first: list[int]) -> None:
        if not first:  # of the input as a whole (a field none of its records holds)
            self.input_line(f"{source}: {what} ({rows} record{'s' if rows != 1 else ''} read)")
            return
        where = ", ".join(map(str, first)) + (", …" if rows > len(first) else "")
        self.input_line(f"{source}: {what}: {rows} (row{'s' if rows > 1 else ''} {where})")

    def partial(self, source: str, at: str, reason: str) -> None:
        self.input_line(f"partial {source}: cut short at {at} ({reason}); what was read before it is kept")

    def progress(self, nbytes: int, nhits: int) -> None:
        if self.interrupt is not None and self.interrupt.requested:
            raise KeyboardInterrupt
        self.bytes += nbytes
        self.hits += nhits
        if self.bar is not None:
            self.bar.update(nbytes)
            self.bar.set_postfix_str(self.postfix(), refresh=False)
        elif not self.quiet and time.monotonic() - self.last_line >= 30:
            self.last_line = time.monotonic()
            say(self.status())

    def status(self) -> str:
        dt = max(1e-9, time.monotonic() - self.t0)
        return (
            f"doi-extract scan: {self.bytes / 1e6:.1f}/{self.total / 1e6:.1f} MB, inputs {self.inputs}/{self.inputs_total} "
            f"(shards {self.files}/{self.files_total}), {self.hits} DOIs, {self.bytes / 1e6 / dt:.1f} MB/s"
        )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def cmd_scan(args: argparse.Namespace) -> int:
    """Run a scan; exit 0 when every input was read whole, 1 when any was rejected or cut short or
    held none of a field named by --id-field, --meta-field or --citing-field, 2 on a fatal error."""
    asked = args.workers is not None
    if not asked:
        args.workers = usable_cpus()
    for flag in ("workers", "buckets", "shard_size"):
        if getattr(args, flag) < 1:
            say(f"doi-extract scan: --{flag.replace('_', '-')} must be positive")
            return 2
    if args.dask is not None and importlib.util.find_spec("distributed") is None:
        from ..engines.dask_engine import INSTALL_HINT

        say(f"doi-extract scan: {INSTALL_HINT}")
        return 2
    publish_to = None
    out = args.out
    work = ""
    if is_url(out):
        # The run is staged in a folder and its datasets published to the store at the end. On
        # a cluster with no --stage folder, or with a --stage URL, the shards' work is kept in
        # the store instead (the output's own prefix, or that URL): the workers then need to
        # share no folder with this process or each other.
        stage = args.stage
        if stage is not None and is_url(stage):
            work, stage = stage.rstrip("/"), None
        elif stage is None and args.dask not in (None, "local"):
            work = out.rstrip("/")
        if work and "-" in args.inputs:
            say(
                "doi-extract scan: standard input cannot be read by workers that share no folder with this process"
            )
            return 2
        publish_to, out = out, stage or default_stage(out)
        try:
            preflight(publish_to)
            if work != publish_to.rstrip("/") and work:
                preflight(work)
        except StoreError as exc:
            say(f"doi-extract scan: {exc}")
            return 2
    elif args.stage is not None:
        say("doi-extract scan: --stage is for an output in object storage (-o s3://…)")
        return 2
    try:
        meta = meta_fields(args.meta_field)
    except ValueError as exc:
        say(f"doi-extract scan: --meta-field {exc}")
        return 2
    config = ScanConfig(
        out=os.path.abspath(out),
        buckets=args.buckets,
        occurrences=args.occurrences,
        text_field=args.text_field,
        id_field=args.id_field,
        meta_fields=meta,
        citing_field=args.citing_field,
        allow_other_prefix=args.other_prefixes,
        derive=args.derive,
        kind=args.kind,
        syntax=None if args.syntax == "auto" else args.syntax,
        shard_size=args.shard_size,
        split_gzip=args.split_gzip,
        wiki_namespaces=args.wiki_namespaces,
        keep_work=args.keep_work,
        work=work,
    )
    interrupt = Interrupt()
    display = ProgressDisplay(args.quiet, interrupt)
    try:
        with (
            interrupt,
            output_folder(out, args.force),
            make_engine(args.workers, args.buckets, args.dask, small_in_process=not asked) as engine,
        ):
            link = getattr(engine, "dashboard_link", None)
            if link and not args.quiet:
                say(f"doi-extract scan: Dask dashboard at {link}")
            report = run_scan(args.inputs, config, engine, display, args.force, args.include, args.exclude)
    except KeyboardInterrupt:
        display.close()
        say("doi-extract scan: interrupted; completed shards are kept, rerun the same command to resume")
        return 130
    except OutputInUse as exc:
        display.close()
        say(f"doi-extract scan: {exc}")
        return 2
    except NotStarted as exc:
        display.close()
        say(f"doi-extract scan: cannot start: {exc} (nothing was written)")
        return 2
    except Fatal as exc:
        display.close()
        say(f"doi-extract scan: fatal error, stopping (completed shards are kept): {exc}")
        return 2
    except OSError as exc:
        display.close()
        where = f" {exc.filename}" if exc.filename else ""
        say(f"doi-extract scan: cannot write the output{where}: {exc.strerror or exc}")
        return 2
    display.close()
    if publish_to is not None:
        try:
            objects = publish(out, publish_to, report.staged)
            if work and not args.keep_work:
                remove_work(work)
        except StoreError as exc:
            where = work or out
            say(f"doi-extract scan: the scan is complete in {where} but was not published: {exc}")
            return 2
        kept = (args.stage is not None and not work) or args.keep_work
        if not kept:
            # the store holds the result now: a full local copy is no cache worth its disk
            shutil.rmtree(out, ignore_errors=True)
        if not args.quiet:
            where = f" (staged in {out}, kept)" if kept else ""
            say(f"doi-extract scan: published {objects} objects to {publish_to}{where}")
        out = publish_to
    s = report.summary
    if args.json:
        print(json.dumps(s, ensure_ascii=False, default=str), flush=True)
    if not args.quiet:
        # in the units of the bar: the inputs as stored, then the text they held when it differs
        text = "" if s["bytes_read"] == s["input_bytes"] else f" ({s['bytes_read'] / 1e6:.1f} MB of text)"
        n = len({i["path"] for i in s["inputs"]})
        say(
            f"doi-extract scan: {n} input{'' if n == 1 else 's'}, {s['input_bytes'] / 1e6:.1f} MB{text}, {s['hits']} hits, "
            f"{report.counts['dois']} distinct DOIs in {s['timings']['wall_seconds']} s -> {out}{_left_out(report)}"
        )
    passed = report.skipped_binary
    if passed["count"] and not args.quiet:
        # binary data walked into holds no text to lose: one line, never a line each
        first = ", ".join(passed["first"][:3]) + (", …" if passed["count"] > 3 else "")
        n = passed["count"]
        say(
            f"doi-extract scan: passed over {n} binary file{'' if n == 1 else 's'} found by walking ({first}; _run.json's skipped_binary)"
        )
    return 1 if report.rejected or report.partial or report.unheld_fields else 0


def _left_out(report: RunReport) -> str:
    """The end-of-run line's word on inputs not read whole: how many, and the commonest reason."""
    said = []
    if report.rejected:
        (why, _n), *_ = Counter(r["reason"] for r in report.rejected).most_common(1)
        n = len(report.rejected)
        said.append(f"{n} input{'' if n == 1 else 's'} rejected (most: {why})")
    if report.partial:
        said.append(f"{len(report.partial)} cut short, read up to the cut")
    if report.unheld_fields:
        n = len(report.unheld_fields)
        said.append(f"{n} named field{'' if n == 1 else 's'} held by no record of an input")
    return "; " + "; ".join(said) if said else ""
