"""Self-check of the tabletop exports: every written ``.dd2vtt`` (and Foundry scene) read
back, its walls and doors laid onto its own picture.

Over 200 small levels of both procedures, portrait and landscape, drawn at 28 px per
square (one SVG unit of the map = one pixel, so the renderer's sizes are pixels):

- every wall segment lies on the drawn wall: along it, every 2 px, a pixel of wall ink
  (grey < 90; the wall stroke is 3.2 px wide, ink #1d1b18 is grey 27) within 1 px (the
  3 x 3 pixels around the point). Exports mutated on purpose fail it: walls moved by a
  quarter square, one wall polyline left out, one door left out;
- every door lies on a drawn door: 1.5 px either side of its midpoint along the wall the
  door leaf's white fill (grey > 180: the wall is cut there), 3.5 px either side across
  the wall the leaf's ink outline (within 1 px);
- the walls close the floor: flooding a raster of the walls, doors and the gaps the
  document lists (archways, openings, stairs) from every area's label cell never reaches
  the picture's border (the frame has three cells of rock around the floors);
- no coordinate is negative or outside ``map_size`` (the scene's pixels);
- the same for the Foundry scene of every level: walls and secret doors (``door`` 2) on
  wall ink (the players' picture draws a secret door as wall), doors (``door`` 1) on door
  leaves, all of them closing the areas.

Where a trapdoor's or a shaft's symbol (drawn over the floor, the walls and doors, as the
maps draw it) covers a wall or a door, it is not looked for under the symbol; nor where
two connections open the same wall edge (their symbols overlap; a defect of the level);
nor where the maps' red or orange marks (a one-way door's arrow, an unexplored exit's
arrow) are drawn over a wall.
"""

from __future__ import annotations

import base64
import json
from math import atan2, cos, sin

import pytest
from vtt_support import Doc, Grey, leaks, polyline_segments, samples, small_doc

from kerker.export.foundry import export_foundry
from kerker.export.uvtt import export_uvtt
from kerker.export.walls import CELLS_PER_SQUARE, GAP_KINDS, level_walls

PPG = 28
INK_MAX = 90
FILL_MIN = 180
RULES = ("zufallslabyrinth", "scatola-bianca")
SEEDS = range(100)
FLOOD_PPG = 16  # raster of the flood fill: 8 px per 5-ft cell


def _cases() -> list[tuple[str, int, tuple[int, int]]]:
    """200 levels: both procedures, 100 seeds each, portrait and landscape sizes."""
    return [(rules, seed, (12, 18) if seed % 2 else (18, 12)) for rules in RULES for seed in SEEDS]


Box = tuple[float, float, float, float]


def _covers(doc: Doc, ppg: int) -> list[Box]:
    """The pixel boxes of the trapdoor and shaft symbols (kerker.dungeon.render_svg: a
    square of 1 or 1.6 cells around the middle of the cells they sit in)."""
    level = level_walls(doc, 1, "player")
    out = []
    for conn in level.map.connections:
        if conn["kind"] not in ("trapdoor", "shaft"):
            continue
        span = [
            (conn["at"][0] + i, conn["at"][1])
            if conn["side"] in ("n", "s")
            else (conn["at"][0], conn["at"][1] + i)
            for i in range(conn["width"] or 1)
        ]
        cx = sum(x + 0.5 for x, _ in span) / len(span)
        cy = sum(y + 0.5 for _, y in span) / len(span)
        sx, sy = level.to_squares((cx, cy))
        half = (1.0 if len(span) == 1 else 1.6) / 2 / CELLS_PER_SQUARE * ppg + 1
        out.append((sx * ppg - half, sy * ppg - half, sx * ppg + half, sy * ppg + half))
    return out


def _contested(doc: Doc, ppg: int) -> list[Box]:
    """Boxes around wall edges two connections open (a door and stairs through one wall
    edge: a defect of the generated level, not of the export; their symbols overlap)."""
    level = level_walls(doc, 1, "player")
    x0, y0, _x1, _y1 = level.map.bounds
    count: dict[tuple[str, int, int], int] = {}
    for i in range(len(level.map.connections)):
        hor, ver = level.map.cut(i)
        for x, y in hor:
            count[("h", x, y)] = count.get(("h", x, y), 0) + 1
        for x, y in ver:
            count[("v", x, y)] = count.get(("v", x, y), 0) + 1
    f = ppg / CELLS_PER_SQUARE
    out = []
    for (way, x, y), n in count.items():
        if n > 1:
            x1, y1 = (x + 1, y) if way == "h" else (x, y + 1)
            out.append(((x - x0) * f - 2, (y - y0) * f - 2, (x1 - x0) * f + 2, (y1 - y0) * f + 2))
    return out


def _on_ink(
    grey: Grey, a: tuple[float, float], b: tuple[float, float], what: str, covers: list[Box]
) -> None:
    for x, y in samples(a, b, 2.0):
        if any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in covers):
            continue
        assert grey.darkest(x, y) < INK_MAX or grey.warm(x, y), (what, a, b, (x, y))


def _on_door(
    grey: Grey, a: tuple[float, float], b: tuple[float, float], what: str, covers: list[Box]
) -> None:
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    if any(x0 - 5 <= mx <= x1 + 5 and y0 - 5 <= my <= y1 + 5 for x0, y0, x1, y1 in covers):
        return
    angle = atan2(b[1] - a[1], b[0] - a[0])
    ux, uy = cos(angle), sin(angle)
    for s in (-1.5, 1.5):  # the leaf's fill, along the wall: the wall is cut there
        x, y = mx + ux * s, my + uy * s
        assert grey.at(int(x), int(y)) > FILL_MIN, (what, a, b, "fill", (x, y))
    for s in (-3.5, 3.5):  # the leaf's outline, across the wall
        x, y = mx - uy * s, my + ux * s
        assert grey.darkest(x, y) < INK_MAX, (what, a, b, "outline", (x, y))


def _closed(
    doc: Doc, segments: list[tuple[tuple[float, float], tuple[float, float]]], ppg: float, what: str
) -> None:
    """The segments (in squares x ``ppg`` px) with the document's gaps close every area."""
    level = level_walls(doc, 1, "player")
    x0, y0, _x1, _y1 = level.map.bounds
    k = FLOOD_PPG / ppg
    lines = [((a[0] * k, a[1] * k), (b[0] * k, b[1] * k)) for a, b in segments]
    for i in level.map.shown("player"):
        if level.map.connections[i].get("kind") in GAP_KINDS:
            hor, ver = level.map.cut(i)
            for x, y in hor:
                lines.append(_px_seg((x, y), (x + 1, y), x0, y0))
            for x, y in ver:
                lines.append(_px_seg((x, y), (x, y + 1), x0, y0))
    seeds = []
    for area in level.map.level["areas"]:
        lx, ly = area["label_at"]
        sx, sy = level.to_squares((lx + 0.5, ly + 0.5))
        seeds.append((sx * FLOOD_PPG, sy * FLOOD_PPG))
    w, h = level.size
    assert leaks(lines, seeds, w * FLOOD_PPG, h * FLOOD_PPG) == 0, what


def _px_seg(
    a: tuple[int, int], b: tuple[int, int], x0: int, y0: int
) -> tuple[tuple[float, float], tuple[float, float]]:
    f = FLOOD_PPG / CELLS_PER_SQUARE
    return (((a[0] - x0) * f, (a[1] - y0) * f), ((b[0] - x0) * f, (b[1] - y0) * f))


@pytest.fixture(scope="module")
def docs() -> list[tuple[str, Doc]]:
    return [
        (f"{rules} seed {seed}", small_doc(rules, seed, size)) for rules, seed, size in _cases()
    ]


def test_uvtt_walls_and_portals_lie_on_the_picture(docs: list[tuple[str, Doc]]) -> None:
    shapes = set()
    portals = 0
    for what, doc in docs:  # all 200 levels
        text, warnings = export_uvtt(doc, 1, ppg=PPG)
        assert warnings == []
        data = json.loads(text)
        res = data["resolution"]
        w, h = res["map_size"]["x"], res["map_size"]["y"]
        assert res["map_origin"] == {"x": 0, "y": 0} and res["pixels_per_grid"] == PPG
        shapes.add("portrait" if h > w else "landscape" if w > h else "square")
        grey = Grey(base64.b64decode(data["image"]))
        assert (grey.width, grey.height) == (w * PPG, h * PPG), what
        points = [p for line in data["line_of_sight"] for p in line]
        points += [p for portal in data["portals"] for p in [portal["position"], *portal["bounds"]]]
        assert all(0 <= p["x"] <= w and 0 <= p["y"] <= h for p in points), what
        segments = []
        covers = _covers(doc, PPG) + _contested(doc, PPG)
        for line in data["line_of_sight"]:
            assert len(line) >= 2, what
            pts = [(p["x"] * PPG, p["y"] * PPG) for p in line]
            for a, b in polyline_segments([pts]):
                _on_ink(grey, a, b, what, covers)
                segments.append((a, b))
        for portal in data["portals"]:
            a, b = ((p["x"] * PPG, p["y"] * PPG) for p in portal["bounds"])
            mid = portal["position"]
            assert (mid["x"] * PPG, mid["y"] * PPG) == pytest.approx(
                ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), abs=1e-3
            )
            _on_door(grey, a, b, what, covers)
            segments.append((a, b))
            portals += 1
        _closed(doc, segments, PPG, what)
    assert shapes >= {"portrait", "landscape"}
    assert portals > 200  # doors were checked, not only walls


def test_foundry_walls_and_doors_lie_on_the_picture(docs: list[tuple[str, Doc]]) -> None:
    kinds = {0: 0, 1: 0, 2: 0}
    for what, doc in docs:  # all 200 levels
        bundle = export_foundry(doc, 1, ppg=PPG)
        scene = json.loads(bundle.scene)
        grey = Grey(bundle.image)
        assert (grey.width, grey.height) == (scene["width"], scene["height"]), what
        assert scene["padding"] == 0
        segments = []
        covers = _covers(doc, PPG) + _contested(doc, PPG)
        for wall in scene["walls"]:
            x0, y0, x1, y1 = wall["c"]
            assert all(0 <= v <= scene["width"] for v in (x0, x1)), what
            assert all(0 <= v <= scene["height"] for v in (y0, y1)), what
            a, b = (float(x0), float(y0)), (float(x1), float(y1))
            kinds[wall["door"]] += 1
            if wall["door"] == 1:
                _on_door(grey, a, b, what, covers)
            else:  # a wall, or a secret door: the players' map draws wall there
                _on_ink(grey, a, b, what, covers)
            segments.append((a, b))
        for note in scene["notes"]:
            assert 0 <= note["x"] <= scene["width"] and 0 <= note["y"] <= scene["height"]
        _closed(doc, segments, PPG, what)
    assert kinds[0] > 0 and kinds[1] > 0
    # The players' scene knows no secret door: what one hides is rock, as on the players'
    # map (issue 15). The game master's scene (--gm) has them, as secret doors (door 2),
    # each on a wall edge its picture draws.
    secret = 0
    for _what, doc in docs[:60]:
        scene = json.loads(export_foundry(doc, 1, ppg=PPG, view="gm").scene)
        secret += sum(1 for wall in scene["walls"] if wall["door"] == 2)
    assert secret > 0
