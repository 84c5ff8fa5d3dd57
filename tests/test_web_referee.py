"""GM access in the web app needs the GM token (issue 14): 403 without it, 404 with a
wrong one, the GM link and cookies, CSRF still checked; the player link plays a session
without a referee, and no response of such a session carries GM-only information."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from play_support import gm_only_texts

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from kerker.play.api import Play
from kerker.play.store import open_store
from kerker.play.views import _visible
from kerker.tables.registry import load_registry
from kerker.web import create_app

REGISTRY = load_registry()


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "sessions.sqlite3"


@pytest.fixture()
def app(db: Path) -> Any:
    return create_app(db)


def _new(client: TestClient, **body: Any) -> dict[str, Any]:
    got = client.post("/api/sessions", json={"seed": 7, **body})
    assert got.status_code == 200, got.text
    return dict(got.json())


def _gm_routes(sid: str) -> list[tuple[str, str, dict[str, Any] | None]]:
    return [
        ("GET", f"/play/{sid}", None),
        ("GET", f"/play/{sid}/journal.md", None),
        ("GET", f"/play/{sid}/log.json", None),
        ("POST", f"/play/{sid}/open", {"exit": "next"}),
        ("GET", f"/api/sessions/{sid}", None),
        ("GET", f"/api/sessions/{sid}/journal", None),
        ("POST", f"/api/sessions/{sid}/open", {"exit": "next"}),
        ("POST", f"/api/sessions/{sid}/search", {"area": 1}),
    ]


def _call(client: TestClient, method: str, url: str, body: Any, **kw: Any) -> Any:
    if method == "GET":
        return client.get(url, follow_redirects=False, **kw)
    if url.startswith("/play/"):
        return client.post(url, data=body, follow_redirects=False, **kw)
    return client.post(url, json=body, follow_redirects=False, **kw)


def test_gm_routes_need_the_gm_token(app: Any) -> None:
    owner = TestClient(app)
    made = _new(owner)
    sid, gm = made["session"], made["gm_token"]
    assert len(gm) >= 32 and re.fullmatch(r"[A-Za-z0-9_-]+", gm)  # 24 random bytes
    stranger = TestClient(app)
    for method, url, body in _gm_routes(sid):
        got = _call(stranger, method, url, body)
        assert got.status_code == 403, (url, got.status_code, got.text[:200])
        got = _call(stranger, method, url, body, headers={"X-Kerker-GM": "A" * 32})
        assert got.status_code == 404, (url, got.status_code)
        # the player token is not a GM token
        got = _call(stranger, method, url, body, headers={"X-Kerker-GM": made["player_token"]})
        assert got.status_code == 404, url
        got = _call(stranger, method, url, body, headers={"X-Kerker-GM": gm})
        assert got.status_code in (200, 303), (url, got.status_code, got.text[:200])
        got = _call(owner, method, url, body)  # the creating browser holds the cookie
        assert got.status_code in (200, 303), (url, got.status_code)
    # a session that does not exist answers the same as one that does
    assert stranger.get("/play/0123456789").status_code == 403
    assert stranger.get("/play/0123456789", headers={"X-Kerker-GM": gm}).status_code == 404
    # the messages say what to do, in the viewer's language
    assert "gm_path" in stranger.get(f"/api/sessions/{sid}").json()["message"]
    assert "arbitro" in stranger.get(f"/play/{sid}?lang=it").text


def test_the_gm_link_lets_a_browser_in_and_lists_only_its_sessions(app: Any) -> None:
    owner = TestClient(app)
    mine = _new(owner, name="Meine Gruft")
    other = _new(TestClient(app), name="Fremde Gruft")
    listed = [s["session"] for s in owner.get("/api/sessions").json()]
    assert listed == [mine["session"]]
    assert "Fremde Gruft" not in owner.get("/play").text
    assert "Meine Gruft" in owner.get("/play").text and "Meine Gruft" in owner.get("/").text
    second = TestClient(app)  # another device of the GM
    assert second.get(f"/play/{mine['session']}").status_code == 403
    got = second.get(f"/gm/{mine['gm_token']}", follow_redirects=False)
    assert got.status_code == 303 and got.headers["location"] == f"/play/{mine['session']}"
    cookie = got.headers["set-cookie"]
    assert "HttpOnly" in cookie and "samesite=lax" in cookie.lower()
    assert second.get(f"/play/{mine['session']}").status_code == 200
    assert second.get(f"/gm/{'x' * 32}").status_code == 400
    assert other["session"] not in [s["session"] for s in second.get("/api/sessions").json()]


def test_the_new_session_form_sets_the_cookie_and_csrf_still_holds(app: Any) -> None:
    browser = TestClient(app)
    got = browser.post("/play", data={"seed": "3", "no_referee": "true"}, follow_redirects=False)
    assert got.status_code == 303
    sid = got.headers["location"].rsplit("/", 1)[-1]
    page = browser.get(f"/play/{sid}")
    assert page.status_code == 200 and "/gm/" in page.text
    state = browser.get(f"/api/sessions/{sid}").json()
    assert state["referee"] is False and state["view"] == "player"
    foreign = browser.post(
        f"/api/sessions/{sid}/open",
        json={"exit": "next"},
        headers={"Origin": "http://evil.example"},
    )
    assert foreign.status_code == 403


def test_the_player_link_only_watches_a_refereed_session(app: Any) -> None:
    made = _new(TestClient(app))
    token = made["player_token"]
    player = TestClient(app)
    page = player.get(f"/watch/{token}")
    assert page.status_code == 200 and f'action="/watch/{token}/open"' not in page.text
    assert player.post(f"/watch/{token}/open", data={"exit": "next"}).status_code == 403
    assert player.post(f"/api/watch/{token}/open", json={"exit": "next"}).status_code == 403
    assert player.get(f"/api/sessions/{made['session']}").status_code == 403


def test_the_watch_page_of_a_refereed_session_shows_what_the_rules_made_known(
    app: Any, db: Path
) -> None:
    """The players' page of a session with a referee: the chosen area's key with the
    treasure the party took and the trap that went off, in the players' language; no
    controls; before the GM's step neither is there."""
    gm = TestClient(app)
    made = _new(gm, rules="zufallslabyrinth", seed=1)
    sid, token, key = made["session"], made["player_token"], made["gm_token"]
    headers = {"X-Kerker-GM": key}
    for _ in range(12):
        assert gm.post(f"/api/sessions/{sid}/open", json={"exit": "next"}, headers=headers)
    with open_store(db) as store:
        state = Play(store, REGISTRY).state(sid)
    target = None
    for level in state.document("de")["levels"]:
        for area in level["areas"]:
            trapped = [c for c in area["contents"] if c["kind"] == "treasure" and c.get("trapped")]
            if (level["depth"], area["number"]) in _visible(state) and trapped:
                target = area["number"], trapped[0]
    assert target is not None
    number, treasure = target
    page = TestClient(app).get(f"/watch/{token}?lang=de&area={number}").text
    assert str(treasure["text"]).rstrip(". ") not in page and "genommen" not in page
    # the GM lets the party take it (the area's first treasure: this one); its trap goes off
    got = gm.post(f"/api/sessions/{sid}/take", json={"area": number}, headers=headers)
    assert got.status_code == 200, got.text
    page = TestClient(app).get(f"/watch/{token}?lang=de&area={number}").text
    card = page.split('class="card areakey"')[1].split("</section>")[0]
    assert str(treasure["text"]).rstrip(". ") in card and "(genommen)" in card
    assert "Falle (ausgelöst): " + str(treasure["trapped"]) in card
    assert f'action="/watch/{token}/' not in page  # the players watch; the GM plays


def test_players_play_a_session_without_a_referee(app: Any) -> None:
    made = _new(TestClient(app), rules="scatola-bianca", seed=2, referee=False)
    token = made["player_token"]
    player = TestClient(app)
    page = player.get(f"/watch/{token}?lang=it")
    assert f'action="/watch/{token}/open"' in page.text and 'action="/watch/' in page.text
    assert "Senza arbitro" in page.text and "/reveal" not in page.text
    assert 'name="secret"' not in page.text
    got = player.post(f"/watch/{token}/open", data={"exit": "next", "expected": "0"})
    assert got.status_code == 200 and "Senza arbitro" in got.text  # followed to the page
    state = player.post(f"/api/watch/{token}/open", json={"exit": "next"}).json()
    assert state["view"] == "player" and state["seq"] == 2 and state["player_token"] is None
    searched = player.post(f"/api/watch/{token}/search", json={"area": 1, "side": "n"}).json()
    assert searched["seq"] == 3
    page = player.get(f"/watch/{token}?lang=it&area=1")
    journal = page.text.split('class="sheet journal"')[1]
    assert '<ol class="journal">' in journal and "<details><summary>Tiri</summary>" in journal
    assert "Cercato nel muro a nord" in journal and "<pre" not in journal
    assert player.post(f"/api/watch/{token}/reveal", json={"area": 1}).status_code in (403, 404)
    assert player.post(f"/watch/{token}/reveal", data={"area": "1"}).status_code == 403
    checked = player.post(f"/api/watch/{token}/check", json={"value": 10, "secret": True})
    assert checked.status_code == 200 and checked.json()["seq"] == 4  # made an open check
    stale = player.post(f"/api/watch/{token}/note", json={"text": "x", "expected": 1})
    assert stale.status_code == 409 and stale.json()["state"]["view"] == "player"
    bad = player.post(f"/api/watch/{token}/search", json={"area": 1, "side": "up"})
    assert bad.status_code == 400 and "n, e, s" in bad.json()["message"]


def _responses(gm: TestClient, player: TestClient, sid: str, token: str) -> str:
    parts = [
        gm.get(f"/play/{sid}").text,
        gm.get(f"/api/sessions/{sid}").text,
        gm.get(f"/api/sessions/{sid}?view=gm").text,
        gm.get(f"/play/{sid}/journal.md").text,
        gm.get(f"/api/sessions/{sid}/journal?format=md").text,
        player.get(f"/watch/{token}").text,
        player.get(f"/api/watch/{token}").text,
    ]
    return "\n".join(parts).replace("&#34;", '"').replace("&quot;", '"')


@pytest.mark.parametrize("rules", ["scatola-bianca", "zufallslabyrinth"])
def test_no_response_of_a_session_without_a_referee_holds_gm_only_information(
    app: Any, db: Path, rules: str
) -> None:
    """Eight seeds each, every page and API answer after every step (opens, searches,
    takes by the players): no unfound secret door, hidden treasure or trap text."""
    gm, player = TestClient(app), TestClient(app)
    held = 0
    with open_store(db) as store:
        play = Play(store, REGISTRY)
        for seed in range(8):
            made = _new(gm, rules=rules, seed=seed, max_areas=30, referee=False)
            sid, token = made["session"], made["player_token"]
            for step in range(8):
                state = play.state(sid)
                numbers = sorted(n for _d, n in _visible(state))
                if step % 3 == 2:
                    body: dict[str, Any] = {"area": numbers[-1], "side": "e"}
                    player.post(f"/api/watch/{token}/search", json=body)
                elif step % 4 == 3:
                    player.post(f"/api/watch/{token}/take", json={"area": numbers[-1]})
                else:
                    player.post(f"/api/watch/{token}/open", json={"exit": "next"})
                state = play.state(sid)
                secrets = gm_only_texts(state)
                held += len(secrets)
                text = _responses(gm, player, sid, token)
                leaked = [s for s in secrets if s in text or json.dumps(s)[1:-1] in text]
                assert not leaked, (rules, seed, step, leaked[:3])
    assert held > 10


def test_the_api_reads_a_wall_in_the_requests_language(app: Any, db: Path) -> None:
    made = _new(TestClient(app), rules="scatola-bianca", seed=2, referee=False)
    token, sid = made["player_token"], made["session"]
    player = TestClient(app)
    assert player.post(f"/api/watch/{token}/open", json={"exit": "next"}).status_code == 200
    walls = (("de", "o", "e"), ("it", "o", "w"), ("it", "Ovest", "w"), ("en", "", None))
    for lang, typed, wall in walls:
        got = player.post(f"/api/watch/{token}/search?lang={lang}", json={"area": 1, "side": typed})
        assert got.status_code == 200, (lang, typed, got.text)
        with open_store(db) as store:
            assert Play(store, REGISTRY).state(sid).events[-1].data["side"] == wall, (lang, typed)
    for lang, listed in (
        ("de", "eine Wand ist n, o, s, w oder Norden, Osten, Süden, Westen, nicht 'o!'"),
        ("it", "un muro è n, e, s, o oppure nord, est, sud, ovest, non 'o!'"),
        ("en", "a wall is n, e, s, w or north, east, south, west, not 'o!'"),
    ):
        bad = player.post(f"/api/watch/{token}/search?lang={lang}", json={"area": 1, "side": "o!"})
        assert bad.status_code == 400 and bad.json()["message"] == listed, (lang, bad.text)
    english = player.post(f"/api/watch/{token}/search?lang=en", json={"area": 1, "side": "o"})
    assert english.status_code == 400  # no "o" in English
