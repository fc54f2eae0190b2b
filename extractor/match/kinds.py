"""What a text is, as the matcher reads it: the registry of kinds (spec §3, §5).

Each entry says how a text of that kind is read — as it is, or through views of it whose
boundaries a DOI never crosses and whose offsets map back to the source (HTML's flow,
attributes and JSON) — whether the C matcher has an entry point for it, whether a window of it
resumes in the phase where the window before ended, and the form its hits are reported with
when the kind fixes one. Callers ask the registry, never compare a kind's name.

A new kind, or a source syntax of spec §7 read through views, is one entry here (its views in
a module of match/, its C entry point in cscan/ if it has one).
"""

from typing import NamedTuple

from .forms import Form


class Kind(NamedTuple):
    """One kind of text and how the matcher reads it."""

    name: str
    # Read through views built from the source (html.html_views): hits are chosen by where they
    # start in the source, never resumed mid-view. False: the text is read as it is.
    views: bool
    # The native function (match/native.py) that searches it in C on raw bytes, or None.
    c_entry: str | None
    # find_spans reads it with the PDF rules (joins across lines and boxes, spec §5).
    pdf_rules: bool = False
    # Every hit is reported with this form (a raw PDF's link URIs: Form.PDF_LINK), else None.
    form: Form | None = None
    # A text of this kind is more of the document read before it (a PDF's link annotations
    # after its text), never a document of its own in the counts.
    continues: bool = False

    @property
    def resumes(self) -> bool:
        """Whether a window resumes where the hits of the window before ended (the text's
        phase carried across windows); a kind read in views chooses its hits by start."""
        return not self.views


KIND_TABLE: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("plain", views=False, c_entry="scan"),
        Kind("html", views=True, c_entry="html_scan"),
        Kind("pdf", views=False, c_entry="pdf_scan", pdf_rules=True),
        # A raw PDF's link annotations, one URI a line, read as plain text (pipeline/formats/pdf.py).
        Kind("pdf-link", views=False, c_entry=None, form=Form.PDF_LINK, continues=True),
    )
}

# The kinds a user may name (--kind, find_dois): a PDF's link list is the reader's own.
KINDS: tuple[str, ...] = ("plain", "html", "pdf")


def kind_of(name: str) -> Kind:
    """The registry's entry for a kind's name; ValueError for a name it does not hold."""
    try:
        return KIND_TABLE[name]
    except KeyError:
        raise ValueError(f"kind must be one of {KINDS}, not {name!r}") from None
