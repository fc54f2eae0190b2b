"""The canonical key of a DOI name (spec §1): what makes two hits the same DOI.

The canonical key of a DOI is its name with the display wrapper removed, percent-decoded once
as UTF-8, format characters removed and ASCII letters (only) folded to lower case.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Spec §5: soft hyphen and zero-width characters are format characters, which a DOI never
# contains (NISO Z39.84-2005 §4.1; 2024 URI draft §2: graphic code points only).
FORMAT_CHARS = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_DROP_FORMAT = {ord(c): None for c in FORMAT_CHARS}

# Spec §5 (pdf): hyphen-like code points are read as "-" and ligatures expanded. U+FFFE is what
# PDFium gives for a hyphen at a line's end, the line joined (jad\ufffe201363 for jad- +
# 201363): a hyphen the typesetter set, which a DOI keeps.
PDF_HYPHENS = "\u2010\u2011\u2012\u2013\u2212\ufffe"
_PDF_TRANSLATE: dict[int, str | None] = {ord(c): "-" for c in PDF_HYPHENS}
_PDF_TRANSLATE.update({ord("ﬀ"): "ff", ord("ﬁ"): "fi", ord("ﬂ"): "fl", ord("ﬃ"): "ffi", ord("ﬄ"): "ffl"})
_PDF_TRANSLATE.update(_DROP_FORMAT)

# NISO Z39.84-2005 §4 and the 2024 URI draft, equivalence procedure: case-insensitive for the
# Basic Latin letters only. str.lower() would also fold "Á", the Kelvin sign and others.
_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}

_PCT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


def fold_ascii(s: str) -> str:
    """Lower-case A–Z only; every other code point is kept as it is (never normalized)."""
    return s.translate(_ASCII_LOWER)


def _utf8_len(lead: int) -> int:
    if lead < 0x80:
        return 1
    if 0xC2 <= lead <= 0xDF:
        return 2
    if 0xE0 <= lead <= 0xEF:
        return 3
    if 0xF0 <= lead <= 0xF4:
        return 4
    return 0


def _is_control(ch: str) -> bool:
    o = ord(ch)
    return o < 0x20 or 0x7F <= o <= 0x9F


def _decode_run(m: re.Match[str]) -> str:
    """Decode one run of %XX escapes, keeping any that are not valid UTF-8 or are controls."""
    text = m.group(0)
    data = bytes.fromhex(text.replace("%", ""))
    out: list[str] = []
    i = 0
    while i < len(data):
        n = _utf8_len(data[i])
        ch = None
        if n and i + n <= len(data):
            try:
                ch = data[i : i + n].decode("utf-8")
            except UnicodeDecodeError:
                ch = None
        if ch is None or _is_control(ch):
            # Spec §1: an escape run that is not valid UTF-8, or decodes to a control, stays.
            out.append(text[3 * i : 3 * i + 3])
            i += 1
        else:
            out.append(ch)
            i += n
    return "".join(out)


def percent_decode(s: str) -> str:
    """Percent-decode once as UTF-8 (spec §1); malformed or control escapes are kept."""
    if "%" not in s:
        return s
    return _PCT_RUN.sub(_decode_run, s)


@lru_cache(maxsize=1 << 14)
def clean_name(name: str, pdf: bool = False) -> str:
    """The DOI name as registered: format characters dropped, percent-decoded once.

    `pdf` also reads hyphen-like code points as "-" and expands ligatures (spec §5). Cached:
    the same raw name recurs thousands of times in a corpus.
    """
    name = name.translate(_PDF_TRANSLATE if pdf else _DROP_FORMAT)
    if pdf:
        name = "".join(name.split())  # a line break or space the PDF repair joined across
    return percent_decode(name)


@lru_cache(maxsize=1 << 14)
def canonical_key(name: str, pdf: bool = False) -> str:
    """The canonical key of a raw DOI name (from `10.` to its end): cleaned and ASCII-folded."""
    return fold_ascii(clean_name(name, pdf))
