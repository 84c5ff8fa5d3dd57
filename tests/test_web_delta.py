"""Delta answers of the session API (docs/api.md, Deltas): applied step by step to the first
whole answer they give exactly the whole answer of every later step, for the game master's
view and the players' (many seeds, with undo, redo, reroll, reveal, hide and levels); a
players' delta holds nothing the players' whole answer does not (no secret door, no hidden
area, no content or roll in a session with a referee); an event not kept gets the whole
answer; and an open takes few database statements."""

from __future__ import annotations

import json
import random
import sqlite3
import warnings
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from kerker.web import create_app
from kerker.web.delta import KEPT_PER_VIEW, apply_delta


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    return TestClient(create_app(tmp_path_factory.mktemp("delta") / "sessions.sqlite3"))


def _step(rng: random.Random, whole: dict[str, Any], player: bool) -> tuple[str, dict[str, Any]]:
    """A step to try on a session showing ``whole`` (some are refused: a 400 changes
    nothing and is skipped)."""
    exits = whole["open_exits"]
    areas = [(lv["depth"], a["number"]) for lv in whole["levels"] for a in lv["areas"]]
    roll = rng.random()
    if exits and roll < 0.45:
        return "open", {"exit": rng.choice(exits)["key"] if rng.random() < 0.5 else "next"}
    if roll < 0.55:
        return "undo", {}
    if roll < 0.62:
        return "redo", {}
    if roll < 0.7:
        return "reroll", {"exit": "last"}
    levels = sorted({e["to_level"] for e in exits if e["to_level"]})
    if roll < 0.78 and levels:
        return "enter", {"level": rng.choice(levels)}
    if roll < 0.86 and areas:
        depth, number = rng.choice(areas)
        return "search", {"area": number, "depth": depth}
    if player:
        return "note", {"text": f"note {rng.randrange(1000)}"}
    secret = [e for e in exits if e["kind"] == "secret_door"]
    if secret and roll < 0.93:
        return "reveal", {"exit": rng.choice(secret)["key"]}
    if areas:
        depth, number = rng.choice(areas)
        return rng.choice(("reveal", "hide")), {"area": number, "depth": depth}
    return "note", {"text": "a note"}


def _follow(
    client: TestClient,
    url: str,
    history: dict[int, dict[str, Any]],
    rng: random.Random,
    headers: dict[str, str],
) -> tuple[dict[str, Any], bool]:
    """GET ``url`` since one of the last kept events (the newest mostly): the answer applied
    to what the client held of that event, and whether it came as a delta."""
    newest = sorted(history)[-KEPT_PER_VIEW:]
    since = newest[-1] if rng.random() < 0.7 else rng.choice(newest)
    got = client.get(url, params={"since": since}, headers=headers)
    assert got.status_code == 200, got.text
    data = got.json()
    return apply_delta(history[since], data), data.get("delta") is True


def _items(node: Any) -> list[dict[str, Any]]:
    """The areas, connections and open exits anywhere in an answer (whole or delta)."""
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        if ("cells" in node and "contents" in node) or "side" in node or "number" in node:
            found.append(node)
        for value in node.values():
            found += _items(value)
    elif isinstance(node, list):
        for value in node:
            found += _items(value)
    return found


def _secrets_kept(data: dict[str, Any], whole: dict[str, Any], referee: bool) -> None:
    """A players' delta names no area, connection or open exit that the players' whole
    answer does not hold as it is (so no unfound secret door, no hidden area, no GM-only
    way), and with a referee no roll of any area and of its contents only what a step by the
    rules made known (a sprung trap's note, treasure found or taken: kerker.play.views)."""
    everything = json.dumps(whole, sort_keys=True)
    for item in _items(data):
        assert json.dumps(item, sort_keys=True) in everything, item
        if item.get("kind") == "secret_door" or item.get("gm_only") is True:
            assert item in whole["open_exits"], item  # found: the players know of it
        if referee and "contents" in item:
            assert item["rolls"] == []
            assert all(
                c["kind"] in ("note", "treasure", "sprung_trap", "sprung_trick")
                for c in item["contents"]
            ), item
    assert whole["player_token"] is None


@pytest.mark.parametrize(
    ("rules", "seed", "levels", "referee"),
    [("zufallslabyrinth", s, 1 + s % 2, True) for s in range(20)]
    + [("scatola-bianca", 40 + s, 1 + s % 2, True) for s in range(10)]
    + [("zufallslabyrinth", 80 + s, 1 + s % 2, False) for s in range(4)]
    + [("scatola-bianca", 90 + s, 1, False) for s in range(2)],
)
def test_deltas_give_every_whole_answer(
    client: TestClient, rules: str, seed: int, levels: int, referee: bool
) -> None:
    made = client.post(
        "/api/sessions",
        json={"rules": rules, "seed": seed, "levels": levels, "min_areas": 0, "referee": referee},
    ).json()
    sid, token, gm = made["session"], made["player_token"], {"X-Kerker-GM": made["gm_token"]}
    state_url, watch_url = f"/api/sessions/{sid}", f"/api/watch/{token}"
    gm_seen = {0: client.get(state_url, headers=gm).json()}
    player_seen = {0: client.get(watch_url).json()}
    _secrets_kept(player_seen[0], player_seen[0], referee)
    rng = random.Random(seed)
    deltas = 0
    for _n in range(30):
        as_player = not referee and rng.random() < 0.5
        last = max(gm_seen)
        kind, body = _step(
            rng, player_seen[max(player_seen)] if as_player else gm_seen[last], as_player
        )
        if as_player:
            since = max(player_seen)
            got = client.post(f"{watch_url}/{kind}", params={"since": since}, json=body)
        else:
            got = client.post(f"{state_url}/{kind}", params={"since": last}, json=body, headers=gm)
        if got.status_code == 400:
            continue
        assert got.status_code == 200, (kind, body, got.text)
        data = got.json()
        deltas += data.get("delta") is True
        if as_player:
            after = apply_delta(player_seen[since], data)
            assert after == client.get(watch_url).json()
            _secrets_kept(data, after, referee)
            player_seen[after["seq"]] = after
        else:
            after = apply_delta(gm_seen[last], data)
            assert after == client.get(state_url, headers=gm).json()
            gm_seen[after["seq"]] = after
        # the other view follows by GET since one of its last events
        if as_player:
            gm_now, _d = _follow(client, state_url, gm_seen, rng, gm)
            assert gm_now == client.get(state_url, headers=gm).json()
            gm_seen[gm_now["seq"]] = gm_now
        else:
            raw = client.get(watch_url, params={"since": max(player_seen)}).json()
            player_now = apply_delta(player_seen[max(player_seen)], raw)
            assert player_now == client.get(watch_url).json()
            _secrets_kept(raw, player_now, referee)
            player_seen[player_now["seq"]] = player_now
            player_again, _d = _follow(client, watch_url, player_seen, rng, {})
            assert player_again == player_now
    assert deltas >= 5


def test_an_event_not_kept_gets_the_whole_answer(client: TestClient) -> None:
    made = client.post("/api/sessions", json={"seed": 3, "min_areas": 0}).json()
    sid, gm = made["session"], {"X-Kerker-GM": made["gm_token"]}
    first = client.get(f"/api/sessions/{sid}", headers=gm).json()
    for _n in range(KEPT_PER_VIEW + 1):
        opened = client.post(f"/api/sessions/{sid}/open", json={"exit": "next"}, headers=gm)
        assert opened.status_code == 200
    for since in (first["seq"], 10**9, 57):
        got = client.get(f"/api/sessions/{sid}", params={"since": since}, headers=gm).json()
        assert "delta" not in got and got["seq"] == KEPT_PER_VIEW + 1
    # the answer of the last event: a delta that changes nothing
    same = client.get(f"/api/sessions/{sid}", params={"since": got["seq"]}, headers=gm).json()
    assert same == {"delta": True, "since": got["seq"], "seq": got["seq"]}
    for bad in ("-1", "x", "1e3"):
        refused = client.get(f"/api/sessions/{sid}", params={"since": bad}, headers=gm)
        assert refused.status_code == 422 and "since" in refused.json()["message"]


def test_a_delta_is_smaller_than_the_whole_answer(client: TestClient) -> None:
    made = client.post("/api/sessions", json={"seed": 11, "max_areas": 60, "min_areas": 40}).json()
    sid, gm = made["session"], {"X-Kerker-GM": made["gm_token"]}
    seq = client.get(f"/api/sessions/{sid}", headers=gm).json()["seq"]
    for _n in range(12):
        whole = client.post(f"/api/sessions/{sid}/open", json={"exit": "next"}, headers=gm)
        seq = whole.json()["seq"]
    part = client.post(
        f"/api/sessions/{sid}/open", params={"since": seq}, json={"exit": "next"}, headers=gm
    )
    assert part.json()["delta"] is True
    again = client.get(f"/api/sessions/{sid}", headers=gm)
    assert len(part.content) * 3 < len(again.content)


def test_an_open_takes_five_statements_on_sqlite(tmp_path: Path) -> None:
    """One read (the session's header, GM token and last event) and the append's
    transaction (BEGIN IMMEDIATE, UPDATE, INSERT, COMMIT): no second look-up, no read of an
    empty tail of the log."""
    app = create_app(tmp_path / "s.sqlite3")
    with TestClient(app) as c:
        made = c.post("/api/sessions", json={"seed": 5, "min_areas": 0}).json()
        sid, gm = made["session"], {"X-Kerker-GM": made["gm_token"]}
        assert c.post(f"/api/sessions/{sid}/open", json={"exit": "next"}, headers=gm).is_success
        store = app.state.sessions.store()
        seen: list[str] = []
        connect = store._connect

        def traced() -> sqlite3.Connection:  # a worker thread's first connection
            conn: sqlite3.Connection = connect()
            conn.set_trace_callback(seen.append)
            return conn

        store._connect = traced
        for _owner, conn in store._conns:
            conn.set_trace_callback(seen.append)
        try:
            got = c.post(f"/api/sessions/{sid}/open", json={"exit": "next"}, headers=gm)
            assert got.status_code == 200
        finally:
            for _owner, conn in store._conns:
                conn.set_trace_callback(None)
        words = [s.split()[0].upper() for s in seen]
        assert words == ["SELECT", "BEGIN", "UPDATE", "INSERT", "COMMIT"], seen


def test_a_conflict_carries_the_whole_state_even_with_since(client: TestClient) -> None:
    made = client.post("/api/sessions", json={"seed": 21, "min_areas": 0}).json()
    sid, gm = made["session"], {"X-Kerker-GM": made["gm_token"]}
    client.get(f"/api/sessions/{sid}", headers=gm)
    first = client.post(
        f"/api/sessions/{sid}/open", params={"since": 0}, json={"exit": "next"}, headers=gm
    )
    assert first.json()["delta"] is True
    late = client.post(
        f"/api/sessions/{sid}/open",
        params={"since": 0},
        json={"exit": "next", "expected": 0},
        headers=gm,
    )
    assert late.status_code == 409
    state = late.json()["state"]
    assert "delta" not in state
    assert state == client.get(f"/api/sessions/{sid}", headers=gm).json()


def test_two_different_answers_of_one_event_make_it_unknown() -> None:
    from kerker.web.delta import Kept, encode

    kept = Kept()
    one = encode({"seq": 3, "name": "a", "levels": []})[1]
    other = encode({"seq": 3, "name": "b", "levels": []})[1]
    assert one is not None and other is not None
    kept.keep(("s",), 3, one.digested())
    kept.keep(("s",), 3, one.digested())
    assert kept.get(("s",), 3) == one.digested()
    kept.keep(("s",), 3, other.digested())
    assert kept.get(("s",), 3) is None
    kept.keep(("s",), 3, one.digested())
    assert kept.get(("s",), 3) is None


def test_the_encoding_is_the_same_json() -> None:
    from kerker.web.delta import encode

    answer = {"seq": 1, "name": "Grüße <&>", "levels": [{"depth": 1, "areas": [{"id": "a1"}]}]}
    data, index = encode(answer)
    assert json.loads(data) == answer and index is not None
    assert "Grüße".encode() in data  # UTF-8 as it is, as the standard library's answers
    # an integer past 64 bits: the standard library's encoder, and no delta from it
    big = {**answer, "seed": 2**70}
    data, index = encode(big)
    assert json.loads(data) == big and index is None
    # two areas with one id cannot be told apart: whole answers only
    twice = {"seq": 1, "levels": [{"depth": 1, "areas": [{"id": "a1"}, {"id": "a1"}]}]}
    data, index = encode(twice)
    assert json.loads(data) == twice and index is None


@pytest.mark.parametrize(
    ("rules", "seed", "referee"),
    [("zufallslabyrinth", 300 + s, True) for s in range(6)]
    + [("scatola-bianca", 320 + s, True) for s in range(4)]
    + [("zufallslabyrinth", 340, False), ("scatola-bianca", 341, False)],
)
def test_kept_pieces_give_the_same_bytes_and_digests(
    tmp_path: Path, rules: str, seed: int, referee: bool
) -> None:
    """An answer encoded with the pieces of the last one is byte for byte the answer
    encoded from scratch, and so are its digests: over opens, undo, redo, rerolls, level
    changes, searches, reveals (GM view, and the players' whose items are new each time)."""
    import orjson

    from kerker.play.api import Play
    from kerker.play.store import open_store
    from kerker.play.views import show
    from kerker.web import services
    from kerker.web.delta import Pieces, encode

    play = Play(open_store(tmp_path / "s.sqlite3"), services.registry())
    state = play.new(rules, seed, {"levels": 2, "min_areas": 0}, referee=referee)
    pieces = {(view, lang): Pieces() for view in ("gm", "player") for lang in ("en", "de")}
    rng = random.Random(seed)
    reused = 0
    for _n in range(40):
        for (view, lang), kept in pieces.items():
            answer = show(state, view, lang)
            before = len(kept)
            data, index = encode(answer, kept)
            fresh, fresh_index = encode(answer)
            assert data == fresh == orjson.dumps(answer, option=orjson.OPT_NON_STR_KEYS)
            assert index is not None and fresh_index is not None
            assert index.digested() == fresh_index.digested()
            reused += before > 0 and view == "gm"
        kind, body = _step(rng, show(state, "gm", "en"), not referee)
        try:
            state = play.act(state.info.id, kind, **body)
        except Exception as err:  # a refused step changes nothing
            assert "Error" in type(err).__name__, err
    assert reused > 20
