"""Rule-file loading: YAML 1.2 semantics, clear errors, compiled twins that never go stale."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kerker.errors import RuleDataError
from kerker.yamlio import compiled_twin, load_rule_file, load_yaml_text, twin_path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "src" / "kerker" / "rules"


def test_yaml_1_2_keeps_italian_no_and_german_ja_as_text() -> None:
    data = load_yaml_text("a: no\nb: ja\nc: yes\nd: on\n", "t.yaml")
    assert data == {"a": "no", "b": "ja", "c": "yes", "d": "on"}


@pytest.mark.parametrize("text", ["a: [1, 2", "a: b: c", "- x\ny: 1", "\t- a", "a: *nope"])
def test_broken_yaml_is_a_rule_data_error(text: str) -> None:
    with pytest.raises(RuleDataError) as info:
        load_yaml_text(text, "broken.yaml")
    assert str(info.value).startswith("broken.yaml")


def test_every_shipped_twin_is_fresh() -> None:
    shipped = sorted(RULES.rglob("*.yaml"))
    assert shipped
    for path in shipped:
        assert twin_path(path).read_text(encoding="utf-8") == compiled_twin(path), path


def test_a_stale_twin_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("value: 1\n", encoding="utf-8")
    twin_path(path).write_text(compiled_twin(path), encoding="utf-8")
    assert load_rule_file(path) == {"value": 1}
    path.write_text("value: 2\n", encoding="utf-8")  # edited after compiling
    assert load_rule_file(path) == {"value": 2}
    twin_path(path).write_text("{not json", encoding="utf-8")
    assert load_rule_file(path) == {"value": 2}


def test_unreadable_file_is_a_rule_data_error(tmp_path: Path) -> None:
    with pytest.raises(RuleDataError):
        load_rule_file(tmp_path / "missing.yaml")
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes("a: Gl\xfcck\n".encode("latin-1"))
    with pytest.raises(RuleDataError):
        load_rule_file(bad)


def test_compile_script_check_mode_passes() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "compile_rules.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout
