"""Issue 12, "Proof": how often the map shows what the dice rolled, over many dungeons.

    PYTHONPATH=src python bench/dungeon_bends.py [SEEDS]     # default 1000 per procedure

Default options (the sheet grows, 60 areas, min_areas 10). Prints per procedure: corridors
built at their rolled width, rooms/halls/caves within 15 % of ``rolled_squares``, mismatches
without a ``bends`` entry, obstacle cells outside their corridor, rolled exits neither
built, bent nor blocked, and the bends per area by kind (what/reason), plus the engine's
``bent`` counters per area. Measures; asserts nothing (tests/test_dungeon_bends.py does).
"""

from __future__ import annotations

import sys
import time
from collections import Counter

from kerker.dungeon.engine import Params, generate
from kerker.dungeon.export import to_document
from kerker.tables.registry import load_registry

REGISTRY = load_registry([])
OBSTACLES = {"stream", "river", "chasm", "bridge"}
EXIT_KINDS = {"door", "archway", "opening", "secret_door", "one_way_door"}
POSITION = {
    "zufallslabyrinth": "zufallslabyrinth/position_ausgaenge",
    "scatola-bianca": "scatola-bianca/luogo-uscita",
}


def measure(rules: str, seeds: int) -> None:
    c: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    bent: Counter[str] = Counter()
    started = time.perf_counter()
    for seed in range(seeds):
        dungeon = generate(Params(rules=rules, seed=seed), REGISTRY)
        bent.update(dict(dungeon.bent))
        doc = to_document(dungeon, "en")
        for lv in doc["levels"]:
            number = {a["id"]: a["number"] for a in lv["areas"]}
            made: Counter[str] = Counter()
            for conn in lv["connections"]:
                c["blocked"] += conn["blocked"]
                if conn["kind"] in EXIT_KINDS and conn["to_level"] is None:
                    made[conn["from"]] += 1
                    if conn["to"] is not None and number[conn["from"]] > number[conn["to"]]:
                        made[conn["to"]] += 1
            for a in lv["areas"]:
                c["areas"] += 1
                for b in a["bends"]:
                    kinds[f"{b['what']}/{b['reason']}"] += 1
                if a["kind"] == "corridor":
                    cells = {tuple(x) for x in a["cells"]}
                    for f in a["features"]:
                        if f["kind"] in OBSTACLES:
                            c["obstacles"] += 1
                            c["obstacle_cells_out"] += sum(
                                tuple(x) not in cells for x in f["cells"]
                            )
                    if a["rolled_width_ft"]:
                        c["corridors"] += 1
                        if a["width_ft"] == a["rolled_width_ft"]:
                            c["corridors_as_rolled"] += 1
                        elif not any(b["what"] == "width" for b in a["bends"]):
                            c["width_unbent"] += 1
                    continue
                c["rooms"] += 1
                rolled, built = a["rolled_squares"], a["size"]["squares"]
                if rolled and abs(built - rolled) <= 0.15 * rolled:
                    c["rooms_as_rolled"] += 1
                elif not any(b["what"] == "size" for b in a["bends"]):
                    c["size_unbent"] += 1
                exits = sum(1 for r in a["rolls"] if r["table"] == POSITION[rules])
                missing = sum(
                    b["rolled"] - b["built"]
                    for b in a["bends"]
                    if b["what"] == "exit" and isinstance(b["rolled"], int)
                )
                c["exits_rolled"] += exits
                c["exits_vanished"] += max(0, exits - made[a["id"]] - missing)
    took = time.perf_counter() - started
    print(f"== {rules}: {seeds} dungeons, {c['areas']} areas, {took:.1f} s")
    print(
        f"corridors at rolled width {c['corridors_as_rolled'] / c['corridors']:.3f} "
        f"({c['corridors']}), without a width bend {c['width_unbent']}"
    )
    print(
        f"rooms within 15 % of rolled {c['rooms_as_rolled'] / c['rooms']:.3f} "
        f"({c['rooms']}), without a size bend {c['size_unbent']}"
    )
    print(f"obstacles {c['obstacles']}, cells outside their corridor {c['obstacle_cells_out']}")
    print(
        f"exits rolled {c['exits_rolled']}, vanished {c['exits_vanished']}, "
        f"blocked (kept, keyed) {c['blocked']} ({c['blocked'] / seeds:.2f} per dungeon)"
    )
    print("bends per area (what/reason):")
    for key, n in kinds.most_common():
        print(f"  {key:24} {n / c['areas']:.4f}")
    print("engine counters per area:")
    for key, n in bent.most_common():
        print(f"  {key:24} {n / c['areas']:.4f}")


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    for name in ("zufallslabyrinth", "scatola-bianca"):
        measure(name, count)
