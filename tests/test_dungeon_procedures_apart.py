"""Issue 12, point 6: procedures are plug-ins side by side. No procedure module imports
another, no procedure class subclasses another; what they share is the toolkit
(kerker.dungeon.corridors, kerker.dungeon.toolkit, kerker.dungeon.bend), which names no
table and imports no procedure. Read from the sources (ast), nothing is run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import kerker

PACKAGE = Path(kerker.__file__).parent
TOOLKIT = ("dungeon/corridors.py", "dungeon/toolkit.py", "dungeon/bend.py")
RULE_SETS = sorted(p.name for p in (PACKAGE / "rules").iterdir() if p.is_dir())


def _module(path: Path) -> str:
    return ".".join(("kerker", *path.relative_to(PACKAGE).with_suffix("").parts))


def _imports(path: Path, tree: ast.Module) -> set[str]:
    """Every module ``path`` imports (anywhere in it, relative imports resolved), and each
    ``from X import name`` also as ``X.name`` (a submodule imported by name)."""
    package = _module(path).rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return found


def _procedures() -> dict[str, tuple[Path, ast.Module, str]]:
    """Module -> (path, tree, the class of its ``PROCEDURE``) for every procedure module of
    the package (a module-level ``PROCEDURE = SomeClass()``)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "PROCEDURE" for t in node.targets)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name)
            ):
                out[_module(path)] = (path, tree, node.value.func.id)
    return out


def test_both_procedures_are_found() -> None:
    found = _procedures()
    assert {"kerker.dungeon.zufallslabyrinth", "kerker.dungeon.scatola_bianca"} <= set(found)


def test_no_procedure_module_imports_another() -> None:
    found = _procedures()
    for name, (path, tree, _cls) in found.items():
        others = set(found) - {name}
        assert not _imports(path, tree) & others, (name, _imports(path, tree) & others)


def test_no_procedure_subclasses_another() -> None:
    found = _procedures()
    classes = {cls for _path, _tree, cls in found.values()}
    assert len(classes) == len(found)
    for name, (_path, tree, _cls) in found.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {b.id if isinstance(b, ast.Name) else ast.unparse(b) for b in node.bases}
            bases = {b.rsplit(".", 1)[-1] for b in bases}
            assert not bases & classes, (name, node.name, bases & classes)


def test_the_toolkit_names_no_table_and_imports_no_procedure() -> None:
    procedures = set(_procedures())
    for rel in TOOLKIT:
        path = PACKAGE / rel
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert not _imports(path, tree) & procedures, rel
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for rules in RULE_SETS:
                    assert f"{rules}/" not in node.value, (rel, rules, node.value[:60])


def test_the_checks_catch_a_procedure_built_on_another() -> None:
    """The import and base-class checks fail on what this test was written against: the
    Scatola Bianca of before issue 12's split (``class ScatolaBianca(Zufallslabyrinth)``)."""
    path = PACKAGE / "dungeon" / "scatola_bianca.py"
    old = (
        "from kerker.dungeon.zufallslabyrinth import Zufallslabyrinth\n"
        "from .zufallslabyrinth import walk\n"
        "class ScatolaBianca(Zufallslabyrinth):\n    pass\n"
        "PROCEDURE = ScatolaBianca()\n"
    )
    tree = ast.parse(old)
    assert "kerker.dungeon.zufallslabyrinth" in _imports(path, tree)
    bases = {b.id for n in ast.walk(tree) if isinstance(n, ast.ClassDef) for b in n.bases}  # type: ignore[attr-defined]
    assert bases == {"Zufallslabyrinth"}
