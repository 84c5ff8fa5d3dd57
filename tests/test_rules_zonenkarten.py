"""Zonenkarten tables (seed 002): schema, exact coverage, texts, decisions, seed spot checks.

The decisions are listed in docs/rules-notes-002-004.md ("## 002 Zonenkarten"); each one is
pinned by a test below (the test names carry the item number).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from rules_support import contexts, load_tables, read_seed, row_odds
from rules_support import covers as _covers
from rules_support import totals as _totals

from kerker.dice import odds
from kerker.tables.schema import AmountEffect, Plural, Row, Table

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "src" / "kerker" / "rules" / "zonenkarten"
NOTES = ROOT / "docs" / "rules-notes-002-004.md"
SEED_FILE = "002_0415e356cde069df.txt"
LANGS = {"de", "it", "en"}
THEMES = ("scifi", "fantasy")
DETAILS = ("hidden-connection", "name", "property", "description", "encounter", "loot")
STEPS = ("map-size", "node-content", "merge", "connections")
SAMPLE_INTS = {"reputation": range(1, 7), "level": range(1, 4)}


# -- helpers ---------------------------------------------------------------------------------


FILES, TABLES = load_tables(FOLDER)


def _texts(table: Table) -> Iterator[dict[str, object]]:
    """Every per-language text of a table: title, notes, rows and their effects."""
    found: list[object] = [table.title, *table.notes]
    for row in table.rows:
        found.append(row.text)
        for effect in row.effects:
            found += [getattr(effect, f, None) for f in ("unit", "note", "text", "else_text")]
    for text in found:
        if isinstance(text, dict):
            yield {str(k): v for k, v in text.items()}


def _contexts(table: Table) -> Iterator[dict[str, int | bool]]:
    return contexts(table, SAMPLE_INTS)


def _row_odds(table: Table, ctx: dict[str, int | bool] | None = None) -> dict[str, Fraction]:
    """Chance of each row key, exactly."""
    return row_odds(table, ctx or next(_contexts(table)))


def _german(row: Row) -> str:
    text = row.text["de"]
    return f"{text.one} {text.other}" if isinstance(text, Plural) else text


def _seed() -> str:
    return read_seed(SEED_FILE)


def _section(text: str, heading: str) -> str:
    start = text.index("\n" + heading + "\n") + len(heading) + 2
    end = text.find("\nSchritt ", start)
    end2 = text.find("\nNicht verbundene", start)
    ends = [e for e in (end, end2) if e >= 0]
    return text[start : min(ends)] if ends else text[start:]


def _bullets(section: str) -> list[tuple[int, int, str]]:
    out = []
    for m in re.finditer(r"^• (\d+)(?:-(\d+))?: (.*)$", section, re.M):
        lo = int(m.group(1))
        out.append((lo, int(m.group(2) or lo), m.group(3)))
    return out


# -- every file, every table -----------------------------------------------------------------


def test_files_validate_and_belong_to_the_rule_set() -> None:
    assert {p.name for p in FILES} == {"steps.yaml", "scifi.yaml", "fantasy.yaml"}
    for tf in FILES.values():
        assert tf.rule_set == "zonenkarten"
        assert tf.source_file == SEED_FILE
        assert tf.language == "de"


def test_every_table_is_there() -> None:
    want = {*STEPS, "property-scope"} | {f"{t}-{d}" for t in THEMES for d in DETAILS}
    assert set(TABLES) == want


@pytest.mark.parametrize("name", sorted(TABLES))
def test_rolled_tables_cover_their_die_exactly(name: str) -> None:
    table = TABLES[name]
    assert table.dice is not None, "every Zonenkarten table is rolled"
    hits: Counter[int] = Counter()
    for ctx in _contexts(table):
        for total in _totals(table, ctx):
            covering = [i for i, row in enumerate(table.rows) if _covers(row, total)]
            assert len(covering) == 1, (name, total, covering)
            hits[covering[0]] += 1
    assert set(hits) == set(range(len(table.rows))), f"{name}: a row no roll reaches"


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_text_has_all_three_languages(name: str) -> None:
    for text in _texts(TABLES[name]):
        assert set(text) == LANGS, (name, text)
        for value in text.values():
            parts = [value.one, value.other] if isinstance(value, Plural) else [value]
            assert all(isinstance(p, str) and p.strip() for p in parts)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_rows_have_keys_and_plain_values(name: str) -> None:
    keys = [row.key for row in TABLES[name].rows]
    assert all(keys) and len(set(keys)) == len(keys)
    for row in TABLES[name].rows:
        assert all(isinstance(v, int | str | bool) for v in row.value.values())


def test_only_the_steps_are_from_the_seed() -> None:
    for name, table in TABLES.items():
        assert table.default == (name not in STEPS), name
        if table.default:
            assert any(w in table.title["de"] for w in ("Vorgabe",)), name
            assert "predefinit" in table.title["it"] and "default" in table.title["en"]
        assert table.decision, f"{name}: every table records its reading"


def test_follow_ups_resolve() -> None:
    for table in TABLES.values():
        for row in table.rows:
            for effect in row.effects:
                ref = getattr(effect, "roll", None)
                if ref is not None:
                    assert ref.split("/")[-1] in TABLES, ref


def test_the_linter_is_content() -> None:
    from kerker.tables.lint import lint_paths

    assert [str(p) for p in lint_paths([FOLDER])] == []


def test_headings_are_copied_from_the_seed() -> None:
    lines = set(_seed().splitlines())
    for table in TABLES.values():
        assert table.source.heading in lines, table.source.heading


# -- the four steps against the seed --------------------------------------------------------


def test_step_1_map_sizes_match_the_seed() -> None:
    bullets = _bullets(_section(_seed(), "Schritt 1 – Kartengröße"))
    table = TABLES["map-size"]
    assert table.dice == "1w6"
    assert [(lo, hi) for lo, hi, _ in bullets] == [r.range for r in table.rows]
    for (_lo, _hi, text), row in zip(bullets, table.rows, strict=True):
        w, h = map(int, re.match(r"(\d+)×(\d+)", text).groups())  # type: ignore[union-attr]
        assert row.value == {"w": w, "h": h}
        assert f"{w} × {h}" in row.text["de"]


def test_step_2_node_content_matches_the_seed() -> None:
    bullets = _bullets(_section(_seed(), "Schritt 2 – Knotenpunkte füllen"))
    table = TABLES["node-content"]
    assert [(lo, hi) for lo, hi, _ in bullets] == [r.range for r in table.rows]
    assert [b[2].split(".")[0] for b in bullets] == ["Leer", "Zone"]
    assert [r.value for r in table.rows] == [{"zone": False}, {"zone": True}]


def test_step_3_merge_matches_the_seed() -> None:
    bullets = _bullets(_section(_seed(), "Schritt 3 – Bereichen schaffen"))
    table = TABLES["merge"]
    assert [(lo, hi) for lo, hi, _ in bullets] == [r.range for r in table.rows]
    assert bullets[0][2] == "Nicht verschmolzen"
    assert [r.value for r in table.rows] == [{"merged": False}, {"merged": True}]
    assert _row_odds(table) == {"separate": Fraction(1, 2), "merged": Fraction(1, 2)}


def test_step_4_connections_match_the_seed() -> None:
    bullets = _bullets(_section(_seed(), "Schritt 4 – Verbindungen schaffen"))
    table = TABLES["connections"]
    assert [(lo, hi) for lo, hi, _ in bullets] == [r.range for r in table.rows]
    words = {"einem Bereich": 1, "zwei": 2, "drei": 3, "vier": 4}
    for (_lo, _hi, text), row in zip(bullets, table.rows, strict=True):
        (n,) = [v for w, v in words.items() if w in text]
        assert row.value == {"connections": n}


# -- decisions (docs/rules-notes-002-004.md, "## 002") ---------------------------------------


def test_002_1_width_by_height() -> None:
    rows = {r.key: r.value for r in TABLES["map-size"].rows}
    assert rows["5x3"] == {"w": 5, "h": 3} and rows["8x5"] == {"w": 8, "h": 5}
    assert "width × height" in (TABLES["map-size"].decision or "")


def test_002_2_empty_nodes_hold_no_zone() -> None:
    table = TABLES["node-content"]
    assert _row_odds(table) == {"empty": Fraction(1, 3), "zone": Fraction(2, 3)}
    assert "holds no zone" in (table.decision or "")


def test_002_3_and_4_one_roll_per_pair_merges_chain() -> None:
    decision = TABLES["merge"].decision or ""
    assert "One roll per zone" in decision and "merges chain" in decision.lower()
    assert "--merge pair" in decision and "each pair once" in decision
    assert "an area of its own" in decision


def test_002_5_and_6_up_to_four_connections_counted_in_all() -> None:
    seed = _seed()
    assert "eine, zwei oder drei Verbindungen" in seed  # the prose ...
    assert "vier anderen Bereichen" in seed  # ... and the table disagree
    table = TABLES["connections"]
    assert max(int(r.value["connections"]) for r in table.rows) == 4
    assert "the table wins" in (table.decision or "")
    assert "in all" in (table.decision or "")


@pytest.mark.parametrize("theme", THEMES)
def test_002_7_hidden_connections_start_with_the_seeds_three_ways(theme: str) -> None:
    table = TABLES[f"{theme}-hidden-connection"]
    assert table.default and table.source.heading == "Nicht verbundene Bereiche"
    first = table.rows[:3]
    assert [r.key for r in first[:2]] == ["clue", "conversation"]
    assert first[2].value["visible"] is True  # seen through a window, key still to find
    assert first[2].value["needs"] in {"keycard", "key"}
    assert len(table.rows) >= 6
    assert all(set(r.value) == {"needs", "visible"} for r in table.rows)


def test_002_7_the_scifi_hints_use_the_seeds_words() -> None:
    rows = TABLES["scifi-hidden-connection"].rows
    assert "Hinweis" in rows[0].text["de"]
    assert "Gespräch" in rows[1].text["de"]
    assert "Bullauge" in rows[2].text["de"] and "Schlüsselkarte" in rows[2].text["de"]
    assert "Druckschotttür" in rows[2].text["de"]


def test_002_9_names_start_with_the_seeds_examples() -> None:
    seed_names = ["Lagerhalle", "Medizinische Sektion", "Quartiere", "Maschinenraum"]
    assert [r.text["de"] for r in TABLES["scifi-name"].rows[:4]] == seed_names
    assert [r.key for r in TABLES["fantasy-name"].rows[:4]] == [
        "cellar",
        "crypt",
        "barracks",
        "library",
    ]
    for theme in THEMES:
        assert len(TABLES[f"{theme}-name"].rows) >= 12


@pytest.mark.parametrize("theme", THEMES)
def test_002_10_and_11_zone_properties(theme: str) -> None:
    table = TABLES[f"{theme}-property"]
    keys = [r.key for r in table.rows]
    assert keys[1:5] == ["difficult_terrain", "obstacles", "tight", "isolation"]
    assert keys[0] == "none" and len(keys) - 1 >= 6
    assert "BEZO" in (table.decision or "")
    for row in table.rows[1:]:
        assert [getattr(e, "roll", None) for e in row.effects] == ["property-scope"]
    assert not table.rows[0].effects
    scope = TABLES["property-scope"]
    assert _row_odds(scope) == {"area": Fraction(1, 2), "zone": Fraction(1, 2)}
    assert scope.source.heading == "Startzone und Details festlegen"


def test_002_10_scifi_properties_use_the_seeds_words() -> None:
    texts = [_german(r) for r in TABLES["scifi-property"].rows]
    for word in ("Schwieriges Gelände", "Hindernisse", "Eng", "Isolation"):
        assert any(t.startswith(word + " –") for t in texts), word


@pytest.mark.parametrize("theme", THEMES)
def test_002_12_descriptions_cover_the_four_senses(theme: str) -> None:
    table = TABLES[f"{theme}-description"]
    senses = [r.value["sense"] for r in table.rows]
    assert len(senses) >= 8
    assert Counter(senses) == {"see": 3, "feel": 3, "smell": 3, "hear": 3}
    order = {"see": 0, "feel": 1, "smell": 2, "hear": 3}
    assert senses == sorted(senses, key=lambda s: order[str(s)])


@pytest.mark.parametrize("theme", THEMES)
def test_002_13_encounters(theme: str) -> None:
    table = TABLES[f"{theme}-encounter"]
    beings = [r for r in table.rows if r.value["creatures"]]
    assert len(beings) >= 8
    assert {r.value["attitude"] for r in beings} == {"hostile", "neutral", "friendly"}
    assert _row_odds(table)["none"] == Fraction(1, 4)
    for row in table.rows:
        amounts = [e for e in row.effects if isinstance(e, AmountEffect)]
        uses = any("{count}" in str(t) for t in row.text.values())
        assert uses == bool(amounts), row.key
        assert all(e.name == "count" for e in amounts)
        for value in row.text.values():
            if isinstance(value, Plural):
                assert "{count}" in value.other and "{count}" not in value.one
                assert odds(amounts[0].amount).min == 1  # "one" can happen


@pytest.mark.parametrize("theme", THEMES)
def test_002_14_loot_says_where_and_which_check(theme: str) -> None:
    table = TABLES[f"{theme}-loot"]
    found = [r for r in table.rows if r.value["loot"]]
    assert len(found) >= 8
    for row in found:
        assert set(row.value) == {"loot", "where", "check"}
        german = _german(row)
        if row.value["check"] == "none":
            assert "ohne Wurf" in german, row.key
        else:
            assert "Erfolgswurf" in german, row.key
    assert len({r.value["check"] for r in found}) >= 4
    for row in table.rows:
        for effect in row.effects:
            assert isinstance(effect, AmountEffect)
            assert "{" + effect.name + "}" in _german(row)


def test_002_themes_share_value_keys() -> None:
    for detail in DETAILS:
        shapes = {
            theme: {frozenset(r.value) for r in TABLES[f"{theme}-{detail}"].rows}
            for theme in THEMES
        }
        assert shapes["scifi"] == shapes["fantasy"], detail


def test_002_15_headings_as_printed_including_the_slip() -> None:
    assert TABLES["merge"].source.heading == "Schritt 3 – Bereichen schaffen"
    for name in (f"{t}-{d}" for t in THEMES for d in DETAILS if d != "hidden-connection"):
        assert TABLES[name].source.heading == "Startzone und Details festlegen"
        assert "No heading of its own" in (TABLES[name].decision or ""), name


def test_decisions_are_written_up_in_the_notes() -> None:
    notes = NOTES.read_text(encoding="utf-8")
    section = notes.split("## 002 Zonenkarten")[1].split("\n## ")[0]
    numbers = [int(n) for n in re.findall(r"^(\d+)\. \*\*", section, re.M)]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 15
    for quote in (
        "5×3 Knotenpunkte",
        "eine, zwei oder drei",
        "Bullauge",
        "Siehe",
        "Was sehen, fühlen, riechen, hören die Krallen?",
    ):
        assert quote in section, quote
    for name in TABLES:
        generic = re.sub(r"^(scifi|fantasy)-", "<theme>-", name)
        assert f"`{name}`" in section or f"`{generic}`" in section, name
