"""One door per cell and wall (Zufallslabyrinth seed 170 level 3: two secret doors on one
corner cell, their "S" marks overlapping on the game master's map; five-way junctions
opened two side corridors through one wall cell)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from kerker.dungeon.engine import Params, generate
from kerker.dungeon.model import Connection, Level
from kerker.tables.registry import load_registry

REGISTRY = load_registry([])
LEVELS = 300


def _wall_edges(conn: Connection) -> list[tuple[tuple[int, int], str]]:
    """The (cell, side) wall edges a connection in a wall takes, its whole width."""
    ax, ay = (0, 1) if conn.side in ("e", "w") else (1, 0)
    if conn.side not in ("n", "e", "s", "w"):
        ax, ay = 0, 0
    x, y = conn.at
    return [((x + ax * i, y + ay * i), conn.side) for i in range(max(1, conn.width))]


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
    in_walls = [c for c in level.connections if c.to_level is None]
    edges = Counter(e for c in in_walls for e in _wall_edges(c))
    out = [f"{e} taken {n} times" for e, n in edges.items() if n > 1]
    door_cells = Counter(c.at for c in in_walls)
    out += [
        f"secret door {c.id} shares cell {c.at}"
        for c in in_walls
        if c.kind == "secret_door" and door_cells[c.at] > 1
    ]
    return out


@pytest.mark.parametrize("rules", ["zufallslabyrinth", "scatola-bianca"])
def test_no_two_doors_on_one_cell_and_side(rules: str) -> None:
    bad = [
        f"seed {seed} level {level.depth}: {clash}"
        for seed, level in _levels(rules)
        for clash in _clashes(level)
    ]
    assert not bad, bad[:10]


def test_seed_170_level_3_secret_doors_apart() -> None:
    level = generate(Params(seed=170, levels=3), REGISTRY).levels[2]
    secret = [c for c in level.connections if c.kind == "secret_door"]
    assert secret, "the level keeps its secret doors"
    assert not _clashes(level)
