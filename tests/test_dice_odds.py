"""Exact odds against two oracles.

1. A brute-force oracle written here, independent of ``kerker.dice``: it walks the physical
   process of every die (each throw, each reroll, each explosion) as a probability tree with
   ``Fraction`` weights, then enumerates every combination of dice with ``itertools.product``
   and applies keep/drop (ties: the die rolled first wins), success counting and arithmetic.
   Only small cases, with ``Limits(max_explode_depth=2)`` so explosions stay enumerable.
2. ``icepool`` (pinned) on larger cases the brute force cannot reach.

Plus the reading side of :class:`Distribution` (mean, variance, percentiles, tails, JSON) and
the promise that oversized inputs are refused or answered within a bounded amount of work.
"""

from __future__ import annotations

import itertools
import math
import random
import tracemalloc
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from fractions import Fraction

import icepool
import pytest

from kerker.dice import odds
from kerker.dice.exact import WORD_BITS, _Engine, _odds_cached, fixed
from kerker.errors import DiceLimitError, DiceRollError, KerkerError
from kerker.limits import DEFAULT_LIMITS, Limits

SMALL = Limits(max_explode_depth=2, max_rerolls=3)
"""The limits of every brute-force comparison (explosions and reroll chains stay short)."""

Dist = dict[int, Fraction]
Test = Callable[[int], bool]


# -- the brute-force oracle -------------------------------------------------------------------
def const(value: int) -> Dist:
    return {value: Fraction(1)}


def std(sides: int) -> tuple[int, ...]:
    return tuple(range(1, sides + 1))


FUDGE: tuple[int, ...] = (-1, 0, 1)
DIGITS2 = tuple(10 * a + b for a, b in itertools.product(std(6), repeat=2))
DIGITS3 = tuple(100 * a + 10 * b + c for a, b, c in itertools.product(std(6), repeat=3))


def _one_throw(
    faces: tuple[int, ...], reroll: Test | None, once: bool, max_rerolls: int
) -> dict[int, Fraction]:
    """Face distribution of one physical die after its reroll rule, walked step by step.

    ``r`` (until) follows the roller's procedure literally: reroll while the face matches;
    after ``max_rerolls`` rerolls, pick uniformly from the faces that need no reroll.
    """
    m = len(faces)
    out: dict[int, Fraction] = defaultdict(Fraction)

    def until(p: Fraction, tries: int) -> None:
        if tries >= max_rerolls:
            allowed = [f for f in faces if not reroll(f)]  # type: ignore[misc]
            for f in allowed:
                out[f] += p / len(allowed)
            return
        for f in faces:
            if reroll(f):  # type: ignore[misc]
                until(p / m, tries + 1)
            else:
                out[f] += p / m

    for face in faces:
        p = Fraction(1, m)
        if reroll is not None and reroll(face):
            if once:
                for again in faces:
                    out[again] += p / m
            else:
                until(p, 1)
        else:
            out[face] += p
    return dict(out)


def _one_die(
    faces: tuple[int, ...],
    *,
    reroll: Test | None,
    once: bool,
    explode: Test | None,
    success: Test | None,
    depth: int,
    max_rerolls: int,
) -> dict[tuple[int, int], Fraction]:
    """(value, hits) of one die: value sums its counted throws; hits counts throws that
    meet the success test (each physical die of an explosion chain counts)."""
    throw = _one_throw(faces, reroll, once, max_rerolls)

    def chain(left: int) -> dict[tuple[int, int], Fraction]:
        out: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
        for face, p in throw.items():
            hit = 1 if success is not None and success(face) else 0
            if explode is not None and left > 0 and explode(face):
                for (value, hits), q in chain(left - 1).items():
                    out[(face + value, hit + hits)] += p * q
            else:
                out[(face, hit)] += p
        return dict(out)

    return chain(depth)


def _kept(values: list[int], keep: tuple[str, int] | None) -> set[int]:
    """Indices of the dice that count; Python's stable sort lets the first-rolled die win."""
    n = len(values)
    if keep is None:
        return set(range(n))
    mode, k = keep
    if mode in ("kh", "dh"):
        order = sorted(range(n), key=lambda i: -values[i])
    else:
        order = sorted(range(n), key=lambda i: values[i])
    if mode in ("kh", "kl"):
        return set(order[:k])
    return set(order[k:])  # dh drops the k highest, dl the k lowest


def dice(
    n: int,
    faces: tuple[int, ...],
    *,
    keep: tuple[str, int] | None = None,
    reroll: Test | None = None,
    once: bool = False,
    explode: Test | None = None,
    success: Test | None = None,
    depth: int = SMALL.max_explode_depth,
    max_rerolls: int = SMALL.max_rerolls,
) -> Dist:
    """Brute force: every combination of ``n`` dice, each with its own throw history."""
    per_die = list(
        _one_die(
            faces,
            reroll=reroll,
            once=once,
            explode=explode,
            success=success,
            depth=depth,
            max_rerolls=max_rerolls,
        ).items()
    )
    out: Dist = defaultdict(Fraction)
    for combo in itertools.product(per_die, repeat=n):
        values = [value for (value, _), _ in combo]
        kept = _kept(values, keep)
        prob = Fraction(1)
        total = 0
        for i, ((value, hits), p) in enumerate(combo):
            prob *= p
            if i in kept:
                total += hits if success is not None else value
        out[total] += prob
    return dict(out)


def counted(count: Dist, term: Callable[[int], Dist]) -> Dist:
    """A computed number of dice: the mixture over the count's outcomes."""
    out: Dist = defaultdict(Fraction)
    for n, p in count.items():
        for value, q in term(n).items():
            out[value] += p * q
    return dict(out)


def combine(fn: Callable[..., int], *dists: Dist) -> Dist:
    out: Dist = defaultdict(Fraction)
    for combo in itertools.product(*(d.items() for d in dists)):
        prob = math.prod((p for _, p in combo), start=Fraction(1))
        out[fn(*(v for v, _ in combo))] += prob
    return dict(out)


def add(a: Dist, b: Dist) -> Dist:
    return combine(lambda x, y: x + y, a, b)


def sub(a: Dist, b: Dist) -> Dist:
    return combine(lambda x, y: x - y, a, b)


def mul(a: Dist, b: Dist) -> Dist:
    return combine(lambda x, y: x * y, a, b)


def div(a: Dist, b: Dist) -> Dist:
    return combine(lambda x, y: x // y, a, b)


def neg(a: Dist) -> Dist:
    return combine(lambda x: -x, a)


def d(sides: int) -> Dist:
    return dice(1, std(sides))


def probabilities(text: str, limits: Limits = SMALL) -> Dist:
    dist = odds(text, limits)
    return dist.probabilities()


def clean(dist: Dist) -> Dist:
    return {v: p for v, p in sorted(dist.items()) if p}


def ge(x: int) -> Test:
    return lambda f: f >= x


def le(x: int) -> Test:
    return lambda f: f <= x


def eq(x: int) -> Test:
    return lambda f: f == x


def gt(x: int) -> Test:
    return lambda f: f > x


def lt(x: int) -> Test:
    return lambda f: f < x


# -- hand-picked cases --------------------------------------------------------------------------
CASES: list[tuple[str, Callable[[], Dist]]] = [
    # plain dice and the die kinds
    ("W6", lambda: d(6)),
    ("3W6", lambda: dice(3, std(6))),
    ("2d6+3", lambda: add(dice(2, std(6)), const(3))),
    ("W%", lambda: d(100)),
    ("d%", lambda: d(100)),
    ("W100", lambda: d(100)),
    ("W10", lambda: d(10)),
    ("W1", lambda: const(1)),
    ("W66", lambda: dice(1, DIGITS2)),
    ("2W66", lambda: dice(2, DIGITS2)),
    ("W666", lambda: dice(1, DIGITS3)),
    ("W{66}", lambda: d(66)),
    ("W{3}", lambda: d(3)),
    ("WF", lambda: dice(1, FUDGE)),
    ("4dF", lambda: dice(4, FUDGE)),
    ("2WF+W4", lambda: add(dice(2, FUDGE), d(4))),
    # keep / drop, both ways, default count, ties
    ("4d6kh3", lambda: dice(4, std(6), keep=("kh", 3))),
    ("4d6k3", lambda: dice(4, std(6), keep=("kh", 3))),
    ("4d6K3", lambda: dice(4, std(6), keep=("kh", 3))),
    ("4d6kl3", lambda: dice(4, std(6), keep=("kl", 3))),
    ("4d6dh1", lambda: dice(4, std(6), keep=("dh", 1))),
    ("4d6dl1", lambda: dice(4, std(6), keep=("dl", 1))),
    ("4d6DL1", lambda: dice(4, std(6), keep=("dl", 1))),
    ("3d6kh", lambda: dice(3, std(6), keep=("kh", 1))),
    ("3d6k", lambda: dice(3, std(6), keep=("kh", 1))),
    ("3d4kl", lambda: dice(3, std(4), keep=("kl", 1))),
    ("2d20kh1", lambda: dice(2, std(20), keep=("kh", 1))),
    ("2d20kl1", lambda: dice(2, std(20), keep=("kl", 1))),
    ("3d3kh2", lambda: dice(3, std(3), keep=("kh", 2))),
    ("3d2dl1", lambda: dice(3, std(2), keep=("dl", 1))),
    ("3d2dh2", lambda: dice(3, std(2), keep=("dh", 2))),
    ("5d3kh5", lambda: dice(5, std(3))),
    ("2W66kh1", lambda: dice(2, DIGITS2, keep=("kh", 1))),
    ("3WFkl2", lambda: dice(3, FUDGE, keep=("kl", 2))),
    # success counting
    ("5d6>=5", lambda: dice(5, std(6), success=ge(5))),
    ("4d6=6", lambda: dice(4, std(6), success=eq(6))),
    ("3d6<3", lambda: dice(3, std(6), success=lt(3))),
    ("3d6<=2", lambda: dice(3, std(6), success=le(2))),
    ("3d6>4", lambda: dice(3, std(6), success=gt(4))),
    ("3d6>=7", lambda: const(0)),
    ("3WF>=1", lambda: dice(3, FUDGE, success=ge(1))),
    ("2d10>=8+1", lambda: add(dice(2, std(10), success=ge(8)), const(1))),
    ("4d6kh3>=5", lambda: dice(4, std(6), keep=("kh", 3), success=ge(5))),
    ("4d6dh2>=4", lambda: dice(4, std(6), keep=("dh", 2), success=ge(4))),
    # reroll until / once
    ("2d6r1", lambda: dice(2, std(6), reroll=eq(1))),
    ("2d6r=1", lambda: dice(2, std(6), reroll=eq(1))),
    ("2d6ro1", lambda: dice(2, std(6), reroll=eq(1), once=True)),
    ("2d6r<3", lambda: dice(2, std(6), reroll=lt(3))),
    ("2d6ro<=2", lambda: dice(2, std(6), reroll=le(2), once=True)),
    ("d6r>=5", lambda: dice(1, std(6), reroll=ge(5))),
    ("d6ro>4", lambda: dice(1, std(6), reroll=gt(4), once=True)),
    ("d6ro<7", lambda: dice(1, std(6), reroll=lt(7), once=True)),
    ("W6r<6", lambda: const(6)),
    ("3d6r1>=5", lambda: dice(3, std(6), reroll=eq(1), success=ge(5))),
    ("4d6r1kh3", lambda: dice(4, std(6), reroll=eq(1), keep=("kh", 3))),
    ("4d6kh3ro1", lambda: dice(4, std(6), reroll=eq(1), once=True, keep=("kh", 3))),
    ("W66r<=16", lambda: dice(1, DIGITS2, reroll=le(16))),
    # explode: default, with a condition, a condition right after '!' belongs to it
    ("d6!", lambda: dice(1, std(6), explode=eq(6))),
    ("2d6!", lambda: dice(2, std(6), explode=eq(6))),
    ("d6!6", lambda: dice(1, std(6), explode=eq(6))),
    ("d6!=5", lambda: dice(1, std(6), explode=eq(5))),
    ("d6!>=5", lambda: dice(1, std(6), explode=ge(5))),
    ("d6!<2", lambda: dice(1, std(6), explode=lt(2))),
    ("2d4!>3", lambda: dice(2, std(4), explode=gt(3))),
    ("WF!", lambda: dice(1, FUDGE, explode=eq(1))),
    ("W66!", lambda: dice(1, DIGITS2, explode=eq(66))),
    ("d6r1!", lambda: dice(1, std(6), reroll=eq(1), explode=eq(6))),
    ("d6!ro1", lambda: dice(1, std(6), reroll=eq(1), once=True, explode=eq(6))),
    ("d6r<=5!", lambda: dice(1, std(6), reroll=le(5), explode=eq(6))),
    # explode + keep
    ("3d6!kh2", lambda: dice(3, std(6), explode=eq(6), keep=("kh", 2))),
    ("3d4!dl1", lambda: dice(3, std(4), explode=eq(4), keep=("dl", 1))),
    ("2d6kl1!>=5", lambda: dice(2, std(6), explode=ge(5), keep=("kl", 1))),
    # explode + success: every physical die counts
    ("3d6!>=5", lambda: dice(3, std(6), explode=ge(5))),  # the condition belongs to '!'
    ("3d6>=5!", lambda: dice(3, std(6), explode=eq(6), success=ge(5))),
    ("3d6!>=5>=5", lambda: dice(3, std(6), explode=ge(5), success=ge(5))),
    ("2d6!5=5", lambda: dice(2, std(6), explode=eq(5), success=eq(5))),
    ("2d4!<2>=3", lambda: dice(2, std(4), explode=lt(2), success=ge(3))),
    ("2d6r1>=6!", lambda: dice(2, std(6), reroll=eq(1), explode=eq(6), success=ge(6))),
    ("2d6r1!>=6", lambda: dice(2, std(6), reroll=eq(1), explode=ge(6))),
    # computed counts, including 0 dice
    ("(W4)W6", lambda: counted(d(4), lambda n: dice(n, std(6)))),
    ("(2)W6", lambda: dice(2, std(6))),
    ("(0)W6", lambda: const(0)),
    ("(W3-1)W6", lambda: counted(sub(d(3), const(1)), lambda n: dice(n, std(6)))),
    ("(W2)W6kh1", lambda: counted(d(2), lambda n: dice(n, std(6), keep=("kh", 1)))),
    ("(W3)W4kh2", lambda: counted(d(3), lambda n: dice(n, std(4), keep=("kh", 2)))),
    (
        "(W3-1)W4dl1",
        lambda: counted(sub(d(3), const(1)), lambda n: dice(n, std(4), keep=("dl", 1))),
    ),
    ("(W3)W4>=3", lambda: counted(d(3), lambda n: dice(n, std(4), success=ge(3)))),
    ("(W2)W4!", lambda: counted(d(2), lambda n: dice(n, std(4), explode=eq(4)))),
    ("(W2+1)dF", lambda: counted(add(d(2), const(1)), lambda n: dice(n, FUDGE))),
    (
        "((W2)W2)W3",
        lambda: counted(counted(d(2), lambda n: dice(n, std(2))), lambda n: dice(n, std(3))),
    ),
    # min / max
    ("min(W6, W6)", lambda: combine(min, d(6), d(6))),
    ("max(2W6, 7)", lambda: combine(max, dice(2, std(6)), const(7))),
    ("min(W4, W6, 3)", lambda: combine(min, d(4), d(6), const(3))),
    ("max(W6)", lambda: d(6)),
    ("max(W4, -W4)", lambda: combine(max, d(4), neg(d(4)))),
    ("min(W6,W6)+max(W4,W4)", lambda: add(combine(min, d(6), d(6)), combine(max, d(4), d(4)))),
    # arithmetic, floor division with negatives, the spellings of the operators
    ("W6-W6", lambda: sub(d(6), d(6))),
    ("W4*W4", lambda: mul(d(4), d(4))),
    ("-W6", lambda: neg(d(6))),
    ("--W6", lambda: d(6)),
    ("+W6", lambda: d(6)),
    ("W6/2", lambda: div(d(6), const(2))),
    ("-W6/2", lambda: div(neg(d(6)), const(2))),
    ("-(W6/2)", lambda: neg(div(d(6), const(2)))),
    ("(W6-4)/2", lambda: div(sub(d(6), const(4)), const(2))),
    ("(2W6-7)/3", lambda: div(sub(dice(2, std(6)), const(7)), const(3))),
    ("W6/-2", lambda: div(d(6), const(-2))),
    ("W6/(W2-3)", lambda: div(d(6), sub(d(2), const(3)))),
    ("7/W3", lambda: div(const(7), d(3))),
    ("(W6-3)/W2", lambda: div(sub(d(6), const(3)), d(2))),
    ("W6×2", lambda: mul(d(6), const(2))),
    ("W6x2", lambda: mul(d(6), const(2))),
    ("W6X2", lambda: mul(d(6), const(2))),
    ("W6 · 2", lambda: mul(d(6), const(2))),
    ("W6:2", lambda: div(d(6), const(2))),
    ("W6÷2", lambda: div(d(6), const(2))),
    ("W6−1", lambda: sub(d(6), const(1))),
    ("W6–1", lambda: sub(d(6), const(1))),
    ("2+3*W4", lambda: add(const(2), mul(const(3), d(4)))),
    ("(2+3)*W4", lambda: mul(const(5), d(4))),
    ("W6-W4-W2", lambda: sub(sub(d(6), d(4)), d(2))),
    ("12/W3/2", lambda: div(div(const(12), d(3)), const(2))),
]


@pytest.mark.parametrize(("text", "oracle"), CASES, ids=[t for t, _ in CASES])
def test_odds_equal_brute_force(text: str, oracle: Callable[[], Dist]) -> None:
    expected = clean(oracle())
    assert sum(expected.values()) == 1  # the oracle itself is a distribution
    dist = odds(text, SMALL)
    assert dist.probabilities() == expected
    assert sum(dist.probabilities().values()) == 1
    assert sum(dist.counts.values()) == dist.total
    assert dist.mean == sum(v * p for v, p in expected.items())


def test_negative_faces_in_conditions() -> None:
    # After r/ro a sign belongs to the face (Fudge dice have -1); after ! it subtracts.
    assert odds("WFro-1").probabilities() == {
        -1: Fraction(1, 9),
        0: Fraction(4, 9),
        1: Fraction(4, 9),
    }
    assert odds("WFr-1") == odds("WFr<0")
    assert odds("4WF=-1") == odds("4WF<0")
    assert odds("W6!-1") == odds("(W6!) - 1")


# -- generated small cases ---------------------------------------------------------------------
_OPS: dict[str, Callable[[int, int], bool]] = {
    "=": lambda f, x: f == x,
    "<": lambda f, x: f < x,
    "<=": lambda f, x: f <= x,
    ">": lambda f, x: f > x,
    ">=": lambda f, x: f >= x,
}


def _cond(
    rng: random.Random, faces: tuple[int, ...], *, allow_all: bool, allow_none: bool
) -> tuple[str, Test] | None:
    """A random condition (text without the leading ``=`` for equality, sometimes with)."""
    for _ in range(20):
        op = rng.choice(list(_OPS))
        value = rng.randint(min(faces) - 1, max(faces) + 1)
        fn = _OPS[op]
        hits = sum(1 for f in faces if fn(f, value))
        if (hits == 0 and not allow_none) or (hits == len(faces) and not allow_all):
            continue
        if value < 0:
            continue  # "-1" would read as a minus sign
        text = rng.choice(["", "="]) + str(value) if op == "=" else op + str(value)
        return text, (lambda f, fn=fn, value=value: fn(f, value))
    return None


def _generated_case(seed: int) -> tuple[str, Callable[[], Dist]]:
    """A random small dice term with random valid modifiers, and its brute-force oracle."""
    rng = random.Random(seed)
    kind = rng.choice(["std", "std", "std", "fudge", "true"])
    faces: tuple[int, ...]
    if kind == "fudge":
        faces, die_text = FUDGE, rng.choice(["dF", "WF", "wf"])
    else:
        sides = rng.choice([2, 3, 4, 6])
        faces = std(sides)
        letter = rng.choice("dDwW")
        die_text = f"{letter}{{{sides}}}" if kind == "true" else f"{letter}{sides}"
    n = rng.randint(1, 3)
    mods: list[str] = []
    kw: dict[str, object] = {}
    if rng.random() < 0.5:
        mode = rng.choice(["kh", "kl", "dh", "dl"] if n > 1 else ["kh", "kl"])
        k = rng.randint(1, n) if mode in ("kh", "kl") else rng.randint(1, n - 1)
        spelled = mode
        if mode == "kh" and rng.random() < 0.3:
            spelled = "k"
        number = "" if k == 1 and rng.random() < 0.5 else str(k)
        mods.append(spelled + number)
        kw["keep"] = (mode, k)
    if rng.random() < 0.4:
        once = rng.random() < 0.5
        cond = _cond(rng, faces, allow_all=once, allow_none=False)
        if cond is not None:
            mods.append(("ro" if once else "r") + cond[0])
            kw["reroll"], kw["once"] = cond[1], once
    bare_explode = False
    if rng.random() < 0.4:
        if rng.random() < 0.5:
            top = max(faces)
            mods.append("!")
            kw["explode"] = lambda f, top=top: f == top
            bare_explode = True
        else:
            cond = _cond(rng, faces, allow_all=False, allow_none=False)
            if cond is not None:
                mods.append("!" + cond[0])
                kw["explode"] = cond[1]
    if rng.random() < 0.4 and not ("keep" in kw and "explode" in kw):
        cond = _cond(rng, faces, allow_all=True, allow_none=True)
        if cond is not None and cond[0][0] in "<>=":
            kw["success"] = cond[1]
            success_text = cond[0]
            rng.shuffle(mods)
            # a comparison right after a bare '!' would belong to the '!': put it first
            if bare_explode and mods and mods[-1] == "!":
                mods.insert(0, success_text)
            else:
                mods.append(success_text)
    else:
        rng.shuffle(mods)
    count = "" if n == 1 and rng.random() < 0.3 else str(n)
    text = count + die_text + "".join(mods)
    return text, lambda: dice(n, faces, **kw)  # type: ignore[arg-type]


GENERATED = [_generated_case(seed) for seed in range(300)]


@pytest.mark.parametrize(("text", "oracle"), GENERATED, ids=[t for t, _ in GENERATED])
def test_generated_odds_equal_brute_force(text: str, oracle: Callable[[], Dist]) -> None:
    assert odds(text, SMALL).probabilities() == clean(oracle())


def test_generated_cases_cover_every_modifier() -> None:
    texts = " ".join(text for text, _ in GENERATED)
    for mark in ("kh", "kl", "dh", "dl", "ro", "r", "!", ">=", "<", "F", "{"):
        assert mark in texts


# -- icepool on larger cases -------------------------------------------------------------------
def _ice(die: icepool.Die) -> Dist:
    den = die.denominator()
    return {int(o): Fraction(q, den) for o, q in sorted(die.items()) if q}


ICEPOOL_CASES: list[tuple[str, Limits, Callable[[], icepool.Die]]] = [
    ("4d6kh3", DEFAULT_LIMITS, lambda: icepool.d6.pool(4).highest(3).sum()),
    ("10d10kh3", DEFAULT_LIMITS, lambda: icepool.d10.pool(10).highest(3).sum()),
    ("8d6dl2", DEFAULT_LIMITS, lambda: icepool.d6.pool(8).highest(6).sum()),
    ("8d6dh2", DEFAULT_LIMITS, lambda: icepool.d6.pool(8).lowest(6).sum()),
    ("3d20kl1", DEFAULT_LIMITS, lambda: icepool.d20.pool(3).lowest(1).sum()),
    ("2d20kh1", DEFAULT_LIMITS, lambda: icepool.d20.pool(2).highest(1).sum()),
    ("20d6", DEFAULT_LIMITS, lambda: 20 @ icepool.d6),
    ("50d20", DEFAULT_LIMITS, lambda: 50 @ icepool.d20),
    ("6d6>=5", DEFAULT_LIMITS, lambda: 6 @ (icepool.d6 >= 5)),
    ("12d10<3", DEFAULT_LIMITS, lambda: 12 @ (icepool.d10 < 3)),
    ("d6!", DEFAULT_LIMITS, lambda: icepool.d6.explode([6], depth=20)),
    ("3d6!", DEFAULT_LIMITS, lambda: 3 @ icepool.d6.explode([6], depth=20)),
    ("d10!>=9", DEFAULT_LIMITS, lambda: icepool.d10.explode([9, 10], depth=20)),
    ("d6!", Limits(max_explode_depth=5), lambda: icepool.d6.explode([6], depth=5)),
    ("2d6r1", DEFAULT_LIMITS, lambda: 2 @ icepool.d6.reroll([1], depth="inf")),
    ("2d6ro1", DEFAULT_LIMITS, lambda: 2 @ icepool.d6.reroll([1], depth=1)),
    ("4d8r<3", DEFAULT_LIMITS, lambda: 4 @ icepool.d8.reroll([1, 2], depth="inf")),
    ("3d8ro<=3", DEFAULT_LIMITS, lambda: 3 @ icepool.d8.reroll([1, 2, 3], depth=1)),
    (
        "4d6r1kh3",
        DEFAULT_LIMITS,
        lambda: icepool.d6.reroll([1], depth="inf").pool(4).highest(3).sum(),
    ),
    (
        "5d6!kh3",
        Limits(max_explode_depth=3),
        lambda: icepool.d6.explode([6], depth=3).pool(5).highest(3).sum(),
    ),
    ("8dF", DEFAULT_LIMITS, lambda: 8 @ icepool.Die([-1, 0, 1])),
    ("3W%", DEFAULT_LIMITS, lambda: 3 @ icepool.d100),
    ("(W6)W10", DEFAULT_LIMITS, lambda: icepool.d6 @ icepool.d10),
    (
        "(W4)W6kh2",
        DEFAULT_LIMITS,
        lambda: icepool.d4.map(lambda n: icepool.d6.pool(n).highest(2).sum()),
    ),
    ("W20+W12-W8", DEFAULT_LIMITS, lambda: icepool.d20 + icepool.d12 - icepool.d8),
    ("max(3d6, 3d6)", DEFAULT_LIMITS, lambda: icepool.highest(3 @ icepool.d6, 3 @ icepool.d6)),
    (
        "min(2d10, 2d10, 2d10)",
        DEFAULT_LIMITS,
        lambda: icepool.lowest(2 @ icepool.d10, 2 @ icepool.d10, 2 @ icepool.d10),
    ),
    ("(3d6-10)/3", DEFAULT_LIMITS, lambda: (3 @ icepool.d6 - 10) // 3),
]


@pytest.mark.parametrize(
    ("text", "limits", "oracle"),
    ICEPOOL_CASES,
    ids=[f"{t}-depth{lim.max_explode_depth}" for t, lim, _ in ICEPOOL_CASES],
)
def test_odds_equal_icepool(text: str, limits: Limits, oracle: Callable[[], icepool.Die]) -> None:
    expected = _ice(oracle())
    dist = odds(text, limits)
    assert dist.probabilities() == expected


def test_explosion_cap_is_the_number_of_extra_dice() -> None:
    # max_explode_depth=20 extra dice: 21 sixes in a row is the top, probability 6**-21.
    dist = odds("d6!")
    assert dist.max == 6 * 21
    assert dist.probability(126) == Fraction(1, 6**21)
    assert odds("d6!", Limits(max_explode_depth=0)) == odds("d6")


def test_a_big_exploding_die_is_answered() -> None:
    # Only the exploding face combines with the rest of the chain: d1000! is cheap.
    dist = odds("d1000!")
    depth = DEFAULT_LIMITS.max_explode_depth
    assert dist.max == 1000 * (depth + 1)
    assert dist.probability(dist.max) == Fraction(1, 1000 ** (depth + 1))
    assert dist.mean == sum(Fraction(1001, 2) * Fraction(1, 1000**k) for k in range(depth + 1))


# -- reading a distribution --------------------------------------------------------------------
def test_known_moments() -> None:
    three = odds("3W6")
    assert three.mean == Fraction(21, 2)
    assert three.variance == Fraction(35, 4)
    assert three.stdev == pytest.approx(math.sqrt(35 / 4))
    assert odds("W20").mean == Fraction(21, 2)
    assert odds("W20").variance == Fraction(399, 12)
    assert odds("4W6kh3").mean == Fraction(15869, 1296)
    assert odds("dF").mean == 0
    assert odds("4dF").variance == Fraction(8, 3)
    assert odds("W66").mean == Fraction(77, 2)
    assert odds("7").variance == 0


def test_moments_agree_with_probabilities() -> None:
    for text in ("2d6r1", "3d6!kh2", "(W4)W6", "W6/(W2-3)", "5d6>=5", "W66"):
        dist = odds(text, SMALL)
        probs = dist.probabilities()
        mean = sum(v * p for v, p in probs.items())
        assert dist.mean == mean
        assert dist.variance == sum(p * (v - mean) ** 2 for v, p in probs.items())


def test_percentiles_and_tails() -> None:
    two = odds("2W6")
    assert two.percentile(0) == 2
    assert two.percentile(Fraction(1, 36)) == 2
    assert two.percentile(Fraction(1, 2)) == 7  # P(<=6) = 15/36 < 1/2 <= P(<=7) = 21/36
    assert two.percentile(0.5) == 7
    assert two.percentile(Fraction(15, 36)) == 6
    assert two.percentile(1) == 12
    assert two.at_least(7) == Fraction(21, 36)
    assert two.at_most(7) == Fraction(21, 36)
    assert two.at_least(2) == 1
    assert two.at_least(13) == 0
    assert two.at_most(1) == 0
    assert two.probability(7) == Fraction(1, 6)
    assert two.probability(1) == 0
    assert (two.min, two.max) == (2, 12)
    assert two.outcomes() == list(range(2, 13))
    with pytest.raises(DiceRollError):
        two.percentile(Fraction(3, 2))


def test_percentile_is_the_smallest_outcome_reaching_p() -> None:
    for text in ("3W6", "4d6kh3", "d6!", "W6-W6", "(W4)W6"):
        dist = odds(text, SMALL)
        for k in range(0, 101, 5):
            p = Fraction(k, 100)
            x = dist.percentile(p)
            assert dist.at_most(x) >= p
            below = [v for v in dist.outcomes() if v < x]
            if below:
                assert dist.at_most(below[-1]) < p


def test_counts_are_reduced_integers() -> None:
    dist = odds("2W6")
    assert dist.total == 36
    assert all(isinstance(c, int) for c in dist.counts.values())
    assert sum(dist.counts.values()) == dist.total
    reduced = odds("W6*2")  # six outcomes, one each
    assert reduced.total == 6
    assert math.gcd(reduced.total, *reduced.counts.values()) == 1


def test_distribution_json() -> None:
    data = odds("2W6").to_json()
    assert set(data) == {"outcomes", "min", "max", "mean", "variance", "stdev", "percentiles"}
    assert data["min"] == 2 and data["max"] == 12
    assert data["mean"] == "7/1"
    assert data["variance"] == "35/6"
    assert data["stdev"] == pytest.approx(math.sqrt(35 / 6), abs=1e-6)
    assert data["percentiles"] == {"5": 3, "25": 5, "50": 7, "75": 9, "95": 11}
    first, seven = data["outcomes"][0], data["outcomes"][5]
    assert first == {"value": 2, "p": "1/36", "at_most": "1/36", "at_least": "1/1"}
    assert seven == {"value": 7, "p": "1/6", "at_most": "7/12", "at_least": "7/12"}
    assert sum(Fraction(row["p"]) for row in data["outcomes"]) == 1


def test_equal_forms() -> None:
    assert odds("W%") == odds("d%") == odds("W100") == odds("W{100}")
    assert odds("4d6k3") == odds("4d6kh3") == odds("4d6dl1")
    assert odds("4d6kl3") == odds("4d6dh1")
    assert odds("(3)W6") == odds("3W6")
    assert odds("W66") != odds("W{66}")
    assert odds("W6") == odds("d6") == odds("1W6") == odds("w6")


def test_stdev_of_huge_results() -> None:
    # The variance (~1e360) is beyond a float, its root (~1.7e180) is not.
    huge = odds("W6" + "*999999999" * 20)
    assert huge.stdev == pytest.approx(math.sqrt(float(odds("W6").variance)) * 999999999.0**20)
    assert huge.to_json()["stdev"] == pytest.approx(huge.stdev)
    assert odds("W6" + "*999999999" * 40).stdev == math.inf


# -- division by a die that can show 0, negative computed counts -----------------------------
def test_divisor_that_can_be_zero_is_refused() -> None:
    with pytest.raises(DiceRollError) as info:
        odds("W6/(W3-2)")
    assert info.value.column == 4


def test_negative_computed_count_is_refused() -> None:
    with pytest.raises(DiceRollError) as info:
        odds("(W4-2)W6")
    assert info.value.column == 1


# -- bounded work for oversized inputs ---------------------------------------------------------
# No wall clock here (a loaded CI machine is slow at random): the engine counts its work in
# ``_Engine.work`` before doing it, so the tests read that counter and the memory peak.
# Timings live in bench/dice.py.
class _Recorder:
    """The engines made (and the memory peak) while :func:`_recorded` is active."""

    def __init__(self) -> None:
        self.engines: list[_Engine] = []
        self.peak = 0

    @property
    def work(self) -> int:
        return max((engine.work for engine in self.engines), default=0)


@contextmanager
def _recorded(monkeypatch: pytest.MonkeyPatch, memory: bool = False) -> Iterator[_Recorder]:
    """Record the engines' work; with ``memory`` the peak of traced memory too (slow)."""
    recorder = _Recorder()
    original = _Engine.__init__

    def init(self: _Engine, limits: Limits, source: str) -> None:
        original(self, limits, source)
        recorder.engines.append(self)

    _odds_cached.cache_clear()
    monkeypatch.setattr(_Engine, "__init__", init)
    if memory:
        tracemalloc.start()
    try:
        yield recorder
    finally:
        if memory:
            recorder.peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        monkeypatch.undo()
        _odds_cached.cache_clear()


BIG = [
    "1000d1000",
    "1000d10000",
    "1000W{10000}",
    "W10000*W10000",
    "W1000*W1000*W1000",
    "d10000!",
    "1000d20r<20",
    "1000dF",
    "100d6kh3",
    "(W1000)W1000",
    "1000W6kh500",
    "100W%kh50",
]


@pytest.mark.parametrize("text", BIG)
def test_big_odds_are_refused_or_answered_within_the_work_cap(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _recorded(monkeypatch) as rec:
        try:
            dist = odds(text)
        except DiceLimitError as err:
            assert err.expression == text
        else:
            assert sum(dist.counts.values()) == dist.total
    assert rec.engines and rec.work <= DEFAULT_LIMITS.max_odds_work


# The figures before the estimate: (W1000)W100 62 s and 7.8 GB before its refusal,
# (4W100)W100 50 s and 2.4 GB, 1000W6!>=2 13 s; 1000W6kh500 took 16 s of big-integer steps.
@pytest.mark.parametrize(
    "text",
    [
        "(W1000)W100",
        "(4W100)W100",
        "1000W6!>=2",
        "1000W6kh500",
        "(W1000)W100kh3",
        "1000W1000",
        "(W20)W20 + (4W100)W100",
    ],
)
def test_costly_odds_are_refused_before_the_work(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _recorded(monkeypatch, memory=True) as rec, pytest.raises(DiceLimitError) as info:
        odds(text)
    assert "roll it instead" in str(info.value) and "\n" not in str(info.value)
    # At most the small parts (the count's own distribution, one exploding die, a small
    # term beside it) were worked out, and a few megabytes were used instead of gigabytes.
    assert rec.work < DEFAULT_LIMITS.max_odds_work // 10
    assert rec.peak < 20_000_000


def test_steps_on_big_counts_cost_more_than_steps_on_small_ones() -> None:
    engine = _Engine(DEFAULT_LIMITS, "x")
    engine.tick(10)
    assert engine.work == 10
    engine.tick(10, 10 * WORD_BITS)  # each step handles counts of ten words
    assert engine.work == 10 + 110
    with pytest.raises(DiceLimitError):
        engine.tick(DEFAULT_LIMITS.max_odds_work // 2, WORD_BITS)
    assert engine.work == 120  # a refused step is not counted as done


@pytest.mark.parametrize("text", ["1000d6!>=5", "1000W666", "(W1000)W1000", "1000d6!", "100W%kh50"])
def test_work_cap_bounds_the_work(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    limits = Limits(max_odds_work=20_000)
    with _recorded(monkeypatch) as rec, pytest.raises(DiceLimitError) as info:
        odds(text, limits)
    assert rec.work <= limits.max_odds_work
    assert info.value.column is None  # the whole analysis is too big, not one place


@pytest.mark.parametrize("text", ["1000W%kl1", "1000d6kh3", "1000W%dh999", "200W20kh2"])
def test_keep_odds_refused_or_answered_with_little_work(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The keep DP finishes every path once the kept dice are placed: its work does not grow
    # with the number of dropped dice.
    with _recorded(monkeypatch) as rec, suppress(DiceLimitError):
        dist = odds(text)
        assert sum(dist.counts.values()) == dist.total
    assert rec.work < 100_000


# -- exact formatting and the errors of the reading side -------------------------------------
def test_fixed_formats_like_a_float_where_a_float_holds_the_value() -> None:
    rng = random.Random(18)
    for _ in range(2000):
        value = Fraction(rng.randint(-(10**6), 10**6), rng.randint(1, 10**4))
        digits = rng.randint(0, 4)
        expected = f"{float(value):.{digits}f}"
        if expected.startswith("-") and not expected.strip("-0.,"):
            expected = expected[1:]  # a float rounds -0.001 to "-0.00"; fixed says "0.00"
        assert fixed(value, digits) == expected, (value, digits)
    assert fixed(Fraction(5, 8)) == "0.62" and fixed(Fraction(7, 8)) == "0.88"  # half to even


def test_mean_beyond_a_float_is_formatted_exactly() -> None:
    text = "*".join(["999999999"] * 35) + "*W6"
    dist = odds(text)
    mean = fixed(dist.mean)
    assert mean == str(999999999**35 * 7 // 2) + ".50"  # an odd number times 3.5
    with pytest.raises(OverflowError):
        float(dist.mean)  # why the float path could not do it


@pytest.mark.parametrize("p", [-1, 2, Fraction(3, 2), float("nan"), "x"])
def test_percentile_out_of_range_is_a_kerker_error(p: object) -> None:
    with pytest.raises(KerkerError):
        odds("W6").percentile(p)  # type: ignore[arg-type]
