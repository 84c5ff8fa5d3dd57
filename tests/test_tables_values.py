"""Own tables that replace shipped ones are checked against the procedures' value schemas.

The issue's cases (each crashed or hung a generator before): for each, a copy of the
shipped file with one value changed is refused on loading with file:line, ``table lint``
reports the same line, and the generator behind the command gets a clean error instead of a
traceback. Then the other side: a table with every value at the edge of its declared range
is accepted, and the generator finishes with it.
"""

from __future__ import annotations

import contextlib
import random
import shutil
from pathlib import Path

import pytest

from kerker.dungeon.engine import Params
from kerker.dungeon.engine import generate as dungeon_generate
from kerker.errors import KerkerError, RuleDataError
from kerker.prowl.generate import ProwlOptions
from kerker.prowl.generate import generate as prowl_generate
from kerker.tables.lint import lint_paths
from kerker.tables.registry import RULES_DIR, load_registry, shipped_paths
from kerker.tables.values import check_file, rule_set_values
from kerker.yamlio import load_rule_file


def _override(tmp_path: Path, rel: str, old: str, new: str, count: int = 1) -> tuple[Path, int]:
    """A copy of a shipped file with ``old`` replaced by ``new``; the first changed line."""
    text = (RULES_DIR / rel).read_text(encoding="utf-8")
    assert old in text, old
    line = text[: text.index(old)].count("\n") + 1
    path = tmp_path / rel.replace("/", "-")
    path.write_text(text.replace(old, new, count), encoding="utf-8")
    return path, line


def _generate(rel: str, registry: object, seed: int = 3) -> None:
    rng = random.Random(seed)
    if rel.startswith("mazeprowl"):
        prowl_generate(ProwlOptions(reputation=30, players=4), rng, registry=registry)  # type: ignore[arg-type]
    else:
        rules = rel.split("/")[0]
        dungeon_generate(Params(rules=rules, seed=seed, size=(60, 60), max_areas=25), registry)  # type: ignore[arg-type]


CASES = [
    # mazeprowl `divisor: 0` -> ZeroDivisionError
    (
        "mazeprowl/tables.yaml",
        "value: {basis: rw, divisor: 1}",
        "value: {basis: rw, divisor: 0}",
        "divisor must be between 1 and",
    ),
    # a scatola-bianca exit row without `wall` -> KeyError
    (
        "scatola-bianca/stanze.yaml",
        "value: {wall: opposite}",
        "value: {}",
        "read 'wall' from every row",
    ),
    # `area_sqft: true` -> ValueError
    (
        "scatola-bianca/stanze.yaml",
        "area_sqft: 400}",
        "area_sqft: true}",
        "area_sqft must be a whole number, not True",
    ),
    # loot present without a follow-up roll -> IndexError in roll_loot
    (
        "mazeprowl/tables.yaml",
        "        value: {loot: true}\n        effects:\n          - roll: loot-secured\n",
        "        value: {loot: true}\n",
        "needs a follow-up roll",
    ),
    # `width_ft: 1000000` -> still running at 120 s
    (
        "scatola-bianca/corridoi.yaml",
        "value: {width_ft: 10}",
        "value: {width_ft: 1000000}",
        "width_ft must be between 5 and 120, not 1000000",
    ),
    # room sizes of 1 000 000 -> 19.3 GB
    (
        "scatola-bianca/stanze.yaml",
        "w_ft: 20, h_ft: 20, area_sqft: 400",
        "w_ft: 1000000, h_ft: 1000000, area_sqft: 1000000000000",
        "w_ft must be between",
    ),
    (
        "zufallslabyrinth/raeume.yaml",
        "value: {kind: room, w: 1, h: 1, area: 1}",
        "value: {kind: room, w: 1000000, h: 1000000, area: 1000000000000}",
        "w must be between",
    ),
    # a text the procedure branches on
    (
        "scatola-bianca/stanze.yaml",
        "value: {wall: opposite}",
        "value: {wall: upstairs}",
        "wall must be one of left, opposite, right, same, not 'upstairs'",
    ),
]


@pytest.mark.parametrize(
    ("rel", "old", "new", "expected"), CASES, ids=[f"{c[0]}:{c[3][:20]}" for c in CASES]
)
def test_bad_override_is_refused_on_loading_and_by_lint(
    tmp_path: Path, rel: str, old: str, new: str, expected: str
) -> None:
    path, line = _override(tmp_path, rel, old, new)
    with pytest.raises(RuleDataError) as info:
        load_registry([path])
    message = str(info.value)
    assert expected in message and "\n" not in message
    where = message.split(": ", 1)[0]
    assert where.startswith(f"{path}:")
    assert abs(int(where.rsplit(":", 1)[1]) - line) <= 8  # the row (it starts above) or its value
    problems = [p for p in lint_paths([path]) if expected in p.message]
    assert problems, [str(p) for p in lint_paths([path])]
    assert all(abs(p.line - line) <= 8 for p in problems)


@pytest.mark.parametrize("rel", ["mazeprowl/tables.yaml", "scatola-bianca/corridoi.yaml"])
def test_the_commands_give_one_line_for_a_bad_override(tmp_path: Path, rel: str) -> None:
    from typer.testing import CliRunner

    from kerker.cli import app

    case = next(c for c in CASES if c[0] == rel)
    path, _line = _override(tmp_path, case[0], case[1], case[2])
    argv = (
        ["prowl", "--reputation", "30", "--players", "4", "--tables", str(path)]
        if rel.startswith("mazeprowl")
        else ["dungeon", "--rules", "scatola-bianca", "--seed", "1", "--tables", str(path)]
    )
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert case[3] in result.output


def _edge_file(tmp_path: Path, rel: str, edits: list[tuple[str, str]]) -> Path:
    text = (RULES_DIR / rel).read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / rel.replace("/", "-")
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("rel", "edits"),
    [
        ("mazeprowl/tables.yaml", [("divisor: 2", "divisor: 1"), ("divisor: 1,", "divisor: 1,")]),
        (
            "scatola-bianca/corridoi.yaml",
            [
                ("value: {width_ft: 10}", "value: {width_ft: 120}"),
                ("value: {width_ft: 20}", "value: {width_ft: 5}"),
            ],
        ),
    ],
)
def test_values_at_the_edge_of_the_schema_load_and_generate(
    tmp_path: Path, rel: str, edits: list[tuple[str, str]]
) -> None:
    path = _edge_file(tmp_path, rel, edits)
    registry = load_registry([path])
    for seed in (1, 2, 3):
        with contextlib.suppress(KerkerError):  # a clean refusal is allowed, a crash is not
            _generate(rel, registry, seed)


def test_every_shipped_table_fits_its_schema() -> None:
    for path in shipped_paths():
        data = load_rule_file(path)
        if isinstance(data, dict) and "tables" in data:
            assert check_file(data) == [], path


def test_every_declared_table_exists_and_every_required_name_is_shipped() -> None:
    registry = load_registry()
    for rule_set in ("hpr", "mazeprowl", "scatola-bianca", "zonenkarten", "zufallslabyrinth"):
        spec = rule_set_values(rule_set)
        assert spec is not None, rule_set
        for name, table_spec in spec.tables.items():
            table = registry.get(f"{rule_set}/{name}")
            for row in table.rows:
                for required in table_spec.required:
                    assert required in row.value, (table.id, row.key, required)


def test_a_user_rule_set_has_no_schema(tmp_path: Path) -> None:
    src = RULES_DIR / "mazeprowl" / "tables.yaml"
    text = src.read_text(encoding="utf-8").replace("rule_set: mazeprowl", "rule_set: mine", 1)
    text = text.replace("divisor: 1}", "divisor: 0}")
    path = tmp_path / "mine.yaml"
    path.write_text(text, encoding="utf-8")
    shutil.copy(path, tmp_path / "copy.yaml")
    assert "mine/layout" in load_registry([path]).tables  # not read by a procedure


def test_lint_warns_but_passes_when_a_language_is_missing(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from kerker.cli import app

    path = tmp_path / "de_only.yaml"
    path.write_text(
        "schema: 1\nrule_set: mine\nlanguage: de\ntables:\n  - name: x\n"
        "    title: {de: X}\n    source: {heading: X}\n    dice: W2\n    rows:\n"
        "      - range: [1, 2]\n        text: {de: nur deutsch, en: English too}\n",
        encoding="utf-8",
    )
    problems = lint_paths([path])
    assert [(p.line, p.warning) for p in problems] == [(6, True), (11, True)]
    assert problems[0].message == "warning: title has no text in it, en"
    assert problems[1].message == "warning: text has no text in it"
    result = CliRunner().invoke(app, ["table", "lint", str(path)])
    assert result.exit_code == 0 and "warning: text has no text in it" in result.output
    assert "x" in load_registry([path]).get("mine/x").id  # loading accepts it too
