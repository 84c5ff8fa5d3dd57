"""The table engine: rolling with follow-ups, exact odds, and their agreement (chi-square)."""

from __future__ import annotations

import collections
import json
import random
from fractions import Fraction
from pathlib import Path

import pytest
from rules_support import oracle_evaluate, oracle_fill, oracle_names

from kerker.errors import KerkerError
from kerker.tables.engine import (
    MAX_DEPTH,
    AmountResult,
    ChanceResult,
    TableResult,
    check_depth,
    roll_table,
    walk_start,
)
from kerker.tables.expr import ExprError, evaluate, fill, names
from kerker.tables.odds import outcome_of, table_odds
from kerker.tables.registry import TableError, load_registry
from kerker.tables.render import lines, number, to_json
from kerker.tables.tree import table_tree

FIXTURES = Path(__file__).parent / "fixtures" / "engine"


@pytest.fixture(scope="module")
def reg():  # type: ignore[no-untyped-def]
    return load_registry([FIXTURES])


# -- safe expressions ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ctx", "want"),
    [
        ("1 if guarded else 0", {"guarded": True}, 1),
        ("1 if guarded else 0", {"guarded": False}, 0),
        ("2 * level + 1", {"level": 3}, 7),
        ("result > 96", {"result": 97}, True),
        ("1 <= result <= 5", {"result": 6}, False),
        ("not true or false", {}, False),
        ("-7 // 2", {}, -4),
        ("level % 2 == 0 and level > 1", {"level": 4}, True),
    ],
)
def test_safe_expressions(text: str, ctx: dict[str, int], want: int | bool) -> None:
    assert evaluate(text, ctx) == want
    assert oracle_evaluate(text, ctx) == want  # the rule tests' own evaluator agrees


def test_the_rule_tests_oracle_fills_templates_and_names_what_it_reads() -> None:
    assert oracle_fill("{2*level}W10 × 100", {"level": 3}) == "6W10 × 100"
    assert oracle_fill("W{6 if big else 4}+{level}", {"big": False, "level": 2}) == "W4+2"
    assert oracle_names("level > 1 and not guarded or true") == {"level", "guarded"}
    with pytest.raises(AssertionError, match="not a safe expression"):
        oracle_evaluate("'text'", {})


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os')",
        "level.real",
        "'text'",
        "[1]",
        "f(1)",
        "lambda: 1",
        "1.5",
        "x := 1",
        "",
        "-" * 50 + "1",
        "2 ** 100",
        "a[0]",
        "{1: 2}",
        "1" * 300,
    ],
)
def test_everything_else_is_refused(text: str) -> None:
    with pytest.raises(ExprError):
        evaluate(text, {"level": 1, "a": 1})


def test_unknown_names_and_zero_division_are_clear_errors() -> None:
    with pytest.raises(ExprError, match="unknown name"):
        evaluate("depth + 1", {"level": 1})
    with pytest.raises(ExprError, match="division by zero"):
        evaluate("level // 0", {"level": 1})
    assert names("1 if guarded and level > 2 else true") == {"guarded", "level"}


def test_templates_fill_dice_expressions() -> None:
    assert fill("{2*level}W10 × 100", {"level": 3}) == "6W10 × 100"
    assert fill("W{66}", {}) == "W{66}"  # a true die, not a template
    assert fill("{2 if guarded else 1}", {"guarded": True}) == "2"


# -- rolling -----------------------------------------------------------------------------------


def test_same_seed_same_result(reg) -> None:  # type: ignore[no-untyped-def]
    a = roll_table(reg, "test/schatz", random.Random(3), context={"level": 2})
    b = roll_table(reg, "test/schatz", random.Random(3), context={"level": 2})
    assert to_json(a[0], "de") == to_json(b[0], "de")
    assert a[1] == b[1]


def test_level_multiplies_amounts_and_guarded_adds_one(reg) -> None:  # type: ignore[no-untyped-def]
    seen_21 = False
    for seed in range(300):
        result, log = roll_table(
            reg, "test/schatz", random.Random(seed), context={"level": 3, "guarded": True}
        )
        assert result.pick.total == result.pick.roll.total + 1
        seen_21 |= result.pick.total == 21
        if result.key == "copper":
            amount = result.effects[0]
            assert isinstance(amount, AmountResult)
            assert amount.expression == "6W10 × 100"
            assert 600 <= amount.value <= 6000
        assert log[0]["table"] == "test/schatz"
    assert seen_21  # the "20+" row catches the modified 21


def test_sub_die_and_plural_text(reg) -> None:  # type: ignore[no-untyped-def]
    texts = set()
    for seed in range(400):
        result, log = roll_table(reg, "test/schatz", random.Random(seed), context={"level": 1})
        if result.pick.row.then is not None:
            assert result.sub is not None
            assert [entry["dice"] for entry in log[:2]] == ["W20", "W8"]
        if result.key == "magic":
            texts.add(lines(result, "de")[0])
    assert "Schatz: 1 magischer Gegenstand" in texts


def test_reroll_if_never_lets_the_result_through(reg) -> None:  # type: ignore[no-untyped-def]
    for seed in range(300):
        result, _log = roll_table(reg, "test/schatz", random.Random(seed))
        for child in result.children():
            if result.key == "container":
                assert child.pick.total != 10


def test_again_adds_values(reg) -> None:  # type: ignore[no-untyped-def]
    areas = collections.Counter()
    for seed in range(2000):
        result, _log = roll_table(reg, "test/form", random.Random(seed))
        areas[result.values["area"]] += 1
    assert set(areas) >= {5, 15, 25}
    assert all(a % 10 == 5 for a in areas)


def test_weighted_gaps_when_and_lookup(reg) -> None:  # type: ignore[no-untyped-def]
    for seed in range(200):
        result, _ = roll_table(reg, "test/gaps", random.Random(seed))
        assert result.key in ("low", "high")
        result, _ = roll_table(reg, "test/when", random.Random(seed))
        assert bool(result.children()) == (result.pick.total >= 5)
        result, _ = roll_table(reg, "test/weighted", random.Random(seed))
        assert result.pick.dice == "d4"
    with pytest.raises(TableError, match="lookup"):
        roll_table(reg, "test/lookup", random.Random(1))


def test_self_reference_ends_in_a_clear_error(reg) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TableError, match="refer to itself"):
        roll_table(reg, "test/loop", random.Random(1))
    with pytest.raises(TableError, match="refer to itself"):
        table_odds(reg, "test/loop")


def test_every_walk_enters_a_table_alike(reg) -> None:  # type: ignore[no-untyped-def]
    """walk_start: the one entry of the roller, the exact odds and the probability tree."""
    schatz = reg.get("test/schatz")
    ctx, modifier = walk_start(schatz, {"guarded": True, "level": 3}, 0, None)
    assert ctx == {"level": 3, "guarded": True}  # given over the params over level 1
    assert modifier == "1 if guarded else 0"
    ctx, modifier = walk_start(schatz, {}, MAX_DEPTH, "2")
    assert ctx == {"level": 1, "guarded": False}
    assert modifier == "(1 if guarded else 0) + (2)"
    assert walk_start(reg.get("test/loop"), {}, 0, "-1")[1] == "-1"  # no own modifier
    with pytest.raises(TableError, match="nested deeper than 12"):
        walk_start(schatz, {}, MAX_DEPTH + 1, None)
    with pytest.raises(TableError, match="deeper than 12"):
        check_depth(schatz, MAX_DEPTH + 1)
    check_depth(schatz, MAX_DEPTH)  # the deepest allowed
    with pytest.raises(TableError, match="test/lookup is a lookup table"):
        walk_start(reg.get("test/lookup"), {}, 0, None)
    with pytest.raises(TableError, match="lookup"):
        table_tree(reg, "test/lookup")


def test_unknown_table_suggests(reg) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TableError, match="test/schatz"):
        reg.get("test/schaz")


def test_json_is_plain_data(reg) -> None:  # type: ignore[no-untyped-def]
    result, _log = roll_table(reg, "test/schatz", random.Random(8), context={"level": 2})
    data = to_json(result, "en")
    json.dumps(data)
    assert {
        "table",
        "title",
        "key",
        "text",
        "values",
        "dice",
        "roll",
        "total",
        "row",
        "effects",
    } <= set(data)


def test_numbers_are_written_per_language() -> None:
    assert number(1300, "de") == "1\u00a0300"
    assert number(1300, "it") == "1.300"
    assert number(1300, "en") == "1,300"
    assert number(-5, "en") == "-5"


# -- exact odds -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table_id", "ctx"),
    [
        ("test/schatz", {}),
        ("test/schatz", {"level": 3, "guarded": True}),
        ("test/form", {}),
        ("test/weighted", {}),
        ("test/gaps", {}),
        ("test/when", {}),
    ],
)
def test_odds_sum_to_one(reg, table_id: str, ctx: dict) -> None:  # type: ignore[no-untyped-def]
    outcomes = table_odds(reg, table_id, lang="de", context=ctx)
    assert sum(p for _o, p in outcomes) == 1
    assert all(p > 0 for _o, p in outcomes)


def test_odds_by_hand(reg) -> None:  # type: ignore[no-untyped-def]
    got = {o.describe(): p for o, p in table_odds(reg, "test/schatz", lang="en")}
    assert got["2W10 × 100 cp"] == Fraction(17, 20)
    assert got["1W3 gems"] == Fraction(1, 20) * Fraction(5, 8)
    assert got["Empty container [Chest]"] == Fraction(1, 20)  # "0" rerolled away
    gaps = {o.describe(): p for o, p in table_odds(reg, "test/gaps", lang="en")}
    assert gaps == {"low": Fraction(1, 2), "high": Fraction(1, 2)}
    form = {o.text: p for o, p in table_odds(reg, "test/form", lang="en")}
    assert form["~5"] == Fraction(3, 4)
    assert form["~15"] == Fraction(1, 4) * Fraction(3, 4)
    weighted = {o.describe(): p for o, p in table_odds(reg, "test/weighted", lang="en")}
    assert weighted["A"] == Fraction(3, 4)
    assert weighted["B [Chest; Chest]"] == Fraction(1, 4) * Fraction(1, 2) * Fraction(81, 100)


@pytest.mark.parametrize(
    ("table_id", "ctx"),
    [
        ("test/schatz", {"level": 2, "guarded": True}),
        ("test/form", {}),
        ("test/weighted", {}),
        ("test/when", {}),
    ],
)
def test_rolls_match_exact_odds(reg, table_id: str, ctx: dict) -> None:  # type: ignore[no-untyped-def]
    exact = dict(table_odds(reg, table_id, lang="de", context=ctx))
    rng = random.Random(20261130)
    n = 8000
    seen: collections.Counter = collections.Counter()
    for _ in range(n):
        result, _log = roll_table(reg, table_id, rng, context=ctx)
        outcome = outcome_of(result, "de")
        assert outcome in exact, outcome.describe()
        seen[outcome] += 1
    cells = [(seen[o], n * float(p)) for o, p in exact.items() if n * float(p) >= 5]
    chi2 = sum((obs - exp) ** 2 / exp for obs, exp in cells)
    df = max(1, len(cells) - 1)
    # Wilson-Hilferty: the p = 0.001 critical value of chi-square with df degrees.
    z = 3.09
    critical = df * (1 - 2 / (9 * df) + z * (2 / (9 * df)) ** 0.5) ** 3
    assert chi2 < critical, (chi2, critical)


def test_bad_user_file_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "schema: 1\nrule_set: mine\nlanguage: de\ntables:\n  - name: x\n"
        "    title: {de: X}\n    source: {heading: X}\n    dice: W6\n    rows:\n"
        "      - range: [1, 6]\n        txt: {de: oops}\n",
        encoding="utf-8",
    )
    with pytest.raises(KerkerError) as info:
        load_registry([bad])
    assert str(info.value).startswith(f"{bad}:")
    assert ":10:" in str(info.value) or ":11:" in str(info.value)


def test_user_table_replaces_shipped_id(tmp_path: Path, reg) -> None:  # type: ignore[no-untyped-def]
    mine = tmp_path / "mine.yaml"
    mine.write_text(
        "schema: 1\nrule_set: test\nlanguage: en\ntables:\n  - name: behaelter\n"
        "    title: {en: Mine}\n    source: {heading: Mine}\n    dice: W2\n    rows:\n"
        "      - {range: [1, 2], text: {en: Sack}}\n",
        encoding="utf-8",
    )
    both = load_registry([FIXTURES, mine])
    assert both.get("test/behaelter").title["en"] == "Mine"
    assert "test/behaelter" in both.replaced


def test_chance_results_carry_their_side(reg) -> None:  # type: ignore[no-untyped-def]
    sides = set()
    for seed in range(2000):
        result, _ = roll_table(reg, "test/schatz", random.Random(seed))
        for effect in result.effects:
            if isinstance(effect, ChanceResult):
                sides.add(effect.passed)
                assert (effect.roll.total <= 50) == effect.passed
                assert (
                    bool([e for e in effect.effects if isinstance(e, TableResult)]) == effect.passed
                )
    assert sides == {True, False}


def _check_tree(node) -> None:  # type: ignore[no-untyped-def]
    from kerker.tables.tree import TreeChance, TreeFollow

    if node.ref:
        return
    assert sum(row.p for row in node.rows) == 1
    for row in node.rows:
        if row.sub:
            assert sum(s.p for s in row.sub) == 1
        for effect in row.effects:
            if isinstance(effect, TreeFollow):
                _check_tree(effect.tree)
            elif isinstance(effect, TreeChance):
                assert 0 < effect.p < 1


def test_probability_tree_rows_sum_to_one(reg) -> None:  # type: ignore[no-untyped-def]
    from kerker.tables.tree import table_tree

    for table_id in ("test/schatz", "test/weighted", "test/gaps", "test/form"):
        _check_tree(table_tree(reg, table_id, lang="de", context={"level": 2}))
    tree = table_tree(reg, "test/schatz", lang="en")
    assert [r.p for r in tree.rows][:1] == [Fraction(17, 20)]
    assert tree.rows[1].sub[0].p == Fraction(5, 8)


def test_flat_odds_refuse_politely_when_too_long(reg) -> None:  # type: ignore[no-untyped-def]
    from kerker.tables.odds import TooManyOutcomes

    with pytest.raises(TooManyOutcomes):
        table_odds(reg, "test/schatz", max_outcomes=3)
