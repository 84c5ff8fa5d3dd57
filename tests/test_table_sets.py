"""Own table sets (issue 14, "New dungeon ... own tables"): the store keeps linted own table
files by their digest (a numbered migration, on SQLite and PostgreSQL), the dungeon page
takes them by upload (multipart, no JavaScript) and every link of the page carries
``tables=<digest>``; the same seed and digest give the same dungeon as
``kerker dungeon --tables FILE``."""

from __future__ import annotations

import json
import re
import sqlite3
from html import unescape
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from play_support import BACKENDS, WIDE, fresh_pg, pg_url, store_url
from typer.testing import CliRunner

from kerker.cli import app
from kerker.errors import KerkerError
from kerker.play.store import StoreError, open_store
from kerker.play.store.migrations import LATEST, MIGRATIONS
from kerker.tables.owntexts import MAX_FILES, texts_digest
from kerker.web.app import create_app

BROKEN = "schema: 1\ntables: [1\n"
LANGS = ("de", "it", "en")
OWN_TITLE = {"de": "Gangbreite (eigene)", "it": "Larghezza (propria)", "en": "Width (own)"}
DIGEST = texts_digest([("breit.yaml", WIDE)])
TABLE_SETS = next(n for n, statements in MIGRATIONS if "table_sets" in " ".join(statements))
"""The migration that made the table sets (its number may move when branches meet)."""


# -- the store ---------------------------------------------------------------------------


def _older(backend: str, tmp_path: Path) -> str:
    """A store at the schema before the table sets, with one session in it."""
    url = str(tmp_path / "old.sqlite3") if backend == "sqlite" else fresh_pg(pg_url())
    statements = [s for n, group in MIGRATIONS if n < TABLE_SETS for s in group]
    rows = [
        "INSERT INTO kerker_meta VALUES ('app', 'kerker-play')",
        f"INSERT INTO kerker_meta VALUES ('schema', '{TABLE_SETS - 1}')",
        "INSERT INTO sessions (id, name, rules, seed, options, kerker_version, rules_digest,"
        " player_token, fingerprint, created, updated) VALUES ('abc123', 'old',"
        " 'zufallslabyrinth', '7', '{}', '0.1.0', 'd', 'tok-old', '', 't0', 't0')",
    ]
    if backend == "sqlite":
        con = sqlite3.connect(url)
        with con:
            for statement in statements + rows:
                con.execute(statement)
        con.close()
    else:
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            for statement in statements + rows:
                conn.execute(statement)
    return url


@pytest.mark.parametrize("backend", BACKENDS)
def test_migration_adds_table_sets_and_keeps_sessions(backend: str, tmp_path: Path) -> None:
    url = _older(backend, tmp_path)
    with open_store(url) as store:
        assert store.migrate() == LATEST
        assert [s.id for s in store.sessions()] == ["abc123"]
        digest = store.save_tables([("breit.yaml", WIDE)], "t1")
        assert digest == DIGEST
        assert store.save_tables([("breit.yaml", WIDE)], "t2") == digest  # kept once
        assert store.load_tables(digest) == [("breit.yaml", WIDE)]
        other = store.save_tables([("breit.yaml", WIDE), ("zwei.yaml", WIDE)], "t3")
        assert other != digest and store.load_tables(other) is not None
        assert store.load_tables("0" * 32) is None
    with open_store(url) as again:  # committed, and the schema is not migrated twice
        assert again.load_tables(digest) == [("breit.yaml", WIDE)]
        assert again.migrate() == LATEST


@pytest.mark.parametrize("backend", BACKENDS)
def test_table_sets_are_capped_and_checked(backend: str, tmp_path: Path) -> None:
    with open_store(store_url(backend, tmp_path)) as store:
        with pytest.raises(StoreError, match="at least one"):
            store.save_tables([], "t")
        with pytest.raises(KerkerError, match=f"at most {MAX_FILES} own table files"):
            store.save_tables([(f"{n}.yaml", WIDE) for n in range(MAX_FILES + 1)], "t")
        digest = store.save_tables([("breit.yaml", WIDE)], "t")
        with store.transaction() as cur:  # damaged behind kerker's back
            cur.execute(
                store._sql("UPDATE table_sets SET texts = ? WHERE digest = ?"),
                (json.dumps([{"name": "breit.yaml", "text": "other"}]), digest),
            )
        with pytest.raises(StoreError, match="is damaged"):
            store.load_tables(digest)


def _set(n: int) -> list[tuple[str, str]]:
    """Own table files that differ by ``n`` (a comment line: another digest)."""
    return [("breit.yaml", WIDE + f"# {n}\n")]


@pytest.mark.parametrize("backend", BACKENDS)
def test_table_sets_are_pruned_but_never_one_a_session_names(backend: str, tmp_path: Path) -> None:
    """Table sets were never pruned: every upload of other files stayed in the database.
    Beyond the caps the sets uploaded longest ago go (a new upload of the same files counts
    as new), never the one just kept and never one a session names as its own tables; that
    session replays on its own texts as before."""
    from kerker.play.api import Play
    from kerker.tables.registry import load_registry

    with open_store(store_url(backend, tmp_path)) as store:
        store.table_sets_kept = 3
        digests = [store.save_tables(_set(n), f"t{n:02}") for n in range(3)]
        # a session made on the oldest set (the web's play form copies the texts in)
        play = Play(store, load_registry())
        texts = [{"name": n, "text": t} for n, t in _set(0)]
        session = play.new("zufallslabyrinth", 7, {"tables": texts})
        assert session.info.tables_digest == digests[0]
        play.act(session.info.id, "open", exit="next")
        digests.append(store.save_tables(_set(3), "t03"))
        # the three uploaded last are kept, and the oldest because the session names it
        assert all(store.load_tables(d) is not None for d in digests)
        # the same files again: uploaded anew; then one more, and the oldest other set goes
        assert store.save_tables(_set(2), "t04") == digests[2]
        digests.append(store.save_tables(_set(5), "t05"))
        kept = [d for d in digests if store.load_tables(d) is not None]
        assert kept == [digests[0], digests[2], digests[3], digests[4]]
        # the characters cap: room for one set, the one just kept (and the session's)
        store.table_set_chars_kept = len(json.dumps(_set(0), ensure_ascii=False)) + 10
        newest = store.save_tables(_set(6), "t06")
        kept = [d for d in [*digests, newest] if store.load_tables(d) is not None]
        assert kept == [digests[0], newest]
        # the session replays on its own texts, whatever was pruned
        again = play.state(session.info.id)
        assert again.read_only is None and len(again.events) == 1
        with store.transaction() as cur:
            cur.execute(store._sql("SELECT COUNT(*) FROM table_sets"))
            assert cur.fetchone()[0] == 2


# -- the dungeon page --------------------------------------------------------------------


@pytest.fixture()
def client(tmp_path: Path) -> TestClient:
    return TestClient(create_app(tmp_path / "sessions.sqlite3"))


def _upload(client: TestClient, lang: str, *files: tuple[str, str], **form: str) -> object:
    return client.post(
        f"/dungeon?lang={lang}",
        data={"rules": "zufallslabyrinth", "seed": "7", **form},
        files=[("files", (name, text.encode(), "text/yaml")) for name, text in files],
        follow_redirects=False,
    )


def _links(page: str) -> list[str]:
    return [unescape(h) for h in re.findall(r'href="(/(?:download/)?dungeon\?[^"]*)"', page)]


def test_the_form_works_without_javascript(client: TestClient) -> None:
    page = client.get("/dungeon?lang=en").text
    form = re.search(r'<form method="post" action="/dungeon"[^>]*>', page)
    assert form and 'enctype="multipart/form-data"' in form.group(0)
    assert re.search(r'<input name="files" type="file" multiple', page)
    made = client.post("/dungeon", data={"seed": "7", "levels": "2"}, follow_redirects=False)
    assert made.status_code == 303
    assert (
        made.headers["location"].startswith("/dungeon?")
        and "tables=" not in (made.headers["location"])
    )
    assert "levels=2" in made.headers["location"] and "seed=7" in made.headers["location"]


@pytest.mark.parametrize("lang", LANGS)
def test_upload_then_every_link_carries_the_set(client: TestClient, lang: str) -> None:
    made = _upload(client, lang, ("breit.yaml", WIDE))
    assert made.status_code == 303  # type: ignore[attr-defined]
    where = made.headers["location"]  # type: ignore[attr-defined]
    assert f"tables={DIGEST}" in where
    page = client.get(where + f"&lang={lang}")
    assert page.status_code == 200
    assert OWN_TITLE[lang] in page.text  # the key's roll log names the own table
    assert "breit.yaml" in page.text
    links = _links(page.text)
    carrying = [link for link in links if f"tables={DIGEST}" in link]
    downloads = [link for link in links if link.startswith("/download/")]
    assert len(downloads) == 9 and all(link in carrying for link in downloads)
    projection = next(link for link in downloads if "format=projection-svg" in link)
    assert client.get(projection).headers["content-type"].startswith("image/svg+xml")
    tabs = [link for link in links if link.startswith("/dungeon?") and "view=" in link]
    assert tabs and all(link in carrying for link in tabs)
    without = [link for link in links if link not in carrying]
    assert len(without) == 1  # "without own tables", the same dungeon on the shipped ones
    plain = client.get(without[0]).text
    assert OWN_TITLE[lang] not in plain
    # "Play it door by door": the session rolls on the same own tables
    hidden = re.search(r'name="table_set" value="([0-9a-f]+)"', page.text)
    assert hidden and hidden.group(1) == DIGEST


def test_same_seed_and_digest_is_the_cli_dungeon(client: TestClient, tmp_path: Path) -> None:
    own = tmp_path / "breit.yaml"
    own.write_text(WIDE, encoding="utf-8")
    for rules, lang in (("zufallslabyrinth", "de"), ("scatola-bianca", "it")):
        cli = CliRunner().invoke(
            app,
            [
                *("dungeon", "--rules", rules, "--seed", "11", "--size", "30x40"),
                *("--levels", "2", "--tables", str(own), "--json", "--lang", lang),
            ],
        )
        assert cli.exit_code == 0, cli.stderr
        made = _upload(client, lang, ("breit.yaml", WIDE), rules=rules, seed="11", levels="2")
        query = made.headers["location"].split("?", 1)[1]  # type: ignore[attr-defined]
        web = client.get(f"/download/dungeon?{query}&format=json&lang={lang}")
        assert web.status_code == 200 and web.text == cli.stdout
        api = client.get(f"/api/dungeon?{query}&lang={lang}")
        assert api.text == cli.stdout
    doc = json.loads(cli.stdout)
    assert doc != json.loads(client.get("/api/dungeon?rules=scatola-bianca&seed=11").text)


def test_the_session_started_from_the_page_has_the_own_tables(client: TestClient) -> None:
    where = _upload(client, "en", ("breit.yaml", WIDE)).headers["location"]  # type: ignore[attr-defined]
    page = client.get(where).text
    form = re.search(r'<form method="post" action="/play".*?</form>', page, re.S)
    assert form is not None
    fields = dict(re.findall(r'name="([a-z_]+)" value="([^"]*)"', form.group(0)))
    assert fields["table_set"] == DIGEST and fields["seed"] == "7"
    started = client.post("/play", data=fields, follow_redirects=False)
    assert started.status_code == 303
    sid = started.headers["location"].rsplit("/", 1)[1]
    state = client.get(f"/api/sessions/{sid}").json()
    assert state["tables_digest"] == DIGEST and state["own_tables"] == ["breit.yaml"]


@pytest.mark.parametrize(
    ("lang", "heading", "problem"),
    [
        ("de", "Die Tabellendateien haben Fehler", "kein gültiges YAML"),
        ("it", "I file di tabelle hanno dei problemi", "YAML non valido"),
        ("en", "The table files have problems", "not valid YAML"),
    ],
)
def test_lint_problems_are_shown_with_file_line_col(
    client: TestClient, lang: str, heading: str, problem: str
) -> None:
    bad = _upload(client, lang, ("breit.yaml", WIDE), ("<b>kaputt.yaml", BROKEN), seed="9")
    assert bad.status_code == 422  # type: ignore[attr-defined]
    text = bad.text  # type: ignore[attr-defined]
    assert heading in text
    lines = [unescape(c) for c in re.findall(r"<li><code>(.*?)</code></li>", text)]
    assert lines and lines[0].startswith("<b>kaputt.yaml:3:1: ") and problem in lines[0]
    assert "<b>kaputt" not in text  # the file name is escaped
    assert 'value="9"' in text  # the form keeps what was typed
    with open_store(client.app.state.sessions.db) as store:  # type: ignore[attr-defined]
        assert store.load_tables(DIGEST) is None  # nothing kept


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("de", "hier gibt es keinen eigenen Tabellensatz"),
        ("it", "qui non c’è nessun insieme di tabelle proprie"),
        ("en", "no own table set"),
    ],
)
def test_an_unknown_digest_is_a_404_with_a_message(
    client: TestClient, lang: str, message: str
) -> None:
    for url in (
        f"/dungeon?seed=7&go=1&tables={'0' * 32}",
        f"/download/dungeon?seed=7&format=svg&tables={'0' * 32}",
        "/dungeon?seed=7&go=1&tables=../../etc",
    ):
        page = client.get(url + f"&lang={lang}")
        assert page.status_code == 404 and unescape(message) in unescape(page.text)
    api = client.get(f"/api/dungeon?seed=7&tables=abc&lang={lang}")
    assert api.status_code == 404
    assert api.json()["error"] == "unknown_tables" and message in api.json()["message"]
    posted = client.post(
        f"/dungeon?lang={lang}", data={"seed": "7", "tables": "f" * 32}, follow_redirects=False
    )
    assert posted.status_code == 404


def test_csv_and_several_files(client: TestClient) -> None:
    csv = "range,text\n1-3,Ein Brunnen\n4-6,Ein Altar\n"
    made = _upload(client, "de", ("breit.yaml", WIDE), ("brunnen.csv", csv))
    where = made.headers["location"]  # type: ignore[attr-defined]
    digest = re.search(r"tables=([0-9a-f]+)", where).group(1)  # type: ignore[union-attr]
    with open_store(client.app.state.sessions.db) as store:  # type: ignore[attr-defined]
        texts = store.load_tables(digest)
    assert texts is not None and [n for n, _t in texts] == ["breit.yaml", "brunnen.yaml"]
    assert "Ein Brunnen" in texts[1][1]
    assert "breit.yaml, brunnen.yaml" in client.get(where).text
    too_many = _upload(client, "it", *[(f"{n}.yaml", "#") for n in range(MAX_FILES + 1)])
    assert too_many.status_code == 400  # type: ignore[attr-defined]
    assert f"al massimo {MAX_FILES}" in too_many.text  # type: ignore[attr-defined]


def test_a_big_seed_plays_door_by_door_too(client: TestClient) -> None:
    """The dungeon page takes seeds up to 2**63 - 1; its "Play it door by door" keeps it."""
    big = str(2**63 - 1)
    where = _upload(client, "en", ("breit.yaml", WIDE), seed=big).headers["location"]  # type: ignore[attr-defined]
    assert f"seed={big}" in where
    started = client.post("/play", data={"seed": big, "table_set": DIGEST}, follow_redirects=False)
    assert started.status_code == 303
    sid = started.headers["location"].rsplit("/", 1)[1]
    assert client.get(f"/api/sessions/{sid}").json()["seed"] == 2**63 - 1
    assert client.post("/play", data={"seed": str(2**63)}).status_code == 400


def test_the_api_keeps_a_table_set(client: TestClient) -> None:
    made = client.post("/api/table-sets", json={"tables": [{"name": "breit.yaml", "text": WIDE}]})
    assert made.status_code == 200 and made.json() == {"digest": DIGEST, "names": ["breit.yaml"]}
    bad = client.post(
        "/api/table-sets?lang=de", json={"tables": [{"name": "b.yaml", "text": BROKEN}]}
    )
    assert bad.status_code == 400 and bad.json()["message"].startswith("b.yaml:3:1: ")
    assert "kein gültiges YAML" in bad.json()["message"]
    for body in ({}, {"tables": []}, {"tables": [{"name": 1}]}, {"tables": "x"}):
        assert client.post("/api/table-sets", json=body).status_code == 400
    doc = client.get(f"/api/dungeon?seed=7&tables={DIGEST}&lang=en").json()
    labels = {r["label"] for lv in doc["levels"] for a in lv["areas"] for r in a["rolls"]}
    assert "Width (own)" in labels
