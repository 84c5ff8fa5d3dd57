"""``kerker play``: every command with and without --json, errors in one line (exit 2), and
the interactive loop driven through a pseudo-terminal (single keys, autosave, resume)."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kerker.cli import app

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def _run(db: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["play", *args, "--db", str(db)], env={"KERKER_DB": ""})
    return result.exit_code, result.stdout, result.stderr


def test_commands_and_json(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    code, out, _err = _run(db, "new", "--seed", "7", "--levels", "2", "--name", "Gruft", "--json")
    assert code == 0
    sid = json.loads(out)["session"]
    assert json.loads(out)["player_token"]
    code, out, _err = _run(db, "open", sid, "next", "--json")
    assert code == 0 and json.loads(out)["event"]["kind"] == "open"
    code, out, _err = _run(db, "show", sid, "--json")
    doc = json.loads(out)
    assert doc["session"] == sid and doc["seq"] == 1 and doc["levels"]
    assert all(set(e) >= {"key", "number", "area", "kind"} for e in doc["open_exits"])
    first = doc["open_exits"][0]
    code, out, _err = _run(db, "open", sid, str(first["number"]), "--json")
    assert json.loads(out)["event"]["exit"] == first["key"]
    for args in (
        ("undo", sid),
        ("redo", sid),
        ("reroll", sid, "last"),
        ("note", sid, "Fledermäuse", "--area", "1"),
        ("roll", sid, "2W6+3"),
        ("roll", sid, "W20: 12"),
        ("check", sid, "12", "--difficulty", "-2", "--secret"),
        ("table", sid, "zufallslabyrinth/innenausstattung"),
        ("reveal", sid, "1"),
        ("hide", sid, "1"),
    ):
        code, out, err = _run(db, *args, "--json")
        assert code == 0, (args, err)
        assert json.loads(out)["session"] == sid
    code, out, _err = _run(db, "journal", sid, "--format", "json")
    log = json.loads(out)
    kinds = [e["kind"] for e in log["events"]]
    assert kinds == [
        "open",
        "open",
        "undo",
        "redo",
        "reroll",
        "note",
        "roll",
        "roll",
        "check",
        "table",
        "reveal",
        "hide",
    ]
    assert log["events"][1]["exit"] == first["key"]
    code, out, _err = _run(db, "journal", sid, "--lang", "de")
    assert code == 0 and "# Gruft" in out and "Notiz zu Gebiet 1" in out
    code, out, _err = _run(db, "journal", sid, "--lang", "it", "--view", "player")
    assert code == 0 and "Nota sull’area 1" in out
    export_file = tmp_path / "log.json"
    code, _out, _err = _run(db, "export", sid, "--out", str(export_file))
    assert code == 0
    code, out, _err = _run(db, "import", str(export_file), "--json")
    copy = json.loads(out)["session"]
    code, out, _err = _run(db, "list", "--json")
    assert {s["session"] for s in json.loads(out)} == {sid, copy}
    code, out, _err = _run(db, "show", copy, "--view", "player")
    # area 1 (the entrance) was hidden last: the players see no area and no exit
    assert code == 0 and "Kein Ausgang ist offen." in out
    code, out, _err = _run(db, "delete", copy, "--json")
    assert json.loads(out) == {"deleted": copy}


@pytest.mark.parametrize(
    "args, message",
    [
        (("open", "SID", "99"), "no open exit number 99"),
        (("open", "nosuch", "next"), "no session 'nosuch'"),
        (("roll", "SID", "W20: 21"), "a d20 cannot show 21"),
        (("check", "SID", "12", "--entered", "20"), "confirmation"),
        (("show", "SID", "--view", "dm"), "--view takes gm or player"),
        (("undo", "SID"), "nothing to undo"),
        (("reroll", "SID", "last"), "nothing to reroll"),
        (("new", "--size", "3x3"), "size must be between"),
        (("new", "--rules", "nope"), "unknown rules"),
    ],
)
def test_errors_are_one_line(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    db = tmp_path / "s.sqlite3"
    sid = _run(db, "new", "--seed", "1")[1].strip()
    code, out, err = _run(db, *[sid if a == "SID" else a for a in args])
    assert code == 2, (out, err)
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_import_refuses_bad_files(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    bad = tmp_path / "bad.json"
    for text, message in (
        ("{", "is not JSON"),
        ('{"format": "other"}', "not a kerker play log"),
        (
            '{"format": "kerker-play", "events": [{"kind": "x"}], "rules": '
            '"zufallslabyrinth", "seed": 1, "options": {}}',
            "unknown event kind",
        ),
    ):
        bad.write_text(text, encoding="utf-8")
        code, _out, err = _run(db, "import", str(bad))
        assert code == 2 and message in err and err.count("\n") == 1
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"\x00garbage" * 500)
    code, _out, err = _run(junk, "list")
    assert code == 2 and "not a kerker session database" in err


def _read_until(fd: int, wanted: str, seen: list[str], waits: int = 240) -> str:
    """Read the terminal until ``wanted`` appears: at most ``waits`` quiet quarter seconds
    (a bounded wait for the child, not a timing check of kerker; no clock is read)."""
    quiet = 0
    while wanted not in "".join(seen):
        if quiet >= waits:
            raise AssertionError(f"no {wanted!r} in: {''.join(seen)[-2000:]}")
        ready, _w, _x = select.select([fd], [], [], 0.25)
        if not ready:
            quiet += 1
        if ready:
            try:
                chunk = os.read(fd, 65536).decode("utf-8", "replace")
            except OSError:
                break
            seen.append(chunk)
    return "".join(seen)


def _loop(db: Path, *args: str) -> tuple[subprocess.Popen[bytes], int]:
    main, child = pty.openpty()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "KERKER_DB": str(db),
        "COLUMNS": "120",
        "LINES": "50",
        "TERM": "xterm",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "kerker", "play", *args],
        stdin=child,
        stdout=child,
        stderr=child,
        env=env,
        start_new_session=True,
    )
    os.close(child)
    return proc, main


def test_interactive_loop_through_a_pty(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    sid = _run(db, "new", "--seed", "7", "--rules", "scatola-bianca")[1].strip()
    proc, fd = _loop(db, sid, "--lang", "en")
    try:
        seen: list[str] = []
        _read_until(fd, "step 0", seen)
        os.write(fd, b"n")  # one key, no Enter: opens the next exit
        _read_until(fd, "step 1", seen)
        os.write(fd, b"n")
        _read_until(fd, "step 2", seen)
        os.write(fd, b"u")
        _read_until(fd, "step 3", seen)
        os.write(fd, b"tA note\r\r")
        _read_until(fd, "step 4", seen)
        os.write(fd, b"q")
        _read_until(fd, "Saved.", seen)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(fd)
    _code, out, _err = _run(db, "journal", sid, "--format", "json")
    assert [e["kind"] for e in json.loads(out)["events"]] == ["open", "open", "undo", "note"]
    # resume where it was left: `kerker play` alone picks from the list
    proc, fd = _loop(db, "--lang", "en")
    try:
        seen = []
        _read_until(fd, "Session number", seen)
        os.write(fd, b"\r")
        _read_until(fd, "step 4", seen)
        os.write(fd, b"y")  # nothing to redo after the note: one error line, loop goes on
        _read_until(fd, "nothing to redo", seen)
        os.write(fd, b"q")
        _read_until(fd, "Saved.", seen)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(fd)


@pytest.mark.parametrize("rules", ["zufallslabyrinth", "scatola-bianca"])
def test_play_new_defaults_to_the_dungeon_commands_defaults(tmp_path: Path, rules: str) -> None:
    """`play new` with no options is `kerker dungeon` with none: the sheet grows (no 30x40
    default), so exploring with `next` until nothing is open gives the same level."""
    db = tmp_path / "s.sqlite3"
    code, out, _err = _run(
        db, "new", "--rules", rules, "--seed", "5", "--max-areas", "25", "--json"
    )
    assert code == 0
    sid = json.loads(out)["session"]
    for _ in range(200):
        code, _out, _err = _run(db, "open", sid, "next", "--json")
        if code != 0:
            break
    code, out, _err = _run(db, "show", sid, "--view", "gm", "--json")
    played = json.loads(out)
    made = runner.invoke(
        app, ["dungeon", "--rules", rules, "--seed", "5", "--max-areas", "25", "--json"]
    )
    assert made.exit_code == 0
    whole = json.loads(made.stdout)
    assert played["open_exits"] == []
    for a, b in zip(played["levels"], whole["levels"], strict=True):
        assert (a["width"], a["height"]) == (b["width"], b["height"])
        assert [x["size"] for x in a["areas"]] == [x["size"] for x in b["areas"]]
