"""Dungeons (issue 4): invariants over 1 000 seeds, determinism, fidelity (chi-square)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from dungeon_support import check_cells, check_connections, reachable

from kerker.dungeon.engine import DungeonError, Params, expand, generate, next_exit, start
from kerker.dungeon.export import dumps, to_document
from kerker.dungeon.model import Dungeon
from kerker.tables.registry import load_registry
from kerker.tables.tree import table_tree

REGISTRY = load_registry([])
SEEDS = range(1000)


def _params(seed: int) -> Params:
    # small sheets and budgets keep 1 000 seeds fast; every fourth seed has two levels
    return Params(
        seed=seed,
        size=(24, 30),
        max_areas=30,
        levels=2 if seed % 4 == 0 else 1,
        entrance=("variant", "room", "hall")[seed % 3],
    )


@pytest.fixture(scope="module")
def docs() -> list[dict[str, Any]]:
    return [to_document(generate(_params(s), REGISTRY), "de") for s in SEEDS]


def test_no_cell_in_two_areas_and_inside_bounds(docs: list[dict[str, Any]]) -> None:
    for doc in docs:
        check_cells(doc)


def test_connection_ends_exist_and_touch(docs: list[dict[str, Any]]) -> None:
    for doc in docs:
        check_connections(doc, ("stairs", "trapdoor", "shaft", "opening", "door"))


def test_every_area_reachable(docs: list[dict[str, Any]]) -> None:
    only_secret = 0
    for doc in docs:
        ids = {a["id"] for lv in doc["levels"] for a in lv["areas"]}
        full = reachable(doc, secret=True)
        assert full == ids, (doc["seed"], ids - full)
        only_secret += len(ids - reachable(doc, secret=False))
    print(f"areas reachable only through secret doors: {only_secret}")


def test_same_seed_same_json() -> None:
    for seed in (0, 1, 17, 4242):
        a = dumps(generate(_params(seed), REGISTRY), "de")
        b = dumps(generate(_params(seed), REGISTRY), "de")
        assert a == b


def test_budget_and_levels(docs: list[dict[str, Any]]) -> None:
    for doc in docs:
        assert 1 <= len(doc["levels"]) <= doc["options"]["levels"]
        for level in doc["levels"]:
            assert len(level["areas"]) <= doc["options"]["max_areas"] + 8  # + arrivals
        assert doc["levels"][0]["areas"][0]["kind"] == "entrance"


def test_lazy_expand_one_exit() -> None:
    state = start(Params(seed=3), REGISTRY)
    key = next_exit(state)
    assert key is not None
    assert expand(state, key).areas
    with pytest.raises(DungeonError):
        expand(state, "1:9999,9999:n")
    dungeon: Dungeon = state.snapshot()
    assert dungeon.area_count >= 2


def _critical(df: int) -> float:
    z = 3.09  # p = 0.001, Wilson-Hilferty
    return df * (1 - 2 / (9 * df) + z * (2 / (9 * df)) ** 0.5) ** 3


def test_contents_match_innenausstattung(docs: list[dict[str, Any]]) -> None:
    tree = table_tree(REGISTRY, "zufallslabyrinth/innenausstattung")
    exact: dict[str, Fraction] = {}
    for row in tree.rows:
        exact[row.label] = exact.get(row.label, Fraction(0)) + row.p
    seen: Counter[str] = Counter()
    for doc in docs:
        for level in doc["levels"]:
            for area in level["areas"]:
                for r in area["rolls"]:
                    if r["table"] == "zufallslabyrinth/innenausstattung":
                        seen[r["row"]] += 1
                        break
    n = sum(seen.values())
    assert n > 5000
    chi2 = sum((seen.get(k, 0) - n * float(p)) ** 2 / (n * float(p)) for k, p in exact.items())
    assert chi2 < _critical(len(exact) - 1), (chi2, seen)


def test_every_table_outcome_kind_occurs(docs: list[dict[str, Any]]) -> None:
    kinds = Counter(a["kind"] for d in docs for lv in d["levels"] for a in lv["areas"])
    assert {"entrance", "room", "hall", "corridor", "special", "cave"} <= set(kinds)
    conns = Counter(c["kind"] for d in docs for lv in d["levels"] for c in lv["connections"])
    assert {
        "door",
        "secret_door",
        "one_way_door",
        "archway",
        "opening",
        "stairs",
        "trapdoor",
        "shaft",
    } <= set(conns)
    contents = Counter(
        c["kind"] for d in docs for lv in d["levels"] for a in lv["areas"] for c in a["contents"]
    )
    assert {"monster", "treasure", "trap", "trick", "water", "stairs"} <= set(contents)
