"""The inputs the benchmarks write for themselves from the generated corpus (beside scripts/make_corpus.py, which makes the corpus): a WARC of pages, a multistream dump, many small files, PDF text, one huge line, one huge record."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

from .harness import ROOT


def write_pages_warc(paths: list[str], warc: Path) -> bool:
    """The pages as HTTP responses of a WARC gzipped per record, as a crawler writes them."""
    try:
        from warcio.statusandheaders import StatusAndHeaders
        from warcio.warcwriter import WARCWriter
    except ImportError:
        return False
    import io

    with open(warc, "wb") as out:
        w = WARCWriter(out, gzip=True)
        for p in paths:
            headers = StatusAndHeaders(
                "200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1"
            )
            uri = "https://pages.example/" + os.path.basename(p)
            body = io.BytesIO(Path(p).read_bytes())
            w.write_record(w.create_warc_record(uri, "response", payload=body, http_headers=headers))
    return True


def write_multistream_dump(path: Path, pages: int, per_stream: int = 100) -> tuple[int, int]:
    """A Wikipedia-like multistream dump and its index (tests/wikidump.py's writer) of `pages`
    pages, their texts the real wikitext of corpora-markup-dev in turn; (bytes as XML, stored)."""
    import bz2
    from concurrent.futures import ProcessPoolExecutor

    sys.path.insert(0, str(ROOT))
    from tests.wikidump import FOOTER, HEADER, markup_dev_pages

    real = [p for p, _ in markup_dev_pages()]
    assert real, "corpora-markup-dev is not beside the project"
    groups = []
    for g in range(0, pages, per_stream):
        xml = []
        for i in range(g, min(pages, g + per_stream)):
            src = real[i % len(real)]
            src.title, src.page_id = f"{src.title.split(' #')[0]} #{i}", i + 1
            xml.append(src.xml())
        groups.append(("".join(xml), [(i + 1, f"Page #{i}") for i in range(g, min(pages, g + per_stream))]))
    raw = len(HEADER) + len(FOOTER) + sum(len(x.encode()) for x, _ in groups)
    with ProcessPoolExecutor(2) as pool:
        blobs = list(pool.map(bz2.compress, [x.encode() for x, _ in groups], chunksize=16))
    index = []
    with open(path, "wb") as f:
        f.write(bz2.compress(HEADER.encode()))
        for blob, (_x, ids) in zip(blobs, groups, strict=True):
            off = f.tell()
            f.write(blob)
            index += [f"{off}:{pid}:{title}\n" for pid, title in ids]
        f.write(bz2.compress(FOOTER.encode()))
    idx = Path(str(path)[: -len(".xml.bz2")] + "-index.txt.bz2")
    idx.write_bytes(bz2.compress("".join(index).encode()))
    return raw, path.stat().st_size


def write_small_files(source: Path, folder: Path, count: int, size: int = 2500) -> int:
    """Cut the first lines of a corpus file into `count` files of about `size` bytes (a corpus
    of one small document per file: the per-file cost); how many were written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    buf: list[bytes] = []
    n = 0
    with open(source, "rb") as f:
        for line in f:
            buf.append(line)
            n += len(line)
            if n >= size:
                (folder / f"doc-{written:06d}.txt").write_bytes(b"".join(buf))
                written += 1
                buf, n = [], 0
                if written >= count:
                    break
    return written


def write_pdf_text(sources: list[Path], folder: Path, width: int = 90, page_lines: int = 60) -> int:
    """Each corpus file as pdftotext would give it from a typeset page: lines of `width`
    characters (words and DOIs broken at the margin), a form feed every `page_lines` lines, in
    a `.pdf.txt` file (so the PDF rules read it); the bytes written."""
    folder.mkdir(parents=True, exist_ok=True)
    total = 0
    for src in sources:
        text = src.read_text(encoding="utf-8", errors="replace").replace("\n", " ")
        lines = [text[i : i + width] for i in range(0, len(text), width)]
        pages = ["\n".join(lines[i : i + page_lines]) for i in range(0, len(lines), page_lines)]
        data = ("\n\f".join(pages) + "\n").encode("utf-8")
        (folder / f"{src.stem}.pdf.txt").write_bytes(data)
        total += len(data)
    return total


def write_one_line_file(path: Path, size: int) -> None:
    rng = random.Random(3)
    chunk = "".join(f"word{rng.randint(0, 999)} " for _ in range(2000))
    with open(path, "w") as f:
        written = 0
        i = 0
        while written < size:
            s = chunk + f"doi:10.1234/line.{i} "
            f.write(s)
            written += len(s)
            i += 1


def write_huge_record(path: Path, size: int) -> None:
    with open(path, "w") as f:
        f.write('{"id": "huge", "text": "')
        written = 0
        i = 0
        while written < size:
            s = "lorem ipsum dolor sit amet " * 40 + f"doi:10.1234\\/rec.{i} "
            f.write(s)
            written += len(s)
            i += 1
        f.write('"}\n{"id": "small", "text": "doi:10.1234/small"}\n')
