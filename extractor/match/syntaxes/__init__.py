"""The registry of source syntaxes (spec §7): markup and data syntaxes whose own delimiters a DOI
never crosses and whose escapes are undone before §1–§5 apply.

Each syntax turns its source into views (html.View): texts whose boundaries the matcher never
reads across, with the map from their offsets back to the source, so a hit keeps its raw text
and offsets as written. A syntax is told by the file's name, else by its content, or forced.

A new syntax is one module beside these (its `views`) and one row of SYNTAX_TABLE.
"""

import importlib
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

if TYPE_CHECKING:
    from ..html import View


class Marks(NamedTuple):
    """What in a text's head makes a syntax's sniff worth asking: the cheap test every record's
    text passes first, by detect_syntax here and by the C batch's prose test (`prose_head` in
    cscan/module.c, whose table native.py holds equal to these rows at import). A head with
    none of any row's marks is prose to every sniff."""

    opens: str = ""  # a character the head starts with, after white space
    anywhere: str = ""  # a character anywhere in the head
    pair: str = ""  # a run of two characters anywhere in the head
    line_start: str = ""  # a character with nothing but white space before it on its line


class _Deferred:
    """A function of a syntax's module, loaded when first called: the registry names every
    syntax, and a run loads the modules (and patterns) of the syntaxes it reads."""

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name
        self._fn: Callable[..., Any] | None = None

    def __call__(self, *args: Any) -> Any:
        if self._fn is None:
            self._fn = getattr(importlib.import_module(f".{self.module}", __name__), self.name)
        return self._fn(*args)

    def __repr__(self) -> str:
        return f"{self.module}.{self.name}"


def _of(module: str, name: str) -> Callable[..., Any]:
    return _Deferred(module, name)


class Syntax(NamedTuple):
    """One source syntax and how the matcher reads it."""

    name: str
    # The views of a source text, each searched by the kind's rules (plain text's).
    views: Callable[[str], list["View"]]
    # File names (lower case, without a compression suffix) that are of this syntax.
    suffixes: tuple[str, ...]
    # Whether a text's head looks like this syntax when no name tells (None: never guessed),
    # and what its head must hold for it to be asked (every sniff says no to a head without).
    sniff: Callable[[str], bool] | None = None
    marks: Marks | None = None
    # The native function that searches it in C, or None (the Python matcher reads it).
    c_entry: str | None = None


SYNTAX_TABLE: dict[str, Syntax] = {
    s.name: s
    for s in (
        Syntax(
            "wikitext",
            _of("wikitext", "views"),
            (".wiki", ".wikitext", ".mediawiki"),
            _of("wikitext", "sniff"),
            Marks(pair="{{"),  # a template
            "wikitext_scan",
        ),
        Syntax(
            "latex",
            _of("tex", "latex_views"),
            (".tex", ".ltx", ".bbl", ".sty", ".cls"),
            _of("tex", "sniff_latex"),
            Marks(anywhere="\\"),  # a command
            "latex_scan",
        ),
        Syntax(
            "bibtex",
            _of("tex", "bibtex_views"),
            (".bib",),
            _of("tex", "sniff_bibtex"),
            Marks(line_start="@"),  # an entry's start (an e-mail's @ is not)
            "bibtex_scan",
        ),
        Syntax("csv", _of("csvtext", "views"), (".csv", ".tsv", ".tab"), c_entry="csv_scan"),
        Syntax(
            "json",
            _of("jsontext", "views"),
            (".json", ".ipynb", ".geojson", ".csljson"),
            _of("jsontext", "sniff"),
            Marks(opens="[{"),  # an array's or an object's start
        ),
        Syntax("markdown", _of("markdown", "views"), (".md", ".markdown", ".mdown", ".rmd", ".qmd")),
    )
}

SYNTAXES: tuple[str, ...] = tuple(SYNTAX_TABLE)
# (name, sniff) of the syntaxes that may be told by content: asked of every record's text.
_SNIFFERS = tuple((s.name, s.sniff) for s in SYNTAX_TABLE.values() if s.sniff is not None)
# Every row's marks together, each kind of mark its characters (or runs) sorted: the table the C
# prose test holds (native.py checks it at import).
_ROW_MARKS = [s.marks for s in SYNTAX_TABLE.values() if s.marks is not None]
MARKS = Marks(
    opens="".join(sorted({c for m in _ROW_MARKS for c in m.opens})),
    anywhere="".join(sorted({c for m in _ROW_MARKS for c in m.anywhere})),
    pair=" ".join(sorted(m.pair for m in _ROW_MARKS if m.pair)),
    line_start="".join(sorted({c for m in _ROW_MARKS for c in m.line_start})),
)
_PAIRS = tuple(MARKS.pair.split())
_S = TypeVar("_S", str, bytes)
# A run of two is looked for where its first character is (memchr's speed), by a regular
# expression's search: `in` took three times as long over a web page's head.
_PAIR_TESTS = tuple((p[0], re.compile(re.escape(p)).search) for p in _PAIRS)
_PAIR_TESTS_BYTES = tuple((p[:1].encode(), re.compile(re.escape(p.encode())).search) for p in _PAIRS)


def _holds_pair(head: _S, tests: tuple[tuple[_S, Callable[[_S], object]], ...]) -> bool:
    """Whether `head` holds one of the runs of two that `tests` look for."""
    return any(first in head and search(head) is not None for first, search in tests)


# How far before a line-start mark is read first: as far as that, a line's start or white space.
_BEFORE = 16


def _line_before(head: _S, at: int, newline: _S, may_be_white: Callable[[_S], bool]) -> _S | None:
    """What stands before the line-start mark at `at` on its line, or None where the _BEFORE
    characters before it show it mid-line already (`may_be_white`: whether a stretch may be all
    white space): a page's long lines are read back only where they may be."""
    lo = max(0, at - _BEFORE)
    nl = head.rfind(newline, lo, at)
    if nl < 0:
        if not may_be_white(head[lo:at]):
            return None
        nl = head.rfind(newline, 0, lo)
    return head[nl + 1 : at]


def _white(text: str) -> bool:
    return not text.strip()


def marked(head: str) -> bool:
    """Whether a text's head holds a mark of a syntax told by content (Marks): the sniffs are
    asked only then, so most prose, asked record by record, passes at memchr's speed."""
    if head.lstrip()[:1] in tuple(MARKS.opens) or any(c in head for c in MARKS.anywhere):
        return True
    if _holds_pair(head, _PAIR_TESTS):
        return True
    for c in MARKS.line_start:
        at = head.find(c)
        while at >= 0:
            line = _line_before(head, at, "\n", _white)
            if line is not None and _white(line):
                return True
            at = head.find(c, at + 1)
    return False


# str.isspace's ASCII characters, as bytes (bytes.strip takes fewer by default).
_ASCII_SPACE = b" \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"
_MARK_BYTES = tuple(c.encode() for c in MARKS.anywhere)
_OPEN_BYTES = tuple(c.encode() for c in MARKS.opens)
_SPACE_OR_NON_ASCII = _ASCII_SPACE + bytes(range(0x80, 0x100))


def _white_or_non_ascii(data: bytes) -> bool:
    return not data.translate(None, _SPACE_OR_NON_ASCII)


def marked_bytes(head: bytes) -> bool | None:
    """marked() of a head's UTF-8 bytes read without decoding them (every mark is ASCII): True or
    False, or None where only the decoded text can tell (a non-ASCII character where the test asks
    whether there is white space, which str.isspace may say of it)."""
    if any(c in head for c in _MARK_BYTES) or _holds_pair(head, _PAIR_TESTS_BYTES):
        return True
    unsure = False
    first = head.lstrip(_ASCII_SPACE)[:1]
    if first in _OPEN_BYTES:
        return True
    if first and first[0] >= 0x80:
        unsure = True
    for c in MARKS.line_start.encode():
        at = head.find(c)
        while at >= 0:
            line = _line_before(head, at, b"\n", _white_or_non_ascii)
            if line is not None:  # None: mid-line, as marked() reads it
                before = line.strip(_ASCII_SPACE)
                if not before:
                    return True
                if _white_or_non_ascii(before):
                    unsure = True  # nothing but non-ASCII and white space before it: all white, perhaps
            at = head.find(c, at + 1)
    return None if unsure else False


# What --syntax (and syntax= of the library's batch API) takes: detect, prose, or a syntax.
SYNTAX_CHOICES: tuple[str, ...] = ("auto", "none", *SYNTAXES)

_COMPRESSED = re.compile(r"\.(?:gz|bz2|xz|zst|zstd)$")


def syntax_of(name: str) -> Syntax:
    """The registry's entry for a syntax's name; ValueError for a name it does not hold."""
    try:
        return SYNTAX_TABLE[name]
    except KeyError:
        raise ValueError(f"syntax must be one of {SYNTAXES}, not {name!r}") from None


def detect_syntax(name: str | None, head: str | None = None) -> str | None:
    """The syntax of a document from its name, else from its first characters (stdin, records,
    archive members); None for prose (§1–§6 alone)."""
    if name:
        lname = _COMPRESSED.sub("", name.lower())
        for s in SYNTAX_TABLE.values():
            if lname.endswith(s.suffixes):
                return s.name
    if head and marked(head):
        for syntax, sniff in _SNIFFERS:
            if sniff(head):
                return syntax
    return None
