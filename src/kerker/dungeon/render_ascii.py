"""A terminal preview of one level: one character per 5-ft cell, pure function of the JSON
document (docs/dungeon-json.md).

``.`` floor, ``#`` wall, ``+`` door, ``S`` secret door (GM view; wall for players), ``>``
one-way door, ``'`` archway or opening, ``<``/``v`` stairs up/down, ``T`` trapdoor, ``O``
shaft, ``E`` an elevator room's way (what is GM-only is left out for players), ``~``
water, ``o`` well, ``=`` bridge, area numbers at their label cells (a way under a number
moves beside it).

Walls against rock take the rock cells beside the floor (``#``). Two areas that touch have
their wall on the edge between two floor cells, where one character per cell has no room:
it is drawn on the cells along one side of that edge, ``|`` between areas side by side,
``-`` between areas one above the other, on the side of the area that is the wider there
(the longer run of its cells across the edge's direction), so that a corridor one cell wide
beside a room keeps its floor; a door, opening or secret door through that wall is drawn
on the same cell, in the wall's line.
"""

from __future__ import annotations

from typing import Any

WAYS = {"trapdoor": "T", "shaft": "O", "elevator": "E"}
DOORS = {"door": "+", "one_way_door": ">", "archway": "'", "opening": "'"}
FEATURES = {
    "water": "~",
    "pool": "~",
    "lake": "~",
    "river": "~",
    "stream": "~",
    "chasm": ":",
    "bridge": "=",
    "well": "o",
}


_NOT_UNDER_A_NUMBER = set("+'>S|-")  # doors and walls between areas (ways come later)
_SIDES = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0)}
Cell = tuple[int, int]


def _seams(level: dict[str, Any]) -> dict[frozenset[Cell], tuple[Cell, str]]:
    """The walls between areas that touch: for each edge between two floor cells of
    different areas, the cell of the two that shows it and its mark (``|`` or ``-``)."""
    owner: dict[Cell, int] = {}
    for i, area in enumerate(level["areas"]):
        for x, y in area["cells"]:
            owner[(x, y)] = i

    def run(cell: Cell, dx: int, dy: int) -> int:
        """How many cells of the area of ``cell`` lie in a row with it along (dx, dy)."""
        n, who = 1, owner[cell]
        for sign in (1, -1):
            x, y = cell[0] + sign * dx, cell[1] + sign * dy
            while owner.get((x, y)) == who:
                n += 1
                x, y = x + sign * dx, y + sign * dy
        return n

    out: dict[frozenset[Cell], tuple[Cell, str]] = {}
    for (x, y), who in owner.items():
        for (dx, dy), mark in (((1, 0), "|"), ((0, 1), "-")):
            other = (x + dx, y + dy)
            if owner.get(other, who) == who:
                continue
            # the wall goes on the side that is wider across the edge (a corridor one cell
            # wide beside a room keeps its floor); west or north on a tie
            here = run((x, y), dx, dy)
            there = run(other, dx, dy)
            out[frozenset(((x, y), other))] = ((x, y) if here >= there else other, mark)
    return out


def _label_spot(area: dict[str, Any], grid: dict[Cell, str], labels: set[Cell]) -> Cell:
    """Where an area's number starts: its label cell when the number fits there, else the
    nearest cell of the area where it does. It fits where every digit lies on the area's own
    plain floor (not a door, wall, water or another number) and the cells just before and
    after it are no digits of another number, so two numbers never run together
    ("3241"). An area narrower than its number lets the number run on into the rock beside
    it; with no such cell at all, the label cell."""
    text = str(area["number"])
    own = {(c[0], c[1]) for c in area["cells"]}
    lx, ly = area["label_at"]

    def fits(x: int, y: int, reach: int) -> bool:
        if (x, y) not in own:
            return False
        if reach < 3 and ((x - 1, y) in labels or (x + len(text), y) in labels):
            return False
        for i in range(len(text)):
            cell = (x + i, y)
            mark = grid.get(cell, " ")
            if cell in labels or mark in _NOT_UNDER_A_NUMBER:
                return False
            if (cell in own and mark == ".") or (reach >= 1 and mark == "#") or reach >= 2:
                continue
            return False
        return True

    near = sorted(own, key=lambda c: ((c[0] - lx) ** 2 + (c[1] - ly) ** 2, c[1], c[0]))
    # First on the area's own floor; an area too narrow for its number (a corridor one
    # square wide) lets it run on into the rock beside it, then over whatever is beside it
    # but a door, a wall between two areas or another number; then even without a gap to
    # the next number (tiny areas side by side), rather than over a door.
    for reach in (0, 1, 2, 3):
        for cx, cy in near:
            if fits(cx, cy, reach):
                return (cx, cy)
    return (lx, ly)


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
    # Walls: the cells next to a floor (diagonals included) that are not floor themselves.
    cells = floor.keys()
    # Grow the floor by one row, then by one column (the eight neighbours in two passes).
    tall = set(cells)
    for x, y in cells:
        tall.add((x, y - 1))
        tall.add((x, y + 1))
    ring = set(tall)
    for x, y in tall:
        ring.add((x - 1, y))
        ring.add((x + 1, y))
    grid: dict[tuple[int, int], str] = dict.fromkeys(ring - cells, "#")
    grid.update(floor)
    seams = _seams(level)
    for cell, mark in seams.values():
        grid[cell] = mark
    ways: list[tuple[tuple[int, int], str]] = []
    for conn in level["connections"]:
        x, y = conn["at"]
        kind = conn["kind"]
        if view != "gm" and conn.get("gm_only") and kind != "secret_door":
            continue
        side = _SIDES.get(conn["side"])
        seam = seams.get(frozenset(((x, y), (x + side[0], y + side[1])))) if side else None
        if kind == "secret_door":
            if side and view == "gm":
                grid[seam[0] if seam else (x + side[0], y + side[1])] = "S"
            continue
        if kind == "stairs":
            mark = "<" if conn["direction"] == "up" else "v"
        else:
            mark = WAYS.get(kind, "")
        if mark:
            ways.append(((x, y), mark))
            continue
        if side is None:
            continue
        across = (x + side[0], y + side[1])
        if seam is not None:
            grid[seam[0]] = DOORS.get(kind, "+")  # in the line of the wall between the two
        elif grid.get(across) == "#":
            grid[across] = DOORS.get(kind, "+")
        else:
            grid[(x, y)] = DOORS.get(kind, "+")
    labels: set[tuple[int, int]] = set()
    # The smallest areas choose first: a big one has room to move its number aside.
    for area in sorted(level["areas"], key=lambda a: (len(a["cells"]), a["number"])):
        x, y = _label_spot(area, grid, labels)
        for i, ch in enumerate(str(area["number"])):
            grid[(x + i, y)] = ch
            labels.add((x + i, y))
    # Stairs, trapdoors, shafts and elevators after the numbers: one that lies under a
    # number moves to the nearest free floor cell beside it.
    for (x, y), mark in ways:
        spot = (x, y)
        if spot in labels:
            spot = next(
                (
                    c
                    for c in (
                        (x, y + 1),
                        (x, y - 1),
                        (x - 1, y),
                        (x + 1, y),
                        (x - 1, y + 1),
                        (x + 1, y + 1),
                        (x - 1, y - 1),
                        (x + 1, y - 1),
                    )
                    if c not in labels and floor.get(c) == "."
                ),
                spot,
            )
        if spot not in labels:
            grid[spot] = mark
    xs = [c[0] for c in grid]
    ys = [c[1] for c in grid]
    x0, y0 = min(xs), min(ys)
    width = max(xs) - x0 + 1
    canvas = [[" "] * width for _y in range(max(ys) - y0 + 1)]
    for (x, y), ch in grid.items():
        canvas[y - y0][x - x0] = ch
    return "\n".join("".join(row).rstrip() for row in canvas)


def render_ascii(doc: dict[str, Any], view: str = "gm", lang: str | None = None) -> str:
    """Every level of the document, each under a heading line in ``lang`` (default: the
    document's language); ``view="player"`` shows only what the players can know
    (:mod:`kerker.dungeon.player`)."""
    from kerker.dungeon.player import player_areas, player_level
    from kerker.dungeon.render_svg import rules_name
    from kerker.i18n import translator

    _ = translator(lang or str(doc.get("lang") or "en"))
    out = []
    known = player_areas(doc) if view != "gm" else frozenset()
    for level in doc["levels"]:
        heading = _("{rules} – seed {seed} – level {depth}").format(
            rules=rules_name(str(doc["rules"])), seed=doc["seed"], depth=level["depth"]
        )
        out.append(f"== {heading} ==")
        shown = level if view == "gm" else dict(player_level(level, known))
        out.append(render_level(shown, view))
        out.append("")
    return "\n".join(out)
