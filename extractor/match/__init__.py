"""What a DOI is: pure functions on text and bytes (spec §1–§5), no I/O and no pyarrow.

find.py is the matcher and the reference for every rule; kinds.py is the registry of what a text
is and how it is read; native.py runs the same rules in C on UTF-8 bytes for plain text, PDF
text and HTML in bulk; identifiers.py reads one identifier (canonical form, equivalence, URI and
URL renderings).
"""

from __future__ import annotations

from .canonical import canonical_key, fold_ascii
from .components import COMPONENT_RULES, parent_doi
from .find import FindStats, Hit, Span, find_dois, find_spans
from .forms import FORM_INDEX, FORMS, Form, forms_mask, forms_of
from .identifiers import canonicalize, is_equivalent, to_uri, to_url
from .kinds import KIND_TABLE, KINDS, Kind, kind_of

__all__ = [
    "COMPONENT_RULES",
    "FORMS",
    "FORM_INDEX",
    "KINDS",
    "KIND_TABLE",
    "FindStats",
    "Form",
    "Hit",
    "Kind",
    "Span",
    "canonical_key",
    "canonicalize",
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
