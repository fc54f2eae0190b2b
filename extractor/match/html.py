"""HTML as text the matcher can read, with a map back to offsets in the markup (spec §3, §5).

A page gives three views: the visible text flow (entities decoded, inline tags transparent,
block boundaries as line breaks), the attribute values (href, content, data-doi, …), and the
JSON inside JSON-LD / JSON `<script>` elements (string escapes decoded). Comments, `<style>`
and other scripts are skipped. Each view maps its offsets back to the raw markup.
"""

from __future__ import annotations

import html as _html
import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate

from . import jsonstr
from .links import Link

# Spec §5: these tags do not split a DOI; every other tag is a block boundary.
INLINE_TAGS = frozenset(
    [
        "a",
        "abbr",
        "b",
        "bdi",
        "bdo",
        "big",
        "cite",
        "code",
        "data",
        "dfn",
        "em",
        "font",
        "i",
        "kbd",
        "mark",
        "nobr",
        "q",
        "s",
        "samp",
        "small",
        "span",
        "strong",
        "sub",
        "sup",
        "time",
        "tt",
        "u",
        "var",
        "wbr",
        "ins",
        "del",
        # JATS inline elements, for XML read as markup
        "italic",
        "bold",
        "sc",
        "monospace",
        "underline",
        "overline",
        "roman",
        "sans-serif",
        "ext-link",
        "uri",
        "named-content",
        "styled-content",
    ]
)
_RAW_TEXT = frozenset({"script", "style", "textarea", "title"})
# Tag names, attribute syntax and whitespace are ASCII in HTML (WHATWG HTML §13.1, §13.2.5): re.A,
# so that `</ſcript` (long s) ends no script and U+00A0 separates no attributes — as the C port reads them.
_RAW_TEXT_END = {name: re.compile(f"</{name}", re.I | re.A) for name in _RAW_TEXT}
_JSON_TYPES = re.compile(r"(?ai)\bjson\b|ld\+json")
_SCRIPT_TYPE = re.compile(r"""(?ai)\btype\s*=\s*["']?([^"'\s>]+)""")

_TAG = re.compile(r"""<(/?)([A-Za-z][A-Za-z0-9:_-]{0,63})((?:[^>"']|"[^"]*"|'[^']*')*)>""")
MAX_TAG = 1 << 13  # a "tag" longer than this (a data: URI, broken markup) is read as text
_ATTR = re.compile(r"""([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?""", re.A)
_ENTITY = re.compile(r"&(?:#[0-9]{1,7};?|#[xX][0-9A-Fa-f]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};?)")


@dataclass(slots=True)
class View:
    """A text built from pieces of a raw document, with the map from its offsets to raw ones.

    Pieces are gathered as (text, raw start, raw length) — the raw length 0 for a piece copied
    verbatim — and the text and offset map are made once, by finish().
    """

    segs: list[tuple[str, int, int]] = field(default_factory=list)
    text: str = ""
    vpos: list[int] = field(default_factory=list)  # view offset where each segment starts
    rpos: list[int] = field(default_factory=list)  # raw offset where it starts
    rlen: list[int] = field(default_factory=list)  # raw length of an atomic segment, 0 if linear
    links: list[Link] = field(default_factory=list)  # the links read into it (links.py), raw offsets

    def linear(self, s: str, raw_start: int) -> None:
        """Append `s`, copied verbatim from the raw text at `raw_start`."""
        if s:
            self.segs.append((s, raw_start, 0))

    def atomic(self, s: str, raw_start: int, raw_len: int) -> None:
        """Append `s`, which stands for raw_len raw characters (an entity, escape or boundary)."""
        self.segs.append((s, raw_start, raw_len))

    def finish(self) -> View:
        parts = [t[0] for t in self.segs]
        self.text = "".join(parts)
        self.vpos = list(accumulate(map(len, parts), initial=0))
        self.vpos.pop()
        self.rpos = [t[1] for t in self.segs]
        self.rlen = [t[2] for t in self.segs]
        self.segs = []
        return self

    def to_raw(self, start: int, end: int) -> tuple[int, int]:
        """Raw offsets of the view span [start, end)."""
        i = bisect_right(self.vpos, start) - 1
        rs = self.rpos[i] + (start - self.vpos[i] if not self.rlen[i] else 0)
        j = bisect_right(self.vpos, end - 1) - 1
        re_ = self.rpos[j] + (end - self.vpos[j] if not self.rlen[j] else self.rlen[j])
        return rs, re_


def _add_decoded(
    view: View, s: str, raw_start: int, pattern: re.Pattern[str], decode: Callable[[str], str]
) -> None:
    pos = 0
    for m in pattern.finditer(s):
        rep = decode(m.group())
        if rep == m.group():
            continue
        view.linear(s[pos : m.start()], raw_start + pos)
        view.atomic(rep, raw_start + m.start(), m.end() - m.start())
        pos = m.end()
    view.linear(s[pos:], raw_start + pos)


def add_text(view: View, s: str, raw_start: int) -> None:
    """Append text with HTML character references decoded (spec §3: `&lt;`, `&#47;`, `&amp;`)."""
    if "&" in s:
        _add_decoded(view, s, raw_start, _ENTITY, _html.unescape)
    else:
        view.linear(s, raw_start)


def add_json(view: View, s: str, raw_start: int) -> None:
    """Append JSON text with string escapes decoded (spec §5: `\\/`, `\\u002F`)."""
    if "\\" in s:
        _add_decoded(view, s, raw_start, jsonstr.ESCAPE, jsonstr.unescape)
    else:
        view.linear(s, raw_start)


def html_views(doc: str) -> list[View]:
    """The text-flow, attribute and JSON views of an HTML document."""
    flow, attrs, data = View(), View(), View()
    seg = flow.segs.append  # the flow view's pieces, appended inline: the loop runs once a tag
    label = False  # the element just opened names a DOI (spec §7, XML): its text is labelled
    pos = 0
    n = len(doc)
    last_inline_close = False
    next_gt = -1  # the first ">" at or after the last place looked, or n when there is none
    link: tuple[int, int, int, str] | None = None  # the link open: target span, text start, tag name
    while pos < n:
        lt = doc.find("<", pos)
        if lt < 0:
            piece, start = doc[pos:], pos
            if label:
                label, piece, start = _labelled(seg, piece, start)
            add_text(flow, piece, start)
            break
        if lt > pos:
            piece, start = doc[pos:lt], pos
            if label:
                label, piece, start = _labelled(seg, piece, start)
            if "&" in piece:
                _add_decoded(flow, piece, start, _ENTITY, _html.unescape)
            elif piece:
                seg((piece, start, 0))
            last_inline_close = False
        after = doc[lt + 1 : lt + 2]
        if after == "!" or after == "?":
            if doc.startswith("<!--", lt):
                end = doc.find("-->", lt + 4)
                pos = n if end < 0 else end + 3
            elif doc.startswith("<![CDATA[", lt):
                end = doc.find("]]>", lt + 9)
                end = n if end < 0 else end
                label = _label(seg, label, lt + 9)
                add_text(flow, doc[lt + 9 : end], lt + 9)
                pos = min(n, end + 3)
            else:  # a declaration or processing instruction
                end = doc.find(">", lt)
                pos = n if end < 0 else end + 1
            continue
        m = None
        if after.isalpha() or after == "/":
            # Match a tag only up to a ">" (the next one, or a later one when the first stands
            # inside a quoted value): bounded work per "<", whatever the markup.
            if next_gt < lt:
                next_gt = doc.find(">", lt)
                if next_gt < 0:
                    next_gt = n
            gt = next_gt
            for attempt in range(4):
                if gt >= n or gt - lt > MAX_TAG:
                    break
                if not (attempt and _one_quote_unclosed(doc, lt, gt)):
                    m = _TAG.match(doc, lt, gt + 1)
                    if m is not None or (doc.count('"', lt, gt) % 2 == 0 and doc.count("'", lt, gt) % 2 == 0):
                        break
                gt = doc.find(">", gt + 1)
                if gt < 0:
                    gt = n
        if m is None:
            label = _label(seg, label, lt)
            add_text(flow, "<", lt)
            pos = lt + 1
            continue
        closing, name, attr_text = m.group(1), m.group(2).lower(), m.group(3)
        pos = m.end()
        inline = name in INLINE_TAGS
        target = _href(attr_text, m.start(3)) if inline and not closing and attr_text else None
        if link is not None and (not inline or target is not None or (closing and name == link[3])):
            flow.links.append(Link(link[0], link[1], link[2], lt))  # spec §6: its text ends here
            link = None
        if target is not None:
            link = (target[0], target[1], pos, name)
        # A closing inline tag directly followed by an opening one ("</a><a>") separates two items.
        if not inline or (last_inline_close and not closing) or (name == "a" and closing):
            seg(("\n", lt, m.end() - lt))
        last_inline_close = inline and bool(closing)
        label = not closing and _names_a_doi(name, attr_text)
        if not closing and attr_text:
            _add_attributes(attrs, attr_text, m.start(3))
        if not closing and name in _RAW_TEXT:
            # Case-insensitively on the document itself: lower() can change a text's length (İ).
            close = _RAW_TEXT_END[name].search(doc, pos)
            end = n if close is None else close.start()
            body_start = pos
            if name == "script":
                type_m = _SCRIPT_TYPE.search(attr_text)
                if type_m and _JSON_TYPES.search(type_m.group(1)):
                    add_json(data, doc[body_start:end], body_start)
                    data.atomic("\n", end, 0)
            elif name in ("textarea", "title"):
                label = _label(seg, label, body_start)
                add_text(flow, doc[body_start:end], body_start)
            pos = end
    if link is not None:
        flow.links.append(Link(link[0], link[1], link[2], n))
    return [flow.finish(), attrs.finish(), data.finish()]


_HREF = re.compile("href", re.I | re.A)


def _href(attr_text: str, raw_start: int) -> tuple[int, int] | None:
    """The raw span of a tag's link target (spec §6): its first `href` or `xlink:href` attribute's
    value, read as _ATTR reads attributes; None when it has none."""
    if _HREF.search(attr_text) is None:
        return None
    for m in _ATTR.finditer(attr_text):
        if m.group(1).isascii() and m.group(1).lower() in ("href", "xlink:href"):
            for g in (2, 3, 4):
                if m.group(g) is not None:
                    return raw_start + m.start(g), raw_start + m.end(g)
            return None
    return None


# Spec §7 (XML: JATS, PubMed, Crossref and DataCite deposits, TEI): elements whose text is one
# DOI, read as after a label — by tag name, with the attribute that must say "doi" (any case).
DOI_ELEMENTS: dict[str, str | None] = {
    "pub-id": "pub-id-type",
    "article-id": "pub-id-type",
    "object-id": "pub-id-type",
    "articleid": "idtype",
    "elocationid": "eidtype",
    "doi": None,
    "idno": "type",
    "identifier": "identifiertype",
}


def _names_a_doi(name: str, attr_text: str) -> bool:
    """Whether an opening tag (its name lower-cased) is one of DOI_ELEMENTS, its attribute's
    first value "doi" in any case."""
    if name not in DOI_ELEMENTS:
        return False
    want = DOI_ELEMENTS[name]
    if want is None:
        return True
    for m in _ATTR.finditer(attr_text):
        if m.group(1).lower() == want:
            value = next((v for v in m.group(2, 3, 4) if v is not None), None)
            if value is not None:
                return value.lower() == "doi"
    return False


def _labelled(seg: Callable[[tuple[str, int, int]], None], text: str, at: int) -> tuple[bool, str, int]:
    """The first text of an element that names a DOI: its leading whitespace, then a label
    standing for no raw text ("doi:" mapped from where the DOI starts). Returns (False: the label
    is spent, the rest of the text, where it starts)."""
    k = len(text) - len(text.lstrip(" \t\n\r\f\v"))
    if k:
        seg((text[:k], at, 0))
    seg(("doi:", at + k, 0))
    return False, text[k:], at + k


def _label(seg: Callable[[tuple[str, int, int]], None], label: bool, at: int) -> bool:
    """Before the first text of an element that names a DOI: a label standing for no raw text
    ("doi:" mapped from the text's own start). Returns False: the label is spent."""
    if label:
        seg(("doi:", at, 0))
    return False


def _one_quote_unclosed(doc: str, lt: int, gt: int) -> bool:
    """True when [lt, gt) holds one kind of quote only, an odd number of times: no tag can end at
    `gt`, so a retry need not try the pattern (`<a x='>'` repeated was read in quadratic time)."""
    dq, sq = doc.count('"', lt, gt), doc.count("'", lt, gt)
    return (dq == 0 and sq % 2 == 1) or (sq == 0 and dq % 2 == 1)


# An attribute value may hold a DOI: an anchor, an entity or escape, or a resolver's shortDOI
# (https://doi.org/abcd, spec §1).
_ATTRS_MAY_HOLD = re.compile(r"10[./]|[&%]|[Rr][Gg]/")
_SHORT_RESOLVER = re.compile(r"[Rr][Gg]/")


def _add_attributes(view: View, attr_text: str, raw_start: int) -> None:
    """Append each attribute value that may hold a DOI, as its own line of the view."""
    if _ATTRS_MAY_HOLD.search(attr_text) is None:
        return
    for m in _ATTR.finditer(attr_text):
        for g in (2, 3, 4):
            value = m.group(g)
            if value is not None:
                if "10" in value or _SHORT_RESOLVER.search(value):
                    add_text(view, value, raw_start + m.start(g))
                    view.atomic("\n", raw_start + m.end(g), 0)
                break
