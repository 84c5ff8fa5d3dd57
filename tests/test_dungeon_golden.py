"""Golden dungeon documents for fixed seeds (KERKER_UPDATE_GOLDEN=1 rewrites them), the
ASCII preview and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from conftest import check_golden
from typer.testing import CliRunner

from kerker.commands.dungeon import dungeon_command
from kerker.dungeon.engine import Params, generate
from kerker.dungeon.export import dumps, to_document
from kerker.dungeon.render_ascii import render_ascii
from kerker.tables.registry import load_registry

GOLDEN = Path(__file__).parent / "golden"
REGISTRY = load_registry([])
CASES = [(7, "de", 1), (42, "en", 2), (1234, "it", 1)]


def _doc(seed: int, lang: str, levels: int) -> str:
    params = Params(seed=seed, size=(20, 24), max_areas=20, levels=levels)
    return dumps(generate(params, REGISTRY), lang)


@pytest.mark.parametrize(("seed", "lang", "levels"), CASES)
def test_golden_json(seed: int, lang: str, levels: int) -> None:
    text = _doc(seed, lang, levels)
    check_golden(f"dungeon_{seed}.{lang}.json", text)
    doc = json.loads(text)
    assert set(doc) == {"kerker", "format", "rules", "seed", "lang", "options", "levels", "stats"}


def test_ascii_fits_100_columns() -> None:
    doc = to_document(generate(Params(seed=5), REGISTRY), "de")
    text = render_ascii(doc)
    assert max(len(line) for line in text.splitlines()) <= 100
    assert "1" in text


def _app() -> typer.Typer:
    app = typer.Typer()
    app.command()(dungeon_command)
    return app


def test_cli_preview_json_and_out(tmp_path: Path) -> None:
    runner = CliRunner()
    r = runner.invoke(_app(), ["--seed", "9", "--lang", "en", "--size", "20x20"])
    assert r.exit_code == 0, r.output
    assert "Seed 9" in r.output
    r = runner.invoke(_app(), ["--seed", "9", "--json", "--size", "20x20"])
    assert r.exit_code == 0
    assert json.loads(r.output)["seed"] == 9
    r = runner.invoke(_app(), ["--seed", "9", "--out", str(tmp_path), "--format", "json,ascii"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "zufallslabyrinth-9.json").exists()
    assert (tmp_path / "zufallslabyrinth-9.txt").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["--levels", "0"],
        ["--size", "5x5"],
        ["--size", "axb"],
        ["--max-areas", "0"],
        ["--rules", "nope"],
        ["--entrance", "door"],
        ["--format", "gif", "--out", "x"],
    ],
)
def test_cli_refuses_bad_options(args: list[str]) -> None:
    r = CliRunner().invoke(_app(), ["--seed", "1", *args])
    assert r.exit_code == 2
    assert "error" in r.output
