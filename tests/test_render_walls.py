"""No floating wall segments (issue 15, Scatola Bianca seed 11 between 7, 8 and 11): a wall
between two areas that joins no wall with rock behind it, directly or through a door, is
not drawn (two corridors laid side by side with no rock between them, open to each other
at both ends, read as one open space); a wall with a door in it that meets the rock stays.
The same walls go to virtual tabletops. The >= 500-level check is in
tests/test_render_secrecy.py."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from svg_overlaps import loose_walls, wall_units

from kerker.dungeon.render_svg import CELL, TabletopMap, render_svg


def _doc(end: str) -> dict[str, Any]:
    """A room (x 0-3, y 0-1) with two corridors below it: A two cells wide (x 0-1, y 2-6,
    and (2, 6)), B one cell wide beside it (x 2, y 2-5); both open into the room, B into A
    at its foot by ``end``."""
    area_a = [[x, y] for x in (0, 1) for y in range(2, 7)] + [[2, 6]]
    return {
        "rules": "test",
        "seed": 0,
        "lang": "en",
        "levels": [
            {
                "depth": 1,
                "width": 8,
                "height": 8,
                "entrance": "r",
                "areas": [
                    {
                        "id": "r",
                        "number": 1,
                        "kind": "room",
                        "shape": "rect",
                        "cells": [[x, y] for x in range(4) for y in (0, 1)],
                        "label_at": [1, 0],
                    },
                    {
                        "id": "a",
                        "number": 2,
                        "kind": "corridor",
                        "cells": area_a,
                        "label_at": [0, 4],
                    },
                    {
                        "id": "b",
                        "number": 3,
                        "kind": "corridor",
                        "cells": [[2, y] for y in range(2, 6)],
                        "label_at": [2, 3],
                    },
                ],
                "connections": [
                    {
                        "id": "c1",
                        "kind": "opening",
                        "from": "a",
                        "to": "r",
                        "at": [0, 2],
                        "side": "n",
                        "width": 2,
                    },
                    {
                        "id": "c2",
                        "kind": "opening",
                        "from": "b",
                        "to": "r",
                        "at": [2, 2],
                        "side": "n",
                        "width": 1,
                    },
                    {
                        "id": "c3",
                        "kind": end,
                        "from": "b",
                        "to": "a",
                        "at": [2, 5],
                        "side": "s",
                        "width": 1,
                    },
                ],
            }
        ],
    }


def _partition(units: list[Any]) -> list[Any]:
    """The wall units on the line x = 2 between A and B (y 2 to 6)."""
    return [
        e
        for e in units
        if e[0][0] == e[1][0] == 2 * CELL and 2 * CELL <= min(e[0][1], e[1][1]) < 6 * CELL
    ]


def test_a_free_standing_partition_is_not_drawn() -> None:
    doc = _doc("opening")
    floor = {tuple(c) for a in doc["levels"][0]["areas"] for c in a["cells"]}
    for view in ("gm", "player"):
        svg = render_svg(doc, view=view)
        assert _partition(wall_units(svg, CELL)) == []
        assert loose_walls(svg, floor, [], CELL) == {"rock": [], "free": []}
    # the tabletop's walls are the map's: no wall on that line either
    tmap = TabletopMap(doc)
    lines = tmap.wall_lines(tmap.shown("gm"))
    on_line = [
        (a, b)
        for line in lines
        for a, b in pairwise(line)
        if a[0] == b[0] == 4 and 4 <= min(a[1], b[1]) < 12
    ]
    assert on_line == []


def test_a_partition_with_a_door_into_the_rock_stays() -> None:
    doc = _doc("door")
    svg = render_svg(doc)
    assert len(_partition(wall_units(svg, CELL))) == 4  # beside B, cells y 2-5
    floor = {tuple(c) for a in doc["levels"][0]["areas"] for c in a["cells"]}
    leaf = [((2 * CELL, 6 * CELL), (3 * CELL, 6 * CELL))]
    assert loose_walls(svg, floor, leaf, CELL) == {"rock": [], "free": []}
    # without the door leaf it would stand free: the measurement sees such a wall
    assert loose_walls(svg, floor, [], CELL)["free"]


def test_the_measurement_sees_a_wall_in_rock() -> None:
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg"><g class="map">'
        f'<path class="walls" d="M0 0H{2 * CELL}M{5 * CELL} {5 * CELL}V{6 * CELL}"/></g></svg>'
    )
    found = loose_walls(svg, {(0, 0), (1, 0)}, [], CELL)
    assert found["rock"] == [((5 * CELL, 5 * CELL), (5 * CELL, 6 * CELL))]
    assert found["free"] == []  # it has rock behind it (on both sides)
