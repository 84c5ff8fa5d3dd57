"""Zone-map outputs: SVG (game master and players), PNG, terminal grid, Markdown, JSON, and
golden files for a few seeds.

Golden files: ``tests/golden/zones_<seed>.json`` (texts from the tables, in the case's
language) and ``zones_<seed>.svg``, ``zones_<seed>-player.svg``, ``zones_<seed>.md`` in
English (UI strings in English do not move when a catalog changes). Rewrite them with
``KERKER_UPDATE_GOLDEN=1 pytest tests/test_zones_render.py`` and say so in the commit.
"""

from __future__ import annotations

import json
import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import check_golden

from kerker.tables.registry import load_registry
from kerker.zones import ZoneParams, generate
from kerker.zones.export import dumps, to_json
from kerker.zones.model import ZoneMap
from kerker.zones.render_md import render_md
from kerker.zones.render_svg import PNG_SCALE, render_png, render_svg
from kerker.zones.render_text import grid_lines, summary

REGISTRY = load_registry()
GOLDEN = Path(__file__).parent / "golden"
NS = "{http://www.w3.org/2000/svg}"
# seed, size, theme, language of the JSON
CASES = [(1, None, "scifi", "de"), (7, (8, 8), "fantasy", "en"), (3, (3, 3), "scifi", "it")]


def _map(seed: int, size: tuple[int, int] | None = None, theme: str = "scifi") -> ZoneMap:
    return generate(ZoneParams(size=size, theme=theme, seed=seed), random.Random(seed), REGISTRY)


@pytest.fixture(scope="module")
def big() -> ZoneMap:
    zmap = _map(5, (8, 8), "fantasy")
    assert any(c.hidden for c in zmap.connections) and zmap.start is not None
    return zmap


def _svg(zmap: ZoneMap, view: str, lang: str = "en") -> ET.Element:
    return ET.fromstring(render_svg(zmap, view=view, lang=lang))


def _texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{NS}text")]


def test_svg_gm_view(big: ZoneMap) -> None:
    root = _svg(big, "gm")
    texts = _texts(root)
    assert texts[0] == "Zone map – seed 5"
    for area in big.areas:
        assert area.letter in texts
        assert area.details is not None and area.details.name.text("en") in texts
    lines = list(root.iter(f"{NS}line"))
    dashed = [ln for ln in lines if ln.get("class") == "hidden-connection"]
    solid = [ln for ln in lines if ln.get("class") == "connection"]
    ways = [p for p in root.iter(f"{NS}polyline") if p.get("class") == "hidden-connection"]
    hidden = sum(1 for c in big.connections if c.hidden and not c.via)
    assert len(ways) == sum(1 for c in big.connections if c.via)
    assert len(dashed) == hidden and all(ln.get("stroke-dasharray") for ln in dashed)
    hidden += len(ways)
    assert len(solid) == len(big.connections) - hidden
    # Connection lines run border to border across the gap between two areas: 26 px.
    for ln in dashed + solid:
        x1, y1, x2, y2 = (float(ln.get(k) or 0) for k in ("x1", "y1", "x2", "y2"))
        assert abs(x2 - x1) + abs(y2 - y1) == 26
    assert len([p for p in root.iter(f"{NS}polygon") if p.get("class") == "start"]) == 1
    letters = [t.text for t in root.iter(f"{NS}text") if t.get("class") == "letter"]
    assert letters == [a.letter for a in big.areas]
    assert any("Suggested start: area" in t for t in texts)


def test_svg_player_view_hides_what_players_do_not_know(big: ZoneMap) -> None:
    root = _svg(big, "player")
    texts = _texts(root)
    assert not [ln for ln in root.iter(f"{NS}line") if ln.get("stroke-dasharray")]
    assert len([ln for ln in root.iter(f"{NS}line") if ln.get("class") == "connection"]) == sum(
        1 for c in big.connections if not c.hidden
    )
    for area in big.areas:
        assert area.letter in texts
        assert area.details is not None and area.details.name.text("en") not in texts
    assert "hidden connection" not in texts and "players' map" in texts[1]
    assert "start" in texts


def test_svg_outlines_one_path_per_area(big: ZoneMap) -> None:
    root = _svg(big, "gm")
    outlines = [p for p in root.iter(f"{NS}path") if p.get("class") == "area"]
    assert len(outlines) == len(big.areas)
    # Outlines are closed, axis-parallel polygons.
    for path in outlines:
        d = path.get("d") or ""
        assert d.startswith("M ") and d.endswith("Z")
        for ring in re.findall(r"M ([^MZ]+) Z", d):
            points = [tuple(map(int, p.split())) for p in ring.split(" L ")]
            for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1], strict=True):
                assert x1 == x2 or y1 == y2


def test_svg_without_start_says_so() -> None:
    zmap = _map(3, (3, 3), "fantasy")
    assert zmap.start is None
    root = _svg(zmap, "gm")
    assert not list(root.iter(f"{NS}polygon"))
    assert "No area has two or more open connections: choose the start yourself." in _texts(root)


def test_svg_is_escaped_and_rejects_unknown_views(big: ZoneMap) -> None:
    from kerker.errors import OptionError

    with pytest.raises(OptionError):
        render_svg(big, view="dm")
    assert "&" not in render_svg(big, lang="it").replace("&amp;", "").replace("&lt;", "")


def test_png_is_deterministic_and_scaled() -> None:
    zmap = _map(9, (3, 3))
    one = render_png(zmap, view="player", lang="de")
    assert one.startswith(b"\x89PNG\r\n\x1a\n")
    assert render_png(zmap, view="player", lang="de") == one
    svg_width = int(_svg(zmap, "player").get("width") or 0)
    assert int.from_bytes(one[16:20], "big") == int(svg_width * PNG_SCALE)


def test_terminal_grid(big: ZoneMap) -> None:
    lines = grid_lines(big)
    assert len(lines) == 2 * big.height + 1
    text = "\n".join(lines)
    hidden = sum(1 for c in big.connections if c.hidden)
    crossed = sum(len(c.via) for c in big.connections)
    assert text.count("?") == hidden - sum(1 for c in big.connections if c.via) + crossed
    assert text.count("═") + text.count("║") == len(big.connections) - hidden
    assert "*" + str(big.start) in text
    assert "?" not in "\n".join(grid_lines(big, hidden=False))
    for area in big.areas:
        assert re.search(rf"(?<![A-Z]){area.letter}(?![A-Z])", text)
    out = summary(big, "en")
    assert out.startswith("Zone map · seed 5 · fantasy · 8 × 8 nodes · zones: ")
    assert f"Suggested start: area {big.start}" in out


def test_terminal_grid_walls_follow_areas() -> None:
    zmap = _map(9, (3, 3))
    assert grid_lines(zmap, start=False) == [
        "┌───────┬───┐",
        "│       ? B │",
        "└───┐   ├─║─┤",
        "  · │ A ═ C │",
        "┌───┤   │   │",
        "│ D ═   │   │",
        "└───┴───┴───┘",
    ]


def test_markdown_sheet(big: ZoneMap) -> None:
    md = render_md(big, "en")
    assert md.startswith("# Zone map – seed 5\n")
    for area in big.areas:
        assert area.details is not None
        assert f"### {area.letter} – {area.details.name.text('en')}" in md
        assert area.details.loot.text("en") in md
    hidden = [c for c in big.connections if c.hidden]
    assert md.count("\n- **", md.index("## Hidden connections")) == len(hidden)
    assert "★" in md


def test_json_contract(big: ZoneMap) -> None:
    data = json.loads(dumps(big, "de"))
    assert list(data)[:3] == ["kerker", "format", "seed"]
    for key in ("width", "height", "zones", "areas", "connections", "start", "log"):
        assert key in data
    assert data["seed"] == 5 and (data["width"], data["height"]) == (8, 8)
    assert data["zones"][0].keys() == {"x", "y", "area"}
    area = data["areas"][0]
    for key in (
        "letter",
        "zones",
        "name",
        "property",
        "senses",
        "encounter",
        "loot",
        "connections",
        "hidden",
        "accesses",
        "neighbours",
        "connections_rolled",
        "reachable",
    ):
        assert key in area
    assert data["connections"][0].keys() == {"from", "to", "hidden", "edge", "via", "hint"}
    assert {c["hidden"] for c in data["connections"]} == {True, False}
    assert data["start"] == big.start
    assert data["log"][0].keys() >= {"step", "table", "dice", "roll", "explain", "row", "key"}
    assert to_json(big, "de") == data


@pytest.mark.parametrize(("seed", "size", "theme", "lang"), CASES)
def test_golden(seed: int, size: tuple[int, int] | None, theme: str, lang: str) -> None:
    zmap = _map(seed, size, theme)
    outputs = {
        f"zones_{seed}.json": dumps(zmap, lang),
        f"zones_{seed}.svg": render_svg(zmap, view="gm", lang="en"),
        f"zones_{seed}-player.svg": render_svg(zmap, view="player", lang="en"),
        f"zones_{seed}.md": render_md(zmap, "en"),
    }
    for name, text in outputs.items():
        check_golden(name, text)
