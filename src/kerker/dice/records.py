"""The record tree of one roll: every die face, kept / dropped / rerolled / exploded.

Records mirror the syntax tree node by node and are separate from it (the AST is parsed once,
a record is made per roll). Renderers are functions over records (``explain``, ``to_json``).
Records are immutable named tuples: five times cheaper to make than frozen dataclasses, which
matters when a generator rolls thousands of times.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from kerker.dice.ast import BinOp, Call, Dice, Expr, Group, Neg, Num

# A throw's mark: "" counted, "r" rerolled away, "!" counted and exploded into the next throw.
Throw = tuple[int, str]


class NumRecord(NamedTuple):
    """A literal; its value is the literal."""

    node: Num
    total: int


class DiceRecord(NamedTuple):
    """One ``NdX`` term as rolled.

    ``values[i]`` is die i's value (the sum of its counted throws); ``kept`` is ``None`` when
    every die counts; ``throws`` is ``None`` unless a reroll or explosion happened, else per die
    the throws in order; ``hits`` per die the successes counted (success counting only);
    ``count_record`` is the roll of a computed count such as ``(W4)W6``.
    """

    node: Dice
    values: tuple[int, ...]
    kept: tuple[bool, ...] | None
    throws: tuple[tuple[Throw, ...], ...] | None
    hits: tuple[int, ...] | None
    count_record: Record | None
    total: int


class BinRecord(NamedTuple):
    """``left op right`` with both sides' records."""

    node: BinOp
    left: Record
    right: Record
    total: int


class NegRecord(NamedTuple):
    """Unary minus."""

    node: Neg
    operand: Record
    total: int


class CallRecord(NamedTuple):
    """``min``/``max`` with the records of its arguments."""

    node: Call
    args: tuple[Record, ...]
    total: int


class GroupRecord(NamedTuple):
    """Parentheses."""

    node: Group
    inner: Record
    total: int


Record = NumRecord | DiceRecord | BinRecord | NegRecord | CallRecord | GroupRecord


class Roll(NamedTuple):
    """The result of rolling an expression: its total and the full record tree."""

    expr: Expr
    record: Record

    @property
    def total(self) -> int:
        """The result of the roll."""
        return self.record.total

    def explain(self) -> str:
        """One line: ``4W6kh3 -> [6, 5, 3, (1)] = 14`` (see docs/dice.md for the marks)."""
        from kerker.dice.explain import explain

        return explain(self)

    def to_json(self) -> dict[str, Any]:
        """``{"expression", "total", "explain", "tree"}`` with stable English keys."""
        from kerker.dice.explain import record_json

        return {
            "expression": self.expr.source,
            "total": self.total,
            "explain": self.explain(),
            "tree": record_json(self.record),
        }
