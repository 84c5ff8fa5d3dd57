"""The schema, as numbered migrations; each database records the last one applied in
``kerker_meta`` (key ``schema``). Statements are plain SQL both SQLite and PostgreSQL read.

Seeds are stored as text (a seed goes up to 2**64 - 1, beyond a signed 64-bit integer).

1. sessions and their events.
2. ``referee`` and ``gm_token`` on sessions: play without a referee, and the game
   master's secret for the web GM pages (issue 14).
3. ``table_sets``: own table files by their digest (content-addressed; the web's dungeon
   page links a set as ``tables=<digest>``); ``texts`` is the JSON list
   ``[{"name", "text"}]``, capped as a session's own tables are
   (:func:`kerker.tables.owntexts.check_sizes`).
"""

from __future__ import annotations

APP = "kerker-play"
"""The ``kerker_meta`` value of key ``app`` that marks a database as ours."""

MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (
        1,
        (
            "CREATE TABLE kerker_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            "CREATE TABLE sessions ("
            " id TEXT PRIMARY KEY, name TEXT NOT NULL, rules TEXT NOT NULL, seed TEXT NOT NULL,"
            " options TEXT NOT NULL, kerker_version TEXT NOT NULL, rules_digest TEXT NOT NULL,"
            " player_token TEXT NOT NULL UNIQUE, fingerprint TEXT NOT NULL,"
            " created TEXT NOT NULL, updated TEXT NOT NULL, seq INTEGER NOT NULL DEFAULT 0)",
            "CREATE TABLE events ("
            " session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
            " seq INTEGER NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL,"
            " created TEXT NOT NULL, PRIMARY KEY (session, seq))",
        ),
    ),
    (
        2,
        (
            # issue 14: play without a referee, and a game master's secret for the web
            # GM pages (existing sessions get one each in Store.migrate, which SQL alone
            # cannot roll portably).
            "ALTER TABLE sessions ADD COLUMN referee INTEGER NOT NULL DEFAULT 1",
            "ALTER TABLE sessions ADD COLUMN gm_token TEXT NOT NULL DEFAULT ''",
        ),
    ),
    (
        3,
        (
            "CREATE TABLE table_sets ("
            " digest TEXT PRIMARY KEY, texts TEXT NOT NULL, created TEXT NOT NULL)",
        ),
    ),
)
GM_TOKEN_BYTES = 24
"""Random bytes of a game master's token (192 bits; URL-safe base64, 32 characters)."""
LATEST = MIGRATIONS[-1][0]
