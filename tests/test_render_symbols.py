"""Map symbols a game master reads at a glance (issue 15): the entrance star stands at the
way in from the surface and the key names that way; stairs down and up look different
(map and legend); marks stay inside the map's frame (Scatola Bianca seed 11's entrance
stair)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from kerker.dungeon.engine import Params, generate
from kerker.dungeon.export import to_document
from kerker.dungeon.render_key import area_keys
from kerker.dungeon.render_svg import CELL, render_svg
from kerker.tables.registry import load_registry


@pytest.fixture(scope="module")
def registry() -> Any:
    return load_registry([])


def _doc(registry: Any, rules: str, seed: int, lang: str, levels: int = 1) -> Any:
    params = Params(rules=rules, seed=seed, levels=levels)
    return to_document(generate(params, registry), lang)


def _star(svg: str) -> tuple[float, float]:
    found = re.search(r'<polygon class="entrance" points="([^"]*)"', svg)
    assert found
    pts = [tuple(map(float, p.split(","))) for p in found.group(1).split()]
    return sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)


def test_entrance_star_at_the_way_in_and_keyed(registry: Any) -> None:
    doc = _doc(registry, "zufallslabyrinth", 7, "de")
    level = doc["levels"][0]
    way = next(
        c for c in level["connections"] if c["from"] == level["entrance"] and c["to_level"] == 0
    )
    sx, sy = _star(render_svg(doc))
    ax, ay = ((way["at"][0] + 0.5) * CELL, (way["at"][1] + 0.5) * CELL)
    # Outside the way's wall, within two cells of it (seed 7: the south door).
    assert way["side"] == "s" and ay < sy < ay + 3 * CELL and abs(sx - ax) < 2 * CELL
    keys = area_keys(doc, lang="en")
    first = next(k for k in keys if k.heading.startswith("1."))
    assert "Door south: the way in from the surface" in [t for t, _n in first.exits]
    assert not any(t.startswith("Door south: unexplored") for t, _n in first.exits)


def test_stairs_down_and_up_differ(registry: Any) -> None:
    ups: list[str] = []
    downs: list[str] = []
    for seed in range(7, 17):  # levels of several seeds: both kinds of stairs come up
        doc = _doc(registry, "zufallslabyrinth", seed, "en", levels=3)
        for level in doc["levels"]:
            svg = render_svg(doc, depth=level["depth"])
            groups = re.findall(r'<g class="conn stairs"[^>]*>(.*?)</g>', svg)
            legend = {
                key: body
                for key, body in re.findall(
                    r'<g class="legend-item" data-key="(stairs_(?:down|up))">(.*?)</g></g>', svg
                )
            }
            here = [g for g in groups if 'fill="#ffffff"' in g.split("/>")[0]]
            ups += here
            downs += [g for g in groups if g not in here]
            if len(legend) == 2:
                assert legend["stairs_down"] != legend["stairs_up"].replace("up", "down")
    assert ups and downs
    assert all('z" fill=' in g for g in downs) and not any('z" fill=' in g for g in ups)


def test_marks_stay_inside_the_frame(registry: Any) -> None:
    doc = _doc(registry, "scatola-bianca", 11, "it")
    svg = render_svg(doc)
    frame = re.search(r'<rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)" fill="none"', svg)
    move = re.search(r'<g class="map" transform="translate\((-?[\d.]+) (-?[\d.]+)\)">', svg)
    assert frame and move
    fx, fy, fw, fh = map(float, frame.groups())
    tx, ty = map(float, move.groups())
    for x, y in re.findall(
        r'<text class="(?:level-mark|number|unexplored-mark)" '
        r'x="(-?[\d.]+)" y="(-?[\d.]+)"',
        svg,
    ):
        px, py = float(x) + tx, float(y) + ty
        assert fx < px < fx + fw and fy < py < fy + fh, (px, py)


def test_print_style_and_bare_map(registry: Any) -> None:
    from kerker.dungeon.render_svg import PAL, render_views

    doc = _doc(registry, "zufallslabyrinth", 7, "de")
    classic = render_svg(doc)
    printed = render_svg(doc, style="print")
    assert PAL.paper in classic and PAL.hatch_bg in classic
    assert PAL.paper not in printed and PAL.hatch_bg not in printed
    # Same drawing otherwise: only the two fills differ.
    assert printed.replace("#ffffff", "").count("<") == classic.replace("#ffffff", "").count("<")
    bare = render_svg(doc, bare=True)
    assert 'class="legend"' not in bare and 'class="scale"' not in bare
    assert 'class="title"' not in bare and 'class="compass"' not in bare
    body = re.search(r'<g class="map"[^>]*>(.*?)\n</g>\n', classic, re.S)
    assert body and body.group(1) in bare  # the very same map
    views = render_views(doc, style="print", bare=True)
    assert views["gm"] == render_svg(doc, style="print", bare=True)
    with pytest.raises(Exception, match="style"):
        render_svg(doc, style="neon")


def test_cli_style_print(tmp_path: Any) -> None:
    from typer.testing import CliRunner

    from kerker.cli import app
    from kerker.dungeon.render_svg import PAL

    runner = CliRunner()
    r = runner.invoke(
        app,
        [
            "dungeon",
            "--seed",
            "3",
            "--out",
            str(tmp_path),
            "--style",
            "print",
            "--format",
            "svg",
            "--lang",
            "en",
        ],
    )
    assert r.exit_code == 0, r.output
    assert PAL.paper not in (tmp_path / "zufallslabyrinth-3-level1.svg").read_text(encoding="utf-8")
    r = runner.invoke(app, ["dungeon", "--seed", "3", "--out", str(tmp_path), "--style", "neon"])
    assert r.exit_code == 2 and "neon" in r.output and "Traceback" not in r.output


def test_blocked_exits_have_their_own_symbol(registry: Any) -> None:
    """A rolled exit with no room behind it (keyed "versperrt") is crossed out on the game
    master's map, with its own legend entry in de/it/en; the players' map shows the door
    (they find out when they try it)."""
    from kerker.dungeon.render_svg import render_views

    seen = 0
    for rules, seed in (("zufallslabyrinth", 0), ("scatola-bianca", 0)):
        doc = _doc(registry, rules, seed, "de")
        level = doc["levels"][0]
        blocked = [
            c
            for c in level["connections"]
            if c.get("blocked") and c["kind"] in ("door", "one_way_door", "archway", "opening")
        ]
        views = render_views(doc, depth=1)
        crosses = re.findall(
            r'<g class="blocked" transform="translate\(([\d.]+) ([\d.]+)\)', views["gm"]
        )
        assert len(crosses) == len(blocked) > 0, rules
        for conn, (x, y) in zip(blocked, crosses, strict=True):
            ax, ay = (conn["at"][0] + 0.5) * CELL, (conn["at"][1] + 0.5) * CELL
            assert abs(float(x) - ax) <= CELL and abs(float(y) - ay) <= CELL
        assert 'data-key="blocked"' in views["gm"]
        assert 'class="blocked"' not in views["player"]
        assert 'data-key="blocked"' not in views["player"]
        seen += len(blocked)
        for lang, text in (
            ("de", "versperrter Ausgang"),
            ("it", "uscita bloccata"),
            ("en", "blocked exit"),
        ):
            assert text in render_svg(doc, lang=lang)
    assert seen >= 2


def test_boats_are_drawn_where_the_key_says(registry: Any) -> None:
    """Seed 000's Gangbreite river with "Ein Boot ist vorhanden" (issue 15): the map draws a
    boat on the bank the roll names, beside the river, and the legend names it."""
    boats = near = far = 0
    for seed in range(0, 30):
        doc = _doc(registry, "zufallslabyrinth", seed, "de", levels=2)
        for level in doc["levels"]:
            svg = render_svg(doc, depth=level["depth"])
            drawn = re.findall(r'<g class="boat" transform="translate\(([\d.]+) ([\d.]+)\)', svg)
            wanted = [
                (area, f)
                for area in level["areas"]
                for f in area.get("features") or ()
                if f["kind"] == "boat"
            ]
            assert len(drawn) == len(wanted), (seed, level["depth"])
            if wanted:
                assert 'data-key="boat"' in svg and ">Boot</text>" in svg
            for (area, boat), (x, y) in zip(wanted, drawn, strict=True):
                assert "Boot" in boat["text"]
                river = next(f for f in area["features"] if f["kind"] == "river")
                xs = [c[0] for c in river["cells"]]
                ys = [c[1] for c in river["cells"]]
                bx, by = float(x) / CELL, float(y) / CELL
                ew = river["dir"] in ("e", "w")
                across, lo, hi = (by, min(ys), max(ys) + 1) if ew else (bx, min(xs), max(xs) + 1)
                along, a0, a1 = (bx, min(xs), max(xs) + 1) if ew else (by, min(ys), max(ys) + 1)
                assert a0 <= along <= a1  # beside the river, not elsewhere in the corridor
                assert lo - 1 <= across <= hi + 1 and not lo < across < hi  # on a bank
                boats += 1
                if boat["bank"] == "far":
                    far += 1
                else:
                    near += 1
    assert boats >= 4 and near and far


def test_star_points_are_a_five_pointed_star_in_the_maps_number_format() -> None:
    import math

    from kerker.render.kit import star_points

    points = [tuple(map(float, p.split(","))) for p in star_points(10, 20, 7.0, 3.2).split()]
    assert len(points) == 10
    assert points[0] == (10.0, 13.0)  # tip up
    for k, (x, y) in enumerate(points):
        assert math.hypot(x - 10, y - 20) == pytest.approx(7.0 if k % 2 == 0 else 3.2, abs=0.01)
    one_decimal = star_points(0.123, 0.0, 9, 4.05, lambda v: f"{v:.1f}")
    assert one_decimal.split()[:2] == ["0.1,-9.0", "2.5,-3.3"]  # fmt writes every coordinate
