"""Markdown (spec §7): prose, with emphasis marks that close like brackets — a `_` or `*` (or two,
or three) right before a DOI and its twin right after it are not part of it
(`_10.1007/bf00576711_`); a `_` inside a DOI is (`10.1007/978-3-319-24277-4_9`). A link
`[text](URL)` is one occurrence where both name a DOI (spec §6, links.py)."""

from __future__ import annotations

import re

from ..html import View
from ..links import Link

# An emphasis mark opening right before a DOI's anchor, the run after it, and the same mark
# closing it before whitespace, punctuation or the end.
_EMPHASIS = re.compile(r"(?<![\w*_])([_*]{1,3})(?=10\.\d)(\S{0,2000}?)\1(?=[\s.,;:!?)\]]|\Z)")
# An inline link (or image), as CommonMark reads one: [text](URL "title"), the URL in <> or bare,
# a bare one holding balanced parentheses one deep (a DOI's `(SICI)`).
_LINK = re.compile(
    r"\[([^\[\]\n]{0,2000})\]\(\s*(?:<([^<>\n]+)>|([^\s()<][^\s()]*(?:\([^\s()]*\)[^\s()]*)*))"
    r"(?:\s+(?:\x22[^\x22\n]*\x22|'[^'\n]*'))?\s*\)"
)


def views(doc: str) -> list[View]:
    """One view: the text with each emphasis mark around a DOI a space."""
    view = View()
    pos = 0
    for m in _EMPHASIS.finditer(doc):
        mark = len(m.group(1))
        view.linear(doc[pos : m.start()], pos)
        view.atomic(" ", m.start(), mark)
        view.linear(m.group(2), m.start(2))
        view.atomic(" ", m.end(2), mark)
        pos = m.end()
    view.linear(doc[pos:], pos)
    if "](" in doc:
        view.links = [
            Link(*m.span(2 if m.group(2) is not None else 3), *m.span(1)) for m in _LINK.finditer(doc)
        ]
    return [view.finish()]
