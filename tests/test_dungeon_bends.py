"""Issue 12: what the dice roll is what the map shows (docs/dungeon.md, "Bending").

Over a few hundred dungeons per procedure with default options (bench/dungeon_bends.py
counts 1 000): corridors are built at their rolled width, rooms at their rolled area, and
every difference is a ``bends`` entry; obstacles lie in their corridor; no rolled exit
vanishes. Then one test per finding of the issue, each of which failed before it.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

import pytest

from kerker.dungeon.engine import Params, generate
from kerker.dungeon.export import to_document
from kerker.dungeon.render_key import area_keys, render_md
from kerker.tables.registry import load_registry

REGISTRY = load_registry([])
ZL, SB = "zufallslabyrinth", "scatola-bianca"
SEEDS = {ZL: range(120), SB: range(200)}
OBSTACLES = {"stream", "river", "chasm", "bridge"}
EXIT_KINDS = {"door", "archway", "opening", "secret_door", "one_way_door"}

Doc = dict[str, Any]


def _doc(rules: str, seed: int, lang: str = "en", **more: Any) -> Doc:
    return to_document(generate(Params(rules=rules, seed=seed, **more), REGISTRY), lang)


@pytest.fixture(scope="module", params=[ZL, SB])
def docs(request: pytest.FixtureRequest) -> list[Doc]:
    return [_doc(request.param, s) for s in SEEDS[request.param]]


def _areas(docs: list[Doc]) -> list[dict[str, Any]]:
    return [a for d in docs for lv in d["levels"] for a in lv["areas"]]


def _within(built: float, rolled: float) -> bool:
    return abs(built - rolled) <= 0.15 * rolled


def test_corridors_are_built_at_their_rolled_width(docs: list[Doc]) -> None:
    rolled = [a for a in _areas(docs) if a["kind"] == "corridor" and a["rolled_width_ft"]]
    assert len(rolled) > 500
    as_rolled = [a for a in rolled if a["width_ft"] == a["rolled_width_ft"]]
    assert len(as_rolled) / len(rolled) >= 0.90
    for a in rolled:
        if a["width_ft"] != a["rolled_width_ft"]:
            assert any(b["what"] == "width" for b in a["bends"]), a["id"]


def test_rooms_are_built_at_their_rolled_size(docs: list[Doc]) -> None:
    rooms = [a for a in _areas(docs) if a["kind"] != "corridor"]
    assert all(a["rolled_squares"] for a in rooms)
    ok = [a for a in rooms if _within(a["size"]["squares"], a["rolled_squares"])]
    assert len(ok) / len(rooms) >= 0.90
    for a in rooms:
        if not _within(a["size"]["squares"], a["rolled_squares"]):
            assert any(b["what"] == "size" for b in a["bends"]), (
                a["id"],
                a["rolled_squares"],
                a["size"],
            )


def test_obstacles_and_bridges_lie_in_their_corridor(docs: list[Doc]) -> None:
    seen = 0
    for a in _areas(docs):
        cells = {tuple(c) for c in a["cells"]}
        for f in a["features"]:
            if f["kind"] in OBSTACLES:
                seen += 1
                assert f["cells"] and all(tuple(c) in cells for c in f["cells"]), a["id"]
                # across the whole corridor: it "teilt den Gang in zwei Teile"
                assert len(f["cells"]) * 5 == a["width_ft"], (a["id"], f)
    if docs[0]["rules"] == ZL:
        assert seen > 10


def test_columns_only_where_the_corridor_is_wide_enough(docs: list[Doc]) -> None:
    for a in _areas(docs):
        kinds = [f["kind"] for f in a["features"]]
        if "columns" in kinds:
            assert a["width_ft"] >= 20, a["id"]
        if "gallery" in kinds:
            assert "columns" in kinds


def test_no_rolled_exit_vanishes(docs: list[Doc]) -> None:
    """Every exit a room rolled is built, keyed as a bend, or drawn blocked: the exits rolled
    (a position roll each) equal the exits made plus those an ``exit`` bend says are missing.
    """
    position = {ZL: "zufallslabyrinth/position_ausgaenge", SB: "scatola-bianca/luogo-uscita"}
    table = position[docs[0]["rules"]]
    for d in docs:
        for lv in d["levels"]:
            number = {a["id"]: a["number"] for a in lv["areas"]}
            made: Counter[str] = Counter()
            for c in lv["connections"]:
                if c["kind"] not in EXIT_KINDS or c["to_level"] is not None:
                    continue
                made[c["from"]] += 1
                # an exit whose way an area made later took over (one way per wall edge)
                if c["to"] is not None and number[c["from"]] > number[c["to"]]:
                    made[c["to"]] += 1
            for a in lv["areas"]:
                rolled = sum(1 for r in a["rolls"] if r["table"] == table)
                if not rolled or a["kind"] == "corridor":
                    continue
                missing = sum(
                    b["rolled"] - b["built"]
                    for b in a["bends"]
                    if b["what"] == "exit" and isinstance(b["rolled"], int)
                )
                assert made[a["id"]] + missing >= rolled, (d["seed"], lv["depth"], a["number"])


def test_an_exit_beside_another_into_the_same_area_is_kept() -> None:
    """Zufallslabyrinth seed 551, level 1, hall 14 rolls four exits; two on its entrance
    wall both open into hall 15, the second beside the first. The first one's span is
    shifted back along the wall onto a cell of the second when the level is frozen; the
    second then kept only the cell it has to itself (before: it was dropped as a double, the
    one rolled exit of 1 000 dungeons that was neither built, bent nor blocked)."""
    d = _doc(ZL, 551)
    lv = d["levels"][0]
    hall = next(a for a in lv["areas"] if a["number"] == 14)
    rolled = sum(r["table"] == "zufallslabyrinth/position_ausgaenge" for r in hall["rolls"])
    exits = [c for c in lv["connections"] if c["from"] == hall["id"] and c["to_level"] is None]
    assert rolled == 4 and len(exits) == 4 and not hall["bends"]
    into = [c for c in exits if c["side"] == "s"]
    assert len(into) == 2 and len({c["to"] for c in into}) == 1
    # side by side on the wall, no wall edge opened twice
    cells = [(c["at"][0] + i, c["at"][1]) for c in into for i in range(c["width"])]
    assert len(cells) == len(set(cells)) == 3


def test_no_wall_edge_is_opened_by_two_links(docs: list[Doc]) -> None:
    """Every way through a wall is drawn and keyed once (a link sharing some edges of an
    earlier one keeps only its own)."""
    for d in docs:
        for lv in d["levels"]:
            seen: set[tuple[int, int, int, int]] = set()
            for c in lv["connections"]:
                if c["to"] is None or c["to_level"] is not None or c["side"] not in "nesw":
                    continue
                ax, ay = (0, 1) if c["side"] in ("e", "w") else (1, 0)
                dx, dy = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0)}[c["side"]]
                for i in range(max(1, c["width"])):
                    x, y = c["at"][0] + ax * i, c["at"][1] + ay * i
                    edge = (x, y, x + dx, y + dy)
                    back = (x + dx, y + dy, x, y)
                    assert edge not in seen and back not in seen, (d["seed"], c["id"])
                    seen |= {edge, back}


def test_blocked_exits_are_keyed_and_never_open(docs: list[Doc]) -> None:
    blocked = [
        (lv, c) for d in docs for lv in d["levels"] for c in lv["connections"] if c["blocked"]
    ]
    assert blocked
    for lv, c in blocked:
        assert c["to"] is None and c["id"] not in lv["unexplored"]
        assert c["bends"] and c["bends"][0]["built"] in ("blocked", "dead_end")


# -- the findings of the issue, one by one ---------------------------------------------------


def _gangbreite(area: dict[str, Any]) -> int | None:
    """The width the last Gangbreite roll of a corridor's first exit roll gave."""
    rows = [r for r in area["rolls"] if r["table"] == "zufallslabyrinth/gangbreite"]
    widths = [
        int(r["key"].removeprefix("width_").removesuffix("ft"))
        for r in rows
        if str(r["key"]).startswith("width_")
    ]
    return widths[0] if widths else None


def test_zl_corridor_width_comes_from_the_gangbreite_roll() -> None:
    wide = 0
    for seed in range(40):
        for a in _areas([_doc(ZL, seed, min_areas=0)]):
            if a["kind"] != "corridor":
                continue
            rolled = _gangbreite(a)
            if rolled is None:
                continue
            assert a["rolled_width_ft"] == rolled, (seed, a["id"])
            wide += rolled >= 30 and a["width_ft"] == rolled
    assert wide > 5  # before issue 12 no corridor was ever wider than 10 ft


def test_zl_hall_size_roll_is_in_the_halls_log_not_the_corridors() -> None:
    found = 0
    for seed in range(60):
        for a in _areas([_doc(ZL, seed, min_areas=0)]):
            tables = [r["table"] for r in a["rolls"]]
            if a["kind"] == "corridor":
                assert "zufallslabyrinth/halle" not in tables, (seed, a["id"])
            elif "zufallslabyrinth/halle" in tables:
                found += 1
    assert found


def test_zl_stairs_up_into_a_dead_end_from_level_1_is_not_the_surface() -> None:
    seen = 0
    for seed in range(400):
        d = _doc(ZL, seed, min_areas=0, max_areas=20)
        level = d["levels"][0]
        for c in level["connections"]:
            if c["kind"] == "stairs" and c["direction"] == "up" and c["blocked"]:
                seen += 1
                assert c["to_level"] is None
                assert c["bends"][0]["reason"] == "no_up_from_level_1"
                md = render_md(d, lang="de", depth=1)
                assert "Sackgasse" in md
        if seen >= 2:
            break
    assert seen


def test_zl_w4_only_when_the_exit_leads_into_an_area() -> None:
    """An exit gets the W4 roll only when an area lies straight beyond its wall."""
    from kerker.dungeon.zufallslabyrinth import PROCEDURE as zl
    from kerker.geometry.occupancy import Occupancy

    class _L:
        occ = Occupancy(40, 40)

    level = _L()
    level.occ.add("other", [(10, 5), (11, 5)])  # beside the way, not on it
    area = type("A", (), {"id": "me"})()
    assert zl._leads_into(level, area, (12, 10), "n") is None  # type: ignore[arg-type]
    level.occ.add("ahead", [(12, 7)])
    assert zl._leads_into(level, area, (12, 10), "n") == "ahead"  # type: ignore[arg-type]


def test_sb_passages_turn_instead_of_opening_into_areas() -> None:
    """A.4: "A volta capita che il corridoio non possa proseguire (altre stanze o corridoi
    ...)": the passage turns. Only exits whose far side an area took later still join
    (before issue 12: 2.6 joins per dungeon of these seeds, now below 1)."""
    from kerker.dungeon.scatola_bianca import PROCEDURE as sb

    assert sb.joins is False
    joined = 0
    for seed in range(60):
        dungeon = generate(Params(rules=SB, seed=seed, min_areas=0), REGISTRY)
        joined += dict(dungeon.bent).get("joined", 0)
    assert joined / 60 < 1.0


def test_a_45_degree_start_at_a_door_turns() -> None:
    """The elbow of a corridor's first turn may not claim the cells of the room it leaves;
    before issue 12 it had to, so a 45-deg start beside a room never turned."""
    from kerker.dungeon.corridors import Walker
    from kerker.dungeon.engine import AreaBuilder
    from kerker.dungeon.zufallslabyrinth import PROCEDURE as zl
    from kerker.geometry.occupancy import Occupancy

    occ = Occupancy(40, 40)
    room = {(x, y) for x in range(10, 20) for y in range(20, 30)}
    occ.add("room", room)
    # a 20-ft corridor (4 cells) leaving the room's north wall
    corridor = AreaBuilder("c", 2, "corridor", "corridor", {(x, 19) for x in range(13, 17)}, "n")
    occ.add("c", corridor.cells)

    class _State:
        def grow(self, level: Any, area: AreaBuilder, cells: list[Any]) -> None:
            area.cells.update(cells)
            occ.add(area.id, cells)

    level = type("L", (), {"occ": occ})()
    walker = Walker(corridor, (15, 19), "n", 4, "room")
    assert zl._turn(_State(), level, walker, "right", 1)  # type: ignore[arg-type]
    assert walker.heading == "ne"
    assert not any(occ.owner(c) == "c" for c in room)


def test_sb_elevators_are_20_by_20_and_their_own_room() -> None:
    seen = 0
    for seed in range(300):
        d = _doc(SB, seed, min_areas=0)
        for lv in d["levels"]:
            areas = {a["id"]: a for a in lv["areas"]}
            for c in lv["connections"]:
                if c["kind"] == "elevator" and c["direction"] == "down":
                    seen += 1
                    room = areas[c["from"]]
                    assert room["kind"] == "elevator", (seed, room["id"])
                    assert room["size"]["squares"] == 4, (seed, room["id"], room["size"])
        if seen >= 5:
            break
    assert seen


def test_sb_caves_replace_rooms_and_chambers_and_leave_no_a51_roll() -> None:
    kinds: Counter[str] = Counter()
    for seed in range(30):
        d = _doc(SB, seed, min_areas=0, caves="always")
        for a in _areas([d]):
            kinds[a["kind"]] += 1
            kinds[a["kind"] + "_1"] += a["size"]["squares"] == 1
            tables = {r["table"] for r in a["rolls"]}
            assert "scatola-bianca/forma-camera" not in tables, (seed, a["id"])
            assert "scatola-bianca/forma-stanza" not in tables, (seed, a["id"])
    # only A.2.2's "stanza 10' per 10'" stays a room: it is not rolled on A.5
    assert kinds["cave"] and not kinds["chamber"] and kinds["room"] == kinds["room_1"]


def test_sb_rerolled_rooms_keep_only_the_kept_roll() -> None:
    rerolled = 0
    for seed in range(200):
        for a in _areas([_doc(SB, seed, min_areas=0)]):
            if not any(b["reason"] == "rerolled" for b in a["bends"]):
                continue
            rerolled += 1
            if a["kind"] == "corridor":
                continue
            tables = [r["table"] for r in a["rolls"]]
            own = a["rolls"][: tables.index("scatola-bianca/numero-uscite")]  # before its exits
            shape_rolls = [
                r
                for r in own
                if r["table"]
                in (
                    "scatola-bianca/forma-stanza",
                    "scatola-bianca/forma-camera",
                    "scatola-bianca/cave-e-caverne",
                )
            ]
            assert len(shape_rolls) == 1, (seed, a["id"], shape_rolls)
        if rerolled >= 5:
            break
    assert rerolled


A51 = {
    "scatola-bianca/forma-stanza",
    "scatola-bianca/forma-camera",
    "scatola-bianca/forme-inusuali",
    "scatola-bianca/dimensioni-stanza",
}
"""The tables of A.5.1 (with A.5.2 and A.5.3 for unusual shapes): a room's size and shape."""


def _row_value(table: str, roll: int) -> dict[str, Any]:
    rows = REGISTRY.get(table).rows
    return dict(next(r for r in rows if r.covers(roll)).value)


def test_sb_a51_rolls_sit_on_the_area_they_sized() -> None:
    """Each area's roll log holds exactly the rolls that made it: a room's or chamber's
    A.5.1 roll (made with the door's A.2.2, or with the passage's A.1 "Camera") is in the
    log of that room, first, once, and says its rolled size; no passage keeps one (before:
    a room behind a door had none in its log, and the passage or room with the door kept it)."""
    sized = 0
    for seed in range(150):
        for lv in _doc(SB, seed, min_areas=0, levels=2)["levels"]:
            for a in lv["areas"]:
                tables = [r["table"] for r in a["rolls"]]
                own = [r for r in a["rolls"] if r["table"] in A51]
                where = (seed, lv["depth"], a["number"])
                if a["kind"] == "corridor":
                    assert not own, where
                    continue
                if not own:
                    continue
                shape = [r for r in own if r["table"].rsplit("-", 1)[0].endswith("forma")]
                assert len(shape) == 1, where
                assert tables[: len(own)] == [r["table"] for r in own], where  # first
                value = _row_value(shape[0]["table"], shape[0]["roll"])
                if value.get("shape") in ("square", "rectangular"):
                    squares = (value["w_ft"] // 10) * (value["h_ft"] // 10)
                    assert squares == a["rolled_squares"], (where, value)
                    sized += 1
    assert sized > 200


def test_bends_are_keyed_in_the_gms_language() -> None:
    d_de = _doc(ZL, 3, lang="de")
    md = render_md(d_de, lang="de")
    assert "Angepasste Würfe" in md
    assert "gewürfelt:" in md and "gebaut:" in md
    d_it = _doc(SB, 3, lang="it")
    assert "tirato:" in render_md(d_it, lang="it")
    assert "rolled:" not in render_md(d_it, lang="it")
    # the players do not read the bends
    assert "Angepasste Würfe" not in render_md(d_de, lang="de", view="player")


def test_default_sheet_holds_a_big_cave() -> None:
    """Room for the rolls: without --size the sheet grows, and a cave of 30 x 40 squares
    (seed 000) is built at about its rolled size; with --size 30x40 it must be bent."""
    from kerker.dungeon.bend import SizeSpec, place_rolled
    from kerker.dungeon.sheet import PLANE
    from kerker.geometry.grid import CELLS_PER_SQUARE
    from kerker.geometry.occupancy import Occupancy
    from kerker.limits import DEFAULT_DUNGEON_LIMITS as LIMITS

    spec = SizeSpec("cave", 30, 40, 1200)
    rng = random.Random(1)
    plane = Occupancy(PLANE[0] * CELLS_PER_SQUARE, PLANE[1] * CELLS_PER_SQUARE)
    origin = (plane.width // 2, plane.height - 3)
    placed = place_rolled(
        plane, spec, origin, "n", set(), rng, lambda: None, lambda k: None, LIMITS
    )
    assert placed is not None and placed.built == spec
    assert _within(len(placed.cells) / 4, 1200)
    sheet = Occupancy(60, 80)
    small = place_rolled(
        sheet, spec, (30, 77), "n", set(), rng, lambda: None, lambda k: None, LIMITS
    )
    assert small is not None and small.built != spec


_PART_SQUARES = re.compile(
    r"(?<![\d.,])(\d+[,.]\d+)\s*(?:Feld|Felder|casella|caselle|squares?\b(?! feet))"
)


@pytest.mark.parametrize("rules", [ZL, SB])
def test_no_key_shows_a_part_square_count_no_rule_rolled(rules: str) -> None:
    """Issue 15 ("sizes '0,25 Felder' do not appear"; ZL seed 7, level 1, area 14 keyed
    "gebaut: 1,25 Felder"): the grid's cells are 5 ft, so a slanted room or a narrowed
    corridor covers part squares; the key (body and bend clauses, GM and players, de/it/en)
    rounds a built area as its heading does ("≈ 1 Feld") and gives a part-square width in
    feet ("gebaut: 15 Fuß"). A part-square count may appear only where a rule rolled it
    (Zufallslabyrinth's Gangbreite "0,5 Felder"), that is in one of the area's roll texts.
    Over >= 500 levels, small sheets (many bends) and default ones."""
    levels = part_built = part_width = 0
    seed = 0
    while levels < 500:
        small = seed % 2 == 0
        params = (
            Params(rules=rules, seed=seed, levels=3, size=(16, 16), max_areas=20, min_areas=1)
            if small
            else Params(rules=rules, seed=seed, levels=2)
        )
        dungeon = generate(params, REGISTRY)
        lang = ("de", "it", "en")[seed % 3]
        doc = to_document(dungeon, lang)
        levels += len(doc["levels"])
        for level in doc["levels"]:
            for area in level["areas"]:
                for bend in area["bends"]:
                    built = bend["built"]
                    if bend["what"] == "size" and not float(built).is_integer():
                        part_built += 1
                    if bend["what"] == "width" and built % 10:
                        part_width += 1
        for depth in (level["depth"] for level in doc["levels"]):
            gm_keys = area_keys(doc, depth=depth, lang=lang)
            rolls = {key.anchor: " ".join(key.rolls) for key in gm_keys}
            for view in ("gm", "player"):
                for key in gm_keys if view == "gm" else area_keys(doc, depth=depth, view=view):
                    rolled = rolls[key.anchor]
                    body = [key.heading, key.size, *key.contents, *key.features, *key.traps]
                    body += [*key.bends, *(text for text, _ in key.exits)]
                    for line in body:
                        for m in _PART_SQUARES.finditer(line):
                            assert m.group(1) in rolled, (rules, seed, lang, view, line)
        seed += 1
    # the case is there to be keyed: areas built at part squares, corridors narrowed to it
    assert part_built >= 10 and part_width >= 10, (part_built, part_width)
