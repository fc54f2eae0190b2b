"""Repair of DOIs that text extraction from a PDF broke across lines or spaces (spec §5), by the
evidence a reader uses: the character before the break, what the next line starts with, and —
for breaks that could be either — whether the joined string is a DOI the same document shows
unbroken, or has the shape of this registrant's other DOIs there.

- `breaks`: the line-by-line decision (`decide`, `space_join`) and the tokens it reads;
- `layout`: -layout's columns, and the walk below a break (`below`);
- `shapes`: registrants' DOI shapes (`SHAPES`), and page numbers glued to a DOI;
- `far`: the joins past the next line, and the C matcher's entry points to them;
- `hyphens`: hyphens put back that pdftotext took out (`rehyphenate`);
- `evidence`: what a document says of its own DOIs;
- `joins`: a DOI's pieces joined across breaks (`join_pieces`), what the matcher calls.
"""

from __future__ import annotations

from .evidence import Evidence, page_numbers
from .far import far_anchor
from .hyphens import rehyphenate
from .joins import join_pieces
from .layout import elsewhere
from .shapes import glued_page_end

__all__ = [
    "Evidence",
    "elsewhere",
    "far_anchor",
    "glued_page_end",
    "join_pieces",
    "page_numbers",
    "rehyphenate",
]
