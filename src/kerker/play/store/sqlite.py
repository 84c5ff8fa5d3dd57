"""The default store: one SQLite file (stdlib ``sqlite3``), WAL journal, a busy timeout so
that a second process waits for the first instead of failing, explicit transactions
(``BEGIN IMMEDIATE`` for writes: a writer takes the lock before it reads what it checks;
a plain ``BEGIN`` for reads, which in WAL mode neither wait for writers nor hold them up).

One store may be used from several threads: each thread gets a connection of its own,
opened on its first use and kept until :meth:`SqliteStore.close` (the web app's worker
threads reuse theirs from request to request). ``:memory:`` keeps one connection.
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kerker.errors import N_
from kerker.play.store.base import BusyError, Store, StoreError
from kerker.play.store.migrations import APP, LATEST

BUSY_MS = 10_000
"""How long a writer waits for another's lock before it gives up (one-line error)."""
_WRITERS: dict[str, threading.RLock] = {}
_WRITERS_LOCK = threading.Lock()
"""One lock per database file for the write transactions of this process: its threads
queue on it instead of in SQLite's busy handler, which sleeps in growing steps and lets
late comers in first (measured: with 50 writers in one process p99 10 s and some
"database is busy" answers; other processes still meet the busy handler)."""


def _writer_lock(path: Path) -> threading.RLock:
    key = str(path) if str(path) == ":memory:" else str(path.resolve())
    with _WRITERS_LOCK:
        return _WRITERS.setdefault(key, threading.RLock())


SYNCHRONOUS = ("full", "normal")
"""What ``?synchronous=`` may say: ``full`` (the default) waits for the disk at every
commit; ``normal`` (WAL) only at checkpoints, so a commit survives the process being
killed but the last ones may be lost if the machine loses power (docs/web.md)."""


class SqliteStore(Store):
    """Sessions in the SQLite file ``path`` (made with its folder on first use);
    ``synchronous`` one of :data:`SYNCHRONOUS`."""

    mark = "?"

    def __init__(self, path: Path, synchronous: str = "full") -> None:
        if synchronous not in SYNCHRONOUS:
            raise StoreError(
                N_("synchronous takes {choices}, not {text!r}"),
                choices=", ".join(SYNCHRONOUS),
                text=synchronous[:20],
            )
        self.path = path
        self.where = str(path)
        self.synchronous = synchronous
        self._local = threading.local()
        self._conns_lock = threading.Lock()
        self._conns: list[tuple[Callable[[], threading.Thread | None], sqlite3.Connection]] = []
        """Every open connection with (a weak reference to) the thread it is for: a thread
        that ended (the server's pool retires idle worker threads) leaves its connection
        here, and the next new connection closes it, so the files open stay bounded by the
        threads alive."""
        self._shared = str(path) == ":memory:"
        """One connection for every thread (an in-memory database is one connection's)."""
        self._writer = threading.RLock() if self._shared else _writer_lock(path)
        self._closed = False
        try:
            if not self._shared:
                path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                N_("cannot open {where}: {reason}"), where=self.where, reason=str(exc)
            ) from None
        conn = self._connect()
        try:
            if not self._is_current(conn):
                self.migrate()
        except StoreError:
            self.close()
            raise
        except sqlite3.Error as exc:
            self.close()
            raise self.fail(exc) from None

    def _connect(self) -> sqlite3.Connection:
        """This thread's new connection, with the store's pragmas."""
        try:
            conn = sqlite3.connect(
                self.path, isolation_level=None, timeout=BUSY_MS / 1000, check_same_thread=False
            )
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(
                N_("cannot open {where}: {reason}"), where=self.where, reason=str(exc)
            ) from None
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute(f"PRAGMA synchronous = {self.synchronous.upper()}")
            conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as exc:
            conn.close()
            raise self.fail(exc) from None
        with self._conns_lock:
            alive = []
            for owner, other in self._conns:
                thread = owner()
                if self._shared or (thread is not None and thread.is_alive()):
                    alive.append((owner, other))
                else:
                    other.close()  # its thread ended: nothing can use it any more
            alive.append((weakref.ref(threading.current_thread()), conn))
            self._conns = alive
        if self._shared:
            self._one = conn
        else:
            self._local.conn = conn
        return conn

    @property
    def conn(self) -> sqlite3.Connection:
        """The calling thread's connection (opened on its first use)."""
        if self._shared:
            return self._one
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            if self._closed:
                raise StoreError(
                    N_("database {where}: {reason}"), where=self.where, reason="closed"
                )
            conn = self._connect()
        return conn

    @staticmethod
    def _is_current(conn: sqlite3.Connection) -> bool:
        """Whether the file is a kerker store at exactly this kerker's schema (then the
        write-locking :meth:`migrate` is skipped; anything else goes to it, which decides
        and refuses as before)."""
        try:
            rows = conn.execute(
                "SELECT key, value FROM kerker_meta WHERE key IN ('app', 'schema')"
            ).fetchall()
        except sqlite3.Error:
            return False
        return {str(k): str(v) for k, v in rows} == {"app": APP, "schema": str(LATEST)}

    @contextmanager
    def transaction(self, write: bool = True) -> Iterator[Any]:
        """A cursor in ``BEGIN IMMEDIATE`` (``write``: after this process's other writers
        of the file, in turn) or ``BEGIN`` ... ``COMMIT`` (rolled back on any error)."""
        if not write:
            with self._transaction("BEGIN") as cur:
                yield cur
            return
        if not self._writer.acquire(timeout=BUSY_MS / 1000):
            raise BusyError(
                N_("database {where} is busy with other writers; nothing was written, try again"),
                where=self.where,
            )
        try:
            with self._transaction("BEGIN IMMEDIATE") as cur:
                yield cur
        finally:
            self._writer.release()

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """One read-only statement without ``BEGIN``/``COMMIT``: in autocommit mode SQLite
        runs a single statement in a read transaction of its own (one snapshot; in WAL mode
        it neither waits for writers nor holds them up)."""
        try:
            return self.conn.execute(sql, tuple(params)).fetchall()
        except sqlite3.Error as exc:
            raise self.fail(exc) from None

    @contextmanager
    def _transaction(self, begin: str) -> Iterator[Any]:
        conn = self.conn
        try:
            cur = conn.cursor()
        except sqlite3.Error as exc:  # a closed store
            raise self.fail(exc) from None
        try:
            cur.execute(begin)
        except sqlite3.Error as exc:
            cur.close()
            raise self.fail(exc) from None
        try:
            yield cur
        except BaseException:
            conn.rollback()
            raise
        else:
            try:
                cur.execute("COMMIT")
            except sqlite3.Error as exc:
                conn.rollback()
                raise self.fail(exc) from None
        finally:
            cur.close()

    def _tables(self, cur: Any) -> set[str]:
        cur.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {str(r[0]) for r in cur.fetchall()}

    def is_clash(self, exc: BaseException) -> bool:
        """A primary-key or unique clash."""
        return isinstance(exc, sqlite3.IntegrityError)

    def fail(self, exc: BaseException) -> StoreError:
        """A one-line error naming the file."""
        if isinstance(exc, sqlite3.DatabaseError) and "not a database" in str(exc):
            return StoreError(N_("{where} is not a kerker session database"), where=self.where)
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
            return BusyError(
                N_("database {where} is busy with other writers; nothing was written, try again"),
                where=self.where,
            )
        return StoreError(
            N_("database {where}: {reason}"),
            where=self.where,
            reason=str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
        )

    def close(self) -> None:
        """Close the file (every thread's connection)."""
        with self._conns_lock:
            self._closed = True
            conns, self._conns = self._conns, []
        for _owner, conn in conns:
            conn.close()
