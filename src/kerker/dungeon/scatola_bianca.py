"""The Scatola Bianca appendix A procedure (seed 001) on the shared engine.

A walk, not a room list: a passage is followed and every 60 ft (or 30 ft, as the row says)
the periodic check A.1 is rolled; its row says what comes next (a door A.2, a side passage
A.3, a turn A.4, a chamber A.5, stairs A.6, a dead end, a trick or trap A.7, a wandering
monster). Rooms and chambers roll their exits (A.5.4 - A.5.6) and contents (A.5.7, A.5.8);
on deeper levels (``Params.caves``) chambers are caves and caverns (A.8); an elevator room
(A.7.1 rows 09-11) is an area of its own with its way down. Every number comes from the tables in
``src/kerker/rules/scatola-bianca`` (value keys: docs/rules-notes-001.md); what is done when
a roll cannot be drawn is the shared bending policy (:mod:`.bend`, docs/scatola-bianca.md).

The geometry (corridor steps, turns, joins, walls) is the shared corridor toolkit
(:mod:`.corridors`), which the Zufallslabyrinth builds with too; no procedure subclasses
another, and no engine or geometry code is copied.
"""

from __future__ import annotations

import math

from kerker.dungeon import levels as lv
from kerker.dungeon.bend import SizeSpec, place_rolled, try_place
from kerker.dungeon.corridors import CorridorKit, Walker, shifts
from kerker.dungeon.engine import (
    AreaBuilder,
    Arrival,
    ConnBuilder,
    DungeonState,
    LevelState,
    ProcedureOption,
    Sink,
)
from kerker.dungeon.model import Content, Feature, RollEntry
from kerker.dungeon.toolkit import block, effective, find, record, size_bends, take_rolls, walk
from kerker.errors import N_
from kerker.geometry.grid import (
    VECTORS,
    Cell,
    feet_to_cells,
    is_diagonal,
    opposite,
    squares_to_cells,
    step,
    turn,
)
from kerker.geometry.shapes import cross_section
from kerker.tables.engine import TableResult

T = "scatola-bianca/"
CAVE_DEPTH = 3
"""With ``--caves depth`` (the default), from this depth on A.1 "Camera" is a cave or cavern
of A.8 ("per i livelli inferiori"); ``always`` and ``never`` override it."""
WALL_ORDER = ("opposite", "left", "right", "same")
SHAPES = {
    "square": "rect",
    "rectangular": "rect",
    "circular": "circle",
    "triangular": "triangle",
    "trapezoidal": "trapezoid",
    "irregular": "cave",
    "oval": "oval",
    "hexagonal": "hexagon",
    "octagonal": "octagon",
}


def caves_at(caves: str | None, depth: int) -> bool:
    """Whether an A.1 chamber at ``depth`` is an A.8 cave under ``Params.caves``.

    >>> caves_at("depth", 2), caves_at("depth", 3), caves_at("always", 1), caves_at("never", 9)
    (False, True, True, False)
    """
    return caves == "always" or (caves == "depth" and depth >= CAVE_DEPTH)


def along(side: str) -> tuple[int, int]:
    """The way a connection's cells run along its (cardinal) wall, from ``at`` on: the cells
    the map opens (docs/dungeon-json.md, ``width``)."""
    return (0, 1) if side in ("e", "w") else (1, 0)


def _squares(feet: int) -> int:
    """A printed length in squares of 10 ft (at least one)."""
    return max(1, round(feet / 10))


def room_spec(result: TableResult) -> SizeSpec:
    """The size of a room or chamber rolled on A.5.1 (with A.5.2/A.5.3 for unusual shapes)."""
    merged: dict[str, object] = {}
    for node in walk(result):
        name = node.table.id.rsplit("/", 1)[-1]
        if name in ("forma-camera", "forma-stanza", "forme-inusuali", "dimensioni-stanza"):
            merged.update(node.values)
    shape = SHAPES.get(str(merged.get("shape", "square")), "rect")
    if shape == "rect":
        w = _squares(int(str(merged.get("w_ft", 10))))
        h = _squares(int(str(merged.get("h_ft", 10))))
        return SizeSpec("rect", w, h, w * h)
    squares = max(1, round(int(str(merged.get("area_sqft", 500))) / 100))
    if shape == "cave":
        side = max(1, round(math.sqrt(squares)))
        return SizeSpec("cave", side, max(1, squares // side), squares)
    return SizeSpec(shape, 0, 0, squares)


def cave_spec(result: TableResult) -> SizeSpec:
    """The size of a cave or cavern of A.8.1 (a double cave with its second part)."""
    v = result.values
    w, h = _squares(int(v["w_ft"])), _squares(int(v["h_ft"]))
    w2 = _squares(int(v["w2_ft"])) if "w2_ft" in v else 0
    h2 = _squares(int(v["h2_ft"])) if "h2_ft" in v else 0
    return SizeSpec("cave", w, h, w * h + w2 * h2, w2, h2)


def area_sqft(result: TableResult) -> int:
    """The rolled area in square feet (A.5.1, A.5.3 or A.8.1), for A.5.4."""
    for node in walk(result):
        if "area_sqft" in node.values:
            found = effective(node).values.get("area_sqft", node.values["area_sqft"])
            return int(found)
    v = result.values
    return int(v.get("w_ft", 10)) * int(v.get("h_ft", 10))


class ScatolaBianca(CorridorKit):
    """The procedure plug-in (``PROCEDURE``), built with the shared corridor toolkit."""

    name = "scatola-bianca"
    joins = False
    """A passage that meets a room or passage turns by A.4 ("altre stanze o corridoi")."""
    parent_grace = 3
    """Cells a passage may run along the room or passage it leaves (kerker's geometry, as
    the Zufallslabyrinth's: the text says nothing of it)."""
    lead_cells = squares_to_cells(3)
    """A.5.6's note "un corridoio su un'area già mappata": an area within 30' (the first
    stretch a passage walks) beyond the exit's wall."""
    reads_caves = True
    """The engine's ``Params.caves`` applies (``--caves``)."""
    options = (
        ProcedureOption("entrance", ("variant", "room", "hall"), "variant"),
        ProcedureOption("caves", ("depth", "always", "never"), "depth"),
    )
    """Its options (``Params.options``, the CLI's ``--entrance`` and ``--caves``)."""
    kinds = (("chamber", N_("Chamber")), ("elevator", N_("Elevator room")))
    """Area kinds beyond the engine's basic ones (entrance, room, hall, cave, corridor)."""
    player_kinds = (("elevator", "room"),)
    """The players see an elevator room as a room (A.7.1: the trick)."""
    checks = ()
    """No checks of its own logged without a row."""
    key_leaves_out = (
        "scatola-bianca/porte",
        "scatola-bianca/mostro-errante",
        "scatola-bianca/pozze-magiche",
    )
    """Keyed on their own, not in the texts they follow: the door of a hidden door found
    (A.7.1 -> A.2) among the exits, a pool's or lake's monster as a content, its magic."""
    door_value = "door_shuts_exit"
    """The A.6 footnotes: a door may shut the way back for a day (``door_closes``)."""

    # -- the way in ----------------------------------------------------------------------
    def start(self, state: DungeonState, level: LevelState) -> None:
        """Level 1: stairs from the surface into a passage at the foot of the sheet, its
        width by A.3.2, walked north by A.1 (the seed starts in a passage and says no more);
        with ``--entrance room|hall`` into a room or chamber of A.5 instead.
        """
        if state.params.entrance != "variant" and self._entrance_room(state, level):
            return
        occ = level.occ
        sink = Sink()
        width = int(state.roll(T + "larghezza-corridoio", level, sink).values["width_ft"])
        origin = (occ.width // 2, occ.height - 2)  # the stairs come in from the edge
        area = state.new_area(level, "corridor", "corridor", set(), "n")
        area.absorb(sink)
        area.width_ft = area.rolled_width_ft = width
        level.entrance = area.id
        walker = Walker(area, origin, "n", feet_to_cells(width), None)
        if not self._begin(state, level, walker):  # pragma: no cover - a 10x10 sheet fits
            state.grow(level, area, [origin])
        at, span = self._span_at(area.cells, self._edge(walker, "s"), "s")
        self._stairs_from_surface(state, level, area, at, span)
        self._walk(state, level, walker, 30)

    @staticmethod
    def _stairs_from_surface(
        state: DungeonState, level: LevelState, area: AreaBuilder, at: Cell, span: int
    ) -> None:
        """The way in of level 1: stairs up to the surface, ``span`` cells wide from ``at``
        in the south wall of the entrance ``area``."""
        state.connect(
            level,
            area.id,
            None,
            "stairs",
            at,
            "s",
            width=span,
            to_level=0,
            direction="up",
            mode="level",
        )

    def _entrance_room(self, state: DungeonState, level: LevelState) -> bool:
        """``--entrance room``: a room (A.5.1 "Stanza"); ``hall``: what A.1 "Camera" makes
        on this level (a chamber, or a cave of A.8.1 where ``--caves`` puts caves). Placed at
        the foot of the sheet with the stairs from the surface in its south wall, then its
        exits and contents by A.5 (contents skipped with ``empty_entrance``)."""
        occ = level.occ
        origin = (occ.width // 2, occ.height - 2)  # the stairs come in from the edge
        sink = Sink()
        if state.params.entrance == "room":
            kind, table = "room", "forma-stanza"
        elif caves_at(state.params.caves, level.depth):
            kind, table = "cave", "cave-e-caverne"
        else:
            kind, table = "chamber", "forma-camera"
        res = state.roll(T + table, level, sink)
        spec = cave_spec(res) if kind == "cave" else room_spec(res)
        placed = self._place(state, level, origin, "n", set(), spec, kind, table, sink, res)
        if placed is None:  # pragma: no cover - every A.5.1 size fits a 10x10 sheet
            return False
        area, res = placed
        level.entrance = area.id
        at, span = self._span_at(area.cells, origin, "s")
        self._stairs_from_surface(state, level, area, at, span)
        self._stock(state, level, area, res, kind, contents=not state.params.empty_entrance)
        return True

    def arrive(self, state: DungeonState, level: LevelState, arrival: Arrival) -> None:
        """A way from another level arrives in a 10-ft passage that is walked by A.1; an
        elevator arrives as its room, with a door onto such a passage."""
        source = state.levels[arrival.from_depth].conns[arrival.conn]
        if arrival.kind == "elevator" and self._elevator_arrives(state, level, arrival, source):
            return
        spot = lv.free_spot(level, level.rng, squares_to_cells(3) + 2)
        if spot is None:
            state.bend("no_arrival")
            return
        origin, heading = spot
        area = state.new_area(level, "corridor", "corridor", {origin}, heading)
        area.width_ft = 10
        back = lv.link_back(
            state, level, area, source, arrival.from_depth, origin, opposite(heading)
        )
        walker = Walker(area, origin, heading, 1, None)
        walker.width = feet_to_cells(10)
        self._widen_start(state, level, walker)
        back.at, back.width = self._span_at(area.cells, self._edge(walker, back.side), back.side)
        self._walk(state, level, walker, 30)

    @staticmethod
    def _span_at(cells: set[Cell], cell: Cell, side: str) -> tuple[Cell, int]:
        """Where a 10-ft way (stairs, trapdoor, shaft) on ``side`` of ``cell`` sits so that
        both its cells are the area's: ``at`` and the width (1 where only one cell is)."""
        ax, ay = along(side)
        if (cell[0] + ax, cell[1] + ay) in cells:
            return cell, 2
        if (cell[0] - ax, cell[1] - ay) in cells:
            return (cell[0] - ax, cell[1] - ay), 2
        return cell, 1

    # -- exits -----------------------------------------------------------------------------
    def touched(self, state: DungeonState, level: LevelState, conns: list[ConnBuilder]) -> None:
        """The engine's hook after each step: the connections made in it and those whose far
        side it took (joined to a new area meanwhile) get their openings trimmed (before,
        every connection of the level was trimmed before each expansion: O(n) a step)."""
        for other in conns:
            self._trim(level, other)

    def expand(self, state: DungeonState, level: LevelState, conn: ConnBuilder) -> None:
        """A passage that goes on (side passage, chamber exit) or what lies behind a door."""
        if not state.budget_left(level):
            level.frontier.append(conn.id)
            return
        beyond = conn.info.get("beyond")
        if isinstance(beyond, TableResult):
            self._beyond_door(state, level, conn, beyond)
            return
        self._passage(
            state,
            level,
            conn,
            conn.heading or conn.side,
            int(conn.info.get("width", 2)),
            int(conn.info.get("first_ft", 30)),
        )

    def _passage(
        self,
        state: DungeonState,
        level: LevelState,
        conn: ConnBuilder,
        heading: str,
        width: int,
        first_ft: int,
    ) -> AreaBuilder | None:
        """A new passage from ``conn``: its first cells, then ``first_ft`` and A.1."""
        origin = step(conn.at, conn.side)
        area = state.new_area(level, "corridor", "corridor", set(), heading)
        area.width_ft = area.rolled_width_ft = width * 5
        walker = Walker(area, origin, conn.side, width, conn.from_)
        if not self._begin_at(state, level, walker, conn):
            del level.areas[area.id]
            block(state, level, conn, "corridor")
            return None
        conn.to = area.id
        self._trim(level, conn)
        # A passage parallel to the way you came goes 5 ft out first, so that rock stays
        # between the two (else it would run along the other and open into it).
        if (
            self._how(conn.side, heading)[1] == 2
            and self._try_step(state, level, walker) == "joined"
        ):
            return area
        if heading != conn.side and not self._turn(
            state, level, walker, *self._how(conn.side, heading)
        ):
            side, eighths = self._how(conn.side, heading)
            other = "right" if side == "left" else "left"
            if self._turn(state, level, walker, other, eighths):
                record(state, area, "turn", side, other, "no_room", "turned_other_way")
            else:
                record(state, area, "turn", side, "straight", "no_room", "went_straight")
        self._walk(state, level, walker, first_ft)
        return area

    def _begin_at(
        self, state: DungeonState, level: LevelState, walker: Walker, conn: ConnBuilder
    ) -> bool:
        """The passage's first cross-section across ``conn``'s opening (centred on it when
        the opening is wider than a door), narrowed if it must be (``narrowed``)."""
        allowed = {walker.parent} if walker.parent else set()
        opening = max(1, conn.width)
        ax, ay = along(conn.side)
        width = walker.width
        door = walker.center
        while width >= 1:
            base = 0 if opening < 2 else width // 2 - max(0, width - opening) // 2
            for extra in shifts(width):  # the opening anywhere across a wide passage
                shift = base + extra
                center = (door[0] + ax * shift, door[1] + ay * shift)
                cells = cross_section(center, walker.heading, width)
                if door in cells and level.occ.fits(cells, allowed):
                    break
            else:
                width -= 1
                continue
            if width != walker.width:
                record(
                    state, walker.area, "width", walker.width * 5, width * 5, "no_room", "narrowed"
                )
                walker.width = width
                walker.area.width_ft = width * 5
            walker.center = center
            state.grow(level, walker.area, cells)
            walker.trail.append((center, walker.heading))
            return True
        return False

    @staticmethod
    def _trim(level: LevelState, conn: ConnBuilder) -> None:
        """Narrow ``conn`` to the cells along its wall that are its area's and face its
        target (rock while it is unexplored), so that the map opens no wall onto rock."""
        if conn.mode == "level" or conn.width < 2:
            return
        (ax, ay), (dx, dy) = along(conn.side), VECTORS[conn.side]
        n = 1
        while n < conn.width:
            cell = (conn.at[0] + ax * n, conn.at[1] + ay * n)
            if (
                level.occ.owner(cell) != conn.from_
                or level.occ.owner((cell[0] + dx, cell[1] + dy)) != conn.to
            ):
                break
            n += 1
        conn.width = n

    def _join(
        self,
        state: DungeonState,
        level: LevelState,
        walker: Walker,
        cell: Cell,
        side: str,
        owner: str,
    ) -> None:
        """The shared join (a passage meets an area and opens into it), its opening trimmed
        to the wall both share."""
        super()._join(state, level, walker, cell, side, owner)
        self._trim(level, level.conns[next(reversed(level.conns))])

    @staticmethod
    def _how(frm: str, to: str) -> tuple[str, int]:
        """The turn from heading ``frm`` to ``to``: side and eighths."""
        for n in range(1, 5):
            if turn(frm, n) == to:
                return "right", n
            if turn(frm, -n) == to:
                return "left", n
        return "right", 0

    def _beyond_door(
        self, state: DungeonState, level: LevelState, conn: ConnBuilder, beyond: TableResult
    ) -> None:
        """A.2.2: a room (A.5), or a passage (parallel, straight, 45 deg forward/back)."""
        v = beyond.values
        ahead = bool(beyond.context.get("door_ahead", False))
        if v.get("kind") == "room" and caves_at(state.params.caves, level.depth):
            # A.8 "al posto di camere e stanze": the room behind the door is a cave
            sink = Sink()
            cave = state.roll(T + "cave-e-caverne", level, sink)
            self._room(
                state, level, conn, cave, cave_spec(cave), "cave", "cave-e-caverne", sink.rolls
            )
            return
        if v.get("kind") == "room" or (v.get("kind") == "parallel_passage" and ahead):
            if v.get("kind") == "room":
                spec = room_spec(beyond)
                table: str | None = "forma-stanza"
                # the A.5.1 roll made with the door (its log entries were taken off the
                # area the door is in when it was made: :meth:`_room_rolls`)
                shape = find(beyond, "forma-stanza")
                rolls = conn.info.get("rolls") or None
                res = shape if shape is not None and rolls else beyond
            else:
                spec = SizeSpec(
                    "rect", _squares(int(v["room_w_ft"])), _squares(int(v["room_h_ft"])), 1
                )
                table, res, rolls = None, beyond, None
            self._room(state, level, conn, res, spec, "room", table, rolls)
            return
        side = conn.side
        along = str(conn.info.get("along", turn(side, 2)))
        heading_kind = str(v.get("heading", "straight"))
        if v.get("kind") == "parallel_passage":
            heading = along if not is_diagonal(along) else turn(side, 2)
        elif heading_kind == "forward":
            heading = self._toward(side, along, 1)
        elif heading_kind == "backward":
            heading = self._toward(side, opposite(along), 1)
        else:
            heading = side
        width = feet_to_cells(10)
        self._passage(state, level, conn, heading, width, int(v.get("advance_ft", 30)))

    @staticmethod
    def _room_rolls(area: AreaBuilder, beyond: TableResult | None) -> list[RollEntry]:
        """The log entries of the A.5.1 roll a door's A.2.2 made ("Una stanza"), taken off
        ``area``'s log (the door was rolled there): they are the room's, logged on it when
        it is built; a room that is never built behind the door (it opens into an area
        already there, or finds no wall) leaves no A.5.1 entry, as a room that does not fit
        leaves none. [] when A.2.2 rolled no room."""
        shape = find(beyond, "forma-stanza") if beyond is not None else None
        return take_rolls(area.rolls, shape) if shape is not None else []

    @staticmethod
    def _toward(side: str, toward: str, eighths: int) -> str:
        """``side`` turned ``eighths`` x 45 deg towards ``toward`` (right when either way)."""
        right, left = turn(side, eighths), turn(side, -eighths)
        if (
            right == toward
            or turn(right, 1) == toward
            or (
                turn(right, -1) == toward and (turn(left, 1) != toward and turn(left, -1) != toward)
            )
        ):
            return right
        if left == toward or turn(left, 1) == toward or turn(left, -1) == toward:
            return left
        return right

    # -- rooms, chambers, caves (A.5, A.8) --------------------------------------------------
    def _room(
        self,
        state: DungeonState,
        level: LevelState,
        conn: ConnBuilder,
        res: TableResult,
        spec: SizeSpec,
        kind: str,
        table: str | None,
        rolls: list[RollEntry] | None = None,
    ) -> AreaBuilder | None:
        """Place a room (``kind`` room: doors), chamber (``chamber``: open passages) or cave
        behind ``conn``; then its exits and contents in the seed's order. ``rolls``: the
        log entries of ``res`` when they were made on the passage before it."""
        sink = Sink(list(rolls or ()), [res] if rolls else [])
        placed = self._place(
            state,
            level,
            step(conn.at, conn.side),
            conn.side,
            {conn.from_},
            spec,
            kind,
            table,
            sink,
            res,
        )
        if placed is None:
            # nothing fits, not even rerolled or made smaller: the way stays, blocked (its
            # rolls are not logged: no area was made by them)
            block(state, level, conn, kind)
            return None
        area, res = placed
        conn.to = area.id
        self._trim(level, conn)
        self._stock(state, level, area, res, kind)
        return area

    def _place(
        self,
        state: DungeonState,
        level: LevelState,
        origin: Cell,
        heading: str,
        allowed: set[str],
        spec: SizeSpec,
        kind: str,
        table: str | None,
        sink: Sink,
        res: TableResult,
    ) -> tuple[AreaBuilder, TableResult] | None:
        """A room, chamber or cave of ``spec`` (rolled as ``res``) entered at ``origin``
        going ``heading``: as rolled, else rerolled on ``table``, else made smaller
        (:func:`~kerker.dungeon.bend.place_rolled`); None when nothing fits. With the
        result whose roll was kept: the exits (A.5.4) and pools follow it, and a discarded
        roll leaves no trace in the area's log (its bend says what it was). Unusual shapes
        (A.5.2) keep their kind: the ``shape`` says how they look."""
        kept: list[tuple[TableResult, int]] = [(res, 0)]  # a result, where its rolls start
        given = len(sink.results)

        def reroll() -> SizeSpec | None:
            if table is None:
                return None
            mark = len(sink.rolls)
            again = state.roll(T + table, level, sink)
            kept.append((again, mark))
            return cave_spec(again) if table == "cave-e-caverne" else room_spec(again)

        placed = place_rolled(
            level.occ,
            spec,
            origin,
            heading,
            allowed,
            level.rng,
            reroll,
            state.bend,
            state.limits,
        )
        if placed is None:
            return None
        if placed.rolled is not placed.first:
            result, mark = kept[-1]
            del sink.rolls[:mark]  # the discarded rolls: only the bend keeps them
            sink.results[:] = [result]
        else:
            result = res
            del sink.rolls[kept[1][1] if len(kept) > 1 else len(sink.rolls) :]
            del sink.results[given:]  # the rerolls that did not fit
        area = state.new_area(level, kind, placed.built.shape, placed.cells, heading)
        area.closed = kind == "room"
        area.absorb(sink)
        size_bends(area, placed)
        return area, result

    def _stock(
        self,
        state: DungeonState,
        level: LevelState,
        area: AreaBuilder,
        res: TableResult,
        kind: str,
        contents: bool = True,
    ) -> None:
        """The rest of A.5 for a placed area: exits (A.5.4-A.5.6), contents (A.5.7), and a
        cave's pools and lakes (A.8.2, A.8.3)."""
        self._exits(state, level, area, area_sqft(res), cave=kind == "cave")
        if contents:
            rolled = state.roll(
                T + "contenuto-stanza", level, area, caves=caves_at(state.params.caves, level.depth)
            )
            self._contents(state, level, area, rolled)
        if kind == "cave":
            for node in walk(res):
                self._contents(state, level, area, node)

    def _exits(
        self,
        state: DungeonState,
        level: LevelState,
        area: AreaBuilder,
        sqft: int,
        cave: bool = False,
    ) -> None:
        """A.5.4 (count by the rolled area), A.5.5 (wall), A.5.6 (direction) or A.2.2
        (behind a room's door); the 0* rows search the walls."""
        res = state.roll(T + "numero-uscite", level, area, area_sqft=sqft)
        count = int(res.values.get("exits", 0))
        if count == 0:
            self._search(
                state,
                level,
                area,
                [area.heading, turn(area.heading, -2), turn(area.heading, 2)],
                per_wall=None,
            )
            return
        made: list[ConnBuilder] = []
        for _ in range(count):
            where = state.roll(
                T + "luogo-uscita",
                level,
                area,
                room=area.closed,
                caves=caves_at(state.params.caves, level.depth),
            )
            if cave:
                guard = state.roll(T + "uscita-caverna", level, area)
                monster = find(guard, "mostro-errante")
                if monster is not None:
                    area.contents.append(Content("monster", guard, note="wandering"))
            conn = self._exit(state, level, area, where)
            if conn is not None:
                made.append(conn)
        if len(made) < count:  # no wall of the area had room for the rest
            record(state, area, "exit", count, len(made), "no_room")
        state.push_in_order(level, made)

    def _exit(
        self, state: DungeonState, level: LevelState, area: AreaBuilder, where: TableResult
    ) -> ConnBuilder | None:
        wall = str(where.values["wall"])
        wall = {"same": "entrance"}.get(wall, wall)
        beyond = find(where, "dietro-la-porta")
        rolls = self._room_rolls(area, beyond)  # the room's, if one is built behind the door
        found = self._exit_cell(state, level, area, wall)
        if found is None:
            return None
        side, cell = found
        target = self._leads_into(level, area, cell, side)
        if target is not None:
            # A.5.6's note: a passage onto a mapped area is a secret or a one-way door.
            mapped = state.roll(T + "uscita-su-area-mappata", level, area)
            kind = str(mapped.values["kind"])
            gap = []
            probe = step(cell, side)
            for _ in range(squares_to_cells(3)):
                if level.occ.owner(probe) is not None:
                    break
                gap.append(probe)
                probe = step(probe, side)
            owner = level.occ.owner(probe)
            if owner is None or owner == area.id or not level.occ.free(gap):
                state.bend("dead_end")
                return None
            one_way = "from_to" if kind == "one_way_door" else None
            if not gap:
                return state.connect(
                    level,
                    area.id,
                    owner,
                    kind,
                    cell,
                    side,
                    width=1,
                    gm_only=kind == "secret_door",
                    one_way=one_way,
                    mode="exit",
                )
            # the short way through the rock is a 5-ft passage of its own (the room keeps
            # its rolled size), its door at the room
            passage = state.new_area(level, "corridor", "corridor", set(gap), side)
            passage.width_ft = 5
            state.connect(level, passage.id, owner, "opening", gap[-1], side, width=1, mode="exit")
            return state.connect(
                level,
                area.id,
                passage.id,
                kind,
                cell,
                side,
                width=1,
                gm_only=kind == "secret_door",
                one_way=one_way,
                mode="exit",
            )
        if area.closed:
            return state.connect(
                level,
                area.id,
                None,
                "door",
                cell,
                side,
                width=1,
                mode="exit",
                info={"beyond": beyond, "along": turn(side, 2), "rolls": rolls},
            )
        direction = find(where, "direzione-uscita")
        dv = direction.values if direction is not None else {}
        width = feet_to_cells(int(dv.get("width_ft", 10)))
        heading = side
        if dv.get("heading") == "diagonal":
            heading = turn(side, -1 if dv.get("side") == "left" else 1)
        opening = min(2, width)
        if opening == 2:  # both cells of the opening on this wall, facing rock
            free = self._wall_cells(state, level, area, side)
            ax, ay = along(side)
            if (cell[0] + ax, cell[1] + ay) not in free:
                if (cell[0] - ax, cell[1] - ay) in free:
                    cell = (cell[0] - ax, cell[1] - ay)
                else:
                    opening = 1
        return state.connect(
            level,
            area.id,
            None,
            "opening",
            cell,
            side,
            width=opening,
            mode="corridor",
            heading=heading,
            info={"width": width, "first_ft": 30},
        )

    def _search(
        self,
        state: DungeonState,
        level: LevelState,
        area: AreaBuilder,
        sides: list[str],
        per_wall: int | None,
    ) -> bool:
        """The footnote of A.5.4: per 10 ft of wall searched a d12 (1 a secret door, 12 a
        wandering monster). Walls in order; stops at the first secret door, which opens
        onto a passage. ``per_wall``: 10-ft sections searched per wall (None: all)."""
        for side in sides:
            cells = [c for c in sorted(area.cells) if step(c, side) not in area.cells]
            if not cells:
                continue
            sections = max(1, (len(cells) + 1) // 2)
            if per_wall is not None:
                sections = min(sections, per_wall)
            for _ in range(sections):
                res = state.roll(T + "porta-segreta-muro", level, area)
                if res.values.get("kind") == "wandering_monster":
                    area.contents.append(
                        Content("monster", find(res, "mostro-errante"), note="wandering")
                    )
                elif res.values.get("kind") == "secret_door":
                    free = self._wall_cells(state, level, area, side)
                    if not free:
                        state.bend("moved")
                        continue
                    cell = free[level.rng.randrange(len(free))]
                    self._secret_passage(state, level, area, cell, side)
                    return True
        return False

    @staticmethod
    def _secret_passage(
        state: DungeonState, level: LevelState, area: AreaBuilder, cell: Cell, side: str
    ) -> None:
        """A.5.4's footnote: the secret door found at ``cell`` on ``side`` of ``area`` opens
        onto a 10-ft passage (its first 30 ft walked), queued in order."""
        conn = state.connect(
            level,
            area.id,
            None,
            "secret_door",
            cell,
            side,
            width=1,
            gm_only=True,
            mode="corridor",
            heading=side,
            info={"width": feet_to_cells(10), "first_ft": 30},
        )
        state.push_in_order(level, [conn])

    def _contents(
        self, state: DungeonState, level: LevelState, area: AreaBuilder, res: TableResult
    ) -> None:
        """What a result puts into ``area``: A.5.7 contents, A.5.8 treasure, A.7 traps,
        A.8.2/A.8.3 pools and lakes."""
        name = res.table.id.rsplit("/", 1)[-1]
        v = res.values
        if name == "contenuto-stanza":
            if v.get("monster"):
                area.contents.append(Content("monster", find(res, "mostro-errante")))
            if v.get("monster") and v.get("treasure"):
                area.contents.append(Content("note", res))
            treasure = find(res, "tesoro-senza-mostri")
            if treasure is not None:
                area.contents.append(Content("treasure", treasure))
            trap = find(res, "trappole-e-tranelli")
            if trap is not None and effective(trap).values.get("kind") != "nothing":
                area.contents.append(Content("trap", effective(trap)))
                self._room_trap(state, level, area, trap)
            if v.get("special") and bool(res.context.get("specials", False)):
                area.contents.append(Content("note", res))
        elif name in ("pozze", "laghi") and (v.get("pool") or v.get("lake")):
            area.contents.append(Content("water", res, magic=find(res, "pozze-magiche")))
            monster = find(res, "mostro-errante")
            if monster is not None:
                area.contents.append(Content("monster", monster))
            share = 3 if name == "laghi" else 6
            area.features.append(
                Feature(
                    "lake" if name == "laghi" else "pool",
                    tuple(self._middle(area, len(area.cells) // share)),
                    None,
                    res,
                )
            )

    # -- the walk (A.1) --------------------------------------------------------------------
    def _walk(self, state: DungeonState, level: LevelState, walker: Walker, first_ft: int) -> None:
        """Go ``first_ft``, then roll A.1 and do what its row says, until the passage ends."""
        area = walker.area
        if not self._go(state, level, walker, first_ft):
            return
        for _ in range(state.limits.max_corridor_rolls):
            res = state.roll(
                T + "tiri-periodici", level, area, caves=caves_at(state.params.caves, level.depth)
            )
            if res.key == "wandering_monster":
                monster = find(res, "mostro-errante")
                area.contents.append(Content("monster", monster, note="wandering"))
            row = effective(res)
            v = row.values
            kind = str(v.get("kind"))
            advance = int(v.get("advance_ft", 0))
            if kind == "door":
                door = find(row, "porte")
                if door is None or not self._corridor_door(state, level, walker, door):
                    return
                advance = int(door.values.get("advance_ft", 30))
            elif kind == "side_passage":
                if not self._side_passage(state, level, walker, row):
                    return
            elif kind == "turn":
                turned = find(row, "svolte")
                if turned is None or not self._turn_by(state, level, walker, turned):
                    return
            elif kind == "chamber":
                self._chamber(state, level, walker, row)
                return
            elif kind == "stairs":
                if not self._stairs(state, level, walker, row):
                    return
                advance = int(find(row, "scale").values.get("advance_ft", 0))  # type: ignore[union-attr]
            elif kind == "dead_end":
                self._dead_end(state, level, walker)
                return
            elif kind == "trap":
                trap = find(row, "trappole-e-tranelli")
                if trap is not None and not self._trap(state, level, walker, trap, advance):
                    return
            if not self._go(state, level, walker, advance):
                return
        side = self._ahead(walker)
        state.connect(
            level,
            area.id,
            None,
            "opening",
            self._edge(walker, side),
            side,
            width=min(2, walker.width),
            mode="corridor",
            heading=walker.heading,
            info={"width": walker.width, "first_ft": 0},
        )

    def _go(self, state: DungeonState, level: LevelState, walker: Walker, feet: int) -> bool:
        """Walk ``feet``; where the passage cannot go on, A.4 turns it (the seed's use of
        the table). False when the passage has ended (joined an area or a dead end)."""
        turns = 0
        for _ in range(feet // 5):
            status = self._try_step(state, level, walker)
            if status == "ok":
                continue
            if status == "joined":
                return False
            turns += 1
            if turns > state.limits.max_turn_rolls:
                state.bend("dead_end")
                return False
            res = state.roll(T + "svolte", level, walker.area)
            if not self._turn_by(state, level, walker, res):
                return False
        return True

    def _turn_by(
        self, state: DungeonState, level: LevelState, walker: Walker, res: TableResult
    ) -> bool:
        """A row of A.4: turn left/right by 90 or 45 deg (forward or backward), then the new
        width of A.3.2."""
        v = res.values
        side = str(v["side"])
        eighths = int(v["angle_deg"]) // 45
        if v.get("heading") == "backward":
            eighths = 4 - eighths
        if not self._turn(state, level, walker, side, eighths):
            other = "right" if side == "left" else "left"
            if not self._turn(state, level, walker, other, eighths):
                state.bend("dead_end")
                return False
            state.bend("turned_other_way")
        width = find(res, "larghezza-corridoio")
        if width is not None:
            self._rewiden(state, level, walker, feet_to_cells(int(width.values["width_ft"])))
        return True

    def _rewiden(self, state: DungeonState, level: LevelState, walker: Walker, width: int) -> None:
        """The passage goes on ``width`` cells wide from here (A.3.2 after a turn); if the
        new cross-section does not fit, it keeps its width (``narrowed``)."""
        if width == walker.width:
            return
        area = walker.area
        area.rolled_width_ft = max(area.rolled_width_ft or 0, width * 5)
        cells = [
            c
            for c in cross_section(walker.center, walker.heading, width)
            if c not in walker.area.cells
        ]
        if cells and not level.occ.fits(cells, self._allowed(walker)):
            record(state, area, "width", width * 5, walker.width * 5, "no_room", "narrowed")
            return
        state.grow(level, walker.area, cells)
        walker.width = width
        walker.area.width_ft = max(walker.area.width_ft or 0, width * 5)

    def _corridor_door(
        self, state: DungeonState, level: LevelState, walker: Walker, door: TableResult
    ) -> bool:
        """A.2.1: a door left, right or ahead; A.2.2 was rolled with it. A door ahead ends
        the passage (False); the others are exits and the passage goes on."""
        where = str(door.values["side"])
        beyond = find(door, "dietro-la-porta")
        rolls = self._room_rolls(walker.area, beyond)
        side = self._ahead(walker) if where == "ahead" else self._lateral(walker, where)
        cell = self._edge(walker, side)
        owner = level.occ.owner(step(cell, side))
        if owner is not None and owner != walker.area.id:
            state.connect(level, walker.area.id, owner, "door", cell, side, width=1, mode="exit")
        elif owner is None:
            conn = state.connect(
                level,
                walker.area.id,
                None,
                "door",
                cell,
                side,
                width=1,
                mode="exit",
                info={"beyond": beyond, "along": walker.heading, "rolls": rolls},
            )
            state.push_in_order(level, [conn])
        return where != "ahead"

    def _side_passage(
        self, state: DungeonState, level: LevelState, walker: Walker, row: TableResult
    ) -> bool:
        """A.3.1 with the width of A.3.2: side passages open as exits; at a T or Y the
        passage takes the left way; at a crossing or X it goes on."""
        kind_res = find(row, "corridoio-laterale")
        width_res = find(row, "larghezza-corridoio")
        if kind_res is None:
            return True
        width = feet_to_cells(int(width_res.values["width_ft"])) if width_res else 2
        v = kind_res.values
        kind = str(v["kind"])
        side = str(v.get("side", "left"))
        eighths = int(v.get("angle_deg", 90)) // 45
        if v.get("heading") == "backward":
            eighths = 4 - eighths
        ways: list[tuple[str, int]]
        if kind == "t_junction":
            ways = [("left", 2), ("right", 2)]
        elif kind == "y_junction":
            ways = [("left", 1), ("right", 1)]
        elif kind == "crossing":
            ways = [("ahead", 0), ("left", 2), ("right", 2)]
        elif kind == "x_junction":
            ways = [("left", 1), ("right", 1)]
            if v.get("fifth_if_orthogonal") and not is_diagonal(walker.heading):
                ways.insert(0, ("ahead", 0))
            self._back_arms(state, level, walker, width)
        else:
            ways = [("ahead", 0), (side, eighths)]
        return self._open_ways(state, level, walker, ways, width, {"width": width, "first_ft": 30})

    def _back_arms(
        self, state: DungeonState, level: LevelState, walker: Walker, width: int
    ) -> None:
        """The two arms of an X that leave backwards (135 deg left and right): each opens
        in its side wall a little behind the forward arm on that wall, so that the two do
        not share an opening; an arm with no wall left there is a dead end."""
        made = []
        dx, dy = VECTORS[walker.heading]
        for where in ("left", "right"):
            wall = self._lateral(walker, where)
            (ax, ay), (wx, wy) = along(wall), VECTORS[wall]
            back = -1 if dx * ax + dy * ay > 0 else 1
            edge = self._edge(walker, wall)
            at = (edge[0] + 2 * back * ax, edge[1] + 2 * back * ay)
            span = [at, (at[0] + ax, at[1] + ay)][: min(2, width)]
            while span and not all(
                c in walker.area.cells and level.occ.owner((c[0] + wx, c[1] + wy)) is None
                for c in span
            ):
                span.pop()
            if not span:
                state.bend("dead_end")
                continue
            heading = turn(walker.heading, -3 if where == "left" else 3)
            made.append(
                state.connect(
                    level,
                    walker.area.id,
                    None,
                    "opening",
                    at,
                    wall,
                    width=len(span),
                    mode="corridor",
                    heading=heading,
                    info={"width": width, "first_ft": 30},
                )
            )
        state.push_in_order(level, made)

    def _chamber(
        self, state: DungeonState, level: LevelState, walker: Walker, row: TableResult
    ) -> None:
        """A.1 "Camera": a chamber (or, deep down, a cave of A.8.1) where the passage ends."""
        side = self._ahead(walker)
        cell = self._edge(walker, side)
        conn = state.connect(
            level,
            walker.area.id,
            None,
            "opening",
            cell,
            side,
            width=min(2, walker.width),
            mode="exit",
        )
        level.frontier.remove(conn.id)
        shape = find(row, "forma-camera")
        # the chamber's A.5.1 roll, not the passage's (none is logged if no chamber is made)
        moved = take_rolls(walker.area.rolls, shape) if shape is not None else []
        if not state.budget_left(level):
            conn.mode = "corridor"
            conn.heading = side
            conn.info = {"width": walker.width, "first_ft": 0}
            level.frontier.append(conn.id)
            return
        if caves_at(state.params.caves, level.depth):
            sink = Sink()
            cave = state.roll(T + "cave-e-caverne", level, sink)
            self._room(
                state, level, conn, cave, cave_spec(cave), "cave", "cave-e-caverne", sink.rolls
            )
            return
        if shape is None:  # pragma: no cover - A.1 "Camera" always rolls A.5.1
            block(state, level, conn, "chamber")
            return
        self._room(state, level, conn, shape, room_spec(shape), "chamber", "forma-camera", moved)

    def _stairs(
        self, state: DungeonState, level: LevelState, walker: Walker, row: TableResult
    ) -> bool:
        """A.6: stairs end the passage; dead-end stairs may collapse into a chute;
        chimneys and trapdoors lie in the passage and it goes on."""
        res = find(row, "scale")
        if res is None:
            return False
        v = res.values
        area = walker.area
        area.contents.append(Content("stairs", res))
        kind = str(v["kind"])
        direction = str(v["direction"])
        if v.get("dead_end"):
            if v.get("collapse"):
                self._level_way(
                    state,
                    level,
                    walker,
                    "shaft",
                    "down",
                    int(v["chute_levels"]),
                    self._ahead(walker),
                )
            return False
        if kind == "stairs":
            self._level_way(
                state, level, walker, "stairs", direction, int(v["levels"]), self._ahead(walker)
            )
            return False
        way = "trapdoor" if kind == "trapdoor" else "shaft"
        self._level_way(
            state, level, walker, way, direction, int(v["levels"]), self._lateral(walker, "left")
        )
        return True

    def _level_way(
        self,
        state: DungeonState,
        level: LevelState,
        walker: Walker,
        kind: str,
        direction: str,
        levels: int,
        side: str,
    ) -> None:
        to_level = lv.target_depth(level.depth, direction, levels)
        at, span = self._span_at(walker.area.cells, self._edge(walker, side), side)
        conn = state.connect(
            level,
            walker.area.id,
            None,
            kind,
            at,
            side,
            width=span,
            to_level=to_level,
            direction=direction,
            mode="level",
            info={"ends_in": "corridor"},
        )
        state.link_level(level, conn, "corridor")

    def _dead_end(self, state: DungeonState, level: LevelState, walker: Walker) -> None:
        """A.1 row 18: the walls right, left and ahead are searched (A.5.4's footnote): the
        last 10 ft of each side wall and the whole end wall."""
        sides = [self._lateral(walker, "right"), self._lateral(walker, "left"), self._ahead(walker)]
        self._search_end(state, level, walker, sides)

    def _search_end(
        self, state: DungeonState, level: LevelState, walker: Walker, sides: list[str]
    ) -> None:
        area = walker.area
        for side in sides:
            sections = 1 if side != self._ahead(walker) else max(1, walker.width // 2)
            for _ in range(sections):
                res = state.roll(T + "porta-segreta-muro", level, area)
                if res.values.get("kind") == "wandering_monster":
                    area.contents.append(
                        Content("monster", find(res, "mostro-errante"), note="wandering")
                    )
                elif res.values.get("kind") == "secret_door":
                    cell = self._edge(walker, side)
                    if level.occ.owner(step(cell, side)) is not None:
                        continue
                    self._secret_passage(state, level, area, cell, side)
                    return

    def _trap(
        self,
        state: DungeonState,
        level: LevelState,
        walker: Walker,
        trap: TableResult,
        advance: int,
    ) -> bool:
        """A.7.1 in a passage (the passage goes on): the trap is content; a hidden door
        found is a door of A.2; an elevator room is an area of its own. False when the
        passage ends here (it ran into the elevator room)."""
        row = effective(trap)
        v = row.values
        if v.get("kind") == "elevator_room":
            return self._elevator(state, level, walker, trap, advance)
        if v.get("kind") != "nothing":  # "Niente": only the roll log says it
            walker.area.contents.append(Content("trap", effective(trap)))
        if v.get("kind") == "hidden_door":
            door = find(row, "porte")
            if door is not None:
                return self._corridor_door(state, level, walker, door)
        return True

    def _room_trap(
        self, state: DungeonState, level: LevelState, area: AreaBuilder, trap: TableResult
    ) -> None:
        """A.7.1 rolled for a room's contents (A.5.7 row 19): the room is the elevator room
        ("il gruppo è appena entrato in questa stanza") with its way down; a hidden door
        found is a door of A.2.1 in the wall it names, A.2.2 behind it."""
        row = effective(trap)
        v = row.values
        if v.get("kind") == "elevator_room":
            self._room_elevator(state, level, area, trap)
            return
        door = find(row, "porte") if v.get("kind") == "hidden_door" else None
        if door is None:
            return
        beyond = find(door, "dietro-la-porta")
        rolls = self._room_rolls(area, beyond)
        wall = {"left": "left", "right": "right"}.get(str(door.values["side"]), "opposite")
        found = self._exit_cell(state, level, area, wall)
        if found is None:
            return
        side, cell = found
        conn = state.connect(
            level,
            area.id,
            None,
            "door",
            cell,
            side,
            width=1,
            mode="exit",
            info={"beyond": beyond, "along": turn(side, 2), "rolls": rolls},
        )
        state.push_in_order(level, [conn])

    def _room_elevator(
        self, state: DungeonState, level: LevelState, area: AreaBuilder, trap: TableResult
    ) -> None:
        """A.7.1 rows 09-11 as a room's contents: "Ascensore 20' per 20' (il gruppo è
        appena entrato in questa stanza)". A room of exactly that size is the elevator; a
        room of any other size or shape gets the 20' x 20' elevator room behind a door in
        one of its walls (the room the party then enters), never a larger elevator and
        never one drawn over other areas. Where no wall has room for it, the trap stays in
        the room as a bend (``position``: elevator -> not built)."""
        spec = self._elevator_spec(trap)
        cells = area.cells
        if (
            area.shape == "rect"
            and len(cells) == spec.w * spec.h * 4
            and len({x for x, _ in cells}) == spec.w * 2
        ):
            area.kind = "elevator"
            self._elevator_way(state, level, area, trap)
            return
        for wall in WALL_ORDER:
            side = self._wall_dir(area, {"same": "entrance"}.get(wall, wall))
            for cell in self._wall_cells(state, level, area, side):
                placed = try_place(
                    level.occ,
                    spec,
                    step(cell, side),
                    side,
                    {area.id},
                    level.rng,
                    state.limits,
                )
                if placed is None:
                    continue
                if area.contents and area.contents[-1].kind == "trap":
                    area.contents.pop()  # the trap is the elevator room's
                room = state.new_area(level, "elevator", "rect", placed, side)
                room.closed = True
                room.rolled_squares = spec.area
                room.contents.append(Content("trap", effective(trap)))
                state.connect(level, area.id, room.id, "door", cell, side, width=1, mode="exit")
                self._elevator_way(state, level, room, trap)
                return
        record(state, area, "position", "elevator", None, "no_room", "moved")

    @staticmethod
    def _elevator_spec(trap: TableResult) -> SizeSpec:
        """The elevator room as printed: 20' x 20' (A.7.1 rows 09-11)."""
        v = effective(trap).values
        w, h = _squares(int(v["w_ft"])), _squares(int(v["h_ft"]))
        return SizeSpec("rect", w, h, w * h)

    def _elevator(
        self,
        state: DungeonState,
        level: LevelState,
        walker: Walker,
        trap: TableResult,
        advance: int,
    ) -> bool:
        """A.7.1 rows 09-11 in a passage: "il gruppo è appena entrato in questa stanza" --
        the passage runs through a door into the elevator room (ahead, else in its right or
        left wall), and goes on from a door in the room's far wall after ``advance`` ft (A.1
        row 19: the passage continues). Where the room fits nowhere, the passage's last
        stretch is the elevator (``moved``). False: this passage ends at the room."""
        spec = self._elevator_spec(trap)
        for side in (
            self._ahead(walker),
            self._lateral(walker, "right"),
            self._lateral(walker, "left"),
        ):
            cell = self._edge(walker, side)
            origin = step(cell, side)
            if level.occ.owner(origin) is not None:
                continue
            cells = try_place(
                level.occ,
                spec,
                origin,
                side,
                {walker.area.id},
                level.rng,
                state.limits,
            )
            if cells is not None:
                break
        else:
            # no room for the 20' x 20' elevator room: the trap is keyed in the passage as
            # a bend, and no elevator is drawn over the passage (or what lies around it)
            walker.area.contents.append(Content("trap", effective(trap)))
            record(state, walker.area, "position", "elevator", None, "no_room", "moved")
            return True
        room = state.new_area(level, "elevator", "rect", cells, side)
        room.closed = True
        room.rolled_squares = spec.area
        room.contents.append(Content("trap", effective(trap)))
        state.connect(level, walker.area.id, room.id, "door", cell, side, width=1, mode="exit")
        self._elevator_way(state, level, room, trap)
        beyond = self._wall_cells(state, level, room, side)
        if beyond:
            at = beyond[len(beyond) // 2]
            conn = state.connect(
                level,
                room.id,
                None,
                "door",
                at,
                side,
                width=1,
                mode="corridor",
                heading=side,
                info={"width": walker.width, "first_ft": advance},
            )
            state.push_in_order(level, [conn])
        return False

    def _elevator_way(
        self,
        state: DungeonState,
        level: LevelState,
        area: AreaBuilder,
        trap: TableResult,
        at: Cell | None = None,
        side: str | None = None,
    ) -> None:
        """The elevator's way down (connection kind ``elevator``, ``gm_only``: a trick): one
        level (row 09), two (row 10), or 2-5 of which the first stop is two levels down (row
        11, decision 21). It sits in the middle of the room: the whole room goes down."""
        v = effective(trap).values
        levels = int(v.get("levels", v.get("levels_min", 1)))
        to_level = lv.target_depth(level.depth, "down", levels)
        conn = state.connect(
            level,
            area.id,
            None,
            "elevator",
            at or self._middle(area, 1)[0],
            side or area.heading,
            width=1,
            to_level=to_level,
            direction="down",
            mode="level",
            gm_only=True,
            info={"ends_in": "elevator", "trap": trap},
        )
        state.link_level(level, conn, "elevator")

    def _elevator_arrives(
        self, state: DungeonState, level: LevelState, arrival: Arrival, source: ConnBuilder
    ) -> bool:
        """The elevator room at the bottom: the same 20' x 20' room (its trap text, for the
        game master) with the way back up, and a door in its far wall onto a 10-ft passage
        walked by A.1 like every arrival. False when it has no room (a passage arrives)."""
        trap = source.info.get("trap")
        if not isinstance(trap, TableResult):
            return False
        spot = lv.free_spot(level, level.rng, squares_to_cells(3) + 2)
        if spot is None:
            return False
        origin, heading = spot
        cells = try_place(
            level.occ,
            self._elevator_spec(trap),
            origin,
            heading,
            set(),
            level.rng,
            state.limits,
        )
        if cells is None:
            return False
        room = state.new_area(level, "elevator", "rect", cells, heading)
        room.closed = True
        room.contents.append(Content("trap", effective(trap)))
        back = lv.link_back(
            state, level, room, source, arrival.from_depth, self._middle(room, 1)[0], heading
        )
        back.gm_only = True  # a trick: the players see a room
        beyond = self._wall_cells(state, level, room, heading)
        if beyond:
            at = beyond[len(beyond) // 2]
            conn = state.connect(
                level,
                room.id,
                None,
                "door",
                at,
                heading,
                width=1,
                mode="corridor",
                heading=heading,
                info={"width": feet_to_cells(10), "first_ft": 30},
            )
            state.push_in_order(level, [conn])
        return True


PROCEDURE = ScatolaBianca()
