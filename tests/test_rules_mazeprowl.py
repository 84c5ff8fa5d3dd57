"""Mazeprowl tables (seed 004): schema, exact coverage, texts, decisions, seed spot checks.

The decisions are listed in docs/rules-notes-002-004.md ("## 004 Mazeprowl"); each one is
pinned by a test below (the test names carry the item number).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from rules_support import contexts, load_tables, read_seed, row_odds
from rules_support import covers as _covers
from rules_support import modifier as _modifier
from rules_support import totals as _totals

from kerker.dice import odds
from kerker.tables.schema import Plural, Row, Table

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "src" / "kerker" / "rules" / "mazeprowl"
NOTES = ROOT / "docs" / "rules-notes-002-004.md"
SEED_FILE = "004_5b88c3b6b37128fe.txt"
LANGS = {"de", "it", "en"}
SAMPLE_INTS = {"reputation": range(1, 7)}
DEFAULTS = {"factions", "challenge-type", "challenge-creature", "challenge-trap", "reputation-test"}
SECURITY = {"lo": 1, "mid": 2, "hi": 3}
FLAGS = {"lo": {}, "mid": {"midsec": True}, "hi": {"hisec": True}}


# -- helpers ---------------------------------------------------------------------------------


FILES, TABLES = load_tables(FOLDER)
ROLLED = sorted(n for n, t in TABLES.items() if t.dice is not None)
LOOKUPS = sorted(n for n, t in TABLES.items() if t.dice is None)


def _contexts(table: Table) -> Iterator[dict[str, int | bool]]:
    return contexts(table, SAMPLE_INTS)


def _ctx(table: Table, **given: int | bool) -> dict[str, int | bool]:
    return {"level": 1, **table.params, **given}


def _row_odds(table: Table, **given: int | bool) -> dict[str, Fraction]:
    return row_odds(table, _ctx(table, **given))


def _by_key(name: str) -> dict[str, Row]:
    return {row.key or "": row for row in TABLES[name].rows}


def _seed() -> str:
    return read_seed(SEED_FILE)


def _section(heading: str) -> str:
    text = _seed()
    start = text.index("\n" + heading + "\n") + len(heading) + 2
    nxt = re.search(r"^\d\. ", text[start:], re.M)
    return text[start : start + nxt.start()] if nxt else text[start:]


# -- every file, every table -----------------------------------------------------------------


def test_files_validate_and_belong_to_the_rule_set() -> None:
    assert {p.name for p in FILES} == {"tables.yaml", "defaults.yaml", "procedure.yaml"}
    for tf in FILES.values():
        assert (tf.rule_set, tf.source_file, tf.language) == ("mazeprowl", SEED_FILE, "de")


def test_every_table_is_there() -> None:
    assert set(TABLES) == {
        "security",
        "reputation-roll",
        "prowl-attributes",
        "layout",
        "entrances",
        "branch-cost",
        "door-strength",
        "door-trap-lo",
        "door-trap-mid",
        "door-trap-hi",
        "challenge-count",
        "challenge-level",
        "loot-present-nosec",
        "loot-present-lo",
        "loot-present-mid",
        "loot-present-hi",
        "loot-value",
        "loot-secured",
        "fine-tuning",
        "redistribution",
        "hostile-factions",
        "prowl-limits",
        "reputation-test-successes",
        "reputation-test-successes-over-6",
        *DEFAULTS,
    }


def test_defaults_are_labelled() -> None:
    for name, table in TABLES.items():
        assert table.default == (name in DEFAULTS), name
        if table.default:
            assert "Vorgabe" in table.title["de"] and "default" in table.title["en"]
        assert table.decision, f"{name}: every table records its reading"


@pytest.mark.parametrize("name", ROLLED)
def test_rolled_tables_cover_their_die_exactly(name: str) -> None:
    table = TABLES[name]
    hits: Counter[int] = Counter()
    for ctx in _contexts(table):
        for total in _totals(table, ctx):
            covering = [i for i, row in enumerate(table.rows) if _covers(row, total)]
            assert len(covering) == 1, (name, ctx, total, covering)
            hits[covering[0]] += 1
    assert set(hits) == set(range(len(table.rows))), f"{name}: a row no roll reaches"


@pytest.mark.parametrize("name", LOOKUPS)
def test_lookup_tables_do_not_overlap(name: str) -> None:
    rows = TABLES[name].rows
    assert all(row.range is not None for row in rows)
    for a, b in itertools.combinations(rows, 2):
        assert not (_covers(a, b.range[0]) or _covers(b, a.range[0])), (a.key, b.key)  # type: ignore[index]


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_text_has_all_three_languages(name: str) -> None:
    table = TABLES[name]
    texts = [table.title, *table.notes, *(row.text for row in table.rows)]
    for text in texts:
        assert set(text) == LANGS, (name, text)
        for value in text.values():
            parts = [value.one, value.other] if isinstance(value, Plural) else [value]
            assert all(p.strip() for p in parts)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_rows_have_keys_and_plain_values(name: str) -> None:
    keys = [row.key for row in TABLES[name].rows]
    assert all(keys) and len(set(keys)) == len(keys)
    shapes = {frozenset(row.value) for row in TABLES[name].rows}
    assert all(
        isinstance(v, int | str | bool) for row in TABLES[name].rows for v in row.value.values()
    )
    if name not in {"layout", "redistribution", "loot-secured"}:
        assert len(shapes) <= 2, f"{name}: value keys should be consistent"


def test_follow_ups_resolve_to_rolled_tables() -> None:
    for table in TABLES.values():
        for row in table.rows:
            for effect in row.effects:
                ref = getattr(effect, "roll", None)
                if ref is not None:
                    assert TABLES[ref].dice is not None, ref


def test_the_linter_is_content() -> None:
    from kerker.tables.lint import lint_paths

    assert [str(p) for p in lint_paths([FOLDER])] == []


def test_headings_are_copied_from_the_seed() -> None:
    lines = set(_seed().splitlines())
    for table in TABLES.values():
        assert table.source.heading in lines, table.source.heading


# -- the seed's numbers -----------------------------------------------------------------------


def test_challenge_count_as_printed() -> None:
    section = _section("5. Für jeden Raum Anzahl, Typ und Stärke der Herausforderungen bestimmen")
    assert "Anzahl der Herausforderungen (1W6; +1 für Midsec, +2 für HiSec)" in section
    printed = re.findall(r"^(\d+)(?:-(\d+))?: (---|(\d) Herausforderung)", section, re.M)
    table = TABLES["challenge-count"]
    assert table.dice == "1W6"
    assert len(printed) == len(table.rows) == 5
    for (lo, hi, _text, count), row in zip(printed, table.rows, strict=True):
        assert row.range == (int(lo), int(hi or lo))
        assert row.value == {"count": int(count or 0)}
        times = [getattr(e, "times", 1) for e in row.effects]
        assert sum(int(t) for t in times) == int(count or 0)
    assert _modifier(table, _ctx(table)) == 0
    assert _modifier(table, _ctx(table, midsec=True)) == 1
    assert _modifier(table, _ctx(table, hisec=True)) == 2


def test_challenge_level_as_printed() -> None:
    section = _section("5. Für jeden Raum Anzahl, Typ und Stärke der Herausforderungen bestimmen")
    for line in (
        "Lo-Sec RW/2",
        "Mid-Sec RW",
        "Hi-Sec RW +2",
        "Die Stufe einer Herausforderung kann nie Reputation+5 übersteigen!",
    ):
        assert line in section
    rows = _by_key("challenge-level")
    assert rows["lo"].value["divisor"] == 2 and rows["lo"].value["bonus"] == 0
    assert rows["mid"].value["divisor"] == 1 and rows["mid"].value["bonus"] == 0
    assert rows["hi"].value["divisor"] == 1 and rows["hi"].value["bonus"] == 2
    assert {r.value["cap_over_reputation"] for r in rows.values()} == {5}
    assert [rows[k].range for k in SECURITY] == [(v, v) for v in SECURITY.values()]


def test_loot_as_printed() -> None:
    section = _section("6. Beute")
    assert "NoSec: Nie" in section
    for sec in ("lo", "mid", "hi"):
        label = {"lo": "LoSec", "mid": "MidSec", "hi": "HiSec"}[sec]
        lo, hi = map(int, re.search(rf"^{label}: (\d+)-(\d+)$", section, re.M).groups())  # type: ignore[union-attr]
        table = TABLES[f"loot-present-{sec}"]
        assert table.dice == "2w6"
        assert _by_key(table.name)["present"].range == (lo, hi)
        mult = int(re.search(rf"^{label}: RW\*(\d+)\$$", section, re.M).group(1))  # type: ignore[union-attr]
        row = _by_key("loot-value")[sec]
        assert row.value == {"multiplier": mult, "unit": "$"}
        assert row.range == (SECURITY[sec], SECURITY[sec])
    assert [r.key for r in TABLES["loot-present-nosec"].rows] == ["absent"]


def test_loot_secured_as_printed() -> None:
    section = _section("6. Beute")
    assert "Gesichert: (2w6, +2 für MidSec, +3 für HiSec" in section
    printed = re.findall(
        r"^(\d+)(?:-(\d+))?(\+)? ((?:Offen|Versteckt|Verschlossen).*)$", section, re.M
    )
    table = TABLES["loot-secured"]
    assert len(printed) == len(table.rows) == 6
    for (lo, hi, plus, words), row in zip(printed, table.rows, strict=True):
        want = (int(lo), None if plus else int(hi or lo))
        assert row.range == want
        lower = words.lower()
        assert row.value == {
            "hidden": "versteckt" in lower,
            "locked": "verschlossen" in lower,
            "trapped": "falle" in lower,
        }
        assert bool(row.effects) == row.value["trapped"]
    assert _modifier(table, _ctx(table, midsec=True)) == 2
    assert _modifier(table, _ctx(table, hisec=True)) == 3


def test_door_strength_as_printed() -> None:
    section = _section("4. Pauschal Türenstärke bestimmen")
    names = {"Außenwelt": "outside", "LoSec": "lo", "LowSec": "lo", "MidSec": "mid", "HiSec": "hi"}
    rows = _by_key("door-strength")
    printed = re.findall(r"^(\w+)<=>(\w+)(?: \(i\.e\. Zugang\))?: RW/2 ?([+-]\d+)?$", section, re.M)
    assert len(printed) == len(rows) == 7
    for a, b, adjust in printed:
        key = "outside" if names[a] == "outside" else f"{names[a]}_{names[b]}"
        assert rows[key].value["adjustment"] == int(adjust or 0), key
        assert rows[key].value["divisor"] == 2
        assert rows[key].value["cap_over_reputation"] == 5
    assert "Die Basisstärke kann nie Reputation+5 überschreiten!" in section


def test_door_traps_as_printed() -> None:
    section = " ".join(_section("4. Pauschal Türenstärke bestimmen").split())
    assert "nur an LoSec-Bereiche angrenzen haben bei einer 6 eine Falle" in section
    assert "an einen MidSec-Bereich angrenzen bei einer 5-6" in section
    assert "an die Außenwelt oder einen HiSec-Bereich angrenzen bei einer 4-6" in section
    for sec, (lo, hi) in {"lo": (6, 6), "mid": (5, 6), "hi": (4, 6)}.items():
        table = TABLES[f"door-trap-{sec}"]
        assert table.dice == "1w6"
        assert _by_key(table.name)["trap"].range == (lo, hi)
        assert [getattr(e, "roll", None) for e in _by_key(table.name)["trap"].effects] == [
            "challenge-trap"
        ]


def test_layout_and_branch_points_as_printed() -> None:
    section = _section("3. Dungeonaufbau bestimmen")
    assert "Reputation(6)-Probe" in section and "Reputation(12)-Probe" in section
    rows = _by_key("layout")
    assert rows["mid_rooms"].value == {"basis": "reputation_check", "target": 6}
    assert rows["hi_rooms"].value == {"basis": "reputation_check", "target": 12}
    assert rows["branch_points"].value["divisor"] == 2
    assert "#Zugänge: 1-3 nach freier Wahl bzw. 1w3" in section
    assert TABLES["entrances"].dice == "1w3"
    flat = " ".join(section.split())
    costs = {"drei Ausgängen": 1, "vier Ausgängen": 2, "fünf oder mehr Ausgängen": 3}
    for words, cost in costs.items():
        found = re.search(words + r"\D*?(\d) Abzweigungspunkt", flat)
        assert found and int(found.group(1)) == cost, words
    branch = {r.key: r for r in TABLES["branch-cost"].rows}
    assert branch["t_junction"].value["cost"] == 1 and branch["crossing"].value["cost"] == 2
    assert branch["hub"].range == (5, None) and branch["hub"].value["cost"] == 3
    assert branch["dead_end"].value["cost"] == branch["passage"].value["cost"] == 0


def test_prowl_attributes_as_printed() -> None:
    section = _section("2. Prowlattribute bestimmen")
    printed = re.findall(r"^- (\w+)$", section, re.M)
    assert printed == [row.text["de"] for row in TABLES["prowl-attributes"].rows]


def test_fine_tuning_costs_as_printed() -> None:
    section = _section("7. Feintuning")
    assert "Anzahl an Anpassungen: Reputation*Zugänge" in section
    groups = {
        "sind kostenlos:": 0,
        "kosten eine Anpassung:": 1,
        "kosten sie je 2 Anpassungen:": 2,
        "kosten sie 3 Anpassungen:": 3,
        "generiert 2 Anpassungen:": -2,
        "generiert 3 Anpassungen:": -3,
    }
    lines = section.splitlines()
    want: Counter[int] = Counter()
    cost: int | None = None
    for line in lines:
        matched = [c for words, c in groups.items() if line.endswith(words)]
        if matched:
            cost = matched[0]
        elif line.startswith("Danach"):
            cost = None
        elif line.startswith("- ") and cost is not None:
            want[cost] += 1 + line.count("/")  # "hinzufügen/streichen": two changes
    got = Counter(int(row.value["cost"]) for row in TABLES["fine-tuning"].rows)
    assert got == want


# -- decisions (docs/rules-notes-002-004.md, "## 004") ---------------------------------------


def test_004_1_security_levels_and_flags() -> None:
    rows = _by_key("security")
    assert [r.value["security"] for r in rows.values()] == [0, 1, 2, 3]
    assert [k for k in rows] == ["nosec", "lo", "mid", "hi"]
    for key, flags in FLAGS.items():
        assert {k: v for k, v in rows[key].value.items() if v is True} == flags
    for name in ("challenge-count", "loot-secured"):
        assert TABLES[name].params == {"midsec": False, "hisec": False}


@pytest.mark.parametrize("reputation", [1, 2, 4])
def test_004_2_reputation_roll_is_the_highest_of_n_w6(reputation: int) -> None:
    table = TABLES["reputation-roll"]
    assert table.dice == "{reputation}W6kh1" and table.params == {"reputation": 1}
    shares = _row_odds(table, reputation=reputation)
    for k in range(1, 7):
        assert shares[f"rw{k}"] == Fraction(k**reputation - (k - 1) ** reputation, 6**reputation)
    assert [r.value["rw"] for r in table.rows] == list(range(1, 7))


def test_004_3_and_4_formula_parts() -> None:
    assert "except the one for all doors" in (TABLES["reputation-roll"].decision or "")
    assert {r.value["minimum"] for r in TABLES["challenge-level"].rows} == {1}
    assert {r.value["minimum"] for r in TABLES["door-strength"].rows} == {0}
    assert "rounded down" in (TABLES["challenge-level"].decision or "")
    assert "rounded down" in (TABLES["door-strength"].decision or "")


def test_004_5_the_degree_of_success_is_not_invented() -> None:
    layout = TABLES["layout"]
    assert layout.dice is None
    for row in layout.rows:
        assert not row.effects, "no rolled mechanic in the layout rows"
    checks = [r for r in layout.rows if r.value.get("basis") == "reputation_check"]
    assert [set(r.value) for r in checks] == [{"basis", "target"}] * 2
    assert "procedure decides" in (layout.decision or "")


def test_004_6_branch_points_capped_by_rooms() -> None:
    assert _by_key("layout")["branch_points"].value["cap"] == "rooms"
    assert "cap" in (TABLES["layout"].decision or "")


def test_004_7_entrances() -> None:
    assert _row_odds(TABLES["entrances"]) == {k: Fraction(1, 3) for k in ("one", "two", "three")}
    assert _by_key("layout")["entrances"].value == {"basis": "choice_or_roll", "min": 1, "max": 3}


def test_004_8_doors_one_base_capped() -> None:
    decision = TABLES["door-strength"].decision or ""
    assert "One RW per prowl" in decision and "Reputation + 5" in decision
    assert '"LoSec<=>LowSec" is LoSec-LoSec' in decision
    assert [r.range for r in TABLES["door-strength"].rows] == [(i, i) for i in range(1, 8)]


def test_004_9_door_traps_by_exposure() -> None:
    share = {sec: _row_odds(TABLES[f"door-trap-{sec}"])["trap"] for sec in SECURITY}
    assert share == {"lo": Fraction(1, 6), "mid": Fraction(1, 3), "hi": Fraction(1, 2)}
    assert "most exposed side" in (TABLES["door-trap-mid"].decision or "")


def test_004_10_challenge_count_bonus_reaches_seven_and_eight() -> None:
    table = TABLES["challenge-count"]
    assert "four" not in _row_odds(table) and "three" not in _row_odds(table)
    assert _row_odds(table, midsec=True)["three"] == Fraction(1, 6)
    assert _row_odds(table, hisec=True)["four"] == Fraction(1, 6)
    assert "none" not in _row_odds(table, hisec=True)
    assert "NoSec rooms" in (table.decision or "")


def test_004_12_loot_present_per_security() -> None:
    shares = {
        sec: _row_odds(TABLES[f"loot-present-{sec}"]).get("present", Fraction(0))
        for sec in ("nosec", "lo", "mid", "hi")
    }
    assert shares == {
        "nosec": 0,
        "lo": Fraction(3, 36),
        "mid": Fraction(10, 36),
        "hi": Fraction(21, 36),
    }
    for sec in ("mid", "hi"):
        (effect,) = _by_key(f"loot-present-{sec}")["present"].effects
        assert effect.roll == "loot-secured"  # type: ignore[union-attr]
        assert effect.with_ == {f"{sec}sec": "true"}  # type: ignore[union-attr]


def test_004_14_loot_secured_open_ended() -> None:
    table = TABLES["loot-secured"]
    assert table.rows[-1].range == (14, None)
    assert _row_odds(table, hisec=True)["hidden_locked_trapped"] == Fraction(3, 36)
    assert "hidden_locked_trapped" not in _row_odds(table)


def test_004_15_fine_tuning_keys_and_signs() -> None:
    rows = _by_key("fine-tuning")
    assert rows["switch_to_patrol"].value == {"cost": 0}
    assert rows["swap_attributes"].value == {"cost": 1}
    assert rows["reinforce"].value == {"cost": 2}
    assert rows["add_enemy_faction"].value == rows["remove_friendly_faction"].value == {"cost": 3}
    assert rows["lower_security"].value == {"cost": -2}
    assert rows["add_friendly_faction"].value == rows["remove_enemy_faction"].value == {"cost": -3}
    assert [r.range for r in TABLES["fine-tuning"].rows] == [
        (i, i) for i in range(1, len(rows) + 1)
    ]


def test_004_16_redistribution() -> None:
    rows = _by_key("redistribution")
    assert (
        rows["raise_attribute"].value
        == rows["raise_challenge"].value
        == {"raise": 1, "lower": 2, "allowed": True}
    )
    assert rows["doors_and_security"].value == {"allowed": False}


def test_004_17_factions_lotto() -> None:
    table = TABLES["factions"]
    assert table.dice == "W666"
    results = {face for face, n in odds("W666").counts.items() if n}
    assert len(results) == 216
    sizes = [sum(1 for r in results if _covers(row, r)) for row in table.rows]
    assert sizes == [18] * 12
    stances = Counter(row.value["stance"] for row in table.rows)
    assert stances == {"friendly": 4, "hostile": 8}
    for row in table.rows:
        assert row.value["insider"] == (row.value["stance"] == "friendly")
        assert ("Insider" in row.text["de"]) == row.value["insider"]


def test_004_18_challenge_types() -> None:
    assert _row_odds(TABLES["challenge-type"]) == {
        "creature": Fraction(1, 2),
        "trap": Fraction(1, 2),
    }
    creatures = _by_key("challenge-creature")
    traps = _by_key("challenge-trap")
    assert len(creatures) >= 6 and len(traps) >= 6
    assert {"guard", "security_drone"} <= set(creatures)
    assert {"turret", "camera", "laser_grid", "pressure_plates"} <= set(traps)
    assert any(r.value["mobile"] for r in creatures.values())
    assert not any(r.value["mobile"] for r in traps.values())


def test_decisions_are_written_up_in_the_notes() -> None:
    notes = NOTES.read_text(encoding="utf-8")
    section = notes.split("## 004 Mazeprowl")[1].split("\n## ")[0]
    numbers = [int(n) for n in re.findall(r"^(\d+)\. \*\*", section, re.M)]
    assert numbers == list(range(1, 21))
    assert "Erfolgsgrad einer Reputation(X)-Probe" in section
    assert "procedure (a later issue) decides" in section
    for name in TABLES:
        assert f"`{re.sub(r'-(nosec|lo|mid|hi)$', '', name)}" in section, name
