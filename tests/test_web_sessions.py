"""Play sessions through the web: the session API and pages on a real store (SQLite here;
the same routes serve PostgreSQL), conflicts as 409 with the current state, the player
page reads one session only and keeps the GM's secrets."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from kerker.web import create_app
from kerker.web.sessions import exit_place, with_exits


@pytest.fixture()
def client(tmp_path: Path) -> TestClient:
    return TestClient(create_app(tmp_path / "sessions.sqlite3"))


def _new(client: TestClient, **options: object) -> dict[str, str]:
    response = client.post("/api/sessions", json={"seed": 7, **options})
    assert response.status_code == 200, response.text
    data = response.json()
    assert set(data) >= {"session", "player_token"}
    return data


def test_a_session_made_in_the_web_is_played_through_the_api(client: TestClient) -> None:
    made = _new(client, levels=2)
    sid = made["session"]
    state = client.get(f"/api/sessions/{sid}").json()
    assert state["session"] == sid and state["seq"] == 0
    assert state["player_token"] == made["player_token"]
    assert state["open_exits"]
    first = state["open_exits"][0]
    opened = client.post(
        f"/api/sessions/{sid}/open", json={"exit": first["key"], "expected": 0}
    ).json()
    assert opened["seq"] == 1
    assert sum(len(lv["areas"]) for lv in opened["levels"]) > sum(
        len(lv["areas"]) for lv in state["levels"]
    )
    # the same step as the library takes it
    from kerker.play.api import Play
    from kerker.play.store import open_store
    from kerker.web import services

    play = Play(open_store(client.app.state.sessions.db), services.registry())
    try:
        assert play.state(sid).events[0].data["exit"] == first["key"]
    finally:
        play.store.close()
    undone = client.post(f"/api/sessions/{sid}/undo", json={}).json()
    assert undone["seq"] == 2
    assert len(undone["levels"][0]["areas"]) == len(state["levels"][0]["areas"])
    redone = client.post(f"/api/sessions/{sid}/redo", json={}).json()
    assert redone["levels"] == opened["levels"]


def test_a_write_on_an_old_state_is_a_409_with_the_current_state(client: TestClient) -> None:
    sid = _new(client)["session"]
    client.post(f"/api/sessions/{sid}/open", json={"exit": "next", "expected": 0})
    late = client.post(f"/api/sessions/{sid}/open", json={"exit": "next", "expected": 0})
    assert late.status_code == 409
    body = late.json()
    assert body["error"] == "conflict" and body["state"]["seq"] == 1
    page = client.post(f"/play/{sid}/open", data={"exit": "next", "expected": "0"})
    assert page.status_code == 409
    assert 'role="alert"' in page.text


def test_the_journal_in_markdown_and_json(client: TestClient) -> None:
    sid = _new(client)["session"]
    client.post(f"/api/sessions/{sid}/open", json={"exit": "next"})
    client.post(f"/api/sessions/{sid}/note", json={"text": "Goblins <script>x</script>"})
    md = client.get(f"/api/sessions/{sid}/journal?format=md&lang=de")
    assert md.status_code == 200 and md.text.startswith("# ")
    assert "<script>" not in md.text
    log = client.get(f"/api/sessions/{sid}/journal?format=json").json()
    assert [e["kind"] for e in log["events"]] == ["open", "note"]
    assert log["events"][0]["exit"]


def test_the_gm_page_has_a_clickable_marker_per_open_exit(client: TestClient) -> None:
    sid = _new(client)["session"]
    page = client.get(f"/play/{sid}?lang=it").text
    state = client.get(f"/api/sessions/{sid}").json()
    on_level = [e for e in state["open_exits"] if e["depth"] == 1]
    assert len(re.findall(r'<a href="#exit-\d+" class="exit"', page)) == len(on_level)
    for item in on_level:
        assert f'id="exit-{item["number"]}"' in page
        assert f'value="{item["key"]}"' in page


def test_forms_work_without_javascript(client: TestClient) -> None:
    made = client.post(
        "/play",
        data={"seed": "11", "rules": "scatola-bianca", "levels": "2"},
        follow_redirects=False,
    )
    assert made.status_code == 303
    url = made.headers["location"]
    sid = url.rsplit("/", 1)[-1]
    step = client.post(
        f"/play/{sid}/open", data={"exit": "1", "expected": "0"}, follow_redirects=False
    )
    assert step.status_code == 303
    note = client.post(
        f"/play/{sid}/note", data={"text": "<img src=x onerror=alert(1)>", "expected": "1"}
    )
    assert note.status_code == 200
    assert "<img src=x" not in note.text
    check = client.post(
        f"/play/{sid}/check", data={"value": "12", "secret": "true", "expected": "2"}
    )
    assert check.status_code == 200
    assert client.get(f"/api/sessions/{sid}").json()["seq"] == 3
    listing = client.get("/play?lang=de").text
    assert sid in listing


def test_the_player_page_reads_one_session_and_no_gm_secrets(client: TestClient) -> None:
    made = _new(client)
    sid, token = made["session"], made["player_token"]
    for _ in range(6):
        client.post(f"/api/sessions/{sid}/open", json={"exit": "next"})
    player = client.get(f"/watch/{token}?lang=de")
    assert player.status_code == 200
    assert sid not in player.text  # the token does not tell the GM's page
    assert "Open exits" not in player.text and 'class="exit"' not in player.text
    shown = client.get(f"/api/sessions/{sid}?view=player").json()
    assert shown["player_token"] is None
    for level in shown["levels"]:
        for conn in level["connections"]:
            assert conn["kind"] != "secret_door"
        for area in level["areas"]:
            assert area["contents"] == [] and area["rolls"] == []
    assert client.get("/watch/not-a-token-at-all").status_code == 400
    assert client.get("/watch/%3Cscript%3E").status_code == 400


def test_bad_session_requests_are_4xx(client: TestClient) -> None:
    # game master routes without the GM cookie or header: 403 whatever the id
    assert client.get("/api/sessions/nope").status_code == 403
    assert client.get("/play/0123456789").status_code == 403
    sid = _new(client)["session"]
    assert client.get(f"/play/{sid[:4]}").status_code == 403  # no prefix guessing
    bad = [
        ({"exit": None}, "open"),
        ({"exit": "1", "expected": "x"}, "open"),
        ({"text": ""}, "note"),
        ({"text": "x" * 3000}, "note"),
        ({"value": "abc"}, "check"),
        ({}, "check"),
        ({"level": 99}, "enter"),
        ({"exit": ["x"]}, "reroll"),
    ]
    for body, kind in bad:
        response = client.post(f"/api/sessions/{sid}/{kind}", json=body)
        assert 400 <= response.status_code < 500, (kind, body, response.text)
        assert "message" in response.json()
    assert client.post("/api/sessions", json={"rules": "nope"}).status_code == 400
    assert client.post("/api/sessions", json={"seed": "x"}).status_code == 400
    assert (
        client.post(
            "/api/sessions", content=b"[1,2]", headers={"content-type": "application/json"}
        ).status_code
        == 422
    )


def test_exit_markers_sit_beyond_their_door() -> None:
    assert exit_place("1:32,74:n") == (1, 32.5, 73.3)
    assert exit_place("2:0,5:e#2") == (2, 1.7, 5.5)
    assert exit_place("nonsense") is None
    svg = '<svg><g class="map" transform="translate(10 20)"></g></svg>'
    out = with_exits(svg, [{"key": "1:3,4:s", "number": 1}], 1)
    assert 'class="exits" transform="translate(10 20)"' in out
    assert 'href="#exit-1"' in out
    assert with_exits(svg, [{"key": "2:3,4:s", "number": 1}], 1) == svg


def test_markers_sit_at_the_doors_the_map_draws(client: TestClient) -> None:
    """A marker goes half a square beyond its door as the document places it (a wide door
    shifted along its wall, a sheet cut to its used squares), not at the key's own cell."""
    from kerker.dungeon.render_svg import CELL
    from kerker.web.sessions import _SIDES

    sid = _new(client, max_areas=40)["session"]
    for _ in range(8):
        client.post(f"/api/sessions/{sid}/open", json={"exit": "next"})
    state = client.get(f"/api/sessions/{sid}").json()
    level = state["levels"][0]
    page = client.get(f"/play/{sid}").text
    conns = {c["key"]: c for c in level["connections"]}
    checked = 0
    for item in state["open_exits"]:
        conn = conns.get(item["key"])
        if item["depth"] != 1 or conn is None:
            continue
        dx, dy = _SIDES[conn["side"]]
        cx = (conn["at"][0] + 0.5 + dx * 1.2) * CELL
        cy = (conn["at"][1] + 0.5 + dy * 1.2) * CELL
        marker = re.search(
            rf'<a href="#exit-{item["number"]}" class="exit"[^>]*><circle cx="([-\d.]+)" '
            r'cy="([-\d.]+)"',
            page,
        )
        assert marker, item
        assert (float(marker.group(1)), float(marker.group(2))) == pytest.approx((cx, cy))
        checked += 1
    assert checked > 0


def test_a_busy_database_is_a_503_to_try_again(tmp_path: Path) -> None:
    """SQLite locked by another writer for the whole wait: nothing is written and the
    answer says so with 503 and Retry-After, not a 400 (bench/web.py saw it at 50 writers)."""
    import sqlite3

    from kerker.play.store import sqlite as sqlite_store

    db = tmp_path / "busy.sqlite3"
    app_client = TestClient(create_app(db))
    sid = app_client.post("/api/sessions", json={"seed": 7}).json()["session"]
    blocker = sqlite3.connect(db, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another writer holds the lock
    old = sqlite_store.BUSY_MS
    sqlite_store.BUSY_MS = 50
    try:
        busy = app_client.post(f"/api/sessions/{sid}/open", json={"exit": "next"})
    finally:
        sqlite_store.BUSY_MS = old
        blocker.execute("ROLLBACK")
        blocker.close()
    assert busy.status_code == 503, busy.text
    assert busy.headers["retry-after"] == "1" and busy.json()["error"] == "busy"
    assert app_client.get(f"/api/sessions/{sid}").json()["seq"] == 0  # nothing written
    assert app_client.post(f"/api/sessions/{sid}/open", json={"exit": "next"}).status_code == 200


@pytest.mark.parametrize(
    ("lang", "word"),
    [("de", "Seed 7 – Zufallslabyrinth – "), ("it", "Seme 7 – Zufallslabyrinth – ")],
)
def test_an_unnamed_session_is_called_as_the_start_page_calls_it(
    client: TestClient, lang: str, word: str
) -> None:
    """No hex id as the heading of an unnamed session: its seed, rule set and areas, as the
    start page lists it, in the page's language, on the GM page, the player page and the list."""
    import html

    from kerker.dungeon.area_count import area_count_text
    from kerker.i18n import translator

    made = _new(client)
    sid, token = made["session"], made["player_token"]
    client.post(f"/api/sessions/{sid}/open", json={"exit": "next"})

    def heading(page: str) -> str:
        return html.unescape(page.split("<h1>")[1].split("</h1>")[0])

    for view, url in (("gm", f"/play/{sid}"), ("player", f"/watch/{token}")):
        levels = client.get(f"/api/sessions/{sid}?view={view}").json()["levels"]
        count = area_count_text([a for lv in levels for a in lv["areas"]], translator(lang))
        page = client.get(f"{url}?lang={lang}").text
        assert heading(page) == word + count
        assert sid not in heading(page)
        assert f"<title>{word}" in html.unescape(page)
    listing = client.get(f"/play?lang={lang}")
    assert f'href="/play/{sid}">{word.rstrip(" –")}</a>' in html.unescape(listing.text)
    named = _new(client, name="Die <Gruft>")
    page = client.get(f"/play/{named['session']}?lang={lang}").text
    assert heading(page) == "Die <Gruft>" and "Die &lt;Gruft&gt;" in page
