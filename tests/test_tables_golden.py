"""Golden rolls of shipped tables in German, Italian and English.

Same version + same table data + same seed => the same text and JSON. When a change of the
engine or the data alters these on purpose, regenerate with
``KERKER_UPDATE_GOLDEN=1 pytest tests/test_tables_golden.py`` and say so in the commit.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from conftest import check_golden, updating_golden

from kerker.tables.engine import roll_table
from kerker.tables.registry import load_registry
from kerker.tables.render import lines, to_json

GOLDEN = Path(__file__).parent / "golden" / "tables.json"
CASES: list[tuple[str, dict[str, Any]]] = [
    ("zufallslabyrinth/schatz", {"level": 3, "guarded": True}),
    ("zufallslabyrinth/innenausstattung", {"level": 2}),
    ("zufallslabyrinth/gangbreite", {}),
    ("zufallslabyrinth/gaenge", {}),
    ("scatola-bianca/tiri-periodici", {"level": 2}),
    ("scatola-bianca/contenuto-stanza", {}),
    ("zonenkarten/fantasy-loot", {}),
    ("mazeprowl/loot-secured", {}),
]
SEEDS = (1, 2)
LANGS = ("de", "it", "en")


def _generate() -> dict[str, Any]:
    registry = load_registry()
    out: dict[str, Any] = {}
    for table_id, ctx in CASES:
        for seed in SEEDS:
            for lang in LANGS:
                result, log = roll_table(registry, table_id, random.Random(seed), context=ctx)
                out[f"{table_id}|{seed}|{lang}"] = {
                    "text": lines(result, lang, explain=True),
                    "json": to_json(result, lang),
                    "log": log,
                }
    return out


def test_golden_table_rolls() -> None:
    got = json.loads(json.dumps(_generate(), ensure_ascii=False))
    if updating_golden() or not GOLDEN.exists():
        check_golden(GOLDEN.name, json.dumps(got, ensure_ascii=False, indent=1) + "\n")
    want = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert set(got) == set(want)
    for key in want:
        assert got[key] == want[key], key
