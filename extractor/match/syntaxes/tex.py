"""LaTeX and BibTeX (spec §7): TeX escapes undone inside a DOI, a command's argument or a
field's value ends a DOI at the brace that closes it.

- Escapes: `\\_`, `{\\_}` and `\\textunderscore` → `_`; `\\%` `\\#` `\\&` `\\$` → the character;
  `\\textless`, `$<$` → `<`; `\\textgreater`, `$>$` → `>`; `\\~{}`, `\\textasciitilde` → `~`;
  `\\-` and `\\allowbreak` are removed; `~`, `\\\\`, `\\,` and `\\ ` are whitespace.
- `\\doi{…}`, `\\url{…}`, `\\href{URL}{…}`, `\\nolinkurl{…}` and a BibTeX field's value
  (`doi = {…}`, `doi = "…"`) end a DOI where they close; braces balanced inside them (BibTeX's
  case protection, `10.1002/{SICI}…`) are dropped. `\\doi{…}` and a field named `doi` are labels.
  Other braces end a DOI.
- LaTeX: an unescaped `%` starts a comment to the end of its line, except inside the arguments
  of `\\url`, `\\href` and `\\nolinkurl` (verbatim). BibTeX: `%` is literal.
- `\\href{URL}{text}` is one occurrence where both name a DOI (spec §6, links.py): its text is
  the group that opens right after the URL's argument closes (white space between).
"""

from __future__ import annotations

import re
import string

from ..html import View
from ..links import Link

_ESCAPES = {
    "{\\_}": "_",
    "\\_": "_",
    "\\%": "%",
    "\\#": "#",
    "\\&": "&",
    "\\$": "$",
    "$<$": "<",
    "$>$": ">",
    "\\~{}": "~",
    "\\-": "",
    "\\\\": "\n",
    "\\,": " ",
    "~": " ",
}
_WORDS = {"textunderscore": "_", "textless": "<", "textgreater": ">", "textasciitilde": "~", "allowbreak": ""}

_TOKEN = re.compile(
    r"(?P<comment>%)"
    r"|(?P<esc>\{\\_\}|\\[_%#&$,\-\\]|\$[<>]\$|\\~\{\}|~|\\\s)"
    r"|(?P<word>\\(?:textunderscore|textless|textgreater|textasciitilde|allowbreak)(?![A-Za-z])(?:\{\}|[ \t])?)"
    r"|(?P<cmd>\\(?P<name>doi|url|href|nolinkurl)\s*\{)"
    r"|(?P<field>(?<![A-Za-z0-9_-])[A-Za-z][A-Za-z0-9_-]*\s*=\s*)(?P<q>[{\x22])"
    r"|(?P<open>\{)|(?P<close>\})|(?P<quote>\x22)"
)
_LATEX_SNIFF = re.compile(r"\\(?:documentclass|begin\{document\}|section\*?\{|usepackage|bibitem)")
# The entry types of BibTeX and biblatex, and the commands in their place.
_BIBTEX_TYPES = (
    "article", "book", "booklet", "collection", "comment", "conference", "dataset", "inbook",
    "incollection", "inproceedings", "manual", "mastersthesis", "misc", "online", "patent",
    "phdthesis", "preamble", "proceedings", "report", "software", "string", "techreport",
    "thesis", "unpublished",
)  # fmt: skip
_ENTRY_INITIALS = frozenset(t[0] for t in _BIBTEX_TYPES) | frozenset(t[0].upper() for t in _BIBTEX_TYPES)
# An entry's start, searched from its "@" (a literal: fast); one after an e-mail's local part is not.
_BIBTEX_SNIFF = re.compile(r"@(?:" + "|".join(_BIBTEX_TYPES) + r")\s*[{(]", re.I)
_ADDRESS_CHARS = frozenset(string.ascii_letters + string.digits + "._%+-")

# Frames of the brace stack: a plain group, a labelled or verbatim argument, a field's value in
# braces or in quotes, and a group balanced inside an argument or value (its braces dropped).
_GROUP, _ARG, _VERBATIM, _VALUE, _QUOTED, _INNER = range(6)
_HOLDS = (_ARG, _VERBATIM, _VALUE, _QUOTED, _INNER)  # frames whose inner braces are dropped
_SPACES = re.compile(r"[ \t\r\n]*")


def sniff_latex(head: str) -> bool:
    """A LaTeX document's preamble or a bibliography's items in a text's head, before any BibTeX
    entry (sniff_bibtex)."""
    head = head[:16384]
    if "\\" not in head:  # every record is asked: cheap first
        return False
    m = _LATEX_SNIFF.search(head)
    return m is not None and _first_entry(head, m.start()) < 0


def sniff_bibtex(head: str) -> bool:
    """A BibTeX entry's start in a text's head, before any LaTeX document's marks: BibTeX is told by
    its entries, whatever LaTeX its values name (INSPIRE's abstracts do) and however its lines fall
    (a file joined onto one line)."""
    head = head[:16384]
    at = _first_entry(head, len(head))
    return at >= 0 and ("\\" not in head[:at] or _LATEX_SNIFF.search(head, 0, at) is None)


def _first_entry(head: str, stop: int) -> int:
    """Where the first BibTeX entry starting before `stop` starts in `head`, or -1."""
    at = head.find("@", 0, stop)  # a single character: found at memchr's speed, as most texts want
    while at >= 0:
        if (
            head[at + 1 : at + 2] in _ENTRY_INITIALS  # most of an e-mail's "@" pass on at once
            and (at == 0 or head[at - 1] not in _ADDRESS_CHARS)
            and _BIBTEX_SNIFF.match(head, at)
        ):
            return at
        at = head.find("@", at + 1, stop)
    return -1


def latex_views(doc: str) -> list[View]:
    return [_view(doc, bibtex=False)]


def bibtex_views(doc: str) -> list[View]:
    return [_view(doc, bibtex=True)]


def _view(doc: str, bibtex: bool) -> View:
    view = View()
    stack: list[int] = []
    pos = 0
    at = 0  # where the next token is looked for
    # spec §6: the depth of an open \href's URL argument and where it starts; then its span and
    # where it closed; then the depth of its text's group and where that starts
    href_depth = href_start = text_depth = text_start = -1
    target = (-1, -1)
    target_close = -1
    while (m := _TOKEN.search(doc, at)) is not None:
        at = m.end()
        tok = m.group()
        start = m.start()
        top = stack[-1] if stack else -1
        field = m.group("field") is not None and bibtex and stack == [_GROUP]
        if (m.group("comment") is not None and (bibtex or _VERBATIM in stack)) or (
            m.group("quote") is not None and top != _QUOTED
        ):
            continue  # a literal "%" or '"': left in the text around it
        if m.group("field") is not None and not field:
            # not a BibTeX field's start ("x = {" in LaTeX, or inside a value): its name and "="
            # as text, the brace or quote read on its own below
            view.linear(doc[pos : m.start("q")], pos)
            pos = at = m.start("q")  # the brace or quote, read on its own
            continue
        if start > pos:
            view.linear(doc[pos:start], pos)
        pos = m.end()
        if m.group("comment") is not None:  # LaTeX: to the end of the line, skipped
            eol = doc.find("\n", start)
            pos = at = len(doc) if eol < 0 else eol
            continue
        if m.group("esc") is not None:
            view.atomic(_ESCAPES.get(tok, " "), start, len(tok))
        elif m.group("word") is not None:
            view.atomic(_WORDS[tok[1:].rstrip("{} \t")], start, len(tok))
        elif m.group("cmd") is not None:
            label = m.group("name") == "doi"
            stack.append(_ARG if label else _VERBATIM)
            view.atomic("\ndoi:" if label else "\n", start, len(tok))
            if m.group("name") == "href":
                href_depth, href_start = len(stack), m.end()
        elif field:
            # a BibTeX field's value: its name and "=" as written (a label when it is "doi"),
            # its opening brace or quote a space
            q = m.start("q")
            view.linear(doc[start:q], start)
            view.atomic(" ", q, 1)
            stack.append(_VALUE if m.group("q") == "{" else _QUOTED)
        elif m.group("open") is not None:
            _open(view, stack, start)
            if target_close >= 0 and _SPACES.fullmatch(doc, target_close, start):
                text_depth, text_start, target_close = len(stack), m.end(), -1
        elif m.group("quote") is not None:  # the quote that closes a field's value
            stack.pop()
            view.atomic("\n", start, 1)
        else:  # "}"
            depth = len(stack) if stack and stack[-1] != _QUOTED else -1  # the frame it closes
            frame = stack.pop() if depth >= 0 else _GROUP
            view.atomic("" if frame == _INNER else "\n", start, 1)
            if depth < 0:
                pass
            elif depth == href_depth:
                target, target_close, href_depth = (href_start, start), m.end(), -1
            elif depth == text_depth:
                view.links.append(Link(*target, text_start, start))
                text_depth = -1
    if pos < len(doc):
        view.linear(doc[pos:], pos)
    return view.finish()


def _open(view: View, stack: list[int], brace: int) -> None:
    """A "{": dropped inside an argument or a value (balanced there), else a boundary."""
    inside = bool(stack) and stack[-1] in _HOLDS
    stack.append(_INNER if inside else _GROUP)
    view.atomic("" if inside else "\n", brace, 1)
