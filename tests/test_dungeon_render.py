"""Dungeon map (SVG/PNG) and room key (Markdown/HTML) from hand-made documents.

The renderers are pure functions of the JSON document (docs/dungeon-json.md), so these tests
run on fixtures written by hand: ``tests/fixtures/dungeon/small.json`` (every symbol: room,
hall, corridors, door, secret door, one-way door, archway, opening, stairs down, trapdoor,
shaft to the surface, pool, lake, columns, river with bridge, chasm, boat, well, rubble,
unexplored exits, a trap) and ``large.json`` (a 120 × 160 cell level of 70 rooms and their
corridors). Golden: ``tests/golden/dungeon_render_small.svg`` (English, GM view); rewrite with
``KERKER_UPDATE_GOLDEN=1 pytest tests/test_dungeon_render.py`` and say so in the commit.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from dungeon_support import round_room

from kerker.dungeon.player import player_areas
from kerker.dungeon.render_key import render_html, render_md
from kerker.dungeon.render_svg import PNG_SCALE, render_png, render_svg
from kerker.errors import OptionError

FIXTURES = Path(__file__).parent / "fixtures" / "dungeon"
GOLDEN = Path(__file__).parent / "golden"
NS = "{http://www.w3.org/2000/svg}"


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def small() -> dict[str, Any]:
    return _load("small.json")


@pytest.fixture(scope="module")
def large() -> dict[str, Any]:
    return _load("large.json")


def _root(doc: dict[str, Any], view: str = "gm", lang: str = "en") -> ET.Element:
    return ET.fromstring(render_svg(doc, view=view, lang=lang))


def _classes(root: ET.Element) -> list[str]:
    out = []
    for el in root.iter():
        out += (el.get("class") or "").split()
    return out


def _texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{NS}text")]


def _legend(root: ET.Element) -> list[str]:
    return [g.get("data-key") or "" for g in root.iter(f"{NS}g") if g.get("class") == "legend-item"]


def test_gm_svg_shows_every_symbol(small: dict[str, Any]) -> None:
    root = _root(small)
    classes = _classes(root)
    for cls in (
        "rock",
        "floor",
        "grid",
        "walls",
        "door",
        "secret_door",
        "one_way_door",
        "archway",
        "opening",
        "stairs",
        "trapdoor",
        "shaft",
        "unexplored",
        "pool",
        "lake",
        "columns",
        "gallery",
        "river",
        "bridge",
        "chasm",
        "boat",
        "well",
        "rubble",
        "secret",
        "trap",
        "number",
        "scale",
        "compass",
    ):
        assert cls in classes, cls
    texts = _texts(root)
    assert texts[0] == "Zufallslabyrinth – seed 42 – level 1"
    numbers = [t.text for t in root.iter(f"{NS}text") if t.get("class") == "number"]
    assert numbers == [str(a["number"]) for a in small["levels"][0]["areas"]]
    assert "↓ 2" in texts and "↑ 0" in texts and texts.count("?") >= 2
    assert "S" in texts
    assert set(_legend(root)) >= {
        "door",
        "secret_door",
        "one_way_door",
        "archway",
        "stairs_down",
        "trapdoor",
        "shaft",
        "unexplored",
        "water",
        "river",
        "bridge",
        "chasm",
        "columns",
        "trap",
    }
    assert "1 square = 10 ft / 3 m" in texts


def test_player_svg_hides_secret_doors_and_traps(small: dict[str, Any]) -> None:
    root = _root(small, "player")
    classes = _classes(root)
    assert "secret_door" not in classes and "secret" not in classes
    assert "trap" not in classes and "trapdoor" not in classes  # the trapdoor is gm_only
    legend = _legend(root)
    assert "secret_door" not in legend and "trap" not in legend
    texts = _texts(root)
    assert "S" not in texts
    assert "players' map" in " ".join(texts)
    assert "door" in classes and "stairs" in classes


def test_secret_door_stays_a_wall(small: dict[str, Any]) -> None:
    """The secret door does not cut the wall; a door does (in both views)."""
    for view in ("gm", "player"):
        walls = _segments(_path(_root(small, view), "walls"))
        # Hall 3's east wall (x = 28 cells) runs unbroken from y 2 to 12 beside the secret door.
        assert _covered(walls, (28, 2), (28, 12))
        # Room 1's east wall is cut by the 2-cell door at y 6-7, and only there.
        assert _covered(walls, (10, 4), (10, 6)) and _covered(walls, (10, 8), (10, 10))
        assert not _touches(walls, (10, 6), (10, 8))


def _level_doc(areas: list[dict[str, Any]], connections: list[dict[str, Any]]) -> dict[str, Any]:
    """A one-level document of hand-made areas (cells) and connections."""
    full = []
    for number, area in enumerate(areas, 1):
        cells = sorted(area["cells"], key=lambda c: (c[1], c[0]))
        xs, ys = [c[0] for c in cells], [c[1] for c in cells]
        full.append(
            {
                "id": f"a{number}",
                "number": number,
                "kind": area.get("kind", "room"),
                "shape": area.get("shape", "rect"),
                "cells": [list(c) for c in cells],
                "bounds": [min(xs), min(ys), max(xs), max(ys)],
                "label_at": list(cells[len(cells) // 2]),
                "size": {},
                "title": "",
                "contents": [],
                "features": [],
                "rolls": [],
            }
        )
    conns = [
        {
            "id": f"c{i}",
            "to": None,
            "width": 1,
            "to_level": None,
            "direction": None,
            "one_way": None,
            "gm_only": False,
            **conn,
        }
        for i, conn in enumerate(connections)
    ]
    return {
        "kerker": "0.1.0",
        "format": 1,
        "rules": "zufallslabyrinth",
        "seed": 1,
        "lang": "en",
        "options": {},
        "stats": {},
        "levels": [
            {
                "depth": 1,
                "width": 40,
                "height": 40,
                "entrance": "a1",
                "areas": full,
                "connections": conns,
                "unexplored": [],
            }
        ],
    }


def _diagonal_doc() -> dict[str, Any]:
    """A 6 x 6 room with a door (east wall, y 4-5) into a 2-cell corridor that runs 45°
    south-east for 10 rows (a sheared band of cells)."""
    room = {(x, y) for x in range(2, 8) for y in range(2, 8)}
    corridor = {(8, 4), (9, 4), (8, 5), (9, 5)}
    corridor |= {(x, y) for y in range(6, 16) for x in (y + 3, y + 4)}
    return _level_doc(
        [{"cells": room}, {"cells": corridor, "kind": "corridor", "shape": "corridor"}],
        [{"from": "a1", "to": "a2", "kind": "door", "at": [7, 4], "side": "e", "width": 2}],
    )


def _diagonals(segs: list[Seg], at_least: float) -> list[Seg]:
    return [
        s
        for s in segs
        if abs(abs(s[2] - s[0]) - abs(s[3] - s[1])) < 1e-9 and abs(s[2] - s[0]) >= at_least
    ]


def test_diagonal_corridor_is_drawn_as_a_straight_band() -> None:
    doc = _diagonal_doc()
    root = _root(doc)
    walls = _segments(_path(root, "walls"))
    diagonal = _diagonals(walls, 8)
    # Both walls of the corridor: one straight 45° line each (no staircase), parallel.
    assert len(diagonal) == 2, diagonal
    (ax1, ay1, ax2, ay2), (bx1, by1, bx2, by2) = diagonal
    assert (ax2 - ax1) * (by2 - by1) == (ay2 - ay1) * (bx2 - bx1)
    # The staircase is gone: no unit-long wall piece is left along the corridor's band.
    unit = [s for s in walls if abs(s[2] - s[0]) + abs(s[3] - s[1]) == 1 and s[1] > 7]
    assert unit == []
    # The room's east wall, which carries the door, keeps its place and its gap.
    assert _covered(walls, (8, 2), (8, 4)) and _covered(walls, (8, 6), (8, 8))
    assert not _touches(walls, (8, 4), (8, 6))
    # Floor, rock band and grid follow the same outline.
    floor = _subpaths(_path(root, "floor"))
    assert len(_diagonals(_segments(_path(root, "floor")), 8)) == 2
    assert _inside(floor, 14, 10.5) and not _inside(floor, 11.5, 10.5)
    assert not _inside(floor, 16.5, 10.5)
    assert len(_diagonals(_segments(_path(root, "rock")), 8)) >= 4


def test_round_room_follows_its_shape() -> None:
    cells = round_room(5, 5)
    doc = _level_doc(
        [{"cells": cells, "kind": "special", "shape": "circle"}],
        [{"from": "a1", "kind": "door", "at": [10, 15], "side": "s", "width": 1}],
    )
    root = _root(doc)
    floor = _subpaths(_path(root, "floor"))
    assert len(floor) == 1
    ring = floor[0]
    edges = list(itertools.pairwise(ring))
    slanted = [e for e in edges if e[0][0] != e[1][0] and e[0][1] != e[1][1]]
    assert len(slanted) >= 4
    # No staircase: never two unit-long axis-parallel sides in a row.
    units = [
        abs(b[0] - a[0]) + abs(b[1] - a[1]) == 1 and (a[0] == b[0] or a[1] == b[1])
        for a, b in edges
    ]
    assert not any(one and two for one, two in itertools.pairwise(units))
    # The door's wall stays where the cells put it (y = 16, x 10-11) and is cut there.
    walls = _segments(_path(root, "walls"))
    assert not _touches(walls, (10, 16), (11, 16))
    assert any(p == (10.0, 16.0) for p in ring) and any(p == (11.0, 16.0) for p in ring)


def test_elevator_room_and_a_door_that_closes_the_stairs() -> None:
    """La Scatola Bianca: an elevator room is a platform with its way (GM only, never an
    unexplored '?'); stairs whose door shuts the way back show that door."""
    room = {(x, y) for x in range(4, 8) for y in range(4, 8)}
    corridor = {(x, 5) for x in range(8, 14)} | {(x, 6) for x in range(8, 14)}
    doc = _level_doc(
        [
            {"cells": room, "kind": "elevator"},
            {"cells": corridor, "kind": "corridor", "shape": "corridor"},
        ],
        [
            {"from": "a1", "to": "a2", "kind": "opening", "at": [7, 5], "side": "e", "width": 2},
            {
                "from": "a1",
                "kind": "elevator",
                "at": [5, 5],
                "side": "w",
                "to_level": 3,
                "direction": "down",
                "gm_only": True,
            },
            {
                "from": "a2",
                "kind": "stairs",
                "at": [13, 5],
                "side": "e",
                "width": 2,
                "to_level": 2,
                "direction": "down",
                "door_closes": True,
            },
        ],
    )
    doc["levels"][0]["unexplored"] = ["c1", "c2"]
    gm = _root(doc)
    classes = _classes(gm)
    assert "elevator" in classes and "elevator" in _legend(gm)
    assert "↓ 3" in _texts(gm) and "↓ 2" in _texts(gm)
    assert "unexplored" not in classes  # ways to other levels are no unexplored exits
    assert "door_closes" in classes and "door" in _legend(gm)
    player = _root(doc, "player")
    assert "elevator" not in _classes(player) and "elevator" not in _legend(player)
    assert "↓ 3" not in _texts(player)
    # The lower end of such stairs: the door across the stairs, on the wall.
    up = copy.deepcopy(doc)
    up["levels"][0]["connections"][2]["direction"] = "up"
    assert "door_closes" in _classes(_root(up))


def test_opening_into_rock_keeps_its_wall(small: dict[str, Any]) -> None:
    """A door wider than the area behind it opens only where a floor is on both sides."""
    doc = copy.deepcopy(small)
    door = next(c for c in doc["levels"][0]["connections"] if c["id"] == "c1")
    door["width"] = 3  # room 1 (x 4-9, y 4-9) -> corridor 2 (y 6-7): y 8 faces rock
    walls = _segments(_path(_root(doc), "walls"))
    assert not _touches(walls, (10, 6), (10, 8))
    assert _covered(walls, (10, 8), (10, 10))


def test_cell_order_does_not_change_the_map(small: dict[str, Any]) -> None:
    doc = copy.deepcopy(small)
    for area in doc["levels"][0]["areas"]:
        area["cells"] = list(reversed(area["cells"]))
        for feature in area["features"]:
            feature["cells"] = list(reversed(feature["cells"]))
    assert render_svg(doc, lang="en") == render_svg(small, lang="en")


@pytest.fixture(scope="module")
def generated() -> list[dict[str, Any]]:
    """Documents of both procedures: diagonal corridors, circles, octagons, caves."""
    from kerker.dungeon.engine import Params, generate
    from kerker.dungeon.export import to_document
    from kerker.tables.registry import load_registry

    registry = load_registry([])
    docs = []
    for rules, seed, levels in (
        ("zufallslabyrinth", 7, 1),
        ("zufallslabyrinth", 3, 1),
        ("zufallslabyrinth", 105, 1),
        ("scatola-bianca", 5, 4),
    ):
        params = Params(rules=rules, seed=seed, levels=levels)
        docs.append(to_document(generate(params, registry), "en"))
    return docs


def _levels(docs: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(doc, level) for doc in docs for level in doc["levels"]]


def _unit_edges(conn: dict[str, Any]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The cell edges a connection's wall piece consists of (as in render_svg._pierced)."""
    dx, dy = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0)}[conn["side"]]
    ax, ay = conn["at"]
    out = []
    for i in range(max(1, conn["width"])):
        x, y = (ax, ay + i) if dx else (ax + i, ay)
        if dx:
            ex = x + (dx > 0)
            out.append(((ex, y), (ex, y + 1)))
        else:
            ey = y + (dy > 0)
            out.append(((x, ey), (x + 1, ey)))
    return out


def test_walls_with_connections_are_never_smoothed(generated: list[dict[str, Any]]) -> None:
    """Every wall piece a connection sits on stays a straight cell edge: on the floor's
    outline (or between two areas), in the wall where it is closed (secret doors), cut
    where a connection opens it, in both views."""
    from kerker.dungeon.player import player_areas, player_level

    checked = 0
    for doc, full in _levels(generated):
        for view in ("gm", "player"):
            # The players' map draws only what they know (what a secret door hides is rock).
            level = full if view == "gm" else player_level(full, player_areas(doc), contents=False)
            owner = {tuple(c): a["id"] for a in level["areas"] for c in a["cells"]}
            conns = [
                c
                for c in level["connections"]
                if c["kind"] not in ("trapdoor", "shaft") and len(c["side"]) == 1
            ]
            root = ET.fromstring(render_svg(doc, depth=level["depth"], view=view))
            walls = _segments(_path(root, "walls"))
            floor = _segments(_path(root, "floor"))
            opened = set()
            for conn in conns:
                if conn["kind"] in _OPEN and (view == "gm" or not conn["gm_only"]):
                    for a, b in _unit_edges(conn):
                        if all(_sides(a, b, owner)) or conn["to"] not in owner.values():
                            opened.add((a, b))
            for conn in conns:
                for a, b in _unit_edges(conn):
                    on_floor = _sides(a, b, owner)
                    if not any(on_floor) or _same_area(a, b, owner):
                        continue  # past both areas, or inside one: no wall there
                    if on_floor.count(True) == 1:
                        assert _covered(floor, a, b), (doc["seed"], conn)
                    if (a, b) in opened:
                        assert not _touches(walls, a, b), (doc["seed"], view, conn)
                    else:
                        assert _covered(walls, a, b), (doc["seed"], view, conn)
                    checked += 1
    assert checked > 300


_OPEN = ("door", "one_way_door", "archway", "opening", "stairs")


def _same_area(a: tuple[int, int], b: tuple[int, int], owner: dict[Any, str]) -> bool:
    one, two = ((a[0], a[1] - 1), a) if a[1] == b[1] else ((a[0] - 1, a[1]), a)
    return one in owner and owner.get(one) == owner.get(two)


def _sides(a: tuple[int, int], b: tuple[int, int], owner: dict[Any, str]) -> list[bool]:
    """Whether the cells on both sides of a unit edge are floor."""
    if a[1] == b[1]:
        return [(a[0], a[1] - 1) in owner, (a[0], a[1]) in owner]
    return [(a[0] - 1, a[1]) in owner, (a[0], a[1]) in owner]


def test_walls_between_areas_stay_drawn(generated: list[dict[str, Any]]) -> None:
    for doc, level in _levels(generated):
        owner = {tuple(c): a["id"] for a in level["areas"] for c in a["cells"]}
        opened: set[tuple[tuple[int, int], tuple[int, int]]] = set()
        for conn in level["connections"]:
            if conn["kind"] in _OPEN:
                opened.update(_unit_edges(conn))
        walls = _segments(_path(_root_of(doc, level), "walls"))
        for (x, y), area in owner.items():
            for other, edge in (
                ((x, y - 1), ((x, y), (x + 1, y))),
                ((x - 1, y), ((x, y), (x, y + 1))),
            ):
                if owner.get(other, area) != area and edge not in opened:
                    assert _covered(walls, *edge), (doc["seed"], area, edge)


def test_player_map_has_the_same_outline(generated: list[dict[str, Any]]) -> None:
    """Smoothing does not depend on the view: a secret door leaves no trace (on a level
    where no area is hidden behind one; tests/test_render_secrecy.py checks the others)."""
    checked = 0
    for doc, level in _levels(generated):
        known = player_areas(doc)
        if any(a["id"] not in known for a in level["areas"]):
            continue
        checked += 1
        gm = _root_of(doc, level)
        player = _root_of(doc, level, "player")
        for cls in ("rock", "floor", "grid"):
            assert _path(gm, cls) == _path(player, cls)
    assert checked


def test_grid_numbers_and_water_lie_on_the_floor(generated: list[dict[str, Any]]) -> None:
    for doc, level in _levels(generated):
        root = _root_of(doc, level)
        floor = _subpaths(_path(root, "floor"))
        for x1, y1, x2, y2 in _segments(_path(root, "grid")):
            assert _inside(floor, (x1 + x2) / 2 + 1e-3, (y1 + y2) / 2 + 1e-3), (doc["seed"],)
        for area in level["areas"]:
            x, y = area["label_at"]
            assert _inside(floor, x + 0.5, y + 0.5), (doc["seed"], area["id"])


def test_smoothed_outlines_never_cross(generated: list[dict[str, Any]]) -> None:
    """No edge of the floor outline crosses another, nor the rock band's outer edge."""
    for doc, level in _levels(generated):
        root = _root_of(doc, level)
        segs = _segments(_path(root, "floor")) + _segments(_path(root, "rock"))
        buckets: dict[tuple[int, int], list[int]] = {}
        for i, (x1, y1, x2, y2) in enumerate(segs):
            for bx in range(int(min(x1, x2)) // 4, int(max(x1, x2)) // 4 + 1):
                for by in range(int(min(y1, y2)) // 4, int(max(y1, y2)) // 4 + 1):
                    buckets.setdefault((bx, by), []).append(i)
        for ids in buckets.values():
            for k, i in enumerate(ids):
                for j in ids[k + 1 :]:
                    assert not _crossing(segs[i], segs[j]), (doc["seed"], segs[i], segs[j])


def _crossing(s: Seg, t: Seg) -> bool:
    """Whether two segments cross properly (touching ends do not count)."""

    def side(ax: float, ay: float, bx: float, by: float, cx: float, cy: float) -> int:
        v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
        return (v > 1e-9) - (v < -1e-9)

    return (
        side(*s, t[0], t[1]) * side(*s, t[2], t[3]) < 0
        and side(*t, s[0], s[1]) * side(*t, s[2], s[3]) < 0
    )


def _root_of(doc: dict[str, Any], level: dict[str, Any], view: str = "gm") -> ET.Element:
    return ET.fromstring(render_svg(doc, depth=level["depth"], view=view))


def test_svg_is_deterministic_and_language_aware(small: dict[str, Any]) -> None:
    one = render_svg(small, view="gm", lang="de")
    two = render_svg(copy.deepcopy(small), view="gm", lang="de")
    assert one == two
    assert render_svg(small, lang="it") != render_svg(small, lang="en")
    assert 'id="' in one and "random" not in one


def test_unknown_view_or_level_is_refused(small: dict[str, Any]) -> None:
    with pytest.raises(OptionError):
        render_svg(small, view="dm")
    with pytest.raises(OptionError):
        render_svg(small, depth=5)


def test_png_signature(small: dict[str, Any]) -> None:
    png = render_png(small, view="player", lang="en", scale=1.0)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")


def test_png_is_drawn_at_png_scale(small: dict[str, Any]) -> None:
    svg_width = int(_root(small).get("width") or 0)
    png = render_png(small, lang="en")
    assert int.from_bytes(png[16:20], "big") == int(svg_width * PNG_SCALE)


def test_large_level_stays_compact(large: dict[str, Any]) -> None:
    """A large level's walls are merged runs (bounded output). Its render time is measured
    by bench/ (no wall-clock limit in a test: issue 18)."""
    level = large["levels"][0]
    assert (level["width"], level["height"]) == (120, 160)
    svg = render_svg(large)
    assert len(svg) < 400_000, len(svg)
    root = _root(large)
    walls = next(p for p in root.iter(f"{NS}path") if p.get("class") == "walls")
    # Runs, not one segment per cell edge.
    assert (walls.get("d") or "").count("M") < 2000


def test_markdown_key_gm(small: dict[str, Any]) -> None:
    md = render_md(small, lang="en")
    assert md.startswith("# Zufallslabyrinth – seed 42 – level 1\n")
    for area in small["levels"][0]["areas"]:
        # rooms first, each under its heading; corridors after them, one line each
        mark = "- **" if area["kind"] == "corridor" else "## "
        assert f"{mark}{area['number']}. " in md
    for line in (
        "- Door east to area 2",
        "Door west to area 1",
        "- Secret door east to area 6",
        "- One-way door south to area 5 (opens only from this side)",
        "- One-way door north to area 4 (opens only from the other side)",
        "- Stairs down to level 2, west side",
        "- Trapdoor down to level 2",
        "- Shaft up to the surface",
        "- Door north: unexplored",
        "- Opening east: unexplored",
        "- Speerfalle: 1W6 Schaden",
        "1 300 Kupfermünzen (KM)",
        "trapped: Vergiftete Nadeln im Schloss",
        "20 squares · 40 × 50 ft · 12 × 15 m",
        "    - schatz/menge: 2d10",  # an English key writes d10
    ):
        # a room's exit is a list item; a corridor's exits stand on its one line
        assert line in md or line.removeprefix("- ") in md, line
    assert md.index("\n## Corridors") < md.index("\n## Rolls")


def test_markdown_key_player_leaves_out_secrets(small: dict[str, Any]) -> None:
    md = render_md(small, lang="en", view="player")
    assert "Secret door" not in md and "Speerfalle" not in md and "Trapdoor" not in md
    assert "Vergiftete Nadeln" not in md and "losen Bodenstein" not in md
    assert "Rolls" not in md
    assert "- Door east to area 2" in md


def test_markdown_key_languages(small: dict[str, Any]) -> None:
    de = render_md(small)
    it = render_md(small, lang="it")
    en = render_md(small, lang="en")
    assert de != en and it != en
    assert "## 1. Eingangsbereich" in de  # the document's own titles in its language
    assert "## 1. Entrance" in en
    # the exit lines read as each language says them, the number named as an area
    assert "- Tür nach Osten zu Gebiet 2\n" in de and "- Door east to area 2\n" in en
    assert "- Porta a est verso l’area 2\n" in it
    assert "- Tür nach Norden: unerforscht" in de and "- Porta a nord: da esplorare" in it
    assert "Treppe hinab zu Ebene 2, nach Westen" in de
    assert "Scala che scende al livello 2, a ovest" in it


def test_html_key(small: dict[str, Any]) -> None:
    html = render_html(small, lang="en")
    assert html.startswith("<!DOCTYPE html>") and "<style>" in html and "<svg" in html
    assert "<link" not in html and "<script" not in html
    for area in small["levels"][0]["areas"]:
        assert f'id="area-{area["number"]}"' in html
    assert 'Door east to area <a href="#area-2">2</a>' in html
    assert "Door north: unexplored" in html
    assert "<details><summary>Rolls (3)</summary>" in html
    player = render_html(small, lang="en", view="player")
    assert "Secret door" not in player and "<details>" not in player


def test_golden_svg(small: dict[str, Any]) -> None:
    svg = render_svg(small, view="gm", lang="en")
    path = GOLDEN / "dungeon_render_small.svg"
    if os.environ.get("KERKER_UPDATE_GOLDEN"):
        path.write_text(svg, encoding="utf-8")
    assert svg == path.read_text(encoding="utf-8")


# --------------------------------------------------------------------------------------
# Path data as segments (in cells), coverage and inside tests

Seg = tuple[float, float, float, float]
_TOKEN = re.compile(r"[MLHVZmlhvzQ]|-?[0-9.]+")


def _path(root: ET.Element, cls: str) -> str:
    return "".join(p.get("d") or "" for p in root.iter(f"{NS}path") if p.get("class") == cls)


def _subpaths(d: str) -> list[list[tuple[float, float]]]:
    """Path data (M, L, H, V, Z and relative h, v, l) as point lists in cells."""
    out: list[list[tuple[float, float]]] = []
    tokens = _TOKEN.findall(d)
    i = 0
    x = y = 0.0
    cmd = "M"
    while i < len(tokens):
        tok = tokens[i]
        if tok.isalpha():
            cmd = tok
            i += 1
            if cmd in "Zz":
                out[-1].append(out[-1][0])
                continue
        if cmd == "M":
            x, y = float(tokens[i]), float(tokens[i + 1])
            out.append([(x, y)])
            i += 2
            cmd = "L"
            continue
        if cmd == "L":
            x, y = float(tokens[i]), float(tokens[i + 1])
            i += 2
        elif cmd == "l":
            x, y = x + float(tokens[i]), y + float(tokens[i + 1])
            i += 2
        elif cmd == "H":
            x = float(tokens[i])
            i += 1
        elif cmd == "h":
            x += float(tokens[i])
            i += 1
        elif cmd == "V":
            y = float(tokens[i])
            i += 1
        elif cmd == "v":
            y += float(tokens[i])
            i += 1
        else:
            raise AssertionError(f"unexpected path command {cmd}")
        out[-1].append((x, y))
    return [[(px / 14, py / 14) for px, py in sub] for sub in out]


def _segments(d: str) -> list[Seg]:
    return [
        (a[0], a[1], b[0], b[1])
        for sub in _subpaths(d)
        for a, b in itertools.pairwise(sub)
        if a != b
    ]


def _on_line(seg: Seg, a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """The part of an axis-parallel line a-b that ``seg`` covers, as an interval along it
    (empty when the segment does not lie on the line)."""
    x1, y1, x2, y2 = seg
    if a[0] == b[0] and x1 == x2 == a[0]:
        return min(y1, y2), max(y1, y2)
    if a[1] == b[1] and y1 == y2 == a[1]:
        return min(x1, x2), max(x1, x2)
    return (0.0, 0.0)


def _covered(segs: list[Seg], a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether the axis-parallel stretch a-b is drawn in full by the segments."""
    lo, hi = (a[1], b[1]) if a[0] == b[0] else (a[0], b[0])
    lo, hi = min(lo, hi), max(lo, hi)
    spans = sorted(_on_line(seg, a, b) for seg in segs)
    reach = lo
    for start, end in spans:
        if end > start and start <= reach + 1e-9:
            reach = max(reach, end)
    return reach >= hi - 1e-9


def _touches(segs: list[Seg], a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether any segment draws a piece of the inside of stretch a-b."""
    lo, hi = (a[1], b[1]) if a[0] == b[0] else (a[0], b[0])
    lo, hi = min(lo, hi), max(lo, hi)
    return any(
        min(end, hi) - max(start, lo) > 1e-9 for start, end in (_on_line(seg, a, b) for seg in segs)
    )


def _inside(subpaths: list[list[tuple[float, float]]], px: float, py: float) -> bool:
    """Even-odd point in polygon."""
    inside = False
    for sub in subpaths:
        for (x1, y1), (x2, y2) in itertools.pairwise(sub):
            if (y1 > py) != (y2 > py) and px < x1 + (py - y1) * (x2 - x1) / (y2 - y1):
                inside = not inside
    return inside
