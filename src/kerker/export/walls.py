"""The walls, doors and openings of a dungeon level for a virtual tabletop, in grid squares.

One grid square is 10 ft (two 5-ft cells of the document, the rule texts' "Innenmaßstab"),
origin at the top left of the map's frame (:attr:`TabletopMap.bounds`, aligned to the 10-ft
grid), x to the east, y to the south. A 5-ft corridor is half a square wide; the smoothed
walls of the map (45° diagonals, round rooms) sit on quarter squares.

Everything comes from the map renderer's own outline of the level
(:class:`kerker.dungeon.render_svg.TabletopMap`), which is traced from the cells of the
areas and the connections of the document: the walls are the polylines the map draws as
walls (the boundary between floor and rock, and every edge between two areas), cut where a
door, one-way door, archway, opening or stairs opens them, so a wall written here is a wall
on the picture. Doors (and secret doors, where asked for) are the cut edges of their
connection, merged into one straight span per connection.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from math import atan2
from typing import Any

from kerker.dungeon.organic import thinned
from kerker.dungeon.render_svg import TabletopMap
from kerker.errors import N_, OptionError

CELLS_PER_SQUARE = 2
"""5-ft cells of the document per 10-ft grid square."""
HALVES_PER_SQUARE = 2 * CELLS_PER_SQUARE
DOOR_KINDS = frozenset({"door", "one_way_door"})
"""Connections written as doors (portals): they open their wall and close it again."""
GAP_KINDS = frozenset({"archway", "opening", "stairs"})
"""Connections written as gaps in the wall (no portal)."""
SECRET_KINDS = frozenset({"secret_door"})
NOTE_KINDS = frozenset({"stairs", "trapdoor", "shaft", "elevator"})
"""Connections to another level: a note on the tabletop."""

XY = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Span:
    """A door (or secret door) across its wall: from ``a`` to ``b`` in squares."""

    conn: int
    kind: str
    a: XY
    b: XY

    @property
    def position(self) -> XY:
        """The midpoint of the span."""
        return ((self.a[0] + self.b[0]) / 2, (self.a[1] + self.b[1]) / 2)

    @property
    def rotation(self) -> float:
        """The span's direction in radians (0 along +x, y down)."""
        return atan2(self.b[1] - self.a[1], self.b[0] - self.a[0])


@dataclass(frozen=True, slots=True)
class LevelWalls:
    """One level ready for a tabletop: its map, frame, walls and doors (in squares)."""

    depth: int
    view: str
    map: TabletopMap
    size: tuple[int, int]
    walls: list[list[XY]]
    doors: list[Span]
    secret: list[Span]

    def to_squares(self, cell: Iterable[float]) -> XY:
        """A point in document cells (a cell's corner is ``(x, y)``, its middle
        ``(x + 0.5, y + 0.5)``) in squares of this map."""
        x, y = cell
        x0, y0, _x1, _y1 = self.map.bounds
        return ((x - x0) / CELLS_PER_SQUARE, (y - y0) / CELLS_PER_SQUARE)


def level_depths(doc: Mapping[str, Any]) -> list[int]:
    """The depths of the document's levels, in order."""
    return [int(level.get("depth", 1)) for level in doc.get("levels") or ()]


def level_walls(
    doc: Mapping[str, Any], depth: int = 1, view: str = "player", secret_doors: bool = False
) -> LevelWalls:
    """The walls and doors of level ``depth`` as the map of ``view`` draws them.

    ``secret_doors`` True also opens the walls where a secret door sits and lists those
    doors in :attr:`LevelWalls.secret` (for a tabletop that knows secret doors: Foundry);
    otherwise a secret door is wall, as the map draws it. Refuses an unknown level or view
    with :class:`OptionError`.
    """
    tmap = TabletopMap(doc, depth, view)
    shown = tmap.shown(view)
    conns = tmap.connections
    opening = [i for i in shown if conns[i].get("kind") in TabletopMap.OPEN_WALL]
    secret = (
        [i for i, c in enumerate(conns) if c.get("kind") in SECRET_KINDS] if secret_doors else []
    )
    x0, y0, x1, y1 = tmap.bounds
    if x1 <= x0 or y1 <= y0:
        raise OptionError(N_("level {depth} has nothing to draw"), depth=depth)
    ox, oy = 2 * x0, 2 * y0

    def squares(point: tuple[float, float]) -> XY:
        return ((point[0] - ox) / HALVES_PER_SQUARE, (point[1] - oy) / HALVES_PER_SQUARE)

    walls = [
        simplified([squares(p) for p in line])
        for line in tmap.wall_lines(sorted({*opening, *secret}))
        if len(line) > 1
    ]
    doors = _spans(tmap, [i for i in opening if conns[i].get("kind") in DOOR_KINDS], x0, y0)
    hidden = _spans(tmap, secret, x0, y0)
    size = ((x1 - x0) // CELLS_PER_SQUARE, (y1 - y0) // CELLS_PER_SQUARE)
    return LevelWalls(depth, view, tmap, size, walls, doors, hidden)


WALL_TOLERANCE = 0.03
"""Squares a tabletop wall may leave the map's line by (under 1 ft): a cave's organic wall,
drawn in many short strokes, becomes a few long ones (fewer wall documents in a VTT)."""


def simplified(line: list[XY], tolerance: float = WALL_TOLERANCE) -> list[XY]:
    """``line`` with the points dropped that lie within ``tolerance`` of the straight line
    between the points kept (:func:`kerker.dungeon.organic.thinned`); its ends are kept, so
    a closed line stays closed and every wall still meets the walls and doors it met."""
    return thinned(line, tolerance)


def _spans(tmap: TabletopMap, indices: Collection[int], x0: int, y0: int) -> list[Span]:
    """One span per connection (per unbroken run of its cut edges, should a wall between
    two areas break it): from one end of the run to the other."""
    out: list[Span] = []
    for i in indices:
        hor, ver = tmap.cut(i)
        edges = [((x, y), (x + 1, y)) for x, y in sorted(hor)]
        edges += [((x, y), (x, y + 1)) for x, y in sorted(ver)]
        kind = str(tmap.connections[i].get("kind"))
        for a, b in _runs(edges):
            out.append(Span(i, kind, _square(a, x0, y0), _square(b, x0, y0)))
    return out


Lattice = tuple[int, int]


def _square(point: Lattice, x0: int, y0: int) -> XY:
    return ((point[0] - x0) / CELLS_PER_SQUARE, (point[1] - y0) / CELLS_PER_SQUARE)


def _runs(edges: list[tuple[Lattice, Lattice]]) -> list[tuple[Lattice, Lattice]]:
    """Unit edges joined at shared points into chains (a straight wall piece, or the
    staircase of a 45° wall); each chain as its two ends, the smaller first."""
    parent: dict[Lattice, Lattice] = {}

    def root(p: Lattice) -> Lattice:
        while parent.setdefault(p, p) != p:
            p = parent[p]
        return p

    degree: dict[Lattice, int] = {}
    for a, b in edges:
        parent[root(a)] = root(b)
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
    chains: dict[Lattice, list[Lattice]] = {}
    for p in sorted(degree):
        chains.setdefault(root(p), []).append(p)
    out = []
    for points in chains.values():
        ends = [p for p in points if degree[p] == 1] or points
        # The two ends of a chain; anything else (never made by a wall) by its extremes.
        a, b = (ends[0], ends[-1]) if len(ends) == 2 else (min(points), max(points))
        out.append((a, b))
    return sorted(out)


__all__ = [
    "CELLS_PER_SQUARE",
    "DOOR_KINDS",
    "GAP_KINDS",
    "NOTE_KINDS",
    "SECRET_KINDS",
    "LevelWalls",
    "Span",
    "level_depths",
    "level_walls",
]
