"""``kerker zones``: a zone map (seed 002, Zonenkarten) -- grid, JSON, SVG, PNG, Markdown.

A thin shell around :mod:`kerker.zones`: options -> :func:`~kerker.zones.generate.generate`
-> one renderer per output. The library is imported inside the command, so other commands
do not pay for it at start-up.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from kerker.cli_support import (
    JsonOption,
    PaperOption,
    friendly,
    load_tables,
    make_rng,
    print_json,
    resolve_language,
    write_output,
)
from kerker.cli_support import cli_translate as _h
from kerker.cli_support import parse_formats as _parse_formats
from kerker.commands.options import OutDirOption, RuleSetLangOption, TablesOption
from kerker.errors import N_, OptionError
from kerker.i18n import translator

FORMATS = ("svg", "png", "json", "md", "pdf")
"""What ``--out`` writes without ``--format`` (pdf only with the typst package, the extra
``kerker[pdf]``, unless ``--format`` asks for it)."""
VTT_FORMATS = ("uvtt",)
"""Universal VTT (kerker.export.zones), written when ``--format`` names it."""
TEXT_FORMATS = ("svg", "json", "md")

ZONES_HELP = N_(
    "Roll a zone map (seed 002, Zonenkarten): nodes, lettered areas, connections and hidden "
    "connections, a suggested start and details for every area.\n\n"
    "Without --json or --out it prints the grid and the list of areas. --out DIR writes "
    "zones-SEED.svg, .png, .json, .md and .pdf (the game master's one-page sheet), and the "
    "players' map zones-SEED-player.svg and .png.\n\n"
    "Example: kerker zones --seed 7 --size 8x5 --theme fantasy --out maps"
)


def parse_formats(text: str) -> list[str]:
    """``"svg,json"`` -> the formats in the order of :data:`FORMATS`; refuses others."""
    return _parse_formats(text, FORMATS + VTT_FORMATS)


@friendly
def zones_command(
    seed: Annotated[
        int | None, typer.Option("--seed", help=_h(N_("Seed for a repeatable map.")))
    ] = None,
    size: Annotated[
        str | None,
        typer.Option(
            "--size",
            metavar="WxH",
            help=_h(
                N_("Width x height in nodes, e.g. 8x5 (at most 20x20); default: rolled (step 1).")
            ),
        ),
    ] = None,
    theme: Annotated[
        str,
        typer.Option(
            "--theme",
            help=_h(N_("Detail tables: scifi or fantasy (or a theme of your own tables).")),
        ),
    ] = "scifi",
    lang: RuleSetLangOption = None,
    json_out: JsonOption = False,
    out: OutDirOption = None,
    formats: Annotated[
        str | None,
        typer.Option(
            "--format",
            metavar="LIST",
            help=_h(
                N_(
                    "Files to write with --out: svg,png,json,md,pdf (default: all) and uvtt (a "
                    ".dd2vtt for virtual tabletops). Without --out, one of svg, json or md is "
                    "printed."
                )
            ),
        ),
    ] = None,
    tables: TablesOption = None,
    merge: Annotated[
        str,
        typer.Option(
            "--merge",
            metavar="zone|pair",
            help=_h(
                N_(
                    "Step 3 as the text has it: one merge roll per zone (zone, default), or one "
                    "per pair of neighbouring zones (pair: fewer, larger areas)."
                )
            ),
        ),
    ] = "zone",
    min_areas: Annotated[
        int,
        typer.Option(
            "--min-areas",
            metavar="N",
            help=_h(N_("Roll the layout again until the map has at least N areas (default: 0).")),
        ),
    ] = 0,
    paper: PaperOption = "a4",
) -> None:
    """Roll a zone map; see ``ZONES_HELP``."""
    from kerker.tables.registry import rule_set_language
    from kerker.zones.export import dumps
    from kerker.zones.generate import ZoneParams, check_theme, generate, parse_size
    from kerker.zones.render_md import render_md
    from kerker.zones.render_svg import render_png, render_svg
    from kerker.zones.render_text import summary

    registry = load_tables(tables)
    # The rule set speaks the language it was printed in unless --lang says otherwise.
    code = resolve_language(lang or rule_set_language(registry, "zonenkarten"))
    _ = translator(code)
    chosen = parse_formats(formats) if formats is not None else list(FORMATS)
    if out is None and formats is not None:
        if len(chosen) != 1 or chosen[0] not in TEXT_FORMATS:
            raise OptionError(
                N_("--format {text} needs --out DIR (without it, give one of svg, json or md)"),
                text=formats,
            )
        if json_out and chosen != ["json"]:
            raise OptionError(N_("--json prints JSON; leave out --format or give --out DIR"))
    from kerker.render.pdf import check_paper

    check_paper(paper)
    dims = parse_size(size) if size is not None else None
    check_theme(theme, registry)
    used_seed, rng = make_rng(seed)
    zmap = generate(
        ZoneParams(size=dims, theme=theme, seed=used_seed, merge=merge, min_areas=min_areas),
        rng,
        registry,
    )

    if out is not None:
        stem = out / f"zones-{used_seed}"
        written: list[Path] = []
        for fmt in chosen:
            if fmt == "json":
                files: list[tuple[Path, str | bytes]] = [
                    (stem.with_suffix(".json"), dumps(zmap, code))
                ]
            elif fmt == "md":
                files = [(stem.with_suffix(".md"), render_md(zmap, code))]
            elif fmt == "pdf":
                from kerker.render.pdf import TypstMissing
                from kerker.zones.render_md import render_pdf

                try:
                    files = [(stem.with_suffix(".pdf"), render_pdf(zmap, code, paper=paper))]
                except TypstMissing:
                    if formats is not None:  # asked for: say how to install it
                        raise
                    files = []
            elif fmt == "uvtt":
                from kerker.export.zones import zones_uvtt

                text, warnings = zones_uvtt(zmap, lang=code)
                for warning in warnings:
                    print(warning, file=sys.stderr)
                files = [(stem.with_suffix(".dd2vtt"), text)]
            elif fmt == "svg":
                files = [
                    (stem.with_suffix(".svg"), render_svg(zmap, view="gm", lang=code)),
                    (
                        out / f"zones-{used_seed}-player.svg",
                        render_svg(zmap, view="player", lang=code),
                    ),
                ]
            else:
                files = [
                    (stem.with_suffix(".png"), render_png(zmap, view="gm", lang=code)),
                    (
                        out / f"zones-{used_seed}-player.png",
                        render_png(zmap, view="player", lang=code),
                    ),
                ]
            for path, data in files:
                write_output(path, data)
                written.append(path)
        if json_out:
            print_json(dumps(zmap, code))
            return
        print(summary(zmap, code))
        print()
        for path in written:
            print(_("written: {path}").format(path=path))
        print(
            _("Seed {seed}: run again with --seed {seed} for the same map.").format(seed=used_seed)
        )
        return

    if json_out or (chosen == ["json"] and formats is not None):
        print_json(dumps(zmap, code))
        return
    if formats is not None:
        if chosen == ["svg"]:
            from kerker.termio import print_svg

            print_svg(render_svg(zmap, view="gm", lang=code))
        else:
            print(render_md(zmap, code), end="")
        return
    print(summary(zmap, code))
    print()
    print(_("Seed {seed}: run again with --seed {seed} for the same map.").format(seed=used_seed))
