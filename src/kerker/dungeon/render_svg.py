"""One dungeon level as an SVG (and PNG) map, for the game master or for the players.

A pure function of the dungeon document (``docs/dungeon-json.md``): the same document, level,
view and language give the same bytes. The map reads like a classic hand-drawn dungeon map:

- walls follow the real shape, not the cell staircase (:mod:`kerker.dungeon.outline`): the
  outline of all floors is traced and smoothed, so a 45° corridor is a straight diagonal band
  and round and slanted rooms and caves follow their shape; a wall a connection sits on, and
  the end of a wall between two areas, never moves (the same in both views). Thick ink
  along that outline and along every edge between two areas (corridors are areas too);
  doors, archways, openings and stairs cut their wall where a floor lies behind it, secret
  doors keep it (an "S" on it, game master only);
- rock is paper with a band of hatching around the floors (the smoothed outline of the rock
  cells that touch a floor, diagonally too), one pattern fill without clip paths, which
  resvg renders fast;
- floors are white with a blue 10-ft grid (one line every two 5-ft cells), both inside the
  smoothed outline (the grid is cut to it, no clip path); water is a rounded blob;
- symbols for doors, one-way doors (with the arrow the door opens in), archways, stairs
  (steps outside the wall, with direction and target level, e.g. "↓ 2"), trapdoors, shafts,
  unexplored exits ("?" arrow out), water (blue with ripples), rivers and streams (a blue band
  with flow lines along ``dir``), chasms (a dark band), bridges, boats, wells, columns,
  galleries, rubble; area numbers at ``label_at``; traps (game master only);
- a legend of the symbols the map uses, a scale bar (10 ft / 3 m) and a title with rule set,
  seed and level in the requested language.

Assumptions: the connection ``span`` runs from ``at`` along the wall for ``width`` cells towards
east or south (``_span``); a stair to another level is drawn in the rock beyond its wall.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import chain
from operator import itemgetter
from typing import Any, cast

from kerker.dungeon import organic
from kerker.dungeon.area_count import area_count_text
from kerker.dungeon.outline import Outline, Point, everywhere, scans
from kerker.dungeon.player import player_areas, player_level
from kerker.errors import N_, OptionError
from kerker.geometry.grid import VECTORS
from kerker.i18n import Translate, translator
from kerker.render import metrics
from kerker.render.kit import num as _num
from kerker.render.kit import star_points, xml_text
from kerker.render.png import SVG_FONT_SANS, SVG_FONT_SERIF
from kerker.render.svgkit import (
    Palette,
    background,
    legend_flow,
    map_png,
    sans_text,
    svg_head,
    title_block,
    title_element,
)

VIEWS = ("gm", "player")
CELL = 14  # px per 5-ft cell; a 10-ft square is 28 px
HALF = CELL // 2  # px per half cell (the unit of smoothed outlines)
MARGIN = 28
PAD = 3  # cells of rock drawn around the used part of the level
TITLE_H = 78
MIN_WIDTH = 680


@dataclass(frozen=True, slots=True, kw_only=True)
class DungeonPalette(Palette):
    """The dungeon map's colours: the shared ones and the paper, floor, grid, rock hatch,
    water, chasm, wood, the red of traps and secrets, the exit and the stairs down."""

    paper: str
    floor: str
    grid: str
    hatch: str
    hatch_bg: str
    water: str
    water_deep: str
    water_line: str
    river: str
    chasm: str
    chasm_line: str
    wood: str
    wood_line: str
    red: str
    exit: str
    stairs_down: str


PAL = DungeonPalette(
    paper="#f6f1e7",
    floor="#ffffff",
    grid="#a9c1dc",
    ink="#1d1b18",
    muted="#6b6459",
    hatch="#4a443c",
    hatch_bg="#e6dfd1",
    water="#9cc6ea",
    water_deep="#79aede",
    water_line="#3d77b3",
    river="#7fb2e0",
    chasm="#2b2622",
    chasm_line="#6d655b",
    wood="#d9b27a",
    wood_line="#6b4a22",
    red="#b0301f",
    exit="#b5651d",
    stairs_down="#d9d1c3",
)

Cell = tuple[int, int]
FPoint = tuple[float, float]  # half cells; a redrawn cave wall leaves the lattice
Doc = Mapping[str, Any]

_DIRS: dict[str, Cell] = VECTORS  # a side -> its unit step on the grid
# Rotation (degrees) that turns the local frame (x along the wall, +y out of the area)
# onto the map for a connection on this side.
_ANGLE = {"s": 0, "sw": 45, "w": 90, "nw": 135, "n": 180, "ne": 225, "e": 270, "se": 315}
_OPEN_WALL = {"door", "one_way_door", "archway", "opening", "stairs"}
_LEVEL_WAYS = ("stairs", "trapdoor", "shaft", "elevator")
_INSIDE_WAYS = ("trapdoor", "shaft", "elevator")  # in the floor: no wall of theirs
_WATER = ("water", "pool", "lake")
ROUNDED_SHAPES = frozenset(
    {"circle", "oval", "octagon", "hexagon", "triangle", "trapezoid", "cave"}
)
"""Area shapes whose outline follows the shape (every short step cut), not only 45° runs."""


def _escape(text: str) -> str:
    """``text`` for an XML text node (:func:`kerker.render.kit.xml_text`: control
    characters visible, markup escaped)."""
    return xml_text(text)


@lru_cache(maxsize=16)  # a language's catalog read from its file once, not for every map
def _translator(lang: str) -> Translate:
    return translator(lang)


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    """The width of ``text`` in Source Sans Pro at ``size`` px, from the font's real
    advance widths (:mod:`kerker.render.metrics`, shared by every map)."""
    return metrics.text_width(text, size, bold=bold)


# --------------------------------------------------------------------------------------
# Cells, edges and runs


def _cells(raw: Sequence[Sequence[int]]) -> set[Cell]:
    # Cells as the document has them (pairs of ints) by C-level maps, no conversion per
    # coordinate; anything else (floats, bools, longer lists) converted as before.
    cells = set(map(tuple, raw))
    if set(map(len, cells)) <= {2} and set(map(type, chain.from_iterable(cells))) <= {int}:
        return cast(set[Cell], cells)
    return {(int(c[0]), int(c[1])) for c in raw}


def _edges(cells: set[Cell]) -> tuple[set[Cell], set[Cell]]:
    """Boundary edges of a cell set: horizontal ``(x, y)`` is the segment (x, y)-(x+1, y),
    vertical ``(x, y)`` is (x, y)-(x, y+1) (vertex coordinates)."""
    hor: set[Cell] = set()
    ver: set[Cell] = set()
    for x, y in cells:
        if (x, y - 1) not in cells:
            hor.add((x, y))
        if (x, y + 1) not in cells:
            hor.add((x, y + 1))
        if (x - 1, y) not in cells:
            ver.add((x, y))
        if (x + 1, y) not in cells:
            ver.add((x + 1, y))
    return hor, ver


def _runs(hor: set[Cell], ver: set[Cell]) -> str:
    """Edges merged into straight runs, as SVG path data in pixels."""
    parts: list[str] = []
    for (y, x0), length in _merge(sorted((y, x) for x, y in hor)):
        parts.append(f"M{x0 * CELL} {y * CELL}h{length * CELL}")
    for (x, y0), length in _merge(sorted(ver)):
        parts.append(f"M{x * CELL} {y0 * CELL}v{length * CELL}")
    return "".join(parts)


def _merge(keys: list[Cell]) -> list[tuple[Cell, int]]:
    """Sorted (line, position) pairs merged into (start, length) runs."""
    out: list[tuple[Cell, int]] = []
    start: Cell | None = None
    length = 0
    for line, pos in keys:
        if start is not None and line == start[0] and pos == start[1] + length:
            length += 1
            continue
        if start is not None:
            out.append((start, length))
        start, length = (line, pos), 1
    if start is not None:
        out.append((start, length))
    return out


def _poly_d(polys: Iterable[Sequence[FPoint]]) -> str:
    """Closed polygons (half cells) as SVG path data in pixels."""
    parts: list[str] = []
    for poly in polys:
        parts.append(_line_d(poly) + "Z")
    return "".join(parts)


def _line_d(points: Sequence[FPoint]) -> str:
    """A polyline (half cells) as path data in pixels: H and V where it runs straight."""
    (px, py) = points[0]
    parts = [f"M{_px(px)} {_px(py)}"]
    for x, y in points[1:]:
        if y == py:
            parts.append(f"H{_px(x)}")
        elif x == px:
            parts.append(f"V{_px(y)}")
        else:
            parts.append(f"L{_px(x)} {_px(y)}")
        px, py = x, y
    return "".join(parts)


def _grid(floor: Sequence[Sequence[FPoint]]) -> str:
    """The 10-ft grid lines (every second cell edge) inside the floor polygons."""
    parts: list[str] = []
    rows, columns = scans(floor, 4)
    for y, spans in rows.items():
        parts.extend(f"M{_px(a)} {y * HALF}H{_px(b)}" for a, b in spans)
    for x, spans in columns.items():
        parts.extend(f"M{x * HALF} {_px(a)}V{_px(b)}" for a, b in spans)
    return "".join(parts)


@lru_cache(maxsize=4096)  # the grid's ends recur (a cache hit is a C call)
def _px(half: float) -> str:
    """Half cells as pixels, formatted like :func:`_num` (whole numbers fast)."""
    value = half * HALF
    whole = int(value)
    return str(whole) if whole == value else _num(value)


def _pins(
    traced: Outline,
    owner: Mapping[Cell, str],
    inner: tuple[set[Cell], set[Cell]],
    cuts: Iterable[tuple[set[Cell], set[Cell]]],
) -> tuple[set[Cell], tuple[set[Cell], set[Cell]]]:
    """The lattice points the floors' outline keeps (see :func:`_floor`) and the edges the
    connections ``cuts`` open (horizontal, vertical)."""
    # Where cells of two areas touch at a corner, the point stays (they do not connect).
    pinned = {
        (x, y)
        for x, y in traced.pinches
        if owner.get((x - 1, y - 1), owner.get((x, y - 1)))
        != owner.get((x, y), owner.get((x - 1, y)))
    }
    cut_h: set[Cell] = set()
    cut_v: set[Cell] = set()
    for h, v in cuts:
        cut_h |= h
        cut_v |= v
    hor, ver = inner
    for edges_h, edges_v in ((hor, ver), (cut_h, cut_v)):
        pinned |= edges_h
        pinned.update([(x + 1, y) for x, y in edges_h])
        pinned |= edges_v
        pinned.update([(x, y + 1) for x, y in edges_v])
    return pinned, (cut_h, cut_v)


def _floor(traced: Outline, pinned: set[Cell], rounded: set[Cell]) -> list[list[Point]]:
    """The outline of all floors (``traced``: of the cells of ``owner``), smoothed (45°
    staircases become diagonals, round and slanted areas follow their shape), as polygons in
    half cells. Never moved (``pinned``, :func:`_pins`): the walls a connection sits on (in
    every view, so the player's map shows no trace of a secret door) and the ends of walls
    between two areas."""
    return traced.smooth(pinned, rounded.__contains__)


def _ring(floor: Outline) -> str:
    """Path data of the rock band's outer edge: the smoothed outline of the floor and the
    rock cells that touch it (diagonally too)."""
    return _poly_d(floor.grown().smooth((), everywhere, short=2))


def _blob_d(cells: set[Cell]) -> str:
    """A cell set (water) as a rounded blob: its outline with every corner drawn as a curve
    from the middle of one side to the middle of the next (a lone cell becomes a round)."""
    parts: list[str] = []
    for loop in Outline(cells).corners():
        points = [(2 * x, 2 * y) for x, y in loop]
        n = len(points)
        mids = [
            (
                (points[i][0] + points[(i + 1) % n][0]) * HALF / 2,
                (points[i][1] + points[(i + 1) % n][1]) * HALF / 2,
            )
            for i in range(n)
        ]
        parts.append(f"M{_num(mids[-1][0])} {_num(mids[-1][1])}")
        for i in range(n):
            cx, cy = points[i]
            mx, my = mids[i]
            parts.append(f"Q{cx * HALF} {cy * HALF} {_num(mx)} {_num(my)}")
        parts.append("Z")
    return "".join(parts)


def _inner_edges(owner: Mapping[Cell, str]) -> tuple[set[Cell], set[Cell]]:
    """The edges between cells of two different areas (horizontal, vertical)."""
    hor: set[Cell] = set()
    ver: set[Cell] = set()
    for (x, y), area in owner.items():
        above = owner.get((x, y - 1))
        if above is not None and above != area:
            hor.add((x, y))
        left = owner.get((x - 1, y))
        if left is not None and left != area:
            ver.add((x, y))
    return hor, ver


def _walls_d(
    polys: Sequence[Sequence[FPoint]],
    hor: set[Cell],
    ver: set[Cell],
    closed: Sequence[str] | None = None,
) -> str:
    """The floor polygons as wall path data, without the unit edges in ``hor``/``ver``
    (walls a connection opens; their ends are pinned, so they are edges of the polygons);
    ``closed``: each polygon's :func:`_poly_d` when the caller has it already."""
    # The unit edges as polygon sides (half cells), both ways round.
    gaps = {((2 * x, 2 * y), (2 * x + 2, 2 * y)) for x, y in hor}
    gaps |= {((2 * x, 2 * y), (2 * x, 2 * y + 2)) for x, y in ver}
    gaps |= {(b, a) for a, b in gaps}
    parts: list[str] = []
    for k, poly in enumerate(polys):
        n = len(poly)
        cut = list(map(gaps.__contains__, zip(poly, [*poly[1:], poly[0]], strict=True)))
        if not any(cut):
            parts.append(_line_d(poly) + "Z" if closed is None else closed[k])
            continue
        start = cut.index(True) + 1
        run: list[FPoint] = []
        for k in range(n):
            i = (start + k) % n
            if cut[i]:
                if run:
                    parts.append(_line_d(run))
                run = []
                continue
            if not run:
                run = [poly[i]]
            run.append(poly[(i + 1) % n])
        if run:
            parts.append(_line_d(run))
    return "".join(parts)


def _wall_lines(
    polys: Sequence[Sequence[FPoint]], hor: set[Cell], ver: set[Cell]
) -> list[list[FPoint]]:
    """:func:`_walls_d` as point lists: each polygon without the unit edges in
    ``hor``/``ver``, split into the polylines that remain (an uncut polygon closed, its first
    point repeated at its end)."""
    gaps = {((2 * x, 2 * y), (2 * x + 2, 2 * y)) for x, y in hor}
    gaps |= {((2 * x, 2 * y), (2 * x, 2 * y + 2)) for x, y in ver}
    gaps |= {(b, a) for a, b in gaps}
    out: list[list[FPoint]] = []
    for poly in polys:
        n = len(poly)
        cut = list(map(gaps.__contains__, zip(poly, [*poly[1:], poly[0]], strict=True)))
        if not any(cut):
            out.append([*poly, poly[0]])
            continue
        start = cut.index(True) + 1
        run: list[FPoint] = []
        for k in range(n):
            i = (start + k) % n
            if cut[i]:
                if run:
                    out.append(run)
                run = []
                continue
            if not run:
                run = [poly[i]]
            run.append(poly[(i + 1) % n])
        if run:
            out.append(run)
    return out


def _at_outline(cells: Iterable[Cell], floor: Collection[Cell]) -> bool:
    """Whether a cell lies next to (or diagonally next to) a cell that is not floor."""
    for x, y in cells:
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if (x + dx, y + dy) not in floor:
                    return True
    return False


def _fill(cells: Iterable[Cell]) -> str:
    """A cell set as path data of row runs (one rectangle per run)."""
    rows = _merge(sorted((y, x) for x, y in cells))
    return "".join(f"M{x * CELL} {y * CELL}h{n * CELL}v{CELL}h-{n * CELL}z" for (y, x), n in rows)


def _span(conn: Mapping[str, Any]) -> list[Cell]:
    """The cells of ``from`` a connection sits in: ``at`` and its neighbours along the wall."""
    ax, ay = map(int, conn.get("at") or (0, 0))
    width = max(1, int(conn.get("width") or 1))
    if width == 1:
        return [(ax, ay)]
    sx, sy = _ALONG.get(str(conn.get("side") or "n"), (1, 0))
    return [(ax + i * sx, ay + i * sy) for i in range(width)]


def _along(dx: int, dy: int) -> Cell:
    """The step from cell to cell along a wall on side ``(dx, dy)``."""
    if dx and dy:  # a 45° wall: the staircase of cells runs along the wall's diagonal
        return (1, 1) if dx == dy * -1 else (1, -1)
    return (0, 1) if dx else (1, 0)


_ALONG = {side: _along(dx, dy) for side, (dx, dy) in _DIRS.items()}


def _pierced(conn: Mapping[str, Any]) -> tuple[set[Cell], set[Cell]]:
    """The wall edges a connection cuts (horizontal, vertical)."""
    dx, dy = _DIRS.get(str(conn.get("side") or "n"), (0, -1))
    span = _span(conn)
    # A wall above or left of a cell is the cell's own edge, one below or right the next's.
    hor = set(span if dy < 0 else [(x, y + 1) for x, y in span] if dy > 0 else ())
    ver = set(span if dx < 0 else [(x + 1, y) for x, y in span] if dx > 0 else ())
    return hor, ver


def _frame(conn: Mapping[str, Any]) -> tuple[float, float, int, float]:
    """Centre (px), rotation and length (px) of the wall piece a connection sits on."""
    side = str(conn.get("side") or "n")
    dx, dy = _DIRS.get(side, (0, -1))
    span = _span(conn)
    # The middles of the first and the last cell's wall (px).
    (ax, ay), (bx, by) = span[0], span[-1]
    x1, y1 = (ax + 0.5 + dx * 0.5) * CELL, (ay + 0.5 + dy * 0.5) * CELL
    x2, y2 = (bx + 0.5 + dx * 0.5) * CELL, (by + 0.5 + dy * 0.5) * CELL
    length = len(span) * CELL * (1.4142 if dx and dy else 1.0)
    return (x1 + x2) / 2, (y1 + y2) / 2, _ANGLE.get(side, 0), length


# --------------------------------------------------------------------------------------
# Symbols (shared by the map and the legend). Local frame: x along the wall, +y outwards.


def _g(cx: float, cy: float, angle: int, inner: str, cls: str = "") -> str:
    rot = f" rotate({angle})" if angle else ""
    klass = f' class="{cls}"' if cls else ""
    return f'<g{klass} transform="translate({_num(cx)} {_num(cy)}){rot}">{inner}</g>'


def _door(length: float, y: float = 0.0) -> str:
    """A door leaf across a wall piece of ``length`` (centred ``y`` out of the wall)."""
    w = max(8.0, min(length * 0.62, length - 5))
    return (
        f'<rect x="{_num(-w / 2)}" y="{_num(y - 3.5)}" width="{_num(w)}" height="7" '
        f'fill="{PAL.floor}" stroke="{PAL.ink}" stroke-width="1.6"/>'
    )


def _platform(cells: set[Cell]) -> str:
    """An elevator room's floor: a dashed frame a little inside the room's bounds."""
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    x0, y0 = min(xs) * CELL + 5, min(ys) * CELL + 5
    return _platform_box(x0, y0, (max(xs) + 1) * CELL - 5 - x0, (max(ys) + 1) * CELL - 5 - y0)


def _platform_box(x0: float, y0: float, w: float, h: float) -> str:
    """A dashed frame with dotted diagonals: a floor that moves (elevator)."""
    x1, y1 = x0 + w, y0 + h
    return (
        f'<rect x="{_num(x0)}" y="{_num(y0)}" width="{_num(w)}" height="{_num(h)}" '
        f'fill="none" stroke="{PAL.exit}" stroke-width="1.6" stroke-dasharray="6 3"/>'
        f'<path d="M{_num(x0)} {_num(y0)}L{_num(x1)} {_num(y1)}M{_num(x1)} {_num(y0)}'
        f'L{_num(x0)} {_num(y1)}" stroke="{PAL.exit}" stroke-width="0.8" '
        'stroke-dasharray="2 3" fill="none"/>'
    )


def _jambs(length: float) -> str:
    """Short wall stubs at both ends of a gap, so a cut wall reads as a doorway."""
    h = length / 2
    return (
        f'<path d="M{_num(-h)} -4.5v9M{_num(h)} -4.5v9" stroke="{PAL.ink}" '
        'stroke-width="2.2" fill="none"/>'
    )


def _one_way(length: float, outward: bool) -> str:
    tip = 11.0 if outward else -11.0
    head = 5.5 if outward else -5.5
    return (
        _door(length) + f'<path d="M0 {_num(-tip)}L0 {_num(tip - head)}" stroke="{PAL.red}" '
        'stroke-width="1.8" fill="none"/>'
        + f'<path d="M-4 {_num(tip - head)}L0 {_num(tip)}L4 {_num(tip - head)}z" '
        f'fill="{PAL.red}"/>'
    )


def _archway(length: float) -> str:
    h = length / 2
    return (
        f'<rect x="{_num(-h - 2.5)}" y="-4.5" width="5" height="9" fill="{PAL.ink}"/>'
        f'<rect x="{_num(h - 2.5)}" y="-4.5" width="5" height="9" fill="{PAL.ink}"/>'
        f'<path d="M{_num(-h)} 0h{_num(length)}" stroke="{PAL.ink}" stroke-width="1" '
        'stroke-dasharray="2 2" fill="none"/>'
    )


def _stairs(length: float, down: bool, depth: float = 2 * CELL) -> str:
    """Steps beyond the wall (``depth`` > 0) or inside it (< 0): a box of parallel treads
    that narrow going down."""
    h = length / 2
    top = min(0.0, depth)
    # Down: shaded (going down into the dark) with a solid arrowhead at the far end; up:
    # white, an open arrowhead pointing up the steps.
    fill = PAL.stairs_down if down else PAL.floor
    parts = [
        f'<rect x="{_num(-h)}" y="{_num(top)}" width="{_num(length)}" '
        f'height="{_num(abs(depth))}" fill="{fill}" stroke="{PAL.ink}" stroke-width="1.6"/>'
    ]
    treads = 6
    path = []
    for i in range(1, treads):
        y = depth * i / treads
        shrink = (h * 0.5 * i / treads) if down else (h * 0.5 * (treads - i) / treads)
        if depth < 0:
            shrink = h * 0.5 * (treads - i) / treads if down else h * 0.5 * i / treads
        path.append(f"M{_num(-h + shrink)} {_num(y)}H{_num(h - shrink)}")
    parts.append(f'<path d="{"".join(path)}" stroke="{PAL.ink}" stroke-width="1.2" fill="none"/>')
    tip = depth * 0.92
    back = depth * 0.62
    arrow = f"M{_num(-3.5)} {_num(back)}L0 {_num(tip)}L3.5 {_num(back)}"
    if down:
        parts.append(f'<path d="{arrow}z" fill="{PAL.ink}"/>')
    else:
        arrow = f"M{_num(-3.5)} {_num(tip)}L0 {_num(back)}L3.5 {_num(tip)}"
        parts.append(f'<path d="{arrow}" stroke="{PAL.ink}" stroke-width="1.4" fill="none"/>')
    return "".join(parts)


def _trapdoor(size: float) -> str:
    h = size / 2 - 2
    return (
        f'<rect x="{_num(-h)}" y="{_num(-h)}" width="{_num(2 * h)}" height="{_num(2 * h)}" '
        f'fill="#efe6d4" stroke="{PAL.ink}" stroke-width="1.4"/>'
        f'<path d="M{_num(-h)} {_num(-h)}L{_num(h)} {_num(h)}M{_num(h)} {_num(-h)}'
        f'L{_num(-h)} {_num(h)}" stroke="{PAL.ink}" stroke-width="1" fill="none"/>'
    )


def _shaft(size: float) -> str:
    r = size / 2 - 1.5
    return (
        f'<circle r="{_num(r)}" fill="{PAL.chasm}" stroke="{PAL.ink}" stroke-width="1.4"/>'
        f'<circle r="{_num(r * 0.5)}" fill="none" stroke="{PAL.chasm_line}" '
        'stroke-width="1"/>'
    )


_BLOCKABLE = frozenset({"door", "one_way_door", "archway", "opening"})
"""Connections a blocked exit is drawn on with :func:`_blocked` (a secret door is wall; a
way to another level is never blocked)."""


def _blocked() -> str:
    """A blocked exit: a red cross over the door or the gap (nothing lies behind it)."""
    return (
        f'<path d="M-5.5 -5.5L5.5 5.5M5.5 -5.5L-5.5 5.5" stroke="{PAL.floor}" stroke-width="4" '
        'stroke-linecap="round" fill="none"/>'
        f'<path d="M-5.5 -5.5L5.5 5.5M5.5 -5.5L-5.5 5.5" stroke="{PAL.red}" stroke-width="2" '
        'stroke-linecap="round" fill="none"/>'
    )


def _unexplored() -> str:
    """An arrow out of the wall into the rock, ending in a question mark."""
    return (
        f'<path d="M0 3L0 {CELL + 6}" stroke="{PAL.exit}" stroke-width="2" fill="none"/>'
        f'<path d="M-4.5 {CELL + 2}L0 {CELL + 9}L4.5 {CELL + 2}z" fill="{PAL.exit}"/>'
    )


def _secret_mark(cx: float, cy: float) -> str:
    return (
        f'<text class="secret" x="{_num(cx)}" y="{_num(cy + 5)}" '
        f'font-family="{SVG_FONT_SERIF}" font-size="15" font-weight="bold" '
        f'text-anchor="middle" fill="{PAL.red}" stroke="{PAL.floor}" stroke-width="3" '
        'paint-order="stroke">S</text>'
    )


def _trap_mark(cx: float, cy: float) -> str:
    return (
        f'<g class="trap" transform="translate({_num(cx)} {_num(cy)})">'
        f'<path d="M0 -6.5L7 5.5H-7z" fill="{PAL.red}" stroke="{PAL.floor}" stroke-width="1"/>'
        f'<path d="M0 -2.5V1.5M0 3v1.2" stroke="{PAL.floor}" stroke-width="1.6"/></g>'
    )


def _entrance_mark(cx: float, cy: float) -> str:
    return (
        f'<polygon class="entrance" points="{star_points(cx, cy, 7.0, 3.2)}" fill="{PAL.star}" '
        f'stroke="{PAL.floor}" stroke-width="1"/>'
    )


def _label(
    cx: float,
    cy: float,
    text: str,
    size: float,
    colour: str = PAL.ink,
    cls: str = "",
    weight: str = "bold",
    family: str = SVG_FONT_SANS,
) -> str:
    klass = f' class="{cls}"' if cls else ""
    return (
        f'<text{klass} x="{_num(cx)}" y="{_num(cy + size * 0.35)}" font-family="{family}" '
        f'font-size="{_num(size)}" font-weight="{weight}" text-anchor="middle" '
        f'fill="{colour}" stroke="{PAL.floor}" stroke-width="3" stroke-linejoin="round" '
        f'paint-order="stroke">{_escape(text)}</text>'
    )


# --------------------------------------------------------------------------------------
# Patterns


# Hatching: groups of four strokes at varied angles on a 3 × 3-cell tile (fixed data).
_HATCH_TILE = 3 * CELL
_HATCH_GROUPS = (
    (5, 5, 0),
    (16, 4, 2),
    (26, 6, 1),
    (37, 5, 3),
    (5, 16, 4),
    (15, 15, 5),
    (27, 17, 0),
    (36, 15, 2),
    (6, 27, 1),
    (16, 26, 3),
    (26, 27, 4),
    (37, 26, 0),
    (4, 37, 5),
    (15, 37, 1),
    (27, 36, 2),
    (37, 37, 4),
)
_HATCH_DIRS = ((1.0, 1.0), (1.0, -0.6), (0.2, 1.0), (1.0, 0.25), (-0.5, 1.0), (1.0, -1.0))


def _hatch_strokes(gx: float, gy: float, k: int) -> list[tuple[float, float, float, float]]:
    """The four strokes (x1, y1, x2, y2) of a hatch group centred at (gx, gy)."""
    ux, uy = _HATCH_DIRS[k]
    norm = (ux * ux + uy * uy) ** 0.5
    ux, uy = ux / norm, uy / norm
    px, py = -uy, ux
    out = []
    for off in (-3.3, -1.1, 1.1, 3.3):
        sx, sy = gx + px * off, gy + py * off
        half = 5.4 - abs(off) * 0.4
        out.append((sx - ux * half, sy - uy * half, sx + ux * half, sy + uy * half))
    return out


STYLES = ("classic", "print")
"""Map looks: ``classic`` (cream paper, tinted rock) and ``print`` (ink-saving: white paper,
the hatching on white)."""


def _check_style(style: str) -> None:
    if style not in STYLES:
        raise OptionError(N_("unknown map style {style!r} (classic or print)"), style=style)


@cache  # the same text in every map of a style
def _defs(style: str = "classic") -> str:
    c2 = 2 * CELL
    tile = _HATCH_TILE
    strokes = [
        f"M{_num(ax)} {_num(ay)}L{_num(bx)} {_num(by)}"
        for gx, gy, k in _HATCH_GROUPS
        for ax, ay, bx, by in _hatch_strokes(gx, gy, k)
    ]
    # Also the tile's neighbours' strokes that cross its edges, so the tiling is seamless.
    hatch = "".join(strokes)
    shifted = [
        f'<path d="{hatch}" transform="translate({dx} {dy})"/>'
        for dx in (-tile, 0, tile)
        for dy in (-tile, 0, tile)
    ]
    ripple = f"M2 {CELL // 2}q2.5 -3 5 0t5 0M{CELL + 2} {CELL + CELL // 2}q2.5 -3 5 0t5 0"
    flow = f"M0 {CELL // 2}q{CELL // 2} -3 {CELL} 0t{CELL} 0M{CELL} {CELL + CELL // 2}h{CELL // 2}"
    return (
        "<defs>"
        f'<pattern id="hatch" width="{tile}" height="{tile}" patternUnits="userSpaceOnUse">'
        f'<rect width="{tile}" height="{tile}" '
        f'fill="{PAL.hatch_bg if style == "classic" else PAL.floor}"/>'
        f'<g stroke="{PAL.hatch}" stroke-width="1" stroke-linecap="round" fill="none">'
        f"{''.join(shifted)}</g></pattern>"
        f'<pattern id="ripples" width="{c2}" height="{c2}" patternUnits="userSpaceOnUse">'
        f'<path d="{ripple}" stroke="{PAL.water_line}" stroke-width="1" fill="none" '
        'stroke-linecap="round"/></pattern>'
        f'<pattern id="flow-ew" width="{c2}" height="{c2}" patternUnits="userSpaceOnUse">'
        f'<path d="{flow}" stroke="{PAL.water_line}" stroke-width="1.1" fill="none" '
        'stroke-linecap="round"/></pattern>'
        f'<pattern id="flow-ns" width="{c2}" height="{c2}" patternUnits="userSpaceOnUse" '
        f'patternTransform="rotate(90)">'
        f'<path d="{flow}" stroke="{PAL.water_line}" stroke-width="1.1" fill="none" '
        'stroke-linecap="round"/></pattern>'
        f'<pattern id="depth" width="{CELL}" height="{CELL}" patternUnits="userSpaceOnUse">'
        f'<path d="M2 3l4 2M8 9l4 1M3 12l3 -1" stroke="{PAL.chasm_line}" stroke-width="1" '
        'fill="none" stroke-linecap="round"/></pattern>'
        "</defs>"
    )


# --------------------------------------------------------------------------------------
# The level


def _level(doc: Doc, depth: int) -> Mapping[str, Any]:
    for level in doc.get("levels") or ():
        if int(level.get("depth", 0)) == depth:
            return dict(level)
    raise OptionError(N_("the dungeon has no level {depth}"), depth=depth)


def _check_view(view: str) -> None:
    if view not in VIEWS:
        raise OptionError(
            N_("unknown view {view!r}; choose one of {choices}"),
            view=view,
            choices=", ".join(VIEWS),
        )


def is_unexplored(conn: Mapping[str, Any], level: Mapping[str, Any]) -> bool:
    """Whether a connection is an exit nobody has expanded yet (a blocked one is not: it is
    drawn as the door or opening it was rolled as, leading nowhere)."""
    if conn.get("blocked"):
        return False
    if conn.get("id") in (level.get("unexplored") or ()):
        return True
    return conn.get("to") is None and conn.get("to_level") is None


def level_mark(conn: Mapping[str, Any]) -> str:
    """ "↓ 2" / "↑ 1" / "↑ 0": the arrow and target level of a stair, trapdoor or shaft."""
    up = conn.get("direction") == "up"
    target = conn.get("to_level")
    arrow = "↑" if up else "↓"
    return arrow if target is None else f"{arrow} {target}"


def rules_name(rules: str) -> str:
    """A rule set's id as a title: ``zufallslabyrinth`` -> ``Zufallslabyrinth``."""
    return " ".join(part.capitalize() for part in re.split(r"[-_ ]+", rules) if part)


def _has_trap(area: Mapping[str, Any]) -> bool:
    for content in area.get("contents") or ():
        if content.get("kind") == "trap" or content.get("trapped"):
            return True
    return False


# --------------------------------------------------------------------------------------
# Label placement: text boxes from the fonts' real advance widths; every label clear of
# every symbol, wall and other label.

Box = tuple[float, float, float, float]
"""x0, y0, x1, y1 in map pixels."""

_ConnParts = tuple[list[str], list["_Mark"], set[str], list[Box]]
_ASCENT = 0.72  # of the font size above the baseline (caps, digits, arrows, "?")
_DESCENT = 0.06
_HALO = 1.5  # half the white stroke behind every label
_WALL = 1.6 + 0.4  # half a wall's stroke and a hair of air
_BUCKET = 4 * CELL
_NUMBER_TRIES = 600  # candidate spots per area number (nearest first)


@lru_cache(maxsize=4096)
def _mark_width(text: str, size: float, family: str = "sans") -> float:
    return metrics.text_width(text, size, family=family, bold=True)


def label_box(cx: float, cy: float, text: str, size: float, family: str = "sans") -> Box:
    """The box a :func:`_label` centred at ``cx``, ``cy`` covers (halo included)."""
    w = _mark_width(text, size, family) / 2 + _HALO
    base = cy + size * 0.35
    return (cx - w, base - size * _ASCENT - _HALO, cx + w, base + size * _DESCENT + _HALO)


def _turned(cx: float, cy: float, angle: int, box: Box) -> Box:
    """The map box around a local box (x along the wall, +y out) turned by ``angle``."""
    x0, y0, x1, y1 = box
    turns = {0: (1.0, 0.0), 90: (0.0, 1.0), 180: (-1.0, 0.0), 270: (0.0, -1.0)}
    c, s = turns.get(angle % 360, (0.7071, 0.7071))
    if angle % 90:
        c = 0.7071 if angle % 360 in (45, 315) else -0.7071
        s = 0.7071 if angle % 360 in (45, 135) else -0.7071
    xs, ys = [], []
    for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
        xs.append(cx + x * c - y * s)
        ys.append(cy + x * s + y * c)
    return min(xs), min(ys), max(xs), max(ys)


def _meet(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _cuts(box: Box, seg: tuple[float, float, float, float], pad: float) -> bool:
    """Whether a segment (widened by ``pad``) crosses ``box``."""
    x0, y0, x1, y1 = box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad
    ax, ay, bx, by = seg
    if max(ax, bx) <= x0 or min(ax, bx) >= x1 or max(ay, by) <= y0 or min(ay, by) >= y1:
        return False
    if ax == bx or ay == by:
        return True  # axis-parallel and its bounds meet the box
    # Liang-Barsky clip of the segment against the box.
    t0, t1 = 0.0, 1.0
    dx, dy = bx - ax, by - ay
    for p, q in ((-dx, ax - x0), (dx, x1 - ax), (-dy, ay - y0), (dy, y1 - ay)):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


@dataclass(frozen=True)
class _Mark:
    """A mark's wish: where its symbol puts it, and which way is out of the wall."""

    cls: str
    x: float
    y: float
    text: str
    size: float
    side: str
    colour: str = PAL.ink
    fixed: bool = False  # the secret door's "S" stands on its wall
    at: tuple[float, float] | None = None  # what a leader line points to (the symbol)


def _rings() -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for r in range(2, 17):
        ring = set()
        for i in range(-r, r + 1):
            ring |= {(i, -r), (i, r), (-r, i), (r, i)}
        out += sorted(ring, key=lambda p: (p[0] ** 2 + p[1] ** 2, p[1], p[0]))
    return tuple(out)


_RINGS = _rings()
"""Offsets (half cells) of the rings 2..16 around a point, nearest first."""


class _Placer:
    """Boxes taken so far on one view of a level, and the walls, in buckets."""

    def __init__(self, drawing: _Map) -> None:
        self.map = drawing
        self.owner = drawing.owner
        self.taken: dict[tuple[int, int], list[Box]] = {}
        self.walls: dict[tuple[int, int], list[tuple[float, float, float, float]]] = (
            drawing.wall_buckets()
        )
        x0, y0, x1, y1 = drawing.bounds()
        self.frame: Box = (x0 * CELL + 1.0, y0 * CELL + 1.0, x1 * CELL - 1.0, y1 * CELL - 1.0)

    def _keys(self, box: Box) -> Iterable[tuple[int, int]]:
        for bx in range(int(box[0] // _BUCKET), int(box[2] // _BUCKET) + 1):
            for by in range(int(box[1] // _BUCKET), int(box[3] // _BUCKET) + 1):
                yield bx, by

    def block(self, boxes: Iterable[Box]) -> None:
        for box in boxes:
            for key in self._keys(box):
                self.taken.setdefault(key, []).append(box)

    def free(self, box: Box, walls: bool = True) -> bool:
        """Whether ``box`` lies inside the map's frame, meets no box taken and (``walls``)
        no wall line."""
        fx0, fy0, fx1, fy1 = self.frame
        if box[0] < fx0 or box[1] < fy0 or box[2] > fx1 or box[3] > fy1:
            return False
        for key in self._keys(box):
            for other in self.taken.get(key, ()):
                if _meet(box, other):
                    return False
            if walls:
                for seg in self.walls.get(key, ()):
                    if _cuts(box, seg, _WALL):
                        return False
        return True

    def _cells(self, box: Box) -> Iterable[Cell]:
        for x in range(int(box[0] // CELL), int((box[2] - 1e-6) // CELL) + 1):
            for y in range(int(box[1] // CELL), int((box[3] - 1e-6) // CELL) + 1):
                yield x, y

    def mark(self, spec: _Mark) -> str:
        """The mark drawn at the first spot out from its symbol that is clear."""
        ix, iy = _DIRS.get(spec.side, (0, 1))
        unit = 0.7071 if ix and iy else 1.0
        dx, dy = ix * unit, iy * unit
        px, py = -dy, dx  # along the wall
        if spec.fixed:
            # The secret door's "S" stays on its wall (and it may: the wall is the door),
            # moved along it or a little into the room when a symbol is in the way.
            outs: tuple[float, ...] = (0, -3, -6, -9, -12)
            acrosses: tuple[float, ...] = (0, 4, -4, 8, -8, 12, -12)
        else:
            outs = (0, 4, 8, 12, 16, 22, 28, 36, 44, 52)
            acrosses = (0, 7, -7, 14, -14, 21, -21, 28, -28, 35, -35)
        spots = [
            (spec.x + dx * o + px * a, spec.y + dy * o + py * a) for o in outs for a in acrosses
        ]
        if spec.fixed:
            # Crowded (a door, an exit arrow or another "S" beside it): further along the
            # wall and into the room, tried only after the near spots.
            spots += [
                (spec.x + dx * o + px * a, spec.y + dy * o + py * a)
                for o in (0, -3, -6, -9, -12, -15, -18)
                for a in (16, -16, 20, -20, 24, -24)
            ] + [(spec.x + dx * o, spec.y + dy * o) for o in (-15, -18)]
        spot = next(
            (p for p in spots if self.free(self._mark_box(spec, *p), walls=not spec.fixed)), None
        )
        leader = ""
        if spot is None and not spec.fixed:
            # Crowded: the nearest clear spot around, tied to the symbol by a leader line.
            spot = next(
                (p for p in self._around(spec.x, spec.y) if self.free(self._mark_box(spec, *p))),
                None,
            )
            if spot is not None:
                leader = self._leader(self._mark_box(spec, *spot), *(spec.at or (spec.x, spec.y)))
        if spot is None:  # nothing clear of walls: at least clear of every other label
            spot = next(
                (p for p in spots if self.free(self._mark_box(spec, *p), walls=False)),
                (spec.x, spec.y),
            )
        x, y = spot
        self.block([self._mark_box(spec, x, y)])
        if spec.fixed:
            return _secret_mark(x, y)
        if spec.cls == "entrance":
            return leader + _entrance_mark(x, y)
        return leader + _label(x, y, spec.text, spec.size, colour=spec.colour, cls=spec.cls)

    @staticmethod
    def _mark_box(spec: _Mark, x: float, y: float) -> Box:
        if spec.cls == "entrance":
            return (x - 7.5, y - 7.5, x + 7.5, y + 7.5)
        if spec.fixed:  # the "S": its baseline 5 px below the wall
            return label_box(x, y - 0.25, spec.text, spec.size, "serif")
        return label_box(x, y, spec.text, spec.size)

    @staticmethod
    def _leader(box: Box, ax: float, ay: float) -> str:
        """A thin line from a label's box to the point ``ax``, ``ay`` it names."""
        ex = min(max(ax, box[0]), box[2])
        ey = min(max(ay, box[1]), box[3])
        return (
            f'<path class="leader" d="M{_num(ex)} {_num(ey)}L{_num(ax)} {_num(ay)}" '
            f'stroke="{PAL.muted}" stroke-width="0.9" fill="none"/>'
            f'<circle cx="{_num(ax)}" cy="{_num(ay)}" r="1.6" fill="{PAL.muted}"/>'
        )

    def _group(
        self, cx: float, cy: float, text: str, size: float, entrance: bool, trap: bool
    ) -> list[Box]:
        boxes = [label_box(cx, cy, text, size, "serif")]
        wide = len(text) * 5 + 10
        if entrance:
            boxes.append((cx - wide - 7.5, cy - 12.5, cx - wide + 7.5, cy + 1.5))
        if trap:
            boxes.append((cx + wide - 7.5, cy - 12, cx + wide + 7.5, cy + 1))
        return boxes

    def number(self, area: Mapping[str, Any], entrance: bool, trap: bool) -> list[str]:
        """An area's number (with its entrance star and trap mark): inside the area where
        it is clear, else in the rock beside it with a leader line."""
        here = str(area.get("id"))
        text = str(area.get("number", ""))
        size = 12 if area.get("kind") == "corridor" else 16
        at = area.get("label_at") or (area.get("cells") or [[0, 0]])[0]
        ax, ay = (int(at[0]) + 0.5) * CELL, (int(at[1]) + 0.5) * CELL
        cells = self.map.cells.get(here, set())
        spot = None
        for cx, cy in self._inside(ax, ay, cells):
            boxes = self._group(cx, cy, text, size, entrance, trap)
            if all(all(self.owner.get(c) == here for c in self._cells(b)) for b in boxes) and all(
                self.free(b) for b in boxes
            ):
                spot = (cx, cy)
                break
        leader = ""
        if spot is None:
            for cx, cy in self._around(ax, ay):
                boxes = self._group(cx, cy, text, size, entrance, trap)
                if all(
                    all(self.owner.get(c) in (None, here) for c in self._cells(b)) for b in boxes
                ) and all(self.free(b) for b in boxes):
                    spot = (cx, cy)
                    leader = self._leader(boxes[0], ax, ay)
                    break
        if spot is None:
            spot = (ax, ay)
        cx, cy = spot
        self.block(self._group(cx, cy, text, size, entrance, trap))
        out = [leader] if leader else []
        out.append(_label(cx, cy, text, size, cls="number", family=SVG_FONT_SERIF))
        wide = len(text) * 5 + 10
        if entrance:
            out.append(_entrance_mark(cx - wide, cy - 5))
        if trap:
            out.append(_trap_mark(cx + wide, cy - 5))
        return out

    @staticmethod
    def _inside(ax: float, ay: float, cells: set[Cell]) -> Iterator[tuple[float, float]]:
        """The label cell's centre first, then every cell centre and cell corner of the
        area, nearest first."""
        yield ax, ay
        spots = {(ax, ay)}
        for x, y in cells:
            spots.add(((x + 0.5) * CELL, (y + 0.5) * CELL))
            spots.add(((x + 1) * CELL, (y + 1) * CELL))
            spots.add(((x + 1) * CELL, (y + 0.5) * CELL))
            spots.add(((x + 0.5) * CELL, (y + 1) * CELL))
        near = sorted(
            spots - {(ax, ay)}, key=lambda p: ((p[0] - ax) ** 2 + (p[1] - ay) ** 2, p[1], p[0])
        )
        yield from near[:_NUMBER_TRIES]

    @staticmethod
    def _around(ax: float, ay: float) -> Iterator[tuple[float, float]]:
        """Spots on rings around a point, nearest first (half-cell steps)."""
        for i, j in _RINGS:
            yield ax + i * HALF, ay + j * HALF


class _Map:
    """The pieces of one level's map: what both views share is drawn once (the geometry,
    the features, every connection's symbol, the area numbers); :meth:`draw` puts one
    view together (and says which legend keys it uses)."""

    def __init__(self, level: Mapping[str, Any]) -> None:
        self.level = level
        self.areas: list[Mapping[str, Any]] = list(level.get("areas") or ())
        self.cells: dict[str, set[Cell]] = {
            str(a["id"]): _cells(a.get("cells") or ()) for a in self.areas
        }
        self.number = {str(a["id"]): a.get("number") for a in self.areas}
        # Which area each floor cell belongs to; cells of round and slanted areas.
        self.owner: dict[Cell, str] = {}
        self.rounded: set[Cell] = set()
        for area in self.areas:
            cells = self.cells[str(area["id"])]
            self.owner.update(dict.fromkeys(cells, str(area["id"])))
            # a round or slanted shape of one square (2 x 2 cells) is drawn square: cut to
            # its shape it would be a diamond with no cell's middle on its floor
            if area.get("shape") in ROUNDED_SHAPES and len(cells) > 4:
                self.rounded |= cells
        self._taken: set[Cell] = set(self.owner)
        self.all_conns: list[Mapping[str, Any]] = list(level.get("connections") or ())
        self.depth = int(level.get("depth", 1))
        if len(self.cells) == len(self.areas):  # one part per area (ids are unique)
            self.outline = Outline(*self.cells.values())
            self.inner = self.outline.borders()
        else:
            self.outline = Outline(self.owner)
            self.inner = _inner_edges(self.owner)
        self.pierced = [_pierced(conn) for conn in self.all_conns]
        pinned, cut = _pins(
            self.outline,
            self.owner,
            self.inner,
            [
                cut
                for conn, cut in zip(self.all_conns, self.pierced, strict=True)
                if conn.get("kind") not in _INSIDE_WAYS
            ],
        )
        self.floor: list[list[FPoint]] = [
            list(poly) for poly in _floor(self.outline, pinned, self.rounded)
        ]
        caves = {
            cell: f"{self.depth}:{self.number[str(area['id'])]}"
            for area in self.areas
            if (area.get("kind") == "cave" or area.get("shape") == "cave")
            and len(self.cells[str(area["id"])]) > 4
            for cell in self.cells[str(area["id"])]
        }
        if caves:
            self.floor = self._organic(caves, pinned, cut)
        self._shared: list[str] | None = None
        self._shared_used: set[str] = set()
        self._conn_parts: list[_ConnParts] | None = None
        self._wall_buckets: (
            dict[tuple[int, int], list[tuple[float, float, float, float]]] | None
        ) = None
        self._walls: dict[tuple[int, ...], str] = {}
        self._bounds: tuple[int, int, int, int] | None = None
        self._floor_ds: list[str] | None = None  # each floor polygon's path data, once drawn

    def _organic(
        self, caves: dict[Cell, str], pinned: set[Cell], cut: tuple[set[Cell], set[Cell]]
    ) -> list[list[FPoint]]:
        """The floors' outline with the caves' walls redrawn as organic lines
        (:mod:`kerker.dungeon.organic`): never at a pinned point, a side a connection opens,
        a connection's or a feature's cells."""
        keep: set[tuple[FPoint, FPoint]] = set()
        for x, y in cut[0]:
            keep.add(((2 * x, 2 * y), (2 * x + 2, 2 * y)))
        for x, y in cut[1]:
            keep.add(((2 * x, 2 * y), (2 * x, 2 * y + 2)))
        keep |= {(b, a) for a, b in keep}
        points: set[FPoint] = {(2 * x, 2 * y) for x, y in pinned}
        guarded: set[Cell] = set()
        for conn in self.all_conns:
            cx, cy, _angle, _length = _frame(conn)
            points.add((cx / HALF, cy / HALF))
            guarded.update(_span(conn))
        for area in self.areas:
            for feature in area.get("features") or ():
                guarded |= _cells(feature.get("cells") or ())
        return organic.Caves(caves, self.owner, points, keep, guarded).redraw(self.floor)

    def wall_buckets(self) -> dict[tuple[int, int], list[tuple[float, float, float, float]]]:
        """Every wall line (the floors' outline and the edges between areas, uncut) as
        segments in map pixels, by bucket of :data:`_BUCKET` pixels."""
        if self._wall_buckets is None:
            buckets: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}
            segs: list[tuple[float, float, float, float]] = []  # px
            for poly in self.floor:
                n = len(poly)
                for i in range(n):
                    (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
                    segs.append((x1 * HALF, y1 * HALF, x2 * HALF, y2 * HALF))
            hor, ver = self.inner
            segs += [(x * CELL, y * CELL, (x + 1) * CELL, y * CELL) for x, y in hor]
            segs += [(x * CELL, y * CELL, x * CELL, (y + 1) * CELL) for x, y in ver]
            pad = _WALL + 1
            for seg in segs:
                lo_x, hi_x = min(seg[0], seg[2]), max(seg[0], seg[2])
                lo_y, hi_y = min(seg[1], seg[3]), max(seg[1], seg[3])
                for bx in range(int((lo_x - pad) // _BUCKET), int((hi_x + pad) // _BUCKET) + 1):
                    for by in range(int((lo_y - pad) // _BUCKET), int((hi_y + pad) // _BUCKET) + 1):
                        buckets.setdefault((bx, by), []).append(seg)
            self._wall_buckets = buckets
        return self._wall_buckets

    def conns(self, gm: bool) -> list[int]:
        """The indices of the connections a view shows."""
        return [i for i, c in enumerate(self.all_conns) if gm or not c.get("gm_only")]

    def bounds(self) -> tuple[int, int, int, int]:
        """Cell bounds drawn: the used cells plus rock, aligned to the 10-ft grid."""
        if self._bounds is None:
            self._bounds = self._find_bounds()
        return self._bounds

    def _find_bounds(self) -> tuple[int, int, int, int]:
        xs = list(map(itemgetter(0), self.owner))  # every area's cells
        ys = list(map(itemgetter(1), self.owner))
        for conn in self.all_conns:  # and the steps of stairs beyond a wall
            if conn.get("kind") == "stairs" and conn.get("to") not in self.cells:
                dx, dy = _DIRS.get(str(conn.get("side") or "n"), (0, -1))
                for x, y in _span(conn):
                    xs.append(x + 2 * dx)
                    ys.append(y + 2 * dy)
        if not xs:
            return (
                0,
                0,
                max(2, int(self.level.get("width", 2))),
                max(2, int(self.level.get("height", 2))),
            )
        x0 = min(xs) - PAD
        y0 = min(ys) - PAD
        x0 -= x0 % 2
        y0 -= y0 % 2
        x1 = max(xs) + 1 + PAD
        y1 = max(ys) + 1 + PAD
        x1 += x1 % 2
        y1 += y1 % 2
        return x0, y0, x1, y1

    def draw(self, gm: bool, numbers: bool = True) -> tuple[list[str], set[str]]:
        """The map's elements for one view, and the legend keys they use; ``numbers``
        False leaves out the area numbers and every mark written over the map (target
        levels of stairs, "?" of unexplored exits, "S" of secret doors): a tabletop's
        picture, whose notes say those things."""
        if self._shared is None:
            self._shared = self._draw_shared(*self.bounds())
        used = set(self._shared_used)
        out = list(self._shared)
        shown = self.conns(gm)
        # Walls: the smoothed outline of all floors, and every edge between two areas;
        # doors, archways, openings and stairs cut them.
        out.append(
            self._walls_for(tuple(i for i in shown if self.all_conns[i].get("kind") in _OPEN_WALL))
        )
        # Connections.
        if self._conn_parts is None:
            self._conn_parts = [self.connection(conn) for conn in self.all_conns]
        specs: list[_Mark] = []
        placer = _Placer(self)
        for i in shown:
            drawn, marked, keys, boxes = self._conn_parts[i]
            out.extend(drawn)
            specs.extend(marked)
            used |= keys
            placer.block(boxes)
            conn = self.all_conns[i]
            if gm and conn.get("blocked") and conn.get("kind") in _BLOCKABLE:
                # A rolled exit with no room behind it (keyed "blocked"): a cross over its
                # symbol, for the game master (the players find out when they try it).
                cx, cy, angle, _length = _frame(conn)
                out.append(_g(cx, cy, angle, _blocked(), "blocked"))
                placer.block([_turned(cx, cy, angle, (-6.5, -6.5, 6.5, 6.5))])
                used.add("blocked")
        # Marks first (they belong to their symbol), each clear of the others; then the
        # area numbers (with the entrance star and the trap mark beside them), each clear
        # of every symbol, mark, wall and other number, or offset with a leader line. A map
        # without numbers (a tabletop picture) leaves out the numbers and the marks.
        marks = [placer.mark(spec) for spec in specs] if numbers else []
        way_in = any(spec.cls == "entrance" for spec in specs)
        for area in self.areas if numbers else ():
            entrance = area.get("id") == self.level.get("entrance") and not way_in
            trap = gm and _has_trap(area)
            if entrance:
                used.add("entrance")
            if trap:
                used.add("trap")
            out.extend(placer.number(area, entrance, trap))
        out.extend(marks)
        return out, used

    def _draw_shared(self, x0: int, y0: int, x1: int, y1: int) -> list[str]:
        """Rock, floors, grid and features: the same in every view."""
        out: list[str] = []
        floor = self.floor
        self._floor_ds = [_poly_d([poly]) for poly in floor]  # the walls use them too
        floor_d = "".join(self._floor_ds)
        # Rock hatching: a ring from the smoothed outline of the rock cells that touch a
        # floor (diagonally too) in to the floor's outline, one pattern fill (even-odd, no
        # clip path: resvg draws it fast).
        ring = _ring(self.outline)
        if ring:
            out.append(
                f'<path class="rock" d="{ring}{floor_d}" fill="url(#hatch)" fill-rule="evenodd"/>'
            )
        # Floors and their 10-ft grid, both inside the smoothed outline.
        out.append(f'<path class="floor" d="{floor_d}" fill="{PAL.floor}" fill-rule="evenodd"/>')
        out.append(
            f'<path class="grid" d="{_grid(floor)}" stroke="{PAL.grid}" '
            'stroke-width="0.8" fill="none"/>'
        )
        # Features under the walls. A feature at the outline is clipped to the floor (the
        # walls may be slanted there); everything else stays inside the rock margin
        # (``PAD``); only a feature (a river running off the level) may reach past the
        # frame, and only then is it clipped to the frame.
        features: list[str] = []
        outside = False
        clip_floor = False
        for area in self.areas:
            for feature in area.get("features") or ():
                cells = _cells(feature.get("cells") or ())
                if feature.get("kind") == "boat" and not cells:
                    cells, flow = self._moored(area, feature)
                    feature = {**feature, "dir": flow}
                drawn = self.feature(feature, self._shared_used, cells)
                if drawn and cells <= self._taken and _at_outline(cells, self._taken):
                    clip_floor = True
                    drawn = [f'<g clip-path="url(#floor-{self.depth})">', *drawn, "</g>"]
                features.extend(drawn)
                outside = outside or any(not (x0 <= x < x1 and y0 <= y < y1) for x, y in cells)
        if clip_floor:
            out.append(
                f'<clipPath id="floor-{self.depth}"><path d="{floor_d}" '
                'clip-rule="evenodd"/></clipPath>'
            )
        if outside and features:
            out.append(
                f'<clipPath id="map-clip-{self.depth}"><rect x="{x0 * CELL}" '
                f'y="{y0 * CELL}" width="{(x1 - x0) * CELL}" '
                f'height="{(y1 - y0) * CELL}"/></clipPath>'
            )
            features = [f'<g clip-path="url(#map-clip-{self.depth})">', *features, "</g>"]
        out.extend(features)
        return out

    def _cuts_of(self, opening: Collection[int]) -> tuple[set[Cell], set[Cell]]:
        """The unit edges the connections ``opening`` (indices) cut, and, added to them,
        every free-standing partition those cuts leave (:meth:`_partitions`)."""
        hor: set[Cell] = set()
        ver: set[Cell] = set()
        for i in opening:
            h, v = self.cut(i)
            hor |= h
            ver |= v
        free_h, free_v = self._partitions(hor, ver, opening)
        return hor | free_h, ver | free_v

    def _partitions(
        self, hor: set[Cell], ver: set[Cell], opening: Collection[int]
    ) -> tuple[set[Cell], set[Cell]]:
        """The walls between two areas that would stand free in the floor once ``hor``/
        ``ver`` are cut: a run of edges between two areas joined to no wall with rock
        behind it, directly or through a door leaf (openings and archways join nothing), as
        when a procedure lays a corridor along another with no rock between them (Scatola
        Bianca seed 11 before: a wall hanging between two openings). Such a partition is
        not drawn: the two areas read as the one open space they are."""
        inner_h, inner_v = self.inner
        rest_h, rest_v = inner_h - hor, inner_v - ver
        if not rest_h and not rest_v:
            return set(), set()
        # Lattice points of the walls with rock behind them: the floor polygons' sides that
        # stay drawn (half cells; a wall's end between two areas is pinned, so a vertex).
        gaps = {((2 * x, 2 * y), (2 * x + 2, 2 * y)) for x, y in hor}
        gaps |= {((2 * x, 2 * y), (2 * x, 2 * y + 2)) for x, y in ver}
        anchors: set[FPoint] = set()
        for poly in self.floor:
            for a, b in zip(poly, [*poly[1:], poly[0]], strict=True):
                if (a, b) not in gaps and (b, a) not in gaps:
                    anchors.add(a)
                    anchors.add(b)
        # Components of the remaining inner edges and of the door leaves (a door stands in
        # its wall: a partition joined to a door joined to the rock is a wall with a door),
        # by union-find over their end points.
        leaves: list[tuple[Point, Point]] = []
        for i in opening:
            if self.all_conns[i].get("kind") not in ("opening", "archway"):
                h, v = self.cut(i)
                leaves += [((2 * x, 2 * y), (2 * x + 2, 2 * y)) for x, y in h]
                leaves += [((2 * x, 2 * y), (2 * x, 2 * y + 2)) for x, y in v]
        parent: dict[FPoint, FPoint] = {}

        def root(p: FPoint) -> FPoint:
            while parent.setdefault(p, p) != p:
                parent[p] = parent[parent[p]]
                p = parent[p]
            return p

        ends = [((2 * x, 2 * y), (2 * x + 2, 2 * y)) for x, y in rest_h]
        ends += [((2 * x, 2 * y), (2 * x, 2 * y + 2)) for x, y in rest_v]
        for a, b in ends + leaves:
            parent[root(a)] = root(b)
        held = {root(p) for p in anchors if p in parent}
        free_h = {(x, y) for x, y in rest_h if root((2 * x, 2 * y)) not in held}
        free_v = {(x, y) for x, y in rest_v if root((2 * x, 2 * y)) not in held}
        return free_h, free_v

    def _walls_for(self, opening: tuple[int, ...]) -> str:
        """The walls path with the cuts of the connections ``opening`` (indices)."""
        if opening in self._walls:
            return self._walls[opening]
        hor, ver = self._cuts_of(opening)
        inner_h, inner_v = self.inner
        walls = (
            f'<path class="walls" d="{_walls_d(self.floor, hor, ver, self._floor_ds)}'
            f'{_runs(inner_h - hor, inner_v - ver)}" fill="none" stroke="{PAL.ink}" '
            'stroke-width="3.2" stroke-linecap="square"/>'
        )
        self._walls[opening] = walls
        return walls

    def cut(self, i: int) -> tuple[set[Cell], set[Cell]]:
        """The wall edges connection ``i`` opens when its view shows it open (horizontal,
        vertical): its pierced edges, into an area of this level only where a floor lies
        on both sides."""
        conn = self.all_conns[i]
        h, v = self.pierced[i]
        if conn.get("to") in self.cells:
            owner = self.owner
            h = {(x, y) for x, y in h if (x, y - 1) in owner and (x, y) in owner}
            v = {(x, y) for x, y in v if (x - 1, y) in owner and (x, y) in owner}
        return h, v

    def wall_lines(self, opening: Collection[int]) -> list[list[FPoint]]:
        """The walls :meth:`_walls_for` draws for the connections ``opening`` (indices), as
        polylines in half cells: the floor polygons cut where those connections open them
        (an uncut polygon closed: its first point repeated at its end), then the straight
        runs of the edges between two areas."""
        hor, ver = self._cuts_of(opening)
        lines = _wall_lines(self.floor, hor, ver)
        inner_h, inner_v = self.inner
        for (y, x0), length in _merge(sorted((y, x) for x, y in inner_h - hor)):
            lines.append([(2 * x0, 2 * y), (2 * (x0 + length), 2 * y)])
        for (x, y0), length in _merge(sorted(inner_v - ver)):
            lines.append([(2 * x, 2 * y0), (2 * x, 2 * (y0 + length))])
        return lines

    def feature(
        self, feature: Mapping[str, Any], used: set[str], cells: set[Cell] | None = None
    ) -> list[str]:
        """A feature's drawing (adds the legend keys it uses to ``used``); ``cells``: its
        cells when the caller has them already."""
        kind = str(feature.get("kind", ""))
        if cells is None:
            cells = _cells(feature.get("cells") or ())
        if not cells:
            return []
        direction = str(feature.get("dir") or "e")
        along_ew = direction in ("e", "w")
        d = _fill(cells)
        if kind in _WATER:
            used.add("water")
            colour = PAL.water_deep if kind == "lake" else PAL.water
            blob = _blob_d(cells)
            return [
                f'<path class="{kind}" d="{blob}" fill="{colour}" stroke="{PAL.water_line}" '
                'stroke-width="1.4"/>',
                f'<path d="{blob}" fill="url(#ripples)"/>',
            ]
        if kind in ("river", "stream"):
            used.add(kind)
            flow = "flow-ew" if along_ew else "flow-ns"
            colour = PAL.river if kind == "river" else PAL.water
            return [
                f'<path class="{kind}" d="{d}" fill="{colour}"/>',
                f'<path d="{d}" fill="url(#{flow})"/>',
                f'<path d="{self._banks(cells, along_ew)}" stroke="{PAL.water_line}" '
                'stroke-width="1.6" fill="none"/>',
            ]
        if kind == "chasm":
            used.add("chasm")
            return [
                f'<path class="chasm" d="{d}" fill="{PAL.chasm}"/>',
                f'<path d="{d}" fill="url(#depth)"/>',
                f'<path d="{self._banks(cells, along_ew)}" stroke="{PAL.ink}" '
                'stroke-width="2" fill="none" stroke-dasharray="5 2 2 2"/>',
            ]
        if kind == "bridge":
            used.add("bridge")
            return [self._bridge(cells, direction)]
        if kind == "columns":
            used.add("columns")
            dots = "".join(
                f'<circle cx="{_num((x + 0.5) * CELL)}" cy="{_num((y + 0.5) * CELL)}" '
                f'r="{_num(CELL * 0.3)}"/>'
                for x, y in sorted(cells)
            )
            return [f'<g class="columns" fill="{PAL.ink}">{dots}</g>']
        if kind == "gallery":
            used.add("gallery")
            return [
                f'<path class="gallery" d="{_runs(*_edges(cells))}" stroke="{PAL.ink}" '
                'stroke-width="1.4" stroke-dasharray="4 3" fill="none"/>'
            ]
        if kind == "well":
            used.add("well")
            cx, cy = _centre(cells)
            return [
                f'<g class="well" transform="translate({_num(cx)} {_num(cy)})">'
                f'<circle r="{_num(CELL * 0.62)}" fill="{PAL.floor}" stroke="{PAL.ink}" '
                'stroke-width="1.8"/>'
                f'<circle r="{_num(CELL * 0.38)}" fill="{PAL.water_deep}" stroke="{PAL.ink}" '
                'stroke-width="1"/></g>'
            ]
        if kind == "boat":
            used.add("boat")
            cx, cy = _centre(cells)
            return [_g(cx, cy, 0 if along_ew else 90, _boat(), "boat")]
        if kind == "rubble":
            used.add("rubble")
            stones = []
            for x, y in sorted(cells):
                for k in range(3):
                    h = (x * 73 + y * 151 + k * 37) % 97
                    sx = (x + 0.2 + (h % 7) / 10) * CELL
                    sy = (y + 0.2 + (h // 7 % 7) / 10) * CELL
                    r = 1.6 + (h % 3) * 0.6
                    stones.append(f'<circle cx="{_num(sx)}" cy="{_num(sy)}" r="{_num(r)}"/>')
            return [
                f'<g class="rubble" fill="#8a8175" stroke="{PAL.ink}" stroke-width="0.6">'
                f"{''.join(stones)}</g>"
            ]
        if kind == "stairs":
            used.add("stairs")
            lines = []
            for x, y in sorted(cells):
                for k in range(1, 4):
                    if along_ew:
                        lines.append(f"M{_num((x + k / 4) * CELL)} {y * CELL}v{CELL}")
                    else:
                        lines.append(f"M{x * CELL} {_num((y + k / 4) * CELL)}h{CELL}")
            return [
                f'<path class="stairs" d="{"".join(lines)}" stroke="{PAL.ink}" '
                'stroke-width="1.1" fill="none"/>'
            ]
        return []

    def _moored(
        self, area: Mapping[str, Any], boat: Mapping[str, Any]
    ) -> tuple[set[Cell], str | None]:
        """Where a boat without cells lies: on the bank of the area's river (or stream) its
        ``bank`` names ("near": the side the corridor comes from, where its connection to
        the earliest area of the level lies; the default), along the water, and the way the
        water flows. No river: nowhere (nothing drawn)."""
        band = next(
            (
                f
                for f in area.get("features") or ()
                if f.get("kind") in ("river", "stream") and f.get("cells")
            ),
            None,
        )
        if band is None:
            return set(), None
        cells = _cells(band["cells"])
        flow = str(band.get("dir") or "e")
        ew = flow in ("e", "w")  # the band runs east-west: its banks lie north and south
        here = str(area.get("id"))
        # The corridor's way in: its connection to the area with the lowest number.
        best: tuple[float, float] | None = None
        first: float | None = None
        for conn in self.all_conns:
            other = conn.get("to") if conn.get("from") == here else conn.get("from")
            if here not in (conn.get("from"), conn.get("to")) or other not in self.number:
                continue
            number = self.number[str(other)]
            rank = float(number) if isinstance(number, int | float) else 1e9
            if first is None or rank < first:
                ax, ay = conn.get("at") or (0, 0)
                first, best = rank, (float(ax), float(ay))
        rows = sorted({y for _, y in cells} if ew else {x for x, _ in cells})
        mid = (rows[0] + rows[-1]) / 2
        near_low = best is None or (best[1] if ew else best[0]) <= mid
        low = near_low if boat.get("bank") != "far" else not near_low
        # Pulled up on that bank: the area's floor along the water (in the band's edge row
        # where no floor lies there).
        line = rows[0] - 1 if low else rows[-1] + 1
        edge = rows[0] if low else rows[-1]
        floor = self.cells.get(here, set())
        moored = {
            (x, line) if ew else (line, y)
            for x, y in cells
            if (y if ew else x) == edge and ((x, line) if ew else (line, y)) in floor
        }
        return moored or {c for c in cells if (c[1] if ew else c[0]) == edge}, flow

    def _free_depth(self, conn: Mapping[str, Any]) -> int:
        """How many cells (0-2) beyond a connection's wall are free of every area."""
        dx, dy = _DIRS.get(str(conn.get("side") or "n"), (0, -1))
        for depth in (1, 2):
            for x, y in _span(conn):
                if (x + dx * depth, y + dy * depth) in self._taken:
                    return depth - 1
        return 2

    def _banks(self, cells: set[Cell], along_ew: bool) -> str:
        """The two banks of a band: its edges that run along the flow."""
        hor, ver = _edges(cells)
        return _runs(hor, set()) if along_ew else _runs(set(), ver)

    def _bridge(self, cells: set[Cell], direction: str) -> str:
        xs = [x for x, _ in cells]
        ys = [y for _, y in cells]
        bx0, by0, bx1, by1 = (
            min(xs) * CELL,
            min(ys) * CELL,
            (max(xs) + 1) * CELL,
            (max(ys) + 1) * CELL,
        )
        along_ns = direction in ("n", "s")
        # A bridge narrower than its band: a plank walk of 10 ft at most, centred.
        if along_ns and bx1 - bx0 > 2 * CELL:
            mid = (bx0 + bx1) // 2
            bx0, bx1 = mid - CELL, mid + CELL
        if not along_ns and by1 - by0 > 2 * CELL:
            mid = (by0 + by1) // 2
            by0, by1 = mid - CELL, mid + CELL
        # Narrower than the band it crosses, so the water shows on both sides.
        if along_ns:
            cut = max(0, int((bx1 - bx0) * 0.22))
            bx0, bx1 = bx0 + cut, bx1 - cut
        else:
            cut = max(0, int((by1 - by0) * 0.22))
            by0, by1 = by0 + cut, by1 - cut
        inset = 1
        if along_ns:
            bx0, bx1 = bx0 + inset, bx1 - inset
            by0, by1 = by0 - inset, by1 + inset
            planks = "".join(f"M{bx0} {_num(y)}H{bx1}" for y in _steps(by0, by1, CELL / 3))
            rails = f"M{bx0} {by0}V{by1}M{bx1} {by0}V{by1}"
        else:
            by0, by1 = by0 + inset, by1 - inset
            bx0, bx1 = bx0 - inset, bx1 + inset
            planks = "".join(f"M{_num(x)} {by0}V{by1}" for x in _steps(bx0, bx1, CELL / 3))
            rails = f"M{bx0} {by0}H{bx1}M{bx0} {by1}H{bx1}"
        return (
            f'<g class="bridge"><rect x="{bx0}" y="{by0}" width="{bx1 - bx0}" '
            f'height="{by1 - by0}" fill="{PAL.wood}"/>'
            f'<path d="{planks}" stroke="{PAL.wood_line}" stroke-width="0.8" fill="none"/>'
            f'<path d="{rails}" stroke="{PAL.ink}" stroke-width="2" fill="none"/></g>'
        )

    def connection(self, conn: Mapping[str, Any]) -> _ConnParts:
        """A connection's symbol, its marks (placed over the area numbers, free of every
        other label) and its legend keys, and the boxes its symbol covers: the same in
        every view that shows it."""
        kind = str(conn.get("kind", "door"))
        cx, cy, angle, length = _frame(conn)
        unexplored = is_unexplored(conn, self.level)
        out: list[str] = []
        marks: list[_Mark] = []
        used: set[str] = set()
        boxes: list[Box] = []
        side = str(conn.get("side") or "n")
        h = length / 2
        cls = f"conn {kind}"
        if kind == "door":
            used.add("door")
            out.append(_g(cx, cy, angle, _door(length), cls))
            w = max(8.0, min(length * 0.62, length - 5)) / 2 + 0.8
            boxes.append(_turned(cx, cy, angle, (-w, -4.3, w, 4.3)))
        elif kind == "one_way_door":
            used.add("one_way_door")
            outward = conn.get("one_way") != "to_from"
            out.append(_g(cx, cy, angle, _one_way(length, outward), cls))
            w = max(8.0, min(length * 0.62, length - 5)) / 2 + 0.8
            boxes.append(_turned(cx, cy, angle, (-w, -4.3, w, 4.3)))
            boxes.append(_turned(cx, cy, angle, (-4.5, -11.5, 4.5, 11.5)))
        elif kind == "secret_door":
            used.add("secret_door")  # only reached in the GM view
            out.append(
                _g(
                    cx,
                    cy,
                    angle,
                    f'<path d="M{_num(-length / 2 + 1)} 0h'
                    f'{_num(length - 2)}" stroke="{PAL.red}" stroke-width="1.2" '
                    'stroke-dasharray="2 1.5"/>',
                    cls,
                )
            )
            marks.append(_Mark("secret", cx, cy, "S", 15, side, fixed=True))
        elif kind == "archway":
            used.add("archway")
            out.append(_g(cx, cy, angle, _archway(length), cls))
            boxes.append(_turned(cx, cy, angle, (-h - 2.5, -4.5, h + 2.5, 4.5)))
        elif kind == "opening":
            used.add("opening")
            out.append(_g(cx, cy, angle, _jambs(length), cls))
            boxes.append(_turned(cx, cy, angle, (-h - 1.1, -4.5, -h + 1.1, 4.5)))
            boxes.append(_turned(cx, cy, angle, (h - 1.1, -4.5, h + 1.1, 4.5)))
        elif kind == "stairs":
            down = conn.get("direction") != "up"
            used.add("stairs_down" if down else "stairs_up")
            free = self._free_depth(conn)
            depth = free * CELL if free else -CELL
            out.append(_g(cx, cy, angle, _stairs(length, down, depth), cls))
            boxes.append(
                _turned(
                    cx, cy, angle, (-h - 0.8, min(0.0, depth) - 0.8, h + 0.8, max(0.0, depth) + 0.8)
                )
            )
            if conn.get("door_closes"):
                # A door shuts the way back up: across the stairs at their lower end, a
                # small door at the foot of the stairs at their upper end.
                used.add("door")
                door = (
                    _door(length)
                    if not down
                    else _door(length * 0.7, y=depth - 3.5 if depth > 0 else 0.0)
                )
                out.append(_g(cx, cy, angle, door, "conn door_closes"))
            if conn.get("to_level") is not None or conn.get("direction"):
                dist = depth + 11 if free else 11
                mx, my = _out_point(cx, cy, side, dist)
                marks.append(_Mark("level-mark", mx, my, level_mark(conn), 13, side))
        elif kind == "elevator":
            # The whole room goes up or down: its floor drawn as a platform (a dashed frame
            # inside the room) with the way's arrow and level beside the room's number.
            used.add("elevator")
            cells = self.cells.get(str(conn.get("from")), set())
            if cells:
                out.append(_g(0, 0, 0, _platform(cells), cls))
                ax, ay = (int(v) for v in conn.get("at") or (0, 0))
                spot = (ax + 1, ay + 1) if (ax + 1, ay + 1) in cells else (ax, ay)
                mark = level_mark(conn)
                marks.append(
                    _Mark(
                        "level-mark",
                        (spot[0] + 0.5) * CELL,
                        (spot[1] + 0.5) * CELL + 4,
                        mark,
                        13,
                        "s",
                        colour=PAL.exit,
                    )
                )
        elif kind in ("trapdoor", "shaft"):
            used.add(kind)
            span = _span(conn)
            tx, ty = _centre(set(span))
            size = CELL * (1.0 if len(span) == 1 else 1.6)
            symbol = _trapdoor(size) if kind == "trapdoor" else _shaft(size)
            out.append(_g(tx, ty, 0, symbol, cls))
            boxes.append((tx - size / 2, ty - size / 2, tx + size / 2, ty + size / 2))
            mark = level_mark(conn)
            marks.append(
                _Mark(
                    "level-mark",
                    tx + size / 2 + 3 + _mark_width(mark, 12) / 2,
                    ty,
                    mark,
                    12,
                    "e",
                    at=(tx, ty),
                )
            )
        if conn.get("to_level") == 0 and conn.get("from") == self.level.get("entrance"):
            # The way in from the surface: the entrance star stands outside it.
            used.add("entrance")
            dist = self._free_depth(conn) * CELL + 11 if kind == "stairs" else CELL
            mx, my = _out_point(cx, cy, side, dist)
            marks.append(_Mark("entrance", mx, my, "", 15, side, at=(cx, cy)))
        if unexplored and kind not in _LEVEL_WAYS:
            used.add("unexplored")
            out.append(_g(cx, cy, angle, _unexplored(), "unexplored"))
            boxes.append(_turned(cx, cy, angle, (-4.5, 2.0, 4.5, CELL + 9.5)))
            mx, my = _out_point(cx, cy, side, CELL + 19)
            marks.append(_Mark("unexplored-mark", mx, my, "?", 15, side, colour=PAL.exit))
        return out, marks, used, boxes


def _steps(start: float, stop: float, step: float) -> list[float]:
    out = []
    value = start + step
    while value < stop - 0.5:
        out.append(value)
        value += step
    return out


def _centre(cells: set[Cell]) -> tuple[float, float]:
    """The pixel centre of a cell set's bounding box."""
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    return (min(xs) + max(xs) + 1) * CELL / 2, (min(ys) + max(ys) + 1) * CELL / 2


def _out_point(cx: float, cy: float, side: str, dist: float) -> tuple[float, float]:
    dx, dy = _DIRS.get(side, (0, -1))
    scale = 0.7071 if dx and dy else 1.0
    return cx + dx * dist * scale, cy + dy * dist * scale


def _boat() -> str:
    return (
        f'<path d="M-11 0Q-6 -5.5 0 -5.5H8L12 0L8 5.5H0Q-6 5.5 -11 0z" fill="{PAL.wood}" '
        f'stroke="{PAL.wood_line}" stroke-width="1.3"/>'
        f'<path d="M-3 -5V5M3 -5V5" stroke="{PAL.wood_line}" stroke-width="1"/>'
    )


# --------------------------------------------------------------------------------------
# Legend


def _legend_items(used: Collection[str], gm: bool) -> list[tuple[str, str]]:
    """The legend entries (key, msgid) for the symbols a map uses, in a fixed order."""
    order = [
        ("entrance", N_("entrance")),
        ("door", N_("door")),
        ("secret_door", N_("secret door")),
        ("one_way_door", N_("one-way door (opens in the arrow's direction)")),
        ("archway", N_("archway")),
        ("opening", N_("opening")),
        ("stairs_down", N_("stairs down (to level)")),
        ("stairs_up", N_("stairs up (to level; 0: the surface)")),
        ("trapdoor", N_("trapdoor (to level)")),
        ("shaft", N_("shaft (to level)")),
        ("elevator", N_("Elevator")),
        ("unexplored", N_("unexplored exit")),
        ("blocked", N_("blocked exit (no space behind it)")),
        ("water", N_("water")),
        ("river", N_("river")),
        ("stream", N_("stream")),
        ("chasm", N_("chasm")),
        ("bridge", N_("bridge")),
        ("boat", N_("boat")),
        ("well", N_("well")),
        ("columns", N_("columns")),
        ("gallery", N_("gallery above")),
        ("rubble", N_("rubble")),
        ("stairs", N_("steps")),
        ("trap", N_("trap")),
    ]
    return [
        (key, msgid)
        for key, msgid in order
        if key in used and (gm or key not in ("secret_door", "trap", "blocked"))
    ]


def _legend_symbol(key: str, x: float, cy: float) -> str:
    """The symbol of a legend entry in a 34 × 22 box starting at ``x``."""
    mid = x + 17
    wall = (
        f'<path d="M{_num(x + 1)} {_num(cy)}H{_num(x + 33)}" stroke="{PAL.ink}" '
        'stroke-width="3.2"/>'
    )
    gap_wall = (
        f'<path d="M{_num(x + 1)} {_num(cy)}H{_num(mid - CELL)}M{_num(mid + CELL)} '
        f'{_num(cy)}H{_num(x + 33)}" stroke="{PAL.ink}" stroke-width="3.2"/>'
    )
    box = (
        f'<rect x="{_num(x + 3)}" y="{_num(cy - 9)}" width="28" height="18" fill="{{fill}}" '
        f'stroke="{PAL.ink}" stroke-width="1"/>'
    )
    if key == "door":
        return gap_wall + _g(mid, cy, 0, _door(2 * CELL))
    if key == "secret_door":
        return wall + _secret_mark(mid, cy)
    if key == "one_way_door":
        return gap_wall + _g(mid, cy, 0, _one_way(2 * CELL, True))
    if key == "archway":
        return gap_wall + _g(mid, cy, 0, _archway(2 * CELL))
    if key == "opening":
        return gap_wall + _g(mid, cy, 0, _jambs(2 * CELL))
    if key in ("stairs_down", "stairs_up"):
        return _g(x + 6, cy, 270, _stairs(18, key == "stairs_down"))
    if key == "trapdoor":
        return _g(mid, cy, 0, _trapdoor(CELL + 4))
    if key == "shaft":
        return _g(mid, cy, 0, _shaft(CELL + 4))
    if key == "elevator":
        return (
            f'<rect x="{_num(x + 3)}" y="{_num(cy - 10)}" width="28" height="20" '
            f'fill="{PAL.floor}" stroke="{PAL.ink}" stroke-width="1.6"/>'
            + _platform_box(x + 7, cy - 6, 20, 12)
        )
    if key == "unexplored":
        return (
            wall.replace(f"H{_num(x + 33)}", f"H{_num(x + 8)}")
            + _g(x + 6, cy, 270, _unexplored())
            + _label(x + 30, cy, "?", 14, colour=PAL.exit)
        )
    if key == "water":
        return (
            box.format(fill=PAL.water)
            + f'<rect x="{_num(x + 3)}" y="{_num(cy - 9)}" width="28" height="18" '
            'fill="url(#ripples)"/>'
        )
    if key in ("river", "stream"):
        colour = PAL.river if key == "river" else PAL.water
        return (
            f'<rect x="{_num(x + 1)}" y="{_num(cy - 7)}" width="32" height="14" '
            f'fill="{colour}"/><rect x="{_num(x + 1)}" y="{_num(cy - 7)}" width="32" '
            'height="14" fill="url(#flow-ew)"/>'
            f'<path d="M{_num(x + 1)} {_num(cy - 7)}h32M{_num(x + 1)} {_num(cy + 7)}h32" '
            f'stroke="{PAL.water_line}" stroke-width="1.6"/>'
        )
    if key == "chasm":
        return (
            f'<rect x="{_num(x + 1)}" y="{_num(cy - 7)}" width="32" height="14" '
            f'fill="{PAL.chasm}"/>'
            f'<path d="M{_num(x + 1)} {_num(cy - 7)}h32M{_num(x + 1)} {_num(cy + 7)}h32" '
            f'stroke="{PAL.ink}" stroke-width="2" stroke-dasharray="5 2 2 2"/>'
        )
    if key == "bridge":
        return (
            f'<rect x="{_num(x + 1)}" y="{_num(cy - 7)}" width="32" height="14" '
            f'fill="{PAL.river}"/>'
            f'<rect x="{_num(x + 11)}" y="{_num(cy - 9)}" width="12" height="18" '
            f'fill="{PAL.wood}"/><path d="M{_num(x + 11)} {_num(cy - 9)}v18M{_num(x + 23)} '
            f'{_num(cy - 9)}v18" stroke="{PAL.ink}" stroke-width="2"/>'
        )
    if key == "boat":
        return _g(mid, cy, 0, _boat())
    if key == "well":
        return (
            f'<circle cx="{_num(mid)}" cy="{_num(cy)}" r="8.7" fill="{PAL.floor}" '
            f'stroke="{PAL.ink}" '
            f'stroke-width="1.8"/><circle cx="{_num(mid)}" cy="{_num(cy)}" r="5.3" '
            f'fill="{PAL.water_deep}" stroke="{PAL.ink}" stroke-width="1"/>'
        )
    if key == "columns":
        return "".join(
            f'<circle cx="{_num(mid + dx)}" cy="{_num(cy)}" r="4.2" fill="{PAL.ink}"/>'
            for dx in (-9, 0, 9)
        )
    if key == "gallery":
        return (
            f'<rect x="{_num(x + 3)}" y="{_num(cy - 8)}" width="28" height="16" fill="none" '
            f'stroke="{PAL.ink}" stroke-width="1.4" stroke-dasharray="4 3"/>'
        )
    if key == "rubble":
        return "".join(
            f'<circle cx="{_num(mid + dx)}" cy="{_num(cy + dy)}" r="{r}" '
            f'fill="#8a8175" stroke="{PAL.ink}" stroke-width="0.6"/>'
            for dx, dy, r in ((-8, 2, 2.2), (-2, -3, 1.8), (4, 3, 2.6), (9, -2, 1.6))
        )
    if key == "stairs":
        return (
            f'<path d="M{_num(x + 6)} {_num(cy - 8)}v16M{_num(x + 12)} {_num(cy - 8)}v16'
            f'M{_num(x + 18)} {_num(cy - 8)}v16M{_num(x + 24)} {_num(cy - 8)}v16" '
            f'stroke="{PAL.ink}" stroke-width="1.1"/>'
        )
    if key == "blocked":
        return gap_wall + _g(mid, cy, 0, _door(2 * CELL) + _blocked())
    if key == "trap":
        return _trap_mark(mid, cy)
    if key == "entrance":
        return _entrance_mark(mid, cy)
    return ""


def _legend(
    used: Collection[str], gm: bool, lang: str, width: int, top: int
) -> tuple[tuple[str, ...], int]:
    """The legend's entries for the symbols ``used``, in rows from ``top`` within
    ``width``, and its height."""
    return _legend_of(frozenset(used), gm, lang, width, top)


@lru_cache(maxsize=256)  # maps share their legends (a few sets of symbols, sizes, languages)
def _legend_of(
    used: frozenset[str], gm: bool, lang: str, width: int, top: int
) -> tuple[tuple[str, ...], int]:
    _ = _translator(lang)
    items = _legend_items(used, gm)
    labels = [_(msgid) for _key, msgid in items]
    spots, bottom = legend_flow(
        labels,
        left=float(MARGIN),
        right=width - MARGIN,
        top=float(top),
        mark_w=42,
        gap=22,
        row_h=28,
    )
    out = [
        f'<g class="legend-item" data-key="{key}">{_legend_symbol(key, x, y + 11)}'
        f"{sans_text(x + 42, y + 16, label, 14, PAL.ink)}</g>"
        for (key, _msgid), label, (x, y) in zip(items, labels, spots, strict=True)
    ]
    return tuple(out), int(bottom - top)


@lru_cache(maxsize=64)  # the same in every map of a size and language
def _scale_bar(x: float, y: float, lang: str) -> str:
    """Three 10-ft squares, alternately ink and paper, with feet and metres."""
    _ = _translator(lang)
    seg = 2 * CELL
    parts = []
    for i in range(3):
        fill = PAL.ink if i % 2 == 0 else PAL.floor
        parts.append(
            f'<rect x="{_num(x + i * seg)}" y="{_num(y)}" width="{seg}" height="7" '
            f'fill="{fill}" stroke="{PAL.ink}" stroke-width="1"/>'
        )
    for i, (ft, m) in enumerate(((0, 0), (10, 3), (20, 6), (30, 9))):
        parts.append(
            f'<text x="{_num(x + i * seg)}" y="{_num(y - 4)}" '
            f'font-family="{SVG_FONT_SANS}" font-size="11" text-anchor="middle" '
            f'fill="{PAL.muted}">{ft}</text>'
        )
        parts.append(
            f'<text x="{_num(x + i * seg)}" y="{_num(y + 19)}" '
            f'font-family="{SVG_FONT_SANS}" font-size="11" text-anchor="middle" '
            f'fill="{PAL.muted}">{m}</text>'
        )
    feet, metres = _escape(_("ft")), _escape(_("m"))
    parts.append(
        f'<text x="{_num(x + 3 * seg + 10)}" y="{_num(y + 4)}" '
        f'font-family="{SVG_FONT_SANS}" font-size="12" fill="{PAL.muted}">'
        f"{feet}</text>"
    )
    parts.append(
        f'<text x="{_num(x + 3 * seg + 10)}" y="{_num(y + 19)}" '
        f'font-family="{SVG_FONT_SANS}" font-size="12" fill="{PAL.muted}">'
        f"{metres}</text>"
    )
    label = _("1 square = 10 ft / 3 m")
    parts.append(
        f'<text x="{_num(x + 3 * seg + 48)}" y="{_num(y + 11)}" '
        f'font-family="{SVG_FONT_SANS}" font-size="12" fill="{PAL.muted}">'
        f"{_escape(label)}</text>"
    )
    return f'<g class="scale">{"".join(parts)}</g>'


@lru_cache(maxsize=64)  # the same in every map of a width
def _compass(cx: float, cy: float) -> str:
    return (
        f'<g class="compass" transform="translate({_num(cx)} {_num(cy)})">'
        f'<path d="M0 -15L6 6L0 2L-6 6z" fill="{PAL.ink}"/>'
        f'<text y="20" font-family="{SVG_FONT_SERIF}" font-size="12" font-weight="bold" '
        f'text-anchor="middle" fill="{PAL.ink}">N</text></g>'
    )


def title_text(doc: Doc, depth: int, lang: str) -> str:
    """ "Zufallslabyrinth – Seed 42 – Ebene 1" in the requested language."""
    _ = _translator(lang)
    return _("{rules} – seed {seed} – level {depth}").format(
        rules=rules_name(str(doc.get("rules", ""))), seed=doc.get("seed", "?"), depth=depth
    )


def doc_lang(doc: Doc, lang: str | None) -> str:
    """``lang`` when given, else the document's own language (``"lang"``; English when it
    names none): no renderer falls back to German for an Italian document."""
    return lang or str(doc.get("lang") or "en")


def render_svg(
    doc: Doc,
    *,
    depth: int = 1,
    view: str = "gm",
    lang: str | None = None,
    style: str = "classic",
    bare: bool = False,
) -> str:
    """Level ``depth`` of the dungeon document ``doc`` as an SVG map.

    ``view`` ``gm`` shows everything; ``player`` shows what the players can know
    (:mod:`kerker.dungeon.player`): no secret door (plain wall), no area reachable only
    through one (rock), no trap, no ``gm_only`` connection. Refuses an unknown view or level with
    :class:`OptionError`. ``lang`` defaults to the document's language. ``style``
    (:data:`STYLES`): ``print`` saves ink (white paper); ``bare``: the map alone, without
    title, scale bar and legend (for projection). Same document, depth, view, language and
    style -> the same bytes.
    """
    _check_view(view)
    _check_style(style)
    lang = doc_lang(doc, lang)
    level = _level(doc, depth)
    if view == "player":
        level = player_level(level, player_areas(doc), contents=False)
    return _svg(doc, depth, level, _Map(level), view == "gm", lang, style, bare)


def render_views(
    doc: Doc,
    *,
    depth: int = 1,
    lang: str | None = None,
    views: Sequence[str] = VIEWS,
    style: str = "classic",
    bare: bool = False,
) -> dict[str, str]:
    """Level ``depth`` of ``doc`` in each of ``views``: ``{view: svg}``, each the same bytes
    as :func:`render_svg` gives for that view, faster than one call per view (what every
    view shares is drawn once). Refuses an unknown view or level with :class:`OptionError`.
    """
    for view in views:
        _check_view(view)
    _check_style(style)
    lang = doc_lang(doc, lang)
    level = _level(doc, depth)
    drawing = _Map(level)
    out: dict[str, str] = {}
    for view in views:
        shown, shown_map = level, drawing
        if view == "player":
            shown = player_level(level, player_areas(doc), contents=False)
            if shown is not level:
                shown_map = _Map(shown)
        out[view] = _svg(doc, depth, shown, shown_map, view == "gm", lang, style, bare)
    return out


def _svg(
    doc: Doc,
    depth: int,
    level: Mapping[str, Any],
    drawing: _Map,
    gm: bool,
    lang: str,
    style: str = "classic",
    bare: bool = False,
) -> str:
    """One view of a level as an SVG document."""
    _ = _translator(lang)
    x0, y0, x1, y1 = drawing.bounds()
    map_w = (x1 - x0) * CELL
    map_h = (y1 - y0) * CELL
    body, used = drawing.draw(gm)
    paper = PAL.paper if style == "classic" else PAL.floor
    title = title_text(doc, depth, lang)
    if bare:  # the map alone, edge to edge
        return (
            "\n".join(
                [
                    svg_head(map_w, map_h),
                    title_element(title),
                    _defs(style),
                    background(map_w, map_h, paper),
                    f'<g class="map" transform="translate({-x0 * CELL} {-y0 * CELL})">',
                    *body,
                    "</g>",
                    "</svg>",
                ]
            )
            + "\n"
        )
    width = max(map_w + 2 * MARGIN, MIN_WIDTH)
    ox = (width - map_w) // 2
    oy = TITLE_H

    lw, lh = int(level.get("width", 0)), int(level.get("height", 0))
    sub = [
        _("{w} × {h} squares ({fw} × {fh} ft)").format(w=lw // 2, h=lh // 2, fw=lw * 5, fh=lh * 5),
        area_count_text(drawing.areas, _),
        _("game master's map") if gm else _("players' map"),
    ]
    head: list[str] = [
        *title_block(title, sub, PAL, x=MARGIN, title_y=34, sub_y=57, cls="title"),
        _compass(width - MARGIN - 10, 36),
    ]
    tx, ty = ox - x0 * CELL, oy - y0 * CELL
    frame = (
        f'<rect x="{ox}" y="{oy}" width="{map_w}" height="{map_h}" fill="none" '
        f'stroke="{PAL.muted}" stroke-width="1"/>'
    )
    top = oy + map_h + 34
    scale = _scale_bar(MARGIN + 8, top, lang)
    top += 36
    legend, legend_h = _legend(used, gm, lang, width, top)
    total_h = top + legend_h + MARGIN - 8
    svg = [
        svg_head(width, total_h),
        title_element(title),
        _defs(style),
        background(width, total_h, PAL.sheet),
        f'<rect x="{ox}" y="{oy}" width="{map_w}" height="{map_h}" fill="{paper}"/>',
        *head,
        f'<g class="map" transform="translate({tx} {ty})">',
        *body,
        "</g>",
        frame,
        scale,
        '<g class="legend">',
        *legend,
        "</g>",
        "</svg>",
    ]
    return "\n".join(svg) + "\n"


PNG_SCALE = 1.5
"""PNG pixels per SVG unit: a 10-ft square is 42 pixels, area numbers 24 pixels high, sharp
on screen (the SVG is the print format). 2.0 took 2 x the time (PNG encoding dominates)."""


def render_png(
    doc: Doc,
    *,
    depth: int = 1,
    view: str = "gm",
    lang: str | None = None,
    scale: float = PNG_SCALE,
    style: str = "classic",
    bare: bool = False,
    fit: bool = True,
) -> bytes:
    """The SVG of :func:`render_svg` drawn as PNG by libvips with kerker's own fonts.

    A map too large for :data:`kerker.render.png.MAX_PIXELS` at ``scale`` is drawn at the
    largest scale that fits; with ``fit=False`` it is refused with a ``RenderError``.
    """
    svg = render_svg(doc, depth=depth, view=view, lang=lang, style=style, bare=bare)
    return map_png(svg, scale=scale, fit=fit)


class TabletopMap:
    """One level's map for a virtual tabletop (:mod:`kerker.export`): only the map inside
    its frame (no title, legend or scale bar), and the walls and openings it draws, so that
    the walls written for a tabletop are the ones on its picture. Refuses an unknown level
    with :class:`OptionError`."""

    OPEN_WALL = frozenset(_OPEN_WALL)
    """The kinds of connection that open their wall in the map (a secret door does not)."""

    def __init__(self, doc: Doc, depth: int = 1, view: str = "gm") -> None:
        _check_view(view)
        level = _level(doc, depth)
        if view == "player":  # the players' map: what only a secret door leads to is rock
            level = player_level(level, player_areas(doc), contents=False)
        self.level = level
        self._map = _Map(self.level)
        self.connections: list[Mapping[str, Any]] = self._map.all_conns

    @property
    def bounds(self) -> tuple[int, int, int, int]:
        """The cells the map shows: ``x0, y0, x1, y1`` (x1, y1 exclusive), all even (the
        10-ft grid)."""
        return self._map.bounds()

    def shown(self, view: str) -> list[int]:
        """The indices of the connections ``view`` shows."""
        _check_view(view)
        return self._map.conns(view == "gm")

    def cut(self, i: int) -> tuple[set[Cell], set[Cell]]:
        """The unit edges (horizontal, vertical; as in :meth:`Outline.borders`) connection
        ``i`` opens when it is drawn open."""
        return self._map.cut(i)

    def wall_lines(self, opening: Collection[int]) -> list[list[FPoint]]:
        """The walls with the connections ``opening`` (indices) open, as polylines in half
        cells (see :meth:`_Map.wall_lines`); ``opening`` = the :data:`OPEN_WALL`
        connections a view shows gives the walls that view draws."""
        return self._map.wall_lines(opening)

    def svg(self, view: str, width: int, height: int, numbers: bool = True) -> str:
        """The map alone as an SVG of ``width`` x ``height`` units (the picture's pixels),
        the frame's cells stretched over it; ``numbers`` False leaves out area numbers."""
        _check_view(view)
        x0, y0, x1, y1 = self.bounds
        body, _used = self._map.draw(view == "gm", numbers)
        vb = f"{x0 * CELL} {y0 * CELL} {(x1 - x0) * CELL} {(y1 - y0) * CELL}"
        return (
            "\n".join(
                [
                    f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                    f'viewBox="{vb}" preserveAspectRatio="none">',
                    _defs(),
                    f'<rect x="{x0 * CELL}" y="{y0 * CELL}" width="{(x1 - x0) * CELL}" '
                    f'height="{(y1 - y0) * CELL}" fill="{PAL.paper}"/>',
                    *body,
                    "</svg>",
                ]
            )
            + "\n"
        )


__all__ = [
    "PNG_SCALE",
    "STYLES",
    "VIEWS",
    "TabletopMap",
    "doc_lang",
    "is_unexplored",
    "level_mark",
    "render_png",
    "render_svg",
    "render_views",
    "rules_name",
    "title_text",
]
