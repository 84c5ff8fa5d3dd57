"""``kerker dungeon``: a dungeon by the Zufallslabyrinth (seed 000) or Scatola Bianca
(seed 001) procedure -- ASCII preview, JSON document, and with ``--out`` the files (SVG/PNG/key
when the renderers exist).

A thin shell around the library (:mod:`kerker.dungeon.api`): options ->
:func:`~kerker.dungeon.engine.generate` -> the document (docs/dungeon-json.md) ->
:func:`~kerker.dungeon.files.write_files`. The CLI reads the environment (``KERKER_TABLES``
through the registry) and makes the seed; the library does neither.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kerker.cli_support import friendly, make_rng, resolve_language
from kerker.cli_support import parse_formats as _parse_formats
from kerker.dungeon.files import FORMATS, write_files
from kerker.errors import N_, OptionError
from kerker.i18n import default_language, translator

if TYPE_CHECKING:
    from kerker.render.png import PngBatch

_h = translator(default_language())

__all__ = ["DUNGEON_HELP", "FORMATS", "dungeon_command", "parse_formats", "parse_size",
           "short_key", "write_files"]
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
        raise DungeonError(err.template, option=err.option,
                           name="--" + err.option.replace("_", "-"), **params) from None


def parse_formats(text: str) -> list[str]:
    """``"svg,json"`` -> the formats in the order of :data:`FORMATS`; refuses others."""
    return _parse_formats(text, FORMATS)


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
    size: Annotated[str | None, typer.Option("--size", metavar="WxH", help=_h(N_(
        "Width x height of a level in 10-ft squares (10x10 to 200x200); without it the "
        "sheet grows with the dungeon.")))] = None,
    max_areas: Annotated[int, typer.Option("--max-areas", help=_h(N_(
        "Areas per level at most (1-1000); open exits beyond stay unexplored.")))] = 60,
    min_areas: Annotated[int, typer.Option("--min-areas", help=_h(N_(
        "A dungeon whose first level has fewer areas is rolled again, up to 50 times "
        "(0-1000; 0 keeps the first roll).")))] = 10,
    entrance: Annotated[str | None, typer.Option("--entrance", help=_h(N_(
        "How level 1 begins: variant, room or hall. zufallslabyrinth: the rolled entrance "
        "(step 1, W6), a room or a hall (step 5); scatola-bianca: a passage (the default), a "
        "room or a chamber (A.5).")))] = None,
    caves: Annotated[str | None, typer.Option("--caves", help=_h(N_(
        "Where A.1 chambers become A.8 caves: depth = from level 3 on (the default), "
        "always, never; only for scatola-bianca.")))] = None,
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
            "Files to write with --out: svg,png,json,md,html,ascii (default: all)."))),
    ] = None,
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
    from kerker.dungeon.api import Params, document, dumps_document, generate
    from kerker.dungeon.render_ascii import render_ascii
    from kerker.tables.registry import load_registry, rule_set_language

    chosen = parse_formats(formats) if formats is not None else list(FORMATS)
    if formats is not None and out is None:
        raise OptionError(N_("--format {text} needs --out DIR"), text=formats)
    params = Params(rules=rules, seed=None, levels=levels,
                    size=parse_size(size) if size is not None else None,
                    max_areas=max_areas, min_areas=min_areas, entrance=entrance,
                    caves=caves)
    with flags():
        params = params.checked()
    registry = load_registry(tables or [])
    # A rule set speaks the language it was printed in unless --lang says otherwise.
    code = resolve_language(lang or rule_set_language(registry, params.rules))
    _ = translator(code)
    used_seed, _rng = make_rng(seed)
    params = replace(params, seed=used_seed)
    if png_scale is not None and not (PNG_SCALE_MIN <= png_scale <= PNG_SCALE_MAX):
        raise OptionError(N_("--png-scale takes a factor from {low} to {high}, not {value}"),
                          low=PNG_SCALE_MIN, high=PNG_SCALE_MAX, value=png_scale)
    if png_scale is not None and (out is None or "png" not in chosen):
        raise OptionError(N_("--png-scale needs --out DIR and the png format"))
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
            written = write_files(doc, out, used_seed, code, chosen, batch)
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
