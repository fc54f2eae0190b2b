"""Bytes to text, and which kind of text it is (plain, html or pdf-extracted)."""

from __future__ import annotations

import re

# XML (JATS/NXML, Crossref, TEI…) is markup too: entities decoded, attributes read.
_HTML_EXT = (".html", ".htm", ".xhtml", ".shtml", ".xml", ".nxml")
_HTML_SNIFF = re.compile(
    rb"(?i)<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>]|<meta\s|<(?:p|div|span|a|li|td|table|br)[\s>/]"
)


def detect_kind(name: str | None, head: bytes | str) -> str:
    """The kind of a document from its name and first bytes (spec terms: plain, html, pdf).

    HTML or XML markup → html; form feeds as `pdftotext` writes them, or a `.pdf.txt` name → pdf.
    """
    lname = (name or "").lower()
    for suffix in (".gz", ".bz2", ".xz", ".zst"):
        if lname.endswith(suffix):
            lname = lname[: -len(suffix)]
    if lname.endswith(_HTML_EXT):
        return "html"
    if lname.endswith(".pdf.txt"):
        return "pdf"
    data = head.encode("utf-8", "replace") if isinstance(head, str) else head
    sample = data[:65536]
    if len(_HTML_SNIFF.findall(sample[:16384])) >= 2 or re.match(rb"\s*<(?:!doctype|html|\?xml)", sample, re.I):
        return "html"
    if b"\x0c" in sample:
        return "pdf"
    return "plain"


def decode_bytes(data: bytes) -> tuple[str, int]:
    """UTF-8 text (a BOM dropped) and the count of invalid bytes replaced by U+FFFD."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), 0
    except UnicodeDecodeError:
        pass
    text = data.decode("utf-8", "replace")
    # Each invalid byte sequence became one U+FFFD; genuine U+FFFD in the input are not counted.
    return text, text.count("\ufffd") - data.count("\xef\xbf\xbd".encode("latin-1"))
