"""Exact odds as a probability tree: each row's chance, and beneath it its follow-ups.

Some tables have more final outcomes than anyone could read: "Monster und Schatz" rolls the
treasure twice, each with its container, its protection, its traps... The joint list would
run to millions of lines, but the follow-ups of a row are independent of each other, so the
tree -- P(row), and for each follow-up the distribution of *its* outcomes -- is the same
information, exact, in a few dozen lines. ``kerker table odds`` shows the flat list when it
is short and this tree otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kerker.dice import odds as dice_odds
from kerker.dice import parse
from kerker.errors import N_
from kerker.limits import DEFAULT_LIMITS, Limits
from kerker.tables.engine import CHANCE_DIE, walk_start
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
    pick_text,
)
from kerker.tables.odds import _Odds
from kerker.tables.registry import Registry, TableError
from kerker.tables.render import fill_text

MAX_NODES = 5_000


@dataclass
class TreeTable:
    """A table in a context: its rows with their probabilities."""

    table: str
    title: str
    dice: str
    rows: list[TreeRow] = field(default_factory=list)
    ref: bool = False  # already shown above with the same context

    def lines(self, indent: int = 0, lang: str = "en") -> list[str]:
        pad = "  " * indent
        out = [f"{pad}{self.title} ({self.dice})" + (" ↑" if self.ref else "")]
        if self.ref:
            return out
        for row in self.rows:
            out += row.lines(indent + 1, lang)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "title": self.title,
            "dice": self.dice,
            "ref": self.ref,
            "rows": [r.to_json() for r in self.rows],
        }


@dataclass
class TreeRow:
    """One row (or sub-die row): P(row) within its table, its text and its effects."""

    p: Fraction
    label: str
    text: str
    effects: list[Any] = field(default_factory=list)
    sub: list[TreeRow] = field(default_factory=list)

    def lines(self, indent: int, lang: str) -> list[str]:
        from kerker.numfmt import percent

        pad = "  " * indent
        out = [f"{pad}{percent(self.p, lang, 2):>9}  {self.label:>6}  {self.text}"]
        for sub in self.sub:
            out += sub.lines(indent + 2, lang)
        for effect in self.effects:
            out += effect.lines(indent + 2, lang)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "p": f"{self.p.numerator}/{self.p.denominator}",
            "range": self.label,
            "text": self.text,
            "sub": [s.to_json() for s in self.sub],
            "effects": [e.to_json() for e in self.effects],
        }


@dataclass
class TreeFollow:
    """A follow-up roll: how often, and the table's own tree."""

    times: str
    tree: TreeTable

    def lines(self, indent: int, lang: str) -> list[str]:
        times = "" if self.times == "1" else f"{self.times} × "
        head = self.tree.lines(indent, lang)
        head[0] = "  " * indent + "→ " + times + head[0].lstrip()
        return head

    def to_json(self) -> dict[str, Any]:
        return {"type": "roll", "times": self.times, "table": self.tree.to_json()}


@dataclass
class TreeChance:
    """A percentage check with what follows on either side."""

    chance: int
    p: Fraction
    text: str
    else_text: str
    then: list[Any]
    else_: list[Any]

    def lines(self, indent: int, lang: str) -> list[str]:
        from kerker.numfmt import percent

        pad = "  " * indent
        out = [f"{pad}{percent(self.p, lang, 2):>9}  ✓ {self.text}"]
        for effect in self.then:
            out += effect.lines(indent + 2, lang)
        out.append(f"{pad}{percent(1 - self.p, lang, 2):>9}  ✗ {self.else_text}")
        for effect in self.else_:
            out += effect.lines(indent + 2, lang)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "chance",
            "chance": self.chance,
            "p": f"{self.p.numerator}/{self.p.denominator}",
            "text": self.text,
            "else_text": self.else_text,
            "then": [e.to_json() for e in self.then],
            "else": [e.to_json() for e in self.else_],
        }


@dataclass
class TreeNote:
    """An amount, a note or a repetition: text only."""

    text: str

    def lines(self, indent: int, lang: str) -> list[str]:
        return ["  " * indent + "· " + self.text]

    def to_json(self) -> dict[str, Any]:
        return {"type": "note", "text": self.text}


class _Tree:
    def __init__(self, registry: Registry, lang: str, limits: Limits) -> None:
        self.odds = _Odds(registry, lang, limits)
        self.registry = registry
        self.lang = lang
        self.limits = limits
        self.seen: set[Any] = set()
        self.nodes = 0

    def count(self) -> None:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise TableError(N_("the probability tree has more than {max} nodes"), max=MAX_NODES)

    def table(
        self,
        table: Table,
        given: Mapping[str, int | bool],
        depth: int,
        extra_modifier: str | None,
        reroll_if: str | None,
    ) -> TreeTable:
        ctx, modifier = walk_start(table, given, depth, extra_modifier)
        title = str(pick_text(table.title, self.lang))
        dice = fill(table.dice, ctx) if table.dice else f"d{sum(r.weight or 0 for r in table.rows)}"
        if modifier:
            shift = int(evaluate(modifier, ctx))
            if shift:
                dice += f" {'+' if shift > 0 else '-'} {abs(shift)}"
        key = (table.id, tuple(sorted(ctx.items())), extra_modifier, reroll_if)
        node = TreeTable(table.id, title, dice)
        if key in self.seen:
            node.ref = True
            return node
        self.seen.add(key)
        totals = self.odds.totals(table, table.dice, table.rows, modifier, reroll_if, ctx)
        node.rows = self.rows(table, table.rows, totals, ctx, depth, table.dice is None)
        return node

    def rows(
        self,
        table: Table,
        rows: tuple[Row, ...],
        totals: Mapping[int, Fraction],
        ctx: dict[str, int | bool],
        depth: int,
        weighted: bool,
    ) -> list[TreeRow]:
        by_row: dict[int, Fraction] = {}
        first_total: dict[int, int] = {}
        for total, p in sorted(totals.items()):
            index, _row = self.odds.row_for(rows, total, table, weighted)
            by_row[index] = by_row.get(index, Fraction(0)) + p
            first_total.setdefault(index, total)
        out: list[TreeRow] = []
        for index, p in sorted(by_row.items()):
            self.count()
            row = rows[index]
            row_ctx = {**ctx, "result": first_total[index]}
            amounts = {
                e.name: fill(e.amount, row_ctx) for e in row.effects if isinstance(e, AmountFx)
            }
            names: dict[str, Any] = {**row_ctx, **row.value, **amounts}
            count = None
            if amounts:
                first = next(iter(amounts.values()))
                count = int(first) if first.lstrip("-").isdigit() else None
            tree_row = TreeRow(p, row.label(), fill_text(row.text, self.lang, names, count))
            if row.then is not None:
                sub_totals = self.odds.totals(table, row.then.dice, row.then.rows, None, None, ctx)
                tree_row.sub = self.rows(table, row.then.rows, sub_totals, ctx, depth, False)
            in_text = {
                name
                for text in row.text.values()
                for part in (text if isinstance(text, tuple) else (text,))
                for name in amounts
                if "{" + name + "}" in part
            }
            tree_row.effects = self.effects(table, row.effects, row_ctx, depth, in_text)
            out.append(tree_row)
        return out

    def effects(
        self,
        table: Table,
        effects: tuple[Effect, ...],
        ctx: dict[str, int | bool],
        depth: int,
        in_text: set[str] | None = None,
    ) -> list[Any]:
        out: list[Any] = []
        for effect in effects:
            if effect.when is not None and not evaluate(effect.when, ctx):
                continue
            if isinstance(effect, RollFx):
                target = self.registry.get(table.resolve(effect.ref))
                sub_ctx = {k: v for k, v in ctx.items() if k != "result"}
                for name, expression in effect.with_:
                    sub_ctx[name] = evaluate(expression, ctx)
                times = fill(effect.times, ctx)
                parse(times, self.limits)
                out.append(
                    TreeFollow(
                        times,
                        self.table(target, sub_ctx, depth + 1, effect.modifier, effect.reroll_if),
                    )
                )
            elif isinstance(effect, ChanceFx):
                p = dice_odds(CHANCE_DIE, self.limits).at_most(effect.chance)
                out.append(
                    TreeChance(
                        effect.chance,
                        p,
                        fill_text(effect.text, self.lang, ctx) if effect.text else "",
                        fill_text(effect.else_text, self.lang, ctx) if effect.else_text else "",
                        self.effects(table, effect.then, ctx, depth),
                        self.effects(table, effect.else_, ctx, depth),
                    )
                )
            elif isinstance(effect, AmountFx):
                if in_text and effect.name in in_text:
                    continue  # the row text already shows it
                unit = fill_text(effect.unit, self.lang, {}) if effect.unit else ""
                expression = fill(effect.amount, ctx)
                if not expression.strip().isdigit():
                    out.append(TreeNote(f"{expression} {unit}".strip()))
            elif isinstance(effect, NoteFx):
                out.append(TreeNote(fill_text(effect.note, self.lang, ctx)))
            elif isinstance(effect, AgainFx):
                added = ", ".join(f"{k} +{v}" for k, v in effect.add)
                out.append(TreeNote(f"↻ {table.id}" + (f" ({added})" if added else "")))
        return out


def table_tree(
    registry: Registry,
    table_id: str,
    *,
    lang: str = "en",
    context: Mapping[str, int | bool] | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> TreeTable:
    """The exact probability tree of ``table_id``: rows with P(row), follow-ups beneath.

    A table reached again in the same context is shown once and referred to (``ref``).
    Raises :class:`TableError` for lookup tables and runaway references.
    """
    return _Tree(registry, lang, limits).table(
        registry.get(table_id), dict(context or {}), 0, None, None
    )
