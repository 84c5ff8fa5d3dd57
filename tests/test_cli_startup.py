"""Start-up hygiene of the command line: a command loads only what it needs.

``kerker roll 1d20`` must not import the other commands, Rich, pydantic, ruamel.yaml, the
table engine, the generators or any web stack (issue 18: start-up <= 100 ms; the figures are
in bench/, not here: this test counts modules, not milliseconds).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"

PROBE = """
import json, sys
sys.argv = ["kerker", *json.loads(sys.argv[1])]
from kerker import cli
code = 0
try:
    cli.main()
except SystemExit as stop:
    code = stop.code
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
"""

HEAVY = (
    "rich",
    "pydantic",
    "ruamel",
    "kerker.tables",
    "kerker.dungeon",
    "kerker.zones",
    "kerker.prowl",
    "kerker.render",
    "kerker.checks",
    "fastapi",
    "starlette",
    "uvicorn",
    "jinja2",
    "pyvips",
)


def loaded(*args: str) -> tuple[str, set[str]]:
    env = dict(os.environ, PYTHONPATH=str(SRC), LANG="C.UTF-8", LC_ALL="C.UTF-8")
    env.pop("KERKER_TABLES", None)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(list(args))],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    _head, _, modules = proc.stderr.rpartition("MODULES ")
    return proc.stdout, set(json.loads(modules))


def test_roll_builds_only_its_own_command() -> None:
    out, modules = loaded("roll", "1d20", "--seed", "3")
    assert out.strip().startswith("1d20 -> [")  # the dice shown at the table (issue 17)
    commands = {m for m in modules if m.startswith("kerker.commands.")}
    assert commands == {"kerker.commands.dice"}
    assert "kerker.cli_help" not in modules  # the help formatter: only for a help page
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY or m.startswith(HEAVY))
    assert heavy == []


def test_help_still_lists_every_command() -> None:
    out, modules = loaded("--help")
    for name in ("roll", "odds", "check", "dungeon", "table", "zones", "prowl"):
        assert f"  {name} " in out
    assert "pydantic" not in modules and "kerker.dungeon.engine" not in modules


def test_a_sub_command_group_builds_on_demand() -> None:
    out, modules = loaded("table", "schema")
    assert json.loads(out)["title"]
    assert "kerker.commands.dice" not in modules and "kerker.commands.dungeon" not in modules


def test_a_command_registered_the_usual_way_is_kept() -> None:
    import typer
    from typer.testing import CliRunner

    from kerker.cli import LazyGroup

    extra = typer.Typer(cls=LazyGroup, add_completion=False)

    @extra.command("hello")
    def hello() -> None:
        print("hi")

    @extra.command("other")
    def other() -> None:
        print("other")

    assert CliRunner().invoke(extra, ["hello"]).stdout == "hi\n"
    listed = CliRunner().invoke(extra, ["--help"]).stdout
    assert "hello" in listed and "roll" in listed
