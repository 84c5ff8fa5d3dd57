"""One store shared by many threads (the web app's, issue 14): SQLite gives each thread its
own connection and lets one process's writers in one at a time, PostgreSQL lends pooled
connections; concurrent appends of many threads lose and double nothing, and a pooled
append still notifies. SQLite URL options are checked in one line."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from play_support import BACKENDS, store_url

from kerker.play.events import Event
from kerker.play.session import new_info
from kerker.play.store import StoreError, open_store

THREADS = 8
STEPS = 6


@pytest.mark.parametrize("backend", BACKENDS)
def test_many_threads_append_through_one_store(backend: str, tmp_path: Path) -> None:
    url = store_url(backend, tmp_path)
    with open_store(url, pool=4) as store:
        infos = [
            new_info(f"t{n:05d}", "zufallslabyrinth", n, {}, player_token=f"token-{n:04d}")
            for n in range(THREADS)
        ]
        for info in infos:
            store.create(info)
        start = threading.Barrier(THREADS)
        failures: list[BaseException] = []

        def write(n: int) -> None:
            try:
                start.wait()
                for seq in range(1, STEPS + 1):
                    store.append(infos[n], Event(seq, "note", {"text": f"{n}/{seq}"}))
                    assert store.head(infos[n].id)[1] == seq
            except BaseException as exc:  # reported below
                failures.append(exc)

        threads = [threading.Thread(target=write, args=(n,)) for n in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not failures
        for n, info in enumerate(infos):
            events = store.events(info.id)
            assert [e.data["text"] for e in events] == [f"{n}/{s}" for s in range(1, STEPS + 1)]
            assert [e.seq for e in store.events(info.id, after=2, upto=4)] == [3, 4]


def test_sqlite_url_options(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with open_store(f"sqlite:///{path}?synchronous=normal") as store:
        assert store.conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    with open_store(f"sqlite:///{path}") as store:
        assert store.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    with pytest.raises(StoreError, match="unknown SQLite option 'fsync'"):
        open_store(f"sqlite:///{path}?fsync=off")
    with pytest.raises(StoreError, match="synchronous takes full, normal"):
        open_store(f"sqlite:///{path}?synchronous=off")


def test_a_closed_sqlite_store_is_one_line(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite3")
    store.close()
    with pytest.raises(StoreError) as err:
        store.sessions()
    assert "\n" not in str(err.value)
    assert not isinstance(err.value.__cause__, sqlite3.Error)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts open files in /proc")
def test_connections_of_ended_threads_are_closed(tmp_path: Path) -> None:
    """The server's thread pool retires idle worker threads and starts new ones: each
    opens its own connection, and a connection of a thread that ended must not stay open
    (it did: 3 files per thread, ~10 000 open files after a few thousand test requests)."""
    with open_store(tmp_path / "s.sqlite3") as store:

        def read() -> None:
            store.sessions()

        def files() -> int:
            return len(list(Path("/proc/self/fd").iterdir()))

        for _ in range(3):  # the first threads open the WAL files once
            worker = threading.Thread(target=read)
            worker.start()
            worker.join()
        before = files()
        for _ in range(60):
            worker = threading.Thread(target=read)
            worker.start()
            worker.join()
        assert files() <= before + 3  # at most the last thread's connection more
        alive = threading.Thread(target=read)
        alive.start()
        alive.join()
        store.sessions()  # this thread's connection still works
