"""The bounds every reader of a text shares (spec §4): the longest candidate a DOI may be, the
windows read around an anchor, and the bytes no text holds. Constants only, so that a reader
that windows a text (the pipeline, the C matcher's tables) need not load the rules."""

from __future__ import annotations

# Spec §4: the extractor may bound its window per candidate (at least 1,000 characters); a
# longer candidate is dropped and counted, never truncated.
MAX_DOI_CHARS = 2000
# Most DOIs end within a short window: it is read first, the whole one only when needed.
SHORT_WINDOW = 256
# The characters read back from an anchor for its label, resolver or URL (spec §2, §3).
LEFT_WINDOW = 512
# In text from a PDF, how far above a piece at a column's foot its page's top is looked for
# (pdftext.layout.column_top): a -layout page's text. A window keeps as much before its first hit.
PAGE_CHARS = 16384
# Control bytes that text does not hold: below 0x20, but for backspace, tab, line feed, vertical
# tab, form feed, carriage return and escape (a head mostly of them is binary: decode.is_binary;
# C reads them from tables.h's CONTROL_MASK).
CONTROL_BYTES = bytes([*range(0, 8), 14, 15, *range(16, 27), *range(28, 32)])
