"""The bending policy: what kerker does when a roll cannot be drawn (docs/dungeon.md).

The seed: "Der Spielleitung wird empfohlen, die Würfelwürfe frei "hinzubiegen", wenn ein
unmögliches Ergebnis erzielt wird ... muss entweder die Größe des Raums geändert oder der
Wurf wiederholt werden." kerker bends in a fixed order and counts every bend by kind
(``stats.bent``):

- an area is first tried as rolled, at every door-side offset (at most
  ``DungeonLimits.max_door_offsets``), also turned by 90 deg (not a bend: the seed's sizes
  have no orientation);
- ``rerolled``: it does not fit, so the size table is rolled again (at most
  ``DungeonLimits.max_size_rerolls`` times) until a roll fits as rolled;
- ``shrunk``: no roll fits, so the first roll is made smaller step by step until it fits;
- nothing fits, not even one square: the caller keeps the exit visible as blocked
  (:func:`kerker.dungeon.toolkit.block`).

The caps are the injected :class:`~kerker.limits.DungeonLimits` (``state.limits``).

Corridors (in the procedure): ``turned_other_way`` (cannot turn left, turns right and vice
versa, as the seed says), ``turned`` (a straight stretch hits rock or the edge and turns),
``narrowed`` (too wide to leave its door), ``joined`` (it meets an area and opens into it),
``dead_end`` (no way on), ``moved`` (an exit's wall has no room; another wall is taken).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import NamedTuple

from kerker.geometry.grid import CELLS_PER_SQUARE, Cell
from kerker.geometry.occupancy import Occupancy
from kerker.geometry.shapes import (
    Local,
    by_name,
    cave,
    entry_columns,
    footprint,
    place,
    placed,
    rect,
    shift,
)
from kerker.limits import DungeonLimits


class SizeSpec(NamedTuple):
    """An area as rolled: shape, squares along (``w``) and away from (``h``) the door, area;
    a double cave's second part. A named tuple: a room that does not fit is shrunk one step
    at a time, a new spec each step (~0.4 us against ~1.5 us for a frozen dataclass)."""

    shape: str
    w: int
    h: int
    area: int
    w2: int = 0
    h2: int = 0

    def local(self, rng: random.Random) -> Local:
        """The cells in the local frame (caves are rolled with ``rng``)."""
        if self.shape == "rect":
            return rect(self.w, self.h)
        if self.shape == "cave":
            first = cave(self.w, self.h, rng)
            if not self.w2:
                return first
            second = cave(self.w2, self.h2, rng)
            # the second cave lies against the far side of the first, overlapping one row
            top = max(v for _, v in first)
            shift = (max(u for u, _ in first) - max(u for u, _ in second)) // 2
            return first | frozenset((u + shift, v + top) for u, v in second)
        return by_name(self.shape, self.area)

    def turned(self) -> SizeSpec:
        """Width and depth swapped."""
        return SizeSpec(self.shape, self.h, self.w, self.area, self.h2, self.w2)

    def smaller(self) -> SizeSpec | None:
        """One step smaller, or None at one square."""
        if self.area <= 1:
            return None
        if self.shape == "rect":
            if self.w >= self.h:
                return SizeSpec("rect", self.w - 1, self.h, (self.w - 1) * self.h, self.w2, self.h2)
            return SizeSpec("rect", self.w, self.h - 1, self.w * (self.h - 1), self.w2, self.h2)
        if self.shape == "cave":
            w, h = max(1, self.w * 4 // 5), max(1, self.h * 4 // 5)
            if (w, h) == (self.w, self.h):
                w, h = max(1, w - 1), max(1, h - 1)
            if (w, h) == (self.w, self.h):
                return None
            return self._replace(w=w, h=h, area=w * h, w2=self.w2 * 4 // 5, h2=self.h2 * 4 // 5)
        return self._replace(area=max(1, self.area * 3 // 4))


def clamp(spec: SizeSpec, occ: Occupancy) -> SizeSpec:
    """A spec no larger than the level (a cave of 30 x 40 squares on a 30 x 40 sheet)."""
    limit = min(occ.width, occ.height) // CELLS_PER_SQUARE - 2
    while max(spec.w, spec.h) > limit or spec.area > limit * limit:
        smaller = spec.smaller()
        if smaller is None:
            break
        spec = smaller
    return spec


def try_place(
    occ: Occupancy,
    spec: SizeSpec,
    origin: Cell,
    heading: str,
    allowed: set[str],
    rng: random.Random,
    limits: DungeonLimits,
) -> frozenset[Cell] | None:
    """The cells of ``spec`` behind ``origin``, as rolled or turned, if they fit (at most
    ``limits.max_door_offsets`` places along the door wall); None when they do not."""
    max_offsets = limits.max_door_offsets
    for turned in (False, True) if spec.w != spec.h else (False,):
        local = (spec.turned() if turned else spec).local(rng)
        if spec.shape == "cave":  # rolled anew each time: no footprint to keep
            for u0 in entry_columns(local)[:max_offsets]:
                if occ.fits(placed(local, origin, heading, u0), allowed):
                    return place(local, origin, heading, u0)
            continue
        shape = footprint(local, heading)
        for u0 in entry_columns(local)[:max_offsets]:
            dx, dy = shift(origin, heading, u0)
            if occ.fits_footprint(shape, dx, dy, allowed):
                return place(local, origin, heading, u0)
    return None


class Placement(NamedTuple):
    """Where a rolled area went: ``rolled`` is the roll kept (the first, or the reroll that
    fitted), ``built`` what was placed (smaller than ``rolled`` when it had to be resized),
    ``first`` the first roll, ``cells`` the cells."""

    first: SizeSpec
    rolled: SizeSpec
    built: SizeSpec
    cells: frozenset[Cell]


def place_rolled(
    occ: Occupancy,
    spec: SizeSpec,
    origin: Cell,
    heading: str,
    allowed: set[str],
    rng: random.Random,
    reroll: Callable[[], SizeSpec | None],
    count: Callable[[str], None],
    limits: DungeonLimits,
) -> Placement | None:
    """Place ``spec`` as the seed allows: as rolled (at every door offset, also turned);
    else the size rolled again (at most ``limits.max_size_rerolls`` times) until a roll
    fits as rolled; else the first roll made smaller step by step. None when not even one
    square fits: the caller keeps the exit visible as blocked. ``count`` records each bend."""
    max_rerolls = limits.max_size_rerolls
    first = spec
    current = spec
    for attempt in range(max_rerolls + 1):
        if clamp(current, occ) == current:
            cells = try_place(occ, current, origin, heading, allowed, rng, limits)
            if cells is not None:
                return Placement(first, current, current, cells)
        if attempt == max_rerolls:
            break
        again = reroll()
        if again is None:
            break
        count("rerolled")
        current = again
    smaller: SizeSpec | None = clamp(first, occ)
    if smaller == first:
        smaller = first.smaller()
    while smaller is not None:
        cells = try_place(occ, smaller, origin, heading, allowed, rng, limits)
        if cells is not None:
            count("shrunk")
            return Placement(first, first, smaller, cells)
        smaller = smaller.smaller()
    return None
