"""Dungeons by La Scatola Bianca appendix A (issue 5): invariants over 1 000 seeds,
determinism, termination, lazy expansion and fidelity (chi-square of A.1 along corridors and
of A.5.7 contents against exact odds); the options --caves and --entrance, chambers, elevator
rooms (A.7.1 09-11), the doors below stairs (A.6) and the roll log as a transcript."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from dungeon_support import check_cells, check_connections, reachable

from kerker.dungeon.engine import DungeonError, Params, expand, generate, next_exit, start
from kerker.dungeon.export import dumps, heading_number, to_document
from kerker.dungeon.render_key import render_html, render_md
from kerker.dungeon.scatola_bianca import CAVE_DEPTH, along
from kerker.geometry.grid import VECTORS
from kerker.i18n import dice_text
from kerker.tables.registry import load_registry
from kerker.tables.tree import table_tree

REGISTRY = load_registry([])
SEEDS = range(1000)
RULES = "scatola-bianca"
LEVEL_LINKS = ("stairs", "trapdoor", "shaft", "elevator")


def _params(seed: int) -> Params:
    # small sheets and budgets keep 1 000 seeds fast; every fourth seed has four levels
    # (caves from depth 3 on); min_areas=0: the raw procedure, whose odds the fidelity tests
    # compare (rolling small first levels again selects dungeons; tested in
    # test_dungeon_fidelity.py)
    return Params(
        rules=RULES,
        seed=seed,
        size=(24, 30),
        max_areas=30,
        levels=4 if seed % 4 == 0 else 1,
        min_areas=0,
    )


@pytest.fixture(scope="module")
def docs() -> list[dict[str, Any]]:
    return [to_document(generate(_params(s), REGISTRY), "it") for s in SEEDS]


def test_no_cell_in_two_areas_and_inside_bounds(docs: list[dict[str, Any]]) -> None:
    for doc in docs:
        check_cells(doc)


def test_connection_ends_exist_and_touch(docs: list[dict[str, Any]]) -> None:
    for doc in docs:
        check_connections(doc, LEVEL_LINKS)


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
        a = dumps(generate(_params(seed), REGISTRY), "it")
        b = dumps(generate(_params(seed), REGISTRY), "it")
        assert a == b


def test_lazy_expand_one_exit() -> None:
    state = start(Params(rules=RULES, seed=3), REGISTRY)
    level = state.levels[1]
    assert level.areas
    key = next_exit(state)
    if key is not None:
        assert expand(state, key).key == key
    with pytest.raises(DungeonError):
        expand(state, "c999999")
    assert state.snapshot().area_count >= 1


def test_rolls_read_as_a_transcript(docs: list[dict[str, Any]]) -> None:
    first = docs[3]["levels"][0]["areas"][0]["rolls"]
    assert first[0]["table"] == "scatola-bianca/larghezza-corridoio"
    assert first[0]["label"] == "A.3.2"
    assert any(r["table"] == "scatola-bianca/tiri-periodici" for r in first)
    for r in first:
        assert {"table", "dice", "roll", "row", "key", "explain", "label", "text"} <= set(r)
    # every entry: the table's number as printed (else its title in the document's
    # language, rules-notes-001 [37]), and the text of the row rolled
    headings = {t.id: t.heading for t in REGISTRY if t.rule_set == RULES}
    titles = {t.id: t.title["it"] for t in REGISTRY if t.rule_set == RULES}
    for doc in docs[:200]:
        for level in doc["levels"]:
            for area in level["areas"]:
                for r in area["rolls"]:
                    heading = headings[r["table"]]
                    assert r["label"] == (heading_number(heading) or titles[r["table"]]), r
                    assert r["text"], r
    entry = next(r for r in first if r["table"] == "scatola-bianca/tiri-periodici")
    row = next(row for row in REGISTRY.get(entry["table"]).rows if row.label() == entry["row"])
    assert entry["text"] == row.text["it"]
    assert heading_number("Tabella A.3.1 Corridoio laterale") == "A.3.1"
    assert heading_number("Cave e caverne per i livelli inferiori") is None


def test_transcript_in_the_key() -> None:
    """The key prints the roll log as "Tiro su A.1 (d20): 15 → …" in it, de and en."""
    doc = to_document(generate(_params(3), REGISTRY), "it")
    first = doc["levels"][0]["areas"][0]["rolls"][0]
    for lang, word in (("it", "Tiro su"), ("en", "Roll"), ("de", "Wurf")):
        # the die the reader's way: d12 in it and en, W12 in de (docs/i18n.md)
        dice = dice_text(first["dice"], lang)
        line = f"{first['label']} ({dice}): {first['roll']} → {first['text']}"
        text = render_md(doc, lang=lang)
        assert f"{word} {line}" in text, lang
        assert f"{word} A.1 ({dice_text('d20', lang)}): " in text
        assert f"{word} {line}" in render_html(doc, lang=lang).replace("&#x27;", "'")
    assert "Tiro " not in render_md(doc, lang="it", view="player")


def test_zufallslabyrinth_rolls_read_as_a_transcript_too() -> None:
    """Its headings number no table: its entries are labelled with the table's title in
    the document's language, with the row's text; the secret-door checks say what they
    found; no stair doors, no caves option."""
    params = Params(seed=5, size=(24, 30), max_areas=20)
    doc = to_document(generate(params, REGISTRY), "de")
    rolls = [r for lv in doc["levels"] for a in lv["areas"] for r in a["rolls"]]
    assert rolls and all(r["label"] and r["text"] for r in rolls)
    assert {r["label"] for r in rolls if r["table"] == "zufallslabyrinth/innenausstattung"} == {
        "Innenausstattung"
    }
    assert not any("door_closes" in c for lv in doc["levels"] for c in lv["connections"])
    assert "caves" not in doc["options"]
    text = render_md(doc, lang="de")
    assert "Wurf Innenausstattung (W20): " in text and "innenausstattung: W" not in text
    english = to_document(generate(params, REGISTRY), "en")
    assert "Roll Contents (d20): " in render_md(english, lang="en")  # d20 in English


def test_every_kind_occurs(docs: list[dict[str, Any]]) -> None:
    kinds = Counter(a["kind"] for d in docs for lv in d["levels"] for a in lv["areas"])
    # unusual shapes (A.5.2) keep their kind; no "special" (A.5.7's "Speciale" is another thing)
    assert set(kinds) == {"room", "chamber", "corridor", "cave", "elevator"}, kinds
    shapes = Counter(
        a["shape"]
        for d in docs
        for lv in d["levels"]
        for a in lv["areas"]
        if a["kind"] in ("room", "chamber")
    )
    assert {"rect", "circle", "triangle", "trapezoid", "cave", "oval", "hexagon", "octagon"} <= set(
        shapes
    ), shapes
    conns = Counter(c["kind"] for d in docs for lv in d["levels"] for c in lv["connections"])
    assert {
        "door",
        "secret_door",
        "one_way_door",
        "opening",
        "stairs",
        "trapdoor",
        "shaft",
        "elevator",
    } <= set(conns), conns
    contents = Counter(
        c["kind"] for d in docs for lv in d["levels"] for a in lv["areas"] for c in a["contents"]
    )
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


def _level(doc: dict[str, Any], depth: int) -> dict[str, Any]:
    return next(lv for lv in doc["levels"] if lv["depth"] == depth)


def _areas(doc: dict[str, Any]) -> dict[str, tuple[int, dict[str, Any]]]:
    return {a["id"]: (lv["depth"], a) for lv in doc["levels"] for a in lv["areas"]}


def test_chambers_have_open_passages_rooms_doors(docs: list[dict[str, Any]]) -> None:
    """A.1 "Camera" is a chamber: its exits are openings (A.5.6), a room's are doors; a
    chamber or cave has a door only where its trap (A.7.1 01-05) was a hidden door found."""
    seen = Counter[str]()
    for doc in docs:
        for level in doc["levels"]:
            area = {a["id"]: a for a in level["areas"]}
            for c in level["connections"]:
                if c["to_level"] is not None or c["kind"] not in ("door", "opening"):
                    continue
                here = area[c["from"]]
                # (a door into the 20' x 20' elevator room its trap rolled: issue 12)
                if area.get(str(c["to"]), {}).get("kind") == "elevator":
                    continue
                seen[f"{here['kind']} {c['kind']}"] += 1
                if here["kind"] in ("chamber", "cave") and c["kind"] == "door":
                    assert any(
                        r["table"].endswith("ricerca-porta-nascosta") and r["key"] == "found"
                        for r in here["rolls"]
                    ), here["id"]
    assert seen["chamber opening"] > 1000 and seen["room door"] > 1000, seen
    assert seen["room opening"] == 0 and seen["chamber door"] < 20, seen


def test_caves_by_depth_always_never() -> None:
    """--caves: depth (from CAVE_DEPTH on), always, never; chambers otherwise."""

    def kinds(caves: str, seed: int) -> dict[int, set[str]]:
        params = Params(rules=RULES, seed=seed, size=(24, 30), max_areas=30, levels=4, caves=caves)
        doc = to_document(generate(params, REGISTRY), "it")
        assert doc["options"]["levels"] == 4
        return {lv["depth"]: {a["kind"] for a in lv["areas"]} for lv in doc["levels"]}

    found = Counter[str]()
    for seed in range(40):
        for depth, ks in kinds("depth", seed).items():
            assert ("cave" in ks) <= (depth >= CAVE_DEPTH)
            assert ("chamber" in ks) <= (depth < CAVE_DEPTH)
            found["depth cave"] += "cave" in ks
        for ks in kinds("always", seed).values():
            assert "chamber" not in ks
            found["always cave"] += "cave" in ks
        for ks in kinds("never", seed).values():
            assert "cave" not in ks
            found["never chamber"] += "chamber" in ks
    assert min(found.values()) > 5, found


def test_caves_option_is_checked() -> None:
    with pytest.raises(DungeonError, match="caves takes depth, always, never"):
        Params(rules=RULES, caves="sometimes").checked()
    for caves in ("always", "depth"):  # the procedure declares no option caves
        with pytest.raises(
            DungeonError, match="caves is not an option of the rules zufallslabyrinth"
        ) as err:
            Params(caves=caves).checked()
        assert err.value.option == "caves" and "--" not in str(err.value)
    assert Params().checked().procedure_options() == (("entrance", "variant"),)
    assert Params(rules=RULES, caves="never").checked().procedure_options() == (
        ("entrance", "variant"),
        ("caves", "never"),
    )
    assert Params(rules=RULES).checked().caves == "depth"


@pytest.mark.parametrize(
    ("entrance", "kinds"), [("variant", {"corridor"}), ("room", {"room"}), ("hall", {"chamber"})]
)
def test_entrance_option(entrance: str, kinds: set[str]) -> None:
    """--entrance: a passage (variant), a room (A.5.1 Stanza) or a chamber (Camera), with
    the stairs from the surface in its wall, then its exits and contents by A.5."""
    for seed in range(30):
        params = Params(rules=RULES, seed=seed, size=(24, 30), max_areas=20, entrance=entrance)
        doc = to_document(generate(params, REGISTRY), "it")
        check_cells(doc)
        check_connections(doc, LEVEL_LINKS)
        level = doc["levels"][0]
        first = next(a for a in level["areas"] if a["id"] == level["entrance"])
        assert first["kind"] in kinds
        up = [c for c in level["connections"] if c["to_level"] == 0 and c["kind"] == "stairs"]
        # the entrance's stairs, and those of A.6 row 12 ("up one level": issue 12)
        areas = {a["id"]: a for a in level["areas"]}
        assert up[0]["from"] == first["id"]
        for c in up[1:]:
            assert any(
                r["table"] == "scatola-bianca/scale" and r["key"] == "up_1"
                for r in areas[c["from"]]["rolls"]
            ), c
        if entrance != "variant":
            tables = [r["table"] for r in first["rolls"]]
            assert tables[0].endswith("forma-stanza" if entrance == "room" else "forma-camera")
            assert "scatola-bianca/numero-uscite" in tables
            assert "scatola-bianca/contenuto-stanza" in tables
    cave = Params(rules=RULES, seed=1, entrance="hall", caves="always")
    doc = to_document(generate(cave, REGISTRY), "it")
    assert doc["levels"][0]["areas"][0]["kind"] == "cave"


def test_elevator_rooms(docs: list[dict[str, Any]]) -> None:
    """A.7.1 09-11: the elevator room with its way down (1, 2, or the first stop of 2-5
    levels), a trick (gm_only); from a passage a 20' x 20' area of its own that the passage
    runs into and goes on from; at the bottom the same room with the way back up."""
    seen = Counter[str]()
    for doc in docs:
        areas = _areas(doc)
        for level in doc["levels"]:
            for c in level["connections"]:
                if c["kind"] != "elevator":
                    continue
                assert c["gm_only"], c
                depth, room = areas[c["from"]]
                assert any(
                    x["kind"] == "trap" and "ascensore" in x["text"].lower()
                    for x in room["contents"]
                ), room["id"]
                if c["direction"] == "down":
                    # always the 20' x 20' room as printed (issue 12): a room of that size
                    # that rolled it, or a room of its own behind a door of the passage or
                    # room that rolled it
                    assert room["kind"] == "elevator", room["id"]
                    assert len(room["cells"]) == 16, room
                    rolled = [
                        r for r in room["rolls"] if r["table"].endswith("trappole-e-tranelli")
                    ]
                    if rolled:
                        seen["in a room"] += 1
                    else:
                        feeder = [
                            x
                            for x in level["connections"]
                            if x["to"] == room["id"] and x["kind"] == "door"
                        ]
                        assert feeder, room
                        _d, source = areas[feeder[0]["from"]]
                        rolled = [
                            r for r in source["rolls"] if r["table"].endswith("trappole-e-tranelli")
                        ]
                        seen["from a passage" if source["kind"] == "corridor" else "in a room"] += 1
                    row = [r["row"] for r in rolled if r["row"] in ("9", "10", "11")][-1]
                    levels = {"9": 1, "10": 2, "11": 2}[row]
                    assert c["to_level"] == depth + levels
                    if c["to"] is not None:
                        lower, bottom = areas[c["to"]]
                        assert lower == depth + levels and bottom["kind"] == "elevator"
                        back = [
                            x
                            for x in _level(doc, lower)["connections"]
                            if x["from"] == bottom["id"] and x["kind"] == "elevator"
                        ]
                        assert back[0]["to"] == room["id"] and back[0]["direction"] == "up"
                        assert back[0]["to_level"] == depth
                        seen["arrived"] += 1
    assert seen["from a passage"] > 5 and seen["in a room"] > 5 and seen["arrived"] > 3, seen


def test_elevator_is_a_room_for_the_players() -> None:
    seed = next(
        s for s in range(200) if '"elevator"' in dumps(generate(_params(s), REGISTRY), "en")
    )
    doc = to_document(generate(_params(seed), REGISTRY), "en")
    gm, player = render_md(doc, lang="en"), render_md(doc, lang="en", view="player")
    assert "Elevator down to level" in gm
    assert "Elevator" not in player


def test_doors_below_the_stairs(docs: list[dict[str, Any]]) -> None:
    """A.6 01-07: both ends of the stairs say whether a door shuts the way back for a day,
    as the roll on porta-delle-scale says; the key says it."""
    seen = Counter[str]()
    for doc in docs:
        areas = _areas(doc)
        for level in doc["levels"]:
            for c in level["connections"]:
                if "door_closes" not in c:
                    continue
                assert c["kind"] == "stairs"
                if c["direction"] == "down":
                    _d, area = areas[c["from"]]
                    door = [r for r in area["rolls"] if r["table"].endswith("porta-delle-scale")]
                    assert c["door_closes"] == (door[-1]["key"] == "door_shuts_exit")
                    seen[f"down {c['door_closes']}"] += 1
                else:
                    lower = [
                        x
                        for x in _level(doc, c["to_level"])["connections"]
                        if x["from"] == c["to"] and x["to"] == c["from"]
                    ]
                    assert lower[0]["door_closes"] == c["door_closes"]
                    seen[f"up {c['door_closes']}"] += 1
    assert seen["down True"] > 3 and seen["down False"] > 30 and seen["up True"], seen
    doc = next(
        d
        for d in docs
        if any(c.get("door_closes") for lv in d["levels"] for c in lv["connections"])
    )
    assert "a door shuts" in render_md(doc, lang="en")
    assert "una porta chiude" in render_md(doc, lang="it")
    assert "versperrt eine Tür den Rückweg" in render_md(doc, lang="de")


def test_openings_match_their_wall(docs: list[dict[str, Any]]) -> None:
    """A connection's cells (``at`` and ``width - 1`` more along its wall, as the map opens
    them) are its area's, and face its target or rock. The engine joins an exit that an area
    reached meanwhile without narrowing it; the procedure narrows those on its next step, so
    only joins made when the level stops are left (a few in a thousand)."""
    bad: Counter[str] = Counter()
    total = 0
    for doc in docs:
        for level in doc["levels"]:
            owner = {tuple(c): a["id"] for a in level["areas"] for c in a["cells"]}
            for c in level["connections"]:
                total += 1
                (ax, ay), (dx, dy) = along(c["side"]), VECTORS[c["side"]]
                for i in range(c["width"]):
                    cell = (c["at"][0] + ax * i, c["at"][1] + ay * i)
                    ok = owner.get(cell) == c["from"]
                    if c["to_level"] is None:
                        ok = ok and owner.get((cell[0] + dx, cell[1] + dy)) == c["to"]
                    if not ok:
                        bad[c["kind"]] += 1
                        break
    assert set(bad) <= {"opening"} and bad["opening"] <= total / 500, (bad, total)


def test_no_two_exits_share_an_opening(docs: list[dict[str, Any]]) -> None:
    """Every exit has its own place in the wall (the two arms of an X that leave a side
    wall forwards and backwards included)."""
    for doc in docs:
        for level in doc["levels"]:
            places = Counter(
                (c["from"], tuple(c["at"]), c["side"])
                for c in level["connections"]
                if c["to_level"] is None
            )
            assert max(places.values(), default=1) == 1, doc["seed"]


def test_entrance_stairs_come_in_from_the_edge(docs: list[dict[str, Any]]) -> None:
    """The stairs from the surface sit in the last row an area may use, so nothing can be
    built where they come in."""
    for doc in docs:
        level = doc["levels"][0]
        up = next(c for c in level["connections"] if c["to_level"] == 0 and c["kind"] == "stairs")
        assert up["side"] == "s" and up["at"][1] == level["height"] - 2, doc["seed"]


def test_traps_say_what_their_rolls_made(docs: list[dict[str, Any]]) -> None:
    """A trap's follow-ups (the gas of A.7.2, the fall into a pit, each arrow or spear) are
    its details; "Niente" (A.7.1 row 19) is no trap, only a roll in the log."""
    seen = Counter[str]()
    gas = "Effetti del gas: "
    for doc in docs:
        for level in doc["levels"]:
            for area in level["areas"]:
                for content in area["contents"]:
                    if content["kind"] != "trap":
                        continue
                    assert content["text"] != "Niente.", area["id"]
                    details = content.get("details", [])
                    if "gas" in content["text"]:
                        assert details and details[0].startswith(gas), content
                        seen["gas"] += 1
                    if "frecce" in content["text"]:
                        arrows = sum(
                            int(d.rsplit("(×", 1)[1].rstrip(")")) if "(×" in d else 1
                            for d in details
                        )
                        assert 1 <= arrows <= 6, content
                        seen["arrows"] += 1
    assert seen["gas"] > 20 and seen["arrows"] > 10, seen
