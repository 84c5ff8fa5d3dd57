"""A zone map for the terminal: a grid drawn with box characters, and the list of areas.

The grid draws a wall wherever two different areas (or an area and the outside) meet;
zones of one area have no wall between them. On a wall, ``═`` (across a vertical wall)
and ``║`` (across a horizontal one) mark an open connection, ``?`` a hidden one (game
master view only; on empty nodes, a hidden way across them); ``*`` marks the suggested
start, ``·`` an empty node.
"""

from __future__ import annotations

from kerker.errors import N_
from kerker.i18n import translator
from kerker.zones.model import Point, ZoneMap

CELL = 4  # characters per node horizontally (3 inside, 1 wall)

_JUNCTIONS = {
    # (up, down, left, right) -> character
    (False, False, False, False): " ",
    (True, True, False, False): "│",
    (False, False, True, True): "─",
    (True, False, False, False): "│",
    (False, True, False, False): "│",
    (False, False, True, False): "─",
    (False, False, False, True): "─",
    (True, False, True, False): "┘",
    (True, False, False, True): "└",
    (False, True, True, False): "┐",
    (False, True, False, True): "┌",
    (True, True, True, False): "┤",
    (True, True, False, True): "├",
    (True, False, True, True): "┴",
    (False, True, True, True): "┬",
    (True, True, True, True): "┼",
}


def _wall(zmap: ZoneMap, one: Point, two: Point) -> bool:
    a, b = zmap.area_at(one), zmap.area_at(two)
    return a != b


def grid_lines(zmap: ZoneMap, *, hidden: bool = True, start: bool = True) -> list[str]:
    """The map as lines of box characters, one node 4 characters wide and 2 lines high.

    ``hidden=False`` leaves hidden connections out (what the players may see).
    """
    w, h = zmap.width, zmap.height
    rows = [[" "] * (w * CELL + 1) for _ in range(h * 2 + 1)]
    for j in range(h + 1):
        for i in range(w + 1):
            up = j > 0 and _wall(zmap, (i - 1, j - 1), (i, j - 1))
            down = j < h and _wall(zmap, (i - 1, j), (i, j))
            left = i > 0 and _wall(zmap, (i - 1, j - 1), (i - 1, j))
            right = i < w and _wall(zmap, (i, j - 1), (i, j))
            rows[2 * j][CELL * i] = _JUNCTIONS[(up, down, left, right)]
            if right:
                for k in range(1, CELL):
                    rows[2 * j][CELL * i + k] = "─"
            if down:
                rows[2 * j + 1][CELL * i] = "│"
    for y in range(h):
        for x in range(w):
            if zmap.grid[y][x] is None:
                rows[2 * y + 1][CELL * x + 2] = "·"
    for area in zmap.areas:
        x, y = area.label
        text = area.letter
        if start and area.letter == zmap.start:
            text = "*" + text
        text = text.center(CELL - 1)
        for k, char in enumerate(text):
            rows[2 * y + 1][CELL * x + 1 + k] = char
    for link in zmap.connections:
        if link.hidden and not hidden:
            continue
        if link.via:  # a hidden way across empty nodes: marked on the nodes it crosses
            for x, y in link.via:
                rows[2 * y + 1][CELL * x + 2] = "?"
            continue
        (ax, ay), (bx, by) = sorted(link.edge, key=lambda p: (p[1], p[0]))
        if ay == by:  # side by side: the wall between them is vertical
            rows[2 * ay + 1][CELL * bx] = "?" if link.hidden else "═"
        else:  # one above the other: a horizontal wall
            rows[2 * by][CELL * ax + 2] = "?" if link.hidden else "║"
    return ["".join(r).rstrip() for r in rows]


def _names(letters: list[str] | tuple[str, ...]) -> str:
    return ", ".join(letters) if letters else "–"


def summary(zmap: ZoneMap, lang: str) -> str:
    """A readable terminal summary: title line, grid, key, area list, start, seed hint."""
    _ = translator(lang)
    out = [title_line(zmap, lang), ""]
    out += ["  " + line for line in grid_lines(zmap)]
    out += [
        "",
        "  " + _("═ ║ connection   ? hidden connection   * suggested start   · empty node"),
        "",
    ]
    names = {a.letter: (a.details.name.text(lang) if a.details else "—") for a in zmap.areas}
    wide_letter = max([len(a.letter) for a in zmap.areas] + [1])
    head_name, head_zones = _("Name"), _("Zones")
    head_open, head_hidden = _("Connections"), _("Hidden")
    wide_name = max([len(n) for n in names.values()] + [len(head_name)])
    wide_zones = max(len(head_zones), 3)
    wide_open = max([len(head_open)] + [len(_names(zmap.linked(a.letter))) for a in zmap.areas])
    out.append(
        f"{'':<{wide_letter}}  {head_name:<{wide_name}}  {head_zones:>{wide_zones}}  "
        f"{head_open:<{wide_open}}  {head_hidden}"
    )
    for area in zmap.areas:
        opened = _names(zmap.linked(area.letter))
        hidden = _names(zmap.linked(area.letter, hidden=True))
        out.append(
            f"{area.letter:<{wide_letter}}  {names[area.letter]:<{wide_name}}  "
            f"{len(area.zones):>{wide_zones}}  {opened:<{wide_open}}  {hidden}".rstrip()
        )
    out.append("")
    out += notes(zmap, lang)
    return "\n".join(out)


def title_line(zmap: ZoneMap, lang: str) -> str:
    """``Zone map · seed 42 · sci-fi · 5 × 5 nodes (rolled) · 12 zones · 7 areas``."""
    _ = translator(lang)
    parts = [_("Zone map")]
    if zmap.seed is not None:
        parts.append(_("seed {seed}").format(seed=zmap.seed))
    parts.append(theme_label(zmap.theme, lang))
    size = _("{w} × {h} nodes").format(w=zmap.width, h=zmap.height)
    if zmap.size_rolled:
        size += " " + _("(rolled)")
    parts.append(size)
    parts.append(_("zones: {n}").format(n=len(zmap.zones)))
    parts.append(_("areas: {n}").format(n=len(zmap.areas)))
    return " · ".join(parts)


def theme_label(theme: str, lang: str) -> str:
    """The shipped themes by their name in ``lang``; a game master's own theme by its id."""
    _ = translator(lang)
    return {"scifi": _("sci-fi"), "fantasy": _("fantasy")}.get(theme, theme)


def notes(zmap: ZoneMap, lang: str) -> list[str]:
    """The start suggestion and what the game master should know about reachability, each
    computed from the map's connections: areas reached from the start only through hidden
    connections, hidden ways across empty nodes, areas with no connection at all (only
    possible on a map of one area), and a plain word when the map is meagre."""
    _ = translator(lang)
    out = []
    if zmap.start is None:
        out.append(_("No area has two or more open connections: choose the start yourself."))
    else:
        out.append(
            _("Suggested start: area {letter} ({n} open connections).").format(
                letter=zmap.start, n=zmap.accesses(zmap.start)
            )
        )
        others = [c for c in zmap.start_candidates if c != zmap.start]
        if others:
            out.append(
                _("Also possible (two or more open connections): {letters}.").format(
                    letters=", ".join(others)
                )
            )
        opened = zmap.reachable()
        every = zmap.reachable(hidden=True)
        behind = [a.letter for a in zmap.areas if a.letter in every and a.letter not in opened]
        if behind:
            out.append(
                _("Reached from the start only through hidden connections: {letters}.").format(
                    letters=", ".join(behind)
                )
            )
        cut = [a.letter for a in zmap.areas if a.letter not in every]
        if cut:
            out.append(
                _("Not reached from the start at all: {letters}.").format(letters=", ".join(cut))
            )
    ways = [f"{c.a}–{c.b}" for c in zmap.connections if c.via]
    if ways:
        # the example fits the map's theme; a game master's own theme gets none
        hidden_ways = {
            "scifi": N_(
                "Hidden ways across empty nodes (e.g. the porthole of a locked pressure "
                "door): {ways}."
            ),
            "fantasy": N_(
                "Hidden ways across empty nodes (e.g. a crack in the wall behind a "
                "tapestry): {ways}."
            ),
        }
        text = hidden_ways.get(zmap.theme, N_("Hidden ways across empty nodes: {ways}."))
        out.append(_(text).format(ways=", ".join(ways)))
    isolated = [a.letter for a in zmap.areas if not zmap.links(a.letter, hidden=None)]
    if isolated:
        out.append(_("No connection at all: {letters}.").format(letters=", ".join(isolated)))
    opens = sum(1 for c in zmap.connections if not c.hidden)
    if not zmap.areas:
        out.append(
            _(
                "An empty map: no node holds a zone. Roll again (another seed) or ask "
                "for areas with --min-areas N."
            )
        )
    elif len(zmap.areas) <= 2 or opens == 0:
        out.append(
            _(
                "A meagre map (areas: {areas}, open connections: {open}). Roll again "
                "(another seed) or ask for more with --min-areas N."
            ).format(areas=len(zmap.areas), open=opens)
        )
    return out
