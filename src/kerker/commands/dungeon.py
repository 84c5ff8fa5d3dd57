"""``kerker dungeon``: a dungeon by the Zufallslabyrinth (seed 000) or Scatola Bianca
(seed 001) procedure -- ASCII preview, JSON document, and with ``--out`` the files (SVG/PNG/key
when the renderers exist).

A thin shell around the library (:mod:`kerker.dungeon.api`): options ->
:func:`~kerker.dungeon.engine.generate` -> the document (docs/dungeon-json.md) ->
:func:`~kerker.dungeon.files.write_files`. The CLI reads the environment (``KERKER_TABLES``
through the registry) and makes the seed; the library does neither.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kerker.cli_support import (
    JsonOption,
    PaperOption,
    friendly,
    load_tables,
    make_rng,
    print_json,
    progress,
    resolve_language,
)
from kerker.cli_support import cli_translate as _h
from kerker.cli_support import parse_formats as _parse_formats
from kerker.commands.options import (
    LevelsOption,
    MaxAreasOption,
    MinAreasOption,
    OutDirOption,
    RuleSetLangOption,
    RulesOption,
    SeedOption,
    SizeOption,
    TablesOption,
)
from kerker.dungeon.files import FORMATS, VTT_FORMATS, write_files
from kerker.errors import N_, OptionError
from kerker.i18n import translator

if TYPE_CHECKING:
    from kerker.export.files import VttOptions
    from kerker.render.png import PngBatch


__all__ = [
    "DUNGEON_HELP",
    "FORMATS",
    "VTT_FORMATS",
    "dungeon_command",
    "parse_formats",
    "parse_size",
    "short_key",
    "write_files",
]
LONG_RUN = 400
"""Levels x areas from which a run shows progress on a terminal (the default: 60)."""
PNG_SCALE_MIN, PNG_SCALE_MAX = 0.5, 4.0
"""Bounds of ``--png-scale`` (4 gives a default sheet of about 3 800 x 5 500 pixels)."""

DUNGEON_HELP = N_(
    "Roll a dungeon by a rule set's procedure: the Zufallslabyrinth (seed 000, the default) "
    "or La Scatola Bianca appendix A (seed 001, --rules scatola-bianca). Rooms, halls, "
    "chambers, caves and corridors placed on graph paper, stocked with monsters, treasure, "
    "traps and water, linked to deeper levels by stairs, trapdoors, shafts and elevators; "
    "every roll is kept.\n\n"
    "Without --json or --out it prints a map preview and a short key. --out DIR writes "
    "RULES-SEED.json, .txt, .md, .html and .pdf and per level RULES-SEED-levelN.svg and .png "
    "(and -player for the players' maps).\n\n"
    "Example: kerker dungeon --seed 7 --levels 2 --out maps"
)


@contextmanager
def flags() -> Iterator[None]:
    """Re-raise a library :class:`~kerker.dungeon.engine.DungeonError` about an option with
    the command line's flag for it (``max_areas`` -> ``--max-areas``): the library's
    messages name no flag."""
    from kerker.dungeon.engine import DungeonError

    try:
        yield
    except DungeonError as err:
        if err.option is None:
            raise
        params = dict(err.params)
        params.pop("name", None)
        raise DungeonError(
            err.template, option=err.option, name="--" + err.option.replace("_", "-"), **params
        ) from None


def parse_formats(text: str) -> list[str]:
    """``"svg,json"`` -> the formats in the order of :data:`FORMATS` (then
    :data:`VTT_FORMATS`); refuses others."""
    return _parse_formats(text, FORMATS + VTT_FORMATS)


def _vtt_options(
    chosen: list[str], ppg: int | None, gm: bool, webp: bool, layout: str
) -> VttOptions:
    """The tabletop options of the command line, checked."""
    from kerker.export.files import VttOptions
    from kerker.export.foundry import LAYOUTS
    from kerker.export.image import PPG_CHOICES, PPG_DEFAULT

    asked = ppg is not None or gm or webp or layout != "v13"
    if asked and not any(f in chosen for f in VTT_FORMATS):
        raise OptionError(
            N_(
                "--ppg, --gm, --webp and --foundry-layout need --out DIR and "
                "the uvtt or foundry format"
            )
        )
    if ppg is not None and ppg not in PPG_CHOICES:
        raise OptionError(
            N_("--ppg takes {choices}, not {value}"),
            choices=", ".join(map(str, PPG_CHOICES)),
            value=ppg,
        )
    if layout not in LAYOUTS:
        raise OptionError(
            N_("--foundry-layout takes {choices}, not {value!r}"),
            choices=", ".join(LAYOUTS),
            value=layout,
        )
    return VttOptions(ppg=ppg or PPG_DEFAULT, gm=gm, webp=webp, foundry_layout=layout)


def parse_size(text: str) -> tuple[int, int]:
    """``"30x40"`` -> ``(30, 40)`` (squares); bounds are checked by the engine."""
    parts = text.lower().replace("×", "x").split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise OptionError(
            N_("--size takes WIDTHxHEIGHT in squares, e.g. 30x40, not {text!r}"), text=text
        )
    return int(parts[0]), int(parts[1])


def short_key(doc: dict[str, Any]) -> str:
    """One line per area with contents, per level: number, title, what is in it."""
    from kerker.dungeon.export import WANDERING_MONSTER, wandering

    _ = translator(str(doc.get("lang") or "en"))
    out = []
    for level in doc["levels"]:
        for area in level["areas"]:
            things = []
            for content in area["contents"]:
                text = str(content["text"])
                rest = wandering(text, _) if content.get("kind") == "monster" else None
                if rest is not None:
                    # "Errante: 2 ratti giganti" read as a label of its own
                    text = _(WANDERING_MONSTER) + ": " + rest
                things.append(text.rstrip(". "))  # "(me); 900", not "(me).; 900"
            if things:
                out.append(
                    f"{level['depth']}.{area['number']:>3} {area['title']}: " + "; ".join(things)
                )
    return "\n".join(out)


@friendly
def dungeon_command(
    rules: RulesOption = "zufallslabyrinth",
    seed: SeedOption = None,
    levels: LevelsOption = 1,
    size: SizeOption = None,
    max_areas: MaxAreasOption = 60,
    min_areas: MinAreasOption = 10,
    entrance: Annotated[
        str | None,
        typer.Option(
            "--entrance",
            help=_h(
                N_(
                    "How level 1 begins: variant, room or hall. zufallslabyrinth: the rolled "
                    "entrance "
                    "(step 1, d6), a room or a hall (step 5); scatola-bianca: a passage (the "
                    "default), a "
                    "room or a chamber (A.5)."
                )
            ),
        ),
    ] = None,
    caves: Annotated[
        str | None,
        typer.Option(
            "--caves",
            help=_h(
                N_(
                    "Where A.1 chambers become A.8 caves: depth = from level 3 on (the default), "
                    "always, never; only for scatola-bianca."
                )
            ),
        ),
    ] = None,
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
                    "Files to write with --out: svg,png,json,md,html,ascii,pdf (default: all of "
                    "these), and for virtual tabletops uvtt (.dd2vtt) and foundry (scene, journal, "
                    "picture)."
                )
            ),
        ),
    ] = None,
    ppg: Annotated[
        int | None,
        typer.Option(
            "--ppg",
            metavar="PX",
            help=_h(
                N_(
                    "Pixels per 10-ft square of the uvtt and foundry pictures: 100 (the default), "
                    "70 or 50."
                )
            ),
        ),
    ] = None,
    gm: Annotated[
        bool,
        typer.Option(
            "--gm",
            help=_h(
                N_(
                    "uvtt and foundry: the game master's map (area numbers, secret doors) as the "
                    "picture instead of the players'."
                )
            ),
        ),
    ] = False,
    webp: Annotated[
        bool,
        typer.Option(
            "--webp", help=_h(N_("uvtt and foundry: the picture as WebP (smaller) instead of PNG."))
        ),
    ] = False,
    foundry_layout: Annotated[
        str,
        typer.Option(
            "--foundry-layout",
            metavar="VERSION",
            help=_h(
                N_(
                    "foundry: the scene for Foundry v13 (the default) or v14 (the picture in "
                    "levels[])."
                )
            ),
        ),
    ] = "v13",
    png_scale: Annotated[
        float | None,
        typer.Option(
            "--png-scale",
            metavar="FACTOR",
            help=_h(
                N_(
                    "Pixels of the PNG maps per SVG unit, 0.5 to 4 (default 1.5, about 42 px per "
                    "10-ft square; 1 draws faster, 2 or more for print and virtual tabletops)."
                )
            ),
        ),
    ] = None,
    style: Annotated[
        str,
        typer.Option(
            "--style",
            help=_h(
                N_(
                    "Look of the maps written with --out: classic (cream paper) or print (white "
                    "paper, "
                    "saves ink)."
                )
            ),
        ),
    ] = "classic",
    paper: PaperOption = "a4",
    map_only: Annotated[
        bool,
        typer.Option(
            "--map-only",
            help=_h(
                N_(
                    "With --out: also write per level the players' map alone, without title, "
                    "scale bar and legend, for a projector or screen "
                    "(RULES-SEED-levelN-player-projection.svg and .png)."
                )
            ),
        ),
    ] = False,
    tables: TablesOption = None,
) -> None:
    """Roll a dungeon; see ``DUNGEON_HELP``."""
    from kerker.dungeon.api import Params, document, dumps_document, generate
    from kerker.dungeon.render_ascii import render_ascii
    from kerker.tables.registry import rule_set_language

    chosen = parse_formats(formats) if formats is not None else list(FORMATS)
    if formats is not None and out is None:
        raise OptionError(N_("--format {text} needs --out DIR"), text=formats)
    params = Params(
        rules=rules,
        seed=None,
        levels=levels,
        size=parse_size(size) if size is not None else None,
        max_areas=max_areas,
        min_areas=min_areas,
        entrance=entrance,
        caves=caves,
    )
    with flags():
        params = params.checked()
    registry = load_tables(tables)
    # A rule set speaks the language it was printed in unless --lang says otherwise.
    code = resolve_language(lang or rule_set_language(registry, params.rules))
    _ = translator(code)
    used_seed, _rng = make_rng(seed)
    params = replace(params, seed=used_seed)
    if png_scale is not None and not (PNG_SCALE_MIN <= png_scale <= PNG_SCALE_MAX):
        raise OptionError(
            N_("--png-scale takes a factor from {low} to {high}, not {value}"),
            low=PNG_SCALE_MIN,
            high=PNG_SCALE_MAX,
            value=png_scale,
        )
    if png_scale is not None and (out is None or "png" not in chosen):
        raise OptionError(N_("--png-scale needs --out DIR and the png format"))
    if out is not None:
        from kerker.dungeon.render_svg import STYLES

        if style not in STYLES:  # refused before the dungeon is rolled
            raise OptionError(N_("unknown map style {style!r} (classic or print)"), style=style)
    if map_only and (out is None or not {"svg", "png"} & set(chosen)):
        raise OptionError(N_("--map-only needs --out DIR and the svg or png format"))
    from kerker.render.pdf import check_paper

    check_paper(paper)
    vtt = _vtt_options(chosen, ppg, gm, webp, foundry_layout)
    notes: list[str] = []
    long_run = params.levels * params.max_areas >= LONG_RUN
    if long_run:
        progress(
            _(
                "Rolling the dungeon (levels: {levels}, up to {areas} areas a level); "
                "this can take a minute ..."
            ).format(levels=params.levels, areas=params.max_areas)
        )
    batch: PngBatch | None = None
    if out is not None and "png" in chosen:
        from kerker.dungeon.render_svg import PNG_SCALE
        from kerker.render.png import PngBatch

        # The PNG workers load the renderer while the dungeon is rolled.
        batch = PngBatch(scale=png_scale or PNG_SCALE, warm=True)
    try:
        with flags():
            dungeon = generate(params, registry)
        doc = document(dungeon, code)
        if out is not None:
            if long_run:
                progress(_("Drawing and writing the files ..."))
            written = write_files(
                doc,
                out,
                used_seed,
                code,
                chosen,
                batch,
                vtt=vtt,
                warn=lambda text: print(text, file=sys.stderr),
                fit_png=png_scale is None,
                notes=notes,
                style=style,
                paper=paper,
                map_only=map_only,
            )
    finally:
        if batch is not None:
            batch.close()

    depths = [int(level.get("depth", 1)) for level in doc["levels"]]
    made = len(depths)
    # The procedure reaches a level only by a way down (or up) from another: say so when
    # fewer levels came out than were asked for, and which, rather than leave the GM
    # guessing why level 2 is missing beside 1 and 3 (Scatola Bianca seed 11: its only way
    # down goes two levels at once). Checked for seeds 1-100 of both procedures: a level
    # missing is always one no rolled way leads to.
    missing = [d for d in range(1, params.levels + 1) if d not in depths]
    fewer = (
        _(
            "Levels: {made} of {asked} ({depths}); no stair, trapdoor or shaft rolled leads"
            " to {missing}, and a level exists only where a rolled way leads."
        ).format(
            made=made,
            asked=params.levels,
            depths=", ".join(str(d) for d in depths),
            missing=", ".join(str(d) for d in missing),
        )
        if made < params.levels
        else ""
    )
    if out is not None:
        if json_out:
            print_json(dumps_document(doc))
            return
        for path in written:
            print(_("written: {path}").format(path=path))
        for note in notes:
            print(note)
        if fewer:
            print(fewer)
        print(
            _("Seed {seed}: run again with --seed {seed} for the same map.").format(seed=used_seed)
        )
        return
    if json_out:
        print_json(dumps_document(doc))
        return
    print(render_ascii(doc))
    key = short_key(doc)
    if key:
        print(key)
        print()
    if fewer:
        print(fewer)
    print(_("Seed {seed}: run again with --seed {seed} for the same map.").format(seed=used_seed))
