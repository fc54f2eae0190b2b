"""One identifier in, its DOI out: canonical form, equivalence and the URI/URL renderings (spec §1).

For a metadata field that holds one identifier in any display form; matcher.py is for DOIs in
running text. Both read the display forms by the same rules.
"""

from __future__ import annotations

import re

from .canonical import clean_name, fold_ascii
from .forms import Form
from .left import GROUP_FORMS, URLISH
from .matcher import Hit, find_dois
from .rules import RUN_END, end_of_name
from .shortdoi import short_dois
from .tails import SHIELDS, shields_unescape

_ID_PREFIX = re.compile(
    r"""(?iax)\A(?:
        (?P<dx>(?:https?://)?dx\.doi\.org/)
      | (?P<resolver>(?:https?://)?(?:www\.)?doi\.org/)
      | (?P<handle>(?:https?://)?hdl\.handle\.net/)
      | (?P<urn>urn:doi:)
      | (?P<eidr>urn:eidr:)
      | (?P<info>info:doi/)
      | (?P<pinfo>info%3Adoi%2F)
      | (?P<plabel>doi%3A)
      | (?P<label>doi[ \t]*[:：=]?(?u:[^\S\n])*\n?(?u:[^\S\n])*)  # spec §2: one line break may follow
    )?"""
)
_ID_NAME = re.compile(r"10\.[0-9]+(?:\.[0-9]+)*(?:/|%2[Ff])")
_ID_EIDR = re.compile(r"10\.[0-9]+(?:\.[0-9]+)*:")
_ID_OTHER = re.compile(r"[^/\s]+/")


def parse_identifier(s: str, *, allow_other_prefix: bool = False, as_in_text: bool = True) -> str | None:
    """The DOI name (cleaned, percent-decoded, case kept) of `s`, one identifier, or None.

    `as_in_text`: the name ends where find_dois ends it in text (spec §4); else `s` is a DOI
    known to be whole (to_uri, to_url), and only a URL's own end rules apply."""
    s = s.strip()
    m = _ID_PREFIX.match(s)
    form = GROUP_FORMS.get(m.lastgroup or "bare", Form.BARE) if m else Form.BARE
    rest = s[m.end() :] if m else s
    if RUN_END.search(rest.replace('"', "")):
        # Spec §4: whitespace ends a DOI, and no DOI holds a control character or a lone
        # surrogate (NISO Z39.84-2005 §4.1), so one identifier has none.
        return None
    if form is Form.EIDR_URN:
        em = _ID_EIDR.match(rest)
        if em is not None:
            rest = rest[: em.end() - 1] + "/" + rest[em.end() :]
        # else `urn:eidr:10.5240/…`, with RFC 7972's `:` written as the DOI's `/`, as find reads it
        form = Form.URN
    nm = _ID_NAME.match(rest)
    if nm is None:
        short = _short_name(s, rest, form)
        if short is not None:
            return short
        if allow_other_prefix and form in (Form.LABEL, Form.URN, Form.INFO_URI) and _ID_OTHER.match(rest):
            nm = _ID_OTHER.match(rest)
        elif URLISH.search(s):
            # A publisher or other URL with a DOI in its path or query.
            for hit in find_dois(s):
                if hit.start == 0 or hit.form.is_url:
                    return clean_name(_name_from_hit(hit))
            return None
        else:
            return None
    assert nm is not None
    end = len(rest)
    if as_in_text or form.is_url or form in (Form.URN, Form.EIDR_URN):
        # Spec §4, as find reads the same text: a sentence's trailing punctuation, an unbalanced
        # bracket, a query are not part of the DOI (canonicalize agrees with find).
        end = end_of_name(rest, form, s[: m.end()] if m else "")
    if end <= nm.end():
        return None
    name = clean_name(rest[:end])
    if not name.partition("/")[2]:
        return None  # spec §2: a suffix of format characters only (10.1000/ + soft hyphen) is empty
    return name


# A shortDOI's key read as one identifier: 10/ and a code with a letter (10/12 is a date).
_ID_SHORT_KEY = re.compile(r"10/([A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*)\Z")


def _short_name(s: str, rest: str, form: Form) -> str | None:
    """The shortDOI `10/code` (code's case kept) that `s` is, whole, or None (spec §1)."""
    if form is Form.BARE:
        m = _ID_SHORT_KEY.match(rest)
        return None if m is None or len(m.group(1)) > 64 else rest
    for _t, start, end, key in short_dois(s):
        if start == 0:
            return "10/" + s[end - (len(key) - 3) : end]
    return None


def _name_from_hit(hit: Hit) -> str:
    """The raw DOI name inside a hit: from the `10.` of its DOI to its end (a URL may hold other
    `10.`s before it: http://192.168.10.1/doi/10.1000/182); in a shields.io badge's message,
    its escapes undone as find_dois undoes them (spec §4: "--" is "-", "__" is "_")."""
    badge = bool(SHIELDS.search(hit.raw))
    i = hit.raw.find("10.")
    while i >= 0:
        name = shields_unescape(hit.raw[i:]) if badge else hit.raw[i:]
        if _ID_NAME.match(hit.raw, i) and fold_ascii(clean_name(name)) == hit.doi:
            return name
        i = hit.raw.find("10.", i + 1)
    return hit.raw[hit.raw.find("10.") :]


def _name_of(s: str, allow_other_prefix: bool, as_in_text: bool = True) -> str | None:
    """The DOI name in `s` (one identifier in any display form), not case-folded, or None."""
    return parse_identifier(s, allow_other_prefix=allow_other_prefix, as_in_text=as_in_text)


def canonicalize(s: object, *, allow_other_prefix: bool = False) -> str | None:
    """Canonical DOI of `s`, a single identifier in any display form, or None if it is none.

    The whole string is taken as one identifier (as in a metadata field): `doi:`, `urn:doi:`,
    `info:doi/` and resolver or publisher URLs are recognised, and the DOI ends where find_dois
    ends it (spec §4: trailing punctuation, a URL's query or publisher tail). Anything that is
    not a string — None, a float NaN from a column with gaps — is None, so that
    `column.map(canonicalize)` runs over any data.
    """
    if not isinstance(s, str):
        return None
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
    name = _name_of(doi, allow_other_prefix=True, as_in_text=False)
    if (
        (name is None or doi != doi.rstrip())
        and _ID_NAME.match(doi)
        and not RUN_END.search(doi.replace(" ", "").replace('"', ""))
    ):
        # A canonical key with a space: `10.1000/a%20b` decodes to `10.1000/a b` (spec §1), which
        # no text shows bare (§4) but whose URI and URL must still be written, a space at its
        # end included (which reading one identifier would strip).
        name = doi
    if name is None:
        raise ValueError(f"not a DOI: {doi!r}")
    return name


def to_uri(doi: str) -> str:
    """The `doi:` URI of a DOI given in any display form (2024 URI draft §2); case is kept."""
    return "doi:" + _encode(_display_name(doi), _URI_SAFE, None)


def to_url(doi: str) -> str:
    """The `https://doi.org/` URL of a DOI, encoded per NISO Z39.84-2005 Appendix E, and so that
    it reads back as the same DOI: a character the URL end rules of spec §4 would cut (trailing
    punctuation or slash, an unbalanced closing bracket) is percent-encoded too."""
    name = _display_name(doi)
    pieces = [_encode(ch, None, _URL_UNSAFE) for ch in name]
    for _ in range(len(pieces)):
        rest = "".join(pieces)
        n = end_of_name(rest, Form.RESOLVER, _RESOLVER)
        if n >= len(rest):
            break
        k, at = 0, len(pieces[0])  # the character the rules cut at
        while at <= n and k + 1 < len(pieces):
            k += 1
            at += len(pieces[k])
        pieces[k] = "".join(f"%{b:02X}" for b in name[k].encode("utf-8"))
    return _RESOLVER + "".join(pieces)


_RESOLVER = "https://doi.org/"
