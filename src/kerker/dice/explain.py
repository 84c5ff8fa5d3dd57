"""Text and JSON renderers over syntax trees and roll records.

Marks in explanations (docs/dice.md): ``(1)`` a dropped die, ``~1~`` a face rerolled away,
``6!+3`` a die that exploded into another, ``5*`` a die counted as a success.
"""

from __future__ import annotations

from typing import Any

from kerker.dice.ast import BinOp, Call, Dice, Neg, Node, Num
from kerker.dice.records import (
    BinRecord,
    CallRecord,
    DiceRecord,
    GroupRecord,
    NegRecord,
    NumRecord,
    Record,
    Roll,
)


def node_text(node: Node) -> str:
    """A normalised spelling of ``node`` (dice letter kept as written)."""
    if isinstance(node, Num):
        return str(node.value)
    if isinstance(node, Dice):
        parts = []
        if not node.implicit_count:
            parts.append(node_text(node.count))
        parts.append(node.die.text(node.letter))
        if node.reroll is not None:
            cond = node.reroll.cond
            parts.append(("ro" if node.reroll.once else "r") + _cond(cond.op, cond.value))
        if node.explode is not None:
            cond = node.explode.cond
            default = cond.op == "=" and cond.value == max(node.die.faces)
            parts.append("!" if default else "!" + _cond(cond.op, cond.value))
        if node.keep is not None:
            parts.append(f"{node.keep.mode}{node.keep.n}")
        if node.success is not None:
            parts.append(node.success.text())
        return "".join(parts)
    if isinstance(node, BinOp):
        return f"{node_text(node.left)} {_symbol(node.symbol)} {node_text(node.right)}"
    if isinstance(node, Neg):
        return f"-{node_text(node.operand)}"
    if isinstance(node, Call):
        return f"{node.name}({', '.join(node_text(a) for a in node.args)})"
    return f"({node_text(node.inner)})"


def _cond(op: str, value: int) -> str:
    return str(value) if op == "=" else f"{op}{value}"


def _symbol(symbol: str) -> str:
    if symbol in ("x", "X", "·", "⋅"):
        return "×"
    if symbol in ("\u2212", "\u2013"):
        return "-"
    if symbol in (":", "÷"):
        return "/"
    return symbol


_SOURCE = "explain:source"
"""Key of the normalised source text in an :class:`~kerker.dice.ast.Expr`'s cache."""


def explain(roll: Roll) -> str:
    """``<expression> -> <dice shown> = <total>`` in one line."""
    cache = roll.expr.cache
    source = cache.get(_SOURCE)
    if source is None:
        source = cache[_SOURCE] = " ".join(roll.expr.source.split())
    assert isinstance(source, str)
    record = roll.record
    if (
        type(record) is DiceRecord
        and record.count_record is None
        and record.throws is None
        and record.kept is None
        and record.hits is None
    ):
        # the common plain throw ("W20 -> [15] = 15"), as render_record would show it; a
        # single die's text is kept in the cache under its values (at most one per face)
        values = record.values
        if len(values) == 1:
            text = cache.get(values)
            if text is None:
                text = cache[values] = f"{source} -> [{values[0]}] = {roll.total}"
            assert isinstance(text, str)
            return text
        return f"{source} -> [{', '.join(map(str, values))}] = {roll.total}"
    if not _has_dice(roll.record):
        return f"{source} = {roll.total}"
    shown = render_record(roll.record)
    return f"{source} -> {shown} = {roll.total}"


def _has_dice(record: Record) -> bool:
    if isinstance(record, DiceRecord):
        return True
    if isinstance(record, BinRecord):
        return _has_dice(record.left) or _has_dice(record.right)
    if isinstance(record, NegRecord):
        return _has_dice(record.operand)
    if isinstance(record, GroupRecord):
        return _has_dice(record.inner)
    if isinstance(record, CallRecord):
        return any(_has_dice(a) for a in record.args)
    return False


def render_record(record: Record) -> str:
    """The expression with every dice term replaced by its dice, e.g. ``[7, 6] × 100``."""
    if isinstance(record, NumRecord):
        return str(record.total)
    if isinstance(record, DiceRecord):
        shown = "[" + ", ".join(_die_text(record, i) for i in range(len(record.values))) + "]"
        if record.count_record is not None:
            count = render_record(record.count_record)
            if not isinstance(record.count_record, GroupRecord):
                count = f"({count})"
            return f"{count}: {shown}"
        return shown
    if isinstance(record, BinRecord):
        symbol = _symbol(record.node.symbol)
        return f"{render_record(record.left)} {symbol} {render_record(record.right)}"
    if isinstance(record, NegRecord):
        return f"-{render_record(record.operand)}"
    if isinstance(record, CallRecord):
        return f"{record.node.name}({', '.join(render_record(a) for a in record.args)})"
    return f"({render_record(record.inner)})"


def _die_text(record: DiceRecord, i: int) -> str:
    if record.throws is not None and len(record.throws[i]) > 1:
        # In throw order: rerolled faces stand before the throw that replaced them.
        segments: list[str] = []
        pending: list[str] = []
        for face, mark in record.throws[i]:
            if mark == "r":
                pending.append(f"~{face}~")
                continue
            pending.append(f"{face}!" if mark == "!" else str(face))
            segments.append(" ".join(pending))
            pending = []
        text = "+".join(segments)
    else:
        text = str(record.values[i])
    kept = record.kept is None or record.kept[i]
    if record.hits is not None and record.hits[i] and kept:
        text += "*" * record.hits[i]
    if not kept:
        text = f"({text})"
    return text


def record_json(record: Record) -> dict[str, Any]:
    """A JSON-ready tree with stable English keys (see docs/dice.md)."""
    if isinstance(record, NumRecord):
        return {"type": "number", "total": record.total}
    if isinstance(record, DiceRecord):
        node = record.node
        dice = []
        for i, value in enumerate(record.values):
            item: dict[str, Any] = {"value": value}
            item["kept"] = True if record.kept is None else record.kept[i]
            throws = record.throws[i] if record.throws is not None else ((value, ""),)
            item["throws"] = [
                {"face": face, "rerolled": mark == "r", "exploded": mark == "!"}
                for face, mark in throws
            ]
            if node.die.kind == "digits":
                for throw in item["throws"]:
                    throw["digits"] = [int(c) for c in str(throw["face"])]
            if record.hits is not None:
                item["hits"] = record.hits[i]
            dice.append(item)
        out: dict[str, Any] = {
            "type": "dice",
            "expr": node_text(node),
            "die": node.die.kind,
            "faces": len(node.die.faces),
            "count": len(record.values),
            "dice": dice,
            "total": record.total,
        }
        if record.count_record is not None:
            out["count_roll"] = record_json(record.count_record)
        return out
    if isinstance(record, BinRecord):
        return {
            "type": "op",
            "op": record.node.op,
            "left": record_json(record.left),
            "right": record_json(record.right),
            "total": record.total,
        }
    if isinstance(record, NegRecord):
        return {"type": "neg", "operand": record_json(record.operand), "total": record.total}
    if isinstance(record, CallRecord):
        return {
            "type": "call",
            "name": record.node.name,
            "args": [record_json(a) for a in record.args],
            "total": record.total,
        }
    return {"type": "group", "inner": record_json(record.inner), "total": record.total}
