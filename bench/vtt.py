"""Tabletop export benchmark (issue 16): file sizes and export times per level at 50, 70
and 100 px per 10-ft square, for the .dd2vtt (PNG and WebP) and the Foundry bundle, over
default levels (30 x 40 squares, up to 60 areas) of both procedures.
Run: ``python bench/vtt.py [--seeds N]``. Times are medians per level, after the dungeon
is rolled (the export alone: walls, picture, encoding, JSON).
"""

from __future__ import annotations

import argparse
import statistics
import time

from kerker.dungeon.engine import Params, generate
from kerker.dungeon.export import to_document
from kerker.export.foundry import export_foundry
from kerker.export.uvtt import export_uvtt
from kerker.tables.registry import load_registry

REGISTRY = load_registry([])


def _doc(rules: str, seed: int) -> dict[str, object]:
    params = Params(
        rules=rules, seed=seed, levels=1, size=(30, 40), max_areas=60, min_areas=10
    ).checked()
    return to_document(generate(params, REGISTRY), "en")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=5, help="levels per procedure")
    args = parser.parse_args()
    docs = [
        _doc(rules, seed)
        for rules in ("zufallslabyrinth", "scatola-bianca")
        for seed in range(args.seeds)
    ]
    print(f"{len(docs)} levels; median per level (min-max)")
    print(f"{'ppg':>4} {'what':<22} {'size KB':>18} {'time ms':>18}")
    for ppg in (50, 70, 100):
        rows: dict[str, tuple[list[float], list[float]]] = {}
        for doc in docs:
            for what, run in (
                ("dd2vtt png", lambda d=doc, p=ppg: len(export_uvtt(d, 1, ppg=p)[0].encode())),
                (
                    "dd2vtt webp",
                    lambda d=doc, p=ppg: len(
                        export_uvtt(d, 1, ppg=p, image_format="webp")[0].encode()
                    ),
                ),
                ("foundry png bundle", lambda d=doc, p=ppg: _bundle(d, p)),
            ):
                start = time.perf_counter()
                size = run()
                elapsed = time.perf_counter() - start
                sizes, times = rows.setdefault(what, ([], []))
                sizes.append(float(size) / 1024)
                times.append(elapsed * 1000)
        for what, (sizes, times) in rows.items():
            print(f"{ppg:>4} {what:<22} {_span(sizes):>18} {_span(times):>18}")


def _bundle(doc: dict[str, object], ppg: int) -> int:
    bundle = export_foundry(doc, 1, ppg=ppg)
    return len(bundle.scene.encode()) + len(bundle.journal.encode()) + len(bundle.image)


def _span(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} ({min(values):.0f}-{max(values):.0f})"


if __name__ == "__main__":
    main()
