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
        return RollEntry(str(entry["table"]), str(entry["dice"]), int(entry["roll"]),
                         str(entry["row"]), entry.get("key"), str(entry["explain"]))


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


@dataclass(frozen=True, slots=True)
class Dungeon:
    """A whole dungeon: the options it was made with and its levels."""

    rules: str
    seed: int | None
    options: tuple[tuple[str, Any], ...]
    levels: tuple[Level, ...]
    bent: tuple[tuple[str, int], ...] = field(default_factory=tuple)

    @property
    def area_count(self) -> int:
        """Areas on every level."""
        return sum(len(level.areas) for level in self.levels)
