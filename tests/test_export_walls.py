"""The tabletop walls are the walls the map draws: the polylines of
``TabletopMap.wall_lines`` give the same segments as the SVG's ``walls`` path, in both
views (a guard against the two drifting apart)."""

from __future__ import annotations

import re
from itertools import pairwise

from vtt_support import small_doc

from kerker.dungeon.render_svg import HALF, TabletopMap
from kerker.export.walls import level_walls

Seg = tuple[tuple[float, float], tuple[float, float]]


def _path_segments(d: str) -> set[Seg]:
    out: set[Seg] = set()
    x = y = sx = sy = 0.0
    for op, args in re.findall(r"([MHVLZhv])([^MHVLZhv]*)", d):
        nums = [float(v) for v in args.split()]
        if op == "M":
            x, y = nums
            sx, sy = x, y
            continue
        nx, ny = {
            "H": (nums[0] if nums else 0, y),
            "V": (x, nums[0] if nums else 0),
            "L": tuple(nums) if nums else (x, y),
            "Z": (sx, sy),
            "h": (x + (nums[0] if nums else 0), y),
            "v": (x, y + (nums[0] if nums else 0)),
        }[op]
        if (nx, ny) != (x, y):
            out.add(tuple(sorted([(x, y), (nx, ny)])))  # type: ignore[arg-type]
        x, y = nx, ny
    return out


def test_wall_lines_are_the_drawn_walls() -> None:
    checked = 0
    for rules in ("zufallslabyrinth", "scatola-bianca"):
        for seed in range(12):
            doc = small_doc(rules, seed, (16, 16), max_areas=20)
            for view in ("player", "gm"):
                level = level_walls(doc, 1, view)
                svg = level.map.svg(view, 100, 100)
                d = re.search(r'<path class="walls" d="([^"]*)"', svg)
                assert d is not None
                drawn = _path_segments(d.group(1))
                ours: set[Seg] = set()
                tmap: TabletopMap = level.map
                opening = [
                    i
                    for i in tmap.shown(view)
                    if tmap.connections[i].get("kind") in TabletopMap.OPEN_WALL
                ]
                for line in tmap.wall_lines(opening):
                    for a, b in pairwise(line):
                        pa = (float(a[0] * HALF), float(a[1] * HALF))
                        pb = (float(b[0] * HALF), float(b[1] * HALF))
                        ours.add(tuple(sorted([pa, pb])))  # type: ignore[arg-type]
                assert ours == drawn, (rules, seed, view, ours ^ drawn)
                checked += 1
    assert checked == 48


def test_cave_walls_are_simplified_within_a_tolerance() -> None:
    """A cave's organic wall (many short strokes on the map) reaches a tabletop as fewer,
    longer walls that stay within WALL_TOLERANCE of the map's line, ends kept."""
    import math

    from kerker.dungeon.engine import Params, generate
    from kerker.dungeon.export import to_document
    from kerker.export.walls import WALL_TOLERANCE, simplified
    from kerker.tables.registry import load_registry

    params = Params(rules="scatola-bianca", seed=3, levels=1, caves="always")
    doc = to_document(generate(params, load_registry([])), "en")
    tmap = TabletopMap(doc, 1, "gm")
    lines = [[(x / 4, y / 4) for x, y in line] for line in tmap.wall_lines([])]
    before = after = 0
    for line in lines:
        short = simplified(line)
        assert short[0] == line[0] and short[-1] == line[-1]
        before += len(line)
        after += len(short)
        for px, py in line:
            near = (
                min(_segment_distance((px, py), a, b) for a, b in pairwise(short))
                if len(short) > 1
                else math.hypot(px - short[0][0], py - short[0][1])
            )
            assert near <= WALL_TOLERANCE + 1e-9
    assert after * 5 < before * 4, (before, after)  # the map line is thinned already


def _segment_distance(
    p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]
) -> float:
    import math

    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2
    t = max(0.0, min(1.0, t))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)
