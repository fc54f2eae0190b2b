"""Raw PDFs (issue 11): real PDFs typeset by fpdf2 in the test, read by PDFium in the worker —
their text by the `pdf` rules, their link annotations as `pdf-link` hits; encrypted, broken and
image-only PDFs rejected with a reason, never fatal."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from extractor.pipeline.errors import Fatal

from .helpers import run_json, scan_here, table

fpdf = pytest.importorskip("fpdf")
pytest.importorskip("pypdfium2")


def typeset(path: Path, pages: list[str], links: tuple[str, ...] = (), password: str | None = None) -> bytes:
    pdf = fpdf.FPDF()
    for i, text in enumerate(pages):
        pdf.add_page()
        pdf.set_font("Helvetica", size=10)
        pdf.multi_cell(70, 5, text)  # a narrow column: long lines wrap as in a journal
        if i == 0:
            for k, uri in enumerate(links):
                pdf.link(10, 10 + 6 * k, 40, 5, uri)
    if password is not None:
        pdf.set_encryption(owner_password="owner", user_password=password)
    data = bytes(pdf.output())
    path.write_bytes(data)
    return data


REFS = (
    "References\n"
    "1. Smith J (2010) A title. Nature 455: 1-10. 10.1038/nature07953\n"
    "2. Doe J, Roe R (2019) Another title of a paper. Cell 12: 3-4. https://doi.org/10.1016/j.cell.2010.01.002\n"
)


def mentions(out: Path) -> list[tuple[str, str, tuple[str, ...]]]:
    return sorted((Path(m["source"]).name, m["doi"], tuple(m["forms"])) for m in table(out, "mentions"))


def test_a_raw_pdf_is_read_text_and_links(tmp_path: Path) -> None:
    typeset(
        tmp_path / "paper.pdf",
        [REFS, "Page two cites doi:10.1000/page2."],
        links=(
            "https://doi.org/10.1000/only-in-a-link",
            "https://doi.org/10.1038/nature07953",
            "mailto:x@y.z",
        ),
    )
    out = tmp_path / "out"
    scan_here([tmp_path], out, occurrences=True)
    assert mentions(out) == [
        ("paper.pdf", "10.1000/only-in-a-link", ("pdf-link",)),
        ("paper.pdf", "10.1000/page2", ("doi-label",)),
        ("paper.pdf", "10.1016/j.cell.2010.01.002", ("resolver-url",)),
        ("paper.pdf", "10.1038/nature07953", ("bare",)),  # spec §6: its link is the printed one's
    ]
    run = run_json(out)
    assert run["rejected"] == [] and run["documents"] == 1  # its text and its links: one PDF


def test_a_link_is_the_printed_doi_s_occurrence_on_its_own_page_only(tmp_path: Path) -> None:
    """Spec §6: a link annotation whose DOI its page prints is one occurrence with it — however
    many annotations the typesetter made of it (a DOI broken across lines is often two); a link
    to a DOI printed on another page only is an occurrence of its own."""
    typeset(
        tmp_path / "paper.pdf",
        [REFS, "Page two prints doi:10.1000/page2."],
        links=(
            "https://doi.org/10.1038/nature07953",
            "https://doi.org/10.1038/nature07953",
            "https://doi.org/10.1000/page2",
        ),
    )
    out = tmp_path / "out"
    scan_here([tmp_path], out, occurrences=True)
    got = sorted((r["doi"], r["form"]) for r in table(out, "occurrences"))
    assert got == [
        ("10.1000/page2", "doi-label"),
        ("10.1000/page2", "pdf-link"),
        ("10.1016/j.cell.2010.01.002", "resolver-url"),
        ("10.1038/nature07953", "bare"),
    ]


def test_unreadable_pdfs_are_rejected_with_their_reason(tmp_path: Path) -> None:
    data = typeset(tmp_path / "good.pdf", [REFS])
    typeset(tmp_path / "locked.pdf", ["secret doi:10.1000/secret"], password="user")
    (tmp_path / "cut.pdf").write_bytes(data[:200])
    blank = fpdf.FPDF()
    blank.add_page()
    (tmp_path / "scan.pdf").write_bytes(bytes(blank.output()))
    out = tmp_path / "out"
    scan_here([tmp_path], out)
    assert {d for _, d, _ in mentions(out)} == {"10.1038/nature07953", "10.1016/j.cell.2010.01.002"}
    reasons = {Path(r["source"]).name: r["reason"] for r in run_json(out)["rejected"]}
    assert reasons["locked.pdf"] == "an encrypted PDF (it needs a password)"
    assert reasons["cut.pdf"].startswith("not a readable PDF")
    assert reasons["scan.pdf"].startswith("a PDF with no text")
    assert set(reasons) == {"locked.pdf", "cut.pdf", "scan.pdf"}


def test_the_page_limit_stops_a_long_pdf_and_says_so(tmp_path: Path) -> None:
    from extractor.pipeline.errors import InputError
    from extractor.pipeline.formats.pdf import pdf_text

    data = typeset(tmp_path / "long.pdf", [f"page {i}: doi:10.1000/p{i}" for i in range(5)])
    text, links, stop, _info = pdf_text(data, max_pages=2)
    assert "10.1000/p1" in text and "10.1000/p2" not in text and links == []
    assert stop == "only the first 2 of 5 pages read"
    with pytest.raises(InputError, match="stopped after 0 of 5 pages: over -1 s"):
        pdf_text(data, max_seconds=-1.0)


def test_a_pdf_record_of_a_warc_is_read(tmp_path: Path) -> None:
    warcio = pytest.importorskip("warcio")
    pytest.importorskip("fastwarc")
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    data = typeset(tmp_path / "x.pdf", [REFS], links=("https://doi.org/10.1000/linked",))
    (tmp_path / "x.pdf").unlink()
    crawl = tmp_path / "crawl.warc.gz"
    with open(crawl, "wb") as f:
        w = WARCWriter(f, gzip=True)
        w.write_record(
            w.create_warc_record(
                "https://p.example/paper.pdf",
                "response",
                payload=io.BytesIO(data),
                http_headers=StatusAndHeaders(
                    "200 OK", [("Content-Type", "application/pdf")], protocol="HTTP/1.1"
                ),
            )
        )
    assert warcio is not None
    out = tmp_path / "out"
    scan_here([crawl], out)
    got = sorted((m["record"], m["doi"], tuple(m["forms"])) for m in table(out, "mentions"))
    assert got == [
        ("https://p.example/paper.pdf", "10.1000/linked", ("pdf-link",)),
        ("https://p.example/paper.pdf", "10.1016/j.cell.2010.01.002", ("resolver-url",)),
        ("https://p.example/paper.pdf", "10.1038/nature07953", ("bare",)),
    ]


def test_without_pypdfium2_a_run_of_pdfs_stops_with_the_install_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that cannot read its PDFs cannot work: it stops before writing (exit 2 from the
    command line), with what to install — not a rejected input per file."""
    typeset(tmp_path / "paper.pdf", [REFS])
    monkeypatch.setitem(sys.modules, "pypdfium2", None)
    out = tmp_path / "out"
    with pytest.raises(Fatal, match=r"pdf input needs pypdfium2: pip install 'doi-extractor\[pdf\]'"):
        scan_here([tmp_path], out)
    assert not (out / "_run.json").exists() and not (out / "mentions").exists()


def test_find_reads_a_raw_pdf_and_a_warc(tmp_path: Path) -> None:
    """`doi-extract find` takes what scan takes: a PDF's text and links, a WARC's records."""
    from .test_cli import run

    typeset(tmp_path / "paper.pdf", [REFS], links=("https://doi.org/10.1000/linked",))
    p = run("find", "--format", "jsonl", str(tmp_path / "paper.pdf"))
    assert p.returncode == 0, p.stderr
    got = [(r["doi"], r["form"]) for r in map(json.loads, p.stdout.decode().splitlines())]
    assert got == [
        ("10.1038/nature07953", "bare"),
        ("10.1016/j.cell.2010.01.002", "resolver-url"),
        ("10.1000/linked", "pdf-link"),
    ]
    (tmp_path / "locked.pdf").write_bytes(b"%PDF-1.4 not really")
    p = run("find", str(tmp_path / "locked.pdf"))
    assert p.returncode == 2 and "not a readable PDF" in p.stderr.decode()
