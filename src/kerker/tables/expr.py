"""Safe expressions for table data: conditions, modifiers, ``{...}`` templates.

Grammar: whole numbers, ``true``/``false``, context variables, ``+ - * // %``, unary ``-``,
comparisons (chains allowed), ``and``/``or``/``not``, parentheses and ``a if c else b``.
The text is parsed with Python's own parser (``ast.parse``, which evaluates nothing) and
every node is checked against that whitelist; evaluation walks the checked tree. No
``eval``, no calls, no attributes, no strings -- and caps on length and depth.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from functools import lru_cache

from kerker.errors import N_, RuleDataError

MAX_LENGTH = 200
MAX_DEPTH = 20
MAX_MAGNITUDE = 10**12

Context = Mapping[str, int | bool]

_CONSTANTS = {"true": True, "false": False, "True": True, "False": False}
_TEMPLATE = re.compile(r"\{([^{}]*)\}")


class ExprError(RuleDataError):
    """A safe expression that cannot be read or evaluated."""

    code = "table_expr"


def _check(node: ast.AST, text: str, depth: int = 0) -> None:
    if depth > MAX_DEPTH:
        raise ExprError(N_("expression {text!r} is nested too deeply"), text=text)
    if isinstance(node, ast.Expression):
        _check(node.body, text, depth + 1)
        return
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or (
            isinstance(node.value, int) and abs(node.value) <= MAX_MAGNITUDE
        ):
            return
        raise ExprError(N_("expression {text!r}: only whole numbers are allowed"), text=text)
    if isinstance(node, ast.Name):
        return
    if isinstance(node, ast.BinOp) and isinstance(
        node.op, ast.Add | ast.Sub | ast.Mult | ast.FloorDiv | ast.Mod
    ):
        _check(node.left, text, depth + 1)
        _check(node.right, text, depth + 1)
        return
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd | ast.Not):
        _check(node.operand, text, depth + 1)
        return
    if isinstance(node, ast.BoolOp):
        for value in node.values:
            _check(value, text, depth + 1)
        return
    if isinstance(node, ast.Compare) and all(
        isinstance(op, ast.Eq | ast.NotEq | ast.Lt | ast.LtE | ast.Gt | ast.GtE) for op in node.ops
    ):
        _check(node.left, text, depth + 1)
        for comparator in node.comparators:
            _check(comparator, text, depth + 1)
        return
    if isinstance(node, ast.IfExp):
        for part in (node.test, node.body, node.orelse):
            _check(part, text, depth + 1)
        return
    raise ExprError(
        N_("expression {text!r}: {what} is not allowed (see docs/tables.md)"),
        text=text,
        what=type(node).__name__,
    )


@lru_cache(maxsize=2048)
def compile_expr(text: str) -> ast.Expression:
    """Parse and check a safe expression; raises :class:`ExprError` for anything else."""
    if not isinstance(text, str) or not text.strip():
        raise ExprError(N_("empty expression"))
    if len(text) > MAX_LENGTH:
        raise ExprError(N_("expression longer than {max} characters"), max=MAX_LENGTH)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise ExprError(N_("expression {text!r} cannot be read"), text=text) from exc
    _check(tree, text)
    return tree


def names(text: str) -> set[str]:
    """The variables an expression reads (``true``/``false`` excluded)."""
    tree = compile_expr(text)
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and node.id not in _CONSTANTS
    }


def evaluate(text: str, context: Context) -> int | bool:
    """Evaluate a safe expression in ``context``; unknown names and ``// 0`` are refused."""
    return _eval(compile_expr(text).body, context, text)


def _eval(node: ast.AST, ctx: Context, text: str) -> int | bool:
    if isinstance(node, ast.Constant):
        value = node.value
        assert isinstance(value, int)
        return value
    if isinstance(node, ast.Name):
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        if node.id not in ctx:
            raise ExprError(
                N_("expression {text!r}: unknown name {name!r}"), text=text, name=node.id
            )
        return ctx[node.id]
    if isinstance(node, ast.BinOp):
        a = int(_eval(node.left, ctx, text))
        b = int(_eval(node.right, ctx, text))
        if isinstance(node.op, ast.Add):
            result = a + b
        elif isinstance(node.op, ast.Sub):
            result = a - b
        elif isinstance(node.op, ast.Mult):
            result = a * b
        else:
            if b == 0:
                raise ExprError(N_("expression {text!r}: division by zero"), text=text)
            result = a // b if isinstance(node.op, ast.FloorDiv) else a % b
        if abs(result) > MAX_MAGNITUDE:
            raise ExprError(N_("expression {text!r}: number too large"), text=text)
        return result
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, ctx, text)
        if isinstance(node.op, ast.Not):
            return not value
        return -int(value) if isinstance(node.op, ast.USub) else int(value)
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            return all(_eval(v, ctx, text) for v in node.values)
        return any(_eval(v, ctx, text) for v in node.values)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, ctx, text)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = _eval(comparator, ctx, text)
            if isinstance(op, ast.Eq):
                ok = left == right
            elif isinstance(op, ast.NotEq):
                ok = left != right
            elif isinstance(op, ast.Lt):
                ok = left < right
            elif isinstance(op, ast.LtE):
                ok = left <= right
            elif isinstance(op, ast.Gt):
                ok = left > right
            else:
                ok = left >= right
            if not ok:
                return False
            left = right
        return True
    assert isinstance(node, ast.IfExp)
    if _eval(node.test, ctx, text):
        return _eval(node.body, ctx, text)
    return _eval(node.orelse, ctx, text)


def template_names(text: str) -> set[str]:
    """The variables read by the ``{...}`` parts of a template."""
    found: set[str] = set()
    for part in _TEMPLATE.findall(text):
        found |= names(part)
    return found


def fill(text: str, context: Context) -> str:
    """Replace every ``{expr}`` of a dice-expression template by its whole-number value."""
    if "{" not in text:
        return text

    def one(match: re.Match[str]) -> str:
        inner = match.group(1)
        if inner.strip().isdigit():  # W{66}: a true die's faces, not a template
            return match.group(0)
        return str(int(evaluate(inner, context)))

    return _TEMPLATE.sub(one, text)
