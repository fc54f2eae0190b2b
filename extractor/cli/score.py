"""`doi-extract score`: precision, recall and F1 of the extractor on a labelled corpus manifest.

The manifest format is that of the development corpora: one JSON row per document with `doc`
(path relative to the manifest), `genre`, `gold` (canonical DOIs), optional `ignore` (DOIs
neither required nor penalised) and `derivation`. Documents are scored as sets of DOIs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..match import KINDS, find_dois
from ..pipeline.errors import InputError
from ..pipeline.grep import FindOptions, hits_in_records, type_of_input
from ..pipeline.io.decode import decode_bytes, detect_kind, syntax_for
from ..pipeline.io.read import read_all
from .scan_args import add_syntax_argument


@dataclass(slots=True)
class Tally:
    docs: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass(slots=True)
class DocScore:
    doc: str
    genre: str
    tp: set[str] = field(default_factory=set)
    fp: set[str] = field(default_factory=set)
    fn: set[str] = field(default_factory=set)


class ManifestError(ValueError):
    """A manifest that cannot be scored, with where and why (it was a traceback)."""


# The fields a manifest row needs, and their JSON types.
_FIELDS = {"doc": str, "genre": str, "gold": list}


def load_manifest(path: str) -> list[dict[str, Any]]:
    """The rows of a manifest, each with `_path` (its document beside the manifest); raises
    ManifestError naming the file and line of a row that is not a manifest row."""
    base = os.path.dirname(os.path.abspath(path))
    rows = []
    try:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ManifestError(f"{path} line {n}: not valid JSON ({exc.msg})") from None
                if not isinstance(row, dict):
                    raise ManifestError(f"{path} line {n}: a JSON {type(row).__name__}, not an object")
                for key, typ in _FIELDS.items():
                    if not isinstance(row.get(key), typ):
                        why = "missing" if key not in row else f"not a {typ.__name__}"
                        raise ManifestError(f"{path} line {n}: field {key!r} {why}")
                row["_path"] = os.path.join(base, row["doc"])
                rows.append(row)
    except OSError as exc:
        raise ManifestError(f"cannot read manifest {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ManifestError(f"{path}: not UTF-8 text (a manifest is JSON lines)") from None
    return rows


def predict(path: str, kind: str | None = None, syntax: str | None = None) -> set[str]:
    """The set of canonical DOIs the extractor finds in one document: a record file (a raw PDF,
    a WARC, JSONL, Parquet) read record by record as `find` and `scan` read it, any other as
    text, in the source syntax forced (--syntax) or told by its name and content."""
    told = type_of_input(path, FindOptions(kind=kind))
    if told.fmt != "text":
        return {r.hit.doi for r in hits_in_records(path, told, FindOptions(kind=kind, syntax=syntax))}
    data = read_all(path)
    text, _ = decode_bytes(data)
    syn = syntax_for(syntax, path, data[:65536])
    return {h.doi for h in find_dois(text, kind or detect_kind(path, data[:65536]), syntax=syn)}


def score_doc(row: dict[str, Any], pred: set[str]) -> DocScore:
    """Score one document; a prediction that is, or extends or truncates, an ignored DOI is free."""
    gold = set(row["gold"])
    ignore = set(row.get("ignore", []))
    s = DocScore(row["doc"], row["genre"], pred & gold, set(), gold - pred)
    for x in pred - gold:
        if x in ignore:
            continue
        if x.startswith("10.") and any(i.startswith(x) or x.startswith(i) for i in ignore):
            continue
        s.fp.add(x)
    return s


def score_rows(
    rows: list[dict[str, Any]], by: str | None = "derivation,tool", syntax: str | None = None
) -> tuple[dict[str, Tally], list[DocScore]]:
    tallies: dict[str, Tally] = defaultdict(Tally)
    docs = []
    for row in rows:
        try:
            # The genre is the kind (spec terms): PDF text from pypdf or PDFium has no form
            # feeds to detect it by, and the labels were made for the genre's rules.
            pred = predict(row["_path"], row["genre"] if row["genre"] in KINDS else None, syntax)
        except OSError as exc:
            raise ManifestError(f"cannot read document {row['doc']!r}: {exc.strerror or exc}") from None
        except InputError as exc:  # a record file that cannot be read (an encrypted PDF, …)
            raise ManifestError(f"cannot read document {row['doc']!r}: {exc}") from None
        s = score_doc(row, pred)
        docs.append(s)
        keys = [f"genre={row['genre']}", "ALL (micro)"]
        for key in (by or "").split(","):
            if key and row.get(key) is not None:
                keys.append(f"{key}={row[key]}")
        for k in keys:
            t = tallies[k]
            t.docs += 1
            t.tp += len(s.tp)
            t.fp += len(s.fp)
            t.fn += len(s.fn)
    return dict(tallies), docs


def format_report(tallies: dict[str, Tally], docs: list[DocScore], show_errors: int) -> str:
    lines = [f"{'group':<58} {'docs':>5} {'TP':>6} {'FP':>5} {'FN':>5} {'prec':>7} {'recall':>7} {'F1':>7}"]
    order = (
        sorted(k for k in tallies if k.startswith("genre="))
        + sorted(k for k in tallies if not k.startswith(("genre=", "ALL")))
        + ["ALL (micro)"]
    )
    for k in order:
        if k not in tallies:
            continue
        t = tallies[k]
        lines.append(
            f"{k[:58]:<58} {t.docs:>5} {t.tp:>6} {t.fp:>5} {t.fn:>5} {t.precision:>7.4f} {t.recall:>7.4f} {t.f1:>7.4f}"
        )
    if show_errors:
        shown = 0
        for d in docs:
            if (d.fp or d.fn) and shown < show_errors:
                shown += 1
                lines.append(f"\n{d.doc} ({d.genre})")
                lines.extend(f"  miss  {x}" for x in sorted(d.fn))
                lines.extend(f"  false {x}" for x in sorted(d.fp))
    return "\n".join(lines)


def add_score_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "manifests", nargs="+", help="manifest JSONL files (rows: doc, genre, gold, ignore, derivation)"
    )
    ap.add_argument(
        "--by",
        default="derivation,tool",
        help="breakdown keys from the manifest rows, comma-separated (default: derivation,tool — the PDF tool)",
    )
    ap.add_argument(
        "--errors", type=int, default=50, help="list misses and false positives of up to N documents"
    )
    ap.add_argument("--genre", action="append", help="only these genres")
    add_syntax_argument(ap, " for every document")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")


def cmd_score(args: argparse.Namespace) -> int:
    """Print the scores; exit 2 with a one-line reason when a manifest or document is unusable."""
    try:
        rows = []
        for m in args.manifests:
            rows += load_manifest(m)
        if args.genre:
            rows = [r for r in rows if r["genre"] in args.genre]
        tallies, docs = score_rows(rows, args.by, None if args.syntax == "auto" else args.syntax)
    except ManifestError as exc:
        print(f"doi-extract score: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(
            json.dumps(
                {
                    k: {
                        "docs": t.docs,
                        "tp": t.tp,
                        "fp": t.fp,
                        "fn": t.fn,
                        "precision": t.precision,
                        "recall": t.recall,
                        "f1": t.f1,
                    }
                    for k, t in tallies.items()
                },
                indent=2,
            )
        )
    else:
        print(format_report(tallies, docs, args.errors))
    return 0
