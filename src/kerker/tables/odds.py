"""Exact odds of a table: every final outcome, after follow-ups, with its probability.

An *outcome* is what the game master reads at the end: the row's text (amounts shown as the
dice expression they roll, e.g. "6W10 × 100 KM"), the values the row leaves (after
repetitions: "~15" reached directly or as "~5 + 10" is one outcome), the outcomes of its
follow-up rolls (as a multiset when a table is rolled several times) and of its percentage
checks. Probabilities are exact fractions computed from the dice distributions of
:mod:`kerker.dice` -- nothing is sampled. The walk obeys the roller's caps (rerolls are
conditioning, repetitions stop at ``Limits.max_explode_depth``), so it describes exactly
what :func:`kerker.tables.engine.roll_table` does. Too many outcomes are refused.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kerker.dice import odds as dice_odds
from kerker.dice import parse
from kerker.errors import N_, KerkerError
from kerker.limits import DEFAULT_LIMITS, Limits
from kerker.tables.engine import (
    CHANCE_DIE,
    MAX_STEPS,
    MAX_TIMES,
    check_depth,
    walk_start,
)
from kerker.tables.expr import evaluate, fill, names
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
from kerker.tables.render import fill_text

MAX_OUTCOMES = 20_000
MAX_WEIGHT_TOTAL = 10_000  # kerker.tables.schema.MAX_WEIGHT_TOTAL (not imported: pydantic)

Values = tuple[tuple[str, Any], ...]


class TooManyOutcomes(TableError):
    """The flat list of outcomes would be too long (the probability tree still works)."""

    code = "table_too_many"


@dataclass(frozen=True, slots=True)
class Outcome:
    """One final outcome: a table's text and values, and the outcomes of its effects."""

    table: str
    title: str
    text: str
    values: Values
    parts: tuple[Any, ...]
    row: Any = field(default=None, compare=False, repr=False)
    amounts: tuple[tuple[str, str], ...] = field(default=(), compare=False, repr=False)

    def lines(self, indent: int = 0) -> list[str]:
        """Indented lines, as shown by ``kerker table odds``."""
        pad = "  " * indent
        out = [f"{pad}{self.title}: {self.text}"]
        for part in self.parts:
            if isinstance(part, Outcome | ChanceOutcome):
                out += part.lines(indent + 1)
        return out

    def describe(self) -> str:
        """The outcome in one line: ``text [child; child]``."""
        inner = [p.describe() for p in self.parts if isinstance(p, Outcome | ChanceOutcome)]
        return self.text + (f" [{'; '.join(inner)}]" if inner else "")

    def to_json(self) -> dict[str, Any]:
        """``{"table", "text", "values", "parts"}``."""
        return {
            "table": self.table,
            "text": self.text,
            "values": dict(self.values),
            "parts": [p.to_json() for p in self.parts if isinstance(p, Outcome | ChanceOutcome)],
        }


@dataclass(frozen=True, slots=True)
class ChanceOutcome:
    """A percentage check's side and what followed from it."""

    chance: int
    passed: bool
    text: str
    parts: tuple[Any, ...]
    name: str | None = None

    def lines(self, indent: int = 0) -> list[str]:
        pad = "  " * indent
        mark = "✓" if self.passed else "✗"
        head = (
            f"{pad}· {self.text} ({self.chance} %: {mark})"
            if self.text
            else f"{pad}· {self.chance} %: {mark}"
        )
        out = [head]
        for part in self.parts:
            if isinstance(part, Outcome | ChanceOutcome):
                out += part.lines(indent + 1)
        return out

    def describe(self) -> str:
        mark = "✓" if self.passed else "✗"
        inner = [p.describe() for p in self.parts if isinstance(p, Outcome | ChanceOutcome)]
        text = f"{self.text} ({self.chance} %: {mark})" if self.text else f"{self.chance} %: {mark}"
        return text + (f" [{'; '.join(inner)}]" if inner else "")

    def to_json(self) -> dict[str, Any]:
        return {
            "chance": self.chance,
            "passed": self.passed,
            "text": self.text,
            "parts": [p.to_json() for p in self.parts if isinstance(p, Outcome | ChanceOutcome)],
        }


Dist = dict[Any, Fraction]


class _Odds:
    def __init__(
        self, registry: Registry, lang: str, limits: Limits, max_outcomes: int = MAX_OUTCOMES
    ) -> None:
        self.max_outcomes = max_outcomes
        self.registry = registry
        self.lang = lang
        self.limits = limits
        self.cache: dict[Any, Dist] = {}

    def sized(self, dist: Dist, table: Table) -> Dist:
        if len(dist) > self.max_outcomes:
            raise TooManyOutcomes(
                N_("{id}: more than {max} different outcomes; too many to list"),
                id=table.id,
                max=self.max_outcomes,
            )
        return dist

    # -- dice ---------------------------------------------------------------------------
    def totals(
        self,
        table: Table,
        dice: str | None,
        rows: tuple[Row, ...],
        modifier: str | None,
        reroll_if: str | None,
        ctx: Mapping[str, int | bool],
    ) -> dict[int, Fraction]:
        """Distribution of the (modified) roll over the rows, rerolls conditioned away."""
        if dice is None:
            total_weight = sum(row.weight or 0 for row in rows)
            if total_weight > MAX_WEIGHT_TOTAL:
                return self.weighted_totals(rows)  # refuses
            # A reroll rule: each number on its own, the rule tested on the number plus the
            # modifier (as the roller does; the row is found by the number itself).
            shift = int(evaluate(modifier, ctx)) if modifier else 0
            kept = [
                value
                for value in range(1, total_weight + 1)
                if reroll_if is None or not evaluate(reroll_if, {**ctx, "result": value + shift})
            ]
            if not kept:
                raise TableError(
                    N_("{id}: every result is rerolled; the table can never finish"),
                    id=table.id,
                )
            return dict.fromkeys(kept, Fraction(1, len(kept)))
        expression = fill(dice, ctx)
        dist = dice_odds(parse(expression, self.limits), self.limits)
        shift = int(evaluate(modifier, ctx)) if modifier else 0
        out: dict[int, Fraction] = {}
        for value, p in dist:
            total = value + shift
            if reroll_if is not None and evaluate(reroll_if, {**ctx, "result": total}):
                continue
            if table.gaps == "reroll" and not any(row.covers(total) for row in rows):
                continue
            out[total] = out.get(total, Fraction(0)) + p
        mass = sum(out.values(), Fraction(0))
        if mass == 0:
            raise TableError(
                N_("{id}: every result is rerolled; the table can never finish"), id=table.id
            )
        return {v: p / mass for v, p in out.items()}

    def weighted_totals(self, rows: tuple[Row, ...]) -> dict[int, Fraction]:
        """The rolls of a weighted table that matter, with their probabilities.

        Computed with the weights, not by expanding them into a die: one roll per row (its
        first number) carries the row's whole weight, unless an effect of the row reads
        ``result`` -- then each of its numbers counts on its own (at most the sum of the
        weights, which the schema caps at ``MAX_WEIGHT_TOTAL``).
        """
        total_weight = sum(row.weight or 0 for row in rows)
        if total_weight > MAX_WEIGHT_TOTAL:
            raise TableError(
                N_(
                    "the weights add up to {total}; at most {max} (a weighted table is rolled "
                    "with one die of as many faces as its weights add up to)"
                ),
                total=total_weight,
                max=MAX_WEIGHT_TOTAL,
            )
        out: dict[int, Fraction] = {}
        running = 0
        for row in rows:
            weight = row.weight or 0
            lo = running + 1
            running += weight
            if not weight:
                continue
            if self.reads_result(row):
                for value in range(lo, running + 1):
                    out[value] = Fraction(1, total_weight)
            else:
                out[lo] = Fraction(weight, total_weight)
        return out

    @staticmethod
    def row_for(rows: tuple[Row, ...], total: int, table: Table, weighted: bool) -> tuple[int, Row]:
        if weighted:
            running = 0
            for index, row in enumerate(rows):
                running += row.weight or 0
                if total <= running:
                    return index, row
        for index, row in enumerate(rows):
            if row.covers(total):
                return index, row
        raise TableError(N_("{id}: no row for a roll of {total}"), id=table.id, total=total)

    # -- tables ----------------------------------------------------------------------------
    def table(
        self,
        table: Table,
        given: Mapping[str, int | bool],
        depth: int,
        again_depth: int,
        extra_modifier: str | None,
        reroll_if: str | None,
    ) -> Dist:
        ctx, modifier = walk_start(table, given, depth, extra_modifier)
        key = (table.id, tuple(sorted(ctx.items())), again_depth, extra_modifier, reroll_if)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        result: Dist = defaultdict(Fraction)
        weighted = table.dice is None
        if weighted and reroll_if is None:
            totals = self.weighted_totals(table.rows)
        else:
            totals = self.totals(table, table.dice, table.rows, modifier, reroll_if, ctx)
        # A row whose effects do not read the roll has the same outcomes for each of its
        # numbers: worked out once, weighted with the mass of all its numbers (one product
        # per outcome, not one per number and outcome).
        parts: list[tuple[Fraction, Dist]] = []
        by_row: dict[int, int] = {}
        for total, p in totals.items():
            index, row = self.row_for(table.rows, total, table, weighted)
            if self.reads_result(row):
                parts.append(
                    (p, self.row(table, row, {**ctx, "result": total}, depth, again_depth))
                )
                continue
            at = by_row.get(index)
            if at is None:
                by_row[index] = len(parts)
                parts.append(
                    (p, self.row(table, row, {**ctx, "result": total}, depth, again_depth))
                )
            else:
                mass, dist = parts[at]
                parts[at] = (mass + p, dist)
        for p, dist in parts:
            for outcome, q in dist.items():
                result[outcome] += p * q
            if len(result) > self.max_outcomes:  # it only grows: refuse before the rest
                self.sized(result, table)
        final = self.sized(dict(result), table)
        self.cache[key] = final
        return final

    @staticmethod
    def reads_result(row: Row) -> bool:
        def effect_reads(effect: Effect) -> bool:
            exprs: list[str] = [e for e in (effect.when,) if e]
            if isinstance(effect, RollFx):
                exprs += [v for _k, v in effect.with_]
            if isinstance(effect, ChanceFx):
                return any(effect_reads(e) for e in (*effect.then, *effect.else_)) or any(
                    "result" in names(e) for e in exprs
                )
            return any("result" in names(e) for e in exprs)

        return any(effect_reads(e) for e in row.effects)

    def row(
        self, table: Table, row: Row, ctx: dict[str, int | bool], depth: int, again_depth: int
    ) -> Dist:
        """Outcomes of one row: its effects, its sub-die, its repetition."""
        if row.then is None:
            return self.finish(table, row, ctx, depth, again_depth, None, row.effects)
        sub = row.then
        out: Dist = defaultdict(Fraction)
        sub_totals = self.totals(table, sub.dice, sub.rows, None, None, ctx)
        for total, p in sub_totals.items():
            _index, sub_row = self.row_for(sub.rows, total, table, False)
            dist = self.finish(
                table,
                sub_row,
                {**ctx, "result": total},
                depth,
                again_depth,
                row,
                (*row.effects, *sub_row.effects),
            )
            for outcome, q in dist.items():
                out[outcome] += p * q
            if len(out) > self.max_outcomes:
                self.sized(out, table)
        return dict(out)

    def finish(
        self,
        table: Table,
        row: Row,
        ctx: dict[str, int | bool],
        depth: int,
        again_depth: int,
        parent: Row | None,
        effects: tuple[Effect, ...],
    ) -> Dist:
        """Combine the effects of a row into final outcomes."""
        partials = self.effects(table, effects, ctx, depth, again_depth)
        out: Dist = defaultdict(Fraction)
        base_values = dict(parent.value) if parent is not None else {}
        base_values.update(row.value)
        for (parts, amounts, again), p in partials.items():
            values = dict(base_values)
            values.update(_chance_values(parts))
            text_row, shown_amounts = row, dict(amounts)
            if again is not None:
                # Repetition: the final row of the repeated roll, with the values added up.
                again_outcome, add = again
                values.update(dict(again_outcome.values))
                for name, plus in add:
                    base = values.get(name, 0)
                    values[name] = (base if isinstance(base, int) else 0) + plus
                text_row = again_outcome.row
                shown_amounts = {**dict(again_outcome.amounts), **shown_amounts}
                parts = normalize(parts + again_outcome.parts)
            shown = self.text(text_row, ctx, values, shown_amounts)
            outcome = Outcome(
                table.id,
                str(pick_text(table.title, self.lang)),
                shown,
                tuple(sorted(values.items())),
                parts,
                text_row,
                tuple(shown_amounts.items()),
            )
            out[outcome] += p
            if len(out) > self.max_outcomes:
                self.sized(out, table)
        return dict(out)

    def text(
        self,
        row: Row,
        ctx: Mapping[str, Any],
        values: Mapping[str, Any],
        amounts: Mapping[str, str],
    ) -> str:
        names_map: dict[str, Any] = dict(ctx)
        names_map.update(values)
        names_map.update(amounts)
        count = None
        if amounts:
            first = next(iter(amounts.values()))
            count = int(first) if str(first).lstrip("-").isdigit() else None
        return fill_text(row.text, self.lang, names_map, count)

    def effects(
        self,
        table: Table,
        effects: tuple[Effect, ...],
        ctx: dict[str, int | bool],
        depth: int,
        again_depth: int,
    ) -> dict[Any, Fraction]:
        """Joint distribution of (parts, amounts, again) over a list of effects."""
        state: dict[Any, Fraction] = {((), (), None): Fraction(1)}
        for effect in effects:
            if effect.when is not None and not evaluate(effect.when, ctx):
                continue
            options = self.effect(table, effect, ctx, depth, again_depth)
            new: dict[Any, Fraction] = defaultdict(Fraction)
            for (parts, amounts, again), p in state.items():
                for (more_parts, more_amounts, more_again), q in options.items():
                    new[
                        (
                            normalize(parts + more_parts),
                            amounts + more_amounts,
                            more_again if more_again is not None else again,
                        )
                    ] += p * q
                if len(new) > self.max_outcomes:
                    self.sized(new, table)
            state = self.sized(dict(new), table)
        return state

    def effect(
        self, table: Table, effect: Effect, ctx: dict[str, int | bool], depth: int, again_depth: int
    ) -> dict[Any, Fraction]:
        if isinstance(effect, AmountFx):
            expression = fill(effect.amount, ctx)
            return {((), ((effect.name, expression),), None): Fraction(1)}
        if isinstance(effect, NoteFx):
            return {((), (), None): Fraction(1)}
        if isinstance(effect, ChanceFx):
            p_pass = self.chance_probability(effect.chance)
            out: dict[Any, Fraction] = defaultdict(Fraction)
            for passed, p in ((True, p_pass), (False, 1 - p_pass)):
                if p == 0:
                    continue
                inner = self.effects(
                    table, effect.then if passed else effect.else_, ctx, depth, again_depth
                )
                text_map: TextMap | None = effect.text if passed else effect.else_text
                text = fill_text(text_map, self.lang, ctx) if text_map else ""
                for (parts, amounts, again), q in inner.items():
                    chance = ChanceOutcome(effect.chance, passed, text, parts, effect.name)
                    out[((chance,), amounts, again)] += p * q
            return dict(out)
        if isinstance(effect, AgainFx):
            if again_depth >= self.limits.max_explode_depth:
                return {((), (), None): Fraction(1)}
            sub_ctx = {k: v for k, v in ctx.items() if k != "result"}
            dist = self.table(table, sub_ctx, depth, again_depth + 1, None, effect.reroll_if)
            return {((), (), (outcome, effect.add)): p for outcome, p in dist.items()}
        assert isinstance(effect, RollFx)
        target = self.registry.get(table.resolve(effect.ref))
        sub_ctx = {k: v for k, v in ctx.items() if k != "result"}
        for name, expression in effect.with_:
            sub_ctx[name] = evaluate(expression, ctx)
        child = self.table(target, sub_ctx, depth + 1, 0, effect.modifier, effect.reroll_if)
        times_dist = dice_odds(parse(fill(effect.times, ctx), self.limits), self.limits)
        if times_dist.max > MAX_TIMES:
            raise TableError(
                N_("{id}: more than {max} follow-up rolls"), id=table.id, max=MAX_TIMES
            )
        out = defaultdict(Fraction)
        multisets: dict[tuple[Any, ...], Fraction] = {(): Fraction(1)}
        done = 0
        for n, p_n in times_dist:
            # The multisets of n outcomes out of len(child) are all possible: as many as
            # C(n + c - 1, n). Refuse before the work when that is too many to list.
            if n > 0 and len(child) > 1 and math.comb(n + len(child) - 1, n) > self.max_outcomes:
                self.sized(dict.fromkeys(range(self.max_outcomes + 1), Fraction(0)), table)
            while done < max(n, 0):
                grown: dict[tuple[Any, ...], Fraction] = defaultdict(Fraction)
                for combo, p in multisets.items():
                    for outcome, q in child.items():
                        grown[tuple(sorted((*combo, outcome), key=_order))] += p * q
                    if len(grown) > self.max_outcomes:
                        self.sized(grown, table)
                multisets = self.sized(dict(grown), table)
                done += 1
            for combo, p in multisets.items():
                out[(combo, (), None)] += p_n * p
            if len(out) > self.max_outcomes:
                self.sized(out, table)
        return dict(out)

    def chance_probability(self, chance: int) -> Fraction:
        die = dice_odds(CHANCE_DIE, self.limits)
        return die.at_most(chance)


def _chance_values(parts: tuple[Any, ...]) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for part in parts:
        if isinstance(part, ChanceOutcome):
            if part.name:
                out[part.name] = part.passed
            out.update(_chance_values(part.parts))
    return out


def normalize(parts: tuple[Any, ...]) -> tuple[Any, ...]:
    """Sort each run of consecutive outcomes of the same table (several rolls on a table
    are a multiset: their order does not make a different outcome)."""
    out: list[Any] = []
    run: list[Any] = []
    for part in parts:
        if run and not (isinstance(part, Outcome) and part.table == run[0].table):
            out += sorted(run, key=_order)
            run = []
        if isinstance(part, Outcome):
            run.append(part)
        else:
            out.append(part)
    out += sorted(run, key=_order)
    return tuple(out)


def outcome_of(result: Any, lang: str) -> Outcome:
    """The outcome a rolled :class:`~kerker.tables.engine.TableResult` belongs to.

    Built by the same rules as :func:`table_odds`, so sampled frequencies can be compared
    with the exact odds outcome by outcome.
    """
    from kerker.tables.engine import AmountResult, ChanceResult, TableResult

    def effects(items: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[tuple[str, str], ...]]:
        parts: list[Any] = []
        amounts: list[tuple[str, str]] = []
        for item in items:
            if isinstance(item, TableResult):
                parts.append(outcome_of(item, lang))
            elif isinstance(item, AmountResult):
                amounts.append((item.name, item.expression))
            elif isinstance(item, ChanceResult):
                inner, inner_amounts = effects(item.effects)
                text = fill_text(item.text, lang, dict(result.context)) if item.text else ""
                parts.append(ChanceOutcome(item.chance, item.passed, text, inner, item.name))
                amounts += inner_amounts
        return normalize(tuple(parts)), tuple(amounts)

    assert isinstance(result, TableResult)
    parts, amounts = effects(result.effects)
    row = result.row
    shown = dict(amounts)
    if result.again is not None:
        final = outcome_of(result.again, lang)
        row = final.row
        shown = {**dict(final.amounts), **shown}
        parts = normalize(parts + final.parts)
    values = result.base_values()
    names_map: dict[str, Any] = dict(result.context)
    names_map["result"] = result.pick.total
    names_map.update(values)
    names_map.update(shown)
    count = None
    if shown:
        first = next(iter(shown.values()))
        count = int(first) if str(first).lstrip("-").isdigit() else None
    text = fill_text(row.text, lang, names_map, count)
    return Outcome(
        result.table.id,
        str(pick_text(result.table.title, lang)),
        text,
        tuple(sorted(values.items())),
        parts,
        row,
        tuple(shown.items()),
    )


def _order(outcome: Any) -> str:
    return outcome.describe() if isinstance(outcome, Outcome | ChanceOutcome) else repr(outcome)


class _Steps:
    """The most tables one roll of a table can roll, follow-ups and repetitions included.

    An upper bound computed from the rows alone (every row reachable, every effect taken,
    the larger side of every percentage check, a follow-up's ``times`` at its highest), so
    the exact odds refuse at once what the roller may refuse on the way: more than
    ``MAX_STEPS`` rolls or follow-ups nested deeper than ``MAX_DEPTH``.
    """

    def __init__(self, registry: Registry, limits: Limits) -> None:
        self.registry = registry
        self.limits = limits
        self.memo: dict[tuple[str, int, int], int] = {}

    def table(
        self, table: Table, ctx: Mapping[str, int | bool], depth: int, again_depth: int
    ) -> int:
        check_depth(table, depth)
        key = (table.id, depth, again_depth)
        found = self.memo.get(key)
        if found is not None:
            return found
        full = {"level": 1, **table.params, **ctx}
        worst = 0
        for row in table.rows:
            steps = self.effects(table, row.effects, full, depth, again_depth)
            if row.then is not None:
                steps += max(
                    self.effects(table, sub.effects, full, depth, again_depth)
                    for sub in row.then.rows
                )
            worst = max(worst, steps)
        total = 1 + worst
        if total > MAX_STEPS:
            raise TableError(
                N_("rolling {id} needed more than {max} rolls; does a table refer to itself?"),
                id=table.id,
                max=MAX_STEPS,
            )
        self.memo[key] = total
        return total

    def effects(
        self,
        table: Table,
        effects: tuple[Effect, ...],
        ctx: Mapping[str, int | bool],
        depth: int,
        again_depth: int,
    ) -> int:
        steps = 0
        for effect in effects:
            if isinstance(effect, ChanceFx):
                steps += max(
                    self.effects(table, effect.then, ctx, depth, again_depth),
                    self.effects(table, effect.else_, ctx, depth, again_depth),
                )
            elif isinstance(effect, AgainFx):
                if again_depth < self.limits.max_explode_depth:
                    steps += self.table(table, ctx, depth, again_depth + 1)
            elif isinstance(effect, RollFx):
                target = self.registry.get(table.resolve(effect.ref))
                steps += self.times(effect.times, ctx) * self.table(target, {}, depth + 1, 0)
            if steps > MAX_STEPS:
                break
        return steps

    def times(self, times: str, ctx: Mapping[str, int | bool]) -> int:
        if times.strip().isdigit():
            return min(int(times), MAX_TIMES + 1)
        try:
            most = dice_odds(parse(fill(times, ctx), self.limits), self.limits).max
        except KerkerError:  # reads the roll's result (or fails when rolled): at most the cap
            return MAX_TIMES
        return max(0, min(most, MAX_TIMES))  # more than the cap: the walk refuses it


def table_odds(
    registry: Registry,
    table_id: str,
    *,
    lang: str = "en",
    context: Mapping[str, int | bool] | None = None,
    limits: Limits = DEFAULT_LIMITS,
    max_outcomes: int = MAX_OUTCOMES,
) -> list[tuple[Outcome, Fraction]]:
    """Every final outcome of ``table_id`` with its exact probability, most likely first.

    The probabilities add up to exactly 1. Raises :class:`TableError` for lookup tables and
    runaway references, :class:`TooManyOutcomes` past ``max_outcomes`` (then use
    :func:`kerker.tables.tree.table_tree`).
    """
    table = registry.get(table_id)
    _Steps(registry, limits).table(table, dict(context or {}), 0, 0)  # the roller's caps
    engine = _Odds(registry, lang, limits, max_outcomes)
    dist = engine.table(table, dict(context or {}), 0, 0, None, None)
    return sorted(dist.items(), key=lambda item: (-item[1], item[0].describe()))
