"""Raw PDF files: their text extracted in the worker with PDFium (pypdfium2, the `pdf` extra),
then searched by the `pdf` rules (spec §5) as any PDF text is.

Pages are joined by a newline and a form feed, as pdftotext marks them. An encrypted PDF, one
PDFium cannot open, and one with no text at all (scanned images) are rejected with the reason,
never fatal; a page limit and a time limit per file keep a hostile PDF from stalling a worker
(the text read until then is searched, and the stop is reported).
"""

import time
from collections.abc import Iterator
from typing import Any, NamedTuple

from ..errors import InputError
from ..io.compression import decompressed
from ..io.read import open_input
from ..provenance import from_headers
from ..units import Progress, ScanConfig, ShardResult, ShardSpec
from .base import Format, Record, SkippedRecords

INSTALL_HINT = "PDF input needs pypdfium2: pip install 'doi-extractor[pdf]' (or '.[pdf]' in a clone)"

MAX_PAGES = 5000
MAX_SECONDS = 120.0


class PdfText(NamedTuple):
    """What is read of a PDF: its pages' text, the link URIs whose DOIs their page does not print
    (unprinted_links), why reading stopped early (None: read whole), and its document information
    (Title, Author, CreationDate, …; empty ones left out), which provenance fields may name."""

    text: str
    links: list[str]
    stop: str | None
    info: dict[str, str]


def _link_uris(doc: Any, page: Any) -> list[str]:
    """The URIs of a page's link annotations (/URI actions): a DOI the typesetter broke across
    lines is often whole in its link."""
    import ctypes

    import pypdfium2.raw as raw

    pos, link, out = ctypes.c_int(0), raw.FPDF_LINK(), []
    while raw.FPDFLink_Enumerate(page, ctypes.byref(pos), ctypes.byref(link)):
        action = raw.FPDFLink_GetAction(link)
        if action and raw.FPDFAction_GetType(action) == raw.PDFACTION_URI:
            n = raw.FPDFAction_GetURIPath(doc, action, None, 0)
            if 0 < n <= 1 << 16:
                buf = ctypes.create_string_buffer(n)
                raw.FPDFAction_GetURIPath(doc, action, buf, n)
                out.append(buf.value.decode("utf-8", "replace"))
    return out


def unprinted_links(page: str, uris: list[str]) -> list[str]:
    """The link URIs of a page that are occurrences of their own (spec §6): a link annotation
    whose DOIs the page prints is the printed one's occurrence (a reader sees the DOI once; a
    DOI broken across lines is often two annotations of one URI), so it is left out."""
    from ...match.matcher import find_spans
    from ...match.native import find_spans_utf8

    named = [{s.doi for s in find_spans(uri, "pdf-link")} for uri in uris]
    if not any(named):
        return uris
    printed = {s.doi for s in find_spans_utf8(page.encode("utf-8", "surrogateescape"), "pdf")}
    return [uri for uri, dois in zip(uris, named, strict=True) if not dois or not dois <= printed]


def pdf_text(data: bytes, max_pages: int = MAX_PAGES, max_seconds: float = MAX_SECONDS) -> PdfText:
    """The text of a PDF given as bytes, its link URIs, why its reading stopped early, and its
    document information."""
    try:
        import pypdfium2 as pdfium
    except ImportError:
        raise InputError(INSTALL_HINT) from None
    try:
        doc: Any = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        msg = str(exc)
        if "password" in msg.lower() or "security" in msg.lower():
            raise InputError("an encrypted PDF (it needs a password)") from None
        raise InputError(f"not a readable PDF ({msg})") from None
    try:
        pages, links, stop = [], [], None
        info = {k: v for k, v in doc.get_metadata_dict(skip_empty=True).items() if isinstance(v, str)}
        n = len(doc)
        if n > max_pages:
            stop = f"only the first {max_pages} of {n} pages read"
        began = time.monotonic()
        for i in range(min(n, max_pages)):
            if time.monotonic() - began > max_seconds:
                stop = f"stopped after {i} of {n} pages: over {max_seconds:.0f} s"
                break
            page = doc[i]
            textpage = page.get_textpage()
            # PDFium writes a hyphen it takes for a hyphenation point at a line end as U+FFFE (a
            # noncharacter): it is the "-" the page shows, which a DOI keeps (spec §5)
            pages.append(textpage.get_text_range().replace("\ufffe", "-"))
            textpage.close()
            links += unprinted_links(pages[-1], _link_uris(doc, page))
            page.close()
    finally:
        doc.close()
    text = "\n\x0c".join(pages)
    if not text.strip() and not links:
        raise InputError(stop or f"a PDF with no text ({n} pages of images only?): it needs OCR first")
    return PdfText(text, links, stop, info)


MAX_PDF_BYTES = 1 << 30


def records(
    spec: ShardSpec, config: ScanConfig, result: ShardResult, progress: Progress, skipped: SkippedRecords
) -> Iterator[Record]:
    """A raw PDF file as one document of PDF text; a stop at the page or time limit is named as
    a skipped part of it. Provenance fields name entries of its document information (Title,
    Author, CreationDate, …)."""
    with open_input(spec.path) as raw, decompressed(raw, spec.input_type.compression) as f:
        data = f.read(MAX_PDF_BYTES + 1)
    result.bytes_read += len(data)
    progress(len(data), 0)
    if len(data) > MAX_PDF_BYTES:
        raise InputError(f"a PDF over {MAX_PDF_BYTES >> 20} MiB")
    got = pdf_text(data)
    if got.stop is not None:
        skipped.add("record", 1, got.stop)
    meta = from_headers(got.info, fields=config.record_fields)
    yield Record(None, got.text, "pdf", meta)
    if got.links:
        # its link annotations, one URI a line: searched as links (the kind pdf-link), counted
        # in the same document (offsets into this list of URIs)
        yield Record(None, "\n".join(got.links), "pdf-link", meta)


def tell(name: str, head: bytes, text_field: str, id_field: str) -> bool:
    """By its header, %PDF-."""
    return head.startswith(b"%PDF-")


FORMAT = Format("pdf", tell, None, records, extra="pdf", needs="pypdfium2", suffixes=(".pdf",))
