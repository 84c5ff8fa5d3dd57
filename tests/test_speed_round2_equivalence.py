"""Occupancy.fits_footprint (a cached footprint: cells, ring, bounds) answers what
Occupancy.fits answers for the same placed cells."""

from __future__ import annotations

import random

from kerker.geometry.occupancy import Occupancy
from kerker.geometry.shapes import (
    by_name,
    entry_columns,
    footprint,
    place,
    placed,
    rect,
    shift,
)


def _level(rng: random.Random) -> Occupancy:
    occ = Occupancy(40, 36)
    for n in range(rng.randrange(1, 9)):
        x, y = rng.randrange(-2, 40), rng.randrange(-2, 36)
        w, h = rng.randrange(1, 9), rng.randrange(1, 9)
        occ.add(f"a{n}", [(x + i, y + j) for i in range(w) for j in range(h)])
    return occ


def test_fits_footprint_matches_fits() -> None:
    rng = random.Random(7)
    shapes = [rect(w, h) for w in range(1, 6) for h in range(1, 6)]
    shapes += [
        by_name(name, area)
        for name in ("circle", "oval", "hexagon", "octagon", "trapezoid", "triangle")
        for area in (2, 6, 12)
    ]
    seen = {True: 0, False: 0}
    for _ in range(300):
        occ = _level(rng)
        allowed = {f"a{rng.randrange(9)}"} if rng.random() < 0.7 else set()
        origin = (rng.randrange(0, 40), rng.randrange(0, 36))
        local = rng.choice(shapes)
        for heading in ("n", "e", "s", "w", "ne", "sw"):
            shape = footprint(local, heading)
            for u0 in entry_columns(local):
                dx, dy = shift(origin, heading, u0)
                assert {(x + dx, y + dy) for x, y in shape.cells} == place(
                    local, origin, heading, u0
                )
                expected = occ.fits(placed(local, origin, heading, u0), allowed)
                assert occ.fits_footprint(shape, dx, dy, allowed) == expected
                seen[expected] += 1
    assert seen[True] > 50 and seen[False] > 50
