"""``kerker check``: an HPR check (seed 003) -- roll it, or show its exact odds or a chart.

A thin shell around :mod:`kerker.checks`: options -> one library call -> text, Rich table
or JSON. Rich and the check engine are imported inside the command, so other commands do
not pay for them at start-up. Bad input raises :class:`~kerker.errors.KerkerError`
subclasses, which :func:`~kerker.cli_support.friendly` turns into one line and exit 2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from kerker.cli_support import cli_translate as _h
from kerker.cli_support import (
    dump_json,
    frac,
    friendly,
    make_rng,
    percent,
    print_json,
    resolve_language,
)
from kerker.errors import N_, OptionError
from kerker.i18n import Translate, translator

if TYPE_CHECKING:
    from kerker.checks import ChartRow, CheckResult, CheckRules


CHECK_HELP = N_(
    "Roll an HPR check: a d20 at or under the value (plus modifier) succeeds; a 1 or a 20 is "
    "confirmed by a second roll (super, critical, success, failure, fumble).\n\n"
    "Difficulty words in German, Italian or English: schwer, sehr schwer, unmenschlich, "
    "very hard, molto difficile, sehr weit ... Luck rolls: --luck glueck, viel or sehr-viel.\n\n"
    'Example: kerker check 12 --difficulty "sehr schwer"'
)


def _signed(number: int) -> str:
    return f"{number:+d}" if number else "0"


@friendly
def check_command(
    value: Annotated[
        int | None,
        typer.Argument(
            metavar="VALUE",
            show_default=False,
            help=_h(
                N_("The value rolled against (skill, attribute, spell); 0: cannot do it at all.")
            ),
        ),
    ] = None,
    mod: Annotated[
        int | None,
        typer.Option(
            "--mod",
            "-m",
            metavar="M",
            show_default=False,
            help=_h(N_("Modifier as a number: a bonus is positive, a penalty negative.")),
        ),
    ] = None,
    difficulty: Annotated[
        str | None,
        typer.Option(
            "--difficulty",
            "-d",
            metavar="WORD",
            show_default=False,
            help=_h(
                N_(
                    'Modifier as a word: "schwer", "sehr schwer", "very hard", '
                    '"molto difficile"..., or sehr/extrem/un- with a word like weit or hoch; '
                    'size words describe the target, as in the rules: "groß" is easier (+5), '
                    '"sehr klein" harder (-10).'
                )
            ),
        ),
    ] = None,
    attempt: Annotated[
        int,
        typer.Option(
            "--attempt",
            "-a",
            metavar="N",
            help=_h(N_("Which try of the same failed action this is; each retry adds a penalty.")),
        ),
    ] = 1,
    luck: Annotated[
        str | None,
        typer.Option(
            "--luck",
            metavar="LEVEL",
            show_default=False,
            help=_h(
                N_("A luck roll instead of VALUE: glueck, viel or sehr-viel (or Glück, viel Glück)")
            ),
        ),
    ] = None,
    secret: Annotated[
        bool,
        typer.Option(
            "--secret", help=_h(N_("A secret roll: the player line shows only a neutral phrase."))
        ),
    ] = False,
    show_odds: Annotated[
        bool,
        typer.Option(
            "--odds", help=_h(N_("Show the exact odds of the five outcomes instead of rolling."))
        ),
    ] = False,
    show_chart: Annotated[
        bool,
        typer.Option(
            "--chart", help=_h(N_("Show the odds for the values 1 to 25 at this modifier."))
        ),
    ] = False,
    where: Annotated[
        str | None,
        typer.Option(
            "--where",
            metavar="DICE",
            show_default=False,
            help=_h(
                N_(
                    "After a failure roll DICE to tell where it went wrong "
                    "(d100, or d6 for a 6 m tree)."
                )
            ),
        ),
    ] = None,
    json_out: Annotated[
        bool, typer.Option("--json", help=_h(N_("Print JSON with stable English keys.")))
    ] = False,
    seed: Annotated[
        int | None,
        typer.Option("--seed", show_default=False, help=_h(N_("Seed for a repeatable roll."))),
    ] = None,
    seed_hint: Annotated[
        bool,
        typer.Option(
            "--seed-hint",
            help=_h(N_("Also print the seed that repeats the roll (the JSON always has it).")),
        ),
    ] = False,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            show_default=False,
            help=_h(N_("Language of the output: de, it or en (default: locale).")),
        ),
    ] = None,
) -> None:
    """Roll an HPR check: a d20 at or under the value (plus modifier) succeeds; a 1 or a 20 is
    confirmed by a second roll (super, critical, success, failure, fumble).

    Difficulty words in German, Italian or English: schwer, sehr schwer, unmenschlich,
    very hard, molto difficile, sehr weit ... Luck rolls: --luck glueck, viel or sehr-viel.

    Example: kerker check 12 --difficulty "sehr schwer"
    """
    from kerker import __version__
    from kerker.checks import check, load_rules, parse_difficulty, parse_luck

    code = resolve_language(lang)
    _ = translator(code)
    rules = load_rules()

    if mod is not None and difficulty is not None:
        raise OptionError(N_("use either --mod or --difficulty, not both"))
    modifier = mod if mod is not None else 0
    if difficulty is not None:
        modifier = parse_difficulty(difficulty, lang=code)
    luck_key: str | None = None
    if luck is not None:
        if value is not None:
            raise OptionError(N_("give either VALUE or --luck, not both"))
        level = parse_luck(luck)
        value, luck_key = level.value, level.key
    if value is None and (show_odds or not show_chart):
        raise OptionError(N_("give a VALUE to roll against, or --luck"))
    if (show_odds or show_chart) and (secret or where is not None or seed is not None):
        raise OptionError(
            N_("--odds and --chart roll nothing; leave out --secret, --where and --seed")
        )

    context = _Context(
        lang=code,
        translate=_,
        rules=rules,
        value=value,
        modifier=modifier,
        difficulty=difficulty,
        attempt=attempt,
        luck=luck_key,
    )
    if show_odds or show_chart:
        data: dict[str, Any] = {"kerker": __version__}
        if show_odds:
            data.update(context.odds_json())
        if show_chart:
            data["chart"] = context.chart_json()
        if json_out:
            print_json(dump_json(data))
            return
        context.print_tables(show_odds=show_odds, show_chart=show_chart)
        return

    assert value is not None  # for mypy: refused above unless --chart alone
    used_seed, rng = make_rng(seed)
    result = check(value, modifier, rng, attempt=attempt, where=where, secret=secret, luck=luck_key)
    if json_out:
        payload: dict[str, Any] = {"kerker": __version__, "seed": used_seed, "lang": code}
        payload.update(result.to_json())
        payload["difficulty"] = difficulty
        payload["text"] = {
            "outcome": result.outcome_name(code),
            "gm": list(context.gm_lines(result)),
            "player": result.player_line(code),
        }
        print_json(dump_json(payload))
        return
    for line in context.gm_lines(result):
        print(line)
    if secret:
        print(_("Tell the player: {phrase}").format(phrase=result.player_line(code)))
    if seed_hint:
        print(
            _("Seed {seed}: run again with --seed {seed} for the same roll.").format(seed=used_seed)
        )


class _Context:
    """The options of one call, read once, and the views that need them."""

    def __init__(
        self,
        *,
        lang: str,
        translate: Translate,
        rules: CheckRules,
        value: int | None,
        modifier: int,
        difficulty: str | None,
        attempt: int,
        luck: str | None,
    ) -> None:
        self.lang = lang
        self._ = translate
        self.rules = rules
        self.value = value
        self.modifier = modifier
        self.difficulty = difficulty
        self.attempt = attempt
        self.luck = luck

    def modifier_text(self) -> str:
        """``-10 (very hard)``; with the GM's own word when it is not the table word shown:
        ``+5 (groß: leicht)``, ``-10 (sehr weit: sehr schwer)``."""
        from kerker.checks import modifier_label
        from kerker.checks.folding import fold

        label = modifier_label(self.modifier, self.lang)
        typed = self.difficulty.strip() if self.difficulty is not None else None
        if typed and label is not None and fold(typed) != fold(label):
            return f"{_signed(self.modifier)} ({typed}: {label})"
        shown = label or typed
        return _signed(self.modifier) if not shown else f"{_signed(self.modifier)} ({shown})"

    def header(self, value: int, chance: int, penalty: int) -> str:
        """``Value 12, modifier -10 (very hard), target 2`` in the reader's language."""

        _ = self._
        parts: list[str] = []
        level = next((lv for lv in self.rules.luck if lv.key == self.luck), None)
        if level is not None:
            parts.append(
                _("luck roll ({name}): value {value}").format(
                    name=level.name[self.lang], value=value
                )
            )
        else:
            parts.append(_("value {value}").format(value=value))
        if self.modifier or self.difficulty is not None:
            parts.append(_("modifier {modifier}").format(modifier=self.modifier_text()))
        if self.attempt > 1:
            parts.append(
                _("attempt {attempt}: penalty {penalty}").format(
                    attempt=self.attempt, penalty=penalty
                )
            )
        if value != self.rules.impossible_value:
            parts.append(_("target {chance}").format(chance=chance))
        line = ", ".join(parts)
        return line[:1].upper() + line[1:]

    def gm_lines(self, result: CheckResult) -> tuple[str, ...]:
        """The header, then the library's lines for the game master."""
        lines = list(result.gm_lines(self.lang))
        head = self.header(result.value, result.chance, result.penalty)
        at = 1 if result.secret else 0
        lines.insert(at, head)
        return tuple(lines)

    # -- odds ----------------------------------------------------------------------------

    def odds_json(self) -> dict[str, Any]:
        from kerker.checks import chance, odds, penalty

        assert self.value is not None
        table = odds(self.value, self.modifier, attempt=self.attempt)
        return {
            "value": self.value,
            "modifier": self.modifier,
            "difficulty": self.difficulty,
            "attempt": self.attempt,
            "penalty": penalty(self.attempt),
            "chance": chance(self.value, self.modifier, attempt=self.attempt),
            "luck": self.luck,
            "odds": {key: frac(p) for key, p in table.items()},
            "percent": {key: round(float(p) * 100, 4) for key, p in table.items()},
        }

    def chart_rows(self) -> tuple[ChartRow, ...]:
        from kerker.checks import chart

        return chart(self.modifier, attempt=self.attempt)

    def chart_json(self) -> dict[str, Any]:
        from kerker.checks import ROLLED_OUTCOMES, penalty

        return {
            "modifier": self.modifier,
            "difficulty": self.difficulty,
            "attempt": self.attempt,
            "penalty": penalty(self.attempt),
            "rows": [
                {
                    "value": row.value,
                    "chance": row.chance,
                    "odds": {o.value: frac(row.odds[o.value]) for o in ROLLED_OUTCOMES},
                    "percent": {
                        o.value: round(float(row.odds[o.value]) * 100, 4) for o in ROLLED_OUTCOMES
                    },
                }
                for row in self.chart_rows()
            ],
        }

    def print_tables(self, *, show_odds: bool, show_chart: bool) -> None:
        from rich.table import Table

        from kerker.checks import ROLLED_OUTCOMES, Outcome, chance, odds, penalty, success_chance

        _ = self._
        from kerker.termio import console as make_console
        from kerker.termio import rich_text as esc

        console = make_console()
        names = {key: text.name[self.lang] for key, text in self.rules.outcomes.items()}
        if show_odds:
            assert self.value is not None
            target = chance(self.value, self.modifier, attempt=self.attempt)
            console.print(esc(self.header(self.value, target, penalty(self.attempt))))
            table = Table()
            table.add_column(_("outcome"))
            table.add_column(_("exact fraction"), justify="right")
            table.add_column(_("percent"), justify="right")
            probabilities = odds(self.value, self.modifier, attempt=self.attempt)
            shown = (
                (Outcome.IMPOSSIBLE,)
                if probabilities[Outcome.IMPOSSIBLE.value]
                else ROLLED_OUTCOMES
            )
            for outcome in shown:
                p = probabilities[outcome.value]
                table.add_row(esc(names[outcome.value]), frac(p), percent(p, self.lang))
            console.print(table)
            if not probabilities[Outcome.IMPOSSIBLE.value]:
                total = success_chance(self.value, self.modifier, attempt=self.attempt)
                console.print(
                    _("Succeeds in {percent} of checks ({fraction}).").format(
                        percent=percent(total, self.lang), fraction=frac(total)
                    ),
                    markup=False,
                )
        if show_chart:
            modifier = self.modifier_text()
            rows = self.chart_rows()
            title = _("Odds for the values {first} to {last} at modifier {modifier}").format(
                first=rows[0].value, last=rows[-1].value, modifier=modifier
            )
            if self.attempt > 1:
                title += ", " + _("attempt {attempt}: penalty {penalty}").format(
                    attempt=self.attempt, penalty=penalty(self.attempt)
                )
            console.print(esc(title))
            table = Table()
            table.add_column(_("value"), justify="right")
            table.add_column(_("target"), justify="right")
            for outcome in ROLLED_OUTCOMES:
                table.add_column(esc(names[outcome.value]), justify="right")
            for row in rows:
                style = "bold reverse" if row.value == self.value else None
                table.add_row(
                    str(row.value),
                    str(row.chance),
                    *(percent(row.odds[o.value], self.lang) for o in ROLLED_OUTCOMES),
                    style=style,
                )
            console.print(table)
