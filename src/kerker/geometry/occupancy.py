"""Which area owns a cell; are these cells free, inside the level, clear of others.

A dict from cell to area id: placement questions are O(cells asked), never O(areas).
"""

from __future__ import annotations

from collections.abc import Iterable

from kerker.geometry.grid import Cell
from kerker.geometry.shapes import Footprint


class Occupancy:
    """The cells of one level and their owners, inside ``0 <= x < width, 0 <= y < height``."""

    __slots__ = ("height", "owners", "width")

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.owners: dict[Cell, str] = {}

    def copy(self) -> Occupancy:
        """An independent copy (for trial placements)."""
        other = Occupancy(self.width, self.height)
        other.owners = dict(self.owners)
        return other

    def inside(self, cells: Iterable[Cell], margin: int = 0) -> bool:
        """Every cell at least ``margin`` cells inside the bounds."""
        w, h = self.width - margin, self.height - margin
        for x, y in cells:  # noqa: SIM110 (a plain loop: no generator made per call)
            if not (margin <= x < w and margin <= y < h):
                return False
        return True

    def owner(self, cell: Cell) -> str | None:
        """The area id that owns ``cell``, or None."""
        return self.owners.get(cell)

    def free(self, cells: Iterable[Cell]) -> bool:
        """No cell is owned."""
        owners = self.owners
        for cell in cells:  # noqa: SIM110 (a plain loop: no generator made per call)
            if cell in owners:
                return False
        return True

    def blockers(
        self, cells: Iterable[Cell], allowed: Iterable[str] = (), clearance: bool = True
    ) -> set[str]:
        """Areas other than ``allowed`` that own one of ``cells`` or (with ``clearance``)
        touch one of them, diagonals included."""
        ok = allowed if type(allowed) is set else set(allowed)  # (callers pass sets: no copy)
        found: set[str] = set()
        owners = self.owners
        for cell in cells:
            who = owners.get(cell)
            if who is not None and who not in ok:
                found.add(who)
            if clearance:
                x, y = cell
                for near in (
                    (x, y - 1),
                    (x + 1, y - 1),
                    (x + 1, y),
                    (x + 1, y + 1),
                    (x, y + 1),
                    (x - 1, y + 1),
                    (x - 1, y),
                    (x - 1, y - 1),
                ):
                    who = owners.get(near)
                    if who is not None and who not in ok:
                        found.add(who)
        return found

    def fits(self, cells: Iterable[Cell], allowed: Iterable[str] = (), margin: int = 1) -> bool:
        """Inside the bounds (``margin`` cells of rock at the edge), owned by nobody (not even
        ``allowed``), and not touching any area but ``allowed``."""
        owners = self.owners
        ok = allowed if type(allowed) is set else set(allowed)  # (callers pass sets: no copy)
        lo, hx, hy = margin, self.width - margin, self.height - margin
        # One pass, stopping at the first cell that is off the sheet, taken or touching
        # another area (most trial placements fail, and fail early).
        for x, y in cells:
            if not (lo <= x < hx and lo <= y < hy) or (x, y) in owners:
                return False
            for near in (
                (x - 1, y - 1),
                (x, y - 1),
                (x + 1, y - 1),
                (x - 1, y),
                (x + 1, y),
                (x - 1, y + 1),
                (x, y + 1),
                (x + 1, y + 1),
            ):
                who = owners.get(near)
                if who is not None and who not in ok:
                    return False
        return True

    def fits_footprint(
        self, shape: Footprint, dx: int, dy: int, allowed: set[str], margin: int = 1
    ) -> bool:
        """:meth:`fits` for ``shape``'s cells shifted by ``(dx, dy)``: its bounds against the
        edge, its first cells as :meth:`fits` tests them (most trial placements fail there),
        then each cell once and each cell of its ring once (not every cell's eight
        neighbours)."""
        x0, y0, x1, y1 = shape.box
        if not (
            margin <= x0 + dx
            and x1 + dx < self.width - margin
            and margin <= y0 + dy
            and y1 + dy < self.height - margin
        ):
            return False
        owners = self.owners
        cells = shape.cells
        for x, y in cells[:2]:
            x += dx
            y += dy
            if (x, y) in owners:
                return False
            for near in (
                (x - 1, y - 1),
                (x, y - 1),
                (x + 1, y - 1),
                (x - 1, y),
                (x + 1, y),
                (x - 1, y + 1),
                (x, y + 1),
                (x + 1, y + 1),
            ):
                who = owners.get(near)
                if who is not None and who not in allowed:
                    return False
        for x, y in cells:
            if (x + dx, y + dy) in owners:
                return False
        for x, y in shape.ring:
            who = owners.get((x + dx, y + dy))
            if who is not None and who not in allowed:
                return False
        return True

    def add(self, area_id: str, cells: Iterable[Cell]) -> None:
        """Give ``cells`` to ``area_id`` (cells already its own stay its own)."""
        for cell in cells:
            self.owners[cell] = area_id
