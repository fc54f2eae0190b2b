"""doi-extractor: find, canonicalize and deduplicate DOIs in large text corpora.

The library API: `find_dois` (the matcher), `canonicalize`, `is_equivalent`, `to_uri`, `to_url`,
`parent_doi` (the article a figure's, table's or supplement's DOI belongs to), `entity_of` (a
funder of the Funder Registry or a work, spec §6).
Layers, data flowing one way: `cli` → `engines` → `pipeline` → `match` (ARCHITECTURE.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .match import (
        FindStats,
        Form,
        Hit,
        canonicalize,
        entity_of,
        find_dois,
        is_equivalent,
        parent_doi,
        to_uri,
        to_url,
    )

__version__ = "0.1.0"

__all__ = [
    "FindStats",
    "Form",
    "Hit",
    "__version__",
    "canonicalize",
    "entity_of",
    "find_dois",
    "is_equivalent",
    "parent_doi",
    "to_uri",
    "to_url",
]


def __getattr__(name: str) -> Any:
    # The API from match, loaded when first asked for (PEP 562): `doi-extract scan` starts its
    # workers' server before it loads the matcher, and `--version` never loads it.
    if name in __all__ and name != "__version__":
        from . import match

        return getattr(match, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
