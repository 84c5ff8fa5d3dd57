"""Group commit of the web app's SQLite store (kerker.play.store.sqlite.WalSync): commits
are written at synchronous=NORMAL and made durable by one thread's fsync of the WAL file
before anyone is told of them; commits waiting at once share one fsync; a failed fsync
fails the commits waiting for it; the command line's store stays at synchronous=FULL.

No wall-clock assertion: a slow fsync is simulated to make commits overlap.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from kerker.play.events import Event
from kerker.play.session import new_info
from kerker.play.store import StoreError, open_store
from kerker.play.store import sqlite as sqlite_store


def _infos(store: Any, count: int) -> list[Any]:
    infos = [
        new_info(f"g{n:05d}", "zufallslabyrinth", n, {}, player_token=f"token-{n:04d}")
        for n in range(count)
    ]
    for info in infos:
        store.create(info)
    return infos


def test_the_command_lines_store_waits_for_the_disk_itself(tmp_path: Path) -> None:
    with open_store(tmp_path / "cli.sqlite3") as store:
        assert store.group is None
        assert store.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    with open_store(tmp_path / "web.sqlite3", group=True) as store:
        assert store.group is not None
        assert store.conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    # asked for normal, or in memory: no group (nothing to wait for)
    with open_store(f"sqlite:///{tmp_path}/n.sqlite3?synchronous=normal", group=True) as store:
        assert store.group is None


def test_every_commit_is_synced_before_its_write_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        real(fd)
        synced.append(os.fstat(fd).st_size)

    monkeypatch.setattr(sqlite_store.os, "fsync", fsync)
    path = tmp_path / "s.sqlite3"
    with open_store(path, group=True) as store:
        info = _infos(store, 1)[0]
        group = store.group
        assert group is not None
        for seq in range(1, 6):
            store.append(info, Event(seq, "note", {"text": f"n{seq}"}))
            # told only now: the WAL as long as it is now was synced
            assert group.done == group.asked
            assert synced and synced[-1] >= Path(str(path) + "-wal").stat().st_size


def test_commits_waiting_at_once_share_one_fsync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.fsync

    def slow(fd: int) -> None:  # a slow disk: the other writers commit meanwhile
        time.sleep(0.02)
        real(fd)

    monkeypatch.setattr(sqlite_store.os, "fsync", slow)
    threads, steps = 8, 5
    with open_store(tmp_path / "s.sqlite3", group=True) as store:
        infos = _infos(store, threads)
        group = store.group
        assert group is not None
        before_asked, before_syncs = group.asked, group.syncs
        start = threading.Barrier(threads)
        failures: list[BaseException] = []

        def write(n: int) -> None:
            try:
                start.wait()
                for seq in range(1, steps + 1):
                    store.append(infos[n], Event(seq, "note", {"text": f"{n}/{seq}"}))
            except BaseException as exc:  # reported below
                failures.append(exc)

        workers = [threading.Thread(target=write, args=(n,)) for n in range(threads)]
        for t in workers:
            t.start()
        for t in workers:
            t.join()
        assert not failures
        commits = group.asked - before_asked
        assert commits == threads * steps
        assert group.done == group.asked
        assert group.syncs - before_syncs < commits  # shared
        for n, info in enumerate(infos):
            assert [e.data["text"] for e in store.events(info.id)] == [
                f"{n}/{s}" for s in range(1, steps + 1)
            ]


def test_a_failed_fsync_fails_the_commit_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(fd: int) -> None:
        raise OSError(5, "Input/output error")

    path = tmp_path / "s.sqlite3"
    sqlite_store._SYNCS.pop(str(path.resolve()), None)
    with open_store(path, group=True) as store:
        info = _infos(store, 1)[0]
        monkeypatch.setattr(sqlite_store.os, "fsync", broken)
        with pytest.raises(StoreError) as got:
            store.append(info, Event(1, "note", {"text": "lost?"}))
        assert "Input/output error" in str(got.value) and "\n" not in str(got.value)
    sqlite_store._SYNCS.pop(str(path.resolve()), None)


def test_a_web_step_is_answered_after_its_commit_is_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kerker.web import create_app

    real = os.fsync
    answered: list[tuple[int, int]] = []

    def slow(fd: int) -> None:
        time.sleep(0.01)
        real(fd)

    monkeypatch.setattr(sqlite_store.os, "fsync", slow)
    with TestClient(create_app(tmp_path / "web.sqlite3")) as client:
        made = client.post("/api/sessions", json={"seed": 7}).json()
        gm = {"X-Kerker-GM": made["gm_token"]}
        group = sqlite_store._SYNCS[str((tmp_path / "web.sqlite3").resolve())]
        for _n in range(5):
            got = client.post(
                f"/api/sessions/{made['session']}/open", json={"exit": "next"}, headers=gm
            )
            assert got.status_code == 200, got.text
            answered.append((group.done, group.asked))
    assert all(done == asked for done, asked in answered), answered
