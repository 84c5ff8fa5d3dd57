"""Malformed table files of any kind end in a KerkerError naming the file -- never a traceback.

Hypothesis mutates a valid file (wrong types, missing keys, broken references, bad
expressions, bad dice) and also writes arbitrary text; loading, rolling and exact odds either
work or raise a KerkerError.
"""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from kerker.errors import KerkerError
from kerker.tables.engine import roll_table
from kerker.tables.odds import table_odds
from kerker.tables.registry import load_registry

FIXTURE = Path(__file__).parent / "fixtures" / "engine" / "test.yaml"
BASE: Any = YAML(typ="safe").load(FIXTURE.read_text(encoding="utf-8"))

JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.text(max_size=12),
    st.lists(st.integers(-5, 30), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
    st.sampled_from(
        [
            "W6",
            "d0",
            "1d20+",
            "W{66}",
            "{level}W4",
            "{nope}W6",
            "result >",
            "__import__('os')",
            "zz/none",
            "behaelter",
            "[1, 2]",
            "{1: 2}",
        ]
    ),
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*prefix, index))
    return found


ALL_PATHS = [p for p in _paths(BASE) if p]


def _mutate(data: Any, path: tuple[Any, ...], action: str, junk: Any) -> Any:
    data = copy.deepcopy(data)
    parent = data
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if action == "delete":
        del parent[last]
    elif action == "replace":
        parent[last] = junk
    elif action == "extra" and isinstance(parent, dict):
        parent[f"extra_{junk!s}"[:20]] = junk
    return data


def _exercise(tmp: Path, text: str) -> None:
    path = tmp / "t.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        registry = load_registry([path])
        for table in registry:
            if not table.id.startswith("test/"):
                continue
            try:
                roll_table(registry, table.id, random.Random(1))
                table_odds(registry, table.id)
            except KerkerError:
                pass
    except KerkerError as err:
        assert str(err)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    path=st.sampled_from(ALL_PATHS),
    action=st.sampled_from(["delete", "replace", "extra"]),
    junk=JUNK,
)
def test_mutated_files_fail_cleanly(
    tmp_path: Path, path: tuple[Any, ...], action: str, junk: Any
) -> None:
    mutated = _mutate(BASE, path, action, junk)
    import io

    buffer = io.StringIO()
    YAML(typ="safe").dump(mutated, buffer)
    _exercise(tmp_path, buffer.getvalue())


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(max_size=200))
def test_arbitrary_text_fails_cleanly(tmp_path: Path, text: str) -> None:
    _exercise(tmp_path, text)
