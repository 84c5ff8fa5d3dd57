"""The parser: every form of the dice language, its spellings, and every way to get it wrong.

Each bad input must end in a :class:`~kerker.errors.DiceError` subclass with the right column,
quickly (parse, roll and odds together well under 50 ms), and never in another exception.
"""

from __future__ import annotations

import contextlib
import random

import pytest

from kerker.dice import odds, parse, roll
from kerker.dice.ast import BinOp, Call, Cond, Dice, Explode, Group, Keep, Neg, Num, Reroll
from kerker.dice.exact import _Engine, _odds_cached
from kerker.errors import (
    DiceError,
    DiceLimitError,
    DiceRollError,
    DiceSyntaxError,
    KerkerError,
)
from kerker.limits import Limits

# -- every form parses ---------------------------------------------------------------------------
VALID = [
    # dice and their letters
    "W6",
    "d6",
    "D6",
    "w6",
    "3W6",
    "3d6",
    "1W20",
    "10W10",
    "200d6",
    "W%",
    "d%",
    "3W%",
    "W100",
    "W10",
    "W66",
    "d66",
    "2W66",
    "W666",
    "W{66}",
    "W{6666}",
    "W{1}",
    "W1",
    "WF",
    "dF",
    "4dF",
    "4df",
    "W10000",
    # arithmetic and its spellings
    "3W6+2",
    "3W6 - 2",
    "3W6 + 2",
    "2W10×100",
    "2W10 × 100",
    "2W10 x 100",
    "2W10x100",
    "2w10x100",
    "2D10X100",
    "2d10*100",
    "2W10·100",
    "2W10⋅100",
    "1W4 × 100",
    "W6/2",
    "W6:2",
    "W6÷2",
    "(3W6-1):2",
    "W6−1",
    "W6–1",
    "–10",
    "10-W6",
    "-W6",
    "+W6",
    "--W6",
    "-(-W6)",
    "2*(W6+1)",
    "W6 + W8 + W10 + W12 + W20",
    "7",
    "0",
    "-0",
    # groups, calls, computed counts
    "(3W6)",
    "((W6))",
    "(W4)W6",
    "(W4)d6kh1",
    "((W2)W2)W3",
    "(0)W6",
    "(W4-1)W6",
    "min(W6, W6)",
    "max(W20,W20)",
    "min(W6)",
    "max(1, 2, 3W6)",
    "min( W6 , max(W4, 2) )",
    # keep / drop
    "4W6kh3",
    "4W6k3",
    "4W6kh",
    "4W6k",
    "4W6kl1",
    "4W6kl",
    "4W6dh1",
    "4W6dl1",
    "4W6dh",
    "4W6KH3",
    "4W6DL1",
    "4W6kh4",
    "4W6dl3",
    # reroll, explode, successes
    "2W6r1",
    "2W6r=1",
    "2W6r<3",
    "2W6r<=2",
    "2W6r>5",
    "2W6r>=5",
    "2W6ro1",
    "2W6ro<=2",
    "W6ro<7",
    "2W6R1",
    "2W6RO1",
    "3W6!",
    "3W6!>=5",
    "3W6!6",
    "3W6!=6",
    "3W6!>5",
    "W6!<2",
    "6W6>=5",
    "6W6>5",
    "6W6<2",
    "6W6<=2",
    "6W6=6",
    "6W6>=5!",
    "6W6>=7",
    # combinations in any order
    "4W6r1!kh3",
    "4W6kh3r1",
    "4W6!dl1",
    "4W6dl1!",
    "4W6r1>=5",
    "4W6>=5r1",
    "6W6!>=5>=5",
    "2W6ro1!>=5",
    "3WF!",
    "W66!",
    "W66r11",
    "2WF>=1",
    "3W{66}kh2",
    # whitespace, including non-breaking and thin spaces between tokens
    "  3W6  ",
    "3W6\u00a0+\u20092",
    "\t3W6\n+\r2",
    "3W6\u202f×\u202f2",
]


@pytest.mark.parametrize("text", VALID)
def test_valid_forms_parse_roll_and_have_odds(text: str) -> None:
    expr = parse(text)
    assert expr.source == text
    result = roll(expr, random.Random(1))
    dist = odds(expr)
    assert result.total in dist.counts


def test_dice_term_structure() -> None:
    node = parse("4W6kh3").root
    assert isinstance(node, Dice)
    assert node.count == Num(4, (0, 1))
    assert node.die.kind == "std" and node.die.faces == (1, 2, 3, 4, 5, 6)
    assert node.letter == "W"
    assert node.keep == Keep("kh", 3)
    assert (node.reroll, node.explode, node.success) == (None, None, None)
    assert node.span == (0, 6)
    assert not node.implicit_count


def test_count_defaults_to_one() -> None:
    node = parse("W20").root
    assert isinstance(node, Dice)
    assert node.implicit_count
    assert isinstance(node.count, Num) and node.count.value == 1


@pytest.mark.parametrize(
    ("text", "kind", "faces"),
    [
        ("W%", "percent", tuple(range(1, 101))),
        ("d%", "percent", tuple(range(1, 101))),
        ("W100", "std", tuple(range(1, 101))),
        ("W10", "std", tuple(range(1, 11))),
        ("W{66}", "true", tuple(range(1, 67))),
        ("WF", "fudge", (-1, 0, 1)),
        ("Wf", "fudge", (-1, 0, 1)),
        ("W66", "digits", tuple(10 * a + b for a in range(1, 7) for b in range(1, 7))),
    ],
)
def test_die_kinds(text: str, kind: str, faces: tuple[int, ...]) -> None:
    node = parse(text).root
    assert isinstance(node, Dice)
    assert node.die.kind == kind
    assert node.die.faces == faces


def test_digit_dice() -> None:
    w666 = parse("W666").root
    assert isinstance(w666, Dice)
    assert w666.die.kind == "digits" and w666.die.digits == 3
    assert len(w666.die.faces) == 216
    assert (min(w666.die.faces), max(w666.die.faces)) == (111, 666)
    assert all(set(str(f)) <= set("123456") for f in w666.die.faces)
    # a lone 6 is a plain d6; other numbers are true dice
    for text in ("W6", "W60", "W16", "W606"):
        node = parse(text).root
        assert isinstance(node, Dice) and node.die.kind == "std"


@pytest.mark.parametrize(
    ("text", "mode", "n"),
    [
        ("4W6kh3", "kh", 3),
        ("4W6k3", "kh", 3),
        ("4W6k", "kh", 1),
        ("4W6kh", "kh", 1),
        ("4W6kl", "kl", 1),
        ("4W6dh2", "dh", 2),
        ("4W6dl", "dl", 1),
        ("4W6KL2", "kl", 2),
    ],
)
def test_keep_spellings(text: str, mode: str, n: int) -> None:
    node = parse(text).root
    assert isinstance(node, Dice)
    assert node.keep == Keep(mode, n)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "reroll", "explode", "success"),
    [
        ("2W6r1", Reroll(Cond("=", 1), False), None, None),
        ("2W6r=1", Reroll(Cond("=", 1), False), None, None),
        ("2W6ro<=2", Reroll(Cond("<=", 2), True), None, None),
        ("3W6!", None, Explode(Cond("=", 6)), None),
        ("3W20!", None, Explode(Cond("=", 20)), None),
        ("3WF!", None, Explode(Cond("=", 1)), None),
        ("W66!", None, Explode(Cond("=", 66)), None),
        ("3W6!5", None, Explode(Cond("=", 5)), None),
        # a condition right after '!' or 'r' belongs to it ...
        ("6W6!>=5", None, Explode(Cond(">=", 5)), None),
        ("2W6r<3>=5", Reroll(Cond("<", 3), False), None, Cond(">=", 5)),
        # ... so a success target after a bare '!' needs to come first
        ("6W6>=5!", None, Explode(Cond("=", 6)), Cond(">=", 5)),
        ("6W6!>=5>=5", None, Explode(Cond(">=", 5)), Cond(">=", 5)),
        ("6W6=6", None, None, Cond("=", 6)),
        ("6W6<2", None, None, Cond("<", 2)),
    ],
)
def test_condition_belongs_to_the_modifier_before_it(
    text: str, reroll: Reroll | None, explode: Explode | None, success: Cond | None
) -> None:
    node = parse(text).root
    assert isinstance(node, Dice)
    assert (node.reroll, node.explode, node.success) == (reroll, explode, success)


@pytest.mark.parametrize(
    ("text", "op", "symbol"),
    [
        ("2W10×100", "*", "×"),
        ("2W10 x 100", "*", "x"),
        ("2W10X100", "*", "X"),
        ("2d10*100", "*", "*"),
        ("2W10·100", "*", "·"),
        ("W6:2", "/", ":"),
        ("W6÷2", "/", "÷"),
        ("W6/2", "/", "/"),
        ("W6−1", "-", "−"),
        ("W6–1", "-", "–"),
        ("W6-1", "-", "-"),
        ("W6+1", "+", "+"),
    ],
)
def test_operator_spellings(text: str, op: str, symbol: str) -> None:
    node = parse(text).root
    assert isinstance(node, BinOp)
    assert (node.op, node.symbol) == (op, symbol)


def test_precedence_and_associativity() -> None:
    node = parse("1+2*3").root
    assert isinstance(node, BinOp) and node.op == "+"
    assert isinstance(node.right, BinOp) and node.right.op == "*"
    left_assoc = parse("8-4-2").root
    assert isinstance(left_assoc, BinOp) and isinstance(left_assoc.left, BinOp)
    assert odds("8-4-2").probabilities() == {2: 1}
    assert odds("12/3/2").probabilities() == {2: 1}
    assert odds("-7/2").probabilities() == {-4: 1}  # floor, and the sign binds first
    assert odds("-(7/2)").probabilities() == {-3: 1}
    assert odds("7/-2").probabilities() == {-4: 1}
    assert odds("2+3*4-1").probabilities() == {13: 1}
    assert odds("(2+3)*4").probabilities() == {20: 1}


def test_groups_calls_and_signs() -> None:
    group = parse("(W4)W6").root
    assert isinstance(group, Dice) and isinstance(group.count, Group)
    call = parse("max(W20, W20, 3)").root
    assert isinstance(call, Call) and call.name == "max" and len(call.args) == 3
    neg = parse("-W6").root
    assert isinstance(neg, Neg)
    plus = parse("+W6").root
    assert isinstance(plus, Dice)  # unary plus leaves no node
    assert isinstance(parse("(3W6)").root, Group)


def test_spans_point_into_the_source() -> None:
    text = "2W10 × 100 + (W4)W6kh1"
    node = parse(text).root
    assert isinstance(node, BinOp)
    assert text[slice(*node.span)] == text
    assert text[slice(*node.left.span)] == "2W10 × 100"
    assert text[slice(*node.right.span)] == "(W4)W6kh1"


@pytest.mark.parametrize(
    "text",
    [
        "2W10×100",
        "2W10 × 100",
        "2w10x100",
        "2d10*100",
        "2D10X100",
        "2W10·100",
        "2W10\u00a0x\u00a0100",
    ],
)
def test_spellings_give_equal_odds(text: str) -> None:
    assert odds(text) == odds("2d10*100")


def test_one_w4_times_100() -> None:
    assert odds("1W4 × 100") == odds("1d4*100") == odds("W4x100")
    assert odds("1W4 × 100").outcomes() == [100, 200, 300, 400]


def test_equal_spellings_roll_equal_dice() -> None:
    # Different spellings of the same dice draw the same numbers from the same seed.
    totals = {roll(t, random.Random(5)).total for t in ("2W10×100", "2d10*100", "2w10x100")}
    assert len(totals) == 1


# -- errors: type, column, time ---------------------------------------------------------------
ERRORS: list[tuple[str, type[DiceError], int | None]] = [
    ("1000000000d1000000000", DiceLimitError, 1),  # 10 digits > max_digits
    ("1d0", DiceSyntaxError, 3),
    ("0d6", DiceSyntaxError, 1),
    ("1/0", DiceSyntaxError, 2),
    ("1/(2-2)", DiceSyntaxError, 2),
    ("(" * 500 + "1" + ")" * 500, DiceLimitError, 1001),  # longer than max_length
    ("(" * 400 + "1" + ")" * 400, DiceLimitError, 41),  # the 41st '(' is too deep
    ("-" * 50 + "1", DiceLimitError, 41),
    ("1d20+" * 10000, DiceLimitError, 1001),
    ("1d20+" * 100, DiceSyntaxError, 501),  # ends with '+'
    ("1d1!", DiceSyntaxError, 4),
    ("1d20r<21", DiceSyntaxError, 5),
    ("W20r<=20", DiceSyntaxError, 4),
    ("W6r7", DiceSyntaxError, 3),
    ("W6!7", DiceSyntaxError, 3),
    ("W6!>=1", DiceSyntaxError, 3),
    ("1d6kh7", DiceSyntaxError, 4),
    ("4d6kh0", DiceSyntaxError, 4),
    ("9" * 5000, DiceLimitError, 1001),
    ("", DiceSyntaxError, 1),
    ("   ", DiceSyntaxError, 1),
    ("1" * 12, DiceLimitError, 1),
    ("1" * 10, DiceLimitError, 1),
    ("W" + "1" * 10, DiceLimitError, 2),
    ("4d6dl4", DiceSyntaxError, 4),
    ("4d6dh5", DiceSyntaxError, 4),
    ("W6666", DiceSyntaxError, 2),
    ("W10001", DiceLimitError, 2),
    ("1001d6", DiceLimitError, 1),
    ("3W6+", DiceSyntaxError, 5),
    ("3W6+ ", DiceSyntaxError, 6),
    ("(3W6", DiceSyntaxError, 5),  # at the end, where ')' is missing
    ("3W6)", DiceSyntaxError, 4),
    ("3 4", DiceSyntaxError, 3),
    ("3 W6", DiceSyntaxError, 3),
    ("3W6 kh3", DiceSyntaxError, 5),
    ("W", DiceSyntaxError, 1),
    ("3d", DiceSyntaxError, 2),
    ("dd6", DiceSyntaxError, 1),  # the letter that lacks its faces
    ("4d6d6", DiceSyntaxError, 4),
    ("4W6kh3kl1", DiceSyntaxError, 7),
    ("4W6r1r2", DiceSyntaxError, 6),
    ("4W6!!", DiceSyntaxError, 5),
    ("4W6>=5>=5", DiceSyntaxError, 7),
    ("4W6!kh3>=5", DiceSyntaxError, 1),  # keep, '!' and a target together
    ("4W6r", DiceSyntaxError, 5),
    ("4W6ro", DiceSyntaxError, 6),
    ("4W6>=", DiceSyntaxError, 6),
    ("4W6=>5", DiceSyntaxError, 5),
    ("W{}", DiceSyntaxError, 3),
    ("W{0}", DiceSyntaxError, 3),
    ("W{6", DiceSyntaxError, 4),
    ("W{10001}", DiceLimitError, 3),
    ("min", DiceSyntaxError, 4),
    ("min()", DiceSyntaxError, 5),
    ("max(1,)", DiceSyntaxError, 7),
    ("max(1 2)", DiceSyntaxError, 7),
    ("mix(1)", DiceSyntaxError, 1),
    ("()", DiceSyntaxError, 2),
    ("(3W6))", DiceSyntaxError, 6),
    ("3W6 ** 2", DiceSyntaxError, 6),
    ("3W6 + * 2", DiceSyntaxError, 7),
    ("3,5", DiceSyntaxError, 2),
    ("½", DiceSyntaxError, 1),
    ("３W6", DiceSyntaxError, 1),  # a full-width digit is not a digit here
    ("3W6+🎲", DiceSyntaxError, 5),
    ("3\u200bW6", DiceSyntaxError, 2),  # zero-width space is not a space
]


def _run_all(text: str, limits: Limits | None = None) -> list[DiceError]:
    """Parse, roll and compute odds; collect each failure (each must be a DiceError)."""
    kwargs = {} if limits is None else {"limits": limits}
    failures: list[DiceError] = []
    for attempt in (
        lambda: parse(text, **kwargs),
        lambda: roll(text, random.Random(0), **kwargs),
        lambda: odds(text, **kwargs),
    ):
        try:
            attempt()
        except DiceError as err:
            failures.append(err)
    return failures


def _odds_work(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[DiceError], int]:
    """The failures of :func:`_run_all` and the work the exact engine did before refusing
    (bounded work instead of a wall clock: a loaded machine is slow at random)."""
    work: list[int] = []
    original = _Engine.tick

    def tick(self: _Engine, steps: int, bits: int = 0) -> None:
        original(self, steps, bits)
        work.append(self.work)

    monkeypatch.setattr(_Engine, "tick", tick)
    _odds_cached.cache_clear()
    failures = _run_all(text)
    monkeypatch.undo()
    return failures, max(work, default=0)


@pytest.mark.parametrize(
    ("text", "kind", "column"), ERRORS, ids=[repr(t[:20]) for t, _, _ in ERRORS]
)
def test_errors_have_type_and_column_and_are_quick(
    text: str, kind: type[DiceError], column: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    failures, work = _odds_work(text, monkeypatch)
    assert len(failures) == 3, "parse, roll and odds must all refuse"
    for err in failures:
        assert type(err) is kind, str(err)
        assert err.column == column, str(err)
        assert str(err)
        assert err.message() == str(err)
    if kind is DiceSyntaxError or len(text) <= 1000:
        assert failures[0].expression == text
    assert work <= 1000  # refused before any real work


def test_error_json() -> None:
    with pytest.raises(DiceSyntaxError) as info:
        parse("3W6)")
    data = info.value.to_json()
    assert data == {
        "error": "dice_syntax",
        "message": "unmatched closing parenthesis",
        "expression": "3W6)",
        "column": 4,
    }
    with pytest.raises(DiceLimitError) as limit:
        parse("1" * 12)
    assert limit.value.to_json()["error"] == "dice_limit"
    assert isinstance(limit.value, KerkerError)


def test_messages_name_the_problem() -> None:
    cases = {
        "1d0": "at least one face",
        "0d6": "0 dice",
        "1/0": "division by zero",
        "1d1!": "never stop",
        "1d20r<21": "never stop",
        "W6r7": "matches no face",
        "1d6kh7": "cannot keep 7 dice out of 1",
        "4d6dl4": "leaves none",
        "W6666": "d{6666}",
        "(3W6": "column 1",
        "3 4": "missing operator",
        "": "empty",
        "1" * 12: "9 digits",
    }
    for text, fragment in cases.items():
        with pytest.raises(DiceError) as info:
            parse(text)
        assert fragment in str(info.value), (text, str(info.value))


def test_long_expression_keeps_a_short_copy() -> None:
    with pytest.raises(DiceLimitError) as info:
        parse("1d20+" * 10000)
    assert len(info.value.expression) <= 1001
    assert "1000" in str(info.value)


def test_caps_behind_the_length_cap() -> None:
    """With a longer max_length, the next caps answer, still as DiceErrors with columns."""
    roomy = Limits(max_length=100_000)
    with pytest.raises(DiceLimitError) as terms:
        parse("1d20+" * 10000, roomy)
    assert "terms" in str(terms.value)
    assert terms.value.column is not None and terms.value.column < 1000
    with pytest.raises(DiceLimitError) as depth:
        parse("(" * 500 + "1" + ")" * 500, roomy)
    assert depth.value.column == roomy.max_depth + 1
    with pytest.raises(DiceLimitError) as digits:
        parse("9" * 5000, roomy)
    assert digits.value.column == 1
    with pytest.raises(DiceLimitError) as faces:
        parse("W" + "9" * 9, roomy)
    assert faces.value.column == 2


def test_digits_beyond_pythons_int_cap() -> None:
    # max_digits may allow more than int() reads from text (4300 digits by default).
    with pytest.raises(DiceLimitError) as info:
        parse("1" * 5000, Limits(max_length=10_000, max_digits=10_000))
    assert info.value.column == 1


def test_limits_are_injected() -> None:
    tight = Limits(
        max_length=10, max_digits=2, max_depth=2, max_terms=5, max_dice_per_term=3, max_faces=20
    )
    for text, column in [
        ("W6+W6+W6+W6", 11),
        ("100", 1),
        ("(((1)))", 3),
        ("4W6", 1),
        ("W30", 2),
        ("1+1+1+1", 6),
    ]:
        with pytest.raises(DiceLimitError) as info:
            parse(text, tight)
        assert info.value.column == column, (text, str(info.value))
    assert parse("3W20", tight).source == "3W20"


def test_not_text_is_a_dice_error() -> None:
    with pytest.raises(DiceSyntaxError):
        parse(36)  # type: ignore[arg-type]
    with pytest.raises(DiceSyntaxError):
        parse(None)  # type: ignore[arg-type]


def test_random_unicode_is_refused_quickly(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(2024)
    for _ in range(300):
        chars = []
        for _ in range(rng.randint(1, 60)):
            code = rng.randint(0x80, 0x10FFFF)
            if 0xD800 <= code <= 0xDFFF:
                code = 0x2603
            chars.append(chr(code))
        text = "".join(chars)
        failures, work = _odds_work(text, monkeypatch)
        # No ASCII digit or letter: nothing here can be a die or a number.
        assert len(failures) == 3, repr(text)
        assert all(isinstance(e, DiceSyntaxError) for e in failures)
        assert work == 0  # the parser refused it; the exact engine never started


def test_random_ascii_never_raises_anything_else() -> None:
    rng = random.Random(7)
    alphabet = "0123456789dDwWkhlrRo!<>=+-*/x:()%F{},. m a"
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 15)))
        try:
            expr = parse(text)
        except DiceError as err:
            assert err.column is None or 1 <= err.column <= len(text) + 1
            continue
        with contextlib.suppress(DiceLimitError, DiceRollError):
            roll(expr, random.Random(0))


def test_parse_is_cached_but_results_are_equal() -> None:
    assert parse("3W6+2") == parse("3W6+2")
    assert parse("3W6+2", Limits()) == parse("3W6+2")
