"""doi-extractor: find, canonicalize and deduplicate DOIs in large text corpora.

The library API: `find_dois` (the matcher), `canonicalize`, `is_equivalent`, `to_uri`, `to_url`.
"""

from __future__ import annotations

from .canonical import canonicalize, is_equivalent, to_uri, to_url
from .find import FindStats, Hit, find_dois
from .forms import Form

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
