"""The Python reference matcher (match/matcher.py) with the standard library's `re` and with the
third-party `regex` package in its place, on the committed labelled corpora: whether `regex`
earns a place (ARCHITECTURE.md, "Why `re`"). Needs `pip install regex`; not a dependency.

    python -m benchmarks.re_or_regex [--rounds 5]
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _texts() -> list[str]:
    paths = sorted(
        p
        for p in (ROOT / "corpora").glob("labelled*/**/*.*")
        if p.suffix in (".txt", ".html", ".tex", ".bib", ".csv", ".tsv", ".md", ".wiki")
    )
    return [p.read_text(encoding="utf-8", errors="replace") for p in paths]


def _find_spans(module: str) -> Any:
    """match.matcher.find_spans compiled with `module` as its `re` (a fresh import of match/)."""
    import re as stdre

    for name in [n for n in sys.modules if n.startswith("extractor")]:
        del sys.modules[name]
    sys.modules["re"] = importlib.import_module(module)
    try:
        from extractor.match import find
    finally:
        sys.modules["re"] = stdre
    return find.find_spans


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    try:
        importlib.import_module("regex")
    except ImportError:
        print("re_or_regex: the regex package is not installed (pip install regex)", file=sys.stderr)
        return 2
    texts = _texts()
    print(f"{len(texts)} documents, {sum(map(len, texts)) / 1e6:.2f} M characters, rounds alternating")
    times: dict[str, list[float]] = {"re": [], "regex": []}
    spans: dict[str, int] = {}
    for _ in range(args.rounds):
        for module in times:
            find_spans = _find_spans(module)
            t = time.perf_counter()
            spans[module] = sum(len(find_spans(text)) for text in texts)
            times[module].append(time.perf_counter() - t)
    for module, ts in times.items():
        print(
            f"{module:6} median {sorted(ts)[len(ts) // 2]:.3f} s (best {min(ts):.3f}), {spans[module]} spans"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
