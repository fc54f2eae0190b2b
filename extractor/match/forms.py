"""The display forms a DOI is written in (spec §3); every hit reports one."""

from __future__ import annotations

import functools
from enum import StrEnum


class Form(StrEnum):
    """How a DOI was written where it was found."""

    BARE = "bare"  # 10.1000/182
    LABEL = "doi-label"  # doi:10.1000/182, DOI 10.1000/182, DOI10.1000/182
    RESOLVER = "resolver-url"  # https://doi.org/10.1000/182, doi.org/…, www.doi.org/…
    DX_RESOLVER = "dx-resolver-url"  # http://dx.doi.org/10.1000/182
    HANDLE = "handle-url"  # https://hdl.handle.net/10.1000/182
    URN = "urn"  # urn:doi:10.1000/182
    EIDR_URN = "eidr-urn"  # urn:eidr:10.5240:XXXX-…  (RFC 7972)
    INFO_URI = "info-uri"  # info:doi/10.1000/182
    OTHER_URL = "other-url"  # https://publisher.example/doi/abs/10.1000/182, ?doi=10.1000/182
    PERCENT = "percent-encoded"  # 10.1000%2F182, doi%3A10.1000%2F182, info%3Adoi%2F10…
    SHORT_DOI = "short-doi"  # doi:10/abcd, https://doi.org/abcd (spec §1: key 10/abcd)
    PDF_LINK = "pdf-link"  # a raw PDF's link annotation (/URI action) to a DOI URL
    # spec §8, only when asked (derive.py): a DOI made from its registrant's own identifier
    DERIVED_ARXIV = "derived-arxiv"  # arXiv:1706.03762, arxiv.org/abs/…
    DERIVED_ZENODO = "derived-zenodo"  # zenodo.org/records/N
    DERIVED_SSRN = "derived-ssrn"  # ssrn.com/abstract=N
    DERIVED_ELIFE = "derived-elife"  # elifesciences.org/articles/N
    DERIVED_PEERJ = "derived-peerj"  # peerj.com/articles/N
    DERIVED_NATURE = "derived-nature"  # nature.com/articles/s41586-020-2649-2

    @property
    def is_url(self) -> bool:
        """True for forms in URL context, where `?`, `#` and `&` end a DOI (spec §4)."""
        return self in _URL_FORMS


_URL_FORMS = frozenset({Form.RESOLVER, Form.DX_RESOLVER, Form.HANDLE, Form.OTHER_URL, Form.PERCENT})


# Display forms by index: the C matcher reports this index, and shards store a hit's forms as a
# bit mask of these indices (partial rows), named again when mentions are written.
FORMS: tuple[Form, ...] = tuple(Form)
# A form's index (keyed by the form or its name: a StrEnum member equals its value).
FORM_INDEX: dict[str, int] = {f.value: i for i, f in enumerate(FORMS)}
# The sources spec §8 derives DOIs from, in order: each reported with its form derived-NAME
# (derive.py holds their rules, one row a source, in this order).
DERIVE_CHOICES: tuple[str, ...] = tuple(
    f.value.removeprefix("derived-") for f in FORMS if f.value.startswith("derived-")
)


def forms_mask(forms: set[str] | set[Form]) -> int:
    """The bit mask of a set of display forms."""
    mask = 0
    for f in forms:
        mask |= 1 << FORM_INDEX[f]
    return mask


def forms_of(mask: int) -> list[str]:
    """The sorted names of the display forms in a bit mask."""
    return list(_forms_of(mask))


@functools.lru_cache(maxsize=4096)
def _forms_of(mask: int) -> tuple[str, ...]:
    # each merge names the distinct masks of its rows: hundreds a bucket, the same ones each time
    return tuple(sorted(f.value for i, f in enumerate(FORMS) if mask >> i & 1))
