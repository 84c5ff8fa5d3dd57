"""Sessions in PostgreSQL through psycopg 3 (binary wheel: no system libpq), for several
app instances on one database. Appends run in a transaction under the ``(session, seq)``
primary key; a second writer's ``UPDATE ... WHERE seq = expected`` waits for the first and
then finds the sequence moved on (a :class:`~kerker.play.store.base.ConflictError`).

With ``pool`` a store keeps a :mod:`psycopg_pool` pool of connections that any thread may
use, a transaction at a time per connection (the web app: no new PostgreSQL backend per
request); without, one connection for one thread (the CLI)."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from kerker.errors import N_
from kerker.play.events import Event
from kerker.play.session import SessionInfo
from kerker.play.store.base import BusyError, Store, StoreError, _event_data
from kerker.play.store.migrations import APP, LATEST

CONNECT_TIMEOUT = 10
MIGRATION_LOCK = 0x6B65726B
"""The advisory lock key migrations hold ("kerk")."""
CHANNEL = "kerker_events"
"""The NOTIFY channel: every committed append sends the session's id on it."""
LISTEN_RETRY = 1.0
"""Seconds a listener waits before it reconnects after losing the server."""
POOL_WAIT = 10.0
"""Seconds a transaction waits for a free pooled connection before it is refused as busy
(:class:`~kerker.play.store.base.BusyError`: nothing written, try again)."""


_APPEND = (
    "WITH moved AS (UPDATE sessions SET seq = %s, fingerprint = %s, updated = %s "
    "WHERE id = %s AND seq = %s RETURNING id), "
    "added AS (INSERT INTO events (session, seq, kind, data, created) "
    "SELECT id, %s, %s, %s, %s FROM moved RETURNING session) "
    "SELECT pg_notify(%s, session) FROM added"
)
"""An append on an autocommit connection, as one statement (:meth:`PostgresStore.append`)."""


def _redacted(url: str) -> str:
    return re.sub(r"//([^:/@]+):[^@]*@", r"//\1:***@", url)


class PostgresStore(Store):
    """Sessions in the PostgreSQL database at ``url``."""

    mark = "%s"

    def __init__(self, url: str, pool: int | None = None) -> None:
        import psycopg

        self.where = _redacted(url)
        self._psycopg = psycopg
        self._local = threading.local()
        self._pool: Any = None
        try:
            self.conn = psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT)
        except (psycopg.Error, ValueError) as exc:
            raise StoreError(
                N_("cannot reach PostgreSQL at {where}: {reason}"),
                where=self.where,
                reason=(str(exc).strip().splitlines() or ["?"])[0],
            ) from None
        try:
            if not self._is_current():
                self.migrate()
        except BaseException:
            self.conn.close()
            raise
        if pool is not None:
            self.conn.close()
            self._pool = self._open_pool(url, max(1, pool))

    def _open_pool(self, url: str, size: int) -> Any:
        from psycopg_pool import ConnectionPool

        pool = ConnectionPool(
            url,
            min_size=1,
            max_size=size,
            # autocommit: a single read runs without BEGIN and COMMIT (two round trips fewer,
            # :meth:`_read`); writes still run in ``conn.transaction()`` blocks
            kwargs={"connect_timeout": CONNECT_TIMEOUT, "autocommit": True},
            open=False,
            name="kerker",
        )
        try:
            pool.open(wait=True, timeout=CONNECT_TIMEOUT)
        except self._psycopg.Error as exc:
            pool.close()
            raise StoreError(
                N_("cannot reach PostgreSQL at {where}: {reason}"),
                where=self.where,
                reason=(str(exc).strip().splitlines() or ["?"])[0],
            ) from None
        return pool

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        if self._pool is None:
            yield self.conn
            return
        from psycopg_pool import PoolTimeout

        try:
            conn = self._pool.getconn(timeout=POOL_WAIT)
        except PoolTimeout:
            raise BusyError(
                N_("database {where} is busy with other writers; nothing was written, try again"),
                where=self.where,
            ) from None
        except self._psycopg.Error as exc:
            raise self.fail(exc) from None
        try:
            yield conn
        finally:
            self._pool.putconn(conn)  # checked and reset (or replaced) by the pool

    def _is_current(self) -> bool:
        """Whether the database is a kerker store at exactly this kerker's schema: then
        there is nothing to migrate and the advisory lock and catalogue look-ups of
        :meth:`migrate` are skipped (one short query instead; measured: opening a store
        41 -> 15 ms). Anything else (no tables, another app, another schema) goes to
        :meth:`migrate`, which decides and refuses as before."""
        psycopg = self._psycopg
        try:
            with self.conn.transaction(), self.conn.cursor() as cur:
                cur.execute("SELECT key, value FROM kerker_meta WHERE key IN ('app', 'schema')")
                meta = {str(k): str(v) for k, v in cur.fetchall()}
        except psycopg.Error:
            return False
        return meta == {"app": APP, "schema": str(LATEST)}

    @contextmanager
    def transaction(self, write: bool = True) -> Iterator[Any]:
        """A cursor in one transaction (committed on success, rolled back on error) on this
        store's connection or a pooled one."""
        psycopg = self._psycopg
        notify: str | None = getattr(self._local, "notify", None)
        self._local.notify = None
        try:
            with self._connection() as conn, conn.transaction(), conn.cursor() as cur:
                yield cur
                if notify is not None:
                    # in the append's own transaction: delivered exactly when it commits
                    cur.execute("SELECT pg_notify(%s, %s)", (CHANNEL, notify))
        except StoreError:
            raise
        except psycopg.errors.IntegrityError:
            raise
        except psycopg.Error as exc:
            raise self.fail(exc) from None

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """One read-only statement: on a pooled connection (autocommit) without ``BEGIN``
        and ``COMMIT`` (a single statement sees one snapshot), else in a transaction."""
        if self._pool is None:
            return super()._read(sql, params)
        psycopg = self._psycopg
        try:
            with self._connection() as conn, conn.cursor() as cur:
                cur.execute(self._sql(sql), tuple(params))
                return list(cur.fetchall())
        except StoreError:
            raise
        except psycopg.Error as exc:
            raise self.fail(exc) from None

    def append(self, info: SessionInfo, event: Event) -> None:
        """As :meth:`Store.append`, and the same transaction sends ``NOTIFY kerker_events``
        with the session's id, so listeners of every instance (:func:`listen`) learn of
        it when, and only when, the event is committed. A conflict notifies nothing.

        On a pooled connection (autocommit) it is one statement, so one round trip and its
        own transaction: the ``UPDATE ... WHERE seq = expected`` (a second writer waits for
        the first's row lock and then finds the sequence moved on), the ``INSERT`` of the
        event from the row it updated, and ``pg_notify`` for the row inserted; nothing
        updated means nothing inserted or notified (a conflict)."""
        if self._pool is None:
            self._local.notify = info.id  # read (and cleared) by the append's transaction
            try:
                super().append(info, event)
            finally:
                self._local.notify = None
            return
        expected = event.seq - 1
        psycopg = self._psycopg
        try:
            with self._connection() as conn, conn.cursor() as cur:
                cur.execute(
                    _APPEND,
                    (
                        event.seq,
                        info.fingerprint,
                        info.updated,
                        info.id,
                        expected,
                        event.seq,
                        event.kind,
                        _event_data(event),
                        info.updated,
                        CHANNEL,
                    ),
                )
                done = cur.fetchall()
        except StoreError:
            raise
        except psycopg.errors.IntegrityError:
            raise self._conflict(info.id, expected) from None
        except psycopg.Error as exc:
            raise self.fail(exc) from None
        if len(done) != 1:
            raise self._conflict(info.id, expected)

    def _lock(self, cur: Any) -> None:
        cur.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))

    def _tables(self, cur: Any) -> set[str]:
        cur.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        )
        return {str(r[0]) for r in cur.fetchall()}

    def is_clash(self, exc: BaseException) -> bool:
        """A primary-key or unique clash."""
        return isinstance(exc, self._psycopg.errors.IntegrityError)

    def fail(self, exc: BaseException) -> StoreError:
        """A one-line error naming the server."""
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return StoreError(N_("database {where}: {reason}"), where=self.where, reason=reason)

    def close(self) -> None:
        """Close the connection (or the pool and its connections)."""
        if self._pool is not None:
            self._pool.close()
        else:
            self.conn.close()


def listen(url: str, changed: Callable[[str | None], None], stop: threading.Event) -> None:
    """Block until ``stop`` is set, calling ``changed(session_id)`` for every append
    committed to the database at ``url`` (by any process), and ``changed(None)`` whenever
    notifications may have been missed (after connecting, after losing the server): the
    caller then looks at everything it waits for. Reconnects every
    :data:`LISTEN_RETRY` seconds while the server is unreachable; never raises for a
    database error."""
    import psycopg

    while not stop.is_set():
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT) as conn:
                conn.execute(f"LISTEN {CHANNEL}")
                changed(None)
                while not stop.is_set():
                    for note in conn.notifies(timeout=LISTEN_RETRY):
                        changed(note.payload)
        except (psycopg.Error, ValueError, OSError):
            changed(None)
            stop.wait(LISTEN_RETRY)
