"""Sessions in PostgreSQL through psycopg 3 (binary wheel: no system libpq), for several
app instances on one database. Appends run in a transaction under the ``(session, seq)``
primary key; a second writer's ``UPDATE ... WHERE seq = expected`` waits for the first and
then finds the sequence moved on (a :class:`~kerker.play.store.base.ConflictError`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kerker.errors import N_
from kerker.play.store.base import Store, StoreError

CONNECT_TIMEOUT = 10
MIGRATION_LOCK = 0x6B65726B
"""The advisory lock key migrations hold ("kerk")."""


def _redacted(url: str) -> str:
    return re.sub(r"//([^:/@]+):[^@]*@", r"//\1:***@", url)


class PostgresStore(Store):
    """Sessions in the PostgreSQL database at ``url``."""

    mark = "%s"

    def __init__(self, url: str) -> None:
        import psycopg

        self.where = _redacted(url)
        self._psycopg = psycopg
        try:
            self.conn = psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT)
        except (psycopg.Error, ValueError) as exc:
            raise StoreError(N_("cannot reach PostgreSQL at {where}: {reason}"),
                             where=self.where,
                             reason=(str(exc).strip().splitlines() or ["?"])[0]) from None
        try:
            self.migrate()
        except BaseException:
            self.conn.close()
            raise

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """A cursor in one transaction (committed on success, rolled back on error)."""
        psycopg = self._psycopg
        try:
            with self.conn.transaction(), self.conn.cursor() as cur:
                yield cur
        except StoreError:
            raise
        except psycopg.errors.IntegrityError:
            raise
        except psycopg.Error as exc:
            raise self.fail(exc) from None

    def _lock(self, cur: Any) -> None:
        cur.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))

    def _tables(self, cur: Any) -> set[str]:
        cur.execute("SELECT table_name FROM information_schema.tables "
                    "WHERE table_schema = current_schema()")
        return {str(r[0]) for r in cur.fetchall()}

    def is_clash(self, exc: BaseException) -> bool:
        """A primary-key or unique clash."""
        return isinstance(exc, self._psycopg.errors.IntegrityError)

    def fail(self, exc: BaseException) -> StoreError:
        """A one-line error naming the server."""
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return StoreError(N_("database {where}: {reason}"), where=self.where, reason=reason)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()
