"""Golden documents of the Scatola Bianca procedure (KERKER_UPDATE_GOLDEN=1 rewrites them)
and the command line with ``--rules scatola-bianca``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from conftest import check_golden
from typer.testing import CliRunner

from kerker.commands.dungeon import dungeon_command
from kerker.dungeon.engine import Params, generate
from kerker.dungeon.export import dumps
from kerker.tables.registry import load_registry

GOLDEN = Path(__file__).parent / "golden"
REGISTRY = load_registry([])
CASES = [(3, "it", 1), (11, "en", 3), (66, "de", 3)]  # 66: elevator rooms, a door below stairs


def _doc(seed: int, lang: str, levels: int) -> str:
    params = Params(rules="scatola-bianca", seed=seed, size=(20, 24), max_areas=20, levels=levels)
    return dumps(generate(params, REGISTRY), lang)


@pytest.mark.parametrize(("seed", "lang", "levels"), CASES)
def test_golden_json(seed: int, lang: str, levels: int) -> None:
    text = _doc(seed, lang, levels)
    check_golden(f"scatola_bianca_{seed}.{lang}.json", text)
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
    result = runner.invoke(
        _app(), ["--rules", "scatola-bianca", "--seed", "3", "--json", "--lang", "it"]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["rules"] == "scatola-bianca" and doc["lang"] == "it"


def test_cli_caves_and_entrance(tmp_path: Path) -> None:
    """--caves goes into the document's options; --entrance is honoured; the key reads as a
    transcript in the chosen language."""
    runner = CliRunner()
    args = [
        "--rules",
        "scatola-bianca",
        "--seed",
        "5",
        "--levels",
        "2",
        "--size",
        "20x24",
        "--json",
    ]
    for caves in ("depth", "always", "never"):
        result = runner.invoke(_app(), [*args, "--caves", caves])
        assert result.exit_code == 0, result.output
        doc = json.loads(result.output)
        assert doc["options"]["caves"] == caves
        kinds = {a["kind"] for lv in doc["levels"] for a in lv["areas"]}
        assert ("chamber" not in kinds) if caves == "always" else ("cave" not in kinds)
    result = runner.invoke(_app(), [*args, "--entrance", "room"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["levels"][0]["areas"][0]["kind"] == "room"
    assert doc["options"]["entrance"] == "room"
    result = runner.invoke(
        _app(),
        [
            "--rules",
            "scatola-bianca",
            "--seed",
            "5",
            "--out",
            str(tmp_path),
            "--format",
            "md",
            "--lang",
            "de",
        ],
    )
    assert result.exit_code == 0, result.output
    # A German key writes the die the German way (W20), the Italian table's d20 included.
    assert "Wurf A.1 (W20): " in (tmp_path / "scatola-bianca-5.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "args",
    [
        ["--caves", "always"],
        ["--caves", "depth"],
        ["--rules", "scatola-bianca", "--caves", "deep"],
        ["--levels", "0"],
        ["--max-areas", "0"],
        ["--size", "5x5"],
        ["--entrance", "cellar"],
    ],
)
def test_cli_refuses_caves(args: list[str]) -> None:
    """--caves is refused for the Zufallslabyrinth (it declares no such option: its caves
    come from its own tables), a bad value for every rule set: one line, exit status 2,
    naming the flag (the library's message names the option; the CLI its flag)."""
    result = CliRunner().invoke(_app(), ["--seed", "1", *args])
    assert result.exit_code == 2
    assert args[-2] in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def test_ascii_marks_elevators_for_the_game_master_only() -> None:
    """An elevator room's way down is ``E`` in the GM preview (beside the room's number when
    it lies under it) and absent from the players' preview; ``caves`` is in the options of
    a dungeon made by the library, not only by the CLI."""
    from kerker.dungeon.export import to_document
    from kerker.dungeon.render_ascii import render_level

    found = 0
    for seed in range(40):
        dungeon = generate(Params(rules="scatola-bianca", seed=seed), load_registry([]))
        doc = to_document(dungeon, "en")
        assert doc["options"]["caves"] == "depth"
        level = doc["levels"][0]
        if not any(c["kind"] == "elevator" for c in level["connections"]):
            continue
        found += 1
        assert "E" in render_level(level, "gm")
        assert "E" not in render_level(level, "player")
    assert found
