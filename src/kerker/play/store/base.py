"""The store's contract and the SQL both backends share."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from kerker.errors import N_, KerkerError
from kerker.play.events import Event, event_from_json
from kerker.play.session import SessionInfo
from kerker.play.store.migrations import APP, GM_TOKEN_BYTES, LATEST, MIGRATIONS

MAX_SESSIONS_LISTED = 1_000


class StoreError(KerkerError):
    """A database that cannot be opened, read or written (one line, no traceback)."""

    code = "store"


class BusyError(StoreError):
    """The database stayed locked by other writers for the whole wait: nothing was written,
    and the same step can simply be tried again (a web answer says 503 and when)."""

    code = "busy"


class ConflictError(StoreError):
    """Another writer appended to the session first: ``seq`` is the session's last event
    now (the caller reloads and shows the current state)."""

    code = "conflict"

    def __init__(self, session: str, expected: int, seq: int) -> None:
        super().__init__(
            N_(
                "session {session} changed meanwhile (expected event {expected}, "
                "it is at {seq}); showing it as it is now"
            ),
            session=session,
            expected=expected,
            seq=seq,
        )
        self.session = session
        self.expected = expected
        self.seq = seq
        self.state: Any = None
        """The current :class:`~kerker.play.session.PlayState`, filled in by the caller
        that folds it (:class:`kerker.play.api.Play`)."""


_COLUMNS = (
    "id",
    "name",
    "rules",
    "seed",
    "options",
    "kerker_version",
    "rules_digest",
    "player_token",
    "fingerprint",
    "created",
    "updated",
    "referee",
    "gm_token",
)


def _event_data(event: Event) -> str:
    """What the ``data`` column keeps of ``event`` (all but its number and kind)."""
    return json.dumps(
        {k: v for k, v in event.to_json().items() if k not in ("seq", "kind")},
        ensure_ascii=False,
    )


def _info(row: tuple[Any, ...]) -> SessionInfo:
    d = dict(zip(_COLUMNS, row, strict=False))
    return SessionInfo(
        d["id"],
        d["rules"],
        int(d["seed"]),
        json.loads(d["options"]),
        d["kerker_version"],
        d["rules_digest"],
        name=d["name"],
        player_token=d["player_token"],
        fingerprint=d["fingerprint"],
        created=d["created"],
        updated=d["updated"],
        referee=bool(d.get("referee", 1)),
        gm_token=str(d.get("gm_token") or ""),
    )


class Store(ABC):
    """Sessions and their append-only event logs in one SQL database.

    Subclasses give a transaction (:meth:`transaction`, yielding a DB-API cursor), the
    parameter mark (``?`` or ``%s``), how to tell a primary-key clash (:meth:`is_clash`)
    and how to make a database error one line (:meth:`fail`).
    """

    mark = "?"
    where = ""
    """What the store is (a path or a URL without password), for messages."""
    table_sets_kept = 500
    """Own table sets kept at most (:meth:`save_tables` prunes the ones uploaded longest ago
    beyond it)."""
    table_set_chars_kept = 25_000_000
    """Characters of own table sets kept at most in all (fifty sets at a session's cap of
    500 000 characters; :data:`kerker.tables.owntexts.MAX_TOTAL`)."""

    @abstractmethod
    def transaction(self, write: bool = True) -> AbstractContextManager[Any]:
        """A cursor inside one transaction: committed on success, rolled back on error.
        ``write=False`` promises that the transaction only reads (SQLite then takes no
        write lock: readers neither wait for writers nor hold them up)."""

    @abstractmethod
    def is_clash(self, exc: BaseException) -> bool:
        """Whether ``exc`` is a primary-key or unique clash."""

    @abstractmethod
    def fail(self, exc: BaseException) -> StoreError:
        """``exc`` (a database error) as a one-line :class:`StoreError`."""

    @abstractmethod
    def close(self) -> None:
        """Close the connection."""

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _sql(self, text: str) -> str:
        return text.replace("?", self.mark)

    # -- schema ---------------------------------------------------------------------------
    def _tables(self, cur: Any) -> set[str]:
        raise NotImplementedError

    def migrate(self) -> int:
        """Bring the schema to :data:`~kerker.play.store.migrations.LATEST`; refuses a
        database that is not a kerker session store or is newer than this kerker."""
        with self.transaction() as cur:
            self._lock(cur)
            tables = self._tables(cur)
            version = 0
            if "kerker_meta" in tables:
                cur.execute("SELECT key, value FROM kerker_meta")
                meta = dict(cur.fetchall())
                if meta.get("app") != APP:
                    raise StoreError(
                        N_("{where} is not a kerker session database"), where=self.where
                    )
                version = int(meta.get("schema", "0"))
            elif tables:
                raise StoreError(N_("{where} is not a kerker session database"), where=self.where)
            if version > LATEST:
                raise StoreError(
                    N_(
                        "{where} was made by a newer kerker (schema {n}, this "
                        "kerker knows {latest})"
                    ),
                    where=self.where,
                    n=version,
                    latest=LATEST,
                )
            for number, statements in MIGRATIONS:
                if number <= version:
                    continue
                for statement in statements:
                    cur.execute(statement)
                if number == 1:
                    cur.execute(self._sql("INSERT INTO kerker_meta VALUES (?, ?)"), ("app", APP))
                    cur.execute(
                        self._sql("INSERT INTO kerker_meta VALUES (?, ?)"), ("schema", str(number))
                    )
                else:
                    cur.execute(
                        self._sql("UPDATE kerker_meta SET value = ? WHERE key = ?"),
                        (str(number), "schema"),
                    )
                if number == 2:
                    self._give_gm_tokens(cur)
                version = number
        return version

    def _give_gm_tokens(self, cur: Any) -> None:
        """Migration 2: every session stored before it gets its own game master token."""
        import secrets

        cur.execute("SELECT id FROM sessions WHERE gm_token = ''")
        for (session,) in list(cur.fetchall()):
            cur.execute(
                self._sql("UPDATE sessions SET gm_token = ? WHERE id = ?"),
                (secrets.token_urlsafe(GM_TOKEN_BYTES), session),
            )

    def _lock(self, cur: Any) -> None:  # noqa: B027 - a hook; SQLite's BEGIN IMMEDIATE locks
        """Serialise migrations of several processes (PostgreSQL: an advisory lock)."""

    # -- sessions -------------------------------------------------------------------------
    def create(self, info: SessionInfo) -> None:
        """Store a new session (no events yet); refuses an id already used."""
        row = (
            info.id,
            info.name,
            info.rules,
            str(info.seed),
            json.dumps(info.options),
            info.kerker_version,
            info.rules_digest,
            info.player_token,
            info.fingerprint,
            info.created,
            info.updated,
            1 if info.referee else 0,
            info.gm_token,
        )
        try:
            with self.transaction() as cur:
                cur.execute(
                    self._sql(
                        f"INSERT INTO sessions ({', '.join(_COLUMNS)}, seq) "
                        f"VALUES ({', '.join('?' * len(_COLUMNS))}, 0)"
                    ),
                    row,
                )
        except StoreError:
            raise
        except Exception as exc:
            if self.is_clash(exc):
                raise StoreError(N_("session {session} already exists"), session=info.id) from None
            raise self.fail(exc) from None

    def sessions(self) -> list[SessionInfo]:
        """Every session, the most recently played first (at most
        :data:`MAX_SESSIONS_LISTED`)."""
        rows = self._read(
            f"SELECT {', '.join(_COLUMNS)} FROM sessions "
            f"ORDER BY updated DESC, id LIMIT {MAX_SESSIONS_LISTED}"
        )
        return [_info(tuple(r)) for r in rows]

    def find(self, ref: str) -> SessionInfo:
        """The session whose id is ``ref``, starts with ``ref``, or whose name is ``ref``;
        refuses none or several in one line."""
        return self.head(ref)[0]

    def head(self, ref: str) -> tuple[SessionInfo, int]:
        """The session named ``ref`` (as :meth:`find` names it) and the number of its last
        event, read together in one query (what a cache of folded states compares with)."""
        rows = [
            (_info(tuple(r)), int(r[len(_COLUMNS)]))
            for r in self._read(
                f"SELECT {', '.join(_COLUMNS)}, seq FROM sessions "
                "WHERE id = ? OR name = ? OR id LIKE ? ORDER BY id LIMIT 3",
                (ref, ref, ref.replace("%", "").replace("_", "") + "%"),
            )
        ]
        exact = [r for r in rows if r[0].id == ref]
        if exact:
            return exact[0]
        if len(rows) == 1 and ref:
            return rows[0]
        if not rows or not ref:
            raise StoreError(
                N_("no session {session!r}; `kerker play list` shows them"), session=ref
            )
        raise StoreError(
            N_("{session!r} names several sessions: {ids}"),
            session=ref,
            ids=", ".join(r[0].id for r in rows),
        )

    def by_token(self, token: str) -> SessionInfo:
        """The session whose player token is ``token`` (exactly); refuses others in one line
        without saying whether any session exists."""
        return self.head_by_token(token)[0]

    def head_by_token(self, token: str) -> tuple[SessionInfo, int]:
        """The session whose player token is ``token`` (exactly) and the number of its last
        event, in one query; refuses others as :meth:`by_token` does."""
        rows = self._read(
            f"SELECT {', '.join(_COLUMNS)}, seq FROM sessions WHERE player_token = ?", (token,)
        )
        if not rows or not token:
            raise StoreError(
                N_("this player link is not valid (ask the game master for a new one)")
            )
        return _info(tuple(rows[0])), int(rows[0][len(_COLUMNS)])

    def by_gm_token(self, token: str) -> SessionInfo:
        """The session whose game master token is ``token`` (exactly); refuses others in
        one line without saying whether any session exists."""
        if token:
            rows = self._read(
                f"SELECT {', '.join(_COLUMNS)} FROM sessions WHERE gm_token = ?", (token,)
            )
            if rows:
                return _info(tuple(rows[0]))
        raise StoreError(N_("this game master link is not valid"))

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """The rows of one read-only statement (``?`` marks), as one transaction (a single
        statement sees one snapshot of the database on both backends; subclasses may run it
        without ``BEGIN`` and ``COMMIT``)."""
        with self.transaction(write=False) as cur:
            cur.execute(self._sql(sql), tuple(params))
            return list(cur.fetchall())

    def events(self, session: str, after: int = 0, upto: int | None = None) -> list[Event]:
        """The log of ``session`` in order: the events after number ``after`` up to number
        ``upto`` (None: the last). Refuses a stored event that does not read as one (a
        damaged database) in one line."""
        if upto is None:
            rows = self._read(
                "SELECT seq, kind, data FROM events WHERE session = ? AND seq > ? ORDER BY seq",
                (session, after),
            )
        else:
            rows = self._read(
                "SELECT seq, kind, data FROM events "
                "WHERE session = ? AND seq > ? AND seq <= ? ORDER BY seq",
                (session, after, upto),
            )
        out = []
        for seq, kind, data in rows:
            try:
                item = json.loads(data)
            except ValueError:
                raise StoreError(
                    N_("event {seq} of session {session} is damaged"), seq=seq, session=session
                ) from None
            out.append(event_from_json({**item, "kind": kind}, seq=int(seq)))
        return out

    def load(self, ref: str) -> tuple[SessionInfo, list[Event]]:
        """The session named ``ref`` (:meth:`find`) and its log."""
        info = self.find(ref)
        return info, self.events(info.id)

    def append(self, info: SessionInfo, event: Event) -> None:
        """Append ``event`` to the session of ``info`` (its ``fingerprint`` and ``updated``
        recorded with it) in one transaction, if the session's last event is still
        ``event.seq - 1``; else :class:`ConflictError`, and nothing is written."""
        expected = event.seq - 1
        data = _event_data(event)
        try:
            with self.transaction() as cur:
                cur.execute(
                    self._sql(
                        "UPDATE sessions SET seq = ?, fingerprint = ?, "
                        "updated = ? WHERE id = ? AND seq = ?"
                    ),
                    (event.seq, info.fingerprint, info.updated, info.id, expected),
                )
                if cur.rowcount != 1:
                    raise ConflictError(info.id, expected, self._seq(cur, info.id))
                cur.execute(
                    self._sql(
                        "INSERT INTO events (session, seq, kind, data, created) "
                        "VALUES (?, ?, ?, ?, ?)"
                    ),
                    (info.id, event.seq, event.kind, data, info.updated),
                )
        except StoreError:
            raise
        except Exception as exc:
            if self.is_clash(exc):
                raise self._conflict(info.id, expected) from None
            raise self.fail(exc) from None

    def _conflict(self, session: str, expected: int) -> ConflictError:
        """The conflict of an append that expected event ``expected`` (the session's last
        event read anew); refuses a session that is gone."""
        rows = self._read("SELECT seq FROM sessions WHERE id = ?", (session,))
        if not rows:
            raise StoreError(
                N_("no session {session!r}; `kerker play list` shows them"), session=session
            )
        return ConflictError(session, expected, int(rows[0][0]))

    def _seq(self, cur: Any, session: str) -> int:
        cur.execute(self._sql("SELECT seq FROM sessions WHERE id = ?"), (session,))
        row = cur.fetchone()
        if row is None:
            raise StoreError(
                N_("no session {session!r}; `kerker play list` shows them"), session=session
            )
        return int(row[0])

    def delete(self, session: str) -> None:
        """Remove a session and its log."""
        with self.transaction() as cur:
            cur.execute(self._sql("DELETE FROM events WHERE session = ?"), (session,))
            cur.execute(self._sql("DELETE FROM sessions WHERE id = ?"), (session,))

    # -- own table sets (content-addressed) -----------------------------------------------
    def save_tables(self, texts: Sequence[tuple[str, str]], created: str) -> str:
        """Keep own table files (``(name, text)`` pairs, in order) under their digest
        (:func:`~kerker.tables.owntexts.texts_digest`) and return it; the same files again
        are kept once (``created`` becomes the time of the last upload). Refuses none, or
        more than a session's caps (:func:`~kerker.tables.owntexts.check_sizes`), in one
        line; does not lint (callers lint before they keep).

        Then prunes: the sets uploaded last are kept, up to :attr:`table_sets_kept` sets and
        :attr:`table_set_chars_kept` characters (this one always); an older one is dropped
        unless a session names it as its own tables' digest (sessions keep their own texts,
        so none needs a set to replay; a dropped set's ``tables=`` link answers "upload the
        table files again")."""
        from kerker.tables.owntexts import check_sizes, texts_digest

        if not texts:
            raise StoreError(N_("a table set needs at least one table file"))
        check_sizes(texts)
        digest = texts_digest(texts)
        data = json.dumps([{"name": n, "text": t} for n, t in texts], ensure_ascii=False)
        with self.transaction() as cur:
            cur.execute(
                self._sql(
                    "INSERT INTO table_sets (digest, texts, created) VALUES (?, ?, ?) "
                    "ON CONFLICT (digest) DO UPDATE SET created = excluded.created"
                ),
                (digest, data, created),
            )
            self._prune_tables(cur, digest)
        return digest

    def _prune_tables(self, cur: Any, keep: str) -> None:
        """Drop the table sets beyond the caps, uploaded longest ago first, except ``keep``
        and those a session names (its options hold the digest: ``tables_digest``)."""
        cur.execute(
            self._sql("SELECT digest, LENGTH(texts) FROM table_sets ORDER BY created DESC, digest")
        )
        count = chars = 0
        for digest, size in cur.fetchall():
            if digest == keep or (
                count < self.table_sets_kept and chars + int(size) <= self.table_set_chars_kept
            ):
                count, chars = count + 1, chars + int(size)  # among the last uploaded
                continue
            # older: kept only when a session names it (a digest is 32 hex digits; another
            # text that holds it by chance only keeps a set longer)
            cur.execute(
                self._sql("SELECT 1 FROM sessions WHERE options LIKE ? LIMIT 1"), (f"%{digest}%",)
            )
            if cur.fetchone() is None:
                cur.execute(self._sql("DELETE FROM table_sets WHERE digest = ?"), (digest,))

    def load_tables(self, digest: str) -> list[tuple[str, str]] | None:
        """The own table files kept under ``digest`` (None when there are none); refuses a
        stored set that no longer matches its digest (a damaged database) in one line."""
        from kerker.tables.owntexts import texts_digest

        with self.transaction() as cur:
            cur.execute(self._sql("SELECT texts FROM table_sets WHERE digest = ?"), (digest,))
            row = cur.fetchone()
        if row is None:
            return None
        try:
            texts = [(str(item["name"]), str(item["text"])) for item in json.loads(row[0])]
        except (ValueError, TypeError, KeyError):
            texts = []
        if texts_digest(texts) != digest:
            raise StoreError(N_("table set {digest} is damaged"), digest=digest[:12])
        return texts
