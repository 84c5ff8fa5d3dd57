"""Zone maps (seed 002, "Zonenkarten erschaffen"): the frozen values a generator returns.

A :class:`ZoneMap` is a grid of nodes; a node is empty or holds a zone; zones merged with
each other form an :class:`Area` with a letter; areas are joined by :class:`Connection`\\ s,
open or hidden. Every rolled detail keeps the table result that made it (:class:`Detail`),
so texts come out in any language and every number can be traced to its roll.
Nothing here rolls; renderers are pure functions of these values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kerker.errors import N_, KerkerError
from kerker.tables.engine import TableResult

Point = tuple[int, int]
"""A node as ``(x, y)``: column and row, 0-based, from the top left."""

LogEntry = Mapping[str, Any]
"""One die of the roll log: ``step``, what it was for, ``table``, ``dice``, ``roll`` ..."""


class NoSuchArea(KerkerError, KeyError):
    """Asked for an area letter the map does not have."""

    code = "zones"


def letter_order(letter: str) -> tuple[int, str]:
    """Sort key of area letters: A ... Z, AA, AB ..."""
    return len(letter), letter


@dataclass(frozen=True, slots=True)
class Detail:
    """One rolled table result: table id, row key, values, and the result itself."""

    table: str
    key: str | None
    values: Mapping[str, int | str | bool]
    result: TableResult = field(compare=False, repr=False, hash=False)

    def text(self, lang: str) -> str:
        """The row text in ``lang``, amounts filled in (``3 Wartungsdrohnen ...``)."""
        from kerker.tables.render import row_text

        return row_text(self.result, lang)


@dataclass(frozen=True, slots=True)
class AreaDetails:
    """What the game master reads about an area: name, property (and its reach), senses,
    encounter and loot, each rolled on the theme's tables."""

    name: Detail
    property: Detail
    scope: Detail | None
    senses: tuple[Detail, ...]
    encounter: Detail
    loot: Detail


@dataclass(frozen=True, slots=True)
class Area:
    """Merged zones with one letter.

    ``zones`` are in reading order; ``label`` is the zone that carries the letter (the one
    nearest the area's centre); ``neighbours`` are the letters of the areas that share an
    edge with it; ``rolled`` is its step-4 roll (how many connections it should have).
    """

    letter: str
    zones: tuple[Point, ...]
    label: Point
    neighbours: tuple[str, ...]
    rolled: int
    details: AreaDetails | None = None


@dataclass(frozen=True, slots=True)
class Connection:
    """A passage between two areas.

    ``a`` is the area whose roll made it (for hidden ones between neighbours: the earlier
    letter; for a hidden way across empty nodes: the area reached first), ``b`` the other.
    ``edge`` is the pair of zones (one in ``a``, one in ``b``) the line joins: edge-adjacent
    zones, or for a hidden way the two zones at its ends, with ``via`` the empty nodes it
    crosses in order from ``a`` to ``b`` (empty for every other connection). Hidden
    connections carry the hint rolled for them.
    """

    a: str
    b: str
    hidden: bool
    edge: tuple[Point, Point]
    hint: Detail | None = None
    via: tuple[Point, ...] = ()

    def joins(self, letter: str) -> bool:
        """Whether ``letter`` is one of its ends."""
        return letter in (self.a, self.b)

    def other(self, letter: str) -> str:
        """The end that is not ``letter``."""
        return self.b if letter == self.a else self.a


@dataclass(frozen=True, slots=True)
class Merge:
    """One step-3 roll and its outcome.

    Per zone (the default reading): ``a`` is the zone rolled for and ``b`` the neighbour it
    merged with (``None`` when it did not merge). Per pair: zones ``a`` and ``b`` (``b``
    right of or below ``a``).
    """

    a: Point
    b: Point | None
    merged: bool


@dataclass(frozen=True, slots=True)
class ZoneMap:
    """A whole zone map.

    ``grid[y][x]`` is the letter of the area holding node (x, y), or ``None`` for an empty
    node. ``seed`` and ``theme`` are labels for titles and exports. ``size_rolled`` says
    whether step 1 was rolled (else the size was given). ``start`` is the suggested start
    area (``None`` when no area has two or more open connections); ``start_candidates``
    are all areas with two or more. ``log`` holds every die in the order thrown (of the
    layout kept). ``merge`` is the step-3 reading; ``attempts`` how many layouts were
    rolled to reach ``min_areas`` (1 without it).
    """

    seed: int | None
    theme: str
    width: int
    height: int
    size_rolled: bool
    grid: tuple[tuple[str | None, ...], ...]
    merges: tuple[Merge, ...]
    areas: tuple[Area, ...]
    connections: tuple[Connection, ...]
    start: str | None
    start_candidates: tuple[str, ...]
    log: tuple[LogEntry, ...] = field(compare=False, repr=False)
    merge: str = "zone"
    attempts: int = 1

    @property
    def zones(self) -> tuple[Point, ...]:
        """Every zone in reading order (left to right, top to bottom)."""
        return tuple(
            (x, y)
            for y, row in enumerate(self.grid)
            for x, letter in enumerate(row)
            if letter is not None
        )

    def area(self, letter: str) -> Area:
        """The area with this letter; :class:`NoSuchArea` (a :class:`KerkerError` and a
        ``KeyError``) if there is none."""
        for area in self.areas:
            if area.letter == letter:
                return area
        raise NoSuchArea(N_("the map has no area {letter}"), letter=letter)

    def area_at(self, point: Point) -> str | None:
        """The letter of the area at ``point``, ``None`` for an empty or outside node."""
        x, y = point
        if 0 <= x < self.width and 0 <= y < self.height:
            return self.grid[y][x]
        return None

    def links(self, letter: str, *, hidden: bool | None = False) -> tuple[Connection, ...]:
        """The connections of an area: open ones (default), hidden ones, or all (``None``)."""
        return tuple(
            c
            for c in self.connections
            if c.joins(letter) and (hidden is None or c.hidden == hidden)
        )

    def linked(self, letter: str, *, hidden: bool = False) -> tuple[str, ...]:
        """The letters at the other end of its open (or hidden) connections, A before B."""
        return tuple(
            sorted((c.other(letter) for c in self.links(letter, hidden=hidden)), key=letter_order)
        )

    def accesses(self, letter: str) -> int:
        """How many open connections the area has."""
        return len(self.links(letter))

    def reachable(self, *, hidden: bool = False) -> frozenset[str]:
        """The areas the players can reach from the start through open connections only
        (``hidden=True``: through hidden ones too); empty when there is no start."""
        if self.start is None:
            return frozenset()
        seen = {self.start}
        todo = [self.start]
        while todo:
            here = todo.pop()
            for link in self.links(here, hidden=None if hidden else False):
                there = link.other(here)
                if there not in seen:
                    seen.add(there)
                    todo.append(there)
        return frozenset(seen)
