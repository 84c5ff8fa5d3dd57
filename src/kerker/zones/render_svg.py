"""A zone map as SVG, for the game master or for the players.

Every zone is a square; the zones of one area share one thick outline (thin lines divide
its zones); its letter stands big in the zone nearest its centre. Open connections are
thick lines across the gap between two outlines, from border to border; hidden ones are
dashed and only on the game master's map. The suggested start carries a star and a tint.
A legend explains the symbols (and, for the game master, names the areas); the title
carries the seed. Pure function of the map: same map, view and language -> same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from kerker.errors import N_, OptionError
from kerker.i18n import translator
from kerker.render import metrics
from kerker.render.kit import num1 as _num
from kerker.render.kit import star_points
from kerker.render.kit import xml_text as escape
from kerker.render.png import SVG_FONT_SERIF
from kerker.render.svgkit import (
    Palette,
    background,
    bold_heading,
    legend_flow,
    map_png,
    sans_text,
    svg_head,
    title_block,
    title_element,
)
from kerker.zones.model import Area, Point, ZoneMap

VIEWS = ("gm", "player")
PITCH = 84  # node to node
INSET = 13  # outline to node boundary: areas lie 2 * INSET apart
MARGIN = 28
TITLE_H = 92
MIN_WIDTH = 600


@dataclass(frozen=True, slots=True, kw_only=True)
class ZonePalette(Palette):
    """Colours of one theme: the shared ones and the zone map's own."""

    area: str
    start: str
    outline: str
    zone_line: str
    link: str
    hidden: str


PALETTES = {
    "scifi": ZonePalette(
        area="#e4ecf3",
        start="#d3ecd0",
        outline="#1d2935",
        zone_line="#9fb0c0",
        link="#1f6fb2",
        hidden="#c0392b",
        ink="#1d2935",
        muted="#5d6b78",
    ),
    "fantasy": ZonePalette(
        area="#f4ead6",
        start="#dcebc9",
        outline="#3a2a1a",
        zone_line="#b9a583",
        link="#7a4a1e",
        hidden="#b0301f",
        ink="#3a2a1a",
        muted="#6e5e4c",
    ),
}
DEFAULT_PALETTE = PALETTES["scifi"]


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    """The width of ``text`` in Source Sans Pro at ``size`` px, from the font's real
    advance widths (:mod:`kerker.render.metrics`, shared by every map)."""
    return metrics.text_width(text, size, bold=bold)


def wrap(text: str, size: float, width: float) -> list[str]:
    """``text`` broken at spaces into lines no wider than ``width`` (by :func:`text_width`)."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if line and text_width(candidate, size) > width:
            lines.append(line)
            line = word
        else:
            line = candidate
    return [*lines, line] if line else lines


def _bx(index: int) -> int:
    """Pixel offset of fine-grid boundary ``index`` (even: a node boundary strip starts)."""
    return (index // 2) * PITCH + (INSET if index % 2 else -INSET)


class _Layout:
    def __init__(self, zmap: ZoneMap, ox: int, oy: int) -> None:
        self.zmap = zmap
        self.ox = ox
        self.oy = oy

    def x(self, index: int) -> int:
        return self.ox + _bx(index)

    def y(self, index: int) -> int:
        return self.oy + _bx(index)

    def filled(self, letter: str, fx: int, fy: int) -> bool:
        """Whether fine cell (fx, fy) belongs to the area's shape."""
        at = self.zmap.area_at
        xs = [(fx - 1) // 2] if fx % 2 else [fx // 2 - 1, fx // 2]
        ys = [(fy - 1) // 2] if fy % 2 else [fy // 2 - 1, fy // 2]
        return all(at((x, y)) == letter for x in xs for y in ys)

    def outline(self, area: Area) -> str:
        """The area's outline as SVG path data (holes included; use evenodd)."""
        cells: set[tuple[int, int]] = set()
        for x, y in area.zones:
            for fx in (2 * x, 2 * x + 1, 2 * x + 2):
                for fy in (2 * y, 2 * y + 1, 2 * y + 2):
                    if self.filled(area.letter, fx, fy):
                        cells.add((fx, fy))
        step: dict[tuple[int, int], tuple[int, int]] = {}
        for fx, fy in cells:
            # Clockwise on screen: top, right, bottom, left.
            if (fx, fy - 1) not in cells:
                step[(fx, fy)] = (fx + 1, fy)
            if (fx + 1, fy) not in cells:
                step[(fx + 1, fy)] = (fx + 1, fy + 1)
            if (fx, fy + 1) not in cells:
                step[(fx + 1, fy + 1)] = (fx, fy + 1)
            if (fx - 1, fy) not in cells:
                step[(fx, fy + 1)] = (fx, fy)
        parts = []
        todo = dict(step)
        while todo:
            first = min(todo, key=lambda p: (p[1], p[0]))
            ring = [first]
            here = todo.pop(first)
            while here != first:
                ring.append(here)
                here = todo.pop(here)
            corners = [
                p
                for i, p in enumerate(ring)
                if not _collinear(ring[i - 1], p, ring[(i + 1) % len(ring)])
            ]
            points = " L ".join(f"{self.x(px)} {self.y(py)}" for px, py in corners)
            parts.append(f"M {points} Z")
        return " ".join(parts)

    def inner_lines(self, area: Area) -> list[tuple[int, int, int, int]]:
        """Thin lines between the zones of one area, through the corners they share."""
        lines = []
        members = set(area.zones)
        for x, y in area.zones:
            if (x + 1, y) in members:
                fx = 2 * x + 2
                top = (
                    self.y(2 * y + 1)
                    if not self.filled(area.letter, fx, 2 * y)
                    else self.oy + y * PITCH
                )
                bottom = (
                    self.y(2 * y + 2)
                    if not self.filled(area.letter, fx, 2 * y + 2)
                    else self.oy + (y + 1) * PITCH
                )
                at = self.ox + (x + 1) * PITCH
                lines.append((at, top, at, bottom))
            if (x, y + 1) in members:
                fy = 2 * y + 2
                left = (
                    self.x(2 * x + 1)
                    if not self.filled(area.letter, 2 * x, fy)
                    else self.ox + x * PITCH
                )
                right = (
                    self.x(2 * x + 2)
                    if not self.filled(area.letter, 2 * x + 2, fy)
                    else self.ox + (x + 1) * PITCH
                )
                at = self.oy + (y + 1) * PITCH
                lines.append((left, at, right, at))
        return lines

    def centre(self, point: Point) -> tuple[int, int]:
        x, y = point
        return self.ox + x * PITCH + PITCH // 2, self.oy + y * PITCH + PITCH // 2

    def link(self, one: Point, two: Point) -> tuple[int, int, int, int]:
        """A connection line across the gap, from one outline to the other."""
        (ax, ay), (bx, by) = sorted((one, two), key=lambda p: (p[1], p[0]))
        cx, cy = self.centre((ax, ay))
        if ay == by:  # side by side
            at = self.ox + bx * PITCH
            return at - INSET, cy, at + INSET, cy
        at = self.oy + by * PITCH
        return cx, at - INSET, cx, at + INSET


def _rim(lay: _Layout, zone: Point, empty: Point) -> tuple[int, int]:
    """Where a hidden way leaves ``zone`` towards the empty node beside it: the end of the
    gap line on the zone's outline."""
    x1, y1, x2, y2 = lay.link(zone, empty)
    zx, zy = lay.centre(zone)
    return min(((x1, y1), (x2, y2)), key=lambda p: (p[0] - zx) ** 2 + (p[1] - zy) ** 2)


def _collinear(a: tuple[int, int], b: tuple[int, int], c: tuple[int, int]) -> bool:
    return (a[0] == b[0] == c[0]) or (a[1] == b[1] == c[1])


def _star(cx: float, cy: float, r: float) -> str:
    return star_points(cx, cy, r, r * 0.45, _num)


def render_svg(zmap: ZoneMap, *, view: str = "gm", lang: str = "en") -> str:
    """The map as an SVG document: ``view`` is ``gm`` (hidden connections dashed, area
    names in the legend) or ``player`` (no hidden connections, no names).

    Refuses any other view with :class:`OptionError`.
    """
    if view not in VIEWS:
        raise OptionError(
            N_("unknown view {view!r}; choose one of {choices}"),
            view=view,
            choices=", ".join(VIEWS),
        )
    from kerker.zones.render_text import theme_label

    _ = translator(lang)
    gm = view == "gm"
    pal = PALETTES.get(zmap.theme, DEFAULT_PALETTE)
    map_w = zmap.width * PITCH - 2 * INSET
    map_h = zmap.height * PITCH - 2 * INSET
    width = max(map_w + 2 * MARGIN, MIN_WIDTH)
    # Node (0, 0) starts at (ox, oy); the first outline lies INSET further in.
    ox = (width - map_w) // 2 - INSET
    oy = TITLE_H - INSET
    lay = _Layout(zmap, ox, oy)
    body: list[str] = []

    # Title and subtitle.
    title = _("Zone map")
    if zmap.seed is not None:
        title = _("Zone map – seed {seed}").format(seed=zmap.seed)
    sub = [
        _("{w} × {h} nodes").format(w=zmap.width, h=zmap.height),
        _("zones: {n}").format(n=len(zmap.zones)),
        _("areas: {n}").format(n=len(zmap.areas)),
        theme_label(zmap.theme, lang),
        _("game master's map") if gm else _("players' map"),
    ]
    body += title_block(title, sub, pal, x=MARGIN, title_y=34, sub_y=56)

    # Empty nodes: a small cross.
    marks = []
    for y in range(zmap.height):
        for x in range(zmap.width):
            if zmap.grid[y][x] is None:
                cx, cy = lay.centre((x, y))
                marks.append(f"M {cx - 5} {cy} H {cx + 5} M {cx} {cy - 5} V {cy + 5}")
    if marks:
        body.append(
            f'<path d="{" ".join(marks)}" stroke="{pal.zone_line}" stroke-width="1.5" fill="none"/>'
        )

    # Areas: fill and outline in one path, then the thin lines between their zones.
    for area in zmap.areas:
        fill = pal.start if area.letter == zmap.start else pal.area
        body.append(
            f'<path class="area" d="{lay.outline(area)}" fill="{fill}" '
            'fill-rule="evenodd" '
            f'stroke="{pal.outline}" stroke-width="3.5" stroke-linejoin="miter"/>'
        )
    inner = [
        f"M {x1} {y1} L {x2} {y2}"
        for area in zmap.areas
        for x1, y1, x2, y2 in lay.inner_lines(area)
    ]
    if inner:
        body.append(
            f'<path d="{" ".join(inner)}" stroke="{pal.zone_line}" stroke-width="1.2" fill="none"/>'
        )

    # Connections.
    for link in zmap.connections:
        if link.hidden and not gm:
            continue
        if link.via:  # a hidden way across empty nodes: through their centres
            points = [
                _rim(lay, link.edge[0], link.via[0]),
                *(lay.centre(p) for p in link.via),
                _rim(lay, link.edge[1], link.via[-1]),
            ]
            text = " ".join(f"{x},{y}" for x, y in points)
            body.append(
                f'<polyline class="hidden-connection" points="{text}" fill="none" '
                f'stroke="{pal.hidden}" stroke-width="3" stroke-dasharray="4 3"/>'
            )
            continue
        x1, y1, x2, y2 = lay.link(*link.edge)
        if link.hidden:
            body.append(
                f'<line class="hidden-connection" x1="{x1}" y1="{y1}" x2="{x2}" '
                f'y2="{y2}" stroke="{pal.hidden}" '
                'stroke-width="3" stroke-dasharray="4 3"/>'
            )
        else:
            body.append(
                f'<line class="connection" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" '
                f'stroke="{pal.link}" '
                'stroke-width="7"/>'
            )

    # Letters; the start's letter moves up to make room for the star beneath it.
    for area in zmap.areas:
        cx, cy = lay.centre(area.label)
        size = 32 if len(area.letter) == 1 else 24
        start = area.letter == zmap.start
        base = cy + size * 0.35 - (9 if start else 0)
        body.append(
            f'<text class="letter" x="{cx}" y="{_num(base)}" '
            f'font-family="{SVG_FONT_SERIF}" '
            f'font-size="{size}" font-weight="bold" text-anchor="middle" '
            f'fill="{pal.ink}">{escape(area.letter)}</text>'
        )
        if start:
            body.append(
                f'<polygon class="start" points="{_star(cx, cy + 16, 7.5)}" '
                f'fill="{pal.star}" '
                f'stroke="{pal.outline}" stroke-width="1"/>'
            )

    # Legend.
    top = TITLE_H + map_h + 30
    legend, height = _legend(zmap, lang, gm, pal, width, top)
    body += ['<g class="legend">', *legend, "</g>"]
    total_h = top + height + MARGIN
    return (
        "\n".join(
            [
                svg_head(width, total_h),
                title_element(title),
                background(width, total_h, pal.sheet),
                *body,
                "</svg>",
            ]
        )
        + "\n"
    )


def _legend(
    zmap: ZoneMap, lang: str, gm: bool, pal: ZonePalette, width: int, top: int
) -> tuple[list[str], int]:
    """The legend's elements and its height."""
    _ = translator(lang)
    out: list[str] = []
    items: list[tuple[str, str]] = [("area", _("area (thick outline) with its zones"))]
    if any(not link.hidden for link in zmap.connections):
        items.append(("link", _("connection")))
    if gm and any(link.hidden for link in zmap.connections):
        items.append(("hidden", _("hidden connection")))
    if zmap.start is not None:
        items.append(("start", _("suggested start") if gm else _("start")))
    if any(None in row for row in zmap.grid):
        items.append(("empty", _("empty node")))
    spots, bottom = legend_flow(
        [label for _kind, label in items],
        left=MARGIN,
        right=width - MARGIN,
        top=top,
        mark_w=34,
        gap=24,
        row_h=26,
        whole=True,
    )
    for (kind, label), (x, y) in zip(items, spots, strict=True):
        cy = y + 9
        if kind == "area":
            out.append(
                f'<rect x="{x}" y="{cy - 9}" width="26" height="18" fill="{pal.area}" '
                f'stroke="{pal.outline}" stroke-width="2.5"/>'
            )
            out.append(
                f'<line x1="{x + 13}" y1="{cy - 9}" x2="{x + 13}" y2="{cy + 9}" '
                f'stroke="{pal.zone_line}" stroke-width="1.2"/>'
            )
        elif kind == "link":
            out.append(
                f'<line x1="{x}" y1="{cy}" x2="{x + 26}" y2="{cy}" stroke="{pal.link}" '
                'stroke-width="7"/>'
            )
        elif kind == "hidden":
            out.append(
                f'<line x1="{x}" y1="{cy}" x2="{x + 26}" y2="{cy}" stroke="{pal.hidden}" '
                'stroke-width="3" stroke-dasharray="4 3"/>'
            )
        elif kind == "start":
            out.append(
                f'<polygon points="{_star(x + 13, cy, 9)}" fill="{pal.star}" '
                f'stroke="{pal.outline}" stroke-width="1"/>'
            )
        else:
            out.append(
                f'<path d="M {x + 8} {cy} H {x + 18} M {x + 13} {cy - 5} V {cy + 5}" '
                f'stroke="{pal.zone_line}" stroke-width="1.5" fill="none"/>'
            )
        out.append(sans_text(x + 34, cy + 5, label, 14, pal.ink, fmt=_num))
    y = int(bottom)
    if not gm:
        return out, y - top

    # The game master's notes: start, areas behind hidden connections, isolated areas.
    from kerker.zones.render_text import notes

    for note in notes(zmap, lang):
        for line in wrap(note, 14, width - 2 * MARGIN):
            out.append(sans_text(MARGIN, y + 12, line, 14, pal.muted, fmt=_num))
            y += 19
    if not any(a.details for a in zmap.areas):
        return out, y - top

    # The game master's list of area names, in columns (down, then across).
    y += 10
    out.append(bold_heading(MARGIN, y + 12, _("Areas"), 16, pal.ink, fmt=_num))
    y += 26
    entries = [(a.letter, a.details.name.text(lang) if a.details else "") for a in zmap.areas]
    letter_w = max(text_width(letter, 14) for letter, _name in entries) + 8
    col_w = max(letter_w + text_width(name, 14) for _letter, name in entries) + 24
    cols = max(1, min(len(entries), int((width - 2 * MARGIN) // col_w)))
    per_col = -(-len(entries) // cols)
    col_w = max(col_w, (width - 2 * MARGIN) / cols) if cols > 1 else col_w
    line_h = 20
    for i, (letter, name) in enumerate(entries):
        col, row = divmod(i, per_col)
        tx = MARGIN + col * col_w
        ty = y + row * line_h + 12
        out.append(sans_text(tx, ty, letter, 14, pal.ink, bold=True, fmt=_num))
        out.append(sans_text(tx + letter_w, ty, name, 14, pal.ink, fmt=_num))
    y += per_col * line_h
    return out, y - top


PNG_SCALE = 2.0
"""PNG pixels per SVG unit: sharp on screen and in print."""


def render_png(
    zmap: ZoneMap, *, view: str = "gm", lang: str = "en", scale: float = PNG_SCALE
) -> bytes:
    """The SVG of :func:`render_svg` drawn as PNG by libvips with kerker's own fonts.

    Same map, view, language and scale -> the same bytes. Refuses pictures over
    :data:`kerker.render.png.MAX_PIXELS` with a :class:`~kerker.render.png.RenderError`.
    """
    return map_png(render_svg(zmap, view=view, lang=lang), scale=scale)
