"""Shared plumbing of the command line: language, seeds, error lines, number formatting,
the help translator, and two options several commands declare alike (:data:`JsonOption`,
which ``kerker roll`` takes too, and :data:`PaperOption`). The other shared options are in
:mod:`kerker.commands.options`, which ``kerker roll`` does not import.

Kept free of heavy imports (no Rich): ``kerker roll`` must start fast.
"""

from __future__ import annotations

import functools
import json
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, ParamSpec, TypeVar

import typer
import typer.core

from kerker.errors import N_, DiceError, KerkerError, OptionError
from kerker.i18n import LANGUAGES, Translate, check_language, default_language, translator
from kerker.numfmt import decimal as decimal  # re-exported for the commands
from kerker.numfmt import frac as frac
from kerker.numfmt import percent as percent
from kerker.termio import print_json as print_json

P = ParamSpec("P")
R = TypeVar("R")

TABLES_ENV = "KERKER_TABLES"
"""Folders of own tables, separated like PATH; read by the command line only."""

MAX_SEED = 2**64 - 1
EXIT_USER_ERROR = 2


LANG_ENV = "KERKER_LANG"
"""kerker's language for help, messages and outputs that follow the locale: de, it or en."""


def cli_language(
    argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None
) -> str:
    """The language of the command line itself (help, Click's usage errors): a valid
    ``--lang X`` (or ``--lang=X``) anywhere on the command line, else ``KERKER_LANG``, else
    the locale (:func:`kerker.i18n.default_language`). Invalid values are passed over here
    (the command refuses a bad ``--lang`` itself)."""
    import os

    args = list(sys.argv[1:] if argv is None else argv)
    env = os.environ if environ is None else environ
    for i, arg in enumerate(args):
        if arg == "--":
            break
        value = arg[len("--lang=") :] if arg.startswith("--lang=") else None
        if arg == "--lang" and i + 1 < len(args):
            value = args[i + 1]
        if value is not None and value.strip().lower() in LANGUAGES:
            return value.strip().lower()
    wanted = env.get(LANG_ENV, "").strip().lower()
    if wanted in LANGUAGES:
        return wanted
    return default_language(dict(env))


HELP_FLAGS = ("--help", "-h")


def lang_to_command(args: Sequence[str], has_help: bool = True, *, bare: bool = False) -> list[str]:
    """The arguments of a command group with a ``--lang X`` (or ``--lang=X``) written before
    the subcommand handed to it: ``--lang de roll 1d6`` -> ``roll --lang de 1d6``. Before
    ``--help`` (or with no subcommand) it is taken out, since the help page reads its
    language from the command line itself (:func:`cli_language`): ``kerker --help --lang
    de``; with no subcommand a ``bare`` group (one that runs alone, ``kerker play``) keeps
    it. Arguments after the first word that is not an option stay as they are."""
    out: list[str] = []
    lang: list[str] = []
    rest = list(args)
    while rest and rest[0].startswith("-") and rest[0] != "--":
        arg = rest.pop(0)
        if arg == "--lang" and rest:
            lang = [arg, rest.pop(0)]
        elif arg.startswith("--lang="):
            lang = [arg]
        else:
            out.append(arg)
    if not lang:
        return list(args)
    helped = has_help and any(arg in HELP_FLAGS for arg in out)
    if rest and rest[0] != "--" and not helped:
        return [*out, rest[0], *lang, *rest[1:]]
    if bare and not rest and not helped:
        return [*out, *lang]
    return [*out, *rest]


class LangGroup(typer.core.TyperGroup):
    """A command group that takes ``--lang`` before its subcommand (for the help page, or
    handed on to the subcommand, see :func:`lang_to_command`); a group with a ``--lang``
    option of its own (``kerker prowl``) reads it itself."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not any(param.name == "lang" for param in self.get_params(ctx)):
            args = lang_to_command(args, bool(self.get_help_option_names(ctx)))
        return super().parse_args(ctx, args)


def resolve_language(lang: str | None) -> str:
    """``--lang`` if given (validated), else ``KERKER_LANG``, else the locale's language,
    else English."""
    return check_language(lang) if lang else cli_language(argv=())


cli_translate = translator(cli_language())
"""The gettext function of the command line's own language, read once at start-up: the
commands translate their help texts with it (imported as ``_h``)."""
_h = cli_translate

MessageLangOption = Annotated[
    str | None,
    typer.Option(
        "--lang",
        help=_h(N_("Language of the help and messages: de, it or en (default: locale).")),
    ),
]
"""``--lang`` of a command whose output speaks no language of its own (``kerker serve``,
``table import``): its help page and its messages."""
JsonOption = Annotated[bool, typer.Option("--json", help=_h(N_("Print JSON for other tools.")))]
"""``--json``: print JSON for other tools (the commands' common wording)."""
PaperOption = Annotated[
    str,
    typer.Option(
        "--paper",
        help=_h(
            N_(
                "Paper of the PDF sheet written with --out: a4 (the default) or letter "
                "(US Letter), landscape."
            )
        ),
    ),
]
"""``--paper``: the paper of the one-page PDF sheet; checked by
:func:`kerker.render.pdf.check_paper`, default ``"a4"`` at each command."""


def table_dirs(tables: Sequence[Path] | None) -> list[Path]:
    """The ``--tables`` folders, then those of ``KERKER_TABLES`` (the library reads no
    environment: the commands pass these in)."""
    import os

    dirs = list(tables or [])
    env = os.environ.get(TABLES_ENV, "")
    dirs += [Path(d) for d in env.split(os.pathsep) if d.strip()]
    return dirs


def load_tables(tables: Sequence[Path] | None) -> Any:
    """The registry of shipped tables plus those of :func:`table_dirs`."""
    from kerker.tables.registry import load_registry

    return load_registry(table_dirs(tables))


def make_rng(seed: int | None) -> tuple[int, random.Random]:
    """A seeded ``random.Random`` and its seed; without a seed, a fresh one is drawn.

    Refuses seeds outside 0 .. 2**64-1 with :class:`OptionError`.
    """
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    if not 0 <= seed <= MAX_SEED:
        raise OptionError(N_("the seed must be between 0 and {max}"), max=MAX_SEED)
    return seed, random.Random(seed)


def error_lines(err: KerkerError, _: Translate) -> list[str]:
    """The error as the CLI prints it: one message line, plus expression and caret if known."""
    head = _("error")
    lines = [f"kerker: {head}: {err.message(_)}"]
    if isinstance(err, DiceError) and err.expression:
        text = err.expression.replace("\n", " ").replace("\t", " ")
        if err.column is not None and len(text) <= 120:
            lines[0] += " " + _("(column {column})").format(column=err.column)
            lines.append("  " + text)
            lines.append("  " + " " * (err.column - 1) + "^")
        elif err.column is not None:
            lines[0] += " " + _("(column {column})").format(column=err.column)
    return lines


def friendly(func: Callable[P, R]) -> Callable[P, R]:
    """Wrap a command: a :class:`KerkerError` becomes one error line on stderr and exit 2."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except KerkerError as err:
            lang = kwargs.get("lang")
            try:
                code = resolve_language(lang if isinstance(lang, str) else None)
            except KerkerError:
                code = "en"
            for line in error_lines(err, translator(code)):
                print(line, file=sys.stderr)
            raise typer.Exit(EXIT_USER_ERROR) from None

    return wrapper


def progress(text: str) -> None:
    """A progress line on stderr, only when stderr is a terminal (never in pipes or logs)."""
    stream = sys.stderr
    try:
        if stream.isatty():
            stream.write(text + "\n")
            stream.flush()
    except (OSError, ValueError, KerkerError):
        pass


def dump_json(data: Any) -> str:
    """Stable JSON for stdout: UTF-8 text, two-space indent, keys in insertion order."""
    return json.dumps(data, ensure_ascii=False, indent=2)


def parse_formats(text: str, formats: Sequence[str]) -> list[str]:
    """``"svg,json"`` -> ``["svg", "json"]`` in the order of ``formats``; refuses others."""
    wanted = [part.strip().lower() for part in text.split(",") if part.strip()]
    unknown = [f for f in wanted if f not in formats]
    if unknown or not wanted:
        raise OptionError(
            N_("--format takes a list of {choices}, not {text!r}"),
            choices=",".join(formats),
            text=text,
        )
    return [f for f in formats if f in wanted]


def write_output(path: Path, data: str | bytes) -> None:
    """Write one output file atomically (folders created, text as UTF-8 with \\n line ends):
    a full disk leaves the old file or none, never a truncated one.

    Any failure becomes a :class:`~kerker.fileio.WriteError` naming the file.
    """
    from kerker.fileio import write_atomic

    write_atomic(path, data)
