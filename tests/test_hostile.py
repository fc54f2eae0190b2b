"""Hostile input: time linear in the input on every path (issue 15). These tests hold the
results; the times are in benchmarks/ (`python -m benchmarks --only find`), never asserted."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from extractor import find_dois
from extractor.match.anchors import anchors
from extractor.match.native import find_spans_utf8

from .helpers import run_json, scan_here, table

# The anchor as one pattern, as it was before issue 15: the reference for what anchors finds.
_OLD_ANCHOR = re.compile(r"10\.([0-9]+(?:\.[0-9]+)*)(/|%2[Ff]|:)")
# spec §2: no space or line break after "10." when another "10." follows (1–10. 10.1038/x)
_OLD_ANCHOR_PDF = re.compile(
    r"10\.(?:(?:[ \t]+(?:\r?\n[ \t]*)?|\r?\n[ \t]*)(?!10\.[0-9]))?([0-9]+(?:\.[0-9]+)*)[ \t]?(/|%2[Ff]|:)"
)


def test_runs_of_10_dot_are_read_once_on_every_path(tmp_path: Path) -> None:
    """1 MiB of `10.10.10…` took `scan` 243 s and 24 KB took `find_dois` 5.3 s: each anchor
    re-read the whole dotted run. Now each path reads it once (this test ran for minutes)."""
    text = "10." * (1 << 18) + " and doi:10.1000/182"
    for kind in ("plain", "html", "pdf"):
        assert [h.doi for h in find_dois(text, kind)] == ["10.1000/182"], kind
    assert [s.doi for s in find_spans_utf8(text.encode())] == ["10.1000/182"]
    f = tmp_path / "dots.txt"
    f.write_text(("10." * (1 << 18) + "\n") * 4 + "doi:10.1000/182\n")
    scan_here([f], tmp_path / "out")
    assert [m["doi"] for m in table(tmp_path / "out", "mentions")] == ["10.1000/182"]
    assert run_json(tmp_path / "out")["hits"] == 1


@given(
    st.lists(
        st.sampled_from(["10.", "10", "1", "0", ".", "/", "%2F", ":", " ", "\n", "\t", "x"]), max_size=60
    )
)
def test_anchor_scan_finds_what_the_single_pattern_found(pieces: list[str]) -> None:
    text = "".join(pieces)
    for pdf, old in ((False, _OLD_ANCHOR), (True, _OLD_ANCHOR_PDF)):
        want = [(m.start(), m.group(1), m.group(2), m.end()) for m in old.finditer(text)]
        assert list(anchors(text, pdf)) == want
