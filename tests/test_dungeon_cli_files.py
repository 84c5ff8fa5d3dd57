"""``kerker dungeon --out``: every file of every level, the PNG scale, and the refusals."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from kerker.commands.dungeon import FORMATS, dungeon_command, write_files
from kerker.dungeon.render_svg import PNG_SCALE


def _app() -> typer.Typer:
    app = typer.Typer()
    app.command()(dungeon_command)
    return app


def _png_width(data: bytes) -> int:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    return int.from_bytes(data[16:20], "big")


def _svg_width(text: str) -> int:
    found = re.search(r'<svg[^>]*\bwidth="(\d+)"', text)
    assert found is not None
    return int(found.group(1))


def _two_level_seed() -> int:
    """The first seed whose dungeon reaches a second level with :data:`ARGS`' options
    (found, not assumed: output for a seed changes when the procedures do)."""
    from kerker.dungeon.engine import Params, generate
    from kerker.tables.registry import load_registry

    registry = load_registry([])
    return next(
        seed
        for seed in range(200)
        if len(generate(Params(seed=seed, levels=2, size=(20, 24), max_areas=20), registry).levels)
        == 2
    )


SEED = _two_level_seed()
ARGS = [
    "--seed",
    str(SEED),
    "--levels",
    "2",
    "--size",
    "20x24",
    "--max-areas",
    "20",
    "--lang",
    "en",
]


def test_every_level_in_both_views_and_every_format(tmp_path: Path) -> None:
    r = CliRunner().invoke(_app(), [*ARGS, "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    doc = json.loads((tmp_path / f"zufallslabyrinth-{SEED}.json").read_text(encoding="utf-8"))
    depths = [level["depth"] for level in doc["levels"]]
    assert depths == [1, 2]
    for depth in depths:
        name = f"zufallslabyrinth-{SEED}-level{depth}"
        gm_svg = (tmp_path / f"{name}.svg").read_text(encoding="utf-8")
        player_svg = (tmp_path / f"{name}-player.svg").read_text(encoding="utf-8")
        gm_png = (tmp_path / f"{name}.png").read_bytes()
        player_png = (tmp_path / f"{name}-player.png").read_bytes()
        assert gm_svg != player_svg and gm_png != player_png
        assert _png_width(gm_png) == round(_svg_width(gm_svg) * PNG_SCALE)
    for suffix in (".md", ".html", ".txt", ".pdf"):
        assert (tmp_path / f"zufallslabyrinth-{SEED}{suffix}").stat().st_size > 0
    written = [line for line in r.output.splitlines() if line.startswith("written:")]
    # svg+png x 2 views x 2 levels, json, md, html, txt, pdf (one page per level)
    assert len(written) == 4 * 2 + 5
    assert written[-1].endswith(".png")  # pictures last: drawn while the rest is written


def test_png_scale_and_the_library_writer_agree_with_the_cli(tmp_path: Path) -> None:
    cli_dir, lib_dir = tmp_path / "cli", tmp_path / "lib"
    r = CliRunner().invoke(
        _app(), [*ARGS, "--out", str(cli_dir), "--png-scale", "1", "--format", "png,svg,json"]
    )
    assert r.exit_code == 0, r.output
    doc = json.loads((cli_dir / f"zufallslabyrinth-{SEED}.json").read_text(encoding="utf-8"))
    svg = (cli_dir / f"zufallslabyrinth-{SEED}-level1.svg").read_text(encoding="utf-8")
    png = (cli_dir / f"zufallslabyrinth-{SEED}-level1.png").read_bytes()
    assert _png_width(png) == _svg_width(svg)
    paths = write_files(doc, lib_dir, SEED, "en", ["svg", "png", "json"], png_scale=1.0)
    assert [p.suffix for p in paths][-4:] == [".png"] * 4
    for path in paths:
        assert path.read_bytes() == (cli_dir / path.name).read_bytes(), path.name
    assert set(FORMATS) == {"svg", "png", "json", "md", "html", "ascii", "pdf"}


@pytest.mark.parametrize(
    "args",
    [["--png-scale", "0.1"], ["--png-scale", "5"], ["--png-scale", "nan"], ["--png-scale", "big"]],
)
def test_png_scale_is_refused_outside_its_range(tmp_path: Path, args: list[str]) -> None:
    r = CliRunner().invoke(_app(), ["--seed", "1", "--out", str(tmp_path), *args])
    assert r.exit_code == 2
    assert "Traceback" not in r.output
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "args", [["--png-scale", "2"], ["--png-scale", "2", "--out", "x", "--format", "json"]]
)
def test_png_scale_needs_png_files(args: list[str]) -> None:
    r = CliRunner().invoke(_app(), ["--seed", "1", *args])
    assert r.exit_code == 2
    assert "--png-scale" in r.output


def test_the_cli_says_when_fewer_levels_came_out_than_were_asked_for(tmp_path: Path) -> None:
    from kerker.dungeon.engine import Params, generate
    from kerker.tables.registry import load_registry

    registry = load_registry([])
    # Find (not assume) a seed whose dungeon stops at level 1, and one that reaches 2.
    made = {seed: len(generate(Params(seed=seed, levels=2), registry).levels) for seed in range(12)}
    short = next(seed for seed, n in made.items() if n == 1)
    full = next(seed for seed, n in made.items() if n == 2)
    r = CliRunner().invoke(_app(), ["--seed", str(short), "--levels", "2", "--lang", "en"])
    assert r.exit_code == 0, r.output
    assert (
        "Levels: 1 of 2 (1); no stair, trapdoor or shaft rolled leads to 2, and a level"
        " exists only where a rolled way leads."
    ) in r.output
    r = CliRunner().invoke(
        _app(),
        [
            "--seed",
            str(full),
            "--levels",
            "2",
            "--lang",
            "en",
            "--out",
            str(tmp_path),
            "--format",
            "json",
        ],
    )
    assert r.exit_code == 0, r.output
    assert "no way leads" not in r.output
    r = CliRunner().invoke(_app(), ["--seed", str(short), "--levels", "2", "--json"])
    assert json.loads(r.output)["seed"] == short  # --json prints the document alone
