"""Ways between levels: stairs, trapdoors and shafts go up or down as rolled.

A way down from depth ``d`` over ``n`` levels leads to ``d + n``; a way up to ``d - n``, and
anything at or above 0 is the surface (``to_level: 0``). When the target level is part of
the dungeon, the engine gives it an *arrival* (:class:`~kerker.dungeon.engine.Arrival`); the
procedure places what the way arrives in ("mündet in einer Sackgasse / Halle", otherwise a
corridor) and links both ends: each side's connection names the other side's area in ``to``.
"""

from __future__ import annotations

import random

from kerker.dungeon.engine import AreaBuilder, ConnBuilder, DungeonState, LevelState
from kerker.dungeon.model import Bend
from kerker.dungeon.sheet import WINDOW
from kerker.geometry.grid import CARDINALS, CELLS_PER_SQUARE, Cell, opposite, step
from kerker.tables.engine import TableResult


def target_depth(depth: int, direction: str, levels: int) -> int:
    """The depth a way leads to; 0 is the surface.

    >>> target_depth(1, "up", 1), target_depth(2, "down", 3), target_depth(2, "up", 3)
    (0, 5, 0)
    """
    return depth + levels if direction == "down" else max(0, depth - levels)


def way_out(
    state: DungeonState,
    level: LevelState,
    area: AreaBuilder,
    result: TableResult,
    at: Cell,
    side: str,
) -> ConnBuilder:
    """The connection of a stair, trapdoor or shaft rolled in ``area`` (a row of
    ``treppe_falltuer_schacht``); registers the arrival on the target level."""
    v = result.values
    kind = str(v["kind"])
    direction = str(v["direction"])
    to_level = target_depth(level.depth, direction, int(v["levels"]))
    ends_in = str(v.get("ends_in", "corridor"))
    if to_level == 0 and ends_in == "dead_end":
        # "mündet in einer Sackgasse" above the first level: it ends before it gets
        # anywhere, not at the surface (docs/rules-notes-000.md, decision 36)
        conn = state.connect(
            level,
            area.id,
            None,
            kind,
            at,
            side,
            width=2,
            to_level=None,
            direction=direction,
            mode="blocked",
            info={
                "ends_in": ends_in,
                "bends": [Bend("stairs", "up", "dead_end", "no_up_from_level_1")],
            },
        )
        return conn
    conn = state.connect(
        level,
        area.id,
        None,
        kind,
        at,
        side,
        width=2,
        to_level=to_level,
        direction=direction,
        mode="level",
        info={"ends_in": ends_in},
    )
    state.link_level(level, conn, ends_in)
    return conn


def link_back(
    state: DungeonState,
    level: LevelState,
    area: AreaBuilder,
    source: ConnBuilder,
    from_depth: int,
    at: Cell,
    side: str,
) -> ConnBuilder:
    """The arriving end of ``source``: both connections name each other's area."""
    source.to = area.id
    back = "up" if source.direction == "down" else "down"
    return state.connect(
        level,
        area.id,
        source.from_,
        source.kind,
        at,
        side,
        width=2,
        to_level=from_depth,
        direction=back,
        mode="level",
    )


def free_spot(level: LevelState, rng: random.Random, need: int) -> tuple[Cell, str] | None:
    """A cell and a heading with ``need`` free cells ahead and rock around them (a place to
    start an arrival), drawn at random; None when the level is full."""
    occ = level.occ
    # first in the middle of the sheet (a plane that grows: kerker.dungeon.sheet.WINDOW)
    wx = min(occ.width, WINDOW[0] * CELLS_PER_SQUARE)
    wy = min(occ.height, WINDOW[1] * CELLS_PER_SQUARE)
    x_lo, y_lo = (occ.width - wx) // 2, (occ.height - wy) // 2
    tries = level.limits.max_spot_tries  # the injected cap (kerker.limits.DungeonLimits)
    for attempt in range(tries):
        if attempt == tries // 2:
            x_lo, y_lo, wx, wy = 0, 0, occ.width, occ.height
        x = rng.randrange(x_lo + 2, x_lo + wx - 2)
        y = rng.randrange(y_lo + 2, y_lo + wy - 2)
        heading = CARDINALS[rng.randrange(4)]
        back = step((x, y), opposite(heading))
        cells = [step((x, y), heading, i) for i in range(need)]
        if occ.fits([back, *cells], ()):
            return (x, y), heading
    return None
