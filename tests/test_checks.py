"""HPR checks (seed 003): rules as data, the decisions on extreme rolls, odds, words, luck."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from conftest import require
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from kerker.checks import (
    ALL_OUTCOMES,
    ROLLED_OUTCOMES,
    CheckLimits,
    CheckResult,
    Outcome,
    chance,
    chart,
    check,
    load_rules,
    luck_check,
    modifier_label,
    needs_confirmation,
    odds,
    parse_difficulty,
    parse_luck,
    penalty,
    read_rules,
    resolve,
    success_chance,
)
from kerker.checks.data import LANGS, RULES_FILE
from kerker.checks.folding import fold
from kerker.checks.vocabulary import Vocabulary, build_vocabulary, read_difficulty
from kerker.dice import odds as dice_odds
from kerker.dice import roll
from kerker.errors import CheckError, DiceError, RuleDataError
from kerker.i18n import dice_text

SEED_FILE = "003_bf40ddb2c68c476f.txt"
SEED_PATH = Path(__file__).resolve().parents[2] / "shared" / "seeds" / SEED_FILE  # beside the repo
FACES = range(1, 21)


# -- an independent oracle, written from the rule text and the decisions -------------------


def oracle(first: int, second: int | None, chance: int) -> str:
    """Outcome of a first roll and its confirmation, straight from docs/hpr.md."""
    if first not in (1, 20):
        return "success" if first <= chance else "failure"
    assert second is not None
    confirmed = second == 1 or (second != 20 and second <= chance)
    if first == 1:
        if second == 1:
            return "super"
        if confirmed:
            return "critical"
        return "success" if chance >= 1 else "failure"
    if second == 20:
        return "fumble"
    if confirmed:
        return "success" if chance >= 20 else "failure"
    return "fumble"


def brute_force(chance: int) -> dict[str, Fraction]:
    """Probabilities by walking all 400 equally likely (first, confirmation) pairs."""
    counts = dict.fromkeys(("super", "critical", "success", "failure", "fumble"), 0)
    for first in FACES:
        for second in FACES:
            counts[oracle(first, second if first in (1, 20) else None, chance)] += 1
    return {key: Fraction(n, 400) for key, n in counts.items()}


# -- the data -------------------------------------------------------------------------------


def test_rules_numbers_come_from_the_data() -> None:
    rules = load_rules()
    assert rules.die == "W20"
    assert (rules.best, rules.worst) == (1, 20)
    assert rules.retry_penalty == 5
    assert rules.impossible_value == 0
    assert rules.where_default == "W100"
    assert [lv.value for lv in rules.luck] == [13, 8, 3]
    assert [row.value for row in rules.modifiers] == [25, 20, 15, 10, 5, 0, -5, -10, -15, -20, -25]
    assert rules.word_rule.plain == 5
    assert [i.magnitude for i in rules.word_rule.intensifiers] == [10, 15]
    assert rules.word_rule.un_magnitude == 20


def test_rules_are_loaded_once() -> None:
    assert load_rules() is load_rules()


def test_unglaublich_is_read_as_minus_25_and_says_so() -> None:
    row = load_rules().modifier_by_value(-25)
    assert row is not None and row.label("de") == "unglaublich"
    assert row.printed == "+25 unglaublich"
    assert row.decision and "lachhaft" in row.decision
    assert parse_difficulty("unglaublich") == -25


def test_extremes_are_the_faces_of_the_die() -> None:
    rules = load_rules()
    dist = dice_odds(rules.die)
    assert (dist.min, dist.max) == (rules.best, rules.worst)


def test_every_text_exists_in_every_language() -> None:
    rules = load_rules()
    for outcome in ALL_OUTCOMES:
        for lang in LANGS:
            assert rules.outcomes[outcome.value].name[lang]
            assert rules.outcomes[outcome.value].hint[lang]
    for row in rules.modifiers:
        assert all(row.words[lang] for lang in LANGS)
    for level in rules.luck:
        assert all(level.name[lang] for lang in LANGS)
    assert rules.outcomes["fumble"].name["de"] == "Patzer"
    assert rules.outcomes["critical"].name["de"] == "Kritischer Erfolg"


def test_sources_name_headings_as_printed() -> None:
    rules = load_rules()
    text = require(SEED_PATH, "the rule text of seed 003").read_text(encoding="utf-8")
    lines = {line.strip() for line in text.splitlines()}
    sources = [
        rules.die_source,
        rules.extremes_source,
        rules.modifiers_source,
        rules.luck_source,
        rules.word_rule.source,
        *(text.source for text in rules.outcomes.values()),
    ]
    for source in sources:
        assert source.file == SEED_FILE
        assert source.heading in lines, source.heading


# -- malformed data -------------------------------------------------------------------------


def _shipped() -> dict[str, Any]:
    data = YAML(typ="safe").load(RULES_FILE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "checks.yaml"
    with path.open("w", encoding="utf-8") as fh:
        YAML(typ="safe").dump(data, fh)
    return path


def test_read_rules_accepts_a_copy_of_the_shipped_file(tmp_path: Path) -> None:
    rules = read_rules(_write(tmp_path, _shipped()))
    assert [lv.value for lv in rules.luck] == [13, 8, 3]


@pytest.mark.parametrize(
    ("breakage", "fragment"),
    [
        (lambda d: d["die"].pop("expression"), "die.expression"),
        (lambda d: d["luck"]["levels"][0].update(value="13"), "luck.levels[0].value"),
        (lambda d: d["luck"]["levels"][0].update(value=21), "outside"),
        (lambda d: d["modifiers"]["table"][0]["words"].pop("it"), "words.it"),
        (lambda d: d["modifiers"]["table"][1].update(value=25), "duplicate value"),
        (lambda d: d["word_rule"]["bases"]["de"].update(weit=2), "sign"),
        (lambda d: d["texts"]["de"].update(roll_line="{outcome} {oops}"), "unknown field"),
        (lambda d: d["outcomes"].pop("fumble"), "outcomes.fumble"),
        (lambda d: d["modifiers"]["table"][0]["words"]["en"].append("hard"), "already means"),
        (lambda d: d.update(schema=2), "schema"),
        (lambda d: d["extremes"].update(best=20), "lower than"),
    ],
)
def test_malformed_data_raises_rule_data_error(
    tmp_path: Path, breakage: Callable[[dict[str, Any]], object], fragment: str
) -> None:
    data = _shipped()
    breakage(data)
    path = _write(tmp_path, data)
    with pytest.raises(RuleDataError) as info:
        read_rules(path)
    assert fragment in str(info.value)
    assert str(path) in str(info.value)


def test_broken_yaml_and_missing_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("die: [unclosed\n", encoding="utf-8")
    with pytest.raises(RuleDataError, match="YAML"):
        read_rules(bad)
    with pytest.raises(RuleDataError, match="cannot read"):
        read_rules(tmp_path / "missing.yaml")
    top = tmp_path / "list.yaml"
    top.write_text("- 1\n", encoding="utf-8")
    with pytest.raises(RuleDataError, match="mapping"):
        read_rules(top)


# -- the decisions, one by one ------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "chance_", "expected"),
    [
        # a 1 in a confirmation always holds, a 20 always fails
        (20, 1, -5, Outcome.FAILURE),
        (1, 20, 25, Outcome.SUCCESS),
        (20, 20, 40, Outcome.FUMBLE),
        # first roll 1
        (1, 1, 12, Outcome.SUPER),
        (1, 1, -30, Outcome.SUPER),
        (1, 12, 12, Outcome.CRITICAL),
        (1, 13, 12, Outcome.SUCCESS),
        (1, 13, 0, Outcome.FAILURE),
        (1, 5, -3, Outcome.FAILURE),
        # first roll 20
        (20, 12, 12, Outcome.FAILURE),
        (20, 13, 12, Outcome.FUMBLE),
        (20, 19, 20, Outcome.SUCCESS),
        (20, 2, 25, Outcome.SUCCESS),
        (20, 2, 1, Outcome.FUMBLE),
        # everything else is plain
        (12, None, 12, Outcome.SUCCESS),
        (13, None, 12, Outcome.FAILURE),
        (19, None, 25, Outcome.SUCCESS),
        (2, None, 0, Outcome.FAILURE),
    ],
)
def test_resolve_decisions(first: int, second: int | None, chance_: int, expected: Outcome) -> None:
    assert resolve(first, second, chance_) is expected
    assert oracle(first, second, chance_) == expected.value


def test_resolve_refuses_a_misplaced_confirmation() -> None:
    with pytest.raises(CheckError):
        resolve(1, None, 12)
    with pytest.raises(CheckError):
        resolve(7, 3, 12)


def test_only_a_double_one_succeeds_at_chance_zero_or_less() -> None:
    for value, modifier in ((5, -5), (3, -20), (12, -25)):
        table = odds(value, modifier)
        assert success_chance(value, modifier) == table["super"] == Fraction(1, 400)
        assert table["critical"] == table["success"] == 0


def test_only_a_double_twenty_fumbles_at_chance_twenty_or_more() -> None:
    for value, modifier in ((20, 0), (15, 10), (25, 0)):
        table = odds(value, modifier)
        assert table["fumble"] == Fraction(1, 400)
        assert table["failure"] == 0


def test_needs_confirmation_on_1_and_20_only() -> None:
    assert [f for f in FACES if needs_confirmation(f)] == [1, 20]


# -- odds -------------------------------------------------------------------------------------


def test_odds_match_brute_force_for_every_chance() -> None:
    for value in range(1, 26):
        for modifier in (-25, -10, -5, 0, 5, 10, 25):
            expected = brute_force(value + modifier)
            got = odds(value, modifier)
            assert {k: got[k] for k in expected} == expected, (value, modifier)
            assert got["impossible"] == 0


def test_odds_sum_to_one_and_keep_their_keys() -> None:
    for value in (0, 1, 7, 12, 20, 25, 100):
        for attempt in (1, 2, 5):
            table = odds(value, -7, attempt=attempt)
            assert list(table) == [o.value for o in ALL_OUTCOMES]
            assert sum(table.values()) == 1
            assert all(isinstance(p, Fraction) for p in table.values())


@settings(max_examples=200, deadline=None)
@given(value=st.integers(1, 100), modifier=st.integers(-100, 100), attempt=st.integers(1, 20))
def test_success_is_chance_over_20_between_the_extremes(
    value: int, modifier: int, attempt: int
) -> None:
    """Below 1 only a double 1 succeeds, from 20 only a double 20 fails, else chance/20."""
    target = value + modifier - 5 * (attempt - 1)
    if target <= 0:
        expected = Fraction(1, 400)
    elif target >= 20:
        expected = Fraction(399, 400)
    else:
        expected = Fraction(target, 20)
    assert chance(value, modifier, attempt=attempt) == target
    assert success_chance(value, modifier, attempt=attempt) == expected
    table = odds(value, modifier, attempt=attempt)
    assert sum(table.values()) == 1 and table["impossible"] == 0


def test_known_odds() -> None:
    table = odds(12)
    assert table["super"] == Fraction(1, 400)
    assert table["critical"] == Fraction(11, 400)
    assert table["fumble"] == Fraction(8, 400)
    assert success_chance(12) == Fraction(12, 20)


def test_chart_rows() -> None:
    rows = chart(-5)
    assert [r.value for r in rows] == list(range(1, 26))
    assert [r.chance for r in rows] == [v - 5 for v in range(1, 26)]
    assert all(sum(r.odds.values()) == 1 for r in rows)
    assert chart(0, attempt=3, values=[12])[0].chance == 2


# -- check() ------------------------------------------------------------------------------------


def test_attempt_penalty() -> None:
    assert [penalty(a) for a in (1, 2, 3, 4)] == [0, 5, 10, 15]
    assert chance(12, 0, attempt=3) == 2
    assert chance(12, 5, attempt=2) == 12
    result = check(12, 0, random.Random(1), attempt=3)
    assert (result.penalty, result.chance, result.attempt) == (10, 2, 3)


def test_value_zero_is_impossible_without_a_roll() -> None:
    rng = random.Random(4)
    state = rng.getstate()
    result = check(0, 10, rng, where="W100")
    assert result.outcome is Outcome.IMPOSSIBLE
    assert not result.success
    assert result.rolls == () and result.where is None
    assert rng.getstate() == state
    assert odds(0)["impossible"] == 1
    assert "0" in result.roll_line("en")
    assert result.outcome_name("de") == "Kann es nicht"


@pytest.mark.parametrize(
    ("value", "modifier", "attempt"),
    [(-1, 0, 1), (101, 0, 1), (12, 101, 1), (12, -101, 1), (12, 0, 0), (12, 0, 21)],
)
def test_out_of_range_input_is_refused(value: int, modifier: int, attempt: int) -> None:
    with pytest.raises(CheckError):
        check(value, modifier, random.Random(1), attempt=attempt)
    with pytest.raises(CheckError):
        odds(value, modifier, attempt=attempt)


@pytest.mark.parametrize("bad", [True, 12.0, "12", None])
def test_non_integers_are_refused(bad: object) -> None:
    with pytest.raises(CheckError):
        check(bad, 0, random.Random(1))  # type: ignore[arg-type]
    with pytest.raises(CheckError):
        check(12, bad, random.Random(1))  # type: ignore[arg-type]


def test_limits_are_injected() -> None:
    assert check(150, 0, random.Random(1), limits=CheckLimits(max_value=200)).chance == 150
    with pytest.raises(CheckError):
        chance(15, 0, limits=CheckLimits(max_value=10))


def test_same_seed_same_result() -> None:
    for seed in range(50):
        a = check(11, -3, random.Random(seed), where="W100", secret=True)
        b = check(11, -3, random.Random(seed), where="W100", secret=True)
        assert a == b and a.to_json() == b.to_json()


def test_rng_is_consumed_die_by_die_through_the_dice_engine() -> None:
    seen = set()
    for seed in range(400):
        result = check(12, 0, random.Random(seed), where="W6")
        mirror = random.Random(seed)
        first = roll("W20", mirror)
        assert result.rolls[0].total == first.total
        assert result.rolls[0].explain == first.explain()
        if first.total in (1, 20):
            assert result.rolls[1].total == roll("W20", mirror).total
        else:
            assert len(result.rolls) == 1
        if result.outcome in (Outcome.FAILURE, Outcome.FUMBLE):
            assert result.where is not None
            assert result.where.total == roll("W6", mirror).total
            assert 1 <= result.where.total <= 6
        else:
            assert result.where is None
        seen.add(result.outcome)
    assert seen == set(ROLLED_OUTCOMES)


def test_bad_where_expression_fails_even_on_success() -> None:
    with pytest.raises(DiceError):
        check(100, 100, random.Random(1), where="W")


def test_sampling_matches_exact_odds() -> None:
    """Chi-square over 20 000 seeded checks for a value with every outcome likely enough."""
    n = 20_000
    value, modifier = 14, -4
    rng = random.Random(20240)
    counts = dict.fromkeys((o.value for o in ROLLED_OUTCOMES), 0)
    for _ in range(n):
        counts[check(value, modifier, rng).outcome.value] += 1
    exact = odds(value, modifier)
    chi2 = sum((counts[k] - n * float(exact[k])) ** 2 / (n * float(exact[k])) for k in counts)
    assert chi2 < 18.47  # 4 degrees of freedom, p = 0.001


def _find(value: int, modifier: int, pred: Callable[[CheckResult], bool]) -> CheckResult:
    for seed in range(5000):
        result = check(value, modifier, random.Random(seed))
        if pred(result):
            return result
    raise AssertionError("no seed found")


def test_notes_mark_the_special_paths() -> None:
    missed = _find(12, 0, lambda r: r.rolls[0].total == 1 and r.outcome is Outcome.SUCCESS)
    assert missed.notes == ("critical_missed",)
    averted = _find(12, 0, lambda r: r.rolls[0].total == 20 and r.outcome is Outcome.FAILURE)
    assert averted.notes == ("fumble_averted",)
    master = _find(25, 0, lambda r: r.rolls[0].total == 20)
    assert master.outcome is Outcome.SUCCESS or master.rolls[1].total == 20
    assert master.notes == (("fumble_averted_master",) if master.success else ())
    for seed in range(200):
        hopeless = check(3, -10, random.Random(seed))
        assert ("hopeless" in hopeless.notes) is (hopeless.outcome is not Outcome.SUPER)
    plain = _find(12, 0, lambda r: 1 < r.rolls[0].total < 20)
    assert plain.notes == ()
    assert plain.note_lines("de") == ()
    assert missed.note_lines("it") == (load_rules().notes["critical_missed"]["it"],)


def test_json_has_stable_english_keys() -> None:
    data = check(12, -5, random.Random(3), where="W100").to_json()
    assert list(data) == [
        "value", "modifier", "attempt", "penalty", "chance", "luck",
        "rolls", "outcome", "success", "where", "secret", "notes",
    ]  # fmt: skip
    assert data["outcome"] in {o.value for o in ALL_OUTCOMES}
    assert isinstance(data["success"], bool)
    assert data["rolls"][0]["role"] == "check"


# -- secret rolls and texts ------------------------------------------------------------------


def test_secret_roll_shows_the_player_only_a_neutral_phrase() -> None:
    rules = load_rules()
    for seed in range(30):
        result = check(12, 0, random.Random(seed), secret=True)
        for lang in LANGS:
            assert result.player_line(lang) == rules.texts[lang]["secret_player"]
            gm = result.gm_line(lang)
            assert gm.startswith(rules.texts[lang]["secret_gm"])
            assert result.outcome_name(lang) in gm
            assert dice_text(result.rolls[0].explain, lang) in gm
            assert result.outcome_name(lang) not in result.player_line(lang)


def test_check_lines_write_the_die_the_way_each_language_does() -> None:
    # Italian and English say d20 (the Italian rule text's own "1d4"), German W20 (seed 003).
    for seed in range(200):
        result = check(10, 0, random.Random(seed), where="W6")
        for lang in LANGS:
            text = " ".join(result.gm_lines(lang))
            if lang == "de":
                assert "W20" in text and "d20" not in text
            else:
                assert "d20" in text and "W20" not in text and "W6" not in text, text


def test_open_roll_shows_the_player_the_roll() -> None:
    result = check(12, 0, random.Random(1))
    assert result.player_line("de") == result.roll_line("de")
    assert "Würfelchance 12" in result.roll_line("de")


def test_unknown_language_is_refused() -> None:
    with pytest.raises(CheckError):
        check(12, 0, random.Random(1)).gm_line("fr")


# -- difficulty words ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("lachhaft", 25),
        ("Kinderleicht", 20),
        ("normal", 0),
        ("schwer", -5),
        ("sehr schwer", -10),
        ("SEHR  SCHWER", -10),
        ("sehr-schwer", -10),
        ("extrem schwer", -15),
        ("unmenschlich", -20),
        ("very hard", -10),
        ("molto difficile", -10),
        ("difficilissimo", -10),
        ("extremely easy", 15),
        ("child's play", 20),
        ("Child’s Play", 20),
        ("disumano", -20),
        # the word rule
        ("sehr weit", -10),
        ("extrem leicht", 15),
        ("äußerst weit", -15),
        ("aeusserst weit", -15),
        ("ausserst weit", -15),
        ("sehr breit", -10),
        ("groß", 5),
        ("gross", 5),
        ("extrem hoch", -15),
        ("sehr klein", -10),
        ("very far", -10),
        ("extremely deep", -15),
        ("molto lontano", -10),
        ("estremamente alto", -15),
        ("unschwer", 20),
        ("unweit", 20),
        ("unmöglich", -20),
        ("unmoeglich", -20),
        ("unmoglich", -20),
        ("unüberwindbar", -20),
        ("impossible", -20),
        ("impossibile", -20),
        ("ungefährlich", 20),
    ],
)
def test_parse_difficulty(text: str, value: int) -> None:
    assert parse_difficulty(text) == value


@pytest.mark.parametrize(
    "text", ["blah", "", "sehr", "sehr sehr schwer", "sehr unmöglich", "uneasy", "sehr normal"]
)
def test_unknown_difficulty_lists_valid_words(text: str) -> None:
    with pytest.raises(CheckError) as info:
        parse_difficulty(text)
    assert "sehr schwer" in str(info.value) and "unmenschlich" in str(info.value)


def test_unknown_difficulty_lists_words_in_the_language() -> None:
    with pytest.raises(CheckError, match="molto difficile"):
        parse_difficulty("xyz", lang="it")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120))
def test_any_text_gives_a_modifier_or_a_check_error(text: str) -> None:
    for parse in (parse_difficulty, parse_luck):
        with contextlib.suppress(CheckError):
            parse(text)


def test_difficulty_input_is_capped() -> None:
    with pytest.raises(CheckError):
        parse_difficulty("sehr " * 100)
    with pytest.raises(CheckError):
        parse_difficulty(5)  # type: ignore[arg-type]


def test_table_words_agree_with_the_word_rule() -> None:
    """Where a table word is "sehr/extrem + base", the word rule alone gives the same value."""
    rules = load_rules()
    full = build_vocabulary(rules)
    bare = Vocabulary(
        table={}, un_words={}, intensifiers=full.intensifiers, bases=full.bases,
        un_prefixes=full.un_prefixes, plain=full.plain, un_magnitude=full.un_magnitude,
        luck=full.luck,
    )  # fmt: skip
    checked = 0
    for row in rules.modifiers:
        for lang in LANGS:
            for word in row.words[lang]:
                by_rule = read_difficulty(word, bare)
                if by_rule is not None:
                    assert by_rule == row.value, word
                    checked += 1
    assert checked >= 10


def test_modifier_label() -> None:
    assert modifier_label(-10, "de") == "sehr schwer"
    assert modifier_label(-10, "it") == "molto difficile"
    assert modifier_label(-10, "en") == "very hard"
    assert modifier_label(-7, "en") is None


def test_fold() -> None:
    assert fold(" Äußerst  Schwer ") == "aeusserst schwer"
    assert fold("è") == "e"


# -- luck ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("glueck", 13),
        ("Glück", 13),
        ("luck", 13),
        ("viel", 8),
        ("viel Glück", 8),
        ("much luck", 8),
        ("sehr-viel", 3),
        ("sehr viel Glück", 3),
        ("moltissima fortuna", 3),
    ],
)
def test_parse_luck(text: str, value: int) -> None:
    assert parse_luck(text).value == value


def test_unknown_luck_level() -> None:
    with pytest.raises(CheckError, match="sehr-viel"):
        parse_luck("riesig")


def test_luck_check_uses_the_values_from_the_data() -> None:
    for level in load_rules().luck:
        result = luck_check(level.key.replace("_", " "), random.Random(9))
        assert (result.value, result.modifier, result.chance, result.luck) == (
            level.value, 0, level.value, level.key,
        )  # fmt: skip
    assert luck_check("viel", random.Random(1), modifier=-5).chance == 3
    same = check(8, 0, random.Random(77)).outcome
    assert luck_check("viel", random.Random(77)).outcome is same
