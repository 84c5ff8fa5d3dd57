"""Ways to other levels keep off door cells (ZL seed 12 level 1: a shaft on a door's own
cell; ZL seed 2 level 2: stairs on the cell across an opening's wall; their marks crowded
and a game master could not tell them apart). Decision 40 of docs/rules-notes-000.md."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kerker.dungeon.engine import Params, generate
from kerker.dungeon.model import Connection, Level
from kerker.geometry.grid import step
from kerker.tables.registry import load_registry

REGISTRY = load_registry([])
WAY_KINDS = {"stairs", "trapdoor", "shaft", "elevator"}
LEVELS = 300


def _door_cells(conn: Connection) -> set[tuple[int, int]]:
    """The cells a door in a wall takes (its whole width) and the cells across its wall."""
    ax, ay = (0, 1) if conn.side in ("e", "w") else (1, 0)
    if conn.side not in ("n", "e", "s", "w"):
        ax, ay = 0, 0
    x, y = conn.at
    cells = [(x + ax * i, y + ay * i) for i in range(max(1, conn.width))]
    return {*cells, *(step(c, conn.side) for c in cells)}


def _is_way(conn: Connection) -> bool:
    return conn.kind in WAY_KINDS or conn.to_level is not None


def _levels(rules: str) -> Iterator[tuple[int, Level]]:
    """Full-size levels (default options) of seeds 1, 2 ... until ``LEVELS`` are made."""
    made = 0
    for seed in range(1, 400):
        for level in generate(Params(rules=rules, seed=seed, levels=3), REGISTRY).levels:
            yield seed, level
            made += 1
            if made >= LEVELS:
                return
    raise AssertionError(f"{rules}: fewer than {LEVELS} levels")  # pragma: no cover


def _clashes(level: Level) -> list[str]:
    doors = {cell: c.id for c in level.connections if not _is_way(c) for cell in _door_cells(c)}
    ways = [c for c in level.connections if _is_way(c)]
    out = [f"{w.kind} {w.id} at {w.at} on door {doors[w.at]}" for w in ways if w.at in doors]
    seen: dict[tuple[int, int], str] = {}
    for w in ways:
        if w.at in seen:
            out.append(f"{w.kind} {w.id} shares {w.at} with {seen[w.at]}")
        seen[w.at] = w.id
    return out


@pytest.mark.parametrize("rules", ["zufallslabyrinth", "scatola-bianca"])
def test_no_way_on_a_door_cell(rules: str) -> None:
    bad = [
        f"seed {seed} level {level.depth}: {clash}"
        for seed, level in _levels(rules)
        for clash in _clashes(level)
    ]
    assert not bad, bad[:10]


@pytest.mark.parametrize(("seed", "depth"), [(12, 1), (2, 2), (20, 2)])
def test_known_clashes_moved_not_lost(seed: int, depth: int) -> None:
    level = generate(Params(seed=seed, levels=3), REGISTRY).levels[depth - 1]
    ways = [c for c in level.connections if _is_way(c)]
    assert ways, "the level keeps its ways"
    assert not _clashes(level)
    for way in ways:
        area = next(a for a in level.areas if a.id == way.from_)
        assert way.at in area.cells, f"{way.id} lies in its own area"
