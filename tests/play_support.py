"""Shared helpers of the play tests: the store backends to run against.

SQLite always; PostgreSQL at ``KERKER_TEST_PG`` (``scripts/pg_ci.sh start`` sets it). Without
a reachable server the PostgreSQL cases skip locally and FAIL under ``CI=true``.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from kerker.play.store import Store, StoreError, open_store

PG_ENV = "KERKER_TEST_PG"


def pg_url() -> str:
    """The test server's URL, or skip (fail under CI) when there is none reachable."""
    url = os.environ.get(PG_ENV, "")
    problem = None
    if not url:
        problem = f"{PG_ENV} is not set (scripts/pg_ci.sh start sets it)"
    else:
        try:
            open_store(url).close()
        except StoreError as err:
            problem = str(err)
    if problem is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL needed under CI: {problem}")
        pytest.skip(problem)
    return url


def fresh_pg(url: str) -> str:
    """A URL of the test server with a schema of its own (search_path), so tests do not
    see each other's sessions."""
    import psycopg

    schema = "t_" + secrets.token_hex(6)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options=-csearch_path%3D{schema}"


BACKENDS = ("sqlite", "postgres")


def store_url(backend: str, tmp_path: Path) -> str:
    """A fresh, empty store of ``backend``."""
    if backend == "sqlite":
        return str(tmp_path / "sessions.sqlite3")
    return fresh_pg(pg_url())


def stores(backend: str, tmp_path: Path) -> Iterator[Store]:
    """A fresh store, closed after the test."""
    store = open_store(store_url(backend, tmp_path))
    try:
        yield store
    finally:
        store.close()
