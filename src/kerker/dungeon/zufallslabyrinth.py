"""The Zufallslabyrinth procedure (seed 000) on the shared engine.

Step 1 places the entrance; step 5 makes rooms and halls, their exits and their walls;
step 2 stocks every room and hall; step 3 rolls what lies behind an exit when the engine
expands it; step 4 walks a corridor roll by roll. Every number comes from the tables
(``src/kerker/rules/zufallslabyrinth``); this module only reads their value keys
(docs/rules-notes-000.md, "Value keys"). How impossible rolls are bent: :mod:`.bend`; the
corridor and room geometry is the shared toolkit (:mod:`.corridors`), which La Scatola
Bianca builds with too.
"""

from __future__ import annotations

from dataclasses import replace

from kerker.dice import roll as roll_dice
from kerker.dungeon import levels as lv
from kerker.dungeon.bend import Placement, SizeSpec, place_rolled
from kerker.dungeon.corridors import CorridorKit, Walker, area_edge, reserved_cells, shifts
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
from kerker.dungeon.toolkit import (
    block,
    effective,
    find,
    record,
    size_bends,
    split_rolls,
    table_name,
    walk,
)
from kerker.errors import N_
from kerker.geometry.grid import (
    CELLS_PER_SQUARE,
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

T = "zufallslabyrinth/"
PARENT_GRACE = 3
"""Cells a corridor may run along the area it leaves before that area counts as rock."""
NEAR = 6
"""Cells: a wall section is "near" an area at most this far beyond it (30 ft: three squares,
the seed's stretch of a corridor; docs/rules-notes-000.md, "Sackgasse")."""
COLUMN_WIDTH = {"columns": 20, "double_columns": 30}
"""Feet a corridor must be built wide to hold a row (two rows) of columns with a way beside
(docs/rules-notes-000.md, "Columns"); the table rolls them only for 40 and 50 ft."""
SIZE_TABLES = {
    "raum",
    "halle",
    "besondere_raeume",
    "hoehle",
    "form",
    "eingangsbereich",
    "ausgang_mit_tuer",
}
ARRIVAL_KIND = {
    "stairs": "stairs",
    "trapdoor": "trapdoor",
    "shaft": "shaft",
    "cave_mouth": "opening",
    "gate": "door",
    "tunnel": "opening",
}


def corridor_width(result: TableResult) -> int:
    """The width in feet the Gangbreite follow-up of an exit roll gave (after an obstacle
    row, the width of its extra roll); 10 ft when the row rolls no width."""
    width = find(result, "gangbreite")
    if width is None:
        return 10
    return int(str(width.values.get("width_ft", 10)))


def size_spec(result: TableResult) -> tuple[SizeSpec, str]:
    """The size of a rolled room, hall or cave and its kind (``room`` or ``hall``)."""
    merged: dict[str, object] = {}
    for node in walk(result):
        if table_name(node) in SIZE_TABLES:
            merged.update(node.values)
    shape = str(merged.get("shape", "rect"))
    kind = str(merged.get("kind", "room"))
    area = int(str(merged.get("area", 1)))
    w = int(str(merged.get("w", 0)))
    h = int(str(merged.get("h", 0)))
    if shape == "rect" and not (w and h):
        w = h = 1
    if shape == "cave":
        return SizeSpec(
            "cave", w, h, area, int(str(merged.get("w2", 0))), int(str(merged.get("h2", 0)))
        ), "hall"
    return SizeSpec(shape, w, h, area), kind


class Zufallslabyrinth(CorridorKit):
    """The procedure plug-in (``PROCEDURE``), built with the shared corridor toolkit."""

    name = "zufallslabyrinth"
    options: tuple[ProcedureOption, ...] = (
        ProcedureOption("entrance", ("variant", "room", "hall"), "variant"),
    )
    """Its option (``Params.options``, the CLI's ``--entrance``): the rolled entrance, a room
    or a hall of Schritt 5."""
    kinds: tuple[tuple[str, str], ...] = (("special", N_("Special room")),)
    """Area kinds beyond the engine's basic ones (entrance, room, hall, cave, corridor)."""
    key_leaves_out = (
        "zufallslabyrinth/kerkerzufallsbegegnung",
        "zufallslabyrinth/kerkerzufallsbegegnung_wasser",
        "zufallslabyrinth/schatz",
        "zufallslabyrinth/magisches_gewaesser",
    )
    """Keyed on their own, not in the texts they follow: a water's monster and treasure
    (contents) and its magic."""
    checks: tuple[tuple[str, str], ...] = (
        ("secret_door", N_("A secret door in this wall section ({row} on {dice}).")),
        ("none", N_("No secret door in this wall section ({row} on {dice}).")),
    )
    """Its own checks logged under a table: the 25 % secret door per wall section."""
    joins = True
    """A corridor that meets an area opens into it (seed 000 gives no other rule); Scatola
    Bianca turns by A.4 instead."""
    parent_grace = PARENT_GRACE
    lead_cells = squares_to_cells(3)
    """W4 (``ausgang_kollision``) asks whether an exit leads into an area: one within the
    corridor of 3 squares Schritt 3 rolls first (docs/rules-notes-000.md, "W4")."""

    # -- step 1 --------------------------------------------------------------------------
    def start(self, state: DungeonState, level: LevelState) -> None:
        """Schritt 1: the entrance area at the foot of the sheet, the way in below it."""
        occ = level.occ
        sink = Sink()
        heading = "n"
        origin = (occ.width // 2, occ.height - 3)
        if state.params.entrance == "variant":
            res = state.roll(T + "eingangsbereich", level, sink)
            v = res.values
            spec = SizeSpec("rect", int(v["w"]), int(v["h"]), int(v["area"]))
            closed = v["kind"] == "room"
            arrival = ARRIVAL_KIND.get(str(v.get("arrival")), "stairs")
            walls = [w.strip() for w in str(v["exit_walls"]).split(",") if w.strip()]
        else:
            table = "raum" if state.params.entrance == "room" else "halle"
            res = state.roll(T + table, level, sink)
            spec, kind = size_spec(res)
            closed = kind == "room"
            arrival = "stairs"
            walls = []

        again = None if state.params.entrance == "variant" else T + table
        found = self._place_room(state, level, spec, res, origin, heading, set(), again, sink)
        if found is None:  # the smallest area always fits a sheet of 10 x 10 squares
            placement = Placement(spec, spec, spec, frozenset({origin}))
        else:
            placement, res = found
        spec, cells = placement.built, placement.cells
        area = state.new_area(level, "entrance", spec.shape, cells, heading)
        size_bends(area, placement)
        area.closed = closed
        area.absorb(sink)
        level.entrance = area.id
        state.connect(
            level,
            area.id,
            None,
            arrival,
            origin,
            "s",
            to_level=0,
            direction="up" if arrival in ("stairs", "trapdoor", "shaft") else None,
            mode="level",
        )
        if walls:
            exits = [self._exit_on(state, level, area, wall) for wall in walls]
            state.push_in_order(level, [c for c in exits if c is not None])
        else:
            self._step5_exits(state, level, area, spec.area)
        self._features(state, level, area, res)
        if not state.params.empty_entrance:
            self._step2(state, level, area)

    # -- arrivals from other levels ------------------------------------------------------
    def arrive(self, state: DungeonState, level: LevelState, arrival: Arrival) -> None:
        """A way from another level: it ends in a hall, a dead end or a corridor."""
        source_level = state.levels[arrival.from_depth]
        source = source_level.conns[arrival.conn]
        spot = lv.free_spot(level, level.rng, squares_to_cells(3) + 2)
        if spot is None:
            state.bend("no_arrival")
            return
        start, heading = spot
        back = opposite(heading)
        sink = Sink()
        if arrival.ends_in == "hall":
            res = state.roll(T + "halle", level, sink)
            spec, _kind = size_spec(res)
            found = self._place_room(
                state, level, spec, res, start, heading, set(), T + "halle", sink
            )
            if found is not None:
                placement, res = found
                spec, cells = placement.built, placement.cells
                area = self._new_room(state, level, spec, cells, heading, "hall", sink, res)
                size_bends(area, placement)
                lv.link_back(state, level, area, source, arrival.from_depth, start, back)
                self._step5_exits(state, level, area, spec.area)
                self._step2(state, level, area)
                return
        # a corridor (of 10 ft; the seed gives no width for it) that ends or goes on
        area = state.new_area(level, "corridor", "corridor", {start}, heading)
        area.absorb(sink)
        area.width_ft = 10
        lv.link_back(state, level, area, source, arrival.from_depth, start, back)
        walker = Walker(area, start, heading, 1, None)
        walker.width = feet_to_cells(10)
        self._widen_start(state, level, walker)
        if self._advance(state, level, walker, squares_to_cells(3) - 1) and (
            arrival.ends_in != "dead_end"
        ):
            self._step4(state, level, walker)

    # -- step 3 --------------------------------------------------------------------------
    def expand(self, state: DungeonState, level: LevelState, conn: ConnBuilder) -> None:
        """Schritt 3 behind an exit (``mode == "exit"``) or Schritt 4 for a side corridor."""
        if not state.budget_left(level):
            level.frontier.append(conn.id)
            return
        if conn.mode == "corridor":
            self._branch(state, level, conn)
            return
        if isinstance(conn.info.get("hall"), TableResult):
            self._hall_behind(state, level, conn)
            return
        sink = Sink()
        res = state.roll(T + str(conn.table), level, sink)
        v = res.values
        if v.get("kind") == "corridor":
            self._corridor_from_exit(state, level, conn, res, sink)
            return
        spec, kind = size_spec(res)
        table = T + ("raum" if kind == "room" else "halle")
        origin = step(conn.at, conn.side)

        # "Raum (1 × 1 Feld)": the size is given, not rolled, so not rolled again
        again = None if find(res, "raum") is None and find(res, "halle") is None else table
        found = self._place_room(
            state, level, spec, res, origin, conn.side, {conn.from_}, again, sink
        )
        if found is None:
            # Nothing fits behind the door, not even rerolled or shrunk: the door stays
            # where it was rolled, a false door (docs/dungeon.md, "Bending").
            block(state, level, conn, str(res.key))
            return
        placement, res = found
        spec, cells = placement.built, placement.cells
        area = self._new_room(state, level, spec, cells, conn.side, kind, sink, res)
        size_bends(area, placement)
        conn.to = area.id
        self._step5_exits(state, level, area, spec.area)
        self._step2(state, level, area)

    def _place_room(
        self,
        state: DungeonState,
        level: LevelState,
        spec: SizeSpec,
        res: TableResult,
        origin: Cell,
        heading: str,
        allowed: set[str],
        table: str | None,
        sink: Sink,
    ) -> tuple[Placement, TableResult] | None:
        """Place a rolled room, hall or cave by the seed's "Größe ändern oder Wurf
        wiederholen" (:func:`~kerker.dungeon.bend.place_rolled`; ``table`` None: its size
        is given, not rolled again); with the result whose row was kept (its water, wells
        and ways come with it, not with a discarded roll)."""
        kept = [res]

        def reroll() -> SizeSpec | None:
            if table is None:
                return None
            again = state.roll(table, level, sink)
            kept.append(again)
            return size_spec(again)[0]

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
        return placed, (res if placed.rolled is placed.first else kept[-1])

    def _new_room(
        self,
        state: DungeonState,
        level: LevelState,
        spec: SizeSpec,
        cells: frozenset[Cell],
        heading: str,
        kind: str,
        sink: Sink,
        res: TableResult,
    ) -> AreaBuilder:
        if spec.shape == "cave":
            akind = "cave"
        elif spec.shape != "rect":
            akind = "special"
        else:
            akind = kind
        area = state.new_area(level, akind, spec.shape, cells, heading)
        area.closed = kind == "room" and spec.shape != "cave"
        area.absorb(sink)
        self._features(state, level, area, res)
        return area

    # -- step 5: exits ---------------------------------------------------------------------
    def _step5_exits(
        self, state: DungeonState, level: LevelState, area: AreaBuilder, squares: int
    ) -> None:
        hall = not area.closed
        res = state.roll(T + "anzahl_ausgaenge", level, area, area=squares, hall=hall)
        v = res.values
        count = int(v.get("exits", 0))
        unusual = bool(v.get("unusual", False))
        if count == 0:
            self._secret_doors(
                state, level, area, int(v.get("secret_door_chance", 0)), res.table.id
            )
            return
        made: list[ConnBuilder] = []
        for _ in range(count):
            pos = state.roll(T + "position_ausgaenge", level, area)
            conn = self._exit_on(state, level, area, str(pos.values["wall"]), unusual)
            if conn is not None:
                made.append(conn)
        if len(made) < count:  # no wall of the area had room for the rest
            record(state, area, "exit", count, len(made), "no_room")
        state.push_in_order(level, made)

    def _exit_on(
        self,
        state: DungeonState,
        level: LevelState,
        area: AreaBuilder,
        wall: str,
        unusual: bool = False,
    ) -> ConnBuilder | None:
        """An exit on ``wall`` (opposite/left/right/entrance), with the W4 rule when it
        would lead into an area made before."""
        found = self._exit_cell(state, level, area, wall)
        if found is None:
            return None
        side, cell = found
        closed = area.closed != unusual
        kind = "door" if closed else "archway"
        table = "ausgang_mit_tuer" if closed else "ausgang_ohne_tuer"
        gm_only = False
        one_way = None
        target = self._leads_into(level, area, cell, side)
        if target is not None:
            res = state.roll(T + "ausgang_kollision", level, area)
            action = res.values["action"]
            if action == "move_opposite":
                moved = self._wall_cells(state, level, area, opposite(side))
                if moved:
                    side = opposite(side)
                    cell = moved[level.rng.randrange(len(moved))]
                else:  # the opposite wall has no room: the exit stays where it was rolled
                    record(state, area, "position", "opposite_wall", "stays", "no_room", "moved")
            elif action == "secret_door":
                kind, gm_only = "secret_door", True
            else:
                kind, one_way = "one_way_door", "from_to"
            across = step(cell, side)
            owner = level.occ.owner(across)
            if action != "move_opposite" and owner is not None and owner != area.id:
                return state.connect(
                    level,
                    area.id,
                    owner,
                    kind,
                    cell,
                    side,
                    width=1,
                    gm_only=gm_only,
                    one_way=one_way,
                    mode="exit",
                )
        width = 1 if kind in ("door", "secret_door", "one_way_door") else 2
        return state.connect(
            level,
            area.id,
            None,
            kind,
            cell,
            side,
            width=width,
            gm_only=gm_only,
            one_way=one_way,
            mode="exit",
            table=table,
        )

    def _dead_end_walls(self, walker: Walker) -> dict[str, list[Cell]]:
        """The wall sections of a Sackgasse: its end wall and the side walls of its last
        square (10 ft), not the whole corridor (docs/rules-notes-000.md, "Sackgasse")."""
        area = walker.area
        last = walker.trail[-CELLS_PER_SQUARE:] or [(walker.center, walker.heading)]
        center, heading = last[-1]
        ahead = self._ahead(walker)
        walls: dict[str, list[Cell]] = {
            ahead: [c for c in cross_section(center, heading, walker.width) if c in area.cells]
        }
        for side in ("left", "right"):
            lateral = self._lateral(walker, side)
            dx, dy = VECTORS[lateral]
            cells = []
            for center, heading in last:
                section = [
                    c for c in cross_section(center, heading, walker.width) if c in area.cells
                ]
                if section:
                    cells.append(max(section, key=lambda c: c[0] * dx + c[1] * dy))
            walls.setdefault(lateral, []).extend(cells)
        return walls

    def _secret_doors(
        self,
        state: DungeonState,
        level: LevelState,
        area: AreaBuilder,
        chance: int,
        table: str,
        walls: dict[str, list[Cell]] | None = None,
    ) -> None:
        """No exits (or a dead end): each wall section (a side of the room; the end and side
        walls of a dead end: ``walls``) near an area made before, with that area at most
        :data:`NEAR` cells of rock beyond it, has ``chance`` % of a secret door into it; a
        gap of rock becomes a secret passage of 5 ft (an area of its own)."""
        if chance <= 0:
            return
        # An area this one already opens into is no "existing area" to find a secret door
        # to (it would only lead back the way one came).
        mine = state.conns_of(level, area.id)
        linked = {c.to if c.from_ == area.id else c.from_ for c in mine}
        # one door per cell: a wall cell that holds a door (any wall of it: a corner cell
        # is on two walls) is no place for a secret door; the wall section's next cell is
        doors = {c.at if c.from_ == area.id else step(c.at, c.side) for c in mine}
        owners = level.occ.owners
        for side in ("n", "e", "s", "w"):
            best: tuple[int, Cell, str] | None = None
            dx, dy = VECTORS[side]
            section = area_edge(area, side) if walls is None else walls.get(side, [])
            for cell in sorted(set(section)):  # the wall's cells, by (x, y)
                x, y = cell
                if (x + dx, y + dy) in area.cells or cell in doors:
                    continue
                for dist in range(1, NEAR + 1):
                    owner = owners.get((x + dist * dx, y + dist * dy))
                    if owner is None:
                        continue
                    if (
                        owner != area.id
                        and owner not in linked
                        and (best is None or dist < best[0])
                    ):
                        best = (dist, cell, owner)
                    break
            if best is None:
                continue
            check = roll_dice("W%", level.rng)
            area.rolls.append(
                RollEntry(
                    table,
                    "W%",
                    check.total,
                    f"1-{chance}",
                    "secret_door" if check.total <= chance else "none",
                    check.explain(),
                )
            )
            if check.total > chance:
                continue
            dist, cell, owner = best
            gap = [step(cell, side, i) for i in range(1, dist)]
            if gap and not (level.occ.free(gap) and level.occ.fits(gap[1:], {owner}, margin=1)):
                continue
            doors.add(cell)
            # one secret door per pair of areas: the area it opens into is linked now (a
            # room beside one neighbour on two walls got two secret doors to it)
            linked.add(owner)
            if not gap:
                state.connect(
                    level,
                    area.id,
                    owner,
                    "secret_door",
                    cell,
                    side,
                    width=1,
                    gm_only=True,
                    mode="exit",
                )
                continue
            passage = state.new_area(level, "corridor", "corridor", set(gap), side)
            passage.width_ft = 5
            # a later wall section must not find this passage as an area to open into: it
            # leads to ``owner`` already (seed 284 level 2: a second secret door into it)
            linked.add(passage.id)
            state.connect(
                level,
                area.id,
                passage.id,
                "secret_door",
                cell,
                side,
                width=1,
                gm_only=True,
                mode="exit",
            )
            state.connect(level, passage.id, owner, "opening", gap[-1], side, width=1, mode="exit")

    # -- step 2 ----------------------------------------------------------------------------
    def _step2(self, state: DungeonState, level: LevelState, area: AreaBuilder) -> None:
        res = state.roll(T + "innenausstattung", level, area)
        self._contents(state, level, area, res)

    def _features(
        self, state: DungeonState, level: LevelState, area: AreaBuilder, res: TableResult
    ) -> None:
        """Water, wells and ways down that come with a room's shape (caves, circles)."""
        for node in walk(res):
            name = table_name(node)
            if name == "kreis_besonderheit" and node.values.get("feature") == "well":
                area.features.append(Feature("well", (self._middle(area, 1)[0],), None, node))
            elif name in ("gewaesser", "treppe_falltuer_schacht"):
                self._contents(state, level, area, node)

    def _contents(
        self, state: DungeonState, level: LevelState, area: AreaBuilder, res: TableResult
    ) -> None:
        """What a result tree puts into ``area``: monsters, treasure (with container, trap,
        hiding place), traps and tricks, water (with magic), ways to other levels."""
        hoard: list[int] = []
        for node in walk(res):
            name = table_name(node)
            if name.startswith("kerkerzufallsbegegnung"):
                area.contents.append(Content("monster", node))
            elif name == "schatz":
                hoard.append(len(area.contents))
                area.contents.append(
                    Content("treasure", node, container=find(node, "schatzbehaelter"))
                )
            elif name == "schatzsicherung":
                trapped = find(node, "fallengesicherter_schatz")
                hidden = find(node, "versteckter_schatz")
                for index in hoard:
                    area.contents[index] = replace(
                        area.contents[index], trapped=trapped, hidden=hidden
                    )
                hoard = []
            elif name == "finesse_oder_falle":
                kind = "trap" if node.values.get("kind") == "trap" else "trick"
                area.contents.append(Content(kind, node))
            elif name == "treppe_falltuer_schacht":
                area.contents.append(Content("stairs", node))
                self._way(state, level, area, node)
            elif name == "gewaesser" and node.values.get("present"):
                area.contents.append(
                    Content("water", node, magic=find(node, "magisches_gewaesser"))
                )
                large = bool(node.context.get("large", False))
                share = 3 if large else 6
                area.features.append(
                    Feature(
                        "lake" if large else "pool",
                        tuple(self._middle(area, len(area.cells) // share)),
                        None,
                        node,
                    )
                )

    def _way(
        self, state: DungeonState, level: LevelState, area: AreaBuilder, node: TableResult
    ) -> None:
        """A stair, trapdoor or shaft in ``area``: on a wall cell with rock beyond."""
        for side in ("n", "e", "s", "w"):
            cells = self._wall_cells(state, level, area, side)
            if cells:
                cell = cells[level.rng.randrange(len(cells))]
                lv.way_out(state, level, area, node, cell, side)
                return
        cell = self._middle(area, 1)[0]
        lv.way_out(state, level, area, node, cell, area.heading)

    # -- corridors (steps 3 and 4) -----------------------------------------------------------
    def _corridor_from_exit(
        self,
        state: DungeonState,
        level: LevelState,
        conn: ConnBuilder,
        res: TableResult,
        sink: Sink,
    ) -> None:
        v = res.values
        width_ft = corridor_width(res)
        start = step(conn.at, conn.side)
        area = state.new_area(level, "corridor", "corridor", set(), conn.side)
        area.absorb(sink)
        area.width_ft = area.rolled_width_ft = width_ft
        walker = Walker(area, start, conn.side, feet_to_cells(width_ft), conn.from_)
        if not self._begin(state, level, walker, conn):
            if self._stub(state, level, walker, conn):
                self._corridor_features(state, area, res, walker)
                return
            del level.areas[area.id]
            block(state, level, conn, str(res.key))
            return
        conn.to = area.id
        if conn.kind == "archway":
            conn.width = min(2, walker.width)
        length = squares_to_cells(int(v.get("length_squares", 3)))
        turn_to = str(v.get("turn", "none"))
        if turn_to in ("left", "right"):
            eighths = int(v.get("angle", 45)) // 45
            if not self._turn(state, level, walker, turn_to, eighths):
                state.bend("turned_other_way")
                other = str(v.get("fallback", "right" if turn_to == "left" else "left"))
                self._turn(state, level, walker, other, eighths)
        goes_on = self._advance(state, level, walker, length - 1)
        self._corridor_features(state, area, res, walker)
        if goes_on:
            self._step4(state, level, walker)

    def _stub(
        self, state: DungeonState, level: LevelState, walker: Walker, conn: ConnBuilder
    ) -> bool:
        """Bending policy for a corridor that cannot start beside its door because another
        area lies within a cell of it: a passage one cell long from the door opens into
        that area (``joined``, as the seed says of a corridor meeting an area), as wide as
        rolled where the cells are free, else narrower (a ``width`` bend). False (and
        nothing changed) when no cell is free or no area touches it squarely."""
        door = walker.center
        occ = level.occ
        allowed = {walker.parent} if walker.parent else set()
        rolled = walker.width
        reserved = reserved_cells(level, conn)
        lateral = "e" if is_diagonal(walker.heading) else turn(walker.heading, 2)
        for width in range(rolled, 0, -1):
            for shift in shifts(width):
                center = step(door, lateral, shift) if shift else door
                cells = cross_section(center, walker.heading, width)
                if (
                    door not in cells
                    or not (occ.inside(cells, 1) and occ.free(cells))
                    or (not reserved.isdisjoint(cells))
                ):
                    continue
                blockers = occ.blockers(cells, allowed)
                if not blockers:
                    continue
                walker.width = width
                join = self._join_at(level, walker, cells, blockers)
                if join is None:
                    continue
                break
            else:
                continue
            break
        else:
            walker.width = rolled
            return False
        if width != rolled:
            record(state, walker.area, "width", rolled * 5, width * 5, "no_room", "narrowed")
        walker.area.width_ft = width * 5
        walker.center = center
        state.grow(level, walker.area, cells)
        walker.trail.append((center, walker.heading))
        conn.to = walker.area.id
        self._join(state, level, walker, *join)
        return True

    def _corridor_features(
        self, state: DungeonState, area: AreaBuilder, res: TableResult, walker: Walker
    ) -> None:
        """The Gangbreite follow-ups, drawn once the corridor's first stretch is built: an
        obstacle (and its bridge) across one whole cross-section of it, the one nearest the
        middle of the stretch; columns and a gallery only where the corridor is wide enough
        for them (:data:`COLUMN_WIDTH`), else a bend."""
        width = find(res, "gangbreite")
        if width is None:
            return
        v = width.values
        obstacle = v.get("obstacle")
        if isinstance(obstacle, str):
            cells = self._obstacle_cells(walker)
            if cells:
                center, heading = cells
                across = turn(heading, 2)
                band = tuple(
                    c for c in cross_section(center, heading, walker.width) if c in area.cells
                )
                area.features.append(Feature(obstacle, band, across, width))
                if v.get("bridged"):
                    area.features.append(Feature("bridge", band, heading, width))
            else:
                record(state, area, "obstacle", obstacle, None, "too_narrow")
            if v.get("boat"):
                area.features.append(Feature("boat", (), None, width))
        if v.get("columns"):
            rows = "double_columns" if v.get("double_columns") else "columns"
            need = COLUMN_WIDTH[rows]
            if walker.width * 5 >= need:
                area.features.append(Feature("columns", (), walker.heading, width))
                if v.get("gallery"):
                    area.features.append(Feature("gallery", (), walker.heading, width))
            else:
                record(state, area, "columns", rows, None, "too_narrow")

    def _obstacle_cells(self, walker: Walker) -> tuple[Cell, str] | None:
        """The centre and heading of the straight cross-section nearest the middle of the
        walked stretch that lies wholly in the corridor (an obstacle "teilt den Gang in zwei
        Teile"), or None when none does."""
        area = walker.area
        trail = walker.trail
        middle = len(trail) // 2
        order = sorted(range(len(trail)), key=lambda i: (abs(i - middle), i))
        for i in order:
            center, heading = trail[i]
            section = cross_section(center, heading, walker.width)
            if not is_diagonal(heading) and all(c in area.cells for c in section):
                return center, heading
        return None

    def _branch(self, state: DungeonState, level: LevelState, conn: ConnBuilder) -> None:
        """A side corridor of a branch: 3 squares, then Schritt 4 (same width)."""
        heading = conn.heading or conn.side
        width = int(conn.info.get("width", 2))
        start = step(conn.at, conn.side)
        area = state.new_area(level, "corridor", "corridor", set(), heading)
        area.width_ft = area.rolled_width_ft = width * 5
        walker = Walker(area, start, conn.side, width, conn.from_)
        if not self._begin(state, level, walker, conn):
            if self._stub(state, level, walker, conn):
                return
            del level.areas[area.id]
            block(state, level, conn, "corridor")
            return
        conn.to = area.id
        if heading != conn.side:
            walker.heading = heading
        if self._advance(state, level, walker, squares_to_cells(3) - 1):
            self._step4(state, level, walker)

    def _advance(self, state: DungeonState, level: LevelState, walker: Walker, n: int) -> bool:
        """Walk ``n`` cells; on rock or the edge turn right, else left, else stop. False when
        the corridor has ended (joined an area or a dead end)."""
        for _ in range(n):
            status = self._try_step(state, level, walker)
            if status == "ok":
                continue
            if status == "joined":
                return False
            if self._turn(state, level, walker, "right", 2) or self._turn(
                state, level, walker, "left", 2
            ):
                state.bend("turned")
                continue
            state.bend("dead_end")
            return False
        return True

    def _step4(self, state: DungeonState, level: LevelState, walker: Walker) -> None:
        """Schritt 4: roll, walk, roll again while the row says so."""
        area = walker.area
        for _ in range(state.limits.max_corridor_rolls):
            res = state.roll(T + "gaenge", level, area)
            v = res.values
            if v.get("wandering_monsters"):
                monster = find(res, "kerkerzufallsbegegnung")
                if monster is not None:
                    area.contents.append(Content("monster", monster, note="wandering"))
            row = effective(res)
            squares = int(v.get("advance_squares", 0))
            if v.get("dead_end"):
                self._secret_doors(
                    state,
                    level,
                    area,
                    int(v.get("secret_door_chance", 0)),
                    res.table.id,
                    self._dead_end_walls(walker),
                )
                return
            if v.get("kind") == "hall":
                self._hall_at_end(state, level, walker, row)
                return
            if v.get("door"):
                door = find(row, "lage_der_tuer")
                where = str(door.values["side"]) if door else "ahead"
                if where == str(v.get("continue_unless_side", "ahead")):
                    side = self._ahead(walker)
                    self._door(state, level, walker, self._edge(walker, side), side)
                    return
                made = []
                for s in ("left", "right"):
                    if where in (s, "left_right"):
                        lat = self._lateral(walker, s)
                        made.append(self._door(state, level, walker, self._edge(walker, lat), lat))
                state.push_in_order(level, [c for c in made if c is not None])
            elif v.get("branch") or v.get("curve"):
                kind = find(row, "art_der_abzweigung")
                if kind is not None and not self._junction(
                    state, level, walker, kind, bool(v.get("curve"))
                ):
                    return
            elif "continue_if_kind" in v:
                way = find(row, "treppe_falltuer_schacht")
                if way is not None:
                    area.contents.append(Content("stairs", way))
                    side = self._ahead(walker)
                    goes_on = str(way.values["kind"]) in str(v["continue_if_kind"]).split(",")
                    if goes_on:
                        side = self._lateral(walker, "left")
                    lv.way_out(state, level, area, way, self._edge(walker, side), side)
                    if not goes_on:
                        return
            if not v.get("repeat"):
                return
            if not self._advance(state, level, walker, squares_to_cells(squares)):
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
            info={"width": walker.width},
        )

    def _door(
        self, state: DungeonState, level: LevelState, walker: Walker, cell: Cell, side: str
    ) -> ConnBuilder | None:
        """A door in the corridor wall: a new exit rolled on "mit Tür" when explored."""
        across = step(cell, side)
        owner = level.occ.owner(across)
        if owner == walker.area.id:
            return None
        if owner is not None:
            return state.connect(
                level, walker.area.id, owner, "door", cell, side, width=1, mode="exit"
            )
        return state.connect(
            level,
            walker.area.id,
            None,
            "door",
            cell,
            side,
            width=1,
            mode="exit",
            table="ausgang_mit_tuer",
        )

    def _junction(
        self, state: DungeonState, level: LevelState, walker: Walker, kind: TableResult, curve: bool
    ) -> bool:
        """A curve turns the corridor; a branch opens side corridors (the corridor itself
        takes the first way). False when the corridor cannot go on."""
        v = kind.values
        junction = v.get("junction")
        side = str(v.get("side", "left"))
        eighths = int(v.get("angle", 90)) // 45
        if v.get("toward") == "back":
            eighths = 4 - eighths
        if curve:
            if not self._turn(state, level, walker, side, eighths):
                state.bend("turned_other_way")
                other = "right" if side == "left" else "left"
                if not self._turn(state, level, walker, other, eighths):
                    state.bend("dead_end")
                    return False
            return True
        ways: list[tuple[str, int]]  # (left/right/ahead, eighths) the branches leave
        if junction == "t":
            ways = [("left", 2), ("right", 2)]
        elif junction == "y":
            ways = [("left", 1), ("right", 1)]
        elif junction == "four_way":
            ways = [("ahead", 0), ("left", 2), ("right", 2)]
        elif junction == "five_way":
            ways = [("ahead", 0), ("left", 2), ("right", 2), ("right", 1)]
        else:
            ways = [("ahead", 0), (side, eighths)]
        return self._open_ways(state, level, walker, ways, walker.width, {"width": walker.width})

    def _hall_at_end(
        self, state: DungeonState, level: LevelState, walker: Walker, row: TableResult
    ) -> None:
        """Schritt 4 "Halle": a hall of Schritt 5 where the corridor ends. Its size roll is
        the hall's (taken off the corridor's log); on a full level the way into it stays
        open and the rolled hall is built when it is explored."""
        side = self._ahead(walker)
        cell = self._edge(walker, side)
        hall = find(row, "halle")
        if hall is None:  # pragma: no cover - the row always rolls Halle
            return
        moved = split_rolls(walker.area, T + "halle")
        way = state.connect(
            level,
            walker.area.id,
            None,
            "opening",
            cell,
            side,
            width=min(2, walker.width),
            mode="exit",
            info={"hall": hall, "rolls": moved},
        )
        if state.budget_left(level):
            self._hall_behind(state, level, way)

    def _hall_behind(self, state: DungeonState, level: LevelState, conn: ConnBuilder) -> None:
        """The hall a corridor ends in (:meth:`_hall_at_end`), behind ``conn``."""
        hall = conn.info["hall"]
        assert isinstance(hall, TableResult)
        spec, _kind = size_spec(hall)
        rolls = list(conn.info.get("rolls") or ())
        sink = Sink(rolls, [hall] if rolls else [])
        side = conn.side
        found = self._place_room(
            state, level, spec, hall, step(conn.at, side), side, {conn.from_}, T + "halle", sink
        )
        if found is None:
            # no hall fits where the corridor ends: the way into it stays, choked (blocked)
            block(state, level, conn, "hall")
            return
        placement, hall = found
        spec, cells = placement.built, placement.cells
        area = self._new_room(state, level, spec, cells, side, "hall", sink, hall)
        size_bends(area, placement)
        conn.to = area.id
        if conn.id in level.frontier:
            level.frontier.remove(conn.id)
        self._step5_exits(state, level, area, spec.area)
        self._step2(state, level, area)


PROCEDURE = Zufallslabyrinth()
