"""The play library end to end: sessions in a store, events folded, views, journal,
export/import, physical dice, read-only on a changed replay, a golden session log."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from kerker.errors import KerkerError
from kerker.play import engine_port as port
from kerker.play.api import Play, export
from kerker.play.events import EventError, event_from_json
from kerker.play.journal import journal_md
from kerker.play.session import ReadOnlyError, fold, verify
from kerker.play.store import ConflictError, open_store
from kerker.play.views import open_exit_list, show
from kerker.tables.registry import load_registry

GOLDEN = Path(__file__).parent / "golden" / "play"
REGISTRY = load_registry()


@pytest.fixture
def play(tmp_path: Path) -> Play:
    return Play(open_store(tmp_path / "s.sqlite3"), REGISTRY)


def _areas(state) -> list[tuple[int, int, tuple]]:  # type: ignore[no-untyped-def]
    return [
        (lv["depth"], a["number"], tuple(map(tuple, a["cells"])))
        for lv in state.document()["levels"]
        for a in lv["areas"]
    ]


def test_open_undo_redo_reroll(play: Play) -> None:
    s = play.new("zufallslabyrinth", 7, {"levels": 1})
    sid = s.info.id
    start = _areas(s)
    s1 = play.act(sid, "open", exit="next")
    opened = _areas(s1)
    assert len(opened) > len(start)
    s2 = play.act(sid, "undo")
    assert _areas(s2) == start
    s3 = play.act(sid, "redo")
    assert _areas(s3) == opened
    key = s3.events[0].data["exit"]
    s4 = play.act(sid, "reroll", exit="last")
    assert s4.events[-1].data == {"exit": key}
    assert _areas(s4) != opened  # the room behind was rolled afresh (sub-seed per reroll)
    s5 = play.act(sid, "undo")  # undoing the reroll gives back the first roll
    assert _areas(s5) == opened
    with pytest.raises(EventError, match="nothing to redo"):
        play.act(sid, "open", exit="1") and play.act(sid, "redo")
    with pytest.raises(EventError, match="no open exit number 99"):
        play.act(sid, "open", exit="99")
    # the log is append-only: undo and redo are events too
    assert [e.kind for e in play.state(sid).events] == [
        "open",
        "undo",
        "redo",
        "reroll",
        "undo",
        "open",
    ]


def test_replay_of_stored_log_equals_live_state(play: Play) -> None:
    s = play.new("scatola-bianca", 3, {"levels": 2})
    for _n in range(6):
        if not open_exit_list(s, "gm"):
            break
        s = play.act(s.info.id, "open", exit="next")
    s = play.act(s.info.id, "note", text="Ratten *überall*", area=1)
    s = play.act(s.info.id, "check", value=11, modifier=-1, secret=True)
    again = play.state(s.info.id)
    assert again.document() == s.document()
    assert show(again, "gm") == show(s, "gm")


def test_physical_dice_entered_and_refused(play: Play) -> None:
    sid = play.new("zufallslabyrinth", 1, {}).info.id
    s = play.act(sid, "roll", expr="W20", entered=[12])
    assert s.events[-1].data == {"expr": "W20", "entered": [12], "total": 12}
    s = play.act(sid, "roll", expr="3d6+2", entered=[1, 6, 4])
    assert s.events[-1].data["total"] == 13
    for expr, faces, message in (
        ("W20", [21], "cannot show 21"),
        ("W20", [0], "cannot show 0"),
        ("3d6", [1, 2], "needs 3 dice, 2 entered"),
        ("4d6kh3", [1, 2, 3, 4], "plain NdX"),
        ("W20", [20, 1], "needs 1 dice"),
    ):
        with pytest.raises(KerkerError, match=message) as err:
            play.act(sid, "roll", expr=expr, entered=faces)
        assert "\n" not in str(err.value)
    # an HPR check decided by real dice: a 20 needs its confirmation die
    with pytest.raises(KerkerError, match="confirmation"):
        play.act(sid, "check", value=12, entered=[20])
    s = play.act(sid, "check", value=12, entered=[20, 20])
    assert s.events[-1].data["outcome"] == "fumble"
    s = play.act(sid, "check", value=12, entered=[5])
    assert s.events[-1].data["outcome"] == "success"
    # a table's own die entered by hand (W20 of the Innenausstattung); follow-ups by kerker
    s = play.act(sid, "table", table="zufallslabyrinth/innenausstattung", entered=[14])
    assert s.events[-1].data["total"] == 14 and s.events[-1].data["entered"] == [14]
    with pytest.raises(KerkerError, match="cannot show 25"):
        play.act(sid, "table", table="zufallslabyrinth/innenausstattung", entered=[25])
    journal = journal_md(s, REGISTRY, "de")
    assert "W20 (eingegeben)" in journal or "(eingegeben)" in journal


def _secret_session(play: Play, first: int = 0):  # type: ignore[no-untyped-def]
    """A session (seed ``first`` or later) opened until a secret door is among the open
    exits."""
    for seed in range(first, first + 40):
        s = play.new("zufallslabyrinth", seed, {"min_areas": 0})
        for _n in range(30):
            secret = [e for e in open_exit_list(s, "gm") if e["kind"] == "secret_door"]
            if secret:
                return s, secret[0]
            if not open_exit_list(s, "gm"):
                break
            s = play.act(s.info.id, "open", exit="next")
    raise AssertionError("no secret door in 40 seeds")


def test_player_view_hides_secret_doors_until_revealed(play: Play) -> None:
    s, secret = _secret_session(play)
    player = show(s, "player", "en")
    assert secret["key"] not in {e["key"] for e in player["open_exits"]}
    kinds = {c["kind"] for lv in player["levels"] for c in lv["connections"]}
    assert "secret_door" not in kinds
    assert all(
        a["contents"] == [] and a["rolls"] == [] for lv in player["levels"] for a in lv["areas"]
    )
    assert player["player_token"] is None
    s = play.act(s.info.id, "reveal", exit=secret["key"])
    player = show(s, "player", "en")
    assert secret["key"] in {e["key"] for e in player["open_exits"]}
    # a secret door with rooms behind it: they show to players only through the found door
    for seed in range(60):
        s, secret = _secret_session(play, seed)
        s = play.act(s.info.id, "open", exit=secret["key"])
        made = {a for _d, a in s.made.get(s.seq, [])}
        level = s.document()["levels"][0]
        if made and not any(
            c["to"] is not None
            and (c["from"] in made) != (c["to"] in made)
            and c["key"] != secret["key"]
            for c in level["connections"]
        ):
            break
    else:
        raise AssertionError("no secret door with areas only behind it in 60 seeds")
    behind = {a for _d, a in s.made[s.seq]}
    level = s.document()["levels"][0]
    # the areas that lie only behind the secret door: no other way links them to the rest
    outside = [
        c
        for c in level["connections"]
        if c["to"] is not None
        and (c["from"] in behind) != (c["to"] in behind)
        and c["key"] != secret["key"]
    ]
    linked = {c["from"] for c in outside} | {c["to"] for c in outside}
    only = behind if not linked & behind else set()
    numbers = {(1, a["number"]) for a in level["areas"] if a["id"] in only}
    seen = {(lv["depth"], a["number"]) for lv in show(s, "player")["levels"] for a in lv["areas"]}
    assert numbers and not numbers & seen
    s = play.act(s.info.id, "reveal", exit=secret["key"])
    seen = {(lv["depth"], a["number"]) for lv in show(s, "player")["levels"] for a in lv["areas"]}
    assert numbers <= seen  # found: what lies behind it is the players' to see
    # ... and their map draws it (it never walks through a secret door: a found one is a
    # door to the players)
    import re

    from kerker.dungeon.render_svg import render_svg
    from kerker.play.views import document

    svg = render_svg(document(s, "player", "en"), depth=1, view="player")
    drawn = set(re.findall(r'<text class="number"[^>]*>([^<]*)</text>', svg))
    assert {str(n) for _d, n in numbers} <= drawn


def test_journal_languages_and_escaping(play: Play) -> None:
    sid = play.new("scatola-bianca", 5, {}, name="Die <Gruft> *1*").info.id
    play.act(sid, "open", exit="next")
    play.act(sid, "note", text="<script>alert(1)</script> [x](y)")
    s = play.act(sid, "check", value=10, secret=True)
    texts = {lang: journal_md(s, REGISTRY, lang) for lang in ("de", "it", "en")}
    assert "hindurchgegangen" in texts["de"]  # "Gebiet 2, Durchgang: hindurchgegangen"
    assert "si prosegue" in texts["it"]
    assert "passed through" in texts["en"]
    for text in texts.values():
        assert "<script>" not in text and "\\<script\\>" in text
        assert "\\*1\\*" in text
    player = journal_md(s, REGISTRY, "it", "player")
    assert "tirato di nascosto" in player and "W20 ->" not in player.split("\n")[-2]


def test_export_import_round_trip(play: Play, tmp_path: Path) -> None:
    s = play.new("zufallslabyrinth", 11, {"levels": 2})
    sid = s.info.id
    for _n in range(4):
        s = play.act(sid, "open", exit="next")
    s = play.act(sid, "undo")
    s = play.act(sid, "roll", expr="2W6")
    s = play.act(sid, "table", table="zufallslabyrinth/innenausstattung")
    data = json.loads(json.dumps(export(s)))
    assert data["session"] == sid and [e["seq"] for e in data["events"]] == list(
        range(1, s.seq + 1)
    )
    copy = play.import_log(data)
    assert copy.info.id != sid
    assert copy.document() == s.document()
    assert export(copy)["events"] == data["events"]
    bad = {**data, "events": [*data["events"], {"seq": 99, "kind": "open", "exit": "1:0,0:n"}]}
    with pytest.raises(EventError, match="no open exit"):
        play.import_log(bad)
    with pytest.raises(EventError, match="unknown event kind"):
        event_from_json({"seq": 1, "kind": "teleport"})
    with pytest.raises(EventError, match="unknown field"):
        event_from_json({"seq": 1, "kind": "undo", "text": "x"})


def test_conflict_carries_current_state(play: Play) -> None:
    sid = play.new("zufallslabyrinth", 2, {}).info.id
    play.act(sid, "open", exit="next")
    with pytest.raises(ConflictError) as err:
        play.act(sid, "open", exit="next", expected=0)
    assert err.value.state is not None and err.value.state.seq == 1


def test_read_only_when_replay_differs(play: Play) -> None:
    s = play.new("zufallslabyrinth", 4, {})
    s = play.act(s.info.id, "open", exit="next")
    older = replace(s.info, kerker_version="0.0.1", rules_digest="0" * 32, fingerprint="f" * 32)
    state = verify(fold(older, s.events, REGISTRY))
    assert state.read_only and "0.0.1" in str(state.read_only)
    assert state.read_only.code == "version_and_rule_data"
    with pytest.raises(ReadOnlyError):
        from kerker.play.session import propose

        propose(state, "undo", REGISTRY)
    same = verify(fold(replace(older, fingerprint=s.info.fingerprint), s.events, REGISTRY))
    assert same.read_only is None  # another version, but the same dungeon: playable


@pytest.mark.parametrize("name", sorted(p.stem for p in GOLDEN.glob("*.json")))
def test_golden_session_logs_replay(name: str, play: Play) -> None:
    """Stored logs of earlier sessions replay to the dungeon they recorded (a changed
    engine or rule data shows here first: update the golden file deliberately)."""
    data = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    copy = play.import_log(data)
    assert copy.info.fingerprint == data["fingerprint"]


def test_open_exits_have_stable_keys_and_next() -> None:
    params = port.Params(rules="zufallslabyrinth", seed=9)
    state = port.start(params, 9, REGISTRY)
    keys = [e.key for e in port.open_exits(state)]
    assert keys and all(k.count(":") >= 2 for k in keys)
    assert port.next_exit(state) in keys
    assert port.expand(state, keys[0]) and not port.expand(state, keys[0])


def test_enter_a_level_by_its_stairs(play: Play) -> None:
    """The first seed whose walk opens a way down within 15 steps (levels 2, at most 12
    areas): `enter 2` takes it, the arrival is built on level 2 and the journal says so;
    undo takes it back."""
    for seed in range(60):
        s = play.new("zufallslabyrinth", seed, {"levels": 2, "max_areas": 12, "min_areas": 0})
        for _n in range(15):
            if any(e["to_level"] == 2 for e in open_exit_list(s, "gm")):
                break
            if not open_exit_list(s, "gm"):
                break
            s = play.act(s.info.id, "open", exit="next")
        if any(e["to_level"] == 2 for e in open_exit_list(s, "gm")):
            break
    else:
        raise AssertionError("no way down in 60 seeds")
    sid = s.info.id
    with pytest.raises(EventError, match="no open way leads to level 3"):
        play.act(sid, "enter", level=3)
    s = play.act(sid, "enter", level=2)
    assert s.depth == 2 and s.events[-1].data["exit"].startswith("1:")
    assert any(lv["depth"] == 2 and lv["areas"] for lv in s.document()["levels"])
    assert s.made[s.seq] and all(d == 2 for d, _a in s.made[s.seq])
    assert any("Ebene 2" in line for line in journal_md(s, REGISTRY, "de").splitlines())
    s = play.act(sid, "undo")
    assert s.depth == 1 and not any(
        lv["depth"] == 2 and lv["areas"] for lv in s.document()["levels"]
    )
