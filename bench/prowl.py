"""Benchmark of the prowl generator (seed 004): generation, layout, tuning, rendering.

    python bench/prowl.py [--quick]

Measures and prints (never asserts a time):
1. whole prowls per second by reputation (1, 4, 10, 20);
2. the layout alone (assemble) per second for a large request;
3. fine-tuning: operations per second on one plan;
4. SVG, Markdown and PNG of a reputation-10 plan.
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable


def _rate(label: str, fn: Callable[[int], object], n: int) -> None:
    times = []
    for i in range(n):
        t0 = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - t0)
    median = statistics.median(times)
    print(f"{label:<44} {1 / median:>10.0f} /s   median {median * 1000:8.3f} ms")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args(argv)
    n = 30 if args.quick else 300

    from kerker.prowl.export import dumps
    from kerker.prowl.generate import ProwlOptions, Rules, generate
    from kerker.prowl.layout import assemble
    from kerker.prowl.render_md import render_markdown
    from kerker.prowl.render_svg import render_svg
    from kerker.prowl.tuning import Operation, TuningError, apply
    from kerker.render.png import svg_to_png
    from kerker.tables.registry import load_registry

    print(f"Python {platform.python_version()} on {platform.machine()}")
    registry = load_registry()
    rules = Rules(registry)
    for rep in (1, 4, 10, 20):
        _rate(
            f"generate, reputation {rep}",
            lambda i, rep=rep: generate(ProwlOptions(rep, 4), random.Random(i), registry=registry),
            n,
        )
    _rate(
        "assemble 6/20/10 rooms, 6 accesses, 3 points",
        lambda i: assemble(
            [(1, 6), (2, 20), (3, 10)],
            6,
            3,
            2,
            random.Random(i),
            cost=rules.branch_cost,
            max_exits=8,
            max_rooms=60,
        ),
        n,
    )
    plan = generate(ProwlOptions(10, 4), random.Random(1), registry=registry, seed=1)
    ops = [Operation("reinforce", (c.id,)) for c in plan.challenges]

    def tune_one(i: int) -> None:
        with contextlib.suppress(TuningError):
            apply(plan, ops[i % len(ops)], rules=rules)

    _rate("apply one operation (reinforce)", tune_one, n)
    _rate(
        "raise-room (rerolls a room)",
        lambda i: apply(plan, Operation("raise-room", ("R1",)), rules=rules),
        n,
    )
    _rate("JSON of a reputation-10 plan", lambda i: dumps(plan), n)
    _rate("SVG of a reputation-10 plan", lambda i: render_svg(plan, "de"), n)
    _rate("Markdown of a reputation-10 plan", lambda i: render_markdown(plan, "de"), n)
    svg = render_svg(plan, "de")
    _rate("PNG of a reputation-10 plan", lambda i: svg_to_png(svg), max(3, n // 30))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
