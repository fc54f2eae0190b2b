"""MediaWiki XML dumps (formats/mediawiki.py): each article a record named by its title, read as
wikitext (spec §7) once the dump's XML escapes are undone; held to ElementTree's reading of the
same dumps; a multistream copy cut into shards by its index; redirects and other namespaces
passed over and counted; a cut dump keeps the pages before the cut."""

from __future__ import annotations

import bz2
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from extractor import find_dois
from extractor.pipeline.formats import mediawiki
from extractor.pipeline.formats.mediawiki import Page, iter_pages

from .helpers import SCAN, run_json, scan_here, table
from .wikidump import WikiPage, dump_text, elementtree_pages, markup_dev_pages, write_dump, write_multistream


@pytest.fixture(scope="module")
def real_pages() -> list[tuple[WikiPage, set[str]]]:
    pages = markup_dev_pages()
    if not pages:
        pytest.skip("corpora-markup-dev is not beside the project")
    return pages


def by_record(out: Path) -> dict[str, set[str]]:
    got: dict[str, set[str]] = {}
    for r in table(out, "mentions"):
        got.setdefault(r["record"], set()).add(r["doi"])
    return got


@pytest.mark.parametrize("name", ["enwiki-pages-articles.xml", "enwiki.xml.bz2", "enwiki.xml.gz"])
def test_a_dump_gives_each_page_as_a_record_named_by_its_title_with_the_gold_dois(
    tmp_path: Path, name: str, real_pages: list[tuple[WikiPage, set[str]]]
) -> None:
    write_dump(str(tmp_path / name), [p for p, _ in real_pages])
    scan_here([tmp_path / name], tmp_path / "out")
    got = by_record(tmp_path / "out")
    for page, gold in real_pages:
        assert got.get(page.title, set()) == gold, page.title
        # the page's text read alone, as a .wikitext file is, gives the same
        assert {h.doi for h in find_dois(page.text or "", "plain", syntax="wikitext")} == gold
    run = run_json(tmp_path / "out")
    assert run["documents"] == len(real_pages)
    assert run["documents_by_syntax"] == {"wikitext": len(real_pages)}


PIECES = [
    "{{cite journal |doi=10.1000/a<b>c |title=x}}",
    '<ref name="r1">doi:10.1038/nphys1170</ref>',
    "&amp;lt;",
    "&",
    "&#124;",
    "'quoted' \"double\"",
    "]]>",
    "<!-- comment -->",
    "café ☃ 𝄞",
    "\n",
    "<page><title>fake</title></page>",
    "</text>",
    "x" * 300,
]


def random_pages(rng: random.Random, n: int) -> list[WikiPage]:
    pages = []
    for i in range(n):
        text = None if rng.random() < 0.05 else "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 30)))
        older = [rng.choice(PIECES) for _ in range(rng.randint(0, 2))]
        pages.append(
            WikiPage(
                f"Page {i} & <{rng.choice(PIECES)[:5]}>",
                text,
                100 + i,
                ns=rng.choice([0, 0, 0, 1, 10]),
                redirect="Target" if rng.random() < 0.1 else None,
                older=older,
            )
        )
    return pages


@pytest.mark.parametrize("block", [7, 64, 1 << 22])
def test_the_dump_reader_reads_what_elementtree_reads(monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    """Every page's title, ids, timestamp, redirect and last revision's text as an XML parser
    reads them, with tags and escapes cut across the reader's blocks."""
    monkeypatch.setattr(mediawiki, "BLOCK", block)
    rng = random.Random(block)
    for _ in range(20 if block < 100 else 60):
        pages = random_pages(rng, rng.randint(1, 12))
        xml = dump_text(pages)
        want = elementtree_pages(xml)
        got = list(iter_pages(_Stream(xml.encode("utf-8")), 1 << 20))
        assert got == want


class _Stream:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def read(self, n: int) -> bytes:
        out = self.data[self.pos : self.pos + n]
        self.pos += len(out)
        return out


def test_a_page_over_the_record_limit_is_named_and_the_next_read() -> None:
    pages = [WikiPage("Big", "doi:10.1000/big " + "y" * 5000, 1), WikiPage("Next", "doi:10.1000/next", 2)]
    got = list(iter_pages(_Stream(dump_text(pages).encode()), 1000))
    assert got[0] == mediawiki.Skip(1, "Big: its text is over 1000 bytes")
    assert isinstance(got[1], Page) and got[1].title == "Next" and got[1].text == "doi:10.1000/next"


@pytest.mark.parametrize("bzip2", ["process", "thread", "inline"])
def test_a_multistream_dump_is_shared_among_shards_by_its_index(
    tmp_path: Path, real_pages: list[tuple[WikiPage, set[str]]], bzip2: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _decompress_by(bzip2, monkeypatch)
    pages = [p for p, _ in real_pages]
    path = tmp_path / "enwiki-20240601-pages-articles-multistream.xml.bz2"
    write_multistream(str(path), pages, per_stream=5)
    whole = scan_here([path], tmp_path / "one")
    assert whole.shards == 1  # under --shard-size: one shard
    many = scan_here([path], tmp_path / "many", shard_size=40_000)
    assert many.shards >= 6
    assert by_record(tmp_path / "many") == by_record(tmp_path / "one")
    assert by_record(tmp_path / "one") == {p.title: g for p, g in real_pages if g}
    assert run_json(tmp_path / "many")["documents"] == len(pages)
    # without its index beside it, the same file is one shard
    (tmp_path / "enwiki-20240601-pages-articles-multistream-index.txt.bz2").unlink()
    assert scan_here([path], tmp_path / "no-index", shard_size=40_000).shards == 1
    assert by_record(tmp_path / "no-index") == by_record(tmp_path / "one")


def test_redirects_and_other_namespaces_are_passed_over_and_counted(tmp_path: Path) -> None:
    pages = [
        WikiPage("Article", "{{cite journal|doi=10.1000/article}}", 1),
        WikiPage("Talk:Article", "see doi:10.1000/talk", 2, ns=1),
        WikiPage("Template:Cite", "doi:10.1000/template", 3, ns=10),
        WikiPage("Old name", "#REDIRECT [[Article]] doi:10.1000/redirect", 4, redirect="Article"),
        WikiPage("Gone", None, 5),
    ]
    write_dump(str(tmp_path / "wiki.xml.bz2"), pages)
    scan_here([tmp_path / "wiki.xml.bz2"], tmp_path / "out")
    assert by_record(tmp_path / "out") == {"Article": {"10.1000/article"}}
    run = run_json(tmp_path / "out")
    assert run["tallies"] == {
        "wiki pages of other namespaces passed over": 2,
        "wiki redirects passed over": 1,
    }
    assert run["skipped_records"][0]["first"] == [{"page id": 5, "reason": "Gone: no text"}]
    summary = subprocess.run(
        [sys.executable, "-m", "extractor.cli", "summary", str(tmp_path / "out")],
        capture_output=True,
        text=True,
    )
    assert (
        "Wiki redirects passed over: 1\nWiki pages of other namespaces passed over: 2" in summary.stdout
        or ("Wiki pages of other namespaces passed over: 2\nWiki redirects passed over: 1" in summary.stdout)
    )
    scan_here([tmp_path / "wiki.xml.bz2"], tmp_path / "all", wiki_namespaces=None)
    assert set(by_record(tmp_path / "all")) == {"Article", "Talk:Article", "Template:Cite"}
    scan_here([tmp_path / "wiki.xml.bz2"], tmp_path / "talk", wiki_namespaces=(1,))
    assert set(by_record(tmp_path / "talk")) == {"Talk:Article"}


def test_meta_fields_reach_page_id_namespace_revision_and_timestamp(tmp_path: Path) -> None:
    pages = [WikiPage("A", "doi:10.1000/a", 42, revision_id=4242, timestamp="2023-01-02T03:04:05Z")]
    write_dump(str(tmp_path / "wiki.xml"), pages)
    scan_here(
        [tmp_path / "wiki.xml"],
        tmp_path / "out",
        meta_fields=(("page_id", "page_id"), ("ns", "ns"), ("rev", "revision_id"), ("ts", "timestamp")),
    )
    (row,) = table(tmp_path / "out", "mentions")
    assert (row["record"], row["page_id"], row["ns"], row["rev"], row["ts"]) == (
        "A",
        42,
        0,
        4242,
        "2023-01-02T03:04:05Z",
    )


def test_a_history_dump_reads_each_page_last_revision() -> None:
    pages = [WikiPage("H", "now doi:10.1000/new", 7, older=["then doi:10.1000/old"])]
    (page,) = iter_pages(_Stream(dump_text(pages).encode()), 1 << 20)
    assert isinstance(page, Page) and page.text == "now doi:10.1000/new" and page.revision_id == 70


def _decompress_by(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """bz2 read as a worker reads it: by a bzip2 process, in a thread (no bzip2 on the system),
    or inline (a worker with one CPU of its own)."""
    if how == "thread":
        monkeypatch.setenv("DOI_EXTRACTOR_NO_BZIP2", "1")
    elif how == "inline":
        monkeypatch.setenv("DOI_EXTRACTOR_CPUS", "1")
    elif shutil.which("bzip2") is None:
        pytest.skip("no bzip2 here")


@pytest.mark.parametrize("bzip2", ["process", "thread", "inline"])
@pytest.mark.parametrize("name", ["cut.xml", "cut-multistream.xml.bz2"])
def test_a_cut_dump_keeps_the_pages_before_the_cut_and_names_it(
    tmp_path: Path, name: str, bzip2: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _decompress_by(bzip2, monkeypatch)
    pages = [WikiPage(f"P{i}", f"doi:10.1000/p{i} " + "z" * 500, i + 1) for i in range(60)]
    whole = tmp_path / ("whole-multistream.xml.bz2" if name.endswith("bz2") else "whole.xml")
    if name.endswith("bz2"):
        write_multistream(str(whole), pages, per_stream=10)
    else:
        write_dump(str(whole), pages)
    data = whole.read_bytes()
    (tmp_path / name).write_bytes(data[: len(data) // 2])
    scan_here([tmp_path / name], tmp_path / "out")
    got = sorted(by_record(tmp_path / "out"), key=lambda t: int(t[1:]))
    assert 10 <= len(got) < 50 and got == [f"P{i}" for i in range(len(got))]
    (cut,) = run_json(tmp_path / "out")["partial"]  # a partial download: named as such
    reason = cut["reason"]
    assert "cut short" in reason or "truncated" in reason, reason
    if name.endswith(".bz2") and bzip2 == "process":
        assert "bzip2: Compressed file ends unexpectedly" in reason


def test_the_command_line_reads_a_dump_and_its_namespaces_option(tmp_path: Path) -> None:
    pages = [WikiPage("A", "doi:10.1000/a", 1), WikiPage("Talk:A", "doi:10.1000/t", 2, ns=1)]
    (tmp_path / "w.xml.bz2").write_bytes(bz2.compress(dump_text(pages).encode()))
    for arg, want in (
        ([], {"A"}),
        (["--wiki-namespaces", "all"], {"A", "Talk:A"}),
        (["--wiki-namespaces", "1"], {"Talk:A"}),
    ):
        out = tmp_path / f"out{len(arg)}{want}"
        proc = subprocess.run(
            [*SCAN, str(tmp_path / "w.xml.bz2"), "-o", str(out), "-q", *arg], capture_output=True, text=True
        )
        assert proc.returncode == 0, proc.stderr
        assert set(by_record(out)) == want
    bad = subprocess.run(
        [*SCAN, str(tmp_path / "w.xml.bz2"), "-o", str(tmp_path / "x"), "--wiki-namespaces", "main"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "not 'all' or namespace numbers" in bad.stderr
