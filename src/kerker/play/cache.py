"""Folded session states kept between requests of one process (the web app's cache).

A session's state is its log folded from the seed; folding a log of dozens of opens costs
tens of milliseconds, every request. :class:`StateCache` keeps the folded state of
recently used sessions, keyed by session and the number of its last event, so that the next
request folds only the events appended since (by this process or any other instance:
:meth:`kerker.play.api.Play.state` reads the store's last event number first and never
answers from an older state). The database stays the only truth; the cache only saves work.

**Lent, never shared.** A state is mutable (a step is applied to it in place), so a state
taken from the cache belongs to the one request that took it until that request gives it
back (:meth:`StateCache.give`); a second request for the same session meanwhile finds
nothing and folds the log itself. No state is ever read by one request while another
changes it.

**Bounded** by count and by estimated memory (:func:`estimate_bytes`), least recently
given back first out.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from kerker.play.session import PlayState

MAX_STATES = 256
"""Sessions a cache keeps at most (per process)."""
MAX_BYTES = 96 * 2**20
"""Estimated memory a cache keeps at most (per process)."""
BYTES_BASE = 100_000
BYTES_PER_AREA = 14_000
BYTES_PER_CELL = 300
BYTES_PER_EVENT = 700
"""The estimate's terms, against tracemalloc on folded sessions of both rule sets holding
their GM document in one language (as a state given back after a response does): 7 to 47
areas after 5 to 40 opens measured 254 KiB to 1 017 KiB. With the memo of the incremental
snapshot, fingerprint and document (a state stepped once more, fingerprinted and shown:
about a fifth more) 7 to 49 areas after 5 to 40 opens measured 225 KiB to 1 414 KiB; the
estimate lies within about 11 % of that from 18 areas on, up to a fifth above below."""


def estimate_bytes(state: PlayState) -> int:
    """About how much memory ``state`` holds: its engine state and one document (see
    :data:`BYTES_PER_EVENT`)."""
    areas = cells = 0
    for level in state.dungeon.levels.values():
        areas += len(level.areas)
        cells += sum(len(a.cells) for a in level.areas.values())
    return (
        BYTES_BASE
        + BYTES_PER_AREA * areas
        + BYTES_PER_CELL * cells
        + BYTES_PER_EVENT * len(state.events)
    )


@dataclass
class CacheStats:
    """What a cache did (counts since it was made)."""

    hits: int = 0
    """States taken for a request."""
    misses: int = 0
    """Requests that found no state of their session (folded the whole log)."""
    given: int = 0
    """States given back and kept."""
    dropped: int = 0
    """States given back but not kept (read-only, older than the one kept) or evicted."""


class StateCache:
    """Folded states by session id, each lent to one taker at a time (thread-safe)."""

    def __init__(self, max_states: int = MAX_STATES, max_bytes: int = MAX_BYTES) -> None:
        self.max_states = max(0, max_states)
        self.max_bytes = max(0, max_bytes)
        self._lock = threading.Lock()
        self._states: OrderedDict[str, tuple[PlayState, int]] = OrderedDict()
        self._bytes = 0
        self.stats = CacheStats()

    def __len__(self) -> int:
        return len(self._states)

    @property
    def bytes(self) -> int:
        """The estimated memory of the states kept."""
        return self._bytes

    def take(self, session: str) -> PlayState | None:
        """The kept state of ``session``, removed from the cache (the caller owns it now),
        or None. The caller checks it against the store (its ``seq``) before use."""
        with self._lock:
            found = self._states.pop(session, None)
            if found is None:
                self.stats.misses += 1
                return None
            self._bytes -= found[1]
            self.stats.hits += 1
            return found[0]

    def give(self, state: PlayState) -> None:
        """Keep ``state`` for the next request of its session; the giver must not use or
        change it afterwards. Keeps nothing for a read-only state, and keeps the newer of
        two states of one session (two requests that folded the same session)."""
        if state.read_only or self.max_states == 0:
            self.stats.dropped += 1
            return
        size = estimate_bytes(state)
        with self._lock:
            session = state.info.id
            kept = self._states.get(session)
            if kept is not None:
                if kept[0].seq >= state.seq or kept[0] is state:
                    self.stats.dropped += 1
                    return
                del self._states[session]
                self._bytes -= kept[1]
            if size > self.max_bytes:
                self.stats.dropped += 1
                return
            self._states[session] = (state, size)
            self._bytes += size
            self.stats.given += 1
            while len(self._states) > self.max_states or self._bytes > self.max_bytes:
                _old, (_state, freed) = self._states.popitem(last=False)
                self._bytes -= freed
                self.stats.dropped += 1

    def discard(self, session: str) -> None:
        """Forget the state of ``session`` (a deleted session)."""
        with self._lock:
            found = self._states.pop(session, None)
            if found is not None:
                self._bytes -= found[1]

    def clear(self) -> None:
        """Forget every state."""
        with self._lock:
            self._states.clear()
            self._bytes = 0
