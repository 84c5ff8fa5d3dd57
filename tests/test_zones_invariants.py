"""Zone maps over 1 000 seeds: invariants of the procedure, determinism, and fidelity to
the tables (chi-square of map size, node fill, merges and connection rolls against the
exact odds of the shipped tables).

The 1 000 maps (sizes rolled by step 1) are generated once per module without details
(the layout is what the invariants are about, and details never change it: see
``test_same_seed_same_output``); the details are checked on the first 200 seeds.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import pairwise
from typing import Any

import pytest

from kerker.tables.odds import table_odds
from kerker.tables.registry import load_registry
from kerker.zones.export import dumps, to_json
from kerker.zones.generate import ZoneParams, generate, letter
from kerker.zones.model import Point, ZoneMap

REGISTRY = load_registry()
SEEDS = range(1000)


DETAILED = range(200)


@pytest.fixture(scope="module")
def maps() -> list[ZoneMap]:
    return [generate(ZoneParams(seed=s, details=False), random.Random(s), REGISTRY) for s in SEEDS]


@pytest.fixture(scope="module")
def detailed() -> list[ZoneMap]:
    return [generate(ZoneParams(seed=s), random.Random(s), REGISTRY) for s in DETAILED]


def _adjacent(a: Point, b: Point) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def _edge_connected(points: tuple[Point, ...]) -> bool:
    todo, seen = [points[0]], {points[0]}
    members = set(points)
    while todo:
        x, y = todo.pop()
        for other in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if other in members and other not in seen:
                seen.add(other)
                todo.append(other)
    return seen == members


def _bfs(root: str, graph: dict[str, set[str]]) -> set[str]:
    todo, seen = [root], {root}
    while todo:
        for there in graph[todo.pop()] - seen:
            seen.add(there)
            todo.append(there)
    return seen


def check_notes(zmap: ZoneMap, graph: dict[str, set[str]]) -> None:
    """Every reachability note names exactly the areas an independent walk of the
    connections finds (English notes; the other languages share the computation)."""
    from kerker.zones.render_text import notes

    lines = notes(zmap, "en")

    def named(prefix: str) -> set[str]:
        hits = [line for line in lines if line.startswith(prefix)]
        assert len(hits) <= 1
        if not hits:
            return set()
        return {p.strip() for p in hits[0][len(prefix) :].rstrip(".").split(",")}

    opened: dict[str, set[str]] = {a.letter: set() for a in zmap.areas}
    for link in zmap.connections:
        if not link.hidden:
            opened[link.a].add(link.b)
            opened[link.b].add(link.a)
    behind = named("Reached from the start only through hidden connections: ")
    if zmap.start is None:
        assert not behind
    else:
        assert behind == _bfs(zmap.start, graph) - _bfs(zmap.start, opened)
    assert not named("Not reached from the start at all: ")
    # the example in brackets follows the theme: the ways stand after the last ": "
    hits = [line for line in lines if line.startswith("Hidden ways across empty nodes")]
    assert len(hits) <= 1
    ways = {p.strip() for p in hits[0].rsplit(": ", 1)[1].rstrip(".").split(",")} if hits else set()
    assert ways == {f"{c.a}–{c.b}" for c in zmap.connections if c.via}
    assert named("No connection at all: ") == {a for a, there in graph.items() if not there}


def check_invariants(zmap: ZoneMap) -> None:
    """Everything the procedure promises about one map (also used by other test files)."""
    zones = zmap.zones
    area_of = {p: zmap.grid[p[1]][p[0]] for p in zones}
    # Every zone has an area, every area a letter: A, B, ... in reading order of first zones.
    assert all(area_of[p] for p in zones)
    assert [a.letter for a in zmap.areas] == [letter(i) for i in range(len(zmap.areas))]
    firsts = [a.zones[0] for a in zmap.areas]
    assert firsts == sorted(firsts, key=lambda p: (p[1], p[0]))
    assert sorted(p for a in zmap.areas for p in a.zones) == sorted(zones)
    for area in zmap.areas:
        assert all(area_of[p] == area.letter for p in area.zones)
        assert area.label in area.zones
        assert _edge_connected(area.zones), area
    # Step 3 per zone (default): one roll for every zone with a zone beside it, in reading
    # order, a merge joining one of those neighbours. Per pair: one roll per edge-adjacent
    # pair. Either way the areas are exactly the groups the merges chain into.
    pairs = [((x, y), o) for x, y in zones for o in ((x + 1, y), (x, y + 1)) if o in area_of]
    if zmap.merge == "pair":
        assert [(m.a, m.b) for m in zmap.merges] == pairs
    else:
        beside = {p: [o for o in zones if _adjacent(p, o)] for p in zones}
        assert [m.a for m in zmap.merges] == [p for p in zones if beside[p]]
        for m in zmap.merges:
            assert (m.b is not None) == m.merged
            assert m.b is None or m.b in beside[m.a]
    parent = {p: p for p in zones}

    def find(p: Point) -> Point:
        while parent[p] != p:
            p = parent[p]
        return p

    for merge in zmap.merges:
        if merge.merged:
            assert merge.b is not None
            parent[find(merge.a)] = find(merge.b)
    for a, b in pairs:
        assert (find(a) == find(b)) == (area_of[a] == area_of[b])
    # Neighbour areas: share an edge.
    touching = {frozenset((area_of[a], area_of[b])) for a, b in pairs if area_of[a] != area_of[b]}
    for area in zmap.areas:
        assert set(area.neighbours) == {
            next(iter(t - {area.letter})) for t in touching if area.letter in t
        }
    # Connections: one per pair; every pair of neighbours has exactly one, open or hidden,
    # along a shared edge. The only others are hidden ways across empty nodes: a chain of
    # edge-adjacent empty nodes from a zone of one area to a zone of the other.
    seen = [frozenset((c.a, c.b)) for c in zmap.connections]
    assert len(seen) == len(set(seen))
    assert {s for s, c in zip(seen, zmap.connections, strict=True) if not c.via} == touching
    for link in zmap.connections:
        assert link.a != link.b
        one, two = link.edge
        assert area_of[one] == link.a and area_of[two] == link.b
        if not link.via:
            assert _adjacent(one, two)
            continue
        assert link.hidden and frozenset((link.a, link.b)) not in touching
        chain = [one, *link.via, two]
        assert all(_adjacent(p, q) for p, q in pairwise(chain))
        assert all(zmap.grid[y][x] is None for x, y in link.via)
        assert len(set(link.via)) == len(link.via)
    # Every area can be reached, through open or hidden connections, from the start (or
    # from A when there is none): the text's "Verbindungen, aber diese gelten als verborgen".
    if zmap.areas:
        root = zmap.start or zmap.areas[0].letter
        graph: dict[str, set[str]] = {a.letter: set() for a in zmap.areas}
        for link in zmap.connections:
            graph[link.a].add(link.b)
            graph[link.b].add(link.a)
        todo, reached = [root], {root}
        while todo:
            for there in graph[todo.pop()] - reached:
                reached.add(there)
                todo.append(there)
        assert reached == set(graph), (zmap.seed, set(graph) - reached)
        check_notes(zmap, graph)
    # Step 4: an area got what it rolled, capped by its neighbours; it never made more links
    # than it rolled.
    for area in zmap.areas:
        made = sum(1 for c in zmap.connections if not c.hidden and c.a == area.letter)
        assert made <= area.rolled
        assert zmap.accesses(area.letter) >= min(area.rolled, len(area.neighbours))
    # Start: an area with two or more open connections; none exactly when no area has two.
    candidates = tuple(a.letter for a in zmap.areas if zmap.accesses(a.letter) >= 2)
    assert zmap.start_candidates == candidates
    assert (zmap.start is None) == (not candidates)
    if zmap.start is not None:
        assert zmap.start in candidates


def test_invariants_over_1000_seeds(maps: list[ZoneMap]) -> None:
    for zmap in maps:
        check_invariants(zmap)
    # The seeds cover every size and both kinds of start.
    assert {(m.width, m.height) for m in maps} == {(3, 3), (5, 3), (5, 5), (8, 5), (8, 8)}
    assert any(m.start is None for m in maps) and any(m.start for m in maps)
    assert any(c.hidden for m in maps for c in m.connections)


def test_details_for_every_area(detailed: list[ZoneMap]) -> None:
    for zmap in detailed:
        check_invariants(zmap)
        names = [a.details.name.key for a in zmap.areas if a.details]
        assert len(names) == len(zmap.areas)
        # Names repeat only once the table's 20 names are used up.
        if len(names) <= 20:
            assert len(set(names)) == len(names)
        for area in zmap.areas:
            assert area.details is not None
            senses = [s.values["sense"] for s in area.details.senses]
            assert len(senses) == 3 and len(set(senses)) == 3
            assert (area.details.scope is None) == (area.details.property.key == "none")
        for link in zmap.connections:
            assert (link.hint is not None) == link.hidden


def test_same_seed_same_output(maps: list[ZoneMap], detailed: list[ZoneMap]) -> None:
    # Every seed again: the same map, roll for roll.
    for seed, zmap in zip(SEEDS, maps, strict=True):
        again = generate(ZoneParams(seed=seed, details=False), random.Random(seed), REGISTRY)
        assert again == zmap and again.log == zmap.log
    # The details never move the layout ...
    for seed, full in zip(DETAILED, detailed, strict=True):
        bare = maps[seed]
        assert (full.grid, full.merges, full.start) == (bare.grid, bare.merges, bare.start)
        assert [(c.a, c.b, c.hidden, c.edge) for c in full.connections] == [
            (c.a, c.b, c.hidden, c.edge) for c in bare.connections
        ]
    # ... and maps with details come out the same too, texts and pictures included.
    from kerker.zones.render_svg import render_svg

    for seed in DETAILED[::10]:
        again = generate(ZoneParams(seed=seed), random.Random(seed), REGISTRY)
        assert dumps(again, "de") == dumps(detailed[seed], "de")
        assert render_svg(again, lang="de") == render_svg(detailed[seed], lang="de")


# -- fidelity: the dice behave like the tables ------------------------------------------------


def _critical(df: int) -> float:
    z = 3.09  # p = 0.001, Wilson-Hilferty
    return df * (1 - 2 / (9 * df) + z * (2 / (9 * df)) ** 0.5) ** 3


def _chi2(observed: Counter[Any], exact: dict[Any, Fraction]) -> tuple[float, int]:
    n = sum(observed.values())
    assert set(observed) <= set(exact)
    cells = [(observed.get(k, 0), n * float(p)) for k, p in exact.items()]
    assert all(e >= 5 for _o, e in cells)
    return sum((o - e) ** 2 / e for o, e in cells), len(cells) - 1


def _exact(table: str, *names: str) -> dict[Any, Fraction]:
    out: dict[Any, Fraction] = {}
    for outcome, p in table_odds(REGISTRY, f"zonenkarten/{table}"):
        values = dict(outcome.values)
        key = tuple(values[n] for n in names)
        out[key] = out.get(key, Fraction(0)) + p
    return out


def test_map_sizes_match_the_table(maps: list[ZoneMap]) -> None:
    seen = Counter((m.width, m.height) for m in maps)
    chi2, df = _chi2(seen, _exact("map-size", "w", "h"))
    assert chi2 < _critical(df), (chi2, df, seen)


def test_zone_fill_matches_the_table(maps: list[ZoneMap]) -> None:
    seen = Counter((cell is not None,) for m in maps for row in m.grid for cell in row)
    chi2, df = _chi2(seen, _exact("node-content", "zone"))
    assert chi2 < _critical(df), (chi2, df, seen)


def test_merges_match_the_table(maps: list[ZoneMap]) -> None:
    seen = Counter((merge.merged,) for m in maps for merge in m.merges)
    assert sum(seen.values()) > 10_000
    chi2, df = _chi2(seen, _exact("merge", "merged"))
    assert chi2 < _critical(df), (chi2, df, seen)


def test_connection_rolls_match_the_table(maps: list[ZoneMap]) -> None:
    seen = Counter((a.rolled,) for m in maps for a in m.areas)
    chi2, df = _chi2(seen, _exact("connections", "connections"))
    assert chi2 < _critical(df), (chi2, df, seen)


def test_the_log_holds_every_step(detailed: list[ZoneMap]) -> None:
    for zmap in detailed:
        steps = Counter(entry["step"] for entry in zmap.log)
        assert steps["map-size"] == 1
        assert steps["node"] == zmap.width * zmap.height
        assert steps["merge"] == len(zmap.merges)
        assert steps["connections"] == len(zmap.areas)
        assert steps["hidden"] == sum(1 for c in zmap.connections if c.hidden)
        data = to_json(zmap, "en")
        assert data["log"] == [dict(e) for e in zmap.log]
        merges = [e for e in zmap.log if e["step"] == "merge"]
        assert [e["zone"] for e in merges] == [list(m.a) for m in zmap.merges]
        picks = {tuple(e["zone"]): e for e in zmap.log if e["step"] == "merge-with"}
        for m in zmap.merges:
            if m.b is not None and tuple(m.a) in picks:
                entry = picks[tuple(m.a)]
                assert entry["among"][entry["roll"] - 1] == list(m.b)
        assert all(
            (e["key"] == "merged") == m.merged for e, m in zip(merges, zmap.merges, strict=True)
        )


def test_invariants_per_pair_reading() -> None:
    # The older reading (--merge pair) keeps every promise too, hidden ways included.
    for seed in range(300):
        zmap = generate(
            ZoneParams(seed=seed, details=False, merge="pair"), random.Random(seed), REGISTRY
        )
        check_invariants(zmap)


def test_every_separated_area_gets_a_drawn_hidden_way() -> None:
    # Seed 7 (issue 17): "A, E" were named behind hidden connections with no line on the
    # map. Now every hidden way is in the SVG, across the empty nodes it crosses.
    from kerker.zones.render_svg import render_svg

    zmap = generate(ZoneParams(seed=7), random.Random(7), REGISTRY)
    check_invariants(zmap)
    ways = [c for c in zmap.connections if c.via]
    assert ways
    svg = render_svg(zmap, view="gm", lang="en")
    assert svg.count('<polyline class="hidden-connection"') == len(ways)
    assert '<polyline class="hidden-connection"' not in render_svg(zmap, view="player", lang="en")
