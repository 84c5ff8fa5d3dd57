"""Library hygiene: no library module imports Typer or reads ``KERKER_TABLES`` (issue 18).

Run in a fresh interpreter: Typer is blocked in ``sys.modules`` (importing it raises), the
environment holds a garbage ``KERKER_TABLES``, and every module of the library is imported;
then a heist is generated, which must not notice the stray variable.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"

PROBE = """
import importlib, pkgutil, random, sys
sys.modules["typer"] = None  # import typer -> ImportError
import kerker
CLI = ("kerker.cli", "kerker.cli_support", "kerker.commands", "kerker.__main__")
names = [m.name for m in pkgutil.walk_packages(kerker.__path__, "kerker.")
         if not m.name.startswith(CLI)]
for name in names:
    importlib.import_module(name)
assert "typer" not in {k for k, v in sys.modules.items() if v is not None}
from kerker.prowl.generate import ProwlOptions, generate
prowl = generate(ProwlOptions(4, 3, None, 0, None), random.Random(5), seed=5)
from kerker.tables.registry import load_registry
from kerker.tables.tree import table_tree
tree = table_tree(load_registry(), "zufallslabyrinth/schatz", lang="de", context={"level": 1})
assert "%" in " ".join(tree.lines(0, "de"))
print(len(names), "modules;", type(prowl).__name__)
"""


def test_library_imports_without_typer_and_ignores_kerker_tables(tmp_path: Path) -> None:
    garbage = os.pathsep.join([str(tmp_path / "no-such-folder"), "\x01[/]", ""])
    env = dict(os.environ, PYTHONPATH=str(SRC), KERKER_TABLES=garbage)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    count, _, kind = proc.stdout.partition(" modules; ")
    assert int(count) > 40
    assert kind.strip() == "Prowl"


def test_the_command_line_still_reads_kerker_tables(tmp_path: Path) -> None:
    from kerker.cli_support import table_dirs

    env_dirs = os.pathsep.join(["a", "", "b"])
    old = os.environ.get("KERKER_TABLES")
    os.environ["KERKER_TABLES"] = env_dirs
    try:
        assert table_dirs([Path("x")]) == [Path("x"), Path("a"), Path("b")]
    finally:
        if old is None:
            del os.environ["KERKER_TABLES"]
        else:
            os.environ["KERKER_TABLES"] = old
