"""Shapes as sets of cells, in a local frame, then placed on the level.

The local frame: ``u`` runs along the entrance wall (0 .. width-1 cells), ``v`` away from it
(0 is the row behind the way in). :func:`place` turns the frame to a heading and moves it so
that a chosen cell of row 0 lies on a given cell. Sizes are asked for in map squares (2 x 2
cells each); curved shapes come as close to the requested area as whole cells allow.

>>> len(rect(2, 3))
24
>>> abs(len(circle(10)) - 40) <= 6
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import NamedTuple

from kerker.geometry.grid import CELLS_PER_SQUARE, VECTORS, Cell, is_diagonal, step, turn

Local = frozenset[Cell]
SHAPES = ("rect", "circle", "hexagon", "octagon", "oval", "trapezoid", "triangle", "cave")


@lru_cache(maxsize=1024)
def rect(w_squares: int, h_squares: int) -> Local:
    """A rectangle of ``w`` x ``h`` squares."""
    w, h = w_squares * CELLS_PER_SQUARE, h_squares * CELLS_PER_SQUARE
    return frozenset((u, v) for u in range(w) for v in range(h))


def _mask(w: int, h: int, inside: Callable[[float, float], bool]) -> Local:
    """Cells of a ``w`` x ``h`` box whose centres lie inside (coordinates -1 .. 1)."""
    out = set()
    for u in range(w):
        for v in range(h):
            x = (u + 0.5) / w * 2 - 1
            y = (v + 0.5) / h * 2 - 1
            if inside(x, y):
                out.add((u, v))
    return frozenset(out)


def _closest(area_squares: int, make: Callable[[int], Local]) -> Local:
    """The size parameter whose shape comes closest to ``area_squares``."""
    target = area_squares * CELLS_PER_SQUARE * CELLS_PER_SQUARE
    best: Local | None = None
    for size in range(2, 400):
        cells = make(size)
        if best is None or abs(len(cells) - target) < abs(len(best) - target):
            best = cells
        if len(cells) > target:
            break
    assert best is not None
    return best


def circle(area_squares: int) -> Local:
    """A circle of about ``area_squares`` squares."""
    return _closest(area_squares, lambda d: _mask(d, d, lambda x, y: x * x + y * y <= 1.0))


def oval(area_squares: int) -> Local:
    """An ellipse, half again as long as it is wide, the long axis away from the door."""
    return _closest(area_squares, lambda d: _mask(d, d + d // 2, lambda x, y: x * x + y * y <= 1.0))


def hexagon(area_squares: int) -> Local:
    """A hexagon with a flat entrance wall."""

    def make(d: int) -> Local:
        h = max(2, round(d * math.sqrt(3) / 2))
        return _mask(d, h, lambda x, y: abs(x) <= 1 - abs(y) * 0.5)

    return _closest(area_squares, make)


def octagon(area_squares: int) -> Local:
    """A regular octagon."""
    cut = math.sqrt(2)  # |x| + |y| bound of a regular octagon in a -1..1 box
    return _closest(area_squares, lambda d: _mask(d, d, lambda x, y: abs(x) + abs(y) <= cut))


def trapezoid(area_squares: int) -> Local:
    """A trapezoid: the entrance wall half as long as the far wall."""

    def make(d: int) -> Local:
        h = max(2, round(d * 0.75))
        return _mask(d, h, lambda x, y: abs(x) <= 0.5 + 0.25 * (y + 1))

    return _closest(area_squares, make)


def triangle(area_squares: int) -> Local:
    """A triangle: the entrance wall is its base, the far corner its apex."""

    def make(d: int) -> Local:
        h = max(2, round(d * 0.87))
        return _mask(d, h, lambda x, y: abs(x) <= 1 - (y + 1) / 2 + 0.05)

    return _closest(area_squares, make)


def cave(w_squares: int, h_squares: int, rng: random.Random) -> Local:
    """An irregular blob of ``w`` x ``h`` squares' area in a box a sixth larger each way:
    grown from the middle of the entrance wall, each new cell the most central of three
    frontier cells drawn."""
    target = w_squares * h_squares * CELLS_PER_SQUARE * CELLS_PER_SQUARE
    w = math.ceil(w_squares * CELLS_PER_SQUARE * 7 / 6)
    h = math.ceil(h_squares * CELLS_PER_SQUARE * 7 / 6)
    start = (w // 2, 0)
    cells = {start}
    frontier = [start]
    seen = {start}

    def score(c: Cell) -> float:
        return ((c[0] + 0.5) / w - 0.5) ** 2 + ((c[1] + 0.5) / h - 0.5) ** 2

    grow: list[Cell] = []
    while len(cells) < target:
        for cell in frontier:
            for d in ("n", "e", "s", "w"):
                n = step(cell, d)
                if 0 <= n[0] < w and 0 <= n[1] < h and n not in seen:
                    seen.add(n)
                    grow.append(n)
        frontier = []
        if not grow:
            break
        picks = [rng.randrange(len(grow)) for _ in range(3)]
        index = min(picks, key=lambda i: (score(grow[i]), i))
        best = grow[index]
        grow[index] = grow[-1]
        grow.pop()
        cells.add(best)
        frontier = [best]
    return frozenset(cells)


@lru_cache(maxsize=1024)
def by_name(shape: str, area_squares: int) -> Local:
    """A regular shape by its name (not ``rect`` or ``cave``, which need more)."""
    makers: dict[str, Callable[[int], Local]] = {
        "circle": circle,
        "oval": oval,
        "hexagon": hexagon,
        "octagon": octagon,
        "trapezoid": trapezoid,
        "triangle": triangle,
    }
    return makers[shape](max(1, area_squares))


def place(local: Local, origin: Cell, heading: str, u0: int) -> frozenset[Cell]:
    """Turn ``local`` to ``heading`` (a cardinal: where ``v`` grows) and move it so that local
    ``(u0, 0)`` lands on ``origin``."""
    return frozenset(placed(local, origin, heading, u0))


_FRAMES: dict[str, tuple[Cell, Cell]] = {h: (VECTORS[turn(h, 2)], VECTORS[h]) for h in VECTORS}
"""Heading -> the steps of local ``u`` and ``v`` on the level."""


def placed(local: Local, origin: Cell, heading: str, u0: int) -> Iterator[Cell]:
    """The cells of :func:`place` one by one (to test a placement without building it)."""
    (ax, ay), (fx, fy) = _FRAMES[heading]
    bx = origin[0] - u0 * ax
    by = origin[1] - u0 * ay
    for u, v in local:
        yield bx + u * ax + v * fx, by + u * ay + v * fy


class Footprint(NamedTuple):
    """A local shape turned to a heading with local ``(0, 0)`` on ``(0, 0)``: what
    :meth:`~kerker.geometry.occupancy.Occupancy.fits_footprint` tests, shifted."""

    cells: tuple[Cell, ...]
    """In the order :func:`placed` gives them."""
    ring: tuple[Cell, ...]
    """The cells touching them (diagonals too) that are not theirs."""
    box: tuple[int, int, int, int]
    """Their inclusive bounds ``(x0, y0, x1, y1)``."""


@lru_cache(maxsize=1024)
def footprint(local: Local, heading: str) -> Footprint:
    """``local`` turned to ``heading`` (a cardinal) with local ``(0, 0)`` on ``(0, 0)``; the
    cells of ``placed(local, origin, heading, u0)`` are its cells shifted by ``origin`` minus
    ``u0`` steps of local ``u`` (:func:`shift`)."""
    cells = tuple(placed(local, (0, 0), heading, 0))
    # a cardinal heading turns (or mirrors) the local frame: the ring turns with it
    ring = (
        tuple(placed(_ring(local), (0, 0), heading, 0))
        if heading in _CARDINAL
        else tuple(_ring(frozenset(cells)))
    )
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    return Footprint(cells, ring, (min(xs), min(ys), max(xs), max(ys)))


_CARDINAL = frozenset(("n", "e", "s", "w"))


@lru_cache(maxsize=256)
def _ring(cells: frozenset[Cell]) -> frozenset[Cell]:
    """The cells touching ``cells`` (diagonals too) that are not theirs."""
    return frozenset(
        {(x + dx, y + dy) for x, y in cells for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
    ).difference(cells)


def shift(origin: Cell, heading: str, u0: int) -> Cell:
    """Where a :func:`footprint`'s ``(0, 0)`` lies for ``placed(local, origin, heading,
    u0)``."""
    ax, ay = _FRAMES[heading][0]
    return origin[0] - u0 * ax, origin[1] - u0 * ay


@lru_cache(maxsize=1024)
def entry_columns(local: Local) -> tuple[int, ...]:
    """Columns ``u`` of row 0, the middle one first (where a door can lead in)."""
    us = sorted(u for u, v in local if v == 0)
    if not us:
        return ()
    mid = (us[0] + us[-1]) / 2
    return tuple(sorted(us, key=lambda u: (abs(u - mid), u)))


def section_offsets(width: int) -> range:
    """Offsets of the cells of a cross-section of ``width`` cells around its centre."""
    return range(-(width // 2), width - width // 2)


def cross_section(center: Cell, direction: str, width: int) -> list[Cell]:
    """The cells across a corridor at ``center``: along x for n/s and the diagonals (a 45 deg
    corridor is a sheared band), along y for e/w."""
    x, y = center
    if direction in ("e", "w"):
        return [(x, y + o) for o in section_offsets(width)]
    return [(x + o, y) for o in section_offsets(width)]


def joint(center: Cell, width: int) -> list[Cell]:
    """The square of ``width`` x ``width`` cells around ``center`` (a corridor's elbow)."""
    x, y = center
    offs = section_offsets(width)
    return [(x + i, y + j) for j in offs for i in offs]


def advance_cells(center: Cell, direction: str, width: int) -> tuple[Cell, list[Cell]]:
    """One step of a corridor: the new centre and the cells it adds (a diagonal step adds a
    fill cell so that the band stays connected through edges)."""
    nxt = step(center, direction)
    cells = cross_section(nxt, direction, width)
    if is_diagonal(direction):
        dx = VECTORS[direction][0]
        edge = max(cells) if dx > 0 else min(cells)
        cells.append((edge[0], center[1]))
    return nxt, cells
