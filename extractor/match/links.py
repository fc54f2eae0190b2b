"""Spec §6, a link is one occurrence: a link that names a DOI in its target and in its text is one
hit, the first of the two in the source.

The views of a kind or syntax read in views (html.py, syntaxes/) record each link they read as a
Link: the raw span of its target (an `href`, a Markdown or wikitext URL, `\\href`'s first
argument) and of its text. one_per_link pairs, within one link, a hit that starts in the target
with a hit of the same DOI that ends in the text (a label before the text, JATS `doi: <ext-link>`,
belongs to it), and drops the later of the two; cscan/links.c does the same in C.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import NamedTuple, TypeVar


class Link(NamedTuple):
    """Raw offsets of a link's target [target_start, target_end) and text [text_start, text_end)."""

    target_start: int
    target_end: int
    text_start: int
    text_end: int


S = TypeVar("S", bound=tuple)


def one_per_link(spans: list[S], links: Sequence[Link]) -> list[S]:
    """`spans` ((start, end, form, DOI, …) in order of start) without the second hit of each link
    that names one DOI twice: of a hit starting in a link's target and one of the same DOI ending
    in its text, paired in order, the one that starts later goes. Two links are two occurrences; a
    text naming another DOI than its target is a hit of its own."""
    if not links or len(spans) < 2:
        return spans
    dois = [s[3] for s in spans]
    if len(set(dois)) == len(dois):
        return spans  # no DOI named twice (most texts): nothing to pair
    by_target = sorted(links)
    target_starts = [link.target_start for link in by_target]
    by_text = sorted(links, key=lambda link: link.text_start)
    text_starts = [link.text_start for link in by_text]
    # (link, DOI) -> the indexes of its hits in the target, and of those in the text
    roles: dict[tuple[Link, str], tuple[list[int], list[int]]] = {}
    for i, s in enumerate(spans):
        start, end, doi = s[0], s[1], dois[i]
        t = bisect_right(target_starts, start) - 1
        if t >= 0 and start < by_target[t].target_end:
            roles.setdefault((by_target[t], doi), ([], []))[0].append(i)
            continue
        x = bisect_right(text_starts, end - 1) - 1  # the last link whose text starts before `end`
        if x >= 0 and end <= by_text[x].text_end:
            roles.setdefault((by_text[x], doi), ([], []))[1].append(i)
    dropped = set()
    for in_target, in_text in roles.values():
        for a, b in zip(in_target, in_text, strict=False):
            # the first of the two in the source stays (ties: the one listed first)
            dropped.add(b if (spans[a][0], a) < (spans[b][0], b) else a)
    if not dropped:
        return spans
    return [s for i, s in enumerate(spans) if i not in dropped]
