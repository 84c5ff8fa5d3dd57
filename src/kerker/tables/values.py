"""Value schemas: the values each procedure reads from its tables, with types and ranges.

Every rule set that a generator reads declares, in
``src/kerker/rules/<set>/schema/values.yaml`` (a folder of its own, so nothing that reads
the table files of a rule set takes it for one),

- ``names``: each value name the procedures read, with its type (``int`` with ``min`` /
  ``max`` or ``one_of``; ``bool``; ``text`` with an optional ``one_of``; ``any``);
- ``reads``: for each table the procedures read, the names ``required`` on every row, and
  ``rolls_if``: a value that, when true on a row, needs a follow-up roll on that row
  (Mazeprowl's ``loot: true`` is followed by how the loot is secured).

A table that replaces a shipped one (same id) is checked against this declaration when it is
loaded (``--tables``) and by ``kerker table lint``: a value of the wrong type, out of range,
or missing gives a :class:`~kerker.errors.RuleDataError` naming file and line. So a
generator fed a checked table can neither crash on it nor run unbounded. Amounts a row rolls
under a declared name (``w_ft: 240 + 1d6*10``) are checked by their lowest and highest result.

Nothing here imports pydantic; the declarations are read once per process (compiled twins).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from kerker.errors import N_, KerkerError, RuleDataError

RULES_DIR = Path(__file__).resolve().parent.parent / "rules"
MAX_TEXT = 200
"""Characters of a free text value (a label the generators copy into keys and maps)."""

Loc = tuple[str | int, ...]


_MISSING = N_("{where}: the procedures read {name!r} from every row of {table}; this row has none")


@dataclass(frozen=True, slots=True)
class ValueSpec:
    """The type and range of one value name."""

    type: str
    min: int | None = None
    max: int | None = None
    one_of: tuple[Any, ...] | None = None

    def problem(self, value: Any) -> tuple[str, dict[str, Any]] | None:
        """Why ``value`` does not fit (a template and its parameters), or ``None``."""
        if self.type == "any":
            return None
        if self.type == "bool":
            if not isinstance(value, bool):
                return N_("{where}: {name} must be true or false, not {value!r}"), {"value": value}
            return None
        if self.type == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                return N_("{where}: {name} must be a whole number, not {value!r}"), {"value": value}
            if self.one_of is not None and value not in self.one_of:
                return N_("{where}: {name} must be one of {choices}, not {value}"), {
                    "choices": ", ".join(str(c) for c in self.one_of),
                    "value": value,
                }
            if (self.min is not None and value < self.min) or (
                self.max is not None and value > self.max
            ):
                return N_("{where}: {name} must be between {min} and {max}, not {value}"), {
                    "min": self.min,
                    "max": self.max,
                    "value": value,
                }
            return None
        if not isinstance(value, str):
            return N_("{where}: {name} must be text, not {value!r}"), {"value": value}
        if self.one_of is not None and value not in self.one_of:
            return N_("{where}: {name} must be one of {choices}, not {value!r}"), {
                "choices": ", ".join(str(c) for c in self.one_of),
                "value": value,
            }
        if len(value) > MAX_TEXT:
            return N_("{where}: {name} is longer than {max} characters"), {"max": MAX_TEXT}
        return None


@dataclass(frozen=True, slots=True)
class TableSpec:
    """What the procedures need of one table."""

    required: tuple[str, ...] = ()
    rolls_if: str | None = None


@dataclass(frozen=True, slots=True)
class RuleSetValues:
    """The value schema of one rule set."""

    rule_set: str
    names: Mapping[str, ValueSpec]
    tables: Mapping[str, TableSpec]


@dataclass(frozen=True, slots=True)
class ValueProblem:
    """One value that does not fit: where in the file's data (``loc``) and why."""

    loc: Loc
    template: str
    """A catalog template starting ``{where}: `` (the dotted path of ``loc``)."""
    params: Mapping[str, Any]

    @property
    def where(self) -> str:
        """The dotted path of the value in the file's data."""
        return ".".join(str(p) for p in self.loc)

    def message(self) -> str:
        """The English message (with ``where``)."""
        return self.template.format(where=self.where, **self.params)


def _spec(name: str, raw: Any, file: str) -> ValueSpec:
    if not isinstance(raw, Mapping) or raw.get("type") not in ("int", "bool", "text", "any"):
        raise RuleDataError(
            N_("the value {name!r} needs a type: int, bool, text or any"), file=file, name=name
        )
    one_of = raw.get("one_of")
    return ValueSpec(
        raw["type"], raw.get("min"), raw.get("max"), tuple(one_of) if one_of is not None else None
    )


@lru_cache(maxsize=16)
def rule_set_values(rule_set: str) -> RuleSetValues | None:
    """The declared value schema of a shipped rule set (``None`` when it declares none)."""
    path = RULES_DIR / rule_set / "schema" / "values.yaml"
    if not path.is_file():
        return None
    from kerker.yamlio import load_rule_file

    data = load_rule_file(path, str(path))
    if not isinstance(data, Mapping) or data.get("values_of") != rule_set:
        raise RuleDataError(
            N_("not a value schema of {rule_set}"), file=str(path), rule_set=rule_set
        )
    names = {str(k): _spec(str(k), v, str(path)) for k, v in (data.get("names") or {}).items()}
    tables: dict[str, TableSpec] = {}
    for table, raw in (data.get("reads") or {}).items():
        raw = raw or {}
        required = tuple(str(n) for n in raw.get("required") or ())
        unknown = [n for n in required if n not in names]
        if unknown:
            raise RuleDataError(
                N_("the table {table} requires {name!r}, which has no type"),
                file=str(path),
                table=table,
                name=unknown[0],
            )
        tables[str(table)] = TableSpec(required, raw.get("rolls_if"))
    return RuleSetValues(rule_set, names, tables)


def _effects(effects: Any, loc: Loc) -> Iterator[tuple[Mapping[str, Any], Loc]]:
    """Every effect (as plain data) with its location, chance sides included."""
    if not isinstance(effects, Sequence):
        return
    for index, effect in enumerate(effects):
        if not isinstance(effect, Mapping):
            continue
        here = (*loc, index)
        yield effect, here
        for side in ("then", "else"):
            yield from _effects(effect.get(side), (*here, side))


def _amount_range(expression: str) -> tuple[int, int] | None:
    """Lowest and highest result of a template-free amount (``None``: not knowable here)."""
    if "{" in expression:
        return None
    from kerker.dice import odds
    from kerker.dice.parser import parse
    from kerker.limits import Limits

    limits = Limits(max_outcomes=10_000, max_odds_work=2_000_000)
    try:
        dist = odds(parse(expression, limits), limits)
    except KerkerError:
        return None  # the linter reports an amount that cannot be rolled
    return dist.min, dist.max


def check_table(spec: RuleSetValues, table: Mapping[str, Any], loc: Loc) -> list[ValueProblem]:
    """The problems of one table's plain data (as in a table file) against ``spec``."""
    name = table.get("name")
    wanted = spec.tables.get(str(name))
    if wanted is None:
        return []
    problems: list[ValueProblem] = []
    rows = table.get("rows")
    if not isinstance(rows, Sequence):
        return problems
    for index, row in enumerate(rows):
        if not isinstance(row, Mapping):
            continue
        row_loc = (*loc, "rows", index)
        values = row.get("value") or {}
        if not isinstance(values, Mapping):
            continue
        subrows = (
            (row.get("then") or {}).get("rows") if isinstance(row.get("then"), Mapping) else None
        )
        sub_values: list[Mapping[str, Any]] = [
            r.get("value") or {} for r in subrows or () if isinstance(r, Mapping)
        ]
        amounts = {
            str(e.get("name", "amount")): (e, at)
            for e, at in _effects(row.get("effects"), (*row_loc, "effects"))
            if "amount" in e
        }
        for required in wanted.required:
            if required in values or required in amounts:
                continue
            if sub_values and all(required in v for v in sub_values):
                continue
            problems.append(ValueProblem(row_loc, _MISSING, {"name": required, "table": name}))
        for key, value in values.items():
            found = spec.names.get(str(key))
            problem = found.problem(value) if found is not None else None
            if problem is not None:
                problems.append(
                    ValueProblem((*row_loc, "value", key), problem[0], {"name": key, **problem[1]})
                )
        for key, (effect, effect_loc) in amounts.items():
            found = spec.names.get(key)
            if found is None or found.type != "int":
                continue
            bounds = _amount_range(str(effect.get("amount")))
            if bounds is None:
                continue
            for bound in bounds:
                if found.problem(bound) is not None:
                    problems.append(
                        ValueProblem(
                            (*effect_loc, "amount"),
                            N_(
                                "{where}: {name} can come up {value}; it must be between {min} and "
                                "{max}"
                            ),
                            {"name": key, "value": bound, "min": found.min, "max": found.max},
                        )
                    )
                    break
        if (
            wanted.rolls_if
            and values.get(wanted.rolls_if) is True
            and not any("roll" in e for e, _at in _effects(row.get("effects"), ()))
        ):
            problems.append(
                ValueProblem(
                    row_loc,
                    N_(
                        "{where}: a row with {name}: true needs a follow-up roll (the "
                        "procedures read what it rolls)"
                    ),
                    {"name": wanted.rolls_if},
                )
            )
    return problems


def check_file(data: Mapping[str, Any]) -> list[ValueProblem]:
    """The value problems of a table file's plain data (``[]`` for undeclared rule sets)."""
    rule_set = data.get("rule_set")
    tables = data.get("tables")
    if not isinstance(rule_set, str) or not isinstance(tables, Sequence):
        return []
    spec = rule_set_values(rule_set) if "/" not in rule_set and rule_set.strip(".") else None
    if spec is None:
        return []
    problems: list[ValueProblem] = []
    for index, table in enumerate(tables):
        if isinstance(table, Mapping):
            problems += check_table(spec, table, ("tables", index))
    return problems


def refuse_bad_values(data: Mapping[str, Any], file: str, path: Path | None) -> None:
    """Raise :class:`RuleDataError` (file:line) for the first value problem of a file;
    ``table lint`` reports every one of them."""
    problems = check_file(data)
    if not problems:
        return
    # A value that is there but wrong says more than one that is missing: it comes first.
    first = min(problems, key=lambda p: p.template == _MISSING)
    line = None
    if path is not None:
        from kerker.tables.positions import locate

        line, _col = locate(path, first.loc)
    # The first problem (``kerker table lint`` lists them all), translatable as it stands.
    raise RuleDataError(first.template, file=file, line=line, where=first.where, **first.params)
