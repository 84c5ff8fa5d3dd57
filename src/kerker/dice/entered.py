"""Real dice: the faces a player rolled by hand, made into a :class:`~kerker.dice.Roll`.

A plain expression (``NdX`` terms of standard or percent dice, numbers, ``+`` and ``-``)
can be entered face by face: :func:`plain_sides` lists the sides of each die in the order
the roller throws them, :func:`check_faces` refuses a face a die cannot show in one line,
:func:`check_entered` checks a whole entry (a plain expression, as many faces as dice, each
one its die can show), :class:`FacesRandom` answers the roller's draws with the faces, and
:func:`roll_faces` gives the :class:`Roll` those faces make (the same record tree a rolled
throw has, so explanations and totals read alike). Rerolls, explosions, keep/drop and
custom dice (W66) are not entered by hand: kerker rolls those.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import NoReturn

from kerker.dice.ast import BinOp, Dice, Expr, Group, Neg, Node, Num
from kerker.dice.parser import parse
from kerker.dice.records import Roll
from kerker.dice.roller import roll
from kerker.errors import N_, DiceError
from kerker.limits import DEFAULT_LIMITS, Limits


class EnteredDiceError(DiceError):
    """Faces that do not fit the dice they were entered for (one line)."""

    code = "entered"


def _sides(node: Node, out: list[int]) -> bool:
    if isinstance(node, Num):
        return True
    if isinstance(node, Group):
        return _sides(node.inner, out)
    if isinstance(node, Neg):
        return _sides(node.operand, out)
    if isinstance(node, BinOp):
        return node.op in ("+", "-") and _sides(node.left, out) and _sides(node.right, out)
    if isinstance(node, Dice):
        if (
            node.die.kind not in ("std", "percent")
            or node.reroll
            or node.explode
            or node.keep
            or node.success
            or not isinstance(node.count, Num)
        ):
            return False
        out.extend([len(node.die.faces)] * node.count.value)
        return True
    return False


def plain_sides(expr: Expr | str, limits: Limits = DEFAULT_LIMITS) -> list[int] | None:
    """The sides of each die of a plain expression, in throwing order (``2W6+W4`` ->
    ``[6, 6, 4]``); None for one whose dice cannot be entered by hand (or that has none)."""
    parsed = parse(expr, limits) if isinstance(expr, str) else expr
    out: list[int] = []
    if not _sides(parsed.root, out) or not out:
        return None
    return out


def check_faces(sides: Sequence[int], faces: Sequence[int]) -> None:
    """Refuse, in one line, a face its die cannot show (a d20 shows 1 to 20)."""
    for face, n in zip(faces, sides, strict=False):
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= n:
            raise EnteredDiceError(N_("a d{sides} cannot show {value}"), sides=n, value=face)


def check_entered(
    expr: Expr | str, faces: Sequence[int], limits: Limits = DEFAULT_LIMITS
) -> list[int]:
    """The sides of the dice of a plain ``expr`` (as :func:`plain_sides`), once ``faces``
    fit them. Refuses in one line (:class:`EnteredDiceError`) an expression whose dice
    cannot be entered by hand, a number of faces other than the number of dice, and a face
    its die cannot show (checked in that order)."""
    parsed = parse(expr, limits) if isinstance(expr, str) else expr
    sides = plain_sides(parsed, limits)
    if sides is None:
        raise EnteredDiceError(
            N_(
                "{expr}: dice can be entered only for plain NdX expressions "
                "(with + and -); let kerker roll this one"
            ),
            expr=parsed.source,
        )
    if len(faces) != len(sides):
        raise EnteredDiceError(
            N_("{expr} needs {n} dice, {m} entered"), expr=parsed.source, n=len(sides), m=len(faces)
        )
    check_faces(sides, faces)
    return sides


class FacesRandom(random.Random):
    """A stand-in RNG that answers the roller's draws with entered faces, in order.

    The roller draws a face of an n-sided die as ``getrandbits(k) + 1`` (rejection
    sampling), so answering ``face - 1`` gives exactly that face; check the faces against
    the dice first (:func:`check_entered`). When the faces run out the draws come from
    ``then`` when given, else :meth:`exhausted` refuses in one line.
    """

    def __init__(self, faces: Sequence[int], then: random.Random | None = None) -> None:
        super().__init__(0)
        self.faces = list(faces)
        self.used = 0
        self.then = then
        """Where the dice after the entered ones come from (None: nowhere, an error)."""

    def getrandbits(self, k: int, /) -> int:
        """The next entered face minus one (then ``then``'s bits, if given)."""
        if self.used >= len(self.faces):
            if self.then is not None:
                return self.then.getrandbits(k)
            self.exhausted()
        face = self.faces[self.used]
        self.used += 1
        return face - 1

    def exhausted(self) -> NoReturn:
        """Raise the one-line error of a roll that needs more dice than were entered."""
        raise EnteredDiceError(
            N_("the roll needs more dice than the {n} entered"), n=len(self.faces)
        )


def roll_faces(expr: Expr | str, faces: Sequence[int], limits: Limits = DEFAULT_LIMITS) -> Roll:
    """The roll of a plain ``expr`` whose dice showed ``faces`` (checked: as many faces as
    dice, each one its die can show). Refuses other expressions in one line."""
    parsed = parse(expr, limits) if isinstance(expr, str) else expr
    check_entered(parsed, faces, limits)
    return roll(parsed, FacesRandom(faces), limits)
