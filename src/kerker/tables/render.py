"""Text and JSON views of rolled tables, in the reader's language (dice too: ``W20`` in
German, ``d20`` in Italian and English; the JSON keeps the tables' own notation)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kerker.i18n import dice_text
from kerker.tables.engine import AmountResult, ChanceResult, NoteResult, RowPick, TableResult
from kerker.tables.model import Row, TextMap, pick_text

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def number(value: int, lang: str) -> str:
    """A whole number the way the language writes it: 1 300 (de), 1.300 (it), 1,300 (en)."""
    text = f"{abs(value):,}"
    if lang == "de":
        text = text.replace(",", "\u00a0")
    elif lang == "it":
        text = text.replace(",", ".")
    return f"-{text}" if value < 0 else text


def fill_text(
    text: TextMap | None, lang: str, names: Mapping[str, Any], count: int | None = None
) -> str:
    """The text in ``lang`` with ``{name}`` filled in (only plain names, nothing else).

    Count-dependent text takes its ``one`` form when ``count`` is 1.
    """
    chosen = pick_text(text, lang)
    if isinstance(chosen, tuple):
        chosen = chosen[0] if count == 1 else chosen[1]

    def one(match: re.Match[str]) -> str:
        value = names.get(match.group(1))
        if value is None:
            return match.group(0)
        if isinstance(value, bool):
            return str(value).lower()
        return number(value, lang) if isinstance(value, int) else str(value)

    return _PLACEHOLDER.sub(one, chosen)


def _names(result: TableResult) -> dict[str, Any]:
    names: dict[str, Any] = dict(result.context)
    names.update(result.values)
    names.update(result.amounts())
    names["result"] = result.pick.total
    return names


def _count(result: TableResult) -> int | None:
    amounts = [e for e in result.effects if isinstance(e, AmountResult)]
    return amounts[0].value if amounts else None


def row_text(result: TableResult, lang: str) -> str:
    """The result's row text (the sub-die row's when there was one), filled in."""
    names = _names(result)
    count = _count(result)
    if result.sub is not None:
        return fill_text(result.sub.row.text, lang, names, count)
    return fill_text(result.pick.row.text, lang, names, count)


def _pick_line(pick: RowPick) -> str:
    line = pick.roll.explain()
    if pick.modifier:
        line += f" {'+' if pick.modifier > 0 else '-'} {abs(pick.modifier)} = {pick.total}"
    if pick.rerolled:
        line += "  (" + ", ".join(f"~{r}~" for r in pick.rerolled) + ")"
    return line


def lines(
    result: TableResult, lang: str, *, explain: bool = False, indent: int = 0, final: bool = False
) -> list[str]:
    """The result as indented lines: title: text, then amounts, checks, notes, follow-ups.

    ``final``: amounts as their values only ("4 monsters", not "1d4+1 -> 4 monsters"), for
    texts a game master reads at the table; :func:`amount_rolls` lists the rolls.
    """
    pad = "  " * indent
    title = pick_text(result.table.title, lang)
    head = f"{pad}{title}: {row_text(result, lang)}"
    if explain:
        shown = _pick_line(result.pick)
        if result.sub is not None:
            shown += f"; {_pick_line(result.sub)}"
        head += f"   [{dice_text(shown, lang)}]"
    out = [head]
    out += _effect_lines(result.effects, lang, explain=explain, indent=indent + 1, final=final)
    if result.again is not None:
        out += lines(result.again, lang, explain=explain, indent=indent + 1, final=final)
    return out


_LONG_NUMBER = re.compile(r"(?<![\w{.,])(\d{4,})(?![\w}.,])")


def _dice_shown(expression: str, lang: str) -> str:
    """An amount's dice as a reader writes them: ``1W6 × 10`` (de), ``1d6 × 10``; a
    product with ``×`` and long numbers in the language's way (``1.000 × 2`` in it)."""
    shown = dice_text(re.sub(r"\s*\*\s*", " × ", expression.strip()), lang)
    return _LONG_NUMBER.sub(lambda m: number(int(m.group(1)), lang), shown)


def final_text(
    result: TableResult,
    lang: str,
    *,
    leave_out: frozenset[str] = frozenset(),
    untold: frozenset[str] = frozenset(),
) -> str:
    """What ``result`` leaves, the way a game master reads it at the table: the row text
    (the sub-die row's), then what its checks, notes and follow-ups add, one sentence
    after the other -- no table title, no chance mark, no roll, no amount twice.

    What is rolled in play (``in_play`` tables, checks and amounts: a fall into a pit, a
    poisoned arrow, how long a wall stays shut) is not told as rolled here: an amount reads
    as its dice in ``lang``'s notation ("1W6 × 10 Spielrunden"), a check or follow-up is
    left out (the row text states the rule; the roll log keeps the roll). Follow-ups on a
    table whose id is in ``leave_out`` (what the map and the exits show) are left out too.
    A row that sets a value named in ``untold`` (``width_ft``: what the area's size line
    says) gives no text of its own; what it rolls on is told.
    """
    parts: list[str] = []
    _final(result, lang, leave_out, parts, untold)
    return " ".join(p for p in parts if p)


def _final(
    node: TableResult,
    lang: str,
    leave_out: frozenset[str],
    parts: list[str],
    untold: frozenset[str] = frozenset(),
) -> None:
    names: dict[str, Any] = dict(node.context)
    names.update(node.values)
    count: int | None = None
    for effect in node.effects:
        if isinstance(effect, AmountResult):
            if effect.in_play:  # the dice, not the value the values already hold
                names[effect.name] = _dice_shown(effect.expression, lang)
            elif count is None:
                count = effect.value
    names["result"] = node.pick.total
    text = pick_text(node.sub.row.text if node.sub is not None else node.pick.row.text, lang)
    used = set(_PLACEHOLDER.findall(" ".join(text) if isinstance(text, tuple) else text))
    row = node.sub.row if node.sub is not None else node.pick.row
    if not untold.intersection(row.value):
        parts.append(fill_text(row.text, lang, names, count))
    _final_effects(node.effects, lang, leave_out, parts, names, used, count)
    if node.again is not None:
        _final(node.again, lang, leave_out, parts, untold)


def _final_effects(
    effects: tuple[Any, ...],
    lang: str,
    leave_out: frozenset[str],
    parts: list[str],
    names: Mapping[str, Any],
    used: set[str],
    count: int | None,
) -> None:
    for effect in effects:
        if isinstance(effect, AmountResult):
            if effect.name in used or effect.expression.strip().isdigit():
                continue  # the text says it, or a fixed number
            value = _dice_shown(effect.expression, lang) if effect.in_play else None
            shown = value or number(effect.value, lang)
            unit = fill_text(effect.unit, lang, {}, None if value else effect.value)
            parts.append(f"{shown} {unit}".strip() + ".")
        elif isinstance(effect, ChanceResult):
            if effect.in_play:
                continue
            if effect.text:
                parts.append(fill_text(effect.text, lang, names, count))
            _final_effects(effect.effects, lang, leave_out, parts, names, used, count)
        elif isinstance(effect, NoteResult):
            parts.append(fill_text(effect.note, lang, names, count))
        elif isinstance(effect, TableResult):
            if effect.table.in_play or effect.table.id in leave_out:
                continue
            _final(effect, lang, leave_out, parts)


def amount_rolls(result: TableResult, lang: str) -> list[str]:
    """Every rolled amount of the result and its follow-ups as ``"1d4+1 -> 4 monsters"``
    (fixed numbers left out: the texts say them), in the order :func:`lines` shows them."""
    out: list[str] = []
    _walk_result(result, lang, out)
    return out


def _walk_result(node: TableResult, lang: str, out: list[str]) -> None:
    # plain functions, not closures of each other: two closures that call each other are
    # a reference cycle per call, garbage only the cyclic collector can free
    _walk_effects(node.effects, lang, out)
    if node.again is not None:
        _walk_result(node.again, lang, out)


def _walk_effects(effects: tuple[Any, ...], lang: str, out: list[str]) -> None:
    for effect in effects:
        if isinstance(effect, AmountResult) and not effect.expression.strip().isdigit():
            out.append(_amount_text(effect, lang, final=False))
        elif isinstance(effect, ChanceResult):
            _walk_effects(effect.effects, lang, out)
        elif isinstance(effect, TableResult):
            _walk_result(effect, lang, out)


def _amount_text(effect: AmountResult, lang: str, *, final: bool) -> str:
    unit = fill_text(effect.unit, lang, {}, effect.value) if effect.unit else ""
    value = number(effect.value, lang)
    shown = value if final else f"{_dice_shown(effect.expression, lang)} -> {value}"
    return f"{shown} {unit}" if unit else shown


def _effect_lines(
    effects: tuple[Any, ...], lang: str, *, explain: bool, indent: int, final: bool = False
) -> list[str]:
    pad = "  " * indent
    out: list[str] = []
    for effect in effects:
        if isinstance(effect, AmountResult):
            if effect.expression.strip().isdigit():
                continue  # a fixed number: the row text already says it
            shown = _amount_text(effect, lang, final=final)
            if explain:
                shown += f"   [{dice_text(effect.roll.explain(), lang)}]"
            out.append(f"{pad}· {shown}")
        elif isinstance(effect, ChanceResult):
            text = fill_text(effect.text, lang, {}) if effect.text else ""
            verdict = f"{effect.chance} %: {'✓' if effect.passed else '✗'}"
            line = f"{pad}· {text} ({verdict})" if text else f"{pad}· {verdict}"
            if explain:
                line += f"   [{dice_text(effect.roll.explain(), lang)}]"
            out.append(line)
            out += _effect_lines(
                effect.effects, lang, explain=explain, indent=indent + 1, final=final
            )
        elif isinstance(effect, NoteResult):
            out.append(f"{pad}· {fill_text(effect.note, lang, {})}")
        elif isinstance(effect, TableResult):
            out += lines(effect, lang, explain=explain, indent=indent, final=final)
    return out


def _pick_json(pick: RowPick) -> dict[str, Any]:
    return {
        "dice": pick.dice,
        "roll": pick.roll.total,
        "modifier": pick.modifier,
        "total": pick.total,
        "rerolled": list(pick.rerolled),
        "explain": pick.roll.explain(),
        "row": _row_ref(pick.row, pick.index),
    }


def _row_ref(row: Row, index: int) -> dict[str, Any]:
    return {
        "index": index,
        "range": None if row.lo is None else [row.lo, row.hi],
        "weight": row.weight,
        "key": row.key,
    }


def to_json(result: TableResult, lang: str) -> dict[str, Any]:
    """The result tree with stable English keys and the texts in ``lang``."""
    data: dict[str, Any] = {
        "table": result.table.id,
        "title": pick_text(result.table.title, lang),
        "key": result.key,
        "text": row_text(result, lang),
        "values": dict(result.values),
        "context": dict(result.context),
    }
    data.update(_pick_json(result.pick))
    if result.sub is not None:
        data["sub"] = _pick_json(result.sub)
    data["effects"] = [_effect_json(e, lang) for e in result.effects]
    if result.again is not None:
        data["again"] = to_json(result.again, lang)
    return data


def _effect_json(effect: Any, lang: str) -> dict[str, Any]:
    if isinstance(effect, AmountResult):
        return {
            "type": "amount",
            "name": effect.name,
            "expression": effect.expression,
            "total": effect.value,
            "explain": effect.roll.explain(),
            "unit": fill_text(effect.unit, lang, {}, effect.value) if effect.unit else None,
        }
    if isinstance(effect, ChanceResult):
        return {
            "type": "chance",
            "name": effect.name,
            "chance": effect.chance,
            "roll": effect.roll.total,
            "passed": effect.passed,
            "text": fill_text(effect.text, lang, {}) if effect.text else None,
            "effects": [_effect_json(e, lang) for e in effect.effects],
        }
    if isinstance(effect, NoteResult):
        return {"type": "note", "text": fill_text(effect.note, lang, {})}
    assert isinstance(effect, TableResult)
    out = to_json(effect, lang)
    out["type"] = "table"
    return out
