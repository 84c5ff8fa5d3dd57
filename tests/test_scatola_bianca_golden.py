"""Golden documents of the Scatola Bianca procedure (KERKER_UPDATE_GOLDEN=1 rewrites them)
and the command line with ``--rules scatola-bianca``."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from kerker.commands.dungeon import dungeon_command
from kerker.dungeon.engine import Params, generate
from kerker.dungeon.export import dumps
from kerker.tables.registry import load_registry

GOLDEN = Path(__file__).parent / "golden"
REGISTRY = load_registry([])
CASES = [(3, "it", 1), (11, "en", 3)]


def _doc(seed: int, lang: str, levels: int) -> str:
    params = Params(rules="scatola-bianca", seed=seed, size=(20, 24), max_areas=20,
                    levels=levels)
    return dumps(generate(params, random.Random(seed), REGISTRY), lang)


@pytest.mark.parametrize(("seed", "lang", "levels"), CASES)
def test_golden_json(seed: int, lang: str, levels: int) -> None:
    path = GOLDEN / f"scatola_bianca_{seed}.{lang}.json"
    text = _doc(seed, lang, levels)
    if os.environ.get("KERKER_UPDATE_GOLDEN") or not path.exists():
        path.write_text(text, encoding="utf-8", newline="\n")
    assert text == path.read_text(encoding="utf-8")
    assert json.loads(text)["rules"] == "scatola-bianca"


def _app() -> typer.Typer:
    app = typer.Typer()
    app.command()(dungeon_command)
    return app


def test_cli_preview_and_json() -> None:
    runner = CliRunner()
    result = runner.invoke(_app(), ["--rules", "scatola-bianca", "--seed", "3", "--lang", "it"])
    assert result.exit_code == 0, result.output
    assert "Corridoio" in result.output or "#" in result.output
    result = runner.invoke(_app(), ["--rules", "scatola-bianca", "--seed", "3", "--json",
                                    "--lang", "it"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["rules"] == "scatola-bianca" and doc["lang"] == "it"
