"""Rolling: determinism, agreement with the exact odds, fidelity, the record and its renderers.

The chi-square tests compute the statistic here (no scipy): 20 000 seeded rolls per expression,
outcomes merged into bins of expected count >= 5, compared against the chi-square quantile at
p = 0.001 (Wilson-Hilferty). The seeds are fixed, so the tests are stable; a wrong distribution
(e.g. ``r`` behaving like ``ro``) lands far above the threshold, as the control test shows.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections import Counter
from typing import Any

import pytest

from kerker.dice import Roll, odds, parse, roll
from kerker.dice.records import DiceRecord
from kerker.errors import DiceLimitError, DiceRollError
from kerker.limits import Limits

SMALL = Limits(max_explode_depth=2, max_rerolls=3)

EXPRESSIONS = [
    "3W6",
    "4W6kh3",
    "4W6dl1",
    "2W20kl1",
    "W%",
    "W10",
    "W66",
    "W666",
    "W{66}",
    "4dF",
    "2W6r1",
    "2W6ro1",
    "3W6!",
    "3W6!>=5",
    "6W6>=5",
    "6W6>=5!",
    "4W6r1!kh3",
    "(W4)W6",
    "(W3-1)W6kh1",
    "min(W6, W6)",
    "max(2W6, 7)",
    "2W10×100",
    "W6/2",
    "-W6+3",
    "(2W6-7)/3",
    "W20+W12-W8",
    "3WF>=1",
    "2W66kh1",
]


# -- determinism -----------------------------------------------------------------------------
@pytest.mark.parametrize("text", EXPRESSIONS)
def test_same_seed_same_roll(text: str) -> None:
    for seed in range(20):
        first = roll(text, random.Random(seed))
        again = roll(text, random.Random(seed))
        parsed = roll(parse(text), random.Random(seed))
        assert first.record == again.record == parsed.record
        assert first.to_json() == again.to_json() == parsed.to_json()
        assert first.explain() == again.explain()
        assert json.dumps(first.to_json()) == json.dumps(parsed.to_json())


def test_rng_is_the_only_source_of_chance() -> None:
    random.seed(12345)
    state = random.getstate()
    for text in EXPRESSIONS:
        roll(text, random.Random(1))
    assert random.getstate() == state  # the global generator was never touched


def test_different_seeds_differ() -> None:
    totals = {roll("10W20", random.Random(seed)).total for seed in range(20)}
    assert len(totals) > 10


def test_a_sequence_of_rolls_is_reproducible() -> None:
    def session(seed: int) -> list[int]:
        rng = random.Random(seed)
        return [roll(text, rng).total for text in EXPRESSIONS]

    assert session(99) == session(99)
    assert session(99) != session(100)


# -- rolls lie in the support of the exact odds ----------------------------------------------
@pytest.mark.parametrize("limits", [Limits(), SMALL], ids=["default", "small"])
@pytest.mark.parametrize("text", EXPRESSIONS)
def test_rolled_totals_lie_in_the_support(text: str, limits: Limits) -> None:
    support = odds(text, limits).counts
    expr = parse(text, limits)
    rng = random.Random(f"support {text}")
    for _ in range(300):
        assert roll(expr, rng, limits).total in support


def test_explosion_cap_is_shared_by_roll_and_odds() -> None:
    limits = Limits(max_explode_depth=3)
    top = odds("d2!", limits).max
    assert top == 2 * 4
    rng = random.Random(3)
    seen = {roll("d2!", rng, limits).total for _ in range(2000)}
    assert top in seen
    assert max(seen) == top


# -- chi-square goodness of fit ------------------------------------------------------------------
def _critical(df: int, z: float = 3.090232) -> float:
    """Chi-square quantile for upper-tail p = 0.001 (z of 0.999), Wilson-Hilferty."""
    h = 2 / (9 * df)
    return df * (1 - h + z * math.sqrt(h)) ** 3


def _chi_square(sample: Counter[int], dist_text: str) -> tuple[float, int]:
    """Statistic and degrees of freedom of ``sample`` against the exact odds of dist_text."""
    n = sum(sample.values())
    probs = odds(dist_text).probabilities()
    left = Counter(sample)
    bins: list[tuple[float, int]] = []
    expected, observed = 0.0, 0
    for value, p in probs.items():
        expected += float(p) * n
        observed += left.pop(value, 0)
        if expected >= 5:
            bins.append((expected, observed))
            expected, observed = 0.0, 0
    assert not left, f"rolled outside the support: {sorted(left)}"
    if expected or observed:  # a thin tail joins the last bin
        last_e, last_o = bins.pop()
        bins.append((last_e + expected, last_o + observed))
    stat = sum((o - e) ** 2 / e for e, o in bins)
    return stat, len(bins) - 1


def _sample(text: str, n: int, seed: int) -> Counter[int]:
    expr = parse(text)
    rng = random.Random(seed)
    return Counter(roll(expr, rng).total for _ in range(n))


@pytest.mark.parametrize("text", ["3W6", "4W6kh3", "W66", "2d6r1", "d6!", "6W6>=5!", "W%"])
def test_rolls_fit_the_exact_odds(text: str) -> None:
    stat, df = _chi_square(_sample(text, 20_000, seed=20_240_601), text)
    assert df >= 5
    assert stat < _critical(df), f"chi2={stat:.1f} df={df} crit={_critical(df):.1f}"


def test_chi_square_has_the_power_to_catch_a_wrong_distribution() -> None:
    sample = _sample("2d6r1", 20_000, seed=20_240_601)
    stat, df = _chi_square(sample, "2d6ro1")  # the once-only reroll is a different die
    assert stat > 10 * _critical(df)
    stat, df = _chi_square(_sample("4W6kh3", 20_000, seed=7), "4W6dh1")
    assert stat > 10 * _critical(df)


def test_critical_values_are_sane() -> None:
    # Tabulated chi-square 0.999 quantiles: df 10 -> 29.59, df 30 -> 59.70, df 100 -> 149.45.
    assert _critical(10) == pytest.approx(29.59, rel=0.01)
    assert _critical(30) == pytest.approx(59.70, rel=0.01)
    assert _critical(100) == pytest.approx(149.45, rel=0.01)


# -- explanations on seeded rolls ------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "seed", "explained"),
    [
        ("4W6kh3", 7, "4W6kh3 -> [3, (2), 4, 6] = 13"),  # docs/dice.md
        ("4W6kh3", 0, "4W6kh3 -> [4, 4, (1), 3] = 11"),
        ("4W6dl1", 2, "4W6dl1 -> [1, 1, (1), 3] = 5"),  # ties: the later 1 is dropped
        ("2d6kh1", 0, "2d6kh1 -> [4, (4)] = 4"),  # ties: the first-rolled die is kept
        ("2d20kh1", 0, "2d20kh1 -> [(13), 14] = 14"),
        ("2W6r1", 2, "2W6r1 -> [~1~ ~1~ ~1~ 3, 2] = 5"),
        ("2W6ro1", 2, "2W6ro1 -> [~1~ 1, ~1~ 3] = 4"),  # the second face stands, even a 1
        ("2W6ro1", 14, "2W6ro1 -> [~1~ 5, 6] = 11"),
        ("3W6!", 5, "3W6! -> [5, 3, 6!+3] = 17"),
        ("d6!", 19, "d6! -> [6!+1] = 7"),
        ("6W6>=5", 2, "6W6>=5 -> [1, 1, 1, 3, 2, 6*] = 1"),
        ("6W6>=5", 3, "6W6>=5 -> [2, 5*, 5*, 2, 3, 5*] = 3"),
        ("6W6>=5!", 2, "6W6>=5! -> [1, 1, 1, 3, 2, 6!+6!+3**] = 2"),
        ("6W6>=5!", 5, "6W6>=5! -> [5*, 3, 6!+3*, 6!+6!+6!+5****, 1, 4] = 6"),
        ("(W4)W6", 1, "(W4)W6 -> ([1]): [5] = 5"),
        ("(W4)W6kh1", 0, "(W4)W6kh1 -> ([4]): [4, (4), (1), (3)] = 4"),
        ("2W10×100", 0, "2W10×100 -> [7, 7] × 100 = 1400"),
        ("2W10x100", 0, "2W10x100 -> [7, 7] × 100 = 1400"),
        ("min(W6, W6)", 1, "min(W6, W6) -> min([2], [5]) = 2"),
        ("-W6+3", 0, "-W6+3 -> -[4] + 3 = -1"),
        ("W6/2", 2, "W6/2 -> [1] / 2 = 0"),
        ("W6:2", 2, "W6:2 -> [1] / 2 = 0"),
        ("2W66", 0, "2W66 -> [44, 13] = 57"),
        ("4dF", 2, "4dF -> [-1, -1, -1, 0] = -3"),
        ("7", 0, "7 = 7"),
        ("3 + 4", 0, "3 + 4 = 7"),  # dice-free: no arrow, nothing was rolled
        ("3W6   +\u00a02", 5, "3W6 + 2 -> [5, 3, 6] + 2 = 16"),
    ],
)
def test_explain_on_seeded_rolls(text: str, seed: int, explained: str) -> None:
    assert roll(text, random.Random(seed)).explain() == explained


def test_docs_examples() -> None:
    assert roll("2W10×100", random.Random(4)).total == 900


_DIE = re.compile(r"^\(?((~-?\d+~ )*-?\d+!\+)*(~-?\d+~ )*-?\d+\**\)?$")


def _shown_dice(explained: str) -> list[str]:
    inside = explained.split(" -> [", 1)[1].rsplit("] = ", 1)[0]
    return inside.split(", ")


@pytest.mark.parametrize(
    "text", ["4W6kh3", "3d6dl1", "2W6r1", "2W6ro<3", "3W6!", "6W6>=5", "6W6>=5!", "4W6r1!kh3"]
)
def test_explain_marks_match_the_record(text: str) -> None:
    for seed in range(200):
        result = roll(text, random.Random(seed))
        record = result.record
        assert isinstance(record, DiceRecord)
        shown = _shown_dice(result.explain())
        assert len(shown) == len(record.values)
        for i, die in enumerate(shown):
            assert _DIE.match(die), die
            assert die.startswith("(") == (record.kept is not None and not record.kept[i])
            counted = [int(f) for f in re.findall(r"-?\d+", re.sub(r"~-?\d+~", "", die))]
            assert sum(counted) == record.values[i]
            assert die.count("!") == len(counted) - 1
            kept = record.kept is None or record.kept[i]
            stars = record.hits[i] if record.hits is not None and kept else 0
            assert die.count("*") == stars
        assert result.explain().endswith(f"= {result.total}")


def test_rerolled_faces_meet_the_condition() -> None:
    for seed in range(300):
        record = roll("3W6r<3", random.Random(seed)).record
        assert isinstance(record, DiceRecord)
        assert all(v >= 3 for v in record.values)
        for throws in record.throws or ():
            assert all(face < 3 for face, mark in throws if mark == "r")
            assert [mark for _, mark in throws][-1] == ""


def test_reroll_once_rerolls_at_most_once() -> None:
    for seed in range(300):
        record = roll("3W6ro<3", random.Random(seed)).record
        assert isinstance(record, DiceRecord)
        for throws in record.throws or ():
            assert sum(1 for _, mark in throws if mark == "r") <= 1


def test_reroll_cap_draws_from_the_allowed_faces() -> None:
    limits = Limits(max_rerolls=2)
    marks: Counter[int] = Counter()
    for seed in range(300):
        record = roll("W20r<20", random.Random(seed), limits).record
        assert isinstance(record, DiceRecord)
        assert record.total == 20
        for throws in record.throws or ():
            rerolls = sum(1 for _, mark in throws if mark == "r")
            assert rerolls <= limits.max_rerolls
            marks[rerolls] += 1
    assert marks[2] > 0  # the cap was reached, and the die still shows 20


def test_explosion_cap_stops_the_chain() -> None:
    limits = Limits(max_explode_depth=3)
    longest = 0
    for seed in range(2000):
        record = roll("d2!", random.Random(seed), limits).record
        assert isinstance(record, DiceRecord)
        throws = record.throws[0] if record.throws else ((record.values[0], ""),)
        assert len(throws) <= limits.max_explode_depth + 1
        assert all(mark == "!" for _, mark in throws[:-1])
        assert throws[-1][1] == ""
        longest = max(longest, len(throws))
    assert longest == 4  # the last of four 2s does not explode


def test_success_with_explosions_counts_every_physical_die() -> None:
    for seed in range(300):
        record = roll("6W6>=5!", random.Random(seed)).record
        assert isinstance(record, DiceRecord) and record.hits is not None
        for i, hits in enumerate(record.hits):
            throws = record.throws[i] if record.throws else ((record.values[i], ""),)
            assert hits == sum(1 for face, mark in throws if mark != "r" and face >= 5)
        assert record.total == sum(record.hits)


def _first_rolled_wins(values: tuple[int, ...], mode: str, n: int) -> tuple[bool, ...]:
    """Keep flags by the rule "ties: the die rolled first wins" (wins = counts)."""
    count = len(values)
    if mode in ("dh", "dl"):
        n = count - n
    highest = mode in ("kh", "dl")
    order = sorted(range(count), key=lambda i: -values[i] if highest else values[i])  # stable
    kept = set(order[:n])
    return tuple(i in kept for i in range(count))


@pytest.mark.parametrize(
    ("text", "mode", "n"),
    [
        ("4d6kh2", "kh", 2),
        ("4d6kl2", "kl", 2),
        ("4d6dh1", "dh", 1),
        ("4d6dl1", "dl", 1),
        ("3d4kh1", "kh", 1),
        ("5d3dl2", "dl", 2),
        ("5d3dh3", "dh", 3),
        ("3d4!kh2", "kh", 2),
        ("4d6kh2>=4", "kh", 2),
    ],
)
def test_keep_ties_go_to_the_die_rolled_first(text: str, mode: str, n: int) -> None:
    for seed in range(300):
        record = roll(text, random.Random(seed)).record
        assert isinstance(record, DiceRecord)
        assert record.kept == _first_rolled_wins(record.values, mode, n)


# -- the JSON form ---------------------------------------------------------------------------------
def _walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    nodes = [node]
    for key in ("left", "right", "operand", "inner", "count_roll"):
        if key in node:
            nodes += _walk(node[key])
    for arg in node.get("args", ()):
        nodes += _walk(arg)
    return nodes


def test_json_keys_and_node_types() -> None:
    text = "-((W4)W6kh1) + max(2, 3W66>=30) * 3 - WF! + 2W6r1"
    result = roll(text, random.Random(11))
    data = result.to_json()
    assert set(data) == {"expression", "total", "explain", "tree"}
    assert data["expression"] == text
    assert data["total"] == result.total
    assert data["explain"] == result.explain()
    assert json.loads(json.dumps(data, ensure_ascii=False)) == data
    nodes = _walk(data["tree"])
    assert {n["type"] for n in nodes} == {"number", "dice", "op", "neg", "call", "group"}
    for node in nodes:
        assert "total" in node
        kind = node["type"]
        if kind == "number":
            assert set(node) == {"type", "total"}
        elif kind == "op":
            assert set(node) == {"type", "op", "left", "right", "total"}
            assert node["op"] in "+-*/"
        elif kind == "neg":
            assert set(node) == {"type", "operand", "total"}
            assert node["total"] == -node["operand"]["total"]
        elif kind == "call":
            assert set(node) == {"type", "name", "args", "total"}
            assert node["name"] in ("min", "max")
        elif kind == "group":
            assert set(node) == {"type", "inner", "total"}
            assert node["total"] == node["inner"]["total"]
        else:
            assert {"type", "expr", "die", "faces", "count", "dice", "total"} <= set(node)
            assert set(node) <= {
                "type",
                "expr",
                "die",
                "faces",
                "count",
                "dice",
                "total",
                "count_roll",
            }
            assert node["count"] == len(node["dice"])
            for die in node["dice"]:
                assert (
                    {"value", "kept", "throws"} <= set(die) <= {"value", "kept", "throws", "hits"}
                )
                counted = [t["face"] for t in die["throws"] if not t["rerolled"]]
                assert sum(counted) == die["value"]
                for throw in die["throws"]:
                    keys = {"face", "rerolled", "exploded"}
                    if node["die"] == "digits":
                        keys.add("digits")
                        assert int("".join(map(str, throw["digits"]))) == throw["face"]
                    assert set(throw) == keys


def test_json_dice_node() -> None:
    data = roll("4W6kh3", random.Random(7)).to_json()
    assert data == {
        "expression": "4W6kh3",
        "total": 13,
        "explain": "4W6kh3 -> [3, (2), 4, 6] = 13",
        "tree": {
            "type": "dice",
            "expr": "4W6kh3",
            "die": "std",
            "faces": 6,
            "count": 4,
            "dice": [
                {
                    "value": v,
                    "kept": k,
                    "throws": [{"face": v, "rerolled": False, "exploded": False}],
                }
                for v, k in ((3, True), (2, False), (4, True), (6, True))
            ],
            "total": 13,
        },
    }


def test_json_marks_rerolls_explosions_and_hits() -> None:
    rerolled = roll("2W6r1", random.Random(2)).to_json()["tree"]["dice"][0]
    assert [t["face"] for t in rerolled["throws"]] == [1, 1, 1, 3]
    assert [t["rerolled"] for t in rerolled["throws"]] == [True, True, True, False]
    exploded = roll("d6!", random.Random(19)).to_json()["tree"]["dice"][0]
    assert exploded["throws"] == [
        {"face": 6, "rerolled": False, "exploded": True},
        {"face": 1, "rerolled": False, "exploded": False},
    ]
    assert exploded["value"] == 7
    hits = roll("6W6>=5", random.Random(3)).to_json()["tree"]
    assert [d["hits"] for d in hits["dice"]] == [0, 1, 1, 0, 0, 1]
    assert hits["total"] == 3
    digits = roll("W66", random.Random(0)).to_json()["tree"]
    assert digits["die"] == "digits" and digits["faces"] == 36
    assert digits["dice"][0]["throws"][0]["digits"] == [4, 4]


def test_roll_object() -> None:
    result = roll("3W6+2", random.Random(1))
    assert isinstance(result, Roll)
    assert result.total == result.record.total
    assert result.expr == parse("3W6+2")
    assert str(result.expr) == "3W6+2"


# -- errors while rolling ------------------------------------------------------------------------
def test_divisor_that_comes_up_zero() -> None:
    with pytest.raises(DiceRollError) as info:
        roll("W6/(W2-1)", random.Random(2))
    assert info.value.column == 4
    assert info.value.expression == "W6/(W2-1)"


def test_negative_computed_count() -> None:
    with pytest.raises(DiceRollError) as info:
        roll("(W2-2)W6", random.Random(1))
    assert info.value.column == 1
    assert "-1" in str(info.value)


def test_computed_count_over_the_term_cap() -> None:
    with pytest.raises(DiceLimitError) as info:
        roll("(W10)W6", random.Random(0), Limits(max_dice_per_term=5))
    assert info.value.column == 1


def test_dice_per_roll_budget() -> None:
    tight = Limits(max_dice_per_roll=10)
    roll("10d6", random.Random(0), tight)
    for text in ("11d6", "5d6+6d6", "(W4)W6+8d6", "10d6kh3+d4", "10d6>=5+W6"):
        with pytest.raises(DiceLimitError) as info:
            for seed in range(50):
                roll(text, random.Random(seed), tight)
        assert info.value.column is None  # the whole roll is too large, not one place
    with pytest.raises(DiceLimitError):
        roll("d2!", random.Random(2), Limits(max_dice_per_roll=3))


def test_zero_computed_dice() -> None:
    result = roll("(0)W6", random.Random(0))
    assert result.total == 0
    assert result.explain() == "(0)W6 -> (0): [] = 0"
    for seed in range(50):
        result = roll("(W3-1)W6kh2", random.Random(seed))
        record = result.record
        assert isinstance(record, DiceRecord)
        assert len(record.values) <= 2 or sum(record.kept or ()) == 2
