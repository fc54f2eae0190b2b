"""`doi-extract summary OUT`: what a finished scan found, as text, JSON or a one-page HTML report."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:  # the module loads pyarrow.dataset (and pandas): not at every command's start
    from ..pipeline.out.summary import Summary


def add_summary_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("out", help="the output folder of a scan (or its URL in object storage)")
    ap.add_argument("--top", type=int, default=10, help="how many DOIs and prefixes to list (default 10)")
    ap.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    ap.add_argument(
        "--html",
        metavar="FILE",
        help="also write a one-page HTML report with charts (needs the report extra)",
    )


def cmd_summary(args: argparse.Namespace, out: TextIO) -> int:
    """Print the summary of OUT: exit 0, or 2 when OUT is not a finished scan's output."""
    from ..pipeline.out.summary import NotAnOutput, summarize

    if args.top < 0:
        print("doi-extract summary: --top must not be negative", file=sys.stderr)
        return 2
    try:
        summary = summarize(args.out, args.top)
    except (NotAnOutput, OSError) as exc:
        print(f"doi-extract summary: {exc}", file=sys.stderr)
        return 2
    if args.html:
        try:
            from .report import write_report
        except ImportError:
            print(
                "doi-extract summary: --html needs matplotlib, the report extra: pip install 'doi-extractor[report]' (in a clone: '.[report]')",
                file=sys.stderr,
            )
            return 2
        try:
            write_report(summary, args.html)
        except OSError as exc:
            print(f"doi-extract summary: cannot write {args.html}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    if args.json:
        out.write(json.dumps(summary.as_dict(), ensure_ascii=False, default=str) + "\n")
    else:
        out.write(render_text(summary))
    return 0


def _table(rows: list[dict[str, Any]], columns: list[str]) -> list[str]:
    """Rows as aligned text: numbers right, the last column (a name) left."""
    cells = [[str(r[c]) for c in columns] for r in rows]
    widths = [max([len(c), *(len(row[i]) for row in cells)]) for i, c in enumerate(columns)]
    lines = [
        "  "
        + "  ".join(
            c.rjust(w) if i < len(columns) - 1 else c
            for i, (c, w) in enumerate(zip(columns, widths, strict=True))
        )
    ]
    for row in cells:
        lines.append(
            "  "
            + "  ".join(
                v.rjust(w) if i < len(columns) - 1 else v
                for i, (v, w) in enumerate(zip(row, widths, strict=True))
            )
        )
    return lines


def render_text(s: Summary) -> str:
    """The summary as a terminal page."""
    from ..pipeline.out.summary import run_line, size_text

    run = s.run
    lines = [
        f"{s.out}: {run.get('documents', 0)} documents, {size_text(run)} of input, {run.get('hits', 0)} DOI "
        f"hits, {run.get('distinct_dois', 0)} distinct DOIs in {run.get('mentions', 0)} (document, DOI) mentions",
    ]
    if run_line(run):
        lines.append("  " + run_line(run))
    if s.top_dois:
        lines += ["", "Most cited DOIs (by documents citing them):"]
        lines += _table(s.top_dois, ["documents", "occurrences", "doi"])
    funders = next((e for e in s.entities if e["entity"] == "funder"), None)
    if funders and funders["dois"]:
        # spec §6: a funder of the Funder Registry is no cited work (docs/citation-graphs.md)
        lines += ["", "What the DOIs name (a citation graph leaves funders out):"]
        lines += _table(s.entities, ["dois", "mentions", "occurrences", "entity"])
    if s.prefixes:
        lines += ["", f"Registrant prefixes ({s.prefixes_total} in all; by distinct DOIs):"]
        lines += _table(s.prefixes, ["dois", "mentions", "prefix"])
    if s.forms:
        lines += ["", "Display forms (mentions holding each):"]
        lines += _table(s.forms, ["mentions", "form"])
    if any(b["dois"] for b in s.documents_per_doi):
        lines += ["", "Documents per DOI:"]
        lines += _table(s.documents_per_doi, ["dois", "documents"])
    rejected = run.get("rejected", [])
    lines += ["", f"Rejected inputs: {len(rejected) or 'none'}"]
    lines += [f"  {n} × {why}" for why, n in Counter(r.get("reason") for r in rejected).most_common(5)]
    lines += [f"  {r.get('source')}: {r.get('reason')}" for r in rejected[:20]]
    if len(rejected) > 20:
        lines.append(f"  … and {len(rejected) - 20} more (in _run.json)")
    partial = run.get("partial", [])
    if partial:
        lines += ["", f"Inputs cut short, read up to the cut: {len(partial)}"]
        lines += [f"  {p.get('source')}: at {p.get('at')} ({p.get('reason')})" for p in partial[:20]]
    for note in run.get("input_notes", [])[:20]:
        if note.get("first"):
            lines.append(f"{note.get('source')}: {note.get('what')}: {note.get('rows')}")
        else:  # of the input as a whole: a field named that none of its records holds
            lines.append(f"{note.get('source')}: {note.get('what')} ({note.get('rows')} records read)")
    if run.get("citing_without_doi"):
        lines.append(f"Records whose --citing-field held no DOI: {run['citing_without_doi']}")
    skipped = run.get("records_skipped", 0)
    if skipped:
        lines.append(f"Records skipped (no text): {skipped}")
    # what the formats counted of their own: archive members, wiki pages passed over
    lines += [f"{what[:1].upper()}{what[1:]}: {n}" for what, n in run.get("tallies", {}).items()]
    return "\n".join(lines) + "\n"
