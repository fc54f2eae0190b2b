"""The matcher: where in a text a DOI is, where it ends, and which DOI it is (spec §2–§5).

Anchor and expand: one fast scan finds every `10.<digits>/` (the literal every display form
contains), then a bounded window around each anchor is read — left for the label, resolver
or URL the DOI sits in, right for where it ends. Nothing here backtracks: every pattern is
applied to a window of bounded size, so time is linear in the input on any text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from .bounds import LEFT_WINDOW
from .canonical import canonical_key, clean_name, fold_ascii
from .forms import Form
from .hits import FindStats, Hit, Span
from .kinds import kind_of
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


# Every 10-prefix DOI: "10." + registrant digits (dot-subdivided) + "/" or "%2F". The ":" is
# for EIDR URNs (RFC 7972 swaps the first "/" for ":"); it is accepted only after urn:eidr:.
# The separator is optional in the pattern, so that a run with no separator is a match (group 2
# None) and the search goes on after it: the anchors inside such a run end where it ends, before
# the same character, and fail the same way; as a required group, each of them re-read the run
# (quadratic time on "10.10.10…").
_ANCHOR = re.compile(r"10\.([0-9]+(?:\.[0-9]+)*)(/|%2[Ff]|:)?")
# In PDF text a space or one line break (PDFium's are CRLF) may sit inside the prefix ("10. 1016/",
# "10.\n1371/");
# not before another "10.": "1–10. 10.1038/x" is a page range ending in 10, then a DOI (spec §2).
_ANCHOR_PDF = re.compile(
    r"10\.(?:(?:[ \t]+(?:\r?\n[ \t]*)?|\r?\n[ \t]*)(?!10\.[0-9]))?([0-9]+(?:\.[0-9]+)*)(?:[ \t]?(/|%2[Ff]|:))?"
)


class _FarAnchor(NamedTuple):
    """An anchor whose `10.` is cut from its registrant's code (pdftext.far_anchor): the code and
    separator at `r` on a line below, read as _ANCHOR_PDF's match would be."""

    p: int
    r: int
    q: int
    digits: str
    sep: str

    def start(self) -> int:
        return self.p

    def end(self) -> int:
        return self.q

    def group(self, i: int) -> str:
        return self.digits if i == 1 else self.sep


_CUT_TEN = re.compile(r"10\.(?=[ \t\r\n])")
_DIGITS = frozenset("0123456789")


def _pdf_anchor_matches(text: str) -> Iterator[re.Match[str] | _FarAnchor]:
    """_ANCHOR_PDF's matches; after a run with no separator the search goes on at its last "10."
    (in PDF text "10.10. 1016/" has an anchor that starts inside the run). A `10.` at a line end
    or column gap where no anchor with a separator starts is read with its registrant's code
    below, where there is one (pdftext.far_anchor)."""
    search = _ANCHOR_PDF.search
    cuts = _CUT_TEN.finditer(text)
    cut = next(cuts, None)
    pos = 0
    while True:
        m = search(text, pos)
        ms = len(text) if m is None else m.start()
        while cut is not None and cut.start() <= ms:
            c = cut.start()
            cut = next(cuts, None)
            if (
                c < pos
                or (c == ms and m is not None and m.group(2) in ("/", "%2F", "%2f"))
                or (c > 0 and text[c - 1] in _DIGITS)
            ):
                continue  # "410." ends a page range: glued to a digit, no DOI starts there (spec §2)
            far = _pdf().far_anchor(text, c)
            if far is not None:
                r, q = far
                sep = text[q - 1] if text[q - 1] == "/" else text[q - 3 : q]
                yield _FarAnchor(c, r, q, text[r : q - len(sep)], sep)
        if m is None:
            return
        yield m
        pos = m.end() if m.group(2) is not None else max(m.start() + 1, m.end() - 2)


def anchors(text: str, pdf: bool) -> Iterator[tuple[int, str, str, int]]:
    """(start, prefix digits, separator, end) of every `10.<digits>/` anchor, in order, in time
    linear in the text whatever it holds."""
    for m in _pdf_anchor_matches(text) if pdf else _ANCHOR.finditer(text):
        if m.group(2) is not None:
            yield m.start(), m.group(1), m.group(2), m.end()


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
    r"|[,;](?=(?i:doi:)?10\.[0-9]{4,9}(?:\.[0-9]{1,9}){0,4}(?:/|%2[Ff])))"
)
FAST_SPLIT_WITHIN = SHORT_WINDOW - 64
# The text before the anchor, reversed: "/gro.iod//:sptth" is "https://doi.org/".
_FAST_LEFT_REV = re.compile(
    r"""(?ix)(?:
        (?P<dx>/gro\.iod\.xd(?:/{1,3}:s?ptth)?)
      | (?P<resolver>/gro\.iod(?:\.www)?(?:/{1,3}:s?ptth)?)
      | (?P<handle>/ten\.eldnah\.ldh(?:/{1,3}:s?ptth)?)
      | (?P<urn>:iod:nru)
      | (?P<info>/iod:ofni)
      | (?P<label>[ \t]{0,3}[:=]?[ \t]{0,3}iod)
      | (?P<bare>(?![\s\S]{0,21}iod))  # no "doi" in the 24 characters a spaced label may span
    )(?=[\s"'(\[{<>,;]|\Z)"""
)
FAST_PATH = True  # tests switch it off to check that both paths agree
# The display form named by each group of the left-context patterns below.
GROUP_FORMS = {
    "dx": Form.DX_RESOLVER,
    "resolver": Form.RESOLVER,
    "handle": Form.HANDLE,
    "urn": Form.URN,
    "eidr": Form.EIDR_URN,
    "info": Form.INFO_URI,
    "pinfo": Form.PERCENT,
    "plabel": Form.PERCENT,
    "label": Form.LABEL,
    "bare": Form.BARE,
}

# Left context. Matched against the end of the token before the anchor.
LEFT_GLUED = re.compile(
    r"""(?ix)
    (?:
        (?P<dx>(?:https?:/{1,3})?dx\.doi\.org/)
      | (?P<resolver>(?:https?:/{1,3})?(?:www\.)?doi\.org/)
      | (?P<handle>(?:https?:/{1,3})?hdl\.handle\.net/)
      | (?P<urn>urn:doi:)
      | (?P<eidr>urn:eidr:)
      | (?P<info>info:doi/)
      | (?P<pinfo>info%3Adoi%2F)
      | (?P<plabel>(?<![a-z0-9])doi%3A)
      | (?P<label>(?<![a-z0-9/.%-])doi[ \t]*[:：=]?)
    )\Z"""
)
# A label and the DOI separated by whitespace, at most one line break (spec §2).
LEFT_SPACED_LABEL = re.compile(r"(?i)(?<![a-z0-9/.%-])doi[ \t]*[:：=]?[^\S\n]*\n?[^\S\n]*\Z")
# PDF text: a resolver whose DOI went to the next line or after a space.
LEFT_SPACED_RESOLVER = re.compile(
    r"(?i)(?:https?:/{1,3})?(?P<dx>dx\.)?(?:www\.)?doi\.org/[^\S\n]*\n?[^\S\n]*\Z"
)
# The token is a URL (scheme, www., or host/path) — the DOI then sits in a path or query —
# ... or a relative URL path (/doi/full/10.…, as publisher pages link).
URLISH = re.compile(
    r"(?i)(?:[a-z][a-z0-9+.-]*://|www\.|^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/|^/[a-z0-9._~%-]+/)"
)
BROKEN_RESOLVER = re.compile(
    r"(?i)(?:https?://)?(?:dx\.)?doi\.?[ \t]*\r?\n[ \t]*(?:\.?org/|doi\.org/)\Z|(?:https?://)?(?:dx\.)?doi\.[ \t]{3,}"
)
_PCT_BEFORE = re.compile(r"%([0-9A-Fa-f]{2})\Z")
# The characters LEFT_GLUED can end with in a token (no whitespace): its \Z makes the token's
# last character tell at once that it cannot match (IGNORECASE: i also matches U+0130, U+0131).
_GLUED_LAST = frozenset("/:fFaAiI\u0130\u0131\uff1a=")
_WWW = re.compile(r"(?i)www\.")


def _urlish(token: str) -> bool:
    """URLISH.search(token), its unanchored alternatives searched only when the token holds
    what they need ("://", "www."): a long token's left context read in a few µs, not 40."""
    if "://" in token or _WWW.search(token):
        return URLISH.search(token) is not None
    return URLISH.match(token) is not None


# A token read backwards from the anchor (the window is reversed, so the match is a prefix).
_TOKEN_REV = re.compile(r"""[^\s"'(\[{<>,;]*""")
_TOKEN_STOPS = frozenset("\"'([{<>,;")  # _TOKEN_REV's stops besides whitespace (\s is str.isspace)

_OTHER_LABEL_ANCHOR = re.compile(
    r"(?i)(?<![a-z0-9/.%-])doi[ \t]*:[ \t]*(?!10\.[0-9]+(?:\.[0-9]+)*(?:/|%2F))([^\s/\"]{1,64})/"
)


# Span(...) runs a Python-level __new__; tuple.__new__ makes the same record without it.
_span = tuple.__new__


def _left_context(text: str, p: int, pdf: bool) -> tuple[Form, int] | None:
    """The display form of the DOI whose `10.` is at `p`, and where its display text starts.

    None when the anchor is glued to a preceding letter or digit (spec §2) and no label or
    resolver explains it.
    """
    if not p or text[p - 1].isspace() or text[p - 1] in _TOKEN_STOPS:
        return _spaced_left(text, p, pdf)  # no token glued to the anchor (_TOKEN_REV's empty match)
    lo = max(0, p - 64)
    window = text[lo:p]
    # The token glued to the anchor: back to the last whitespace or opening delimiter.
    tlen = _TOKEN_REV.match(window[::-1]).end()  # type: ignore[union-attr]  # a starred pattern always matches
    if tlen == len(window) and lo > 0:
        lo = max(0, p - LEFT_WINDOW)
        window = text[lo:p]
        tlen = _TOKEN_REV.match(window[::-1]).end()  # type: ignore[union-attr]  # a starred pattern always matches
    ts = len(window) - tlen
    token = window[ts:]
    if token and token not in (":", "：", "="):
        tail = token[-40:]
        m = LEFT_GLUED.search(tail) if tail[-1] in _GLUED_LAST else None
        if m is not None:
            start = p - (len(tail) - m.start())
            kind = m.lastgroup
            if kind != "label":
                return GROUP_FORMS[kind], start  # type: ignore[index]
            # A glued "doi=" in a URL is a query parameter, not a label.
            if _urlish(token):
                return Form.OTHER_URL, p - len(token)
            return Form.LABEL, start
        if _urlish(token):
            prev = token[-1]
            if prev in "/=" or _PCT_BEFORE.search(token):
                return Form.OTHER_URL, p - len(token)
            if prev.isalnum() or (prev == "." and len(token) > 1 and "0" <= token[-2] <= "9"):
                return None  # spec §2: glued to a letter or digit, or to a number and dot (/19.10.2019/)
            return Form.OTHER_URL, p - len(token)
        prev = token[-1]
        pm = _PCT_BEFORE.search(token)
        if pm is not None:
            # Spec §2: the glue test looks at the character before `10.` after percent-decoding.
            dec = chr(int(pm.group(1), 16))
            if dec.isalnum():
                return None
            return Form.PERCENT, p
        if prev.isalnum() or prev in "_-.":
            # "110.1234/5", "v10.1234/5", "1.10.1234/5": not a DOI start (spec §2).
            return None
        if (
            pdf
            and token.lower() in ("org/", ".org/", "doi.org/")
            and BROKEN_RESOLVER.search(text, max(0, p - 300), p)
        ):
            # PDF text: "https://doi.\norg/10.…", a resolver broken across a line or column.
            return Form.RESOLVER, p - len(token)
        return Form.BARE, p
    return _spaced_left(text, p, pdf)


def _spaced_left(text: str, p: int, pdf: bool) -> tuple[Form, int]:
    """Whitespace (or nothing, or a lone ":") before the anchor: a spaced label, or bare. Both
    patterns hold "do" (no other character folds to d or o): most anchors are bare at once."""
    tail = text[max(0, p - 48) : p]
    if "do" not in tail.lower():
        return Form.BARE, p
    m = LEFT_SPACED_LABEL.search(tail[-24:])
    if m is not None:
        return Form.LABEL, p - (len(tail[-24:]) - m.start())
    if pdf:
        m = LEFT_SPACED_RESOLVER.search(tail)
        if m is not None:
            form = Form.DX_RESOLVER if m.group("dx") else Form.RESOLVER
            return form, p - (len(tail) - m.start())
    return Form.BARE, p


# Forms after which a registrant code of 1+ digits is accepted (spec §2); elsewhere 4+.
_LABELLED = frozenset(
    {Form.LABEL, Form.RESOLVER, Form.DX_RESOLVER, Form.HANDLE, Form.URN, Form.EIDR_URN, Form.INFO_URI}
)


class _Scanner:
    """One pass of the matcher over a text; PDF text may take a second pass with evidence."""

    def __init__(self, text: str, pdf: bool, allow_other_prefix: bool, stats: FindStats | None) -> None:
        self.text = text
        self.pdf = pdf
        self.allow_other_prefix = allow_other_prefix
        self.stats = stats
        self.uncertain: set[int] = set()  # PDF: starts of DOIs that ended at a guessed break
        self._run = (0, -1)  # (from, end) of the last run whose end was looked for (_long_run)

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
        for m in _pdf_anchor_matches(text) if self.pdf else _ANCHOR.finditer(text):
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
            got = _left_context(text, p, self.pdf)
            if got is None:
                continue
            form, start = got
            if sep == ":" and form is not Form.EIDR_URN:
                continue
            if form is Form.EIDR_URN and sep != ":":
                form = Form.URN
            if form not in _LABELLED and len(m.group(1).split(".", 1)[0]) < 4:
                continue  # spec §2: bare 10.2.1/, 10.5/100 and IP ranges are not DOIs
            if form is Form.BARE and sep != "/":
                form = Form.PERCENT
            got_hit = self._extend(
                p, m.end(), form, start, evidence, m.r if isinstance(m, _FarAnchor) else -1
            )
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
        Told before the left context, the costly part of an anchor (hostile runs of `10.1234/)`).
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
        the registrant's code of a `10.` cut from it starts (_FarAnchor), or -1."""
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
            pieces, uncertain = _pdf().join_pieces(text, p, q, pieces, evidence)
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
        if form is Form.EIDR_URN:
            i = name.index(":")
            name = name[:i] + "/" + name[i + 1 :]
        return (start, end, form, name), [(a, min(b, end)) for a, b in pieces if a < end]

    def _other_prefixes(self, found: list[tuple[int, int, Form, str]]) -> list[tuple[int, int, Form, str]]:
        """Spec §2: prefixes other than 10. behind an explicit `doi:` label, when enabled."""
        text = self.text
        covered = [(s, e) for s, e, _, _ in found]
        out = []
        for m in _OTHER_LABEL_ANCHOR.finditer(text):
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
        ev = _pdf().Evidence()
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
