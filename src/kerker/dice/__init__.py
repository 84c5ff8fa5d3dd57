"""The dice language: parse once, roll with an injected RNG, compute exact odds.

>>> import random
>>> roll("4W6kh3", random.Random(7)).explain()
'4W6kh3 -> [3, 6, 3, (2)] = 12'
>>> odds("2W6").probability(7)
Fraction(1, 6)
"""

from kerker.dice.ast import Expr
from kerker.dice.odds import Distribution, odds
from kerker.dice.parser import parse
from kerker.dice.records import Roll
from kerker.dice.roller import roll

__all__ = ["Distribution", "Expr", "Roll", "odds", "parse", "roll"]
