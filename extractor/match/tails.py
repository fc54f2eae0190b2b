"""What publishers append to a DOI inside a URL, which is not part of the DOI (spec §4).

Applied only in URL context. Each entry is one regular expression matched at the end of the
DOI name (or, for session ids, anywhere in it); extend the table as new URL patterns turn up.
"""

from __future__ import annotations

import re

# View segments a publisher appends after a complete DOI: /doi/10.1002/x/abstract, …/full, …/pdf.
VIEWS = (
    "abstract",
    "abs",
    "full",
    "pdf",
    "epdf",
    "pdfdirect",
    "fulltext",
    "html",
    "meta",
    "references",
    "suppinfo",
    "citedby",
    "figures",
    "tables",
    "download",
    "issuetoc",
    "pdfplus",
)
_VIEWS = "|".join(VIEWS)
# bioRxiv and medRxiv version tails: v1, v2.full, v1.full.pdf, v1.supplementary-material.
RXIV_TAILS = (
    "full",
    "abstract",
    "full-text",
    "article-info",
    "article-metrics",
    "supplementary-material",
    "full.pdf",
    "full.pdf+html",
    "figures-only",
)

# (pattern, context): the rule applies only where `context` is found in the URL before the DOI,
# a NUL, and the DOI name (so a context can look at either side), or always when it is None.
TAIL_RULES: tuple[tuple[re.Pattern[str], re.Pattern[str] | None], ...] = (
    # ;jsessionid=… and other matrix parameters of a session.
    (re.compile(r";jsessionid=.*\Z", re.I | re.S), None),
    (re.compile(rf"/(?:{_VIEWS})/?\Z", re.I), None),
    (re.compile(r"\.pdf\Z", re.I), None),
    # bioRxiv and medRxiv (prefix 10.1101): version tails v1, v2.full, v1.full.pdf, v1.supplementary-material.
    (
        re.compile(
            r"(?<=\d)v\d+(?:\.(?:" + "|".join(re.escape(t) for t in RXIV_TAILS) + r"))*\Z",
            re.I,
        ),
        re.compile(r"(?:bio|med)rxiv\.org/|\x0010\.1101/", re.I),
    ),
    # Crossref REST API: /works/{doi}/transform/{type}, /works/{doi}/agency.
    (re.compile(r"/(?:transform(?:/.*)?|agency)\Z", re.I | re.S), None),
    # OUP: academic.oup.com/{journal}/article/doi/{doi}/{article id}.
    (re.compile(r"/\d+\Z"), re.compile(r"/article/doi/\x00", re.I)),
)
# A path's trailing slash, after any URL (resolvers included).
_TRAILING_SLASH = re.compile(r"/\Z")

_SUFFIX_NONEMPTY = re.compile(r"/.")


def strip_tails(name: str, url_before: str, publisher: bool = True) -> str:
    """Remove URL tails from the end of `name`, repeatedly, keeping a non-empty suffix.

    `publisher` is False for DOI resolvers, where only a trailing slash is removed.
    """
    rules = TAIL_RULES if publisher else ()
    changed = True
    while changed:
        changed = False
        for pattern, context in (*rules, (_TRAILING_SLASH, None)):
            if context is not None and not context.search(f"{url_before}\x00{name}"):
                continue
            m = pattern.search(name)
            if m is None:
                continue
            cut = name[: m.start()]
            if _SUFFIX_NONEMPTY.search(cut) and cut != name:
                name = cut
                changed = True
    return name
