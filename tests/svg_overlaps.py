"""Overlaps measured from a dungeon map's SVG itself (issue 15): the labels' boxes from the
fonts' real advance widths (kerker.render.metrics reads them from the font files), the
symbols' boxes from their drawn rectangles and paths, the walls from the walls path.

Reports every pair of a label (area number, stair/shaft mark, "?", secret "S", entrance
star, trap mark) with another label or a door/stair/exit symbol, and every label on a wall
line (the secret "S" stands on its wall by design); and walls drawn where no wall belongs
(:func:`loose_walls`)."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from itertools import pairwise

from kerker.render.metrics import text_width

Box = tuple[float, float, float, float]
NS = "{http://www.w3.org/2000/svg}"
LABELS = ("number", "level-mark", "unexplored-mark", "secret")
ASCENT, DESCENT = 0.70, 0.04  # digits, capitals, arrows, "?" of Source Sans/Serif
_TOKEN = re.compile(r"[MmHhVvLlZz]|-?\d+(?:\.\d+)?")


def _transform(text: str) -> tuple[float, float, float]:
    move = re.search(r"translate\((-?[\d.]+)[ ,](-?[\d.]+)\)", text or "")
    turn = re.search(r"rotate\((-?[\d.]+)\)", text or "")
    x, y = (float(move.group(1)), float(move.group(2))) if move else (0.0, 0.0)
    return x, y, float(turn.group(1)) if turn else 0.0


def path_points(d: str) -> Iterator[list[tuple[float, float]]]:
    """Each subpath of a path (M, L, H, V absolute or relative, Z) as its points."""
    tokens = _TOKEN.findall(d)
    x = y = 0.0
    cur: list[tuple[float, float]] = []
    i = 0
    cmd = "M"
    while i < len(tokens):
        if tokens[i].isalpha():
            cmd = tokens[i]
            i += 1
            if cmd in "Zz":
                if cur:
                    cur.append(cur[0])
                continue
        if cmd in "Mm":
            if cur:
                yield cur
            dx, dy = float(tokens[i]), float(tokens[i + 1])
            x, y = (x + dx, y + dy) if cmd == "m" else (dx, dy)
            cur = [(x, y)]
            i += 2
            cmd = "l" if cmd == "m" else "L"
        elif cmd in "Ll":
            dx, dy = float(tokens[i]), float(tokens[i + 1])
            x, y = (x + dx, y + dy) if cmd == "l" else (dx, dy)
            cur.append((x, y))
            i += 2
        elif cmd in "Hh":
            x = x + float(tokens[i]) if cmd == "h" else float(tokens[i])
            cur.append((x, y))
            i += 1
        elif cmd in "Vv":
            y = y + float(tokens[i]) if cmd == "v" else float(tokens[i])
            cur.append((x, y))
            i += 1
        else:
            i += 1
    if cur:
        yield cur


def _turned(points: list[tuple[float, float]], x: float, y: float, angle: float) -> Box:
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    xs = [x + px * c - py * s for px, py in points]
    ys = [y + px * s + py * c for px, py in points]
    return min(xs), min(ys), max(xs), max(ys)


def _shape_points(el: ET.Element) -> list[list[tuple[float, float]]]:
    """The corner pairs of each piece a shape draws (a path: each subpath)."""
    tag = el.tag.replace(NS, "")
    pad = float(el.get("stroke-width") or 0) / 2
    if tag == "rect":
        x, y = float(el.get("x", 0)), float(el.get("y", 0))
        w, h = float(el.get("width", 0)), float(el.get("height", 0))
        return [[(x - pad, y - pad), (x + w + pad, y + h + pad)]]
    if tag == "circle":
        cx, cy, r = float(el.get("cx", 0)), float(el.get("cy", 0)), float(el.get("r", 0))
        return [[(cx - r - pad, cy - r - pad), (cx + r + pad, cy + r + pad)]]
    if tag == "path":
        out = []
        for sub in path_points(el.get("d", "")):
            xs, ys = [p[0] for p in sub], [p[1] for p in sub]
            out.append([(min(xs) - pad, min(ys) - pad), (max(xs) + pad, max(ys) + pad)])
        return out
    return []


def _corners(pts: list[tuple[float, float]]) -> list[tuple[float, float]]:
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return [(min(xs), min(ys)), (max(xs), min(ys)), (min(xs), max(ys)), (max(xs), max(ys))]


def measure(svg: str) -> dict[str, list[tuple[str, str]]]:
    """Every collision on a map: ``{"labels": [(a, b), ...], "walls": [(a, ""), ...],
    "legend": [(a, b), ...]}`` (legend: :func:`_legend_overlaps`)."""
    root = ET.fromstring(svg)
    group = next(g for g in root.iter(NS + "g") if g.get("class") == "map")
    labels: list[tuple[str, Box]] = []
    symbols: list[tuple[str, Box]] = []
    walls: list[tuple[float, float, float, float]] = []
    for el in group.iter():
        cls = el.get("class") or ""
        tag = el.tag.replace(NS, "")
        if tag == "text" and cls in LABELS:
            size = float(el.get("font-size", 12))
            family = "serif" if "Serif" in (el.get("font-family") or "") else "sans"
            text = el.text or ""
            w = text_width(text, size, family=family, bold=el.get("font-weight") == "bold")
            x, y = float(el.get("x", 0)), float(el.get("y", 0))
            labels.append(
                (f"{cls} {text!r}", (x - w / 2, y - size * ASCENT, x + w / 2, y + size * DESCENT))
            )
        elif tag == "g" and (cls.startswith("conn ") or cls in ("unexplored", "blocked")):
            if cls in ("conn secret_door", "conn elevator"):
                continue  # the S is drawn on it; the platform is the room's floor
            x, y, angle = _transform(el.get("transform", ""))
            for child in el:
                for pts in _shape_points(child):
                    symbols.append((cls, _turned(_corners(pts), x, y, angle)))
        elif tag == "g" and cls == "trap":
            x, y, _a = _transform(el.get("transform", ""))
            labels.append(("trap", (x - 7, y - 6.5, x + 7, y + 5.5)))
        elif tag == "polygon" and cls == "entrance":
            pts = [tuple(map(float, p.split(","))) for p in (el.get("points") or "").split()]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            labels.append(("entrance", (min(xs), min(ys), max(xs), max(ys))))
        elif tag == "path" and cls == "walls":
            for sub in path_points(el.get("d", "")):
                for (x1, y1), (x2, y2) in pairwise(sub):
                    walls.append((x1, y1, x2, y2))
    found: dict[str, list[tuple[str, str]]] = {"labels": [], "walls": [], "legend": []}
    found["legend"] = _legend_overlaps(root)
    for i, (name, box) in enumerate(labels):
        for other, obox in labels[i + 1 :] + symbols:
            if _meet(box, obox):
                found["labels"].append((name, other))
        if name.startswith("secret"):
            continue
        for seg in walls:
            if _cuts(box, seg, 1.6):
                found["walls"].append((name, ""))
                break
    return found


def _element_boxes(el: ET.Element, x: float, y: float, angle: float) -> list[Box]:
    """The boxes an element of the legend draws (groups followed through their transform,
    text from the font's advance widths)."""
    tag = el.tag.replace(NS, "")
    if tag == "g":
        gx, gy, turn = _transform(el.get("transform", ""))
        c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        ox, oy = x + gx * c - gy * s, y + gx * s + gy * c
        return [b for child in el for b in _element_boxes(child, ox, oy, angle + turn)]
    if tag == "text":
        size = float(el.get("font-size", 12))
        family = "serif" if "Serif" in (el.get("font-family") or "") else "sans"
        text = el.text or ""
        w = text_width(text, size, family=family, bold=el.get("font-weight") == "bold")
        tx, ty = float(el.get("x", 0)) + x, float(el.get("y", 0)) + y
        left = tx - w / 2 if el.get("text-anchor") == "middle" else tx
        # the legend's words have descenders (g, p, y): a quarter of the size below
        return [(left, ty - size * ASCENT, left + w, ty + size * 0.25)]
    return [_turned(_corners(pts), x, y, angle) for pts in _shape_points(el)]


def _legend_overlaps(root: ET.Element) -> list[tuple[str, str]]:
    """Legend entries (symbol and text) that meet another entry, or the map's frame."""
    items: list[tuple[str, Box]] = []
    for g in root.iter(NS + "g"):
        if g.get("class") == "legend-item":
            symbol = [
                b for child in g if child.tag != NS + "text" for b in _element_boxes(child, 0, 0, 0)
            ]
            texts = [
                b for child in g if child.tag == NS + "text" for b in _element_boxes(child, 0, 0, 0)
            ]
            key = g.get("data-key") or "?"
            items += [(f"{key} symbol", _union(symbol))] if symbol else []
            items += [(f"{key} text", t) for t in texts]
    found = [
        (a, b)
        for i, (a, box) in enumerate(items)
        for b, other in items[i + 1 :]
        if a.split()[0] != b.split()[0] and _meet(box, other)
    ]
    # the map: the frame around it (a rect with no fill, drawn after the map group)
    frame = next(
        (r for r in root.iter(NS + "rect") if r.get("fill") == "none" and r.get("stroke")),
        None,
    )
    if frame is not None:
        fx, fy = float(frame.get("x", 0)), float(frame.get("y", 0))
        box = (fx, fy, fx + float(frame.get("width", 0)), fy + float(frame.get("height", 0)))
        found += [(a, "map") for a, b in items if _meet(b, box)]
    return found


def _union(boxes: list[Box]) -> Box:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _meet(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _cuts(box: Box, seg: tuple[float, float, float, float], pad: float) -> bool:
    """Whether a wall segment of half width ``pad`` meets ``box`` (the segment clipped to
    the box grown by ``pad``, Liang-Barsky)."""
    x0, y0, x1, y1 = box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad
    ax, ay, bx, by = seg
    if max(ax, bx) <= x0 or min(ax, bx) >= x1 or max(ay, by) <= y0 or min(ay, by) >= y1:
        return False
    t0, t1 = 0.0, 1.0
    dx, dy = bx - ax, by - ay
    for p, q in ((-dx, ax - x0), (dx, x1 - ax), (-dy, ay - y0), (dy, y1 - ay)):
        if p == 0:
            if q <= 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 >= t1:
            return False
    return True


Cell = tuple[int, int]
Edge = tuple[tuple[float, float], tuple[float, float]]


def wall_units(svg: str, cell: float) -> list[Edge]:
    """The walls path's segments (map pixels), the ones on grid lines split at every
    cell edge."""
    out: list[Edge] = []
    for el in ET.fromstring(svg).iter(NS + "path"):
        if el.get("class") != "walls":
            continue
        for sub in path_points(el.get("d", "")):
            for (x1, y1), (x2, y2) in pairwise(sub):
                grid = all(v % cell == 0 for v in (x1, y1, x2, y2))
                if grid and (x1 == x2) != (y1 == y2):
                    lo, hi = sorted((x1, x2) if y1 == y2 else (y1, y2))
                    for k in range(int(lo // cell), int(hi // cell)):
                        if y1 == y2:
                            out.append(((k * cell, y1), ((k + 1) * cell, y1)))
                        else:
                            out.append(((x1, k * cell), (x1, (k + 1) * cell)))
                elif (x1, y1) != (x2, y2):
                    out.append(((x1, y1), (x2, y2)))
    return out


def _sides(edge: Edge, cell: float) -> tuple[Cell, Cell] | None:
    """The two cells a grid-line unit edge lies between (None for any other segment)."""
    (x1, y1), (x2, y2) = edge
    if not all(v % cell == 0 for v in (x1, y1, x2, y2)):
        return None
    if y1 == y2 and abs(x2 - x1) == cell:
        x, y = int(min(x1, x2) // cell), int(y1 // cell)
        return (x, y - 1), (x, y)
    if x1 == x2 and abs(y2 - y1) == cell:
        x, y = int(x1 // cell), int(min(y1, y2) // cell)
        return (x - 1, y), (x, y)
    return None


def loose_walls(svg: str, floor: set[Cell], leaves: list[Edge], cell: float) -> dict[str, list]:
    """Walls that do not belong where they are drawn (issue 15, "no floating wall
    segments"): ``rock`` — a wall unit on a grid line with rock on both sides (a wall in
    rock alone); ``free`` — a run of walls between two areas joined to no wall with rock
    behind it, directly or through a door leaf (``leaves``: the edges of the doors drawn), so
    that it stands free in the floor. Smoothed (slanted) sides have rock behind them."""
    units = wall_units(svg, cell)
    parent: dict[tuple[float, float], tuple[float, float]] = {}

    def root(p: tuple[float, float]) -> tuple[float, float]:
        while parent.setdefault(p, p) != p:
            p = parent[p]
        return p

    for a, b in units + leaves:
        parent[root(a)] = root(b)
    found: dict[str, list] = {"rock": [], "free": []}
    held = set()
    for edge in units:
        sides = _sides(edge, cell)
        if sides is None or not (sides[0] in floor and sides[1] in floor):
            held.add(root(edge[0]))
        if sides is not None and sides[0] not in floor and sides[1] not in floor:
            found["rock"].append(edge)
    found["free"] = [edge for edge in units if root(edge[0]) not in held]
    return found
