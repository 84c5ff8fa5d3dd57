"""A game master's own table files as texts: linted, digested and loaded without a folder.

A play session keeps the texts of its own tables (so it replays anywhere, and its export
carries them), the web app takes them as uploads: both lint a text as ``kerker table lint``
does (:func:`lint_text`, problems as ``file:line:col: message``), load its tables
(:func:`load_texts`, on top of a registry; later texts replace earlier ids) and name the
set by a digest (:func:`texts_digest`). Sizes are capped (:data:`MAX_TEXT`,
:data:`MAX_FILES`, :data:`MAX_TOTAL`).
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from kerker.errors import N_, KerkerError, OptionError, RuleDataError
from kerker.tables.registry import Registry, load_path, user_paths

MAX_TEXT = 200_000
"""Characters of one own table file at most (the web app's upload cap)."""
MAX_FILES = 20
"""Own table files of one session at most."""
MAX_TOTAL = 500_000
"""Characters of all own table files of one session at most."""

OwnText = tuple[str, str]
"""(file name, YAML text) of one own table file."""


def _label(name: str) -> str:
    """A file name fit to print: printable, at most 80 characters, no folders."""
    flat = "".join(ch for ch in name if ch.isprintable()).replace("\\", "/")
    return flat.rsplit("/", 1)[-1][:80] or "tables.yaml"


def check_sizes(texts: Sequence[OwnText]) -> None:
    """Refuse, in one line, more than :data:`MAX_FILES` files, one over :data:`MAX_TEXT`
    characters or all over :data:`MAX_TOTAL`."""
    if len(texts) > MAX_FILES:
        raise OptionError(N_("at most {max} own table files"), max=MAX_FILES)
    for name, text in texts:
        if len(text) > MAX_TEXT:
            raise OptionError(
                N_("{file}: a table file may be at most {max} characters long"),
                file=_label(name),
                max=MAX_TEXT,
            )
    if sum(len(t) for _n, t in texts) > MAX_TOTAL:
        raise OptionError(
            N_("own table files may be at most {max} characters in all"), max=MAX_TOTAL
        )


def read_paths(paths: Sequence[Path]) -> list[OwnText]:
    """The own table files of folders or files, as ``kerker dungeon --tables`` finds them
    (YAML files of a folder, sorted; a file named directly), read as UTF-8 texts and
    checked for size. Refuses what cannot be read in one line."""
    out: list[OwnText] = []
    for path in user_paths(paths):
        try:
            size = path.stat().st_size
            if size > MAX_TEXT * 4:
                raise OptionError(
                    N_("{file}: a table file may be at most {max} characters long"),
                    file=str(path),
                    max=MAX_TEXT,
                )
            text = path.read_bytes().decode("utf-8-sig")
        except UnicodeDecodeError:
            raise OptionError(
                N_("{file}: a table file must be UTF-8 text"), file=str(path)
            ) from None
        except OSError as exc:
            raise OptionError(
                N_("cannot read {path}: {reason}"), path=str(path), reason=exc.strerror or str(exc)
            ) from None
        out.append((path.name, text))
        check_sizes(out)
    return out


def texts_digest(texts: Sequence[OwnText]) -> str:
    """A digest of the own table files, names and texts, in their order ("" for none)."""
    if not texts:
        return ""
    h = hashlib.blake2b(digest_size=16)
    for name, text in texts:
        for part in (name, text):
            data = part.encode("utf-8")
            h.update(len(data).to_bytes(8, "big"))
            h.update(data)
    return h.hexdigest()


def lint_text(
    name: str,
    text: str,
    translate: Callable[[str], str] | None = None,
    *,
    warnings: bool = True,
) -> list[str]:
    """The linter's problems of one table file's ``text`` as ``name:line:col: message``
    lines (in the language of ``translate``); [] for a clean file. ``warnings=False``:
    only the errors (a file with warnings alone is usable, as ``kerker table lint``
    says with exit 0)."""
    from kerker.tables.lint import lint_paths

    label = _label(name)
    with tempfile.TemporaryDirectory(prefix="kerker-tables-") as folder:
        path = Path(folder) / "tables.yaml"
        path.write_text(text, encoding="utf-8")
        problems = lint_paths([path])
        return [
            f"{label}:{p.line}:{p.col}: "
            + re.sub(
                r"^\d+:\d+: ",
                "",
                p.text(translate).replace(f"{path}:", "").replace(str(path), label),
            )
            for p in problems
            if warnings or not p.warning
        ]


def refuse_bad(texts: Sequence[OwnText], translate: Callable[[str], str] | None = None) -> None:
    """Check sizes and lint every text; the first error is refused as the linter's
    ``file:line:col: message`` line (:class:`OwnTablesError`); warnings alone (a text
    missing in a language) are no reason to refuse."""
    check_sizes(texts)
    for name, text in texts:
        problems = lint_text(name, text, translate, warnings=False)
        if problems:
            more = f" (+{len(problems) - 1})" if len(problems) > 1 else ""
            raise OwnTablesError(N_("{problem}{more}"), problem=problems[0], more=more)


class OwnTablesError(KerkerError):
    """An own table file the linter refuses (its first problem, file:line:col)."""

    code = "own_tables"


def load_texts(base: Registry, texts: Sequence[OwnText]) -> Registry:
    """``base`` plus the tables of ``texts`` (later ids replace earlier ones), loaded and
    validated as own files are; made once per base and digest."""
    if not texts:
        return base
    key = (id(base), texts_digest(texts))
    found = _LOADED.get(key)
    if found is None or found[0] is not base:
        if len(_LOADED) > 16:
            _LOADED.clear()
        found = _LOADED[key] = (base, _load(base, texts))
    return found[1]


_LOADED: dict[tuple[int, str], tuple[Registry, Registry]] = {}
"""(id of the base, digest) -> (base, registry with the texts' tables)."""


def _load(base: Registry, texts: Sequence[OwnText]) -> Registry:
    tables = dict(base.tables)
    replaced = list(base.replaced)
    with tempfile.TemporaryDirectory(prefix="kerker-tables-") as folder:
        for n, (name, text) in enumerate(texts):
            path = Path(folder) / f"{n:02d}-{_label(name)}"
            if path.suffix not in (".yaml", ".yml"):
                path = path.with_name(path.name + ".yaml")
            path.write_text(text, encoding="utf-8")
            try:
                loaded = load_path(path, trusted=False)
            except RuleDataError as err:
                err.file = _label(name)  # not the temporary path
                raise
            for table in loaded:
                if table.id in tables:
                    replaced.append(table.id)
                tables[table.id] = table
    return Registry(tables, tuple(replaced))
