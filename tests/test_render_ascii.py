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


def _digit_runs(picture: dict[tuple[int, int], str]) -> list[tuple[tuple[int, int], str]]:
    """Every run of digits in the picture, left to right: (its first cell, its text)."""
    runs: list[tuple[tuple[int, int], str]] = []
    for (x, y), ch in sorted(picture.items(), key=lambda item: (item[0][1], item[0][0])):
        if not ch.isdigit():
            continue
        if runs and runs[-1][0][1] == y and runs[-1][0][0] + len(runs[-1][1]) == x:
            runs[-1] = (runs[-1][0], runs[-1][1] + ch)
        else:
            runs.append(((x, y), ch))
    return runs


@pytest.mark.parametrize("rules", ["zufallslabyrinth", "scatola-bianca"])
def test_area_numbers_stand_apart_on_their_own_floor(rules: str) -> None:
    """Seed 7 once printed "40'3241": two numbers ran together and one hid a door. Every
    run of digits starts on its area's own cells and is one area's number, and a number
    moves along its area rather than hide a door, where the area has room for it."""
    placed = moved = cramped = merged = doors = hidden = 0
    for seed in range(60):
        doc = to_document(generate(Params(rules=rules, seed=seed, levels=2), REGISTRY), "en")
        for level in doc["levels"]:
            picture = _picture(level, "gm")
            areas = {str(a["number"]): a for a in level["areas"]}
            runs = _digit_runs(picture)
            seen: dict[str, tuple[int, int]] = {}
            for (x, y), text in runs:
                area = areas.get(text)
                if area is None:
                    # tiny areas side by side, each as wide as its number (three 10-ft
                    # rooms in a row): no room for a gap; counted, must stay rare
                    merged += 1
                    continue
                own = {tuple(c) for c in area["cells"]}
                assert (x, y) in own, (rules, seed, level["depth"], text)
                # an area narrower than its number lets it run on beside it (into the
                # rock where there is rock), rarely
                cramped += not all((x + i, y) in own for i in range(len(text)))
                seen[text] = (x, y)
            # no number hides a door: every door between two cells shows its mark on one
            for conn in level["connections"]:
                side = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0)}.get(conn["side"])
                if (
                    conn["kind"]
                    not in ("door", "one_way_door", "archway", "opening", "secret_door")
                    or side is None
                ):
                    continue
                at = tuple(conn["at"])
                across = (at[0] + side[0], at[1] + side[1])
                doors += 1
                hidden += not (set(picture.get(at, "") + picture.get(across, "")) & DOOR_MARKS)
            for text, area in areas.items():
                if text not in seen:
                    continue
                placed += 1
                moved += seen[text] != tuple(area["label_at"])
    assert placed > 1000 and moved > 0, (placed, moved)
    assert placed > 1000 and moved > 0 and doors > 1000, (placed, moved, doors)
    assert cramped < placed // 10 and merged < placed // 200, (cramped, merged, placed)
    # what is left are areas smaller than their number (a 10-ft corridor numbered 37
    # between two doors); before the numbers moved aside, 2.5 % of the doors were hidden
    assert hidden < doors // 50, (hidden, doors)
