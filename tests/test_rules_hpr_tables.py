"""HPR tables (seed 003): the table file agrees with the check engine's rules and the seed.

``rules/hpr/tables.yaml`` shows the seed's tables in the table format; ``checks.yaml`` (read
by :func:`kerker.checks.load_rules`) is what the check engine uses. These tests keep the two
in step -- same keys, values and words -- and pin the decisions of
docs/rules-notes-002-004.md ("## 003 Würfelei (tables)").
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

from conftest import require

from kerker.checks import load_rules
from kerker.dice import odds
from kerker.tables.schema import Lang, Plural, Row, Table, TableFile
from kerker.yamlio import load_yaml_file

ROOT = Path(__file__).resolve().parents[1]
FILE = ROOT / "src" / "kerker" / "rules" / "hpr" / "tables.yaml"
NOTES = ROOT / "docs" / "rules-notes-002-004.md"
SEED_FILE = "003_bf40ddb2c68c476f.txt"
SEED_PATH = Path(__file__).resolve().parents[2] / "shared" / "seeds" / SEED_FILE
LANGS: tuple[Lang, ...] = ("de", "it", "en")

DATA = TableFile.model_validate(load_yaml_file(FILE))
TABLES: dict[str, Table] = {t.name: t for t in DATA.tables}
RULES = load_rules()


def _seed() -> str:
    return require(SEED_PATH, f"the rule text {SEED_FILE} beside the checkout").read_text(
        encoding="utf-8"
    )


def test_the_file_validates_and_names_its_seed() -> None:
    assert DATA.rule_set == "hpr" and DATA.language == "de"
    assert DATA.source_file == SEED_FILE == RULES.seed
    assert set(TABLES) == {"modifiers", "luck", "extremes"}
    assert not any(t.default for t in DATA.tables)


def test_every_text_has_all_three_languages() -> None:
    for table in DATA.tables:
        for text in [table.title, *table.notes, *(row.text for row in table.rows)]:
            assert set(text) == set(LANGS), (table.name, text)
            assert all(not isinstance(v, Plural) and v.strip() for v in text.values())


def test_the_linter_is_content() -> None:
    from kerker.tables.lint import lint_paths

    assert [str(p) for p in lint_paths([FILE])] == []


# -- agreement with checks.yaml ---------------------------------------------------------------


def test_modifiers_agree_with_the_check_engine() -> None:
    table = TABLES["modifiers"]
    assert table.dice is None, "a lookup table"
    assert table.source.heading == RULES.modifiers_source.heading
    assert [row.key for row in table.rows] == [m.key for m in RULES.modifiers]
    for row, mod in zip(table.rows, RULES.modifiers, strict=True):
        assert row.range == (mod.value, mod.value)
        assert row.value == {"modifier": mod.value}
        for lang in LANGS:
            assert row.text[lang] == mod.label(lang), (row.key, lang)


def test_luck_agrees_with_the_check_engine() -> None:
    table = TABLES["luck"]
    assert table.dice is None
    assert table.source.heading == RULES.luck_source.heading
    assert [row.key for row in table.rows] == [level.key for level in RULES.luck]
    for index, (row, level) in enumerate(zip(table.rows, RULES.luck, strict=True), start=1):
        assert row.range == (index, index)
        assert row.value == {"chance": level.value}
        assert dict(row.text) == dict(level.name)


def test_extremes_agree_with_the_check_engine() -> None:
    table = TABLES["extremes"]
    assert table.dice == RULES.die
    assert table.source.heading == RULES.extremes_source.heading
    by_key = {row.key: row for row in table.rows}
    assert by_key["confirm_best"].range == (RULES.best, RULES.best)
    assert by_key["confirm_worst"].range == (RULES.worst, RULES.worst)
    assert by_key["plain"].range == (RULES.best + 1, RULES.worst - 1)


# -- the seed ---------------------------------------------------------------------------------


def test_headings_are_copied_from_the_seed() -> None:
    lines = set(_seed().splitlines())
    for table in DATA.tables:
        assert table.source.heading in lines


def test_modifier_table_as_printed() -> None:
    text = _seed()
    block = text.split("Wert Beschreibung\n", 1)[1].split("\n\n", 1)[0]
    printed = [
        (int(m.group(1)), m.group(2)) for m in re.finditer(r"^([+-]?\d+) (\S.*)$", block, re.M)
    ]
    assert len(printed) == 11
    rows = TABLES["modifiers"].rows
    assert [word for _v, word in printed] == [row.text["de"] for row in rows]
    assert [v for v, _w in printed[:-1]] == [row.value["modifier"] for row in rows[:-1]]


def test_luck_numbers_as_printed() -> None:
    text = _seed()
    assert "Die mystischen Glückszahlen für HPR-Helden sind 13, 8 und 3." in text
    assert [row.value["chance"] for row in TABLES["luck"].rows] == [13, 8, 3]
    assert "eine 1 oder eine 20" in text


# -- decisions --------------------------------------------------------------------------------


def test_003_1_modifiers_are_an_exact_lookup() -> None:
    table = TABLES["modifiers"]
    values = [row.value["modifier"] for row in table.rows]
    assert values == sorted(values, reverse=True), "easiest to hardest, as printed"
    assert all(v % 5 == 0 for v in values)
    assert all(row.range[0] == row.range[1] for row in table.rows)  # type: ignore[index]


def test_003_2_unbelievable_is_minus_25_and_keeps_the_print() -> None:
    table = TABLES["modifiers"]
    last = table.rows[-1]
    assert last.key == "unbelievable" and last.value == {"modifier": -25}
    engine = next(m for m in RULES.modifiers if m.key == "unbelievable")
    assert engine.value == -25
    assert engine.printed is not None and engine.printed in (table.decision or "")
    assert RULES.modifier_by_value(25).key == "laughable"  # type: ignore[union-attr]


def test_003_3_words_stay_lower_case_as_printed() -> None:
    for row in TABLES["modifiers"].rows:
        word = row.text["de"]
        assert isinstance(word, str) and word == word.lower()


def test_003_4_luck_is_a_lookup_by_level() -> None:
    table = TABLES["luck"]
    assert table.dice is None
    assert [row.range for row in table.rows] == [(1, 1), (2, 2), (3, 3)]


def test_003_5_extremes_odds() -> None:
    table = TABLES["extremes"]
    dist = odds(table.dice or "")

    def hit(row: Row, face: int) -> bool:
        assert row.range is not None and row.range[1] is not None
        return row.range[0] <= face <= row.range[1]

    share = {
        row.key: Fraction(sum(n for face, n in dist.counts.items() if hit(row, face)), dist.total)
        for row in table.rows
    }
    assert share == {
        "confirm_best": Fraction(1, 20),
        "plain": Fraction(9, 10),
        "confirm_worst": Fraction(1, 20),
    }
    assert [row.value["confirm"] for row in table.rows] == [True, False, True]


def test_decisions_are_written_up_in_the_notes() -> None:
    notes = NOTES.read_text(encoding="utf-8")
    section = notes.split("## 003 Würfelei (tables)")[1].split("\n## ")[0]
    numbers = [int(n) for n in re.findall(r"^(\d+)\. \*\*", section, re.M)]
    assert numbers == [1, 2, 3, 4, 5]
    assert '"+25 unglaublich"' in section and "13, 8 und" in section
