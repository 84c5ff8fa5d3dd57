"""The README's dungeon examples show what they say: a line that asks for N levels of a seed
gets N levels (issue 17: the Scatola Bianca example gave one level of three)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from kerker.dungeon.api import generate
from kerker.dungeon.engine import Params
from kerker.tables.registry import load_registry

README = Path(__file__).resolve().parents[1] / "README.md"


def _examples() -> list[list[str]]:
    out = []
    for line in README.read_text(encoding="utf-8").splitlines():
        command = line.split("#", 1)[0].strip()
        if re.match(r"^kerker dungeon .*--seed \d+.*--levels \d+", command):
            out.append(shlex.split(command)[2:])
    return out


def _option(args: list[str], name: str, default: str) -> str:
    return args[args.index(name) + 1] if name in args else default


def test_readme_dungeon_examples_reach_the_levels_they_ask_for() -> None:
    examples = _examples()
    assert len(examples) >= 2
    registry = load_registry()
    for args in examples:
        levels = int(_option(args, "--levels", "1"))
        params = Params(
            rules=_option(args, "--rules", "zufallslabyrinth"),
            seed=int(_option(args, "--seed", "0")),
            levels=levels,
        )
        made = len(generate(params.checked(), registry).levels)
        assert made == levels, (args, made)
