"""The matcher: where in a text a DOI is, where it ends, and which DOI it is (spec §2–§5).

Anchor and expand: one fast scan finds every `10.<digits>/` (the literal every display form
contains), then a bounded window around each anchor is read — left for the label, resolver
or URL the DOI sits in, right for where it ends. Nothing here backtracks: every pattern is
applied to a window of bounded size, so time is linear in the input on any text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from .anchors import ANCHOR, FarAnchor, pdf_anchor_matches
from .canonical import canonical_key, clean_name, fold_ascii
from .forms import Form
from .hits import FindStats, Hit, Span
from .kinds import kind_of
from .left import GROUP_FORMS, LABELLED, OTHER_LABEL_ANCHOR, left_context
from .rules import (
    CLOSE,
    MAX_DOI_CHARS,
    RESOLVERS,
    RUN,
    RUN_END,
    RUN_SHORT,
    SHORT_WINDOW,
    SPLIT,
    end_of_name,
    first_cut,
)
from .shortdoi import short_dois
from .syntaxes import syntax_of
from .tails import SHIELDS, shields_unescape

if TYPE_CHECKING:
    from types import ModuleType

    from .html import View
    from .pdftext import Evidence


def _pdf() -> ModuleType:
    """The PDF rules (spec §5), loaded with the first PDF text: plain text never needs them."""
    from . import pdftext

    return pdftext


# Span(...) runs a Python-level __new__; tuple.__new__ makes the same record without it.
_span = tuple.__new__


# The fast path, for the common case: an ASCII DOI with a 4+ digit registrant, no brackets, that
# ends in a letter or digit and is followed by closing brackets, quotes and sentence marks only,
# then whitespace; after nothing, a label, a URN/info prefix or a DOI resolver. For such a DOI
# every rule of spec §4 gives that same span, so it is taken at once; anything else goes
# through the full rules below. tests/test_fast_path.py checks that the two always agree.
# A second DOI after "," or ";" is looked for within the short window, as the full rules see it:
# its registrant bounded here, and a name that ends so is taken only when it ends early in that
# window (FAST_SPLIT_WITHIN); a longer one goes through the full rules (the cmatcher fuzz target
# found the unbounded lookahead seeing a "/" 2,000 characters on, past every window).
_FAST = re.compile(
    rf"10\.[0-9]{{4,9}}/[A-Za-z0-9._/:-]{{0,{MAX_DOI_CHARS - 20}}}[A-Za-z0-9]"
    r"(?=[)\]}>）］｝＞\"'”’»“›」….,:;!?*`]{0,8}(?:\s|\Z)"
    r"|[,;](?=(?ai:doi:)?10\.[0-9]{4,9}(?:\.[0-9]{1,9}){0,4}(?:/|%2[Ff])))"
)
FAST_SPLIT_WITHIN = SHORT_WINDOW - 64
# The text before the anchor, reversed: "/gro.iod//:sptth" is "https://doi.org/".
_FAST_LEFT_REV = re.compile(
    r"""(?iax)(?:
        (?P<dx>/gro\.iod\.xd(?:/{1,3}:s?ptth)?)
      | (?P<resolver>/gro\.iod(?:\.www)?(?:/{1,3}:s?ptth)?)
      | (?P<handle>/ten\.eldnah\.ldh(?:/{1,3}:s?ptth)?)
      | (?P<urn>:iod:nru)
      | (?P<info>/iod:ofni)
      | (?P<label>[ \t]{0,3}[:=]?[ \t]{0,3}iod)
      | (?P<bare>(?![\s\S]{0,21}iod))  # no "doi" in the 24 characters a spaced label may span
    )(?=(?u:[\s"'(\[{<>,;])|\Z)"""
)
FAST_PATH = True  # tests switch it off to check that both paths agree


def _doi_parameter(text: str, p: int, form: Form) -> bool:
    """Whether the DOI at `p` is a URL's `doi=` query parameter, which introduces a DOI as a label
    does (spec, Terms and §4: `search?doi=10.77/8801&lang=en`; URL context ends it at the `&`)."""
    before = text[p - 4 : p]
    return form is Form.OTHER_URL and before.isascii() and before.lower() == "doi="


class _Scanner:
    """One pass of the matcher over a text; PDF text may take a second pass with evidence."""

    def __init__(self, text: str, pdf: bool, allow_other_prefix: bool, stats: FindStats | None) -> None:
        self.text = text
        self.pdf = pdf
        self.allow_other_prefix = allow_other_prefix
        self.stats = stats
        self.uncertain: set[int] = set()  # PDF: starts of DOIs that ended at a guessed break
        self._run = (0, -1)  # (from, end) of the last run whose end was looked for (_long_run)
        self._pages: frozenset[int] | None = None

    def page_numbers(self) -> frozenset[int]:
        """PDF: the text's page numbers (pdftext.page_numbers), read when first asked."""
        if self._pages is None:
            self._pages = _pdf().page_numbers(self.text)
        return self._pages

    def scan(self, evidence: Evidence | None, after: int = 0) -> list[tuple[int, int, Form, str]]:
        """(start, end, form, name) for each DOI, in text order; `name` is the raw DOI name.
        Anchors before `after` are passed over, as after a hit that ended there."""
        text = self.text
        out: list[tuple[int, int, Form, str]] = []
        append = out.append
        last_end = after  # end of the last hit's first piece
        extra: list[tuple[int, int]] = []  # later pieces of DOIs joined across lines (PDF)
        fast = FAST_PATH and not self.pdf
        # ShortDOIs (spec §1) come from their own triggers, merged in by trigger position.
        shorts = short_dois(text, after)
        shorts.reverse()
        next_short = shorts[-1][0] if shorts else len(text)
        for m in pdf_anchor_matches(text) if self.pdf else ANCHOR.finditer(text):
            if m.start() > next_short:
                while shorts and shorts[-1][0] < m.start():
                    _t, s, e, key = shorts.pop()
                    append((s, e, Form.SHORT_DOI, key))
                next_short = shorts[-1][0] if shorts else len(text)
            sep = m.group(2)
            if sep is None:
                continue  # a run with no separator
            p = m.start()
            if p < last_end or (extra and any(a <= p < b for a, b in extra)):
                continue
            if fast:
                fm = _FAST.match(text, p)
                if fm is not None:
                    lm = _FAST_LEFT_REV.match(
                        text[p - 1 : p - 29 : -1] if p >= 29 else text[p - 1 :: -1] if p else ""
                    )
                    if lm is not None and (
                        fm.end() - p < FAST_SPLIT_WITHIN or text[fm.end() : fm.end() + 1] not in (",", ";")
                    ):
                        end = fm.end()
                        append((p - lm.end(), end, GROUP_FORMS[lm.lastgroup], fm.group()))  # type: ignore[index]
                        last_end = end
                        continue
            if self._empty_suffix(m.end(), m.end() - p):
                continue
            got = left_context(text, p, self.pdf)
            if got is None:
                continue
            form, start = got
            if sep == ":" and form is not Form.EIDR_URN:
                continue
            if form is Form.EIDR_URN and sep != ":":
                form = Form.URN
            if (
                form not in LABELLED
                and len(m.group(1).split(".", 1)[0]) < 4
                and not _doi_parameter(text, p, form)
            ):
                continue  # spec §2: bare 10.2.1/, 10.5/100 and IP ranges are not DOIs
            if form is Form.BARE and sep != "/":
                form = Form.PERCENT
            got_hit = self._extend(p, m.end(), form, start, evidence, m.r if isinstance(m, FarAnchor) else -1)
            if isinstance(got_hit, int):
                last_end = got_hit
                if self.stats is not None:
                    self.stats.dropped.append((p, got_hit))
            elif got_hit is not None:
                hit, pieces = got_hit
                append(hit)
                last_end = pieces[0][1]
                if len(pieces) > 1 or extra:
                    extra = [c for c in extra if c[1] > p] + pieces[1:]
        while shorts:
            _t, s, e, key = shorts.pop()
            append((s, e, Form.SHORT_DOI, key))
        if self.allow_other_prefix:
            out.extend(h for h in self._other_prefixes(out) if h[0] >= after)
            out.sort()
        elif extra:
            out.sort()
        return out

    def _empty_suffix(self, q: int, anchor: int) -> bool:
        """Whether the suffix from `q` is empty by its first character, whatever the form
        (spec §4): an unbalanced closing bracket, or a comma or semicolon before the next DOI.
        InputType before the left context, the costly part of an anchor (hostile runs of `10.1234/)`).
        Not for an anchor so long its candidate may be counted too long, nor in PDF text for a run
        that ends within the short window, where a join is tried and may mark its start a guess."""
        text = self.text
        c = text[q : q + 1]
        if not c or anchor > MAX_DOI_CHARS + SHORT_WINDOW - 1:
            return False
        if c not in CLOSE and not (c in ",;" and SPLIT.match(text, q, q + 64)):
            return False
        return not self.pdf or self._long_run(q)

    def _long_run(self, q: int) -> bool:
        """Whether the run from `q` holds more than SHORT_WINDOW + 1 characters (the short window
        ends inside it), its end found once for all the anchors in it."""
        start, end = self._run
        if not start <= q <= end:
            m = RUN_END.search(self.text, q)
            end = len(self.text) if m is None else m.start()
            self._run = (q, end)
        return end - q >= SHORT_WINDOW + 2

    def _extend(
        self, p: int, q: int, form: Form, start: int, evidence: Evidence | None, far: int = -1
    ) -> tuple[tuple[int, int, Form, str], list[tuple[int, int]]] | int | None:
        """Read right from the suffix start `q`: the hit and the spans it covers, None when there
        is no DOI, or an offset to skip to when the candidate was too long (spec §4). `far`: where
        the registrant's code of a `10.` cut from it starts (FarAnchor), or -1."""
        text = self.text
        anchor = text[p:q] if far < 0 else text[p : p + 3] + text[far:q]
        a = len(anchor)
        run = RUN_SHORT.match(text, q).group()  # type: ignore[union-attr]  # a starred pattern always matches
        if len(run) > SHORT_WINDOW and first_cut(anchor + run, form) >= a + SHORT_WINDOW:
            # No whitespace and no rule ended the name in the short window: read the whole window.
            run = RUN.match(text, q).group()  # type: ignore[union-attr]  # a starred pattern always matches
            if len(run) > MAX_DOI_CHARS and first_cut(anchor + run, form) >= a + MAX_DOI_CHARS:
                if self.stats is not None:
                    self.stats.too_long += 1
                # Dropped and counted, never truncated: nor is any later part of the same token.
                m = RUN_END.search(text, q + len(run))
                return len(text) if m is None else m.start()
        pieces = [(p, q + len(run))] if far < 0 else [(p, p + 3), (far, q + len(run))]
        if self.pdf:
            pieces, uncertain = _pdf().join_pieces(text, p, q, pieces, evidence, self.page_numbers)
            if uncertain:
                self.uncertain.add(start)
        logical = text[p : pieces[0][1]] if len(pieces) == 1 else "".join(text[a:b] for a, b in pieces)
        if len(logical) > MAX_DOI_CHARS + 2 * SHORT_WINDOW:
            if self.stats is not None:
                self.stats.too_long += 1
            return None
        url_before = text[start:p] if form.is_url else ""
        n = end_of_name(logical, form, url_before)
        if self.pdf:
            n = _pdf().glued_page_end(logical, n, a)
        if n <= a:
            return None  # empty suffix
        name = logical[:n]
        if url_before and form not in RESOLVERS and SHIELDS.search(url_before):
            name = shields_unescape(name)
        # Map the logical end back to an offset in the text.
        end = _map_end(pieces, n)
        if end < p:
            # the rest heads the page's other column, above the piece (layout.column_top): the
            # hit's text runs to the end of the last piece below its start
            end = max(b for a, b in pieces if a >= p)
        if form is Form.EIDR_URN:
            i = name.index(":")
            name = name[:i] + "/" + name[i + 1 :]
        return (start, end, form, name), [(a, min(b, end)) for a, b in pieces if a < end]

    def _other_prefixes(self, found: list[tuple[int, int, Form, str]]) -> list[tuple[int, int, Form, str]]:
        """Spec §2: prefixes other than 10. behind an explicit `doi:` label, when enabled."""
        text = self.text
        covered = [(s, e) for s, e, _, _ in found]
        out = []
        for m in OTHER_LABEL_ANCHOR.finditer(text):
            if any(s <= m.start() < e for s, e in covered):
                continue
            p = m.start(1)
            q = m.end()
            run = RUN.match(text, q).group()  # type: ignore[union-attr]  # a starred pattern always matches
            n = end_of_name(text[p : q + len(run)], Form.LABEL, "")
            if n <= q - p:
                continue
            out.append((m.start(), p + n, Form.LABEL, text[p : p + n]))
        return out


def _map_end(pieces: list[tuple[int, int]], n: int) -> int:
    for a, b in pieces:
        if n <= b - a:
            return a + n
        n -= b - a
    return pieces[-1][1]


def _hits(
    text: str, pdf: bool, allow_other_prefix: bool, stats: FindStats | None, after: int = 0
) -> list[tuple[int, int, Form, str]]:
    scanner = _Scanner(text, pdf, allow_other_prefix, stats)
    found = scanner.scan(None, after)
    if pdf and found and scanner.uncertain:
        # Spec §5: a break whose join was a guess is decided by what the document
        # says elsewhere — the same DOI unbroken, or DOIs of the same shape. Only a guess can
        # change, so a document without one is read once.
        ev = _pdf().Evidence(pages=scanner.page_numbers())
        for s, _e, _f, name in found:
            ev.add(canonical_key(name, True), s not in scanner.uncertain)
        found = _Scanner(text, pdf, allow_other_prefix, None).scan(ev, after)
    return found


class _KeyCache(dict[str, str]):
    """A raw name's key, with a plain dict in front of `compute`: the same raw name recurs
    thousands of times. Bounded like the LRU caches, so memory stays flat."""

    def __init__(self, compute: Callable[[str], str]) -> None:
        super().__init__()
        self.compute = compute

    def __missing__(self, name: str) -> str:
        if len(self) >= 1 << 14:
            self.clear()
        key = self[name] = self.compute(name)
        return key


_KEYS = _KeyCache(canonical_key)
# PDF text: look-alike dashes mapped and pdftotext's hyphens put back first.
_PDF_KEYS = _KeyCache(lambda name: fold_ascii(_pdf().rehyphenate(clean_name(name, True))))
# The same from a name's canonical key, for the C matcher (which computes that key): every
# rehyphenation rule ignores ASCII case, so it commutes with folding.
REHYPHENATED = _KeyCache(lambda name: _pdf().rehyphenate(name))


def clear_caches() -> None:
    """Forget the canonical keys of raw names seen (benchmarks measure with cold caches)."""
    _KEYS.clear()
    _PDF_KEYS.clear()
    REHYPHENATED.clear()
    canonical_key.cache_clear()
    clean_name.cache_clear()


def find_spans(
    text: str,
    kind: str = "plain",
    *,
    allow_other_prefix: bool = False,
    stats: FindStats | None = None,
    after: int = 0,
    syntax: str | None = None,
    derive: tuple[str, ...] = (),
) -> list[Span]:
    """(start, end, form, canonical DOI) of every DOI in `text`, in order: find_dois without
    building the raw strings, for callers that need the raw text of only some hits.

    `after` (plain and PDF text): anchors before it are passed over, as after a hit that ended
    there — a reader resuming in a window where the last window's hits ended reads the DOIs
    after it as the whole text does (a chain of PDF lines joined pairwise has one phase).
    `syntax` (spec §7: a name of syntaxes.SYNTAXES): the text is read through that syntax's
    views, by the plain rules, offsets mapped back to the source. `derive`: the sources of
    spec §8 (derive.DERIVED names) whose derived DOIs are hits too.
    A link read in views is one occurrence (spec §6, links.py)."""
    k = kind_of(kind)
    if after and (not k.resumes or syntax is not None):
        raise ValueError(f"after is for kinds read as they are; {kind} is read in views")
    if syntax is not None or k.views:
        if syntax is not None:
            views = syntax_of(syntax).views(text)
        else:
            from .html import html_views

            views = html_views(text)
        from .links import one_per_link

        spans = _with_derived(_view_spans(views, allow_other_prefix, stats), text, derive, syntax)
        return one_per_link(spans, [link for view in views for link in view.links])
    if k.pdf_rules:
        spans = [
            _span(Span, (s, e, form, _PDF_KEYS[name]))
            for s, e, form, name in _hits(text, True, allow_other_prefix, stats, after)
        ]
    else:
        spans = [
            _span(Span, (s, e, k.form or form, _KEYS[name]))
            for s, e, form, name in _hits(text, False, allow_other_prefix, stats, after)
        ]
    return _with_derived(spans, text, derive, syntax)


def _with_derived(spans: list[Span], text: str, derive: tuple[str, ...], syntax: str | None) -> list[Span]:
    """`spans` and the DOIs spec §8 derives from `derive`'s sources in `text`, in order of start."""
    if not derive:
        return spans
    from .derive import derived_spans  # spec §8, only when asked

    return sorted([*spans, *(Span(*d) for d in derived_spans(text, derive, syntax))], key=lambda s: s.start)


def _view_spans(views: list[View], allow_other_prefix: bool, stats: FindStats | None) -> list[Span]:
    """The plain rules' hits in each view, mapped back to the source, in order of start."""
    spans = []
    for view in views:
        for s, e, form, name in _hits(view.text, False, allow_other_prefix, stats):
            rs, re_ = view.to_raw(s, e)
            spans.append(_span(Span, (rs, re_, form, _KEYS[name])))
    spans.sort(key=lambda h: (h[0], h[1]))
    return spans


def find_dois(
    text: str,
    kind: str = "plain",
    *,
    allow_other_prefix: bool = False,
    stats: FindStats | None = None,
    syntax: str | None = None,
    derive: bool | str | Iterable[str] | None = None,
) -> Iterator[Hit]:
    """Every DOI in `text`, in order: offsets of the raw span, raw text, form and canonical DOI.

    `kind` is "plain", "html" (entities decoded, tags handled, attribute values and JSON-LD
    read) or "pdf" (text extracted from a PDF: broken DOIs joined, look-alike dashes mapped).
    `syntax` is a source syntax of spec §7 (syntaxes.SYNTAXES: "wikitext", "latex", "bibtex",
    "csv", "json", "markdown") whose delimiters a DOI never crosses and whose escapes are undone;
    None reads the text as prose. `derive` asks for the DOIs of spec §8 too (derive.DERIVED):
    True for every source, or some by name ("arxiv,zenodo", or a list), each a hit of form
    `derived-<source>`; none without it.
    """
    if derive:
        from .derive import derive_sources  # spec §8, only when asked

        sources = derive_sources(derive)
    else:
        sources = ()
    spans = find_spans(
        text, kind, allow_other_prefix=allow_other_prefix, stats=stats, syntax=syntax, derive=sources
    )
    for s, e, form, doi in spans:
        yield Hit(s, e, text[s:e], form, doi)
