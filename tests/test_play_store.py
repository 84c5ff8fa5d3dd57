"""The session store on SQLite and PostgreSQL: migrations, appends under (session, seq),
conflicts, one-line errors for foreign or corrupt files, and the two proofs of the issue:
no committed event lost when a writer is killed with SIGKILL mid-run, and two concurrent
writers that neither duplicate nor drop an event."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from play_support import BACKENDS, store_url

from kerker.play.events import Event
from kerker.play.session import SessionInfo
from kerker.play.store import ConflictError, StoreError, open_store
from kerker.play.store.migrations import LATEST

ROOT = Path(__file__).resolve().parent.parent


def _info(sid: str = "s1") -> SessionInfo:
    return SessionInfo(
        sid,
        "zufallslabyrinth",
        7,
        {"levels": 1},
        "0.1.0",
        "d" * 32,
        name="test",
        player_token="tok-" + sid,
        created="t0",
        updated="t0",
    )


def _note(seq: int, text: str) -> Event:
    return Event(seq, "note", {"text": text, "depth": None, "area": None})


POOLS = (None, 4)
"""A store on one connection (the CLI) and on a pool (the web app: on PostgreSQL its
connections are in autocommit, reads run without BEGIN and an append is one statement)."""


@pytest.mark.parametrize("pool", POOLS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_append_read_conflict(backend: str, pool: int | None, tmp_path: Path) -> None:
    with open_store(store_url(backend, tmp_path), pool=pool) as store:
        assert store.migrate() == LATEST  # idempotent
        store.create(_info())
        with pytest.raises(StoreError, match="already exists"):
            store.create(_info())
        store.append(_info(), _note(1, "one"))
        store.append(_info(), _note(2, "two"))
        # a second writer that also saw seq 1 and appends "2" loses, nothing overwritten
        with pytest.raises(ConflictError) as err:
            store.append(_info(), _note(2, "other two"))
        assert err.value.seq == 2 and err.value.expected == 1
        with pytest.raises(ConflictError):
            store.append(_info(), _note(4, "a gap"))
        events = store.events("s1")
        assert [(e.seq, e.data["text"]) for e in events] == [(1, "one"), (2, "two")]
        assert store.find("s").id == "s1" and store.find("test").id == "s1"
        with pytest.raises(StoreError, match="no session"):
            store.find("zz")
        store.delete("s1")
        assert store.sessions() == []


def test_sqlite_file_made_on_first_use(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "s.sqlite3"
    with open_store(f"sqlite:///{path}") as store:
        assert store.sessions() == []
    assert path.exists()
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert dict(con.execute("SELECT key, value FROM kerker_meta")) == {
        "app": "kerker-play",
        "schema": str(LATEST),
    }
    con.close()


def test_corrupt_foreign_and_newer_files_are_one_line(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"this is no database at all\n" * 100)
    with pytest.raises(StoreError) as err:
        open_store(junk)
    assert "not a kerker session database" in str(err.value) and "\n" not in str(err.value)
    foreign = tmp_path / "foreign.sqlite3"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE users (name TEXT)")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="not a kerker session database"):
        open_store(foreign)
    newer = tmp_path / "newer.sqlite3"
    open_store(newer).close()
    con = sqlite3.connect(newer)
    con.execute("UPDATE kerker_meta SET value = '999' WHERE key = 'schema'")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="newer kerker"):
        open_store(newer)
    folder = tmp_path / "a-folder"
    folder.mkdir()
    with pytest.raises(StoreError):
        open_store(folder)


def test_unreachable_postgres_is_one_line() -> None:
    with pytest.raises(StoreError) as err:
        open_store("postgresql://nobody:secret@127.0.0.1:1/none?connect_timeout=2")
    text = str(err.value)
    assert "cannot reach PostgreSQL" in text and "secret" not in text and "\n" not in text


WRITER = textwrap.dedent("""
    import sys
    from kerker.play.events import Event
    from kerker.play.session import SessionInfo
    from kerker.play.store import ConflictError, open_store

    url, sid, who, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    pool = int(sys.argv[5]) or None
    info = SessionInfo(sid, "zufallslabyrinth", 7, {}, "0.1.0", "d", player_token="t" + sid)
    store = open_store(url, pool=pool)
    seq = len(store.events(sid))
    done = 0
    while done < count:
        event = Event(seq + 1, "note", {"text": f"{who}-{done}", "depth": None, "area": None})
        try:
            store.append(info, event)
        except ConflictError as err:
            seq = err.seq
            continue
        seq += 1
        done += 1
        print(event.seq, flush=True)
    store.close()
""")


def _writer(
    url: str, sid: str, who: str, count: int, pool: int | None = None
) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, url, sid, who, str(count), str(pool or 0)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )


@pytest.mark.parametrize("pool", POOLS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_kill_9_loses_no_committed_event(backend: str, pool: int | None, tmp_path: Path) -> None:
    """A writer is killed with SIGKILL after a varying number of commits, 12 times over:
    every event it reported committed is in the store, and the log has no gap."""
    url = store_url(backend, tmp_path)
    with open_store(url) as store:
        store.create(SessionInfo("k9", "zufallslabyrinth", 7, {}, "0.1.0", "d", player_token="tk9"))
    reported: list[int] = []
    for round_ in range(12):
        proc = _writer(url, "k9", f"w{round_}", 10_000, pool)
        assert proc.stdout is not None
        for _n in range(3 + (round_ * 7) % 23):
            line = proc.stdout.readline()
            assert line, "the writer stopped by itself"
            reported.append(int(line))
        proc.send_signal(signal.SIGKILL)
        rest, _err = proc.communicate()
        reported += [int(x) for x in rest.split()]  # printed after commit, before the kill
        with open_store(url) as store:
            seqs = [e.seq for e in store.events("k9")]
        assert seqs == list(range(1, len(seqs) + 1))
        assert set(reported) <= set(seqs)


@pytest.mark.parametrize("pool", POOLS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_two_concurrent_writers_neither_duplicate_nor_drop(
    backend: str, pool: int | None, tmp_path: Path
) -> None:
    url = store_url(backend, tmp_path)
    with open_store(url) as store:
        store.create(SessionInfo("cc", "zufallslabyrinth", 7, {}, "0.1.0", "d", player_token="tcc"))
    count = 60
    procs = [_writer(url, "cc", who, count, pool) for who in ("a", "b")]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    with open_store(url) as store:
        events = store.events("cc")
    assert [e.seq for e in events] == list(range(1, 2 * count + 1))
    texts = sorted(e.data["text"] for e in events)
    assert texts == sorted(f"{w}-{i}" for w in "ab" for i in range(count))
    # each writer's reported seqs are its own events'
    for who, out in zip("ab", outs, strict=True):
        mine = {int(x) for x in out.split()}
        assert {e.seq for e in events if e.data["text"].startswith(who)} == mine
    assert json.loads(json.dumps([e.to_json() for e in events]))[0]["kind"] == "note"
