"""Canonical DOI names, equivalence and the URI/URL renderings (spec §1).

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

# Spec §5 (pdf): hyphen-like code points are read as "-" and ligatures expanded.
PDF_HYPHENS = "\u2010\u2011\u2012\u2013\u2212"
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


def _name_of(s: str, allow_other_prefix: bool) -> str | None:
    """The DOI name in `s` (one identifier in any display form), not case-folded, or None."""
    from .find import parse_identifier  # the finder owns the display-form rules

    return parse_identifier(s, allow_other_prefix=allow_other_prefix)


def canonicalize(s: str, *, allow_other_prefix: bool = False) -> str | None:
    """Canonical DOI of `s`, a single identifier in any display form, or None if it is none.

    The whole string is taken as one identifier (as in a metadata field): `doi:`, `urn:doi:`,
    `info:doi/` and resolver or publisher URLs are recognised; characters after the DOI name
    are kept except where a URL's query, fragment or publisher tail ends it.
    """
    name = _name_of(s, allow_other_prefix)
    return None if name is None else fold_ascii(name)


def is_equivalent(a: str, b: str) -> bool:
    """True when `a` and `b` are display forms of the same DOI (spec §1, URN 2020 equivalence)."""
    ca = canonicalize(a)
    return ca is not None and ca == canonicalize(b)


# 2024 URI draft §2: percent-encode every character that is neither unreserved nor "/".
_URI_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")
# NISO Z39.84-2005 Appendix E tables 1 and 2, plus "?" and "&" (which start or separate query
# parameters, so spec §4 ends a DOI there in URL context) and every code point outside
# printable ASCII (URN registration 2020, "percent encoding").
_URL_UNSAFE = frozenset('%"# <>{}^[]`|\\?&')


def _encode(name: str, keep: frozenset[str] | None, unsafe: frozenset[str] | None) -> str:
    out = []
    for ch in name:
        o = ord(ch)
        if keep is not None:
            ok = ch in keep
        else:
            assert unsafe is not None
            ok = 0x20 < o < 0x7F and ch not in unsafe
        out.append(ch if ok else "".join(f"%{b:02X}" for b in ch.encode("utf-8")))
    return "".join(out)


def _display_name(doi: str) -> str:
    name = _name_of(doi, allow_other_prefix=True)
    if name is None:
        raise ValueError(f"not a DOI: {doi!r}")
    return name


def to_uri(doi: str) -> str:
    """The `doi:` URI of a DOI given in any display form (2024 URI draft §2); case is kept."""
    return "doi:" + _encode(_display_name(doi), _URI_SAFE, None)


def to_url(doi: str) -> str:
    """The `https://doi.org/` URL of a DOI, encoded per NISO Z39.84-2005 Appendix E."""
    return "https://doi.org/" + _encode(_display_name(doi), None, _URL_UNSAFE)
