"""Play-session benchmark (issue 13): open-one-exit latency in the library and through the
CLI, replay (fold) time for logs of 100 and 1 000 events, store append and read on SQLite
(and PostgreSQL when ``KERKER_TEST_PG`` names a server: ``eval "$(scripts/pg_ci.sh start)"``).
Run: ``python bench/play.py [--runs N]``. Prints medians; measures, never asserts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from kerker.play.api import Play
from kerker.play.events import Event
from kerker.play.session import fold, new_info
from kerker.play.store import open_store
from kerker.play.views import open_exit_list
from kerker.tables.registry import load_registry

REGISTRY = load_registry([])


def median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _n in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def log_of(rules: str, seed: int, size: int, play: Play) -> tuple[object, list[Event]]:
    """A session of ``size`` events: opens while exits are open (every tenth an undo and
    a redo), then notes and dice."""
    state = play.new(rules, seed, {"max_areas": 1000})
    sid = state.info.id
    while state.seq < size:
        n = state.seq
        if open_exit_list(state, "gm") and n % 10 not in (8, 9):
            state = play.act(sid, "open", exit="next")
        elif n % 10 == 8 and state.done:
            state = play.act(sid, "undo")
        elif n % 10 == 9 and state.undone:
            state = play.act(sid, "redo")
        elif n % 2:
            state = play.act(sid, "note", text=f"note {n}")
        else:
            state = play.act(sid, "roll", expr="2d6")
    return state.info, state.events


def bench_library(runs: int, folder: Path) -> None:
    print("library (SQLite file store, one Play.act = fold, propose, append, fold):")
    for rules in ("zufallslabyrinth", "scatola-bianca"):
        with open_store(folder / f"lib-{rules}.sqlite3") as store:
            play = Play(store, REGISTRY)
            for steps in (0, 10, 25):
                info, _events = log_of(rules, 2, steps, play)
                sid = info.id  # type: ignore[attr-defined]

                def one(sid: str = sid, play: Play = play) -> None:
                    play.act(sid, "open", exit="next")

                def back(sid: str = sid, play: Play = play) -> None:
                    play.act(sid, "undo")

                opened, undone = [], []
                if not open_exit_list(play.state(sid), "gm"):
                    print(f"  {rules:17} after {steps:3} steps: nothing open any more")
                    continue
                for _n in range(runs):
                    opened.append(median_ms(one, 1))
                    undone.append(median_ms(back, 1))
                print(
                    f"  {rules:17} after {steps:3} steps: open next "
                    f"{statistics.median(opened):6.1f} ms, undo (a full replay) "
                    f"{statistics.median(undone):6.1f} ms"
                )


def bench_replay(runs: int, folder: Path) -> None:
    print("replay (fold of a stored log, no store):")
    for rules in ("zufallslabyrinth", "scatola-bianca"):
        with open_store(folder / f"replay-{rules}.sqlite3") as store:
            play = Play(store, REGISTRY)
            for size in (100, 1000):
                info, events = log_of(rules, 2, size, play)
                opens = sum(e.kind == "open" for e in events)
                ms = median_ms(lambda info=info, events=events: fold(info, events, REGISTRY), runs)  # type: ignore[arg-type]
                print(f"  {rules:17} {size:5} events ({opens} opens): {ms:8.1f} ms")


def bench_store(runs: int, folder: Path) -> None:
    urls = [("sqlite", str(folder / "store.sqlite3"))]
    if os.environ.get("KERKER_TEST_PG"):
        urls.append(("postgres", os.environ["KERKER_TEST_PG"]))
    print("store (append = one transaction; read = the whole log of 1 000 events):")
    for name, url in urls:
        with open_store(url) as store:
            info = new_info(
                f"bench-{time.time_ns()}",
                "zufallslabyrinth",
                1,
                {},
                player_token=f"t{time.time_ns()}",
            )
            store.create(info)
            times = []
            for seq in range(1, 1001):
                event = Event(seq, "note", {"text": f"n{seq}", "depth": None, "area": None})
                t = time.perf_counter()
                store.append(info, event)
                times.append((time.perf_counter() - t) * 1000)
            read = median_ms(lambda store=store, info=info: store.events(info.id), runs)
            print(
                f"  {name:9} append median {statistics.median(times):6.2f} ms, "
                f"p99 {sorted(times)[989]:6.2f} ms; read 1 000: {read:6.1f} ms"
            )
            store.delete(info.id)


def bench_cli(runs: int, folder: Path) -> None:
    db = str(folder / "cli.sqlite3")
    env = {**os.environ, "KERKER_DB": db}
    run = [sys.executable, "-m", "kerker", "play"]
    sid = subprocess.run(
        [*run, "new", "--seed", "7"], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()

    def one() -> None:
        subprocess.run(
            [*run, "open", sid, "next", "--json"], env=env, capture_output=True, check=True
        )
        subprocess.run([*run, "undo", sid, "--json"], env=env, capture_output=True, check=True)

    ms = median_ms(one, max(3, runs // 2)) / 2
    print(f"CLI: kerker play open S next --json (start-up included): {ms:.0f} ms per command")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        bench_library(args.runs, folder)
        bench_replay(max(3, args.runs // 3), folder)
        bench_store(args.runs, folder)
        bench_cli(args.runs, folder)


if __name__ == "__main__":
    main()
