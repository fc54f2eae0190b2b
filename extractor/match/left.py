"""The left context of an anchor (spec §3): the display form a DOI is written in — a label, a
resolver, a URN, a URL it sits in, a percent-encoded query — and where its hit starts; read in a
bounded window left of each anchor. The C matcher's port is cscan/left.c."""

from __future__ import annotations

import re

from .bounds import LEFT_WINDOW
from .forms import Form

# The display form named by each group of the left-context patterns below.
GROUP_FORMS = {
    "dx": Form.DX_RESOLVER,
    "resolver": Form.RESOLVER,
    "handle": Form.HANDLE,
    "urn": Form.URN,
    "eidr": Form.EIDR_URN,
    "info": Form.INFO_URI,
    "pinfo": Form.PERCENT,
    "plabel": Form.PERCENT,
    "label": Form.LABEL,
    "bare": Form.BARE,
}

# Left context. Matched against the end of the token before the anchor.
LEFT_GLUED = re.compile(
    r"""(?iax)
    (?:
        (?P<dx>(?:https?:/{1,3})?dx\.doi\.org/)
      | (?P<resolver>(?:https?:/{1,3})?(?:www\.)?doi\.org/)
      | (?P<handle>(?:https?:/{1,3})?hdl\.handle\.net/)
      | (?P<urn>urn:doi:)
      | (?P<eidr>urn:eidr:)
      | (?P<info>info:doi/)
      | (?P<pinfo>info%3Adoi%2F)
      | (?P<plabel>(?<![a-z0-9])doi%3A)
      | (?P<label>(?<![a-z0-9/.%-])doi[ \t]*[:：=]?)
    )\Z"""
)


# A label and the DOI separated by whitespace, at most one line break (spec §2).
LEFT_SPACED_LABEL = re.compile(r"(?i)(?a:(?<![a-z0-9/.%-])doi[ \t]*[:：=]?)[^\S\n]*\n?[^\S\n]*\Z")


# PDF text: a resolver whose DOI went to the next line or after a space.
LEFT_SPACED_RESOLVER = re.compile(
    r"(?i)(?a:(?:https?:/{1,3})?(?P<dx>dx\.)?(?:www\.)?doi\.org/)[^\S\n]*\n?[^\S\n]*\Z"
)


# The token is a URL (scheme, www., or host/path) — the DOI then sits in a path or query —
# ... or a relative URL path (/doi/full/10.…, as publisher pages link).
URLISH = re.compile(
    r"(?ia)(?:[a-z][a-z0-9+.-]*://|www\.|^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/|^/[a-z0-9._~%-]+/)"
)


BROKEN_RESOLVER = re.compile(
    r"(?ia)(?:https?://)?(?:dx\.)?doi\.?[ \t]*\r?\n[ \t]*(?:\.?org/|doi\.org/)\Z|(?:https?://)?(?:dx\.)?doi\.[ \t]{3,}"
)


_PCT_BEFORE = re.compile(r"%([0-9A-Fa-f]{2})\Z")


# The characters LEFT_GLUED can end with in a token (no whitespace): its \Z makes the token's
# last character tell at once that it cannot match (in ASCII only, spec Terms).
_GLUED_LAST = frozenset("/:fFaAiI\uff1a=")


_WWW = re.compile(r"(?ia)www\.")

# A `doi=` parameter of a query, with or without a URL before it (spec Terms: `?doi=10.…`).
_QUERY_DOI = re.compile(r"(?ia)[?&]doi=\Z")


def _urlish(token: str) -> bool:
    """URLISH.search(token), its unanchored alternatives searched only when the token holds
    what they need ("://", "www."): a long token's left context read in a few µs, not 40."""
    if "://" in token or _WWW.search(token):
        return URLISH.search(token) is not None
    return URLISH.match(token) is not None


# A token read backwards from the anchor (the window is reversed, so the match is a prefix).
_TOKEN_REV = re.compile(r"""[^\s"'(\[{<>,;]*""")


_TOKEN_STOPS = frozenset("\"'([{<>,;")  # _TOKEN_REV's stops besides whitespace (\s is str.isspace)


OTHER_LABEL_ANCHOR = re.compile(
    r"(?i)(?a:(?<![a-z0-9/.%-])doi[ \t]*:[ \t]*)(?!10\.[0-9]+(?:\.[0-9]+)*(?:/|%2F))([^\s/\"]{1,64})/"
)


def left_context(text: str, p: int, pdf: bool) -> tuple[Form, int] | None:
    """The display form of the DOI whose `10.` is at `p`, and where its display text starts.

    None when the anchor is glued to a preceding letter or digit (spec §2) and no label or
    resolver explains it.
    """
    if not p or text[p - 1].isspace() or text[p - 1] in _TOKEN_STOPS:
        return _spaced_left(text, p, pdf)  # no token glued to the anchor (_TOKEN_REV's empty match)
    lo = max(0, p - 64)
    window = text[lo:p]
    # The token glued to the anchor: back to the last whitespace or opening delimiter.
    tlen = _TOKEN_REV.match(window[::-1]).end()  # type: ignore[union-attr]  # a starred pattern always matches
    if tlen == len(window) and lo > 0:
        lo = max(0, p - LEFT_WINDOW)
        window = text[lo:p]
        tlen = _TOKEN_REV.match(window[::-1]).end()  # type: ignore[union-attr]  # a starred pattern always matches
    ts = len(window) - tlen
    token = window[ts:]
    if token and token not in (":", "：", "="):
        tail = token[-40:]
        m = LEFT_GLUED.search(tail) if tail[-1] in _GLUED_LAST else None
        if m is not None:
            start = p - (len(tail) - m.start())
            kind = m.lastgroup
            if kind != "label":
                return GROUP_FORMS[kind], start  # type: ignore[index]
            # A glued "doi=" in a URL, or after a query's "?" or "&", is a query parameter: URL
            # context, not a label (spec Terms and §4).
            if _urlish(token) or _QUERY_DOI.search(token):
                return Form.OTHER_URL, p - len(token)
            return Form.LABEL, start
        if _urlish(token):
            prev = token[-1]
            if prev in "/=" or _PCT_BEFORE.search(token):
                return Form.OTHER_URL, p - len(token)
            if prev.isalnum() or (prev == "." and len(token) > 1 and "0" <= token[-2] <= "9"):
                return None  # spec §2: glued to a letter or digit, or to a number and dot (/19.10.2019/)
            return Form.OTHER_URL, p - len(token)
        prev = token[-1]
        pm = _PCT_BEFORE.search(token)
        if pm is not None:
            # Spec §2: the glue test looks at the character before `10.` after percent-decoding.
            dec = chr(int(pm.group(1), 16))
            if dec.isalnum():
                return None
            return Form.PERCENT, p
        if prev.isalnum() or prev in "_-.":
            # "110.1234/5", "v10.1234/5", "1.10.1234/5": not a DOI start (spec §2).
            return None
        if (
            pdf
            and token.lower() in ("org/", ".org/", "doi.org/")
            and BROKEN_RESOLVER.search(text, max(0, p - 300), p)
        ):
            # PDF text: "https://doi.\norg/10.…", a resolver broken across a line or column.
            return Form.RESOLVER, p - len(token)
        return Form.BARE, p
    return _spaced_left(text, p, pdf)


def _spaced_left(text: str, p: int, pdf: bool) -> tuple[Form, int]:
    """Whitespace (or nothing, or a lone ":") before the anchor: a spaced label, or bare. Both
    patterns hold "do" (no other character folds to d or o): most anchors are bare at once."""
    tail = text[max(0, p - 48) : p]
    if "do" not in tail.lower():
        return Form.BARE, p
    m = LEFT_SPACED_LABEL.search(tail[-24:])
    if m is not None:
        return Form.LABEL, p - (len(tail[-24:]) - m.start())
    if pdf:
        m = LEFT_SPACED_RESOLVER.search(tail)
        if m is not None:
            form = Form.DX_RESOLVER if m.group("dx") else Form.RESOLVER
            return form, p - (len(tail) - m.start())
    return Form.BARE, p


# Forms after which a registrant code of 1+ digits is accepted (spec §2); elsewhere 4+.
LABELLED = frozenset(
    {Form.LABEL, Form.RESOLVER, Form.DX_RESOLVER, Form.HANDLE, Form.URN, Form.EIDR_URN, Form.INFO_URI}
)
