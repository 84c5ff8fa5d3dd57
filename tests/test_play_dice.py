"""Real dice behind a door (issue 13, physical dice mode): the table rolls a door makes take
the values a player entered; the open event stores them, replay gives the same state, bad
values and running out are refused with nothing written (library, CLI, terminal, web API)."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import pytest
from play_support import OPTS

from kerker.dice.entered import EnteredDiceError, FacesRandom, check_entered, roll_faces
from kerker.dice.roller import roll
from kerker.i18n import translator
from kerker.play.api import Play, export
from kerker.play.events import EventError
from kerker.play.session import EnteredDice, fingerprint, fold
from kerker.play.session import check_entered as session_check_entered
from kerker.play.store import open_store
from kerker.tables.engine import MoreDiceNeeded
from kerker.tables.registry import load_registry

REGISTRY = load_registry()


@pytest.fixture
def play(tmp_path: Path) -> Play:
    return Play(open_store(tmp_path / "s.sqlite3"), REGISTRY)


def _area(state: Any, number: int, lang: str = "en") -> dict[str, Any]:
    doc = state.document(lang)
    return next(a for a in doc["levels"][0]["areas"] if a["number"] == number)


def test_an_entered_corridor_width_is_the_width_built(play: Play) -> None:
    # seed 7, exit 1: an archway; W10 4 = a straight corridor, then its width on W%
    # (Gangbreite: 1-5 five feet, 6-65 ten feet, 66-85 twenty feet)
    widths = {}
    for face in (1, 20, 70):
        s = play.new("zufallslabyrinth", 7, OPTS)
        after = play.act(s.info.id, "open", exit="1", dice=[4, face], rest=True)
        corridor = _area(after, 2)
        widths[face] = corridor["size"]["feet"].split(" × ")[0]
        rolls = corridor["rolls"]
        assert [r["explain"] for r in rolls[:2]] == ["W10 -> [4] = 4", f"W% -> [{face}] = {face}"]
        assert rolls[0]["entered"] is True and rolls[1]["entered"] is True
        assert not any(r.get("entered") for r in rolls[2:])  # rolled by kerker
        assert after.events[-1].data == {"exit": "1:30,70:n", "dice": [4, face], "rest": True}
    assert widths == {1: "5", 20: "10", 70: "20"}


def test_entering_what_kerker_rolled_gives_the_same_dungeon(play: Play) -> None:
    plain = play.act(play.new("zufallslabyrinth", 7, OPTS).info.id, "open", exit="1")
    faces = [r["roll"] for r in _area(plain, 2)["rolls"]]
    entered = play.act(play.new("zufallslabyrinth", 7, OPTS).info.id, "open", exit="1", dice=faces)
    assert fingerprint(entered) == fingerprint(plain)
    assert all(r["entered"] for r in _area(entered, 2)["rolls"])


def test_replay_of_the_log_gives_the_same_state(play: Play) -> None:
    s = play.new("scatola-bianca", 3, {**OPTS, "caves": "depth"})
    live = play.act(s.info.id, "open", exit="next", dice=[3], rest=True)
    live = play.act(s.info.id, "open", exit="next")
    live = play.act(s.info.id, "reroll", exit="last", dice=[1, 1], rest=True)
    live = play.act(s.info.id, "undo")
    live = play.act(s.info.id, "redo")
    again = fold(live.info, live.events, REGISTRY)
    assert fingerprint(again) == fingerprint(live) == live.info.fingerprint
    assert again.document("it") == live.document("it")
    fresh = Play(play.store, REGISTRY).state(s.info.id)  # a new reader: replayed from the store
    assert fingerprint(fresh) == fingerprint(live) and not fresh.read_only


def test_a_reroll_takes_its_own_entered_dice(play: Play) -> None:
    sid = play.new("zufallslabyrinth", 7, OPTS).info.id
    play.act(sid, "open", exit="1", dice=[4, 1], rest=True)
    after = play.act(sid, "reroll", exit="last", dice=[4, 70], rest=True)
    assert _area(after, 2)["size"]["feet"].startswith("20 ×")
    back = play.act(sid, "undo")  # the reroll undone: the open's own dice again
    assert _area(back, 2)["size"]["feet"].startswith("5 ×")


def test_bad_values_and_running_out_are_refused_and_nothing_is_written(play: Play) -> None:
    sid = play.new("zufallslabyrinth", 7, OPTS).info.id
    with pytest.raises(EnteredDiceError, match="a d10 cannot show 11"):
        play.act(sid, "open", exit="1", dice=[11])
    with pytest.raises(EnteredDiceError, match="a d100 cannot show 0"):
        play.act(sid, "open", exit="1", dice=[4, 0], rest=True)
    with pytest.raises(MoreDiceNeeded) as needed:
        play.act(sid, "open", exit="1", dice=[4, 20])
    err = needed.value
    assert (err.number, err.dice, err.table_id) == (3, "W20", "zufallslabyrinth/gaenge")
    assert "roll 3 is W20 for Corridors" in str(err)
    assert "Gänge" in err.in_language("de").message()
    assert err.to_json()["needs"]["table"] == "zufallslabyrinth/gaenge"
    with pytest.raises(Exception, match="took 4 of the 9 dice entered"):
        faces = [r["roll"] for r in _area(play.act(sid, "open", exit="1"), 2)["rolls"]]
        play.act(sid, "undo")
        play.act(sid, "open", exit="1", dice=[*faces, 1, 1, 1, 1, 1][:9])
    assert [e.kind for e in play.state(sid).events] == ["open", "undo"]


def test_asked_rolls_are_stored_as_entered(play: Play) -> None:
    sid = play.new("zufallslabyrinth", 7, OPTS).info.id
    asked: list[tuple[str, str, int]] = []

    def ask(table: Any, dice: str, count: int, number: int) -> list[int]:
        asked.append((table.id, dice, number))
        return [4] if number == 1 else [20] if number == 2 else [2]

    after = play.act(sid, "open", exit="1", ask=ask)
    assert asked[:2] == [
        ("zufallslabyrinth/ausgang_ohne_tuer", "W10", 1),
        ("zufallslabyrinth/gangbreite", "W%", 2),
    ]
    assert after.events[-1].data["dice"] == [4, 20] + [2] * (len(asked) - 2)
    assert after.events[-1].data["rest"] is False


def test_export_and_import_round_trip_the_entered_dice(play: Play) -> None:
    sid = play.new("zufallslabyrinth", 7, OPTS).info.id
    live = play.act(sid, "open", exit="1", dice=[4, 70], rest=True)
    log = json.loads(json.dumps(export(live)))
    assert log["events"][0]["dice"] == [4, 70]
    copy = play.import_log(log)
    assert fingerprint(copy) == fingerprint(live)
    log["events"][0]["dice"] = [4, 71]  # a tampered log: the width no longer replays
    with pytest.raises(Exception, match="does not replay"):
        play.import_log(log)


def test_the_journal_says_entered(play: Play) -> None:
    from kerker.play.journal import journal_md

    sid = play.new("zufallslabyrinth", 7, OPTS).info.id
    live = play.act(sid, "open", exit="1", dice=[4, 70], rest=True)
    de = journal_md(live, REGISTRY, "de")
    assert "Echte Würfel eingegeben: 4, 70." in de
    assert "W% → [70] = 70 (eingegeben)" in de
    it = journal_md(live, REGISTRY, "it")
    assert "d% → [70] = 70 (inserito)" in it
    assert "(inserito)" not in journal_md(live, REGISTRY, "it", "player")


def test_the_cli_takes_dice_for_a_door(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from kerker.cli import app

    db = str(tmp_path / "c.sqlite3")
    runner = CliRunner()
    sid = runner.invoke(app, ["play", "new", "--seed", "7", "--db", db]).stdout.strip()
    bad = runner.invoke(app, ["play", "open", sid, "1", "--dice", "4 101", "--db", db])
    assert bad.exit_code == 2 and "a d100 cannot show 101" in bad.stderr
    short = runner.invoke(
        app, ["play", "open", sid, "1", "--dice", "4", "--db", db, "--lang", "de"]
    )
    assert short.exit_code == 2 and "W% für Gangbreite" in short.stderr
    assert len(short.stderr.strip().splitlines()) == 1
    words = runner.invoke(app, ["play", "open", sid, "1", "--dice", "vier", "--db", db])
    assert words.exit_code == 2 and "--dice takes whole numbers" in words.stderr
    done = runner.invoke(
        app, ["play", "open", sid, "1", "--dice", "4 70", "--roll-rest", "--db", db, "--json"]
    )
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["event"]["dice"] == [4, 70]


def test_the_terminal_loop_asks_each_roll(play: Play) -> None:
    from kerker.play.terminal import run_loop

    sid = play.new("zufallslabyrinth", 7, OPTS).info.id
    out = io.StringIO()
    # p: real dice on; n: open next; 4, then 0 (refused, asked again), then 70; then an
    # empty line calls the open off: nothing written
    run_loop(play, sid, "de", io.StringIO("pn4\n0\n70\n\nq"), out)
    text = out.getvalue()
    assert "W10 – Ausgang ohne Tür: " in text and "W% – Gangbreite: " in text
    assert "ein W100 kann keine 0 zeigen" in text or "kann keine 0 zeigen" in text
    assert play.state(sid).events == []


def test_the_web_api_takes_dice_and_refuses_bad_ones(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from kerker.web import create_app

    client = TestClient(create_app(tmp_path / "w.sqlite3"))
    sid = client.post("/api/sessions", json={"seed": 7}).json()["session"]
    url = f"/api/sessions/{sid}/open"
    bad = client.post(url, json={"exit": 1, "dice": [4, 101]})
    assert bad.status_code == 400 and "101" in bad.json()["message"]
    assert client.post(url, json={"exit": 1, "dice": "4 70"}).status_code == 400
    assert client.post(url, json={"exit": 1, "dice": [4], "rest": "yes"}).status_code == 400
    short = client.post(url + "?lang=it", json={"exit": 1, "dice": [4]})
    assert short.status_code == 422
    body = short.json()
    assert body["error"] == "dice_needed"
    assert body["needs"]["dice"] == "W%" and body["needs"]["table"] == "zufallslabyrinth/gangbreite"
    assert "Larghezza del corridoio" in body["message"]
    assert client.get(f"/api/sessions/{sid}").json()["seq"] == 0
    ok = client.post(url, json={"exit": 1, "dice": [4, 70], "rest": True})
    assert ok.status_code == 200
    corridor = next(a for a in ok.json()["levels"][0]["areas"] if a["number"] == 2)
    assert corridor["size"]["feet"].startswith("20 ×")


def test_roll_faces_builds_the_roll_of_the_faces() -> None:
    thrown = roll_faces("2W6+1", [3, 5])
    assert thrown.total == 9 and thrown.explain() == "2W6+1 -> [3, 5] + 1 = 9"
    with pytest.raises(EnteredDiceError):
        roll_faces("W6!", [6])
    with pytest.raises(EnteredDiceError):
        roll_faces("2W6", [3])


def test_check_entered_refuses_in_order_and_gives_the_sides() -> None:
    assert check_entered("2W6+W4-1", [6, 6, 4]) == [6, 6, 4]
    assert check_entered("W%", [100]) == [100]
    with pytest.raises(EnteredDiceError, match="only for plain NdX"):
        check_entered("W6!", [7])  # not plain: refused before the face is looked at
    with pytest.raises(EnteredDiceError, match="2W6 needs 2 dice, 3 entered"):
        check_entered("2W6", [7, 7, 7])  # the count before the faces
    with pytest.raises(EnteredDiceError, match="a d6 cannot show 7"):
        check_entered("W20+W6", [20, 7])
    with pytest.raises(EnteredDiceError, match="a d6 cannot show True"):
        check_entered("W6", [True])


def test_play_check_entered_says_the_same_as_a_play_error() -> None:
    with pytest.raises(EventError, match="a d20 cannot show 21") as err:
        session_check_entered("W20", [21])
    assert not isinstance(err.value, EnteredDiceError)
    assert err.value.message(translator("de")) != err.value.message()  # still translatable
    with pytest.raises(EventError, match="W20 needs 1 dice, 2 entered"):
        session_check_entered("W20", [1, 2])


def test_faces_random_answers_with_the_faces_then_falls_back_or_refuses() -> None:
    assert roll("3W6", FacesRandom([1, 6, 4])).total == 11
    fallback = FacesRandom([6], then=random.Random(5))
    assert roll("2W6", fallback).total == 6 + roll("W6", random.Random(5)).total
    with pytest.raises(EnteredDiceError, match="more dice than the 1 entered"):
        roll("2W6", FacesRandom([6]))
    with pytest.raises(EventError, match="more dice than the 1 entered"):
        roll("2W6", EnteredDice([6]))  # the play session's own one-line error
