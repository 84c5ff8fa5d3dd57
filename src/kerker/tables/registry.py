"""Finding and loading tables: the shipped rule data plus a game master's own folders.

Shipped files load from their compiled twins (validated when compiled, checked by the test
suite); files of a game master are always validated against :mod:`kerker.tables.schema`,
and every problem names the file and line. A user table whose id equals a shipped one
replaces it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from kerker.errors import N_, KerkerError, RuleDataError
from kerker.tables.model import Table, build_file
from kerker.yamlio import load_rule_file, load_yaml_file, twin_path

RULES_DIR = Path(__file__).resolve().parent.parent / "rules"
MAX_USER_FILES = 500


class TableError(KerkerError):
    """A table that does not exist, cannot be rolled, or refers to what does not exist."""

    code = "table"


def is_table_file(data: Any) -> bool:
    """Whether parsed YAML is a table file (rule files of other kinds live beside them)."""
    return isinstance(data, Mapping) and "tables" in data


def shipped_paths() -> list[Path]:
    """Every shipped YAML rule file, in a stable order."""
    return sorted(RULES_DIR.rglob("*.yaml"))


def validate_data(data: Any, file: str, path: Path | None = None) -> Mapping[str, Any]:
    """Validate a table file's data with pydantic and return it with types coerced.

    Errors become one :class:`RuleDataError`.

    The error names the file, the line (found by re-reading ``path`` with positions) and the
    path of the bad entry inside the file.
    """
    from pydantic import ValidationError

    from kerker.tables.schema import TableFile
    from kerker.tables.schema_text import SchemaText

    try:
        model = TableFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = tuple(first["loc"])
        line = None
        if path is not None:
            from kerker.tables.positions import locate

            line, _col = locate(path, loc)
        where = ".".join(str(p) for p in loc) or "(top)"
        more = len(exc.errors()) - 1
        raise RuleDataError(
            N_("{where}: {problem}{more}"),
            file=file,
            line=line,
            where=where,
            problem=SchemaText.of(first),
            more=f" (and {more} more)" if more else "",
        ) from None
    # The validated data (types coerced: weight "3" is 3), with only what the file says.
    return model.model_dump(by_alias=True, exclude_unset=True)


def _fresh_twin(path: Path) -> bool:
    twin = twin_path(path)
    if not twin.exists():
        return False
    from kerker.yamlio import _digest

    try:
        import json

        return bool(json.loads(twin.read_bytes()).get("digest") == _digest(path.read_bytes()))
    except (OSError, ValueError):
        return False


def load_path(path: Path, *, trusted: bool) -> list[Table]:
    """The tables of one file ([] for a rule file of another kind).

    ``trusted`` (shipped files with a fresh compiled twin) skips schema validation.
    """
    name = str(path)
    data = load_rule_file(path, name) if trusted else load_yaml_file(path, name)
    if not is_table_file(data):
        if trusted:
            return []
        raise RuleDataError(
            N_("not a table file: it needs `schema`, `rule_set`, `language` and `tables`"),
            file=name,
        )
    if not (trusted and _fresh_twin(path)):
        data = validate_data(data, name, path)
        from kerker.tables.values import refuse_bad_values

        refuse_bad_values(data, name, path)  # the values the procedures read (file:line)
    return build_file(data, name)


def user_dirs(extra: Iterable[str | Path] = ()) -> list[Path]:
    """Folders (or files) of user tables as paths, in the order given.

    The library never reads the environment: the command line adds ``KERKER_TABLES``
    (:func:`kerker.cli_support.table_dirs`) and passes the folders in.
    """
    return [Path(d) for d in extra]


def user_paths(dirs: Iterable[Path]) -> list[Path]:
    """Table files in the user folders (a file may also be named directly)."""
    found: list[Path] = []
    for d in dirs:
        if d.is_file():
            found.append(d)
        elif d.is_dir():
            found += sorted(p for p in d.rglob("*") if p.suffix in (".yaml", ".yml"))
        elif d.exists():
            raise RuleDataError(
                N_("is not a regular file (a pipe, device or socket); kerker reads only files"),
                file=str(d),
            )
        else:
            raise RuleDataError(N_("no such folder or file"), file=str(d))
        if len(found) > MAX_USER_FILES:
            raise RuleDataError(N_("more than {max} table files"), file=str(d), max=MAX_USER_FILES)
    return found


@dataclass(frozen=True)
class Registry:
    """All tables by id, shipped ones replaced by user ones of the same id."""

    tables: Mapping[str, Table]
    replaced: tuple[str, ...] = field(default=())

    def get(self, table_id: str) -> Table:
        """The table with this id; an unknown id raises :class:`TableError` with hints."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        close = difflib.get_close_matches(table_id, list(self.tables), n=3, cutoff=0.5)
        if not close:
            close = [t for t in self.tables if t.endswith("/" + table_id)][:3]
        if not close:
            raise TableError(N_("no table {id!r}; `kerker table list` shows them all"), id=table_id)
        raise TableError(
            N_("no table {id!r}; did you mean: {hint}"), id=table_id, hint=", ".join(close)
        )

    def __iter__(self) -> Iterator[Table]:
        return iter(self.tables[k] for k in sorted(self.tables))

    def __len__(self) -> int:
        return len(self.tables)


@lru_cache(maxsize=1)
def shipped() -> Mapping[str, Table]:
    """The shipped tables (loaded once per process)."""
    out: dict[str, Table] = {}
    for path in shipped_paths():
        for table in load_path(path, trusted=True):
            out[table.id] = table
    return out


def load_registry(extra_dirs: Iterable[str | Path] = ()) -> Registry:
    """Shipped tables plus the user's from ``extra_dirs`` (later files replace earlier ids).

    Reads no environment variable; refuses what :func:`user_paths` and :func:`load_path`
    refuse.
    """
    tables = dict(shipped())
    replaced: list[str] = []
    for path in user_paths(user_dirs(extra_dirs)):
        for table in load_path(path, trusted=False):
            if table.id in tables:
                replaced.append(table.id)
            tables[table.id] = table
    return Registry(tables, tuple(replaced))


def rule_set_language(registry: Registry, rule_set: str) -> str | None:
    """The language a rule set was printed in (German for 000, Italian for 001, ...)."""
    for table in registry:
        if table.rule_set == rule_set:
            return table.language
    return None
