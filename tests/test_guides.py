"""The guides as a contract: every code block of README.md and docs/*.md runs here as written —
shell lines by bash in a folder holding the files they name (realistic small ones, written by
the libraries that write them for real), Python by the interpreter, SQL by DuckDB on the output
the guide's command before it wrote — and each output a guide shows is checked. A block this
module cannot run is listed in NOT_RUN with the reason and what checks it instead; a block in
neither place fails test_every_block_of_the_guides_is_run_or_named."""

from __future__ import annotations

import bz2
import doctest
import gzip
import io
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from .helpers import gz_tar, make_corpus, moto_s3, table, tar_of

ROOT = Path(__file__).resolve().parent.parent
GUIDES = [
    ROOT / "README.md",
    *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "extraction-rules.md"),
]
BIN = str(Path(sys.executable).parent)  # where the venv's `doi-extract` script is


class Block(NamedTuple):
    guide: str  # README.md, docs/scan.md, …
    kind: str  # "sh" (an indented block), or a fenced block's language
    text: str
    line: int  # where it starts

    @property
    def key(self) -> tuple[str, str]:
        return self.guide, self.text.strip().splitlines()[0].strip()


def blocks(path: Path) -> list[Block]:
    """The code blocks of a guide: fenced ones, and blocks indented four spaces after a blank line."""
    lines = path.read_text().splitlines()
    name = str(path.relative_to(ROOT))
    out: list[Block] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append(Block(name, line[3:].strip() or "text", "\n".join(lines[i + 1 : j]), i + 2))
            i = j + 1
            continue
        if (
            line.startswith("    ")
            and (i == 0 or not lines[i - 1].strip())
            and not line.lstrip().startswith(("-", "|", "*"))
        ):
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                j += 1
            text = "\n".join(x[4:] for x in lines[i:j]).strip("\n")
            out.append(Block(name, "sh", text, i + 1))
            i = j
            continue
        i += 1
    return out


ALL = [b for g in GUIDES for b in blocks(g)]

# Blocks not run here, each with why and what checks it instead.
NOT_RUN: dict[tuple[str, str], str] = {
    (
        "README.md",
        "./scripts/demo     # creates .venv, installs, scans corpora/sample/ into Parquet, prints a summary",
    ): (
        "the scripts themselves: .ci/run runs ./scripts/test on a fresh clone, as the README says; "
        "scripts/demo is that install and one scan (the commands of scan.md, run here)"
    ),
    (
        "docs/archives-and-dumps.md",
        "wget https://dumps.wikimedia.org/enwiki/20240601/enwiki-20240601-pages-articles-multistream.xml.bz2 \\",
    ): (
        "a download (no network but the package registries): the dump it fetches is written by "
        "tests/wikidump.py as Wikipedia publishes it, and scanned by the block after it"
    ),
    (
        "docs/development.md",
        "python scripts/make_corpus.py bench --size 1GB    # corpora/bench/: plain, gzip, JSONL and HTML copies",
    ): (
        "the benchmarks: their run is recorded in benchmarks/RESULTS.md (tests/test_docs.py and "
        "benchmarks' own checks hold its form); a gigabyte is no test"
    ),
    ("docs/development.md", "python scripts/same_outputs.py tree /tmp/mix"): (
        "the refactoring check, run by hand before and after a change; its compare step is "
        "tests/test_fast_path.py's kind of check, on the project's own trees"
    ),
}

# Lines whose exit status is not 0, as the guide says.
EXIT = {
    "doi-extract find -s maybe-missing.txt a.txt # no messages about inputs that cannot be read": 2,
}

# A line's words replaced where this machine differs from the guide's (a real cluster's address,
# the port of the S3 API the test starts on 127.0.0.1); everything else is as written.
SERVERS: dict[str, str] = {}


# -- the files the guides name -------------------------------------------------------------


def _pdf(path: Path, text: str, title: str = "") -> None:
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    if title:
        pdf.set_title(title)
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    pdf.multi_cell(150, 5, text)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(pdf.output()))


def _warc(path: Path, pages: dict[str, str], wet: bool = False) -> None:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        w = WARCWriter(f, gzip=True)
        w.write_record(w.create_warcinfo_record(path.name, {"software": "tests"}))
        for uri, body in pages.items():
            if wet:
                rec = w.create_warc_record(
                    uri, "conversion", payload=io.BytesIO(body.encode()), warc_content_type="text/plain"
                )
            else:
                http = StatusAndHeaders(
                    "200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1"
                )
                rec = w.create_warc_record(
                    uri, "response", payload=io.BytesIO(body.encode()), http_headers=http
                )
            w.write_record(rec)


JATS = (
    '<?xml version="1.0"?><article xmlns:xlink="http://www.w3.org/1999/xlink"><front><article-meta>'
    '<article-id pub-id-type="doi">10.1371/journal.pone.{n}</article-id></article-meta></front><back><ref-list>'
    '<ref><mixed-citation>Kaneko T. DNA Res. 1996. doi: <ext-link xlink:href="https://doi.org/10.1093/dnares/3.3.109">'
    "10.1093/dnares/3.3.109</ext-link></mixed-citation></ref></ref-list></back></article>"
)
BIB = "@article{k, title = {On {DNA}}, doi = {10.1007/978-3-319-24277-4\\_9}, eprint = {1706.03762}, archivePrefix = {arXiv}}\n"
PAPERS: list[dict[str, Any]] = [
    {
        "id": f"p{i}",
        "year": 2015 + i,
        "metadata": {
            "doi": f"https://doi.org/10.1371/journal.pone.{i:07d}",
            "url": f"https://journals.plos.org/{i}",
        },
        "text": f"As shown before (doi:10.1016/j.cell.2009.01.042) and in https://doi.org/10.1038/nature{12373 + i}.",
    }
    for i in range(6)
]


def _workspace(ws: Path) -> None:
    """Every file a guide's line names, small and realistic."""
    from .test_derive import INSPIRE_BIB
    from .wikidump import WikiPage, write_dump, write_multistream

    make_corpus(ws)
    (ws / "paper.txt").write_text("We build on doi:10.1000/182 and https://doi.org/10.1038/nature12373.\n")
    (ws / "a.txt").write_text("see 10.1016/j.cell.2009.01.042\n")
    (ws / "notes.txt").write_text("line one\nline two cites doi:10.1000/notes\n")
    (ws / "notes.md").write_text("Cite [the paper](https://doi.org/10.1000/md) please.\n")
    (ws / "refs.txt").write_text("1. Smith J. Nature. 2009. doi:10.1038/nature07953\n")
    (ws / "refs.md").write_text("Code: https://zenodo.org/records/1234 and arXiv:1706.03762.\n")
    (ws / "refs.bib").write_text(INSPIRE_BIB)
    (ws / "page.html").write_text('<p>See <a href="https://doi.org/10.1000/182">doi:10.1000/182</a>.</p>\n')
    (ws / "two.html").write_text("<p>10.1000/first and 10.1000/second</p>\n")
    (ws / "page.wikitext").write_text(
        "{{cite journal |doi=10.2307/446800 |title=X}}\n== References ==\n{{Reflist}}\n"
    )
    (ws / "export.txt").write_text("Title,DOI\nOn x,10.1371/journal.pbio.0020334\n")
    (ws / "r.jsonl").write_text('{"id": "a", "text": "doi:10.1000/2"}\n')
    (ws / "dump.txt.gz").write_bytes(gzip.compress(b"dumped: doi:10.1000/dump\n" * 3))
    (ws / "records.json.gz").write_bytes(gzip.compress(json.dumps({"DOI": "10.5555/json"}).encode()))
    for d, names in (("src", ("a.bib", "sub/b.bib")), ("refs", ("new.bib", "old.bib"))):
        for n in names:
            (ws / d / n).parent.mkdir(parents=True, exist_ok=True)
            (ws / d / n).write_text(BIB)
    (ws / "src" / "tool.py").write_text("# cites 10.1000/py\n")
    (ws / "dumps").mkdir()
    (ws / "dumps" / "a.txt.gz").write_bytes(gzip.compress(b"doi:10.1000/dumps\n"))
    (ws / "dumps" / "b.json.gz").write_bytes(gzip.compress(b'{"doi": "10.1000/jsondump"}\n'))
    (ws / "more-inputs.txt").write_text("paper.txt\nnotes.txt\n")
    (ws / "records.jsonl.zst").write_bytes(
        __import__("zstandard")
        .ZstdCompressor()
        .compress(
            b"".join(json.dumps({"doc_id": p["id"], "body": p["text"]}).encode() + b"\n" for p in PAPERS)
        )
    )
    pq.write_table(
        pa.Table.from_pylist([{"id": p["id"], "text": p["text"]} for p in PAPERS]), ws / "fulltexts.parquet"
    )
    pq.write_table(
        pa.Table.from_pylist([{"id": p["id"], "text": p["text"]} for p in PAPERS]), ws / "records.parquet"
    )
    pq.write_table(
        pa.Table.from_pylist([{"doi": p["metadata"]["doi"], "text": p["text"]} for p in PAPERS]),
        ws / "papers.parquet",
    )
    (ws / "papers.jsonl.gz").write_bytes(
        gzip.compress("".join(json.dumps(p) + "\n" for p in PAPERS).encode())
    )
    (ws / "readmes").mkdir()
    (ws / "readmes" / "README.md").write_text(
        "Please cite arXiv:1706.03762 and https://zenodo.org/records/5.\n"
    )
    with open(ws / "papers.csv", "w") as f:
        f.write("paper_id,title,abstract\nP1,On x,We extend doi:10.1000/csv1.\nP2,On y,See 10.1000/csv2.\n")
    with open(ws / "scopus.csv", "w") as f:
        f.write('Authors,Title,Year,EID,DOI,link,text\n"A. B.","On x",2004,2-s2.0-1,10.1371/journal.pbio.0020334,'
                '"https://doi.org/10.1371/JOURNAL.PBIO.0020334","cites 10.1000/182"\n')  # fmt: skip
    _pdf(ws / "paper.pdf", "Data: https://doi.org/10.5061/dryad.2v6wwpzq1", "A paper")
    for d in ("papers", "pdfs"):
        _pdf(ws / d / "one.pdf", "Cited: doi:10.1016/j.cell.2009.01.042", "One paper")
    pages = {f"https://a.example/{i}": f"<p>See doi:10.1000/warc{i}</p>" for i in range(3)}
    _warc(ws / "crawl" / "CC-MAIN-20240601-00001.warc.gz", pages)
    _warc(ws / "crawl.warc.gz", pages)
    _warc(
        ws / "segment" / "CC-MAIN-20240601-00001.warc.wet.gz",
        {"https://f.example/0": "text 10.1000/wet"},
        wet=True,
    )
    nxml = {f"PMC00500{i}/article.nxml": JATS.format(n=f"{i:07d}").encode() for i in range(2)}
    tar_of(ws / "oa_comm_xml.PMC005xxxxxx.baseline.2024-06-18.tar.gz", nxml, "w:gz")
    for pmc in ("PMC1234567", "PMC7654321"):
        tar_of(ws / f"{pmc}.tar.gz", {f"{pmc}/{pmc}.nxml": JATS.format(n=pmc[3:]).encode()}, "w:gz")
    tex = rb"\documentclass{article}\begin{document}See \doi{10.1103/PhysRevLett.116.061102}.\end{document}"
    for n in ("001", "002"):
        tar_of(
            ws / f"arXiv_src_2401_{n}.tar",
            {f"2401/2401.00{n}.gz": gz_tar({"main.tex": tex, "refs.bib": BIB.encode()})},
            "w",
        )
    with zipfile.ZipFile(ws / "zenodo-dump.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("record-1/README.md", "Data: https://doi.org/10.5281/zenodo.1234\n")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        data = b"thesis cites doi:10.1000/thesis\n"
        info = tarfile.TarInfo("theses/t1.txt")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    (ws / "institutional-repo.tar.xz").write_bytes(lzma.compress(buf.getvalue()))
    wiki = [
        WikiPage(f"Page {i}", f"Text.<ref>{{{{cite journal |doi=10.1000/wiki{i}}}}}</ref>", 10 + i)
        for i in range(3)
    ]
    write_multistream(str(ws / "enwiki-20240601-pages-articles-multistream.xml.bz2"), wiki)
    write_dump(str(ws / "dewiki-20240601-pages-articles.xml.bz2"), wiki)
    os.symlink(ROOT / "corpora", ws / "corpora")
    assert bz2  # the dumps are bz2, written by wikidump


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("guides")
    _workspace(ws)
    return ws


def _fresh(workspace: Path, tmp_path: Path) -> Path:
    """A copy of the workspace for one guide (its commands write their outputs into it)."""
    ws = tmp_path / "ws"
    shutil.copytree(workspace, ws, symlinks=True)
    return ws


def _env(ws: Path) -> dict[str, str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(ws)}
    env["PYTHONPATH"] = str(ROOT)
    return env


def run_sh(
    block: Block, ws: Path, env: dict[str, str] | None = None
) -> list[subprocess.CompletedProcess[str]]:
    """Each line of a shell block (a line ending in \\ joined to the next) run by bash in `ws`."""
    out = []
    for line in re.sub(r"\\\n\s*", " ", block.text).splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith("pip install"):
            continue  # an extra installed: the test extra holds them all (.ci/run installs it)
        cmd = line
        for said, here in SERVERS.items():
            cmd = cmd.replace(said, here)
        p = subprocess.run(
            ["bash", "-o", "pipefail", "-c", cmd],
            cwd=ws,
            env=env or _env(ws),
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert p.returncode == EXIT.get(line.strip(), 0), (
            f"{block.guide}:{block.line}: {line}\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}"
        )
        out.append(p)
    return out


def run_sql(block: Block, ws: Path) -> list[Any]:
    """Each statement of a SQL block, by DuckDB in `ws`: its rows."""
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    cwd = os.getcwd()
    os.chdir(ws)
    try:
        code = "\n".join(x for x in block.text.splitlines() if not x.strip().startswith("--"))
        statements = code.split(";")
        return [con.sql(q).fetchall() for q in statements if q.strip()]
    finally:
        os.chdir(cwd)


def run_python(block: Block, ws: Path, names: dict[str, Any] | None = None) -> dict[str, Any]:
    cwd = os.getcwd()
    os.chdir(ws)
    names = {"__name__": "guide", **(names or {})}
    try:
        exec(compile(block.text, f"{block.guide}:{block.line}", "exec"), names)
    finally:
        os.chdir(cwd)
    return names


def guide(name: str) -> list[Block]:
    return [b for b in ALL if b.guide == name]


# -- the tests ------------------------------------------------------------------------------------


RUN_HERE: set[str] = set()  # the guides whose every block a test below runs


def test_every_block_of_the_guides_is_run_or_named() -> None:
    listed = set(NOT_RUN)
    for b in ALL:
        assert b.guide in RUN_HERE or b.key in listed, (
            f"{b.guide}:{b.line} is neither run nor named in NOT_RUN"
        )
    assert listed <= {b.key for b in ALL}, "NOT_RUN names a block no guide holds"


def runs(name: str) -> str:
    RUN_HERE.add(name)
    return name


README = runs("README.md")


def test_readme(workspace: Path, tmp_path: Path) -> None:
    ws = _fresh(workspace, tmp_path)
    for b in guide(README):
        if b.key in NOT_RUN:
            continue
        if b.kind == "sh":
            done = run_sh(b, ws)
            if "find paper.txt refs.bib page.html" in b.text:
                assert done[0].stdout.split() == [
                    "paper.txt:10.1000/182", "paper.txt:10.1038/nature12373", "refs.bib:10.1023/a:1026654312961",
                    "refs.bib:10.4310/atmp.1998.v2.n2.a2", "refs.bib:10.1016/j.physletb.2012.08.020",
                    "page.html:10.1000/182",  # its link is one occurrence
                ]  # fmt: skip
                assert done[2].stdout.split("\t")[2:4] == ["10.1000/dump", "doi-label"]
            if "summary out/ --html" in b.text:
                assert (ws / "report.html").read_text().lower().startswith("<!doctype html>")
        elif b.kind == "python":
            names = run_python(b, ws)
            con = names["con"]
            assert {
                r[1]
                for r in con.sql(
                    f"SELECT id, unnest(doi_find(text)) AS doi FROM '{ws}/records.parquet'"
                ).fetchall()
            } >= {"10.1016/j.cell.2009.01.042"}
        else:
            raise AssertionError(f"{b.guide}:{b.line}: a {b.kind} block this test does not run")


API = runs("docs/api.md")


def test_api(workspace: Path, tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    ws = _fresh(workspace, tmp_path)
    b1, b2, b3, b4 = guide(API)
    names = run_python(b1, ws)
    # the doctest block, with the names the block before imports: its outputs, as shown
    test = doctest.DocTestParser().get_doctest(b2.text, names, "api.md", "docs/api.md", b2.line)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.failures == 0
    df = pd.DataFrame({"doi": ["https://doi.org/10.1000/ABC", None, "DOI: 10.1038/x."]})
    frame = pl.DataFrame({"doi": ["https://doi.org/10.1000/ABC", None]})
    got = run_python(b3, ws, {"df": df, "frame": frame, "pl": pl})
    assert [None if pd.isna(x) else x for x in got["df"]["doi"]] == ["10.1000/abc", None, "10.1038/x"]
    assert got["frame"]["doi"].to_list() == ["10.1000/abc", None]
    # the scan script, saved and run as a script (its __main__ guard is what lets its workers start)
    (ws / "scan_corpus.py").write_text(b4.text + "\n        print(report.counts['dois'])\n")
    p = subprocess.run(
        [sys.executable, "scan_corpus.py"], cwd=ws, env=_env(ws), capture_output=True, text=True, timeout=600
    )
    assert p.returncode == 0, p.stderr
    assert int(p.stdout.split()[-1]) == len({r["doi"] for r in table(ws / "out", "dois")}) > 3000


ARCHIVES = runs("docs/archives-and-dumps.md")


def test_archives_and_dumps(workspace: Path, tmp_path: Path) -> None:
    ws = _fresh(workspace, tmp_path)
    for b in guide(ARCHIVES):
        if b.key in NOT_RUN:
            continue
        if b.kind == "sh":
            run_sh(b, ws)
        elif b.kind == "sql":
            results = run_sql(b, ws)
            assert all(results), f"{b.guide}:{b.line} gave no rows"
        else:
            raise AssertionError(f"{b.guide}:{b.line}: a {b.kind} block this test does not run")
    assert {r["doi"] for r in table(ws / "papers-out", "mentions")} == {"10.1016/j.cell.2009.01.042"}
    assert {r["record"] for r in table(ws / "out", "mentions")} == {
        f"https://a.example/{i}" for i in range(3)
    }
    assert {r["doi"] for r in table(ws / "pmc", "mentions")} >= {"10.1093/dnares/3.3.109"}
    assert {r["doi"] for r in table(ws / "repos", "mentions")} == {"10.5281/zenodo.1234", "10.1000/thesis"}
    assert {r["page_id"] for r in table(ws / "wiki", "mentions")} == {10, 11, 12}


CITATIONS = runs("docs/citation-graphs.md")


def test_citation_graphs(workspace: Path, tmp_path: Path) -> None:
    pytest.importorskip("polars")
    ws = _fresh(workspace, tmp_path)
    for b in guide(CITATIONS):
        if b.kind == "sh":
            run_sh(b, ws)
        elif b.kind == "sql":
            results = run_sql(b, ws)
            if "one edge per" in b.text:
                (edges,) = results
                assert sorted({(c, d) for c, d, _n in edges}) == sorted(
                    {(p["metadata"]["doi"][16:], "10.1016/j.cell.2009.01.042") for p in PAPERS}
                    | {
                        (p["metadata"]["doi"][16:], f"10.1038/nature{12373 + i}")
                        for i, p in enumerate(PAPERS)
                    }
                )
        elif b.kind == "python":
            names = run_python(b, ws)
            assert names["graph"].columns == ["source", "record", "doi"] and names["graph"].height == 12
        else:
            raise AssertionError(f"{b.guide}:{b.line}: a {b.kind} block this test does not run")
    assert {r["title"] for r in table(ws / "pdfs-out", "mentions")} == {"One paper"}
    assert {"warc_date", "warc_record_id"} <= set(table(ws / "crawl-out", "mentions")[0])


CLEANING = runs("docs/cleaning.md")


def test_cleaning(workspace: Path, tmp_path: Path) -> None:
    pl = pytest.importorskip("polars")
    ws = _fresh(workspace, tmp_path)
    b1, b2, b3, b4, b5 = guide(CLEANING)
    names = run_python(b1, ws, {"text": "see doi:10.1000/182"})
    # what the comments show
    for line in b1.text.splitlines():
        m = re.match(r"(canonicalize\(.*?\)|is_equivalent\(.*?\))\s+# (.*)$", line)
        if m:
            assert repr(eval(m.group(1), names)) == m.group(2).strip(), line
    batch = pa.record_batch(
        {"paper_id": ["x"], "body": ['<a href="https://doi.org/10.1000/1">10.1000/1</a>']}
    )
    got = run_python(b2, ws, {"batch": batch})
    said = re.search(r"# (id=.*)", b2.text)
    assert said is not None
    shown = dict(tuple(kv.split("=", 1)) for kv in said.group(1).split(", "))
    row = got["extract_batch"](pa.record_batch({"id": ["a"], "text": ["see doi:10.1000/182"]})).to_pylist()[0]
    assert {k: repr(v) for k, v in row.items()} == shown
    # the engines' block, line by line: each is run as written by the test named, on a real engine
    # (a Dask LocalCluster, DuckDB, Polars, a local Spark of one core, a local Ray)
    from . import test_arrow

    for engine, fn in (("Dask", "test_from_a_dask_dataframe"), ("DuckDB", "test_from_duckdb_and_polars"),
                       ("Spark", "test_from_spark"), ("Ray", "test_from_ray_data")):  # fmt: skip
        assert f"# {engine}" in b3.text and callable(getattr(test_arrow, fn)), fn
    names = run_python(b4, ws)
    edges = (
        names["con"]
        .sql(
            "SELECT DISTINCT doi_canonicalize(citing) AS citing, cited FROM (SELECT doi AS citing, "
            f"unnest(doi_find(text)) AS cited FROM '{ws}/papers.parquet') WHERE cited IS DISTINCT FROM doi_canonicalize(citing)"
        )
        .fetchall()
    )
    assert len(edges) == 12
    df = pl.DataFrame({"text": ["cites doi:10.1000/182"], "link": ["https://doi.org/10.1000/ABC"]})
    got = run_python(b5, ws, {"df": df, "pl": pl})
    assert got["df"]["dois"].to_list() == [["10.1000/182"]] and got["df"]["doi"].to_list() == ["10.1000/abc"]


DEVELOPMENT = runs("docs/development.md")


def test_development(workspace: Path, tmp_path: Path) -> None:
    ws = _fresh(workspace, tmp_path)
    for b in guide(DEVELOPMENT):
        if b.key in NOT_RUN or (b.kind == "sh" and b.text.startswith("python scripts/make_corpus.py bench")):
            continue
        assert b.kind == "python", b
        (ws / "run_scan.py").write_text(b.text)
        p = subprocess.run(
            [sys.executable, "run_scan.py"], cwd=ws, env=_env(ws), capture_output=True, text=True, timeout=600
        )
        assert p.returncode == 0, p.stderr
        assert "'dois': 3602" in p.stdout and p.stdout.rstrip().endswith("[]")


FIND = runs("docs/find.md")


def test_find(workspace: Path, tmp_path: Path) -> None:
    ws = _fresh(workspace, tmp_path)
    (ws / ".local" / "share" / "bash-completion" / "completions").mkdir(parents=True)
    first, completion = guide(FIND)
    lines = [x.split(" # ")[0].strip() for x in first.text.splitlines() if x.strip()]
    by = dict(zip(lines, run_sh(first, ws), strict=True))
    assert by["doi-extract find paper.txt"].stdout.split() == ["10.1000/182", "10.1038/nature12373"]
    assert by["doi-extract find --unique page.html"].stdout.split() == ["10.1000/182"]
    assert by["cat refs.txt | doi-extract find -"].stdout.split() == ["10.1038/nature07953"]
    assert by["doi-extract find --derive arxiv refs.md"].stdout.split() == ["10.48550/arxiv.1706.03762"]
    assert by["doi-extract find -q notes.md && echo cites"].stdout == "cites\n"
    assert by["doi-extract find -s maybe-missing.txt a.txt"].stderr == ""
    assert by["doi-extract find -r --include '*.bib' --exclude 'old*' refs/"].stdout.startswith(
        "refs/new.bib:"
    )
    assert "old.bib" not in by["doi-extract find -r --include '*.bib' --exclude 'old*' refs/"].stdout
    jsonl = [
        json.loads(x)
        for x in by[
            "doi-extract find --format jsonl crawl.warc.gz paper.pdf records.json.gz"
        ].stdout.splitlines()
    ]
    assert {r["doi"] for r in jsonl} == {
        "10.1000/warc0",
        "10.1000/warc1",
        "10.1000/warc2",
        "10.5061/dryad.2v6wwpzq1",
        "10.5555/json",
    }
    # completion: bash's line as written; zsh's names its own fpath, so it is run by zsh where one is
    lines = completion.text.splitlines()
    p = subprocess.run(
        ["bash", "-c", lines[0]], cwd=ws, env=_env(ws), capture_output=True, text=True, timeout=60
    )
    assert (
        p.returncode == 0
        and "complete" in (ws / ".local/share/bash-completion/completions/doi-extract").read_text()
    )
    if shutil.which("zsh"):
        env = _env(ws)
        p = subprocess.run(
            ["zsh", "-c", f"fpath=({ws}) ; {lines[1]}"], cwd=ws, env=env, capture_output=True, text=True
        )
        assert p.returncode == 0 and (ws / "_doi-extract").read_text().startswith("#compdef")


RECORDS = runs("docs/records.md")


def test_records(workspace: Path, tmp_path: Path) -> None:
    ws = _fresh(workspace, tmp_path)
    (b,) = guide(RECORDS)
    run_sh(b, ws)
    assert {(r["record"], r["doi"]) for r in table(ws / "out", "mentions")} == {
        ("P1", "10.1000/csv1"),
        ("P2", "10.1000/csv2"),
    }
    (row,) = table(ws / "scopus-out", "mentions")[:1]
    assert row["record"] == "2-s2.0-1" and row["year"] == "2004"  # a CSV cell is text


SCAN = runs("docs/scan.md")


def test_scan(workspace: Path, tmp_path: Path) -> None:
    ws = _fresh(workspace, tmp_path)
    first, summary = guide(SCAN)
    run_sh(first, ws)
    assert {r["record"] for r in table(ws / "records-out", "mentions")} == {p["id"] for p in PAPERS}
    assert table(ws / "fulltexts-out", "occurrences")
    assert {r["doi"] for r in table(ws / "readmes-out", "mentions")} == {
        "10.48550/arxiv.1706.03762",
        "10.5281/zenodo.5",
    }
    shown = run_sh(summary, ws)
    assert "distinct DOIs" in shown[0].stdout
    assert json.loads(shown[1].stdout)["run"]["hits"] > 3000
    assert (ws / "report.html").exists()


CLUSTERS = runs("docs/clusters.md")


@pytest.fixture
def servers(workspace: Path) -> Iterator[dict[str, str]]:
    """An S3 API (moto's server) and a Dask cluster, on 127.0.0.1, for the cluster guide's lines:
    its buckets hold the guide's prefixes; the scheduler is the guide's `scheduler:8786`."""
    pytest.importorskip("moto.server")
    boto3 = pytest.importorskip("boto3")
    distributed = pytest.importorskip("distributed")
    with moto_s3() as env:
        s3 = boto3.client("s3", endpoint_url=env["AWS_ENDPOINT_URL"], region_name="us-east-1",
                          aws_access_key_id="testing", aws_secret_access_key="testing")  # fmt: skip
        for bucket in ("bucket", "corpus", "scratch"):
            s3.create_bucket(Bucket=bucket)
        for f in sorted((workspace / "corpus").iterdir()):
            s3.upload_file(str(f), "bucket", f"corpus/{f.name}")
            s3.upload_file(str(f), "corpus", f"in/{f.name}")
            s3.upload_file(str(f), "bucket", f"x/{f.name}")
        s3.upload_file(str(workspace / "papers.jsonl.gz"), "bucket", "crawl/part-0.jsonl.gz")
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)  # the cluster's workers read the store as the client does
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
        )
        SERVERS.update(
            {
                "tcp://scheduler:8786": cluster.scheduler_address,
                "http://127.0.0.1:9000": env["AWS_ENDPOINT_URL"],
            }
        )
        try:
            yield env
        finally:
            SERVERS.clear()
            cluster.close()
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


@pytest.mark.slow
def test_clusters(workspace: Path, tmp_path: Path, servers: dict[str, str]) -> None:
    ws = _fresh(workspace, tmp_path)
    env = {**_env(ws), **servers}
    for b in guide(CLUSTERS):
        lines = [x for x in b.text.splitlines() if not x.startswith("pip install")]
        run_sh(b._replace(text="\n".join(lines)), ws, env)
    assert len({r["doi"] for r in table(ws / "out", "dois")}) == 3602
    assert {r["doi"] for r in table(ws / "crawl-out", "dois")} >= {"10.1016/j.cell.2009.01.042"}
    import s3fs

    fs = s3fs.S3FileSystem(client_kwargs={"endpoint_url": servers["AWS_ENDPOINT_URL"]})
    assert fs.exists("corpus/out/_run.json")
