"""Zone maps (seed 002) as Universal VTT: the areas as rooms, open connections as short
passages with a door (portal) in the middle, hidden connections as wall.

One grid square is one node of the zone map (the map is abstract: it has no feet). The
picture is the zone map's own drawing (:func:`kerker.zones.render_svg.render_svg`) cut to
its nodes, ``width x height`` squares, without title and legend; the players' map unless
the game master's is asked for (hidden connections are wall in both: a game master opens
them by hand once found). Walls: every area's outline; where an open connection crosses
the gap between two areas, both outlines open for a quarter node and two walls along the
connection's line join them, so the passage is closed to the rock on both sides.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Sequence

from kerker.errors import N_, OptionError
from kerker.export.image import IMAGE_FORMATS, MAX_SIDE, PPG_DEFAULT, fit_ppg, pixel_limit
from kerker.export.uvtt import AMBIENT, FORMAT
from kerker.i18n import translator
from kerker.zones.model import ZoneMap

XY = tuple[float, float]
PASSAGE = 0.25
"""Width of a connection's passage, in nodes (the drawn line is 7 of 84 px; its opening
a quarter node: a door)."""


def _layout_rings(zmap: ZoneMap) -> tuple[list[list[XY]], float, float]:
    """Every area's outline as closed rings in the zone renderer's pixels (node (0, 0) at
    the origin), and the renderer's node pitch and inset."""
    from kerker.zones import render_svg as zr

    lay = zr._Layout(zmap, 0, 0)
    rings: list[list[XY]] = []
    for area in zmap.areas:
        for part in re.findall(r"M ([^Z]+) Z", lay.outline(area)):
            numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", part)]
            rings.append(list(zip(numbers[::2], numbers[1::2], strict=True)))
    return rings, float(zr.PITCH), float(zr.INSET)


def _cut_ring(ring: Sequence[XY], cuts: Sequence[tuple[XY, float]]) -> list[list[XY]]:
    """A closed ring without the openings ``cuts`` (a point on one of its sides and a half
    width), as the polylines that remain (the ring closed when nothing cuts it)."""
    points = list(ring)
    gaps: set[tuple[XY, XY]] = set()
    for (px, py), half in cuts:
        for i in range(len(points)):
            (ax, ay), (bx, by) = points[i], points[(i + 1) % len(points)]
            on_x = ax == bx == px and min(ay, by) <= py <= max(ay, by)
            on_y = ay == by == py and min(ax, bx) <= px <= max(ax, bx)
            if not (on_x or on_y):
                continue
            sx = (bx > ax) - (bx < ax)
            sy = (by > ay) - (by < ay)
            first, second = (px - sx * half, py - sy * half), (px + sx * half, py + sy * half)
            points[i + 1 : i + 1] = [first, second]
            gaps.add((first, second))
            break
    if not gaps:
        return [[*points, points[0]]]
    n = len(points)
    start = next(i for i in range(n) if (points[i], points[(i + 1) % n]) in gaps) + 1
    out: list[list[XY]] = []
    run: list[XY] = []
    for k in range(n):
        i = (start + k) % n
        a, b = points[i], points[(i + 1) % n]
        if (a, b) in gaps:
            if run:
                out.append(run)
            run = []
            continue
        if not run:
            run = [a]
        run.append(b)
    if run:
        out.append(run)
    return out


def zones_uvtt(
    zmap: ZoneMap,
    *,
    ppg: int = PPG_DEFAULT,
    view: str = "player",
    image_format: str = "png",
    lang: str = "en",
) -> tuple[str, list[str]]:
    """The zone map as ``.dd2vtt`` text (one square per node, ``ppg`` pixels each), and
    the warnings to show (a picture drawn smaller than asked). Same map and options -> the
    same bytes. Refuses an unknown view or picture format and ``ppg`` outside 8-200 with
    :class:`OptionError`; pictures the renderer cannot draw with a ``RenderError``."""
    from kerker.render.png import png_to_webp, svg_to_png
    from kerker.zones import render_svg as zr

    if view not in zr.VIEWS:
        raise OptionError(
            N_("unknown view {view!r}; choose one of {choices}"),
            view=view,
            choices=", ".join(zr.VIEWS),
        )
    if image_format not in IMAGE_FORMATS:
        raise OptionError(
            N_("unknown picture format {value!r}; choose one of {choices}"),
            value=image_format,
            choices=", ".join(IMAGE_FORMATS),
        )
    w, h = zmap.width, zmap.height
    used = fit_ppg((w, h), ppg)
    _ = translator(lang)
    warnings = (
        []
        if used == ppg
        else [
            _(
                "level {depth}: {w} × {h} squares at {asked} px per square would exceed "
                "{side} px a side or {mp} megapixels; drawn at {used} px per square"
            ).format(
                depth=1,
                w=w,
                h=h,
                asked=ppg,
                side=MAX_SIDE,
                mp=pixel_limit() // 1_000_000,
                used=used,
            )
        ]
    )
    rings, pitch, inset = _layout_rings(zmap)

    def node(p: XY) -> XY:
        return (p[0] / pitch, p[1] / pitch)

    # Open connections: an opening in both outlines, walls along the passage, a door.
    half = PASSAGE / 2 * pitch
    cuts: list[tuple[XY, float]] = []
    extra: list[list[XY]] = []
    portals = []
    lay = zr._Layout(zmap, 0, 0)
    for link in zmap.connections:
        if link.hidden:
            continue
        x1, y1, x2, y2 = (float(v) for v in lay.link(*link.edge))
        cuts += [((x1, y1), half), ((x2, y2), half)]
        across = (0.0, half) if y1 == y2 else (half, 0.0)
        for sign in (-1, 1):
            extra.append(
                [
                    (x1 + sign * across[0], y1 + sign * across[1]),
                    (x2 + sign * across[0], y2 + sign * across[1]),
                ]
            )
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        a, b = node((mx - across[0], my - across[1])), node((mx + across[0], my + across[1]))
        portals.append(
            {
                "position": _xy(node((mx, my))),
                "bounds": [_xy(a), _xy(b)],
                "rotation": 0.0 if across[0] else 1.570796,
                "closed": True,
                "freestanding": False,
            }
        )
    lines = [line for ring in rings for line in _cut_ring(ring, cuts)] + extra

    # The picture: the zone map's drawing cut to its nodes.
    svg = zr.render_svg(zmap, view=view, lang=lang)
    found = re.match(r'<svg [^>]*width="(\d+)" height="(\d+)" viewBox="[^"]*">', svg)
    if found is None:  # the renderer's head changed: nothing to cut
        raise OptionError(N_("cannot cut the zone map's picture"))
    width = int(found.group(1))
    map_w = w * pitch - 2 * inset
    ox = (width - map_w) // 2 - inset  # as the renderer places node (0, 0)
    oy = zr.TITLE_H - inset
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * used}" '
        f'height="{h * used}" viewBox="{ox:g} {oy:g} {w * pitch:g} {h * pitch:g}" '
        'preserveAspectRatio="none">'
    )
    data = svg_to_png(head + svg[found.end() :], scale=1.0, width=w * used, height=h * used)
    if image_format == "webp":
        data = png_to_webp(data)
    doc = {
        "format": FORMAT,
        "resolution": {
            "map_origin": {"x": 0, "y": 0},
            "map_size": {"x": w, "y": h},
            "pixels_per_grid": used,
        },
        "line_of_sight": [[_xy(node(p)) for p in line] for line in lines],
        "objects_line_of_sight": [],
        "portals": portals,
        "environment": {"baked_lighting": True, "ambient_light": AMBIENT},
        "lights": [],
        "image": base64.b64encode(data).decode("ascii"),
    }
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n", warnings


def _xy(point: XY) -> dict[str, float]:
    return {"x": round(point[0], 4), "y": round(point[1], 4)}


__all__ = ["PASSAGE", "zones_uvtt"]
