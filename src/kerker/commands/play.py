"""``kerker play``: explore a dungeon door by door, solo or at the table, saved after every
step (a thin shell over :mod:`kerker.play`).

``kerker play new`` starts a session and prints its id; ``open``, ``undo``, ``redo``,
``reroll``, ``note``, ``roll``, ``table``, ``check``, ``reveal``, ``hide``, ``enter`` each
append one event; ``show``, ``journal``, ``export`` read; ``kerker play S`` (or
``kerker play`` alone) is the interactive loop. The database: ``--db URL``, else
``KERKER_DB``, else the SQLite file in the user's data folder.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kerker.cli_support import (
    JsonOption,
    LangGroup,
    dump_json,
    friendly,
    lang_to_command,
    make_rng,
    resolve_language,
)
from kerker.cli_support import cli_translate as _h
from kerker.commands.options import (
    LevelsOption,
    MaxAreasOption,
    MinAreasOption,
    RulesOption,
    SeedOption,
    SizeOption,
)
from kerker.commands.options import RuleSetLangOption as LangOption
from kerker.errors import N_, OptionError
from kerker.i18n import Translate, translator

if TYPE_CHECKING:
    from kerker.play.api import Play
    from kerker.play.session import PlayState

ENV_DB = "KERKER_DB"
MAX_IMPORT_BYTES = 4_000_000

PLAY_HELP = N_(
    "Explore a dungeon door by door, solo or at the table: every step is saved, can be "
    "undone, and the journal tells it in German, Italian or English.\n\n"
    "kerker play new prints a session id S; kerker play S plays it in the terminal.\n\n"
    "Example: kerker play new --seed 7 && kerker play open S next"
)


class _PlayGroup(LangGroup):
    """``kerker play S`` = ``kerker play resume S``: a first word that is not a command
    names a session."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        # "--lang de S" -> "S --lang de"; "--lang de --help": play's help; "--lang de": the loop
        args = lang_to_command(args, bare=True)
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h")):
            args = ["resume", *args]
        return super().parse_args(ctx, args)


play_app = typer.Typer(
    cls=_PlayGroup,
    help=_h(PLAY_HELP),
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode=None,
)

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        metavar="URL",
        help=_h(
            N_(
                "The session database: a SQLite file or postgresql://... (default: KERKER_DB, else "
                "a file in your data folder)."
            )
        ),
    ),
]
SessionArg = Annotated[
    str,
    typer.Argument(
        metavar="S", help=_h(N_("The session: its id (or the start of it) or its name."))
    ),
]

AreaLevelOption = Annotated[
    int | None, typer.Option("--level", help=_h(N_("The area's level (default: the current).")))
]
DifficultyOption = Annotated[
    int,
    typer.Option(
        "--difficulty", metavar="W", help=_h(N_("The modifier of the difficulty (e.g. -2)."))
    ),
]


def _play(db: str | None) -> Play:
    from kerker.play.api import Play
    from kerker.play.store import open_store
    from kerker.tables.registry import load_registry

    url = db or os.environ.get(ENV_DB) or None
    return Play(open_store(url), load_registry())


def _lang(state: PlayState, lang: str | None) -> str:
    """``--lang``, else the language the rule set was printed in."""
    from kerker.play.views import rules_language

    return resolve_language(lang) if lang else rules_language(state)


def _exit_lines(state: PlayState, view: str, _: Translate) -> list[str]:
    from kerker.play.views import exit_lines

    return exit_lines(state, view, _)


def _summary(state: PlayState, lang: str, view: str = "gm") -> str:
    from kerker.play.views import summary

    return summary(state, lang, view)


def _result(state: PlayState, lang: str | None, json_out: bool) -> None:
    from kerker.play.views import open_exit_list

    code = _lang(state, lang)
    if json_out:
        last = state.events[-1].to_json() if state.events else None
        print(
            dump_json(
                {
                    "session": state.info.id,
                    "seq": state.seq,
                    "event": last,
                    "open_exits": open_exit_list(state, "gm"),
                }
            )
        )
        return
    _ = translator(code)
    if state.events:
        from kerker.play.journal import journal_lines, plain_text

        tables = state.registry or _play_registry()  # the session's own tables too
        step = journal_lines(state, tables, code, "gm", [state.events[-1]])
        print(plain_text("\n".join(step)))  # a terminal line: no Markdown, no HTML tags
    exits = _exit_lines(state, "gm", _)
    print(_("Open exits:") if exits else _("No exit is open."))
    print("\n".join(exits))


def _play_registry() -> Any:
    from kerker.tables.registry import load_registry

    return load_registry()


def _act(
    s: str, kind: str, db: str | None, lang: str | None, json_out: bool, **fields: Any
) -> None:
    from kerker.tables.engine import MoreDiceNeeded

    play = _play(db)
    try:
        state = play.act(s, kind, **fields)
    except MoreDiceNeeded as err:
        # the table named in the language the error line is printed in
        raise err.in_language(resolve_language(lang)) from None
    finally:
        play.store.close()
    _result(state, lang, json_out)


@play_app.command(
    "new",
    help=_h(
        N_(
            "Start a session: a dungeon with its entrance placed and "
            "nothing explored yet; prints the session id."
        )
    ),
)
@friendly
def new_command(
    rules: RulesOption = "zufallslabyrinth",
    seed: SeedOption = None,
    levels: LevelsOption = 1,
    size: SizeOption = None,
    max_areas: MaxAreasOption = 60,
    min_areas: MinAreasOption = 10,
    entrance: Annotated[
        str, typer.Option("--entrance", help=_h(N_("How level 1 begins: variant, room or hall.")))
    ] = "variant",
    caves: Annotated[
        str,
        typer.Option(
            "--caves",
            help=_h(
                N_(
                    "Where A.1 chambers become A.8 caves: depth, always, never; only for "
                    "scatola-bianca."
                )
            ),
        ),
    ] = "depth",
    name: Annotated[
        str, typer.Option("--name", help=_h(N_("A name for the session (up to 100 characters).")))
    ] = "",
    tables: Annotated[
        list[Path] | None,
        typer.Option(
            "--tables",
            help=_h(
                N_(
                    "A folder (or file) of your own tables, as kerker dungeon takes them; "
                    "repeatable, also read from KERKER_TABLES. The session keeps their texts."
                )
            ),
        ),
    ] = None,
    no_referee: Annotated[
        bool,
        typer.Option(
            "--no-referee",
            help=_h(
                N_(
                    "Play without a game master: everyone sees the players' view, and secret "
                    "doors, hidden treasure and traps show only when the rules find them."
                )
            ),
        ),
    ] = False,
    db: DbOption = None,
    json_out: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Start a session."""
    from kerker.cli_support import table_dirs
    from kerker.commands.dungeon import parse_size
    from kerker.tables.owntexts import read_paths

    if len(name) > 100 or any(not ch.isprintable() for ch in name):
        raise OptionError(N_("--name takes up to 100 printable characters"))
    used_seed, _rng = make_rng(seed)
    options: dict[str, Any] = {
        "levels": levels,
        **({"size": list(parse_size(size))} if size is not None else {}),
        "max_areas": max_areas,
        "min_areas": min_areas,
        "entrance": entrance,
    }
    if caves != "depth" or rules == "scatola-bianca":
        options["caves"] = caves
    own = read_paths(table_dirs(tables))
    if own:
        options["tables"] = [{"name": n, "text": t} for n, t in own]
    from kerker.commands.dungeon import flags

    play = _play(db)
    try:
        with flags():  # the engine's option errors name the command line's flags
            state = play.new(rules, used_seed, options, name=name, referee=not no_referee)
    finally:
        play.store.close()
    if json_out:
        print(
            dump_json(
                {
                    "session": state.info.id,
                    "player_token": state.info.player_token,
                    "gm_token": state.info.gm_token,
                    "referee": state.info.referee,
                    "rules": rules,
                    "seed": used_seed,
                    "tables_digest": state.info.tables_digest or None,
                }
            )
        )
        return
    print(state.info.id)


@play_app.command("list", help=_h(N_("The sessions, the most recently played first.")))
@friendly
def list_command(
    db: DbOption = None, json_out: JsonOption = False, lang: LangOption = None
) -> None:
    """List sessions."""
    play = _play(db)
    try:
        infos = play.sessions()
    finally:
        play.store.close()
    if json_out:
        print(
            dump_json(
                [{k: v for k, v in i.listing_json().items() if k != "fingerprint"} for i in infos]
            )
        )
        return
    _ = translator(resolve_language(lang))
    if not infos:
        print(_("No sessions yet: kerker play new starts one."))
    for i in infos:
        print(f"{i.id}  {i.updated}  {i.rules:<17} {_('seed')} {i.seed:<12} {_terminal(i.name)}")


def _terminal(text: str) -> str:
    """User text safe for a terminal (no control characters, no escape sequences)."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


@play_app.command(
    "show",
    help=_h(
        N_(
            "The session as it stands: the map preview and the open "
            "exits (--json: the dungeon document plus open_exits)."
        )
    ),
)
@friendly
def show_command(
    s: SessionArg,
    view: Annotated[
        str,
        typer.Option(
            "--view", help=_h(N_("gm (everything) or player (only what was opened or revealed)."))
        ),
    ] = "gm",
    db: DbOption = None,
    json_out: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Show a session."""
    from kerker.play.views import check_view, show

    check_view(view)
    play = _play(db)
    try:
        state = play.state(s)
    finally:
        play.store.close()
    code = _lang(state, lang)
    if json_out:
        from kerker.dungeon.export import dumps_document

        shown = show(state, view, code)
        if view == "gm":  # the owner of the database asks: the GM's secret for the web app
            shown["gm_token"] = state.info.gm_token
            shown["gm_path"] = f"/gm/{state.info.gm_token}"
        print(dumps_document(shown), end="")
        return
    print(_summary(state, code, view))


DoorDiceOption = Annotated[
    str | None,
    typer.Option(
        "--dice",
        metavar="VALUES",
        help=_h(
            N_(
                "Real dice: what they showed for the table rolls behind the door, in order "
                '(e.g. "12 3 5"); without --roll-rest every roll needs a value.'
            )
        ),
    ),
]
RollRestOption = Annotated[
    bool,
    typer.Option(
        "--roll-rest",
        help=_h(N_("With --dice: kerker rolls the table rolls the values entered do not cover.")),
    ),
]


def _door_dice(dice: str | None, roll_rest: bool) -> dict[str, Any]:
    """The ``dice``/``rest`` fields of an open or reroll from ``--dice`` and
    ``--roll-rest`` ({} without ``--dice``)."""
    if dice is None:
        if roll_rest:
            raise OptionError(N_("--roll-rest goes with --dice"))
        return {}
    from kerker.play.events import MAX_DOOR_DICE

    parts = dice.replace(",", " ").replace(";", " ").split()
    if len(parts) > MAX_DOOR_DICE or not all(p.isdigit() and len(p) < 6 for p in parts):
        raise OptionError(
            N_("--dice takes whole numbers separated by spaces, not {text!r}"), text=dice[:60]
        )
    return {"dice": [int(p) for p in parts], "rest": roll_rest}


ExitArg = Annotated[str, typer.Argument(metavar="EXIT")]


def _door_command(kind: str) -> Callable[..., None]:
    """The command of ``kind`` ``open`` or ``reroll``: an exit, with real dice if given."""

    def command(
        s: SessionArg,
        exit_: ExitArg,
        dice: DoorDiceOption = None,
        roll_rest: RollRestOption = False,
        db: DbOption = None,
        json_out: JsonOption = False,
        lang: LangOption = None,
    ) -> None:
        _act(s, kind, db, lang, json_out, exit=exit_, **_door_dice(dice, roll_rest))

    return friendly(command)


def _step_command(kind: str) -> Callable[..., None]:
    """The command of ``kind`` ``undo`` or ``redo``: a step of the log, nothing else."""

    def command(
        s: SessionArg,
        db: DbOption = None,
        json_out: JsonOption = False,
        lang: LangOption = None,
    ) -> None:
        _act(s, kind, db, lang, json_out)

    return friendly(command)


play_app.command(
    "open",
    help=_h(
        N_(
            "Open an exit: its number in the list, its key, or next "
            "(the exit the procedure's own walk takes next)."
        )
    ),
)(_door_command("open"))
play_app.command(
    "undo",
    help=_h(
        N_(
            "Take back the last open, reroll, enter, note, reveal or hide (it stays in the "
            "log); searches, rolls and takes stay."
        )
    ),
)(_step_command("undo"))
play_app.command("redo", help=_h(N_("Redo the last undone step.")))(_step_command("redo"))
play_app.command(
    "reroll",
    help=_h(
        N_(
            "Roll again what lies behind an exit already opened "
            "(its key, or last); logged, never silent."
        )
    ),
)(_door_command("reroll"))


@play_app.command("note", help=_h(N_("Write a note on the session or, with --area, on an area.")))
@friendly
def note_command(
    s: SessionArg,
    text: Annotated[str, typer.Argument(metavar="TEXT")],
    area: Annotated[int | None, typer.Option("--area")] = None,
    level: Annotated[int | None, typer.Option("--level")] = None,
    db: DbOption = None,
    json_out: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Note."""
    _act(s, "note", db, lang, json_out, text=text, area=area, depth=level)


def _faces_option(help_text: str, *names: str) -> Any:
    """The option of the faces real dice showed (``--entered FACES`` unless ``names``
    say otherwise), read by :func:`_faces`."""
    return typer.Option(*(names or ("--entered",)), metavar="FACES", help=help_text)


def _faces(text: str | None) -> list[int] | None:
    if text is None:
        return None
    parts = [p.strip() for p in text.replace(";", ",").replace(" ", ",").split(",") if p.strip()]
    if not parts or not all(p.lstrip("-").isdigit() for p in parts) or len(parts) > 100:
        raise OptionError(
            N_("dice entered are whole numbers separated by commas, not {text!r}"), text=text
        )
    return [int(p) for p in parts]


@play_app.command(
    "roll",
    help=_h(
        N_('Roll dice (d20, 3d6+2), or enter what real dice showed: "d20: 12" or --entered 12.')
    ),
)
@friendly
def roll_command(
    s: SessionArg,
    expr: Annotated[str, typer.Argument(metavar="EXPR")],
    entered: Annotated[
        str | None, _faces_option(_h(N_("The faces real dice showed, in order (e.g. 4,6,1).")))
    ] = None,
    db: DbOption = None,
    json_out: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Roll dice."""
    if entered is None and ":" in expr:
        expr, _sep, given = expr.partition(":")
        entered = given
    _act(s, "roll", db, lang, json_out, expr=expr.strip(), entered=_faces(entered))


@play_app.command("table", help=_h(N_("Roll a table (kerker table list shows them).")))
@friendly
def table_command(
    s: SessionArg,
    table: Annotated[str, typer.Argument(metavar="TABLE")],
    entered: Annotated[
        str | None,
        _faces_option(
            _h(
                N_(
                    "What real dice showed for the table's own die (its follow-up "
                    "tables are rolled by kerker)."
                )
            )
        ),
    ] = None,
    db: DbOption = None,
    json_out: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Roll a table."""
    _act(s, "table", db, lang, json_out, table=table, entered=_faces(entered))


@play_app.command(
    "check",
    help=_h(N_("An HPR check (seed 003) against VALUE; --secret keeps the dice from the players.")),
)
@friendly
def check_command(
    s: SessionArg,
    value: Annotated[int, typer.Argument(metavar="VALUE")],
    difficulty: DifficultyOption = 0,
    secret: Annotated[
        bool,
        typer.Option(
            "--secret", help=_h(N_("A hidden check: the players see only that the GM rolled."))
        ),
    ] = False,
    entered: Annotated[
        str | None,
        _faces_option(
            _h(
                N_(
                    "The d20 faces real dice showed: the roll, then the confirmation "
                    "after a 1 or a 20."
                )
            )
        ),
    ] = None,
    db: DbOption = None,
    json_out: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """HPR check."""
    _act(
        s,
        "check",
        db,
        lang,
        json_out,
        value=value,
        modifier=difficulty,
        secret=secret,
        entered=_faces(entered),
    )


@play_app.command(
    "search",
    help=_h(
        N_(
            "Search area AREA (or one wall of it) by the rules: Scatola Bianca rolls 1d12 "
            "per 10 ft of wall, the Zufallslabyrinth an HPR check; what it finds joins the "
            "players' map."
        )
    ),
)
@friendly
def search_command(
    s: SessionArg,
    area: Annotated[int, typer.Argument(metavar="AREA")],
    side: Annotated[
        str | None,
        typer.Option(
            "--side",
            metavar=_h(N_("n|e|s|w")),
            help=_h(
                N_(
                    "Search only this wall: n, e, s or w, or the word (north, east, south, "
                    "west; default: all walls)."
                )
            ),
        ),
    ] = None,
    level: AreaLevelOption = None,
    value: Annotated[
        int | None,
        typer.Option(
            "--value",
            help=_h(N_("Zufallslabyrinth: the searcher's value for the HPR check (default 10).")),
        ),
    ] = None,
    difficulty: DifficultyOption = 0,
    entered: Annotated[
        str | None,
        _faces_option(
            _h(N_("The faces real dice showed, in order (e.g. 7,1,12).")), "--dice", "--entered"
        ),
    ] = None,
    db: DbOption = None,
    json_out: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Search."""
    from kerker.play.wallnames import read_wall

    _act(
        s,
        "search",
        db,
        lang,
        json_out,
        area=area,
        depth=level,
        side=read_wall(side, resolve_language(lang)),  # the language of the help and errors
        value=value,
        modifier=difficulty,
        entered=_faces(entered),
    )


@play_app.command(
    "take",
    help=_h(
        N_("Take (open) treasure ITEM (default 1) of area AREA; a trapped one springs its trap.")
    ),
)
@friendly
def take_command(
    s: SessionArg,
    area: Annotated[int, typer.Argument(metavar="AREA")],
    item: Annotated[int, typer.Argument(metavar="ITEM")] = 1,
    level: AreaLevelOption = None,
    db: DbOption = None,
    json_out: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Take treasure."""
    _act(s, "take", db, lang, json_out, area=area, item=item, depth=level)


def _mark_command(kind: str) -> Callable[..., None]:
    """The command of ``kind`` ``reveal`` or ``hide``: an area, or a secret door by ``--exit``."""

    def command(
        s: SessionArg,
        area: Annotated[int | None, typer.Argument(metavar="AREA")] = None,
        level: Annotated[int | None, typer.Option("--level")] = None,
        exit_: Annotated[str | None, typer.Option("--exit")] = None,
        db: DbOption = None,
        json_out: JsonOption = False,
        lang: LangOption = None,
    ) -> None:
        _act(s, kind, db, lang, json_out, area=area, depth=level, exit=exit_)

    return friendly(command)


play_app.command(
    "reveal", help=_h(N_("Show an area (or a found secret door, --exit KEY) to the players."))
)(_mark_command("reveal"))
play_app.command(
    "hide", help=_h(N_("Hide an area (or a secret door, --exit KEY) from the players again."))
)(_mark_command("hide"))


@play_app.command("enter", help=_h(N_("Go to level LEVEL by an open stair, trapdoor or shaft.")))
@friendly
def enter_command(
    s: SessionArg,
    level: Annotated[int, typer.Argument(metavar="LEVEL")],
    db: DbOption = None,
    json_out: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Enter a level."""
    _act(s, "enter", db, lang, json_out, level=level)


@play_app.command(
    "journal",
    help=_h(N_("The session as a play report (Markdown) or its whole log (--format json).")),
)
@friendly
def journal_command(
    s: SessionArg,
    fmt: Annotated[str, typer.Option("--format", help=_h(N_("md or json.")))] = "md",
    view: Annotated[
        str, typer.Option("--view", help=_h(N_("gm or player (no secret dice, no room contents).")))
    ] = "gm",
    db: DbOption = None,
    json_out: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Journal."""
    from kerker.play.api import export
    from kerker.play.journal import journal_md
    from kerker.play.views import check_view

    check_view(view)
    if fmt not in ("md", "json"):
        raise OptionError(N_("--format takes md or json, not {text!r}"), text=fmt)
    play = _play(db)
    try:
        state = play.state(s)
    finally:
        play.store.close()
    if fmt == "json" or json_out:
        print(dump_json(export(state)))
        return
    print(journal_md(state, play.registry, _lang(state, lang), view), end="")


@play_app.command("export", help=_h(N_("The whole log as JSON (for import).")))
@friendly
def export_command(
    s: SessionArg,
    out: Annotated[Path | None, typer.Option("--out", metavar="FILE")] = None,
    db: DbOption = None,
    json_out: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Export."""
    from kerker.cli_support import write_output
    from kerker.play.api import export

    play = _play(db)
    try:
        state = play.state(s)
    finally:
        play.store.close()
    text = dump_json(export(state)) + "\n"
    if out is not None:
        write_output(out, text)
        if json_out:
            print(dump_json({"session": state.info.id, "written": str(out)}))
        return
    print(text, end="")


@play_app.command(
    "import", help=_h(N_("A new session from an exported log (every step replayed and checked)."))
)
@friendly
def import_command(
    file: Annotated[Path, typer.Argument(metavar="FILE")],
    name: Annotated[str | None, typer.Option("--name")] = None,
    db: DbOption = None,
    json_out: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Import."""
    try:
        if file.stat().st_size > MAX_IMPORT_BYTES:
            raise OptionError(
                N_("{path} is larger than {max} bytes"), path=str(file), max=MAX_IMPORT_BYTES
            )
        data = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise OptionError(
            N_("cannot read {path}: {reason}"), path=str(file), reason=exc.strerror or str(exc)
        ) from None
    except (ValueError, RecursionError):
        raise OptionError(N_("{path} is not JSON"), path=str(file)) from None
    play = _play(db)
    try:
        state = play.import_log(data, name=name)
    finally:
        play.store.close()
    if json_out:
        print(dump_json({"session": state.info.id, "seq": state.seq}))
        return
    print(state.info.id)


@play_app.command("delete", help=_h(N_("Delete a session and its log.")))
@friendly
def delete_command(
    s: SessionArg, db: DbOption = None, json_out: JsonOption = False, lang: LangOption = None
) -> None:
    """Delete."""
    play = _play(db)
    try:
        gone = play.delete(s)
    finally:
        play.store.close()
    if json_out:
        print(dump_json({"deleted": gone}))
        return
    print(translator(resolve_language(lang))("deleted: {session}").format(session=gone))


@play_app.command("resume", hidden=True)
@friendly
def resume_command(
    s: Annotated[str | None, typer.Argument(metavar="S")] = None,
    db: DbOption = None,
    lang: LangOption = None,
    json_out: JsonOption = False,
) -> None:
    """The interactive loop (``kerker play S``)."""
    from kerker.play.terminal import run_loop

    if json_out:
        raise OptionError(N_("the interactive loop has no --json; use kerker play show S --json"))
    play = _play(db)
    try:
        run_loop(play, s, lang, sys.stdin, sys.stdout)
    finally:
        play.store.close()
