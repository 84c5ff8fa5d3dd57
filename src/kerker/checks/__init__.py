"""HPR roll-under checks (seed 003, "Würfelei"): roll, confirm, read difficulty words, odds.

>>> import random
>>> result = check(12, parse_difficulty("sehr schwer"), random.Random(1))
>>> result.chance, result.outcome in ROLLED_OUTCOMES
(2, True)
>>> sum(odds(12).values()), success_chance(12)
(Fraction(1, 1), Fraction(3, 5))

The numbers and words come from ``rules/hpr/checks.yaml`` (see docs/hpr.md).
"""

from kerker.checks.data import CheckRules, LuckLevel, Modifier, load_rules, read_rules
from kerker.checks.hpr import (
    ALL_OUTCOMES,
    CHART_VALUES,
    DEFAULT_CHECK_LIMITS,
    ROLLED_OUTCOMES,
    ChartRow,
    CheckLimits,
    CheckResult,
    DieRoll,
    Outcome,
    chance,
    chart,
    check,
    luck_check,
    luck_level,
    needs_confirmation,
    odds,
    penalty,
    resolve,
    success_chance,
)
from kerker.checks.vocabulary import modifier_label, parse_difficulty, parse_luck

__all__ = [
    "ALL_OUTCOMES",
    "CHART_VALUES",
    "DEFAULT_CHECK_LIMITS",
    "ROLLED_OUTCOMES",
    "ChartRow",
    "CheckLimits",
    "CheckResult",
    "CheckRules",
    "DieRoll",
    "LuckLevel",
    "Modifier",
    "Outcome",
    "chance",
    "chart",
    "check",
    "load_rules",
    "luck_check",
    "luck_level",
    "modifier_label",
    "needs_confirmation",
    "odds",
    "parse_difficulty",
    "parse_luck",
    "penalty",
    "read_rules",
    "resolve",
    "success_chance",
]
