"""Finding what only the GM knows by the rules (issues 13 and 14): the search roll of each
procedure, taking treasure and springing traps, sessions without a referee, the rule data,
the CLI, the store migration that gives every session a GM token, the journal as HTML."""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from play_support import gm_only_texts
from typer.testing import CliRunner

from kerker.cli import app
from kerker.play.api import Play, export
from kerker.play.events import EventError
from kerker.play.journal import journal_html, journal_lines, journal_md
from kerker.play.search import load_search_rules, walls
from kerker.play.session import PlayState, fold
from kerker.play.store import open_store
from kerker.play.store.migrations import MIGRATIONS
from kerker.play.views import _visible, open_exit_list, show, summary
from kerker.tables.registry import load_registry

REGISTRY = load_registry()
runner = CliRunner()


@pytest.fixture
def play(tmp_path: Path) -> Play:
    return Play(open_store(tmp_path / "s.sqlite3"), REGISTRY)


def _explore(play: Play, rules: str, seed: int, steps: int, referee: bool = False) -> PlayState:
    s = play.new(rules, seed, {}, referee=referee)
    for _ in range(steps):
        if not open_exit_list(s, "player"):
            break
        s = play.act(s.info.id, "open", exit="next")
    return s


def _area(state: PlayState, number: int, depth: int = 1) -> tuple[dict[str, Any], Any]:
    level = next(lv for lv in state.document()["levels"] if lv["depth"] == depth)
    return level, next(a for a in level["areas"] if a["number"] == number)


def _secret_door_by(state: PlayState) -> Iterator[tuple[int, str, str, dict[str, Any]]]:
    """(area number, wall, key, area) of unfound secret doors in a wall of a visible area,
    leaving it (the door's own cell lies in that area)."""
    seen = _visible(state)
    for level in state.document()["levels"]:
        number = {a["id"]: a for a in level["areas"]}
        for conn in level["connections"]:
            area = number.get(conn["from"])
            if (
                conn["kind"] == "secret_door"
                and conn["side"] in ("n", "e", "s", "w")
                and area is not None
                and (level["depth"], area["number"]) in seen
            ):
                yield area["number"], conn["side"], conn["key"], area


def _find(play: Play, rules: str, want: Any, steps: int = 10) -> tuple[PlayState, Any]:
    for seed in range(60):
        s = _explore(play, rules, seed, steps)
        found = want(s)
        if found:
            return s, found
    raise AssertionError(f"no seed of {rules} has what the test needs")


def _stretches(area: dict[str, Any], wall: str) -> int:
    return (len(walls(area)[wall]) + 1) // 2  # 10 ft of wall = two 5-ft cells


# -- La Scatola Bianca: 1d12 per 10 ft of wall ----------------------------------------------


def test_rule_data_holds_the_numbers_of_the_texts() -> None:
    rules = load_search_rules()
    sb = rules["scatola-bianca"]
    # 001 A.5.4 footnote: "per ogni 10' di muro controllato, tirare un 1d12: con 1 trovare
    # una porta segreta, ma con 12 compare un mostro errante"
    assert (sb.method, sb.segment_feet, sb.die) == ("walls", 10, "1d12")
    assert sb.find == {1} and sb.monster == {12}
    assert sb.monster_table is not None and REGISTRY.get(sb.monster_table)
    zl = rules["zufallslabyrinth"]
    assert zl.method == "check" and zl.value == 10


def test_scatola_bianca_rolls_one_d12_per_ten_feet_and_a_one_finds_the_door(play: Play) -> None:
    s, (number, wall, key, area) = _find(
        play, "scatola-bianca", lambda s: next(_secret_door_by(s), None)
    )
    sid = s.info.id
    n = _stretches(area, wall)
    assert key not in {e["key"] for e in open_exit_list(s, "player")}
    with pytest.raises(EventError, match="no open exit"):
        play.act(sid, "open", exit=key)  # nobody found it: the players cannot open it
    finders = []
    for hit in range(n):
        faces = [5] * n
        faces[hit] = 1
        s = play.act(sid, "search", area=number, side=wall, entered=faces)
        e = s.events[-1]
        assert e.data["rolls"] == faces and e.data["monster"] is None
        if e.data["found"]:
            assert e.data["found"] == [key]
            finders.append(hit)
            break
    assert len(finders) == 1, "exactly one stretch of wall holds the door"
    door_cell = next(
        tuple(c["at"])
        for lv in s.document()["levels"]
        for c in lv["connections"]
        if c.get("key") == key
    )
    along = walls(area)[wall]
    assert door_cell in along[2 * finders[0] : 2 * finders[0] + 2]
    # found: on the players' map as a door, and openable
    exits = open_exit_list(s, "player")
    assert key in {e["key"] for e in exits}
    doc = show(s, "player")
    assert any(c.get("found_secret") for lv in doc["levels"] for c in lv["connections"])
    s = play.act(sid, "open", exit=key)
    assert s.events[-1].data == {"exit": key}


def test_a_twelve_brings_a_wandering_monster_and_ends_the_search(play: Play) -> None:
    s, (number, _wall, _key, area) = _find(
        play, "scatola-bianca", lambda s: next(_secret_door_by(s), None)
    )
    sid = s.info.id
    total = sum(_stretches(area, w) for w in "nesw")
    assert total >= 3
    s = play.act(sid, "search", area=number, entered=[4, 12])
    e = s.events[-1]
    assert e.data["rolls"] == [4, 12] and isinstance(e.data["monster"], int)
    assert not e.data["found"]
    text = journal_md(s, REGISTRY, "it")
    assert "Compare un mostro errante" in text and "Mostro errante" in text
    with pytest.raises(EventError, match="used 2 of the 3 dice"):
        play.act(sid, "search", area=number, entered=[4, 12, 3])
    with pytest.raises(EventError, match="a d12 cannot show 13"):
        play.act(sid, "search", area=number, entered=[13])
    with pytest.raises(EventError, match="more dice than the 1 entered"):
        play.act(sid, "search", area=number, entered=[5])
    with pytest.raises(EventError, match="a wall is n, e, s or w"):
        play.act(sid, "search", area=number, side="up")


def test_a_wandering_monster_is_labelled_once(play: Play) -> None:
    """The search that brings a wandering monster said "Compare un mostro errante: Mostro
    errante (tabella di kerker, non nel testo): Un mostro ..." (session 5's closing note),
    and a wandering monster in an area read "Errante: ..." under its label (issue 15,
    "Mostro: Errante: ..."): one label, in the journal, the terminal, the key and the
    short key, de/it/en. kerker's note that the table is its own stays with the rolls."""
    from kerker.commands.dungeon import short_key
    from kerker.dungeon.render_key import area_keys
    from kerker.i18n import translator

    def has_monster(s: PlayState) -> Any:
        seen = _visible(s)
        return any(
            c["kind"] == "monster" and c["text"].startswith("Wandering: ")
            for lv in s.document("en")["levels"]
            for a in lv["areas"]
            if (lv["depth"], a["number"]) in seen
            for c in a["contents"]
        )

    s, _found = _find(play, "scatola-bianca", has_monster, steps=12)
    s = play.act(s.info.id, "search", area=1, entered=[12])
    assert isinstance(s.events[-1].data["monster"], int)
    for lang in ("de", "it", "en"):
        _ = translator(lang)
        label, prefix = _("Wandering monster"), _("Wandering: ")
        lead = _("A wandering monster comes: {what}").split("{what}")[0]
        md = journal_md(s, REGISTRY, lang)
        terminal = journal_lines(s, REGISTRY, lang, "gm", [s.events[-1]])
        for text in (md, "\n".join(terminal)):
            comes = [line for line in text.splitlines() if lead in line]
            assert len(comes) == 1, (lang, comes)
            what = comes[0].split(lead, 1)[1]
            assert label not in what and "kerker" not in what and what.strip(), (lang, what)
            # the table's title (kerker's own) and its die with the rolls
            assert any(line.strip().startswith(f"- {label} (") for line in text.splitlines())
        # the contents of the areas opened: "Wandering monster: ...", never the prefix
        assert f"{label}: " in md and prefix not in md, lang
        doc = s.document(lang)
        keyed = [c for k in area_keys(doc, lang=lang) for c in k.contents]
        assert any(c.startswith(f"{label}: ") for c in keyed), lang
        assert not any(prefix in c for c in keyed), lang
        assert f"{label}: " in short_key(doc) and prefix not in short_key(doc), lang


def test_a_search_without_a_find_springs_the_areas_trap(play: Play) -> None:
    def trap(s: PlayState) -> Any:
        for depth, number in sorted(_visible(s)):
            _lv, area = _area(s, number, depth)
            for i, c in enumerate(area["contents"]):
                if c["kind"] == "trap":
                    return depth, number, i, c, area
        return None

    s, (depth, number, index, content, area) = _find(play, "scatola-bianca", trap)
    sid = s.info.id
    player = json.dumps(show(s, "player"), ensure_ascii=False)
    assert content["text"] not in player
    n = sum(_stretches(area, w) for w in "nesw")
    s = play.act(sid, "search", area=number, entered=[5] * n)
    assert s.events[-1].data["sprung"] == [f"{depth}:{number}:{index}"]
    player = json.dumps(show(s, "player"), ensure_ascii=False)
    assert content["text"] in player  # sprung: the players know it now
    assert "È scattata una trappola" in journal_md(s, REGISTRY, "it", "player")
    # the player key labels it as a sprung trap, in every language (never "Note: ...")
    from kerker.dungeon.render_key import area_keys

    labels = {"en": "Trap (sprung): ", "de": "Falle (ausgelöst): ", "it": "Trappola (scattata): "}
    for lang, label in labels.items():
        doc = show(s, "player", lang)
        keyed = [
            c for k in area_keys(doc, depth=depth, lang=lang, view="player") for c in k.contents
        ]
        assert any(c.startswith(label) for c in keyed), (lang, keyed)


def _no_door_lines(s: PlayState, lang: str, view: str = "gm") -> list[str]:
    """The journal lines of the last search that say a find came up where no door lies."""
    from kerker.i18n import translator

    _ = translator(lang)
    tail = _(
        "A {face} came up for the {wall} wall (stretch {n} of {of}, {feet} ft each), "
        "but there is no secret door in that stretch of wall."
    ).rsplit("}", 1)[1]
    lines = journal_lines(s, REGISTRY, lang, view, [s.events[-1]])
    return [line for line in lines if line.endswith(tail)]


def test_a_one_where_no_secret_door_lies_is_told_as_such(play: Play) -> None:
    """Session 5's note: a Scatola Bianca search rolled a 1 and the journal said "Nothing
    found". The decision stays (only the doors the dungeon placed can be found; seed 001's
    footnote to A.5.4 is rolled when the room is made, rules/play/search.yaml), but the
    journal says what happened: the 1 came up on that stretch of wall, and no secret door
    lies there -- for the GM and at a table without a referee, de/it/en; the players of a
    refereed session, who read no dice, read "Nothing found.". Over every wall of the areas
    of 12 sessions, all dice 1: each stretch without a door gets its line, each door is
    found in the wall it lies in as seen from the area searched."""
    from kerker.i18n import translator
    from kerker.play.search import door_stretch, rules_for, secret_doors, stretches

    rules = rules_for("scatola-bianca")
    walls_told = doors_found = 0
    for seed in range(12):
        s = _explore(play, "scatola-bianca", seed, 6, referee=True)
        for depth, number in sorted(_visible(s)):
            for wall in "nesw":
                level, area = _area(s, number, depth)
                searched = stretches(area, wall, rules)
                if not searched:
                    continue
                doors = secret_doors(level, area, wall)
                at = {door_stretch(area, rules, w, c) for _k, w, c in doors}
                unfound = [k for k, _w, _c in doors if k not in s.found]
                s = play.act(
                    s.info.id, "search", area=number, side=wall, entered=[1] * len(searched)
                )
                e = s.events[-1]
                assert sorted(e.data["found"]) == sorted(unfound)
                lang = ("de", "it", "en")[seed % 3]
                _ = translator(lang)
                told = _no_door_lines(s, lang)
                md = journal_md(s, REGISTRY, lang)
                if unfound:
                    assert not told
                    said = _("Found a secret door in the {wall} wall.").format(
                        wall=_({"n": "north", "e": "east", "s": "south", "w": "west"}[wall])
                    )
                    assert said in md
                    doors_found += 1
                    continue
                assert len(told) == len([h for h in searched if h not in at]), (seed, number)
                assert all(f" {len(searched)}," in line for line in told)  # "stretch n of 4"
                if told:
                    walls_told += 1
                    assert _("Nothing found.") not in "\n".join(
                        journal_lines(s, REGISTRY, lang, "gm", [e])
                    )
                    # the players of a refereed session read no dice
                    assert not _no_door_lines(s, lang, "player")
                    player = journal_lines(s, REGISTRY, lang, "player", [e])
                    assert any(_("Nothing found.") in line for line in player)
    assert walls_told >= 50 and doors_found >= 1, (walls_told, doors_found)


def test_a_one_where_no_door_lies_without_a_referee(play: Play) -> None:
    """At a table without a referee everyone reads the dice: the players' journal says it."""
    from kerker.play.search import secret_doors

    s = play.new("scatola-bianca", 3, {}, referee=False)
    level, area = _area(s, 1)
    wall = next(w for w in "nesw" if not secret_doors(level, area, w) and walls(area)[w])
    n = _stretches(area, wall)
    s = play.act(s.info.id, "search", area=1, side=wall, entered=[1] * n)
    for lang in ("de", "it", "en"):
        assert len(_no_door_lines(s, lang, "player")) == n, lang


def test_a_zufallslabyrinth_search_that_succeeds_where_nothing_lies(play: Play) -> None:
    """The HPR check succeeded in walls without a secret door: said so (GM), not "Nothing
    found."; a failed one finds nothing."""
    from kerker.play.search import secret_doors

    s = _explore(play, "zufallslabyrinth", 1, 4, referee=True)
    level, area = _area(s, 1)
    wall = next(w for w in "nesw" if not secret_doors(level, area, w))
    s = play.act(s.info.id, "search", area=1, side=wall, entered=[3])
    assert s.events[-1].data["check"] == "success"
    md = journal_md(s, REGISTRY, "it")
    assert "La ricerca è riuscita: nei muri controllati non c’è nessuna porta segreta." in md
    assert "Non si trova niente." not in md
    assert "Non si trova niente." in journal_md(s, REGISTRY, "it", "player")
    s = play.act(s.info.id, "search", area=1, side=wall, entered=[19])
    assert s.events[-1].data["check"] == "failure"
    assert journal_md(s, REGISTRY, "en").rstrip().splitlines()[-1] != ""
    assert "Nothing found." in journal_lines(s, REGISTRY, "en", "gm", [s.events[-1]])[1]


@pytest.mark.parametrize("rules", ["scatola-bianca", "zufallslabyrinth"])
def test_with_a_referee_the_players_see_what_the_rules_made_known(play: Play, rules: str) -> None:
    """A refereed session's player view showed no contents at all, so treasure the
    players found or took and traps that went off were missing from their screen. Now it
    shows exactly those (found/taken treasure, each sprung trap with its effect) and
    nothing else: no monster or treasure the GM has not described, no unfound secret. Over
    40 sessions per procedure: every area the players see is searched (a find, or a search
    that finds nothing and springs the traps) and its treasure taken."""
    from kerker.dungeon.render_key import area_keys
    from kerker.play.search import mark

    found_total = sprung_total = taken_total = 0
    for seed in range(40):
        s = _explore(play, rules, seed, 12, referee=True)
        sid = s.info.id
        for depth, number in sorted(_visible(s)):
            _lv, area = _area(s, number, depth)
            if not area["contents"]:
                continue
            finds = (seed + number) % 2 == 0
            if rules == "scatola-bianca":
                n = sum(_stretches(area, w) for w in "nesw")
                if n > 100:
                    continue
                faces = [1 if finds else 5] * n
            else:
                faces = [3 if finds else 19]
            s = play.act(sid, "search", area=number, entered=faces)
            for _ in range(len(area["contents"])):
                try:
                    s = play.act(sid, "take", area=number)
                except EventError:
                    break
        doc = show(s, "player", "en")
        assert doc["view"] == "player"
        went_off = [
            line for line in journal_md(s, REGISTRY, "en").splitlines() if "A trap went off" in line
        ]
        assert not [line for line in went_off if "→" in line], went_off  # no roll chain
        text = json.dumps(doc, ensure_ascii=False)
        leaked = [t for t in gm_only_texts(s) if t in text]
        assert not leaked, (rules, seed, leaked[:3])
        seen = _visible(s)
        for level in s.document("en")["levels"]:
            depth = level["depth"]
            keys = {k.anchor: k for k in area_keys(doc, depth=depth, lang="en", view="player")}
            for area in level["areas"]:
                if (depth, area["number"]) not in seen:
                    continue
                shown = " | ".join(keys[f"area-{area['number']}"].contents)
                for i, c in enumerate(area["contents"]):
                    m = mark(depth, area["number"], i)
                    said = str(c["text"]).rstrip(". ")
                    if c["kind"] in ("trap", "trick"):
                        if m in s.sprung:
                            sprung_total += 1
                            # what the players suffer, as the key says it (issue 17, item 4):
                            # the dice rolled in play ("1d6 × 10 turns"), not the rolled value
                            # of generation nor the chain of its rolls ("Gas effects: ...")
                            told = str(c.get("summary") or c["text"]).rstrip(". ")
                            assert told in shown, (rules, seed, m, shown)
                            assert not any(d in shown for d in c.get("details", ())), shown
                        else:
                            assert said not in shown, (rules, seed, m)
                    elif c["kind"] == "treasure":
                        known = m in s.found or m in s.taken
                        found_total += m in s.found
                        taken_total += m in s.taken
                        assert (said in shown) == known, (rules, seed, m, shown)
                        if c.get("trapped") and m in s.sprung:
                            sprung_total += 1
                            assert str(c["trapped"]).rstrip(". ") in shown
                    elif c.get("text"):
                        # the GM tells the players what else is there
                        assert said not in shown, (rules, seed, m, c["kind"])
    hides = rules == "zufallslabyrinth"  # Scatola Bianca hides no treasure (seed 001)
    assert found_total >= hides and sprung_total >= 3 and taken_total >= 5, (
        found_total,
        sprung_total,
        taken_total,
    )


# -- Zufallslabyrinth: an HPR check (seed 003) ----------------------------------------------


def _hidden(s: PlayState) -> Any:
    for depth, number in sorted(_visible(s)):
        _lv, area = _area(s, number, depth)
        hidden = [i for i, c in enumerate(area["contents"]) if c.get("hidden")]
        if hidden:
            return depth, number, hidden, area
    return None


def test_zufallslabyrinth_search_is_an_hpr_check_finding_hidden_treasure(play: Play) -> None:
    s, (depth, number, hidden, area) = _find(play, "zufallslabyrinth", _hidden)
    sid = s.info.id
    german = next(
        a for lv in s.document("de")["levels"] for a in lv["areas"] if a["number"] == number
    )
    texts = [german["contents"][i]["hidden"] for i in hidden]
    with pytest.raises(EventError, match="no treasure"):
        for _ in range(len(area["contents"]) + 1):  # the hidden ones cannot be taken unseen
            s = play.act(sid, "take", area=number)
    assert not {e.data["item"] for e in s.events if e.kind == "take"} & set(hidden)
    s = play.act(sid, "search", area=number, entered=[15])  # 15 > 10: the check fails
    e = s.events[-1]
    assert e.data["check"] == "failure" and e.data["found"] == []
    s = play.act(sid, "search", area=number, entered=[5], value=12, modifier=-2)
    e = s.events[-1]
    assert e.data["check"] == "success" and e.data["value"] == 12
    assert {f"{depth}:{number}:{i}" for i in hidden} <= set(e.data["found"])
    player = json.dumps(show(s, "player"), ensure_ascii=False)
    assert all(area["contents"][i]["text"] in player for i in hidden)
    md = journal_md(s, REGISTRY, "de", "player")
    assert "Versteckten Schatz gefunden" in md and texts[0] in md
    s = play.act(sid, "take", area=number)
    assert s.events[-1].kind == "take"


def test_taking_a_trapped_treasure_springs_its_trap(play: Play) -> None:
    def trapped(s: PlayState) -> Any:
        for depth, number in sorted(_visible(s)):
            _lv, area = _area(s, number, depth)
            for i, c in enumerate(area["contents"]):
                if c.get("trapped") and not c.get("hidden"):
                    return depth, number, i, c
        return None

    s, (depth, number, index, content) = _find(play, "zufallslabyrinth", trapped)
    sid = s.info.id
    assert content["trapped"] not in json.dumps(show(s, "player"), ensure_ascii=False)
    items = [
        i
        for i, c in enumerate(_area(s, number, depth)[1]["contents"])
        if c["kind"] == "treasure" and not c.get("hidden")
    ]
    s = play.act(sid, "take", area=number, depth=depth, item=items.index(index) + 1)
    e = s.events[-1]
    assert e.data == {
        "depth": depth,
        "area": number,
        "item": index,
        "sprung": [f"{depth}:{number}:{index}"],
    }
    player = json.dumps(show(s, "player"), ensure_ascii=False)
    assert content["trapped"] in player and "(taken)" in player
    assert "Seine Falle ist ausgelöst worden" in journal_md(s, REGISTRY, "de")
    with pytest.raises(EventError, match="no treasure"):
        for _ in range(len(items) + 1):
            play.act(sid, "take", area=number, depth=depth, item=len(items))


# -- sessions without a referee --------------------------------------------------------------


def test_without_a_referee_nobody_reveals_and_checks_are_open(play: Play) -> None:
    s = _explore(play, "zufallslabyrinth", 3, 3)
    sid = s.info.id
    with pytest.raises(EventError, match="nobody reveals or hides"):
        play.act(sid, "reveal", area=1)
    with pytest.raises(EventError, match="nobody rolls it secretly"):
        play.act(sid, "check", value=10, secret=True)
    assert play.act(sid, "check", value=10).events[-1].data["secret"] is False
    assert show(s, "gm")["view"] == "player"  # the GM view asked for: the players' one
    assert summary(s, "en", "gm") == summary(s, "en", "player")


def test_next_without_a_referee_never_goes_through_an_unfound_secret_door(play: Play) -> None:
    for rules in ("scatola-bianca", "zufallslabyrinth"):
        for seed in range(12):
            s = play.new(rules, seed, {"max_areas": 25}, referee=False)
            for _ in range(30):
                if not open_exit_list(s, "player"):
                    break
                before = {e["key"] for e in open_exit_list(s, "player")}
                s = play.act(s.info.id, "open", exit="next")
                assert s.events[-1].data["exit"] in before


@pytest.mark.parametrize("rules", ["scatola-bianca", "zufallslabyrinth"])
def test_no_gm_only_information_reaches_a_session_without_a_referee(play: Play, rules: str) -> None:
    """Over 25 seeds each: after every step of an exploration with searches and takes,
    nothing the GM alone knows is in the state, journal (Markdown and HTML) or summary."""
    checked = 0
    for seed in range(25):
        s = play.new(rules, seed, {"max_areas": 30}, referee=False)
        sid = s.info.id
        for step in range(14):
            exits = open_exit_list(s, "player")
            if step % 3 == 2 and s.events:
                number = max(n for _d, n in _visible(s))
                try:
                    s = play.act(sid, "search", area=number)
                except EventError as err:  # a long corridor: one wall at a time
                    assert "search one wall" in str(err.message(lambda t: t))
                    s = play.act(sid, "search", area=number, side="s")
            elif step % 5 == 4:
                numbers = sorted(n for _d, n in _visible(s))
                with contextlib.suppress(EventError):  # nothing to take there
                    s = play.act(sid, "take", area=numbers[-1])
            elif exits:
                s = play.act(sid, "open", exit="next")
            hidden = gm_only_texts(s)
            texts = [
                json.dumps(show(s, "gm", lang), ensure_ascii=False)
                + journal_md(s, REGISTRY, lang, "gm")
                + journal_html(s, REGISTRY, lang, "gm")
                + summary(s, lang, "gm")
                for lang in ("en",)
            ]
            for text in texts:
                leaked = [t for t in hidden if t in text]
                assert not leaked, (rules, seed, step, leaked[:3])
            checked += len(hidden)
    assert checked > 50  # the sessions did hold secrets to keep


# -- replay, export, import -------------------------------------------------------------------


def test_search_and_take_replay_and_round_trip(play: Play) -> None:
    s, found = _find(play, "zufallslabyrinth", _hidden)
    number = found[1]
    sid = s.info.id
    s = play.act(sid, "search", area=number, entered=[3])
    s = play.act(sid, "take", area=number)
    s = play.act(sid, "undo")  # takes back the last open: finds and takes stay
    again = fold(s.info, s.events, REGISTRY)
    assert (again.found, again.sprung, again.taken, again.revealed) == (
        s.found,
        s.sprung,
        s.taken,
        s.revealed,
    )
    data = export(s)
    assert data["referee"] is False and "gm_token" not in json.dumps(data)
    copy = play.import_log(data)
    assert copy.info.referee is False and copy.found == s.found and copy.taken == s.taken
    assert copy.info.gm_token and copy.info.gm_token != s.info.gm_token
    tampered = json.loads(json.dumps(data))
    next(e for e in tampered["events"] if e["kind"] == "search")["found"] = ["1:0,0:n"]
    with pytest.raises(EventError, match="does not replay"):
        play.import_log(tampered)


# -- the journal as HTML ----------------------------------------------------------------------


def test_journal_html_escapes_and_folds_the_rolls(play: Play) -> None:
    s = play.new("zufallslabyrinth", 3, {}, referee=True)
    sid = s.info.id
    s = play.act(sid, "open", exit="next")
    s = play.act(sid, "note", text="<script>alert('x')</script> *a* ~~b~~ & `c`")
    s = play.act(sid, "search", area=1)
    html = journal_html(s, REGISTRY, "it", "gm")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<del>" not in html.split('value="2"')[1].split("</li>")[0]  # the note's ~~ is text
    assert html.count("<details>") >= 2 and "<summary>Tiri</summary>" in html
    assert html.startswith('<ol class="journal">') and '<li value="3">' in html
    player = journal_html(s, REGISTRY, "it", "player")
    assert "W20" not in player.split('value="3"')[1]  # the GM rolled the search secretly


# -- CLI --------------------------------------------------------------------------------------


def _cli(db: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["play", *args, "--db", str(db)], env={"KERKER_DB": ""})
    return result.exit_code, result.stdout, result.stderr


def test_cli_search_take_and_no_referee(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    code, out, _err = _cli(
        db, "new", "--seed", "0", "--rules", "scatola-bianca", "--no-referee", "--json"
    )
    assert code == 0
    made = json.loads(out)
    sid = made["session"]
    assert made["referee"] is False and len(made["gm_token"]) >= 22  # >= 128 bits
    for _ in range(3):
        assert _cli(db, "open", sid, "next")[0] == 0
    code, out, err = _cli(db, "search", sid, "1", "--side", "n", "--dice", "13")
    assert code == 2 and "a d12 cannot show 13" in err and err.count("\n") == 1
    code, out, err = _cli(db, "search", sid, "1", "--json")
    assert code == 0, err
    assert json.loads(out)["event"]["kind"] == "search"
    code, out, err = _cli(db, "search", sid, "1", "--side", "x", "--lang", "en")
    assert code == 2 and err.count("\n") == 1
    assert "a wall is n, e, s, w or north, east, south, west, not 'x'" in err
    code, out, err = _cli(db, "reveal", sid, "1")
    assert code == 2 and "nobody reveals" in err
    code, out, _err = _cli(db, "show", sid, "--json")
    shown = json.loads(out)
    assert shown["view"] == "player" and shown["gm_path"] == "/gm/" + made["gm_token"]
    code, out, _err = _cli(db, "show", sid, "--lang", "en")
    assert code == 0 and ("Open exits" in out or "No exit" in out)
    code, out, err = _cli(db, "take", sid, "1", "9")
    assert code == 2 and "no treasure 9" in err


# -- the store ---------------------------------------------------------------------------------


def test_migration_two_gives_every_stored_session_a_gm_token(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    for statement in MIGRATIONS[0][1]:
        conn.execute(statement)
    conn.execute("INSERT INTO kerker_meta VALUES ('app', 'kerker-play'), ('schema', '1')")
    for n in range(3):
        conn.execute(
            "INSERT INTO sessions VALUES (?, '', 'zufallslabyrinth', '7', '{}', '0.1.0', 'x', ?,"
            " '', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 0)",
            (f"abcdef{n}", f"player-token-{n}"),
        )
    conn.commit()
    conn.close()
    with open_store(path) as store:
        infos = store.sessions()
        tokens = {i.gm_token for i in infos}
        assert len(tokens) == 3 and all(len(t) >= 22 for t in tokens)
        assert all(i.referee for i in infos)
        assert store.by_gm_token(infos[0].gm_token).id == infos[0].id
    with open_store(path) as store:  # opened again: the same tokens (migrated once)
        assert {i.gm_token for i in store.sessions()} == tokens


def test_terminal_journal_lines_of_a_search(play: Play) -> None:
    s = _explore(play, "scatola-bianca", 2, 4)
    s = play.act(s.info.id, "search", area=1, side="n")
    lines = journal_lines(s, REGISTRY, "de", "player", [s.events[-1]])
    assert lines[0].startswith(f"{s.seq}. Die Wand im Norden von Gebiet 1")
    assert any("1W12" in line or "1d12" in line for line in lines)  # no referee: dice shown


def test_the_terminal_loop_searches_and_has_no_gm_view_without_a_referee(play: Play) -> None:
    import io

    from kerker.play.terminal import run_loop

    s = _explore(play, "scatola-bianca", 2, 2)
    out = io.StringIO()
    run_loop(play, s.info.id, "en", io.StringIO("vs1 n\rg1\rq"), out)
    text = out.getvalue()
    assert "Without a game master there is only the players' view." in text
    after = play.state(s.info.id)
    assert [e.kind for e in after.events[s.seq :]] == ["search"]
    assert after.events[-1].data["side"] == "n"
    assert "Searched the north wall of area 1" in text
    assert "error: no treasure 1 to take in area 1 (0 there)" in text  # one line, loop goes on
    assert text.rstrip().endswith("goes on from here.")


# -- walls in the reader's language ----------------------------------------------------------


def test_a_wall_is_read_in_the_readers_language() -> None:
    from kerker.errors import OptionError
    from kerker.i18n import translator
    from kerker.play.wallnames import read_wall

    # "o" is Osten in German and ovest in Italian; English has no "o"
    assert [read_wall(t, "de") for t in ("n", "o", "s", "w")] == ["n", "e", "s", "w"]
    assert [read_wall(t, "it") for t in ("n", "e", "s", "o")] == ["n", "e", "s", "w"]
    assert [read_wall(t, "en") for t in ("N", "E", "S", "W")] == ["n", "e", "s", "w"]
    for lang, words in (
        ("de", ("Norden", "OSTEN", "süden", "Westen")),
        ("it", ("Nord", "est", "SUD", "ovest")),
        ("en", ("north", "East", "south", "WEST")),
    ):
        assert [read_wall(w, lang) for w in words] == ["n", "e", "s", "w"], lang
    assert (read_wall("Ost", "de"), read_wall("sueden", "de"), read_wall(" Süd ", "de")) == (
        "e",
        "s",
        "s",
    )
    assert read_wall("ov", "it") == "w" and read_wall("Osten", "it") == "e"  # whole words
    assert read_wall(None, "de") is None and read_wall("  ", "it") is None
    for lang, typed, listed in (
        ("de", "x", "eine Wand ist n, o, s, w oder Norden, Osten, Süden, Westen, nicht 'x'"),
        ("it", "ost", "un muro è n, e, s, o oppure nord, est, sud, ovest, non 'ost'"),
        ("en", "o", "a wall is n, e, s, w or north, east, south, west, not 'o'"),
    ):
        with pytest.raises(OptionError) as caught:
            read_wall(typed, lang)
        assert caught.value.message(translator(lang)) == listed


def test_the_cli_searches_the_wall_named_in_its_language(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    code, out, err = _cli(db, "new", "--seed", "3", "--json")
    assert code == 0, err
    sid = json.loads(out)["session"]
    assert _cli(db, "open", sid, "next")[0] == 0
    for lang, typed, wall, told in (
        ("de", "o", "e", "Die Wand im Osten von Gebiet 1"),
        ("it", "o", "w", "Cercato nel muro a ovest dell’area 1"),
        ("de", "Süden", "s", "Die Wand im Süden von Gebiet 1"),
        ("en", "west", "w", "Searched the west wall of area 1"),
    ):
        code, out, err = _cli(db, "search", sid, "1", "--side", typed, "--lang", lang)
        assert code == 0, (lang, typed, err)
        assert told in out, (lang, typed, out)
        with open_store(db) as store:
            assert Play(store, REGISTRY).state(sid).events[-1].data["side"] == wall
    code, out, err = _cli(db, "search", sid, "1", "--side", "o", "--lang", "en")
    assert code == 2 and err == (
        "kerker: error: a wall is n, e, s, w or north, east, south, west, not 'o'\n"
    )
    code, out, err = _cli(db, "search", sid, "1", "--side", "q", "--lang", "de")
    assert code == 2 and "Norden, Osten, Süden, Westen" in err and err.count("\n") == 1
    # the help is written in its language in a fresh process (help texts are read at start)
    helped = subprocess.run(
        [sys.executable, "-m", "kerker", "play", "search", "--help", "--lang", "de"],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, PYTHONPATH=str(Path(__file__).parent.parent / "src")),
    ).stdout
    assert "--side n|o|s|w" in helped and "n, o, s oder w oder das Wort" in " ".join(helped.split())


def test_the_terminal_loop_reads_the_wall_in_the_sessions_language(play: Play) -> None:
    import io

    from kerker.play.terminal import run_loop

    s = _explore(play, "zufallslabyrinth", 3, 1)
    out = io.StringIO()
    run_loop(play, s.info.id, "de", io.StringIO("s1 o\rs1 e\rs1 x\rq"), out)
    text = out.getvalue()
    after = play.state(s.info.id)
    assert [e.data["side"] for e in after.events[s.seq :]] == ["e", "e"]
    assert "n/o/s/w" in text
    assert "Fehler: eine Wand ist n, o, s, w oder Norden, Osten, Süden, Westen, nicht 'x'" in text
    s = _explore(play, "scatola-bianca", 2, 2)
    run_loop(play, s.info.id, "it", io.StringIO("s1 o\rq"), io.StringIO())
    assert play.state(s.info.id).events[-1].data["side"] == "w"


def test_every_open_exit_names_its_wall(play: Play) -> None:
    """A second exit at one place ("1:108,119:s~2") and a 45° wall ("ne") were listed with
    an empty wall: "Durchgang von Gebiet 9 (), Ebene 1"."""
    from kerker.i18n import translator
    from kerker.play.views import exit_lines

    s = _explore(play, "zufallslabyrinth", 5, 15)
    keys = [e["key"] for e in open_exit_list(s, "gm")]
    # A second exit at one place no longer arises here since the five-way junction's
    # second way joins the first (rules-notes-000, decision 20): every wall is named.
    assert keys
    for lang in ("de", "it", "en"):
        lines = exit_lines(s, "gm", translator(lang))
        assert lines and not any("()" in line for line in lines), (lang, lines)
    wide = [
        exit_lines(t, "gm", translator("de"))
        for seed in range(3)
        for t in [_explore(play, "scatola-bianca", seed, 12)]
    ]
    assert not any("()" in line for lines in wide for line in lines)


def test_undo_after_a_search_names_the_step_it_takes_back(play: Play) -> None:
    """A search stays when undone past, so "Undid the last step." told the wrong step."""
    s = _explore(play, "zufallslabyrinth", 5, 2)
    s = play.act(s.info.id, "search", area=1)
    s = play.act(s.info.id, "undo")
    s = play.act(s.info.id, "redo")
    undo, redo = s.events[-2], s.events[-1]
    for lang, wanted in (
        ("en", ("Undid step 2.", "Redid step 2.")),
        ("de", ("Schritt 2 zurückgenommen.", "Schritt 2 wiederhergestellt.")),
        ("it", ("Annullato il passo 2.", "Ripristinato il passo 2.")),
    ):
        told = [journal_lines(s, REGISTRY, lang, "player", [e])[0] for e in (undo, redo)]
        assert told == [f"4. {wanted[0]}", f"5. {wanted[1]}"], (lang, told)


def test_a_check_in_the_journal_names_its_value_not_a_second_target(play: Play) -> None:
    """ "Check against 12 (modifier -2): … against a target of 10" named two targets."""
    s = _explore(play, "zufallslabyrinth", 5, 1)
    s = play.act(s.info.id, "check", value=12, modifier=-2)
    for lang, head in (
        ("en", "Check with value 12 (modifier -2): "),
        ("de", "Probe auf Wert 12 (Modifikation -2): "),
        ("it", "Prova con valore 12 (modificatore -2): "),
    ):
        line = journal_lines(s, REGISTRY, lang, "player", [s.events[-1]])[0]
        assert line.startswith(f"{s.seq}. {head}"), (lang, line)


def test_undo_help_says_what_it_takes_back() -> None:
    """The help said "the last step", which a search, a roll or a take never is for undo."""
    helped = subprocess.run(
        [sys.executable, "-m", "kerker", "play", "undo", "--help", "--lang", "it"],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, PYTHONPATH=str(Path(__file__).parent.parent / "src"), COLUMNS="100"),
    ).stdout
    assert "ricerche, tiri e tesori presi restano" in " ".join(helped.split())


@pytest.mark.parametrize("rules", ["scatola-bianca", "zufallslabyrinth"])
def test_a_step_line_says_each_word_once(play: Play, rules: str) -> None:
    """Issue 17, item 5: a journal's step line read "aperta l’uscita (Apertura)", "Opening of
    area 3 opened", "Torbogen von Gebiet 1 geöffnet". Over a solo session of 15 doors, no
    step line of the de/it/en journal (GM and players' view) holds two words of one stem
    (their first four letters)."""
    s = _explore(play, rules, 3, 15)
    assert len(s.events) >= 10
    doubled: list[str] = []
    for lang in ("de", "it", "en"):
        for view in ("gm", "player"):
            for line in journal_md(s, REGISTRY, lang, view).splitlines():
                if not re.match(r"^\d+\. ", line):
                    continue
                head = re.sub(r"\([^)]*\d[^)]*\)", "", line)  # the exit's engine key
                stems = [w.lower()[:4] for w in re.findall(r"[^\W\d_]{4,}", head)]
                if len(stems) != len(set(stems)):
                    doubled.append(f"{lang} {view}: {line}")
    assert not doubled, "\n".join(doubled[:10])
