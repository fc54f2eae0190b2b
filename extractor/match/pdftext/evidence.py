"""What a PDF document says about its own DOIs (spec §5): the DOIs it shows unbroken and their
shapes, by which a break that could be either is decided."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..canonical import canonical_key


def key_of(name: str) -> str:
    return canonical_key(name, True)


def shape_of(key: str) -> str:
    """Registrant prefix and the character classes of the suffix: 10.1371/aaaaaaa.aaaa.9999999."""
    prefix, _, suffix = key.partition("/")
    return prefix + "/" + re.sub(r"[0-9]", "9", re.sub(r"[a-z]", "a", suffix))


# A line that is a number alone, and a running header's number ("154 A. Sundström et al."): a
# page's number, printed once a page (spec §5).
_NUMBER_LINE = re.compile(r"^[ \t\f]*([1-9][0-9]{0,3})[ \t\r\f]*$", re.M)
_HEADER_NUMBER = re.compile(r"^[ \t\f]*([1-9][0-9]{0,3})[ \t]+[A-Z]", re.M)


def page_numbers(text: str) -> frozenset[int]:
    """The numbers of a document's pages: numbers alone on their lines that a running header
    gives, or that the next or last page's number stands beside (in a header, or alone too).
    Pages are numbered in sequence; a number alone with no neighbour is no page's."""
    alone = {int(n) for n in _NUMBER_LINE.findall(text)}
    headers = {int(n) for n in _HEADER_NUMBER.findall(text)}
    seen = alone | headers
    return frozenset(n for n in alone if n in headers or n - 1 in seen or n + 1 in seen)


@dataclass(slots=True)
class Evidence:
    """What a PDF document says about its own DOIs, for deciding line-break joins (spec §5)."""

    dois: set[str] = field(default_factory=set)
    shapes: set[str] = field(default_factory=set)
    parents: set[str] = field(default_factory=set)
    pages: frozenset[int] = frozenset()  # page_numbers of the document

    def add(self, key: str, certain: bool) -> None:
        self.dois.add(key)
        if certain:
            self.shapes.add(shape_of(key))
        slash = key.find("/")
        for i in range(slash + 2, len(key)):
            if key[i] in "./":
                self.parents.add(key[:i])

    def extends(self, key: str) -> bool:
        """True when `key` is a whole-component prefix of a DOI seen, as a parent of its
        figure or table DOIs (10.1371/journal.pone.0046041 of …0046041.t001)."""
        return key in self.parents
