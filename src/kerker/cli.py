"""The ``kerker`` command line: options -> one library call -> rendered output.

Commands live in :mod:`kerker.commands`; each translates :class:`~kerker.errors.KerkerError`
into one line on stderr and exit status 2. Heavy imports (Rich, tables) happen inside the
commands that need them, so ``kerker roll`` starts fast.
"""

from __future__ import annotations

import typer

from kerker.commands.check import CHECK_HELP, check_command
from kerker.commands.dice import ODDS_HELP, ROLL_HELP, odds_command, roll_command
from kerker.commands.dungeon import DUNGEON_HELP, dungeon_command
from kerker.commands.play import PLAY_HELP, play_app
from kerker.commands.prowl import prowl_app
from kerker.commands.serve import SERVE_HELP, serve_command
from kerker.commands.table import table_app
from kerker.commands.zones import ZONES_HELP, zones_command
from kerker.i18n import default_language, translator

_h = translator(default_language())

app = typer.Typer(
    name="kerker",
    help=_h("kerker: dungeons, zone maps, heists, tables and dice for game masters.\n\n"
            "Example: kerker dungeon --seed 7 --out maps"),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
app.command("roll", help=_h(ROLL_HELP))(roll_command)
app.command("odds", help=_h(ODDS_HELP))(odds_command)
app.command("check", help=_h(CHECK_HELP))(check_command)
app.command("dungeon", help=_h(DUNGEON_HELP))(dungeon_command)
app.add_typer(table_app, name="table")
app.command("zones", help=_h(ZONES_HELP))(zones_command)
app.add_typer(prowl_app, name="prowl")
app.command("serve", help=_h(SERVE_HELP))(serve_command)
app.add_typer(play_app, name="play", help=_h(PLAY_HELP))


def main() -> None:
    """Entry point of the ``kerker`` console script."""
    import gc

    # A short-lived command that makes many small objects and no garbage cycles worth
    # hunting: what is loaded so far is never collected, and collections run less often
    # (measured: 9% off a 5-level dungeon's files without PNG).
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
    app(prog_name="kerker")
