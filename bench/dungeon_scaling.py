"""How the dungeon walk scales with the number of areas on one level (issue 12, item 7).

Times ``generate`` alone (no document, no render) for one level on a 200 x 200 sheet with a
budget of 1 000 areas, over many seeds (their walks end anywhere from a few to ~1 000 areas),
and fits ``t(n) = a*n + b*n**2`` (least squares over the seeds), then prints the share of the
quadratic part. Run from the repository:
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
SIZE = (200, 200)


def _generate(params: engine.Params) -> engine.Dungeon:
    """``engine.generate`` under either signature (before and after issue 12)."""
    positional = [
        p
        for p in inspect.signature(engine.generate).parameters.values()
        if p.kind is p.POSITIONAL_OR_KEYWORD
    ]
    if len(positional) == 3:
        return engine.generate(params, random.Random(params.seed), REGISTRY)  # type: ignore[call-arg]
    return engine.generate(params, REGISTRY)  # type: ignore[call-arg]


def run(rules: str, runs: int) -> None:
    """Time ``runs`` seeds with a budget of 1 000 areas on a 200 x 200 sheet; fit
    ``t = a*n + b*n^2`` over the seeds (their walks end at very different sizes) and print
    the quadratic part's share at the largest and at 1 000 areas."""
    points = []
    for seed in range(runs):
        params = engine.Params(rules=rules, seed=seed, size=SIZE, max_areas=1000, min_areas=0)
        t = time.process_time()  # CPU time: other processes on the machine count less
        dungeon = _generate(params)
        points.append((dungeon.area_count, time.process_time() - t))
    points.sort()
    big = [p for p in points if p[0] >= 300]
    print(
        f"{rules:17} {runs} seeds: areas median {statistics.median(n for n, _ in points):.0f}, "
        f"max {points[-1][0]}; {len(big)} seeds with 300+ areas"
    )
    for lo, hi in ((0, 100), (100, 300), (300, 600), (600, 2000)):
        sel = [(n, t) for n, t in points if lo <= n < hi]
        if sel:
            per = statistics.median(t / n for n, t in sel)
            print(
                f"{'':17}   {lo:4}-{hi:<4} areas: {len(sel):3} seeds, {per * 1e6:7.1f} us/area "
                f"(median), {statistics.median(t for _, t in sel) * 1000:8.1f} ms"
            )
    s11 = sum(n * n for n, _ in points)
    s12 = sum(n**3 for n, _ in points)
    s22 = sum(n**4 for n, _ in points)
    r1 = sum(n * t for n, t in points)
    r2 = sum(n * n * t for n, t in points)
    det = s11 * s22 - s12 * s12
    if not det:
        return
    a = (r1 * s22 - r2 * s12) / det
    b = (s11 * r2 - s12 * r1) / det
    for n in sorted({points[-1][0], 1000}):
        share = b * n * n / (a * n + b * n * n)
        print(
            f"{'':17}   fit a = {a * 1e6:.1f} us/area, b = {b * 1e9:.1f} ns/area^2: "
            f"quadratic share at {n} areas {share:.0%}"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--rules", action="append")
    args = parser.parse_args()
    for rules in args.rules or ["zufallslabyrinth", "scatola-bianca"]:
        run(rules, args.runs)


if __name__ == "__main__":
    main()
