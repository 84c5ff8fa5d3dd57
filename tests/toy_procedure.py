"""A toy third dungeon procedure, outside the package: it runs on the shared engine, exports
its document and is drawn by the renderers with no edit of engine, exporter or renderer
(issue 12, item 6). Its tables are tests/fixtures/toy/krypta.yaml (rule set ``toy-crypt``).

A crypt is entered from the surface; behind each exit lies a crypt or an ossuary of the
table ``kammer`` (its remains from ``inhalt``), placed straight behind the exit or not at
all (the exit then stays blocked: the engine's ``blocked`` mode).
"""

from __future__ import annotations

from pathlib import Path

from kerker.dungeon.engine import (
    AreaBuilder,
    Arrival,
    ConnBuilder,
    DungeonState,
    LevelState,
    ProcedureOption,
    Sink,
    register_procedure,
)
from kerker.dungeon.model import Content
from kerker.errors import N_
from kerker.geometry.grid import CARDINALS, Cell, opposite, squares_to_cells, step

TABLES = Path(__file__).parent / "fixtures" / "toy"
T = "toy-crypt/"


def _box(origin: Cell, heading: str, w: int, h: int) -> set[Cell]:
    """A w x h squares box whose near wall's middle is ``origin``, going ``heading``."""
    cw, ch = squares_to_cells(w), squares_to_cells(h)
    if heading in ("e", "w"):
        cw, ch = ch, cw
    x, y = origin
    if heading == "n":
        x0, y0 = x - cw // 2, y - ch + 1
    elif heading == "s":
        x0, y0 = x - cw // 2, y
    elif heading == "e":
        x0, y0 = x, y - ch // 2
    else:
        x0, y0 = x - cw + 1, y - ch // 2
    return {(x0 + i, y0 + j) for i in range(cw) for j in range(ch)}


class ToyCrypt:
    """The toy procedure."""

    name = "toy-crypt"
    options = (ProcedureOption("theme", ("bones", "dust"), "bones"),)
    kinds = (("crypt", N_("Crypt")), ("ossuary", N_("Ossuary")))
    player_kinds = (("ossuary", "crypt"),)
    checks = ()
    door_value = None

    def start(self, state: DungeonState, level: LevelState) -> None:
        origin = (level.occ.width // 2, level.occ.height - 4)
        area = state.new_area(level, "entrance", "rect", _box(origin, "n", 2, 2), "n")
        level.entrance = area.id
        state.connect(
            level, area.id, None, "stairs", origin, "s", to_level=0, direction="up", mode="level"
        )
        self._exits(state, level, area, 2)

    def arrive(self, state: DungeonState, level: LevelState, arrival: Arrival) -> None:
        """The toy has no ways between levels."""

    def expand(self, state: DungeonState, level: LevelState, conn: ConnBuilder) -> None:
        sink = Sink()
        res = state.roll(T + "kammer", level, sink)
        v = res.values
        cells = _box(step(conn.at, conn.side), conn.side, int(v["w"]), int(v["h"]))
        if not level.occ.fits(cells, {conn.from_}):
            conn.mode = "blocked"  # no room behind it: the exit stays, blocked
            return
        area = state.new_area(level, str(v["kind"]), "rect", cells, conn.side)
        area.absorb(sink)
        remains = state.roll(T + "inhalt", level, area)
        if state.params.option("theme") == "bones":
            area.contents.append(Content("note", remains))
        conn.to = area.id
        self._exits(state, level, area, int(v["exits"]))

    def _exits(self, state: DungeonState, level: LevelState, area: AreaBuilder, n: int) -> None:
        made = []
        for _ in range(n):
            side = CARDINALS[level.rng.randrange(4)]
            if side == opposite(area.heading):
                continue
            dx, dy = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0)}[side]
            wall = [c for c in sorted(area.cells) if (c[0] + dx, c[1] + dy) not in area.cells]
            cell = wall[level.rng.randrange(len(wall))]
            if level.occ.owner(step(cell, side)) is not None:
                continue
            made.append(state.connect(level, area.id, None, "door", cell, side, width=1))
        state.push_in_order(level, made)


PROCEDURE = ToyCrypt()
register_procedure(PROCEDURE)
