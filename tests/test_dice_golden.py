"""Golden rolls: fixed expressions and seeds, their ``Roll.to_json()`` kept in
``tests/golden/dice_rolls.json``.

The determinism contract (docs/DESIGN.md) says the same kerker version and seed give
byte-identical JSON everywhere; this file guards it. The test regenerates every roll and
compares it with the stored one, then compares the whole file byte for byte.

A change that alters rolled dice for a seed must say so in its commit. To rewrite the file
after such a deliberate change, run::

    KERKER_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_dice_golden.py

and review the diff of ``tests/golden/dice_rolls.json`` before committing it.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from kerker.dice import roll

GOLDEN = Path(__file__).parent / "golden" / "dice_rolls.json"
UPDATE = os.environ.get("KERKER_UPDATE_GOLDEN") == "1"

EXPRESSIONS = [
    "3W6",
    "4W6kh3",
    "2W10×100",
    "W%",
    "W66",
    "W666",
    "W{66}",
    "4dF",
    "2W6r1",
    "3W6ro<3",
    "3W6!",
    "6W6>=5!",
    "(W4)W6kh2",
    "min(W20, W20) + max(W4, 2)",
    "-(2W6 - 7) / 3",
    "4W6!dl1",
]
SEEDS = [0, 42, 2024]


def _generate() -> list[dict[str, Any]]:
    return [
        {"expression": text, "seed": seed, "roll": roll(text, random.Random(seed)).to_json()}
        for text in EXPRESSIONS
        for seed in SEEDS
    ]


def _render(entries: list[dict[str, Any]]) -> str:
    return json.dumps({"rolls": entries}, ensure_ascii=False, indent=2) + "\n"


if UPDATE:
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(_render(_generate()), encoding="utf-8")


def _stored() -> dict[tuple[str, int], dict[str, Any]]:
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return {(e["expression"], e["seed"]): e["roll"] for e in data["rolls"]}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("text", EXPRESSIONS)
def test_golden_roll(text: str, seed: int) -> None:
    stored = _stored()
    assert (text, seed) in stored, "missing from the golden file; run with KERKER_UPDATE_GOLDEN=1"
    assert roll(text, random.Random(seed)).to_json() == stored[(text, seed)]


def test_golden_file_is_byte_identical() -> None:
    assert GOLDEN.read_text(encoding="utf-8") == _render(_generate())


def test_golden_file_covers_the_marks() -> None:
    """The stored rolls show every mark of an explanation at least once."""
    explained = " ".join(r["explain"] for r in _stored().values())
    for mark in ("(", "~", "!+", "*"):
        assert mark in explained, mark
