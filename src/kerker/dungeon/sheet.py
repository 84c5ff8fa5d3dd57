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

from collections.abc import Iterable
from dataclasses import replace

from kerker.dungeon.model import Area, Connection, Level
from kerker.geometry.grid import CELLS_PER_SQUARE, bounds

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
    boxes = [bounds(a.cells) for a in level.areas if a.cells]
    boxes += [(c.at[0], c.at[1], c.at[0], c.at[1]) for c in level.connections]
    cut = crop_box(level.width, level.height, boxes)
    if cut is None:
        return level
    x0, y0, width, height = cut
    return replace(
        level,
        width=width,
        height=height,
        areas=tuple(crop_area(a, x0, y0) for a in level.areas),
        connections=tuple(crop_connection(c, x0, y0) for c in level.connections),
        origin=(level.origin[0] + x0, level.origin[1] + y0),
    )


def crop_box(
    width: int, height: int, boxes: Iterable[tuple[int, int, int, int]]
) -> tuple[int, int, int, int] | None:
    """Where :func:`crop` cuts a level of ``width`` x ``height`` cells whose used cells lie
    in ``boxes`` (inclusive ``(x0, y0, x1, y1)`` each: its areas' bounds, its connections'
    cells): ``(x0, y0, width, height)`` of the cut, or None when the level stays as it is
    (nothing used, or the cut is the whole level)."""
    boxes = list(boxes)
    if not boxes:
        return None
    m = MARGIN * CELLS_PER_SQUARE
    x0 = max(0, min(b[0] for b in boxes) - m)
    y0 = max(0, min(b[1] for b in boxes) - m)
    x0 -= x0 % CELLS_PER_SQUARE
    y0 -= y0 % CELLS_PER_SQUARE
    x1 = min(width, max(b[2] for b in boxes) + 1 + m)
    y1 = min(height, max(b[3] for b in boxes) + 1 + m)
    cut_w = -(-(x1 - x0) // CELLS_PER_SQUARE) * CELLS_PER_SQUARE
    cut_h = -(-(y1 - y0) // CELLS_PER_SQUARE) * CELLS_PER_SQUARE
    if (x0, y0, cut_w, cut_h) == (0, 0, width, height):
        return None
    return x0, y0, cut_w, cut_h


def crop_area(area: Area, x0: int, y0: int) -> Area:
    """``area`` on a level cut at ``(x0, y0)`` (:func:`crop_box`): its cells, label cell
    and features' cells moved."""

    x, y = area.label_at
    return replace(
        area,
        cells=tuple([(cx - x0, cy - y0) for cx, cy in area.cells]),
        label_at=(x - x0, y - y0),
        features=tuple(
            replace(f, cells=tuple([(cx - x0, cy - y0) for cx, cy in f.cells]))
            for f in area.features
        ),
    )


def crop_connection(conn: Connection, x0: int, y0: int) -> Connection:
    """``conn`` on a level cut at ``(x0, y0)`` (:func:`crop_box`)."""
    return replace(conn, at=(conn.at[0] - x0, conn.at[1] - y0))
