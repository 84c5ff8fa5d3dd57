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

Cell = tuple[int, int]
Point = tuple[int, int]

# Directions in screen coordinates (y down), clockwise.
_E, _S, _W, _N = (1, 0), (0, 1), (-1, 0), (0, -1)


def loops(cells: Collection[Cell]) -> tuple[list[list[Point]], set[Point]]:
    """The outline of ``cells`` as closed loops of lattice points (one per unit step, the
    first point not repeated at the end), and the pinch points where two cells of the set
    touch only at a corner (a loop goes on through them: a 45° corridor one cell wide is one
    band, a pinch point lies twice on the outline).

    Loops keep the cells on their right and come in a fixed order (by their smallest edge).
    """
    s = cells if isinstance(cells, (set, frozenset, dict)) else set(cells)
    edges = ([((x, y), (x + 1, y)) for x, y in s if (x, y - 1) not in s]
             + [((x + 1, y), (x + 1, y + 1)) for x, y in s if (x + 1, y) not in s]
             + [((x + 1, y + 1), (x, y + 1)) for x, y in s if (x, y + 1) not in s]
             + [((x, y + 1), (x, y)) for x, y in s if (x - 1, y) not in s])
    succ: dict[Point, Point] = {}
    pinch: dict[Point, tuple[Point, Point]] = {}  # points with two steps out
    for a, b in edges:
        if a in succ:
            pinch[a] = (succ[a], b)
        else:
            succ[a] = b
    seen: set[Point] = set()  # points whose single step out is taken
    taken: set[tuple[Point, Point]] = set()  # steps out of pinch points taken
    out: list[list[Point]] = []
    for start in sorted(succ):
        for first in sorted(pinch[start]) if start in pinch else (succ[start],):
            if (start, first) in taken or (start not in pinch and start in seen):
                continue
            if start in pinch:
                taken.add((start, first))
            else:
                seen.add(start)
            loop = [start]
            p, q = start, first
            while True:
                if q in pinch:
                    # Turn left: cells that touch at a corner stay in one loop.
                    want = (q[0] + (q[1] - p[1]), q[1] - (q[0] - p[0]))
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
    return out, set(pinch)


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
    cs = corners(loop, lambda p: p in pinned)
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


__all__ = ["corners", "loops", "scan", "smooth"]
