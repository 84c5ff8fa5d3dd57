"""Where sessions live: one database, SQLite by default, PostgreSQL for several instances.

:func:`open_store` takes a URL (``sqlite:///path``, a plain path, or ``postgresql://...``);
the library reads no environment (the CLI reads ``KERKER_DB`` and passes it in). Both
backends keep the same numbered schema (:mod:`kerker.play.store.migrations`), append events
in a transaction under a ``(session, seq)`` primary key, and turn every database failure
into a one-line :class:`StoreError`.
"""

from __future__ import annotations

from pathlib import Path

from kerker.play.store.base import BusyError, ConflictError, Store, StoreError

__all__ = ["BusyError", "ConflictError", "Store", "StoreError", "default_path", "open_store"]


def default_path() -> Path:
    """The SQLite file in the user's data folder (platformdirs; not created here)."""
    from platformdirs import user_data_path

    return user_data_path("kerker", appauthor=False) / "sessions.sqlite3"


def open_store(url: str | Path | None = None) -> Store:
    """The store at ``url``: ``postgresql://`` (or ``postgres://``) opens PostgreSQL through
    psycopg 3, ``sqlite:///PATH`` or a path a SQLite file (created with its folder on
    first use); None the default file (:func:`default_path`)."""
    text = str(url) if url is not None else ""
    if text.startswith(("postgresql://", "postgres://")):
        from kerker.play.store.postgres import PostgresStore

        return PostgresStore(text)
    from kerker.play.store.sqlite import SqliteStore

    if not text:
        return SqliteStore(default_path())
    if text.startswith("sqlite://"):
        text = text.removeprefix("sqlite://")
        text = text.removeprefix("/") if text.startswith("//") else text
    return SqliteStore(Path(text))
