"""The play step in process (issue 14's latency goal, the step side): the thread CPU time
of ``Sessions.act(id, "open", exit="next")`` on a cached state, as the web app runs it, and
of its parts: ``propose``, the engine's ``expand``, the frozen snapshot
(``DungeonState.snapshot``, what ``PlayState.frozen`` makes), the fingerprint's digest
(``_Prints.digest``) and the store's append.

50 sessions (seeds 5000 on, 60 areas at most, as bench/web.py's) opened 35 times each in
turn, the cyclic GC at ``kerker serve``'s thresholds. Prints per part the median over all
opens and the mean over each session's last 10 opens (the cost grows with a session's
size). Run: ``python bench/freeze.py [--sessions 50] [--opens 35] [--db URL]``;
``KERKER_BENCH_SRC=/path/to/other/src`` measures another checkout's sources (before/after).
Thread CPU time (``time.thread_time``: the machine is shared); the ``gc`` line is the cyclic
GC's time within the steps (also counted in the part it interrupted). Measures, never
asserts.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, os.environ.get("KERKER_BENCH_SRC") or str(ROOT / "src"))

PARTS = ("step", "propose", "expand", "frozen", "fingerprint", "append", "gc")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=50)
    ap.add_argument("--opens", type=int, default=35)
    ap.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    args = ap.parse_args()

    from kerker.dungeon import engine
    from kerker.play import api, session
    from kerker.play import engine_port as port
    from kerker.web import services
    from kerker.web.sessions import _LENT, Sessions

    db = args.db or str(Path(tempfile.mkdtemp(prefix="kerker-bench-freeze-")) / "s.sqlite3")
    sessions = Sessions(db)
    spent: dict[str, float] = {}

    def wrap(owner: Any, name: str, label: str) -> None:
        inner: Callable[..., Any] = getattr(owner, name)

        def timed(*a: Any, **kw: Any) -> Any:
            t = time.thread_time()
            try:
                return inner(*a, **kw)
            finally:
                spent[label] = spent.get(label, 0.0) + (time.thread_time() - t) * 1000

        setattr(owner, name, timed)

    wrap(api, "propose", "propose")
    wrap(port, "expand", "expand")
    wrap(engine.DungeonState, "snapshot", "frozen")
    wrap(session._Prints, "digest", "fingerprint")

    def request(work: Callable[[], Any]) -> Any:
        lent: list[Any] = []
        token = _LENT.set(lent)
        try:
            return work()
        finally:
            _LENT.reset(token)
            sessions.give_back(lent)

    made = [
        request(
            lambda n=n: sessions.new(
                services.DungeonOptions(seed=5000 + n, max_areas=60, min_areas=40), ""
            )
        ).info
        for n in range(args.sessions)
    ]
    appended = [False]

    def patch_store() -> None:
        # the store class of this database: its append timed too
        with sessions.play() as play:
            cls = type(play.store)
        if not appended[0]:
            wrap(cls, "append", "append")
            appended[0] = True

    patch_store()
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)  # as kerker.cli.main sets them
    began = [0.0]

    def collector(phase: str, info: dict[str, int]) -> None:
        # the cyclic GC's time inside a step (also counted in the part it interrupted)
        if phase == "start":
            began[0] = time.thread_time()
        else:
            spent["gc"] = spent.get("gc", 0.0) + (time.thread_time() - began[0]) * 1000

    gc.callbacks.append(collector)
    per: dict[str, list[list[float]]] = {p: [[] for _ in made] for p in PARTS}
    for _ in range(args.opens):
        for i, info in enumerate(made):
            spent.clear()
            t = time.thread_time()
            request(
                lambda info=info: sessions.act(info.id, "open", None, info.gm_token, exit="next")
            )
            spent["step"] = (time.thread_time() - t) * 1000
            for p in PARTS:
                per[p][i].append(spent.get(p, 0.0))
    gc.callbacks.remove(collector)
    sessions.close()
    print(
        f"{len(made)} sessions x {args.opens} opens (Sessions.act, cached state), "
        "thread CPU ms per open:"
    )
    print("| part | median | mean of the last 10 opens |")
    print("| --- | ---: | ---: |")
    for p in PARTS:
        every = [x for row in per[p] for x in row]
        last = [x for row in per[p] for x in row[-10:]]
        print(f"| {p} | {statistics.median(every):.3f} | {statistics.mean(last):.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
