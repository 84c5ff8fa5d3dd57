"""``kerker roll`` and ``kerker odds``: thin shells around :mod:`kerker.dice`."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from kerker.cli_support import (
    JsonOption,
    dump_json,
    friendly,
    make_rng,
    print_json,
    resolve_language,
)
from kerker.cli_support import cli_translate as _h
from kerker.errors import N_, OptionError
from kerker.i18n import translator

MAX_TIMES = 10_000
MAX_DICE_TOTAL = 100_000
"""Dice thrown over all ``--times`` rolls at most (every throw is kept for --explain)."""
MAX_JSON_DICE = 20_000
"""The same with ``--json``, whose log holds every throw (about 250 bytes each)."""

ROLL_HELP = N_(
    "Roll a dice expression and show every die and the result (--quiet: the result "
    "alone).\n\n"
    "German and English spellings: W20, 3W6+2, 4d6kh3, 2W10×100, W%, W66, 6d6>=5. Spaces "
    "are allowed without quotes: kerker roll 2W6 + 3.\n\n"
    "Example: kerker roll 4W6kh3"
)
ODDS_HELP = N_(
    "Show the exact odds of a dice expression: every result with its probability.\n\n"
    "Example: kerker odds 3d6 --plot"
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
        list[str],
        typer.Argument(
            metavar="EXPR...",
            help=_h(N_("The dice expression, e.g. 3d6+2 or 2d6 + 3 (spaces need no quotes).")),
        ),
    ],
    seed: Annotated[
        int | None, typer.Option("--seed", help=_h(N_("Seed for a repeatable roll.")))
    ] = None,
    times: Annotated[int, typer.Option("--times", "-n", help=_h(N_("Roll this many times.")))] = 1,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            "-e",
            help=_h(N_("Show every die and the seed (the dice are shown anyway unless --quiet).")),
        ),
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help=_h(N_("Print the result alone.")))
    ] = False,
    seed_hint: Annotated[
        bool, typer.Option("--seed-hint", help=_h(N_("Also print the seed that repeats the roll.")))
    ] = False,
    json_out: JsonOption = False,
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
    cap = MAX_JSON_DICE if json_out else MAX_DICE_TOTAL
    rolls = []
    thrown = 0
    for i in range(times):
        rolls.append(roll(expr, rng))
        thrown += dice_thrown(rolls[-1].record)
        # The first roll tells what all of them will cost: refuse before the work.
        if thrown > cap or (i == 0 and thrown * times > cap):
            raise OptionError(
                N_("{expression} --times {times} throws more than {max} dice; roll fewer times"),
                expression=expression,
                times=times,
                max=cap,
            )
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


def dice_thrown(record: Any) -> int:
    """Every die thrown in a roll's record tree (rerolls and explosions included)."""
    from kerker.dice.records import DiceRecord

    count = 0
    stack = [record]
    while stack:
        item = stack.pop()
        if isinstance(item, DiceRecord):
            count += len(item.values) if item.throws is None else sum(len(t) for t in item.throws)
        for value in item:
            if isinstance(value, tuple) and hasattr(value, "_fields") and hasattr(value, "total"):
                stack.append(value)
            elif isinstance(value, tuple) and not hasattr(value, "_fields"):
                stack.extend(v for v in value if hasattr(v, "_fields") and hasattr(v, "total"))
    return count


@friendly
def odds_command(
    words: Annotated[
        list[str],
        typer.Argument(
            metavar="EXPR...",
            help=_h(N_("The dice expression, e.g. 4d6kh3 or 2d6 + 3 (spaces need no quotes).")),
        ),
    ],
    json_out: Annotated[
        bool, typer.Option("--json", help=_h(N_('Print JSON; probabilities as "n/d".')))
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
        print_json(dump_json(data))
        return
    from kerker.render.odds_table import print_odds

    print_odds(expression, dist, code, plot=plot)
