"""``kerker dungeon --map-only``: the players' map alone for projection (issue 15), written
beside the usual maps, without title, scale bar and legend, and without the secrets."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner

from kerker.commands.dungeon import dungeon_command
from kerker.dungeon.render_svg import render_png, render_svg


def _app() -> typer.Typer:
    app = typer.Typer()
    app.command()(dungeon_command)
    return app


OPTIONS = ["--size", "20x24", "--max-areas", "20", "--lang", "en"]


def _secret_seed() -> int:
    """The first seed whose level 1 (with :data:`OPTIONS`) has a secret door (found, not
    assumed: output for a seed changes when the procedures do)."""
    from kerker.dungeon.engine import Params, generate
    from kerker.dungeon.export import to_document
    from kerker.tables.registry import load_registry

    registry = load_registry([])
    for seed in range(300):
        doc = to_document(generate(Params(seed=seed, size=(20, 24), max_areas=20), registry), "en")
        if any(c["kind"] == "secret_door" for c in doc["levels"][0]["connections"]):
            return seed
    raise AssertionError("no seed with a secret door on level 1")


SEED = _secret_seed()


def _map_body(svg: str) -> list[str]:
    """The lines after the map group's opening tag (its offset differs between the two)."""
    lines = svg.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('<g class="map"'))
    return lines[start + 1 :]


def test_map_only_writes_the_players_map_alone(tmp_path: Path) -> None:
    r = CliRunner().invoke(
        _app(), ["--seed", str(SEED), *OPTIONS, "--out", str(tmp_path), "--map-only"]
    )
    assert r.exit_code == 0, r.output
    name = f"zufallslabyrinth-{SEED}-level1"
    bare = (tmp_path / f"{name}-player-projection.svg").read_text(encoding="utf-8")
    player = (tmp_path / f"{name}-player.svg").read_text(encoding="utf-8")
    gm = (tmp_path / f"{name}.svg").read_text(encoding="utf-8")
    png = (tmp_path / f"{name}-player-projection.png").read_bytes()
    assert f"written: {tmp_path / f'{name}-player-projection.svg'}" in r.output
    assert f"written: {tmp_path / f'{name}-player-projection.png'}" in r.output
    # what the normal map has and the projection does not: title line, legend, scale bar
    assert '<text class="title"' in player and '<g class="legend">' in player
    assert '<text class="title"' not in bare and 'class="legend"' not in bare
    assert "players' map" in player and "players' map" not in bare
    assert ">30</text>" in player and ">30</text>" not in bare  # the scale bar's 30 ft
    # the same drawing: the players' map group of the normal SVG is the bare one's
    bare_body = _map_body(bare)[:-2]  # up to the closing </g> and </svg>
    assert bare_body and _map_body(player)[: len(bare_body) + 1] == [*bare_body, "</g>"]
    # the secrets stay secret: the GM map draws the secret door, the projection does not
    assert 'class="secret"' in gm
    assert 'class="secret"' not in bare and "secret_door" not in bare
    # what is written is what the library renders, and the PNG is that SVG drawn
    doc = json.loads((tmp_path / f"zufallslabyrinth-{SEED}.json").read_text(encoding="utf-8"))
    assert bare == render_svg(doc, depth=1, view="player", bare=True)
    assert png == render_png(doc, depth=1, view="player", bare=True)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")


def test_without_map_only_no_projection_is_written(tmp_path: Path) -> None:
    r = CliRunner().invoke(
        _app(), ["--seed", str(SEED), *OPTIONS, "--out", str(tmp_path), "--format", "svg"]
    )
    assert r.exit_code == 0, r.output
    assert not list(tmp_path.glob("*projection*"))
    assert list(tmp_path.glob("*-player.svg"))


def test_map_only_with_one_format_writes_only_that(tmp_path: Path) -> None:
    r = CliRunner().invoke(
        _app(),
        ["--seed", str(SEED), *OPTIONS, "--out", str(tmp_path), "--format", "svg", "--map-only"],
    )
    assert r.exit_code == 0, r.output
    assert [p.name for p in tmp_path.glob("*projection*")] == [
        f"zufallslabyrinth-{SEED}-level1-player-projection.svg"
    ]


def test_map_only_needs_out_and_a_picture_format(tmp_path: Path) -> None:
    r = CliRunner().invoke(_app(), ["--seed", "1", "--map-only"])
    assert r.exit_code == 2 and "--map-only" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(
        _app(), ["--seed", "1", "--out", str(tmp_path), "--format", "json", "--map-only"]
    )
    assert r.exit_code == 2 and "--map-only" in r.output
    assert not list(tmp_path.iterdir())
