"""doi-extractor: find, canonicalize and deduplicate DOIs in large text corpora.

The library API: `find_dois` (the matcher), `canonicalize`, `is_equivalent`, `to_uri`, `to_url`.
Layers, data flowing one way: `cli` → `engines` → `pipeline` → `match` (ARCHITECTURE.md).
"""

from __future__ import annotations

from .match import FindStats, Form, Hit, canonicalize, find_dois, is_equivalent, to_uri, to_url

__version__ = "0.1.0"

__all__ = [
    "FindStats",
    "Form",
    "Hit",
    "__version__",
    "canonicalize",
    "find_dois",
    "is_equivalent",
    "to_uri",
    "to_url",
]
