"""The default store: one SQLite file (stdlib ``sqlite3``), WAL journal, a busy timeout so
that a second process waits for the first instead of failing, explicit transactions
(``BEGIN IMMEDIATE`` for writes: a writer takes the lock before it reads what it checks;
a plain ``BEGIN`` for reads, which in WAL mode neither wait for writers nor hold them up).

One store may be used from several threads: each thread gets a connection of its own,
opened on its first use and kept until :meth:`SqliteStore.close` (the web app's worker
threads reuse theirs from request to request). ``:memory:`` keeps one connection.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from kerker.errors import N_

try:
    import fcntl
except ImportError:  # not a POSIX system: SQLite's own locking alone
    fcntl = None  # type: ignore[assignment]
from kerker.play.store.base import BusyError, Store, StoreError
from kerker.play.store.migrations import APP, LATEST

BUSY_MS = 10_000
"""How long a writer waits for another's lock before it gives up (one-line error)."""
_WRITERS: dict[str, _Writer] = {}
_WRITERS_LOCK = threading.Lock()


class _Writer:
    """The turn of this process's write transactions on one database file, and of every
    process's: a lock for its threads, and an ``flock`` on ``<file>-writer.lock`` beside it
    for the other processes (``kerker serve --workers N``, a CLI beside a server).

    Writers queue here instead of in SQLite's busy handler, which sleeps in growing steps
    (1, 2, 5, 10 ... 100 ms) and lets late comers in first (measured: with 50 writers in one
    process p99 10 s and some "database is busy" answers; two worker processes on one file
    lost a tenth of their throughput to it). The file lock is looked at every 50 to 200 µs
    (a commit holds it for a few tenths of a millisecond), at most :data:`BUSY_MS`; where
    the lock file cannot be made (a read-only folder), SQLite's own locking alone keeps the
    writers apart."""

    def __init__(self, path: str | None) -> None:
        self.lock = threading.RLock()
        self.depth = 0
        self.path = path
        self.fd: int | None = None
        self.pid = 0

    def _file(self) -> int | None:
        """The lock file, opened once per process (a forked child opens its own: an
        ``flock`` is shared by the descriptors of one opening)."""
        if self.path is None or fcntl is None:
            return None
        if self.pid != os.getpid():
            self.pid = os.getpid()
            try:
                self.fd = os.open(self.path + "-writer.lock", os.O_RDWR | os.O_CREAT, 0o600)
            except OSError:
                self.fd = None
        return self.fd

    def acquire(self, timeout: float) -> bool:
        """Take the turn (re-entrant in one thread); False when ``timeout`` seconds passed."""
        deadline = time.monotonic() + timeout
        if not self.lock.acquire(timeout=timeout):
            return False
        fd = self._file() if self.depth == 0 else None
        if fd is not None:
            wait = 0.00005
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        self.lock.release()
                        return False
                    time.sleep(wait)
                    wait = min(wait * 2, 0.0002)
                except OSError:
                    break  # a file system without flock: SQLite's locking alone
        self.depth += 1
        return True

    def release(self) -> None:
        """Give the turn back."""
        self.depth -= 1
        if self.depth == 0 and self.fd is not None and fcntl is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self.fd, fcntl.LOCK_UN)
        self.lock.release()


_SYNCS: dict[str, WalSync] = {}


def _wal_sync(path: Path) -> WalSync:
    """The one :class:`WalSync` of this process for the file ``path``."""
    key = str(path.resolve())
    with _WRITERS_LOCK:
        found = _SYNCS.get(key)
        if found is None:
            found = _SYNCS[key] = WalSync(key + "-wal")
        return found


def _writer_lock(path: Path) -> _Writer:
    key = str(path) if str(path) == ":memory:" else str(path.resolve())
    with _WRITERS_LOCK:
        found = _WRITERS.get(key)
        if found is None:
            found = _WRITERS[key] = _Writer(None if key == ":memory:" else key)
        return found


SYNCHRONOUS = ("full", "normal")
"""What ``?synchronous=`` may say: ``full`` (the default) waits for the disk at every
commit; ``normal`` (WAL) only at checkpoints, so a commit survives the process being
killed but the last ones may be lost if the machine loses power (docs/web.md)."""

DEFERRED: ContextVar[list[int] | None] = ContextVar("kerker_deferred_syncs", default=None)
"""Set to a list by a caller that waits for the disk itself (:meth:`WalSync.wait_async`):
a write transaction of a grouped store then puts its ticket there instead of waiting."""


class WalSync:
    """Group commit for one SQLite file in this process: commits are written with
    ``synchronous=NORMAL`` and made durable by one thread that syncs (``fsync``) the WAL file for
    every commit that came before it began, so commits waiting at once share one ``fsync``
    and the committing thread goes on meanwhile.

    A commit takes a :meth:`ticket` after its ``COMMIT`` returned (its frames are written to
    the WAL); it is durable once :attr:`done` reaches the ticket. A write transaction of the
    store waits for that before it returns (:meth:`wait`), unless its caller waits itself
    (:data:`DEFERRED`, the web app's steps: the answer is sent only after it). As durable as
    ``synchronous=FULL`` for every commit a caller was told of: a checkpoint in between
    copies the frames into the database file and syncs it first; the WAL is synced as a
    file, whatever SQLite wrote into it. A failed ``fsync`` fails every commit waiting for
    it (one line, nothing claimed to be stored)."""

    def __init__(self, wal: str) -> None:
        self.wal = wal
        self.asked = 0
        self.done = 0
        self.failed: str | None = None
        self.syncs = 0
        """How many ``fsync`` calls were made (for tests and the bench)."""
        self._cond = threading.Condition()
        self._waiters: list[tuple[int, Any, Any]] = []
        self._thread: threading.Thread | None = None

    def ticket(self) -> int:
        """A ticket for everything committed so far (the syncing thread is woken)."""
        with self._cond:
            self.asked += 1
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="kerker-wal-sync", daemon=True
                )
                self._thread.start()
            self._cond.notify_all()
            return self.asked

    def wait(self, ticket: int) -> None:
        """Block until ``ticket`` is durable; a failed sync raises :class:`StoreError`."""
        with self._cond:
            while self.done < ticket and self.failed is None:
                self._cond.wait(timeout=BUSY_MS / 1000)
            self._check(ticket)

    async def wait_async(self, ticket: int) -> None:
        """:meth:`wait` for an event loop (the loop goes on meanwhile)."""
        import asyncio

        loop = asyncio.get_running_loop()
        future = loop.create_future()
        with self._cond:
            if self.done >= ticket or self.failed is not None:
                self._check(ticket)
                return
            self._waiters.append((ticket, loop, future))
        await future
        with self._cond:
            self._check(ticket)

    def _check(self, ticket: int) -> None:
        if self.done < ticket and self.failed is not None:
            raise StoreError(N_("database {where}: {reason}"), where=self.wal, reason=self.failed)

    def _run(self) -> None:
        fd: int | None = None
        while True:
            with self._cond:
                while self.asked <= self.done:
                    self._cond.wait()
                target = self.asked
            try:
                fd = self._file(fd)
                os.fsync(fd)
                self.syncs += 1
                failed = None
            except OSError as exc:
                failed = exc.strerror or str(exc)
            with self._cond:
                if failed is None:
                    self.done = max(self.done, target)
                else:
                    self.failed = failed
                ready = [w for w in self._waiters if w[0] <= self.done or failed]
                self._waiters = [w for w in self._waiters if w not in ready]
                self._cond.notify_all()
            for _ticket, loop, future in ready:
                with contextlib.suppress(RuntimeError):  # a loop that has closed
                    loop.call_soon_threadsafe(_settle, future)
            if failed is not None:
                return

    def _file(self, fd: int | None) -> int:
        """The WAL file, opened anew when SQLite made a new one (another inode)."""
        if fd is not None:
            try:
                if os.fstat(fd).st_ino == os.stat(self.wal).st_ino:
                    return fd
            except OSError:
                pass
            os.close(fd)
        return os.open(self.wal, os.O_RDONLY)


def _settle(future: Any) -> None:
    if not future.done():
        future.set_result(None)


class SqliteStore(Store):
    """Sessions in the SQLite file ``path`` (made with its folder on first use);
    ``synchronous`` one of :data:`SYNCHRONOUS`."""

    mark = "?"

    def __init__(self, path: Path, synchronous: str = "full", group: bool = False) -> None:
        if synchronous not in SYNCHRONOUS:
            raise StoreError(
                N_("synchronous takes {choices}, not {text!r}"),
                choices=", ".join(SYNCHRONOUS),
                text=synchronous[:20],
            )
        self.path = path
        self.where = str(path)
        self.synchronous = synchronous
        self.group: WalSync | None = None
        """Group commit (``group`` and ``full``, not ``:memory:``): see :class:`WalSync`."""
        if group and synchronous == "full" and str(path) != ":memory:":
            self.group = _wal_sync(path)
        self._local = threading.local()
        self._conns_lock = threading.Lock()
        self._conns: list[tuple[Callable[[], threading.Thread | None], sqlite3.Connection]] = []
        """Every open connection with (a weak reference to) the thread it is for: a thread
        that ended (the server's pool retires idle worker threads) leaves its connection
        here, and the next new connection closes it, so the files open stay bounded by the
        threads alive."""
        self._shared = str(path) == ":memory:"
        """One connection for every thread (an in-memory database is one connection's)."""
        self._writer = _Writer(None) if self._shared else _writer_lock(path)
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
            level = "NORMAL" if self.group is not None else self.synchronous.upper()
            conn.execute(f"PRAGMA synchronous = {level}")
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
        outer = self._writer.depth == 1  # a nested write is made durable with its outer one
        try:
            with self._transaction("BEGIN IMMEDIATE") as cur:
                yield cur
        finally:
            self._writer.release()
        if self.group is not None and outer:
            ticket = self.group.ticket()
            deferred = DEFERRED.get()
            if deferred is not None:
                deferred.append(ticket)
            else:
                self.group.wait(ticket)

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
