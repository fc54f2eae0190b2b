"""What the matcher reports (spec §2-§4): a DOI's place and form, and what it saw but could not
report. Records only, so that a caller holding hits need not load the rules."""

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


class FindStats:
    """Counts of candidates the finder saw but could not report (spec §4: counted, not lost)."""

    __slots__ = ("dropped", "too_long")

    def __init__(self, too_long: int = 0, dropped: list[tuple[int, int]] | None = None) -> None:
        self.too_long = too_long
        # (anchor, end of its token) of each candidate dropped as too long: the rest of its token
        # is passed over too, so a caller reading text in windows carries that into the next one
        self.dropped: list[tuple[int, int]] = [] if dropped is None else dropped

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FindStats) and (self.too_long, self.dropped) == (
            other.too_long,
            other.dropped,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"FindStats(too_long={self.too_long!r}, dropped={self.dropped!r})"
