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


@pytest.mark.parametrize("rules", PROCEDURES)
def test_a_memo_entry_follows_the_labels_of_the_dungeons_tables(rules: str) -> None:
    """A roll-log entry is labelled only when the dungeon keeps a result of its table
    (:class:`RollLabels`): an area whose rolls' tables no area kept a result of is
    written without labels, and with them once another area keeps such results; the memo
    writes that area again then (equal to a fresh document, in every language)."""
    from dataclasses import replace

    from kerker.dungeon.engine import Params, generate
    from kerker.dungeon.export import DocumentMemo, to_document

    dungeon = generate(Params(rules=rules, seed=7, max_areas=8), REGISTRY)
    level = dungeon.levels[0]
    rich = next(a for a in level.areas if a.rolls and a.results)
    bare = replace(rich, id="bare", number=99, results=(), contents=())
    memo = DocumentMemo()
    for lang in LANGS:
        alone = replace(dungeon, levels=(replace(level, areas=(bare,), connections=()),))
        first = to_document(alone, lang, memo)
        entries = first["levels"][0]["areas"][0]["rolls"]
        assert entries and not any("label" in e for e in entries), entries[:2]
        both = replace(alone, levels=(replace(alone.levels[0], areas=(bare, rich)),))
        again = to_document(both, lang, memo)
        assert dumps_document(again) == dumps_document(to_document(both, lang))
        assert all("label" in e for e in again["levels"][0]["areas"][0]["rolls"])


@pytest.mark.parametrize("rules", PROCEDURES)
def test_a_snapshot_sees_every_change_of_a_builder(rules: str) -> None:
    """A procedure may only add what a step makes, but the snapshot does not rely on it:
    whatever changes in an area or a connection of an earlier step (contents, cells, a
    field, a list replaced by a plain one, a connection's bends, width or far side, a way
    to another level on an area's cells) shows in the next snapshot as in a fresh one."""
    from kerker.dungeon.engine import Params, _span, start, walk
    from kerker.dungeon.model import Bend, Content

    state = walk(start(Params(rules=rules, seed=11, max_areas=12, levels=1), REGISTRY))
    level = state.levels[1]
    areas = list(level.areas.values())
    conns = [c for c in level.conns.values() if c.to is not None and c.width > 1]
    assert len(areas) >= 4 and conns

    def same(what: str) -> None:
        assert state.snapshot() == state.fresh_snapshot(), what

    same("unchanged")
    areas[0].contents.append(Content("note", None, note="added"))
    same("contents appended")
    free = next(
        (x + dx, y)
        for x, y in sorted(areas[1].cells)
        for dx in (1, -1)
        if (x + dx, y) not in level.occ.owners
    )
    state.grow(level, areas[1], [free])
    same("a cell added")
    areas[2].width_ft = 15
    same("a field set")
    areas[3].rolls = list(areas[3].rolls)  # a plain list: frozen anew every time
    same("a list replaced")
    areas[3].rolls.pop()
    same("a plain list changed")
    conns[0].info.setdefault("bends", []).append(Bend("exit", "door", "blocked", "no_room"))
    same("a connection's bends")
    link = conns[0]
    gone = next(c for c in _span(link.at, link.side, link.width) if c in level.occ.owners)
    level.areas[level.occ.owners.pop(gone)].cells.discard(gone)
    same("a cell of a link's wall taken away (its span narrows)")
    conns[-1].width = 1
    same("a connection's width")
    way = state.connect(level, areas[0].id, None, "stairs", sorted(areas[0].cells)[0], "n")
    way.mode, way.to_level = "level", 2
    same("a way to another level on an area's cells")


@pytest.mark.parametrize("rules", PROCEDURES)
def test_long_sessions_equal_fresh_ones_across_cut_shifts(rules: str) -> None:
    """Sessions as the web benchmark plays them (60 areas at most, 40 opens of the walk's
    next exit, now and then entering another level, undoing or rerolling): after every
    step the snapshot and fingerprint equal fresh ones, also where the level's cut offset
    moved (the dungeon grew left or up: every area and connection is cut anew); the
    fingerprint's kept bytes stay bounded by what the dungeon holds."""
    shifts = steps = 0
    for seed in range(5000, 5006):
        rng = random.Random(seed)
        info = new_info(f"l{seed}", rules, seed, {"max_areas": 60, "min_areas": 40})
        state = fold(info, [], REGISTRY)
        origins: dict[int, tuple[int, int]] = {}
        for n in range(40):
            choice = rng.random()
            try:
                if choice < 0.08:
                    event = propose(state, "undo", REGISTRY)
                elif choice < 0.12:
                    event = propose(state, "reroll", REGISTRY, exit="last")
                else:
                    ways = [e["to_level"] for e in open_exit_list(state, "gm") if e["to_level"]]
                    if ways and choice < 0.2:
                        event = propose(state, "enter", REGISTRY, level=ways[0])
                    else:
                        event = propose(state, "open", REGISTRY, exit="next")
            except KerkerError:
                continue
            state = advance(state, event, REGISTRY)
            steps += 1
            where = f"{rules} seed {seed} step {n} ({event.kind} {event.data})"
            assert state.frozen() == state.dungeon.fresh_snapshot(), where
            assert fingerprint(state) == fresh_fingerprint(state), where
            for level in state.frozen().levels:
                was = origins.get(level.depth)
                shifts += was is not None and was != level.origin
                origins[level.depth] = level.origin
            held = len(state._prints.held)
            values = sum(len(lv.areas) + len(lv.connections) for lv in state.frozen().levels)
            assert held <= values + 2 * len(state.frozen().levels), (where, held)
    assert steps >= 200, steps
    assert shifts >= 10, shifts
