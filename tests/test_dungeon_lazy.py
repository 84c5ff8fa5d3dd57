"""The lazy engine contract (issue 12, item 4; docs/dungeon.md "Playing a dungeon lazily").

Three properties over 1 000 seeds per procedure, on small levels (an area budget of 8 to 12,
``min_areas`` 0 unless the test is about it) so that each takes seconds:

1. Expanding :func:`next_exit` until it is None gives the very document :func:`generate`
   gives, byte for byte, even with snapshots taken on the way.
2. Whatever the order of play, an area built by one step is never changed by a later one.
3. The same door gives the same room whatever the order two doors are opened in, unless
   what lies behind them comes close (then it may differ: that is the collision the
   contract allows).
"""

from __future__ import annotations

import random

import pytest

from kerker.dungeon.api import (
    DungeonError,
    DungeonState,
    Params,
    expand,
    generate,
    next_exit,
    open_exits,
    snapshot,
    start,
)
from kerker.dungeon.engine import AreaBuilder
from kerker.dungeon.export import dumps
from kerker.errors import KerkerError
from kerker.tables.registry import load_registry

REGISTRY = load_registry([])
RULES = ("zufallslabyrinth", "scatola-bianca")
SEEDS = range(1000)
APART = 12
"""Cells (60 ft): what lies behind two doors this far apart cannot meet (the procedures look
at most 6 cells ahead for an area to open into, 4 for a secret door)."""


def _params(rules: str, seed: int, **more: object) -> Params:
    base: dict[str, object] = {
        "rules": rules,
        "seed": seed,
        "levels": 1 + (seed % 4 == 0),
        "max_areas": 4 + seed % 6,
        "min_areas": 0,
    }
    base.update(more)
    return Params(**base)  # type: ignore[arg-type]


def _area_print(area: AreaBuilder) -> tuple[object, ...]:
    """What an area is, without its id or number (which follow the order of play)."""
    return (
        area.kind,
        area.shape,
        tuple(sorted(area.cells)),
        tuple(area.rolls),
        area.width_ft,
        area.closed,
        len(area.contents),
        len(area.features),
        tuple(area.bends),
    )


@pytest.mark.parametrize("rules", RULES)
def test_next_exit_until_none_is_generate(rules: str) -> None:
    """Property 1, with a snapshot at a random step (snapshots change nothing)."""
    for seed in SEEDS:
        params = _params(rules, seed)
        state = start(params, REGISTRY)
        pick = random.Random(seed)
        steps = 0
        while (key := next_exit(state)) is not None:
            assert key in {e.key for e in open_exits(state)}
            if pick.random() < 0.2:
                snapshot(state)
            expand(state, key)
            steps += 1
            assert steps < 500, f"seed {seed}: the walk does not end"
        assert not state.unsettled()
        assert snapshot(state) == generate(params, REGISTRY), f"{rules} seed {seed}"


@pytest.mark.parametrize("rules", RULES)
def test_generate_equals_lazy_walk_bytes(rules: str) -> None:
    """Property 1 on whole documents (bytes), default budget, two levels, min_areas 10
    (the roll of level 1 is chosen up front by start())."""
    for seed in range(20):
        params = Params(rules=rules, seed=seed, levels=2, max_areas=30)
        state = start(params, REGISTRY)
        while (key := next_exit(state)) is not None:
            expand(state, key)
        assert dumps(snapshot(state), "en") == dumps(generate(params, REGISTRY), "en")


@pytest.mark.parametrize("rules", RULES)
def test_built_areas_never_change(rules: str) -> None:
    """Property 2: play in a random order; every area keeps what it was after its step."""
    for seed in SEEDS:
        state = start(_params(rules, seed), REGISTRY)
        pick = random.Random(seed)
        prints = {a.id: _area_print(a) for lv in state.levels.values() for a in lv.areas.values()}
        for _ in range(40):
            exits = open_exits(state)
            if not exits:
                break
            made = expand(state, exits[pick.randrange(len(exits))].key)
            level = state.levels[made.depth]
            prints.update({i: _area_print(level.areas[i]) for i in made.areas if i in level.areas})
        now = {a.id: _area_print(a) for lv in state.levels.values() for a in lv.areas.values()}
        for area_id, before in prints.items():
            if area_id in now:
                assert now[area_id] == before, f"{rules} seed {seed}: {area_id} changed"
        assert not state.unsettled()


def _replay(params: Params, keys: list[str]) -> DungeonState:
    state = start(params, REGISTRY)
    for key in keys:
        expand(state, key)
    return state


def _behind(state: DungeonState, key: str) -> tuple[list[tuple[object, ...]], set[tuple[int, int]]]:
    """Expand ``key``: the prints of what it made (with the keys of their exits) and its
    cells."""
    made = expand(state, key)
    level = state.levels[made.depth]
    areas = [level.areas[i] for i in made.areas if i in level.areas]
    prints = [
        (
            _area_print(a),
            tuple((c.key, c.kind) for c in state.conns_of(level, a.id) if c.from_ == a.id),
        )
        for a in areas
    ]
    return prints, {c for a in areas for c in a.cells}


def _apart(a: set[tuple[int, int]], b: set[tuple[int, int]]) -> bool:
    if not a or not b:
        return True
    bx = {}
    for x, y in b:
        bx.setdefault(y, []).append(x)
    for x, y in a:
        for yy in range(y - APART, y + APART + 1):
            for xx in bx.get(yy, ()):
                if abs(xx - x) <= APART:
                    return False
    return True


@pytest.mark.parametrize("rules", RULES)
def test_same_door_same_room(rules: str) -> None:
    """Property 3: doors A and B opened A-then-B and B-then-A give the same rooms behind
    each wherever what lies behind them alone stays :data:`APART` cells apart."""
    checked = collided = 0
    for seed in SEEDS:
        params = _params(rules, seed, levels=1, max_areas=30)
        pick = random.Random(seed)
        state = start(params, REGISTRY)
        prefix: list[str] = []
        for _ in range(pick.randrange(4)):
            exits = open_exits(state)
            if not exits:
                break
            prefix.append(exits[pick.randrange(len(exits))].key)
            expand(state, prefix[-1])
        exits = open_exits(state)
        if len(exits) < 2:
            continue
        # A at random, B the exit farthest from it (a pair that can be apart)
        one = exits[pick.randrange(len(exits))]
        other = max(
            (e for e in exits if e.key != one.key),
            key=lambda e: (max(abs(e.x - one.x), abs(e.y - one.y)), e.number),
        )
        a, b = one.key, other.key
        alone_a, cells_a = _behind(_replay(params, prefix), a)
        alone_b, cells_b = _behind(_replay(params, prefix), b)
        if not _apart(cells_a, cells_b):
            collided += 1
            continue
        checked += 1
        first = _replay(params, prefix)
        assert _behind(first, a)[0] == alone_a
        assert _behind(first, b)[0] == alone_b, f"{rules} seed {seed}: B after A differs"
        second = _replay(params, prefix)
        assert _behind(second, b)[0] == alone_b
        assert _behind(second, a)[0] == alone_a, f"{rules} seed {seed}: A after B differs"
    # most pairs are far enough apart to test, some are not (the test is not vacuous)
    assert checked >= 250 and collided >= 10, (checked, collided)


@pytest.mark.parametrize("rules", RULES)
def test_keys_are_stable_and_refused_keys_are_one_line(rules: str) -> None:
    """Exit keys come from geometry (same key in either order of play); unknown, explored
    and malformed keys are one-line DungeonErrors."""
    params = _params(rules, 3, max_areas=30)
    state = start(params, REGISTRY)
    first = open_exits(state)
    assert [e.number for e in first] == list(range(1, len(first) + 1))
    for e in first:
        depth, place, side = e.key.split(":")
        assert (int(depth), side) == (e.depth, side) and place == f"{e.x},{e.y}"
    key = first[0].key
    expand(state, key)
    for bad in (key, "9:1,1:n", "nonsense", "1:" + "9" * 500):
        with pytest.raises(DungeonError) as err:
            expand(state, bad)
        assert "\n" not in str(err.value) and len(str(err.value)) < 200
    doc_keys = [c.key for lv in snapshot(state).levels for c in lv.connections]
    assert len(doc_keys) == len(set(doc_keys)) and all(doc_keys)


def test_full_level_refuses_and_next_is_none() -> None:
    """A level that holds its max_areas areas offers no exit; expanding one is refused."""
    state = start(Params(seed=2, max_areas=3, min_areas=0), REGISTRY)
    while (key := next_exit(state)) is not None:
        expand(state, key)
    level = state.levels[1]
    left = [c for c in level.conns.values() if c.to is None and c.mode in ("exit", "corridor")]
    assert len(level.areas) >= 3 and not open_exits(state)
    if left:
        with pytest.raises(KerkerError, match="stays unexplored"):
            expand(state, left[0].key)


def test_seed_is_the_seed_written() -> None:
    """The seed a document records reproduces it; no seed is refused in one line."""
    a = generate(Params(seed=7), REGISTRY)
    assert a.seed == 7 and a == generate(Params(seed=7), REGISTRY)
    with pytest.raises(DungeonError, match="needs a seed"):
        generate(Params(), REGISTRY)


@pytest.mark.parametrize("rules", RULES)
def test_min_areas_chosen_up_front(rules: str) -> None:
    """start() keeps the roll of level 1 generate() keeps: the same entrance, attempt and
    ``level_rerolled``; a seed that needs rerolls exists among the first 60."""
    rerolled = 0
    for seed in range(60):
        params = Params(rules=rules, seed=seed, min_areas=12, max_areas=20)
        state = start(params, REGISTRY)
        done = generate(params, REGISTRY)
        assert state.attempt == done.attempt
        assert dict(done.bent).get("level_rerolled", 0) == state.tries - 1
        if done.attempt > 1:
            rerolled += 1
            assert len(done.levels[0].areas) >= 12 or state.tries == 50
    assert rerolled > 0


@pytest.mark.parametrize("rules", RULES)
def test_reroll_variant_is_another_room_and_repeatable(rules: str) -> None:
    """``variant`` rolls the same exit with another RNG: the same variant gives the same
    room again, variant 0 is generate()'s; most exits give something else for variant 1."""
    differs = 0
    for seed in range(40):
        params = _params(rules, seed, max_areas=20)
        key = next_exit(start(params, REGISTRY))
        if key is None:
            continue  # the entrance's walk ended at once
        made: dict[int, list[list[tuple[object, ...]]]] = {}
        for variant in (0, 1, 1):
            state = start(params, REGISTRY)
            out = expand(state, key, variant=variant)
            level = state.levels[out.depth]
            made.setdefault(variant, []).append(
                [_area_print(level.areas[i]) for i in out.areas if i in level.areas]
            )
        assert made[1][0] == made[1][1]
        differs += made[0][0] != made[1][0]
    assert differs >= 15
    with pytest.raises(DungeonError, match="reroll variant"):
        expand(start(_params(rules, 1), REGISTRY), "1:1,1:n", variant=-1)


@pytest.mark.parametrize("rules", RULES)
def test_injected_limits_cap_the_corridor_walk(rules: str) -> None:
    """``limits`` reaches the procedures: with one corridor roll allowed, no corridor logs
    more than a handful of rolls of its walk table (one roll, its "roll again" repeats and
    a hall or door roll's follow-ups), against 10+ with the default cap of 30."""
    from kerker.limits import DungeonLimits

    table = {
        "zufallslabyrinth": "zufallslabyrinth/gaenge",
        "scatola-bianca": "scatola-bianca/tiri-periodici",
    }[rules]

    def most(limits: DungeonLimits | None) -> int:
        found = 0
        for seed in range(30):
            dungeon = generate(
                _params(rules, seed, levels=1, max_areas=20), REGISTRY, limits=limits
            )
            for level in dungeon.levels:
                for area in level.areas:
                    found = max(found, sum(r.table == table for r in area.rolls))
        return found

    assert most(DungeonLimits(max_corridor_rolls=1)) <= 4 < 10 <= most(None)
    with pytest.raises(DungeonError, match="levels must be between 1 and 2"):
        generate(
            Params(rules=rules, seed=1, levels=3), REGISTRY, limits=DungeonLimits(max_levels=2)
        )


@pytest.mark.parametrize("rules", RULES)
def test_injected_limits_cap_rerolls_offsets_and_turns(rules: str) -> None:
    """The bending caps are ``limits`` too (no module constant decides them): with no size
    reroll allowed no area records a ``rerolled`` bend (the default of 2 makes some), with
    one door offset more areas are bent or blocked, and Scatola Bianca's A.4 rolls for a
    stretch that keeps meeting rock follow ``max_turn_rolls``."""
    from collections import Counter

    from kerker.limits import DungeonLimits

    def bends(limits: DungeonLimits | None) -> Counter[str]:
        found: Counter[str] = Counter()
        for seed in range(25):
            dungeon = generate(_params(rules, seed, levels=1), REGISTRY, limits=limits)
            found.update(dict(dungeon.bent))
            for level in dungeon.levels:
                for area in level.areas:
                    found.update(f"{b.what}/{b.reason}" for b in area.bends)
        return found

    default = bends(None)
    assert default["size/rerolled"] > 0
    assert bends(DungeonLimits(max_size_rerolls=0))["size/rerolled"] == 0
    one = bends(DungeonLimits(max_door_offsets=1))
    tight = ("rerolled", "shrunk", "blocked")
    assert sum(one[k] for k in tight) > sum(default[k] for k in tight)
    if rules == "scatola-bianca":
        assert bends(DungeonLimits(max_turn_rolls=0))["dead_end"] > default["dead_end"]
