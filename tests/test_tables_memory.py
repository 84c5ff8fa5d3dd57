"""Memory that must not grow: the row-index cache of the table roller and the exact-odds
cache are bounded by size, so a long-running process (a web server generating heists for
days) stays flat. Counts and traced memory, no clock."""

from __future__ import annotations

import gc
import random
import sys

import pytest

from kerker.dice import exact, odds
from kerker.prowl.generate import ProwlOptions, generate
from kerker.tables import engine
from kerker.tables.registry import load_registry


def _heists(registry: object, seeds: range) -> None:
    for seed in seeds:
        generate(ProwlOptions(3, 3), random.Random(seed), registry=registry, seed=seed)  # type: ignore[arg-type]


def test_generating_heists_stays_flat_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each heist builds a table of its own (its factions), so before the bound every heist
    # left ~24 KB of row index behind (96 MiB until a clear at 4 096 entries). With a
    # smaller bound the plateau comes after a few heists instead of a few hundred.
    # Memory blocks held by the interpreter, counted (cheap, unlike tracing every one).
    monkeypatch.setattr(engine, "MAX_INDEXES", 16)
    registry = load_registry([])
    _heists(registry, range(200))  # the plateau: 16 indexes, every bounded cache full
    gc.collect()
    before = sys.getallocatedblocks()
    _heists(registry, range(200, 350))
    gc.collect()
    after = sys.getallocatedblocks()
    assert len(engine._INDEXES) <= 16
    # 150 heists: unbounded, ~49 000 more blocks (~325 per heist); bounded, a few stragglers.
    assert after - before < 3_000, after - before


def test_the_row_index_cache_never_passes_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    assert engine.MAX_INDEXES >= 200  # every shipped table's rows fit (about 150 of them)
    monkeypatch.setattr(engine, "MAX_INDEXES", 32)
    registry = load_registry([])
    _heists(registry, range(80))
    assert len(engine._INDEXES) == 32


def test_the_odds_cache_is_bounded_in_entries_and_outcomes() -> None:
    exact._odds_cached.cache_clear()
    for n in range(1, exact.MAX_CACHED + 60):
        odds(f"W{n} + {n}")
    assert len(exact._odds_cached) == exact.MAX_CACHED
    for n in range(60):
        odds(f"W{9000 + n}")  # 9 000 outcomes each
    assert exact._odds_cached.outcomes() <= exact.MAX_CACHED_OUTCOMES
    assert len(exact._odds_cached) < exact.MAX_CACHED
    exact._odds_cached.cache_clear()
    assert exact._odds_cached.outcomes() == 0


RSS_PROBE = """
import random, sys
from kerker.prowl.generate import ProwlOptions, generate
from kerker.tables.registry import load_registry

def rss_kib():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise SystemExit("no VmRSS")

registry = load_registry([])
marks = []
for seed in range(10_000):
    generate(ProwlOptions(1 + seed % 20, 1 + seed % 6), random.Random(seed), registry=registry,
             seed=seed)
    if seed in (2_000, 9_999):
        marks.append(rss_kib())
print(*marks)
"""


def test_rss_stays_flat_over_ten_thousand_heists() -> None:
    """The process a web server runs for days: 10 000 heists of every reputation in one
    process, resident memory read from Linux after 2 000 and after 10 000. Before the caches
    were bounded it grew ~24 KB a heist (about 190 MiB over these 8 000)."""
    import subprocess
    from pathlib import Path

    if not Path("/proc/self/status").exists():
        pytest.skip("needs Linux /proc")
    src = Path(__file__).resolve().parents[1] / "src"
    proc = subprocess.run(
        [sys.executable, "-c", RSS_PROBE],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"},
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    early, late = map(int, proc.stdout.split())
    assert late - early < 16 * 1024, (early, late)  # KiB: under 2 KB a heist at most
