"""What the matcher reports (spec §2-§4): a DOI's place and form, and what it saw but could not
report. Records only, so that a caller holding hits need not load the rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from .forms import Form


class Span(NamedTuple):
    """Where a DOI is in a text and which it is: offsets, display form and canonical DOI."""

    start: int
    end: int
    form: Form
    doi: str


class Hit(NamedTuple):
    """One DOI found in a text: offsets into the text, the raw span, its display form and key."""

    start: int
    end: int
    raw: str
    form: Form
    doi: str


@dataclass(slots=True)
class FindStats:
    """Counts of candidates the finder saw but could not report (spec §4: counted, not lost)."""

    too_long: int = 0
    # (anchor, end of its token) of each candidate dropped as too long: the rest of its token is
    # passed over too, so a caller reading text in windows carries that into the next window.
    dropped: list[tuple[int, int]] = field(default_factory=list)
