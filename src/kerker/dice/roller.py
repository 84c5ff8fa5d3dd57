"""Rolling: a parsed expression plus an injected ``random.Random`` -> a :class:`Roll`.

Each AST is compiled once into a tree of closures (cached per expression and limits), so
"parse once, roll many" costs only the dice. Faces are drawn by rejection sampling on
``rng.getrandbits`` -- an algorithm kerker owns, so the same seed gives the same dice on
every platform and Python version (``getrandbits`` of the Mersenne Twister is stable).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import compress

from kerker.dice.ast import BinOp, Call, Dice, Die, Expr, Group, Neg, Node, Num
from kerker.dice.parser import check_term_limits, parse
from kerker.dice.records import (
    BinRecord,
    CallRecord,
    DiceRecord,
    GroupRecord,
    NegRecord,
    NumRecord,
    Record,
    Roll,
    Throw,
)
from kerker.errors import N_, DiceLimitError, DiceRollError
from kerker.limits import DEFAULT_LIMITS, Limits


class _Budget:
    """Physical dice still allowed in this roll (``Limits.max_dice_per_roll``)."""

    __slots__ = ("cap", "left", "source")

    def __init__(self, cap: int, source: str) -> None:
        self.cap = cap
        self.left = cap
        self.source = source

    def spend(self, n: int) -> None:
        self.left -= n
        if self.left < 0:
            raise DiceLimitError(
                N_("the roll needs more than {max} dice"),
                expression=self.source,
                max=self.cap,
            )


_Run = Callable[[random.Random, _Budget], Record]
_Draw = Callable[[Callable[[int], int]], int]


def _drawer(die: Die) -> _Draw:
    """A function drawing one face of ``die`` from ``getrandbits``."""
    if die.kind == "digits":
        digits = die.digits

        def draw_digits(bits: Callable[[int], int]) -> int:
            value = 0
            for _ in range(digits):
                r = bits(3)
                while r >= 6:
                    r = bits(3)
                value = value * 10 + r + 1
            return value

        return draw_digits
    faces = die.faces
    n = len(faces)
    k = (n - 1).bit_length()
    if die.kind in ("std", "percent", "true"):

        def draw_std(bits: Callable[[int], int]) -> int:
            r = bits(k)
            while r >= n:
                r = bits(k)
            return r + 1

        return draw_std

    def draw_face(bits: Callable[[int], int]) -> int:
        r = bits(k)
        while r >= n:
            r = bits(k)
        return faces[r]

    return draw_face


def _uniform_pick(bits: Callable[[int], int], choices: tuple[int, ...]) -> int:
    n = len(choices)
    k = (n - 1).bit_length()
    r = bits(k)
    while r >= n:
        r = bits(k)
    return choices[r]


def _compile(node: Node, limits: Limits, source: str) -> _Run:
    if isinstance(node, Num):
        record = NumRecord(node, node.value)
        return lambda rng, budget: record
    if isinstance(node, Dice):
        return _compile_dice(node, limits, source)
    if isinstance(node, Group):
        inner = _compile(node.inner, limits, source)
        group = node

        def run_group(rng: random.Random, budget: _Budget) -> Record:
            rec = inner(rng, budget)
            return GroupRecord(group, rec, rec.total)

        return run_group
    if isinstance(node, Neg):
        operand = _compile(node.operand, limits, source)
        neg = node

        def run_neg(rng: random.Random, budget: _Budget) -> Record:
            rec = operand(rng, budget)
            return NegRecord(neg, rec, -rec.total)

        return run_neg
    if isinstance(node, BinOp):
        return _compile_binop(node, limits, source)
    return _compile_call(node, limits, source)


def _compile_binop(node: BinOp, limits: Limits, source: str) -> _Run:
    left = _compile(node.left, limits, source)
    right = _compile(node.right, limits, source)
    op = node.op
    column = node.right.span[0] + 1

    def run_binop(rng: random.Random, budget: _Budget) -> Record:
        a = left(rng, budget)
        b = right(rng, budget)
        x, y = a.total, b.total
        if op == "+":
            value = x + y
        elif op == "-":
            value = x - y
        elif op == "*":
            value = x * y
        else:
            if y == 0:
                raise DiceRollError(
                    N_("division by zero: the divisor came up 0"),
                    expression=source,
                    column=column,
                )
            value = x // y
        return BinRecord(node, a, b, value)

    return run_binop


def _compile_call(node: Call, limits: Limits, source: str) -> _Run:
    args = tuple(_compile(arg, limits, source) for arg in node.args)
    pick = min if node.name == "min" else max

    def run_call(rng: random.Random, budget: _Budget) -> Record:
        recs = tuple(arg(rng, budget) for arg in args)
        return CallRecord(node, recs, pick(r.total for r in recs))

    return run_call


def _compile_dice(node: Dice, limits: Limits, source: str) -> _Run:
    check_term_limits(node, limits, source)
    die = node.die
    draw = _drawer(die)
    count_node = node.count
    fixed = count_node.value if isinstance(count_node, Num) else None
    count_run = None if fixed is not None else _compile(count_node, limits, source)
    plain = (
        node.reroll is None
        and node.explode is None
        and node.keep is None
        and node.success is None
        and die.kind in ("std", "percent", "true")
    )
    if plain and fixed is not None:
        n = fixed
        sides = len(die.faces)
        k = (sides - 1).bit_length()

        if n == 1:

            def run_single(rng: random.Random, budget: _Budget) -> Record:
                budget.left -= 1
                if budget.left < 0:
                    budget.spend(0)
                bits = rng.getrandbits
                r = bits(k)
                while r >= sides:
                    r = bits(k)
                return DiceRecord(node, (r + 1,), None, None, None, None, r + 1)

            return run_single

        def run_plain(rng: random.Random, budget: _Budget) -> Record:
            budget.left -= n
            if budget.left < 0:
                budget.spend(0)
            bits = rng.getrandbits
            values = []
            for _ in range(n):
                r = bits(k)
                while r >= sides:
                    r = bits(k)
                values.append(r + 1)
            return DiceRecord(node, tuple(values), None, None, None, None, sum(values))

        return run_plain

    if (
        fixed is not None
        and node.reroll is None
        and node.explode is None
        and die.kind in ("std", "percent", "true")
    ):
        return _compile_simple(node, fixed)

    reroll = node.reroll
    explode = node.explode
    keep = node.keep
    success = node.success
    max_rerolls = limits.max_rerolls
    max_depth = limits.max_explode_depth
    max_term = limits.max_dice_per_term
    allowed = (
        tuple(f for f in die.faces if not reroll.cond.test(f))
        if reroll is not None and not reroll.once
        else ()
    )
    column = node.span[0] + 1

    def one_die(bits: Callable[[int], int], budget: _Budget) -> tuple[int, list[Throw], int]:
        throws: list[Throw] = []
        value = 0
        hits = 0
        depth = 0
        while True:
            budget.spend(1)
            face = draw(bits)
            if reroll is not None:
                cond = reroll.cond
                if reroll.once:
                    if cond.test(face):
                        throws.append((face, "r"))
                        budget.spend(1)
                        face = draw(bits)
                else:
                    tries = 0
                    while cond.test(face):
                        throws.append((face, "r"))
                        tries += 1
                        budget.spend(1)
                        if tries >= max_rerolls:
                            face = _uniform_pick(bits, allowed)
                            break
                        face = draw(bits)
            value += face
            if success is not None and success.test(face):
                hits += 1
            if explode is not None and depth < max_depth and explode.cond.test(face):
                throws.append((face, "!"))
                depth += 1
                continue
            throws.append((face, ""))
            return value, throws, hits

    def run_dice(rng: random.Random, budget: _Budget) -> Record:
        count_record: Record | None = None
        if fixed is not None:
            n = fixed
        else:
            assert count_run is not None
            count_record = count_run(rng, budget)
            n = count_record.total
            if n < 0:
                raise DiceRollError(
                    N_("the number of dice came up {n}; it cannot be negative"),
                    expression=source,
                    column=column,
                    n=n,
                )
            if n > max_term:
                raise DiceLimitError(
                    N_("{n} dice in one term; the limit is {max}"),
                    expression=source,
                    column=column,
                    n=n,
                    max=max_term,
                )
        bits = rng.getrandbits
        values: list[int] = []
        all_throws: list[tuple[Throw, ...]] = []
        hit_list: list[int] = []
        special = False
        for _ in range(n):
            value, throws, hits = one_die(bits, budget)
            values.append(value)
            if len(throws) > 1:
                special = True
            all_throws.append(tuple(throws))
            hit_list.append(hits)
        kept: tuple[bool, ...] | None = None
        if keep is not None:
            kept = _keep_flags(values, keep.mode, keep.n)
        if success is not None:
            if explode is None:
                hit_list = [1 if success.test(v) else 0 for v in values]
            total = sum(h for i, h in enumerate(hit_list) if kept is None or kept[i])
            hits_out: tuple[int, ...] | None = tuple(hit_list)
        else:
            total = sum(v for i, v in enumerate(values) if kept is None or kept[i])
            hits_out = None
        return DiceRecord(
            node,
            tuple(values),
            kept,
            tuple(all_throws) if special else None,
            hits_out,
            count_record,
            total,
        )

    return run_dice


def _compile_simple(node: Dice, n: int) -> _Run:
    """A fixed number of plain dice with keep/drop and/or success counting."""
    sides = len(node.die.faces)
    k = (sides - 1).bit_length()
    keep = node.keep
    success = node.success

    def run_simple(rng: random.Random, budget: _Budget) -> Record:
        budget.left -= n
        if budget.left < 0:
            budget.spend(0)
        bits = rng.getrandbits
        values = []
        for _ in range(n):
            r = bits(k)
            while r >= sides:
                r = bits(k)
            values.append(r + 1)
        kept = None if keep is None else _keep_flags(values, keep.mode, keep.n)
        if success is None:
            assert kept is not None
            total = sum(compress(values, kept))
            return DiceRecord(node, tuple(values), kept, None, None, None, total)
        hits = tuple(1 if success.test(v) else 0 for v in values)
        total = sum(h for i, h in enumerate(hits) if kept is None or kept[i])
        return DiceRecord(node, tuple(values), kept, None, hits, None, total)

    return run_simple


def _keep_flags(values: list[int], mode: str, n: int) -> tuple[bool, ...]:
    """Which dice count. Ties go to the die rolled first (the sort is stable)."""
    count = len(values)
    if mode == "dh":
        mode, n = "kl", count - n
    elif mode == "dl":
        mode, n = "kh", count - n
    n = max(0, min(n, count))
    order = sorted(range(count), key=values.__getitem__, reverse=mode == "kh")
    flags = [False] * count
    for i in order[:n]:
        flags[i] = True
    return tuple(flags)


def _compiled(expr: Expr, limits: Limits) -> _Run:
    """The closure tree of ``expr`` under ``limits``, compiled once and kept on the Expr."""
    key = None if limits is DEFAULT_LIMITS else limits
    run = expr.cache.get(key)
    if run is None:
        run = _compile(expr.root, limits, expr.source)
        expr.cache[key] = run
    return run  # type: ignore[return-value]


def roll(expr: Expr | str, rng: random.Random, limits: Limits = DEFAULT_LIMITS) -> Roll:
    """Roll ``expr`` with ``rng`` and return the total with every die recorded.

    The same expression and the same seeded ``rng`` give the same :class:`Roll` everywhere.
    Raises :class:`~kerker.errors.DiceError` subclasses only: for bad text, for rolls over
    ``limits`` (dice per roll, dice per term) and for a divisor that came up 0.
    """
    if isinstance(expr, str):
        expr = parse(expr, limits)
    run: _Run | None = expr.cache.get(  # type: ignore[assignment]
        None if limits is DEFAULT_LIMITS else limits
    )
    if run is None:
        run = _compiled(expr, limits)
    budget = _Budget(limits.max_dice_per_roll, expr.source)
    return Roll(expr, run(rng, budget))
