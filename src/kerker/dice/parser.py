"""Parser of the dice language: text -> frozen :class:`~kerker.dice.ast.Expr`.

A hand-written recursive-descent parser over characters (the grammar is in docs/dice.md).
It refuses everything it cannot read with a :class:`~kerker.errors.DiceSyntaxError` that
names the 1-based column, and everything too large with a
:class:`~kerker.errors.DiceLimitError` -- before any die is rolled. Its running time is linear
in the input, which is itself capped by ``Limits.max_length``.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from typing import NoReturn

from kerker.dice.ast import (
    BinOp,
    Call,
    CompareOp,
    Cond,
    Dice,
    Die,
    Explode,
    Expr,
    Group,
    Keep,
    KeepMode,
    Neg,
    Node,
    Num,
    Reroll,
)
from kerker.errors import N_, DiceLimitError, DiceSyntaxError
from kerker.limits import DEFAULT_LIMITS, Limits

_SPACES = frozenset(" \t\r\n\u00a0\u2009\u202f")
_MINUS = frozenset("-\u2212\u2013")  # hyphen-minus, minus sign, en dash (the seeds write "–10")
_TIMES = frozenset("*\u00d7xX\u00b7\u22c5")  # * × x X · ⋅
_DIVIDE = frozenset("/:\u00f7")  # / : ÷
_DIE_LETTERS = frozenset("dDwW")
_DIGITS = frozenset("0123456789")
_FUNCTIONS = ("min", "max")


def _max_die(die: Die) -> int:
    return max(die.faces)


def make_die(kind: str, sides: int, digits: int = 0) -> Die:
    """Build a :class:`Die` of a known kind (faces computed once)."""
    if kind == "percent":
        return Die("percent", 100, tuple(range(1, 101)))
    if kind == "fudge":
        return Die("fudge", 3, (-1, 0, 1))
    if kind == "digits":
        faces: list[int] = [0]
        for _ in range(digits):
            faces = [f * 10 + d for f in faces for d in range(1, 7)]
        return Die("digits", 6**digits, tuple(faces), digits)
    if kind == "true":
        return Die("true", sides, tuple(range(1, sides + 1)))
    return Die("std", sides, tuple(range(1, sides + 1)))


class _Parser:
    __slots__ = ("depth", "limits", "nodes", "pos", "text")

    def __init__(self, text: str, limits: Limits) -> None:
        self.text = text
        self.limits = limits
        self.pos = 0
        self.depth = 0
        self.nodes = 0

    # -- errors ---------------------------------------------------------------------------
    def fail(self, template: str, at: int | None = None, **params: object) -> NoReturn:
        column = (self.pos if at is None else at) + 1
        raise DiceSyntaxError(template, expression=self.text, column=column, **params)

    def limit(self, template: str, at: int, **params: object) -> NoReturn:
        raise DiceLimitError(template, expression=self.text, column=at + 1, **params)

    # -- scanning -------------------------------------------------------------------------
    def skip(self) -> None:
        text, pos = self.text, self.pos
        while pos < len(text) and text[pos] in _SPACES:
            pos += 1
        self.pos = pos

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def enter(self, at: int) -> None:
        """One level deeper; ``at`` is the sign or '(' that opens it (the error's column)."""
        self.depth += 1
        if self.depth > self.limits.max_depth:
            self.limit(
                N_("expression nested deeper than {max} levels"),
                at,
                max=self.limits.max_depth,
            )

    def count_node(self, at: int) -> None:
        self.nodes += 1
        if self.nodes > self.limits.max_terms:
            self.limit(N_("expression has more than {max} terms"), at, max=self.limits.max_terms)

    def number(self) -> tuple[int, int]:
        """Read digits at the cursor (no spaces skipped); returns (value, start)."""
        text, start = self.text, self.pos
        end = start
        while end < len(text) and text[end] in _DIGITS:
            end += 1
        if end == start:
            self.fail(N_("expected a number"))
        if end - start > self.limits.max_digits:
            self.limit(N_("number with more than {max} digits"), start, max=self.limits.max_digits)
        try:
            value = int(text[start:end])
        except ValueError:  # over Python's int-from-text cap (when max_digits allows it)
            self.limit(
                N_("number with more than {max} digits"), start, max=sys.get_int_max_str_digits()
            )
        self.pos = end
        return value, start

    # -- grammar --------------------------------------------------------------------------
    def parse(self) -> Node:
        if not self.text.strip():
            raise DiceSyntaxError(N_("empty dice expression"), expression=self.text, column=1)
        node = self.expr()
        if self.peek():
            self.unexpected()
        return node

    def unexpected(self) -> NoReturn:
        char = self.text[self.pos]
        if char == ")":
            self.fail(N_("unmatched closing parenthesis"))
        if char in _DIGITS or char in _DIE_LETTERS or char == "(":
            self.fail(N_("missing operator before {char!r}"), char=char)
        self.fail(N_("unexpected character {char!r}"), char=char)

    def expr(self) -> Node:
        node = self.term()
        while True:
            char = self.peek()
            if char == "+":
                op: str = "+"
            elif char in _MINUS and char:
                op = "-"
            else:
                return node
            at = self.pos
            self.pos += 1
            self.count_node(at)
            right = self.term()
            node = BinOp(op, char, node, right, (_start(node), _end(right)))  # type: ignore[arg-type]

    def term(self) -> Node:
        node = self.unary()
        while True:
            char = self.peek()
            if char in _TIMES and char:
                op = "*"
            elif char in _DIVIDE and char:
                op = "/"
            else:
                return node
            at = self.pos
            self.pos += 1
            self.count_node(at)
            right = self.unary()
            if op == "/" and _constant(right) == 0:
                self.fail(N_("division by zero"), at=at)
            node = BinOp(op, char, node, right, (_start(node), _end(right)))  # type: ignore[arg-type]

    def unary(self) -> Node:
        char = self.peek()
        if char and (char in _MINUS or char == "+"):
            start = self.pos
            self.pos += 1
            self.enter(start)
            self.count_node(start)
            operand = self.unary()
            self.depth -= 1
            if char == "+":
                return operand
            return Neg(operand, (start, _end(operand)))
        return self.primary()

    def primary(self) -> Node:
        char = self.peek()
        start = self.pos
        if not char:
            self.fail(N_("expression ends too early: a number, die or '(' is missing"))
        self.count_node(start)
        if char == "(":
            group = self.group()
            if self.pos < len(self.text) and self.text[self.pos] in _DIE_LETTERS:
                return self.dice(group, start)
            return group
        if char in _DIGITS:
            value, _ = self.number()
            num = Num(value, (start, self.pos))
            if self.pos < len(self.text) and self.text[self.pos] in _DIE_LETTERS:
                return self.dice(num, start)
            return num
        if char in _DIE_LETTERS and not self.text.startswith(_FUNCTIONS, self.pos):
            return self.dice(None, start)
        for name in _FUNCTIONS:
            if self.text.startswith(name, self.pos):
                return self.call(name, start)
        if char == ")":
            self.fail(N_("a number, die or '(' is missing before ')'"))
        self.unexpected()

    def group(self) -> Group:
        start = self.pos
        self.pos += 1
        self.enter(start)
        inner = self.expr()
        if self.peek() != ")":
            if self.pos >= len(self.text):
                self.fail(N_("missing closing parenthesis for '(' in column {col}"), col=start + 1)
            self.unexpected()
        self.pos += 1
        self.depth -= 1
        return Group(inner, (start, self.pos))

    def call(self, name: str, start: int) -> Call:
        self.pos += len(name)
        if self.peek() != "(":
            self.fail(
                N_("{name} needs its arguments in parentheses, e.g. {name}(d6, 3)"), name=name
            )
        self.pos += 1
        self.enter(self.pos - 1)
        args = [self.expr()]
        while self.peek() == ",":
            self.pos += 1
            args.append(self.expr())
        if self.peek() != ")":
            if self.pos >= len(self.text):
                self.fail(N_("missing closing parenthesis for {name}("), name=name)
            self.unexpected()
        self.pos += 1
        self.depth -= 1
        return Call(name, tuple(args), (start, self.pos))  # type: ignore[arg-type]

    # -- dice -----------------------------------------------------------------------------
    def dice(self, count: Node | None, start: int) -> Dice:
        text = self.text
        letter_at = self.pos
        letter = text[letter_at]
        self.pos += 1
        die = self.die_kind(letter_at)
        implicit = count is None
        if count is None:
            count = Num(1, (letter_at, letter_at))
        if isinstance(count, Num):
            if count.value < 1:
                self.fail(N_("cannot roll {n} dice; roll at least one"), at=start, n=count.value)
            if count.value > self.limits.max_dice_per_term:
                self.limit(
                    N_("{n} dice in one term; the limit is {max}"),
                    start,
                    n=count.value,
                    max=self.limits.max_dice_per_term,
                )
        reroll: Reroll | None = None
        explode: Explode | None = None
        keep: Keep | None = None
        success: Cond | None = None
        while self.pos < len(text):
            char = text[self.pos]
            at = self.pos
            if char in "kK" or (char in "dD" and text[at + 1 : at + 2] in ("h", "l", "H", "L")):
                if keep is not None:
                    self.fail(N_("only one keep or drop per dice term"))
                keep = self.keep(count, die)
            elif char in "rR":
                if reroll is not None:
                    self.fail(N_("only one reroll per dice term"))
                self.pos += 1
                once = text[self.pos : self.pos + 1] in ("o", "O")
                if once:
                    self.pos += 1
                cond = self.cond(default="=", required=True, what="r")
                assert cond is not None
                self.check_cond(die, letter, cond, at, allow_all=once, kind="reroll")
                reroll = Reroll(cond, once)
            elif char == "!":
                if explode is not None:
                    self.fail(N_("only one '!' per dice term"))
                self.pos += 1
                cond = self.cond(default="=", required=False, what="!")
                if cond is None:
                    cond = Cond("=", _max_die(die))
                self.check_cond(die, letter, cond, at, allow_all=False, kind="explode")
                explode = Explode(cond)
            elif char in "<>=":
                if success is not None:
                    self.fail(N_("only one success target per dice term"))
                success = self.cond(default="=", required=True, what="")
            elif char in _DIE_LETTERS:
                self.fail(N_("two dice letters in a row; write e.g. 3d6 + 2d6"))
            else:
                break
        if explode is not None and keep is not None and success is not None:
            self.fail(
                N_("keep/drop, '!' and a success target cannot all be used on one term"),
                at=start,
            )
        node = Dice(count, die, letter, reroll, explode, keep, success, (start, self.pos), implicit)
        return node

    def die_kind(self, letter_at: int) -> Die:
        text = self.text
        pos = self.pos
        char = text[pos : pos + 1]
        if char == "%":
            self.pos += 1
            return make_die("percent", 100)
        if char in ("F", "f"):
            self.pos += 1
            return make_die("fudge", 3)
        if char == "{":
            self.pos += 1
            sides, at = self.number()
            if text[self.pos : self.pos + 1] != "}":
                self.fail(N_("expected '}}' after the number of faces"))
            self.pos += 1
            self.check_sides(sides, at)
            return make_die("true", sides)
        if not char or char not in _DIGITS:
            self.fail(
                N_("the die after {letter!r} needs a number of faces, e.g. d6, d20, d%"),
                at=letter_at,
                letter=text[letter_at],
            )
        sides, at = self.number()
        digits = text[at : self.pos]
        if len(digits) >= 2 and set(digits) == {"6"}:
            if len(digits) > 3:
                self.fail(
                    N_("digit dice have 2 or 3 digits (d66, d666); for a true die write d{{{n}}}"),
                    at=at,
                    n=sides,
                )
            return make_die("digits", 0, len(digits))
        self.check_sides(sides, at)
        return make_die("std", sides)

    def check_sides(self, sides: int, at: int) -> None:
        if sides < 1:
            self.fail(N_("a die needs at least one face, not {n}"), at=at, n=sides)
        if sides > self.limits.max_faces:
            self.limit(
                N_("a die with {n} faces; the limit is {max}"),
                at,
                n=sides,
                max=self.limits.max_faces,
            )

    def keep(self, count: Node, die: Die) -> Keep:
        text = self.text
        at = self.pos
        first = text[at].lower()
        self.pos += 1
        second = text[self.pos : self.pos + 1].lower()
        if first == "k" and second not in ("h", "l"):
            mode: KeepMode = "kh"
        else:
            mode = first + second  # type: ignore[assignment]
            self.pos += 1
        n = 1
        if self.pos < len(text) and text[self.pos] in _DIGITS:
            n, _ = self.number()
        if n < 1:
            self.fail(N_("{mode} needs at least 1 die, not {n}"), at=at, mode=mode, n=n)
        if isinstance(count, Num):
            if mode in ("kh", "kl") and n > count.value:
                self.fail(N_("cannot keep {n} dice out of {count}"), at=at, n=n, count=count.value)
            if mode in ("dh", "dl") and n >= count.value:
                self.fail(
                    N_("dropping {n} dice out of {count} leaves none"),
                    at=at,
                    n=n,
                    count=count.value,
                )
        return Keep(mode, n)

    def cond(self, *, default: CompareOp, required: bool, what: str) -> Cond | None:
        text = self.text
        pos = self.pos
        op: CompareOp = default
        if text.startswith(">=", pos):
            op, pos = ">=", pos + 2
        elif text.startswith("<=", pos):
            op, pos = "<=", pos + 2
        elif text[pos : pos + 1] in ("<", ">", "="):
            op, pos = text[pos], pos + 1  # type: ignore[assignment]
        elif (
            required
            and text[pos : pos + 1] in _MINUS
            and text[pos + 1 : pos + 2] in _DIGITS
            and text[pos + 1 : pos + 2]
        ):
            pass  # r-1: a negative face without a comparison (not after "!": W6!-1 subtracts)
        elif text[pos : pos + 1] not in _DIGITS or not text[pos : pos + 1]:
            if required:
                if what:
                    self.fail(
                        N_("{what} needs a face to compare with, e.g. {what}1 or {what}<3"),
                        what=what,
                    )
                self.fail(N_("a comparison needs a number, e.g. >=5"))
            return None
        negative = text[pos : pos + 1] in _MINUS and text[pos : pos + 1] != ""
        if negative:
            pos += 1  # a negative face, e.g. WFr-1 or 4WF=-1
        self.pos = pos
        if self.pos >= len(text) or text[self.pos] not in _DIGITS:
            self.fail(N_("a comparison needs a number, e.g. >=5"))
        value, _ = self.number()
        return Cond(op, -value if negative else value)

    def check_cond(
        self, die: Die, letter: str, cond: Cond, at: int, *, allow_all: bool, kind: str
    ) -> None:
        hits = sum(1 for face in die.faces if cond.test(face))
        if hits == 0:
            if kind == "reroll":
                self.fail(
                    N_("reroll condition {cond} matches no face of {die}"),
                    at=at,
                    cond=cond.text(),
                    die=die.text(letter),
                )
            self.fail(
                N_("explode condition {cond} matches no face of {die}"),
                at=at,
                cond=cond.text(),
                die=die.text(letter),
            )
        if hits == len(die.faces) and not allow_all:
            if kind == "reroll":
                self.fail(
                    N_("reroll condition {cond} matches every face of {die}; it would never stop"),
                    at=at,
                    cond=cond.text(),
                    die=die.text(letter),
                )
            self.fail(
                N_("explode condition {cond} matches every face of {die}; it would never stop"),
                at=at,
                cond=cond.text(),
                die=die.text(letter),
            )


def check_term_limits(node: Dice, limits: Limits, source: str) -> None:
    """Refuse a dice term over ``limits`` (for an Expr parsed under other limits)."""
    column = node.span[0] + 1
    if isinstance(node.count, Num) and node.count.value > limits.max_dice_per_term:
        raise DiceLimitError(
            N_("{n} dice in one term; the limit is {max}"),
            expression=source,
            column=column,
            n=node.count.value,
            max=limits.max_dice_per_term,
        )
    if len(node.die.faces) > limits.max_faces:
        raise DiceLimitError(
            N_("a die with {n} faces; the limit is {max}"),
            expression=source,
            column=column,
            n=len(node.die.faces),
            max=limits.max_faces,
        )


def _start(node: Node) -> int:
    return node.span[0]


def _end(node: Node) -> int:
    return node.span[1]


def _constant(node: Node) -> int | None:
    """The value of a dice-free subtree, or None (used to refuse ``x/0`` while parsing)."""
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Group):
        return _constant(node.inner)
    if isinstance(node, Neg):
        value = _constant(node.operand)
        return None if value is None else -value
    if isinstance(node, BinOp):
        left, right = _constant(node.left), _constant(node.right)
        if left is None or right is None:
            return None
        if node.op == "+":
            return left + right
        if node.op == "-":
            return left - right
        if node.op == "*":
            return left * right
        return None if right == 0 else left // right
    if isinstance(node, Call):
        values = [_constant(arg) for arg in node.args]
        if any(v is None for v in values):
            return None
        known = [v for v in values if v is not None]
        return min(known) if node.name == "min" else max(known)
    return None


def parse(text: str, limits: Limits = DEFAULT_LIMITS) -> Expr:
    """Parse a dice expression such as ``3W6+2``, ``4d6kh3`` or ``2W10 × 100``.

    Returns a frozen :class:`Expr`. Raises :class:`DiceSyntaxError` (with the column) for
    text outside the language and :class:`DiceLimitError` for input over ``limits`` -- never
    any other exception, whatever the input.
    """
    if not isinstance(text, str):
        raise DiceSyntaxError(N_("a dice expression must be text"), expression=repr(text))
    if len(text) > limits.max_length:
        raise DiceLimitError(
            N_("expression longer than {max} characters"),
            expression=text[: limits.max_length] + "…",
            column=limits.max_length + 1,
            max=limits.max_length,
        )
    if limits is DEFAULT_LIMITS:
        return _parse_cached(text)
    return Expr(_Parser(text, limits).parse(), text)


@lru_cache(maxsize=512)
def _parse_cached(text: str) -> Expr:
    return Expr(_Parser(text, DEFAULT_LIMITS).parse(), text)
