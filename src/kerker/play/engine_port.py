"""The one place where play sessions call the dungeon engine.

Everything the play library needs from :mod:`kerker.dungeon` goes through this module, so
that moving to the engine's public lazy API (issue 12, point 4) changes one file: start a
dungeon, list its open exits with stable keys, name the exit the procedure's depth-first
walk takes next, expand one exit (optionally as the n-th reroll of that door), freeze a
snapshot, generate a whole dungeon for comparison.

Today's engine names connections by creation order (``c17``); the key given to players and
stored in event logs is made here from geometry instead: ``"<depth>:<x>,<y>:<side>"`` (the
5-ft cell the exit stands on and the wall it opens), so a log names a door, not a counter.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from kerker.dungeon.engine import MAX_LEVEL_TRIES, DungeonState, Params
from kerker.dungeon.engine import expand as _expand
from kerker.dungeon.engine import generate as _generate
from kerker.dungeon.model import Dungeon
from kerker.tables.registry import Registry

__all__ = [
    "DungeonState",
    "OpenExit",
    "Params",
    "expand",
    "generate",
    "open_exits",
    "next_exit",
    "snapshot",
    "start",
]


@dataclass(frozen=True, slots=True)
class OpenExit:
    """An exit nobody has gone through yet: its stable ``key``, the ``depth`` of its level,
    the ``area`` number it leaves from, its ``kind`` (door, secret_door, stairs, ...),
    ``to_level`` for a way to another level, and whether only the GM knows of it."""

    key: str
    depth: int
    area: int
    kind: str
    to_level: int | None
    gm_only: bool


def _seed(*parts: object) -> int:
    text = ":".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


def start(params: Params, seed: int, registry: Registry) -> DungeonState:
    """A dungeon with its entrance placed, rolled from ``seed`` (nothing explored yet).

    The first level is the one :func:`generate` keeps: a first level below
    ``params.min_areas`` is rolled again there, so the same trials are run here (on
    throw-away states) to start from the roll that ``kerker dungeon`` would keep.
    """
    params = params.checked()
    best_base, rolled = _first_level(params, seed, registry)
    state = DungeonState(params, random.Random(0), registry)
    state.base = best_base
    level = state.level(1)
    level.started = True
    state.procedure.start(state, level)
    if rolled > 1:
        state.bent["level_rerolled"] += rolled - 1
    return state


_TRIALS: dict[tuple[Params, int, int], tuple[int, int]] = {}
"""(params, seed, registry id) -> (base of the first level kept, rolls made): a session
replays from its seed at every step, and the trials cost a whole first level."""


def _first_level(params: Params, seed: int, registry: Registry) -> tuple[int, int]:
    """The engine's base seed of the first level :func:`generate` keeps, and how many
    first levels it rolled (as its loop does)."""
    cache_key = (params, seed, id(registry))
    found = _TRIALS.get(cache_key)
    if found is not None:
        return found
    rng = random.Random(seed)
    wanted = min(params.min_areas, params.max_areas)
    best_base, best_size, rolled = 0, -1, 0
    while rolled < MAX_LEVEL_TRIES:
        trial = DungeonState(params, rng, registry)
        if wanted <= 1 and rolled == 0:
            best_base, rolled = trial.base, 1
            break
        trial.run_level(trial.level(1))
        rolled += 1
        size = len(trial.levels[1].areas)
        if size > best_size:
            best_base, best_size = trial.base, size
        if size >= wanted:
            break
    if len(_TRIALS) > 256:
        _TRIALS.clear()
    _TRIALS[cache_key] = (best_base, rolled)
    return best_base, rolled


def generate(params: Params, seed: int, registry: Registry) -> Dungeon:
    """The whole dungeon ``kerker dungeon`` makes for ``params`` and ``seed``."""
    return _generate(params, random.Random(seed), registry)


def _key(depth: int, at: tuple[int, int], side: str) -> str:
    return f"{depth}:{at[0]},{at[1]}:{side}"


def _keys(state: DungeonState) -> dict[str, tuple[int, str]]:
    """Stable key -> (depth, engine id) of every connection (a second connection on the
    same cell and wall gets ``#2``, ``#3`` ... by creation order)."""
    out: dict[str, tuple[int, str]] = {}
    for depth in sorted(state.levels):
        for conn in state.levels[depth].conns.values():
            key = _key(depth, conn.at, conn.side)
            n = 1
            while key in out:
                n += 1
                key = f"{_key(depth, conn.at, conn.side)}#{n}"
            out[key] = (depth, conn.id)
    return out


def _is_open(state: DungeonState, depth: int, conn_id: str) -> bool:
    conn = state.levels[depth].conns.get(conn_id)
    if conn is None or conn.to is not None:
        return False
    if conn.mode == "level":
        target = conn.to_level or 0
        return 1 <= target <= state.params.levels and conn_id not in _taken(state)
    return conn.mode in ("exit", "corridor") and state.budget_left(state.levels[depth])


def _taken(state: DungeonState) -> set[str]:
    """Engine ids of the ways to other levels a player has gone through (kept on the
    state: today's engine does not mark them)."""
    taken: set[str] | None = getattr(state, "_play_taken", None)
    if taken is None:
        taken = set()
        state._play_taken = taken  # type: ignore[attr-defined]
    return taken


def open_exits(state: DungeonState) -> list[OpenExit]:
    """The exits that can be opened now, by level, then top to bottom, left to right."""
    numbers = {(d, a.id): a.number for d, lv in state.levels.items()
               for a in lv.areas.values()}
    found = []
    for key, (depth, conn_id) in _keys(state).items():
        if not _is_open(state, depth, conn_id):
            continue
        conn = state.levels[depth].conns[conn_id]
        found.append(OpenExit(key, depth, numbers.get((depth, conn.from_), 0), conn.kind,
                              conn.to_level if conn.mode == "level" else None, conn.gm_only))
    found.sort(key=lambda e: (e.depth, _order(e.key)))
    return found


def _order(key: str) -> tuple[int, int, str]:
    _depth, cell, rest = key.split(":", 2)
    x, y = cell.split(",")
    return int(y), int(x), rest


def next_exit(state: DungeonState) -> str | None:
    """The key of the exit the procedure's own depth-first walk expands next (the top of
    the first level's frontier that still has one), or None when nothing is open there."""
    by_id = {(d, i): k for k, (d, i) in _keys(state).items()}
    for depth in sorted(state.levels):
        level = state.levels[depth]
        if not state.budget_left(level):
            continue
        for conn_id in reversed(level.frontier):
            if _is_open(state, depth, conn_id):
                return by_id[(depth, conn_id)]
    for exit_ in open_exits(state):
        if exit_.to_level is not None:
            return exit_.key
    return None


def expand(state: DungeonState, key: str, reroll: int = 0) -> bool:
    """Open the exit with stable ``key``; ``reroll`` > 0 rolls what lies behind it afresh
    (the n-th reroll of that door, from a sub-seed of the dungeon and the key). False when
    no such exit is open."""
    found = _keys(state).get(key)
    if found is None or not _is_open(state, *found):
        return False
    depth, conn_id = found
    rng = random.Random(_seed(state.base, "reroll", key, reroll)) if reroll else None
    done = _expand(state, conn_id, rng)
    if done and state.levels[depth].conns.get(conn_id) is not None:
        conn = state.levels[depth].conns[conn_id]
        if conn.mode == "level":
            _taken(state).add(conn_id)
    return done


def exit_known(state: DungeonState, key: str) -> bool:
    """Whether ``key`` names a connection of the dungeon (open or already gone through)."""
    return key in _keys(state)


def area_of_exit(state: DungeonState, key: str) -> tuple[int, str | None, str | None]:
    """(depth, the engine id of the area the exit leaves, the id of the area it leads to)
    of the connection named ``key``; refuses unknown keys with ``KeyError``."""
    depth, conn_id = _keys(state)[key]
    conn = state.levels[depth].conns[conn_id]
    return depth, conn.from_, conn.to


def key_of(state: DungeonState, depth: int, conn_id: str) -> str | None:
    """The stable key of the engine's connection ``conn_id`` on level ``depth``."""
    for key, found in _keys(state).items():
        if found == (depth, conn_id):
            return key
    return None


def snapshot(state: DungeonState) -> Dungeon:
    """The frozen dungeon as it stands now."""
    return state.snapshot()
