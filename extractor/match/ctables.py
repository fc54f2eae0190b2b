"""The C matcher's share of the Python rules, written once, here, as C: `cscan/tables.h`.

The constants, character classes, word lists and display forms that the rules and their C port
both use are defined in the Python modules alone; this module writes them out as the generated
header the extension is built from (the way CPython's Tools/unicode/makeunicodedata.py writes
Modules/unicodedata_db.h). What C ports by hand — a regular expression turned into a loop — is
written here as its source text (`PY_RULES`), beside which `cscan/ported.h` keeps, by hand, the
text each port was written from: the extension compares the two when it is imported and refuses
to load where a rule moved on without its port. tests/test_cscan.py holds the header equal to
what this module writes.

    python -m extractor.match.ctables          # write cscan/tables.h again
    python -m extractor.match.ctables --check  # exit 1 where it is out of step with the rules
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from pathlib import Path

from . import bounds, canonical, html, left, rules, tails
from .bounds import CONTROL_BYTES
from .emoji import EMOJI_RANGES
from .forms import FORMS
from .pdftext import breaks, hyphens, layout
from .syntaxes import MARKS

HEADER = Path(__file__).with_name("cscan") / "tables.h"


def _lists() -> dict[str, tuple[str, ...]]:
    """The word lists that a ported rule's pattern is built from: in a rule's text each is written
    as {NAME}, so that a word added to a list reaches C through its table, not a new port."""
    return {
        "VIEWS": tails.VIEWS,
        "RXIV_TAILS": tuple(re.escape(t) for t in tails.RXIV_TAILS),
        "RESOURCE_SEGMENTS": tails.RESOURCE_SEGMENTS,
        "MEDIA_EXTENSIONS": tails.MEDIA_EXTENSIONS,
        "SPRINGER_MARKERS": tails.SPRINGER_MARKERS,
        "VIEW_SEGMENTS": breaks.VIEW_SEGMENTS,
        "EMOJI": (rules.EMOJI,),
    }


def _ported() -> list[tuple[str, re.Pattern[str], str]]:
    """The rules C ports by hand, by the names its C comments give them: (name, pattern, extra),
    the extra a rule's context or replacement."""
    return [
        *(
            (f"tails.TAIL_RULES[{i}]", p, "" if c is None else c.pattern)
            for i, (p, c) in enumerate(tails.TAIL_RULES)
        ),
        ("tails.DOI_PATH_MARKER", tails.DOI_PATH_MARKER, ""),
        ("tails.SHIELDS", tails.SHIELDS, ""),
        ("tails.FILE_STORE", tails.FILE_STORE, ""),
        *(
            (f"hyphens.DEHYPHENATION_RULES[{i}]", p, r)
            for i, (p, r) in enumerate(hyphens.DEHYPHENATION_RULES)
        ),
        ("rules.RUN", rules.RUN, ""),
        ("rules.SPLIT", rules.SPLIT, ""),
        ("rules.DEBRIS", rules.DEBRIS, ""),
        ("rules._URL_STOPS", rules._URL_STOPS, ""),
        ("left.URLISH", left.URLISH, ""),
        ("left.LEFT_GLUED", left.LEFT_GLUED, ""),
        ("left.LEFT_SPACED_LABEL", left.LEFT_SPACED_LABEL, ""),
        ("left.LEFT_SPACED_RESOLVER", left.LEFT_SPACED_RESOLVER, ""),
        ("left.BROKEN_RESOLVER", left.BROKEN_RESOLVER, ""),
        ("breaks.VIEW_TAIL", breaks.VIEW_TAIL, ""),
    ]


def ported_rules() -> list[tuple[str, str, str, str]]:
    """(name, pattern, flags, extra) of each rule C ports by hand, as the rules are now, the word
    lists written as {NAME}."""
    lists = sorted(_lists().items(), key=lambda kv: -len("|".join(kv[1])))

    def template(text: str) -> str:
        for name, words in lists:
            text = text.replace("|".join(words), "{" + name + "}")
        return text

    return [(name, template(p.pattern), str(int(p.flags)), template(extra)) for name, p, extra in _ported()]


def _c_string(s: str) -> str:
    """A C string literal of `s` (UTF-8; every byte outside printable ASCII escaped)."""
    out: list[str] = []
    for b in s.encode("utf-8"):
        ch = chr(b)
        if ch in '"\\' or (ch == "?" and out and out[-1].endswith("?")):  # "??" would start a trigraph
            out.append("\\" + ch)
        elif 0x20 <= b < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def _strings(name: str, values: Iterable[str], source: str) -> str:
    items = ", ".join(_c_string(v) for v in values)
    return f"/* {source} */\nstatic const char *const {name}[] = {{{items}, NULL}};\n"


def _words(name: str, values: Iterable[str], source: str) -> str:
    items = ", ".join(f"W({_c_string(v)})" for v in values)
    return f"/* {source} */\nstatic const Word {name}[] = {{{items}, {{NULL, 0}}}};\n"


def _char_test(name: str, chars: Iterable[str], source: str) -> str:
    cases = " ".join(f"case 0x{ord(c):X}:" for c in sorted(set(chars)))
    return (
        f"/* {source} */\nstatic inline int {name}(cp_t c)\n{{\n    switch (c) {{\n    {cases}\n"
        "        return 1;\n    }\n    return 0;\n}\n"
    )


def _range_test(name: str, ranges: tuple[tuple[int, int], ...], source: str) -> str:
    """A test of whether a code point lies in sorted, disjoint ranges: a binary search."""
    items = ", ".join(f"{{0x{a:X}, 0x{b:X}}}" for a, b in ranges)
    return (
        f"/* {source} */\nstatic const cp_t {name.upper()}_RANGES[][2] = {{{items}}};\n"
        f"static inline int {name}(cp_t c)\n{{\n"
        f"    if (c < {name.upper()}_RANGES[0][0])\n        return 0;\n"
        f"    size_t lo = 0, hi = sizeof {name.upper()}_RANGES / sizeof *{name.upper()}_RANGES;\n"
        "    while (lo < hi) {\n        size_t mid = (lo + hi) / 2;\n"
        f"        if (c < {name.upper()}_RANGES[mid][0])\n            hi = mid;\n"
        f"        else if (c > {name.upper()}_RANGES[mid][1])\n            lo = mid + 1;\n"
        "        else\n            return 1;\n    }\n    return 0;\n}\n"
    )


def _define(name: str, value: int, source: str) -> str:
    return f"#define {name} {value} /* {source} */\n"


def _control_mask() -> str:
    """bounds.CONTROL_BYTES, all below 0x20, as the bits of one 32-bit mask (bit b: byte b)."""
    assert all(b < 0x20 for b in CONTROL_BYTES)
    mask = sum(1 << b for b in set(CONTROL_BYTES))
    return f"#define CONTROL_MASK 0x{mask:08X}u /* bounds.CONTROL_BYTES: bit b for control byte b */\n"


def _form_enum() -> str:
    names = ", ".join(f"F_{f.name}" for f in FORMS)
    return f"/* forms.FORMS, in order: a hit's form index */\nenum {{ {names}, F_COUNT }};\n"


def render() -> str:
    """The text of cscan/tables.h as the Python rules make it now."""
    pairs = sorted(zip(rules.CLOSE, rules.OPEN, strict=True))
    opener_of = "".join(f"    case 0x{ord(c):X}: return 0x{ord(o):X};\n" for c, o in pairs)
    parts = [
        "/* GENERATED by extractor/match/ctables.py from the Python rules: do not edit. Write it again\n"
        " * with `python -m extractor.match.ctables`; tests/test_cscan.py holds it equal to what that writes. */\n"
        "#ifndef DOI_TABLES_H\n#define DOI_TABLES_H\n",
        _define("MAX_DOI_CHARS", bounds.MAX_DOI_CHARS, "bounds.MAX_DOI_CHARS"),
        _define("SHORT_WINDOW", bounds.SHORT_WINDOW, "bounds.SHORT_WINDOW"),
        _define("LEFT_WINDOW", bounds.LEFT_WINDOW, "bounds.LEFT_WINDOW"),
        _define("MAX_JOINS", breaks.MAX_JOINS, "breaks.MAX_JOINS"),
        _define("MAX_LINE", layout.MAX_LINE, "layout.MAX_LINE"),
        _define("COLUMN_SLACK", layout.COLUMN_SLACK, "layout.COLUMN_SLACK"),
        _define("HANGING_INDENT", layout.HANGING_INDENT, "layout.HANGING_INDENT"),
        _define("PAGE_CHARS", bounds.PAGE_CHARS, "bounds.PAGE_CHARS"),
        _define("NEXT_TOKEN", breaks.NEXT_TOKEN, "breaks.NEXT_TOKEN"),
        _define("MAX_TAG", html.MAX_TAG, "html.MAX_TAG, in characters"),
        _control_mask(),
        _form_enum(),
        _strings("FORM_NAMES", (f.value for f in FORMS), "forms.FORMS' names, by index"),
        _char_test("trailing", rules.TRAILING, "rules.TRAILING"),
        _char_test("format_char", canonical.FORMAT_CHARS, "canonical.FORMAT_CHARS"),
        _char_test("opener", rules.OPEN, "rules.OPEN"),
        _char_test("pdf_hyphen", canonical.PDF_HYPHENS, "canonical.PDF_HYPHENS"),
        _range_test("emoji_char", EMOJI_RANGES, "emoji.EMOJI_RANGES: an emoji ends a DOI (spec §4)"),
        f"/* rules.CLOSE: the opener each closer closes, else 0 */\nstatic inline cp_t opener_of(cp_t c)\n{{\n"
        f"    switch (c) {{\n{opener_of}    }}\n    return 0;\n}}\n",
        "/* A word of a table with its length, both known when compiled. */\n"
        "typedef struct {\n    const char *s;\n    Py_ssize_t len;\n} Word;\n"
        "#define W(x) {x, (Py_ssize_t)sizeof(x) - 1}\n",
        _words("VIEWS", tails.VIEWS, "tails.VIEWS"),
        _words("RXIV", tails.RXIV_TAILS, "tails.RXIV_TAILS"),
        _words("SEGMENTS", tails.RESOURCE_SEGMENTS, "tails.RESOURCE_SEGMENTS"),
        _words("MEDIA", tails.MEDIA_EXTENSIONS, "tails.MEDIA_EXTENSIONS"),
        _strings("SPRINGER_MARKERS", tails.SPRINGER_MARKERS, "tails.SPRINGER_MARKERS"),
        _strings("PDF_VIEW_SEGMENTS", breaks.VIEW_SEGMENTS, "breaks.VIEW_SEGMENTS"),
        _strings("INLINE_NAMES", sorted(html.INLINE_TAGS), "html.INLINE_TAGS"),
        "/* html.DOI_ELEMENTS: an element whose text is one DOI, and the attribute that must say\n"
        ' * "doi" (NULL: none needed) */\nstatic const char *const DOI_ELEMENTS[][2] = {'
        + ", ".join(
            f"{{{_c_string(e)}, {'NULL' if a is None else _c_string(a)}}}"
            for e, a in html.DOI_ELEMENTS.items()
        )
        + "};\n",
        f"/* syntaxes.MARKS: what in a text's head makes a syntax's sniff worth asking */\n"
        f"static const char MARK_OPENS[] = {_c_string(MARKS.opens)};\n"
        f"static const char MARK_ANYWHERE[] = {_c_string(MARKS.anywhere)};\n"
        f"static const char MARK_LINE_START[] = {_c_string(MARKS.line_start)};\n",
        _strings("MARK_PAIRS", MARKS.pair.split(), "syntaxes.MARKS.pair"),
        "/* The rules C ports by hand, as the Python rules write them now: name, pattern, flags,\n"
        " * context or replacement, the word lists above written as {NAME}. The extension compares\n"
        " * them at import with PORTED_RULES, the text its ports were written from (ported.h). */\n"
        "static const char *const PY_RULES[] = {\n"
        + "".join(f"    {', '.join(_c_string(x) for x in row)},\n" for row in ported_rules())
        + "    NULL};\n",
        "#endif\n",
    ]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = render()
    current = HEADER.read_text(encoding="utf-8") if HEADER.exists() else ""
    if "--check" in args:
        if current != text:
            print(
                f"{HEADER} is out of step with the Python rules: python -m extractor.match.ctables",
                file=sys.stderr,
            )
            return 1
        return 0
    if current != text:
        HEADER.write_text(text, encoding="utf-8")
        print(f"wrote {HEADER}")
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["HEADER", "ported_rules", "render"]
