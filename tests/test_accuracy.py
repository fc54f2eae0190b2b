"""The accuracy gate: F1 on the project's own labelled corpora never falls below the floors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from extractor.cli.score import load_manifest, score_rows

ROOT = Path(__file__).resolve().parent.parent
FLOORS = json.loads((Path(__file__).parent / "accuracy_floors.json").read_text())


@pytest.mark.parametrize("manifest", sorted(FLOORS["floors"]))
def test_f1_at_or_above_floor(manifest: str) -> None:
    tallies, docs = score_rows(load_manifest(str(ROOT / manifest)))
    floors = FLOORS["floors"][manifest]
    for genre, floor in floors.items():
        # a floor is for a genre, ALL, or a breakdown key such as tool=pypdf (the PDF tool)
        key = "ALL (micro)" if genre == "ALL" else genre if "=" in genre else f"genre={genre}"
        got = tallies[key].f1
        errors = [
            (d.doc, sorted(d.fn), sorted(d.fp))
            for d in docs
            if (d.fn or d.fp) and (genre == "ALL" or "=" in genre or d.genre == genre)
        ]
        assert got >= floor, f"{manifest} {genre}: F1 {got:.4f} < floor {floor}; errors: {errors[:5]}"


def test_floors_never_fall_below_their_history() -> None:
    for entry in FLOORS["history"]:
        for manifest, floors in entry["floors"].items():
            for genre, old in floors.items():
                assert FLOORS["floors"][manifest][genre] >= old, (manifest, genre, entry["date"])


def test_labelled_corpora_cover_all_genres() -> None:
    rows = load_manifest(str(ROOT / "corpora" / "labelled" / "manifest.jsonl"))
    genres = {r["genre"] for r in rows}
    assert genres == {"plain", "html", "pdf"}
    assert sum(len(r["gold"]) for r in rows) > 1000
