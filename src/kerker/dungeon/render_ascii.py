"""A terminal preview of one level: one character per 5-ft cell, pure function of the JSON
document (docs/dungeon-json.md).

``.`` floor, ``#`` wall, ``+`` door, ``S`` secret door (GM view; wall for players), ``>``
one-way door, ``'`` archway or opening, ``<``/``v`` stairs up/down, ``T`` trapdoor, ``O``
shaft, ``~`` water, ``o`` well, ``=`` bridge, area numbers at their label cells.
"""

from __future__ import annotations

from typing import Any

WAYS = {"trapdoor": "T", "shaft": "O"}
DOORS = {"door": "+", "one_way_door": ">", "archway": "'", "opening": "'"}
FEATURES = {"water": "~", "pool": "~", "lake": "~", "river": "~", "stream": "~",
            "chasm": ":", "bridge": "=", "well": "o"}


def render_level(level: dict[str, Any], view: str = "gm") -> str:
    """One level as text lines, cropped to the cells in use plus a wall's width."""
    floor: dict[tuple[int, int], str] = {}
    for area in level["areas"]:
        for x, y in area["cells"]:
            floor[(x, y)] = "."
        for feature in area["features"]:
            mark = FEATURES.get(feature["kind"])
            if mark:
                for x, y in feature["cells"]:
                    floor[(x, y)] = mark
    if not floor:
        return ""
    grid: dict[tuple[int, int], str] = dict(floor)
    for x, y in floor:
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                grid.setdefault((x + dx, y + dy), "#")
    for conn in level["connections"]:
        x, y = conn["at"]
        kind = conn["kind"]
        if kind == "secret_door":
            mark = "S" if view == "gm" else "#"
            side = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0)}.get(conn["side"])
            if side and view == "gm":
                grid[(x + side[0], y + side[1])] = mark
            continue
        if kind == "stairs":
            mark = "<" if conn["direction"] == "up" else "v"
        else:
            mark = WAYS.get(kind, "")
        if mark:
            grid[(x, y)] = mark
            continue
        side = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0)}.get(conn["side"])
        if side is None:
            continue
        across = (x + side[0], y + side[1])
        if grid.get(across) == "#":
            grid[across] = DOORS.get(kind, "+")
        else:
            grid[(x, y)] = DOORS.get(kind, "+")
    for area in level["areas"]:
        x, y = area["label_at"]
        for i, ch in enumerate(str(area["number"])):
            grid[(x + i, y)] = ch
    xs = [c[0] for c in grid]
    ys = [c[1] for c in grid]
    rows = []
    for y in range(min(ys), max(ys) + 1):
        rows.append("".join(grid.get((x, y), " ") for x in range(min(xs), max(xs) + 1))
                    .rstrip())
    return "\n".join(rows)


def render_ascii(doc: dict[str, Any], view: str = "gm", lang: str | None = None) -> str:
    """Every level of the document, each under a heading line in ``lang`` (default: the
    document's language)."""
    from kerker.i18n import translator

    _ = translator(lang or str(doc.get("lang") or "en"))
    out = []
    for level in doc["levels"]:
        heading = _("{rules} – seed {seed} – level {depth}").format(
            rules=doc["rules"], seed=doc["seed"], depth=level["depth"])
        out.append(f"== {heading} ==")
        out.append(render_level(level, view))
        out.append("")
    return "\n".join(out)
