"""Dungeons by La Scatola Bianca appendix A (issue 5): invariants over 1 000 seeds,
determinism, termination, lazy expansion and fidelity (chi-square of A.1 along corridors and
of A.5.7 contents against exact odds)."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from dungeon_support import check_cells, check_connections, reachable

from kerker.dungeon.engine import Params, expand, generate, start
from kerker.dungeon.export import dumps, to_document
from kerker.tables.registry import load_registry
from kerker.tables.tree import table_tree

REGISTRY = load_registry([])
SEEDS = range(1000)
RULES = "scatola-bianca"


def _params(seed: int) -> Params:
    # small sheets and budgets keep 1 000 seeds fast; every fourth seed has four levels
    # (caves from depth 3 on)
    return Params(rules=RULES, seed=seed, size=(24, 30), max_areas=30,
                  levels=4 if seed % 4 == 0 else 1)


@pytest.fixture(scope="module")
def docs() -> list[dict[str, Any]]:
    return [to_document(generate(_params(s), random.Random(s), REGISTRY), "it") for s in SEEDS]


def test_no_cell_in_two_areas_and_inside_bounds(docs: list[dict[str, Any]]) -> None:
    for doc in docs:
        check_cells(doc)


def test_connection_ends_exist_and_touch(docs: list[dict[str, Any]]) -> None:
    for doc in docs:
        check_connections(doc, ("stairs", "trapdoor", "shaft"))


def test_every_area_reachable(docs: list[dict[str, Any]]) -> None:
    for doc in docs:
        ids = {a["id"] for lv in doc["levels"] for a in lv["areas"]}
        assert reachable(doc) == ids, (doc["seed"], ids - reachable(doc))


def test_budget_levels_and_termination(docs: list[dict[str, Any]]) -> None:
    # generation of all 1 000 seeds finished (the fixture); budgets hold
    for doc in docs:
        assert doc["rules"] == RULES and doc["lang"] == "it"
        assert 1 <= len(doc["levels"]) <= doc["options"]["levels"]
        for level in doc["levels"]:
            assert len(level["areas"]) <= doc["options"]["max_areas"] + 8  # + arrivals
        first = doc["levels"][0]
        assert first["areas"][0]["id"] == first["entrance"]


def test_same_seed_same_json() -> None:
    for seed in (0, 1, 17, 4242):
        a = dumps(generate(_params(seed), random.Random(seed), REGISTRY), "it")
        b = dumps(generate(_params(seed), random.Random(seed), REGISTRY), "it")
        assert a == b


def test_lazy_expand_one_exit() -> None:
    state = start(Params(rules=RULES, seed=3), random.Random(3), REGISTRY)
    level = state.levels[1]
    assert level.areas
    if level.frontier:
        assert expand(state, level.frontier[-1])
    assert not expand(state, "c999999")
    assert state.snapshot().area_count >= 1


def test_rolls_read_as_a_transcript(docs: list[dict[str, Any]]) -> None:
    first = docs[3]["levels"][0]["areas"][0]["rolls"]
    assert first[0]["table"] == "scatola-bianca/larghezza-corridoio"
    assert any(r["table"] == "scatola-bianca/tiri-periodici" for r in first)
    for r in first:
        assert {"table", "dice", "roll", "row", "key", "explain"} <= set(r)


def test_every_kind_occurs(docs: list[dict[str, Any]]) -> None:
    kinds = Counter(a["kind"] for d in docs for lv in d["levels"] for a in lv["areas"])
    assert {"room", "hall", "corridor", "special", "cave"} <= set(kinds), kinds
    conns = Counter(c["kind"] for d in docs for lv in d["levels"] for c in lv["connections"])
    assert {"door", "secret_door", "one_way_door", "opening", "stairs", "trapdoor",
            "shaft"} <= set(conns), conns
    contents = Counter(c["kind"] for d in docs for lv in d["levels"] for a in lv["areas"]
                       for c in a["contents"])
    assert {"monster", "treasure", "trap", "water", "stairs"} <= set(contents), contents


def _critical(df: int) -> float:
    z = 3.09  # p = 0.001, Wilson-Hilferty
    return df * (1 - 2 / (9 * df) + z * (2 / (9 * df)) ** 0.5) ** 3


def _exact(table: str, **context: int | bool) -> dict[str, Fraction]:
    tree = table_tree(REGISTRY, "scatola-bianca/" + table, context=context)
    exact: dict[str, Fraction] = {}
    for row in tree.rows:
        exact[row.label] = exact.get(row.label, Fraction(0)) + row.p
    return exact


def _chi2(seen: Counter[str], exact: dict[str, Fraction]) -> float:
    n = sum(seen.values())
    assert set(seen) <= set(exact), (seen, exact)
    return sum((seen.get(k, 0) - n * float(p)) ** 2 / (n * float(p)) for k, p in exact.items())


def test_a1_outcomes_along_corridors(docs: list[dict[str, Any]]) -> None:
    """Every check of A.1 (first die of each check; the roll again after a wandering monster
    is its own entry, so the second entry after a 20 is left out)."""
    exact = _exact("tiri-periodici")
    seen: Counter[str] = Counter()
    for doc in docs:
        for level in doc["levels"]:
            for area in level["areas"]:
                after_20 = False
                for r in area["rolls"]:
                    if r["table"] != "scatola-bianca/tiri-periodici":
                        continue
                    if not after_20:
                        seen[r["row"]] += 1
                    after_20 = r["roll"] == 20 and not after_20
    assert sum(seen.values()) > 5000
    assert _chi2(seen, exact) < _critical(len(exact) - 1), seen


def test_a57_contents(docs: list[dict[str, Any]]) -> None:
    exact = _exact("contenuto-stanza")
    seen: Counter[str] = Counter()
    for doc in docs:
        for level in doc["levels"]:
            for area in level["areas"]:
                for r in area["rolls"]:
                    if r["table"] == "scatola-bianca/contenuto-stanza":
                        seen[r["row"]] += 1
                        break
    assert sum(seen.values()) > 2000
    assert _chi2(seen, exact) < _critical(len(exact) - 1), seen
