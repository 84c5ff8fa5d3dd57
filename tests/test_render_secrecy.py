"""The players' map keeps the secrets and no label collides (issue 15), over >= 500 small
levels of each procedure (one generation, both checks):

- no player SVG draws a secret door, a trap, a GM-only way or an area the players can reach
  only through a secret door (neither its number nor its floor), and the players' key and
  ASCII preview name none of it; the game master's map of the same level does draw them (so
  the check cannot pass by drawing nothing);
- on both views no label (area number, stair/shaft mark, "?", secret "S", entrance star,
  trap mark) meets another label or a door/stair/exit symbol, and none but the "S" lies on
  a wall line, measured from the SVG (tests/svg_overlaps.py: boxes from the fonts' real
  advance widths). PNGs are the SVG scaled, so this holds at every --png-scale."""

from __future__ import annotations

import re
from typing import Any

import pytest
from svg_overlaps import loose_walls, measure

from kerker.dungeon.engine import Params, generate
from kerker.dungeon.export import to_document
from kerker.dungeon.player import player_areas
from kerker.dungeon.render_ascii import render_ascii
from kerker.dungeon.render_key import area_keys
from kerker.dungeon.render_svg import CELL, TabletopMap, render_views
from kerker.tables.registry import load_registry

SEEDS = {"zufallslabyrinth": 400, "scatola-bianca": 420}
MIN_LEVELS = 500

_PATH = re.compile(r"([MHVLZ])([^MHVLZ]*)")
_SECRET_MARKS = (
    'class="secret"',
    "secret_door",
    'class="trap"',
    'data-key="trap"',
    "conn elevator",
)


def _floor_polygons(svg: str) -> tuple[list[list[tuple[float, float]]], float, float]:
    """The floor path's polygons (map coordinates) and the map group's offset."""
    floor = re.search(r'<path class="floor" d="([^"]*)"', svg)
    assert floor is not None
    shift = re.search(r'<g class="map" transform="translate\((-?[\d.]+) (-?[\d.]+)\)">', svg)
    assert shift is not None
    polys: list[list[tuple[float, float]]] = []
    x = y = 0.0
    for cmd, args in _PATH.findall(floor.group(1)):
        nums = [float(v) for v in args.split()]
        if cmd == "M":
            x, y = nums
            polys.append([(x, y)])
        elif cmd == "H":
            x = nums[0]
            polys[-1].append((x, y))
        elif cmd == "V":
            y = nums[0]
            polys[-1].append((x, y))
        elif cmd == "L":
            x, y = nums
            polys[-1].append((x, y))
    return polys, float(shift.group(1)), float(shift.group(2))


def _inside(polys: list[list[tuple[float, float]]], px: float, py: float) -> bool:
    """Even-odd point in polygon (the floor's fill rule)."""
    inside = False
    for poly in polys:
        n = len(poly)
        for i in range(n):
            (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
            if (y1 > py) != (y2 > py) and px < x1 + (py - y1) * (x2 - x1) / (y2 - y1):
                inside = not inside
    return inside


def _leaves(doc: dict[str, Any], depth: int, view: str) -> list[Any]:
    """The wall edges (map pixels) of the door leaves and stairs a view draws."""
    tmap = TabletopMap(doc, depth, view)
    out = []
    for i in tmap.shown(view):
        if tmap.connections[i].get("kind") in ("door", "one_way_door", "stairs"):
            hor, ver = tmap.cut(i)
            out += [((x * CELL, y * CELL), ((x + 1) * CELL, y * CELL)) for x, y in hor]
            out += [((x * CELL, y * CELL), (x * CELL, (y + 1) * CELL)) for x, y in ver]
    return out


def _numbers(svg: str) -> list[str]:
    return re.findall(r'<text class="number"[^>]*>([^<]*)</text>', svg)


@pytest.fixture(scope="module")
def registry() -> Any:
    return load_registry([])


@pytest.mark.parametrize("rules", sorted(SEEDS))
def test_maps_keep_secrets_and_labels_clear(registry: Any, rules: str) -> None:
    levels = hidden_total = secret_levels = labels = 0
    for seed in range(SEEDS[rules]):
        params = Params(rules=rules, seed=seed, levels=3, size=(14, 14), max_areas=16, min_areas=1)
        doc = to_document(generate(params, registry), "en")
        known = player_areas(doc)
        player_text = render_ascii(doc, view="player")
        for level in doc["levels"]:
            levels += 1
            depth = level["depth"]
            views = render_views(doc, depth=depth, lang="en")
            gm, player = views["gm"], views["player"]
            for view, svg in views.items():
                found = measure(svg)
                assert found == {"labels": [], "walls": [], "legend": []}, (
                    rules,
                    seed,
                    depth,
                    view,
                )
                # No wall in rock alone, none standing free in the floor (SB seed 11).
                floor = {
                    (x, y)
                    for a in level["areas"]
                    if view == "gm" or a["id"] in known
                    for x, y in a["cells"]
                }
                loose = loose_walls(svg, floor, _leaves(doc, depth, view), CELL)
                assert loose == {"rock": [], "free": []}, (rules, seed, depth, view, loose)
                labels += svg.count('class="number"')
            hidden = [a for a in level["areas"] if a["id"] not in known]
            secrets = [
                c for c in level["connections"] if c["kind"] == "secret_door" or c.get("gm_only")
            ]
            has_trap = any(
                c.get("kind") == "trap" for a in level["areas"] for c in a.get("contents") or ()
            )
            for mark in _SECRET_MARKS:
                assert mark not in player, (rules, seed, depth, mark)
            if secrets:
                secret_levels += 1
                assert any(m in gm for m in _SECRET_MARKS), (rules, seed, depth)
            if has_trap:
                assert 'class="trap"' in gm, (rules, seed, depth)
            # Exactly the numbers of the areas the players know, each once.
            shown = sorted(str(a["number"]) for a in level["areas"] if a["id"] in known)
            assert sorted(_numbers(player)) == shown, (rules, seed, depth)
            assert sorted(_numbers(gm)) == sorted(str(a["number"]) for a in level["areas"])
            # A hidden area's floor is rock: none of its cells' centres is on the floor.
            if hidden:
                hidden_total += len(hidden)
                polys, _tx, _ty = _floor_polygons(player)
                gm_polys, _gx, _gy = _floor_polygons(gm)
                for area in hidden:
                    for x, y in area["cells"]:
                        cx, cy = (x + 0.5) * CELL, (y + 0.5) * CELL
                        assert not _inside(polys, cx, cy), (rules, seed, depth, area["id"])
                    x, y = area["label_at"]
                    assert _inside(gm_polys, (x + 0.5) * CELL, (y + 0.5) * CELL)
            # The players' key names no hidden area, no secret door, no trap.
            keys = area_keys(doc, depth=depth, lang="en", view="player")
            assert sorted(k.heading.split(".")[0] for k in keys) == shown
            for key in keys:
                assert not key.traps and not key.rolls
                assert not any("Secret" in text for text, _n in key.exits)
                assert all(n is None or str(n) in shown for _t, n in key.exits)
        assert "S" not in re.sub(r"==.*==", "", player_text)
    assert levels >= MIN_LEVELS, levels
    assert labels > levels
    assert secret_levels > 0 and hidden_total > 0, (secret_levels, hidden_total)


def test_renderers_read_the_documents_language(registry: Any) -> None:
    """An Italian document rendered without ``lang`` is Italian (issue 15: it got German
    headings); an explicit ``lang`` still wins."""
    from kerker.dungeon.render_key import render_html, render_md
    from kerker.dungeon.render_svg import render_svg

    params = Params(rules="scatola-bianca", seed=11, levels=1)
    doc = to_document(generate(params, registry), "it")
    md = render_md(doc)
    assert "Dimensioni" in md or "Uscite" in md, md[:300]
    assert "Ausgänge" not in md and "Größe" not in md
    assert "mappa" in render_svg(doc).lower() and "Karte" not in render_svg(doc)
    assert 'lang="it"' in render_html(doc)
    assert "Exits" in render_md(doc, lang="en")
