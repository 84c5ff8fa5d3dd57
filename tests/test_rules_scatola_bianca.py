"""Rule data of seed 001 (La Scatola Bianca, appendice A): schema, coverage, references,
languages, the decisions of docs/rules-notes-001.md, and spot checks against the seed text.

The tests read the YAML directly; only the last one asks the table linter. Ranges must cover
each die's span exactly for every context the table can be rolled in (its boolean
parameters, the values other tables pass with ``with``, a few dungeon levels).
"""

from __future__ import annotations

import itertools
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import require
from rules_support import (
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

RULES = Path(__file__).resolve().parents[1] / "src" / "kerker" / "rules" / "scatola-bianca"
SEED_FILE = "001_321b690b886d011d.txt"
SEED_PATH = Path(__file__).resolve().parents[2] / "shared" / "seeds" / SEED_FILE
LANGS = ("de", "it", "en")
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")

# Every table of the appendix: id -> heading exactly as printed (and the die as printed).
PRINTED = {
    "tiri-periodici": ("Tabella A.1: Tiri periodici", "1d20"),
    "porte": ("Tabella A.2.1: Porte", "1d12"),
    "dietro-la-porta": ("Tabella A.2.2: Dietro la porta", "1d12"),
    "corridoio-laterale": ("Tabella A.3.1 Corridoio laterale", "1d12"),
    "larghezza-corridoio": ("Tabella A.3.2: Larghezza corridoio", "1d12"),
    "svolte": ("Tabella A.4: Svolte", "1d12"),
    "forma-camera": ("Tabella A.5.1: Forma stanza o camera", "1d12"),
    "forma-stanza": ("Tabella A.5.1: Forma stanza o camera", "1d12"),
    "forme-inusuali": ("Tabella A.5.2: Forme inusuale", "1d12"),
    "dimensioni-stanza": ("Tabella A.5.3: Dimensioni stanza", "1d12"),
    "numero-uscite": ("Tabella A.5.4: Numero uscite", "1d6"),
    "luogo-uscita": ("Tabella A.5.5: Luogo dell’uscita", "1d12"),
    "direzione-uscita": ("Tabella A.5.6: Direzione dell’uscita", "1d12"),
    "contenuto-stanza": ("Tabella A.5.7: Contenuto della camera o della stanza", "1d20"),
    "tesoro-senza-mostri": ("Tabella A.5.8: Tesoro senza mostri", "1d100"),
    "scale": ("Tabella A.6: Scale", "1d20"),
    "trappole-e-tranelli": ("Tabella A.7.1: Trappole e tranelli", "1d20"),
    "effetti-gas": ("Tabella A.7.2: Effetti del gas", "1d12"),
    "cave-e-caverne": ("Tabella A.8.1: Cave e caverne", "1d12"),
    "pozze": ("Tabella A.8.2: Pozze", "1d12"),
    "laghi": ("Tabella A.8.3: Laghi", "1d12"),
    "pozze-magiche": ("Tabella A.8.4: Pozze magiche", "1d12"),
    "caratteristica-modificata": ("Tabella A.8.5: Caratteristica modificata", "1d6"),
}
DIE = {"1d20": "d20", "1d12": "d12", "1d6": "d6", "1d100": "d%"}
# Tables made from footnotes, notes and "x su N" chances: id -> (heading, die).
FROM_NOTES = {
    "porta-segreta-muro": ("Tabella A.5.4: Numero uscite", "d12"),
    "uscita-su-area-mappata": ("Tabella A.5.6: Direzione dell’uscita", "d6"),
    "porta-delle-scale": ("Tabella A.6: Scale", "d{one_in}"),
    "ricerca-porta-nascosta": ("Tabella A.7.1: Trappole e tranelli", "d6"),
    "caduta-nel-fosso": ("Tabella A.7.1: Trappole e tranelli", "d6"),
    "freccia-avvelenata": ("Tabella A.7.1: Trappole e tranelli", "d6"),
    "lancia-avvelenata": ("Tabella A.7.1: Trappole e tranelli", "d12"),
    "uscita-caverna": ("Cave e caverne per i livelli inferiori", "d6"),
    "alterazione-caratteristica": ("Tabella A.8.4: Pozze magiche", "d6"),
    "tana-del-lago-incantato": ("Tabella A.8.3: Laghi", "1d4+1"),
    "mostro-errante": ("Tabella A.1: Tiri periodici", "d6"),
}


# --------------------------------------------------------------------------------------
# Loading and helpers


@cache
def files() -> dict[str, TableFile]:
    return {path.name: tf for path, tf in load_tables(RULES)[0].items()}


@cache
def tables() -> dict[str, Table]:
    return load_tables(RULES)[1]


def t(name: str) -> Table:
    return tables()[name]


def row_at(table: str, result: int) -> Row:
    return row_for(t(table), result)


def ranges(table: str) -> list[tuple[int, int | None]]:
    return [r.range for r in t(table).rows if r.range is not None]


def of(r: Row, kind: type) -> list[Any]:
    return [e for e in walk_effects(list(r.effects)) if isinstance(e, kind)]


def rolls(r: Row) -> list[str]:
    return [e.roll for e in of(r, RollEffect)]


def span(dice: str, ctx: dict[str, int | bool]) -> tuple[int, int]:
    dist = odds(oracle_fill(dice, ctx))
    return int(dist.min), int(dist.max)


@cache
def passed_values() -> dict[str, dict[str, set[int | bool]]]:
    """table -> param -> every value another table passes with `with` (literals only)."""
    out: dict[str, dict[str, set[int | bool]]] = {}
    for table in tables().values():
        for r in all_rows(table):
            for e in of(r, RollEffect):
                for name, expr in (e.with_ or {}).items():
                    if not oracle_names(expr):
                        out.setdefault(e.roll, {}).setdefault(name, set()).add(
                            oracle_evaluate(expr, {})
                        )
    return out


def contexts(table: Table) -> list[dict[str, int | bool]]:
    """Every combination of the table's params (defaults, both booleans, passed values)."""
    choices: dict[str, list[int | bool]] = {"level": [1, 2, 5]}
    for name, default in table.params.items():
        values: set[int | bool] = {default}
        if isinstance(default, bool):
            values |= {False, True}
        values |= passed_values().get(table.name, {}).get(name, set())
        choices[name] = sorted(values, key=int)
    keys = list(choices)
    return [
        dict(zip(keys, combo, strict=True))
        for combo in itertools.product(*(choices[k] for k in keys))
    ]


def check_cover(name: str, rows: list[Row], lo: int, hi: int) -> None:
    for result in range(lo, hi + 1):
        hits = [
            i
            for i, r in enumerate(rows)
            if r.range is not None
            and r.range[0] <= result
            and (r.range[1] is None or result <= r.range[1])
        ]
        assert len(hits) == 1, f"{name}: result {result} hits rows {hits}"
    for r in rows:
        assert r.range is not None
        assert lo <= r.range[0] <= hi, f"{name}: row {r.range} can never be hit"


TextMap = dict[Any, str | Plural]


def texts(table: Table) -> list[tuple[str, TextMap]]:
    """Every text map of a table: title, notes, rows, sub-rows, notes and units of effects."""
    out: list[tuple[str, TextMap]] = [("title", dict(table.title))]
    out += [("notes", dict(n)) for n in table.notes]
    for r in all_rows(table):
        out.append((f"row {r.range}", dict(r.text)))
        for e in walk_effects(list(r.effects)):
            if isinstance(e, NoteEffect):
                out.append((f"note of {r.range}", dict(e.note)))
            if isinstance(e, AmountEffect) and e.unit is not None:
                out.append((f"unit of {r.range}", dict(e.unit)))
    return out


# --------------------------------------------------------------------------------------
# The seed


@cache
def seed_lines() -> list[str]:
    text = require(SEED_PATH, f"the rule text {SEED_FILE} beside the checkout").read_text(
        encoding="utf-8"
    )
    return [line.strip() for line in text.splitlines()]


RANGE_LINE = re.compile(r"^(\d\d|\d)(?:-(\d\d|l0|\d))?$")


def printed_block(heading: str) -> list[str]:
    """The lines from a heading to the next heading (or the end)."""
    lines = seed_lines()
    start = lines.index(heading)
    end = next(
        (
            i
            for i in range(start + 1, len(lines))
            if lines[i].startswith("Tabella A.") and i > start + 1
        ),
        len(lines),
    )
    return lines[start:end]


def printed_ranges(heading: str, die: str) -> list[tuple[int, int]]:
    """The printed ranges of a one-column table ('00' is 100, the slip 'l0' is 10)."""
    top = {"1d100": 100}.get(die, 0)
    out = []
    for line in printed_block(heading)[3:]:
        m = RANGE_LINE.match(line)
        if m:
            lo = int(m.group(1)) or top
            hi_text = (m.group(2) or m.group(1)).replace("l", "1")
            out.append((lo, int(hi_text) or top))
    return out


# --------------------------------------------------------------------------------------
# Structure


def test_every_file_validates_and_names_the_seed() -> None:
    assert set(files()) == {
        "corridoi.yaml",
        "stanze.yaml",
        "scale-e-trappole.yaml",
        "caverne.yaml",
        "mostri.yaml",
    }
    for tf in files().values():
        assert tf.rule_set == "scatola-bianca"
        assert tf.language == "it"
        assert tf.source_file == SEED_FILE


def test_every_printed_table_is_there_with_heading_and_die() -> None:
    for name, (heading, die) in PRINTED.items():
        assert t(name).source.heading == heading, name
        assert t(name).dice == DIE[die], name
    for name, (heading, die) in FROM_NOTES.items():
        assert t(name).source.heading == heading, name
        assert t(name).dice == die, name
    assert set(tables()) == set(PRINTED) | set(FROM_NOTES)


def test_every_rolled_table_covers_its_die_exactly() -> None:
    for table in tables().values():
        assert table.gaps == "error" and table.modifier is None, table.name
        assert table.dice is not None, table.name
        for ctx in contexts(table):
            lo, hi = span(table.dice, ctx)
            check_cover(f"{table.name} {ctx}", list(table.rows), lo, hi)
        for r in table.rows:
            if r.then is not None:
                lo, hi = span(r.then.dice, {"level": 1, **table.params})
                check_cover(f"{table.name} {r.range} then", list(r.then.rows), lo, hi)


def test_every_text_has_all_three_languages() -> None:
    for table in tables().values():
        for where, text in texts(table):
            assert set(text) == set(LANGS), f"{table.name} {where}: {sorted(text)}"
            for lang, value in text.items():
                forms = [value.one, value.other] if isinstance(value, Plural) else [value]
                for form in forms:
                    assert form.strip(), f"{table.name} {where} {lang}"
                    assert "{" not in form or PLACEHOLDER.search(form), form


def test_placeholders_are_filled_by_an_amount_a_value_or_the_context() -> None:
    for table in tables().values():
        add_names = {n for r in table.rows for e in of(r, AgainEffect) for n in e.add}
        for r in table.rows:
            known = {"level", *table.params, *r.value, *add_names}
            known |= {e.name for e in of(r, AmountEffect)}
            for sub in [r, *(r.then.rows if r.then else [])]:
                here = known | set(sub.value)
                for lang, value in sub.text.items():
                    forms = [value.one, value.other] if isinstance(value, Plural) else [value]
                    for form in forms:
                        for name in PLACEHOLDER.findall(form):
                            assert name in here, f"{table.name} {sub.range} {lang}: {{{name}}}"


def test_keys_are_stable_lower_case_english_and_on_every_top_row() -> None:
    for table in tables().values():
        for r in table.rows:
            assert r.key and re.fullmatch(r"[a-z0-9_]+", r.key), (table.name, r.range)


def test_values_are_plain_and_amounts_parse() -> None:
    for table in tables().values():
        for r in all_rows(table):
            for value in r.value.values():
                assert isinstance(value, int | str | bool)
            for e in of(r, AmountEffect):
                for level in (1, 4):
                    ctx = {"level": level, **table.params}
                    odds(oracle_fill(e.amount, ctx))
            for e in of(r, RollEffect):
                if isinstance(e.times, str):
                    odds(oracle_fill(e.times, {"level": 1, **table.params}))


def test_references_resolve_and_do_not_go_round() -> None:
    graph = {
        name: {e.roll for r in all_rows(table) for e in of(r, RollEffect)}
        for name, table in tables().items()
    }
    for name, targets in graph.items():
        assert targets <= set(tables()), (name, targets - set(tables()))

    def visit(node: str, path: tuple[str, ...]) -> None:
        assert node not in path, " -> ".join((*path, node))
        for nxt in graph[node]:
            visit(nxt, (*path, node))

    for name in graph:
        visit(name, ())


def test_conditions_read_only_known_names() -> None:
    for table in tables().values():
        known = {"level", "result", *table.params}
        for r in all_rows(table):
            for e in walk_effects(list(r.effects)):
                if getattr(e, "when", None):
                    assert oracle_names(e.when) <= known, (table.name, e.when)
                if isinstance(e, (RollEffect, AgainEffect)) and e.reroll_if:
                    assert oracle_names(e.reroll_if) <= known, (table.name, e.reroll_if)
                if isinstance(e, RollEffect):
                    target = t(e.roll)
                    for name in e.with_ or {}:
                        assert name in target.params, (table.name, e.roll, name)


def test_no_rounded_percentages() -> None:
    # every "x su N" of the seed is rolled with its own die; none is a chance percentage
    for table in tables().values():
        for r in all_rows(table):
            assert not of(r, ChanceEffect), (table.name, r.range)


def test_the_linter_is_content() -> None:
    from kerker.tables.lint import lint_paths

    assert [str(p) for p in lint_paths([RULES])] == []


# --------------------------------------------------------------------------------------
# Decisions (docs/rules-notes-001.md), one test each


def test_1_a1_rows_11_to_13_exist_and_roll_the_turns_table() -> None:
    r = row_at("tiri-periodici", 12)
    assert r.range == (11, 13) and r.key == "turn"
    assert rolls(r) == ["svolte"]
    assert r.value["advance_ft"] == 30
    assert all(rolls(row) == ["larghezza-corridoio"] for row in t("svolte").rows)
    assert "11-13" in (t("tiri-periodici").decision or "")


def test_2_a1_wandering_monster_rolls_again_without_a_second_monster() -> None:
    r = row_at("tiri-periodici", 20)
    assert r.key == "wandering_monster" and rolls(r) == ["mostro-errante"]
    (again,) = of(r, AgainEffect)
    assert again.reroll_if == "result == 20" and again.add == {}


def test_3_doors_advance_30_and_roll_what_lies_behind() -> None:
    for r in t("porte").rows:
        (e,) = of(r, RollEffect)
        assert e.roll == "dietro-la-porta"
        assert e.with_ == {"door_ahead": "true" if r.key == "ahead" else "false"}
        assert r.value["advance_ft"] == 30
    behind = t("dietro-la-porta")
    for r in behind.rows:
        if r.key == "room":
            assert rolls(r) == ["forma-stanza"] and "advance_ft" not in r.value
        else:
            assert r.value["advance_ft"] == 30, r.key
    first = row_at("dietro-la-porta", 1)
    assert first.value["if_door_ahead"] == "room"
    assert (first.value["room_w_ft"], first.value["room_h_ft"]) == (10, 10)
    assert {n.when for n in of(first, NoteEffect)} == {"door_ahead", "not door_ahead"}


def test_4_side_passages_roll_their_width() -> None:
    r = row_at("tiri-periodici", 8)
    assert rolls(r) == ["corridoio-laterale", "larghezza-corridoio"]
    assert r.value["advance_ft"] == 30
    assert row_at("corridoio-laterale", 12).value["fifth_if_orthogonal"] is True


def test_5_rooms_and_chambers_start_with_their_shape() -> None:
    chamber = row_at("tiri-periodici", 15)
    assert chamber.value["kind"] == "chamber" and rolls(chamber) == ["forma-camera"]
    room = row_at("dietro-la-porta", 6)
    assert room.value["kind"] == "room" and rolls(room) == ["forma-stanza"]


def test_6_two_shape_tables_and_unusual_shapes_get_an_area() -> None:
    for name in ("forma-camera", "forma-stanza"):
        for r in t(name).rows[:-1]:
            w, h, area = (int(r.value[k]) for k in ("w_ft", "h_ft", "area_sqft"))
            assert area == w * h
        assert rolls(row_at(name, 12)) == ["forme-inusuali", "dimensioni-stanza"]
    (again,) = of(row_at("dimensioni-stanza", 12), AgainEffect)
    assert again.add == {"area_sqft": 3400} and again.reroll_if is None


def test_7_room_exits_are_doors_chamber_exits_are_passages() -> None:
    assert t("luogo-uscita").params == {"room": False}
    for r in t("luogo-uscita").rows:
        by_when = {e.when: e.roll for e in of(r, RollEffect)}
        assert by_when == {"not room": "direzione-uscita", "room": "dietro-la-porta"}


def exits(face: int, area: int) -> int:
    r = row_at("numero-uscite", face)
    ctx = {"level": 1, "area_sqft": area}
    applied = [e for e in of(r, AmountEffect) if not e.when or oracle_evaluate(e.when, ctx)]
    assert len(applied) == 1, (face, area)
    assert applied[0].name == "exits"
    dist = odds(applied[0].amount)
    return int(dist.min) if dist.min == dist.max else -1


def test_8_number_of_exits_by_size() -> None:
    expected = {1: (600, 1, 2), 2: (600, 2, 3), 3: (600, 3, 4), 4: (1200, 0, 1), 5: (1600, 0, 1)}
    for face, (limit, upto, over) in expected.items():
        assert exits(face, limit) == upto and exits(face, limit + 1) == over
        assert exits(face, 100) == upto and exits(face, 30000) == over
        v = row_at("numero-uscite", face).value
        assert (v["threshold_sqft"], v["exits_upto"], v["exits_over"]) == (limit, upto, over)
    (six,) = of(row_at("numero-uscite", 6), AmountEffect)
    assert six.amount == "1d4" and six.when is None


def test_9_secret_door_search_table() -> None:
    assert [r.key for r in t("porta-segreta-muro").rows] == [
        "secret_door",
        "nothing",
        "wandering_monster",
    ]
    assert ranges("porta-segreta-muro") == [(1, 1), (2, 11), (12, 12)]
    assert rolls(row_at("porta-segreta-muro", 12)) == ["mostro-errante"]
    assert row_at("tiri-periodici", 18).value["search_table"] == "porta-segreta-muro"
    for face in (4, 5):
        assert row_at("numero-uscite", face).value["search_table"] == "porta-segreta-muro"


def test_10_exit_directions_have_widths_and_a_side() -> None:
    widths = [row_at("direzione-uscita", n).value["width_ft"] for n in (1, 9, 12)]
    assert widths == [10, 20, 10]
    sub = row_at("direzione-uscita", 12).then
    assert sub is not None and sub.dice == "d6"
    assert [r.value["side"] for r in sub.rows] == ["left", "right"]
    assert all(r.key is None for r in sub.rows)  # the row's key stays


def test_11_exits_onto_mapped_areas() -> None:
    assert ranges("uscita-su-area-mappata") == [(1, 2), (3, 6)]
    assert [r.key for r in t("uscita-su-area-mappata").rows] == ["secret_door", "one_way_door"]


def test_12_treasure_row_rolls_the_treasure_table_not_the_stairs() -> None:
    r = row_at("contenuto-stanza", 20)
    assert rolls(r) == ["tesoro-senza-mostri"]
    assert "scale" not in rolls(r)


def test_13_monster_or_treasure_is_a_monster_with_treasure() -> None:
    r = row_at("contenuto-stanza", 15)
    assert r.range == (15, 17) and r.key == "monster_treasure"
    assert r.value == {"monster": True, "treasure": True}
    assert rolls(r) == ["mostro-errante"] and of(r, NoteEffect)
    assert row_at("contenuto-stanza", 13).value == {"monster": True, "treasure": False}


def test_14_specials_empty_or_reroll_without_them() -> None:
    for name in ("contenuto-stanza", "trappole-e-tranelli"):
        assert t(name).params == {"specials": False}
    empty = row_at("contenuto-stanza", 18)
    assert {n.when for n in of(empty, NoteEffect)} == {"specials", "not specials"}
    (again,) = of(row_at("trappole-e-tranelli", 20), AgainEffect)
    assert again.when == "not specials"


def test_15_treasure_scales_with_the_dungeon_level() -> None:
    amounts = {
        r.key: of(r, AmountEffect)[0].amount
        for r in t("tesoro-senza-mostri").rows
        if of(r, AmountEffect)
    }
    assert amounts == {
        "copper": "1000 * {level}",
        "silver": "1000 * {level}",
        "gold_400": "400 * {level}",
        "gold_250": "250 * {level}",
        "gold_1000": "1000 * {level}",
        "gems": "{level}d4",
        "jewellery": "{level}",
    }
    for r in t("tesoro-senza-mostri").rows:
        if "per_level" in r.value:
            assert of(r, AmountEffect)[0].amount == f"{r.value['per_level']} * {{level}}"
    assert of(row_at("tesoro-senza-mostri", 100), NoteEffect)


def test_16_stairs_row_12_is_the_lost_stairs_up_one_level() -> None:
    # issue 12: rows 08-11 are the source's 09-12 moved up; the lost row is "up 1 level"
    r = row_at("scale", 12)
    assert r.range == (12, 12) and r.key == "up_1"
    assert r.value == {"kind": "stairs", "direction": "up", "levels": 1}
    assert row_at("scale", 11).value["kind"] == "chimney"
    assert row_at("scale", 13).value == {
        "kind": "chimney",
        "direction": "down",
        "levels": 2,
        "advance_ft": 30,
    }


def test_17_stairs_doors_are_1_in_12_10_8_with_their_own_die() -> None:
    for face, one_in in ((1, 12), (6, 10), (7, 8)):
        (e,) = of(row_at("scale", face), RollEffect)
        assert e.roll == "porta-delle-scale" and e.with_ == {"one_in": str(one_in)}
        lo, hi = span(t("porta-delle-scale").dice or "", {"one_in": one_in})
        assert (lo, hi) == (1, one_in)
    assert ranges("porta-delle-scale") == [(1, 1), (2, None)]
    for face, levels in ((8, 1), (9, 2)):
        sub = row_at("scale", face).then
        assert sub is not None and sub.dice == "d6"
        assert [r.range for r in sub.rows] == [(1, 1), (2, 6)]
        assert sub.rows[0].value == {"collapse": True, "chute_levels": levels}


def test_18_hidden_door_search_is_a_labelled_default() -> None:
    assert rolls(row_at("trappole-e-tranelli", 1)) == ["ricerca-porta-nascosta"]
    search = t("ricerca-porta-nascosta")
    assert search.default is True and search.decision
    assert ranges("ricerca-porta-nascosta") == [(1, 2), (3, 6)]
    assert rolls(row_at("ricerca-porta-nascosta", 1)) == ["porte"]
    not_found = row_at("ricerca-porta-nascosta", 3)
    pit = row_at("trappole-e-tranelli", 6)  # "considerare il tiro come 6-7"
    assert rolls(not_found) == rolls(pit) == ["caduta-nel-fosso"]
    assert not_found.value["depth_ft"] == pit.value["depth_ft"] == 10


def test_19_wandering_monster_default_is_labelled_and_used() -> None:
    monster = t("mostro-errante")
    assert monster.default is True
    # kerker's own table says so (docs/i18n.md)
    assert "tabella di kerker" in str(monster.title["it"]) and "kerker" in str(monster.title["en"])
    users = {
        name
        for name, table in tables().items()
        for r in all_rows(table)
        if "mostro-errante" in rolls(r)
    }
    assert {
        "tiri-periodici",
        "porta-segreta-muro",
        "contenuto-stanza",
        "uscita-caverna",
        "pozze",
        "laghi",
    } <= users
    levels = []
    for r in monster.rows:
        (e,) = of(r, AmountEffect)
        levels.append([int(odds(oracle_fill(e.amount, {"level": lv})).min) for lv in (1, 3)])
    assert levels == [[1, 3], [1, 2], [2, 4]]
    defaults = {table.name for table in tables().values() if table.default}
    assert defaults == {"mostro-errante", "ricerca-porta-nascosta"}


def test_20_pits_fall_on_3_in_6_spiked_too() -> None:
    assert ranges("caduta-nel-fosso") == [(1, 3), (4, 6)]
    assert row_at("caduta-nel-fosso", 1).value == {"falls": True}
    assert rolls(row_at("trappole-e-tranelli", 8)) == ["caduta-nel-fosso"]
    assert row_at("trappole-e-tranelli", 8).value["spikes"] is True


def test_21_elevator_row_11_counts_levels_not_turns() -> None:
    v = row_at("trappole-e-tranelli", 11).value
    assert (v["levels_min"], v["levels_max"], v["locked_turns"]) == (2, 5, 60)
    assert (v["levels_at_once"], v["levels_per_failed_open"]) == (1, 1)
    assert row_at("trappole-e-tranelli", 9).value["locked_turns"] == 30
    assert row_at("trappole-e-tranelli", 10).value["levels"] == 2


def test_22_arrows_and_spears_one_roll_each() -> None:
    (arrows,) = of(row_at("trappole-e-tranelli", 15), RollEffect)
    assert (arrows.roll, arrows.times) == ("freccia-avvelenata", "1d6")
    (spears,) = of(row_at("trappole-e-tranelli", 16), RollEffect)
    assert (spears.roll, spears.times) == ("lancia-avvelenata", "1d3")
    assert ranges("freccia-avvelenata") == [(1, 1), (2, 6)]
    assert ranges("lancia-avvelenata") == [(1, 1), (2, 12)]
    (wall,) = of(row_at("trappole-e-tranelli", 12), AmountEffect)  # "10-60 turni"
    dist = odds(wall.amount)
    assert (dist.min, dist.max, len(dist.outcomes())) == (10, 60, 6)


def test_23_gas_typos_and_amounts() -> None:
    assert row_at("effetti-gas", 10).range == (9, 10)  # printed "09-l0"
    assert "Paura" in str(row_at("effetti-gas", 7).text["it"])
    amounts = {
        r.key: [(e.name, e.amount) for e in of(r, AmountEffect)] for r in t("effetti-gas").rows
    }
    assert amounts["blindness"] == [("turns", "1d6")]
    assert amounts["sleep"] == [("turns", "2d6")]
    assert amounts["strength"] == [("strength", "1d6")]
    assert row_at("effetti-gas", 7).value["flee_ft"] == 120
    assert rolls(row_at("trappole-e-tranelli", 17)) == ["effetti-gas"]


def test_24_cave_exits_1_in_6_monster_5_in_6_treasure() -> None:
    assert ranges("uscita-caverna") == [(1, 1), (2, 6)]
    monster = row_at("uscita-caverna", 1)
    assert rolls(monster) == ["mostro-errante"]
    assert monster.then is not None and monster.then.dice == "d6"
    assert [(r.range, r.value["treasure"]) for r in monster.then.rows] == [
        ((1, 5), True),
        ((6, 6), False),
    ]


def test_25_caves_pools_lakes_and_the_colossal_size() -> None:
    for face in (6, 7, 11):
        assert rolls(row_at("cave-e-caverne", face)) == ["pozze"]
    for face in (1, 4, 5, 10):
        assert rolls(row_at("cave-e-caverne", face)) == []
    colossal = row_at("cave-e-caverne", 12)
    assert rolls(colossal) == ["laghi"]
    w, h = (odds(e.amount) for e in of(colossal, AmountEffect))
    assert (w.min, w.max, h.min, h.max) == (250, 300, 350, 400)
    v = colossal.value
    assert (v["w_min_ft"], v["w_max_ft"], v["h_min_ft"], v["h_max_ft"]) == (250, 300, 350, 400)
    double = row_at("cave-e-caverne", 6).value
    assert double["area_sqft"] == 35 * 50 + 80 * 90


def test_26_lakes_monsters_treasure_and_portals() -> None:
    lake = row_at("laghi", 9)
    assert [(e.name, e.amount) for e in of(lake, AmountEffect)] == [("monsters", "1d4")]
    assert lake.then is not None and lake.then.dice == "d5"
    assert [(r.range, r.value["treasure"]) for r in lake.then.rows] == [
        ((1, 4), True),
        ((5, 5), False),
    ]
    assert t("laghi").params == {"other_planes": False}
    enchanted = row_at("laghi", 12)
    lair, kind = of(enchanted, RollEffect)
    assert (lair.roll, lair.when) == ("tana-del-lago-incantato", "not other_planes")
    assert (kind.roll, kind.when) == ("mostro-errante", "not other_planes")
    assert t("tana-del-lago-incantato").dice == "1d4+1"  # the lair's 1d4+1 monsters
    assert ranges("tana-del-lago-incantato") == [(2, 2), (3, 3), (4, 4), (5, 5)]
    assert [n.when for n in of(enchanted, NoteEffect)] == ["other_planes"]


def test_27_pool_changes_an_attribute_per_character() -> None:
    (e,) = of(row_at("pozze-magiche", 4), RollEffect)
    assert (e.roll, e.times) == ("alterazione-caratteristica", "{party_size}")
    assert t("pozze-magiche").params == {"party_size": 1}
    for r in t("alterazione-caratteristica").rows:
        assert [(a.name, a.amount) for a in of(r, AmountEffect)] == [("points", "1d3")]
        assert rolls(r) == ["caratteristica-modificata"]
    assert [r.value["operation"] for r in t("alterazione-caratteristica").rows] == [
        "subtract",
        "add",
    ]
    assert ranges("alterazione-caratteristica") == [(1, 3), (4, 6)]


def test_28_talking_pool_has_an_alignment_and_a_day_for_the_wish() -> None:
    pool = row_at("pozze-magiche", 7)
    assert pool.then is not None
    assert [r.value["alignment"] for r in pool.then.rows] == ["law", "neutrality", "chaos"]
    assert pool.value["wish_within_days"] == 1
    assert [(a.name, a.amount) for a in of(pool, AmountEffect)] == [("damage", "2d6")]


def test_sub_die_rows_are_whole_outcomes_keeping_the_row_key() -> None:
    # the engine shows a sub-row's text instead of the row's: no sub-row has a key
    for table in tables().values():
        for r in table.rows:
            if r.then is not None:
                assert all(sub.key is None for sub in r.then.rows), table.name


# --------------------------------------------------------------------------------------
# Spot checks against the seed text


def test_headings_and_dice_are_printed_in_the_seed() -> None:
    lines = seed_lines()
    for name, (heading, die) in PRINTED.items():
        assert heading in lines, name
        block = printed_block(heading)
        assert f"Tiro ({die})" in block[:3], (name, block[:3])


SIMPLE = [n for n in PRINTED if n not in ("forma-camera", "forma-stanza", "numero-uscite")]


@pytest.mark.parametrize("name", SIMPLE)
def test_ranges_are_the_printed_ones(name: str) -> None:
    heading, die = PRINTED[name]
    printed = printed_ranges(heading, die)
    added = {"tiri-periodici": [(11, 13)], "scale": [(12, 12)]}.get(name, [])
    ours = [(lo, hi) for lo, hi in ranges(name)]
    assert sorted(printed + added) == ours


def test_shape_sizes_are_the_printed_columns() -> None:
    block = printed_block("Tabella A.5.1: Forma stanza o camera")
    sizes = [tuple(int(n) for n in re.findall(r"\d+", line)) for line in block if "’ per " in line]
    camera, stanza = sizes[0::2], sizes[1::2]
    for name, column in (("forma-camera", camera), ("forma-stanza", stanza)):
        ours = [(r.value["w_ft"], r.value["h_ft"]) for r in t(name).rows[:-1]]
        assert ours == column, name
    assert [r.range for r in t("forma-camera").rows] == [r.range for r in t("forma-stanza").rows]
    assert printed_ranges("Tabella A.5.1: Forma stanza o camera", "1d12") == ranges("forma-camera")


def test_exit_counts_are_the_printed_rows() -> None:
    block = printed_block("Tabella A.5.4: Numero uscite")
    start = block.index("Uscite") + 1
    rows = [block[i : i + 3] for i in range(start, start + 33, 3)]
    for face_text, size, count in rows:
        face = int(face_text)
        numbers = re.findall(r"\d+", size.replace(".", ""))
        if not numbers:
            assert count == "1d4"
            (six,) = of(row_at("numero-uscite", face), AmountEffect)
            assert six.amount == count
            continue
        limit = int(numbers[0])
        area = limit if size.startswith("Fino a") else limit + 1
        assert exits(face, area) == int(count.rstrip("*")), (face, size)


def test_numbers_in_values_match_the_seed() -> None:
    text = "\n".join(seed_lines())
    assert [r.value["width_ft"] for r in t("larghezza-corridoio").rows] == [
        int(w)
        for w in re.findall(
            r"^(\d+)’$", "\n".join(printed_block("Tabella A.3.2: Larghezza corridoio")), re.M
        )
    ]
    areas = [int(a.replace(".", "")) for a in re.findall(r"Circa ([\d.]+)’ quadri", text)]
    assert [r.value["area_sqft"] for r in t("dimensioni-stanza").rows[:-1]] == areas
    assert "aggiungi 3.400’ quadri" in text
    coins = [int(c.replace(".", "")) for c in re.findall(r"^([\d.]+) pezzi", text, re.M)]
    assert [
        r.value["per_level"] for r in t("tesoro-senza-mostri").rows if "per_level" in r.value
    ] == coins
    caves = printed_block("Tabella A.8.1: Cave e caverne")
    for r in t("cave-e-caverne").rows[:-1]:
        assert r.range is not None and r.range[1] is not None
        lo, hi = r.range
        line = caves[caves.index(f"{lo:02d}" if lo == hi else f"{lo:02d}-{hi:02d}") + 1]
        printed = [int(n) for n in re.findall(r"(\d+)’", line)]
        ours = [r.value[k] for k in ("w_ft", "h_ft", "w2_ft", "h2_ft") if k in r.value]
        assert ours == printed, line
        assert rolls(r) == (["pozze"] if line.endswith("*") else [])
    assert "250’-300’ per 350’-400’ **" in text
    for needle in (
        "non risalirà per 30 turni",
        "Non risalirà per 60 turni",
        "chiudendo il passaggio per 10-60 turni",
        "corri indietro per 120’",
        "Copre 60’ davanti a voi",
        "a 100 miglia dall’ingresso",
        "Una probabilità su 12",
        "Una probabilità su 10",
        "Una probabilità su 8",
        "1 su 6 avviene un crollo",
        "3 su 6 probabilità di caduta",
        "4 su 5 possibilità di tesoro",
        "1d4+1 mostri",
        "(1-2 su 6)",
    ):
        assert needle in text, needle


def test_the_seed_defects_are_still_there() -> None:
    # If a corrected seed ever arrives, these decisions need a second look.
    assert printed_ranges("Tabella A.1: Tiri periodici", "1d20")[2:4] == [(8, 10), (14, 16)]
    stairs = [lo for lo, _hi in printed_ranges("Tabella A.6: Scale", "1d20")]
    assert 12 not in stairs and 11 in stairs and 13 in stairs
    assert "Tesoro (Tabella A.6)" in seed_lines()
    assert "Mostro o tesoro" in seed_lines()
    assert "Come sopra, ma per 2-5 turni**" in seed_lines()
