"""The layout of a prowl (seed 004, step 3): junction plans, exact branch points, depth.

The assembler is tested on its own, over many random requests, with the branch costs read
from the shipped table; the generator's invariants are in test_prowl_invariants.py.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter, deque

import pytest

from kerker.errors import KerkerError
from kerker.prowl.generate import Rules
from kerker.prowl.layout import Layout, assemble, below, junction_plans, shuffle
from kerker.tables.registry import load_registry

RULES = Rules(load_registry())
COST = RULES.branch_cost
MAX_EXITS = RULES.limit("exits")[1]
MAX_ROOMS = RULES.limit("rooms")[1]


def _check(layout: Layout, levels: list[tuple[int, int]], accesses: int) -> None:
    n = len(layout.rooms)
    # Room counts are the requested ones; the rest is NoSec.
    got = Counter(room.security for room in layout.rooms)
    for level, count in levels:
        assert got[level] == count
    assert got[0] == n - sum(count for _level, count in levels)
    assert sum(room.accesses for room in layout.rooms) == accesses
    # A tree: n - 1 links, connected.
    assert len(layout.links) == n - 1
    adjacent: dict[int, list[int]] = {i: [] for i in range(n)}
    for a, b in layout.links:
        assert a < b
        adjacent[a].append(b)
        adjacent[b].append(a)
    start = [i for i in range(n) if layout.rooms[i].accesses]
    depth = {i: 1 for i in start}
    queue = deque(start)
    while queue:
        node = queue.popleft()
        for nxt in adjacent[node]:
            if nxt not in depth:
                depth[nxt] = depth[node] + 1
                queue.append(nxt)
    assert len(depth) == n, "every room reachable from an access"
    assert all(layout.rooms[i].depth == depth[i] for i in range(n))
    # Branch points.
    assert sum(COST(layout.exits(i)) for i in range(n)) == layout.used
    assert all(layout.exits(i) <= MAX_EXITS for i in range(n))
    if layout.reason is None:
        assert layout.used == layout.points
    else:
        assert layout.used > layout.points
    # Access rooms: LoSec (the lowest level) or NoSec.
    lowest, highest = levels[0][0], levels[-1][0]
    assert all(room.security in (0, lowest) for room in layout.rooms if room.accesses)
    # HiSec deeper than LoSec; MidSec in between.
    by: dict[int, list[int]] = {}
    for room in layout.rooms:
        by.setdefault(room.security, []).append(room.depth)
    if by.get(highest) and levels[-1][1]:
        assert max(by[lowest]) < min(by[highest])
    for low, high in itertools.pairwise(levels):
        if by.get(low[0]) and by.get(high[0]):
            assert max(by[low[0]]) <= min(by[high[0]])
    # Room order: breadth-first from the accesses (ids follow it).
    assert [room.depth for room in layout.rooms] == sorted(room.depth for room in layout.rooms)


def test_junction_plans_cost_exactly_and_take_the_accesses() -> None:
    assert junction_plans(COST, 0, 0, MAX_EXITS) == [()]
    assert junction_plans(COST, 0, 1, MAX_EXITS) == []
    assert junction_plans(COST, 1, 0, MAX_EXITS) == [(3,)]
    assert junction_plans(COST, 2, 0, MAX_EXITS) == [(4,), (3, 3)]
    three = junction_plans(COST, 3, 0, MAX_EXITS)
    assert (3, 3, 3) in three and (3, 4) in three
    assert all((e,) in three for e in range(5, MAX_EXITS + 1))
    for points in range(4):
        for plan in junction_plans(COST, points, 0, MAX_EXITS):
            assert sum(COST(e) for e in plan) == points
    # Excess needed: 4 accesses need sum(e - 2) >= 2.
    assert junction_plans(COST, 1, 2, MAX_EXITS) == []
    assert junction_plans(COST, 3, 4, MAX_EXITS) == [(6,), (7,), (8,)]


@pytest.mark.parametrize("points", [0, 1, 2, 3])
@pytest.mark.parametrize("accesses", [1, 2, 3, 4, 5, 6])
def test_exact_unless_the_accesses_cannot_fit(points: int, accesses: int) -> None:
    """Exact iff accesses <= points + 2, or 3 points buy a hub (decision 5)."""
    rng = random.Random(points * 10 + accesses)
    levels = [(1, 3), (2, 2), (3, 1)]
    layout = assemble(
        levels, accesses, points, 0, rng, cost=COST, max_exits=MAX_EXITS, max_rooms=MAX_ROOMS
    )
    _check(layout, levels, accesses)
    possible = accesses <= points + 2 or points == 3
    assert (layout.reason is None) == possible
    if not possible:
        assert layout.used == min(accesses - 2, 3)


def test_a_single_room() -> None:
    for accesses, points in ((1, 0), (2, 0), (3, 1)):
        layout = assemble(
            [(1, 1), (2, 0), (3, 0)],
            accesses,
            points,
            0,
            random.Random(1),
            cost=COST,
            max_exits=MAX_EXITS,
            max_rooms=MAX_ROOMS,
        )
        assert len(layout.rooms) == 1 and layout.links == ()
        assert layout.exits(0) == accesses and layout.reason is None
    # One point and one access: a junction needs NoSec side rooms.
    layout = assemble(
        [(1, 1), (2, 0), (3, 0)],
        1,
        1,
        0,
        random.Random(1),
        cost=COST,
        max_exits=MAX_EXITS,
        max_rooms=MAX_ROOMS,
    )
    assert len(layout.rooms) == 3 and layout.nosec_added == 2 and layout.used == 1


def test_random_requests_hold_every_invariant() -> None:
    rng = random.Random(2024)
    added = 0
    for _case in range(800):
        levels = [(1, rng.randint(1, 6)), (2, rng.randint(0, 20)), (3, rng.randint(0, 10))]
        total = sum(c for _l, c in levels)
        accesses = rng.randint(1, 6)
        points = min(rng.randint(0, 3), total)
        nosec = rng.randint(0, 3)
        layout = assemble(
            levels,
            accesses,
            points,
            nosec,
            rng,
            cost=COST,
            max_exits=MAX_EXITS,
            max_rooms=MAX_ROOMS,
        )
        _check(layout, levels, accesses)
        assert len(layout.rooms) == total + nosec + layout.nosec_added <= MAX_ROOMS
        added += layout.nosec_added
    assert added > 0  # the repair path is exercised


def test_same_rng_same_layout() -> None:
    one = assemble(
        [(1, 4), (2, 3), (3, 2)],
        2,
        2,
        1,
        random.Random(9),
        cost=COST,
        max_exits=MAX_EXITS,
        max_rooms=MAX_ROOMS,
    )
    two = assemble(
        [(1, 4), (2, 3), (3, 2)],
        2,
        2,
        1,
        random.Random(9),
        cost=COST,
        max_exits=MAX_EXITS,
        max_rooms=MAX_ROOMS,
    )
    assert one == two


def test_refusals_are_kerker_errors() -> None:
    with pytest.raises(KerkerError, match="lowest security"):
        assemble(
            [(1, 0)], 1, 0, 0, random.Random(1), cost=COST, max_exits=MAX_EXITS, max_rooms=MAX_ROOMS
        )
    with pytest.raises(KerkerError, match="at most 2 rooms"):
        assemble(
            [(1, 2), (2, 0), (3, 1)],
            1,
            0,
            0,
            random.Random(1),
            cost=COST,
            max_exits=MAX_EXITS,
            max_rooms=2,
        )


def test_own_random_helpers_are_uniform_and_stable() -> None:
    rng = random.Random(5)
    counts = Counter(below(rng, 6) for _ in range(6000))
    assert set(counts) == set(range(6)) and min(counts.values()) > 850
    items = list(range(10))
    shuffle(random.Random(3), items)
    again = list(range(10))
    shuffle(random.Random(3), again)
    assert items == again and sorted(items) == list(range(10))
    assert below(rng, 1) == 0
