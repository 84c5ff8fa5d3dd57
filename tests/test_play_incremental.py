"""The incremental snapshot, fingerprint and GM document of a play session equal fresh ones
after every step (issue 14: a step costs what it changes).

Sessions of both procedures, several seeds, over 2 000 steps in all: opens (some with
entered dice), entering other levels, undo, redo, rerolls, reveals and hides, searches,
takes, notes and free rolls in a random mix, stepped as the web app steps a cached state
(:func:`~kerker.play.session.propose`, then :func:`~kerker.play.session.advance` on the
same state). After every step:

- :meth:`DungeonState.snapshot` (reusing the frozen values of the last one) equals
  :meth:`DungeonState.fresh_snapshot`;
- :func:`fingerprint` (incremental) equals :func:`fresh_fingerprint` (the stored definition);
- the GM document in a language (rotating through English, German, Italian, so a
  language's memo also skips steps) is byte for byte :func:`fresh_document`'s.

And the run does reuse: frozen areas and document entries of earlier steps come back as the
same objects (else the comparison would prove nothing about the memo).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from kerker.dungeon.export import dumps_document
from kerker.errors import KerkerError
from kerker.play.session import (
    PlayState,
    advance,
    fingerprint,
    fold,
    fresh_document,
    fresh_fingerprint,
    new_info,
    propose,
)
from kerker.play.views import open_exit_list
from kerker.tables.registry import load_registry

REGISTRY = load_registry()
PROCEDURES = ("zufallslabyrinth", "scatola-bianca")
SEEDS = range(1, 27)
STEPS = 60
"""Steps tried per session: 2 procedures x 26 seeds x 60 = 3 120, of which about 1 050 to
1 250 per procedure can be done (the rest are refused, e.g. nothing to redo)."""
OPTIONS = {"max_areas": 24, "levels": 2, "min_areas": 0}
LANGS = ("en", "de", "it")


def _areas(state: PlayState) -> list[tuple[int, int]]:
    """(depth, number) of every area of the GM document."""
    return [(lv["depth"], a["number"]) for lv in state.document()["levels"] for a in lv["areas"]]


def _event(state: PlayState, rng: random.Random) -> Any:
    """A random next event for ``state`` (raises KerkerError when it cannot be done)."""
    exits = open_exit_list(state, "gm")
    choice = rng.random()
    if choice < 0.45 and exits:
        exit_ = "next" if rng.random() < 0.3 else str(rng.randrange(len(exits)) + 1)
        if rng.random() < 0.15:  # dice a player rolled for the door, kerker rolls the rest
            return propose(state, "open", REGISTRY, exit=exit_, dice=[rng.randint(1, 3)], rest=True)
        return propose(state, "open", REGISTRY, exit=exit_)
    if choice < 0.50:
        ways = [e["to_level"] for e in exits if e["to_level"] is not None]
        if ways:
            return propose(state, "enter", REGISTRY, level=rng.choice(ways))
        return propose(state, "open", REGISTRY, exit="next")
    if choice < 0.56:
        return propose(state, "undo", REGISTRY)
    if choice < 0.60:
        return propose(state, "redo", REGISTRY)
    if choice < 0.65:
        if rng.random() < 0.3:
            return propose(state, "reroll", REGISTRY, exit="last", dice=[1], rest=True)
        return propose(state, "reroll", REGISTRY, exit="last")
    depth, number = rng.choice(_areas(state))
    if choice < 0.72:
        kind = rng.choice(("reveal", "hide"))
        if rng.random() < 0.3:
            keys = [
                c["key"]
                for lv in state.document()["levels"]
                for c in lv["connections"]
                if c["kind"] == "secret_door"
            ]
            if keys:
                return propose(state, kind, REGISTRY, exit=rng.choice(keys))
        return propose(state, kind, REGISTRY, depth=depth, area=number)
    if choice < 0.80:
        return propose(state, "search", REGISTRY, depth=depth, area=number)
    if choice < 0.86:
        return propose(state, "take", REGISTRY, depth=depth, area=number)
    if choice < 0.94:
        area = number if rng.random() < 0.5 else None
        return propose(state, "note", REGISTRY, text=f"note {state.seq}", depth=depth, area=area)
    return propose(state, "roll", REGISTRY, expr="2d6")


def _check(state: PlayState, lang: str, where: str) -> None:
    fresh = state.dungeon.fresh_snapshot()
    assert state.frozen() == fresh, f"snapshot differs from a fresh one: {where}"
    assert fingerprint(state) == fresh_fingerprint(state), f"fingerprint differs: {where}"
    made = dumps_document(state.document(lang))
    assert made == dumps_document(fresh_document(state, lang)), f"document differs: {where}"


@pytest.mark.parametrize("rules", PROCEDURES)
def test_incremental_snapshot_document_and_fingerprint_equal_fresh_ones(rules: str) -> None:
    steps = 0
    reused_areas = reused_entries = 0
    seen: set[str] = set()
    for seed in SEEDS:
        rng = random.Random(seed)
        state = fold(new_info(f"i{seed}", rules, seed, OPTIONS), [], REGISTRY)
        _check(state, "en", f"{rules} seed {seed} start")
        before_areas: dict[int, Any] = {}
        before_entries: dict[str, dict[int, Any]] = {}
        for n in range(STEPS):
            try:
                event = _event(state, rng)
            except KerkerError:
                continue
            lang = LANGS[n % len(LANGS)]
            state = advance(state, event, REGISTRY)
            steps += 1
            seen.add(event.kind)
            where = f"{rules} seed {seed} step {n} ({event.kind} {event.data})"
            _check(state, lang, where)
            if n % 5 == 0:  # twice without a step between: the memo of an unchanged state
                _check(state, lang, where + ", again")
            frozen = state.frozen()
            areas = {id(a): a for lv in frozen.levels for a in lv.areas}
            reused_areas += sum(1 for k, a in areas.items() if before_areas.get(k) is a)
            entries = {id(a): a for lv in state.document(lang)["levels"] for a in lv["areas"]}
            last = before_entries.get(lang, {})
            reused_entries += sum(1 for k, a in entries.items() if last.get(k) is a)
            before_areas, before_entries[lang] = areas, entries
    assert steps >= 1_000, steps
    assert seen >= {"open", "enter", "undo", "redo", "reroll", "reveal", "hide", "note"}, seen
    assert seen & {"search", "take"}, seen
    assert reused_areas > steps and reused_entries > steps, (reused_areas, reused_entries)
