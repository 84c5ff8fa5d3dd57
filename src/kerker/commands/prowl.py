"""``kerker prowl``: heist complexes by reputation (seed 004, Mazeprowl).

``kerker prowl --reputation R --players P`` generates; ``kerker prowl tune PLAN.json OP ...``
fine-tunes a saved plan; ``kerker prowl render PLAN.json`` draws it again. Thin shells:
options -> one library call in :mod:`kerker.prowl` -> Markdown, JSON or files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from kerker.cli_support import (
    JsonOption,
    PaperOption,
    dump_json,
    frac,
    friendly,
    load_tables,
    make_rng,
    percent,
    print_json,
    resolve_language,
)
from kerker.cli_support import cli_translate as _h
from kerker.commands.options import RuleSetLangOption, TablesOption
from kerker.errors import N_, OptionError
from kerker.i18n import translator

PROWL_HELP = N_(
    "Generate a prowl (a heist target) from the crew's reputation: factions, attributes, "
    "rooms by security, doors, challenges, loot and the fine-tuning budget. Prints the game "
    "master's sheet; --out DIR writes plan (JSON), map (SVG, PNG) and sheet (Markdown and a "
    "one-page PDF).\n\n"
    "Example: kerker prowl --reputation 4 --players 3 --seed 14 --out heist/"
)
TUNE_HELP = N_(
    "Fine-tune a saved plan: apply operations in order and write the plan back (the old "
    "one is kept as PLAN.json.bak) or to --out; map (SVG, PNG) and sheet (Markdown) next "
    "to the plan are written again, so nothing stale is left (--no-render: the plan "
    "only). Operations: patrol, swap-attributes, "
    "swap-challenges, move, reroll-attribute, reroll-doors, reinforce, add-faction, "
    "drop-faction, add-challenge, raise-room, lower-room, finish, shift-attribute, "
    "shift-challenge (see docs/prowl.md).\n\n"
    "Example: kerker prowl tune heist/prowl-14.json raise-room R3, patrol C2"
)
RENDER_HELP = N_(
    "Draw a saved plan again: the sheet on the terminal, or map and sheet into --out DIR.\n\n"
    "Example: kerker prowl render heist/prowl-14.json --out heist/ --lang de"
)

prowl_app = typer.Typer(
    name="prowl",
    help=_h(PROWL_HELP),
    invoke_without_command=True,
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)

"""Generation speaks the language the rule set was printed in (German for Mazeprowl)."""
NoPngOption = Annotated[bool, typer.Option("--no-png", help=_h(N_("Write no PNG picture.")))]


def _registry(tables: list[Path] | None) -> Any:
    return load_tables(tables)


def _odds(reputation: int, registry: Any, code: str, json_out: bool, reading: str) -> None:
    from kerker.prowl.generate import structure_odds

    _ = translator(code)
    table = structure_odds(reputation, registry, reading)
    if json_out:
        print_json(
            dump_json(
                {
                    "reputation": reputation,
                    **{
                        key: {
                            "dice": item["dice"],
                            "probabilities": {
                                str(k): frac(v)
                                for k, v in item["distribution"].probabilities().items()
                            },
                            "mean": frac(item["distribution"].mean),
                        }
                        for key, item in table.items()
                    },
                }
            )
        )
        return
    labels = {
        "lo_rooms": _("LoSec rooms"),
        "mid_rooms": _("MidSec rooms"),
        "hi_rooms": _("HiSec rooms"),
        "branch_points": _("branch points"),
        "accesses": _("entrances"),
    }
    print(_("Exact odds of the structure at reputation {n}").format(n=reputation))
    for key, item in table.items():
        dist = item["distribution"]
        print()
        print(
            f"{labels[key]} ({item['dice']}), "
            + _("mean {mean}").format(
                mean=f"{float(dist.mean):.2f}".replace(".", "," if code in ("de", "it") else ".")
            )
        )
        for value, prob in dist.probabilities().items():
            print(f"  {value:>3}  {percent(prob, code):>9}  {frac(prob)}")


@prowl_app.callback()
@friendly
def prowl_command(
    ctx: typer.Context,
    reputation: Annotated[
        int | None, typer.Option("--reputation", "-r", help=_h(N_("The crew's reputation (1-20).")))
    ] = None,
    players: Annotated[
        int | None, typer.Option("--players", "-p", help=_h(N_("Number of players (1-12).")))
    ] = None,
    accesses: Annotated[
        int | None,
        typer.Option(
            "--accesses",
            help=_h(
                N_("Entrances from outside (1-3, as the post says); rolled 1d3 when not given.")
            ),
        ),
    ] = None,
    loops: Annotated[
        int | None,
        typer.Option(
            "--loops",
            help=_h(
                N_(
                    "Loops in the layout (0: a tree); default: a roll from 0 up to as many "
                    "as the junctions leave room for."
                )
            ),
        ),
    ] = None,
    reading: Annotated[
        str,
        typer.Option(
            "--reading",
            metavar="sum|successes",
            help=_h(
                N_(
                    "Reading of the Reputation(X) test for MidSec and HiSec rooms: sum (the sum of "
                    "the dice divided by X, kerker's rule) or successes (dice meeting X, a 6 "
                    "rolled "
                    "again past 6)."
                )
            ),
        ),
    ] = "sum",
    nosec: Annotated[
        int, typer.Option("--nosec", help=_h(N_("Extra NoSec rooms to round off the layout.")))
    ] = 0,
    seed: Annotated[
        int | None, typer.Option("--seed", help=_h(N_("Seed for a repeatable prowl.")))
    ] = None,
    factions: Annotated[
        Path | None,
        typer.Option(
            "--factions",
            help=_h(
                N_(
                    "Your faction list: a table file (YAML) or one faction a "
                    "line, '+' insider connection, '-' hostile."
                )
            ),
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help=_h(N_("Write plan, map and sheet into this folder."))),
    ] = None,
    odds: Annotated[
        bool,
        typer.Option(
            "--odds",
            help=_h(N_("Show the exact odds of the room counts for --reputation instead.")),
        ),
    ] = False,
    no_png: NoPngOption = False,
    paper: PaperOption = "a4",
    tables: TablesOption = None,
    json_out: JsonOption = False,
    lang: RuleSetLangOption = None,
) -> None:
    if ctx.invoked_subcommand is not None:
        return
    from kerker.prowl.export import dumps, write_outputs
    from kerker.prowl.generate import ProwlOptions, generate, load_faction_list
    from kerker.prowl.render_md import render_markdown
    from kerker.tables.registry import rule_set_language

    registry = _registry(tables)
    # The rule set speaks the language it was printed in unless --lang says otherwise.
    code = resolve_language(lang or rule_set_language(registry, "mazeprowl"))
    _ = translator(code)
    from kerker.render.pdf import check_paper

    check_paper(paper)
    if reputation is None:
        raise OptionError(N_("--reputation is needed (the crew's reputation, 1-20)"))
    if odds:
        _odds(reputation, registry, code, json_out, reading)
        return
    if players is None:
        raise OptionError(N_("--players is needed (the number of players, 1-12)"))
    faction_list = load_faction_list(factions) if factions is not None else None
    used_seed, rng = make_rng(seed)
    prowl = generate(
        ProwlOptions(
            reputation, players, accesses, nosec, faction_list, loops=loops, reading=reading
        ),
        rng,
        registry=registry,
        seed=used_seed,
    )
    if out is not None:
        written = write_outputs(prowl, out, code, png=not no_png, paper=paper)
        if not json_out:
            for path in written:
                print(path)
    if json_out:
        print_json(dumps(prowl))
    elif out is None:
        print(render_markdown(prowl, code))


@prowl_app.command("tune", help=_h(TUNE_HELP))
@friendly
def tune_command(
    plan: Annotated[
        Path,
        typer.Argument(
            metavar="PLAN.json", help=_h(N_("The plan written by kerker prowl --out or --json."))
        ),
    ],
    operations: Annotated[
        list[str],
        typer.Argument(
            metavar="OPERATION...",
            help=_h(N_("Operations, each a verb and its words, e.g. raise-room R3 patrol C2.")),
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", help=_h(N_("Write the changed plan here instead of in place."))),
    ] = None,
    no_render: Annotated[
        bool, typer.Option("--no-render", help=_h(N_("Write the plan only, not map and sheet.")))
    ] = False,
    no_png: NoPngOption = False,
    tables: TablesOption = None,
    json_out: JsonOption = False,
    lang: RuleSetLangOption = None,
) -> None:
    from kerker.prowl.export import dumps, load_plan
    from kerker.prowl.render_md import change_text
    from kerker.prowl.tuning import parse_operations, tune
    from kerker.tables.registry import rule_set_language

    # As kerker prowl: the rule set's language unless --lang says otherwise.
    code = resolve_language(lang or rule_set_language(_registry(tables), "mazeprowl"))
    _ = translator(code)
    ops = parse_operations(operations)
    before = load_plan(plan)
    after = tune(before, ops, _registry(tables))
    text = dumps(after)
    target = out if out is not None else plan
    from kerker.fileio import read_bytes, write_atomic

    if out is None:  # the old plan is kept beside; both writes are all or nothing
        write_atomic(plan.with_name(plan.name + ".bak"), read_bytes(plan))
    write_atomic(target, text)
    rendered: list[Path] = []
    if not no_render:
        rendered = _rerender(
            after, target, resolve_language(lang) if lang else None, png=not no_png
        )
    if json_out:
        print_json(text)
        return
    for entry in after.tuning.log[len(before.tuning.log) :]:
        print(
            _("{n}. {op}: cost {cost}, {left} left").format(
                n=entry.n, op=entry.op, cost=entry.cost, left=entry.left
            )
        )
        for change in entry.changes:
            print(f"   {change_text(after, change, code)}")
    print(_("written: {file}").format(file=target))
    for path in rendered:
        print(_("written: {file}").format(file=path))


def _rerender(prowl: Any, plan: Path, lang: str | None, *, png: bool) -> list[Path]:
    """Map and sheets of a tuned plan that lie next to it under its name (``prowl-14.json``
    -> ``prowl-14.svg``, ``.png``, ``.<lang>.md``, as ``prowl --out`` wrote them), written
    again so that none is left stale. The map keeps the language of the sheet beside it
    (``--lang`` wins); a sheet in another language is written again in its language."""
    from kerker.prowl.export import write_file
    from kerker.prowl.render_md import render_markdown
    from kerker.prowl.render_svg import render_svg

    stem = plan.name[: -len(".json")] if plan.name.endswith(".json") else plan.name
    folder = plan.parent
    sheets = [code for code in ("de", "it", "en") if (folder / f"{stem}.{code}.md").exists()]
    if lang is not None and lang not in sheets:
        sheets.insert(0, lang)
    picture = lang or (sheets[0] if sheets else None)
    written: list[Path] = []
    svg_path, png_path = folder / f"{stem}.svg", folder / f"{stem}.png"
    if picture is not None and (svg_path.exists() or png_path.exists() or lang is not None):
        svg = render_svg(prowl, picture)
        if svg_path.exists() or lang is not None:
            written.append(write_file(svg_path, svg.encode("utf-8")))
        if png and (png_path.exists() or lang is not None):
            from kerker.render.svgkit import map_png

            written.append(write_file(png_path, map_png(svg, scale=1.0)))
    for code in sheets:
        written.append(
            write_file(folder / f"{stem}.{code}.md", render_markdown(prowl, code).encode("utf-8"))
        )
        if (folder / f"{stem}.{code}.pdf").exists():  # the sheet's PDF is not left stale
            from kerker.prowl.export import pdf_sheet

            sheet = pdf_sheet(prowl, code)
            if sheet is not None:
                written.append(write_file(folder / f"{stem}.{code}.pdf", sheet))
    return written


@prowl_app.command("render", help=_h(RENDER_HELP))
@friendly
def render_command(
    plan: Annotated[
        Path,
        typer.Argument(
            metavar="PLAN.json", help=_h(N_("The plan written by kerker prowl --out or --json."))
        ),
    ],
    out: Annotated[
        Path | None, typer.Option("--out", help=_h(N_("Write map and sheet into this folder.")))
    ] = None,
    no_png: NoPngOption = False,
    paper: PaperOption = "a4",
    lang: RuleSetLangOption = None,
) -> None:
    from kerker.prowl.export import load_plan, write_outputs
    from kerker.render.pdf import check_paper

    check_paper(paper)
    from kerker.prowl.render_md import render_markdown
    from kerker.tables.registry import rule_set_language

    # As kerker prowl, which wrote the plan: the rule set's language unless --lang says so.
    code = resolve_language(lang or rule_set_language(_registry(None), "mazeprowl"))
    prowl = load_plan(plan)
    if out is None:
        print(render_markdown(prowl, code))
        return
    for path in write_outputs(prowl, out, code, png=not no_png, plan=False, paper=paper):
        print(path)
