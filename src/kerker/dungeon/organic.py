"""Cave walls drawn the way a game master draws them: organic, irregular lines.

The floors' smoothed outline (:mod:`kerker.dungeon.outline`) follows the cells with straight
and 45° sides. A cave's sides are redrawn here as a wandering line: the side is walked in
short steps, each step's point pushed along the wall's normal by a smooth two-scale value
noise (bays and knobs a few feet across, small jags on them), and the result rounded by
corner cutting. Everything about it is fixed by the cave and the place:

- the noise's values come from a hash of the cave's key (its number) and the lattice point
  (:func:`hashlib.blake2b`, never Python's salted ``hash`` or a random generator), so the
  same cave at the same place is drawn the same, whatever else the level holds;
- points the maps pin never move and stay vertices (the ends of every wall a connection
  sits on, the ends of walls between two areas, corner contacts); the push fades to nothing
  within :data:`FADE` half cells of them, so doors, openings and stairs sit on the wall as
  before, and the sides a connection opens (``keep``) are never touched;
- inward the push is at most :data:`INWARD` half cells and at most :data:`DEPTH_SHARE` of
  the cave's depth along the normal (a narrow neck is not closed), and none where the
  normal meets a guarded cell (a feature's or a connection's) before that: nothing drawn
  in the cave is cut; outward it is at most :data:`OUTWARD` half cells, and none where
  another area's floor lies behind the wall.

Coordinates are half cells (a lattice point ``(x, y)`` is ``(2x, 2y)``), as in
:mod:`kerker.dungeon.outline`; the polygons keep the floor on their right.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Collection, Mapping, Sequence
from functools import lru_cache
from itertools import pairwise

Cell = tuple[int, int]
Point = tuple[float, float]

INWARD = 1.3
"""Half cells a cave wall may move into the cave (about 4½ ft)."""
OUTWARD = 0.35
"""Half cells a cave wall may move into the rock (under 1 ft)."""
DEPTH_SHARE = 0.3
"""The share of the cave's depth along the wall's normal a wall may move inward."""
FADE = (0.75, 3.0)
"""Half cells from a pinned point: no push within the first, the full push beyond the
second, a smooth ramp between."""
BEYOND = 0.35
"""Half cells a redrawn wall may lie outside the floor's cells at most, or as far as the
straight outline lay there (its slanted sides cross rock corners)."""
THIN = 0.05
"""Half cells a redrawn wall's points may be thinned out by (a third of a pixel)."""
STEP = 1.0
"""Half cells between the points of a redrawn side (before corner cutting)."""
_SCALES = ((5.0, 1.0), (2.0, 0.38))  # noise lattice (half cells) and weight, per octave
_BUCKET = 8.0
_EVEN = 4  # passes of evening out


@lru_cache(maxsize=65536)
def _lattice(key: str, octave: int, ix: int, iy: int) -> float:
    """A value in [-1, 1] for one lattice point of one cave's noise (seed-stable)."""
    digest = hashlib.blake2b(f"{key}|{octave}|{ix}|{iy}".encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big") / 0x7FFFFFFF - 1.0


def _fade(t: float) -> float:
    return t * t * (3.0 - 2.0 * t)


def noise(key: str, x: float, y: float) -> float:
    """The cave ``key``'s push at ``(x, y)`` (half cells), in about [-1, 1]: smooth value
    noise at two scales."""
    total = 0.0
    weights = 0.0
    for octave, (size, weight) in enumerate(_SCALES):
        gx, gy = x / size, y / size
        ix, iy = math.floor(gx), math.floor(gy)
        fx, fy = _fade(gx - ix), _fade(gy - iy)
        a = _lattice(key, octave, ix, iy)
        b = _lattice(key, octave, ix + 1, iy)
        c = _lattice(key, octave, ix, iy + 1)
        d = _lattice(key, octave, ix + 1, iy + 1)
        top = a + (b - a) * fx
        bottom = c + (d - c) * fx
        total += weight * (top + (bottom - top) * fy)
        weights += weight
    return total / weights * 1.6  # value noise rarely reaches its ends: stretch it


class _Near:
    """Pinned points by bucket, for the distance to the nearest."""

    def __init__(self, points: Collection[Point]) -> None:
        self.buckets: dict[tuple[int, int], list[Point]] = {}
        for p in points:
            self.buckets.setdefault(self._key(p), []).append(p)

    @staticmethod
    def _key(p: Point) -> tuple[int, int]:
        return int(p[0] // _BUCKET), int(p[1] // _BUCKET)

    def distance(self, p: Point) -> float:
        """The distance from ``p`` to the nearest point, at most :data:`_BUCKET`."""
        bx, by = self._key(p)
        best = _BUCKET
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for q in self.buckets.get((bx + dx, by + dy), ()):
                    best = min(best, math.hypot(p[0] - q[0], p[1] - q[1]))
        return best


def _cell(x: float, y: float) -> Cell:
    return math.floor(x / 2), math.floor(y / 2)


def _side_cave(
    a: Point, b: Point, caves: Mapping[Cell, str], floor: Collection[Cell]
) -> str | None:
    """The cave whose floor a side bounds, if any: the area of the first floor cell met
    going in from its middle (a slanted side crosses cells, so the cell just beside it may
    be rock)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy)
    if length == 0:
        return None
    nx, ny = -dy / length, dx / length  # the floor lies on the right (y down)
    for t in (0.5, 0.25, 0.75):
        mx, my = a[0] + dx * t, a[1] + dy * t
        for off in (0.5, 1.0, 1.5, 2.0):
            cell = _cell(mx + off * nx, my + off * ny)
            if cell in floor:
                return caves.get(cell)
    return None


def _resample(points: Sequence[Point]) -> list[Point]:
    """A polyline walked in steps of about :data:`STEP`, its vertices kept."""
    out: list[Point] = [points[0]]
    for a, b in pairwise(points):
        length = math.hypot(b[0] - a[0], b[1] - a[1])
        n = max(1, round(length / STEP))
        for k in range(1, n + 1):
            t = k / n
            out.append((a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t))
    return out


class Caves:
    """What the redrawing of one level's cave walls needs (see the module's text)."""

    def __init__(
        self,
        caves: Mapping[Cell, str],
        floor: Collection[Cell],
        pinned: Collection[Point],
        keep: Collection[tuple[Point, Point]],
        guarded: Collection[Cell],
    ) -> None:
        """``caves``: each cave cell and its cave's key; ``floor``: every floor cell of the
        level; ``pinned``: points that never move (half cells); ``keep``: sides never
        redrawn (both ways round); ``guarded``: cells a wall must not move into."""
        self.caves = caves
        self.floor = floor
        self.near = _Near(pinned)
        self.pinned = set(pinned)
        self.keep = set(keep)
        self.guarded = guarded

    def redraw(self, polys: Sequence[Sequence[Point]]) -> list[list[Point]]:
        """The polygons with every cave side redrawn; the others as they are."""
        return [self._polygon(poly) for poly in polys]

    def _polygon(self, poly: Sequence[Point]) -> list[Point]:
        n = len(poly)
        keys = [
            None
            if (poly[i], poly[(i + 1) % n]) in self.keep
            else _side_cave(poly[i], poly[(i + 1) % n], self.caves, self.floor)
            for i in range(n)
        ]
        if not any(keys):
            return list(poly)
        if all(keys) and len(set(keys)) == 1 and not any(p in self.pinned for p in poly):
            # A whole loop of one cave with nothing pinned: walk it round from its first point.
            return self._run([*poly, poly[0]], str(keys[0]), closed=True)[:-1]
        # Start at a vertex where the kind of side changes (or at a pinned point), so every
        # run of one cave's sides is walked whole.
        start = next((i for i in range(n) if keys[i] != keys[i - 1] or poly[i] in self.pinned), 0)
        out: list[Point] = []
        i = 0
        while i < n:
            j = (start + i) % n
            key = keys[j]
            if key is None:
                out.append(poly[j])
                i += 1
                continue
            run = [poly[j]]
            while i < n and keys[(start + i) % n] == key:
                run.append(poly[(start + i + 1) % n])
                i += 1
            out.extend(self._run(run, key)[:-1])
        return out

    def _run(self, run: Sequence[Point], key: str, closed: bool = False) -> list[Point]:
        """One cave's run of sides redrawn; its ends stay where they are (unless the run is a
        whole loop, ``closed``: its first point repeated at its end)."""
        pts = _resample(run)
        m = len(pts)
        if m < 3:
            return list(pts)
        ramps = [self._ramp(p, run, closed) for p in pts]
        if not closed:
            ramps[0] = ramps[-1] = 0.0
        # The cells' steps evened out first (a saw of single cells is no cave wall), then
        # the wall pushed in or out by the cave's noise.
        base = pts
        for _ in range(0 if closed else _EVEN):  # (a pillar would shrink to a dot)
            pts = _evened(pts, ramps, closed)
        moved: list[Point] = []
        for k, (x, y) in enumerate(pts):
            ramp = ramps[k]
            if ramp == 0.0:
                moved.append((x, y))
                continue
            ax, ay = pts[k - 1] if k > 0 else pts[-2]
            bx, by = pts[k + 1] if k < m - 1 else pts[1]
            dx, dy = bx - ax, by - ay
            length = math.hypot(dx, dy) or 1.0
            nx, ny = -dy / length, dx / length
            push = noise(key, x, y)
            if push > 0:
                push *= min(INWARD, self._room(x, y, nx, ny, key))
            else:
                push *= 0.0 if _cell(x - 0.5 * nx, y - 0.5 * ny) in self.floor else OUTWARD
            moved.append((x + nx * push * ramp, y + ny * push * ramp))
        # Nothing further into the rock than :data:`BEYOND` (the evening out pulls a notch's
        # tip outward), or than the straight outline was there: such a point goes back
        # towards where it was on the cells' outline. (The rock behind a wall may be an area
        # the players' map does not show: a wall never reaches the middle of its cells.)
        for k, (x, y) in enumerate(moved):
            if not ramps[k]:
                continue
            ox, oy = base[k]
            limit = max(BEYOND, _cell_distance((ox, oy), self.floor))
            if _cell_distance((x, y), self.floor) > limit:
                lo, hi = 0.0, 1.0
                for _ in range(8):
                    mid = (lo + hi) / 2
                    q = (ox + (x - ox) * mid, oy + (y - oy) * mid)
                    lo, hi = (mid, hi) if _cell_distance(q, self.floor) <= limit else (lo, mid)
                moved[k] = (ox + (x - ox) * lo, oy + (y - oy) * lo)
        fixed = [ramp == 0.0 for ramp in ramps]
        moved, fixed = _untangled(moved, fixed)
        smooth, fixed = _chaikin(moved, fixed, closed)
        smooth, fixed = _chaikin(smooth, fixed, closed)
        return [(round(x, 3), round(y, 3)) for x, y in thinned(smooth, THIN)]

    def _ramp(self, p: Point, run: Sequence[Point], closed: bool) -> float:
        """How much of the redrawing a point of a run gets: none within :data:`FADE`'s
        first distance of a pinned point (or of an open run's end) or next to a guarded
        cell, all beyond its second."""
        x, y = p
        cx, cy = _cell(x, y)
        if any((cx + dx, cy + dy) in self.guarded for dx in (-1, 0, 1) for dy in (-1, 0, 1)):
            return 0.0
        dist = self.near.distance(p)
        if not closed:
            dist = min(
                dist,
                math.hypot(x - run[0][0], y - run[0][1]),
                math.hypot(x - run[-1][0], y - run[-1][1]),
            )
        return _fade(min(1.0, max(0.0, (dist - FADE[0]) / (FADE[1] - FADE[0]))))

    def _room(self, x: float, y: float, nx: float, ny: float, key: str) -> float:
        """How far a wall at ``(x, y)`` may move inward (along ``(nx, ny)``): a share of the
        cave's depth there, none if a guarded cell comes first."""
        depth = 0.0
        inside = False
        steps = int(INWARD / DEPTH_SHARE / 0.5) + 1
        for j in range(1, steps + 1):
            cell = _cell(x + nx * 0.5 * j, y + ny * 0.5 * j)
            if cell in self.guarded:
                return max(0.0, 0.5 * (j - 2)) * 0.5
            if self.caves.get(cell) == key:
                depth = 0.5 * j
                inside = True
            elif inside or j > 3:  # a slanted wall may cross a cell of rock first
                break
        return depth * DEPTH_SHARE


def _evened(pts: Sequence[Point], ramps: Sequence[float], closed: bool) -> list[Point]:
    """One pass of evening out: each point half way to the middle of its neighbours, as
    much as its ramp allows (an open line's ends stay)."""
    m = len(pts)
    out: list[Point] = []
    for k, (x, y) in enumerate(pts):
        if ramps[k] == 0.0 or (not closed and k in (0, m - 1)):
            out.append((x, y))
            continue
        ax, ay = pts[k - 1] if k > 0 else pts[-2]
        bx, by = pts[k + 1] if k < m - 1 else pts[1]
        w = 0.5 * ramps[k]
        out.append((x + w * ((ax + bx) / 2 - x), y + w * ((ay + by) / 2 - y)))
    if closed:
        out[-1] = out[0]
    return out


def _chaikin(
    points: Sequence[Point], fixed: Sequence[bool], closed: bool
) -> tuple[list[Point], list[bool]]:
    """One pass of corner cutting: every point not ``fixed`` becomes two, a quarter of the
    way to each neighbour; a fixed point (and an open line's ends) stays as it is."""
    m = len(points)
    if m < 3:
        return list(points), list(fixed)
    out: list[Point] = []
    keep: list[bool] = []
    last = m - 1 if closed else m  # a closed line repeats its first point at its end
    for k in range(last):
        x, y = points[k]
        if fixed[k] or (not closed and k in (0, m - 1)):
            out.append((x, y))
            keep.append(True)
            continue
        ax, ay = points[k - 1] if k > 0 else points[-2]
        bx, by = points[k + 1]
        out.append((0.75 * x + 0.25 * ax, 0.75 * y + 0.25 * ay))
        out.append((0.75 * x + 0.25 * bx, 0.75 * y + 0.25 * by))
        keep += [False, False]
    if closed:
        out.append(out[0])
        keep.append(keep[0])
    return out, keep


def _crossing(a: Point, b: Point, c: Point, d: Point) -> Point | None:
    """Where the segments a-b and c-d cross (not at their ends), if they do."""
    rx, ry = b[0] - a[0], b[1] - a[1]
    sx, sy = d[0] - c[0], d[1] - c[1]
    den = rx * sy - ry * sx
    if den == 0:
        return None
    t = ((c[0] - a[0]) * sy - (c[1] - a[1]) * sx) / den
    u = ((c[0] - a[0]) * ry - (c[1] - a[1]) * rx) / den
    if 0 < t < 1 and 0 < u < 1:
        return a[0] + t * rx, a[1] + t * ry
    return None


def _untangled(
    points: list[Point], fixed: list[bool], window: int = 12
) -> tuple[list[Point], list[bool]]:
    """The line without the little loops a push can tie at a sharp corner: where two of
    its sides within ``window`` steps cross, the points between are replaced by the
    crossing (a fixed point among them stays: the loop is left)."""
    out, keep = list(points), list(fixed)
    i = 0
    while i < len(out) - 3:
        (ax, ay), (bx, by) = out[i], out[i + 1]
        lo_x, hi_x = min(ax, bx), max(ax, bx)
        lo_y, hi_y = min(ay, by), max(ay, by)
        for j in range(i + 2, min(i + window, len(out) - 1)):
            (cx, cy), (dx, dy) = out[j], out[j + 1]
            if max(cx, dx) < lo_x or min(cx, dx) > hi_x or max(cy, dy) < lo_y or min(cy, dy) > hi_y:
                continue
            hit = _crossing(out[i], out[i + 1], out[j], out[j + 1])
            if hit is not None and not any(keep[i + 1 : j + 1]):
                out[i + 1 : j + 1] = [hit]
                keep[i + 1 : j + 1] = [False]
                break
        else:
            i += 1
    return out, keep


def thinned(line: Sequence[Point], tolerance: float) -> list[Point]:
    """``line`` without the points that lie within ``tolerance`` of the straight line between
    the points kept (Douglas-Peucker), its ends kept."""
    if len(line) < 3:
        return list(line)
    keep = [False] * len(line)
    keep[0] = keep[-1] = True
    stack = [(0, len(line) - 1)]
    while stack:
        i, j = stack.pop()
        (ax, ay), (bx, by) = line[i], line[j]
        length = math.hypot(bx - ax, by - ay)
        best, far = -1.0, -1
        for k in range(i + 1, j):
            px, py = line[k]
            if length == 0:
                dist = math.hypot(px - ax, py - ay)
            else:
                dist = abs((bx - ax) * (ay - py) - (ax - px) * (by - ay)) / length
            if dist > best:
                best, far = dist, k
        if far > 0 and best > tolerance:
            keep[far] = True
            stack += [(i, far), (far, j)]
    return [p for p, kept in zip(line, keep, strict=True) if kept]


def _cell_distance(p: Point, cells: Collection[Cell]) -> float:
    """Distance (half cells) from ``p`` to the nearest of ``cells`` (0 on one), at most 4."""
    cx, cy = _cell(*p)
    if (cx, cy) in cells:
        return 0.0
    best = 4.0
    for dx in (-2, -1, 0, 1, 2):
        for dy in (-2, -1, 0, 1, 2):
            if (cx + dx, cy + dy) in cells:
                x0, y0 = 2 * (cx + dx), 2 * (cy + dy)
                ex = max(x0 - p[0], 0.0, p[0] - x0 - 2)
                ey = max(y0 - p[1], 0.0, p[1] - y0 - 2)
                best = min(best, math.hypot(ex, ey))
    return best


__all__ = ["DEPTH_SHARE", "FADE", "INWARD", "OUTWARD", "Caves", "noise", "thinned"]
