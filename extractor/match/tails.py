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
    "lookinside",  # Springer's preview pages: …/content/pdf/10.1007%2FBF01406719/lookinside/000.png
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

# Resources a publisher serves under a DOI's path (spec §4): the tail starts at the first of these
# segments after the DOI — ACS /asset/images/…, Springer /MediaObjects/…_HTML.png, ACS
# /suppl_file/…_si_001.pdf, Springer's /email/correspondent/c1/new and /figures/1, /tables/2.
RESOURCE_SEGMENTS = ("asset", "assets", "mediaobjects", "suppl_file", "email", "figures", "tables")
# Media files (spec §4): a last path segment with one of these extensions is a figure, video or
# badge (JOSS's …/status.svg) under the DOI's path, not part of the DOI.
MEDIA_EXTENSIONS = (
    "png",
    "jpg",
    "jpeg",
    "gif",
    "svg",
    "webp",
    "tif",
    "tiff",
    "bmp",
    "mp4",
    "m4v",
    "mov",
    "webm",
    "mp3",
)
_MEDIA = "|".join(MEDIA_EXTENSIONS)

# (pattern, context): the rule applies only where `context` is found in the URL before the DOI,
# a NUL, and the DOI name (so a context can look at either side), or always when it is None.
TAIL_RULES: tuple[tuple[re.Pattern[str], re.Pattern[str] | None], ...] = (
    # ;jsessionid=… and other matrix parameters of a session.
    (re.compile(r";jsessionid=.*\Z", re.I | re.A | re.S), None),
    # a view segment, with ".html" or ".htm" as Springer writes it (…/fulltext.html)
    (re.compile(rf"/(?:{_VIEWS})(?:\.html?)?/?\Z", re.I | re.A), None),
    (re.compile(r"\.pdf\Z", re.I | re.A), None),
    # bioRxiv and medRxiv (prefix 10.1101): version tails v1, v2.full, v1.full.pdf, v1.supplementary-material.
    (
        re.compile(
            r"(?<=\d)v\d+(?:\.(?:" + "|".join(re.escape(t) for t in RXIV_TAILS) + r"))*\Z",
            re.I | re.A,
        ),
        re.compile(r"(?:bio|med)rxiv\.org/|\x0010\.1101/", re.I | re.A),
    ),
    # Crossref REST API: /works/{doi}/transform/{type}, /works/{doi}/agency.
    (re.compile(r"/(?:transform(?:/.*)?|agency)\Z", re.I | re.A | re.S), None),
    # OUP: academic.oup.com/{journal}/article/doi/{doi}/{article id}[/{slug}].
    (re.compile(r"/\d+(?:/[^/]*)?\Z"), re.compile(r"/article/doi/\x00", re.I | re.A)),
    (re.compile(r"/(?:" + "|".join(RESOURCE_SEGMENTS) + r")(?:/.*)?\Z", re.I | re.A | re.S), None),
    # A media file under the DOI's path goes whole; on the DOI's own last segment (Zenodo's
    # badge, …/10.5281/zenodo.123.svg) only its extension, as with .pdf.
    (re.compile(rf"/[^/]*\.(?:{_MEDIA})\Z", re.I | re.A), None),
    (re.compile(rf"\.(?:{_MEDIA})\Z", re.I | re.A), None),
)
# A path's trailing slash, after any URL (resolvers included).
_TRAILING_SLASH = re.compile(r"/\Z")

# The separator, literal or percent-encoded (art%3A10.1038%2Fs41586-…/MediaObjects/…), and one
# character of suffix after it.
_SUFFIX_NONEMPTY = re.compile(r"(?:/|%2[Ff]).")

# A shields.io badge carries the DOI as its message (spec §4): img.shields.io/badge/DOI-<message>-
# <colour>[.svg], where "--" is a literal "-" and "__" a literal "_" (shields.io's escapes).
SHIELDS = re.compile(r"(?ia)shields\.io/badge/[^/]*\Z")
_SHIELDS_COLOUR = re.compile(r"(?<!-)(?:--)*(-[^-]*)\Z")
_SHIELDS_ESCAPES = re.compile(r"--|__")

# A file store that uses a DOI prefix as a folder (spec §4): /mp4/10.7554/886/<hash>/video.mp4.
# The would-be suffix is an all-digit segment with more path after it; a DOI path marker before
# it or a resolver makes it a DOI after all: /doi/ on any host, and on Springer's hosts the
# segments Springer puts right before a DOI (link.springer.com/article/10.1155/2010/359081).
FILE_STORE = re.compile(r"10\.[0-9.]+/[0-9]+/.")
SPRINGER_MARKERS = ("article", "chapter", "book", "referenceworkentry", "protocol", "content/pdf", "epdf")
DOI_PATH_MARKER = re.compile(
    r"(?ia)/doi/|(?:\A|[/.@])(?:link|rd)\.springer\.com/(?:" + "|".join(SPRINGER_MARKERS) + r")/\Z"
)


def shields_end(name: str) -> int:
    """Where a shields.io badge's message ends in `name`: before "-<colour>[.svg]"."""
    m = _SHIELDS_COLOUR.search(name)
    return len(name) if m is None else m.start(1)


def shields_unescape(name: str) -> str:
    """A shields.io message as the DOI it carries: "--" is "-", "__" is "_"."""
    return _SHIELDS_ESCAPES.sub(lambda m: m.group()[0], name)


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
