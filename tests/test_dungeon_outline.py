"""Outlines of cell sets (kerker.dungeon.outline): tracing, smoothing of staircases, grid
clipping. Coordinates of smoothed polygons are half cells."""

from __future__ import annotations

import random
from typing import TypeVar

from dungeon_support import round_room

from kerker.dungeon.outline import Outline, corners, everywhere, loops, scan, smooth

Cell = tuple[int, int]
T = TypeVar("T")


def _area(poly: list[tuple[int, int]]) -> float:
    """Signed shoelace area (positive: clockwise on screen, y down)."""
    n = len(poly)
    return (
        sum(poly[i][0] * poly[(i + 1) % n][1] - poly[(i + 1) % n][0] * poly[i][1] for i in range(n))
        / 2
    )


def _band(rows: int, width: int = 2) -> set[Cell]:
    """A 45° corridor: each row shifted one cell east."""
    return {(y + k, y) for y in range(rows) for k in range(width)}


def _cyclic(items: list[T]) -> list[tuple[T, T]]:
    """Each item with the next one, the last with the first."""
    return list(zip(items, items[1:] + items[:1], strict=True))


def _diagonal(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] != b[0] and abs(a[0] - b[0]) == abs(a[1] - b[1])


def test_a_rectangle_is_one_clockwise_loop() -> None:
    traced, pinches = loops({(x, y) for x in range(3) for y in range(2)})
    assert len(traced) == 1 and pinches == set()
    assert len(traced[0]) == 10  # one point per unit step
    assert corners(traced[0]) == [(0, 0), (3, 0), (3, 2), (0, 2)]
    assert _area(traced[0]) == 6


def test_a_hole_is_a_loop_running_the_other_way() -> None:
    ring = {(x, y) for x in range(3) for y in range(3)} - {(1, 1)}
    traced, _ = loops(ring)
    assert sorted(_area(loop) for loop in traced) == [-1, 9]


def test_cells_touching_at_a_corner_share_one_loop() -> None:
    traced, pinches = loops({(0, 0), (1, 1)})
    assert pinches == {(1, 1)}
    assert len(traced) == 1 and traced[0].count((1, 1)) == 2


def test_a_45_degree_staircase_becomes_one_diagonal() -> None:
    (loop,), _ = loops(_band(6))
    poly = smooth(loop)
    assert poly == [(0, 0), (3, 0), (14, 11), (14, 12), (11, 12), (0, 1)]
    diagonals = [(a, b) for a, b in _cyclic(poly) if _diagonal(a, b)]
    assert len(diagonals) == 2  # both walls, through the middles of the steps
    assert abs(_area(poly) / 4 - len(_band(6))) <= 0.25  # (half cells)² -> cells


def test_two_steps_are_cut_one_step_is_not() -> None:
    two = (
        {(x, 0) for x in range(6)}
        | {(x, 1) for x in range(7)}
        | {(x, y) for y in range(2, 6) for x in range(8)}
    )
    (loop,), _ = loops(two)
    assert smooth(loop) == [(0, 0), (11, 0), (16, 5), (16, 12), (0, 12)]
    one = {(x, 0) for x in range(6)} | {(x, y) for y in range(1, 6) for x in range(7)}
    (loop,), _ = loops(one)
    assert smooth(loop) == [(2 * x, 2 * y) for x, y in corners(loop)]
    # A notch of one cell stays a notch.
    notch = {(x, y) for x in range(6) for y in range(4)} - {(5, 0)}
    (loop,), _ = loops(notch)
    assert smooth(loop) == [(2 * x, 2 * y) for x, y in corners(loop)]


def test_pinned_points_never_move() -> None:
    (loop,), _ = loops(_band(8))
    # A door on the corridor's east wall: the unit edge (5, 3)-(5, 4) of the staircase.
    pinned = {(5, 3), (5, 4)}
    poly = smooth(loop, pinned)
    for x, y in pinned:
        assert (2 * x, 2 * y) in poly
    i = poly.index((10, 6))
    assert poly[i + 1] == (10, 8)  # the door's wall is still one straight cell edge
    # The rest of the wall is still cut diagonally on both sides of the door.
    assert sum(_diagonal(a, b) for a, b in _cyclic(poly)) >= 3


def test_round_areas_lose_every_staircase() -> None:
    circle = round_room()
    hexagon_rows = [
        "......#......",
        "....#####....",
        "..#########..",
        "#############",
        "#############",
        "#############",
        "..#########..",
        "....#####....",
        "......#......",
    ]
    hexagon = {(x, y) for y, row in enumerate(hexagon_rows) for x, c in enumerate(row) if c == "#"}
    for cells in (circle, hexagon):
        (loop,), _ = loops(cells)
        poly = smooth(loop, general=cells.__contains__)
        sides = _cyclic(poly)
        unit = [
            abs(b[0] - a[0]) + abs(b[1] - a[1]) == 2 and (a[0] == b[0] or a[1] == b[1])
            for a, b in sides
        ]
        assert not any(x and y for x, y in _cyclic(unit)), poly
        assert abs(_area(poly) / 4 - len(cells)) / len(cells) < 0.05
    # Hexagon: slanted sides (slope 1:2) are straight lines, its tips are points.
    (loop,), _ = loops(hexagon)
    poly = smooth(loop, general=lambda cell: True)
    assert len(poly) == 6, poly


def test_scan_clips_lines_to_polygons() -> None:
    diamond = [(0, 4), (4, 0), (8, 4), (4, 8)]
    assert scan([diamond], 2) == {2: [(2.0, 6.0)], 4: [(0.0, 8.0)], 6: [(2.0, 6.0)]}
    assert scan([diamond], 4, vertical=True) == {4: [(0.0, 8.0)]}
    square = [(0, 0), (8, 0), (8, 8), (0, 8)]
    hole = [(2, 2), (2, 6), (6, 6), (6, 2)]
    assert scan([square, hole], 4) == {0: [(0.0, 8.0)], 4: [(0.0, 2.0), (6.0, 8.0)]}


def test_outlines_do_not_depend_on_the_order_of_cells() -> None:
    cells = sorted(_band(7, 3) | {(x, y) for x in range(10, 16) for y in range(8)})
    shuffled = list(cells)
    random.Random(3).shuffle(shuffled)
    one, _ = loops(set(cells))
    two, _ = loops(dict.fromkeys(shuffled))
    assert one == two
    assert [smooth(loop) for loop in one] == [smooth(loop) for loop in two]


def _naive_borders(parts: list[set[Cell]]) -> tuple[set[Cell], set[Cell]]:
    owner = {cell: k for k, part in enumerate(parts) for cell in part}
    hor = {(x, y) for (x, y), k in owner.items() if owner.get((x, y - 1), k) != k}
    ver = {(x, y) for (x, y), k in owner.items() if owner.get((x - 1, y), k) != k}
    return hor, ver


def test_borders_are_the_edges_between_two_parts() -> None:
    rng = random.Random(5)
    for count in (1, 2, 5, 40, 300):  # over 255 parts: looked up cell by cell
        parts = [
            {(rng.randrange(-9, 30), rng.randrange(-4, 20)) for _ in range(rng.randrange(1, 9))}
            for _ in range(count)
        ]
        union = set().union(*parts)
        traced = Outline(*parts)
        assert traced.borders() == _naive_borders(parts)
        assert traced.loops() == Outline(union).loops()  # the outline of the union
        assert traced.grown().loops() == Outline(union).grown().loops()
    left, right = {(0, 0), (0, 1)}, {(1, 0), (1, 1), (0, 1)}  # (0, 1): the last part's
    assert Outline(left, right).borders() == ({(0, 1)}, {(1, 0)})
    assert Outline(left | right).borders() == (set(), set())


def test_everywhere_round_takes_a_shortcut_with_the_same_result() -> None:
    rng = random.Random(11)
    for _ in range(60):
        cells = {(rng.randrange(12), rng.randrange(12)) for _ in range(rng.randrange(1, 70))}
        for traced in (Outline(cells), Outline(cells).grown()):
            for loop in traced.loops():
                for short in (1, 2, 3):
                    assert smooth(loop, general=everywhere, short=short) == smooth(
                        loop, general=lambda _cell: True, short=short
                    )
            assert traced.smooth((), everywhere) == traced.smooth((), lambda _cell: True)


def test_corners_where_cells_touch_at_a_corner_match_the_traced_loops() -> None:
    rng = random.Random(7)
    pinched = 0
    for _ in range(300):
        size = rng.choice([3, 5, 8])
        cells = {
            (rng.randrange(size), rng.randrange(size)) for _ in range(rng.randrange(1, size * size))
        }
        for traced in (Outline(cells), Outline(cells).grown()):
            traced_loops = traced.loops()
            points = sorted({p for loop in traced_loops for p in loop})
            keep = set(rng.sample(points, min(3, len(points))))
            pinched += bool(traced.pinches)
            assert traced.corners(keep) == [
                corners(loop, keep.__contains__) for loop in traced_loops
            ]
    assert pinched > 100
    # A loop starting at a pinch point: four cells round an empty one, touching at corners.
    plus = {(1, 0), (0, 1), (2, 1), (1, 2)}
    assert Outline(plus).corners() == [corners(loop) for loop in Outline(plus).loops()]
