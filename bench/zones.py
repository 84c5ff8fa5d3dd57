"""Benchmark of zone maps (seed 002): maps per second, 8x8 nodes.

    python bench/zones.py [--quick] [--size 8x8]

Measures and prints (never asserts a time), each the median of repeats over fresh seeds:
1. the layout only (steps 1-4, hidden connections, start; no details);
2. a whole map (names, properties, senses, encounters, loot, hints);
3. a whole map and its game master's SVG;
4. a whole map, its SVG and the PNG drawn from it (resvg, scale 2);
5. the JSON and Markdown of a whole map.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable


def rate(work: Callable[[int], object], runs: int, budget: float) -> tuple[float, int]:
    """Median calls per second over ``runs`` windows of ``budget`` seconds; seeds go up."""
    rates = []
    seed = 0
    for _ in range(runs):
        n = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < budget:
            work(seed)
            seed += 1
            n += 1
        rates.append(n / (time.perf_counter() - t0))
    return statistics.median(rates), seed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few repeats (a smoke test)")
    parser.add_argument("--size", default="8x8", help="map size, WxH (default 8x8)")
    args = parser.parse_args(argv)
    runs = 3 if args.quick else 7
    budget = 0.1 if args.quick else 0.5

    from kerker import __version__
    from kerker.tables.registry import load_registry
    from kerker.zones import ZoneParams, generate, parse_size
    from kerker.zones.export import dumps
    from kerker.zones.render_md import render_md
    from kerker.zones.render_svg import render_png, render_svg

    size = parse_size(args.size)
    registry = load_registry()
    print(f"kerker {__version__}, Python {platform.python_version()}, {os.cpu_count()} cpus")
    print(f"zone maps {size[0]}x{size[1]}, theme scifi (median of {runs} runs)")
    print()

    def layout(seed: int) -> object:
        return generate(ZoneParams(size=size, details=False), random.Random(seed), registry)

    def full(seed: int) -> object:
        return generate(ZoneParams(size=size), random.Random(seed), registry)

    def with_svg(seed: int) -> object:
        return render_svg(generate(ZoneParams(size=size), random.Random(seed), registry), lang="de")

    def with_png(seed: int) -> object:
        zmap = generate(ZoneParams(size=size), random.Random(seed), registry)
        render_svg(zmap, lang="de")
        return render_png(zmap, lang="de")

    def texts(seed: int) -> object:
        zmap = generate(ZoneParams(size=size), random.Random(seed), registry)
        return dumps(zmap, "de"), render_md(zmap, "de")

    sample = generate(ZoneParams(size=size), random.Random(0), registry)
    print(
        f"   (seed 0: {len(sample.zones)} zones, {len(sample.areas)} areas, "
        f"{len(sample.connections)} connections, {len(sample.log)} dice)"
    )
    for label, work in (
        ("1. layout only", layout),
        ("2. whole map (details)", full),
        ("3. whole map + SVG", with_svg),
        ("4. whole map + SVG + PNG", with_png),
        ("5. whole map + JSON + Markdown", texts),
    ):
        per_second, _seeds = rate(work, runs, budget)
        print(f"   {label:34} {per_second:9,.1f} maps/s   {1000 / per_second:8.2f} ms/map")
    return 0


if __name__ == "__main__":
    sys.exit(main())
