"""One secret door per pair of areas unless the rules roll more (ZL seed 284 level 2: a
hexagon hall without exits got a secret door into a 5-ft secret passage from the east
wall, then a second one from the south wall whose own passage opened into the first).

Seed 000's 25 % per wall section ("Jeder Wandabschnitt in der Nähe eines bereits
erstellten Gebietes hat eine 25% Chance auf eine Geheimtür") finds an area not linked yet;
an exit rolled into an existing area may be made a secret door by ``ausgang_kollision``
(each such roll is one more), as Scatola Bianca's A.5.6 note ("uscita su area mappata")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from kerker.dungeon.engine import Params, generate
from kerker.dungeon.model import Connection, Level
from kerker.tables.registry import load_registry

REGISTRY = load_registry([])
SEEDS = {"zufallslabyrinth": 300, "scatola-bianca": 0}
"""Seeds 1.. at least (ZL: up to 284), and at least 300 full-size levels."""
LEVELS = 300
INTO_AREA = ("zufallslabyrinth/ausgang_kollision", "scatola-bianca/uscita-su-area-mappata")
"""The tables that make a rolled exit into a mapped area a secret door (one more each)."""


def _levels(rules: str) -> Iterator[tuple[int, Level]]:
    made = 0
    for seed in range(1, 1000):
        if made >= LEVELS and seed > SEEDS[rules]:
            return
        for level in generate(Params(rules=rules, seed=seed, levels=3), REGISTRY).levels:
            yield seed, level
            made += 1


def _beyond(level: Level, conn: Connection) -> str | None:
    """The area a secret door opens into; through a 5-ft secret passage, the area the
    passage leads to."""
    to = conn.to
    area = next((a for a in level.areas if a.id == to), None)
    if area is None or area.kind != "corridor" or area.width_ft != 5:
        return to
    others = [
        o
        for o in level.connections
        if o is not conn and to in (o.from_, o.to) and o.to_level is None
    ]
    if len(others) != 1:
        return to
    return others[0].to if others[0].from_ == to else others[0].from_


def _doubles(level: Level) -> list[str]:
    areas = {a.id: a for a in level.areas}
    pairs = Counter(
        (c.from_, _beyond(level, c))
        for c in level.connections
        if c.kind == "secret_door" and c.to is not None
    )
    out = []
    for (a, b), n in pairs.items():
        rolled = sum(
            1 for r in areas[a].rolls if r.table.endswith(INTO_AREA) and r.key == "secret_door"
        )
        if n > 1 + rolled:
            out.append(f"{a} -> {b}: {n} secret doors, {rolled} rolled into an area")
    return out


@pytest.mark.parametrize("rules", sorted(SEEDS))
def test_one_secret_door_per_pair(rules: str) -> None:
    made = 0
    bad = []
    for seed, level in _levels(rules):
        made += 1
        bad += [f"seed {seed} level {level.depth}: {d}" for d in _doubles(level)]
    assert made >= LEVELS
    assert not bad, bad[:10]


def test_seed_284_level_2_one_secret_way_to_its_neighbour() -> None:
    dungeon = generate(Params(seed=284, levels=3), REGISTRY)
    level = next(lv for lv in dungeon.levels if lv.depth == 2)
    assert any(c.kind == "secret_door" for c in level.connections), "it keeps a secret door"
    assert not _doubles(level)
