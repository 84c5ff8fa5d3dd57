"""Helpers shared by the rule-data tests (tests/test_rules_*.py): loading a rule-set folder,
the contexts a table can be rolled in, the exact results and row odds of a table, and an
evaluator of safe expressions of the tests' own (an oracle apart from the engine's)."""

from __future__ import annotations

import ast
import itertools
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from conftest import require

from kerker.dice import odds
from kerker.tables.expr import evaluate
from kerker.tables.schema import ChanceEffect, Row, Table, TableFile
from kerker.yamlio import load_yaml_file

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"

Context = dict[str, int | bool]


def load_tables(folder: Path) -> tuple[dict[Path, TableFile], dict[str, Table]]:
    """Every table file of a rule-set folder (validated) and its tables by name."""
    files = {p: TableFile.model_validate(load_yaml_file(p)) for p in sorted(folder.glob("*.yaml"))}
    tables: dict[str, Table] = {}
    for tf in files.values():
        for table in tf.tables:
            assert table.name not in tables, f"table {table.name} defined twice"
            tables[table.name] = table
    return files, tables


def contexts(table: Table, samples: Mapping[str, range | list[int]]) -> Iterator[Context]:
    """Every setting of the table's parameters: booleans both ways, numbers from ``samples``."""
    names = sorted(table.params)
    choices = [
        [False, True]
        if isinstance(table.params[n], bool)
        else list(samples.get(n, [table.params[n]]))
        for n in names
    ]
    for combo in itertools.product(*choices):
        yield {"level": 1, **dict(zip(names, combo, strict=True))}


def fill(dice: str, ctx: Mapping[str, int | bool]) -> str:
    """A dice template with its ``{name}`` parts replaced by the context's values."""
    return re.sub(r"\{([a-z_]+)\}", lambda m: str(int(ctx[m.group(1)])), dice)


def covers(row: Row, total: int) -> bool:
    """Whether a roll of ``total`` lands on ``row`` (``[n, null]`` is open-ended)."""
    assert row.range is not None
    lo, hi = row.range
    return lo <= total and (hi is None or total <= hi)


def modifier(table: Table, ctx: Mapping[str, int | bool]) -> int:
    """The table's modifier in this context."""
    return int(evaluate(table.modifier, ctx)) if table.modifier else 0


def totals(table: Table, ctx: Mapping[str, int | bool]) -> set[int]:
    """Every possible (modified) result of the table's die in this context."""
    assert table.dice is not None
    mod = modifier(table, ctx)
    return {face + mod for face, n in odds(fill(table.dice, ctx)).counts.items() if n}


def row_odds(table: Table, ctx: Mapping[str, int | bool]) -> dict[str, Fraction]:
    """The exact chance of each row key in this context."""
    assert table.dice is not None
    mod = modifier(table, ctx)
    dist = odds(fill(table.dice, ctx))
    counts: Counter[str] = Counter()
    for face, n in dist.counts.items():
        (row,) = [r for r in table.rows if covers(r, face + mod)]
        counts[row.key or ""] += n
    return {key: Fraction(n, dist.total) for key, n in counts.items()}


def read_seed(name: str) -> str:
    """The text of a seed beside the checkout; skips the test when it is not there."""
    path = require(SEEDS / name, f"the rule text {name} beside the checkout")
    return path.read_text(encoding="utf-8")


def row_for(table: Table, result: int) -> Row:
    """The row of ``table`` a roll of ``result`` lands on (an assertion error when none)."""
    for row in table.rows:
        if covers(row, result):
            return row
    raise AssertionError(f"{table.name}: no row for {result}")


def all_rows(table: Table) -> list[Row]:
    """The rows of ``table``, then the rows of every row's sub-die (``then``)."""
    rows = list(table.rows)
    for row in table.rows:
        if row.then is not None:
            rows += row.then.rows
    return rows


def walk_effects(effects: Sequence[Any]) -> list[Any]:
    """The effects, each followed by those inside it (a chance's ``then`` and ``else``)."""
    out: list[Any] = []
    for effect in effects:
        out.append(effect)
        if isinstance(effect, ChanceEffect):
            out += walk_effects(effect.then) + walk_effects(effect.else_)
    return out


TEMPLATE = re.compile(r"\{([^{}]*)\}")
"""A ``{expression}`` part of a dice template or an amount."""


def oracle_evaluate(text: str, ctx: Mapping[str, int | bool]) -> int | bool:
    """The value of a safe expression (``result > 96``, ``2 * level + 1``) by a tiny evaluator
    of the tests' own: an oracle independent of the engine's :mod:`kerker.tables.expr`."""
    consts = {"true": True, "false": False}

    def ev(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            return consts[node.id] if node.id in consts else ctx[node.id]
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Sub):
                return a - b
            if isinstance(node.op, ast.Mult):
                return a * b
            return a // b if isinstance(node.op, ast.FloorDiv) else a % b
        if isinstance(node, ast.UnaryOp):
            v = ev(node.operand)
            return (not v) if isinstance(node.op, ast.Not) else -v
        if isinstance(node, ast.BoolOp):
            vals = [ev(v) for v in node.values]
            return all(vals) if isinstance(node.op, ast.And) else any(vals)
        if isinstance(node, ast.Compare):
            left = ev(node.left)
            for op, comp in zip(node.ops, node.comparators, strict=True):
                right = ev(comp)
                ok = {
                    ast.Eq: left == right,
                    ast.NotEq: left != right,
                    ast.Lt: left < right,
                    ast.LtE: left <= right,
                    ast.Gt: left > right,
                    ast.GtE: left >= right,
                }
                if not ok[type(op)]:
                    return False
                left = right
            return True
        if isinstance(node, ast.IfExp):
            return ev(node.body) if ev(node.test) else ev(node.orelse)
        raise AssertionError(f"not a safe expression: {text!r}")

    return ev(ast.parse(text, mode="eval"))  # type: ignore[no-any-return]


def oracle_names(text: str) -> set[str]:
    """The context names a safe expression reads (``true``/``false`` are constants)."""
    return {
        n.id
        for n in ast.walk(ast.parse(text, mode="eval"))
        if isinstance(n, ast.Name) and n.id not in ("true", "false")
    }


def oracle_fill(text: str, ctx: Mapping[str, int | bool]) -> str:
    """A template with each ``{expression}`` replaced by its value (:func:`oracle_evaluate`)."""
    return TEMPLATE.sub(lambda m: str(int(oracle_evaluate(m.group(1), ctx))), text)
