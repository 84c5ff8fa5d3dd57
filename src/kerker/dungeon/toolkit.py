"""What both dungeon procedures share when a roll meets the map: recording a bend on the
area it bent, keeping a rolled exit visible when nothing can be built behind it, reading a
result tree (:func:`walk`, :func:`find`, :func:`effective`) and giving each area the roll
log entries that made it (:func:`split_rolls`, :func:`take_rolls`). The corridor and room
geometry they share is :mod:`kerker.dungeon.corridors`. Nothing here names a table or
holds a number of one rule text.

The rule texts allow bending only where a rolled area or way collides with what is already
there (or with an explicit ``--size``): seed 000 "muss entweder die Größe des Raums geändert
oder der Wurf wiederholt werden", seed 001 "usare la tabella A.4" (docs/dungeon.md,
"Bending"). Each bend is kept on its area as a :class:`~kerker.dungeon.model.Bend` and keyed
in the reader's language (:mod:`kerker.dungeon.bend_text`); the engine's ``bent`` counter
still counts them by kind for the statistics.
"""

from __future__ import annotations

from collections.abc import Iterator

from kerker.dungeon.bend import Placement
from kerker.dungeon.engine import AreaBuilder, ConnBuilder, DungeonState, LevelState
from kerker.dungeon.model import Bend, RollEntry
from kerker.geometry.grid import step
from kerker.tables.engine import TableResult

BEND_WHATS = ("width", "size", "shape", "exit", "turn", "position", "columns", "obstacle", "stairs")
"""What a bend may change (the ``what`` of a document's ``bends`` entry)."""
BEND_REASONS = (
    "no_room",
    "rerolled",
    "no_room_blocked",
    "too_narrow",
    "sheet_edge",
    "no_up_from_level_1",
    "joined",
    "turned",
    "grid",
)
"""Why (the ``reason`` key; :mod:`kerker.dungeon.bend_text` says it in words)."""


def record(
    state: DungeonState,
    area: AreaBuilder,
    what: str,
    rolled: int | float | str | None,
    built: int | float | str | None,
    reason: str,
    counted: str | None = None,
) -> None:
    """Keep a bend on ``area`` (and count it as ``counted`` in the dungeon's statistics).

    Refuses (``ValueError``) a ``what`` or ``reason`` outside :data:`BEND_WHATS` /
    :data:`BEND_REASONS`, so that every bend has a sentence in the key."""
    if what not in BEND_WHATS or reason not in BEND_REASONS:
        raise ValueError(f"unknown bend {what!r}/{reason!r}")
    area.bends.append(Bend(what, rolled, built, reason))
    if counted:
        state.bend(counted)


def block(state: DungeonState, level: LevelState, conn: ConnBuilder, rolled: str) -> None:
    """A rolled exit with nothing buildable behind it: it stays where it was rolled, keyed
    as blocked (a false door, or a passage choked with rubble) and is never expanded; the
    connection records the bend (``exit``: ``rolled`` -> ``blocked``, ``no_room``)."""
    if conn.id in level.frontier:
        level.frontier.remove(conn.id)
    owner = level.occ.owner(step(conn.at, conn.side))
    if owner is not None and owner != conn.from_:
        # an area lies right behind the wall: the exit opens into it (``joined``)
        conn.to = owner
        conn.mode = "exit"
        state.bend("joined")
        return
    conn.mode = "blocked"
    conn.to = None
    # on the connection, not its area: an area built before is never changed later
    conn.info.setdefault("bends", []).append(Bend("exit", rolled, "blocked", "no_room"))
    state.bend("blocked")


def squares(cells: int) -> int | float:
    """Cells (5 ft) as squares (10 ft): an int when whole."""
    value = cells / 4
    return int(value) if value == int(value) else value


def size_bends(area: AreaBuilder, placed: Placement) -> None:
    """Record ``rolled_squares`` (the roll kept) on ``area`` and, when it was built
    otherwise than first rolled, the bends: ``shape``/``size`` rerolled (the first roll did
    not fit; the kept roll did), ``size`` made smaller (``no_room``: the space is taken or
    the sheet ends) or drawn smaller or larger by more than 15 % on the grid (``grid``)."""
    first, rolled, built = placed.first, placed.rolled, placed.built
    area.rolled_squares = rolled.area
    built_sq = squares(len(area.cells))
    if first != rolled:
        if first.shape != rolled.shape:
            area.bends.append(Bend("shape", first.shape, rolled.shape, "rerolled"))
        area.bends.append(Bend("size", first.area, rolled.area, "rerolled"))
    if built != rolled:
        area.bends.append(Bend("size", rolled.area, built_sq, "no_room"))
    elif abs(built_sq - rolled.area) > 0.15 * rolled.area:
        area.bends.append(Bend("size", rolled.area, built_sq, "grid"))


_NAMES: dict[str, str] = {}
"""Table id -> the name after its last slash."""


def table_name(result: TableResult) -> str:
    """The name of ``result``'s table after its rule set's folder (``halle``)."""
    table_id = result.table.id
    name = _NAMES.get(table_id)
    if name is None:
        name = _NAMES[table_id] = table_id.rsplit("/", 1)[-1]
    return name


def walk(result: TableResult) -> Iterator[TableResult]:
    """The result and its follow-ups, pre-order; repetitions (``again``) are not yielded
    (their values are merged into the result) but their follow-ups are."""
    found: list[TableResult] = []
    _walk_into(result, found)
    return iter(found)


def _walk_into(result: TableResult, found: list[TableResult]) -> None:
    found.append(result)
    node: TableResult | None = result
    while node is not None:
        for child in node.children():
            _walk_into(child, found)
        node = node.again


def effective(result: TableResult) -> TableResult:
    """The innermost repetition: the row that counts after "erneut würfeln"."""
    while result.again is not None:
        result = result.again
    return result


def find(result: TableResult, name: str) -> TableResult | None:
    """The first follow-up (or the result) of table ``name``."""
    return next((r for r in walk(result) if table_name(r) == name), None)


def split_rolls(area: AreaBuilder, table: str) -> list[RollEntry]:
    """Take the log entries from the last roll on ``table`` on (e.g. a hall's size roll,
    made as a follow-up of a corridor's roll) off ``area``'s log and return them: they
    belong to the area that roll makes. [] when ``table`` was not rolled there."""
    for i in range(len(area.rolls) - 1, -1, -1):
        if area.rolls[i].table == table:
            moved = area.rolls[i:]
            del area.rolls[i:]
            return moved
    return []


def picks(result: TableResult) -> int:
    """How many dice ``result`` and its follow-ups threw (its entries in a roll log: the
    row, the sub-die, each follow-up and each repetition, in the order they were thrown)."""
    n = 1 if result.sub is None else 2
    for child in result.children():
        n += picks(child)
    if result.again is not None:
        n += picks(result.again)
    return n


def take_rolls(rolls: list[RollEntry], result: TableResult) -> list[RollEntry]:
    """Take the log entries of ``result`` and its follow-ups (rolled as a follow-up of a
    roll logged on another area: a room's size roll made with the door before it) off
    ``rolls``, the latest such run, and return them; [] (nothing taken) when ``rolls`` does
    not end with them somewhere."""
    n = picks(result)
    table, total, key = result.table.id, result.pick.total, result.pick.row.key
    for i in range(len(rolls) - n, -1, -1):
        entry = rolls[i]
        if entry.table == table and entry.roll == total and entry.key == key:
            taken = rolls[i : i + n]
            del rolls[i : i + n]
            return taken
    return []


# -- result trees and roll logs ------------------------------------------------------
