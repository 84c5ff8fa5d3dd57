"""The corridor and room toolkit both dungeon procedures build with (issue 12: no
procedure subclasses another): a corridor being walked (:class:`Walker`), its first
cross-section, its steps, turns and joins, the side corridors of a branch, and a room's
walls and the cells an exit may take.

:class:`CorridorKit` is a base class for procedures, not a procedure: it has no steps and
reads no table. What differs between rule sets is declared by each procedure on its class
(:attr:`CorridorKit.joins`, :attr:`CorridorKit.parent_grace`, :attr:`CorridorKit.lead_cells`);
table names and the numbers of a rule text stay in the procedure and its rule data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, ClassVar

from kerker.dungeon.engine import AreaBuilder, ConnBuilder, DungeonState, LevelState
from kerker.dungeon.toolkit import record
from kerker.geometry.grid import VECTORS, Cell, is_diagonal, opposite, step, turn
from kerker.geometry.shapes import advance_cells, cross_section, joint


@dataclass
class Walker:
    """A corridor being walked: its area, the centre of its last cross-section, heading and
    width in cells."""

    area: AreaBuilder
    center: Cell
    heading: str
    width: int
    parent: str | None
    steps: int = 0
    trail: list[tuple[Cell, str]] = field(default_factory=list)
    """Centres and headings of the cross-sections walked, in order (obstacles go on one)."""


def area_edge(area: AreaBuilder, side: str) -> list[Cell]:
    """The cells of ``area`` with no cell of it beyond ``side``, by (y, x); kept on the area
    until it grows (:attr:`AreaBuilder.edges`)."""
    size = len(area.cells)
    kept = area.edges.get(side)
    if kept is None or kept[0] != size:
        dx, dy = VECTORS[side]
        cells = area.cells
        edge = sorted(
            (c for c in cells if (c[0] + dx, c[1] + dy) not in cells), key=itemgetter(1, 0)
        )
        kept = area.edges[side] = (size, edge)
    return kept[1]


def _along(at: Cell, side: str, width: int) -> list[Cell]:
    """The wall cells of a way ``width`` cells wide from ``at`` along its ``side`` wall (+x
    on a north or south wall, +y on an east or west one; one cell on a diagonal)."""
    if width <= 1 or side not in ("n", "e", "s", "w"):
        return [at]
    ax, ay = (0, 1) if side in ("e", "w") else (1, 0)
    return [(at[0] + ax * i, at[1] + ay * i) for i in range(width)]


def reserved_cells(level: LevelState, conn: ConnBuilder | None) -> set[Cell]:
    """The cells just beyond the other open exits of ``conn``'s area (their whole width):
    a corridor starting beside ``conn`` keeps off them."""
    if conn is None:
        return set()
    out: set[Cell] = set()
    for other in level.links.get(conn.from_, ()):  # the area's connections (an index)
        if level.conns.get(other.id) is not other:
            continue  # dropped
        if (
            other.from_ != conn.from_
            or other.to is not None
            or other.id == conn.id
            or (other.mode not in ("exit", "corridor"))
        ):
            continue
        ax, ay = (0, 1) if other.side in ("e", "w") else (1, 0)
        for i in range(max(1, other.width)):
            out.add(step((other.at[0] + ax * i, other.at[1] + ay * i), other.side))
    return out


def shifts(width: int) -> list[int]:
    """Lateral shifts of a corridor's first cross-section that keep its door inside it:
    0, 1, -1, 2, -2 ... up to half its width."""
    out = [0]
    for i in range(1, width // 2 + 1):
        out += [i, -i]
    return out


class CorridorKit:
    """Geometry both procedures share (a base class of each; see the module's docstring).
    A procedure declares :attr:`joins`, :attr:`parent_grace` and :attr:`lead_cells`."""

    joins: ClassVar[bool]
    """Whether a corridor that meets an area opens into it (else the step is blocked and
    the procedure decides: turn, end)."""
    parent_grace: ClassVar[int]
    """Steps (cells) a corridor may run along the area it leaves before that area counts
    as rock."""
    lead_cells: ClassVar[int]
    """Cells beyond a wall within which an area counts as the one an exit there leads into
    (:meth:`_leads_into`)."""

    def _wall_dir(self, area: AreaBuilder, wall: str) -> str:
        """The side of ``area``'s ``wall`` (opposite, left, right, entrance: as seen from its
        way in)."""
        return {
            "opposite": area.heading,
            "left": turn(area.heading, -2),
            "right": turn(area.heading, 2),
            "entrance": opposite(area.heading),
        }[wall]

    def _wall_cells(
        self, state: DungeonState, level: LevelState, area: AreaBuilder, side: str
    ) -> list[Cell]:
        """Cells of ``area`` on its ``side`` wall with free rock beyond, not beside a door."""
        used: set[Cell] = set()
        for c in state.conns_of(level, area.id):
            if c.to == area.id:
                used.add(c.at)
                used.add(step(c.at, c.side))
            elif c.from_ == area.id:
                used.add(c.at)
                if c.width > 1:  # every cell of a wide way, so no other exit shares one
                    ax, ay = (0, 1) if c.side in ("e", "w") else (1, 0)
                    used.update((c.at[0] + ax * i, c.at[1] + ay * i) for i in range(c.width))
        occ = level.occ
        owners = occ.owners
        dx, dy = VECTORS[side]
        hx, hy = occ.width - 1, occ.height - 1
        out = []
        for cell in area_edge(area, side):
            x, y = cell
            across = (x + dx, y + dy)
            if not (1 <= across[0] < hx and 1 <= across[1] < hy):
                continue
            if (
                cell in used
                or (x, y - 1) in used
                or (x + 1, y) in used
                or (x, y + 1) in used
                or (x - 1, y) in used
            ):
                continue
            if across in owners:
                continue
            out.append(cell)
        return out

    def _exit_cell(
        self, state: DungeonState, level: LevelState, area: AreaBuilder, wall: str
    ) -> tuple[str, Cell] | None:
        """A free cell for an exit on ``wall``; another wall when that one has none (a bend
        counted as "moved"); None, counted as a dead end, when no wall has room."""
        side = self._wall_dir(area, wall)
        cells = self._wall_cells(state, level, area, side)
        if not cells:
            for other in ("opposite", "left", "right", "entrance"):
                side = self._wall_dir(area, other)
                cells = self._wall_cells(state, level, area, side)
                if cells:
                    state.bend("moved")
                    break
            else:
                state.bend("dead_end")
                return None
        return side, cells[level.rng.randrange(len(cells))]

    def _leads_into(
        self, level: LevelState, area: AreaBuilder, cell: Cell, side: str
    ) -> str | None:
        """The area the exit at ``cell`` leads into: the first area straight beyond its wall
        within :attr:`lead_cells`, if any. An area merely beside that way is not "led into"
        (docs/rules-notes-000.md, "W4")."""
        owners = level.occ.owners
        for i in range(1, self.lead_cells + 1):
            owner = owners.get(step(cell, side, i))
            if owner is not None and owner != area.id:
                return owner
        return None

    def _middle(self, area: AreaBuilder, n: int) -> list[Cell]:
        """The ``n`` cells of ``area`` nearest its middle (at least one)."""
        cells = sorted(area.cells, key=lambda c: (c[1], c[0]))
        mx = sum(c[0] for c in cells) / len(cells)
        my = sum(c[1] for c in cells) / len(cells)
        return sorted(cells, key=lambda c: ((c[0] - mx) ** 2 + (c[1] - my) ** 2, c[1], c[0]))[
            : max(1, n)
        ]

    def _begin(
        self,
        state: DungeonState,
        level: LevelState,
        walker: Walker,
        conn: ConnBuilder | None = None,
    ) -> bool:
        """The corridor's first cross-section beside its door (narrowed if it must be), off
        the cells just beyond the other open exits of the same area (each keeps its way)."""
        allowed = {walker.parent} if walker.parent else set()
        reserved = reserved_cells(level, conn)
        width = walker.width
        door = walker.center
        lateral = "e" if is_diagonal(walker.heading) else turn(walker.heading, 2)
        while width >= 1:
            # the door may lie anywhere across a wide corridor: middle first, then aside
            for shift in shifts(width):
                center = step(door, lateral, shift) if shift else door
                cells = cross_section(center, walker.heading, width)
                if (
                    door not in cells
                    or not level.occ.fits(cells, allowed)
                    or (reserved and not reserved.isdisjoint(cells))
                ):
                    continue
                if width != walker.width:
                    record(
                        state,
                        walker.area,
                        "width",
                        walker.width * 5,
                        width * 5,
                        "no_room",
                        "narrowed",
                    )
                    walker.width = width
                    walker.area.width_ft = width * 5
                walker.center = center
                state.grow(level, walker.area, cells)
                walker.trail.append((walker.center, walker.heading))
                return True
            width -= 1
        return False

    def _widen_start(self, state: DungeonState, level: LevelState, walker: Walker) -> None:
        """Widen a corridor begun on one cell (an arrival) to its first cross-section at
        ``walker.width``; where that does not fit it stays one cell (5 ft) wide."""
        cells = [
            c
            for c in cross_section(walker.center, walker.heading, walker.width)
            if c not in walker.area.cells
        ]
        if cells and level.occ.fits(cells, {walker.area.id}):
            state.grow(level, walker.area, cells)
        else:
            walker.width = 1
            walker.area.width_ft = 5

    def _allowed(self, walker: Walker) -> set[str]:
        """The areas a step of the corridor may touch: its own, and for its first
        :attr:`parent_grace` steps the area it leaves."""
        allowed = {walker.area.id}
        if walker.parent and walker.steps < self.parent_grace:
            allowed.add(walker.parent)
        return allowed

    def _try_step(self, state: DungeonState, level: LevelState, walker: Walker) -> str:
        """One cell on: ``ok``, ``joined`` (it met an area and opens into it) or ``blocked``."""
        nxt, cells = advance_cells(walker.center, walker.heading, walker.width)
        new = [c for c in cells if c not in walker.area.cells]
        occ = level.occ
        allowed = self._allowed(walker)
        if occ.inside(new, 1) and occ.free(new):
            blockers = occ.blockers(new, allowed)
            if not blockers:
                state.grow(level, walker.area, new)
                walker.center = nxt
                walker.steps += 1
                walker.trail.append((nxt, walker.heading))
                return "ok"
            if not self.joins:
                return "blocked"
            join = self._join_at(level, walker, new, blockers)
            if join is not None:
                state.grow(level, walker.area, new)
                walker.center = nxt
                self._join(state, level, walker, *join)
                return "joined"
            return "blocked"
        if occ.inside(new, 1) and self.joins:
            # an area right ahead: open into it from the cells we have
            owners = {occ.owner(c) for c in new} - {None} - allowed
            # (after a 45-deg start the cross-section at the new heading is not all ours)
            here = [
                c
                for c in cross_section(walker.center, walker.heading, walker.width)
                if c in walker.area.cells
            ]
            join = self._join_at(level, walker, here, {o for o in owners if o})
            if join is not None:
                self._join(state, level, walker, *join)
                return "joined"
        return "blocked"

    def _join_at(
        self, level: LevelState, walker: Walker, cells: list[Cell], blockers: set[str]
    ) -> tuple[Cell, str, str] | None:
        """Where the corridor's ``cells`` touch one of the ``blockers`` squarely: (cell, the
        side it opens on, the area), ahead first, then left and right; None when only a
        corner touches."""
        sides = [walker.heading] if not is_diagonal(walker.heading) else []
        sides += [turn(walker.heading, -2), turn(walker.heading, 2)]
        sides = [s for s in sides if not is_diagonal(s)] or ["n", "e", "s", "w"]
        for side in sides:
            for cell in sorted(cells):
                owner = level.occ.owner(step(cell, side))
                if owner in blockers and owner is not None:
                    return cell, side, owner
        return None

    def _join(
        self,
        state: DungeonState,
        level: LevelState,
        walker: Walker,
        cell: Cell,
        side: str,
        owner: str,
    ) -> None:
        """The corridor opens into ``owner`` at ``cell``: a door into a closed room, else
        an opening (``joined``)."""
        target = level.areas[owner]
        kind = "door" if target.closed else "opening"
        state.connect(
            level,
            walker.area.id,
            owner,
            kind,
            cell,
            side,
            width=1 if kind == "door" else min(2, walker.width),
            mode="exit",
        )
        state.bend("joined")

    def _turn(
        self, state: DungeonState, level: LevelState, walker: Walker, side: str, eighths: int
    ) -> bool:
        """Turn ``side`` by ``eighths`` x 45 deg if the elbow and the next cell fit."""
        heading = turn(walker.heading, -eighths if side == "left" else eighths)
        allowed = self._allowed(walker)
        owners = level.occ.owners
        # the elbow's cells in the area it leaves stay that area's (a 45-deg start at a door)
        elbow = [
            c
            for c in joint(walker.center, walker.width)
            if c not in walker.area.cells and owners.get(c) not in allowed
        ]
        if elbow and not level.occ.fits(elbow, allowed):
            return False
        _nxt, cells = advance_cells(walker.center, heading, walker.width)
        new = [c for c in cells if c not in walker.area.cells and c not in elbow]
        if new and not level.occ.fits(new, allowed):
            return False
        state.grow(level, walker.area, elbow)
        walker.heading = heading
        return True

    def _edge(self, walker: Walker, side: str) -> Cell:
        """The cell of the last cross-section farthest towards ``side``."""
        dx, dy = VECTORS[side]
        cells = cross_section(walker.center, walker.heading, walker.width)
        return max(cells, key=lambda c: (c[0] * dx + c[1] * dy, -c[0], -c[1]))

    def _lateral(self, walker: Walker, side: str) -> str:
        """The cardinal wall to the ``left``/``right`` of the corridor."""
        d = walker.heading
        if not is_diagonal(d):
            return turn(d, -2 if side == "left" else 2)
        _dx, dy = VECTORS[d]
        if side == "left":
            return "e" if dy > 0 else "w"
        return "w" if dy > 0 else "e"

    def _ahead(self, walker: Walker) -> str:
        """The cardinal wall ahead of the corridor (north or south on a diagonal)."""
        d = walker.heading
        return d if not is_diagonal(d) else ("n" if VECTORS[d][1] < 0 else "s")

    def _open_ways(
        self,
        state: DungeonState,
        level: LevelState,
        walker: Walker,
        ways: list[tuple[str, int]],
        width: int,
        info: dict[str, Any],
    ) -> bool:
        """Open every way but the first as a side corridor of ``width`` cells; the walker
        takes the first (turning the other way, or dead-ending, when it cannot). False when
        the corridor cannot go on."""
        first, rest = ways[0], ways[1:]
        made = []
        # one opening per cell and wall: a way that would leave through the wall cell of
        # another (the 45-deg way of a five-way junction beside its 90-deg one on the same
        # wall) joins it (an ``exit`` bend) instead of a second opening on that cell
        taken = {
            (cell, c.side)
            for c in state.conns_of(level, walker.area.id)
            if c.from_ == walker.area.id and c.mode != "level"
            for cell in _along(c.at, c.side, c.width)
        }
        joined = 0
        for where, n in rest:
            heading = (
                walker.heading
                if where == "ahead"
                else turn(walker.heading, -n if where == "left" else n)
            )
            wall = self._ahead(walker) if where == "ahead" else self._lateral(walker, where)
            cell = self._edge(walker, wall)
            if level.occ.owner(step(cell, wall)) is not None:
                continue
            edges = {(c, wall) for c in _along(cell, wall, min(2, width))}
            if not taken.isdisjoint(edges):
                joined += 1
                continue
            taken |= edges
            made.append(
                state.connect(
                    level,
                    walker.area.id,
                    None,
                    "opening",
                    cell,
                    wall,
                    width=min(2, width),
                    mode="corridor",
                    heading=heading,
                    info=dict(info),
                )
            )
        if joined:
            record(state, walker.area, "exit", len(ways), len(ways) - joined, "joined")
        state.push_in_order(level, made)
        if first[0] != "ahead" and not self._turn(state, level, walker, first[0], first[1]):
            if not self._turn(
                state, level, walker, "right" if first[0] == "left" else "left", first[1]
            ):
                state.bend("dead_end")
                return False
            state.bend("turned_other_way")
        return True
