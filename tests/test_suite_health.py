"""The suite's own rules (tests/README.md): no wall clock in a test, resources outside the
repository fail under CI, goldens are never blessed by CI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import check_golden, require

TESTS = Path(__file__).parent
CLOCK = re.compile(
    r"\b(perf_counter|process_time|monotonic|time\.time|setitimer|"
    r"signal\.alarm)\b"
)


def test_no_test_reads_a_clock() -> None:
    offenders = []
    for path in sorted(TESTS.glob("*.py")):
        if path.name == Path(__file__).name:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if CLOCK.search(line):
                offenders.append(f"{path.name}:{number}: {line.strip()}")
    assert not offenders, "wall-clock in tests (bound the work instead):\n" + "\n".join(offenders)


def test_require_fails_under_ci_and_skips_locally(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "no-such-seed.txt"
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true needs it"):
        require(missing, "a rule text")
    monkeypatch.setenv("CI", "")
    with pytest.raises(pytest.skip.Exception):
        require(missing, "a rule text")
    missing.write_text("x", encoding="utf-8")
    assert require(missing, "a rule text") == missing


def test_a_missing_golden_is_not_written_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    name = "never-written-by-ci.txt"
    path = TESTS / "golden" / name
    assert not path.exists()
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("KERKER_UPDATE_GOLDEN", raising=False)
    with pytest.raises(pytest.fail.Exception, match="is missing"):
        check_golden(name, "text")
    assert not path.exists()
