"""Why a session opens read-only, said in the viewer's language (de/it/en): on the CLI
(``play show`` text and ``--json``, a refused step), in the terminal loop, in the journal,
on the web page and in the API's message. Each reason is made the way it happens: the
stored session is changed behind kerker's back (another version, other rule data, both,
other own tables, own tables that no longer load)."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from play_support import OPTS, WIDE
from typer.testing import CliRunner

from kerker.cli import app
from kerker.play.api import Play
from kerker.play.session import ReadOnlyError
from kerker.play.store import open_store
from kerker.play.terminal import run_loop
from kerker.tables.registry import load_registry
from kerker.web.app import create_app

REGISTRY = load_registry()

# (code, how the stored session is changed, the reason's start in de / it / en)
REASONS = {
    "tables_changed": (
        "ihre eigenen Tabellen sind nicht die, mit denen sie gespielt wurde",
        "le sue tabelle proprie non sono quelle con cui è stata giocata",
        "its own tables are not those it was played with",
    ),
    "tables_unloadable": (
        "ihre eigenen Tabellen lassen sich hier nicht laden: breit.yaml",
        "le sue tabelle proprie non si caricano qui: breit.yaml",
        "its own tables do not load here: breit.yaml",
    ),
    "version": (
        "mit kerker 0.0.1 angelegt; mit kerker ",
        "creata con kerker 0.0.1; rigiocata con kerker ",
        "made with kerker 0.0.1; replayed with kerker ",
    ),
    "rule_data": (
        "mit anderen Regeldaten angelegt (Prüfsumme 000000000000, jetzt ",
        "creata con altri dati di regole (impronta 000000000000, ora ",
        "made with other rule data (digest 000000000000, now ",
    ),
    "version_and_rule_data": (
        "mit kerker 0.0.1 und anderen Regeldaten angelegt; hier nachgespielt ergibt sie "
        "ein anderes Verlies",
        "creata con kerker 0.0.1 e altri dati di regole; rigiocata qui dà un altro dungeon",
        "made with kerker 0.0.1 and other rule data; replayed here it gives another dungeon",
    ),
}
HEAD = {"de": "Nur lesbar: ", "it": "Sola lettura: ", "en": "Read-only: "}
REFUSED = {
    "de": "diese Sitzung ist nur lesbar: ",
    "it": "questa sessione è in sola lettura: ",
    "en": "this session is read-only: ",
}
LANGS = ("de", "it", "en")


def _spoil(db: Path, code: str) -> str:
    """A session with own tables and one door opened, then changed in the database so that
    it opens read-only for ``code``; its id."""
    with open_store(db) as store:
        play = Play(store, REGISTRY)
        sid = play.new(
            "zufallslabyrinth", 7, {**OPTS, "tables": [{"name": "breit.yaml", "text": WIDE}]}
        ).info.id
        play.act(sid, "open", exit="1")
    con = sqlite3.connect(db)
    with con:
        options, digest = con.execute(
            "SELECT options, rules_digest FROM sessions WHERE id = ?", (sid,)
        ).fetchone()
        options = json.loads(options)
        if code in ("tables_changed", "tables_unloadable"):
            text = (
                WIDE.replace("width_ft: 20", "width_ft: 30")
                if code == "tables_changed"
                else "schema: 1\ntables: [1\n"
            )
            options["tables"] = [{"name": "breit.yaml", "text": text}]
            con.execute("UPDATE sessions SET options = ? WHERE id = ?", (json.dumps(options), sid))
        else:
            version = "0.0.1" if code != "rule_data" else None
            con.execute(
                "UPDATE sessions SET kerker_version = COALESCE(?, kerker_version), "
                "rules_digest = ?, fingerprint = ? WHERE id = ?",
                (version, "0" * 32 if code != "version" else digest, "f" * 32, sid),
            )
    con.close()
    return sid


def _gm_client(db: Path, sid: str) -> TestClient:
    """A client that holds the session's game master token (the web's GM pages need it)."""
    con = sqlite3.connect(db)
    (token,) = con.execute("SELECT gm_token FROM sessions WHERE id = ?", (sid,)).fetchone()
    con.close()
    return TestClient(create_app(db), headers={"X-Kerker-GM": token})


@pytest.mark.parametrize("code", sorted(REASONS))
def test_each_reason_is_told_apart_and_refuses_a_step(tmp_path: Path, code: str) -> None:
    db = tmp_path / "s.sqlite3"
    sid = _spoil(db, code)
    with open_store(db) as store:
        play = Play(store, REGISTRY)
        state = play.state(sid)
        assert state.read_only is not None and state.read_only.code == code
        assert str(state.read_only).startswith(REASONS[code][2])
        with pytest.raises(ReadOnlyError) as err:
            play.act(sid, "open", exit="next")
        assert len(store.events(sid)) == 1  # nothing written
    from kerker.i18n import translator

    for i, lang in enumerate(LANGS):
        said = err.value.message(translator(lang))
        assert said.startswith(REFUSED[lang] + REASONS[code][i]), said


@pytest.mark.parametrize("lang", LANGS)
def test_the_cli_says_why_in_the_viewers_language(tmp_path: Path, lang: str) -> None:
    db = tmp_path / "s.sqlite3"
    sid = _spoil(db, "tables_changed")
    i = LANGS.index(lang)
    runner = CliRunner()
    shown = runner.invoke(app, ["play", "show", sid, "--db", str(db), "--lang", lang])
    assert shown.exit_code == 0, shown.stderr
    assert HEAD[lang] + REASONS["tables_changed"][i] in shown.stdout
    data = runner.invoke(app, ["play", "show", sid, "--db", str(db), "--lang", lang, "--json"])
    doc = json.loads(data.stdout)
    assert doc["read_only"].startswith(REASONS["tables_changed"][i])
    assert doc["read_only_reason"] == "tables_changed"
    refused = runner.invoke(app, ["play", "open", sid, "next", "--db", str(db), "--lang", lang])
    assert refused.exit_code != 0
    assert REFUSED[lang] + REASONS["tables_changed"][i] in refused.stderr
    assert refused.stderr.count("\n") == 1
    journal = runner.invoke(app, ["play", "journal", sid, "--db", str(db), "--lang", lang])
    assert HEAD[lang] + REASONS["tables_changed"][i] in journal.stdout


@pytest.mark.parametrize("lang", LANGS)
def test_the_terminal_loop_says_why(tmp_path: Path, lang: str) -> None:
    db = tmp_path / "s.sqlite3"
    sid = _spoil(db, "version")
    out = io.StringIO()
    with open_store(db) as store:
        run_loop(Play(store, REGISTRY), sid, lang, io.StringIO("nq"), out)
    text = out.getvalue()
    i = LANGS.index(lang)
    assert HEAD[lang] + REASONS["version"][i] in text  # the picture of the session
    assert REFUSED[lang] + REASONS["version"][i] in text  # the step `n` refused


@pytest.mark.parametrize("lang", LANGS)
def test_the_web_page_and_the_api_say_why(tmp_path: Path, lang: str) -> None:
    db = tmp_path / "s.sqlite3"
    sid = _spoil(db, "rule_data")
    i = LANGS.index(lang)
    client = _gm_client(db, sid)
    page = client.get(f"/play/{sid}?lang={lang}")
    assert page.status_code == 200
    assert HEAD[lang] + REASONS["rule_data"][i] in page.text
    state = client.get(f"/api/sessions/{sid}?lang={lang}").json()
    assert state["read_only"].startswith(REASONS["rule_data"][i])
    assert state["read_only_reason"] == "rule_data"
    refused = client.post(f"/api/sessions/{sid}/open?lang={lang}", json={"exit": "next"})
    assert refused.status_code == 400
    assert refused.json()["error"] == "read_only"
    assert refused.json()["message"].startswith(REFUSED[lang] + REASONS["rule_data"][i])
    journal = client.get(f"/api/sessions/{sid}/journal?lang={lang}")
    # Markdown: the reason's brackets are escaped
    assert HEAD[lang] + REASONS["rule_data"][i].split(" (")[0] + r" \(" in journal.text


def test_a_reason_with_user_text_is_escaped(tmp_path: Path) -> None:
    """An own table file's name is user text: escaped in the web page and the Markdown
    journal where the reason shows it."""
    db = tmp_path / "s.sqlite3"
    sid = _spoil(db, "tables_unloadable")
    con = sqlite3.connect(db)
    with con:
        options = json.loads(con.execute("SELECT options FROM sessions").fetchone()[0])
        options["tables"][0]["name"] = "<b>*x*.yaml"
        con.execute("UPDATE sessions SET options = ?", (json.dumps(options),))
    con.close()
    client = _gm_client(db, sid)
    page = client.get(f"/play/{sid}?lang=en").text
    assert "&lt;b&gt;*x*.yaml" in page and "<b>*x*" not in page
    journal = client.get(f"/api/sessions/{sid}/journal?lang=en").text
    assert r"\*x\*" in journal
