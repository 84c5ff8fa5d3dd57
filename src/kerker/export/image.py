"""The picture of a level for a virtual tabletop: exactly ``squares x pixels_per_grid``
pixels, PNG or WebP, with the size caps the tabletops need."""

from __future__ import annotations

from math import isqrt

from kerker.errors import N_, OptionError
from kerker.export.walls import LevelWalls
from kerker.i18n import Translate

PPG_DEFAULT = 100
PPG_CHOICES = (50, 70, 100)
"""The pixels per grid square the CLI offers (100 is what most battle maps use)."""
PPG_MIN, PPG_MAX = 8, 200
"""Pixels per grid square the library accepts (tests draw small)."""
MAX_SIDE = 16_384
"""No side of the picture longer (browsers' and WebGL's texture limit)."""
MAX_MEGAPIXELS = 144
"""Under this many pixels (Foundry's and the importers' canvas limit)."""
IMAGE_FORMATS = ("png", "webp")


def pixel_limit() -> int:
    """The most pixels a picture may have: under :data:`MAX_MEGAPIXELS` and within what
    kerker's renderer draws (:data:`kerker.render.png.MAX_PIXELS`)."""
    from kerker.render.png import MAX_PIXELS

    return min(MAX_MEGAPIXELS * 1_000_000 - 1, MAX_PIXELS)


def fit_ppg(size: tuple[int, int], ppg: int) -> int:
    """The pixels per square to draw ``size`` (squares) at: ``ppg``, or less so that no
    side exceeds :data:`MAX_SIDE` and the picture stays within :func:`pixel_limit`.
    Refuses ``ppg`` outside :data:`PPG_MIN` .. :data:`PPG_MAX` and a map that would need
    fewer than :data:`PPG_MIN` pixels per square, with :class:`OptionError`."""
    if not PPG_MIN <= ppg <= PPG_MAX:
        raise OptionError(
            N_("pixels per grid square must be {low} to {high}, not {value}"),
            low=PPG_MIN,
            high=PPG_MAX,
            value=ppg,
        )
    w, h = size
    fit = min(ppg, MAX_SIDE // max(w, h, 1), isqrt(pixel_limit() // max(w * h, 1)))
    if fit < PPG_MIN:
        raise OptionError(
            N_("a map of {w} × {h} squares is too large for a tabletop picture"), w=w, h=h
        )
    return fit


def scale_warning(level: LevelWalls, asked: int, used: int, _: Translate) -> str:
    """The warning to print when :func:`fit_ppg` drew a level smaller than asked."""
    w, h = level.size
    return _(
        "level {depth}: {w} × {h} squares at {asked} px per square would exceed "
        "{side} px a side or {mp} megapixels; drawn at {used} px per square"
    ).format(
        depth=level.depth,
        w=w,
        h=h,
        asked=asked,
        side=MAX_SIDE,
        mp=pixel_limit() // 1_000_000,
        used=used,
    )


def picture(level: LevelWalls, ppg: int, *, fmt: str = "png") -> bytes:
    """The level's map as ``fmt`` (png or webp, lossless), ``size x ppg`` pixels exactly:
    the map of the view the walls were made for, without area numbers for the players,
    with them for the game master. ``ppg`` should come from :func:`fit_ppg`. Refuses an
    unknown format with :class:`OptionError` and what the renderer refuses."""
    from kerker.render.png import png_to_webp, svg_to_png

    if fmt not in IMAGE_FORMATS:
        raise OptionError(
            N_("unknown picture format {value!r}; choose one of {choices}"),
            value=fmt,
            choices=", ".join(IMAGE_FORMATS),
        )
    w, h = level.size[0] * ppg, level.size[1] * ppg
    svg = level.map.svg(level.view, w, h, numbers=level.view == "gm")
    data = svg_to_png(svg, scale=1.0, width=w, height=h)
    return png_to_webp(data) if fmt == "webp" else data


__all__ = [
    "IMAGE_FORMATS",
    "MAX_MEGAPIXELS",
    "MAX_SIDE",
    "PPG_CHOICES",
    "PPG_DEFAULT",
    "fit_ppg",
    "picture",
    "pixel_limit",
    "scale_warning",
]
