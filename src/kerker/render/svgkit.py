"""The pieces of a map's SVG that the dungeon, zone and prowl renderers share: the palette's
common colours, the document head and paper, the title block, and the legend's rows.

Each renderer keeps its own sizes and positions (the golden files fix them) and passes
them in; what is shared is how an element is written, so every map writes its title,
subtitle, legend texts and headings alike and escapes every user text the same way
(:func:`kerker.render.kit.xml_text`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kerker.render import metrics
from kerker.render.kit import num, xml_text
from kerker.render.png import SVG_FONT_SANS, SVG_FONT_SERIF

__all__ = [
    "STAR_GREEN",
    "WHITE",
    "Palette",
    "background",
    "bold_heading",
    "legend_flow",
    "map_png",
    "sans_text",
    "svg_head",
    "title_block",
    "title_element",
]

WHITE = "#ffffff"
STAR_GREEN = "#2e7d32"
"""The entrance / start star of every map."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Palette:
    """The colours every map names: ``ink`` (text, lines), ``muted`` (subtitle, notes),
    ``sheet`` (the page behind everything) and ``star`` (the entrance or start). A renderer
    with more colours subclasses it and adds its own named fields."""

    ink: str
    muted: str
    sheet: str = WHITE
    star: str = STAR_GREEN


def svg_head(width: float, height: float) -> str:
    """The opening ``<svg>`` tag of a ``width`` x ``height`` document (viewBox the same)."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">'
    )


def title_element(title: str) -> str:
    """The document's ``<title>`` (escaped)."""
    return f"<title>{xml_text(title)}</title>"


def background(width: float, height: float, fill: str) -> str:
    """The sheet: a rectangle of ``fill`` over the whole document."""
    return f'<rect width="{width}" height="{height}" fill="{fill}"/>'


def bold_heading(
    x: float,
    y: float,
    text: str,
    size: float,
    fill: str,
    *,
    cls: str | None = None,
    fmt: Callable[[float], str] = num,
) -> str:
    """A bold serif text at ``(x, y)`` (a title, a legend's heading), escaped; ``cls``
    gives it a class, ``fmt`` writes the coordinates (the map's number format)."""
    klass = f'class="{cls}" ' if cls else ""
    return (
        f'<text {klass}x="{fmt(x)}" y="{fmt(y)}" font-family="{SVG_FONT_SERIF}" '
        f'font-size="{size}" font-weight="bold" fill="{fill}">{xml_text(text)}</text>'
    )


def sans_text(
    x: float,
    y: float,
    text: str,
    size: float,
    fill: str,
    *,
    bold: bool = False,
    fmt: Callable[[float], str] = num,
) -> str:
    """A sans-serif text at ``(x, y)`` (a subtitle, a legend's label, a note), escaped."""
    weight = ' font-weight="bold"' if bold else ""
    return (
        f'<text x="{fmt(x)}" y="{fmt(y)}" font-family="{SVG_FONT_SANS}" '
        f'font-size="{size}"{weight} fill="{fill}">{xml_text(text)}</text>'
    )


def title_block(
    title: str,
    parts: Sequence[str],
    pal: Palette,
    *,
    x: float,
    title_y: float,
    sub_y: float,
    cls: str | None = None,
) -> list[str]:
    """A map's title (bold serif, 24 px, ink) and its subtitle: ``parts`` joined by " · "
    (sans, 14 px, muted); both escaped."""
    return [
        bold_heading(x, title_y, title, 24, pal.ink, cls=cls),
        sans_text(x, sub_y, " · ".join(parts), 14, pal.muted),
    ]


def legend_flow(
    labels: Sequence[str],
    *,
    left: float,
    right: float,
    top: float,
    mark_w: float,
    gap: float,
    row_h: float,
    size: float = 14,
    whole: bool = False,
) -> tuple[list[tuple[float, float]], float]:
    """Legend entries laid out in rows: each is a mark ``mark_w`` wide, its label (text
    width at ``size``) and ``gap``; a row that would pass ``right`` starts anew at
    ``left``, ``row_h`` further down. Returns each entry's top left corner and the bottom
    of the last row (``top`` when there is none). ``whole``: advance by whole units."""
    x, y = left, top
    spots: list[tuple[float, float]] = []
    for label in labels:
        need = mark_w + metrics.text_width(label, size) + gap
        if x > left and x + need > right:
            x, y = left, y + row_h
        spots.append((x, y))
        x += int(need) if whole else need
    return spots, (y + row_h if spots else y)


_SIZE = re.compile(r'width="(\d+)" height="(\d+)"')


def map_png(svg: str, *, scale: float, fit: bool = False) -> bytes:
    """A map's SVG (as :func:`svg_head` opens it) drawn as PNG at ``scale`` by
    :func:`kerker.render.png.svg_to_png`, its size read from the head so that too large a
    picture is refused (or, ``fit``, drawn smaller) before the SVG is parsed."""
    from kerker.render.png import svg_to_png

    found = _SIZE.search(svg)
    width, height = (int(found.group(1)), int(found.group(2))) if found else (0, 0)
    return svg_to_png(svg, scale=scale, width=width, height=height, fit=fit)
