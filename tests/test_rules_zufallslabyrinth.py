"""Rule data of seed 000 (Zufallslabyrinth): schema, coverage, references, languages, the
decisions of docs/rules-notes-000.md, and spot checks of numbers against the seed text.

The tests read the YAML directly (no table engine needed): ranges must cover each die's
span exactly for every setting of the boolean parameters that choose the die.
"""

from __future__ import annotations

import itertools
import re
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import require
from rules_support import (
    TEMPLATE,
    all_rows,
    load_tables,
    oracle_evaluate,
    oracle_fill,
    oracle_names,
    row_for,
    walk_effects,
)

from kerker.dice import odds
from kerker.tables.schema import (
    AgainEffect,
    AmountEffect,
    ChanceEffect,
    NoteEffect,
    Plural,
    RollEffect,
    Row,
    Table,
    TableFile,
)

RULES = Path(__file__).resolve().parents[1] / "src" / "kerker" / "rules" / "zufallslabyrinth"
SEED_FILE = "000_e7a8372dea3b5206.txt"
SEED_PATH = Path(__file__).resolve().parents[2] / "shared" / "seeds" / SEED_FILE
LANGS = ("de", "it", "en")
PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


# --------------------------------------------------------------------------------------
# Loading


@cache
def files() -> dict[str, TableFile]:
    return {path.name: tf for path, tf in load_tables(RULES)[0].items()}


@cache
def tables() -> dict[str, Table]:
    return load_tables(RULES)[1]


def t(name: str) -> Table:
    return tables()[name]


def row(table: str, key: str) -> Row:
    (match,) = [r for r in t(table).rows if r.key == key]
    return match


def row_at(table: str, result: int) -> Row:
    return row_for(t(table), result)


def effects(r: Row, kind: type) -> list[Any]:
    return [e for e in r.effects if isinstance(e, kind)]


def contexts(table: Table) -> list[dict[str, int | bool]]:
    """Every combination of the table's boolean params (others at their defaults)."""
    bools = [k for k, v in table.params.items() if isinstance(v, bool)]
    out = []
    for combo in itertools.product([False, True], repeat=len(bools)):
        ctx: dict[str, int | bool] = {"level": 1, **table.params}
        ctx.update(dict(zip(bools, combo, strict=True)))
        out.append(ctx)
    return out


def span(dice: str, modifier: str | None, ctx: dict[str, int | bool]) -> tuple[int, int]:
    dist = odds(oracle_fill(dice, ctx))
    add = int(oracle_evaluate(modifier, ctx)) if modifier else 0
    return int(dist.min) + add, int(dist.max) + add


def check_cover(name: str, rows: list[Row], lo: int, hi: int) -> set[int]:
    """Every result in lo..hi hits exactly one row; returns the indexes of rows hit."""
    hit: set[int] = set()
    for result in range(lo, hi + 1):
        matches = [
            i
            for i, r in enumerate(rows)
            if r.range is not None
            and r.range[0] <= result
            and (r.range[1] is None or result <= r.range[1])
        ]
        assert len(matches) == 1, f"{name}: result {result} hits rows {matches}"
        hit |= set(matches)
    return hit


# --------------------------------------------------------------------------------------
# Structure


def test_every_file_validates_and_names_the_seed() -> None:
    assert len(files()) >= 5
    for tf in files().values():
        assert tf.rule_set == "zufallslabyrinth"
        assert tf.language == "de"
        assert tf.source_file == SEED_FILE


EXPECTED = {
    "eingangsbereich",
    "innenausstattung",
    "finesse_oder_falle",
    "kerkerzufallsbegegnung",
    "kerkerzufallsbegegnung_wasser",
    "schatz",
    "schatzbehaelter",
    "schatzsicherung",
    "fallengesicherter_schatz",
    "versteckter_schatz",
    "ausgang_ohne_tuer",
    "ausgang_mit_tuer",
    "gangbreite",
    "gaenge",
    "lage_der_tuer",
    "art_der_abzweigung",
    "raum",
    "halle",
    "besondere_raeume",
    "hoehle",
    "form",
    "kreis_besonderheit",
    "anzahl_ausgaenge",
    "position_ausgaenge",
    "ausgang_kollision",
    "gewaesser",
    "magisches_gewaesser",
    "attribut",
    "wunsch_gesinnung",
    "teleport_ziel",
    "treppe_falltuer_schacht",
}


def test_every_table_of_the_seed_is_there() -> None:
    assert set(tables()) == EXPECTED


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_rows_cover_the_die_exactly(name: str) -> None:
    table = t(name)
    assert table.dice is not None
    assert table.gaps == "error"
    reached: set[int] = set()
    for ctx in contexts(table):
        lo, hi = span(table.dice, table.modifier, ctx)
        reached |= check_cover(name, table.rows, lo, hi)
    assert reached == set(range(len(table.rows))), f"{name}: a row can never come up"
    for r in table.rows:
        if r.then is not None:
            dist = odds(r.then.dice)
            assert check_cover(
                f"{name} {r.range}", r.then.rows, int(dist.min), int(dist.max)
            ) == set(range(len(r.then.rows)))


def texts_of(table: Table) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = [("title", table.title)]
    found += [("note", n) for n in table.notes]
    for r in all_rows(table):
        found.append((f"row {r.range}", r.text))
        for e in walk_effects(r.effects):
            if isinstance(e, NoteEffect):
                found.append((f"note {r.range}", e.note))
            if isinstance(e, ChanceEffect):
                found += [(f"chance {r.range}", x) for x in (e.text, e.else_text) if x]
            if isinstance(e, AmountEffect) and e.unit:
                found.append((f"unit {r.range}", e.unit))
    return found


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_text_has_all_three_languages(name: str) -> None:
    for where, text in texts_of(t(name)):
        assert set(text) == set(LANGS), f"{name} {where}: {sorted(text)}"
        for lang, value in text.items():
            parts = [value.one, value.other] if isinstance(value, Plural) else [value]
            assert all(p.strip() for p in parts), f"{name} {where} {lang}"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_placeholders_are_amounts_or_context(name: str) -> None:
    table = t(name)
    for r in all_rows(table):
        amounts = [e.name for e in r.effects if isinstance(e, AmountEffect)]
        added = {k for e in r.effects if isinstance(e, AgainEffect) for k in e.add}
        known = set(amounts) | set(table.params) | {"level"} | added
        for lang, value in r.text.items():
            if isinstance(value, Plural):
                assert amounts, f"{name} {r.range}: one/other text without an amount"
                assert "{" not in value.one
                assert f"{{{amounts[0]}}}" in value.other
                parts = [value.one, value.other]
            else:
                parts = [value]
            for part in parts:
                assert set(PLACEHOLDER.findall(part)) <= known, f"{name} {r.range} {lang}"


def roll_edges() -> list[tuple[str, RollEffect]]:
    edges = []
    for name, table in tables().items():
        for r in all_rows(table):
            edges += [(name, e) for e in walk_effects(r.effects) if isinstance(e, RollEffect)]
    return edges


def test_references_resolve_and_pass_known_params() -> None:
    for source, effect in roll_edges():
        target = effect.roll.removeprefix("zufallslabyrinth/")
        assert target in tables(), f"{source} rolls unknown {effect.roll}"
        for var in effect.with_ or {}:
            assert var in t(target).params, f"{source} passes {var} to {target}"


def test_conditions_read_only_known_names() -> None:
    for name, table in tables().items():
        known = set(table.params) | {"level", "result"}
        exprs = [table.modifier] if table.modifier else []
        exprs += [m.group(1) for m in TEMPLATE.finditer(table.dice or "")]
        for r in all_rows(table):
            for e in walk_effects(r.effects):
                exprs += [
                    x
                    for x in (
                        getattr(e, "when", None),
                        getattr(e, "reroll_if", None),
                        getattr(e, "modifier", None),
                    )
                    if x
                ]
                if isinstance(e, AmountEffect):
                    exprs += [m.group(1) for m in TEMPLATE.finditer(e.amount)]
                if isinstance(e, RollEffect) and e.with_:
                    exprs += list(e.with_.values())
        for text in exprs:
            assert oracle_names(text) <= known, f"{name}: {text!r}"


def test_follow_up_rolls_have_no_cycles() -> None:
    graph: dict[str, set[str]] = {n: set() for n in tables()}
    for source, effect in roll_edges():
        graph[source].add(effect.roll.removeprefix("zufallslabyrinth/"))
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        if state.get(node) == 1:
            raise AssertionError(" -> ".join([*path, node]))
        if state.get(node) == 2:
            return
        state[node] = 1
        for nxt in sorted(graph[node]):
            visit(nxt, [*path, node])
        state[node] = 2

    for node in sorted(graph):
        visit(node, [])


def test_sources_and_defaults() -> None:
    defaults = {n for n, tb in tables().items() if tb.default}
    assert defaults == {
        "eingangsbereich",
        "finesse_oder_falle",
        "kerkerzufallsbegegnung",
        "kerkerzufallsbegegnung_wasser",
    }
    for name in defaults:
        assert t(name).decision
        assert "kerker" in t(name).title["de"] and "kerker" in t(name).title["en"]
    # A table without its own heading line says so in its decision.
    for name, table in tables().items():
        if " / " in table.source.heading:
            assert table.decision, name


# --------------------------------------------------------------------------------------
# Decisions (docs/rules-notes-000.md), one test each


def test_d01_entrance_variants_are_placeable() -> None:
    table = t("eingangsbereich")
    assert table.dice == "W6" and len(table.rows) == 6
    for r in table.rows:
        v = r.value
        assert v["kind"] in ("room", "hall")
        assert v["area"] == int(v["w"]) * int(v["h"])
        walls = str(v["exit_walls"]).split(",")
        assert len(walls) == v["exits"] and set(walls) <= {"opposite", "left", "right", "entrance"}
    assert any("Schritt 5" in n["de"] for n in table.notes)


def test_d02_guarded_treasure_twice_with_bonus() -> None:
    guarded = row("innenausstattung", "monster_treasure")
    (treasure,) = [e for e in effects(guarded, RollEffect) if e.roll == "schatz"]
    assert treasure.times == 2 and treasure.with_ == {"guarded": "true"}
    plain = row("innenausstattung", "treasure")
    (treasure,) = [e for e in effects(plain, RollEffect) if e.roll == "schatz"]
    assert treasure.times == 1 and treasure.with_ is None
    assert t("schatz").modifier == "1 if guarded else 0"
    assert span("W20", t("schatz").modifier, {"guarded": True}) == (2, 21)
    assert row_at("schatz", 21).key == "magic_item"


def test_d03_level_multiplies_dice_and_counts() -> None:
    ctx = {"level": 3}
    gold = effects(row("schatz", "gold"), AmountEffect)[0]
    assert oracle_fill(gold.amount, ctx) == "3W4 × 100"  # "3W4 × 100 GM statt 1W4"
    copper = effects(row("schatz", "copper"), AmountEffect)[0]
    assert oracle_fill(copper.amount, ctx) == "6W10 × 100"
    magic = effects(row("schatz", "magic_item"), AmountEffect)[0]
    assert odds(oracle_fill(magic.amount, {"level": 5})).min == 5  # "5 magische Gegenstände"
    text = row("schatz", "magic_item").text["de"]
    assert isinstance(text, Plural) and text.one == "1 magischer Gegenstand."
    assert text.other == "{amount} magische Gegenstände."


def test_d04_empty_container_is_one_and_rerolls_zero() -> None:
    r18 = row_at("schatz", 19)
    assert r18.then is not None
    empty = r18.then.rows[0]
    assert empty.key == "empty_container"
    assert not effects(empty, AmountEffect)
    (container,) = effects(empty, RollEffect)
    assert container.roll == "schatzbehaelter" and container.reroll_if == "result == 10"
    assert row_at("schatzbehaelter", 10).key == "none"
    # every other treasure amount comes with a container roll, without the reroll
    for r in all_rows(t("schatz")):
        if effects(r, AmountEffect):
            rolls = effects(r, RollEffect)
            assert [e.roll for e in rolls] == ["schatzbehaelter"] and rolls[0].reroll_if is None


def test_d05_trapped_and_hidden_are_independent_halves() -> None:
    table = t("schatzsicherung")
    assert table.dice == "W4"
    die = odds("W4")

    def p(test: str) -> Fraction:
        return sum(
            (
                die.probability(r.range[0])
                for r in table.rows
                if r.range
                and oracle_evaluate(
                    test, {"trapped": bool(r.value["trapped"]), "hidden": bool(r.value["hidden"])}
                )
            ),
            Fraction(0),
        )

    p_trap, p_hide, both = p("trapped"), p("hidden"), p("trapped and hidden")
    assert p_trap == p_hide == Fraction(1, 2) and both == p_trap * p_hide
    for r in table.rows:
        rolled = {e.roll for e in effects(r, RollEffect)}
        assert ("fallengesicherter_schatz" in rolled) == r.value["trapped"]
        assert ("versteckter_schatz" in rolled) == r.value["hidden"]
    for source in ("innenausstattung", "gewaesser"):
        for r in t(source).rows:
            for e in effects(r, RollEffect):
                if e.roll == "schatzsicherung":
                    assert e.when is not None and "protect_treasure" in e.when


def test_d06_obstacles_reroll_the_width_ignoring_over_96() -> None:
    for key in ("stream", "river", "chasm"):
        (again,) = effects(row("gangbreite", key), AgainEffect)
        assert again.reroll_if == "result > 96" and again.add == {}
    (bridge,) = effects(row("gangbreite", "stream"), ChanceEffect)
    assert bridge.chance == 75
    (bridge,) = effects(row("gangbreite", "river"), ChanceEffect)
    assert bridge.chance == 50 and bridge.else_[0].chance == 50
    assert bridge.else_[0].then[0].chance == 50
    assert bridge.else_[0].then[0].name == "boat_on_players_bank"
    chasm = row("gangbreite", "chasm")
    assert chasm.value["depth_ft"] == 100
    (bridge,) = effects(chasm, ChanceEffect)
    assert bridge.chance == 50 and bridge.else_[0].name == "narrow_spot"
    assert bridge.else_[0].chance == 50


def test_d07_columns_single_or_double_then_gallery() -> None:
    for key in ("width_40ft", "width_50ft"):
        (columns,) = effects(row("gangbreite", key), ChanceEffect)
        assert (columns.name, columns.chance) == ("columns", 50)
        (double,) = columns.then
        assert (double.name, double.chance) == ("double_columns", 50)
        (gallery,) = double.then
        assert (gallery.name, gallery.chance) == ("gallery", 10)
    for key in ("width_5ft", "width_10ft", "width_20ft", "width_30ft"):
        assert not row("gangbreite", key).effects


def test_d08_corridor_loop_and_wandering_monsters() -> None:
    assert row("gaenge", "straight").value == {"advance_squares": 5, "repeat": True}
    for key in ("door", "branch", "curve", "stairs"):
        v = row("gaenge", key).value
        assert v["advance_squares"] == 3 and v["repeat"] is True
    assert row("gaenge", "door").value["continue_unless_side"] == "ahead"
    assert row("gaenge", "stairs").value["continue_if_kind"] == "trapdoor,shaft"
    dead = row("gaenge", "dead_end").value
    assert dead == {"dead_end": True, "secret_door_chance": 25}
    monster = row("gaenge", "monster")
    (again,) = effects(monster, AgainEffect)
    assert again.reroll_if == "result == 20" and again.add == {"wandering_monsters": 1}
    assert [e.roll for e in effects(monster, RollEffect)] == ["kerkerzufallsbegegnung"]


def test_d09_curve_uses_a_w10() -> None:
    table = t("art_der_abzweigung")
    assert span(table.dice or "", None, {"curve": True}) == (1, 10)
    assert span(table.dice or "", None, {"curve": False}) == (1, 20)
    (curve,) = effects(row("gaenge", "curve"), RollEffect)
    assert curve.roll == "art_der_abzweigung" and curve.with_ == {"curve": "true"}
    (branch,) = effects(row("gaenge", "branch"), RollEffect)
    assert branch.with_ is None
    assert row_at("art_der_abzweigung", 5).then is not None
    assert row_at("art_der_abzweigung", 10).then is not None


def test_d10_form_repeat_adds_ten() -> None:
    r = row("form", "repeat")
    assert r.range == (16, 20)
    (again,) = effects(r, AgainEffect)
    assert again.add == {"area": 10} and again.reroll_if is None
    assert all(x.value.get("approx") is True for x in t("form").rows if x.key != "repeat")


@pytest.mark.parametrize(
    ("result", "area", "exits"),
    [
        (1, 5, 1),
        (1, 6, 2),
        (6, 5, 2),
        (6, 6, 3),
        (8, 6, 4),
        (11, 10, 0),
        (11, 11, 1),
        (14, 15, 0),
        (14, 16, 1),
        (20, 100, 1),
    ],
)
def test_d11_one_more_exit_above_the_printed_area(result: int, area: int, exits: int) -> None:
    r = row_at("anzahl_ausgaenge", result)
    (amount,) = effects(r, AmountEffect)
    assert amount.name == "exits"
    dist = odds(oracle_fill(amount.amount, {"area": area, "hall": False, "level": 1}))
    assert dist.min == dist.max == exits


def test_d12_secret_doors_only_when_no_exit_remains() -> None:
    for key, limit in (("none_over_10", 10), ("none_over_15", 15)):
        r = row("anzahl_ausgaenge", key)
        (note,) = effects(r, NoteEffect)
        assert "25 %" in note.note["de"]
        assert note.when is not None
        assert oracle_evaluate(note.when, {"area": limit}) is True
        assert oracle_evaluate(note.when, {"area": limit + 1}) is False
    d4 = row("anzahl_ausgaenge", "d4")
    assert effects(d4, AmountEffect)[0].amount == "1W4"
    unusual = row("anzahl_ausgaenge", "unusual")
    whens = sorted(n.when or "" for n in effects(unusual, NoteEffect))
    assert whens == ["hall", "not hall"]


def test_d13_water_is_certain_when_the_seed_gives_it() -> None:
    table = t("gewaesser")
    assert span(table.dice or "", None, {"water_wanted": True}) == (1, 8)
    assert span(table.dice or "", None, {"water_wanted": False}) == (1, 20)
    callers = [
        ("hoehle", "double_8x10_3x5", "false"),
        ("hoehle", "size_10x12", "false"),
        ("hoehle", "size_15x20", "false"),
        ("hoehle", "size_30x40", "true"),
        ("kreis_besonderheit", "water", "false"),
    ]
    for table_name, key, large in callers:
        (water,) = effects(row(table_name, key), RollEffect)
        assert water.roll == "gewaesser"
        assert water.with_ == {"water_wanted": "true", "large": large}
    for key in ("size_4x6", "size_5x7", "double_6x6_3x3", "size_12x15"):
        assert not row("hoehle", key).effects


def test_d14_large_magic_water_is_monster_and_treasure() -> None:
    r = row("gewaesser", "magic_water")
    rolls = effects(r, RollEffect)
    assert (rolls[0].roll, rolls[0].when) == ("magisches_gewaesser", "not large")
    large = [e for e in rolls if e.when and "large" in e.when and e.when != "not large"]
    assert {e.roll for e in large} == {"kerkerzufallsbegegnung_wasser", "schatz", "schatzsicherung"}
    (treasure,) = [e for e in large if e.roll == "schatz"]
    assert treasure.times == 2 and treasure.with_ == {"guarded": "true"}
    mt = row("gewaesser", "water_monster_treasure")
    (treasure,) = [e for e in effects(mt, RollEffect) if e.roll == "schatz"]
    assert treasure.times == 2 and treasure.with_ == {"guarded": "true"}


def test_d15_magic_water_sub_rolls() -> None:
    (alchemy,) = effects(row("magisches_gewaesser", "alchemy"), ChanceEffect)
    assert (alchemy.name, alchemy.chance) == ("platinum", 60)
    assert alchemy.else_text is not None and "Blei" in str(alchemy.else_text["de"])
    attributes = row("magisches_gewaesser", "attributes")
    (loss,) = effects(attributes, ChanceEffect)
    assert loss.chance == 50
    assert [e.roll for e in effects(attributes, RollEffect)] == ["attribut"]
    wish = row("magisches_gewaesser", "wish")
    (damage,) = effects(wish, AmountEffect)
    assert (damage.amount, damage.name) == ("1W20", "damage")
    assert "{damage}" in str(wish.text["de"]) and "24 Stunden" in str(wish.text["de"])
    assert [e.roll for e in effects(wish, RollEffect)] == ["wunsch_gesinnung"]
    teleport = row("magisches_gewaesser", "teleport")
    assert [e.roll for e in effects(teleport, RollEffect)] == ["teleport_ziel"]


def test_d16_trapdoor_or_shaft_die() -> None:
    table = t("treppe_falltuer_schacht")
    assert span(table.dice or "", None, {"trapdoor_or_shaft": True}) == (1, 6)
    for result in range(1, 7):
        assert row_at("treppe_falltuer_schacht", result).value["kind"] in ("trapdoor", "shaft")
    assert all(row_at("treppe_falltuer_schacht", r).value["kind"] == "stairs" for r in range(7, 21))
    (shaft,) = effects(row("kreis_besonderheit", "trapdoor_or_shaft"), RollEffect)
    assert shaft.with_ == {"trapdoor_or_shaft": "true"}
    (stairs,) = effects(row("innenausstattung", "stairs"), RollEffect)
    assert stairs.with_ is None


def test_d17_where_stairs_arrive_and_the_surface() -> None:
    ends = {str(r.key): r.value["ends_in"] for r in t("treppe_falltuer_schacht").rows}
    assert ends["stairs_up_1_dead_end"] == ends["stairs_down_1_dead_end"] == "dead_end"
    assert ends["stairs_down_1_hall"] == "hall"
    assert {v for k, v in ends.items() if "dead_end" not in k and "hall" not in k} == {"corridor"}
    for r in t("treppe_falltuer_schacht").rows:
        notes = effects(r, NoteEffect)
        if r.value["direction"] == "up" and r.value["ends_in"] != "dead_end":
            (note,) = notes
            assert note.when == f"level <= {r.value['levels']}"
        else:
            assert not notes


def test_d18_special_shape_repeats_the_roll() -> None:
    r = row("besondere_raeume", "special")
    (again,) = effects(r, AgainEffect)
    assert again.add == {} and again.reroll_if is None
    assert effects(r, NoteEffect)
    cave = row("besondere_raeume", "cave")
    assert cave.value == {"shape": "cave", "kind": "hall"}
    circle = row("besondere_raeume", "circle")
    assert [e.roll for e in effects(circle, RollEffect)] == ["form", "kreis_besonderheit"]
    for key in ("hexagon", "octagon", "oval", "trapezoid", "triangle"):
        assert [e.roll for e in effects(row("besondere_raeume", key), RollEffect)] == ["form"]


def test_d19_cave_areas_add_up() -> None:
    for r in t("hoehle").rows:
        v = r.value
        total = int(v["w"]) * int(v["h"]) + int(v.get("w2", 0)) * int(v.get("h2", 0))
        assert total == v["area"], r.key
        assert v["kind"] == "hall"
        assert bool(v.get("double")) == ("w2" in v)


def test_d20_default_encounters_have_numbers() -> None:
    for name in ("kerkerzufallsbegegnung", "kerkerzufallsbegegnung_wasser"):
        for r in t(name).rows:
            (number,) = effects(r, AmountEffect)
            assert number.name == "number"
            assert isinstance(r.text["de"], Plural)
    for r in t("gewaesser").rows:
        for e in effects(r, RollEffect):
            assert e.roll != "kerkerzufallsbegegnung"


def test_d21_rooms_and_exits_tables() -> None:
    for name, kind in (("raum", "room"), ("halle", "hall")):
        for r in t(name).rows:
            assert r.value["kind"] == kind
            if "w" in r.value:
                assert r.value["area"] == int(r.value["w"]) * int(r.value["h"])
            else:
                assert [e.roll for e in effects(r, RollEffect)] == ["besondere_raeume"]
    one = row("ausgang_mit_tuer", "room_1x1")
    assert one.value == {"kind": "room", "w": 1, "h": 1, "area": 1} and not one.effects
    for name in ("ausgang_ohne_tuer", "ausgang_mit_tuer"):
        for r in t(name).rows:
            if r.value["kind"] == "corridor":
                assert r.value["length_squares"] == 3
                assert effects(r, RollEffect)[0].roll == "gangbreite"
                if r.value["turn"] != "none":
                    assert r.value["fallback"] != r.value["turn"]
                    assert effects(r, NoteEffect)


# --------------------------------------------------------------------------------------
# Spot checks against the seed text


@cache
def seed_lines() -> list[str]:
    return (
        require(SEED_PATH, "the rule text beside the checkout")
        .read_text(encoding="utf-8")
        .splitlines()
    )


def section(start: str, end: str) -> list[str]:
    lines = seed_lines()
    i = lines.index(start)
    j = lines.index(end, i + 1)
    return lines[i + 1 : j]


SCHATZ = ("W20\tW8\tSchatzmenge", "W10\tSchatzbehälter")
RANGE_LINE = re.compile(r"^(\d{1,2})(?:-(\d{1,2}))?\t(.*)$")


def printed(start: str, end: str, top: int) -> list[tuple[int, int, str]]:
    """The ranges printed between two lines, "0"/"00" read as the die's top face."""
    out: list[tuple[int, int, str]] = []
    for line in section(start, end):
        m = RANGE_LINE.match(line)
        if not m:
            continue
        lo = int(m.group(1)) or top
        hi = int(m.group(2)) if m.group(2) is not None else lo
        hi = hi or top
        if out and (out[-1][0], out[-1][1]) == (lo, hi):
            continue  # sub-die lines ("18\t1-5", "18\t6-8") share the W20 range
        out.append((lo, hi, m.group(3)))
    return out


def ranges(name: str) -> list[tuple[int, int]]:
    return [
        (r.range[0], r.range[1] if r.range[1] is not None else r.range[0])
        for r in t(name).rows
        if r.range is not None
    ]


@pytest.mark.parametrize(
    ("name", "start", "end", "top"),
    [
        ("innenausstattung", "Schritt 2: Innenausstattung", "Schatz", 20),
        ("schatz", "W20\tW8\tSchatzmenge", "W10\tSchatzbehälter", 20),
        (
            "schatzbehaelter",
            "W10\tSchatzbehälter",
            '↑ Würfle "0" auf der Tabelle "Schatzbehälter" erneut.',
            10,
        ),
        ("fallengesicherter_schatz", "Fallengesicherter Schatz", "Versteckter Schatz", 20),
        ("versteckter_schatz", "Versteckter Schatz", "Schritt 3: Ausgänge", 20),
        ("gangbreite", "Gangbreite", "Schritt 4: Gänge", 100),
        ("gaenge", "Schritt 4: Gänge", "Lage der Tür", 20),
        ("lage_der_tuer", "Lage der Tür", "Art der Abzweigung", 20),
        ("art_der_abzweigung", "Art der Abzweigung", "Schritt 5: Räume und Hallen", 20),
        ("raum", "W20\tRaum", "W20\tHalle", 20),
        ("halle", "W20\tHalle", "Besondere Räume oder Hallen", 20),
        ("besondere_raeume", "W20\tBesondere Räume oder Hallen", "W20\tHöhle", 20),
        ("hoehle", "W20\tHöhle", "W20\tForm", 20),
        ("form", "W20\tForm", "Anzahl der Ausgänge", 20),
        ("anzahl_ausgaenge", "Anzahl der Ausgänge", "Position der Ausgänge", 20),
        ("position_ausgaenge", "W10\tWand", "W4\tDer Ausgang ...", 10),
        ("ausgang_kollision", "W4\tDer Ausgang ...", "Gewässer", 4),
        ("gewaesser", "Gewässer", "Magische Gewässer", 20),
        (
            "magisches_gewaesser",
            "Magische Gewässer",
            "Zwischenschritt: Treppe, Falltür oder Schacht",
            20,
        ),
        (
            "treppe_falltuer_schacht",
            "Zwischenschritt: Treppe, Falltür oder Schacht",
            "[monster-1] Hierzu kann eine Kerkerzufallsbegegnung verwendet werden.",
            20,
        ),
    ],
)
def test_ranges_as_printed(name: str, start: str, end: str, top: int) -> None:
    got = printed(start, end, top)
    if name == "schatz":
        assert "20+\t\t1 magischer Gegenstand" in section(start, end)
        assert t(name).rows[-1].range == (20, None)  # printed "20+"
        assert [(lo, hi) for lo, hi, _ in got] == ranges(name)[:-1]
        return
    assert [(lo, hi) for lo, hi, _ in got] == ranges(name)


def test_exit_ranges_as_printed() -> None:
    got = [(lo, hi) for lo, hi, _ in printed("Schritt 3: Ausgänge", "Gangbreite", 20)]
    assert ranges("ausgang_ohne_tuer") == got[:4]
    assert ranges("ausgang_mit_tuer") == [*got[:3], (8, 10), *got[4:]]


def test_sizes_as_printed() -> None:
    size = re.compile(r"(\d+) × (\d+)(?:, (\d+) × (\d+))?(?:\^\[\d\])*\t(\d+)")
    for name, start, end in (
        ("raum", "W20\tRaum", "W20\tHalle"),
        ("halle", "W20\tHalle", "Besondere Räume oder Hallen"),
        ("hoehle", "W20\tHöhle", "W20\tForm"),
    ):
        for lo, _hi, rest in printed(start, end, 20):
            m = size.search(rest)
            if not m:
                continue
            v = row_at(name, lo).value
            assert (v["w"], v["h"], v["area"]) == (
                int(m.group(1)),
                int(m.group(2)),
                int(m.group(5)),
            ), (name, lo)
            if m.group(3):
                assert (v["w2"], v["h2"]) == (int(m.group(3)), int(m.group(4)))
    for lo, _hi, rest in printed("W20\tForm", "Anzahl der Ausgänge", 20):
        m = re.search(r"~(\d+)", rest)
        if m:
            assert row_at("form", lo).value["area"] == int(m.group(1))


def test_widths_as_printed() -> None:
    for lo, _hi, rest in printed("Gangbreite", "Schritt 4: Gänge", 100):
        m = re.search(r"(\d+) Fuß/.*?(\d+) Yard", rest)
        if m:
            v = row_at("gangbreite", lo).value
            assert (v["width_ft"], v["outdoor_width_yd"]) == (int(m.group(1)), int(m.group(2)))


def test_exit_counts_as_printed() -> None:
    for lo, _hi, rest in printed("Anzahl der Ausgänge", "Position der Ausgänge", 20):
        count, plus = rest.split("\t")
        v = row_at("anzahl_ausgaenge", lo).value
        count = re.sub(r"\^\[\d\]", "", count)
        if count == "1W4":
            assert v["exits_dice"] == "1W4"
        else:
            assert v["exits"] == int(count)
        if plus.startswith(">"):
            assert v["plus_one_over"] == int(plus[1:])
        else:
            assert "plus_one_over" not in v


def test_stairs_as_printed() -> None:
    kinds = {"Falltür": "trapdoor", "Schacht": "shaft", "Treppe": "stairs"}
    directions = {"Runter": "down", "Hoch": "up"}
    for lo, _hi, rest in printed(
        "Zwischenschritt: Treppe, Falltür oder Schacht",
        "[monster-1] Hierzu kann eine Kerkerzufallsbegegnung verwendet werden.",
        20,
    ):
        kind, direction, levels = rest.split("\t")
        v = row_at("treppe_falltuer_schacht", lo).value
        assert v["kind"] == kinds[kind] and v["direction"] == directions[direction]
        assert v["levels"] == int(levels[0])


def bracket_ranges(text: str) -> list[tuple[int, int]]:
    out = []
    for m in re.finditer(r"\[(\d{2})(?:-(\d{2}))?\]", text):
        lo = int(m.group(1))
        out.append((lo, int(m.group(2)) if m.group(2) else lo))
    return out


def test_inline_tables_as_printed() -> None:
    text = "\n".join(seed_lines())
    (circle,) = [ln for ln in seed_lines() if ln.startswith("↑ Besonderheit (1W20)")]
    assert bracket_ranges(circle) == ranges("kreis_besonderheit")
    (wish,) = [ln for ln in seed_lines() if ln.startswith("16-17\tWunsch")]
    assert bracket_ranges(wish) == ranges("wunsch_gesinnung")
    (tele,) = [ln for ln in seed_lines() if ln.startswith("18-20\tTeleport")]
    assert bracket_ranges(tele) == ranges("teleport_ziel")
    (attr,) = [ln for ln in seed_lines() if ln.startswith("09-15\tAttribute")]
    names = re.findall(r"\[(\d)\] (\w+)", attr)
    assert [n for _, n in names] == [str(r.text["de"]).rstrip(".") for r in t("attribut").rows]
    assert "(60%)" in text and "(40%)" in text
    assert "75% der Fälle" in text and "100 Fuß" in text and "25% Chance" in text


def test_treasure_amounts_as_printed() -> None:
    lines = printed(*SCHATZ, 20)
    coins = {lo: rest.split("\t")[-1] for lo, _hi, rest in lines if "×" in rest}
    for lo, text in coins.items():
        amount = effects(row_at("schatz", lo), AmountEffect)[0]
        m = re.match(r"(\d)W(\d+) × (\d+) (\w+)", text)
        assert m is not None
        count, die, factor, unit = m.groups()
        assert oracle_fill(amount.amount, {"level": 1}) == f"{count}W{die} × {factor}"
        assert amount.unit is not None and amount.unit["de"] == unit
    subs = re.findall(r"^(18|19)\t(\d)-(\d)\t", "\n".join(section(*SCHATZ)), re.M)
    got = [(int(a), (int(b), int(c))) for a, b, c in subs]
    want = []
    for r in t("schatz").rows:
        if r.then is not None:
            assert r.then.dice == "W8" and r.range is not None
            want += [(r.range[0], sub.range) for sub in r.then.rows]
    assert got == want


def test_headings_as_printed() -> None:
    lines = set(seed_lines())
    text = "\n".join(seed_lines())
    for name, table in tables().items():
        heading, _, column = table.source.heading.partition(" / ")
        assert heading in lines, f"{name}: {heading!r} is not a heading line of the seed"
        assert column in text, f"{name}: column title {column!r} not in the seed"
