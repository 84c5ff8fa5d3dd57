"""The play library's one entry point for front ends (the CLI, the web app): a store and a
registry in, sessions as :class:`~kerker.play.session.PlayState` out.

Every step is: load the log, fold it, propose the event against that state, append it with
the sequence number seen (a clash is a :class:`~kerker.play.store.ConflictError` carrying
the current state), fold again. A front end only translates requests to these calls.

With a :class:`~kerker.play.cache.StateCache` (the web app) "load and fold" reads the
session's last event number, takes the state this process folded before and applies only
the events appended since; the states returned are the caller's to give back.
"""

from __future__ import annotations

import secrets
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from kerker.errors import N_
from kerker.play.cache import StateCache
from kerker.play.events import MAX_EVENTS, Event, EventError, event_from_json
from kerker.play.session import (
    PlayState,
    SessionInfo,
    advance,
    fold,
    new_info,
    propose,
    reason,
    verify,
    with_fingerprint,
)
from kerker.play.store import ConflictError, Store
from kerker.tables.registry import Registry

FORMAT = "kerker-play"
FORMAT_VERSION = 1
MAX_IMPORT_BYTES = 4_000_000


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Play:
    """Sessions in ``store``, dungeons rolled from ``registry``; folded states taken from
    and left to the caller to give back to ``cache`` (None: every state is folded from
    the whole log, or, after a step made here, that step's state is reused)."""

    def __init__(self, store: Store, registry: Registry, cache: StateCache | None = None) -> None:
        self.store = store
        self.registry = registry
        self.cache = cache
        self._last: dict[str, PlayState] = {}
        """Session id -> the state after its last step made here: reused by
        :meth:`state` while the stored log is still the one it was folded from."""

    def tables(self, info: SessionInfo) -> Registry:
        """The tables session ``info`` rolls on: the registry's plus its own table files
        (loaded once per set of files). Refuses own files that no longer load here
        (:class:`~kerker.errors.RuleDataError`, one line)."""
        from kerker.tables.owntexts import load_texts

        return load_texts(self.registry, info.own_tables)

    def _fold(self, info: SessionInfo, events: list[Event]) -> PlayState:
        """The session replayed on its tables; when its own table files do not load here
        any more, replayed without them and read-only, saying why."""
        from kerker.errors import KerkerError

        try:
            tables = self.tables(info)
        except KerkerError as err:
            state = fold(info, events, self.registry)
            state.read_only = reason(
                "tables_unloadable", N_("its own tables do not load here: {error}"), error=err
            )
            return state
        return verify(fold(info, events, tables))

    def new(
        self,
        rules: str,
        seed: int,
        options: dict[str, Any],
        name: str = "",
        *,
        referee: bool = True,
    ) -> PlayState:
        """A new session (stored, no events yet). ``options``: those of ``kerker dungeon``,
        and ``"tables"``, own table files as ``[{"name", "text"}]`` (linted; the session
        keeps them, so it replays and exports with them). ``referee=False``: played without
        a game master (every view the players', issue 14). It gets a player token and a game
        master token (:data:`~kerker.play.store.migrations.GM_TOKEN_BYTES` random bytes)."""
        from kerker.play.store.migrations import GM_TOKEN_BYTES

        info = new_info(
            secrets.token_hex(5),
            rules,
            seed,
            options,
            name=name,
            player_token=secrets.token_urlsafe(16),
            now=_now(),
            referee=referee,
            gm_token=secrets.token_urlsafe(GM_TOKEN_BYTES),
        )
        state = fold(info, [], self.tables(info))
        info = with_fingerprint(info, state)
        self.store.create(info)
        state.info = info
        return state

    def state(self, ref: str, known: tuple[SessionInfo, int] | None = None) -> PlayState:
        """The session named ``ref`` (id, id prefix or name), replayed and verified (or, when
        the stored log is the one the state after this object's last step of it was folded
        from, that state: a second instance's append shows as a longer log). With a cache:
        the cached state of the session brought up to the store's last event (never an
        older one), else the whole log folded; the caller owns the state returned (and may
        give it back to the cache when done with it). ``known``: the session's header and last
        event number as the caller just read them from this store (:meth:`Store.head`), so
        they are not read again."""
        if self.cache is not None:
            return self._cached_state(ref, known)
        info, events = self.store.load(ref)
        last = self._last.pop(info.id, None)
        if last is not None and last.info == info and last.events == events and not last.read_only:
            return last
        return self._fold(info, events)

    def _cached_state(self, ref: str, known: tuple[SessionInfo, int] | None) -> PlayState:
        assert self.cache is not None
        info, seq = known if known is not None else self.store.head(ref)
        state = self.cache.take(info.id)
        if state is not None and not _same_session(state.info, info):
            state = None
        if state is not None and state.seq == seq:
            pass  # nothing appended since: no look at the log
        elif state is not None and state.seq < seq:
            try:
                tables = state.registry or self.registry  # the session's own tables too
                for event in self.store.events(info.id, after=state.seq, upto=seq):
                    state = advance(state, event, tables)
            except EventError:
                state = None  # a log that does not go on from it: the full fold decides
            if state is not None and state.seq != seq:
                state = None
        else:
            state = None
        if state is None:
            # the whole log, on the session's own tables (read-only, saying why, when they
            # no longer load)
            return self._fold(info, self.store.events(info.id, upto=seq))
        state.info = info
        return verify(state)

    def act(
        self,
        ref: str,
        kind: str,
        expected: int | None = None,
        *,
        known: tuple[SessionInfo, int] | None = None,
        **fields: Any,
    ) -> PlayState:
        """Do ``kind`` (see :func:`~kerker.play.session.propose`) on session ``ref`` and
        return the state after it (valid until the next step of that session through this
        object, which goes on from it). ``expected``: the last event the caller saw; when the
        session moved on since (another writer), :class:`ConflictError` with ``.state`` the
        current state, and nothing is written. ``known``: as for :meth:`state`."""
        state = self.state(ref, known)
        if expected is not None and expected != state.seq:
            err = ConflictError(state.info.id, expected, state.seq)
            err.state = state
            raise err
        event = propose(state, kind, state.registry or self.registry, **fields)
        return self._append(state, event)

    def _append(self, state: PlayState, event: Event) -> PlayState:
        """Append ``event`` (proposed on ``state``, which this takes over) and return the
        state after it."""
        info = state.info
        after = advance(state, event, state.registry or self.registry)
        info = with_fingerprint(replace(info, updated=_now()), after)
        try:
            self.store.append(info, event)
        except ConflictError as err:
            err.state = self.state(info.id)
            raise
        after.info = info
        if self.cache is None:
            if len(self._last) > 64:
                self._last.clear()
            self._last[info.id] = after
        return after

    def delete(self, ref: str) -> str:
        """Remove the session named ``ref``; returns its id."""
        info = self.store.find(ref)
        self.store.delete(info.id)
        if self.cache is not None:
            self.cache.discard(info.id)
        return info.id

    def sessions(self) -> list[SessionInfo]:
        """Every session, the most recently played first."""
        return self.store.sessions()

    def import_log(self, data: Any, name: str | None = None) -> PlayState:
        """A new session from an exported log (``export`` / ``journal --format json``):
        same rules, seed and options, every event replayed and checked on the way (an event
        that does not apply is refused in one line, naming it)."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise EventError(
                N_('not a kerker play log (it needs "format": "{format}")'), format=FORMAT
            )
        if not isinstance(data.get("events"), list) or len(data["events"]) > MAX_EVENTS:
            raise EventError(
                N_('a play log needs a list "events" of at most {max}'), max=MAX_EVENTS
            )
        head = data
        rules, seed, options = head.get("rules"), head.get("seed"), head.get("options")
        if (
            not isinstance(rules, str)
            or not isinstance(seed, int)
            or isinstance(seed, bool)
            or not isinstance(options, dict)
        ):
            raise EventError(N_("the log's session header needs rules, seed and options"))
        events = [event_from_json(item, seq=n) for n, item in enumerate(data["events"], 1)]
        title = name if name is not None else str(head.get("name") or "")
        referee = head.get("referee", True)
        if not isinstance(referee, bool):
            raise EventError(N_('the log\'s "referee" must be true or false'))
        probe = new_info("probe", rules, seed, options)
        recorded = head.get("fingerprint")
        if isinstance(recorded, str) and recorded:
            # the whole log replayed first: another dungeon than the one recorded (other
            # rule data or own tables, another kerker, an edited log) is refused, not
            # imported as a silently different session
            replayed = fold(probe, events, self.tables(probe))
            if with_fingerprint(probe, replayed).fingerprint != recorded:
                raise EventError(
                    N_(
                        "the log does not replay here as it was recorded (other rule data, "
                        "own tables or kerker version): it gives another dungeon"
                    )
                )
        state = self.new(rules, seed, options, name=title, referee=referee)
        for event in events:
            self._check_replays(state, event)
            state = self._append(state, event)
        return state

    def _check_replays(self, state: PlayState, event: Event) -> None:
        """Refuse an imported event the session as it stands does not allow, or whose
        dice do not come out as recorded."""
        fields = dict(event.data)
        recorded = dict(event.data)
        if event.kind == "enter":
            fields = {"level": event.data["level"]}
        elif event.kind in ("open", "reroll"):
            fields = {k: event.data[k] for k in ("exit", "dice", "rest") if k in event.data}
            if "dice" in event.data:
                recorded.setdefault("rest", False)
        elif event.kind == "search":
            fields = {
                k: event.data[k] for k in ("depth", "area", "side", "entered", "value", "modifier")
            }
        elif event.kind == "take":
            from kerker.play.session import takeable

            items = takeable(state, event.data["depth"], event.data["area"])
            if event.data["item"] not in items:
                raise EventError(
                    N_("event {seq} ({kind}) of the log does not replay here as it was recorded"),
                    seq=event.seq,
                    kind=event.kind,
                )
            fields = {
                "depth": event.data["depth"],
                "area": event.data["area"],
                "item": items.index(event.data["item"]) + 1,
            }
        redo = propose(state, event.kind, state.registry or self.registry, **fields)
        if redo.data != recorded:
            raise EventError(
                N_("event {seq} ({kind}) of the log does not replay here as it was recorded"),
                seq=event.seq,
                kind=event.kind,
            )


def _same_session(a: SessionInfo, b: SessionInfo) -> bool:
    """Whether two headers name the same session as made (all but what an append
    changes: the fingerprint and the time of the last step)."""
    return replace(a, fingerprint="", updated="") == replace(b, fingerprint="", updated="")


def export(state: PlayState) -> dict[str, Any]:
    """The whole log as JSON: ``{"session": id, "name", "rules", "seed", "options", "kerker",
    "rules_digest", "fingerprint", "created", "updated", "format", "version", "events"}`` (what
    :meth:`Play.import_log` reads back)."""
    return {
        **state.info.to_json(),
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "events": [e.to_json() for e in state.events],
    }
