"""``kerker table ...``: list, show, roll, odds, lint, export, import, schema.

Thin shells: options -> one library call in :mod:`kerker.tables` -> text, Rich or JSON.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from kerker.cli_support import (
    JsonOption,
    LangGroup,
    MessageLangOption,
    dump_json,
    frac,
    friendly,
    load_tables,
    make_rng,
    percent,
    print_json,
    resolve_language,
    table_dirs,
)
from kerker.cli_support import cli_translate as _h
from kerker.commands.options import TablesOption
from kerker.errors import N_, OptionError
from kerker.i18n import translator

table_app = typer.Typer(
    name="table",
    cls=LangGroup,
    help=_h(
        N_(
            "Random tables as data: list, show, roll, exact odds, lint, export, import.\n\n"
            "Example: kerker table roll zufallslabyrinth/schatz --level 3 --guarded"
        )
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)

MAX_TIMES = 1000
MAX_FLAT = 300  # more final outcomes than this: the probability tree reads better

LangOption = Annotated[
    str | None,
    typer.Option("--lang", help=_h(N_("Language of the output: de, it or en (default: locale)."))),
]
LevelOption = Annotated[
    int, typer.Option("--level", help=_h(N_("Dungeon level (treasure scales with it).")))
]
GuardedOption = Annotated[
    bool, typer.Option("--guarded", help=_h(N_("The treasure is guarded by a monster.")))
]
SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help=_h(N_("Another context variable, NAME=VALUE (a number, true or false); repeatable.")),
    ),
]
IdArgument = Annotated[
    str, typer.Argument(metavar="ID", help=_h(N_("Table id, e.g. zufallslabyrinth/schatz.")))
]


def _registry(tables: list[Path] | None) -> Any:
    return load_tables(tables)


def _context(level: int, guarded: bool, sets: list[str] | None) -> dict[str, int | bool]:
    if not 1 <= level <= 100:
        raise OptionError(N_("--level must be between 1 and 100"))
    ctx: dict[str, int | bool] = {"level": level}
    if guarded:
        ctx["guarded"] = True
    for item in sets or []:
        name, sep, raw = item.partition("=")
        name, raw = name.strip(), raw.strip().lower()
        if not sep or not name.isidentifier():
            raise OptionError(N_("--set takes NAME=VALUE, not {item!r}"), item=item)
        if raw in ("true", "false"):
            ctx[name] = raw == "true"
        else:
            try:
                ctx[name] = int(raw)
            except ValueError:
                raise OptionError(
                    N_("--set {name}: a whole number, true or false, not {value!r}"),
                    name=name,
                    value=raw,
                ) from None
    return ctx


@table_app.command(
    "list",
    help=_h(N_("List every table with its dice and source.\n\nExample: kerker table list --json")),
)
@friendly
def list_command(
    tables: TablesOption = None, json_out: JsonOption = False, lang: LangOption = None
) -> None:
    from kerker.tables.model import pick_text
    from kerker.tables.show import shown_dice

    code = resolve_language(lang)
    registry = _registry(tables)
    items = [
        {
            "id": t.id,
            "title": pick_text(t.title, code),
            "dice": t.dice,
            "source": {"seed": t.seed, "heading": t.heading},
        }
        for t in registry
    ]
    if json_out:
        print_json(dump_json(items))
        return
    from rich.table import Table as RichTable

    from kerker.termio import console, rich_text

    _ = translator(code)
    terminal = console()
    view = RichTable(title=_("{n} tables").format(n=len(items)), title_justify="left")
    # Ids are never cut or wrapped (they are copied into `table roll`); the other columns
    # take what is left, and the source (also in --json and `table show`) is left out
    # when the terminal is too narrow for it.
    longest = max([len(item["id"]) for item in items] + [2])
    wide = terminal.width >= longest + 70
    view.add_column("id", no_wrap=True, min_width=longest)
    view.add_column(_("title"), min_width=10, ratio=3)
    view.add_column(_("dice"), overflow="fold", max_width=14)
    if wide:
        view.add_column(_("source"), ratio=2)
    for item, t in zip(items, registry, strict=True):
        dice = shown_dice(t.dice, t.params, code) or "—"  # the JSON keeps the data's template
        row = [rich_text(item["id"]), rich_text(item["title"]), rich_text(dice)]
        view.add_row(*row, *([rich_text(item["source"]["heading"])] if wide else []))
    terminal.print(view)


@table_app.command(
    "show",
    help=_h(
        N_(
            "Show a table as stored: dice, rows, effects, source.\n\n"
            "Example: kerker table show zufallslabyrinth/schatz"
        )
    ),
)
@friendly
def show_command(
    table_id: IdArgument,
    tables: TablesOption = None,
    json_out: JsonOption = False,
    lang: LangOption = None,
) -> None:
    from kerker.tables.show import show_json, show_rich

    code = resolve_language(lang)
    table = _registry(tables).get(table_id)
    if json_out:
        print_json(dump_json(show_json(table, code)))
        return
    show_rich(table, code)


@table_app.command(
    "roll",
    help=_h(
        N_(
            "Roll a table, follow-ups included, with the full roll "
            "log.\n\nExample: kerker table roll zufallslabyrinth/schatz "
            "--level 3 --guarded --explain"
        )
    ),
)
@friendly
def roll_command(
    table_id: IdArgument,
    times: Annotated[int, typer.Option("--times", "-n", help=_h(N_("Roll this many times.")))] = 1,
    seed: Annotated[
        int | None, typer.Option("--seed", help=_h(N_("Seed for a repeatable roll.")))
    ] = None,
    level: LevelOption = 1,
    guarded: GuardedOption = False,
    sets: SetOption = None,
    explain: Annotated[
        bool, typer.Option("--explain", "-e", help=_h(N_("Show every die.")))
    ] = False,
    tables: TablesOption = None,
    json_out: JsonOption = False,
    lang: LangOption = None,
) -> None:
    from kerker import __version__
    from kerker.tables.engine import roll_table
    from kerker.tables.render import lines, to_json

    code = resolve_language(lang)
    if not 1 <= times <= MAX_TIMES:
        raise OptionError(N_("--times must be between 1 and {max}"), max=MAX_TIMES)
    ctx = _context(level, guarded, sets)
    registry = _registry(tables)
    used_seed, rng = make_rng(seed)
    results = [roll_table(registry, table_id, rng, context=ctx) for _i in range(times)]
    if json_out:
        print_json(
            dump_json(
                {
                    "kerker": __version__,
                    "seed": used_seed,
                    "table": table_id,
                    "context": ctx,
                    "lang": code,
                    "results": [{"result": to_json(r, code), "log": log} for r, log in results],
                }
            )
        )
        return
    _ = translator(code)
    for result, _log in results:
        print("\n".join(lines(result, code, explain=explain)))
    if explain:
        print(_("(seed {seed})").format(seed=used_seed))


@table_app.command(
    "odds",
    help=_h(
        N_(
            "Every final outcome of a table, follow-ups included, "
            "with its exact probability.\n\nExample: kerker table "
            "odds zufallslabyrinth/innenausstattung"
        )
    ),
)
@friendly
def odds_command(
    table_id: IdArgument,
    tree: Annotated[
        bool,
        typer.Option(
            "--tree",
            help=_h(N_("Show the probability tree even when the list of outcomes is short.")),
        ),
    ] = False,
    level: LevelOption = 1,
    guarded: GuardedOption = False,
    sets: SetOption = None,
    tables: TablesOption = None,
    json_out: JsonOption = False,
    lang: LangOption = None,
) -> None:
    from kerker.tables.odds import table_odds
    from kerker.tables.registry import TableError

    code = resolve_language(lang)
    ctx = _context(level, guarded, sets)
    registry = _registry(tables)
    outcomes = None
    if not tree:
        try:
            outcomes = table_odds(registry, table_id, lang=code, context=ctx, max_outcomes=MAX_FLAT)
        except TableError as err:
            if err.code != "table_too_many":
                raise
    if outcomes is None:
        _print_tree(registry, table_id, code, ctx, json_out)
        return
    if json_out:
        print_json(
            dump_json(
                {
                    "table": table_id,
                    "context": ctx,
                    "lang": code,
                    "mode": "outcomes",
                    "outcomes": [
                        {"p": frac(p), "outcome": o.describe(), "detail": o.to_json()}
                        for o, p in outcomes
                    ],
                }
            )
        )
        return
    from rich.table import Table as RichTable

    from kerker.termio import console, rich_text

    _ = translator(code)
    view = RichTable(
        title=rich_text(_("Exact odds of {id}").format(id=table_id)), title_justify="left"
    )
    view.add_column(_("probability"), justify="right", no_wrap=True)
    view.add_column(_("fraction"), justify="right", no_wrap=True)
    view.add_column(_("outcome"))
    for outcome, p in outcomes:
        view.add_row(percent(p, code, 3), frac(p), rich_text(outcome.describe()))
    console().print(view)


def _print_tree(
    registry: Any, table_id: str, code: str, ctx: dict[str, int | bool], json_out: bool
) -> None:
    from kerker.tables.tree import table_tree

    tree = table_tree(registry, table_id, lang=code, context=ctx)
    if json_out:
        print_json(
            dump_json(
                {
                    "table": table_id,
                    "context": ctx,
                    "lang": code,
                    "mode": "tree",
                    "tree": tree.to_json(),
                }
            )
        )
        return
    import shutil
    import textwrap

    _ = translator(code)
    width = max(40, min(100, shutil.get_terminal_size((80, 24)).columns))
    print(
        textwrap.fill(
            _(
                "Exact odds of {id}, as a tree: each row's chance; beneath it, the "
                "odds of its follow-ups (independent of each other)."
            ).format(id=table_id),
            width=width,
        )
    )
    print("\n".join(tree.lines(0, code)))


@table_app.command(
    "lint",
    help=_h(
        N_(
            "Check table files: ranges, references, languages, "
            "expressions. Prints file:line:col: message; exit 1 when "
            "anything is wrong.\n\nExample: kerker table lint "
            "my-tables/"
        )
    ),
)
@friendly
def lint_command(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="PATH", help=_h(N_("Files or folders (default: the shipped tables)."))
        ),
    ] = None,
    tables: TablesOption = None,
    lang: LangOption = None,
) -> None:
    from kerker.tables.lint import lint_paths

    _ = translator(resolve_language(lang))
    problems = lint_paths(list(paths or []), registry_paths=table_dirs(tables))
    for problem in problems:
        print(problem.text(_))
    if any(not problem.warning for problem in problems):  # warnings alone: exit 0
        raise typer.Exit(1)


@table_app.command(
    "export",
    help=_h(
        N_(
            "Export a table for a virtual tabletop.\n\n"
            "Example: kerker table export zufallslabyrinth/schatz "
            "--format foundry > schatz.json"
        )
    ),
)
@friendly
def export_command(
    table_id: IdArgument,
    fmt: Annotated[
        str, typer.Option("--format", help=_h(N_("Export format: foundry.")))
    ] = "foundry",
    tables: TablesOption = None,
    lang: LangOption = None,
) -> None:
    from kerker.tables.foundry import export_table

    code = resolve_language(lang)
    if fmt != "foundry":
        raise OptionError(N_("unknown export format {fmt!r}; choose foundry"), fmt=fmt)
    print_json(export_table(_registry(tables), table_id, fmt, lang=code) + "\n")


@table_app.command(
    "import",
    help=_h(
        N_(
            "Turn a pasted book table (CSV: range, text) into a "
            "table file.\n\nExample: kerker table import loot.csv "
            "--name loot --out my-tables/loot.yaml"
        )
    ),
)
@friendly
def import_command(
    file: Annotated[Path, typer.Argument(metavar="FILE.csv", help=_h(N_("The CSV file.")))],
    name: Annotated[
        str | None, typer.Option("--name", help=_h(N_("Table name (default: the file name).")))
    ] = None,
    rule_set: Annotated[
        str, typer.Option("--rule-set", help=_h(N_("Rule set (id prefix).")))
    ] = "custom",
    dice: Annotated[
        str | None,
        typer.Option("--dice", help=_h(N_("The die (default: guessed from the ranges)."))),
    ] = None,
    text_lang: Annotated[
        str, typer.Option("--text-lang", help=_h(N_("Language of the text column: de, it or en.")))
    ] = "de",
    out: Annotated[
        Path | None,
        typer.Option("--out", help=_h(N_("Write the table file here (default: print it)."))),
    ] = None,
    lang: MessageLangOption = None,
) -> None:
    from kerker.fileio import read_text, write_atomic
    from kerker.tables.csvimport import MAX_CSV_BYTES, import_csv

    text_code = resolve_language(text_lang)
    text = read_text(file, max_bytes=MAX_CSV_BYTES)
    table_name = name or file.stem.lower().replace(" ", "-")
    yaml_text = import_csv(
        text, name=table_name, rule_set=rule_set, lang=text_code, dice=dice, source_file=file.name
    )
    if out is None:
        print(yaml_text, end="")
        return
    write_atomic(out, yaml_text)  # the folder is created if missing, as --out does elsewhere


@table_app.command(
    "schema",
    help=_h(
        N_(
            "Print the JSON Schema of table files (for editors).\n\n"
            "Example: kerker table schema > kerker-tables.schema.json"
        )
    ),
)
@friendly
def schema_command(lang: MessageLangOption = None) -> None:
    from kerker.tables.schema import json_schema

    print_json(dump_json(json_schema()))
