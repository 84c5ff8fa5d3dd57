"""Where sessions live: one database, SQLite by default, PostgreSQL for several instances.

:func:`open_store` takes a URL (``sqlite:///path``, a plain path, or ``postgresql://...``);
the library reads no environment (the CLI reads ``KERKER_DB`` and passes it in). Both
backends keep the same numbered schema (:mod:`kerker.play.store.migrations`), append events
in a transaction under a ``(session, seq)`` primary key, and turn every database failure
into a one-line :class:`StoreError`.
"""

from __future__ import annotations

from pathlib import Path

from kerker.errors import N_
from kerker.play.store.base import BusyError, ConflictError, Store, StoreError

__all__ = ["BusyError", "ConflictError", "Store", "StoreError", "default_path", "open_store"]


def default_path() -> Path:
    """The SQLite file in the user's data folder (platformdirs; not created here)."""
    from platformdirs import user_data_path

    return user_data_path("kerker", appauthor=False) / "sessions.sqlite3"


def open_store(
    url: str | Path | None = None, *, pool: int | None = None, group: bool = False
) -> Store:
    """The store at ``url``: ``postgresql://`` (or ``postgres://``) opens PostgreSQL through
    psycopg 3, ``sqlite:///PATH`` or a path a SQLite file (created with its folder on
    first use; ``sqlite:///PATH?synchronous=normal`` commits without waiting for the disk,
    see :data:`~kerker.play.store.sqlite.SYNCHRONOUS`); None the default file
    (:func:`default_path`).

    ``pool``: PostgreSQL keeps a pool of up to that many connections that any thread may
    use (the web app; None: one connection, for one thread). A SQLite store always gives
    each thread its own connection. ``group``: a SQLite file at ``synchronous=full``
    commits in groups (:class:`~kerker.play.store.sqlite.WalSync`: as durable, one
    ``fsync`` for the commits waiting at once; the web app)."""
    text = str(url) if url is not None else ""
    if text.startswith(("postgresql://", "postgres://")):
        from kerker.play.store.postgres import PostgresStore

        return PostgresStore(text, pool=pool)
    from kerker.play.store.sqlite import SqliteStore

    if not text:
        return SqliteStore(default_path(), group=group)
    synchronous = "full"
    if text.startswith("sqlite://"):
        text = text.removeprefix("sqlite://")
        text = text.removeprefix("/") if text.startswith("//") else text
        text, _, query = text.partition("?")
        for part in filter(None, query.split("&")):
            name, _, value = part.partition("=")
            if name != "synchronous":
                raise StoreError(
                    N_("unknown SQLite option {name!r} (known: synchronous)"), name=name[:40]
                )
            synchronous = value.lower()
    return SqliteStore(Path(text), synchronous=synchronous, group=group)
