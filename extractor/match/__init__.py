"""What a DOI is: pure functions on text and bytes (spec §1–§5), no I/O and no pyarrow.

matcher.py is the matcher and the reference for every rule; kinds.py is the registry of what a text
is and how it is read; native.py runs the same rules in C on UTF-8 bytes in bulk; identifiers.py
reads one identifier (canonical form, equivalence, URI and URL renderings).

Each name is loaded from its module when first asked for (PEP 562): a caller that asks for
`canonicalize` does not load the PDF rules, and one that runs the C matcher loads none of the
Python rules' patterns.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .canonical import canonical_key, fold_ascii
    from .components import COMPONENT_RULES, parent_doi
    from .entities import FUNDER_PREFIX, entity_of
    from .forms import FORM_INDEX, FORMS, Form, forms_mask, forms_of
    from .hits import FindStats, Hit, Span
    from .identifiers import canonicalize, is_equivalent, to_uri, to_url
    from .kinds import KIND_TABLE, KINDS, Kind, kind_of
    from .matcher import find_dois, find_spans

# Each public name and the module of this package that defines it.
_HOMES = {
    "canonical_key": "canonical",
    "fold_ascii": "canonical",
    "COMPONENT_RULES": "components",
    "parent_doi": "components",
    "FUNDER_PREFIX": "entities",
    "entity_of": "entities",
    "find_dois": "matcher",
    "find_spans": "matcher",
    "FORM_INDEX": "forms",
    "FORMS": "forms",
    "Form": "forms",
    "forms_mask": "forms",
    "forms_of": "forms",
    "FindStats": "hits",
    "Hit": "hits",
    "Span": "hits",
    "canonicalize": "identifiers",
    "is_equivalent": "identifiers",
    "to_uri": "identifiers",
    "to_url": "identifiers",
    "KIND_TABLE": "kinds",
    "KINDS": "kinds",
    "Kind": "kinds",
    "kind_of": "kinds",
}

__all__ = [
    "COMPONENT_RULES",
    "FORMS",
    "FORM_INDEX",
    "FUNDER_PREFIX",
    "KINDS",
    "KIND_TABLE",
    "FindStats",
    "Form",
    "Hit",
    "Kind",
    "Span",
    "canonical_key",
    "canonicalize",
    "entity_of",
    "find_dois",
    "find_spans",
    "fold_ascii",
    "forms_mask",
    "forms_of",
    "is_equivalent",
    "kind_of",
    "parent_doi",
    "to_uri",
    "to_url",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value  # asked once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
