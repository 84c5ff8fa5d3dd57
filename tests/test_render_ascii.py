"""The terminal preview (kerker dungeon without --out, kerker play's map) draws the wall
between two areas that touch (session 5's closing note: "The ASCII preview draws no wall
between areas that touch"). One character per 5-ft cell: the wall between two floor cells
of different areas is drawn on one of the two (``|`` side by side, ``-`` one above the
other), a door through it on that cell; never two areas' floors running into each other.
Over both procedures' levels, GM and player view."""

from __future__ import annotations

from typing import Any

import pytest

from kerker.dungeon.engine import Params, generate
from kerker.dungeon.export import to_document
from kerker.dungeon.player import player_areas, player_level
from kerker.dungeon.render_ascii import render_level
from kerker.tables.registry import load_registry

REGISTRY = load_registry([])
FLOORISH = set(".~:=o")
WALL_MARKS = set("|-")
DOOR_MARKS = set("+'>S")


def _picture(level: dict[str, Any], view: str) -> dict[tuple[int, int], str]:
    """The preview of ``level`` as a map from cell to character (the picture is cropped to
    the cells in use plus one, as render_level draws it)."""
    text = render_level(level, view)
    cells = [tuple(c) for a in level["areas"] for c in a["cells"]]
    x0 = min(c[0] for c in cells) - 1
    y0 = min(c[1] for c in cells) - 1
    return {
        (x0 + col, y0 + row): ch
        for row, line in enumerate(text.split("\n"))
        for col, ch in enumerate(line)
    }


def _touching(level: dict[str, Any]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    owner = {tuple(c): a["id"] for a in level["areas"] for c in a["cells"]}
    out = []
    for (x, y), who in owner.items():
        for other in ((x + 1, y), (x, y + 1)):
            if owner.get(other, who) != who:
                out.append(((x, y), other))
    return out


@pytest.mark.parametrize("rules", ["zufallslabyrinth", "scatola-bianca"])
def test_the_preview_draws_the_wall_between_areas_that_touch(rules: str) -> None:
    edges = walls = doors = 0
    for seed in range(40):
        doc = to_document(generate(Params(rules=rules, seed=seed, levels=2), REGISTRY), "en")
        known = player_areas(doc)
        for level in doc["levels"]:
            for view in ("gm", "player"):
                shown = level if view == "gm" else dict(player_level(level, known))
                if not shown["areas"]:
                    continue
                picture = _picture(shown, view)
                for a, b in _touching(shown):
                    edges += 1
                    pair = picture[a] + picture[b]
                    # never the two floors side by side with nothing between them
                    assert not (picture[a] in FLOORISH and picture[b] in FLOORISH), (
                        rules,
                        seed,
                        level["depth"],
                        view,
                        a,
                        b,
                        pair,
                    )
                    walls += bool(set(pair) & WALL_MARKS)
                    doors += bool(set(pair) & DOOR_MARKS)
                # every area of more than one cell keeps floor to be seen (the wall goes on
                # the wider side: a corridor beside a room is not drawn as a wall)
                for area in shown["areas"]:
                    chars = [picture[tuple(c)] for c in area["cells"]]
                    if len(chars) > 1:
                        assert any(ch not in WALL_MARKS for ch in chars), (rules, seed, area["id"])
    assert edges > 1000 and walls > edges // 2 and doors > 50, (edges, walls, doors)


def test_the_players_preview_shows_the_wall_not_a_secret_door() -> None:
    """A secret door between two areas that touch: the GM's preview has the S in the wall's
    line, the players' (once both areas are known to them) the wall."""
    seen = 0
    for seed in range(80):
        doc = to_document(generate(Params(seed=seed, levels=1), REGISTRY), "en")
        level = doc["levels"][0]
        owner = {tuple(c): a["id"] for a in level["areas"] for c in a["cells"]}
        for conn in level["connections"]:
            if conn["kind"] != "secret_door" or conn["side"] not in ("n", "e", "s", "w"):
                continue
            dx, dy = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0)}[conn["side"]]
            at = tuple(conn["at"])
            across = (at[0] + dx, at[1] + dy)
            if owner.get(across) in (None, owner[at]):
                continue
            gm = _picture(level, "gm")
            if any(ch.isdigit() for ch in gm[at] + gm[across]):
                continue  # an area's number is drawn over it
            assert "S" in gm[at] + gm[across]
            shown = dict(player_level(level, frozenset(a["id"] for a in level["areas"])))
            player = _picture(shown, "player")
            assert "S" not in player[at] + player[across]
            assert set(player[at] + player[across]) & WALL_MARKS
            seen += 1
    assert seen >= 3
