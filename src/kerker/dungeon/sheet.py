"""Room for the rolls: the sheet a level is drawn on when no ``--size`` is given.

Without ``--size`` a level is rolled on a plane of :data:`PLANE` squares, large enough for
the biggest area the tables roll (seed 000's cave of 30 x 40 squares, seed 001's colossal
cavern of up to 300' x 400'), and the frozen level is cut to the squares it uses plus a
margin of :data:`MARGIN` squares (:func:`crop`): the printed map is as large as the dungeon,
never larger than the plane. ``--size WxH`` stays a hard limit (a GM's fixed graph paper):
then the level is that sheet, uncut, and what does not fit on it is bent and keyed
(docs/dungeon.md, "Room for the rolls").
"""

from __future__ import annotations

from dataclasses import replace

from kerker.dungeon.model import Area, Connection, Feature, Level
from kerker.geometry.grid import CELLS_PER_SQUARE, Cell

PLANE = (64, 84)
"""Squares across and down of the plane a level grows on without ``--size``: the largest
rolled area (a 30 x 40 cave, a 300' x 400' cavern, each in a box a sixth larger) with room
to reach it. A cap: nothing grows beyond it."""
MARGIN = 1
"""Squares of rock kept round the used cells when the level is cut."""
WINDOW = (30, 40)
"""Squares of the middle of the plane where a way from another level arrives first (so a
deeper level does not scatter over the whole plane)."""


def crop(level: Level) -> Level:
    """``level`` cut to its used cells plus :data:`MARGIN` squares, shifted to start at
    whole squares (the grid stays on 10-ft lines); an empty level is returned as is."""
    cells = [c for a in level.areas for c in a.cells]
    cells += [c.at for c in level.connections]
    if not cells:
        return level
    m = MARGIN * CELLS_PER_SQUARE
    x0 = max(0, min(x for x, _ in cells) - m)
    y0 = max(0, min(y for _, y in cells) - m)
    x0 -= x0 % CELLS_PER_SQUARE
    y0 -= y0 % CELLS_PER_SQUARE
    x1 = min(level.width, max(x for x, _ in cells) + 1 + m)
    y1 = min(level.height, max(y for _, y in cells) + 1 + m)
    width = -(-(x1 - x0) // CELLS_PER_SQUARE) * CELLS_PER_SQUARE
    height = -(-(y1 - y0) // CELLS_PER_SQUARE) * CELLS_PER_SQUARE
    if (x0, y0, width, height) == (0, 0, level.width, level.height):
        return level

    def move(cell: Cell) -> Cell:
        return (cell[0] - x0, cell[1] - y0)

    def feature(f: Feature) -> Feature:
        return replace(f, cells=tuple(map(move, f.cells)))

    def area(a: Area) -> Area:
        return replace(
            a,
            cells=tuple(map(move, a.cells)),
            label_at=move(a.label_at),
            features=tuple(map(feature, a.features)),
        )

    def conn(c: Connection) -> Connection:
        return replace(c, at=move(c.at))

    return replace(
        level,
        width=width,
        height=height,
        areas=tuple(map(area, level.areas)),
        connections=tuple(map(conn, level.connections)),
        origin=(level.origin[0] + x0, level.origin[1] + y0),
    )
