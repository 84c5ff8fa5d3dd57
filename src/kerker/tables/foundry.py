"""Export a table as a Foundry VTT RollTable document (JSON for "Import Data").

The document follows the Foundry **v13** data model (``foundry.documents.BaseRollTable`` /
``BaseTableResult``): a RollTable has ``name``, ``img``, ``description`` (HTML), ``results``,
``formula``, ``replacement``, ``displayRoll`` and ``flags``; a TableResult has ``type``
(``"text"``), ``name``, ``img``, ``description`` (HTML), ``weight``, ``range`` ``[lo, hi]``,
``drawn`` and ``flags``. Each result also carries v12's ``text`` (the same line as ``name``):
v12 reads it, v13 ignores it because ``description`` is there (v13 only migrates ``text``
into an absent ``description``). Every ``_id`` is 16 letters and digits derived from the
table id with BLAKE2b, so the same table always exports byte-identical JSON.

Decisions:

- **Formula.** Our dice are rewritten in Foundry's syntax: ``W``/``w`` -> ``d``, ``×``/``x``
  -> ``*``, ``W%`` -> ``d100``, ``W{66}`` -> ``d66``, ``r`` (reroll while) -> ``rr``, ``ro``
  -> ``r``, ``!`` -> ``x``, a success count ``>=5`` -> ``cs>=5``, our flooring ``/`` ->
  ``floor(a/b)``. Digit dice need no index mapping: ``W66`` is exactly ``(1d6*10+1d6)`` and
  ``W666`` ``(1d6*100+1d6*10+1d6)``, so the rows keep their printed ranges (11..66) and the
  odds are the same. What Foundry cannot say (a negative face in a condition, modifiers on
  a digit die) is refused with :class:`~kerker.tables.registry.TableError`.
- **Context.** Foundry knows no context: ``{...}`` templates, the ``modifier`` and amounts
  are filled in with the defaults (``level`` 1, the ``params`` defaults); the description
  says so. An open-ended row (``[20, null]``) ends at the highest result the die can give
  with any modifier value (defaults, or a boolean param flipped).
- **Weights.** ``weight`` is the row's share of the die's outcomes (a W20 row 1-7 weighs 7;
  a 2W6 row 7 weighs 6 of 36), so Foundry's "Normalize" keeps the odds; a weighted table
  keeps its weights, rolled as ``1d<sum>`` over consecutive ranges.
- **Texts.** ``name`` and v12's ``text`` are the row text in one language with ``{amount}``
  shown as an inline roll (``[[/r 2d10*100]]``) and other placeholders filled with the
  defaults and the row's values; ``description`` (HTML) adds the sub-die (``then``) and the
  effects as a list. Our data -- key, values, effects, sub-table -- is kept under
  ``flags.kerker`` in plain JSON.
- Lookup tables are read, not rolled: they are refused.
"""

from __future__ import annotations

import contextlib
import html
import json
import re
from collections.abc import Mapping
from typing import Any

from kerker.errors import N_, KerkerError
from kerker.tables.model import (
    AgainFx,
    AmountFx,
    ChanceFx,
    Effect,
    NoteFx,
    RollFx,
    Row,
    SubTable,
    Table,
    TextMap,
    pick_text,
)
from kerker.tables.registry import Registry, TableError

TABLE_IMG = "icons/svg/d20-grey.svg"
RESULT_IMG = "icons/svg/d20-black.svg"
FORMATS = ("foundry",)
MAX_DIGIT_DICE = 10

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_ID_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def foundry_formula(expression: str) -> str:
    """Our dice expression (no ``{...}`` left) in Foundry's roll syntax.

    Raises :class:`TableError` for what Foundry cannot express, and the dice errors of
    :func:`kerker.dice.parse` for what is not a dice expression.
    """
    from kerker.dice import parse

    return _node(parse(expression).root, expression)


def _node(node: Any, source: str) -> str:
    from kerker.dice.ast import BinOp, Call, Dice, Group, Neg, Num

    if isinstance(node, Num):
        return str(node.value)
    if isinstance(node, Dice):
        return _dice(node, source)
    if isinstance(node, BinOp):
        left, right = _node(node.left, source), _node(node.right, source)
        if node.op == "/":
            return f"floor({left}/{right})"
        return f"{left}{node.op}{right}"
    if isinstance(node, Neg):
        return f"-{_node(node.operand, source)}"
    if isinstance(node, Call):
        return f"{node.name}({','.join(_node(a, source) for a in node.args)})"
    assert isinstance(node, Group)
    return f"({_node(node.inner, source)})"


def _refuse(source: str, why: str) -> TableError:
    return TableError(
        N_("the dice {dice!r} cannot be written as a Foundry formula: {why}"),
        dice=source,
        why=why,
    )


def _cond(op: str, value: int, source: str) -> str:
    if value < 0:
        raise _refuse(source, "Foundry has no negative faces in a condition")
    return str(value) if op == "=" else f"{op}{value}"


def _dice(node: Any, source: str) -> str:
    from kerker.dice.ast import Num

    die = node.die
    count = node.count
    if die.kind == "digits":
        if node.reroll or node.explode or node.keep or node.success:
            raise _refuse(source, "a digit die (W66) cannot take modifiers in Foundry")
        if not isinstance(count, Num):
            raise _refuse(source, "a digit die (W66) cannot have a rolled count in Foundry")
        if count.value > MAX_DIGIT_DICE:
            raise _refuse(source, f"more than {MAX_DIGIT_DICE} digit dice")
        one = "+".join(f"1d6*{10**k}" if k else "1d6" for k in range(die.digits - 1, -1, -1))
        if count.value == 1:
            return f"({one})"
        return "(" + "+".join(f"({one})" for _ in range(count.value)) + ")"
    faces = {"percent": "100", "fudge": "F"}.get(die.kind, str(die.sides))
    text = (str(count.value) if isinstance(count, Num) else _node(count, source)) + "d" + faces
    if node.reroll is not None:
        cond = node.reroll.cond
        text += ("r" if node.reroll.once else "rr") + _cond(cond.op, cond.value, source)
    if node.explode is not None:
        cond = node.explode.cond
        default = cond.op == "=" and cond.value == max(die.faces)
        text += "x" if default else "x" + _cond(cond.op, cond.value, source)
    if node.keep is not None:
        text += f"{node.keep.mode}{node.keep.n}"
    if node.success is not None:
        cond = node.success
        text += "cs" + (f"={cond.value}" if cond.op == "=" else _cond(cond.op, cond.value, source))
    return text


def _has_digit_die(expression: str) -> bool:
    from kerker.dice import parse
    from kerker.dice.ast import BinOp, Call, Dice, Group, Neg

    def walk(node: Any) -> bool:
        if isinstance(node, Dice):
            return node.die.kind == "digits" or walk(node.count)
        if isinstance(node, BinOp):
            return walk(node.left) or walk(node.right)
        if isinstance(node, Neg):
            return walk(node.operand)
        if isinstance(node, Group):
            return walk(node.inner)
        if isinstance(node, Call):
            return any(walk(a) for a in node.args)
        return False

    return walk(parse(expression).root)


def _foundry_id(*parts: object) -> str:
    """A 16-character Foundry id derived from ``parts`` (stable across runs and machines)."""
    import hashlib  # not at import time: OpenSSL's binding slows every cold start

    digest = hashlib.blake2b(
        "\x1f".join(str(p) for p in parts).encode("utf-8"), digest_size=16
    ).digest()
    return "".join(_ID_ALPHABET[b % len(_ID_ALPHABET)] for b in digest)


def _context(table: Table) -> dict[str, int | bool]:
    ctx: dict[str, int | bool] = {"level": 1}
    ctx.update(table.params)
    return ctx


def _evaluate(text: str | None, ctx: Mapping[str, int | bool], table: Table) -> int:
    from kerker.tables.expr import evaluate

    if text is None:
        return 0
    try:
        return int(evaluate(text, ctx))
    except KerkerError as exc:
        raise TableError(N_("{id}: {error}"), id=table.id, error=exc.message()) from None


def _fill(text: str, ctx: Mapping[str, int | bool], table: Table) -> str:
    from kerker.tables.expr import fill

    try:
        return fill(text, ctx)
    except KerkerError as exc:
        raise TableError(N_("{id}: {error}"), id=table.id, error=exc.message()) from None


def _formula(expression: str, table: Table) -> str:
    try:
        return foundry_formula(expression)
    except KerkerError as exc:
        raise TableError(N_("{id}: {error}"), id=table.id, error=exc.message()) from None


def _text_map(text: TextMap | None) -> dict[str, Any] | None:
    if text is None:
        return None
    return {
        lang: ({"one": v[0], "other": v[1]} if isinstance(v, tuple) else v)
        for lang, v in text.items()
    }


def _effect_json(effect: Effect, table: Table) -> dict[str, Any]:
    data: dict[str, Any]
    if isinstance(effect, RollFx):
        data = {
            "type": "roll",
            "table": table.resolve(effect.ref),
            "times": effect.times,
            "modifier": effect.modifier,
            "reroll_if": effect.reroll_if,
            "with": dict(effect.with_) or None,
        }
    elif isinstance(effect, AgainFx):
        data = {"type": "again", "add": dict(effect.add) or None, "reroll_if": effect.reroll_if}
    elif isinstance(effect, AmountFx):
        data = {
            "type": "amount",
            "amount": effect.amount,
            "name": effect.name,
            "unit": _text_map(effect.unit),
        }
    elif isinstance(effect, ChanceFx):
        data = {
            "type": "chance",
            "chance": effect.chance,
            "name": effect.name,
            "text": _text_map(effect.text),
            "else_text": _text_map(effect.else_text),
            "then": [_effect_json(e, table) for e in effect.then] or None,
            "else": [_effect_json(e, table) for e in effect.else_] or None,
        }
    else:
        data = {"type": "note", "note": _text_map(effect.note)}
    data["when"] = effect.when
    return {k: v for k, v in data.items() if v is not None}


def _plain(text: TextMap | None, lang: str) -> str:
    chosen = pick_text(text, lang)
    return chosen[1] if isinstance(chosen, tuple) else chosen


class _Exporter:
    def __init__(self, table: Table, lang: str) -> None:
        from kerker.i18n import translator

        self.table = table
        self.lang = lang
        self.ctx = _context(table)
        self._ = translator(lang)

    # -- texts ----------------------------------------------------------------------------
    def amount_roll(self, effect: AmountFx) -> str:
        expression = _fill(effect.amount, self.ctx, self.table)
        try:
            return f"[[/r {foundry_formula(expression)}]]"
        except KerkerError:
            return expression

    def row_text(self, row: Row, parent: Row | None = None) -> str:
        names: dict[str, str] = {}
        for key, value in self.ctx.items():
            names[key] = str(value).lower() if isinstance(value, bool) else str(value)
        for source in (parent, row):
            if source is None:
                continue
            for key, item in source.value.items():
                names[key] = str(item).lower() if isinstance(item, bool) else str(item)
            for effect in source.effects:
                if isinstance(effect, AmountFx):
                    names[effect.name] = self.amount_roll(effect)
        text = _plain(row.text, self.lang)
        return _PLACEHOLDER.sub(lambda m: names.get(m.group(1), m.group(0)), text)

    def effect_lines(self, effects: tuple[Effect, ...], shown: str = "") -> list[str]:
        """One HTML line per effect; amounts already in the text ``shown`` are left out."""
        _ = self._
        out: list[str] = []
        for effect in effects:
            if isinstance(effect, AmountFx) and "{" + effect.name + "}" in shown:
                continue
            if isinstance(effect, RollFx):
                times = _fill(effect.times, self.ctx, self.table)
                line = _("Roll on {table}").format(table=self.table.resolve(effect.ref))
                if times != "1":
                    with contextlib.suppress(KerkerError):
                        times = f"[[/r {foundry_formula(times)}]]"
                    line += f" ({times}×)"
                if effect.modifier:
                    line += " " + _("with modifier {modifier}").format(modifier=effect.modifier)
                out.append(html.escape(line, quote=False))
            elif isinstance(effect, AgainFx):
                out.append(html.escape(_("Roll this table again."), quote=False))
            elif isinstance(effect, AmountFx):
                unit = _plain(effect.unit, self.lang)
                out.append(f"{self.amount_roll(effect)} {html.escape(unit, quote=False)}".strip())
            elif isinstance(effect, ChanceFx):
                yes = html.escape(_plain(effect.text, self.lang), quote=False)
                no = html.escape(_plain(effect.else_text, self.lang), quote=False)
                line = f"{effect.chance} % [[/r 1d100]]: {yes or '✓'}"
                if no:
                    line += f" / {no}"
                inner = self.effect_lines(effect.then) + self.effect_lines(effect.else_)
                if inner:
                    line += "<ul>" + "".join(f"<li>{i}</li>" for i in inner) + "</ul>"
                out.append(line)
            elif isinstance(effect, NoteFx):
                out.append(html.escape(_plain(effect.note, self.lang), quote=False))
        return out

    def description(self, row: Row) -> str:
        parts = [f"<p>{html.escape(self.row_text(row), quote=False)}</p>"]
        if row.then is not None:
            parts.append(self.sub_table(row, row.then))
        lines = self.effect_lines(row.effects, _plain(row.text, self.lang))
        if lines:
            parts.append("<ul>" + "".join(f"<li>{line}</li>" for line in lines) + "</ul>")
        return "".join(parts)

    def sub_table(self, row: Row, sub: SubTable) -> str:
        expression = _fill(sub.dice, self.ctx, self.table)
        items = []
        for sub_row in sub.rows:
            text = html.escape(self.row_text(sub_row, row), quote=False)
            more = self.effect_lines(sub_row.effects, _plain(sub_row.text, self.lang))
            extra = "<ul>" + "".join(f"<li>{m}</li>" for m in more) + "</ul>" if more else ""
            items.append(f"<li>{html.escape(sub_row.label(), quote=False)}: {text}{extra}</li>")
        head = html.escape(expression, quote=False)
        return f"<p>{head}: [[/r {_formula(expression, self.table)}]]</p><ul>{''.join(items)}</ul>"

    def table_description(self, formula_note: str | None) -> str:
        _ = self._
        table = self.table
        parts = [
            _("Source: {seed}, “{heading}”").format(seed=table.seed or "?", heading=table.heading)
        ]
        if table.decision:
            parts.append(_("Decision: {decision}").format(decision=table.decision))
        for note in table.notes:
            parts.append(_plain(note, self.lang))
        if formula_note:
            parts.append(formula_note)
        reads = set(table.params)
        if table.dice and "{" in table.dice:
            reads.add("level")
        if reads or any(
            isinstance(e, AmountFx) and "{" in e.amount for row in table.rows for e in row.effects
        ):
            shown = ", ".join(
                f"{k} = {str(v).lower() if isinstance(v, bool) else v}" for k, v in self.ctx.items()
            )
            parts.append(_("Rolled with the defaults: {values}.").format(values=shown))
        parts.append(_("Exported from kerker: {id}").format(id=table.id))
        return "".join(f"<p>{html.escape(p, quote=False)}</p>" for p in parts)

    # -- the document ---------------------------------------------------------------------
    def document(self) -> dict[str, Any]:
        table = self.table
        if table.kind == "lookup":
            raise TableError(
                N_("{id}: a lookup table cannot be exported as a roll table"), id=table.id
            )
        formula_note: str | None = None
        ranges: list[tuple[int, int, int]] = []
        if table.kind == "weighted":
            total = 0
            for row in table.rows:
                weight = row.weight or 1
                ranges.append((total + 1, total + weight, weight))
                total += weight
            formula = f"1d{total}"
        else:
            formula, ranges, formula_note = self.dice_ranges()
        results = []
        for index, (row, (lo, hi, weight)) in enumerate(zip(table.rows, ranges, strict=True)):
            name = self.row_text(row)
            flags: dict[str, Any] = {"row": row.label()}
            if row.key is not None:
                flags["key"] = row.key
            if row.value:
                flags["value"] = dict(row.value)
            if row.effects:
                flags["effects"] = [_effect_json(e, table) for e in row.effects]
            if row.then is not None:
                flags["then"] = self.then_json(row.then)
            results.append(
                {
                    "_id": _foundry_id(table.id, index),
                    "type": "text",
                    "name": name,
                    "text": name,
                    "description": self.description(row),
                    "img": RESULT_IMG,
                    "weight": weight,
                    "range": [lo, hi],
                    "drawn": False,
                    "flags": {"kerker": flags},
                }
            )
        return {
            "_id": _foundry_id(table.id),
            "name": _plain(table.title, self.lang) or table.id,
            "img": TABLE_IMG,
            "description": self.table_description(formula_note),
            "formula": formula,
            "replacement": True,
            "displayRoll": True,
            "results": results,
            "flags": {
                "kerker": {
                    "id": table.id,
                    "rule_set": table.rule_set,
                    "dice": table.dice,
                    "modifier": table.modifier,
                    "params": dict(table.params),
                    "language": table.language,
                    "seed": table.seed,
                    "heading": table.heading,
                    "default": table.default,
                }
            },
        }

    def dice_ranges(self) -> tuple[str, list[tuple[int, int, int]], str | None]:
        """Formula, (lo, hi, weight) per row and a note for digit dice."""
        from kerker.dice import odds

        table = self.table
        assert table.dice is not None
        expression = _fill(table.dice, self.ctx, table)
        formula = _formula(expression, table)
        modifier = _evaluate(table.modifier, self.ctx, table)
        if modifier:
            formula += f" + {modifier}" if modifier > 0 else f" - {-modifier}"
        try:
            counts = odds(expression).counts
        except KerkerError as exc:
            raise TableError(N_("{id}: {error}"), id=table.id, error=exc.message()) from None
        top = max(counts) + max(self.modifier_values(modifier))
        ranges = []
        for row in table.rows:
            assert row.lo is not None
            hi = row.hi if row.hi is not None else max(top, row.lo)
            weight = sum(c for face, c in counts.items() if row.lo <= face + modifier <= hi)
            ranges.append((row.lo, hi, max(1, weight)))
        _ = self._
        note = None
        if _has_digit_die(expression):
            note = _(
                "{dice} is a digit die: tens from one d6, units from another; "
                "Foundry rolls it as {formula}."
            ).format(dice=expression, formula=formula)
        return formula, ranges, note

    def modifier_values(self, default: int) -> set[int]:
        values = {default}
        table = self.table
        if table.modifier is None:
            return values
        for name, value in table.params.items():
            if isinstance(value, bool):
                try:
                    values.add(_evaluate(table.modifier, {**self.ctx, name: not value}, table))
                except TableError:
                    continue
        return values

    def then_json(self, sub: SubTable) -> dict[str, Any]:
        expression = _fill(sub.dice, self.ctx, self.table)
        return {
            "dice": sub.dice,
            "formula": _formula(expression, self.table),
            "rows": [
                {
                    k: v
                    for k, v in {
                        "range": [r.lo, r.hi],
                        "key": r.key,
                        "text": self.row_text(r),
                        "value": dict(r.value) or None,
                        "effects": [_effect_json(e, self.table) for e in r.effects] or None,
                    }.items()
                    if v is not None
                }
                for r in sub.rows
            ],
        }


def to_foundry(table: Table, lang: str) -> dict[str, Any]:
    """The Foundry VTT v13 RollTable document of ``table`` with texts in ``lang``.

    Plain JSON data (dicts, lists, str, int, bool, None) in a fixed key order. Refuses a
    lookup table and dice Foundry cannot express with :class:`TableError`; an unknown
    ``lang`` raises :class:`~kerker.errors.OptionError`.
    """
    from kerker.i18n import check_language

    return _Exporter(table, check_language(lang)).document()


def export_table(
    registry: Registry, table_id: str, fmt: str = "foundry", *, lang: str | None = None
) -> str:
    """The table ``table_id`` as export text: for ``foundry``, a RollTable JSON document.

    ``lang`` defaults to the table's own language. JSON is indented, with the keys in a
    fixed order and non-ASCII letters kept (``ensure_ascii=False``); it ends with a newline.
    Unknown tables and formats raise :class:`TableError`.
    """
    if fmt.lower() not in FORMATS:
        raise TableError(
            N_("unknown export format {fmt!r}; choose one of {choices}"),
            fmt=fmt,
            choices=", ".join(FORMATS),
        )
    table = registry.get(table_id)
    document = to_foundry(table, lang or table.language)
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"
