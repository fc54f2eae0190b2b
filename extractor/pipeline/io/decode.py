"""Bytes to text: which kind of text it is (plain, html or pdf-extracted), whether it is text at
all, and invalid UTF-8 made visible as U+FFFD without moving offsets."""

from __future__ import annotations

import codecs
import re

from ...match.native import control_bytes
from ...match.syntaxes import detect_syntax, marked_bytes
from ..errors import BinaryInput, NotText
from ..units import InputType

# XML (JATS/NXML, Crossref, TEI…) is markup too: entities decoded, attributes read.
_HTML_EXT = (".html", ".htm", ".xhtml", ".shtml", ".xml", ".nxml")
_HTML_SNIFF = re.compile(
    rb"(?i)<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>]|<meta\s|<(?:p|div|span|a|li|td|table|br)[\s>/]"
)


_MARKUP_START = re.compile(rb"\s*<(?:!doctype|html|\?xml)", re.I)

# How much of an input's head decides its kind and whether it is text at all.
HEAD_BYTES = 1 << 16


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
    if isinstance(head, str):
        # a record's text: only what the sniffs read is encoded, and nothing when no tag can be
        # in it (most records: asked of every record's text, the sniff must cost next to nothing)
        head = head[:HEAD_BYTES]
        if "<" not in head and "\x0c" not in head:
            return "plain"
        data = head.encode("utf-8", "replace")
    else:
        data = head
    sample = data[:HEAD_BYTES]
    if b"<" not in sample and b"\x0c" not in sample:
        return "plain"  # no tag and no form feed: nothing for the sniffs below
    if len(_HTML_SNIFF.findall(sample[:16384])) >= 2 or _MARKUP_START.match(sample):
        return "html"
    if b"\x0c" in sample:
        return "pdf"
    return "plain"


def syntax_for(forced: str | None, name: str | None, head: bytes | str) -> str | None:
    """The source syntax (spec §7) a document is read in: the one forced (--syntax), none when
    "none" is forced, else the one its name or its first characters tell; None for prose."""
    if forced == "none":
        return None
    if forced and forced != "auto":
        return forced
    if isinstance(head, str):
        return detect_syntax(name, head)
    head = head[:HEAD_BYTES]
    if marked_bytes(head) is False:  # no sniff asked: the name alone tells, the head not decoded
        return detect_syntax(name, None)
    return detect_syntax(name, head.decode("utf-8", "replace"))


def text_input_type(told: InputType, name: str | None, head: bytes, forced: str | None) -> InputType:
    """`told` completed with a text's kind and source syntax where they are not told yet: the
    kind unless forced, the syntax forced (--syntax) or told by its name and first bytes (the
    UTF-8 it is searched as), "" for prose."""
    kind = told.kind or detect_kind(name, head)
    syntax = told.syntax if told.syntax is not None else (syntax_for(forced, name, head) or "")
    return told if (kind, syntax) == (told.kind, told.syntax) else told._replace(kind=kind, syntax=syntax)


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


_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
_XML_DECL = re.compile(rb"""\A\s*<\?xml[^>]{0,200}?encoding\s*=\s*["']([A-Za-z0-9._:-]{1,40})""")
_META_CHARSET = re.compile(rb"""<meta[^>]{0,300}?charset\s*=\s*["']?([A-Za-z0-9._:-]{1,40})""", re.I)


def declared_encoding(head: bytes) -> str | None:
    """The encoding a text declares when it is not UTF-8: a UTF-16 or UTF-32 byte order mark, an
    XML declaration, or an HTML `<meta charset>` in its first 4 KB; None for UTF-8,
    ASCII, an unknown name, or no declaration."""
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return codec
    m = _XML_DECL.match(head) or _META_CHARSET.search(head, 0, 4096)
    name = codec_name(m.group(1).decode("ascii")) if m else None
    return None if name in ("utf-8", "ascii") else name


def codec_name(name: str | None) -> str | None:
    """Python's name of a charset (`ISO-8859-1` → `iso8859-1`), or None for an unknown one."""
    if not name:
        return None
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


NOT_TEXT = "binary data (control bytes in the first block)"


def binary_input(why: str) -> BinaryInput:
    """The error of an input is_binary says `why` of: NotText for binary data, BinaryInput for a
    PDF read as text."""
    return NotText(why) if why == NOT_TEXT else BinaryInput(why)


def is_binary(head: bytes) -> str | None:
    """Why `head` is not text, or None: a PDF, or mostly control bytes (UTF-16 and UTF-32 with
    a byte order mark are text)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
        return None
    if head.startswith(b"%PDF-"):
        return (
            "a PDF file, not text: `doi-extract scan` reads PDFs (the pdf extra), or extract its text first"
        )
    if not head:
        return None
    sample = memoryview(head)[:HEAD_BYTES]  # read where it lies: a whole small file is the head
    controls = control_bytes(sample)  # bounds.CONTROL_BYTES
    if controls > len(sample) * 0.03:
        return NOT_TEXT
    return None


# Lone surrogates: invalid bytes decoded with surrogateescape, or \\udXXX escapes in JSON.
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean(text: str) -> tuple[str, int]:
    """Lone surrogates (invalid bytes) to U+FFFD, keeping the length; and how many there were."""
    if text.isascii():
        return text, 0
    try:
        text.encode("utf-8")  # fails only on lone surrogates; far faster than searching for them
    except UnicodeEncodeError:
        return _SURROGATE.subn("\ufffd", text)
    return text, 0


def byte_offsets(text: str, starts: list[int]) -> list[int]:
    """UTF-8 byte offsets of character offsets into `text` (surrogates are one byte), in any
    order: a URL hit that holds the one before it starts before it."""
    if text.isascii():
        return list(starts)
    out = [0] * len(starts)
    pos = 0
    acc = 0
    for i in sorted(range(len(starts)), key=starts.__getitem__):
        acc += len(text[pos : starts[i]].encode("utf-8", "surrogateescape"))
        pos = starts[i]
        out[i] = acc
    return out


def input_head(data: bytes, start: int) -> tuple[bytes, int]:
    """The first bytes read of an input from offset `start`, checked and trimmed: at the input's
    start (0) binary data raises InputError and a UTF-8 byte order mark is dropped (the start
    moves past it). Binary-ness is a property of the whole input, decided on its head: a range
    of it further on is not checked again (ranges of one file were rejected alone)."""
    if start:
        return data, start
    why = is_binary(data)
    if why:
        raise binary_input(why)
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:], 3
    return data, 0
