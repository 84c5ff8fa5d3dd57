"""Benchmark kerker's dice against d20 (rolling) and icepool (exact odds), plus CLI start-up.

Run from the repository root with the project's virtual environment:

    .venv/bin/python bench/dice.py           # full run, about a minute
    .venv/bin/python bench/dice.py --quick   # smoke test, a few seconds

It measures and prints; it never asserts a time. Every figure is the median of several
repeats (the machine is shared), interleaved so that a burst of load hits all contenders.
The PASS/MISS lines at the end are informational: the exit status is 0 unless a measurement
itself failed (then 1). See bench/README.md for what each figure means.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gc
import importlib
import importlib.metadata
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SEED = 20240601

ROLL_TARGET_RATIO = 3.0  # kerker rolls per second / d20 rolls per second, on every expression
CLI_TARGET_MS = 150.0  # whole-process wall time of `kerker roll 1d20`

HPR_VALUE = 12
HPR_MODIFIER = 0
HPR_CHANCE = HPR_VALUE + HPR_MODIFIER  # first attempt: no retry malus

# Candidates for the exact-odds function of an HPR check, tried in order (module, name).
HPR_ODDS_CANDIDATES = (
    ("kerker.checks", "odds"),
    ("kerker.checks", "check_odds"),
    ("kerker.checks", "outcome_odds"),
    ("kerker.checks.hpr", "odds"),
    ("kerker.checks.hpr", "check_odds"),
)
HPR_OUTCOMES = ("super", "critical", "success", "failure", "fumble")

# The HPR check in icepool: first d20 and confirmation d20 (the confirmation only matters
# after a 1 or a 20). Used in this process and, as source text, in the cold subprocesses.
ICEPOOL_HPR_SOURCE = textwrap.dedent(
    f"""
    def hpr_outcome(first, confirmation, chance={HPR_CHANCE}):
        def holds(c):  # a confirmation 1 always holds, a 20 always fails
            return c == 1 or (c != 20 and c <= chance)
        plain = "success" if first <= chance else "failure"
        if first == 1:
            if confirmation == 1:
                return "super"
            return "critical" if holds(confirmation) else plain
        if first == 20:
            if confirmation == 20:
                return "fumble"
            return plain if holds(confirmation) else "fumble"
        return plain
    """
)


@dataclass
class Settings:
    quick: bool
    roll_repeats: int
    roll_batch_s: float
    cold_runs: int
    warm_calls: int
    cli_runs: int


def settings(quick: bool) -> Settings:
    if quick:
        return Settings(
            quick, roll_repeats=3, roll_batch_s=0.02, cold_runs=2, warm_calls=5, cli_runs=3
        )
    return Settings(
        quick, roll_repeats=9, roll_batch_s=0.15, cold_runs=7, warm_calls=41, cli_runs=15
    )


# -- output helpers --------------------------------------------------------------------------


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], right: Sequence[bool]) -> None:
    rows = [list(r) for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        out = []
        for cell, width, r in zip(cells, widths, right, strict=True):
            out.append(cell.rjust(width) if r else cell.ljust(width))
        return "  ".join(out).rstrip()

    print(line(headers))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(line(r))


def heading(text: str) -> None:
    print()
    print(text)
    print("=" * len(text))


def explain(text: str) -> None:
    """A note under a table, wrapped."""
    print(textwrap.fill(text, width=96, subsequent_indent="  "))


def rate(x: float | None) -> str:
    return "n/a" if x is None else f"{x:,.0f}"


def ms(x: float | None, digits: int = 2) -> str:
    return "n/a" if x is None else f"{x * 1e3:.{digits}f}"


def us(x: float | None) -> str:
    return "n/a" if x is None else f"{x * 1e6:.2f}"


def version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def optional(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


ERRORS: list[str] = []


def failed(where: str, err: BaseException) -> str:
    first = str(err).strip().splitlines()[0] if str(err).strip() else ""
    ERRORS.append(f"{where}: {type(err).__name__}: {first}")
    return "error"


# -- environment -------------------------------------------------------------------------------


def environment(cfg: Settings) -> None:
    heading("Environment")
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = None
    git = "unknown"
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        git = f"{head}{' + uncommitted changes' if dirty else ''}" if head else "unknown"
    load = " / ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    rows = [
        ("date", datetime.datetime.now().isoformat(timespec="seconds")),
        (
            "python",
            f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})",
        ),
        ("platform", platform.platform()),
        ("cpus", f"{os.cpu_count()} (usable by this process: {affinity})"),
        ("load average", f"{load} (1 / 5 / 15 min, at start)"),
        ("kerker", f"{version('kerker')} (git {git})"),
        ("d20", version("d20")),
        ("lark-parser", version("lark-parser")),
        ("icepool", version("icepool")),
        ("mode", "--quick (few repeats: smoke test only)" if cfg.quick else "full"),
    ]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key.ljust(width)}  {value}")


# -- 1. rolls per second -------------------------------------------------------------------------

Batch = Callable[[int], None]


def kerker_batch(text: str) -> Batch:
    from kerker.dice import parse, roll

    expr = parse(text)
    rng = random.Random(SEED)

    def run(n: int) -> None:
        r, e, g = roll, expr, rng
        for _ in range(n):
            r(e, g).total  # noqa: B018

    return run


def d20_batch(text: str) -> Batch:
    import d20  # type: ignore[import-untyped]

    ast = d20.parse(text)  # parse once; Roller.roll accepts the parsed tree
    stringifier = d20.SimpleStringifier()  # built once (it is only used when .result is read)
    random.seed(SEED)  # d20 takes no RNG: it draws from the global `random` module

    def run(n: int) -> None:
        r, a, s = d20.roll, ast, stringifier
        for _ in range(n):
            r(a, stringifier=s).total  # noqa: B018

    return run


def floor_batch(name: str) -> Batch:
    randint = random.Random(SEED).randint

    def d1d20(n: int) -> None:
        for _ in range(n):
            randint(1, 20)

    def d4d6kh3(n: int) -> None:
        for _ in range(n):
            a, b, c, d = randint(1, 6), randint(1, 6), randint(1, 6), randint(1, 6)
            a + b + c + d - min(a, b, c, d)

    def d10d6(n: int) -> None:
        for _ in range(n):
            total = 0
            for _ in range(10):
                total += randint(1, 6)

    def d2d10x100(n: int) -> None:
        for _ in range(n):
            (randint(1, 10) + randint(1, 10)) * 100

    return {"1d20": d1d20, "4d6kh3": d4d6kh3, "10d6": d10d6, "2d10*100": d2d10x100}[name]


ROLL_CASES = (  # (kerker spelling, d20 spelling)
    ("1d20", "1d20"),
    ("4d6kh3", "4d6kh3"),
    ("10d6", "10d6"),
    ("2W10×100", "2d10*100"),
)


def calibrate(batch: Batch, seconds: float) -> int:
    batch(50)  # warm up: compile caches, first-call costs
    n = 50
    while True:
        t0 = time.perf_counter()
        batch(n)
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds / 4 or n >= 5_000_000:
            return max(100, int(n * seconds / max(elapsed, 1e-9)))
        n *= 4


def timed(batch: Batch, n: int) -> float:
    gc.collect()
    t0 = time.perf_counter()
    batch(n)
    return (time.perf_counter() - t0) / n


def rolls(cfg: Settings) -> dict[str, float | None]:
    heading("1. Rolls per second (parse once, roll many; median of repeats)")
    have_d20 = optional("d20") is not None
    contenders: list[tuple[str, str, Batch | None]] = []
    makers: tuple[tuple[str, Callable[[str, str], Batch] | None], ...] = (
        ("kerker", lambda k_text, d_text: kerker_batch(k_text)),
        ("d20", (lambda k_text, d_text: d20_batch(d_text)) if have_d20 else None),
        ("floor", lambda k_text, d_text: floor_batch(d_text)),
    )
    for k_text, d_text in ROLL_CASES:
        for who, make in makers:
            batch = None
            if make is not None:
                try:
                    batch = make(k_text, d_text)
                except Exception as err:
                    failed(f"rolls {who} {k_text}", err)
            contenders.append((k_text, who, batch))
    sizes: dict[tuple[str, str], int] = {}
    for text, who, batch in contenders:
        if batch is not None:
            try:
                sizes[text, who] = calibrate(batch, cfg.roll_batch_s)
            except Exception as err:
                failed(f"rolls {who} {text}", err)
    per_roll: dict[tuple[str, str], list[float]] = {key: [] for key in sizes}
    for _ in range(cfg.roll_repeats):  # interleaved: each repeat times every contender once
        for text, who, batch in contenders:
            if (text, who) in sizes and batch is not None:
                per_roll[text, who].append(timed(batch, sizes[text, who]))

    def med(text: str, who: str) -> float | None:
        got = per_roll.get((text, who))
        return statistics.median(got) if got else None

    rows = []
    ratios: dict[str, float | None] = {}
    for k_text, d_text in ROLL_CASES:
        k, d, f = med(k_text, "kerker"), med(k_text, "d20"), med(k_text, "floor")
        ratio = d / k if k and d else None
        ratios[k_text] = ratio
        spread = ""
        if per_roll.get((k_text, "kerker")):
            got = per_roll[k_text, "kerker"]
            spread = f"{(max(got) - min(got)) / statistics.median(got) * 100:.0f}%"
        rows.append(
            (
                k_text if k_text == d_text else f"{k_text} (d20: {d_text})",
                rate(1 / k if k else None),
                rate(1 / d if d else None),
                rate(1 / f if f else None),
                "n/a" if ratio is None else f"{ratio:.2f}x",
                us(k),
                us(d),
                us(f),
                spread,
            )
        )
    table(
        (
            "expression",
            "kerker roll/s",
            "d20 roll/s",
            "randint roll/s",
            "kerker/d20",
            "kerker us",
            "d20 us",
            "randint us",
            "spread",
        ),
        rows,
        (False, True, True, True, True, True, True, True, True),
    )
    print()
    explain(
        f"kerker {version('kerker')}: parse(text) once, then"
        f" roll(expr, random.Random({SEED})).total per roll (a full Roll record with every"
        " die)."
    )
    explain(
        f"d20 {version('d20')}: d20.parse(text) once, then d20.roll(ast,"
        " stringifier=<built once>).total per roll (Roller.roll accepts a parsed tree;"
        " d20's stringifier only runs when .result is read). d20 takes no RNG parameter:"
        f" it draws from the global `random` module, seeded with random.seed({SEED})."
    )
    explain(
        "randint: plain Python, rng.randint per die, the total only, no record (a"
        " reference, not a contender)."
    )
    explain(
        f"{cfg.roll_repeats} interleaved repeats of about {cfg.roll_batch_s * 1e3:.0f} ms"
        ' per contender; the median is shown. "spread" = (max - min) / median of'
        " kerker's repeats."
    )
    return ratios


# -- 2. exact odds -------------------------------------------------------------------------------


@dataclass
class OddsCase:
    label: str
    k_import: str | None  # None: not available
    k_compute: str
    i_compute: str
    note: str = ""


def find_hpr_odds() -> tuple[str | None, str | None, str]:
    """(module, name, note) of kerker's exact-odds function of an HPR check, if there."""
    problems = []
    for module_name, name in HPR_ODDS_CANDIDATES:
        try:
            module = importlib.import_module(module_name)
        except Exception as err:
            problems.append(f"{module_name}: {type(err).__name__}")
            continue
        func = getattr(module, name, None)
        if not callable(func):
            problems.append(f"no {module_name}.{name}")
            continue
        try:
            table_ = func(HPR_VALUE, HPR_MODIFIER)
            if isinstance(table_, Mapping) and all(o in table_ for o in HPR_OUTCOMES):
                return module_name, name, f"{module_name}.{name}({HPR_VALUE}, {HPR_MODIFIER})"
            problems.append(f"{module_name}.{name} returned {type(table_).__name__}")
        except Exception as err:
            problems.append(f"{module_name}.{name}: {type(err).__name__}: {err}")
    return None, None, "; ".join(problems) or "no odds function found in kerker.checks"


def odds_cases() -> list[OddsCase]:
    hpr_module, hpr_name, hpr_note = find_hpr_odds()
    return [
        OddsCase(
            "4d6kh3",
            "from kerker.dice import odds",
            "odds('4d6kh3').probabilities()",
            "icepool.d6.pool(4).highest(3).sum().probabilities()",
        ),
        OddsCase(
            "10d10kh3",
            "from kerker.dice import odds",
            "odds('10d10kh3').probabilities()",
            "icepool.d10.pool(10).highest(3).sum().probabilities()",
        ),
        OddsCase(
            f"HPR check {HPR_VALUE}",
            None if hpr_module is None else f"from {hpr_module} import {hpr_name} as odds",
            f"odds({HPR_VALUE}, {HPR_MODIFIER})",
            "icepool.map(hpr_outcome, icepool.d20, icepool.d20).probabilities()",
            hpr_note,
        ),
    ]


COLD_TEMPLATE = """\
import time
t0 = time.perf_counter()
{imports}
t1 = time.perf_counter()
{compute}
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


# Child processes run as after a normal `pip install`, which compiles bytecode: a shell that
# sets PYTHONDONTWRITEBYTECODE (some sandboxes do) would make every cold kerker run compile
# its sources while the installed peers load their .pyc files.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def precompile() -> None:
    """Write kerker's bytecode once, as pip does for an installed package."""
    import compileall

    compileall.compile_dir(str(ROOT / "src" / "kerker"), quiet=1)


def cold_once(imports: str, compute: str) -> tuple[float, float, float]:
    code = COLD_TEMPLATE.format(imports=imports, compute=compute)
    # No timeout= on timed runs: with a timeout, Popen.wait() polls with sleeps of up to
    # 50 ms, which quantises the measured wall time.
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=CHILD_ENV
    )
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        raise RuntimeError(lines[-1] if lines else f"exit status {done.returncode}")
    imp, comp = (float(x) for x in done.stdout.split())
    return wall, imp, comp


def kerker_caches() -> list[Any]:
    """kerker's memoised odds functions: the dice engine's and any in kerker.checks."""
    found = []
    exact = importlib.import_module("kerker.dice.exact")
    found.append(exact._odds_cached)
    for module_name in ("kerker.checks", "kerker.checks.hpr"):
        try:
            module = importlib.import_module(module_name)
        except Exception:
            continue
        for attr, value in vars(module).items():
            if "odds" in attr and hasattr(value, "cache_clear") and value not in found:
                found.append(value)
    return found


def icepool_clear() -> None:
    import icepool  # type: ignore[import-untyped]
    import icepool.evaluator  # type: ignore[import-untyped]

    # the shared SumEvaluator keeps its evaluation "dungeons" (all intermediate states) in
    # an instance dict; Pool.clear_cache() clears the global pool-source cache.
    vars(icepool.evaluator.sum_evaluator).pop("_cache", None)
    icepool.Pool.clear_cache()


def warm_time(func: Callable[[], Any], clear: Callable[[], None] | None, calls: int) -> float:
    func()  # first call: imports, data loading, lazy set-up
    times = []
    for _ in range(calls):
        if clear is not None:
            clear()
        gc.collect()
        t0 = time.perf_counter()
        func()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def normalise(mapping: Mapping[Any, Fraction]) -> dict[Any, Fraction]:
    return {k: Fraction(v) for k, v in mapping.items() if v}


def exact_odds(cfg: Settings) -> dict[str, tuple[float | None, float | None]]:
    heading("2. Exact odds (median; times in ms)")
    icepool = optional("icepool")
    cases = odds_cases()
    rows = []
    notes = []
    ice_namespace: dict[str, Any] = {}
    if icepool is not None:
        ice_namespace["icepool"] = icepool
        exec(ICEPOOL_HPR_SOURCE, ice_namespace)
    caches = kerker_caches()
    warm: dict[str, tuple[float | None, float | None]] = {}

    def clear_kerker() -> None:
        for cache in caches:
            cache.cache_clear()

    for case in cases:
        results: dict[str, dict[str, float | None]] = {}
        values: dict[str, dict[Any, Fraction] | None] = {"kerker": None, "icepool": None}
        for who in ("kerker", "icepool"):
            r: dict[str, float | None] = dict.fromkeys(
                ("wall", "import", "compute", "warm", "cached")
            )
            results[who] = r
            if who == "kerker":
                if case.k_import is None:
                    continue
                imports, compute = case.k_import, case.k_compute
            else:
                if icepool is None:
                    continue
                imports = "import icepool"
                if case.label.startswith("HPR"):
                    imports += "\n" + ICEPOOL_HPR_SOURCE
                compute = case.i_compute
            try:
                runs = [cold_once(imports, compute) for _ in range(cfg.cold_runs)]
                r["wall"] = statistics.median(x[0] for x in runs)
                r["import"] = statistics.median(x[1] for x in runs)
                r["compute"] = statistics.median(x[2] for x in runs)
            except Exception as err:
                r["wall"] = None
                failed(f"odds cold {who} {case.label}", err)
            try:
                namespace: dict[str, Any] = dict(ice_namespace)
                exec(imports, namespace)
                func = eval(f"lambda: {compute}", namespace)
                result = func()
                if who == "icepool":
                    die = eval(f"lambda: {compute.rsplit('.probabilities()', 1)[0]}", namespace)()
                    values[who] = normalise(
                        dict(zip(die.outcomes(), die.probabilities(), strict=True))
                    )
                else:
                    values[who] = normalise(result)
                r["warm"] = warm_time(
                    func, clear_kerker if who == "kerker" else icepool_clear, cfg.warm_calls
                )
                r["cached"] = warm_time(func, None, cfg.warm_calls)
            except Exception as err:
                failed(f"odds warm {who} {case.label}", err)
        k, i = results["kerker"], results["icepool"]
        warm[case.label] = (k["warm"], i["warm"])
        if case.k_import is None or values["kerker"] is None or values["icepool"] is None:
            agree = "n/a"
        else:
            agree = "yes" if values["kerker"] == values["icepool"] else "NO"

        def cell(x: float | None, digits: int = 2) -> str:
            return "n/a" if x is None else ms(x, digits)

        if case.k_import is None:
            rows.append((case.label, "kerker", "not available", "", "", "", "", agree))
        else:
            rows.append(
                (
                    case.label,
                    "kerker",
                    cell(k["wall"], 1),
                    cell(k["import"], 1),
                    cell(k["compute"], 2),
                    cell(k["warm"], 3),
                    cell(k["cached"], 3),
                    agree,
                )
            )
        rows.append(
            (
                "",
                "icepool",
                cell(i["wall"], 1),
                cell(i["import"], 1),
                cell(i["compute"], 2),
                cell(i["warm"], 3),
                cell(i["cached"], 3),
                "",
            )
        )
        if case.note and case.k_import is None:
            notes.append(f"{case.label}: kerker not available ({case.note})")
        elif case.note:
            notes.append(
                f"{case.label}: kerker {case.note}; icepool: first d20 x confirmation"
                f" d20 mapped to the five outcomes (chance {HPR_CHANCE})"
            )
    table(
        (
            "case",
            "library",
            "cold process",
            "cold import",
            "cold compute",
            "warm",
            "cached",
            "same odds",
        ),
        rows,
        (False, False, True, True, True, True, True, False),
    )
    cache_names = ", ".join(
        f"{c.__module__}.{c.__qualname__}" for c in caches if hasattr(c, "__qualname__")
    )
    print()
    explain(
        f'cold: a fresh `python -c` per run ({cfg.cold_runs} runs). "process" is the'
        ' whole process wall time, "import" the library import inside it, "compute"'
        " the first call inside it (parse + compute + read every probability)."
    )
    explain(
        f"warm: in this process, after a first call; each of {cfg.warm_calls} timed calls"
        f" is preceded by clearing the result caches. kerker: cache_clear() on"
        f" {cache_names}. icepool: the shared sum evaluator's cache and"
        " icepool.Pool.clear_cache() (icepool.d(n) stays cached: building a die is not"
        " the work measured; icepool.map keeps no cache)."
    )
    explain(
        "cached: the same call repeated with every cache left in place (a repeated"
        " question, as a long-running program would ask it)."
    )
    explain("same odds: kerker's and icepool's exact probabilities compared outcome by outcome.")
    for note in notes:
        explain(note)
    return warm


# -- 3. process start ----------------------------------------------------------------------------


def cli_times(cfg: Settings) -> float | None:
    heading(f"3. Whole-process wall time (median of {cfg.cli_runs} runs, after one warm-up)")
    py = sys.executable
    exe_dir = Path(sys.executable).parent
    kerker_exe = shutil.which("kerker", path=str(exe_dir)) or str(ROOT / ".venv" / "bin" / "kerker")
    commands = [
        ("kerker roll 1d20", [kerker_exe, "roll", "1d20"]),
        ("python -c pass", [py, "-c", "pass"]),
        ('python -c "import d20"', [py, "-c", "import d20"]),
        (
            'python -c "from kerker.dice import parse, roll"',
            [py, "-c", "from kerker.dice import parse, roll"],
        ),
    ]
    times: dict[str, list[float]] = {label: [] for label, _ in commands}
    broken: dict[str, str] = {}
    for label, argv in commands:  # warm-up: bytecode caches, file system cache
        done = subprocess.run(
            argv, capture_output=True, text=True, cwd=ROOT, timeout=60, env=CHILD_ENV
        )
        if done.returncode != 0:
            lines = done.stderr.strip().splitlines()
            broken[label] = lines[-1] if lines else f"exit status {done.returncode}"
            failed(f"process {label}", RuntimeError(broken[label]))
    for _ in range(cfg.cli_runs):
        for label, argv in commands:
            if label in broken:
                continue
            t0 = time.perf_counter()
            subprocess.run(
                argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=CHILD_ENV
            )
            times[label].append(time.perf_counter() - t0)
    rows = []
    for label, _ in commands:
        got = times[label]
        if not got:
            rows.append((label, "error", "", ""))
            continue
        rows.append((label, ms(statistics.median(got), 1), ms(min(got), 1), ms(max(got), 1)))
    table(("command", "median ms", "min ms", "max ms"), rows, (False, True, True, True))
    print(f"kerker executable: {kerker_exe}")
    got = times["kerker roll 1d20"]
    return statistics.median(got) if got else None


# -- summary --------------------------------------------------------------------------------


def summary(
    ratios: dict[str, float | None],
    warm: dict[str, tuple[float | None, float | None]],
    cli: float | None,
) -> None:
    heading("Summary (informational)")
    known = {k: v for k, v in ratios.items() if v is not None}
    if not known:
        print(
            f"MISS  rolls: kerker >= {ROLL_TARGET_RATIO:g}x d20 on every expression: not measured"
        )
    else:
        misses = [k for k, v in known.items() if v < ROLL_TARGET_RATIO]
        verdict = "PASS" if not misses and len(known) == len(ratios) else "MISS"
        detail = ", ".join(f"{k} {v:.2f}x" for k, v in known.items())
        print(
            f"{verdict}  rolls: kerker >= {ROLL_TARGET_RATIO:g}x d20 on every expression ({detail})"
        )
        if misses:
            print(f"      below target: {', '.join(misses)}")
    parts = []
    for label, (k, i) in warm.items():
        if k is None or i is None:
            parts.append(f"{label} n/a")
        else:
            parts.append(f"{label} {ms(k, 3)} vs {ms(i, 3)} ms ({i / k:.1f}x)")
    print(f"INFO  exact odds, warm, kerker vs icepool: {'; '.join(parts)}")
    if cli is None:
        print(f"MISS  start-up: kerker roll 1d20 < {CLI_TARGET_MS:.0f} ms: not measured")
    else:
        verdict = "PASS" if cli * 1e3 < CLI_TARGET_MS else "MISS"
        print(
            f"{verdict}  start-up: kerker roll 1d20 < {CLI_TARGET_MS:.0f} ms"
            f" (median {cli * 1e3:.1f} ms)"
        )
    if ERRORS:
        print(f"ERROR {len(ERRORS)} measurement(s) failed:")
        for err in ERRORS:
            print(f"      {err}")


OVERSIZED = (
    "(W1000)W100",
    "(4W100)W100",
    "1000W6!>=2",
    "1000W6kh500",
    "1000W1000",
    "1000W6",
    "500W20",
)
"""Exact odds that are refused (or answered) only within the caps: the issue-18 cases."""

_ODDS_CHILD = """
import resource, sys, time
from kerker.dice import odds
from kerker.errors import KerkerError
t0 = time.process_time()
try:
    odds(sys.argv[1]); verdict = "answered"
except KerkerError:
    verdict = "refused"
cpu = time.process_time() - t0
print(verdict, cpu, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def oversized_odds(timeout: float) -> None:
    """Each of :data:`OVERSIZED` in a fresh process: answered or refused, CPU seconds, peak
    memory. ``PYTHONPATH`` chooses the tree (compare branches side by side)."""
    print("\noversized exact odds (fresh process each; CPU time of the call, peak RSS)")
    for text in OVERSIZED:
        try:
            done = subprocess.run(
                [sys.executable, "-c", _ODDS_CHILD, text],
                env=CHILD_ENV,
                capture_output=True,
                text=True,
                timeout=timeout,
                cwd=ROOT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            print(f"  {text:14} still running after {timeout:.0f} s")
            continue
        if done.returncode != 0:
            print(f"  {text:14} failed: {done.stderr.strip().splitlines()[-1:]}")
            continue
        verdict, cpu, rss = done.stdout.split()
        print(f"  {text:14} {verdict:8} {float(cpu):7.2f} s CPU  {int(rss) / 1024:8.0f} MB")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="few repeats: a smoke test in a few seconds"
    )
    parser.add_argument(
        "--oversized",
        action="store_true",
        help="only the oversized exact odds (refused or answered in bounds)",
    )
    args = parser.parse_args(argv)
    if args.oversized:
        oversized_odds(120.0)
        return 0
    cfg = settings(args.quick)
    started = time.perf_counter()
    environment(cfg)
    precompile()
    print("bytecode      kerker precompiled; child processes run without PYTHONDONTWRITEBYTECODE")
    ratios = rolls(cfg)
    warm = exact_odds(cfg)
    cli = cli_times(cfg)
    summary(ratios, warm, cli)
    oversized_odds(30.0 if args.quick else 120.0)
    print(f"\n(benchmark took {time.perf_counter() - started:.1f} s)")
    return 1 if ERRORS else 0


if __name__ == "__main__":
    sys.exit(main())
