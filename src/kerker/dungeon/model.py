"""The dungeon as frozen values. Texts are not stored: contents keep their table results and
the exporter writes them in the reader's language (docs/dungeon-json.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kerker.geometry.grid import Cell
from kerker.tables.engine import TableResult


class RollEntry(NamedTuple):
    """One die thrown on a table (the area's roll log); a named tuple (a level makes hundreds:
    ~0.4 us each against ~1.6 us for a frozen dataclass). Its fields are the keys of a
    document's roll entry, in their order (the exporter zips them)."""

    table: str
    dice: str
    roll: int
    row: str
    key: str | None
    explain: str

    @staticmethod
    def from_log(entry: dict[str, Any]) -> RollEntry:
        """From a :func:`kerker.tables.engine.roll_table` log entry."""
        return RollEntry(
            str(entry["table"]),
            str(entry["dice"]),
            int(entry["roll"]),
            str(entry["row"]),
            entry.get("key"),
            str(entry["explain"]),
        )


@dataclass(frozen=True, slots=True)
class Content:
    """Something in an area. ``kind``: monster, treasure, trap, trick, water, stairs, note.

    ``result`` is the table result whose row text describes it; a treasure also carries the
    results of its container, trap and hiding place; water its magic.
    """

    kind: str
    result: TableResult | None
    container: TableResult | None = None
    trapped: TableResult | None = None
    hidden: TableResult | None = None
    magic: TableResult | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class Feature:
    """Something drawn in an area: water, pool, lake, well, columns, gallery, river, stream,
    chasm, bridge, boat, rubble, stairs."""

    kind: str
    cells: tuple[Cell, ...]
    dir: str | None = None
    result: TableResult | None = None


class Bend(NamedTuple):
    """A roll the map could not show as rolled: ``what`` was bent (width, size, shape, exit,
    turn, position ...), from ``rolled`` to ``built`` (feet, squares or a stable key), for
    ``reason`` (a stable key; the key explains it in the reader's language:
    :mod:`kerker.dungeon.bend_text`)."""

    what: str
    rolled: int | float | str | None
    built: int | float | str | None
    reason: str


@dataclass(frozen=True, slots=True)
class Area:
    """A room, hall, cave, corridor, special room or the entrance: cells sorted by (y, x)."""

    id: str
    number: int
    kind: str
    shape: str
    cells: tuple[Cell, ...]
    label_at: Cell
    contents: tuple[Content, ...] = ()
    features: tuple[Feature, ...] = ()
    rolls: tuple[RollEntry, ...] = ()
    results: tuple[TableResult, ...] = ()
    width_ft: int | None = None
    rolled_width_ft: int | None = None
    """A corridor's width as its width roll gave it (``width_ft`` is the width built)."""
    rolled_squares: int | float | None = None
    """A room's, hall's, chamber's, cave's or shape's area as the dice gave it, in squares."""
    bends: tuple[Bend, ...] = ()
    """Every roll of this area the map had to bend (empty when built as rolled)."""


@dataclass(frozen=True, slots=True)
class Connection:
    """A door, opening, stair ... from an area; ``to`` None is an exit not yet explored."""

    id: str
    from_: str
    to: str | None
    kind: str
    at: Cell
    side: str
    width: int = 2
    to_level: int | None = None
    direction: str | None = None
    one_way: str | None = None
    gm_only: bool = False
    blocked: bool = False
    """A rolled exit with no room behind it: drawn where it was rolled, keyed as blocked
    (a false door, or a passage ending in rubble), never expanded."""
    bends: tuple[Bend, ...] = ()
    """Why a blocked exit is blocked (``exit``: what was rolled behind it -> ``blocked``)."""
    key: str = ""
    """The stable key of the exit (``"depth:x,y:side"`` on the engine's plane, see
    :func:`kerker.dungeon.engine.exit_key`): the same door has the same key in every order
    of play."""


@dataclass(frozen=True, slots=True)
class Level:
    """One level: its bounds in cells, areas, connections and the exits still open."""

    depth: int
    width: int
    height: int
    entrance: str | None
    areas: tuple[Area, ...]
    connections: tuple[Connection, ...]
    unexplored: tuple[str, ...]
    origin: Cell = (0, 0)
    """Where the document's cell (0, 0) lies on the plane the level was rolled on (a sheet
    that grows is cut to its used cells: :func:`kerker.dungeon.sheet.crop`)."""


@dataclass(frozen=True, slots=True)
class Dungeon:
    """A whole dungeon: the options it was made with and its levels."""

    rules: str
    seed: int | None
    options: tuple[tuple[str, Any], ...]
    levels: tuple[Level, ...]
    bent: tuple[tuple[str, int], ...] = field(default_factory=tuple)
    attempt: int = 1
    """Which roll of level 1 the dungeon kept for ``min_areas`` (1: the first; the engine's
    :func:`~kerker.dungeon.engine.start` chooses it up front, as ``generate`` does)."""

    @property
    def area_count(self) -> int:
        """Areas on every level."""
        return sum(len(level.areas) for level in self.levels)
