"""Wikitext (MediaWiki; spec §7): a DOI never crosses a template's or a link's separators.

In a template (`{{…}}`) a parameter's value ends at the next `|` or `}}`; an internal link
(`[[…]]`) ends at `|` or `]]`; `''` and `'''` (italic, bold) end a DOI; comments are skipped;
character references are decoded as in HTML. A parameter named `doi` is a label as the plain
rules read it (`doi = 10.…`); the first parameter of `{{doi|…}}` is made one (`doi:`). Tags and
external links end a DOI by the rules of §4 as they stand; an external link `[URL text]` is one
occurrence where both name a DOI (spec §6, links.py).
"""

from __future__ import annotations

import re

from ..html import View, add_text
from ..links import Link

# What the view turns into boundaries or skips: comments, template and link brackets, the
# parameter separator, and runs of two or more apostrophes.
_TOKEN = re.compile(r"<!--.*?(?:-->|\Z)|\{\{|\}\}|\[\[|\]\]|\||'{2,}", re.S)
# A template whose first parameter is a DOI (the label templates of the English and German
# Wikipedias).
_DOI_TEMPLATE = re.compile(r"\s*(?:doi|DOI|Doi)\s*\Z")
_SNIFF = re.compile(
    r"\{\{\s*(?:[Cc]ite |[Cc]itation|[Ii]nfobox|[Rr]eflist|[Ss]hort description|[Ll]iteratur|[Dd]oi\s*\|)"
    r"|\[\[(?:[Cc]ategory|[Kk]ategorie|[Ff]ile|[Ii]mage|[Dd]atei):|^==+[^=\n]+==+\s*$|<ref[ >]",
    re.M,
)
# An external link: "[", a URL (a scheme's or protocol-relative), spaces, its text, "]" on one line.
_EXTERNAL_LINK = re.compile(
    r"(?<!\[)\[((?:https?:|ftp:)?//[^ \t\n\r\f\v\[\]<>\x22]+)[ \t]+([^\]\n]*)\]", re.I | re.A
)


def sniff(head: str) -> bool:
    """Two or more signs of wikitext in a text's first characters, a template among them:
    citation and infobox templates, category and file links, `== headings ==`, `<ref>`."""
    head = head[:16384]
    # Every record's text is asked: a page with no template at all is not guessed, so that prose
    # (which has "[" often, "{" seldom) costs one memchr.
    if "{" not in head or "{{" not in head:
        return False
    return len({m.group()[:6] for m in _SNIFF.finditer(head)}) >= 2


def views(doc: str) -> list[View]:
    """One view of the page: its text with the separators above as line breaks."""
    view = View()
    stack: list[str] = []  # "{{" or "[[" for each template or link open at this point
    name_start = -1  # where the name of the template just opened starts (until its first "|")
    pos = 0
    for m in _TOKEN.finditer(doc):
        tok = m.group()
        if m.start() > pos:
            add_text(view, doc[pos : m.start()], pos)
        pos = m.end()
        if tok.startswith("<!--"):
            continue  # skipped: what stands on both sides of it meets
        if tok == "|" and not stack:
            view.linear(tok, m.start())  # prose or a table: a character like any other
            continue
        if tok == "|" and name_start >= 0:
            first = stack[-1] == "{{" and _DOI_TEMPLATE.match(doc, name_start, m.start()) is not None
            name_start = -1
            if first:  # {{doi|10.…}}: the label of its first parameter
                view.atomic(":", m.start(), 1)
                continue
        elif tok in ("{{", "[["):
            stack.append(tok)
            name_start = m.end()
        elif tok in ("}}", "]]"):
            if stack and stack[-1] == ("{{" if tok == "}}" else "[["):
                stack.pop()
            name_start = -1
        view.atomic("\n", m.start(), len(tok))
    if pos < len(doc):
        add_text(view, doc[pos:], pos)
    if "[" in doc:
        view.links = [Link(*m.span(1), *m.span(2)) for m in _EXTERNAL_LINK.finditer(doc)]
    return [view.finish()]
