"""A dungeon's files: JSON, ASCII, SVG and PNG maps (GM and player view), Markdown and HTML
key, written to a folder (what ``kerker dungeon --out DIR`` writes).

Library code: no CLI import, no environment read. Each map's PNG is rasterized from its SVG
by a :class:`~kerker.render.png.PngBatch` while the next maps are drawn.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kerker.errors import N_
from kerker.fileio import WriteError

if TYPE_CHECKING:
    from kerker.export.files import VttOptions
    from kerker.render.png import PngBatch

FORMATS = ("svg", "png", "json", "md", "html", "ascii", "pdf")
"""The formats :func:`write_files` writes without being told, in this order (PNGs last)."""
VTT_FORMATS = ("uvtt", "foundry")
"""Virtual tabletop files, written when the formats name them (:mod:`kerker.export`)."""
PNG_SCALE_MIN = 0.5
"""The smallest scale a map's PNG is fitted down to before it is refused."""


def write_file(path: Path, data: str | bytes) -> None:
    """Write one file all or nothing (folders created, text as UTF-8 with \\n line ends): a
    full disk leaves the old file, never a truncated one; refuses what
    :func:`kerker.fileio.write_atomic` refuses."""
    from kerker.fileio import write_atomic

    write_atomic(path, data)


_SVG_SIZE = re.compile(r'<svg\b[^>]*?\swidth="([0-9.]+)"[^>]*?\sheight="([0-9.]+)"')


def png_fit(svg: str, scale: float) -> float:
    """``scale``, or the largest smaller one (in hundredths) at which the SVG's PNG stays
    within :data:`kerker.render.png.MAX_PIXELS`."""
    from kerker.render.png import MAX_PIXELS

    match = _SVG_SIZE.search(svg[:2000])
    if match is None:
        return scale
    area = float(match.group(1)) * float(match.group(2))
    if area * scale * scale <= MAX_PIXELS:
        return scale
    fitted = math.floor(math.sqrt(MAX_PIXELS / area) * 100) / 100
    while fitted > 0 and area * fitted * fitted > MAX_PIXELS:
        fitted -= 0.01
    return round(fitted, 2)


Drawing = tuple[Path, int, str, str]
"""A map drawn: file name without suffix, depth, view, SVG."""


def file_stem(rules: str, seed: int) -> str:
    """The name (no suffix) of a dungeon's own files (JSON, key, preview, PDF):
    ``RULES-SEED``, e.g. ``zufallslabyrinth-7``, so that both rule sets' files of one seed
    can lie in one folder."""
    return f"{rules}-{seed}"


def level_stem(rules: str, seed: int, depth: int) -> str:
    """The name (no suffix) of a level's maps: ``RULES-SEED-levelN`` (level 1 too); the
    players' map adds ``-player``, the players' map for projection ``-player-projection``."""
    return f"{file_stem(rules, seed)}-level{depth}"


PROJECTION = "-player-projection"
"""What a level's map for projection adds to :func:`level_stem`: the players' view alone,
without title, scale bar and legend (``render_svg(..., bare=True)``), shown to the players
on a screen or projector, so never the game master's view."""


def map_suffixes(map_only: bool = False) -> tuple[str, ...]:
    """The name endings of one level's maps in the order :func:`drawings` draws them: GM,
    player, and with ``map_only`` the players' map for projection."""
    return ("", "-player", PROJECTION) if map_only else ("", "-player")


def drawings(
    doc: dict[str, Any],
    out: Path,
    seed: int,
    lang: str,
    drawn: Callable[[str], object] | None = None,
    style: str = "classic",
    map_only: bool = False,
) -> list[Drawing]:
    """Every level's SVG, GM and player view (with ``map_only`` also the players' map for
    projection, :data:`PROJECTION`), with the file name (no suffix) it goes to; drawn once
    for svg, png and the HTML key (the PNG is the SVG rasterized). ``drawn`` is told of each
    SVG as soon as its level is drawn."""
    from kerker.dungeon.render_svg import render_svg, render_views

    made: list[Drawing] = []
    for level in doc["levels"]:
        depth = level["depth"]
        name = level_stem(str(doc.get("rules", "dungeon")), seed, depth)
        views = render_views(doc, depth=depth, lang=lang, views=("gm", "player"), style=style)
        for view, suffix in (("gm", ""), ("player", "-player")):
            if drawn is not None:
                drawn(views[view])
            made.append((out / f"{name}{suffix}", depth, view, views[view]))
        if map_only:
            bare = render_svg(doc, depth=depth, view="player", lang=lang, style=style, bare=True)
            if drawn is not None:
                drawn(bare)
            made.append((out / f"{name}{PROJECTION}", depth, "projection", bare))
    return made


def write_files(
    doc: dict[str, Any],
    out: Path,
    seed: int,
    lang: str,
    formats: list[str],
    batch: PngBatch | None = None,
    png_scale: float | None = None,
    vtt: VttOptions | None = None,
    warn: Callable[[str], None] | None = None,
    *,
    fit_png: bool = True,
    notes: list[str] | None = None,
    style: str = "classic",
    paper: str = "a4",
    map_only: bool = False,
) -> list[Path]:
    """Write the files of ``formats`` (see :data:`FORMATS`) for the dungeon document ``doc``
    to the folder ``out``; returns the paths written, PNGs last.

    Each map's PNG (``png_scale`` pixels per SVG unit, default
    :data:`~kerker.dungeon.render_svg.PNG_SCALE`) is drawn by ``batch`` (one is made if
    ``formats`` has "png" and none is given; a given batch keeps its own scale) as soon as
    its SVG exists, while the next maps and the other files are made here. A map whose PNG
    would exceed the pixel cap is drawn at the largest scale that fits (a line for it is
    added to ``notes``, in ``lang``) when ``fit_png``, else refused before any file is
    written. ``vtt`` (default :class:`~kerker.export.files.VttOptions`) says how the uvtt and
    foundry files are made; ``warn`` is told of levels drawn smaller for them. ``style``:
    the maps' look (``classic`` or the ink-saving ``print``). ``map_only``: the svg and png
    formats also hold each level's players' map for projection (:data:`PROJECTION`). Refuses an
    unknown format (:class:`WriteError`) and what :func:`write_file` and
    :func:`~kerker.render.png.svg_to_png` refuse.
    """
    from kerker.dungeon.export import dumps_document
    from kerker.dungeon.render_ascii import render_ascii

    unknown = [f for f in formats if f not in FORMATS + VTT_FORMATS]
    if unknown:
        raise WriteError(
            N_("unknown format {text!r}; choose from {choices}"),
            text=unknown[0][:40],
            choices=", ".join(FORMATS + VTT_FORMATS),
        )
    rules = str(doc.get("rules", "dungeon"))
    stem = out / file_stem(rules, seed)
    own = batch is None and "png" in formats
    if own:
        from kerker.dungeon.render_svg import PNG_SCALE
        from kerker.render.png import PngBatch

        batch = PngBatch(scale=png_scale or PNG_SCALE)
    written: list[Path] = []
    try:
        maps: list[Drawing] = []
        drawn = 0
        # The PNG of each map, in the order drawings() draws them (GM, then player view).
        png_names = [
            level_stem(rules, seed, level["depth"]) + suffix + ".png"
            for level in doc["levels"]
            for suffix in map_suffixes(map_only)
        ]

        def draw_png(svg: str) -> None:
            nonlocal drawn
            assert batch is not None
            drawn += 1
            scale = batch.scale
            fitted = png_fit(svg, scale)
            name = png_names[drawn - 1] if drawn <= len(png_names) else str(drawn)
            if fitted >= scale:
                batch.add(svg)
                return
            from kerker.i18n import translator
            from kerker.render.png import MAX_PIXELS

            if not fit_png or fitted < PNG_SCALE_MIN:
                raise WriteError(
                    N_(
                        "{file} would have more than {max} pixels at scale "
                        "{scale}; a scale of at most {fit} fits"
                    ),
                    file=name,
                    max=MAX_PIXELS,
                    scale=scale,
                    fit=max(fitted, 0),
                )
            if notes is not None:
                notes.append(
                    translator(lang)(
                        N_(
                            "{file}: drawn at scale {fit} (at {scale} it would have more than "
                            "{max} pixels)"
                        )
                    ).format(file=name, fit=fitted, scale=scale, max=MAX_PIXELS)
                )
            batch.scale = fitted
            try:
                batch.add(svg)
            finally:
                batch.scale = scale

        if "svg" in formats or "png" in formats:
            maps = drawings(
                doc,
                out,
                seed,
                lang,
                draw_png if batch is not None and "png" in formats else None,
                style,
                map_only,
            )
        for fmt in sorted(formats, key=lambda f: f == "png"):
            files: list[tuple[Path, str | bytes]] = []
            if fmt == "json":
                files = [(stem.with_suffix(".json"), dumps_document(doc))]
            elif fmt == "ascii":
                files = [(stem.with_suffix(".txt"), render_ascii(doc))]
            elif fmt == "svg":
                files = [(Path(f"{d[0]}.svg"), d[3]) for d in maps]
            elif fmt == "png" and batch is not None:
                files = [
                    (Path(f"{d[0]}.png"), png) for d, png in zip(maps, batch.results(), strict=True)
                ]
            elif fmt == "md":
                from kerker.dungeon.render_key import render_md

                files = [(stem.with_suffix(".md"), render_md(doc, lang=lang))]
            elif fmt == "html":
                from kerker.dungeon.render_key import render_html

                # the page inlines the GM maps already drawn for svg/png
                gm = {depth: text for _base, depth, view, text in maps if view == "gm"}
                files = [(stem.with_suffix(".html"), render_html(doc, lang=lang, maps=gm or None))]
            elif fmt == "pdf":
                from kerker.dungeon.render_key import pdf_files

                files = pdf_files(doc, stem, lang, needed=formats != list(FORMATS), paper=paper)
            for path, data in files:
                write_file(path, data)
                written.append(path)
        tabletop = [f for f in VTT_FORMATS if f in formats]
        if tabletop:
            from kerker.export.files import VttOptions, vtt_files

            for path, data in vtt_files(doc, out, tabletop, vtt or VttOptions(), lang, warn):
                write_file(path, data)
                written.append(path)
    finally:
        if own and batch is not None:
            batch.close()
    return written
