"""Rolling tables: a table id, a context and an injected RNG -> a result with its full log.

Every die goes through :func:`kerker.dice.roll`, so each result keeps the dice that made it.
Follow-ups, sub-dice, amounts, percentage checks and repetitions are taken from the data.
The walk is capped (depth, number of rolls, rerolls, repetitions): any table -- even a
user's table that refers to itself -- finishes.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from kerker.dice import Roll, parse, roll
from kerker.dice.ast import Expr
from kerker.dice.entered import EnteredDiceError, check_faces, plain_sides, roll_faces
from kerker.dice.explain import explain
from kerker.errors import N_, KerkerError
from kerker.limits import DEFAULT_LIMITS, Limits
from kerker.tables.expr import evaluate, fill
from kerker.tables.model import (
    AgainFx,
    AmountFx,
    ChanceFx,
    Effect,
    NoteFx,
    RollFx,
    Row,
    Table,
    TextMap,
    pick_text,
)
from kerker.tables.registry import Registry, TableError

MAX_DEPTH = 12
MAX_STEPS = 2_000
MAX_TIMES = 100
CHANCE_DIE = "W%"


# -- real dice: picks a player rolled by hand ------------------------------------------------


class EnteredPick(NamedTuple):
    """One table pick of a walk with entered rolls: the table, its dice, the faces and the
    total, and whether the faces were entered (False: rolled by kerker)."""

    table: str
    dice: str
    faces: tuple[int, ...]
    total: int
    entered: bool


Ask = Callable[[Table, str, int, int], Sequence[int]]
"""``ask(table, dice, count, number)``: the faces of the ``number``-th pick (1-based), a
``dice`` expression of ``count`` dice on ``table``, asked of a player."""


class MoreDiceNeeded(KerkerError):
    """Entered rolls ran out: names the next pick that needs dice (its number, dice and
    table). ``titles`` holds the table's title in each language; :meth:`in_language`
    gives the same error with the title in one."""

    code = "dice_needed"

    def __init__(self, table: Table, dice: str, number: int, entered: int, lang: str = "en"):
        self.table_id = table.id
        self.titles = dict(table.title or {})
        self.dice = dice
        self.number = number
        self.entered = entered
        self._table = table
        super().__init__(
            N_(
                "roll {number} is {dice} for {title}: enter it too ({entered} entered so "
                "far), or let kerker roll the rest"
            ),
            number=number,
            dice=dice,
            title=str(pick_text(table.title, lang) or table.id),
            entered=entered,
        )

    def in_language(self, lang: str) -> MoreDiceNeeded:
        """The same error naming the table by its title in ``lang``."""
        return MoreDiceNeeded(self._table, self.dice, self.number, self.entered, lang)

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        data["needs"] = {
            "number": self.number,
            "dice": self.dice,
            "table": self.table_id,
            "title": self.titles,
        }
        return data


class EnteredRolls:
    """The dice a player rolled by hand for the table picks of one or more walks, in order.

    Each pick of a table with its own plain dice (``W20``, ``2W6``; not weighted tables,
    not dice with rerolls or explosions) takes as many of ``values`` as it has dice; the
    RNG passed in is still drawn from as if kerker rolled (so entering what kerker would
    have rolled gives the same result, and what follows is rolled alike). When ``values``
    run out: ``ask`` (when given) is asked for the faces and they are added to ``values``;
    else with ``rest`` kerker rolls the remaining picks; else :class:`MoreDiceNeeded`.
    ``log`` records every pick seen (entered or rolled by kerker). A face its die cannot
    show is refused (:class:`~kerker.dice.entered.EnteredDiceError`, one line).
    """

    def __init__(
        self, values: Sequence[int], *, rest: bool = False, ask: Ask | None = None
    ) -> None:
        self.values = [int(v) for v in values]
        self.rest = rest
        self.ask = ask
        self.used = 0
        self.log: list[EnteredPick] = []

    def take(self, table: Table, expression: str, expr: Expr, rolled: Roll, limits: Limits) -> Roll:
        """The roll of this pick: the next entered faces, or ``rolled``."""
        sides = plain_sides(expr, limits)
        if sides is None:
            self.log.append(EnteredPick(table.id, expression, (), rolled.total, False))
            return rolled
        n = len(sides)
        number = sum(1 for p in self.log if p.entered) + 1
        if self.used + n > len(self.values):
            if self.ask is not None:
                given = [int(v) for v in self.ask(table, expression, n, number)]
                if len(given) != n:
                    raise EnteredDiceError(
                        N_("{expr} needs {n} dice, {m} entered"),
                        expr=expression,
                        n=n,
                        m=len(given),
                    )
                check_faces(sides, given)
                self.values[self.used :] = given
            elif self.rest:
                self.log.append(EnteredPick(table.id, expression, (), rolled.total, False))
                return rolled
            else:
                raise MoreDiceNeeded(table, expression, number, self.used)
        faces = self.values[self.used : self.used + n]
        self.used += n
        result = roll_faces(expr, faces, limits)
        self.log.append(EnteredPick(table.id, expression, tuple(faces), result.total, True))
        return result

    def left(self) -> int:
        """Entered values no pick took."""
        return len(self.values) - self.used


_ENTERED: ContextVar[EnteredRolls | None] = ContextVar("kerker_entered_rolls", default=None)


@contextmanager
def entering(rolls: EnteredRolls) -> Iterator[EnteredRolls]:
    """Within this block every table walk (:func:`roll_table`, :func:`roll_table_picks`,
    also those a dungeon procedure makes) takes its picks from ``rolls`` (a context
    variable: front ends reach the procedure's rolls without another parameter through
    every layer; the RNG is still passed in and drawn from)."""
    token = _ENTERED.set(rolls)
    try:
        yield rolls
    finally:
        _ENTERED.reset(token)


# Results are plain slotted dataclasses, not frozen ones: a frozen dataclass sets every field
# through object.__setattr__ (~1.6 us for RowPick, ~0.3 us this way) and a level of a dungeon
# makes hundreds. They are never changed after they are made.


@dataclass(slots=True)
class AmountResult:
    """An amount rolled: ``expression`` after filling in the context, and its roll."""

    name: str
    expression: str
    roll: Roll
    unit: TextMap | None
    in_play: bool = False
    """Rolled here, but meant for when the party meets it (``AmountFx.in_play``)."""

    @property
    def value(self) -> int:
        """The amount."""
        return self.roll.total


@dataclass(slots=True)
class ChanceResult:
    """A percentage check: ``roll`` on W% against ``chance``; the effects of the side taken."""

    name: str | None
    chance: int
    roll: Roll
    passed: bool
    text: TextMap | None
    effects: tuple[EffectResult, ...]
    in_play: bool = False
    """Rolled here, but meant for when the party meets it (``ChanceFx.in_play``)."""


@dataclass(slots=True)
class NoteResult:
    """A note for the game master."""

    note: TextMap


@dataclass(slots=True)
class RowPick:
    """One die thrown on a list of rows: the dice, the roll, results ignored, the row."""

    dice: str
    roll: Roll
    modifier: int
    total: int
    rerolled: tuple[int, ...]
    row: Row
    index: int
    label: str
    """``row.label()``, made once per table (a dungeon's roll log keys its entries by it)."""


@dataclass(slots=True)
class TableResult:
    """A table rolled: the pick, the sub-die pick, the effects and the resulting values."""

    table: Table
    pick: RowPick
    sub: RowPick | None
    effects: tuple[EffectResult, ...]
    values: Mapping[str, int | str | bool]
    context: Mapping[str, int | bool]
    again: TableResult | None = None
    base: Mapping[str, int | str | bool] = field(default_factory=dict)

    @property
    def row(self) -> Row:
        """The row that counts: the sub-die's row when there was one."""
        return self.sub.row if self.sub is not None else self.pick.row

    def base_values(self) -> dict[str, int | str | bool]:
        """The values before the rolled amounts were added (what exact odds compare)."""
        return dict(self.base)

    @property
    def key(self) -> str | None:
        """The machine key of the result (sub-row key, else row key)."""
        if self.sub is not None and self.sub.row.key:
            return self.sub.row.key
        return self.pick.row.key

    def amounts(self) -> dict[str, int]:
        """Amounts of this result by name (not of follow-ups)."""
        out: dict[str, int] = {}
        for effect in self.effects:
            if isinstance(effect, AmountResult):
                out.setdefault(effect.name, effect.value)
        return out

    def children(self) -> list[TableResult]:
        """Follow-up results, in order (inside chance checks too)."""
        found: list[TableResult] = []
        for effect in self.effects:
            if type(effect) is TableResult:
                found.append(effect)
            elif type(effect) is ChanceResult:
                _chance_children(effect, found)
        return found


def _chance_children(check: ChanceResult, found: list[TableResult]) -> None:
    for effect in check.effects:
        if type(effect) is TableResult:
            found.append(effect)
        elif type(effect) is ChanceResult:
            _chance_children(effect, found)


EffectResult = TableResult | AmountResult | ChanceResult | NoteResult


class _Walk:
    """One roll of a table with its follow-ups: the registry, the RNG, the limits, the
    number of tables rolled so far (``steps``) and the dice thrown, in order (``picks``,
    made into log entries at the end). A plain class: one is made per roll."""

    __slots__ = ("entered", "limits", "picks", "registry", "rng", "steps")

    def __init__(
        self,
        registry: Registry,
        rng: random.Random,
        limits: Limits,
        entered: EnteredRolls | None = None,
    ) -> None:
        self.registry = registry
        self.rng = rng
        self.limits = limits
        self.steps = 0
        self.picks: list[tuple[Table, RowPick]] = []
        self.entered = entered

    def too_many(self, table: Table) -> None:
        """Refuse a walk of more than :data:`MAX_STEPS` rolls (counted in ``steps``)."""
        raise TableError(
            N_("rolling {id} needed more than {max} rolls; does a table refer to itself?"),
            id=table.id,
            max=MAX_STEPS,
        )


class _RowIndex:
    """Lookups over one tuple of rows, made once: the weighted die (``d<sum>``), the running
    weights, and the first row covering each total between the lowest and highest bound."""

    __slots__ = ("dice", "expr", "labels", "lookup", "rows", "running")

    running: list[int] | None

    def __init__(self, rows: tuple[Row, ...]) -> None:
        self.rows = rows
        self.labels = [row.label() for row in rows]
        running: list[int] = []
        total = 0
        for row in rows:
            total += row.weight or 0
            running.append(total)
        self.dice = f"d{total}"
        self.expr: Expr | None = None
        """The weighted die parsed under the default limits (on first use)."""
        # bisect needs the running weights in order (no negative weight)
        self.running = running if running == sorted(running) else None
        self.lookup: dict[int, int] = {}
        bounds = [
            b
            for row in rows
            if row.lo is not None
            for b in (row.lo, row.hi if row.hi is not None else row.lo)
        ]
        if bounds and max(bounds) - min(bounds) <= 4096:
            for t in range(min(bounds), max(bounds) + 1):
                for index, row in enumerate(rows):
                    if row.covers(t):
                        self.lookup[t] = index
                        break


MAX_INDEXES = 256
"""Row indexes kept (least recently used dropped first): every shipped table's rows fit,
and a process that builds tables on the fly (a heist's factions) stays flat in memory."""

_INDEXES: OrderedDict[int, _RowIndex] = OrderedDict()
"""Row indexes by ``id`` of their rows (the index holds the rows, so the id stays theirs)."""


def _row_index(rows: tuple[Row, ...]) -> _RowIndex:
    key = id(rows)
    found = _INDEXES.get(key)
    if found is not None and found.rows is rows:
        _INDEXES.move_to_end(key)
        return found
    found = _INDEXES[key] = _RowIndex(rows)
    _INDEXES.move_to_end(key)
    while len(_INDEXES) > MAX_INDEXES:
        _INDEXES.popitem(last=False)
    return found


def _pick(
    walk: _Walk,
    table: Table,
    rows: tuple[Row, ...],
    dice: str | None,
    modifier_expr: str | None,
    reroll_if: str | None,
    ctx: dict[str, int | bool],
) -> RowPick:
    """Throw the die for ``rows`` (honouring modifier and reroll rules) and find the row."""
    index = _row_index(rows)
    limits = walk.limits
    if dice is None:
        expression = index.dice
        expr = index.expr if limits is DEFAULT_LIMITS else None
        if expr is None:
            expr = parse(expression, limits)
            if limits is DEFAULT_LIMITS:
                index.expr = expr
    else:
        expression = fill(dice, ctx) if "{" in dice else dice
        expr = parse(expression, limits)
    modifier = int(evaluate(modifier_expr, ctx)) if modifier_expr else 0
    if reroll_if is None:
        # no reroll rule (nearly every pick): one throw
        result = roll(expr, walk.rng, limits)
        if walk.entered is not None and dice is not None:
            result = walk.entered.take(table, expression, expr, result, limits)
        total = result.total + modifier
        rerolled: tuple[int, ...] = ()
    else:
        thrown: list[int] = []
        for _attempt in range(limits.max_rerolls + 1):
            result = roll(expr, walk.rng, limits)
            if walk.entered is not None and dice is not None:
                result = walk.entered.take(table, expression, expr, result, limits)
            total = result.total + modifier
            if evaluate(reroll_if, {**ctx, "result": total}):
                thrown.append(total)
                continue
            break
        else:
            raise TableError(
                N_("{id}: the reroll rule {rule!r} held {n} times in a row"),
                id=table.id,
                rule=reroll_if,
                n=limits.max_rerolls + 1,
            )
        rerolled = tuple(thrown)
    labels = index.labels
    if dice is None:
        if index.running is not None:
            at = bisect_left(index.running, result.total)
            if at < len(rows):
                return RowPick(
                    expression, result, 0, result.total, rerolled, rows[at], at, labels[at]
                )
        else:
            running = 0
            for at, row in enumerate(rows):
                running += row.weight or 0
                if result.total <= running:
                    return RowPick(
                        expression, result, 0, result.total, rerolled, row, at, labels[at]
                    )
    at_total = index.lookup.get(total)
    if at_total is not None:
        return RowPick(
            expression,
            result,
            modifier,
            total,
            rerolled,
            rows[at_total],
            at_total,
            labels[at_total],
        )
    for at, row in enumerate(rows):
        if row.covers(total):
            return RowPick(expression, result, modifier, total, rerolled, row, at, labels[at])
    if table.gaps == "reroll":
        # Declared gaps: roll again (the same caps apply).
        return _pick(
            walk,
            table,
            rows,
            dice,
            modifier_expr,
            f"({reroll_if}) or not ({_covered(rows)})" if reroll_if else f"not ({_covered(rows)})",
            ctx,
        )
    raise TableError(N_("{id}: no row for a roll of {total}"), id=table.id, total=total)


def _covered(rows: tuple[Row, ...]) -> str:
    parts = []
    for row in rows:
        if row.lo is None:
            continue
        parts.append(f"result >= {row.lo}" if row.hi is None else f"{row.lo} <= result <= {row.hi}")
    return " or ".join(parts) or "false"


def _effects(
    walk: _Walk,
    table: Table,
    effects: tuple[Effect, ...],
    ctx: dict[str, int | bool],
    depth: int,
    again_depth: int,
) -> tuple[list[EffectResult], TableResult | None, dict[str, int]]:
    out: list[EffectResult] = []
    again_result: TableResult | None = None
    again_add: dict[str, int] = {}
    for effect in effects:
        if effect.when is not None and not evaluate(effect.when, ctx):
            continue
        if isinstance(effect, RollFx):
            # "1" (nearly every follow-up) rolls no die: no need to roll it
            times = (
                1
                if effect.times == "1"
                else roll(fill(effect.times, ctx), walk.rng, walk.limits).total
            )
            if times > MAX_TIMES:
                raise TableError(
                    N_("{id}: more than {max} follow-up rolls"), id=table.id, max=MAX_TIMES
                )
            sub_ctx = dict(ctx)  # the context without "result" (a copy, then a pop: faster)
            sub_ctx.pop("result", None)
            for name, expression in effect.with_:
                sub_ctx[name] = evaluate(expression, ctx)
            target = walk.registry.get(table.resolve(effect.ref))
            for _ in range(max(0, times)):
                out.append(
                    _roll(walk, target, sub_ctx, depth + 1, 0, effect.modifier, effect.reroll_if)
                )
        elif isinstance(effect, AmountFx):
            expression = fill(effect.amount, ctx)
            out.append(
                AmountResult(
                    effect.name,
                    expression,
                    roll(expression, walk.rng, walk.limits),
                    effect.unit,
                    effect.in_play,
                )
            )
        elif isinstance(effect, ChanceFx):
            check = roll(CHANCE_DIE, walk.rng, walk.limits)
            passed = check.total <= effect.chance
            inner, inner_again, inner_add = _effects(
                walk, table, effect.then if passed else effect.else_, ctx, depth, again_depth
            )
            if inner_again is not None:
                again_result, again_add = inner_again, inner_add
            out.append(
                ChanceResult(
                    effect.name,
                    effect.chance,
                    check,
                    passed,
                    effect.text if passed else effect.else_text,
                    tuple(inner),
                    effect.in_play,
                )
            )
        elif isinstance(effect, NoteFx):
            out.append(NoteResult(effect.note))
        elif isinstance(effect, AgainFx):
            if again_depth >= walk.limits.max_explode_depth:
                continue  # the cap: the repetition stops here (exact odds do the same)
            again_result = _roll(
                walk,
                table,
                {k: v for k, v in ctx.items() if k != "result"},
                depth,
                again_depth + 1,
                None,
                effect.reroll_if,
            )
            again_add = dict(effect.add)
    return out, again_result, again_add


def check_depth(table: Table, depth: int) -> None:
    """Refuse in one line (:class:`TableError`) a walk that reaches ``table`` nested deeper
    than :data:`MAX_DEPTH` follow-ups (a table that refers to itself)."""
    if depth > MAX_DEPTH:
        raise TableError(
            N_("{id}: follow-up rolls nested deeper than {max}; does a table refer to itself?"),
            id=table.id,
            max=MAX_DEPTH,
        )


def walk_start(
    table: Table, given: Mapping[str, int | bool], depth: int, extra_modifier: str | None
) -> tuple[dict[str, int | bool], str | None]:
    """How every walk of the tables (a roll here, the exact odds, the probability tree)
    enters ``table`` at follow-up ``depth``: its context (``level`` 1, the table's
    ``params``, then ``given``) and its modifier with ``extra_modifier`` added. Refuses in
    one line (:class:`TableError`) a walk nested deeper than :data:`MAX_DEPTH` (a table
    that refers to itself) and a lookup table (it is read, not rolled)."""
    check_depth(table, depth)
    if table.kind == "lookup":
        raise TableError(N_("{id} is a lookup table; it is read, not rolled"), id=table.id)
    ctx: dict[str, int | bool] = {"level": 1, **table.params, **given}
    modifier = table.modifier
    if extra_modifier:
        modifier = f"({modifier}) + ({extra_modifier})" if modifier else extra_modifier
    return ctx, modifier


def _roll(
    walk: _Walk,
    table: Table,
    given: Mapping[str, int | bool],
    depth: int,
    again_depth: int,
    extra_modifier: str | None,
    reroll_if: str | None,
) -> TableResult:
    ctx, modifier = walk_start(table, given, depth, extra_modifier)
    walk.steps += 1
    if walk.steps > MAX_STEPS:
        walk.too_many(table)
    pick = _pick(walk, table, table.rows, table.dice, modifier, reroll_if, ctx)
    walk.picks.append((table, pick))
    row = pick.row
    sub: RowPick | None = None
    again: TableResult | None = None
    if row.effects:
        effects, again, add = _effects(
            walk, table, row.effects, {**ctx, "result": pick.total}, depth, again_depth
        )
    else:
        effects, add = [], {}
    if row.then is not None:
        sub = _pick(walk, table, row.then.rows, row.then.dice, None, None, ctx)
        walk.picks.append((table, sub))
        if sub.row.effects:
            more, again2, add2 = _effects(
                walk, table, sub.row.effects, {**ctx, "result": sub.total}, depth, again_depth
            )
            effects += more
            if again2 is not None:
                again, add = again2, add2
    if sub is None and not effects and again is None:
        # Nothing rolled beyond the row: its own (read-only) values are the result's.
        return TableResult(table, pick, sub, (), row.value, MappingProxyType(ctx), None, row.value)
    values: dict[str, int | str | bool] = dict(row.value)
    if sub is not None:
        values.update(sub.row.value)
    if effects:
        values.update(chance_values(effects))
    if again is not None:
        values.update(again.values)
        for name, plus in add.items():
            before = values.get(name, 0)
            values[name] = (before if isinstance(before, int) else 0) + plus
    # Amounts rolled by this row become values too (``exits: 3``, ``w_ft: 270``), so a
    # procedure reads every number of a result in one place.
    amounts = {e.name: e.value for e in effects if type(e) is AmountResult}
    if not amounts:
        base = MappingProxyType(values)
        return TableResult(
            table, pick, sub, tuple(effects), base, MappingProxyType(ctx), again, base
        )
    without_amounts = MappingProxyType(dict(values))
    values.update(amounts)
    return TableResult(
        table,
        pick,
        sub,
        tuple(effects),
        MappingProxyType(values),
        MappingProxyType(ctx),
        again,
        without_amounts,
    )


def chance_values(effects: list[EffectResult] | tuple[EffectResult, ...]) -> dict[str, bool]:
    """Named percentage checks of this roll (not of follow-ups) as values: ``bridged: true``."""
    out: dict[str, bool] = {}
    for effect in effects:
        if isinstance(effect, ChanceResult):
            if effect.name:
                out[effect.name] = effect.passed
            out.update(chance_values(effect.effects))
    return out


def _log_entry(table: Table, pick: RowPick) -> dict[str, Any]:
    return {
        "table": table.id,
        "dice": pick.dice,
        "roll": pick.total,
        "explain": explain(pick.roll),
        "row": pick.label,
        "key": pick.row.key,
    }


def roll_table(
    registry: Registry,
    table_id: str,
    rng: random.Random,
    *,
    context: Mapping[str, int | bool] | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[TableResult, list[dict[str, Any]]]:
    """Roll table ``table_id`` with ``rng`` in ``context`` (e.g. ``{"level": 3}``).

    Returns the result tree and the flat roll log (``{"table", "dice", "roll", "explain",
    "row", "key"}`` per die, in order). Raises :class:`TableError` for unknown tables,
    lookup tables and runaway follow-ups, :class:`~kerker.errors.KerkerError` subclasses for
    bad data; never anything else.
    """
    result, picks = roll_table_picks(registry, table_id, rng, context=context, limits=limits)
    return result, [_log_entry(table, pick) for table, pick in picks]


def roll_table_picks(
    registry: Registry,
    table_id: str,
    rng: random.Random,
    *,
    context: Mapping[str, int | bool] | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[TableResult, list[tuple[Table, RowPick]]]:
    """:func:`roll_table` with the log as ``(table, pick)`` per die, in order (for a caller
    that keeps its own log entries: no dicts made)."""
    table = registry.get(table_id)
    walk = _Walk(registry, rng, limits, _ENTERED.get())
    result = _roll(walk, table, dict(context or {}), 0, 0, None, None)
    return result, walk.picks
