"""The table linter: everything wrong with table files, each problem at its file:line:col.

:func:`lint_paths` reads table files (or folders of them) and reports, without raising:

- files that are not UTF-8 or not YAML (with the parser's line and column), YAML aliases
  that expand without end, and every schema violation (pydantic's messages, one per bad
  entry -- the alternatives of an effect or a text are narrowed to the one that was meant);
- rolled tables: results of the die (with the table's ``modifier`` for the defaults of its
  ``params`` and with each boolean flipped, plus the ``modifier`` of every ``roll`` that
  reaches it) that no row covers (unless ``gaps: reroll``), ranges that overlap, and rows
  no roll can reach; the same for every row's ``then`` sub-die. Digit dice (W66) use their
  real results, not min..max. The die is filled in with ``level`` 1: a die that grows with
  the level gets no "never hit" reports (the rows for high levels are meant);
- lookup tables with overlapping ranges; a ``modifier`` on a table that has no dice;
- ``roll`` references to tables that do not exist or cannot be rolled (lookup tables), and
  circles of ``roll`` references (``again`` is the capped way to roll a table again);
- texts (``text``, ``title``, ``unit``, ``note``, chance ``text``/``else_text``, table
  ``notes``) without all of de, it, en;
- safe expressions that do not compile or read unknown names, and ``{...}`` dice templates
  that do not give a dice expression with the defaults;
- ``{name}`` placeholders that nothing fills in (they would reach a player raw);
- the same table id defined in two linted files (a warning, but still a problem);
- a title or text missing in Italian or English: a warning only (``Problem.warning``), the
  table works with the text of another language and ``kerker table lint`` exits 0.

Known names in an expression: ``level``, the table's ``params``, every name that a ``with:``
in the linted files passes to the table, and ``result`` where the engine sets it (row
effects, ``reroll_if`` -- not the table's dice or modifier). Known table ids: the linted
files, the shipped tables and ``registry_paths``.

Pydantic is imported only when a file is linted; problems carry an English message and its
``N_`` template and parameters, so the CLI can show them translated.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from kerker.errors import N_, KerkerError, format_message
from kerker.limits import Limits
from kerker.tables.model import (
    LANGS,
    AgainFx,
    AmountFx,
    ChanceFx,
    Effect,
    NoteFx,
    RollFx,
    Row,
    Table,
    TextMap,
    build_table,
)
from kerker.tables.schema_text import SchemaText

LINT_LIMITS = Limits(max_outcomes=10_000, max_odds_work=2_000_000)
"""Caps for the exact results of a table's die (a table with more results is not sensible)."""

MAX_FILE_BYTES = 5_000_000
MAX_NODES = 500_000
MAX_SPANS_SHOWN = 8

_TEMPLATE = re.compile(r"\{([^{}]*)\}")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_EFFECT_TAGS = {
    "RollEffect": "roll",
    "AgainEffect": "again",
    "AmountEffect": "amount",
    "ChanceEffect": "chance",
    "NoteEffect": "note",
}
_TEXT_TAGS = frozenset({"str", "constrained-str", "Plural"})
_SCALAR_TAGS = frozenset({"int", "str", "bool", "float", "none", "constrained-str"})


@dataclass(frozen=True)
class Problem:
    """One problem at ``file:line:col`` (1-based); ``str()`` gives that line.

    ``template`` and ``params`` are the untranslated message and its parameters (the CLI
    may pass a gettext function to :meth:`text`).
    """

    file: str
    line: int
    col: int
    message: str
    template: str = field(default="", compare=False, repr=False)
    params: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    warning: bool = field(default=False, compare=False)
    """A warning (e.g. a text missing in a language): shown, but the file is usable."""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.message}"

    def text(self, translate: Callable[[str], str] | None = None) -> str:
        """``file:line:col: message`` with the message translated by ``translate``."""
        message = self.message
        if translate is not None and self.template:
            # a parameter that says itself (a schema message) in the same language
            message = format_message(self.template, self.params, translate)
        return f"{self.file}:{self.line}:{self.col}: {message}"


Loc = tuple[Any, ...]


@dataclass
class _Source:
    """One linted file: its name, text, plain data and valid tables.

    The round-trip parse that knows positions is slow (pure Python); it is done only when a
    problem of the file needs a position.
    """

    path: Path
    name: str
    text: str = ""
    data: Any = None
    rule_set: str | None = None
    tables: list[tuple[int, Table]] = field(default_factory=list)
    _rt: Any = None
    _rt_done: bool = False

    def pos(self, loc: Loc) -> tuple[int, int]:
        if not self._rt_done:
            self._rt_done = True
            try:
                from ruamel.yaml import YAML

                self._rt = YAML(typ="rt").load(self.text)
            except Exception:  # positions are a courtesy: never let them stop the linter
                self._rt = None
        if self._rt is None:
            return 1, 1
        from kerker.tables.positions import locate_in

        try:
            line, col = locate_in(self._rt, loc)
        except Exception:
            return 1, 1
        return (line or 1), (col or 1)


@dataclass
class _Known:
    """A table known by id: where it is, its kind, its params and its ``roll`` targets."""

    id: str
    kind: str
    params: frozenset[str]
    refs: list[str]
    where: str


@dataclass
class _Call:
    """A ``roll`` effect: who rolls, with what modifier and context."""

    caller: Table
    effect: RollFx


class _Linter:
    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.sources: list[_Source] = []
        self.known: dict[str, _Known] = {}
        self.with_names: dict[str, set[str]] = {}
        self.with_values: dict[str, dict[str, set[int | bool]]] = {}
        self.calls: dict[str, list[_Call]] = {}

    # -- reporting ------------------------------------------------------------------------
    def add(
        self, src: _Source | str, loc: Loc, template: str, *, warning: bool = False, **params: Any
    ) -> None:
        if isinstance(src, str):
            name, (line, col) = src, (1, 1)
        else:
            name, (line, col) = src.name, src.pos(loc)
        try:
            message = template.format(**params)
        except (KeyError, IndexError, ValueError):
            message = template
        self.problems.append(Problem(name, line, col, message, template, dict(params), warning))

    # -- reading --------------------------------------------------------------------------
    def read(self, src: _Source, explicit: bool) -> None:
        from kerker.fileio import InputFileError, check_regular, read_bytes

        try:  # type and size before reading: a FIFO never blocks, 50 MB are never loaded
            if check_regular(src.path, src.name).st_size > MAX_FILE_BYTES:
                self.add(
                    src.name,
                    (),
                    N_("larger than {max} bytes; not a table file"),
                    max=MAX_FILE_BYTES,
                )
                return
            raw = read_bytes(src.path, max_bytes=MAX_FILE_BYTES, where=src.name)
        except InputFileError as exc:
            self.add(src.name, (), exc.template, **exc.params)
            return
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            self.problems.append(
                Problem(
                    src.name,
                    line,
                    1,
                    f"not UTF-8 text (byte {exc.start + 1})",
                    N_("not UTF-8 text (byte {byte})"),
                    {"byte": exc.start + 1},
                )
            )
            return
        from kerker.fileio import check_yaml_depth

        try:  # what --tables refuses, lint reports (before a parser recurses into it)
            check_yaml_depth(text, src.name)
        except InputFileError as exc:
            self.problems.append(
                Problem(
                    src.name,
                    exc.line or 1,
                    1,
                    exc.template.format(**exc.params),
                    exc.template,
                    dict(exc.params),
                )
            )
            return
        data = self._parse(src, text)
        if data is _FAILED:
            return
        if not (isinstance(data, Mapping) and "tables" in data):
            if explicit:
                self.add(src.name, (), N_("not a table file: it has no top-level `tables`"))
            return
        size = _expanded_size(data)
        if size is None:
            self.add(src.name, (), N_("the file refers to itself through a YAML alias"))
            return
        if size > MAX_NODES:
            self.add(
                src.name,
                (),
                N_("the file expands to more than {max} entries (YAML aliases?)"),
                max=MAX_NODES,
            )
            return
        src.data = data
        src.text = text
        self.sources.append(src)

    def _parse(self, src: _Source, text: str) -> Any:
        from ruamel.yaml import YAML

        try:
            return YAML(typ="safe").load(text)
        except Exception as exc:  # every parser failure becomes a problem
            mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
            line = getattr(mark, "line", None)
            col = getattr(mark, "column", None)
            what = getattr(exc, "problem", None) or getattr(exc, "context", None) or exc
            reason = " ".join(str(what).split()) or type(exc).__name__
            self.problems.append(
                Problem(
                    src.name,
                    line + 1 if isinstance(line, int) else 1,
                    col + 1 if isinstance(col, int) else 1,
                    f"not valid YAML: {reason}",
                    N_("not valid YAML: {reason}"),
                    {"reason": reason},
                )
            )
            return _FAILED

    # -- schema ---------------------------------------------------------------------------
    def validate(self, src: _Source) -> None:
        from pydantic import ValidationError

        from kerker.tables.schema import Table as SchemaTable
        from kerker.tables.schema import TableFile

        data = src.data
        errors: list[Any] = []
        try:
            TableFile.model_validate(data)
        except ValidationError as exc:
            errors = list(exc.errors())
        except (RecursionError, ValueError, TypeError) as exc:
            self.add(src, (), N_("the file cannot be checked: {reason}"), reason=str(exc))
            return
        for loc, message in _schema_messages(errors, data):
            where = ".".join(str(p) for p in loc) or "(top)"
            self.add(src, loc, N_("{where}: {problem}"), where=where, problem=message)
        if not errors:
            from kerker.tables.values import check_file

            for problem in check_file(data):  # what `--tables` refuses, lint refuses too
                self.add(src, problem.loc, problem.template, where=problem.where, **problem.params)
        rule_set = data.get("rule_set")
        if isinstance(rule_set, str) and _NAME_PATTERN.match(rule_set):
            src.rule_set = rule_set
        bad_tables = {
            loc[1]
            for loc in (tuple(e["loc"]) for e in errors)
            if len(loc) >= 2 and loc[0] == "tables" and isinstance(loc[1], int)
        }
        header_bad = any(tuple(e["loc"])[:1] in (("rule_set",), ("language",)) for e in errors)
        tables = data.get("tables")
        if src.rule_set is None or header_bad or not isinstance(tables, list):
            return
        language = data.get("language")
        source_file = data.get("source_file")
        for index, raw in enumerate(tables):
            if index in bad_tables:
                continue
            try:
                clean = SchemaTable.model_validate(raw).model_dump(by_alias=True)
                table = build_table(
                    clean,
                    rule_set=src.rule_set,
                    source_file=source_file if isinstance(source_file, str) else None,
                    language=language if isinstance(language, str) else "en",
                    file=src.name,
                )
            except (ValidationError, KeyError, TypeError, ValueError):
                continue
            src.tables.append((index, table))

    # -- the known tables -----------------------------------------------------------------
    def learn(self, data: Any, where: str) -> None:
        for table_id, raw in _lenient_tables(data):
            self.known[table_id] = _lenient_known(table_id, raw, where)

    def learn_calls(self) -> None:
        for src in self.sources:
            for _index, table in src.tables:
                for row in _all_rows(table):
                    for effect, _loc in _walk_effects(row.effects, ()):
                        if not isinstance(effect, RollFx):
                            continue
                        target = table.resolve(effect.ref)
                        self.calls.setdefault(target, []).append(_Call(table, effect))
                        names = self.with_names.setdefault(target, set())
                        values = self.with_values.setdefault(target, {})
                        for name, expression in effect.with_:
                            names.add(name)
                            got = values.setdefault(name, set())
                            for ctx in _variants(_base(table, self)):
                                value = _try_eval(expression, {**ctx, "result": 1})
                                if value is not None:
                                    got.add(value)

    # -- per table ------------------------------------------------------------------------
    def check_table(self, src: _Source, index: int, table: Table) -> None:
        _TableCheck(self, src, index, table).run()

    # -- circles --------------------------------------------------------------------------
    def check_cycles(self) -> None:
        edges: dict[str, list[str]] = {k: list(v.refs) for k, v in self.known.items()}
        where: dict[str, tuple[_Source, dict[str, Loc]]] = {}
        for src in self.sources:
            for index, table in src.tables:
                first: dict[str, Loc] = {}
                for row, base in _rows_with_locs(table, index):
                    for effect, loc in _walk_effects(row.effects, base):
                        if isinstance(effect, RollFx):
                            first.setdefault(table.resolve(effect.ref), (*loc, "roll"))
                edges[table.id] = list(first)
                where[table.id] = (src, first)
        for component in _strongly_connected(edges):
            linted = [n for n in component if n in where]
            if not linted:
                continue
            start = linted[0]
            if len(component) == 1:
                if start not in edges.get(start, []):
                    continue
                cycle = [start, start]
            else:
                cycle = _path_back(start, edges, set(component))
            src, first = where[start]
            self.add(
                src,
                first.get(cycle[1], ()),
                N_(
                    "follow-up rolls go round in a circle: {cycle}; to roll a table "
                    "again use `again: true`, which is capped"
                ),
                cycle=" -> ".join(cycle),
            )

    # -- duplicates -----------------------------------------------------------------------
    def check_duplicates(self) -> None:
        seen: dict[str, tuple[_Source, Loc]] = {}
        for src in self.sources:
            for table_id, index in _lenient_ids(src.data):
                loc: Loc = ("tables", index, "name")
                if table_id in seen:
                    other, other_loc = seen[table_id]
                    line, _col = other.pos(other_loc)
                    self.add(
                        src,
                        loc,
                        N_(
                            "warning: table id {id} is also defined in "
                            "{other}; only one of them is used"
                        ),
                        id=table_id,
                        other=f"{other.name}:{line}",
                    )
                else:
                    seen[table_id] = (src, loc)


_FAILED = object()


class _TableCheck:
    """The checks of one valid table."""

    def __init__(self, linter: _Linter, src: _Source, index: int, table: Table) -> None:
        self.linter = linter
        self.src = src
        self.index = index
        self.table = table
        self.loc: Loc = ("tables", index)
        self.ctx_names = {"level", *table.params, *linter.with_names.get(table.id, ())}
        self.base = _base(table, linter)
        self.variants = _variants(self.base)
        for name, values in sorted(linter.with_values.get(table.id, {}).items()):
            if name not in table.params:
                self.variants += [
                    {**self.base, name: v}
                    for v in sorted(values, key=_order)
                    if v != self.base.get(name)
                ]
        self.level_read = "level" in _quiet_names(table.dice, template=True) | _quiet_names(
            table.modifier, template=False
        )

    def add(self, loc: Loc, template: str, *, warning: bool = False, **params: Any) -> None:
        self.linter.add(self.src, loc, template, warning=warning, **params)

    def run(self) -> None:
        table, loc = self.table, self.loc
        self.texts(table.title, (*loc, "title"), "title", fill=False)
        for k, note in enumerate(table.notes):
            self.texts(note, (*loc, "notes", k), "notes", fill=False)
        if table.modifier is not None:
            self.expression(table.modifier, (*loc, "modifier"), "modifier", self.ctx_names)
            if table.kind != "dice":
                self.add(
                    (*loc, "modifier"), N_("`modifier` does nothing on a table without `dice`")
                )
        if table.dice is not None:
            self.template(table.dice, (*loc, "dice"), "dice", self.ctx_names, dice=True)
        again = any(
            isinstance(e, AgainFx)
            for row in _all_rows(table)
            for e, _l in _walk_effects(row.effects, ())
        )
        table_values: set[str] = set()
        if again:
            for row in _all_rows(table):
                table_values |= set(row.value)
                for effect, _l in _walk_effects(row.effects, ()):
                    if isinstance(effect, AgainFx):
                        table_values |= {name for name, _v in effect.add}
        for ri, row in enumerate(table.rows):
            row_loc = (*loc, "rows", ri)
            names = self.row_names(row, table_values)
            self.row(row, row_loc, names)
            if row.then is not None:
                sub_loc = (*row_loc, "then")
                self.template(
                    row.then.dice, (*sub_loc, "dice"), "then.dice", self.ctx_names, dice=True
                )
                for si, sub in enumerate(row.then.rows):
                    sub_row_loc = (*sub_loc, "rows", si)
                    self.row(sub, sub_row_loc, names | self.row_names(sub, table_values))
                    if sub.then is not None:
                        self.add(
                            (*sub_row_loc, "then"),
                            N_(
                                "a row of a sub-table cannot have its own `then`; "
                                "it is never rolled"
                            ),
                        )
                self.coverage(row.then.rows, row.then.dice, None, sub_loc, sub=True)
        if table.kind == "dice":
            assert table.dice is not None
            self.coverage(table.rows, table.dice, table.modifier, loc, sub=False)
        elif table.kind == "lookup":
            self.overlaps(table.rows, loc)

    # -- names ----------------------------------------------------------------------------
    def row_names(self, row: Row, table_values: set[str]) -> set[str]:
        names = {*self.ctx_names, "result", *row.value, *table_values}
        names |= {e.name for e in row.effects if isinstance(e, AmountFx)}
        return names

    # -- one row --------------------------------------------------------------------------
    def row(self, row: Row, loc: Loc, names: set[str]) -> None:
        self.texts(row.text, (*loc, "text"), "text", fill=True, names=names)
        for effect, eloc in _walk_effects(row.effects, loc):
            self.effect(effect, eloc)

    def effect(self, effect: Effect, loc: Loc) -> None:
        row_ctx = self.ctx_names | {"result"}
        if effect.when is not None:
            self.expression(effect.when, (*loc, "when"), "when", row_ctx)
        if isinstance(effect, RollFx):
            self.roll(effect, loc)
        elif isinstance(effect, AgainFx):
            if effect.reroll_if is not None:
                self.expression(effect.reroll_if, (*loc, "reroll_if"), "reroll_if", row_ctx)
        elif isinstance(effect, AmountFx):
            self.template(effect.amount, (*loc, "amount"), "amount", row_ctx, dice=True)
            if effect.unit is not None:
                self.texts(effect.unit, (*loc, "unit"), "unit", fill=False)
        elif isinstance(effect, ChanceFx):
            if effect.text is not None:
                self.texts(effect.text, (*loc, "text"), "text", fill=False)
            if effect.else_text is not None:
                self.texts(effect.else_text, (*loc, "else_text"), "else_text", fill=False)
        elif isinstance(effect, NoteFx):
            self.texts(effect.note, (*loc, "note"), "note", fill=False)

    def roll(self, effect: RollFx, loc: Loc) -> None:
        table = self.table
        target = table.resolve(effect.ref)
        known = self.linter.known.get(target)
        row_ctx = self.ctx_names | {"result"}
        if known is None:
            close = _close_ids(target, self.linter.known)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            self.add((*loc, "roll"), N_("roll: there is no table {id}{hint}"), id=target, hint=hint)
        elif known.kind == "lookup":
            self.add(
                (*loc, "roll"),
                N_("roll: {id} is a lookup table; it is read, not rolled"),
                id=target,
            )
        self.template(effect.times, (*loc, "times"), "times", row_ctx, dice=True)
        with_keys = {name for name, _v in effect.with_}
        for name, expression in effect.with_:
            self.expression(expression, (*loc, "with", name), f"with.{name}", row_ctx)
        target_names = {
            "level",
            *(known.params if known else ()),
            *self.linter.with_names.get(target, ()),
        }
        outer = self.ctx_names | target_names | with_keys
        if effect.modifier is not None:
            self.expression(effect.modifier, (*loc, "modifier"), "modifier", outer)
        if effect.reroll_if is not None:
            self.expression(effect.reroll_if, (*loc, "reroll_if"), "reroll_if", outer | {"result"})

    # -- texts ----------------------------------------------------------------------------
    def texts(
        self, text: TextMap, loc: Loc, what: str, *, fill: bool, names: set[str] | None = None
    ) -> None:
        missing = [lang for lang in LANGS if lang not in text]
        if missing and set(missing) <= {"it", "en"}:
            # A warning: the table works (the text falls back to another language).
            self.add(
                loc,
                N_("warning: {field} has no text in {missing}"),
                warning=True,
                field=what,
                missing=", ".join(missing),
            )
        elif missing:
            self.add(
                loc, N_("{field} has no text in {missing}"), field=what, missing=", ".join(missing)
            )
        reported: set[str] = set()
        for lang, value in text.items():
            forms = value if isinstance(value, tuple) else (value,)
            for form in forms:
                for inner in _TEMPLATE.findall(form):
                    placeholder = "{" + inner + "}"
                    if placeholder in reported:
                        continue
                    if not _NAME.match(inner.strip()) or inner != inner.strip():
                        reported.add(placeholder)
                        self.add(
                            (*loc, lang),
                            N_(
                                "{field}: {placeholder} is not a "
                                "placeholder (only {{name}} is filled "
                                "in); it would show as is"
                            ),
                            field=what,
                            placeholder=placeholder,
                        )
                    elif not fill:
                        reported.add(placeholder)
                        self.add(
                            (*loc, lang),
                            N_(
                                "{field}: {placeholder} would show as is; "
                                "placeholders are filled in row texts "
                                "only"
                            ),
                            field=what,
                            placeholder=placeholder,
                        )
                    elif names is not None and inner not in names:
                        reported.add(placeholder)
                        self.add(
                            (*loc, lang),
                            N_("{field}: nothing fills in {placeholder} (known here: {known})"),
                            field=what,
                            placeholder=placeholder,
                            known=", ".join(sorted(names)),
                        )

    # -- expressions ----------------------------------------------------------------------
    def expression(
        self, text: str, loc: Loc, what: str, known: set[str], shown: str | None = None
    ) -> bool:
        """Report a safe expression that does not compile or reads unknown names.

        ``shown`` is the text the message quotes (the whole template of a ``{...}`` part).
        """
        from kerker.tables.expr import compile_expr, names

        try:
            compile_expr(text)
            read = names(text)
        except KerkerError as exc:
            self.add(loc, N_("{field}: {error}"), field=what, error=exc.message())
            return False
        unknown = sorted(read - known)
        for name in unknown:
            self.add(
                loc,
                N_("{field} {expr!r} reads {name!r}, which is not known here (known: {known})"),
                field=what,
                expr=shown or text,
                name=name,
                known=", ".join(sorted(known)),
            )
        return not unknown

    def template(self, text: str, loc: Loc, what: str, known: set[str], *, dice: bool) -> None:
        """Report bad ``{...}`` parts of a dice template, and a template that does not give
        a dice expression when filled with the defaults."""
        ok = True
        for inner in _TEMPLATE.findall(text):
            if inner.strip().isdigit():
                continue
            ok = self.expression(inner, loc, what, known, shown=text) and ok
        if not ok or not dice:
            return
        from kerker.dice import parse
        from kerker.tables.expr import fill

        ctx = {**self.base, "result": 1}
        try:
            filled = fill(text, ctx)
        except KerkerError as exc:
            self.add(
                loc,
                N_("{field} {text!r} cannot be filled in with the defaults: {error}"),
                field=what,
                text=text,
                error=exc.message(),
            )
            return
        try:
            parse(filled, LINT_LIMITS)
        except KerkerError as exc:
            shown = text if filled == text else f"{text} -> {filled}"
            self.add(
                loc,
                N_("{field} {text!r} is not a dice expression: {error}"),
                field=what,
                text=shown,
                error=exc.message(),
            )

    # -- coverage -------------------------------------------------------------------------
    def results(
        self, dice: str, modifier: str | None, loc: Loc, *, sub: bool
    ) -> tuple[set[int], str] | None:
        """Every possible total of ``dice`` (+ modifiers), and a short description."""
        from kerker.dice import odds, parse
        from kerker.tables.expr import fill

        totals: set[int] = set()
        modifiers: set[int] = set()
        calls = [] if sub else self.linter.calls.get(self.table.id, [])
        shown_dice: set[str] = set()
        for ctx in self.variants:
            try:
                filled = fill(dice, ctx)
            except KerkerError:
                if ctx is self.variants[0]:
                    return None  # reported by template()
                continue
            try:
                expr = parse(filled, LINT_LIMITS)
            except KerkerError:
                if ctx is self.variants[0]:
                    return None  # reported by template()
                continue
            try:
                faces = odds(expr, LINT_LIMITS).counts
            except KerkerError as exc:
                if ctx is self.variants[0]:
                    self.add(
                        (*loc, "dice"),
                        N_(
                            "the rows cannot be checked: the results of {dice} cannot "
                            "be worked out ({error})"
                        ),
                        dice=filled,
                        error=exc.message(),
                    )
                    return None
                continue
            shown_dice.add(filled)
            mods: set[int] = set()
            base_mod = _try_eval(modifier, ctx) if modifier else 0
            if base_mod is None:
                continue
            mods.add(int(base_mod))
            for call in calls:
                if call.effect.modifier is None:
                    continue
                outer = {**_base(call.caller, self.linter), **ctx}
                extra = _try_eval(call.effect.modifier, outer)
                own = _try_eval(modifier, outer) if modifier else 0
                if extra is not None and own is not None:
                    mods.add(int(own) + int(extra))
            modifiers |= mods
            totals |= {face + m for face, count in faces.items() if count for m in mods}
        if not totals:
            return None
        roll = " or ".join(sorted(shown_dice))
        if modifiers != {0}:
            low, high = min(modifiers), max(modifiers)
            roll += (
                f" with modifier {low:+d}"
                if low == high
                else f" with modifiers {low:+d} to {high:+d}"
            )
        return totals, roll

    def coverage(
        self, rows: tuple[Row, ...], dice: str, modifier: str | None, loc: Loc, *, sub: bool
    ) -> None:
        self.overlaps(rows, loc)
        found = self.results(dice, modifier, loc, sub=sub)
        if found is None:
            return
        totals, roll = found
        ranged = [(ri, row) for ri, row in enumerate(rows) if row.lo is not None]
        ordered = sorted(totals)
        if self.table.gaps != "reroll":
            spans = _merged((row.lo, row.hi) for _ri, row in ranged if row.lo is not None)
            gaps = [t for t in ordered if not _inside(spans, t)]
            if gaps:
                self.add(
                    (*loc, "dice"),
                    N_(
                        "no row covers {results}, which {roll} can roll (add a row, or "
                        "`gaps: reroll` with a `decision`)"
                    ),
                    results=_spans(gaps),
                    roll=roll,
                )
        if self.level_read:
            return
        for ri, row in ranged:
            assert row.lo is not None
            first = bisect.bisect_left(ordered, row.lo)
            if first == len(ordered) or (row.hi is not None and ordered[first] > row.hi):
                self.add(
                    (*loc, "rows", ri),
                    N_("row {range} can never be hit: {roll} gives {results}"),
                    range=row.label(),
                    roll=roll,
                    results=_spans(ordered),
                )

    def overlaps(self, rows: tuple[Row, ...], loc: Loc) -> None:
        ranged = [(ri, row) for ri, row in enumerate(rows) if row.lo is not None]
        for j, (rj, row_j) in enumerate(ranged):
            for ri, row_i in ranged[:j]:
                assert row_i.lo is not None and row_j.lo is not None
                lo = max(row_i.lo, row_j.lo)
                his = [h for h in (row_i.hi, row_j.hi) if h is not None]
                hi = min(his) if his else None
                if hi is not None and lo > hi:
                    continue
                both = f"{lo}+" if hi is None else (str(lo) if lo == hi else f"{lo}-{hi}")
                line, _col = self.src.pos((*loc, "rows", ri))
                self.add(
                    (*loc, "rows", rj),
                    N_("row {range} overlaps row {other} (line {line}): {results} would hit both"),
                    range=row_j.label(),
                    other=row_i.label(),
                    line=line,
                    results=both,
                )
                break


# -- helpers ---------------------------------------------------------------------------------


def _merged(spans: Iterable[tuple[int, int | None]]) -> list[tuple[int, int | None]]:
    """Ranges (``None``: no upper end) merged into sorted disjoint spans."""
    out: list[tuple[int, int | None]] = []
    for lo, hi in sorted(spans, key=lambda s: s[0]):
        if out:
            last_lo, last_hi = out[-1]
            if last_hi is None:
                break
            if lo <= last_hi + 1:
                out[-1] = (last_lo, None if hi is None else max(last_hi, hi))
                continue
        out.append((lo, hi))
    return out


def _inside(spans: list[tuple[int, int | None]], value: int) -> bool:
    """Whether ``value`` lies in one of the sorted disjoint ``spans``."""
    index = bisect.bisect_right([lo for lo, _hi in spans], value) - 1
    if index < 0:
        return False
    hi = spans[index][1]
    return hi is None or value <= hi


def _walk_effects(effects: tuple[Effect, ...], loc: Loc) -> Iterator[tuple[Effect, Loc]]:
    """Every effect with its location, chance ``then``/``else`` effects included."""
    for k, effect in enumerate(effects):
        here = (*loc, "effects", k)
        yield effect, here
        if isinstance(effect, ChanceFx):
            yield from _walk_chance(effect, here)


def _walk_chance(effect: ChanceFx, loc: Loc) -> Iterator[tuple[Effect, Loc]]:
    for key, side in (("then", effect.then), ("else", effect.else_)):
        for k, inner in enumerate(side):
            here = (*loc, key, k)
            yield inner, here
            if isinstance(inner, ChanceFx):
                yield from _walk_chance(inner, here)


def _all_rows(table: Table) -> Iterator[Row]:
    for row in table.rows:
        yield row
        if row.then is not None:
            yield from row.then.rows


def _rows_with_locs(table: Table, index: int) -> Iterator[tuple[Row, Loc]]:
    """Every row (sub-table rows too) with its location."""
    for ri, row in enumerate(table.rows):
        base: Loc = ("tables", index, "rows", ri)
        yield row, base
        if row.then is not None:
            for si, sub in enumerate(row.then.rows):
                yield sub, (*base, "then", "rows", si)


def _base(table: Table, linter: _Linter) -> dict[str, int | bool]:
    """The context of a table with the defaults: level 1, passed names, params."""
    ctx: dict[str, int | bool] = {"level": 1}
    for name, values in sorted(linter.with_values.get(table.id, {}).items()):
        ctx[name] = sorted(values, key=_order)[0] if values else False
    ctx.update(table.params)
    return ctx


def _close_ids(target: str, known: Iterable[str]) -> list[str]:
    """Ids like ``target``: the same name in another rule set, or a similar name."""
    rule_set, _slash, name = target.rpartition("/")
    ids = sorted(known)
    same_name = [k for k in ids if k.rpartition("/")[2] == name]
    names = [k.rpartition("/")[2] for k in ids if k.rpartition("/")[0] == rule_set]
    similar = [f"{rule_set}/{n}" for n in difflib.get_close_matches(name, names, n=3)]
    return (same_name + similar)[:3]


def _order(value: int | bool) -> tuple[bool, int]:
    return isinstance(value, bool), int(value)


def _quiet_names(text: str | None, *, template: bool) -> set[str]:
    """The names an expression (or a template's parts) reads; empty when it is broken."""
    if text is None:
        return set()
    from kerker.tables.expr import names, template_names

    try:
        return template_names(text) if template else names(text)
    except KerkerError:
        return set()


def _variants(base: dict[str, int | bool]) -> list[dict[str, int | bool]]:
    """The defaults, then the defaults with each boolean flipped."""
    out = [base]
    for name, value in base.items():
        if isinstance(value, bool):
            out.append({**base, name: not value})
    return out


def _try_eval(text: str | None, ctx: Mapping[str, int | bool]) -> int | bool | None:
    if text is None:
        return None
    from kerker.tables.expr import evaluate

    try:
        return evaluate(text, ctx)
    except KerkerError:
        return None


def _spans(values: Sequence[int]) -> str:
    """``[1, 2, 3, 5]`` -> ``1-3, 5`` (at most a few spans, then ``…``)."""
    spans: list[tuple[int, int]] = []
    for v in values:
        if spans and v == spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], v)
        else:
            spans.append((v, v))
    parts = [str(a) if a == b else f"{a}-{b}" for a, b in spans[:MAX_SPANS_SHOWN]]
    if len(spans) > MAX_SPANS_SHOWN:
        parts.append("…")
    return ", ".join(parts)


def _expanded_size(data: Any) -> int | None:
    """The number of entries the data has with aliases expanded (None: it contains itself)."""
    memo: dict[int, int] = {}
    active: set[int] = set()

    def size(node: Any) -> int | None:
        if not isinstance(node, dict | list):
            return 1
        key = id(node)
        if key in memo:
            return memo[key]
        if key in active:
            return None
        active.add(key)
        total = 1
        children = node.values() if isinstance(node, dict) else node
        for child in children:
            got = size(child)
            if got is None:
                return None
            total += got
            if total > MAX_NODES:
                break
        active.discard(key)
        memo[key] = total
        return total

    try:
        return size(data)
    except RecursionError:
        return MAX_NODES + 1


def _is_tag(part: Any) -> bool:
    """Whether a part of a pydantic error location names a union member, not data."""
    return isinstance(part, str) and (
        part in _EFFECT_TAGS
        or part in _TEXT_TAGS
        or part in _SCALAR_TAGS
        or "[" in part
        or part[:1].isupper()
    )


def _child(node: Any, part: Any) -> Any:
    if isinstance(node, Mapping):
        return node.get(part)
    if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
        return node[part]
    return None


def _schema_messages(errors: list[Any], data: Any) -> list[tuple[Loc, SchemaText]]:
    """Pydantic's errors as (location, message), narrowed to the union member meant.

    An effect's kind is told by its key (roll, again, amount, chance, note); a text by its
    being a mapping (one/other) or not. Other unions give one message per location.
    """
    kept: list[tuple[Loc, SchemaText]] = []
    merged: dict[Loc, list[SchemaText]] = {}
    fixed: dict[Loc, str] = {}
    for err in errors:
        loc = tuple(err.get("loc", ()))
        message = SchemaText.of(err)
        node: Any = data
        clean: list[Any] = []
        keep = True
        merge_at: Loc | None = None
        for part in loc:
            if part == "[key]":
                continue
            if not _is_tag(part):
                clean.append(part)
                node = _child(node, part)
                continue
            if part in _EFFECT_TAGS:
                markers = [
                    k for k in _EFFECT_TAGS.values() if isinstance(node, Mapping) and k in node
                ]
                if len(markers) == 1:
                    keep = _EFFECT_TAGS[part] == markers[0]
                    if not keep:
                        break
                    continue
                here = tuple(clean)
                if not isinstance(node, Mapping):
                    fixed[here] = (
                        "an effect is a mapping with one of roll, again, amount, chance, note"
                    )
                elif markers:
                    fixed[here] = (
                        f"an effect has one of roll, again, amount, chance, note, "
                        f"not several ({', '.join(markers)})"
                    )
                else:
                    fixed[here] = "an effect needs one of roll, again, amount, chance, note"
                keep = False
                break
            if part in _TEXT_TAGS:
                keep = (part == "Plural") == isinstance(node, Mapping)
                if not keep:
                    break
                continue
            if merge_at is None:
                merge_at = tuple(clean)
        if not keep:
            continue
        if merge_at is not None:
            merged.setdefault(merge_at, [])
            if message not in merged[merge_at]:
                merged[merge_at].append(message)
            continue
        kept.append((tuple(clean), message))
    for loc, msgs in merged.items():
        joined = msgs[0]
        for more in msgs[1:]:
            joined = joined.joined(more)
        kept.append((loc, joined))
    kept += [(loc, SchemaText.fixed(text)) for loc, text in fixed.items()]
    seen: set[tuple[Loc, str]] = set()
    out: list[tuple[Loc, SchemaText]] = []
    for item in kept:
        key = (tuple(str(p) for p in item[0]), str(item[1]))
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _lenient_ids(data: Any) -> Iterator[tuple[str, int]]:
    """(id, index) of every table with a readable name, however broken the rest."""
    if not isinstance(data, Mapping):
        return
    rule_set = data.get("rule_set")
    tables = data.get("tables")
    if not isinstance(rule_set, str) or not isinstance(tables, list):
        return
    for index, raw in enumerate(tables):
        if isinstance(raw, Mapping) and isinstance(raw.get("name"), str):
            yield f"{rule_set}/{raw['name']}", index


def _lenient_tables(data: Any) -> Iterator[tuple[str, Mapping[str, Any]]]:
    tables = data.get("tables") if isinstance(data, Mapping) else None
    for table_id, index in _lenient_ids(data):
        assert isinstance(tables, list)
        yield table_id, tables[index]


def _lenient_known(table_id: str, raw: Mapping[str, Any], where: str) -> _Known:
    rows = raw.get("rows")
    rows = rows if isinstance(rows, list) else []
    if raw.get("dice") is not None:
        kind = "dice"
    elif rows and all(isinstance(r, Mapping) and "weight" in r for r in rows):
        kind = "weighted"
    else:
        kind = "lookup"
    params = raw.get("params")
    names = frozenset(str(k) for k in params) if isinstance(params, Mapping) else frozenset()
    rule_set = table_id.split("/", 1)[0]
    refs = [r if "/" in r else f"{rule_set}/{r}" for r in _lenient_refs(rows)]
    return _Known(table_id, kind, names, refs, where)


def _lenient_refs(rows: Iterable[Any], depth: int = 0) -> Iterator[str]:
    if depth > 4:
        return
    for row in rows:
        if not isinstance(row, Mapping):
            continue
        yield from _lenient_effect_refs(row.get("effects"), 0)
        then = row.get("then")
        if isinstance(then, Mapping) and isinstance(then.get("rows"), list):
            yield from _lenient_refs(then["rows"], depth + 1)


def _lenient_effect_refs(effects: Any, depth: int) -> Iterator[str]:
    if not isinstance(effects, list) or depth > 20:
        return
    for effect in effects:
        if not isinstance(effect, Mapping):
            continue
        if isinstance(effect.get("roll"), str):
            yield effect["roll"]
        for key in ("then", "else", "else_"):
            yield from _lenient_effect_refs(effect.get(key), depth + 1)


def _strongly_connected(edges: Mapping[str, list[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, iteratively, in a stable order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            targets = [t for t in edges.get(node, []) if t in edges]
            recurse = False
            while i < len(targets):
                target = targets[i]
                i += 1
                if target not in index:
                    work.append((node, i))
                    work.append((target, 0))
                    recurse = True
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            if recurse:
                continue
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                out.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return out


def _path_back(start: str, edges: Mapping[str, list[str]], members: set[str]) -> list[str]:
    """The shortest circle ``start -> ... -> start`` inside one component."""
    previous: dict[str, str] = {}
    queue = [start]
    for node in queue:
        for target in edges.get(node, []):
            if target not in members:
                continue
            if target == start:
                path = [node]
                while path[-1] != start:
                    path.append(previous[path[-1]])
                return [*reversed(path), start]
            if target not in previous:
                previous[target] = node
                queue.append(target)
    return [start, start]


NOT_REGULAR = N_("is not a regular file (a pipe, device or socket); kerker reads only files")
NO_SUCH = N_("no such file or folder")


def _expand(paths: Sequence[Path]) -> Iterator[tuple[Path, bool] | tuple[str, str]]:
    """Files to lint: (path, named explicitly), or (name, problem) for a path that does not
    exist or is not a regular file (a FIFO, a device: said, not skipped silently)."""
    for path in paths:
        if path.is_dir():
            found = sorted({*path.rglob("*.yaml"), *path.rglob("*.yml")})
            for file in found:
                if file.is_file():
                    yield file, False
                elif file.exists():
                    yield str(file), NOT_REGULAR
        elif path.is_file():
            yield path, True
        elif path.exists():
            yield str(path), NOT_REGULAR
        else:
            yield str(path), NO_SUCH


def _shipped_data() -> list[tuple[Path, Any]]:
    """The plain data of every shipped rule file (cached while the files stay unchanged)."""
    from kerker.tables.registry import shipped_paths

    stamps: list[tuple[Path, int, int]] = []
    for path in shipped_paths():
        try:
            stat = path.stat()
        except OSError:
            continue
        stamps.append((path, stat.st_mtime_ns, stat.st_size))
    return _shipped_data_cached(tuple(stamps))


@lru_cache(maxsize=1)
def _shipped_data_cached(stamps: tuple[tuple[Path, int, int], ...]) -> list[tuple[Path, Any]]:
    return [(path, _load_lenient(path)) for path, _mtime, _size in stamps]


def _load_lenient(path: Path) -> Any:
    from kerker.yamlio import load_rule_file

    try:
        return load_rule_file(path)
    except Exception:  # a broken file elsewhere only means its tables are not known
        return None


def lint_paths(
    paths: Sequence[Path], *, registry_paths: Sequence[Path] | None = None
) -> list[Problem]:
    """Every problem of the table files in ``paths`` (files or folders), sorted.

    No paths: the shipped rule files. YAML files without a top-level ``tables`` are skipped
    in folders (other rule files live beside the tables) and reported when named. Never
    raises for bad input: unreadable files, invalid YAML and broken data are problems too.
    """
    from kerker.tables.registry import shipped_paths

    linter = _Linter()
    explicit_paths = [Path(p) for p in paths]
    if explicit_paths:
        targets: Iterable[tuple[Path, bool] | tuple[str, str]] = _expand(explicit_paths)
    else:
        targets = [(p, False) for p in shipped_paths()]
    seen: set[Path] = set()
    for target in targets:
        if isinstance(target[0], str):
            linter.add(target[0], (), str(target[1]))
            continue
        path, explicit = target
        assert isinstance(path, Path) and isinstance(explicit, bool)
        resolved = path.resolve()
        if resolved in seen:
            continue
        seen.add(resolved)
        linter.read(_Source(path, str(path)), explicit)
    for src in linter.sources:
        try:
            linter.validate(src)
        except Exception as exc:  # a linter bug must not hide the other files' problems
            linter.add(
                src,
                (),
                N_("kerker could not check this file ({reason}); please report it"),
                reason=repr(exc),
            )
    # Known ids: shipped, then the registry paths, then the linted files (theirs win).
    for path, data in _shipped_data():
        if path.resolve() not in seen:
            linter.learn(data, str(path))
    for target in _expand([Path(p) for p in registry_paths or ()]):
        if isinstance(target[0], str):
            linter.add(target[0], (), str(target[1]))
            continue
        if target[0].resolve() not in seen:
            linter.learn(_load_lenient(target[0]), str(target[0]))
    for src in linter.sources:
        linter.learn(src.data, src.name)
    for src in linter.sources:
        for _index, table in src.tables:
            linter.known[table.id] = _Known(
                table.id,
                table.kind,
                frozenset(table.params),
                linter.known[table.id].refs if table.id in linter.known else [],
                src.name,
            )
    try:
        linter.learn_calls()
    except Exception as exc:
        linter.add(
            "(lint)",
            (),
            N_("kerker could not check the follow-up rolls ({reason}); please report it"),
            reason=repr(exc),
        )
    for src in linter.sources:
        for index, table in src.tables:
            try:
                linter.check_table(src, index, table)
            except Exception as exc:
                linter.add(
                    src,
                    ("tables", index),
                    N_("kerker could not check this table ({reason}); please report it"),
                    reason=repr(exc),
                )
    for check in (linter.check_cycles, linter.check_duplicates):
        try:
            check()
        except Exception as exc:
            linter.add(
                "(lint)",
                (),
                N_("kerker could not finish the check ({reason}); please report it"),
                reason=repr(exc),
            )
    return sorted(linter.problems, key=lambda p: (p.file, p.line, p.col, p.message))
