"""Dungeon benchmark (issues 4 and 5): time per level of about 60 areas with and without the
SVG render, a 5-level dungeon with all outputs, peak memory -- for the Zufallslabyrinth and
La Scatola Bianca (``--rules scatola-bianca``); side by side with the PyPI packages
``dungeongen`` (its default map: layout + SVG) and ``dungy`` when they are installed
(``pip install -e .[bench]``). Run: ``python bench/dungeon.py [--runs N | --quick]``.
The 5-level figures write what ``kerker dungeon --out`` writes: every level in both views,
in process (after start-up) and through the CLI (start-up included).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kerker.dungeon.engine import Params, generate
from kerker.dungeon.export import to_document
from kerker.tables.registry import load_registry

REGISTRY = load_registry([])
LANG = {"zufallslabyrinth": "de", "scatola-bianca": "it"}
"""Each rule set in the language it was printed in (the CLI's default)."""
FULL = 55
"""A Scatola Bianca level "of about 60 areas" has at least this many (its walk often ends
sooner: those levels are timed apart, from the seeds that reach it)."""


def _has(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def timed(fn: Callable[[int], Any], runs: int) -> tuple[float, float]:
    """Median and best seconds per call over ``runs`` seeds."""
    times = []
    for seed in range(runs):
        t = time.perf_counter()
        fn(seed)
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times)


def level_60(seed: int, rules: str = "zufallslabyrinth", min_areas: int = 10) -> dict[str, Any]:
    """One level on a 40 x 50 sheet with at most 60 areas, as a document."""
    params = Params(rules=rules, seed=seed, size=(40, 50), max_areas=60, min_areas=min_areas)
    return to_document(generate(params, REGISTRY), LANG[rules])


def full_seeds(rules: str, count: int) -> list[int]:
    """The first ``count`` seeds whose raw first level (no roll again) has ``FULL`` areas."""
    found: list[int] = []
    seed = 0
    while len(found) < count and seed < 100 * count:
        if len(level_60(seed, rules, 0)["levels"][0]["areas"]) >= FULL:
            found.append(seed)
        seed += 1
    return found


def timed_seeds(fn: Callable[[int], Any], seeds: list[int]) -> tuple[float, float]:
    """Median and best seconds per call over ``seeds``."""
    times = []
    for seed in seeds:
        t = time.perf_counter()
        fn(seed)
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times)


def rule_set(rules: str, runs: int, has_svg: bool) -> None:
    """One rule set's figures: levels as the CLI makes them (seeds 0, 1, ...), and levels of
    about 60 areas (the seeds whose raw first level reaches ``FULL`` areas)."""
    name = {"zufallslabyrinth": "Zufallslabyrinth", "scatola-bianca": "Scatola Bianca"}[rules]
    lang = LANG[rules]
    docs = [level_60(s, rules) for s in range(runs)]
    areas = [len(d["levels"][0]["areas"]) for d in docs]
    again = [d["stats"]["bent"].get("level_rerolled", 0) for d in docs]
    print(
        f"kerker {name} level (40x50 squares, --max-areas 60, --min-areas 10): "
        f"{statistics.mean(areas):.1f} areas on average, {statistics.mean(again):.2f} "
        f"rolls again"
    )
    med, best = timed(lambda s: level_60(s, rules), runs)
    print(
        f"  generate + JSON document:        {med * 1000:8.1f} ms median, {best * 1000:.1f} ms best"
    )
    if has_svg:
        from kerker.dungeon.render_svg import render_svg

        med, best = timed(lambda s: render_svg(level_60(s, rules), view="gm", lang=lang), runs)
        print(
            f"  + SVG (GM view):                 {med * 1000:8.1f} ms median, "
            f"{best * 1000:.1f} ms best"
        )
    else:
        print("  SVG renderer not installed yet: skipped")
    seeds = full_seeds(rules, runs)
    full = [len(level_60(s, rules, 0)["levels"][0]["areas"]) for s in seeds]
    print(
        f"kerker {name} level of ~60 areas ({len(seeds)} seeds with >= {FULL}, "
        f"mean {statistics.mean(full):.1f}):"
    )
    med, best = timed_seeds(lambda s: level_60(s, rules, 0), seeds)
    print(
        f"  generate + JSON document:        {med * 1000:8.1f} ms median, {best * 1000:.1f} ms best"
    )
    if has_svg:
        from kerker.dungeon.render_svg import render_svg

        med, best = timed_seeds(
            lambda s: render_svg(level_60(s, rules, 0), view="gm", lang=lang), seeds
        )
        print(
            f"  + SVG (GM view):                 {med * 1000:8.1f} ms median, "
            f"{best * 1000:.1f} ms best"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="3 runs (a quick look)")
    args = parser.parse_args()
    runs = 3 if args.quick else args.runs
    has_svg = _has("kerker.dungeon.render_svg")
    for rules in ("zufallslabyrinth", "scatola-bianca"):
        rule_set(rules, runs, has_svg)

    from kerker.dungeon.files import FORMATS, write_files

    def five_levels(seed: int, rules: str = "zufallslabyrinth") -> None:
        # What ``kerker dungeon --levels 5 --out DIR`` does after start-up: every format,
        # every level in both views, PNGs drawn in threads while the rest is written.
        params = Params(rules=rules, seed=seed, levels=5)
        lang = LANG[rules]
        doc = to_document(generate(params, REGISTRY), lang)
        with tempfile.TemporaryDirectory() as tmp:
            write_files(doc, Path(tmp), seed, lang, list(FORMATS))

    med, best = timed(five_levels, max(3, runs // 4))
    print(
        f"kerker 5 levels, all outputs:      {med * 1000:8.1f} ms median, {best * 1000:.1f} ms best"
    )
    med, best = timed(lambda s: five_levels(s, "scatola-bianca"), max(3, runs // 4))
    print(
        f"  the same, Scatola Bianca:        {med * 1000:8.1f} ms median, {best * 1000:.1f} ms best"
    )

    def cli(seed: int) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "kerker",
                    "dungeon",
                    "--seed",
                    str(seed),
                    "--levels",
                    "5",
                    "--out",
                    tmp,
                ],
                check=True,
                stdout=subprocess.DEVNULL,
            )

    med, best = timed(cli, max(3, runs // 4))
    print(
        f"  the CLI, start-up included:      {med * 1000:8.1f} ms median, "
        f"{best * 1000:.1f} ms best  (kerker dungeon --levels 5 --out DIR)"
    )
    # Most --levels 5 runs end with fewer levels (no way leads that deep): time the first
    # seeds whose dungeon really has five, about 250 areas and ten maps.
    deep = [
        seed
        for seed in range(40)
        if len(generate(Params(seed=seed, levels=5), REGISTRY).levels) == 5
    ][:3]
    for seed in deep:
        times = []
        for _ in range(3):
            t = time.perf_counter()
            cli(seed)
            times.append(time.perf_counter() - t)
        print(
            f"  the CLI, seed {seed} (5 levels):     {statistics.median(times) * 1000:8.1f} "
            f"ms median of 3"
        )
    tracemalloc.start()
    five_levels(1)
    _cur, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"  peak memory (tracemalloc):       {peak / 2**20:8.1f} MiB")

    if _has("dungeongen"):
        from dungeongen.layout.generator import DungeonGenerator as GenDG
        from dungeongen.layout.svg import SVGRenderer

        def dg(seed: int) -> None:
            gen = GenDG()
            dungeon = gen.generate(seed=seed)
            SVGRenderer().render(dungeon)

        med, best = timed(dg, max(3, runs // 2))
        print(
            f"dungeongen default map + SVG:      {med * 1000:8.1f} ms median, "
            f"{best * 1000:.1f} ms best"
        )
        # The target of issue 4, timed turn about (one kerker level, one dungeongen map) so
        # that a busy machine weighs on both alike: a ~60-area level with its SVG in under
        # a tenth of dungeongen's time per map.
        from kerker.dungeon.render_svg import render_svg

        seeds = full_seeds("zufallslabyrinth", runs)
        ours: list[float] = []
        theirs: list[float] = []
        for i, seed in enumerate(seeds):
            t = time.perf_counter()
            render_svg(level_60(seed, "zufallslabyrinth", 0), view="gm", lang="de")
            ours.append(time.perf_counter() - t)
            t = time.perf_counter()
            dg(i)
            theirs.append(time.perf_counter() - t)
        a, b = statistics.median(ours), statistics.median(theirs)
        print(
            f"turn about, {len(seeds)} each: kerker ~60-area level + SVG {a * 1000:.1f} ms, "
            f"dungeongen map + SVG {b * 1000:.1f} ms (medians): 1/{b / a:.1f}"
        )
    else:
        print("dungeongen not installed: skipped")
    if _has("dungy"):
        from dungy import DungeonGenerator as Dungy

        def dy(seed: int) -> None:
            gen = Dungy(rng=random.Random(seed))
            gen.generate()
            gen.render()

        med, best = timed(dy, runs)
        print(
            f"dungy default map (text):          {med * 1000:8.1f} ms median, "
            f"{best * 1000:.1f} ms best"
        )
    else:
        print("dungy not installed: skipped")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
