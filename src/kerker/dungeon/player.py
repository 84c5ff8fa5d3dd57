"""What the players can know of a dungeon: the areas they can reach from the surface
without passing a secret door, and each level cut down to them.

Every player-facing output (the players' SVG/PNG map, the players' key, the ASCII preview's
player view) draws from :func:`player_level`, so a secret door, an area reachable only
through one, a trap or a GM-only way is simply rock for the players until the game master
hands out a new map.

The walk starts at the first level's entrance (the way in from the surface) and at every
area that has a way up to the surface (``to_level`` 0). It follows every connection that
is not ``gm_only`` in both directions (a door is seen from either side; a stair or shaft
to another level leads to the area named in its ``to``) and the ``elevator`` ways (the
room goes down with the party in it, so they arrive, though the map does not show how).
It never follows a ``secret_door``.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Mapping
from typing import Any

Doc = Mapping[str, Any]

__all__ = ["player_areas", "player_level", "shows"]


def _walkable(conn: Mapping[str, Any]) -> bool:
    kind = conn.get("kind")
    if kind == "secret_door":
        return False
    return kind == "elevator" or not conn.get("gm_only")


def player_areas(doc: Doc) -> frozenset[str]:
    """The ids of every area (all levels) the players can reach without a secret door.

    A document without an entrance or a way to the surface on any level gives the areas of
    its first level's first area's component (there is nothing else to start from)."""
    links: dict[str, set[str]] = defaultdict(set)
    starts: list[str] = []
    levels = list(doc.get("levels") or ())
    for level in levels:
        entrance = level.get("entrance")
        if entrance is not None and int(level.get("depth", 1)) == 1:
            starts.append(str(entrance))
        for conn in level.get("connections") or ():
            here, there = conn.get("from"), conn.get("to")
            if conn.get("to_level") == 0 and here is not None and _walkable(conn):
                starts.append(str(here))
            if here is None or there is None or not _walkable(conn):
                continue
            links[str(here)].add(str(there))
            links[str(there)].add(str(here))
    if not starts:
        for level in levels:
            if level.get("entrance") is not None:
                starts.append(str(level["entrance"]))
                break
    if not starts and levels and levels[0].get("areas"):
        starts.append(str(levels[0]["areas"][0].get("id")))
    seen: set[str] = set(starts)
    todo = deque(starts)
    while todo:
        for nxt in links.get(todo.popleft(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return frozenset(seen)


def shows(conn: Mapping[str, Any], known: frozenset[str]) -> bool:
    """Whether the players' map shows the connection ``conn``: not GM-only, not a secret
    door, from an area they know (and to one they know, or to rock/another level)."""
    if conn.get("gm_only") or conn.get("kind") == "secret_door":
        return False
    if str(conn.get("from")) not in known:
        return False
    there = conn.get("to")
    return there is None or conn.get("to_level") is not None or str(there) in known


def player_level(
    level: Mapping[str, Any], known: frozenset[str], *, contents: bool = True
) -> Mapping[str, Any]:
    """``level`` as the players know it: only the areas in ``known`` (their GM-only
    contents and traps left out unless ``contents`` is false), only the connections
    :func:`shows` passes, the unexplored exits of those. Returns ``level`` itself when
    nothing is hidden (so both views can share one drawing)."""
    areas = list(level.get("areas") or ())
    conns = list(level.get("connections") or ())
    kept_areas = [a for a in areas if str(a.get("id")) in known]
    kept_conns = [c for c in conns if shows(c, known)]
    hidden_content = contents and any(
        c.get("gm_only") or c.get("kind") == "trap"
        for a in kept_areas
        for c in a.get("contents") or ()
    )
    if len(kept_areas) == len(areas) and len(kept_conns) == len(conns) and not hidden_content:
        return level
    out = dict(level)
    out["areas"] = [_player_area(a) for a in kept_areas] if contents else kept_areas
    out["connections"] = kept_conns
    ids = {str(c.get("id")) for c in kept_conns}
    out["unexplored"] = [u for u in level.get("unexplored") or () if str(u) in ids]
    return out


def _player_area(area: Mapping[str, Any]) -> Mapping[str, Any]:
    contents = area.get("contents") or ()
    kept = [c for c in contents if not (c.get("gm_only") or c.get("kind") == "trap")]
    if len(kept) == len(contents):
        return area
    out = dict(area)
    out["contents"] = kept
    return out
