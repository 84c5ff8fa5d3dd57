"""The outline tracer (kerker.dungeon.outline) against a naive oracle over random cell sets.

The oracle knows only cells: a unit edge of a cell is on the boundary when the cell across
it is not in the set, and it runs with the cell on its right (screen coordinates, y down).
The tracer must cover every such edge exactly once with its loops (and nothing else), the
shoelace areas of its loops (holes negative) must add up to the number of cells, its
pinch points must be the points where two cells meet only at a corner, and ``grown()`` must
trace the same loops as the naive dilation (every cell plus its eight neighbours).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from kerker.dungeon.outline import Outline

Cell = tuple[int, int]
Edge = tuple[tuple[int, int], tuple[int, int]]


def _random_cells(rng: random.Random) -> set[Cell]:
    width, height = rng.randint(1, 12), rng.randint(1, 12)
    density = rng.choice((0.2, 0.5, 0.8, 0.95))
    x0, y0 = rng.randint(-20, 20), rng.randint(-20, 20)
    cells = {
        (x0 + x, y0 + y) for x in range(width) for y in range(height) if rng.random() < density
    }
    return cells or {(x0, y0)}


def _naive_edges(cells: set[Cell]) -> Counter[Edge]:
    edges: Counter[Edge] = Counter()
    for x, y in cells:
        if (x, y - 1) not in cells:
            edges[((x, y), (x + 1, y))] += 1  # top, eastward
        if (x + 1, y) not in cells:
            edges[((x + 1, y), (x + 1, y + 1))] += 1  # right, southward
        if (x, y + 1) not in cells:
            edges[((x + 1, y + 1), (x, y + 1))] += 1  # bottom, westward
        if (x - 1, y) not in cells:
            edges[((x, y + 1), (x, y))] += 1  # left, northward
    return edges


def _naive_pinches(cells: set[Cell]) -> set[tuple[int, int]]:
    out = set()
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    for px in range(min(xs), max(xs) + 2):
        for py in range(min(ys), max(ys) + 2):
            nw, ne = (px - 1, py - 1) in cells, (px, py - 1) in cells
            sw, se = (px - 1, py) in cells, (px, py) in cells
            if (nw and se and not ne and not sw) or (ne and sw and not nw and not se):
                out.add((px, py))
    return out


def _loop_edges(loops: list[list[tuple[int, int]]]) -> Counter[Edge]:
    edges: Counter[Edge] = Counter()
    for loop in loops:
        for a, b in zip(loop, loop[1:] + loop[:1], strict=True):
            assert abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1, (a, b)  # unit steps only
            edges[(a, b)] += 1
    return edges


def _area(loop: list[tuple[int, int]]) -> int:
    twice = sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(loop, loop[1:] + loop[:1], strict=True))
    assert twice % 2 == 0
    return twice // 2


def _dilated(cells: set[Cell]) -> set[Cell]:
    return {(x + dx, y + dy) for x, y in cells for dx in (-1, 0, 1) for dy in (-1, 0, 1)}


SEEDS = range(400)


@pytest.mark.parametrize("chunk", range(4))
def test_loops_cover_every_boundary_edge_once_and_areas_add_up(chunk: int) -> None:
    for seed in SEEDS[chunk::4]:
        cells = _random_cells(random.Random(seed))
        traced = Outline(cells)
        loops = traced.loops()
        assert _loop_edges(loops) == _naive_edges(cells), seed
        assert sum(_area(loop) for loop in loops) == len(cells), seed
        assert traced.pinches == _naive_pinches(cells), seed


@pytest.mark.parametrize("chunk", range(2))
def test_grown_is_the_naive_dilation(chunk: int) -> None:
    for seed in SEEDS[chunk::8]:
        cells = _random_cells(random.Random(seed))
        grown = Outline(cells).grown()
        bigger = _dilated(cells)
        assert _loop_edges(grown.loops()) == _naive_edges(bigger), seed
        assert sorted(grown.loops()) == sorted(Outline(bigger).loops()), seed
        twice = grown.grown()  # past the room the codes leave: traced anew
        assert _loop_edges(twice.loops()) == _naive_edges(_dilated(bigger)), seed


def test_parts_union_and_borders_match_the_naive_owner_map() -> None:
    for seed in range(100):
        rng = random.Random(10_000 + seed)
        cells = sorted(_random_cells(rng))
        parts: list[set[Cell]] = [set() for _ in range(rng.randint(1, 4))]
        for cell in cells:
            rng.choice(parts).add(cell)
        parts = [p for p in parts if p]
        traced = Outline(*parts)
        assert _loop_edges(traced.loops()) == _naive_edges(set(cells)), seed
        owner = {c: k for k, part in enumerate(parts) for c in part}
        hor = {
            (x, y) for (x, y), k in owner.items() if (x, y - 1) in owner and owner[(x, y - 1)] != k
        }
        ver = {
            (x, y) for (x, y), k in owner.items() if (x - 1, y) in owner and owner[(x - 1, y)] != k
        }
        assert traced.borders() == (hor, ver), seed
