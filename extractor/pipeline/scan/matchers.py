"""The matchers, and the one place that picks the C or the Python one for a text: a matcher
searches one window of an input (a Window in, a Found out) — the C matcher on the bytes
themselves (plain text, PDF text, HTML and the source syntaxes read in C), the Python matcher on
the window decoded (other prefixes, a kind or syntax without a C entry point, no C part) — and
counts every hit in a mention table (and, with occurrences, lists it); offsets count bytes, or
characters for a record's text. With spec §8 asked for, the derived DOIs are found after either.
"""

from collections.abc import Iterator
from typing import Any, NamedTuple, Protocol

from ...match import native
from ...match.forms import FORM_INDEX
from ...match.hits import FindStats
from ...match.kinds import Kind, kind_of
from ...match.native import CHit
from ...match.syntaxes import syntax_of
from ..io.decode import HEAD_BYTES, byte_offsets, clean, detect_kind, syntax_for
from ..table import MentionTable
from ..units import ShardResult


class Window(NamedTuple):
    """One window of an input as a matcher searches it: which of its hits to report, and how.

    The hits counted start before `cut` and in [rlo, rhi) (bytes of `data`), with offsets +
    `base`; anchors before `lo` are passed over as after a hit that ended there (the window
    before read them; a URL hit may start before `lo`, its anchor not). A kind read in views
    (HTML) counts the hits that start in [lo, cut). With `chars` (valid UTF-8: a record's text)
    offsets count characters, else bytes. With `line_base` >= 0 — the newlines before byte
    `line_from` of `data` — each hit gets its 1-based line; -1 for none (a record's text). With
    `line_to` >= 0 too, the newlines of data[line_from:line_to] are counted, on from the hits'
    count (each byte once)."""

    data: Any
    lo: int
    cut: int
    rlo: int
    rhi: int
    base: int = 0
    chars: bool = False
    line_base: int = -1
    line_from: int = 0
    line_to: int = -1

    @classmethod
    def whole(cls, data: Any, chars: bool = True) -> "Window":
        """All of `data` in one window, every hit reported (a record's text)."""
        return cls(data, 0, len(data), 0, len(data) + 1, 0, chars)


class Found(NamedTuple):
    """What a matcher found in a window: hits reported; the end of the last hit or of a token
    dropped as too long (spec §4: one whose end is not in the window ends at the window's end,
    so the rest is passed over too); candidates too long; and the newlines of
    data[line_from:line_to], or -1 when they were not asked for."""

    reported: int
    last_end: int
    too_long: int
    newlines: int


class Matcher(Protocol):
    """Searches one window, counting its hits into the matcher's table and list."""

    def __call__(self, w: Window) -> Found: ...


class CMatcher:
    """The C matcher on the raw bytes, through the kind's entry point in native.py: plain text
    (scan), PDF text (pdf_scan: the rules of find_spans(…, "pdf"), read twice when a break was a
    guess), or HTML, whose views it builds and searches in C (html_scan: the rules of
    find_spans(…, "html"), each hit mapped back to the markup)."""

    def __init__(
        self, table: MentionTable | None, hits: list[CHit] | None, kind: Kind, entry: str | None = None
    ) -> None:
        """`entry`: a source syntax's C entry point (a kind read in that syntax), else the kind's."""
        entry = entry or kind.c_entry
        if entry is None:
            raise ValueError(f"{kind.name} text has no C entry point")
        self.table = table
        self.hits = hits
        self.scan = getattr(native, entry)

    def __call__(self, w: Window) -> Found:
        return Found(
            *self.scan(
                w.data,
                w.lo,
                w.cut,
                w.rlo,
                w.rhi,
                w.base,
                self.table,
                self.hits,
                chars=w.chars,
                line_base=w.line_base,
                line_from=w.line_from,
                line_to=w.line_to,
            )
        )


class PythonMatcher:
    """Any kind (other prefixes, a kind without a C entry point, no C part): the window
    decoded, read by find_spans.

    Invalid UTF-8 bytes decode to lone surrogates (surrogateescape), one per byte, so that
    character offsets map exactly to byte offsets; the matcher reads them as U+FFFD.
    """

    def __init__(
        self,
        kind: Kind,
        allow_other_prefix: bool,
        table: MentionTable | None,
        hits: list[CHit] | None,
        syntax: str | None = None,
        derive: tuple[str, ...] = (),
    ) -> None:
        self.kind = kind
        self.allow_other_prefix = allow_other_prefix
        self.table = table
        self.hits = hits
        self.syntax = syntax  # a source syntax (spec §7), read through its views
        self.derive = derive  # the sources of spec §8 whose DOIs are hits too

    def __call__(self, w: Window) -> Found:
        data, lo, cut, rlo, rhi, base, chars, line_base, line_from, line_to = w
        raw = bytes(data).decode("utf-8", "surrogateescape")
        text = clean(raw)[0]
        stats = FindStats()
        # a kind or syntax read in views chooses its hits by start
        resumed = self.kind.resumes and self.syntax is None
        after = 0
        if resumed and lo:
            # hits before `lo` were read in the last window, the last of them ending there or
            # before: anchors before it are passed over as the whole text passes them over
            # (without it a chain of joined PDF lines across the window's start changed phase)
            at = lo
            while 0 < at < len(data) and data[at] & 0xC0 == 0x80:  # the start of its character
                at -= 1
            after = len(bytes(data[:at]).decode("utf-8", "surrogateescape"))
        from ...match.matcher import find_spans  # the Python rules, loaded where they read a text

        spans = find_spans(
            text,
            self.kind.name,
            allow_other_prefix=self.allow_other_prefix,
            stats=stats,
            after=after,
            syntax=self.syntax,
            derive=self.derive,
        )
        starts = byte_offsets(raw, [s.start for s in spans])
        # (plain and PDF: anchors before `lo` were passed over, so a hit may start before it)
        first = 0 if resumed else lo
        chosen = [(s, b) for s, b in zip(spans, starts, strict=True) if first <= b < cut]
        last_end = 0
        if chosen:
            last = chosen[-1]
            last_end = last[1] + len(raw[last[0].start : last[0].end].encode("utf-8", "surrogateescape"))
        for anchor, end in stats.dropped:  # spec §4: its token is passed over to its end
            at, upto = byte_offsets(raw, [anchor, end])
            if lo <= at < cut:
                last_end = max(last_end, upto)
        found = (
            (
                b,
                base + (s.start if chars else b),
                s.end - s.start if chars else len(raw[s.start : s.end].encode("utf-8", "surrogateescape")),
                FORM_INDEX[s.form],
                s.doi,
                text[s.start : s.end],
            )
            for s, b in chosen
            if rlo <= b < rhi
        )
        reported, newlines = _report(found, data, self.table, self.hits, line_base, line_from, line_to)
        return Found(reported, last_end, stats.too_long, newlines)


class DerivingMatcher:
    """A matcher's hits in a window, then the DOIs spec §8 derives from identifiers of the same
    window (match/derive.py): one implementation after either matcher, so that C and Python
    find the same; only when asked. A window that holds no source's name costs one search of
    its bytes. A kind or syntax read in views is read whole by the Python matcher where one may
    be derived: a derived hit is one occurrence with the link it is in (spec §6, links.py)."""

    def __init__(
        self,
        inner: Matcher,
        sources: tuple[str, ...],
        syntax: str | None,
        table: MentionTable | None,
        hits: list[CHit] | None,
        in_views: PythonMatcher | None = None,
    ) -> None:
        self.inner = inner
        self.sources = sources
        self.syntax = syntax
        self.table = table
        self.hits = hits
        self.in_views = in_views

    def __call__(self, w: Window) -> Found:
        from ...match.derive import derived_spans, may_hold

        data = w.data
        if not may_hold(data):
            return self.inner(w)
        if self.in_views is not None:
            return self.in_views(w)
        before = len(self.hits) if self.hits is not None else 0
        found = self.inner(w)
        raw = bytes(data).decode("utf-8", "surrogateescape")
        text = clean(raw)[0]
        spans = derived_spans(text, self.sources, self.syntax)
        starts = byte_offsets(raw, [s[0] for s in spans])
        chosen = (
            (
                b,
                w.base + (start if w.chars else b),
                end - start if w.chars else len(raw[start:end].encode("utf-8", "surrogateescape")),
                FORM_INDEX[form],
                doi,
                text[start:end],
            )
            for (start, end, form, doi), b in zip(spans, starts, strict=True)
            if w.lo <= b < w.cut and w.rlo <= b < w.rhi
        )
        reported, _ = _report(chosen, data, self.table, self.hits, w.line_base, w.line_from, -1)
        if reported and self.hits is not None:
            self.hits[before:] = sorted(self.hits[before:], key=lambda h: h[0])  # in order of offset
        return found._replace(reported=found.reported + reported)


def _report(
    found: Iterator[tuple[int, int, int, int, str, str]],
    data: Any,
    table: MentionTable | None,
    hits: list[CHit] | None,
    line_base: int,
    line_from: int,
    line_to: int,
) -> tuple[int, int]:
    """Count the hits found — (byte start in `data`, offset, size, form index, DOI, raw text)
    each, in order — into the table and the list, each with its line when `line_base` >= 0;
    (how many, the newlines of data[line_from:line_to] or -1), as the Matcher protocol says."""
    reported = 0
    counted, newlines = line_from, 0  # newlines in data[line_from:counted]
    for b, at, size, form, doi, rawtext in found:
        reported += 1
        line = -1
        if line_base >= 0:
            # in order, but for a URL holding the hit before it: counted back then
            if b >= counted:
                newlines += native.newlines(data, counted, b)
            else:
                newlines -= native.newlines(data, b, counted)
            counted = b
            line = line_base + newlines + 1
        if table is not None:
            table.add(doi, at, form, rawtext, line)
        if hits is not None:
            hits.append((at, at + size, form, doi, rawtext, None if line < 0 else line))
    if line_base < 0 or line_to < 0:
        return reported, -1
    if line_to >= counted:
        newlines += native.newlines(data, counted, line_to)
    else:
        newlines -= native.newlines(data, line_to, counted)
    return reported, newlines


def uses_c(kind: Kind, allow_other_prefix: bool) -> bool:
    """Whether a text of this kind goes to the C matcher: a kind with a C entry point,
    10-prefixes only (the C port has matcher.py's rules for those)."""
    return kind.c_entry is not None and not allow_other_prefix and native.HAVE_C


def matcher_for(
    kind: str,
    allow_other_prefix: bool,
    table: MentionTable | None,
    hits: list[CHit] | None,
    syntax: str | None = None,
    derive: tuple[str, ...] = (),
) -> Matcher:
    """The matcher for a text of this kind, read in this source syntax (spec §7; None: prose):
    the one place where C or Python is chosen. A syntax with a C entry point is read in C, any
    other by the Python matcher through its views; with `derive`, the DOIs spec §8 derives
    from those sources' identifiers are found after it (DerivingMatcher)."""
    k = kind_of(kind)
    match = _matcher(k, allow_other_prefix, table, hits, syntax)
    if not derive:
        return match
    in_views = None
    if syntax is not None or k.views:
        in_views = PythonMatcher(k, allow_other_prefix, table, hits, syntax, derive)
    return DerivingMatcher(match, derive, syntax, table, hits, in_views)


def _matcher(
    k: Kind, allow_other_prefix: bool, table: MentionTable | None, hits: list[CHit] | None, syntax: str | None
) -> Matcher:
    if syntax is None and uses_c(k, allow_other_prefix):
        return CMatcher(table, hits, k)
    entry = syntax_of(syntax).c_entry if syntax is not None else None
    if entry is not None and native.HAVE_C and not allow_other_prefix:
        return CMatcher(table, hits, k, entry)
    return PythonMatcher(k, allow_other_prefix, table, hits, syntax)


def document_syntax(
    forced: str | None, name: str | None, head: bytes | str, result: ShardResult
) -> str | None:
    """The source syntax a record is read in (a record is a document of its own, told by its
    name and head: decode.syntax_for), None for prose; counted in `result` by document."""
    return counted_syntax(syntax_for(forced, name, head), result)


def counted_syntax(syntax: str | None, result: ShardResult) -> str | None:
    """A document's source syntax (None or "" for prose), counted in `result`."""
    if syntax:
        result.syntaxes[syntax] = result.syntaxes.get(syntax, 0) + 1
    return syntax or None


def prefaced(text: str, preface: str) -> tuple[bytes, tuple[int, int]]:
    """A record's text as the UTF-8 bytes searched, its preface (Record.preface) before it, and
    the preface's length in (bytes, characters)."""
    if not preface:
        return text.encode("utf-8"), (0, 0)
    head = clean(preface)[0].encode("utf-8")
    return head + text.encode("utf-8"), (len(head), len(preface))


def match_record(
    data: Any,
    kind: str | None,
    allow_other_prefix: bool,
    table: MentionTable | None,
    hits: list[CHit] | None,
    syntax: str | None = None,
    preface: tuple[int, int] = (0, 0),
    derive: tuple[str, ...] = (),
) -> tuple[int, int]:
    """Search a record's whole text (valid UTF-8 bytes) in one call, its kind detected from it
    unless given, read in `syntax` (None: prose); offsets count characters. `preface`: (bytes,
    characters) at its start that are read but not searched for hits (Record.preface), offsets
    counting from their end. (reported, candidates too long)"""
    match = matcher_for(
        kind or detect_kind(None, bytes(data[:HEAD_BYTES])), allow_other_prefix, table, hits, syntax, derive
    )
    skip, chars = preface
    found = match(Window(data, 0, len(data), skip, len(data) + 1, -chars, True))
    return found.reported, found.too_long
