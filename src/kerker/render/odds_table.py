"""The terminal view of an exact distribution (Rich table, optional bar chart)."""

from __future__ import annotations

from fractions import Fraction

from rich.table import Table

from kerker.dice.exact import Distribution
from kerker.i18n import translator
from kerker.numfmt import decimal, percent, root
from kerker.termio import console as make_console
from kerker.termio import rich_text

BAR_WIDTH = 40
LONG_RESULT = 24
"""Results with more digits are folded over lines in their column."""
MAX_ROWS = 400


def odds_table(
    expression: str,
    dist: Distribution,
    lang: str,
    *,
    plot: bool = False,
    bar_width: int = BAR_WIDTH,
) -> Table:
    """A table of every result with P(=), P(>=), P(<=) and, with ``plot``, a bar.

    Refuses nothing; distributions with more than ``MAX_ROWS`` results are cut in the middle
    of the table (the JSON output always has all of them).
    """
    _ = translator(lang)
    table = Table(
        title=rich_text(_("Odds of {expression}").format(expression=expression)),
        title_justify="left",
    )
    longest = max((len(str(value)) for value, _p in dist), default=0)
    if longest <= LONG_RESULT:
        table.add_column(_("result"), justify="right", style="bold", no_wrap=True)
    else:  # results of hundreds of digits fold, so that the probabilities stay readable
        table.add_column(
            _("result"), justify="right", style="bold", overflow="fold", max_width=LONG_RESULT
        )
    table.add_column(_("exactly"), justify="right", no_wrap=True)
    table.add_column(_("at least"), justify="right", no_wrap=True)
    table.add_column(_("at most"), justify="right", no_wrap=True)
    if plot:
        table.add_column("", justify="left", no_wrap=True, width=bar_width)
    rows = list(dist)
    peak = max(p for _v, p in rows)
    below = Fraction(0)
    shown = rows if len(rows) <= MAX_ROWS else rows[: MAX_ROWS // 2] + rows[-MAX_ROWS // 2 :]
    cut_after = MAX_ROWS // 2 - 1 if len(rows) > MAX_ROWS else None
    cumulative: dict[int, Fraction] = {}
    for value, p in rows:
        cumulative[value] = below
        below += p
    for i, (value, p) in enumerate(shown):
        at_most = cumulative[value] + p
        at_least = 1 - cumulative[value]
        cells = [str(value), percent(p, lang), percent(at_least, lang), percent(at_most, lang)]
        if plot:
            cells.append(_bar(p / peak, bar_width))
        table.add_row(*cells)
        if cut_after is not None and i == cut_after:
            skipped = len(rows) - MAX_ROWS
            table.add_row("…", _("{n} more").format(n=skipped), "", "")
    return table


def _bar(share: Fraction, width: int) -> str:
    eighths = round(float(share) * width * 8)
    full, rest = divmod(eighths, 8)
    return "█" * full + ("" if rest == 0 else " ▏▎▍▌▋▊▉"[rest])


def summary_lines(dist: Distribution, lang: str) -> list[str]:
    """Mean, standard deviation, median and the middle 90 % in the reader's language."""
    _ = translator(lang)
    return [
        _("mean {mean}, standard deviation {sd}").format(
            mean=decimal(dist.mean, lang), sd=root(dist.variance, lang)
        ),
        _("median {median}; 90 % of results between {lo} and {hi}; range {min} to {max}").format(
            median=dist.percentile(Fraction(1, 2)),
            lo=dist.percentile(Fraction(5, 100)),
            hi=dist.percentile(Fraction(95, 100)),
            min=dist.min,
            max=dist.max,
        ),
    ]


def print_odds(expression: str, dist: Distribution, lang: str, *, plot: bool = False) -> None:
    """Print the table and the summary to the terminal."""
    console = make_console()
    width = max(10, min(BAR_WIDTH, console.width - 50))
    console.print(odds_table(expression, dist, lang, plot=plot, bar_width=width))
    for line in summary_lines(dist, lang):
        console.print(line)
