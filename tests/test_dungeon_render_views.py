"""render_views: every view of a level drawn from one shared geometry, byte for byte what
render_svg draws for that view (both rule sets, several seeds and levels, both languages the
rule sets were printed in, and the hand-made fixture with every symbol); and the shortcuts
of the shared outline (kerker.dungeon.outline.Outline) give what the per-loop functions give."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from kerker.dungeon.engine import Params, generate
from kerker.dungeon.export import to_document
from kerker.dungeon.outline import Outline, corners, everywhere, loops, smooth
from kerker.dungeon.render_svg import VIEWS, render_svg, render_views
from kerker.errors import OptionError
from kerker.tables.registry import load_registry

FIXTURES = Path(__file__).parent / "fixtures" / "dungeon"
CASES = [("zufallslabyrinth", seed, 2, "de") for seed in (1, 7, 42)] + [
    ("scatola-bianca", seed, 3, "it") for seed in (3, 5, 11)
]


@pytest.fixture(scope="module")
def registry() -> Any:
    return load_registry([])


def _doc(registry: Any, rules: str, seed: int, levels: int, lang: str) -> dict[str, Any]:
    params = Params(rules=rules, seed=seed, levels=levels)
    return to_document(generate(params, registry), lang)


@pytest.mark.parametrize(("rules", "seed", "levels", "lang"), CASES)
def test_render_views_equals_render_svg(
    registry: Any, rules: str, seed: int, levels: int, lang: str
) -> None:
    doc = _doc(registry, rules, seed, levels, lang)
    for level in doc["levels"]:
        depth = level["depth"]
        views = render_views(doc, depth=depth, lang=lang)
        assert list(views) == list(VIEWS)
        for view in VIEWS:
            assert views[view] == render_svg(doc, depth=depth, view=view, lang=lang), (
                rules,
                seed,
                depth,
                view,
            )


def test_render_views_with_every_symbol() -> None:
    doc = json.loads((FIXTURES / "small.json").read_text(encoding="utf-8"))
    for lang in ("en", "de"):
        views = render_views(doc, lang=lang)
        assert views["gm"] != views["player"]  # secret door and trap only for the GM
        for view in VIEWS:
            assert views[view] == render_svg(doc, view=view, lang=lang)


def test_render_views_draws_the_views_asked_for(registry: Any) -> None:
    doc = _doc(registry, "scatola-bianca", 5, 1, "it")
    assert render_views(doc, lang="it", views=("player",)) == {
        "player": render_svg(doc, view="player", lang="it")
    }
    with pytest.raises(OptionError):
        render_views(doc, views=("gm", "nobody"))
    with pytest.raises(OptionError):
        render_views(doc, depth=99)


def test_outline_shortcuts_match_the_loop_functions() -> None:
    rng = random.Random(5)
    for _ in range(300):
        width, height, fill = rng.randint(1, 9), rng.randint(1, 9), rng.random()
        cells = {(x - 3, y + 2) for x in range(width) for y in range(height) if rng.random() < fill}
        traced = Outline(cells)
        loop_list, pinches = loops(cells)
        assert traced.pinches == pinches
        pinned = {p for loop in loop_list for p in loop if rng.random() < 0.1}
        assert traced.corners(pinned) == [corners(loop, pinned.__contains__) for loop in loop_list]
        assert traced.smooth(pinned, cells.__contains__) == [
            smooth(loop, pinned, cells.__contains__) for loop in loop_list
        ]
        assert traced.smooth(pinned, everywhere, 3) == [
            smooth(loop, pinned, lambda _cell: True, 3) for loop in loop_list
        ]
        grown = {(x + dx, y + dy) for x, y in cells for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
        assert traced.grown().loops() == loops(grown)[0]
