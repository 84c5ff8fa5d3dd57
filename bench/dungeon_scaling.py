"""How the dungeon walk scales with the number of areas on one level (issue 12, item 7).

Times ``generate`` alone (no document, no render) for one level on a large sheet at several
area budgets and fits ``t(n) = a*n + b*n**2`` (least squares over the budgets' medians), then
prints the share of the quadratic part at the largest budget. Run from the repository:
``python bench/dungeon_scaling.py [--runs N] [--rules R]``.
"""

from __future__ import annotations

import argparse
import inspect
import random
import statistics
import time

from kerker.dungeon import engine
from kerker.tables.registry import load_registry

REGISTRY = load_registry([])
BUDGETS = (100, 250, 500, 1000)
SIZE = (200, 200)


def _generate(params: engine.Params) -> engine.Dungeon:
    """``engine.generate`` under either signature (before and after issue 12)."""
    if len(inspect.signature(engine.generate).parameters) == 3:
        return engine.generate(params, random.Random(params.seed), REGISTRY)  # type: ignore[call-arg]
    return engine.generate(params, REGISTRY)  # type: ignore[call-arg]


def run(rules: str, runs: int) -> None:
    """Print per-budget medians, areas made, and the a*n + b*n^2 fit."""
    points = []
    for budget in BUDGETS:
        times, made = [], []
        for seed in range(runs):
            params = engine.Params(rules=rules, seed=seed, size=SIZE, max_areas=budget,
                                   min_areas=0)
            t = time.perf_counter()
            dungeon = _generate(params)
            times.append(time.perf_counter() - t)
            made.append(dungeon.area_count)
        n = statistics.median(made)
        med = statistics.median(times)
        points.append((n, med))
        print(f"{rules:17} budget {budget:5}: {n:7.0f} areas (median), {med * 1000:8.1f} ms "
              f"median, {med / max(n, 1) * 1e6:7.1f} us/area")
    # least squares for t = a n + b n^2
    s11 = sum(n * n for n, _ in points)
    s12 = sum(n ** 3 for n, _ in points)
    s22 = sum(n ** 4 for n, _ in points)
    r1 = sum(n * t for n, t in points)
    r2 = sum(n * n * t for n, t in points)
    det = s11 * s22 - s12 * s12
    a = (r1 * s22 - r2 * s12) / det
    b = (s11 * r2 - s12 * r1) / det
    n = points[-1][0]
    share = b * n * n / (a * n + b * n * n) if a * n + b * n * n else 0.0
    print(f"{rules:17} fit: a = {a * 1e6:.1f} us/area, b = {b * 1e9:.2f} ns/area^2; "
          f"quadratic share at {n:.0f} areas: {share:.0%}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rules", action="append")
    args = parser.parse_args()
    for rules in args.rules or ["zufallslabyrinth", "scatola-bianca"]:
        run(rules, args.runs)


if __name__ == "__main__":
    main()
