"""The frozen syntax tree of a dice expression (see docs/dice.md).

A parse produces these nodes once; rolling and exact odds walk them without changing them.
Every node knows its ``span`` (0-based start, end exclusive) in the source text, so errors and
explanations can point at it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Span = tuple[int, int]
CompareOp = Literal["=", "<", "<=", ">", ">="]
DieKind = Literal["std", "percent", "digits", "fudge", "true"]
KeepMode = Literal["kh", "kl", "dh", "dl"]
BinaryOp = Literal["+", "-", "*", "/"]


@dataclass(frozen=True, slots=True)
class Cond:
    """A comparison of one die face with a number, e.g. ``>=5`` or ``=1``."""

    op: CompareOp
    value: int

    def test(self, face: int) -> bool:
        """Whether ``face`` meets the condition."""
        op, value = self.op, self.value
        if op == "=":
            return face == value
        if op == "<":
            return face < value
        if op == "<=":
            return face <= value
        if op == ">":
            return face > value
        return face >= value

    def text(self) -> str:
        """The condition as written in the language (``=`` is written out)."""
        return f"{self.op}{self.value}"


@dataclass(frozen=True, slots=True)
class Die:
    """One kind of die: its faces, each equally likely.

    ``kind`` says how it was written: ``std`` (``W6``), ``percent`` (``W%``), ``digits``
    (``W66``: one d6 per digit), ``fudge`` (``WF``: -1, 0, +1) or ``true`` (``W{66}``).
    """

    kind: DieKind
    sides: int
    faces: tuple[int, ...] = field(repr=False)
    digits: int = 0

    def text(self, letter: str = "W") -> str:
        """The die as written, e.g. ``W20``, ``W%``, ``W66``, ``W{66}``, ``WF``."""
        if self.kind == "percent":
            return f"{letter}%"
        if self.kind == "fudge":
            return f"{letter}F"
        if self.kind == "true":
            return f"{letter}{{{self.sides}}}"
        if self.kind == "digits":
            return letter + "6" * self.digits
        return f"{letter}{self.sides}"


@dataclass(frozen=True, slots=True)
class Reroll:
    """``r<cond>`` rerolls while the face meets ``cond``; ``ro<cond>`` rerolls once."""

    cond: Cond
    once: bool


@dataclass(frozen=True, slots=True)
class Explode:
    """``!`` (or ``!<cond>``): a face meeting ``cond`` adds another die to this one."""

    cond: Cond


@dataclass(frozen=True, slots=True)
class Keep:
    """``khN`` / ``klN`` keep the N highest / lowest; ``dhN`` / ``dlN`` drop them."""

    mode: KeepMode
    n: int


@dataclass(frozen=True, slots=True)
class Num:
    """An integer literal."""

    value: int
    span: Span


@dataclass(frozen=True, slots=True)
class Dice:
    """``NdX`` with its modifiers. ``count`` is a literal (:class:`Num`) or a group."""

    count: Node
    die: Die
    letter: str
    reroll: Reroll | None
    explode: Explode | None
    keep: Keep | None
    success: Cond | None
    span: Span
    implicit_count: bool = False

    def text(self) -> str:
        """The term in normalised spelling (e.g. ``4W6kh3``, ``6W6>=5``)."""
        from kerker.dice.explain import node_text

        return node_text(self)


@dataclass(frozen=True, slots=True)
class BinOp:
    """``left op right``; ``symbol`` keeps the spelling (``×``, ``x``, ``*``, ``:``)."""

    op: BinaryOp
    symbol: str
    left: Node
    right: Node
    span: Span


@dataclass(frozen=True, slots=True)
class Neg:
    """Unary minus."""

    operand: Node
    span: Span


@dataclass(frozen=True, slots=True)
class Call:
    """``min(a, b, ...)`` or ``max(a, b, ...)``."""

    name: Literal["min", "max"]
    args: tuple[Node, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Group:
    """A parenthesised expression (kept so explanations show the parentheses)."""

    inner: Node
    span: Span


Node = Num | Dice | BinOp | Neg | Call | Group


@dataclass(frozen=True, slots=True)
class Expr:
    """A parsed expression: the root node and the text it came from.

    ``cache`` holds what the roller compiled from it (per limits), the normalised text
    :func:`~kerker.dice.explain.explain` shows and its lines for a single die (by the die's
    value); it takes no part in
    equality or hashing.
    """

    root: Node
    source: str
    cache: dict[object, object] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return self.source
