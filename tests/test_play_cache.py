"""The per-process cache of folded states (kerker.play.cache, issue 14): a state brought up
to date from the cache equals a fresh replay of the whole stored log, whoever appended the
events (this process or another instance on the same store), over random sequences of
opens, undo, redo, rerolls, notes, rolls and reveals; the cache never answers from a state
older than the store's last event; it is bounded by count and memory; a state is lent to
one taker at a time, also under threads; the web app gives states back after a response.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kerker.errors import KerkerError
from kerker.play.api import Play
from kerker.play.cache import StateCache, estimate_bytes
from kerker.play.session import PlayState, fold, verify
from kerker.play.store import open_store
from kerker.play.views import show
from kerker.tables.registry import load_registry

REGISTRY = load_registry()
PROCEDURES = ("zufallslabyrinth", "scatola-bianca")
OPTIONS = {"max_areas": 12, "min_areas": 0}
KINDS = ("open", "open", "open", "undo", "redo", "reroll", "note", "roll", "reveal", "hide")


def _fields(kind: str, pick: int) -> dict[str, Any]:
    if kind == "open":
        return {"exit": "next" if pick == 0 else str(pick)}
    if kind == "reroll":
        return {"exit": "last"}
    if kind == "note":
        return {"text": f"note {pick}"}
    if kind == "roll":
        return {"expr": "2d6"}
    if kind in ("reveal", "hide"):
        return {"depth": 1, "area": pick + 1}
    return {}


def _picture(state: PlayState) -> dict[str, Any]:
    """Everything a folded state shows or goes on from."""
    return {
        "show": show(state, "gm", "en"),
        "player": show(state, "player", "it"),
        "info": state.info,
        "events": list(state.events),
        "done": list(state.done),
        "undone": list(state.undone),
        "lapsed": list(state.lapsed),
        "notes": list(state.notes),
        "revealed": set(state.revealed),
        "hidden": set(state.hidden),
        "rerolls": dict(state.rerolls),
        "made": dict(state.made),
        "joined": dict(state.joined),
        "ways": dict(state.ways),
        "depth": state.depth,
        "read_only": state.read_only,
    }


@given(
    rules=st.sampled_from(PROCEDURES),
    seed=st.integers(0, 40),
    steps=st.lists(
        st.tuples(st.sampled_from(KINDS), st.integers(0, 3), st.booleans(), st.booleans()),
        min_size=1,
        max_size=14,
    ),
)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_cached_state_equals_a_fresh_replay(
    rules: str, seed: int, steps: list[tuple[str, int, bool, bool]]
) -> None:
    """Steps by this process (its states given back) or by another instance, and now and
    then (``look``, and at the end) the cached state compared with a fresh replay: several
    events may have come in between, from either writer."""
    with open_store(":memory:") as store:
        cache = StateCache()
        here = Play(store, REGISTRY, cache=cache)
        elsewhere = Play(store, REGISTRY)  # another instance on the same store, no cache
        made = here.new(rules, seed, OPTIONS)
        sid = made.info.id
        cache.give(made)
        for n, (kind, pick, other, look) in enumerate(steps, 1):
            writer = elsewhere if other else here
            try:
                after = writer.act(sid, kind, **_fields(kind, pick))
                if writer is here:
                    cache.give(after)
            except KerkerError:
                pass  # nothing to undo, no such exit ...: nothing was written
            if not look and n < len(steps):
                continue
            got = here.state(sid)
            info, events = store.load(sid)
            assert got.seq == len(events)  # never older than the store
            fresh = verify(fold(info, events, REGISTRY))
            assert _picture(got) == _picture(fresh), (n, kind, pick, other)
            cache.give(got)


def test_the_cache_never_answers_from_an_older_state(tmp_path: Path) -> None:
    with open_store(tmp_path / "s.sqlite3") as store:
        cache = StateCache()
        here = Play(store, REGISTRY, cache=cache)
        state = here.new("zufallslabyrinth", 3, OPTIONS)
        cache.give(state)
        cache.give(here.act(state.info.id, "open", exit="next"))
        other = Play(store, REGISTRY)
        other.act(state.info.id, "open", exit="next")
        other.act(state.info.id, "undo")
        got = here.state(state.info.id)
        assert got.seq == 3
        assert [e.kind for e in got.events] == ["open", "open", "undo"]
        assert cache.stats.hits == 2 and cache.stats.misses == 0
        # a state given back twice, or an older one after a newer, keeps the newer
        cache.give(got)
        cache.give(fold(got.info, got.events[:1], REGISTRY))
        assert cache.take(state.info.id) is got


def test_the_cache_is_bounded_by_count_and_memory() -> None:
    states = []
    for n in range(4):
        info_state = Play(open_store(":memory:"), REGISTRY).new("zufallslabyrinth", n, OPTIONS)
        states.append(info_state)
    cache = StateCache(max_states=2)
    for s in states:
        cache.give(s)
    assert len(cache) == 2
    assert cache.take(states[0].info.id) is None  # least recently given back: out
    assert cache.take(states[3].info.id) is states[3]
    size = estimate_bytes(states[0])
    assert size > 0
    small = StateCache(max_bytes=size + size // 2)
    small.give(states[0])
    small.give(states[1])
    assert len(small) == 1 and small.bytes <= small.max_bytes
    tiny = StateCache(max_bytes=size - 1)
    tiny.give(states[0])
    assert len(tiny) == 0 and tiny.stats.dropped == 1


def test_a_state_is_lent_to_one_taker_at_a_time() -> None:
    state = Play(open_store(":memory:"), REGISTRY).new("scatola-bianca", 1, OPTIONS)
    cache = StateCache()
    cache.give(state)
    got: list[PlayState | None] = []
    start = threading.Barrier(8)

    def take() -> None:
        start.wait()
        got.append(cache.take(state.info.id))

    threads = [threading.Thread(target=take) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [g for g in got if g is not None] == [state]
    assert cache.stats.hits == 1 and cache.stats.misses == 7


def test_a_read_only_state_is_not_kept() -> None:
    state = Play(open_store(":memory:"), REGISTRY).new("zufallslabyrinth", 2, OPTIONS)
    state.read_only = "made with another kerker"
    cache = StateCache()
    cache.give(state)
    assert len(cache) == 0


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    from kerker.web import create_app

    return TestClient(create_app(tmp_path / "sessions.sqlite3"))


def test_the_web_app_gives_states_back_and_reads_other_writers(
    client: TestClient, tmp_path: Path
) -> None:
    sessions = client.app.state.sessions  # type: ignore[attr-defined]
    sid = client.post("/api/sessions", json={"seed": 4, "max_areas": 12}).json()["session"]
    for _ in range(3):
        assert client.post(f"/api/sessions/{sid}/open", json={"exit": "next"}).status_code == 200
    assert sessions.cache.stats.misses == 0 and sessions.cache.stats.hits == 3
    # another instance appends: the next answer has its event, folded onto the cached state
    with open_store(tmp_path / "sessions.sqlite3") as store:
        Play(store, REGISTRY).act(sid, "note", text="from the other instance")
    got = client.get(f"/api/sessions/{sid}").json()
    assert got["seq"] == 4
    assert sessions.cache.stats.misses == 0
    # a write on an old state is still a 409 carrying the current state
    stale = client.post(f"/api/sessions/{sid}/open", json={"exit": "next", "expected": 2})
    assert stale.status_code == 409 and stale.json()["state"]["seq"] == 4
    assert len(sessions.cache) == 1


def test_a_page_view_is_remembered_per_event_and_never_outlives_it(client: TestClient) -> None:
    from kerker.web import sessions as web_sessions

    made = client.post("/api/sessions", json={"seed": 5, "max_areas": 12}).json()
    sid, token = made["session"], made["player_token"]
    client.post(f"/api/sessions/{sid}/open", json={"exit": "next"})
    first = client.get(f"/watch/{token}").text
    assert client.get(f"/watch/{token}").text == first
    kept = len(web_sessions._pages)
    assert kept >= 1
    client.post(f"/api/sessions/{sid}/note", json={"text": "a <b>note</b>"})
    gm = client.get(f"/play/{sid}").text
    assert "a &lt;b&gt;note&lt;/b&gt;" in gm and "<b>note" not in gm  # at the new event, escaped
    assert client.get(f"/watch/{token}?lang=it").text != first
    client.post(f"/api/sessions/{sid}/open", json={"exit": "next"})
    assert client.get(f"/watch/{token}").text != first
    assert len(web_sessions._pages) <= web_sessions.PAGES_KEPT
