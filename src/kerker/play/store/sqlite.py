"""The default store: one SQLite file (stdlib ``sqlite3``), WAL journal, a busy timeout so
that a second process waits for the first instead of failing, explicit transactions
(``BEGIN IMMEDIATE``: a writer takes the lock before it reads what it checks)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kerker.errors import N_
from kerker.play.store.base import BusyError, Store, StoreError

BUSY_MS = 10_000
"""How long a writer waits for another's lock before it gives up (one-line error)."""


class SqliteStore(Store):
    """Sessions in the SQLite file ``path`` (made with its folder on first use)."""

    mark = "?"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.where = str(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(
                path, isolation_level=None, timeout=BUSY_MS / 1000, check_same_thread=False
            )
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(
                N_("cannot open {where}: {reason}"), where=self.where, reason=str(exc)
            ) from None
        try:
            self.conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
            self.conn.execute("PRAGMA journal_mode = WAL")
            self.conn.execute("PRAGMA synchronous = FULL")
            self.conn.execute("PRAGMA foreign_keys = ON")
            self.migrate()
        except StoreError:
            self.conn.close()
            raise
        except sqlite3.Error as exc:
            self.conn.close()
            raise self.fail(exc) from None

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """A cursor in ``BEGIN IMMEDIATE`` ... ``COMMIT`` (rolled back on any error)."""
        cur = self.conn.cursor()
        try:
            cur.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self.fail(exc) from None
        try:
            yield cur
        except BaseException:
            self.conn.rollback()
            raise
        else:
            try:
                cur.execute("COMMIT")
            except sqlite3.Error as exc:
                self.conn.rollback()
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
        """Close the file."""
        self.conn.close()
