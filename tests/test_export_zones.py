"""Zone maps as Universal VTT: the outlines on the drawn outlines, one door per open
connection, hidden connections closed, the CLI's file."""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

from typer.testing import CliRunner
from vtt_support import Grey, leaks, polyline_segments, samples

from kerker.cli import app
from kerker.export.zones import zones_uvtt
from kerker.tables.registry import load_registry
from kerker.zones.generate import ZoneParams, generate
from kerker.zones.model import ZoneMap

PPG = 42  # half the zone renderer's 84 px per node
OUTLINE_MAX = 120  # the outline stroke (3.5 px of the palette's outline colour) is darker


def _maps() -> list[ZoneMap]:
    registry = load_registry([])
    out = []
    for seed in range(30):
        size = (3 + seed % 6, 2 + seed % 5)
        params = ZoneParams(
            size=size, theme="fantasy" if seed % 2 else "scifi", seed=seed, details=False
        )
        out.append(generate(params, random.Random(seed), registry))
    return out


def test_zone_walls_lie_on_the_outlines_and_close_the_areas() -> None:
    doors = 0
    for zmap in _maps():
        text, warnings = zones_uvtt(zmap, ppg=PPG)
        assert warnings == []
        data = json.loads(text)
        size = data["resolution"]["map_size"]
        assert (size["x"], size["y"]) == (zmap.width, zmap.height)
        grey = Grey(base64.b64decode(data["image"]))
        assert (grey.width, grey.height) == (zmap.width * PPG, zmap.height * PPG)
        segments = []
        for line in data["line_of_sight"]:
            pts = [(p["x"] * PPG, p["y"] * PPG) for p in line]
            assert all(0 <= x <= grey.width and 0 <= y <= grey.height for x, y in pts)
            for a, b in polyline_segments([pts]):
                segments.append((a, b))
                if abs(a[0] - b[0]) + abs(a[1] - b[1]) > PPG / 2:  # not a passage's side
                    for x, y in samples(a, b, 2.0):
                        assert grey.darkest(x, y) < OUTLINE_MAX, (zmap.seed, a, b, (x, y))
        open_links = [c for c in zmap.connections if not c.hidden]
        assert len(data["portals"]) == len(open_links)
        doors += len(open_links)
        for portal in data["portals"]:
            a, b = ((p["x"] * PPG, p["y"] * PPG) for p in portal["bounds"])
            segments.append((a, b))
        # walls and doors close every area (seeded at its letter's node)
        seeds = [((x + 0.5) * PPG, (y + 0.5) * PPG) for area in zmap.areas for x, y in [area.label]]
        assert leaks(segments, seeds, grey.width, grey.height) == 0, zmap.seed
    assert doors > 30


def test_hidden_connections_stay_wall() -> None:
    for zmap in _maps():
        hidden = [c for c in zmap.connections if c.hidden]
        if not hidden:
            continue
        data = json.loads(zones_uvtt(zmap, ppg=PPG, view="gm")[0])
        assert len(data["portals"]) == len(zmap.connections) - len(hidden)
        return
    raise AssertionError("no zone map with a hidden connection")


def test_zones_cli_writes_uvtt(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["zones", "--seed", "7", "--size", "6x4", "--out", str(tmp_path), "--format", "uvtt"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "zones-7.dd2vtt").read_text(encoding="utf-8"))
    assert data["resolution"]["map_size"] == {"x": 6, "y": 4}
    assert data["resolution"]["pixels_per_grid"] == 100
