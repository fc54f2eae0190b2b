"""ShortDOIs: the DOI Foundation's short aliases (`10/abcd`), found behind a label, URN,
`info:doi/` or a resolver only (spec §1), reported with their own form and the key `10/abcd`.

A trigger scan finds `10/` (or `10%2F`) and `rg/` (of `doi.org/`); the text left of a trigger
must be a label, URN, `info:doi/` or resolver, and the code after it ASCII letters and digits
that end the token (trailing punctuation and closing brackets aside). A bare `10/abcd` is never
one: fractions and dates. The C matcher (_cscan.c) ports these same steps.
"""

from __future__ import annotations

import re

from .rules import CLOSE, TRAILING

# What stands left of a trigger, matched at its end (ASCII case-insensitive only, as labels and
# resolvers are everywhere: spec, Terms).
_RESOLVER = re.compile(r"(?ia)(?:(?<![a-z0-9])https?:/{1,3})?(?<![a-z0-9.-])(?:(?:dx|www)\.)?doi\.o\Z")
_RESOLVER_10 = re.compile(r"(?ia)(?:(?<![a-z0-9])https?:/{1,3})?(?<![a-z0-9.-])(?:(?:dx|www)\.)?doi\.org/\Z")
_HANDLE_10 = re.compile(r"(?ia)(?:(?<![a-z0-9])https?:/{1,3})?(?<![a-z0-9.-])hdl\.handle\.net/\Z")
_URN_INFO_10 = re.compile(r"(?ia)(?<![a-z0-9])(?:urn:doi:|info:doi/)\Z")
_LABEL_10 = re.compile(r"(?ia)(?<![a-z0-9/.%-])doi[ \t]*[:：=]?[ \t]*\Z")
_CODE = re.compile(r"[A-Za-z0-9]{1,65}")
# The rest of the token after a code: up to whitespace, a double quote, a tag's bracket or a
# control character.
_REST = re.compile(r'[^\s"<>\x00-\x1f\x7f-\x9f]{0,65}')
_ENDS = frozenset(TRAILING) | frozenset(CLOSE)
_URL_STOPS = "?#&"

LEFT = 40  # the longest left context: "https:///www.doi.org/" and the like


def _rest_ok(text: str, e: int, stops: str) -> bool:
    """The code ending at `e` ends the token: after it only trailing punctuation and closing
    brackets, or what ends a DOI in its context (spec §4: after a resolver `?`, `#`, `&` and a
    path's trailing slash; after a URN its `?` and `#` components)."""
    rest = _REST.match(text, e).group()  # type: ignore[union-attr]  # a starred pattern always matches
    if len(rest) > 64:
        return False
    n = len(rest)
    while n and rest[n - 1] in _ENDS:
        n -= 1
    rest = rest[:n]
    return not rest or rest[0] in stops or (rest == "/" and "&" in stops)


# Literal-prefixed patterns, which re searches fast: "10/", and "g/" or "G/" not followed by
# "10." or "10/" (a doi.org/10.… URL is read at its own anchor; doi.org/10/… at its "10/").
_TEN = re.compile(r"10/")
_G = re.compile(r"g/(?!10[./])")
_G_UPPER = re.compile(r"G/(?!10[./])")


def _triggers(text: str, after: int) -> list[int]:
    """The triggers from `after` on: every "10/" (a code follows), and the "rg/" of each
    "doi.org/" (any ASCII case; a one-segment code, or 10%2F and a code, follows) that no anchor
    of its own reads. One regex for both cost more than the matcher itself; these three literal
    searches cost a few ms per 8 MB."""
    out = [m.start() for m in _TEN.finditer(text, after)]
    for pattern in (_G, _G_UPPER):
        for m in pattern.finditer(text, after + 1):
            i = m.start() - 1
            if text[i] in "Rr" and text[i - 5 : i].lower() == "doi.o":
                out.append(i)
    out.sort()
    return out


def short_dois(text: str, after: int = 0) -> list[tuple[int, int, int, str]]:
    """(trigger, start, end, key) of every shortDOI in `text`, in order; triggers before
    `after` are passed over (a window reader resumes where the last window's hits ended)."""
    out = []
    for t in _triggers(text, after):
        lo = max(0, t - LEFT)
        if text[t] in "Rr":
            # doi.org/<code>: one segment of 4+ ASCII letters and digits, a letter and a digit
            # among them (doi.org/help is not one); doi.org/10/… is read at its "10/".
            left = _RESOLVER.search(text, lo, t)
            if left is None:
                continue
            c = t + 3
            if text.startswith("10/", c):
                continue  # read at its "10/"
            ten = text[c : c + 5].lower() == "10%2f"
            code = _CODE.match(text, c + 5 if ten else c)
            if code is None or len(code.group()) > 64:
                continue
            name = code.group()
            if not ten and (len(name) < 4 or name.isdigit() or name.isalpha()):
                continue
            if not _rest_ok(text, code.end(), _URL_STOPS):
                continue
        else:
            stops = _URL_STOPS
            left = _RESOLVER_10.search(text, lo, t) or _HANDLE_10.search(text, lo, t)
            if left is None:
                left = _URN_INFO_10.search(text, lo, t)
                stops = "?#" if left is not None and text[left.start()] in "Uu" else ""
                if left is None:
                    left = _LABEL_10.search(text, lo, t)
            if left is None:
                continue
            code = _CODE.match(text, t + 3)
            if code is None or len(code.group()) > 64:
                continue
            name = code.group()
            if not _rest_ok(text, code.end(), stops):
                continue
        out.append((t, left.start(), code.end(), "10/" + name.lower()))
    return out
