"""Benchmark of the table engine: loading, rolling, exact odds, whole-process start-up.

    python bench/tables.py [--quick] [--table ID]

Measures and prints (never asserts a time):
1. loading all shipped tables in a fresh process: from the compiled twins (what every
   command does) and with full schema validation of every YAML file (what `kerker table
   lint` and user files pay);
2. rolls per second of the treasure table (parse once, roll many; with its follow-ups);
3. exact odds of the treasure table, warm;
4. whole-process wall time of `kerker table roll <treasure>` (target: under 200 ms);
5. full odds of every shipped table as `kerker table odds` computes them (the flat list of
   outcomes, or the probability tree when the list is too long), each table's median, the
   slowest ten and how many take 50 ms or more (target: none).
Child processes run with bytecode, as after `pip install` (see bench/dice.py).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
TREASURE = "zufallslabyrinth/schatz"

COLD_TWINS = """
import time
t0 = time.perf_counter()
from kerker.tables.registry import shipped
tables = shipped()
print(time.perf_counter() - t0, len(tables))
"""

COLD_VALIDATE = """
import time
t0 = time.perf_counter()
from kerker.tables.registry import shipped_paths, is_table_file, validate_data
from kerker.yamlio import load_yaml_file
n = 0
for path in shipped_paths():
    data = load_yaml_file(path)
    if is_table_file(data):
        validate_data(data, str(path), path)
        n += len(data["tables"])
print(time.perf_counter() - t0, n)
"""


def median_run(argv: list[str], runs: int) -> tuple[float, float, float]:
    subprocess.run(argv, env=CHILD_ENV, capture_output=True, cwd=ROOT, check=False)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(
            argv,
            env=CHILD_ENV,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
            check=False,
        )
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000, min(times) * 1000, max(times) * 1000


def cold(code: str, runs: int) -> tuple[float, float, int]:
    walls, inner = [], []
    count = 0
    for _ in range(runs):
        t0 = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", code],
            env=CHILD_ENV,
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        walls.append(time.perf_counter() - t0)
        if done.returncode != 0:
            raise RuntimeError(done.stderr.strip().splitlines()[-1])
        seconds, count_text = done.stdout.split()
        inner.append(float(seconds))
        count = int(count_text)
    return statistics.median(walls) * 1000, statistics.median(inner) * 1000, count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few repeats (a smoke test)")
    parser.add_argument("--table", default=TREASURE, help="the table to roll")
    args = parser.parse_args(argv)
    runs = 3 if args.quick else 11
    import compileall

    compileall.compile_dir(str(ROOT / "src" / "kerker"), quiet=1)
    from kerker import __version__

    print(f"kerker {__version__}, Python {platform.python_version()}, {os.cpu_count()} cpus")
    print()
    print("1. Loading every shipped table in a fresh process (median)")
    wall, inner, count = cold(COLD_TWINS, runs)
    print(f"   compiled twins    {count:4d} tables  process {wall:7.1f} ms  load {inner:7.1f} ms")
    wall, inner, count = cold(COLD_VALIDATE, runs)
    print(f"   YAML + pydantic   {count:4d} tables  process {wall:7.1f} ms  load {inner:7.1f} ms")

    from kerker.tables.engine import roll_table
    from kerker.tables.odds import table_odds
    from kerker.tables.registry import load_registry

    registry = load_registry()
    print()
    print(f"2. Rolls per second of {args.table} (with follow-ups; median of repeats)")
    for label, ctx in (
        ("level 1", {"level": 1}),
        ("level 3, guarded", {"level": 3, "guarded": True}),
    ):
        rng = random.Random(1)
        rates = []
        for _ in range(runs):
            n = 0
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < (0.05 if args.quick else 0.25):
                roll_table(registry, args.table, rng, context=ctx)
                n += 1
            rates.append(n / (time.perf_counter() - t0))
        print(f"   {label:18} {statistics.median(rates):10,.0f} rolls/s")
    print()
    print(f"3. Exact odds of {args.table}, warm (median)")
    times = []
    outcomes = []
    for _ in range(runs):
        t0 = time.perf_counter()
        outcomes = table_odds(registry, args.table, lang="de", context={"level": 1})
        times.append(time.perf_counter() - t0)
    print(f"   {len(outcomes)} outcomes in {statistics.median(times) * 1000:.2f} ms")
    print()
    print("4. Whole-process wall time (median, min, max of runs)")
    exe = str(Path(sys.executable).parent / "kerker")
    for label, argv_ in (
        (f"kerker table roll {args.table}", [exe, "table", "roll", args.table]),
        (f"kerker table odds {args.table}", [exe, "table", "odds", args.table]),
        ("kerker roll 1d20", [exe, "roll", "1d20"]),
        ("python -c pass", [sys.executable, "-c", "pass"]),
    ):
        med, lo, hi = median_run(argv_, runs + 4)
        print(f"   {label:48} {med:7.1f} ms  ({lo:.1f} .. {hi:.1f})")
    med, _lo, _hi = median_run([exe, "table", "roll", args.table], runs + 4)
    print()
    slow = every_table_odds(registry, 3 if args.quick else 5)
    verdict = "PASS" if med < 200 else "MISS"
    print()
    print(f"{verdict}  kerker table roll under 200 ms (median {med:.1f} ms; informational)")
    verdict = "PASS" if not slow else "MISS"
    print(f"{verdict}  every shipped table's full odds under 50 ms ({slow} at 50 ms or more)")
    return 0


def every_table_odds(registry: Any, runs: int) -> int:
    """Section 5: print the slowest tables' full odds; return how many take >= 50 ms."""
    from kerker.tables.odds import table_odds
    from kerker.tables.registry import TableError
    from kerker.tables.tree import table_tree

    flat = 300  # MAX_FLAT of kerker.commands.table: past it the CLI shows the tree

    def full(table_id: str) -> str:
        try:
            table_odds(registry, table_id, lang="de", context={"level": 1}, max_outcomes=flat)
            return "flat"
        except TableError as err:
            if err.code != "table_too_many":
                return "refused"
        try:
            table_tree(registry, table_id, lang="de", context={"level": 1})
            return "tree"
        except TableError:
            return "refused"

    rolled = [t.id for t in registry if t.kind != "lookup"]
    timings = []
    for table_id in rolled:
        times = []
        mode = ""
        for _ in range(runs):
            t0 = time.process_time()  # CPU time: the machine may be shared
            mode = full(table_id)
            times.append(time.process_time() - t0)
        timings.append((statistics.median(times) * 1000, table_id, mode))
    timings.sort(reverse=True)
    print(f"5. Full odds of every rolled shipped table ({len(rolled)}), median CPU time of {runs}")
    for ms, table_id, mode in timings[:10]:
        print(f"   {table_id:48} {ms:7.2f} ms  ({mode})")
    print(f"   all tables together {sum(t for t, _, _ in timings):8.1f} ms")
    return sum(1 for ms, _, _ in timings if ms >= 50)


if __name__ == "__main__":
    sys.exit(main())
