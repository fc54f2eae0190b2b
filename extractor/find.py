"""The matcher: where in a text a DOI is, where it ends, and which DOI it is (spec §2–§5).

Anchor and expand: one fast scan finds every `10.<digits>/` (the literal every display form
contains), then a bounded window around each anchor is read — left for the label, resolver
or URL the DOI sits in, right for where it ends. Nothing here backtracks: every pattern is
applied to a window of bounded size, so time is linear in the input on any text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from . import _cscan
from . import pdf as pdf_repair
from .canonical import FORMAT_CHARS, canonical_key, clean_name, fold_ascii
from .forms import FORMS, Form
from .tails import strip_tails

KINDS = ("plain", "html", "pdf")

# Spec §4: the extractor may bound its window per candidate (at least 1,000 characters); a
# longer candidate is dropped and counted, never truncated.
MAX_DOI_CHARS = 2000
_LEFT_WINDOW = 512

# Every 10-prefix DOI: "10." + registrant digits (dot-subdivided) + "/" or "%2F". The ":" is
# for EIDR URNs (RFC 7972 swaps the first "/" for ":"); it is accepted only after urn:eidr:.
_ANCHOR = re.compile(r"10\.([0-9]+(?:\.[0-9]+)*)(/|%2[Ff]|:)")
# In PDF text a space or one line break may sit inside the prefix ("10. 1016/", "10.\n1371/").
_ANCHOR_PDF = re.compile(r"10\.[ \t]*(?:\n[ \t]*)?([0-9]+(?:\.[0-9]+)*)[ \t]?(/|%2[Ff]|:)")

# The run of characters a DOI can span: whitespace and the straight double quote end it (§4),
# and so do control characters, which are never in a DOI (NISO Z39.84-2005 §4.1).
_RUN = re.compile(rf'[^\s"\x00-\x1f\x7f-\x9f]{{0,{MAX_DOI_CHARS + 1}}}')
_RUN_END = re.compile(r'[\s"\x00-\x1f\x7f-\x9f]')
# Most DOIs end within a short window: it is read first, the whole one only when needed.
_SHORT_WINDOW = 256
_RUN_SHORT = re.compile(rf'[^\s"\x00-\x1f\x7f-\x9f]{{0,{_SHORT_WINDOW + 1}}}')

# The fast path, for the common case: an ASCII DOI with a 4+ digit registrant, no brackets, that
# ends in a letter or digit and is followed by closing brackets, quotes and sentence marks only,
# then whitespace; after nothing, a label, a URN/info prefix or a DOI resolver. For such a DOI
# every rule of spec §4 gives that same span, so it is taken at once; anything else goes
# through the full rules below. tests/test_fast_path.py checks that the two always agree.
_FAST = re.compile(
    rf"10\.[0-9]{{4,9}}/[A-Za-z0-9._/:-]{{0,{MAX_DOI_CHARS - 20}}}[A-Za-z0-9]"
    r"(?=[)\]}>）］｝＞\"'”’»“›」….,:;!?*`]{0,8}(?:\s|\Z)|[,;](?=(?i:doi:)?10\.[0-9]{4,}(?:\.[0-9]+)*(?:/|%2[Ff])))"
)
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
_GROUP_FORMS = {
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
_LEFT_GLUED = re.compile(
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
_LEFT_SPACED_LABEL = re.compile(r"(?i)(?<![a-z0-9/.%-])doi[ \t]*[:：=]?[^\S\n]*\n?[^\S\n]*\Z")
# PDF text: a resolver whose DOI went to the next line or after a space.
_LEFT_SPACED_RESOLVER = re.compile(
    r"(?i)(?:https?:/{1,3})?(?P<dx>dx\.)?(?:www\.)?doi\.org/[^\S\n]*\n?[^\S\n]*\Z"
)
# The token is a URL (scheme, www., or host/path) — the DOI then sits in a path or query —
# ... or a relative URL path (/doi/full/10.…, as publisher pages link).
_URLISH = re.compile(r"(?i)(?:[a-z][a-z0-9+.-]*://|www\.|^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/|^/[a-z0-9._~%-]+/)")
_BROKEN_RESOLVER = re.compile(r"(?i)(?:https?://)?(?:dx\.)?doi\.?[ \t]*\n[ \t]*(?:\.?org/|doi\.org/)\Z|(?:https?://)?(?:dx\.)?doi\.[ \t]{3,}")
_PCT_BEFORE = re.compile(r"%([0-9A-Fa-f]{2})\Z")
# A token read backwards from the anchor (the window is reversed, so the match is a prefix).
_TOKEN_REV = re.compile(r"""[^\s"'(\[{<>,;]*""")

# Spec §2: ",10.1234/" or ";10.1234/" inside a candidate starts a second DOI.
_SPLIT = re.compile(r"[,;](?=(?:doi:)?10\.[0-9]{4,}(?:\.[0-9]+)*(?:/|%2[Ff]))", re.I)
# A `?` that starts query syntax (`?name=`) ends a DOI outside URL context (spec §4).
_QUERY = re.compile(r"\?(?=[A-Za-z_][A-Za-z0-9_.-]*=)")
# An HTML/XML tag in plain text ends a DOI: SICI DOIs have "<" before digits, never "</x" or "<x>".
_TAGLIKE = re.compile(r"<(?=/?[A-Za-z][A-Za-z0-9:_.-]*(?:[\s/>]|\Z))")  # XML names: </article-id>

_OPEN = "([{<（［｛＜"
_CLOSE = ")]}>）］｝＞"
_PAIR = dict(zip(_CLOSE, _OPEN, strict=True))
_HAS_CLOSER = re.compile("[" + re.escape(_CLOSE) + "]")
# Spec §4: trailing punctuation and closing quotes are stripped, repeatedly; so are an ellipsis
# and Markdown's emphasis and code marks (**doi:10.1000/182**), which no DOI ends with.
_TRAILING = frozenset(".,;:!?\"'”’»“›」…*`" + FORMAT_CHARS)
_URL_STOPS = re.compile(r"[?#&]")
_URN_STOPS = re.compile(r"[?#]")

_OTHER_LABEL_ANCHOR = re.compile(
    r"(?i)(?<![a-z0-9/.%-])doi[ \t]*:[ \t]*(?!10\.[0-9]+(?:\.[0-9]+)*(?:/|%2F))([^\s/\"]{1,64})/"
)


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


@dataclass(slots=True)
class _Evidence:
    """What a PDF document says about its own DOIs, for deciding line-break joins (spec §5)."""

    dois: set[str] = field(default_factory=set)
    shapes: set[str] = field(default_factory=set)
    parents: set[str] = field(default_factory=set)

    def add(self, key: str, certain: bool) -> None:
        self.dois.add(key)
        if certain:
            self.shapes.add(pdf_repair.shape_of(key))
        slash = key.find("/")
        for i in range(slash + 2, len(key)):
            if key[i] in "./":
                self.parents.add(key[:i])

    def extends(self, key: str) -> bool:
        """True when `key` is a whole-component prefix of a DOI seen, as a parent of its
        figure or table DOIs (10.1371/journal.pone.0046041 of …0046041.t001)."""
        return key in self.parents


def _left_context(text: str, p: int, pdf: bool) -> tuple[Form, int] | None:
    """The display form of the DOI whose `10.` is at `p`, and where its display text starts.

    None when the anchor is glued to a preceding letter or digit (spec §2) and no label or
    resolver explains it.
    """
    lo = max(0, p - 64)
    window = text[lo:p]
    # The token glued to the anchor: back to the last whitespace or opening delimiter.
    tlen = _TOKEN_REV.match(window[::-1]).end()
    if tlen == len(window) and lo > 0:
        lo = max(0, p - _LEFT_WINDOW)
        window = text[lo:p]
        tlen = _TOKEN_REV.match(window[::-1]).end()
    ts = len(window) - tlen
    token = window[ts:]
    if token and token not in (":", "：", "="):
        tail = token[-40:]
        m = _LEFT_GLUED.search(tail)
        if m is not None:
            start = p - (len(tail) - m.start())
            kind = m.lastgroup
            if kind != "label":
                return _GROUP_FORMS[kind], start  # type: ignore[index]
            # A glued "doi=" in a URL is a query parameter, not a label.
            if _URLISH.search(token):
                return Form.OTHER_URL, p - len(token)
            return Form.LABEL, start
        if _URLISH.search(token):
            prev = token[-1]
            if prev in "/=" or _PCT_BEFORE.search(token):
                return Form.OTHER_URL, p - len(token)
            if prev.isalnum():
                return None
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
        if pdf and token.lower() in ("org/", ".org/", "doi.org/") and _BROKEN_RESOLVER.search(text, max(0, p - 300), p):
            # PDF text: "https://doi.\norg/10.…", a resolver broken across a line or column.
            return Form.RESOLVER, p - len(token)
        return Form.BARE, p
    # Whitespace (or nothing, or a lone ":") before the anchor: a spaced label, or bare.
    m = _LEFT_SPACED_LABEL.search(window[-24:])
    if m is not None:
        return Form.LABEL, p - (len(window[-24:]) - m.start())
    if pdf:
        m = _LEFT_SPACED_RESOLVER.search(window[-48:])
        if m is not None:
            form = Form.DX_RESOLVER if m.group("dx") else Form.RESOLVER
            return form, p - (len(window[-48:]) - m.start())
    return Form.BARE, p


# Forms after which a registrant code of 1+ digits is accepted (spec §2); elsewhere 4+.
_LABELLED = frozenset(
    {Form.LABEL, Form.RESOLVER, Form.DX_RESOLVER, Form.HANDLE, Form.URN, Form.EIDR_URN, Form.INFO_URI}
)


# DOI resolvers serve the DOI itself: no publisher tails after it, only a path's trailing slash.
_RESOLVERS = frozenset({Form.RESOLVER, Form.DX_RESOLVER, Form.HANDLE})


def _cut_brackets(s: str) -> int:
    """Index of the first closing bracket that closes nothing opened inside `s`, else len(s)."""
    if not _HAS_CLOSER.search(s):
        return len(s)
    stack: list[str] = []
    for i, ch in enumerate(s):
        if ch in _OPEN:
            stack.append(ch)
        elif ch in _PAIR:
            if stack and stack[-1] == _PAIR[ch]:
                stack.pop()
            else:
                return i
    return len(s)


def _first_cut(s: str, form: Form) -> int:
    """Where the first rule of spec §4 that reads left to right ends the name in `s`, else len(s)."""
    end = len(s)
    if form.is_url:
        m = _URL_STOPS.search(s)
    elif form in (Form.URN, Form.EIDR_URN):
        m = _URN_STOPS.search(s)  # URN F-, Q- and R-components (URN registration 2020)
    else:
        m = _QUERY.search(s)
    if m is not None:
        end = m.start()
    m = _SPLIT.search(s, 0, end)
    if m is not None:
        end = m.start()
    m = _TAGLIKE.search(s, 0, end)
    if m is not None:
        end = m.start()
    return _cut_brackets(s[:end])


def end_of_name(s: str, form: Form, url_before: str) -> int:
    """Length of the DOI name at the start of `s` (a run from `10.` to whitespace), per spec §4."""
    end = _first_cut(s, form)
    while end and s[end - 1] in _TRAILING:
        end -= 1
    if form.is_url and end:
        end = len(strip_tails(s[:end], url_before, publisher=form not in _RESOLVERS))
        while end and s[end - 1] in _TRAILING:
            end -= 1
    return end


class _Scanner:
    """One pass of the matcher over a text; PDF text may take a second pass with evidence."""

    def __init__(self, text: str, pdf: bool, allow_other_prefix: bool, stats: FindStats | None) -> None:
        self.text = text
        self.pdf = pdf
        self.allow_other_prefix = allow_other_prefix
        self.stats = stats
        self.uncertain: set[int] = set()  # PDF: starts of DOIs that ended at a guessed break

    def scan(self, evidence: _Evidence | None) -> list[tuple[int, int, Form, str]]:
        """(start, end, form, name) for each DOI, in text order; `name` is the raw DOI name."""
        text = self.text
        out: list[tuple[int, int, Form, str]] = []
        append = out.append
        last_end = 0  # end of the last hit's first piece
        extra: list[tuple[int, int]] = []  # later pieces of DOIs joined across lines (PDF)
        anchor = _ANCHOR_PDF if self.pdf else _ANCHOR
        fast = FAST_PATH and not self.pdf
        for m in anchor.finditer(text):
            p = m.start()
            if p < last_end or (extra and any(a <= p < b for a, b in extra)):
                continue
            if fast:
                fm = _FAST.match(text, p)
                if fm is not None:
                    lm = _FAST_LEFT_REV.match(text[p - 1 : p - 29 : -1] if p >= 29 else text[p - 1 :: -1] if p else "")
                    if lm is not None:
                        end = fm.end()
                        append((p - lm.end(), end, _GROUP_FORMS[lm.lastgroup], fm.group()))  # type: ignore[index]
                        last_end = end
                        continue
            sep = m.group(2)
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
            got_hit = self._extend(p, m.end(), form, start, evidence)
            if isinstance(got_hit, int):
                last_end = got_hit
            elif got_hit is not None:
                hit, pieces = got_hit
                append(hit)
                last_end = pieces[0][1]
                if len(pieces) > 1 or extra:
                    extra = [c for c in extra if c[1] > p] + pieces[1:]
        if self.allow_other_prefix:
            out.extend(self._other_prefixes(out))
            out.sort()
        elif extra:
            out.sort()
        return out

    def _extend(
        self, p: int, q: int, form: Form, start: int, evidence: _Evidence | None
    ) -> tuple[tuple[int, int, Form, str], list[tuple[int, int]]] | int | None:
        """Read right from the suffix start `q`: the hit and the spans it covers, None when there
        is no DOI, or an offset to skip to when the candidate was too long (spec §4)."""
        text = self.text
        run = _RUN_SHORT.match(text, q).group()
        if len(run) > _SHORT_WINDOW and _first_cut(text[p:q] + run, form) >= q - p + _SHORT_WINDOW:
            # No whitespace and no rule ended the name in the short window: read the whole window.
            run = _RUN.match(text, q).group()
            if len(run) > MAX_DOI_CHARS and _first_cut(text[p:q] + run, form) >= q - p + MAX_DOI_CHARS:
                if self.stats is not None:
                    self.stats.too_long += 1
                # Dropped and counted, never truncated: nor is any later part of the same token.
                m = _RUN_END.search(text, q + len(run))
                return len(text) if m is None else m.start()
        pieces = [(p, q + len(run))]
        if self.pdf:
            pieces, uncertain = pdf_repair.join_pieces(text, p, q, pieces, evidence)
            if uncertain:
                self.uncertain.add(start)
        logical = "".join(text[a:b] for a, b in pieces)
        if len(logical) > MAX_DOI_CHARS + 2 * _SHORT_WINDOW:
            if self.stats is not None:
                self.stats.too_long += 1
            return None
        url_before = text[start:p] if form.is_url else ""
        n = end_of_name(logical, form, url_before)
        if n <= q - p:
            return None  # empty suffix
        name = logical[:n]
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
            run = _RUN.match(text, q).group()
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
    text: str, pdf: bool, allow_other_prefix: bool, stats: FindStats | None
) -> list[tuple[int, int, Form, str]]:
    scanner = _Scanner(text, pdf, allow_other_prefix, stats)
    found = scanner.scan(None)
    if pdf and found and scanner.uncertain:
        # Spec §5 / issue 4: a break whose join was a guess is decided by what the document
        # says elsewhere — the same DOI unbroken, or DOIs of the same shape. Only a guess can
        # change, so a document without one is read once.
        ev = _Evidence()
        for s, _e, _f, name in found:
            ev.add(canonical_key(name, True), s not in scanner.uncertain)
        found = _Scanner(text, pdf, allow_other_prefix, None).scan(ev)
    return found


_KEYS: dict[str, str] = {}


def _key(name: str) -> str:
    """canonical_key with a plain dict in front: the same raw name recurs thousands of times."""
    key = _KEYS.get(name)
    if key is None:
        if len(_KEYS) >= 1 << 14:  # bounded like the LRU caches: memory stays flat
            _KEYS.clear()
        key = _KEYS[name] = canonical_key(name)
    return key


def find_spans(
    text: str, kind: str = "plain", *, allow_other_prefix: bool = False, stats: FindStats | None = None
) -> list[tuple[int, int, Form, str]]:
    """(start, end, form, canonical DOI) of every DOI in `text`, in order: find_dois without
    building the raw strings, for callers that need the raw text of only some hits."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    if kind == "html":
        from .html import html_views

        spans = []
        for view in html_views(text):
            for s, e, form, name in _hits(view.text, False, allow_other_prefix, stats):
                rs, re_ = view.to_raw(s, e)
                spans.append((rs, re_, form, _key(name)))
        spans.sort(key=lambda h: (h[0], h[1]))
        return spans
    if kind == "pdf":
        return [
            (s, e, form, fold_ascii(pdf_repair.rehyphenate(clean_name(name, True))))
            for s, e, form, name in _hits(text, True, allow_other_prefix, stats)
        ]
    return [(s, e, form, _key(name)) for s, e, form, name in _hits(text, False, allow_other_prefix, stats)]


def find_spans_utf8(data: bytes) -> list[tuple[int, int, Form, str]]:
    """find_spans for plain text given as UTF-8 bytes, with byte offsets: the same rules, run by
    the C matcher on the bytes themselves (invalid bytes read as U+FFFD)."""
    hits: list[tuple[int, int, int, str, str]] = []
    _cscan.scan(data, 0, len(data), 0, len(data), 0, None, hits)
    return [(s, e, FORMS[f], d) for s, e, f, d, _raw in hits]


def find_dois(
    text: str,
    kind: str = "plain",
    *,
    allow_other_prefix: bool = False,
    stats: FindStats | None = None,
) -> Iterator[Hit]:
    """Every DOI in `text`, in order: offsets of the raw span, raw text, form and canonical DOI.

    `kind` is "plain", "html" (entities decoded, tags handled, attribute values and JSON-LD
    read) or "pdf" (text extracted from a PDF: broken DOIs joined, look-alike dashes mapped).
    """
    for s, e, form, doi in find_spans(text, kind, allow_other_prefix=allow_other_prefix, stats=stats):
        yield Hit(s, e, text[s:e], form, doi)


_ID_PREFIX = re.compile(
    r"""(?ix)\A(?:
        (?P<dx>(?:https?://)?dx\.doi\.org/)
      | (?P<resolver>(?:https?://)?(?:www\.)?doi\.org/)
      | (?P<handle>(?:https?://)?hdl\.handle\.net/)
      | (?P<urn>urn:doi:)
      | (?P<eidr>urn:eidr:)
      | (?P<info>info:doi/)
      | (?P<pinfo>info%3Adoi%2F)
      | (?P<plabel>doi%3A)
      | (?P<label>doi[ \t]*[:：=]?[ \t]*)
    )?"""
)
_ID_NAME = re.compile(r"10\.[0-9]+(?:\.[0-9]+)*(?:/|%2[Ff])")
_ID_EIDR = re.compile(r"10\.[0-9]+(?:\.[0-9]+)*:")
_ID_OTHER = re.compile(r"[^/\s]+/")
def parse_identifier(s: str, *, allow_other_prefix: bool = False) -> str | None:
    """The DOI name (cleaned, percent-decoded, case kept) of `s`, one identifier, or None."""
    s = s.strip()
    m = _ID_PREFIX.match(s)
    form = _GROUP_FORMS.get(m.lastgroup or "bare", Form.BARE) if m else Form.BARE
    rest = s[m.end() :] if m else s
    if any(ch.isspace() for ch in rest):
        return None  # spec §4: whitespace ends a DOI; one identifier has none
    if form is Form.EIDR_URN:
        em = _ID_EIDR.match(rest)
        if em is None:
            return None
        rest = rest[: em.end() - 1] + "/" + rest[em.end() :]
        form = Form.URN
    nm = _ID_NAME.match(rest)
    if nm is None:
        if allow_other_prefix and form in (Form.LABEL, Form.URN, Form.INFO_URI) and _ID_OTHER.match(rest):
            nm = _ID_OTHER.match(rest)
        elif _URLISH.search(s):
            # A publisher or other URL with a DOI in its path or query.
            for hit in find_dois(s):
                if hit.start == 0 or hit.form.is_url:
                    return clean_name(_name_from_hit(hit))
            return None
        else:
            return None
    assert nm is not None
    end = len(rest)
    if form.is_url or form in (Form.URN, Form.EIDR_URN):
        end = end_of_name(rest, form, s[: m.end()] if m else "")
    if end <= nm.end():
        return None
    return clean_name(rest[:end])


def _name_from_hit(hit: Hit) -> str:
    """The raw DOI name inside a hit: from its `10.` to its end."""
    i = hit.raw.find("10.")
    return hit.raw[i:]
