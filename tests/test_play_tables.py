"""Own tables in play sessions (issue 13): ``kerker play new --tables`` and the web's
upload; the session keeps the texts (linted, capped) and their digest, export/import carry
them, and a session whose own tables changed opens read-only."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from play_support import OPTS, WIDE

from kerker.errors import KerkerError
from kerker.play.api import Play, export
from kerker.play.session import fingerprint, fold, verify
from kerker.play.store import open_store
from kerker.tables.owntexts import MAX_TEXT, texts_digest
from kerker.tables.registry import load_registry

REGISTRY = load_registry()


@pytest.fixture
def play(tmp_path: Path) -> Play:
    return Play(open_store(tmp_path / "s.sqlite3"), REGISTRY)


def _own(text: str = WIDE) -> dict[str, object]:
    return {**OPTS, "tables": [{"name": "breit.yaml", "text": text}]}


def _width(state: object) -> str:
    doc = state.document("en")  # type: ignore[attr-defined]
    corridor = next(a for a in doc["levels"][0]["areas"] if a["number"] == 2)
    return str(corridor["size"]["feet"].split(" × ")[0])


def test_own_tables_roll_behind_the_doors_and_are_kept(play: Play, tmp_path: Path) -> None:
    plain = play.act(play.new("zufallslabyrinth", 7, OPTS).info.id, "open", exit="1")
    s = play.new("zufallslabyrinth", 7, _own())
    assert s.info.tables_digest == texts_digest([("breit.yaml", WIDE)])
    assert s.info.rules_digest != plain.info.rules_digest
    own = play.act(s.info.id, "open", exit="1")
    assert _width(own) == "20" != _width(plain)
    rolls = next(a for a in own.document("de")["levels"][0]["areas"] if a["number"] == 2)["rolls"]
    assert any(r["label"] == "Gangbreite (eigene)" for r in rolls)
    again = Play(open_store(tmp_path / "s.sqlite3"), REGISTRY).state(s.info.id)
    assert fingerprint(again) == fingerprint(own) and again.read_only is None


def test_export_and_import_carry_the_own_tables(play: Play) -> None:
    s = play.new("zufallslabyrinth", 7, _own())
    live = play.act(s.info.id, "open", exit="1")
    log = json.loads(json.dumps(export(live)))
    assert log["options"]["tables"] == [{"name": "breit.yaml", "text": WIDE}]
    copy = play.import_log(log)
    assert fingerprint(copy) == fingerprint(live) and _width(copy) == "20"
    log["options"]["tables"][0]["text"] = WIDE.replace("width_ft: 20", "width_ft: 30")
    with pytest.raises(KerkerError, match="does not replay here as it was recorded"):
        play.import_log(log)


def test_changed_own_tables_open_read_only(play: Play) -> None:
    s = play.new("zufallslabyrinth", 7, _own())
    live = play.act(s.info.id, "open", exit="1")
    changed = dict(live.info.options)
    changed["tables"] = [
        {"name": "breit.yaml", "text": WIDE.replace("width_ft: 20", "width_ft: 30")}
    ]
    info = replace(live.info, options=changed)
    state = verify(fold(info, live.events, play.tables(info)))
    assert state.read_only is not None and "own tables" in str(state.read_only)
    assert state.read_only.code == "tables_changed"
    with pytest.raises(KerkerError, match="read-only"):
        from kerker.play.session import propose

        propose(state, "open", REGISTRY, exit="next")


def test_bad_own_tables_are_refused_with_file_line_col(play: Play) -> None:
    with pytest.raises(KerkerError, match=r"^breit\.yaml:3:1: "):
        play.new("zufallslabyrinth", 7, _own("schema: 1\ntables: [1\n"))
    with pytest.raises(KerkerError, match="at most 200000 characters"):
        play.new("zufallslabyrinth", 7, _own("#" * (MAX_TEXT + 1)))
    with pytest.raises(KerkerError, match="name"):
        play.new("zufallslabyrinth", 7, {**OPTS, "tables": [{"text": WIDE}]})
    assert play.sessions() == []


def test_the_cli_takes_own_tables(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from kerker.cli import app

    folder = tmp_path / "own"
    folder.mkdir()
    (folder / "breit.yaml").write_text(WIDE, encoding="utf-8")
    db = str(tmp_path / "c.sqlite3")
    runner = CliRunner()
    made = runner.invoke(
        app, ["play", "new", "--seed", "7", "--tables", str(folder), "--db", db, "--json"]
    )
    assert made.exit_code == 0, made.stderr
    sid = json.loads(made.stdout)["session"]
    assert json.loads(made.stdout)["tables_digest"] == texts_digest([("breit.yaml", WIDE)])
    runner.invoke(app, ["play", "open", sid, "1", "--db", db])
    shown = json.loads(runner.invoke(app, ["play", "show", sid, "--db", db, "--json"]).stdout)
    assert shown["tables_digest"] == texts_digest([("breit.yaml", WIDE)])
    assert shown["own_tables"] == ["breit.yaml"]
    listed = json.loads(runner.invoke(app, ["play", "list", "--db", db, "--json"]).stdout)
    assert listed[0]["options"]["tables"] == ["breit.yaml"]  # names, not the texts
    (folder / "bad.yaml").write_text("schema: 1\ntables: [1\n", encoding="utf-8")
    bad = runner.invoke(app, ["play", "new", "--tables", str(folder), "--db", db])
    assert bad.exit_code == 2
    assert (
        bad.stderr.strip().splitlines() == [bad.stderr.strip().splitlines()[0]]
        and "bad.yaml:3:1:" in bad.stderr
    )
    gone = runner.invoke(app, ["play", "new", "--tables", str(tmp_path / "nope"), "--db", db])
    assert gone.exit_code == 2 and "no such folder or file" in gone.stderr


def test_the_web_form_starts_a_session_with_an_uploaded_table(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from kerker.web import create_app

    client = TestClient(create_app(tmp_path / "w.sqlite3"))
    form = {"seed": "7", "levels": "1", "rules": "zufallslabyrinth", "size": "30x40"}
    made = client.post(
        "/play",
        data=form,
        files={"tables": ("breit.yaml", WIDE.encode(), "text/yaml")},
        follow_redirects=False,
    )
    assert made.status_code == 303, made.text
    sid = made.headers["location"].rsplit("/", 1)[-1]
    shown = client.get(f"/api/sessions/{sid}").json()
    assert shown["own_tables"] == ["breit.yaml"]
    opened = client.post(f"/api/sessions/{sid}/open", json={"exit": 1}).json()
    corridor = next(a for a in opened["levels"][0]["areas"] if a["number"] == 2)
    assert corridor["size"]["feet"].startswith("20 ×")
    bad = client.post(
        "/play?lang=de",
        data=form,
        files={"tables": ("kaputt.yaml", b"schema: 1\ntables: [1\n", "text/yaml")},
    )
    assert bad.status_code == 400 and "kaputt.yaml:3:1:" in bad.text
    api = client.post("/api/sessions", json={"seed": 7, "tables": "nope"})
    assert api.status_code == 400


def test_warnings_alone_do_not_refuse_own_tables(play: Play) -> None:
    """A text missing in a language is a lint warning (``kerker table lint`` exits 0): such
    a file is usable, as a CSV table made in one language always is."""
    german_only = WIDE.replace(", it: Larghezza (propria), en: Width (own)", "").replace(
        ", it: Corridoi larghi., en: Wide corridors.", ""
    )
    from kerker.tables.owntexts import lint_text

    assert lint_text("breit.yaml", german_only) and not lint_text(
        "breit.yaml", german_only, warnings=False
    )
    s = play.new("zufallslabyrinth", 7, _own(german_only))
    assert _width(play.act(s.info.id, "open", exit="1")) == "20"
