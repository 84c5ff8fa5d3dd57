"""The dice language: parse once, roll with an injected RNG, compute exact odds.

>>> import random
>>> roll("4W6kh3", random.Random(7)).explain()
'4W6kh3 -> [3, (2), 4, 6] = 13'
>>> odds("2W6").probability(7)
Fraction(1, 6)

``odds`` and ``Distribution`` are imported on first use (``fractions`` is slow to import and
``kerker roll`` does not need it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kerker.dice.ast import Expr
from kerker.dice.parser import parse
from kerker.dice.records import Roll
from kerker.dice.roller import roll

if TYPE_CHECKING:
    from kerker.dice.exact import Distribution, odds

__all__ = ["Distribution", "Expr", "Roll", "odds", "parse", "roll"]


def __getattr__(name: str) -> Any:
    if name in ("odds", "Distribution"):
        import importlib

        module = importlib.import_module("kerker.dice.exact")
        globals()["odds"] = module.odds
        globals()["Distribution"] = module.Distribution
        return globals()[name]
    raise AttributeError(name)
