"""Shared test configuration.

Hypothesis profiles (choose with ``HYPOTHESIS_PROFILE=<name>``):

- ``default``: no per-example deadline (the first call of an expression compiles and caches
  it, which would make timing-based deadlines flaky); example counts are set per test.
- ``ci``: the same, derandomized, so a CI run is reproducible from the commit alone.

:func:`require` is the one gate for resources outside the repository (the rule texts,
later a browser or PostgreSQL): missing, a test fails under ``CI=true`` and skips locally.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("default", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def in_ci() -> bool:
    """Whether the suite runs in CI (``CI=true``, as every CI service sets it)."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def require(path: Path, what: str) -> Path:
    """``path`` when it exists; else the test FAILS under CI and is skipped locally.

    For everything a test needs from outside the repository: the rule texts beside the
    checkout (``../shared/seeds``), later a browser or a PostgreSQL server (pass the path of
    the executable or socket). A CI run that silently skipped them would prove nothing.
    """
    if path.exists():
        return path
    message = f"{what} not found ({path})"
    if in_ci():
        pytest.fail(f"{message}; CI=true needs it", pytrace=False)
    pytest.skip(message)
    raise AssertionError("unreachable")  # pytest.skip raises


GOLDEN = Path(__file__).parent / "golden"


def updating_golden() -> bool:
    """Whether this run rewrites the golden files (``KERKER_UPDATE_GOLDEN=1``)."""
    return os.environ.get("KERKER_UPDATE_GOLDEN") == "1"


def check_golden(name: str, text: str) -> None:
    """Compare ``text`` with ``tests/golden/<name>``.

    ``KERKER_UPDATE_GOLDEN=1`` rewrites the file (say why in the commit). A missing golden
    FAILS under ``CI=true`` without being written (CI must never bless its own output);
    locally it is written and the test fails once, asking for a review and a commit.
    """
    path = GOLDEN / name
    if updating_golden():
        path.write_text(text, encoding="utf-8", newline="\n")
        return
    if not path.exists():
        if in_ci():
            pytest.fail(
                f"golden {name} is missing; run KERKER_UPDATE_GOLDEN=1 pytest "
                "locally, review it and commit it",
                pytrace=False,
            )
        path.write_text(text, encoding="utf-8", newline="\n")
        pytest.fail(
            f"golden {name} was missing and has been written; review it, commit it and run again",
            pytrace=False,
        )
    assert text == path.read_text(encoding="utf-8"), (
        f"{name} differs from its golden; if the change is on purpose, rewrite the goldens "
        "with KERKER_UPDATE_GOLDEN=1 and say why in the commit"
    )
