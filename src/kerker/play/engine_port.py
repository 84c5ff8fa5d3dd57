"""The one place where play sessions call the dungeon engine.

Everything the play library needs from :mod:`kerker.dungeon` goes through this module, on
the engine's public lazy API (:mod:`kerker.dungeon.api`, issue 12 point 4): start a dungeon,
list its open exits with their stable keys (``"depth:x,y:side"``, from geometry), name the
exit the procedure's depth-first walk takes next, expand one exit, freeze a snapshot (which
changes nothing in the state), generate a whole dungeon for comparison.

The engine rolls what lies behind an exit from a sub-seed of its key, so the same door
always gives the same room; a *reroll* (an explicit, logged act) is the engine's
``variant``: the n-th reroll of a door rolls it with the RNG of ``(key, n)``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from kerker.dungeon import api
from kerker.dungeon.api import DEFAULT_DUNGEON_LIMITS, DungeonError, DungeonState, Params
from kerker.dungeon.model import Dungeon
from kerker.tables.registry import Registry

__all__ = [
    "DOOR_STABLE",
    "DungeonState",
    "OpenExit",
    "Params",
    "describe",
    "exit_known",
    "expand",
    "generate",
    "next_exit",
    "open_exits",
    "snapshot",
    "start",
]

DOOR_STABLE = True
"""The engine rolls what lies behind an exit from the exit's own key (order of play does
not matter where areas do not collide)."""


class OpenExit(NamedTuple):
    """An exit that can be opened now: its stable ``key``, the ``depth`` of its level, the
    ``area`` number it leaves from, its ``kind`` (door, secret_door, stairs, ...),
    ``to_level`` for a way to another level, and whether only the GM knows of it."""

    key: str
    depth: int
    area: int
    kind: str
    to_level: int | None
    gm_only: bool


_ATTEMPTS: dict[tuple[Params, int], tuple[int, int]] = {}
"""(params, registry id) -> (attempt, tries) of the first level ``start`` keeps: a session
replays from its seed at every step, and choosing the first level rolls whole levels."""


def start(params: Params, seed: int, registry: Registry) -> DungeonState:
    """A dungeon with its entrance placed, rolled from ``seed`` (nothing explored yet; the
    first level is the roll ``generate`` keeps for ``min_areas``, chosen once per process
    and parameters)."""
    params = replace(params, seed=seed)
    found = _ATTEMPTS.get((params, id(registry)))
    if found is None:
        state = api.start(params, registry)
        if len(_ATTEMPTS) > 256:
            _ATTEMPTS.clear()
        _ATTEMPTS[(params, id(registry))] = (state.attempt, state.tries)
        return state
    attempt, tries = found
    state = DungeonState(params, registry, attempt, DEFAULT_DUNGEON_LIMITS, tries)
    state.begin()
    return state


def generate(params: Params, seed: int, registry: Registry) -> Dungeon:
    """The whole dungeon ``kerker dungeon`` makes for ``params`` and ``seed``."""
    return api.generate(replace(params, seed=seed), registry)


def open_exits(state: DungeonState) -> list[OpenExit]:
    """The exits that can be opened now, in the engine's order (by level, then area)."""
    out = []
    for item in api.open_exits(state):
        _level, conn = state.find(item.key)
        out.append(
            OpenExit(item.key, item.depth, item.area, item.kind, item.to_level, bool(conn.gm_only))
        )
    return out


def next_exit(state: DungeonState) -> str | None:
    """The key of the exit the procedure's own depth-first walk expands next, or None."""
    return api.next_exit(state)


def expand(state: DungeonState, key: str, reroll: int = 0) -> bool:
    """Open the exit ``key``; ``reroll`` > 0 rolls what lies behind it afresh (the n-th
    reroll of that door). False when no such exit is open."""
    try:
        level, conn = state.find(key)
    except DungeonError:
        return False
    if not state.is_open(level, conn):
        return False
    api.expand(state, key, variant=reroll)
    return True


def exit_known(state: DungeonState, key: str) -> bool:
    """Whether ``key`` names a connection of the dungeon (open or already gone through)."""
    try:
        state.find(key)
    except DungeonError:
        return False
    return True


def describe(state: DungeonState, key: str) -> tuple[str, int] | None:
    """(kind, number of the area it leaves) of the connection named ``key``, or None."""
    try:
        level, conn = state.find(key)
    except DungeonError:
        return None
    area = level.areas.get(conn.from_)
    return conn.kind, area.number if area is not None else 0


def leads_to(state: DungeonState, key: str) -> int | None:
    """The number of the area the connection ``key`` leads into, or None."""
    try:
        level, conn = state.find(key)
    except DungeonError:
        return None
    area = level.areas.get(conn.to) if conn.to is not None else None
    return area.number if area is not None else None


def snapshot(state: DungeonState) -> Dungeon:
    """The frozen dungeon as it stands now (the state is left as it was)."""
    return api.snapshot(state)
