"""Where a DOI ends (spec §4): the run a DOI can span and the end rules applied to it.

Shared by the matcher (matcher.py) and the PDF repair (pdftext/), and mirrored by the C matcher,
whose tables native.py checks against these at import.
"""

from __future__ import annotations

import re

from .bounds import MAX_DOI_CHARS, SHORT_WINDOW
from .canonical import FORMAT_CHARS
from .emoji import emoji_class
from .forms import Form
from .tails import DOI_PATH_MARKER, FILE_STORE, SHIELDS, shields_end, strip_tails

# The run of characters a DOI can span: whitespace and the straight double quote end it (§4),
# and so do control characters, which are never in a DOI (NISO Z39.84-2005 §4.1), and lone
# surrogates, which are no Unicode characters at all (only a str built by hand holds them; text
# read by the pipeline has them as U+FFFD already).
RUN = re.compile(rf'[^\s"\x00-\x1f\x7f-\x9f\ud800-\udfff]{{0,{MAX_DOI_CHARS + 1}}}')
RUN_END = re.compile(r'[\s"\x00-\x1f\x7f-\x9f\ud800-\udfff]')
RUN_SHORT = re.compile(rf'[^\s"\x00-\x1f\x7f-\x9f\ud800-\udfff]{{0,{SHORT_WINDOW + 1}}}')

# Spec §2: ",10.1234/" or ";10.1234/" inside a candidate starts a second DOI.
SPLIT = re.compile(r"[,;](?=(?:doi:)?10\.[0-9]{4,}(?:\.[0-9]+)*(?:/|%2[Ff]))", re.I | re.A)
# A `?` that starts query syntax (`?name=`) ends a DOI outside URL context (spec §4).
_QUERY = re.compile(r"\?(?=[A-Za-z_][A-Za-z0-9_.-]*=)")
# An HTML/XML tag in plain text ends a DOI: SICI DOIs have "<" before digits, never "</x" or "<x>".
_TAGLIKE = re.compile(r"<(?=/?[A-Za-z][A-Za-z0-9:_.-]*(?:[\s/>]|\Z))")  # XML names: </article-id>

# Spec §4: balanced brackets are part of a DOI (the SICI DOIs of NISO Z39.84-2005 §4.2).
OPEN = "([{<（［｛＜"
CLOSE = ")]}>）］｝＞"
_PAIR = dict(zip(CLOSE, OPEN, strict=True))
_HAS_CLOSER = re.compile("[" + re.escape(CLOSE) + "]")
# Spec §4: trailing punctuation and closing quotes are stripped, repeatedly; so are an ellipsis
# and Markdown's emphasis and code marks (**doi:10.1000/182**), which no DOI ends with.
TRAILING = frozenset(".,;:!?\"'”’»“›」…*`" + FORMAT_CHARS)
# Spec §4: ";key:" or ";key=" — the key-value lists of page metadata and ad targeting
# (;journal:jmcmar, ;subjmeta=…) — ends a DOI; SICI's ";2-X" does not (a digit follows).
_KEY_VALUE = re.compile(r";(?=[A-Za-z][A-Za-z0-9_-]*[:=])")
# Spec §4: what a broken text extraction leaves ends a DOI: U+FFFD, private-use code points
# (the BMP's and planes 15-16), pdfminer's (cid:N); and so does an emoji (Extended_Pictographic,
# a regional indicator: emoji.py), which posts and chats put right after a link.
EMOJI = emoji_class()
DEBRIS = re.compile(r"[\ufffd\ue000-\uf8ff\U000f0000-\U0010ffff" + EMOJI + r"]|\(cid:[0-9]+\)")
# Both in one search: the first of either is where they end a name.
_KEY_VALUE_OR_DEBRIS = re.compile(f"{_KEY_VALUE.pattern}|{DEBRIS.pattern}")
# In URL context `?`, `#` and `&` end a DOI, and so does a query nested in a parameter's value,
# percent-encoded: `%26` then a key and `%3D` (spec §4: …&t=pos%3Dtop%26doi%3D10.1038/x%26subjmeta%3D479).
_URL_STOPS = re.compile(r"[?#&]|%26(?=[A-Za-z][A-Za-z0-9_-]*%3[Dd])")
_URN_STOPS = re.compile(r"[?#]")

# DOI resolvers serve the DOI itself: no publisher tails after it, only a path's trailing slash.
RESOLVERS = frozenset({Form.RESOLVER, Form.DX_RESOLVER, Form.HANDLE})


def _cut_brackets(s: str) -> int:
    """Index of the first closing bracket that closes nothing opened inside `s`, else len(s)."""
    if not _HAS_CLOSER.search(s):
        return len(s)
    stack: list[str] = []
    for i, ch in enumerate(s):
        if ch in OPEN:
            stack.append(ch)
        elif ch in _PAIR:
            if stack and stack[-1] == _PAIR[ch]:
                stack.pop()
            else:
                return i
    return len(s)


# Every character at which some rule of first_cut can end a name: a name with none of them (most)
# is whole after one search (the C matcher's cut_class mask does the same).
_ANY_CUT = re.compile(
    r"[?#&%,;<()\[\]{}>" + re.escape(CLOSE) + r"\ufffd\ue000-\uf8ff\U000f0000-\U0010ffff" + EMOJI + "]"
)


def first_cut(s: str, form: Form) -> int:
    """Where the first rule of spec §4 that reads left to right ends the name in `s`, else len(s)."""
    end = len(s)
    if _ANY_CUT.search(s) is None:
        return end
    if form.is_url:
        m = _URL_STOPS.search(s)
    elif form in (Form.URN, Form.EIDR_URN):
        m = _URN_STOPS.search(s)  # URN F-, Q- and R-components (URN registration 2020)
    else:
        m = _QUERY.search(s)
    if m is not None:
        end = m.start()
    m = SPLIT.search(s, 0, end)
    if m is not None:
        end = m.start()
    m = _TAGLIKE.search(s, 0, end)
    if m is not None:
        end = m.start()
    m = _KEY_VALUE_OR_DEBRIS.search(s, 0, end)
    if m is not None:
        end = m.start()
    return _cut_brackets(s[:end])


def end_of_name(s: str, form: Form, url_before: str) -> int:
    """Length of the DOI name at the start of `s` (a run from `10.` to whitespace), per spec §4.

    The rules are applied until none applies: a cut can leave a tag-like "<name" at the new end
    (…/(SI<I) cut at its unbalanced ")"), which _TAGLIKE ends a name at. So a name read again
    is itself — canonicalize(raw) is the DOI find_dois reported (found by the library fuzz
    target)."""
    end = _end_of_name_once(s, form, url_before)
    while 0 < end < len(s) and "<" in s[:end]:
        again = _end_of_name_once(s[:end], form, url_before)
        if again == end:
            break
        end = again
    return end


def _end_of_name_once(s: str, form: Form, url_before: str) -> int:
    end = first_cut(s, form)
    while end and s[end - 1] in TRAILING:
        end -= 1
    if form.is_url and end:
        publisher = form not in RESOLVERS
        if publisher and SHIELDS.search(url_before):
            return shields_end(s[:end])
        end = len(strip_tails(s[:end], url_before, publisher))
        while end and s[end - 1] in TRAILING:
            end -= 1
        if publisher and FILE_STORE.match(s, 0, end) and not DOI_PATH_MARKER.search(url_before):
            return 0
    return end
