"""Outlines of cell sets, drawn the way a hand-drawn map draws them.

The dungeon model is cells on a 5-ft grid, so a 45° corridor or a round room is a staircase of
cells. The maps draw the real shape instead: :func:`loops` traces the outline of a cell set as
closed loops of lattice points, :func:`smooth` turns staircases into slanted walls, and
:func:`scan` clips grid lines to the smoothed outline (:class:`Outline` does the first two
for a whole cell set at once, faster). The cells themselves never change.

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

import copy
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from itertools import accumulate, chain, count
from operator import add, itemgetter

Cell = tuple[int, int]
Point = tuple[int, int]

# Directions in screen coordinates (y down), clockwise.
_E, _S, _W, _N = (1, 0), (0, 1), (-1, 0), (0, -1)


class Outline:
    """The outline of a cell set, traced once: its loops (see :func:`loops`), their corners
    and their smoothed polygons (see :func:`smooth`), the same as those functions give.

    Works on a grid of one byte per lattice point of the cells' bounding box: meant for
    maps (a few thousand cells close together), not for cells scattered far apart.
    """

    def __init__(self, *parts: Collection[Cell]) -> None:
        """The outline of the union of ``parts``, cell sets (a map's areas, say: a cell in
        several belongs to the last); :meth:`borders` gives the edges between two parts."""
        # Points and cells are ints while tracing, ``(x - x0) * m + y - y0`` (a cell is
        # coded as its top left point): they sort like the (x, y) tuples, sums replace tuple
        # arithmetic, and the set algebra of neighbours runs on one big int with a byte per
        # code (C-level bit operations instead of a Python loop per cell). The codes leave
        # two empty rows and columns around the cells (room to grow once and for the points).
        xs = list(chain.from_iterable(map(itemgetter(0), part) for part in parts)) or [0]
        ys = list(chain.from_iterable(map(itemgetter(1), part) for part in parts)) or [0]
        x0, y0 = min(xs) - 2, min(ys) - 2
        m = max(ys) - y0 + 3
        self._m, self._x0, self._y0 = m, x0, y0
        self._size = (max(xs) - x0 + 3) * m
        self._room = 1  # how often the cells may still grow within the codes
        # Each cell's byte is the number of its part (1 when they would not fit a byte).
        labelled = 1 < len(parts) < 256
        grid = bytearray(self._size)
        for k, part in enumerate(parts, 1):
            label = k if labelled else 1
            for x, y in part:
                grid[(x - x0) * m + y - y0] = label
        self._parts = parts
        self._labels = int.from_bytes(grid, "little") if labelled else None
        self._bits = int.from_bytes(grid.translate(_NONZERO) if labelled else grid, "little")
        self._steps()

    def grown(self) -> Outline:
        """The outline of the cells plus every cell that touches one (diagonally too)."""
        if not self._room:
            return Outline(self._points(self._codes(self._bits))).grown()
        out = copy.copy(self)
        bits, column = self._bits, 8 * self._m
        bits |= bits << 8 | bits >> 8  # a cell up and down
        out._bits = bits | bits << column | bits >> column  # then left and right
        out._room -= 1
        out._parts, out._labels = (), None
        out._steps()
        return out

    @property
    def pinches(self) -> set[Point]:
        """The points where two cells touch only at a corner (twice on the outline)."""
        top, right, bottom, left = self._masks
        return set(self._points(self._codes(top & bottom | right & left)))

    def borders(self) -> tuple[set[Cell], set[Cell]]:
        """The unit edges between cells of two different parts: horizontal ones ``(x, y)``
        from (x, y) to (x+1, y), between cells (x, y-1) and (x, y); vertical ones ``(x, y)``
        from (x, y) to (x, y+1), between cells (x-1, y) and (x, y). None for a grown
        outline."""
        if self._labels is None:
            return _borders(self._parts)
        cells, labels, size = self._bits, self._labels, self._size
        out = []
        for shift in (8, 8 * self._m):  # the cell above, the cell to the left
            mask = cells & cells << shift & _nonzero(labels ^ labels << shift, size)
            out.append(set(self._points(self._codes(mask))))
        return out[0], out[1]

    def loops(self) -> list[list[Point]]:
        """The loops of lattice points, one point per unit step (see :func:`loops`)."""
        return [self._points(loop) for loop in self._loops()]

    def corners(self, keep: Collection[Point] = ()) -> list[list[Point]]:
        """Each loop's corners (see :func:`corners`), plus the points in ``keep``."""
        m, x0, y0 = self._m, self._x0, self._y0
        kept = {(x - x0) * m + y - y0 for x, y in keep}
        walked = self._corners_pinched(kept) if self._pinched else self._corners(kept)
        return [self._points(loop) for loop in walked]

    def smooth(
        self,
        pinned: Collection[Point] = (),
        general: Callable[[Cell], bool] | None = None,
        short: int = 2,
    ) -> list[list[Point]]:
        """Each loop smoothed like :func:`smooth` does it."""
        return [_smooth(cs, pinned, general, short) for cs in self.corners(pinned)]

    def _points(self, codes: Iterable[int]) -> list[Point]:
        m, x0, y0 = self._m, self._x0, self._y0
        return [(c // m + x0, c % m + y0) for c in codes]

    def _codes(self, mask: int, shift: int = 0) -> Iterator[int]:
        """The codes (plus ``shift``) whose byte in ``mask`` is set: the k-th is after k
        ones and the zeros before it (C-level, no Python step per code)."""
        zeros = mask.to_bytes(self._size, "little").split(b"\x01")
        return map(add, accumulate(map(len, zeros[:-1])), count(shift))

    def _steps(self) -> None:
        """The steps along the outline: one byte per point code saying which way it goes
        on (bit 0 east, 1 south, 2 west, 3 north; two bits where cells touch only at a
        corner), and the points where a loop may start."""
        bits, m = self._bits, self._m
        up, across = 8, 8 * m  # shifts: one code (one row) and one column
        # The unit steps: along the top of a cell (x, y) east from (x, y), down its right
        # side from (x+1, y), along its bottom west from (x+1, y+1), up its left side from
        # (x, y+1): the start points of each, as one byte per code.
        top = bits & ~(bits << up)
        right = (bits & ~(bits >> across)) << across
        bottom = (bits & ~(bits >> up)) << (across + up)
        left = (bits & ~(bits << across)) << up
        self._masks = (top, right, bottom, left)
        self._pinched = bool(top & bottom or right & left)
        self._ways = (top | right << 1 | bottom << 2 | left << 3).to_bytes(self._size, "little")
        # A loop's smallest point has the cell below right of it and none of the other
        # three (outer loops) or the other way round (holes).
        below_right, above_right = bits, bits << up
        below_left, above_left = bits << across, bits << (across + up)
        self._starts = (
            below_right & ~(above_right | below_left | above_left)
            | above_right & below_left & above_left & ~below_right
        )
        self._traced: list[list[int]] | None = None

    def _corners(self, kept: set[int]) -> list[list[int]]:
        """The corners of the loops (codes), plus the points in ``kept``, when no cells
        touch only at a corner: each point has one way on (a byte lookup a step)."""
        m, ways = self._m, self._ways
        step_of = [0] * 9
        step_of[1], step_of[2], step_of[4], step_of[8] = m, 1, -m, -1
        seen: set[int] = set()  # corners of the loops walked
        out = []
        for start in self._codes(self._starts):
            if start in seen:
                continue
            first = step_of[ways[start]]
            step = first
            q = start + first
            loop = []
            while q != start:
                way = step_of[ways[q]]
                if way != step or q in kept:
                    loop.append(q)
                step = way
                q += way
            if first != step or start in kept:
                loop.insert(0, start)
            seen.update(loop)
            out.append(loop)
        return out

    def _corners_pinched(self, kept: set[int]) -> list[list[int]]:
        """:meth:`_corners` where cells touch only at a corner: the same walk, turning left
        at such a pinch point (as :meth:`_loops` does). A loop may start at a pinch point
        (its smallest point): one for each way out not walked yet, the smaller one first."""
        m, ways = self._m, self._ways
        top, right, bottom, left = self._masks
        step_of = [0] * 16
        step_of[1], step_of[2], step_of[4], step_of[8] = m, 1, -m, -1
        # A pinch point's byte: 5 (east and west out: in from the south goes on east, from
        # the north west) or 10 (south and north: in from the west goes south, from the east
        # north); the ways out of a loop's start there in the order of their next points.
        firsts_of: dict[int, tuple[int, ...]] = {5: (-m, m), 10: (-1, 1)}
        seen: set[int] = set()  # corners of the loops walked
        taken: set[tuple[int, int]] = set()  # (pinch point, way out) walked
        out = []
        for start in sorted(
            chain(self._codes(self._starts), self._codes(top & bottom | right & left))
        ):
            code = ways[start]
            firsts: tuple[int, ...]
            if code in firsts_of:
                firsts = firsts_of[code]
            elif start in seen:
                continue
            else:
                firsts = (step_of[code],)
            for first in firsts:
                if (start, first) in taken:
                    continue
                taken.add((start, first))
                step = first
                q = start + first
                loop = []
                while True:
                    code = ways[q]
                    if code == 5:
                        way = step * m
                    elif code == 10:
                        way = -step // m
                    else:
                        way = step_of[code]
                    if q == start and way == first:
                        break
                    if code == 5 or code == 10:
                        taken.add((q, way))
                    if way != step or q in kept:
                        loop.append(q)
                    step = way
                    q += way
                if first != step or start in kept:
                    loop.insert(0, start)
                seen.update(loop)
                out.append(loop)
        return out

    def _loops(self) -> list[list[int]]:
        """The loops (as codes), one point per unit step."""
        if self._traced is not None:
            return self._traced
        m, codes = self._m, self._codes
        top, right, bottom, left = self._masks
        succ = {p: p + m for p in codes(top)}
        succ.update({p: p + 1 for p in codes(right)})
        succ.update({p: p - m for p in codes(bottom)})
        succ.update({p: p - 1 for p in codes(left)})
        # Two cells touching only at a corner: two steps out of that point.
        pinch = {p: (p + m, p - m) for p in codes(top & bottom)}
        pinch.update((p, (p + 1, p - 1)) for p in codes(right & left))
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
        self._traced = out
        return out


_NONZERO = bytes([0] + [1] * 255)  # bytes.translate table: 1 for every byte but 0


def _nonzero(value: int, size: int) -> int:
    """A byte 1 where ``value`` (its lowest ``size`` bytes) has a byte other than 0."""
    low = value & ((1 << 8 * size) - 1)
    return int.from_bytes(low.to_bytes(size, "little").translate(_NONZERO), "little")


def _borders(parts: Sequence[Collection[Cell]]) -> tuple[set[Cell], set[Cell]]:
    """:meth:`Outline.borders` by looking up each cell's neighbours (for over 255 parts)."""
    owner: dict[Cell, int] = {}
    for k, part in enumerate(parts):
        owner.update(dict.fromkeys(part, k))
    hor: set[Cell] = set()
    ver: set[Cell] = set()
    for (x, y), k in owner.items():
        above = owner.get((x, y - 1))
        if above is not None and above != k:
            hor.add((x, y))
        left = owner.get((x - 1, y))
        if left is not None and left != k:
            ver.add((x, y))
    return hor, ver


def loops(cells: Collection[Cell]) -> tuple[list[list[Point]], set[Point]]:
    """The outline of ``cells`` as closed loops of lattice points (one per unit step, the
    first point not repeated at the end), and the pinch points where two cells of the set
    touch only at a corner (a loop goes on through them: a 45° corridor one cell wide is one
    band, a pinch point lies twice on the outline).

    Loops keep the cells on their right and come in a fixed order (by their smallest edge).
    """
    traced = Outline(cells)
    return traced.loops(), traced.pinches


def corners(loop: Sequence[Point], keep: Callable[[Point], bool] = lambda _p: False) -> list[Point]:
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


def smooth(
    loop: Sequence[Point],
    pinned: Collection[Point] = (),
    general: Callable[[Cell], bool] | None = None,
    short: int = 2,
) -> list[Point]:
    """One traced loop (see :func:`loops`) with its staircases cut (see the module text).

    ``pinned`` lattice points never move and stay vertices of the result;
    ``general(cell)`` says whether the floor cell along a side belongs to a round or slanted
    area (all corners next to a side of at most ``short`` cells are cut there); without it
    only 45° staircases are cut. Returns the polygon in half cells, without collinear points
    (except pinned ones).
    """
    return _smooth(corners(loop, lambda p: p in pinned), pinned, general, short)


def everywhere(_cell: Cell) -> bool:
    """``general`` for :func:`smooth` and :meth:`Outline.smooth`: every cell is round."""
    return True


# Side directions as 0..3 (east, south, west, north: clockwise on screen), their unit
# vectors, the offset of the cell on a side's right from its start, and turns: (d2 - d1) % 4
# of 1 is a right turn, 3 a left one, 0 none.
_UNIT = (_E, _S, _W, _N)
_INSIDE = ((0, 0), (-1, 0), (-1, -1), (0, -1))
_TURN = (0, 1, 0, -1)


def _smooth(
    cs: Sequence[Point],
    pinned: Collection[Point],
    general: Callable[[Cell], bool] | None,
    short: int,
) -> list[Point]:
    """:func:`smooth` from the loop's corners (the pinned points among them)."""
    n = len(cs)
    if n < 4:
        return [(2 * x, 2 * y) for x, y in cs]
    if general is everywhere and not pinned:
        return _smooth_round(cs, short)
    # Side i runs from corner i to corner i+1: its direction and length.
    dirs: list[int] = []
    lengths: list[int] = []
    for (ax, ay), (bx, by) in zip(cs, [*cs[1:], cs[0]], strict=True):
        if ax == bx:
            dirs.append(1 if by > ay else 3)
            lengths.append(abs(by - ay))
        else:
            dirs.append(0 if bx > ax else 2)
            lengths.append(abs(bx - ax))
    dirs_before = [dirs[-1], *dirs[:-1]]
    lengths_before = [lengths[-1], *lengths[:-1]]
    # turn[i]: at corner i, from side i-1 into side i: 1 right, -1 left, 0 straight on.
    turn = [_TURN[(d - c) & 3] for c, d in zip(dirs_before, dirs, strict=True)]
    free = [t != 0 and p not in pinned for t, p in zip(turn, cs, strict=True)]
    if general is None:
        gen = [False] * n
    elif general is everywhere:
        gen = [True] * n
    else:
        gen = [
            general((x + ox, y + oy))
            for (x, y), (ox, oy) in zip(cs, map(_INSIDE.__getitem__, dirs), strict=True)
        ]
    rounded = True in gen  # (most of a map's floors are not round)
    # Round and slanted areas: every free corner next to a short side.
    if not rounded:
        cut = [False] * n
    else:
        cut = [
            f and g0 and g1 and (l0 <= short or l1 <= short)
            for f, g0, g1, l0, l1 in zip(
                free, [gen[-1], *gen[:-1]], gen, lengths_before, lengths, strict=True
            )
        ]
    # 45° staircases: unit sides whose two corners turn opposite ways, at least 3 in a row.
    # (every such corner is cut already when every side is round and short is at least 1).
    if general is not everywhere or short < 1:
        good = [
            length == 1 and f and g and t == -u
            for length, f, g, t, u in zip(
                lengths, free, [*free[1:], free[0]], [*turn[1:], turn[0]], turn, strict=True
            )
        ]
        if True in good:
            for first, count in _runs(good):
                if count >= 3:
                    for k in range(count + 1):
                        cut[(first + k) % n] = True
    # How far (half cells) a cut goes into a side: its middle when it is short.
    depth = (
        [length if g and length <= short else 1 for length, g in zip(lengths, gen, strict=True)]
        if rounded
        else [1] * n
    )

    points: list[Point] = []
    keep: set[Point] = set()  # pinned: stay vertices
    soft: set[Point] = set()  # ends of cuts in round areas: may go into a longer line
    for i, (x, y) in enumerate(cs):
        if not cut[i]:
            points.append((2 * x, 2 * y))
            if not free[i] and (x, y) in pinned:
                keep.add((2 * x, 2 * y))
            continue
        px, py = _UNIT[dirs_before[i]]
        qx, qy = _UNIT[dirs[i]]
        din, dout = depth[i - 1], depth[i]
        ends = ((2 * x - px * din, 2 * y - py * din), (2 * x + qx * dout, 2 * y + qy * dout))
        points.extend(ends)
        if gen[i]:
            soft.update(ends)
    pts = _simplify(points, keep)
    return _straighten(pts, soft) if soft else pts


def _smooth_round(cs: Sequence[Point], short: int) -> list[Point]:
    """:func:`_smooth` when every side is round and nothing is pinned (so every corner
    turns): every corner next to a side of at most ``short`` cells is cut, 45° staircases
    among them, and the ends of the cuts are soft. One pass, no lists per corner."""
    points: list[Point] = []
    ends: list[Point] = []
    ax, ay = cs[-1]
    bx, by = cs[0]
    before = abs(bx - ax + by - ay)  # the length of the side into corner (bx, by)
    for cx, cy in [*cs[1:], cs[0]]:
        after = abs(cx - bx + cy - by)
        if before > short and after > short:
            points.append((bx + bx, by + by))
        else:
            # A short side is cut in its middle (half cells: the sum of its ends), a long
            # one half a cell (a unit vector: the difference over the length) from the corner.
            start = (
                (ax + bx, ay + by)
                if before <= short
                else (bx + bx - (bx - ax) // before, by + by - (by - ay) // before)
            )
            end = (
                (bx + cx, by + cy)
                if after <= short
                else (bx + bx + (cx - bx) // after, by + by + (cy - by) // after)
            )
            points.append(start)
            points.append(end)
            ends.append(start)
            ends.append(end)
        ax, ay, bx, by, before = bx, by, cx, cy, after
    pts = _simplify(points, ())
    return _straighten(pts, set(ends)) if ends else pts


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
    pts = [p for p, q in zip(points, [None, *points[:-1]], strict=True) if p != q]
    while len(pts) > 1 and pts[0] == pts[-1]:
        pts.pop()
    changed = True
    while changed and len(pts) > 3:
        changed = False
        out: list[Point] = []
        ax, ay = pts[-1]  # the point before: the last one kept (until then the one before)
        for p, (bx, by) in zip(pts, [*pts[1:], pts[0]], strict=True):
            px, py = p
            if (px - ax) * (by - py) == (py - ay) * (bx - px) and p not in hard:
                changed = True
                if not out:
                    ax, ay = px, py
                continue
            out.append(p)
            ax, ay = px, py
        pts = out
    return pts


def _straighten(pts: list[Point], soft: Collection[Point], tolerance: float = 1.0) -> list[Point]:
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
    ring = [*pts, pts[0]]  # ring[j] == pts[j % n] for j <= n
    out = [pts[0]]
    i = 0
    while i < n:
        best = i + 1
        j = i + 1
        ax, ay = pts[i]
        while j <= n:
            if j > i + 1:
                bx, by = ring[j]
                dx, dy = bx - ax, by - ay
                d2 = dx * dx + dy * dy
                if d2 < 16:  # the new side would be shorter than two cells
                    break
                # Every skipped point within the tolerance of the new side: its squared
                # distance cross² / d2 at most ``limit`` (d2 > 0 here).
                bound = limit * d2
                if any(((px - ax) * dy - (py - ay) * dx) ** 2 > bound for px, py in pts[i + 1 : j]):
                    break
            best = j
            if fixed[j % n]:
                break
            j += 1
        if best < n:
            out.append(pts[best])
        i = best
    return out


def scan(
    polygons: Iterable[Sequence[tuple[float, float]]], step: int, vertical: bool = False
) -> dict[int, list[tuple[float, float]]]:
    """Where the lines ``y = k * step`` (``x = ...`` when ``vertical``) run inside the
    polygons (even-odd), as ``{k * step: [(from, to), ...]}``; all in half cells."""
    return scans(polygons, step)[vertical]


def scans(
    polygons: Iterable[Sequence[tuple[float, float]]], step: int
) -> tuple[dict[int, list[tuple[float, float]]], dict[int, list[tuple[float, float]]]]:
    """:func:`scan` of the lines ``y = k * step`` and of the lines ``x = k * step``, in one
    pass over the polygons' sides."""
    rows: dict[int, list[float]] = {}
    columns: dict[int, list[float]] = {}
    for poly in polygons:
        if not poly:
            continue
        ax, ay = poly[-1]
        for bx, by in poly:  # the side from (ax, ay) to (bx, by)
            if ay != by:
                lo, hi = (ay, by) if ay < by else (by, ay)
                line = int(-(-lo // step)) * step
                while line < hi:
                    rows.setdefault(line, []).append(ax + (line - ay) * (bx - ax) / (by - ay))
                    line += step
            if ax != bx:
                lo, hi = (ax, bx) if ax < bx else (bx, ax)
                line = int(-(-lo // step)) * step
                while line < hi:
                    columns.setdefault(line, []).append(ay + (line - ax) * (by - ay) / (bx - ax))
                    line += step
            ax, ay = bx, by
    return _spans(rows), _spans(columns)


def _spans(cuts: dict[int, list[float]]) -> dict[int, list[tuple[float, float]]]:
    """Each line's cuts (sorted) paired into the spans inside (even-odd), lines in order."""
    out: dict[int, list[tuple[float, float]]] = {}
    for line in sorted(cuts):
        xs = sorted(cuts[line])
        spans = [(xs[i], xs[i + 1]) for i in range(0, len(xs) - 1, 2) if xs[i + 1] > xs[i]]
        if spans:
            out[line] = spans
    return out


__all__ = ["Outline", "corners", "everywhere", "loops", "scan", "scans", "smooth"]
