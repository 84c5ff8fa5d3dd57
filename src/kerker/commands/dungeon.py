"""``kerker dungeon``: a dungeon by the Zufallslabyrinth (seed 000) or Scatola Bianca
(seed 001) procedure -- ASCII preview, JSON document, and with ``--out`` the files (SVG/PNG/key
when the renderers exist).

A thin shell around :mod:`kerker.dungeon`: options -> :func:`~kerker.dungeon.engine.generate`
-> the document (docs/dungeon-json.md) -> one renderer per output.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kerker.cli_support import friendly, make_rng, resolve_language, write_output
from kerker.cli_support import parse_formats as _parse_formats
from kerker.errors import N_, OptionError
from kerker.i18n import default_language, translator

if TYPE_CHECKING:
    from kerker.export.files import VttOptions
    from kerker.render.png import PngBatch

_h = translator(default_language())

FORMATS = ("svg", "png", "json", "md", "html", "ascii")
"""What ``--out`` writes without ``--format``."""
VTT_FORMATS = ("uvtt", "foundry")
"""Virtual tabletop files, written when ``--format`` names them (kerker.export)."""
PNG_SCALE_MIN, PNG_SCALE_MAX = 0.5, 4.0
"""Bounds of ``--png-scale`` (4 gives a default sheet of about 3 800 x 5 500 pixels)."""

DUNGEON_HELP = N_(
    "Roll a dungeon by a rule set's procedure: the Zufallslabyrinth (seed 000, the default) "
    "or La Scatola Bianca appendix A (seed 001, --rules scatola-bianca). Rooms, halls, "
    "chambers, caves and corridors placed on graph paper, stocked with monsters, treasure, "
    "traps and water, linked to deeper levels by stairs, trapdoors, shafts and elevators; "
    "every roll is kept.\n\n"
    "Without --json or --out it prints a map preview and a short key. --out DIR writes "
    "dungeon-SEED.json and .txt, and the maps and key when their renderers are installed.\n\n"
    "Example: kerker dungeon --seed 7 --levels 2 --out maps"
)



def parse_formats(text: str) -> list[str]:
    """``"svg,json"`` -> the formats in the order of :data:`FORMATS` (then
    :data:`VTT_FORMATS`); refuses others."""
    return _parse_formats(text, FORMATS + VTT_FORMATS)


def parse_size(text: str) -> tuple[int, int]:
    """``"30x40"`` -> ``(30, 40)`` (squares); bounds are checked by the engine."""
    parts = text.lower().replace("×", "x").split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise OptionError(N_("--size takes WIDTHxHEIGHT in squares, e.g. 30x40, not {text!r}"),
                          text=text)
    return int(parts[0]), int(parts[1])




def short_key(doc: dict[str, Any]) -> str:
    """One line per area with contents, per level: number, title, what is in it."""
    out = []
    for level in doc["levels"]:
        for area in level["areas"]:
            things = [c["text"] for c in area["contents"]]
            if things:
                out.append(f"{level['depth']}.{area['number']:>3} {area['title']}: "
                           + "; ".join(things))
    return "\n".join(out)


Drawing = tuple[Path, int, str, str]
"""A map drawn: file name without suffix, depth, view, SVG."""


def _drawings(doc: dict[str, Any], out: Path, seed: int, lang: str,
              drawn: Callable[[str], object] | None = None) -> list[Drawing]:
    """Every level's SVG, GM and player view, with the file name (no suffix) it goes to;
    drawn once for svg, png and the HTML key (the PNG is the SVG rasterized). ``drawn`` is
    told of each SVG as soon as its level is drawn."""
    from kerker.dungeon.render_svg import render_views

    drawings: list[Drawing] = []
    for level in doc["levels"]:
        depth = level["depth"]
        # Level 1 keeps the short name; deeper levels say which they are.
        name = f"dungeon-{seed}" + ("" if depth == 1 else f"-level{depth}")
        views = render_views(doc, depth=depth, lang=lang, views=("gm", "player"))
        for view, suffix in (("gm", ""), ("player", "-player")):
            if drawn is not None:
                drawn(views[view])
            drawings.append((out / f"{name}{suffix}", depth, view, views[view]))
    return drawings


def write_files(doc: dict[str, Any], out: Path, seed: int, lang: str, formats: list[str],
                batch: PngBatch | None = None, png_scale: float | None = None,
                vtt: VttOptions | None = None,
                warn: Callable[[str], None] | None = None) -> list[Path]:
    """Write the files of ``formats`` (see :data:`FORMATS`) for the dungeon document ``doc``
    to the folder ``out``; returns the paths written, PNGs last.

    Each map's PNG (``png_scale`` pixels per SVG unit, default
    :data:`~kerker.dungeon.render_svg.PNG_SCALE`) is drawn by ``batch`` (one is made if
    ``formats`` has "png" and none is given; a given batch keeps its own scale) as soon as
    its SVG exists, while the next maps and the other files
    are made here. ``vtt`` (default :class:`~kerker.export.files.VttOptions`) says how the
    uvtt and foundry files are made; ``warn`` is told of levels drawn smaller for them.
    Refuses what :func:`~kerker.cli_support.write_output` and
    :func:`~kerker.render.png.svg_to_png` refuse.
    """
    from kerker.dungeon.export import dumps_document
    from kerker.dungeon.render_ascii import render_ascii

    stem = out / f"dungeon-{seed}"
    own = batch is None and "png" in formats
    if own:
        from kerker.dungeon.render_svg import PNG_SCALE
        from kerker.render.png import PngBatch

        batch = PngBatch(scale=png_scale or PNG_SCALE)
    written: list[Path] = []
    try:
        drawings: list[Drawing] = []
        if "svg" in formats or "png" in formats:
            drawings = _drawings(doc, out, seed, lang,
                                 batch.add if batch is not None and "png" in formats else None)
        for fmt in sorted(formats, key=lambda f: f == "png"):
            files: list[tuple[Path, str | bytes]] = []
            if fmt == "json":
                files = [(stem.with_suffix(".json"), dumps_document(doc))]
            elif fmt == "ascii":
                files = [(stem.with_suffix(".txt"), render_ascii(doc))]
            elif fmt == "svg":
                files = [(Path(f"{d[0]}.svg"), d[3]) for d in drawings]
            elif fmt == "png" and batch is not None:
                files = [(Path(f"{d[0]}.png"), png) for d, png in
                         zip(drawings, batch.results(), strict=True)]
            elif fmt == "md":
                from kerker.dungeon.render_key import render_md

                files = [(stem.with_suffix(".md"), render_md(doc, lang=lang))]
            elif fmt == "html":
                from kerker.dungeon.render_key import render_html

                # the page inlines the GM maps already drawn for svg/png
                maps = {depth: text for _base, depth, view, text in drawings if view == "gm"}
                files = [(stem.with_suffix(".html"),
                          render_html(doc, lang=lang, maps=maps or None))]
            for path, data in files:
                write_output(path, data)
                written.append(path)
        tabletop = [f for f in VTT_FORMATS if f in formats]
        if tabletop:
            from kerker.export.files import VttOptions, vtt_files

            for path, data in vtt_files(doc, out, tabletop, vtt or VttOptions(), lang, warn):
                write_output(path, data)
                written.append(path)
    finally:
        if own and batch is not None:
            batch.close()
    return written


def _vtt_options(chosen: list[str], ppg: int | None, gm: bool, webp: bool,
                 layout: str) -> VttOptions:
    """The tabletop options of the command line, checked."""
    from kerker.export.files import VttOptions
    from kerker.export.foundry import LAYOUTS
    from kerker.export.image import PPG_CHOICES, PPG_DEFAULT

    asked = ppg is not None or gm or webp or layout != "v13"
    if asked and not any(f in chosen for f in VTT_FORMATS):
        raise OptionError(N_("--ppg, --gm, --webp and --foundry-layout need --out DIR and "
                             "the uvtt or foundry format"))
    if ppg is not None and ppg not in PPG_CHOICES:
        raise OptionError(N_("--ppg takes {choices}, not {value}"),
                          choices=", ".join(map(str, PPG_CHOICES)), value=ppg)
    if layout not in LAYOUTS:
        raise OptionError(N_("--foundry-layout takes {choices}, not {value!r}"),
                          choices=", ".join(LAYOUTS), value=layout)
    return VttOptions(ppg=ppg or PPG_DEFAULT, gm=gm, webp=webp, foundry_layout=layout)


@friendly
def dungeon_command(
    rules: Annotated[str, typer.Option("--rules", help=_h(N_(
        "The procedure: zufallslabyrinth (seed 000) or scatola-bianca (seed 001).")))
    ] = "zufallslabyrinth",
    seed: Annotated[
        int | None, typer.Option("--seed", help=_h(N_("Seed for a repeatable dungeon.")))
    ] = None,
    levels: Annotated[int, typer.Option("--levels", help=_h(N_(
        "Number of levels (1-20); deeper levels start where stairs arrive.")))] = 1,
    size: Annotated[str, typer.Option("--size", metavar="WxH", help=_h(N_(
        "Width x height of a level in 10-ft squares (10x10 to 200x200).")))] = "30x40",
    max_areas: Annotated[int, typer.Option("--max-areas", help=_h(N_(
        "Areas per level at most (1-1000); open exits beyond stay unexplored.")))] = 60,
    min_areas: Annotated[int, typer.Option("--min-areas", help=_h(N_(
        "A dungeon whose first level has fewer areas is rolled again, up to 50 times "
        "(0-1000; 0 keeps the first roll).")))] = 10,
    entrance: Annotated[str, typer.Option("--entrance", help=_h(N_(
        "How level 1 begins: variant, room or hall. zufallslabyrinth: the rolled entrance "
        "(step 1, W6), a room or a hall (step 5); scatola-bianca: a passage (the default), a "
        "room or a chamber (A.5).")))] = "variant",
    caves: Annotated[str, typer.Option("--caves", help=_h(N_(
        "Where A.1 chambers become A.8 caves: depth = from level 3 on (the default), "
        "always, never; only for scatola-bianca.")))] = "depth",
    lang: Annotated[
        str | None,
        typer.Option("--lang", help=_h(N_("Language of the output: de, it or en "
                                          "(default: the rule set's language)."))),
    ] = None,
    json_out: Annotated[
        bool, typer.Option("--json", help=_h(N_("Print JSON for other tools.")))
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="DIR", help=_h(N_(
            "Write the files to this folder (created if missing)."))),
    ] = None,
    formats: Annotated[
        str | None,
        typer.Option("--format", metavar="LIST", help=_h(N_(
            "Files to write with --out: svg,png,json,md,html,ascii (default: all of these), "
            "and for virtual tabletops uvtt (.dd2vtt) and foundry (scene, journal, "
            "picture)."))),
    ] = None,
    ppg: Annotated[
        int | None,
        typer.Option("--ppg", metavar="PX", help=_h(N_(
            "Pixels per 10-ft square of the uvtt and foundry pictures: 100 (the default), "
            "70 or 50."))),
    ] = None,
    gm: Annotated[bool, typer.Option("--gm", help=_h(N_(
        "uvtt and foundry: the game master's map (area numbers, secret doors) as the "
        "picture instead of the players'.")))] = False,
    webp: Annotated[bool, typer.Option("--webp", help=_h(N_(
        "uvtt and foundry: the picture as WebP (smaller) instead of PNG.")))] = False,
    foundry_layout: Annotated[str, typer.Option("--foundry-layout", metavar="VERSION", help=_h(
        N_("foundry: the scene for Foundry v13 (the default) or v14 (the picture in "
           "levels[]).")))] = "v13",
    png_scale: Annotated[
        float | None,
        typer.Option("--png-scale", metavar="FACTOR", help=_h(N_(
            "Pixels of the PNG maps per SVG unit, 0.5 to 4 (default 1.5, about 42 px per "
            "10-ft square; 1 draws faster, 2 or more for print and virtual tabletops)."))),
    ] = None,
    tables: Annotated[
        list[Path] | None,
        typer.Option("--tables", help=_h(N_("A folder (or file) of your own tables; repeatable. "
                                             "Also read from KERKER_TABLES."))),
    ] = None,
) -> None:
    """Roll a dungeon; see ``DUNGEON_HELP``."""
    from kerker.dungeon.engine import Params, generate
    from kerker.dungeon.export import dumps_document, to_document
    from kerker.dungeon.render_ascii import render_ascii
    from kerker.tables.registry import load_registry, rule_set_language

    chosen = parse_formats(formats) if formats is not None else list(FORMATS)
    if formats is not None and out is None:
        raise OptionError(N_("--format {text} needs --out DIR"), text=formats)
    params = Params(rules=rules, seed=None, levels=levels, size=parse_size(size),
                    max_areas=max_areas, min_areas=min_areas, entrance=entrance,
                    caves=caves).checked()
    registry = load_registry(tables or [])
    # A rule set speaks the language it was printed in unless --lang says otherwise.
    code = resolve_language(lang or rule_set_language(registry, params.rules))
    _ = translator(code)
    used_seed, rng = make_rng(seed)
    params = replace(params, seed=used_seed)
    if png_scale is not None and not (PNG_SCALE_MIN <= png_scale <= PNG_SCALE_MAX):
        raise OptionError(N_("--png-scale takes a factor from {low} to {high}, not {value}"),
                          low=PNG_SCALE_MIN, high=PNG_SCALE_MAX, value=png_scale)
    if png_scale is not None and (out is None or "png" not in chosen):
        raise OptionError(N_("--png-scale needs --out DIR and the png format"))
    vtt = _vtt_options(chosen, ppg, gm, webp, foundry_layout)
    batch: PngBatch | None = None
    if out is not None and "png" in chosen:
        from kerker.dungeon.render_svg import PNG_SCALE
        from kerker.render.png import PngBatch

        # The PNG workers load the renderer while the dungeon is rolled.
        batch = PngBatch(scale=png_scale or PNG_SCALE, warm=True)
    try:
        dungeon = generate(params, rng, registry)
        doc = to_document(dungeon, code)
        if out is not None:
            written = write_files(doc, out, used_seed, code, chosen, batch, vtt=vtt,
                                  warn=lambda text: print(text, file=sys.stderr))
    finally:
        if batch is not None:
            batch.close()

    made = len(doc["levels"])
    # The procedure reaches a level only by a way down (or up) from another: say so when
    # fewer levels came out than were asked for, rather than leave the GM guessing.
    fewer = (_("Levels: {made} of {asked}; no way leads to the others.").format(
        made=made, asked=params.levels) if made < params.levels else "")
    if out is not None:
        if json_out:
            print(dumps_document(doc), end="")
            return
        for path in written:
            print(_("written: {path}").format(path=path))
        if fewer:
            print(fewer)
        print(_("Seed {seed}: run again with --seed {seed} for the same map.").format(
            seed=used_seed))
        return
    if json_out:
        print(dumps_document(doc), end="")
        return
    print(render_ascii(doc))
    key = short_key(doc)
    if key:
        print(key)
        print()
    if fewer:
        print(fewer)
    print(_("Seed {seed}: run again with --seed {seed} for the same map.").format(
        seed=used_seed))
