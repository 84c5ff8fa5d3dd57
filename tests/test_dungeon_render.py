"""Dungeon map (SVG/PNG) and room key (Markdown/HTML) from hand-made documents.

The renderers are pure functions of the JSON document (docs/dungeon-json.md), so these tests
run on fixtures written by hand: ``tests/fixtures/dungeon/small.json`` (every symbol: room,
hall, corridors, door, secret door, one-way door, archway, opening, stairs down, trapdoor,
shaft to the surface, pool, lake, columns, river with bridge, chasm, boat, well, rubble,
unexplored exits, a trap) and ``large.json`` (a 120 × 160 cell level of 70 rooms and their
corridors). Golden: ``tests/golden/dungeon_render_small.svg`` (English, GM view); rewrite with
``KERKER_UPDATE_GOLDEN=1 pytest tests/test_dungeon_render.py`` and say so in the commit.
"""

from __future__ import annotations

import copy
import json
import os
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from kerker.dungeon.render_key import render_html, render_md
from kerker.dungeon.render_svg import render_png, render_svg
from kerker.errors import OptionError

FIXTURES = Path(__file__).parent / "fixtures" / "dungeon"
GOLDEN = Path(__file__).parent / "golden"
NS = "{http://www.w3.org/2000/svg}"


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def small() -> dict[str, Any]:
    return _load("small.json")


@pytest.fixture(scope="module")
def large() -> dict[str, Any]:
    return _load("large.json")


def _root(doc: dict[str, Any], view: str = "gm", lang: str = "en") -> ET.Element:
    return ET.fromstring(render_svg(doc, view=view, lang=lang))


def _classes(root: ET.Element) -> list[str]:
    out = []
    for el in root.iter():
        out += (el.get("class") or "").split()
    return out


def _texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{NS}text")]


def _legend(root: ET.Element) -> list[str]:
    return [g.get("data-key") or "" for g in root.iter(f"{NS}g")
            if g.get("class") == "legend-item"]


def test_gm_svg_shows_every_symbol(small: dict[str, Any]) -> None:
    root = _root(small)
    classes = _classes(root)
    for cls in ("rock", "floor", "grid", "walls", "door", "secret_door", "one_way_door",
                "archway", "opening", "stairs", "trapdoor", "shaft", "unexplored", "pool",
                "lake", "columns", "gallery", "river", "bridge", "chasm", "boat", "well", "rubble",
                "secret", "trap", "number", "scale", "compass"):
        assert cls in classes, cls
    texts = _texts(root)
    assert texts[0] == "Zufallslabyrinth – seed 42 – level 1"
    numbers = [t.text for t in root.iter(f"{NS}text") if t.get("class") == "number"]
    assert numbers == [str(a["number"]) for a in small["levels"][0]["areas"]]
    assert "↓ 2" in texts and "↑ 0" in texts and texts.count("?") >= 2
    assert "S" in texts
    assert set(_legend(root)) >= {"door", "secret_door", "one_way_door", "archway",
                                  "stairs_down", "trapdoor", "shaft", "unexplored", "water",
                                  "river", "bridge", "chasm", "columns", "trap"}
    assert "1 square = 10 ft / 3 m" in texts


def test_player_svg_hides_secret_doors_and_traps(small: dict[str, Any]) -> None:
    root = _root(small, "player")
    classes = _classes(root)
    assert "secret_door" not in classes and "secret" not in classes
    assert "trap" not in classes and "trapdoor" not in classes  # the trapdoor is gm_only
    legend = _legend(root)
    assert "secret_door" not in legend and "trap" not in legend
    texts = _texts(root)
    assert "S" not in texts
    assert "players' map" in " ".join(texts)
    assert "door" in classes and "stairs" in classes


def test_secret_door_stays_a_wall(small: dict[str, Any]) -> None:
    """The secret door does not cut the wall; a door does (in both views)."""
    for view in ("gm", "player"):
        walls = next(p for p in _root(small, view).iter(f"{NS}path")
                     if p.get("class") == "walls").get("d") or ""
        # Hall 3's east wall (x = 28 cells) runs unbroken from y 2 to 12 beside the secret door.
        assert f"M{28 * 14} {2 * 14}v{10 * 14}" in walls
        # Room 1's east wall is cut by the 2-cell door at y 6-7.
        assert f"M{10 * 14} {4 * 14}v{2 * 14}" in walls
        assert f"M{10 * 14} {8 * 14}v{2 * 14}" in walls


def test_svg_is_deterministic_and_language_aware(small: dict[str, Any]) -> None:
    one = render_svg(small, view="gm", lang="de")
    two = render_svg(copy.deepcopy(small), view="gm", lang="de")
    assert one == two
    assert render_svg(small, lang="it") != render_svg(small, lang="en")
    assert "id=\"" in one and "random" not in one


def test_unknown_view_or_level_is_refused(small: dict[str, Any]) -> None:
    with pytest.raises(OptionError):
        render_svg(small, view="dm")
    with pytest.raises(OptionError):
        render_svg(small, depth=5)


def test_png_signature(small: dict[str, Any]) -> None:
    png = render_png(small, view="player", lang="en", scale=1.0)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")


def test_large_level_is_fast(large: dict[str, Any]) -> None:
    level = large["levels"][0]
    assert (level["width"], level["height"]) == (120, 160)
    render_svg(large)  # warm up (catalogs, imports)
    best = min(_timed(large) for _ in range(3))
    assert best < 0.2, best
    root = _root(large)
    walls = next(p for p in root.iter(f"{NS}path") if p.get("class") == "walls")
    # Runs, not one segment per cell edge.
    assert (walls.get("d") or "").count("M") < 2000


def _timed(doc: dict[str, Any]) -> float:
    start = time.perf_counter()
    render_svg(doc)
    return time.perf_counter() - start


def test_markdown_key_gm(small: dict[str, Any]) -> None:
    md = render_md(small, lang="en")
    assert md.startswith("# Zufallslabyrinth – seed 42 – level 1\n")
    for area in small["levels"][0]["areas"]:
        assert f"## {area['number']}. " in md
    for line in ("- Door to the east to 2", "- Door to the west to 1",
                 "- Secret door to the east to 6",
                 "- One-way door to the south to 5 (opens only from this side)",
                 "- One-way door to the north to 4 (opens only from the other side)",
                 "- Stairs down to level 2, to the west", "- Trapdoor down to level 2",
                 "- Shaft up to the surface", "- Door to the north: unexplored",
                 "- Opening to the east: unexplored", "- Speerfalle: 1W6 Schaden",
                 "1 300 Kupfermünzen (KM)", "trapped: Vergiftete Nadeln im Schloss",
                 "20 squares · 40 × 50 ft · 12 × 15 m", "    - schatz/menge: 2W10"):
        assert line in md, line


def test_markdown_key_player_leaves_out_secrets(small: dict[str, Any]) -> None:
    md = render_md(small, lang="en", view="player")
    assert "Secret door" not in md and "Speerfalle" not in md and "Trapdoor" not in md
    assert "Vergiftete Nadeln" not in md and "losen Bodenstein" not in md
    assert "Rolls" not in md
    assert "- Door to the east to 2" in md


def test_markdown_key_languages(small: dict[str, Any]) -> None:
    de = render_md(small)
    it = render_md(small, lang="it")
    en = render_md(small, lang="en")
    assert de != en and it != en
    assert "## 1. Eingangsbereich" in de  # the document's own titles in its language
    assert "## 1. Entrance" in en


def test_html_key(small: dict[str, Any]) -> None:
    html = render_html(small, lang="en")
    assert html.startswith("<!DOCTYPE html>") and "<style>" in html and "<svg" in html
    assert "<link" not in html and "<script" not in html
    for area in small["levels"][0]["areas"]:
        assert f'id="area-{area["number"]}"' in html
    assert 'Door to the east to <a href="#area-2">2</a>' in html
    assert "Door to the north: unexplored" in html
    assert "<details><summary>Rolls (3)</summary>" in html
    player = render_html(small, lang="en", view="player")
    assert "Secret door" not in player and "<details>" not in player


def test_golden_svg(small: dict[str, Any]) -> None:
    svg = render_svg(small, view="gm", lang="en")
    path = GOLDEN / "dungeon_render_small.svg"
    if os.environ.get("KERKER_UPDATE_GOLDEN"):
        path.write_text(svg, encoding="utf-8")
    assert svg == path.read_text(encoding="utf-8")
