"""One play step in process (issue 14): the CPU time of opening one exit of a folded
session and answering it as the web app's GM view does, per dungeon size, by part.

A step is what ``POST /api/sessions/ID/open {"exit": "next"}`` costs the server beside the
store and the HTTP stack: ``propose`` (the exit list, the walk's next exit), ``advance``
(the engine's ``expand``), the frozen snapshot (``PlayState.frozen``), the fingerprint's
digest of it, the GM document (``to_document``) and ``views.show(state, "gm")`` as JSON
text (the whole answer of today's API; perfweb's side). Each session's state is stepped
in place as the web app's state cache does, its GM document made after every step.

Run: ``python bench/step.py [--runs N] [--sizes 10,30,60]``. CPU time
(``time.process_time``: the machine is shared), medians over the steps timed (``--runs``
sessions per rule set and size, each timed over a few consecutive opens from that size on;
the last column the 90th percentile of the total). Measures, never asserts.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from kerker.play.session import PlayState, advance, fingerprint, fold, new_info, propose
from kerker.play.views import open_exit_list, show
from kerker.tables.registry import load_registry

REGISTRY = load_registry([])
RULES = ("zufallslabyrinth", "scatola-bianca")
STEPS = 3
"""Consecutive opens timed per session and size."""
PARTS = ("propose", "advance", "snapshot", "fingerprint", "document", "show+json")


def areas(state: PlayState) -> int:
    """Areas of the dungeon as it stands."""
    return sum(len(lv.areas) for lv in state.dungeon.levels.values())


def opened(state: PlayState) -> PlayState:
    """``state`` after opening the walk's next exit (untimed)."""
    return advance(state, propose(state, "open", REGISTRY, exit="next"), REGISTRY)


def grown(rules: str, seed: int, size: int) -> PlayState | None:
    """A session of ``rules`` and ``seed`` played (``open next``) until it has ``size``
    areas, with its GM document made after each step as a served state has it; None when
    its exits run out before."""
    info = new_info(f"bench-{rules}-{seed}", rules, seed, {"max_areas": 1000, "levels": 2})
    state = fold(info, [], REGISTRY)
    while areas(state) < size:
        if not open_exit_list(state, "gm"):
            return None
        state = opened(state)
        show(state, "gm", "en")
    return state


def timed_step(state: PlayState) -> tuple[PlayState, dict[str, float]]:
    """One open on ``state`` and the CPU milliseconds of each part of it."""
    out: dict[str, float] = {}

    def part(name: str, fn: Callable[[], Any]) -> Any:
        t = time.process_time()
        value = fn()
        out[name] = (time.process_time() - t) * 1000
        return value

    event = part("propose", lambda: propose(state, "open", REGISTRY, exit="next"))
    after: PlayState = part("advance", lambda: advance(state, event, REGISTRY))
    part("snapshot", after.frozen)
    part("fingerprint", lambda: fingerprint(after))
    part("document", lambda: after.document("en"))
    part("show+json", lambda: json.dumps(show(after, "gm", "en"), ensure_ascii=False))
    out["total"] = sum(out.values())
    return after, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=6, help="sessions per rule set and size")
    parser.add_argument("--sizes", default="10,30,60", help="dungeon sizes in areas")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"one open in process, CPU ms (median of {args.runs} sessions x {STEPS} opens)")
    print(
        f"{'rules':17} {'areas':>5} " + " ".join(f"{p:>11}" for p in (*PARTS, "total", "p90 total"))
    )
    for rules in RULES:
        for size in sizes:
            times: dict[str, list[float]] = {p: [] for p in (*PARTS, "total")}
            seed = 0
            found = 0
            while found < args.runs and seed < 50 * args.runs:
                seed += 1
                state = grown(rules, seed, size)
                if state is None:
                    continue
                found += 1
                for _n in range(STEPS):
                    if not open_exit_list(state, "gm"):
                        break
                    state, took = timed_step(state)
                    for name, ms in took.items():
                        times[name].append(ms)
            if not times["total"]:
                print(f"{rules:17} {size:>5}  no session reaches this size")
                continue
            medians = [statistics.median(times[p]) for p in (*PARTS, "total")]
            totals = sorted(times["total"])
            p90 = totals[min(len(totals) - 1, int(0.9 * len(totals)))]
            print(f"{rules:17} {size:>5} " + " ".join(f"{m:11.2f}" for m in (*medians, p90)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
