"""Cells, the eight directions and turning.

>>> step((3, 4), "ne", 2)
(5, 2)
>>> turn("n", 2), turn("n", -1), opposite("se")
('e', 'nw', 'nw')
"""

from __future__ import annotations

from operator import itemgetter

Cell = tuple[int, int]

CELLS_PER_SQUARE = 2
"""A 10-ft map square is 2 x 2 cells of 5 ft."""

DIRECTIONS: tuple[str, ...] = ("n", "ne", "e", "se", "s", "sw", "w", "nw")
CARDINALS: tuple[str, ...] = ("n", "e", "s", "w")
VECTORS: dict[str, Cell] = {
    "n": (0, -1),
    "ne": (1, -1),
    "e": (1, 0),
    "se": (1, 1),
    "s": (0, 1),
    "sw": (-1, 1),
    "w": (-1, 0),
    "nw": (-1, -1),
}


_INDEX = {d: i for i, d in enumerate(DIRECTIONS)}


def turn(direction: str, eighths: int) -> str:
    """``direction`` turned clockwise by ``eighths`` x 45 deg (negative: counter-clockwise)."""
    index = _INDEX.get(direction)
    if index is None:
        index = DIRECTIONS.index(direction)  # not a direction: the ValueError of index()
    return DIRECTIONS[(index + eighths) % 8]


def opposite(direction: str) -> str:
    """The direction pointing the other way."""
    return turn(direction, 4)


def step(cell: Cell, direction: str, n: int = 1) -> Cell:
    """``cell`` moved ``n`` cells towards ``direction``."""
    dx, dy = VECTORS[direction]
    return (cell[0] + n * dx, cell[1] + n * dy)


def is_diagonal(direction: str) -> bool:
    """True for ne, se, sw, nw."""
    return len(direction) == 2


def squares_to_cells(squares: int) -> int:
    """A length in map squares as cells."""
    return squares * CELLS_PER_SQUARE


def feet_to_cells(feet: int) -> int:
    """A width in feet as cells (5 ft each; at least one)."""
    return max(1, feet // 5)


def neighbours8(cell: Cell) -> list[Cell]:
    """The eight cells around ``cell``."""
    x, y = cell
    return [(x + dx, y + dy) for dx, dy in VECTORS.values()]


_YX = itemgetter(1, 0)
"""A cell's sort key (y, x)."""


def sort_cells(cells: set[Cell] | frozenset[Cell]) -> tuple[Cell, ...]:
    """Cells sorted by (y, x), the order of the JSON document."""
    return tuple(sorted(cells, key=_YX))


def bounds(cells: set[Cell] | frozenset[Cell] | tuple[Cell, ...]) -> tuple[int, int, int, int]:
    """Inclusive ``(x0, y0, x1, y1)`` of a non-empty set of cells."""
    xs = [c[0] for c in cells]
    ys = [c[1] for c in cells]
    return (min(xs), min(ys), max(xs), max(ys))
