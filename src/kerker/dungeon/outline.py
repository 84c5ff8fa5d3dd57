"""Outlines of cell sets, drawn the way a hand-drawn map draws them.

The dungeon model is cells on a 5-ft grid, so a 45° corridor or a round room is a staircase of
cells. The maps draw the real shape instead: :func:`loops` traces the outline of a cell set as
closed loops of lattice points, :func:`smooth` turns staircases into slanted walls, and
:func:`scan` clips grid lines to the smoothed outline. The cells themselves never change.

Smoothing cuts corners of a loop; a cut corner is replaced by a chord between a point on its
incoming and a point on its outgoing side:

- **45° staircases** (everywhere): a run of at least three unit steps that alternate left and
  right turns (two steps down, two across) becomes one straight diagonal through the middles
  of its steps; half a cell of the straight walls on both ends goes into the diagonal.
- **round and slanted areas** (``general``): every corner next to a short side (at most
  ``short`` cells) is cut, a short side from its middle, a long one half a cell from the
  corner; then the points of those cuts that lie within a quarter cell of a longer straight
  line are dropped. So circles, ovals, hexagons, triangles, trapezoids and caves follow their
  shape (a hexagon's slanted side is one line).
- **pinned** points never move and stay vertices: whatever the caller pins (the maps pin the
  ends of every wall a connection sits on, the ends of walls between two areas and the
  points where cells of two areas touch only at a corner).

Coordinates are returned in half cells (integers): a lattice point ``(x, y)`` is
``(2x, 2y)``. Loops keep the floor on their right (screen coordinates, y down): outer loops run
clockwise, holes anticlockwise. Everything is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from operator import itemgetter

Cell = tuple[int, int]
Point = tuple[int, int]

# Directions in screen coordinates (y down), clockwise.
_E, _S, _W, _N = (1, 0), (0, 1), (-1, 0), (0, -1)


class Outline:
    """The outline of a cell set, traced once: its loops (see :func:`loops`), their corners
    and their smoothed polygons (see :func:`smooth`).

    ``grow`` traces the cells plus every cell that touches one (diagonally too).
    """

    def __init__(self, cells: Collection[Cell], *, grow: bool = False) -> None:
        # Points and cells are ints while tracing, ``x * m + y - lo`` (a cell is coded as its
        # top left point): int sums and hashes are much faster than tuples, the codes sort
        # like the (x, y) tuples and are dense, so the hash tables see no collisions.
        ys = list(map(itemgetter(1), cells)) or [0]
        lo = min(ys) - 2
        m = max(ys) - lo + 4
        self._m, self._lo = m, lo
        codes = {x * m + y - lo for x, y in cells}
        if grow:  # C-level set algebra: one row of cells up and down, then left and right
            codes = codes.union(map((1).__add__, codes), map((-1).__add__, codes))
            codes = codes.union(map(m.__add__, codes), map((-m).__add__, codes))
        self._loops, self._pinch = self._trace(codes)

    @property
    def pinches(self) -> set[Point]:
        """The points where two cells touch only at a corner (twice on the outline)."""
        return set(self._points(self._pinch))

    def loops(self) -> list[list[Point]]:
        """The loops of lattice points, one point per unit step (see :func:`loops`)."""
        return [self._points(loop) for loop in self._loops]

    def corners(self, keep: Collection[Point] = ()) -> list[list[Point]]:
        """Each loop's corners (see :func:`corners`), plus the points in ``keep``."""
        m, lo = self._m, self._lo
        kept = {x * m + y - lo for x, y in keep}
        out = []
        for loop in self._loops:
            before = loop[-1:] + loop[:-1]
            after = loop[1:] + loop[:1]
            out.append(self._points([q for p, q, r in zip(before, loop, after, strict=True)
                                     if q - p != r - q or q in kept]))
        return out

    def smooth(self, pinned: Collection[Point] = (),
               general: Callable[[Cell], bool] | None = None, short: int = 2
               ) -> list[list[Point]]:
        """Each loop smoothed like :func:`smooth` does it."""
        return [_smooth(cs, pinned, general, short) for cs in self.corners(pinned)]

    def _points(self, codes: Iterable[int]) -> list[Point]:
        m, lo = self._m, self._lo
        return [(c // m, c % m + lo) for c in codes]

    def _trace(self, s: set[int]) -> tuple[list[list[int]], dict[int, tuple[int, int]]]:
        """The loops (as codes) and the pinch points with their two steps out."""
        m = self._m
        # Cells with no neighbour above, right, below, left.
        top = s.difference(map((1).__add__, s))
        right = s.difference(map((-m).__add__, s))
        bottom = s.difference(map((-1).__add__, s))
        left = s.difference(map(m.__add__, s))
        # The unit steps: along the top of a cell (x, y) -> (x+1, y), down its right side
        # from (x+1, y), along its bottom from (x+1, y+1) west, up its left from (x, y+1).
        right = set(map(m.__add__, right))
        bottom = set(map((m + 1).__add__, bottom))
        left = set(map((1).__add__, left))
        succ = dict(zip(top, map(m.__add__, top), strict=True))
        succ.update(zip(right, map((1).__add__, right), strict=True))
        succ.update(zip(bottom, map((-m).__add__, bottom), strict=True))
        succ.update(zip(left, map((-1).__add__, left), strict=True))
        # Two cells touching only at a corner: two steps out of that point.
        pinch = {p: (p + m, p - m) for p in top & bottom}
        pinch.update((p, (p + 1, p - 1)) for p in right & left)
        turn_left = {m: -1, 1: m, -m: 1, -1: -m}  # a step -> the step after a left turn
        seen: set[int] = set()  # points whose single step out is taken
        taken: set[tuple[int, int]] = set()  # steps out of pinch points taken
        out: list[list[int]] = []
        for start in sorted(succ):
            if start in pinch:
                firsts: Sequence[int] = sorted(pinch[start])
            elif start in seen:
                continue
            else:
                firsts = (succ[start],)
            for first in firsts:
                if start in pinch:
                    if (start, first) in taken:
                        continue
                    taken.add((start, first))
                else:
                    seen.add(start)
                loop = [start]
                p, q = start, first
                while True:
                    if q in pinch:
                        # Turn left: cells that touch at a corner stay in one loop.
                        want = q + turn_left[q - p]
                        one, two = pinch[q]
                        r = one if one == want else two
                        if (q, r) in taken:
                            break
                        taken.add((q, r))
                    else:
                        if q in seen:
                            break
                        seen.add(q)
                        r = succ[q]
                    loop.append(q)
                    p, q = q, r
                out.append(loop)
        return out, pinch


def loops(cells: Collection[Cell]) -> tuple[list[list[Point]], set[Point]]:
    """The outline of ``cells`` as closed loops of lattice points (one per unit step, the
    first point not repeated at the end), and the pinch points where two cells of the set
    touch only at a corner (a loop goes on through them: a 45° corridor one cell wide is one
    band, a pinch point lies twice on the outline).

    Loops keep the cells on their right and come in a fixed order (by their smallest edge).
    """
    traced = Outline(cells)
    return traced.loops(), traced.pinches


def corners(loop: Sequence[Point], keep: Callable[[Point], bool] = lambda _p: False
            ) -> list[Point]:
    """A traced loop's corners (lattice points): where it turns, plus every point ``keep``
    says to keep."""
    n = len(loop)
    out = []
    for i in range(n):
        ax, ay = loop[i - 1]
        bx, by = loop[i]
        cx, cy = loop[(i + 1) % n]
        if (bx - ax, by - ay) != (cx - bx, cy - by) or keep(loop[i]):
            out.append(loop[i])
    return out


def smooth(loop: Sequence[Point], pinned: Collection[Point] = (),
           general: Callable[[Cell], bool] | None = None, short: int = 2) -> list[Point]:
    """One traced loop (see :func:`loops`) with its staircases cut (see the module text).

    ``pinned`` lattice points never move and stay vertices of the result;
    ``general(cell)`` says whether the floor cell along a side belongs to a round or slanted
    area (all corners next to a side of at most ``short`` cells are cut there); without it
    only 45° staircases are cut. Returns the polygon in half cells, without collinear points
    (except pinned ones).
    """
    return _smooth(corners(loop, lambda p: p in pinned), pinned, general, short)


def _smooth(cs: Sequence[Point], pinned: Collection[Point],
            general: Callable[[Cell], bool] | None, short: int) -> list[Point]:
    """:func:`smooth` from the loop's corners (the pinned points among them)."""
    n = len(cs)
    if n < 4:
        return [(2 * x, 2 * y) for x, y in cs]
    dirs: list[Point] = []
    lengths: list[int] = []
    for i in range(n):
        (ax, ay), (bx, by) = cs[i], cs[(i + 1) % n]
        length = abs(bx - ax) + abs(by - ay)
        dirs.append(((bx - ax) // length, (by - ay) // length))
        lengths.append(length)
    # turn[i]: at corner i, from side i-1 into side i: 1 right, -1 left, 0 straight on.
    turn = []
    for i in range(n):
        (px, py), (qx, qy) = dirs[i - 1], dirs[i]
        cross = px * qy - py * qx
        turn.append((cross > 0) - (cross < 0))
    free = [turn[i] != 0 and cs[i] not in pinned for i in range(n)]
    gen = [general is not None and general(_inside(cs[i], dirs[i])) for i in range(n)]
    cut = [False] * n
    # 45° staircases: unit sides whose two corners turn opposite ways, at least 3 in a row.
    good = [lengths[i] == 1 and free[i] and free[(i + 1) % n]
            and turn[(i + 1) % n] == -turn[i] for i in range(n)]
    for first, count in _runs(good):
        if count >= 3:
            for k in range(count + 1):
                cut[(first + k) % n] = True
    for i in range(n):
        if free[i] and gen[i - 1] and gen[i] and min(lengths[i - 1], lengths[i]) <= short:
            cut[i] = True

    def depth(side: int) -> int:
        """How far (half cells) a cut goes into a side: its middle when it is short."""
        return lengths[side] if gen[side] and lengths[side] <= short else 1

    points: list[Point] = []
    keep: set[Point] = set()  # pinned: stay vertices
    soft: set[Point] = set()  # ends of cuts in round areas: may go into a longer line
    for i in range(n):
        x, y = cs[i]
        if not cut[i]:
            points.append((2 * x, 2 * y))
            if cs[i] in pinned:
                keep.add((2 * x, 2 * y))
            continue
        (px, py), (qx, qy) = dirs[i - 1], dirs[i]
        din, dout = depth(i - 1), depth(i)
        ends = ((2 * x - px * din, 2 * y - py * din), (2 * x + qx * dout, 2 * y + qy * dout))
        points.extend(ends)
        if gen[i]:
            soft.update(ends)
    pts = _simplify(points, keep)
    return _straighten(pts, soft) if soft else pts


def _inside(corner: Point, d: Point) -> Cell:
    """The cell on the right of the unit step from ``corner`` heading ``d``."""
    x, y = corner
    if d == _E:
        return (x, y)
    if d == _S:
        return (x - 1, y)
    if d == _W:
        return (x - 1, y - 1)
    return (x, y - 1)


def _runs(flags: Sequence[bool]) -> list[tuple[int, int]]:
    """Maximal cyclic runs of true flags as (first index, length)."""
    n = len(flags)
    if all(flags):
        return [(0, n)]
    start = next(i for i in range(n) if not flags[i])
    out = []
    i = 1
    while i <= n:
        j = (start + i) % n
        if flags[j]:
            first, count = j, 0
            while i <= n and flags[(start + i) % n]:
                count += 1
                i += 1
            out.append((first, count))
        i += 1
    return out


def _simplify(points: Sequence[Point], hard: Collection[Point]) -> list[Point]:
    """Without repeated and collinear points (hard points stay)."""
    pts: list[Point] = []
    for p in points:
        if not pts or pts[-1] != p:
            pts.append(p)
    while len(pts) > 1 and pts[0] == pts[-1]:
        pts.pop()
    changed = True
    while changed and len(pts) > 3:
        changed = False
        out: list[Point] = []
        n = len(pts)
        for i in range(n):
            p = pts[i]
            if p not in hard:
                ax, ay = out[-1] if out else pts[i - 1]
                bx, by = pts[(i + 1) % n]
                if (p[0] - ax) * (by - p[1]) == (p[1] - ay) * (bx - p[0]):
                    changed = True
                    continue
            out.append(p)
        pts = out
    return pts


def _straighten(pts: list[Point], soft: Collection[Point], tolerance: float = 1.0
                ) -> list[Point]:
    """Soft points dropped where the wall runs on straight without them: from each kept
    point the next kept one is the farthest that leaves every soft point skipped within
    ``tolerance`` (half cells) of the new side, if that side is at least two cells long.
    Other points are never skipped."""
    n = len(pts)
    fixed = [p not in soft for p in pts]
    if not any(fixed):
        fixed[0] = True
    if all(fixed):
        return pts
    first = fixed.index(True)
    pts = pts[first:] + pts[:first]
    fixed = fixed[first:] + fixed[:first]
    limit = tolerance * tolerance
    out = [pts[0]]
    i = 0
    while i < n:
        best = i + 1
        j = i + 1
        while j <= n and (j == i + 1 or _long(pts[i], pts[j % n])) and all(
                _dist2(pts[m], pts[i], pts[j % n]) <= limit for m in range(i + 1, j)):
            best = j
            if fixed[j % n]:
                break
            j += 1
        if best < n:
            out.append(pts[best])
        i = best
    return out


def _long(a: Point, b: Point) -> bool:
    """Whether a side is at least two cells long (shorter ones keep their points)."""
    return (b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2 >= 16


def _dist2(p: Point, a: Point, b: Point) -> float:
    """Squared distance of ``p`` from the line through ``a`` and ``b``."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    cross = (p[0] - a[0]) * dy - (p[1] - a[1]) * dx
    return cross * cross / (dx * dx + dy * dy or 1)


def scan(polygons: Iterable[Sequence[Point]], step: int, vertical: bool = False
         ) -> dict[int, list[tuple[float, float]]]:
    """Where the lines ``y = k * step`` (``x = ...`` when ``vertical``) run inside the
    polygons (even-odd), as ``{k * step: [(from, to), ...]}``; all in half cells."""
    cuts: dict[int, list[float]] = {}
    for poly in polygons:
        n = len(poly)
        for i in range(n):
            ax, ay = poly[i]
            bx, by = poly[(i + 1) % n]
            if vertical:
                ax, ay, bx, by = ay, ax, by, bx
            if ay == by:
                continue
            lo, hi = (ay, by) if ay < by else (by, ay)
            line = -(-lo // step) * step
            while line < hi:
                cuts.setdefault(line, []).append(ax + (line - ay) * (bx - ax) / (by - ay))
                line += step
    out: dict[int, list[tuple[float, float]]] = {}
    for line in sorted(cuts):
        xs = sorted(cuts[line])
        spans = [(xs[i], xs[i + 1]) for i in range(0, len(xs) - 1, 2) if xs[i + 1] > xs[i]]
        if spans:
            out[line] = spans
    return out


__all__ = ["Outline", "corners", "loops", "scan", "smooth"]
