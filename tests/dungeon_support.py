"""Invariants every dungeon document must keep, whatever procedure made it
(shared by tests/test_dungeon_invariants.py and tests/test_scatola_bianca_invariants.py),
and shapes the outline and render tests draw."""

from __future__ import annotations

from collections import deque
from collections.abc import Collection
from typing import Any

from kerker.geometry.grid import VECTORS

Doc = dict[str, Any]

ROUND_ROOM = (
    "...#####...",
    "..#######..",
    ".#########.",
    "###########",
    "###########",
    "###########",
    "###########",
    "###########",
    ".#########.",
    "..#######..",
    "...#####...",
)
"""A round room 11 cells across, as rows of cells ("#")."""


def round_room(dx: int = 0, dy: int = 0) -> set[tuple[int, int]]:
    """The cells of :data:`ROUND_ROOM`, its top left corner at ``(dx, dy)``."""
    return {
        (x + dx, y + dy) for y, row in enumerate(ROUND_ROOM) for x, c in enumerate(row) if c == "#"
    }


def check_cells(doc: Doc) -> None:
    """No cell in two areas of a level; cells inside the bounds, sorted; labels on a cell."""
    for level in doc["levels"]:
        seen: set[tuple[int, int]] = set()
        for area in level["areas"]:
            cells = {tuple(c) for c in area["cells"]}
            assert len(cells) == len(area["cells"]) > 0, (doc["seed"], area["id"])
            assert not cells & seen, (doc["seed"], area["id"])
            seen |= cells
            assert all(0 <= x < level["width"] and 0 <= y < level["height"] for x, y in cells)
            assert tuple(area["label_at"]) in cells
            assert area["cells"] == sorted(area["cells"], key=lambda c: (c[1], c[0]))


def check_connections(doc: Doc, level_links: Collection[str]) -> None:
    """Every connection starts on a cell of its area and ends on its target across its
    wall (a wide one on every cell of its width, no wall edge opened twice); links to other
    levels are of ``level_links`` kinds; open exits face rock."""
    all_ids = {a["id"] for lv in doc["levels"] for a in lv["areas"]}
    for level in doc["levels"]:
        owner = {tuple(c): a["id"] for a in level["areas"] for c in a["cells"]}
        ids = {a["id"] for a in level["areas"]}
        opened: set[frozenset[tuple[int, int]]] = set()
        for conn in level["connections"]:
            assert conn["from"] in ids
            assert owner[tuple(conn["at"])] == conn["from"], (doc["seed"], conn)
            dx, dy = VECTORS[conn["side"]]
            across = (conn["at"][0] + dx, conn["at"][1] + dy)
            if conn["blocked"] and conn["kind"] in level_links:
                # a way up from level 1 that ends in a dead end (seed 000, decision 36)
                assert conn["to"] is None and conn["to_level"] is None
            elif conn["to_level"] is not None:
                assert conn["kind"] in level_links
                assert conn["to"] is None or conn["to"] in all_ids
            elif conn["to"] is None:
                assert across not in owner, (doc["seed"], conn)
                # an open exit is unexplored; a blocked one (nothing could be built
                # behind it) is kept where it was rolled and never expanded
                assert (conn["id"] in level["unexplored"]) != conn["blocked"], conn
            else:
                assert owner.get(across) == conn["to"], (doc["seed"], conn)
                if conn["side"] in ("n", "e", "s", "w"):
                    # a wide door or opening lies whole on the wall the two areas share
                    ax, ay = (0, 1) if conn["side"] in ("e", "w") else (1, 0)
                    for i in range(conn["width"] or 1):
                        cell = (conn["at"][0] + ax * i, conn["at"][1] + ay * i)
                        assert owner.get(cell) == conn["from"], (doc["seed"], conn)
                        assert owner.get((cell[0] + dx, cell[1] + dy)) == conn["to"], (
                            doc["seed"],
                            conn,
                        )
                        # one way through a wall edge, drawn and keyed once
                        edge = frozenset((cell, (cell[0] + dx, cell[1] + dy)))
                        assert edge not in opened, (doc["seed"], conn)
                        opened.add(edge)


def reachable(doc: Doc, *, secret: bool = True) -> set[str]:
    """Areas reachable from the entrance of level 1, across levels by stairs and shafts
    (through secret doors only when ``secret``)."""
    links: dict[str, set[str]] = {}
    for level in doc["levels"]:
        for conn in level["connections"]:
            if conn["to"] is None or (conn["kind"] == "secret_door" and not secret):
                continue
            links.setdefault(conn["from"], set()).add(conn["to"])
            links.setdefault(conn["to"], set()).add(conn["from"])
    first = doc["levels"][0]["entrance"]
    seen = {first}
    todo = deque([first])
    while todo:
        for nxt in links.get(todo.popleft(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen
