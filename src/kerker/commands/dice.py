"""``kerker roll`` and ``kerker odds``: thin shells around :mod:`kerker.dice`."""

from __future__ import annotations

from typing import Annotated

import typer

from kerker.cli_support import dump_json, friendly, make_rng, resolve_language
from kerker.errors import N_, OptionError
from kerker.i18n import default_language, translator

_h = translator(default_language())  # help texts follow the locale

MAX_TIMES = 10_000

ROLL_HELP = N_(
    "Roll a dice expression and show every die and the result (--quiet: the result "
    "alone).\n\n"
    "German and English spellings: W20, 3W6+2, 4d6kh3, 2W10×100, W%, W66, 6d6>=5. Spaces "
    "are allowed without quotes: kerker roll 2W6 + 3.\n\n"
    "Example: kerker roll 4W6kh3"
)
ODDS_HELP = N_(
    "Show the exact odds of a dice expression: every result with its probability.\n\n"
    "Example: kerker odds 3W6 --plot"
)


def join_expression(words: list[str]) -> str:
    """The words of the command line as one expression (``2W6 + 3`` unquoted is the same
    as ``"2W6 + 3"``)."""
    return " ".join(words)

LangOption = Annotated[
    str | None,
    typer.Option("--lang", help=_h(N_("Language of the output: de, it or en (default: locale)."))),
]


@friendly
def roll_command(
    words: Annotated[
        list[str], typer.Argument(metavar="EXPR...", help=_h(N_(
            "The dice expression, e.g. 3W6+2 or 2W6 + 3 (spaces need no quotes).")))
    ],
    seed: Annotated[
        int | None, typer.Option("--seed", help=_h(N_("Seed for a repeatable roll.")))
    ] = None,
    times: Annotated[
        int, typer.Option("--times", "-n", help=_h(N_("Roll this many times.")))
    ] = 1,
    explain: Annotated[
        bool, typer.Option("--explain", "-e", help=_h(N_(
            "Show every die and the seed (the dice are shown anyway unless --quiet).")))
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help=_h(N_("Print the result alone.")))
    ] = False,
    seed_hint: Annotated[
        bool, typer.Option("--seed-hint", help=_h(N_(
            "Also print the seed that repeats the roll.")))
    ] = False,
    json_out: Annotated[
        bool, typer.Option("--json", help=_h(N_("Print JSON for other tools.")))
    ] = False,
    lang: LangOption = None,
) -> None:
    from kerker import __version__
    from kerker.dice import parse, roll

    expression = join_expression(words)
    code = resolve_language(lang)
    _ = translator(code)
    if not 1 <= times <= MAX_TIMES:
        raise OptionError(N_("--times must be between 1 and {max}"), max=MAX_TIMES)
    expr = parse(expression)
    used_seed, rng = make_rng(seed)
    rolls = [roll(expr, rng) for _i in range(times)]
    if json_out:
        print(
            dump_json(
                {
                    "kerker": __version__,
                    "seed": used_seed,
                    "expression": expression,
                    "rolls": [r.to_json() for r in rolls],
                }
            )
        )
        return
    if explain and quiet:
        raise OptionError(N_("use either --explain or --quiet, not both"))
    if quiet:
        print("\n".join(str(r.total) for r in rolls))
    else:
        for r in rolls:
            print(r.explain())
    if explain or seed_hint:
        print(_("(seed {seed})").format(seed=used_seed))


@friendly
def odds_command(
    words: Annotated[
        list[str], typer.Argument(metavar="EXPR...", help=_h(N_(
            "The dice expression, e.g. 4W6kh3 or 2W6 + 3 (spaces need no quotes).")))
    ],
    json_out: Annotated[
        bool, typer.Option("--json", help=_h(N_("Print JSON; probabilities as \"n/d\".")))
    ] = False,
    plot: Annotated[
        bool, typer.Option("--plot", help=_h(N_("Draw a bar chart in the terminal.")))
    ] = False,
    lang: LangOption = None,
) -> None:
    from kerker.dice import odds, parse

    expression = join_expression(words)
    code = resolve_language(lang)
    expr = parse(expression)
    dist = odds(expr)
    if json_out:
        data = {"expression": expression}
        data.update(dist.to_json())
        print(dump_json(data))
        return
    from kerker.render.odds_table import print_odds

    print_odds(expression, dist, code, plot=plot)
