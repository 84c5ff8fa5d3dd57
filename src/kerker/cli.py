"""The ``kerker`` command line: options -> one library call -> rendered output.

Commands live in :mod:`kerker.commands`; each translates :class:`~kerker.errors.KerkerError`
into one line on stderr and exit status 2. Only the command that runs is imported and built
(``kerker roll`` never imports the dungeon, zone or table code, nor builds their options);
``kerker --help`` builds them all to list them. Heavy imports (Rich, tables) happen inside the
commands that need them, so ``kerker roll`` starts fast.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterator, MutableMapping
from typing import Any

import typer

from kerker.cli_support import LangGroup, cli_language
from kerker.cli_support import cli_translate as _h
from kerker.errors import N_
from kerker.i18n import translator

COMMANDS: dict[str, tuple[str, str, str | None]] = {
    "roll": ("kerker.commands.dice", "roll_command", "ROLL_HELP"),
    "odds": ("kerker.commands.dice", "odds_command", "ODDS_HELP"),
    "check": ("kerker.commands.check", "check_command", "CHECK_HELP"),
    "dungeon": ("kerker.commands.dungeon", "dungeon_command", "DUNGEON_HELP"),
    "zones": ("kerker.commands.zones", "zones_command", "ZONES_HELP"),
    "table": ("kerker.commands.table", "table_app", None),
    "prowl": ("kerker.commands.prowl", "prowl_app", None),
    "play": ("kerker.commands.play", "play_app", None),
    "serve": ("kerker.commands.serve", "serve_command", "SERVE_HELP"),
}
"""Every command in the order ``--help`` lists them: module, function (or sub-app) and the
name of its help text in that module (``None`` for a sub-app, which carries its own)."""


HELP_MAX_WIDTH = 100
"""The widest a help page is wrapped: as wide as the terminal up to this (Click's own cap
is 80, so a wide terminal got 78 columns); a pipe or a terminal of unknown width keeps
Click's 78."""


class HelpContext(typer.Context):
    """The context of every kerker command: its help pages in the reader's language."""

    def make_formatter(self) -> Any:
        """Click's help formatter with Click's and Typer's own words translated
        (:mod:`kerker.cli_help`, imported only when a help page is written), wrapped to
        the terminal's width up to :data:`HELP_MAX_WIDTH`."""
        from kerker.cli_help import HelpFormatter

        return HelpFormatter(
            width=self.terminal_width, max_width=self.max_content_width or HELP_MAX_WIDTH
        )


def localise(command: Any) -> Any:
    """``command`` and every command under it with :class:`HelpContext` (their help in the
    reader's language); returns ``command``."""
    command.context_class = HelpContext
    for sub in getattr(command, "commands", {}).values():
        localise(sub)
    return command


def build_command(name: str) -> Any:
    """The Click command of one entry of :data:`COMMANDS`, importing only its module."""
    module_name, attribute, help_name = COMMANDS[name]
    module = importlib.import_module(module_name)
    target = getattr(module, attribute)
    if help_name is None:
        return localise(typer.main.get_command(target))
    one = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)
    one.command(name, help=_h(getattr(module, help_name)))(target)
    return localise(typer.main.get_command(one))


class _LazyCommands(MutableMapping[str, Any]):
    """The commands of the ``kerker`` group, each built the first time it is looked up."""

    def __init__(self) -> None:
        self._built: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            if name not in COMMANDS:
                raise KeyError(name)
            self._built[name] = build_command(name)
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._built[name] = localise(command)

    def __delitem__(self, name: str) -> None:
        del self._built[name]

    def __iter__(self) -> Iterator[str]:
        yield from COMMANDS
        yield from (name for name in self._built if name not in COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS) + sum(1 for name in self._built if name not in COMMANDS)


class LazyGroup(LangGroup):
    """A Typer group whose commands are imported and built only when looked up."""

    context_class = HelpContext

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        lazy = _LazyCommands()
        for name, command in self.commands.items():  # any registered the usual way
            lazy[name] = command
        self.commands = lazy


app = typer.Typer(
    name="kerker",
    cls=LazyGroup,
    help=_h(
        "kerker: dungeons, zone maps, heists, tables and dice for game masters.\n\n"
        "Example: kerker dungeon --seed 7 --out maps"
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback()
def _root() -> None:
    """The group itself does nothing; its commands do the work."""


PATH_OPTIONS = ("--out", "--tables", "--factions")
"""Options that take a path: an empty text there is refused (Click would read it as the
current folder)."""


def check_empty_paths(args: list[str]) -> None:
    """Refuse ``--out ""`` (and ``--out=``) for every option of :data:`PATH_OPTIONS`."""
    from kerker.errors import N_, OptionError

    for i, arg in enumerate(args):
        if arg == "--":
            return
        name, eq, value = arg.partition("=")
        if name in PATH_OPTIONS and (
            (eq and not value.strip()) or (not eq and i + 1 < len(args) and not args[i + 1].strip())
        ):
            raise OptionError(N_("{option} needs a path, not an empty value"), option=name)


def main() -> None:
    """Entry point of the ``kerker`` console script."""
    import gc

    from kerker.termio import guard_streams, run_guarded

    # A short-lived command that makes many small objects and no garbage cycles worth
    # hunting: what is loaded so far is never collected, and collections run less often
    # (measured: 9% off a 5-level dungeon's files without PNG).
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
    guard_streams()

    def run() -> None:
        check_empty_paths(sys.argv[1:])
        # Typer's UsageError (not exported): the base of its BadParameter
        usage_error: type[Exception] = typer.BadParameter.__mro__[1]
        try:
            code = app(prog_name="kerker", standalone_mode=False)
        except usage_error as exc:
            err: Any = exc
            if type(err).__name__ == "NoArgsIsHelpError":  # a bare group: its help
                err.show()
                raise SystemExit(err.exit_code) from None
            _ = translator(cli_language())
            print(usage_line(err, _), file=sys.stderr)
            raise SystemExit(2) from None
        except typer.Abort:
            _ = translator(cli_language())
            print(_("kerker: aborted"), file=sys.stderr)
            raise SystemExit(1) from None
        raise SystemExit(code if isinstance(code, int) else 0)

    run_guarded(run)


_CLICK_MESSAGES: tuple[tuple[str, str], ...] = (
    (
        r"^No such command '(?P<name>.*)'\.(?: Did you mean (?P<suggestions>.*)\?)?$",
        N_("no such command: {name}"),
    ),
    (r"^No such option: (?P<name>\S+)$", N_("no such option: {name}")),
    (
        r"^Got unexpected extra arguments?(?:\(s\))? \((?P<args>.*)\)$",
        N_("unexpected extra arguments: {args}"),
    ),
    (
        r"^Option '(?P<name>[^']*)' requires (?:an argument|\d+ arguments)\.$",
        N_("option {name} needs a value"),
    ),
    (r"^Missing command\.$", N_("missing command")),
    (
        r"^Option '(?P<name>[^']*)' does not take a value\.$",
        N_("option {name} takes no value"),
    ),
)
"""Typer's own usage errors (its Click copy has no translations) -> kerker's texts (patterns
compiled on the first error, not at start-up)."""
_BAD_VALUE = r"^'?(?P<value>.*?)'? is not a valid (?P<type>integer|float|int)\.$"
_RANGE = r"^(?P<value>.*) is not in the range (?P<range>.*)\.$"
_CHOICE = r"^'?(?P<value>.*?)'? is not one of (?P<choices>.*)\.$"


def usage_line(err: Any, _: Any) -> str:
    """One line for a usage error of Typer (unknown option, missing or bad value), in the
    language of ``_``, with where to find help: ``kerker: Fehler: unbekannte Option --x
    (Hilfe: kerker roll --help)``. A message kerker does not know stays as Typer wrote it."""
    ctx = getattr(err, "ctx", None)
    param = getattr(err, "param", None)
    message = str(getattr(err, "message", "") or "")
    text = ""
    name = getattr(err, "param_hint", None)
    if name is None and param is not None:
        name = param.get_error_hint(ctx) if ctx is not None else getattr(param, "name", None)
    if isinstance(name, list | tuple):
        name = " / ".join(str(n) for n in name)
    kind = type(err).__name__
    if kind == "MissingParameter":
        what = getattr(err, "param_type", None) or getattr(param, "param_type_name", "")
        template = (
            N_("missing argument {name}") if what == "argument" else N_("missing option {name}")
        )
        text = _(template).format(name=name or "")
    elif kind == "BadParameter" or (kind == "UsageError" and param is not None):
        inner = message
        for pattern, template in (
            (_BAD_VALUE, N_("{value} is not a whole number")),
            (_RANGE, N_("{value} is not in the range {range}")),
            (_CHOICE, N_("{value} is not one of {choices}")),
        ):
            found = re.match(pattern, message)
            if found:
                if template.startswith("{value} is not a whole") and found["type"] == "float":
                    template = N_("{value} is not a number")
                inner = _(template).format(**found.groupdict())
                break
        text = _("invalid value for {name}: {message}").format(name=name or "", message=inner)
    else:
        for pattern, template in _CLICK_MESSAGES:
            found = re.match(pattern, message)
            if found:
                fields = found.groupdict()
                suggestions = fields.pop("suggestions", None)
                text = _(template).format(**fields)
                if suggestions:  # Typer's "Did you mean 'roll', 'prowl'?"
                    names = ", ".join(name.strip("'") for name in suggestions.split(", "))
                    text += " " + _("(did you mean {options}?)").format(options=names)
                break
        if kind == "NoSuchOption" and getattr(err, "possibilities", None):
            text += " " + _("(did you mean {options}?)").format(
                options=", ".join(sorted(err.possibilities))
            )
    text = text or message
    line = f"kerker: {_('error')}: {text}"
    if ctx is not None:
        line += " " + _("(help: {command} --help)").format(command=ctx.command_path)
    return line
