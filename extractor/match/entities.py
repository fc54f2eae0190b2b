"""What a DOI names (spec §6): a funding organization of Crossref's Funder Registry — prefix
`10.13039` (JATS `<institution-id institution-id-type="funder-id">`, Crossref deposits'
`funder_identifier`) — or a work. Found and reported like any DOI; the output says which, so that
a citation graph can leave funders out."""

from __future__ import annotations

FUNDER_PREFIX = "10.13039/"  # a canonical DOI's start (lower case, as every canonical DOI)
FUNDER = "funder"
WORK = "work"
ENTITIES = (FUNDER, WORK)


def entity_of(doi: str) -> str:
    """ "funder" for a DOI of the Funder Registry, "work" for any other (a canonical DOI)."""
    return FUNDER if doi.startswith(FUNDER_PREFIX) else WORK
