"""MediaWiki XML dumps for the tests: written plain or compressed, and multistream copies with
their index as Wikipedia publishes them (a bz2 stream for the header, one per 100 pages, one for
the closing tag; `offset:page id:title` lines); the pages are fuzz/wikidump.py's."""

from __future__ import annotations

import bz2
import gzip
import os
from collections.abc import Sequence

from fuzz.wikidump import FOOTER, HEADER, WikiPage, dump_text, elementtree_pages

__all__ = [
    "FOOTER",
    "HEADER",
    "WikiPage",
    "dump_text",
    "elementtree_pages",
    "write_dump",
    "write_multistream",
]


def write_dump(path: str, pages: Sequence[WikiPage]) -> str:
    """A dump, compressed as its name says (.bz2, .gz)."""
    data = dump_text(pages).encode("utf-8")
    if path.endswith(".bz2"):
        data = bz2.compress(data)
    elif path.endswith(".gz"):
        data = gzip.compress(data)
    with open(path, "wb") as f:
        f.write(data)
    return path


def write_multistream(path: str, pages: Sequence[WikiPage], per_stream: int = 100) -> str:
    """`…-multistream.xml.bz2` and its `…-multistream-index.txt.bz2` beside it; the index path
    is returned."""
    assert path.endswith("-multistream.xml.bz2")
    index_lines = []
    with open(path, "wb") as f:
        f.write(bz2.compress(HEADER.encode("utf-8")))
        for i in range(0, len(pages), per_stream):
            group = pages[i : i + per_stream]
            offset = f.tell()
            f.write(bz2.compress("".join(p.xml() for p in group).encode("utf-8")))
            index_lines += [f"{offset}:{p.page_id}:{p.title}\n" for p in group]
        f.write(bz2.compress(FOOTER.encode("utf-8")))
    index = path[: -len(".xml.bz2")] + "-index.txt.bz2"
    with open(index, "wb") as f:
        f.write(bz2.compress("".join(index_lines).encode("utf-8")))
    return index


MARKUP_DEV = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "corpora-markup-dev")


def markup_dev_pages() -> list[tuple[WikiPage, set[str]]]:
    """The real Wikipedia pages of corpora-markup-dev as dump pages, each with its gold DOIs
    (read from ../shared, never copied into the project); empty when it is not there."""
    import json

    manifest = os.path.join(MARKUP_DEV, "manifest.jsonl")
    if not os.path.exists(manifest):
        return []
    out = []
    with open(manifest, encoding="utf-8") as f:
        for n, line in enumerate(f):
            row = json.loads(line)
            if row.get("format") != "wikitext":
                continue
            with open(os.path.join(MARKUP_DEV, row["doc"]), encoding="utf-8") as doc:
                text = doc.read()
            title = os.path.basename(row["doc"]).split("__")[-1].rsplit(".", 1)[0].replace("-", " ")
            out.append((WikiPage(title, text, 1000 + n), set(row["gold"])))
    return out
