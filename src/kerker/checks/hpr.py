"""HPR roll-under checks (seed 003, "Würfelei"): the roll, the confirmation roll, exact odds.

A check is rolled against the *chance* = value + modifier - retry malus. The check die
(``W20`` in the data) succeeds when it shows at most the chance. A 1 or a 20 calls for a
confirmation roll against the same chance, which gives five outcomes (JSON keys):
``super`` (1, then 1), ``critical`` (1, then confirmed), ``success``, ``failure`` and
``fumble`` (20, then the confirmation fails). A value of 0 is ``impossible``: no roll.

The rules kerker settled where the text is silent (see docs/hpr.md, docs/rules-notes.md):

- in a confirmation roll a 1 always holds and a 20 always fails;
- first 1: confirmation 1 -> super; confirmation within the chance -> critical; else the
  first roll counts plainly (a success when the chance is at least 1);
- first 20: confirmation 20 -> fumble; confirmation within the chance -> failure, but a
  success when the chance is 20 or more; else fumble;
- a chance of 0 or less is still rolled; only a double 1 (super) succeeds.

Random numbers: the RNG is always a parameter and is consumed in this order, each die
through :func:`kerker.dice.roll`: the check die; the confirmation die, only after a 1 or a
20; the "where did it go wrong" die, only when asked for and the check failed. A value of 0
consumes nothing.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from kerker.checks.data import LANGS, CheckRules, LuckLevel, load_rules
from kerker.checks.vocabulary import parse_luck
from kerker.dice import odds as dice_odds
from kerker.dice import parse, roll
from kerker.errors import N_, CheckError, Word
from kerker.i18n import dice_text


class Outcome(StrEnum):
    """The result of a check; the values are the stable JSON keys."""

    SUPER = "super"
    CRITICAL = "critical"
    SUCCESS = "success"
    FAILURE = "failure"
    FUMBLE = "fumble"
    IMPOSSIBLE = "impossible"

    @property
    def succeeded(self) -> bool:
        """Whether the character did what they tried (super, critical, success)."""
        return self in (Outcome.SUPER, Outcome.CRITICAL, Outcome.SUCCESS)


ROLLED_OUTCOMES: tuple[Outcome, ...] = (
    Outcome.SUPER,
    Outcome.CRITICAL,
    Outcome.SUCCESS,
    Outcome.FAILURE,
    Outcome.FUMBLE,
)
"""The five outcomes a roll can have, best first."""

ALL_OUTCOMES: tuple[Outcome, ...] = (*ROLLED_OUTCOMES, Outcome.IMPOSSIBLE)

CHART_VALUES: range = range(1, 26)
"""Values shown by :func:`chart` unless told otherwise (a display choice, not a rule)."""


@dataclass(frozen=True, slots=True)
class CheckLimits:
    """Sanity caps on what a check accepts; the rules themselves set no upper bound."""

    max_value: int = 100
    max_modifier: int = 100
    max_attempt: int = 20


DEFAULT_CHECK_LIMITS = CheckLimits()


@dataclass(frozen=True, slots=True)
class DieRoll:
    """One die thrown for a check: ``role`` is ``check``, ``confirmation`` or ``where``."""

    role: str
    expression: str
    total: int
    explain: str

    def to_json(self) -> dict[str, Any]:
        """``{"role", "expression", "total", "explain"}``."""
        return {
            "role": self.role,
            "expression": self.expression,
            "total": self.total,
            "explain": self.explain,
        }


@dataclass(frozen=True, slots=True)
class CheckResult:
    """A finished check with every die that decided it.

    ``rolls`` holds the check die and, after a 1 or a 20, the confirmation die (empty for
    ``impossible``); ``where`` the "where did it go wrong" die when one was rolled;
    ``notes`` keys of GM notes in the data (``critical_missed``, ``fumble_averted``,
    ``fumble_averted_master``, ``hopeless``). ``luck`` is the luck level's key for a luck
    roll. A ``secret`` result shows the player only a neutral phrase (:meth:`player_line`).
    """

    value: int
    modifier: int
    attempt: int
    penalty: int
    chance: int
    outcome: Outcome
    rolls: tuple[DieRoll, ...]
    where: DieRoll | None = None
    secret: bool = False
    luck: str | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def success(self) -> bool:
        """Whether the check succeeded (super, critical or success)."""
        return self.outcome.succeeded

    def to_json(self) -> dict[str, Any]:
        """Stable English keys: value, modifier, attempt, penalty, chance, luck, rolls,
        outcome, success, where, secret, notes."""
        return {
            "value": self.value,
            "modifier": self.modifier,
            "attempt": self.attempt,
            "penalty": self.penalty,
            "chance": self.chance,
            "luck": self.luck,
            "rolls": [r.to_json() for r in self.rolls],
            "outcome": self.outcome.value,
            "success": self.success,
            "where": None if self.where is None else self.where.to_json(),
            "secret": self.secret,
            "notes": list(self.notes),
        }

    def outcome_name(self, lang: str) -> str:
        """The outcome's name in ``lang`` ("Kritischer Erfolg", "Successo critico"...)."""
        return load_rules().outcomes[self.outcome.value].name[_lang(lang)]

    def hint(self, lang: str) -> str:
        """What the rules tell the GM to do with this outcome, in ``lang``."""
        return load_rules().outcomes[self.outcome.value].hint[_lang(lang)]

    def note_lines(self, lang: str) -> tuple[str, ...]:
        """The GM notes on special paths through the confirmation rules, in ``lang``."""
        notes = load_rules().notes
        return tuple(notes[key][_lang(lang)] for key in self.notes)

    def roll_line(self, lang: str) -> str:
        """One sentence with the outcome, the dice and the chance, in ``lang``."""
        texts = load_rules().texts[_lang(lang)]
        name = self.outcome_name(lang)
        if not self.rolls:
            return texts["impossible_line"].format(outcome=name)
        if len(self.rolls) == 1:
            return texts["roll_line"].format(
                outcome=name, roll=dice_text(self.rolls[0].explain, lang), chance=self.chance
            )
        return texts["confirmed_line"].format(
            outcome=name,
            roll=dice_text(self.rolls[0].explain, lang),
            confirmation=dice_text(self.rolls[1].explain, lang),
            chance=self.chance,
        )

    def where_line(self, lang: str) -> str | None:
        """The "where did it go wrong" sentence, when that die was rolled."""
        if self.where is None:
            return None
        return (
            load_rules()
            .texts[_lang(lang)]["where_line"]
            .format(roll=dice_text(self.where.explain, lang))
        )

    def gm_lines(self, lang: str) -> tuple[str, ...]:
        """Everything the GM reads: roll line, hint, notes, where; led by a secret marker."""
        texts = load_rules().texts[_lang(lang)]
        lines = [texts["secret_gm"]] if self.secret else []
        lines += [self.roll_line(lang), self.hint(lang), *self.note_lines(lang)]
        where = self.where_line(lang)
        if where is not None:
            lines.append(where)
        return tuple(lines)

    def gm_line(self, lang: str) -> str:
        """:meth:`gm_lines` joined into one line."""
        return " ".join(self.gm_lines(lang))

    def player_line(self, lang: str) -> str:
        """What the player may see: the roll line, or for a secret roll only a neutral
        phrase (the GM then tells them what their character perceives)."""
        if self.secret:
            return load_rules().texts[_lang(lang)]["secret_player"]
        return self.roll_line(lang)


@dataclass(frozen=True, slots=True)
class ChartRow:
    """One line of :func:`chart`: a value, its chance and the exact outcome odds."""

    value: int
    chance: int
    odds: Mapping[str, Fraction]


def _lang(lang: str) -> str:
    if lang not in LANGS:
        raise CheckError(
            N_("unknown language {lang!r}; choose one of {choices}"),
            lang=lang,
            choices=", ".join(LANGS),
        )
    return lang


def _whole(name: str, value: object, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise CheckError(
            N_("the {name} must be a whole number, not {value!r}"), name=name, value=value
        )
    if not low <= value <= high:
        raise CheckError(
            N_("the {name} must be between {low} and {high}, not {value}"),
            name=name,
            low=low,
            high=high,
            value=value,
        )
    return value


def penalty(attempt: int, *, limits: CheckLimits = DEFAULT_CHECK_LIMITS) -> int:
    """The retry malus of ``attempt`` (1 = first try): 5 more per further attempt.

    Attempt 1 has none, attempt 2 has 5, attempt 3 has 10 (step from the data). Refuses
    attempts outside 1..``limits.max_attempt``.
    """
    attempt = _whole(Word(N_("attempt")), attempt, 1, limits.max_attempt)
    return (attempt - 1) * load_rules().retry_penalty


def chance(
    value: int, modifier: int = 0, *, attempt: int = 1, limits: CheckLimits = DEFAULT_CHECK_LIMITS
) -> int:
    """The number the check die must not exceed: value + modifier - retry malus.

    May be 0 or negative (only a double 1 succeeds then) or above 20 (only a double 20
    fails). Refuses values outside 0..``max_value``, modifiers outside
    -``max_modifier``..``max_modifier`` and attempts outside 1..``max_attempt``.
    """
    value = _whole(Word(N_("value")), value, 0, limits.max_value)
    modifier = _whole(Word(N_("modifier")), modifier, -limits.max_modifier, limits.max_modifier)
    return value + modifier - penalty(attempt, limits=limits)


def needs_confirmation(first: int, rules: CheckRules | None = None) -> bool:
    """Whether a first roll calls for a confirmation roll (a 1 or a 20)."""
    rules = rules or load_rules()
    return first in (rules.best, rules.worst)


def _holds(confirmation: int, chance: int, rules: CheckRules) -> bool:
    """A confirmation roll holds on a 1, fails on a 20, else holds within the chance."""
    if confirmation == rules.best:
        return True
    if confirmation == rules.worst:
        return False
    return confirmation <= chance


def resolve(
    first: int, confirmation: int | None, chance: int, rules: CheckRules | None = None
) -> Outcome:
    """The outcome of a first roll and (after a 1 or 20) its confirmation roll.

    Pure: no dice are thrown. Refuses a missing confirmation after a 1 or a 20 and a
    confirmation after any other roll.
    """
    rules = rules or load_rules()
    if needs_confirmation(first, rules) != (confirmation is not None):
        raise CheckError(
            N_(
                "a confirmation roll belongs after a {best} or a {worst} "
                "and only there (first roll {first})"
            ),
            best=rules.best,
            worst=rules.worst,
            first=first,
        )
    plain = Outcome.SUCCESS if first <= chance else Outcome.FAILURE
    if confirmation is None:
        return plain
    if first == rules.best:
        if confirmation == rules.best:
            return Outcome.SUPER
        return Outcome.CRITICAL if _holds(confirmation, chance, rules) else plain
    # first == rules.worst
    if confirmation == rules.worst:
        return Outcome.FUMBLE
    return plain if _holds(confirmation, chance, rules) else Outcome.FUMBLE


def _notes(first: int, outcome: Outcome, chance: int, rules: CheckRules) -> tuple[str, ...]:
    if chance <= 0 and outcome is not Outcome.SUPER:
        if first == rules.worst and outcome is Outcome.FAILURE:
            return ("fumble_averted", "hopeless")
        return ("hopeless",)
    if first == rules.best and outcome in (Outcome.SUCCESS, Outcome.FAILURE):
        return ("critical_missed",)
    if first == rules.worst and outcome is Outcome.FAILURE:
        return ("fumble_averted",)
    if first == rules.worst and outcome is Outcome.SUCCESS:
        return ("fumble_averted_master",)
    return ()


def _throw(role: str, expression: str, rng: random.Random) -> DieRoll:
    thrown = roll(expression, rng)
    return DieRoll(role=role, expression=expression, total=thrown.total, explain=thrown.explain())


def check(
    value: int,
    modifier: int,
    rng: random.Random,
    *,
    attempt: int = 1,
    where: str | None = None,
    secret: bool = False,
    luck: str | None = None,
    limits: CheckLimits = DEFAULT_CHECK_LIMITS,
) -> CheckResult:
    """Roll an HPR check of ``value`` with ``modifier`` on try number ``attempt``.

    ``where``: a dice expression ("W100", "W6" for a 6 m tree) rolled after a failure or a
    fumble to tell where it went wrong; it is parsed first, so a bad expression fails even
    when the check succeeds. ``secret`` marks a roll the GM makes for the player. ``luck``
    only labels the result (see :func:`luck_check`). A value of 0 gives ``impossible``
    without touching ``rng``. Refuses out-of-range input with :class:`CheckError` and bad
    dice with :class:`~kerker.errors.DiceError`.
    """
    rules = load_rules()
    target = chance(value, modifier, attempt=attempt, limits=limits)
    malus = penalty(attempt, limits=limits)
    if where is not None:
        parse(where)
    common: dict[str, Any] = {
        "value": value,
        "modifier": modifier,
        "attempt": attempt,
        "penalty": malus,
        "chance": target,
        "secret": secret,
        "luck": luck,
    }
    if value == rules.impossible_value:
        return CheckResult(outcome=Outcome.IMPOSSIBLE, rolls=(), **common)
    first = _throw("check", rules.die, rng)
    rolls = [first]
    confirmation: int | None = None
    if needs_confirmation(first.total, rules):
        second = _throw("confirmation", rules.die, rng)
        rolls.append(second)
        confirmation = second.total
    outcome = resolve(first.total, confirmation, target, rules)
    where_roll = None
    if where is not None and outcome in (Outcome.FAILURE, Outcome.FUMBLE):
        where_roll = _throw("where", where, rng)
    return CheckResult(
        outcome=outcome,
        rolls=tuple(rolls),
        where=where_roll,
        notes=_notes(first.total, outcome, target, rules),
        **common,
    )


def luck_level(level: str | LuckLevel) -> LuckLevel:
    """A luck level from its name in any language ("glueck", "viel", "sehr-viel"...)."""
    return level if isinstance(level, LuckLevel) else parse_luck(level)


def luck_check(
    level: str | LuckLevel,
    rng: random.Random,
    *,
    modifier: int = 0,
    attempt: int = 1,
    where: str | None = None,
    secret: bool = False,
    limits: CheckLimits = DEFAULT_CHECK_LIMITS,
) -> CheckResult:
    """A luck roll ("Glückswurf"): a check against 13, 8 or 3 (from the data).

    Same confirmation rules as any check; no modifier unless given. Refuses unknown
    levels with :class:`CheckError`.
    """
    lucky = luck_level(level)
    return check(
        lucky.value,
        modifier,
        rng,
        attempt=attempt,
        where=where,
        secret=secret,
        luck=lucky.key,
        limits=limits,
    )


@lru_cache(maxsize=256)
def _odds_for_chance(target: int) -> Mapping[str, Fraction]:
    rules = load_rules()
    die = dice_odds(rules.die)
    counts = dict.fromkeys(ALL_OUTCOMES, 0)
    for first, c1 in die.counts.items():
        if needs_confirmation(first, rules):
            for second, c2 in die.counts.items():
                counts[resolve(first, second, target, rules)] += c1 * c2
        else:
            counts[resolve(first, None, target, rules)] += c1 * die.total
    whole = die.total * die.total
    return MappingProxyType({o.value: Fraction(counts[o], whole) for o in ALL_OUTCOMES})


def odds(
    value: int, modifier: int = 0, *, attempt: int = 1, limits: CheckLimits = DEFAULT_CHECK_LIMITS
) -> dict[str, Fraction]:
    """Exact probabilities of every outcome, keyed ``super, critical, success, failure,
    fumble, impossible`` (in that order; they sum to 1).

    Enumerates every pair of first roll and confirmation roll of the check die with
    integer counts. ``impossible`` is 1 for a value of 0 and 0 otherwise. Refuses the same
    input as :func:`chance`.
    """
    target = chance(value, modifier, attempt=attempt, limits=limits)
    if value == load_rules().impossible_value:
        return {o.value: Fraction(int(o is Outcome.IMPOSSIBLE)) for o in ALL_OUTCOMES}
    return dict(_odds_for_chance(target))


def success_chance(value: int, modifier: int = 0, *, attempt: int = 1) -> Fraction:
    """The exact probability that the check succeeds (super + critical + success)."""
    table = odds(value, modifier, attempt=attempt)
    return sum((table[o.value] for o in ROLLED_OUTCOMES if o.succeeded), Fraction(0))


def chart(
    modifier: int = 0,
    *,
    attempt: int = 1,
    values: Iterable[int] = CHART_VALUES,
    limits: CheckLimits = DEFAULT_CHECK_LIMITS,
) -> tuple[ChartRow, ...]:
    """The odds of every value in ``values`` (default 1..25) at one modifier and attempt."""
    return tuple(
        ChartRow(
            value=v,
            chance=chance(v, modifier, attempt=attempt, limits=limits),
            odds=MappingProxyType(odds(v, modifier, attempt=attempt, limits=limits)),
        )
        for v in values
    )
