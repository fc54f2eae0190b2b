"""The matcher in memory: `find_dois` per display form and kind, the source syntaxes, `canonicalize` over columns."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

from .harness import ROOT, best, timed


def bench_find(kind_texts: dict[str, str]) -> list[tuple[str, float, float | None, int]]:
    """(label, MB/s of find_dois, MB/s of the C matcher on the UTF-8 bytes or None, hits) on
    in-memory texts, best of 3 runs with cold caches (the texts share their DOI names, so a
    warm cache would flatter every run after the first)."""
    from extractor import find_dois
    from extractor.match.matcher import clear_caches
    from extractor.match.native import find_spans_utf8

    res: list[tuple[str, float, float | None, int]] = []
    for label, text in kind_texts.items():
        kind = "html" if label.startswith("html") else "pdf" if label.startswith("pdf") else "plain"
        best = float("inf")
        hits = 0
        for _ in range(3):
            clear_caches()
            t0 = time.perf_counter()
            hits = sum(1 for _ in find_dois(text, kind))
            best = min(best, time.perf_counter() - t0)
        data = text.encode()
        # what scan runs: plain text in C; HTML's views and PDF text's rules in C, into a mention table
        c_run = {"plain": find_spans_utf8, "html": html_into_table, "pdf": pdf_into_table}[kind]
        c_best = min(timed(c_run, data) for _ in range(3))
        res.append((label, len(data) / 1e6 / best, len(data) / 1e6 / c_best, hits))
    return res


def html_into_table(data: bytes) -> None:
    from extractor.match import native
    from extractor.pipeline.table import Mentions

    native.html_scan(data, 0, len(data), 0, len(data) + 1, 0, Mentions(), None)


def pdf_into_table(data: bytes) -> None:
    from extractor.match import native
    from extractor.match.matcher import clear_caches
    from extractor.pipeline.table import Mentions

    clear_caches()  # the rehyphenation cache, cold as find_dois' caches are
    native.pdf_scan(data, 0, len(data), 0, len(data) + 1, 0, Mentions(), None)


def form_texts(n_bytes: int) -> dict[str, str]:
    """Texts of about n_bytes with DOIs in one display form at ~2 per KB, in prose."""
    rng = random.Random(7)
    words = [
        "the",
        "of",
        "and",
        "in",
        "to",
        "a",
        "with",
        "for",
        "was",
        "were",
        "on",
        "by",
        "that",
        "cells",
        "patients",
        "study",
        "results",
        "analysis",
        "protein",
        "expression",
        "increased",
        "significantly",
        "compared",
    ]
    forms = {
        "bare": "{}",
        "doi-label": "doi:{}",
        "resolver-url": "https://doi.org/{}",
        "dx-resolver-url": "http://dx.doi.org/{}",
        "urn": "urn:doi:{}",
        "info-uri": "info:doi/{}",
        "other-url": "https://onlinelibrary.wiley.com/doi/abs/{}/abstract",
        "percent-encoded": "https://example.org/openurl?id=doi%3A{}&x=1",
        "no-dois (prose only)": "",
    }
    out = {}
    for label, fmt in forms.items():
        parts: list[str] = []
        size = 0
        i = 0
        while size < n_bytes:
            chunk = " ".join(rng.choice(words) for _ in range(80)) + " "
            if fmt:
                doi = f"10.{1000 + i % 9000}/j.abc.2020.{i:05d}"
                if "%3A" in fmt:
                    doi = doi.replace("/", "%2F")
                chunk += fmt.format(doi) + ". "
            parts.append(chunk)
            size += len(chunk)
            i += 1
        out[label] = "".join(parts)
    base = out["doi-label"]
    out["html (same text in markup)"] = (
        "<html><body>" + "".join(f"<p>{p}</p>" for p in base.split(". ")) + "</body></html>"
    )
    out["pdf (same text, wrapped)"] = "\n".join(base[i : i + 90] for i in range(0, len(base), 90))
    return out


def find_tables(say: Any) -> None:
    """The finder in memory, per display form and per kind, and on hostile inputs."""
    say()
    say(f"{'find_dois in memory (8 MB each, cold caches)':<44} {'MB/s':>8} {'hits':>8} {'C MB/s':>8}")
    for label, mbs, c_mbs, h in bench_find(form_texts(8 << 20)):
        say(f"{label:<44} {mbs:>8.1f} {h:>8} {'' if c_mbs is None else f'{c_mbs:.1f}':>8}")
    # Hostile inputs: each megabyte should cost about what a megabyte of citation-dense text
    # costs, and 8 MB eight times what 1 MB costs (the ratio 8/1 near 8: linear time).
    say()
    say(
        f"{'hostile input (1 MB and 8 MB)':<44} {'MB/s':>8} {'8/1':>6} {'hits/MB':>8} {'C MB/s':>8} {'C 8/1':>6}"
        f" {'C spans':>8}"
    )
    # C MB/s: the C matcher as scan runs it (hits counted into a document's mention table);
    # C spans: find_spans_utf8, one Python Span per hit (the library's bytes API). HTML rows: the
    # C port of its views (native.html_scan) into a mention table; PDF rows: native.pdf_scan.
    from extractor.match.native import find_spans_utf8, scan
    from extractor.pipeline.table import Mentions

    def c_scan(data: bytes) -> None:
        scan(data, 0, len(data), 0, len(data), 0, Mentions(), None)

    # Best of 3 runs each (a new mention table each run, as each document has its own).
    for label, text1, kind in hostile_texts():
        text8 = text1 * 8
        t1 = best(lambda t=text1, k=kind: sum(1 for _ in find_dois_kind(t, k)))
        t8 = best(lambda t=text8, k=kind: sum(1 for _ in find_dois_kind(t, k)))
        hits = sum(1 for _ in find_dois_kind(text1, kind))
        c = ""
        if kind == "plain":
            c1 = best(c_scan, text1.encode())
            c8 = best(c_scan, text8.encode())
            spans = best(find_spans_utf8, text1.encode())
            c = f"{len(text1) / 1e6 / c1:>8.1f} {c8 / c1:>6.1f} {len(text1) / 1e6 / spans:>8.1f}"
        elif kind == "html":  # the views in C (native.html_scan), as scan runs HTML
            c1 = best(html_into_table, text1.encode())
            c8 = best(html_into_table, text8.encode())
            c = f"{len(text1) / 1e6 / c1:>8.1f} {c8 / c1:>6.1f}"
        elif kind == "pdf":  # PDF text's rules in C (native.pdf_scan), as scan runs it
            c1 = best(pdf_into_table, text1.encode())
            c8 = best(pdf_into_table, text8.encode())
            c = f"{len(text1) / 1e6 / c1:>8.1f} {c8 / c1:>6.1f}"
        say(f"{label:<44} {len(text1) / 1e6 / t1:>8.1f} {t8 / t1:>6.1f} {hits:>8} {c}")


def syntax_tables(say: Any) -> None:
    """The source syntaxes read in C (spec §7), in memory as a scan reads a document: the
    project's labelled exports and pages of each syntax repeated to 8 MB, their views built and
    searched into a mention table; beside it the Python views and matcher (find_dois) on 1 MB."""
    from extractor import find_dois
    from extractor.match import native
    from extractor.match.syntaxes import SYNTAX_TABLE, detect_syntax
    from extractor.pipeline.table import Mentions

    folder = ROOT / "corpora" / "labelled-syntaxes" / "plain"
    say()
    say(f"{'source syntax in memory (8 MB, best of 5)':<44} {'C MB/s':>8} {'hits/MB':>8} {'Py MB/s':>8}")
    for suffix in sorted({p.suffix for p in folder.iterdir()}):
        syntax = detect_syntax(f"x{suffix}")
        entry = SYNTAX_TABLE[syntax].c_entry if syntax else None
        if entry is None:
            continue
        files = sorted(folder.glob(f"*{suffix}"))
        # whole files joined by blank lines: each syntax's constructs close within a file
        one = b"\n\n".join(p.read_bytes() for p in files)
        data = one * max(1, (8 << 20) // len(one))
        scan = getattr(native, entry)

        def into_table(d: bytes, scan: Any = scan) -> None:
            scan(d, 0, len(d), 0, len(d) + 1, 0, Mentions(), None)

        took = best(into_table, data, rounds=5)
        hits: list[Any] = []
        scan(one, 0, len(one), 0, len(one) + 1, 0, None, hits)
        text = (one * max(1, (1 << 20) // len(one))).decode("utf-8", "replace")
        py = best(lambda t=text, s=syntax: sum(1 for _ in find_dois(t, syntax=s)), rounds=1)
        say(
            f"{f'{syntax} ({suffix}, {len(files)} files)':<44} {len(data) / 1e6 / took:>8.1f}"
            f" {len(hits) / (len(one) / 1e6):>8.0f} {len(text.encode()) / 1e6 / py:>8.1f}"
        )


def canonicalize_tables(say: Any) -> None:
    """A column of a million identifiers (bare, doi:, resolver URLs, SICI-like parentheses, a
    fifth null) to canonical DOIs: canonicalize_array (C on the Arrow buffers) against
    canonicalize value by value (what `df.doi.map(canonicalize)` costs)."""
    import pyarrow as pa

    from extractor import canonicalize
    from extractor.arrow import canonicalize_array

    rng = random.Random(1)
    forms = ["10.{}/J.ABC.{}", "https://doi.org/10.{}/abc.{}", "doi:10.{}/X{}", "10.{}/(SICI){}", None]
    values = [
        None if (f := rng.choice(forms)) is None else f.format(rng.randint(1000, 9999), rng.randint(0, 10**6))
        for _ in range(1_000_000)
    ]
    say()
    say(f"{'a column of 1M values':<44} {'seconds':>8} {'M/s':>8}  equal")
    for name, column in (
        ("identifiers", values),
        ("SpringerLink export URLs", springer_urls(rng, 1_000_000)),
        ("Scopus export links", scopus_links(rng, 1_000_000)),
    ):
        array = pa.array(column)
        c = best(canonicalize_array, array)
        sample = column[:100_000]  # value by value: a tenth, the time scaled
        py = best(lambda s=sample: [canonicalize(v) for v in s], rounds=1) * len(column) / len(sample)
        equal = canonicalize_array(pa.array(sample)).to_pylist() == [canonicalize(v) for v in sample]
        say(f"{name + ', canonicalize_array (C)':<44} {c:>8.3f} {len(column) / c / 1e6:>8.2f}  {equal}")
        say(f"{name + ', canonicalize value by value':<44} {py:>8.3f} {len(column) / py / 1e6:>8.2f}")


def springer_urls(rng: random.Random, n: int) -> list[str]:
    """A SpringerLink search export's URL column, in its shapes: articles, chapters, books and
    reference entries of Springer's own DOIs, and a Hindawi DOI on Springer's site."""
    out = []
    for _ in range(n):
        kind = rng.random()
        if kind < 0.6:
            doi = f"10.1007/s{rng.randint(10000, 99999)}-0{rng.randint(10, 24)}-{rng.randint(1000, 9999)}-{rng.choice('0123456789x')}"
            out.append(f"http://link.springer.com/article/{doi}")
        elif kind < 0.85:
            out.append(
                f"http://link.springer.com/chapter/10.1007/978-3-{rng.randint(100, 999)}-{rng.randint(10000, 99999)}-{rng.randint(0, 9)}_{rng.randint(1, 40)}"
            )
        elif kind < 0.95:
            out.append(
                f"http://link.springer.com/book/10.1007/978-1-{rng.randint(1000, 9999)}-{rng.randint(1000, 9999)}-{rng.randint(0, 9)}"
            )
        elif kind < 0.99:
            out.append(
                f"http://link.springer.com/referenceworkentry/10.1007/978-3-{rng.randint(100, 999)}-{rng.randint(10000, 99999)}-{rng.randint(0, 9)}_{rng.randint(1, 900)}"
            )
        else:
            out.append(
                f"http://link.springer.com/article/10.1155/{rng.randint(2008, 2020)}/{rng.randint(100000, 999999)}"
            )
    return out


def scopus_links(rng: random.Random, n: int) -> list[str]:
    """A Scopus CSV export's Link column: the record's page with the DOI percent-encoded in a
    `doi=` query parameter (a tenth without one)."""
    out = []
    for _ in range(n):
        eid = f"eid=2-s2.0-{rng.randint(84000000000, 85199999999)}"
        md5 = f"md5={rng.getrandbits(128):032x}"
        if rng.random() < 0.1:
            out.append(f"https://www.scopus.com/inward/record.uri?{eid}&partnerID=40&{md5}")
            continue
        doi = f"10.{rng.choice([1016, 1038, 1371, 1002, 3390])}%2f{rng.choice(['j.cell', 'nature', 'journal.pone', 'ange', 'su'])}.{rng.randint(2010, 2024)}.{rng.randint(1, 12):02d}.{rng.randint(1, 999):03d}"
        out.append(f"https://www.scopus.com/inward/record.uri?{eid}&doi={doi}&partnerID=40&{md5}")
    return out


def hostile_texts() -> list[tuple[str, str, str]]:
    mb = 1_000_000
    return [
        ("10.1234/(((( (one candidate)", "10.1234/" + "(" * (mb - 8), "plain"),
        ("10.1234/ repeated, no spaces", "10.1234/" * (mb // 8), "plain"),
        ("DOIs joined by commas, no spaces", ",".join(f"10.1234/{i}" for i in range(mb // 13)), "plain"),
        (
            "DOIs of real length joined by commas",
            ",".join(f"10.{1000 + i % 9000}/j.cell.{2000 + i % 25}.{i:05d}" for i in range(mb // 28)),
            "plain",
        ),
        ("% repeated", "%" * mb, "plain"),
        ("10. repeated (a run with no separator)", "10." * (mb // 3), "plain"),
        ("10. repeated (pdf)", "10." * (mb // 3), "pdf"),
        ("&amp; repeated (html)", "<p>" + "&amp;" * (mb // 5) + "</p>", "html"),
        ('<a href=" repeated, never closed (html)', '<a href="' * (mb // 9), "html"),
        ("<a x='>' repeated (html)", "<a x='>'" * (mb // 8), "html"),
        ("10.1234/a-<newline> repeated (pdf)", "10.1234/a-\n" * (mb // 11), "pdf"),
        # closing brackets and separators after an empty suffix, bare and behind a label, in
        # each kind: every anchor in one long token (100 KB and 800 KB: the Python matcher
        # reads these at a tenth of a MB a second)
        *(
            (
                f"{label}10.1234/{c} repeated ({kind}, 0.1 MB)",
                f"{label}10.1234/{c}" * (mb // 10 // (9 + len(label))),
                kind,
            )
            for c in ")]}>,;"
            for label in ("", "doi:")
            for kind in ("plain", "html", "pdf")
        ),
    ]


def find_dois_kind(text: str, kind: str) -> Iterator[Any]:
    from extractor import find_dois

    return find_dois(text, kind)
