"""Geometric checks of the caves' organic walls (tests/test_render_caves.py), on the
renderer's own polygons (:class:`kerker.dungeon.render_svg._Map`), in half cells."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from kerker.dungeon import render_svg as rs

Point = tuple[float, float]
Cell = tuple[int, int]


def cave_ids(level: Mapping[str, Any]) -> set[str]:
    """The ids of a level's cave areas the renderer redraws."""
    return {
        str(a["id"])
        for a in level.get("areas") or ()
        if (a.get("kind") == "cave" or a.get("shape") == "cave") and len(a.get("cells") or ()) > 4
    }


def _seg_dist(p: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    t = (
        0.0
        if length2 == 0
        else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2))
    )
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def cell_distance(p: Point, cells: set[Cell]) -> float:
    """Distance (half cells) from ``p`` to the union of ``cells`` (0 inside)."""
    cx, cy = math.floor(p[0] / 2), math.floor(p[1] / 2)
    best = math.inf
    for dx in range(-2, 3):
        for dy in range(-2, 3):
            c = (cx + dx, cy + dy)
            if c in cells:
                x0, y0 = 2 * c[0], 2 * c[1]
                ex = max(x0 - p[0], 0.0, p[0] - x0 - 2)
                ey = max(y0 - p[1], 0.0, p[1] - y0 - 2)
                best = min(best, math.hypot(ex, ey))
    return best


def sides(polys: Sequence[Sequence[Point]]) -> list[tuple[Point, Point]]:
    """Every side of the polygons."""
    out = []
    for poly in polys:
        n = len(poly)
        out += [(poly[i], poly[(i + 1) % n]) for i in range(n)]
    return out


class Walls:
    """The sides of polygons by bucket, for fast point queries."""

    def __init__(self, polys: Sequence[Sequence[Point]]) -> None:
        self.segs = sides(polys)
        self.cells: dict[tuple[int, int], list[int]] = {}
        self.rows: dict[int, list[int]] = {}
        for i, (a, b) in enumerate(self.segs):
            for bx in range(math.floor(min(a[0], b[0]) / 4), math.floor(max(a[0], b[0]) / 4) + 1):
                for by in range(
                    math.floor(min(a[1], b[1]) / 4), math.floor(max(a[1], b[1]) / 4) + 1
                ):
                    self.cells.setdefault((bx, by), []).append(i)
            for row in range(math.floor(min(a[1], b[1])), math.floor(max(a[1], b[1])) + 1):
                self.rows.setdefault(row, []).append(i)

    def inside(self, p: Point) -> bool:
        """Even-odd point in polygon."""
        hit = False
        px, py = p
        for i in self.rows.get(math.floor(py), ()):
            (x1, y1), (x2, y2) = self.segs[i]
            if (y1 > py) != (y2 > py) and px < x1 + (py - y1) * (x2 - x1) / (y2 - y1):
                hit = not hit
        return hit

    def distance(self, p: Point) -> float:
        """Distance from ``p`` to the nearest side, at most 4 half cells."""
        bx, by = math.floor(p[0] / 4), math.floor(p[1] / 4)
        best = 4.0
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for i in self.cells.get((bx + dx, by + dy), ()):
                    best = min(best, _seg_dist(p, *self.segs[i]))
        return best


def _cross(a: Point, b: Point, c: Point, d: Point) -> bool:
    def orient(p: Point, q: Point, r: Point) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    if len({a, b, c, d}) < 4:
        return False
    o1, o2, o3, o4 = orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)
    return o1 * o2 < 0 and o3 * o4 < 0


def crossings(polys: Sequence[Sequence[Point]]) -> list[tuple[Point, Point]]:
    """Pairs of sides of the polygons that cross (bucketed by 4 half cells)."""
    segs = sides(polys)
    buckets: dict[tuple[int, int], list[int]] = {}
    for i, (a, b) in enumerate(segs):
        for bx in range(math.floor(min(a[0], b[0]) / 4), math.floor(max(a[0], b[0]) / 4) + 1):
            for by in range(math.floor(min(a[1], b[1]) / 4), math.floor(max(a[1], b[1]) / 4) + 1):
                buckets.setdefault((bx, by), []).append(i)
    found = set()
    for members in buckets.values():
        for k, i in enumerate(members):
            for j in members[k + 1 :]:
                if _cross(*segs[i], *segs[j]):
                    found.add((min(i, j), max(i, j)))
    return [(segs[i][0], segs[j][0]) for i, j in sorted(found)]


def base_floor(tmap: rs._Map) -> list[list[Point]]:
    """The floors' outline before the caves are redrawn (straight and 45° sides)."""
    pinned, _cut = rs._pins(
        tmap.outline,
        tmap.owner,
        tmap.inner,
        [
            c
            for conn, c in zip(tmap.all_conns, tmap.pierced, strict=True)
            if conn.get("kind") not in rs._INSIDE_WAYS
        ],
    )
    return [
        [(float(x), float(y)) for x, y in p] for p in rs._floor(tmap.outline, pinned, tmap.rounded)
    ]
