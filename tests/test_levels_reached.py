"""``--levels N`` and the levels that exist: a level is made only where a rolled stair,
trapdoor or shaft leads (Scatola Bianca seed 11 ``--levels 3`` made levels 1 and 3: its only
way down goes two levels at once), and the CLI names the levels made and those missing."""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from kerker.commands.dungeon import dungeon_command
from kerker.dungeon.engine import Params, generate
from kerker.tables.registry import load_registry

REGISTRY = load_registry([])


@pytest.mark.parametrize("rules", ["zufallslabyrinth", "scatola-bianca"])
def test_a_missing_level_is_one_no_rolled_way_leads_to(rules: str) -> None:
    missing = 0
    bad = []
    for seed in range(1, 101):
        dungeon = generate(Params(rules=rules, seed=seed, levels=3), REGISTRY)
        depths = {level.depth for level in dungeon.levels}
        targets = {c.to_level for level in dungeon.levels for c in level.connections if c.to_level}
        for depth in set(range(1, 4)) - depths:
            missing += 1
            if depth in targets:
                bad.append(f"seed {seed}: a way leads to level {depth}, never made")
        # every level made but the first is reached by a way rolled to it
        bad += [f"seed {seed}: level {d} unreached" for d in depths - targets - {1}]
    assert missing, "some seeds make fewer levels (else the test proves nothing)"
    assert not bad, bad[:10]


def test_seed_11_cli_names_the_missing_level() -> None:
    app = typer.Typer()
    app.command()(dungeon_command)
    args = ["--rules", "scatola-bianca", "--seed", "11", "--levels", "3"]
    dungeon = generate(Params(rules="scatola-bianca", seed=11, levels=3), REGISTRY)
    assert [level.depth for level in dungeon.levels] == [1, 3]
    r = CliRunner().invoke(app, [*args, "--lang", "it"])
    assert r.exit_code == 0, r.output
    assert "Livelli: 2 su 3 (1, 3); nessuna scala, botola o camino tirato porta a 2," in r.output
    r = CliRunner().invoke(app, [*args, "--lang", "en"])
    assert "Levels: 2 of 3 (1, 3); no stair, trapdoor or shaft rolled leads to 2," in r.output
