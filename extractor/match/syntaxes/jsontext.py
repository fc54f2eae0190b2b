"""JSON (spec §7: `.json`, `.ipynb`, API responses, CSL-JSON): inside a string, JSON escapes are
undone (`\\/`, `\\u002F`) and the closing quote ends a DOI; the string value of a key `DOI` (any
case) is read as after a label."""

from __future__ import annotations

import re

from ..html import View, add_json

_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"(\s*:)?', re.S)
_SNIFF = re.compile(r'\A\s*[\[{]\s*"')


def sniff(head: str) -> bool:
    """A text that starts as a JSON object or array of strings and objects."""
    return _SNIFF.match(head) is not None


def views(doc: str) -> list[View]:
    """One view: every string of the document, escapes undone, each its own line; what stands
    between strings (punctuation, numbers, literals) as text between boundaries."""
    view = View()
    pos = 0
    key: str | None = None
    for m in _STRING.finditer(doc):
        if m.start() > pos:
            view.linear(doc[pos : m.start()], pos)
        view.atomic("\n", m.start(), 1)
        body = m.start(1)
        if m.group(2) is None and key is not None and key.lower() == "doi":
            view.linear("doi:", body)  # the value of a "DOI" key: behind a label
        add_json(view, m.group(1), body)
        view.atomic("\n", m.end(1), 1)
        if m.group(2) is not None:
            key = m.group(1)
            view.linear(m.group(2), m.end(1) + 1)
        else:
            key = None
        pos = m.end()
    if pos < len(doc):
        view.linear(doc[pos:], pos)
    return [view.finish()]
