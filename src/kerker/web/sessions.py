"""Play sessions in the browser: the GM page, the player page with its live stream, and the
session API. Every request reads the session's header and last event number from the
store (one row) and answers from its state at exactly that event (folded states, page
views and the digests of recent API answers are kept per process only as caches), so any
instance serves any session (principle 16). API answers may be deltas (``?since=``,
:mod:`kerker.web.delta`).

Writes carry the sequence number the page was drawn at (``expected``): when another writer
came first, the answer is a 409 with the current state, never a lost or doubled event.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Body, FastAPI, File, Form, Query, Request, UploadFile
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from pydantic import BaseModel

from kerker.errors import N_, OptionError, Word

if TYPE_CHECKING:
    from kerker.web.app import _Pages as Pages
from kerker.web import lang as weblang
from kerker.web import services

BodyDict = Annotated[dict[str, Any] | None, Body()]
SESSION_ID = re.compile(r"^[0-9a-f]{6,32}$")
TOKEN = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
MAX_NOTE = 2_000
STREAM_POLL = 1.0
"""Seconds between two looks at the store by a player stream on SQLite (any instance's
writes show)."""
STREAM_KEEPALIVE = 15.0
"""On PostgreSQL a stream wakes on NOTIFY; without one it still looks at the store (and
sends a comment line through proxies) this often."""
STREAM_LIFETIME = 600.0
"""A stream ends after this long; the browser's EventSource reconnects by itself."""
ACTIONS = (
    "open",
    "undo",
    "redo",
    "reroll",
    "note",
    "check",
    "reveal",
    "hide",
    "enter",
    "search",
    "take",
)
PLAYER_ACTIONS = ("open", "undo", "redo", "reroll", "note", "check", "enter", "search", "take")
"""What the player link may do in a session without a referee (never reveal or hide, never
a secret check: docs/web.md)."""
GM_HEADER = "x-kerker-gm"
"""The header an API client sends the game master token in (browsers carry a cookie)."""
GM_COOKIE_AGE = 365 * 24 * 3600


def gm_cookie(session: str) -> str:
    """The name of the cookie that holds the game master token of ``session``."""
    return f"kerker_gm_{session}"


def remember_gm(response: Response, info: Any) -> None:
    """Let this browser in as the game master of ``info``'s session from now on."""
    response.set_cookie(
        gm_cookie(info.id),
        info.gm_token,
        max_age=GM_COOKIE_AGE,
        httponly=True,
        samesite="lax",
        path="/",
    )


def gm_credential(request: Request, session: str) -> str | None:
    """The game master token a request carries for ``session`` (header, else cookie)."""
    return request.headers.get(GM_HEADER) or request.cookies.get(gm_cookie(session)) or None


def _refused(status: int, message: str) -> Exception:
    from starlette.exceptions import HTTPException

    return HTTPException(status_code=status, detail=weblang.gettext()(message))


POOL = 40
"""PostgreSQL connections an instance keeps at most (uvicorn runs the routes in a pool of
40 threads; the player streams' ``LISTEN`` has one of its own)."""

_LENT: ContextVar[list[Any] | None] = ContextVar("kerker_lent_states", default=None)
"""The folded states the current request took from the cache (given back when its
response has been made)."""


class Sessions:
    """The session side of the app: a store URL (None: the user's SQLite file).

    One store serves every request (SQLite: a connection per worker thread; PostgreSQL: a
    pool). Folded states are kept in a per-process :class:`~kerker.play.cache.StateCache`:
    a request takes its session's state, brings it up to the store's last event, and gives
    it back when its response is made (:class:`LendingMiddleware`), so the next request
    folds only what was appended since. The database stays the only truth."""

    def __init__(self, db: str | Path | None) -> None:
        from kerker.play.cache import StateCache

        self.db = db
        self.changes = Changes(db)
        self.cache = StateCache()
        self._store: Any = None
        self._store_lock = threading.Lock()
        self.answers: Any = None
        """The indexes of recent API answers for deltas (:class:`kerker.web.delta.Kept`,
        set by the session API)."""
        self.store_kind = (
            "postgresql" if str(db or "").startswith(("postgresql://", "postgres://")) else "sqlite"
        )
        """``sqlite`` or ``postgresql``: how many steps run at once (:data:`STEP_TURNS`)."""

    def store(self) -> Any:
        """The app's store (opened on first use, kept for the life of the app)."""
        if self._store is None:
            from kerker.play.store import open_store

            with self._store_lock:
                if self._store is None:
                    self._store = open_store(self.db, pool=POOL, group=True)
        return self._store

    def close(self) -> None:
        """Close the store and stop the listener."""
        self.changes.close()
        with self._store_lock:
            if self._store is not None:
                self._store.close()
                self._store = None

    @contextmanager
    def play(self) -> Iterator[Any]:
        """A :class:`~kerker.play.api.Play` on the app's store and state cache."""
        from kerker.play.api import Play

        yield Play(self.store(), services.registry(), cache=self.cache)

    def _lend(self, state: Any) -> Any:
        """``state``, given back to the cache when the current request's response is made
        (outside a request: not given back, the caller keeps it)."""
        lent = _LENT.get()
        if lent is not None:
            lent.append(state)
        return state

    def give_back(self, states: list[Any]) -> None:
        """Give the states a request took back to the cache (newest last)."""
        for state in states:
            self.cache.give(state)

    def replay(self, session: str) -> Any:
        """The session with exactly this id, replayed (no access check: for the app's own
        look-ups of sessions it already let in)."""
        if not SESSION_ID.match(session):
            raise OptionError(N_("no session {session!r}"), session=session[:40])
        with self.play() as play:
            state = self._lend(play.state(session))
        if state.info.id != session:
            raise OptionError(N_("no session {session!r}"), session=session[:40])
        return state

    def check_gm(self, play: Any, session: str, token: str | None) -> tuple[Any, int]:
        """The stored header of ``session`` and the number of its last event (one query) if
        ``token`` is its game master token. No token: 403; a wrong one, or no such session:
        404 (the same for both, so a guess learns nothing)."""
        import secrets as _secrets

        if not token:
            raise _refused(
                403,
                N_(
                    "this page is the game master's: open the game master link "
                    "(kerker play show S --json prints it as gm_path)"
                ),
            )
        from kerker.play.store import StoreError

        head: tuple[Any, int] | None
        try:
            head = play.store.head(session) if SESSION_ID.match(session) else None
        except StoreError:
            head = None
        info: Any = head[0] if head is not None else None
        if (
            head is None
            or info.id != session
            or not info.gm_token
            or not _secrets.compare_digest(info.gm_token.encode(), token.encode()[:200])
        ):
            raise _refused(404, N_("no such page"))
        assert head is not None
        return info, int(head[1])

    def state(self, session: str, gm: str | None) -> Any:
        """The session with exactly this id, replayed, for its game master (``gm``: the
        token the request carries; see :meth:`check_gm`)."""
        with self.play() as play:
            return self._lend(play.state(session, self.check_gm(play, session, gm)))

    def by_gm_token(self, token: str) -> Any:
        """The stored header of the session whose game master token is ``token``."""
        from kerker.play.store import StoreError

        if not TOKEN.match(token):
            raise StoreError(N_("this game master link is not valid"))
        with self.play() as play:
            return play.store.by_gm_token(token)

    def _player_head(self, play: Any, token: str) -> tuple[Any, int]:
        """The header and last event number of the session the player link ``token``
        reads (one query); refuses a malformed or unknown link in one line."""
        from kerker.play.store import StoreError

        if not TOKEN.match(token):
            raise StoreError(
                N_("this player link is not valid (ask the game master for a new one)")
            )
        head: tuple[Any, int] = play.store.head_by_token(token)
        return head

    def by_token(self, token: str) -> Any:
        """The session a player token reads (and nothing else)."""
        with self.play() as play:
            head = self._player_head(play, token)
            return self._lend(play.state(head[0].id, head))

    def act(
        self,
        ref: str,
        kind: str,
        expected: int | None,
        gm: str | None,
        *,
        player: bool = False,
        **fields: Any,
    ) -> Any:
        """Do ``kind`` (see :func:`kerker.play.session.propose`) on a session: as its game
        master (``ref`` the session id, ``gm`` the token the request carries, see
        :meth:`check_gm`), or with ``player`` through the player link ``ref`` (only in a
        session without a referee, only :data:`PLAYER_ACTIONS`: 403 otherwise)."""
        from kerker.play.store import ConflictError

        if not player and kind not in ACTIONS:
            raise OptionError(
                N_("unknown {what} {value!r}; choose one of {choices}"),
                what=Word(N_("action")),
                value=kind,
                choices=", ".join(ACTIONS),
            )
        if not player and not SESSION_ID.match(ref):
            raise OptionError(N_("no session {session!r}"), session=ref[:40])
        with self.play() as play:
            if player:
                head = self._player_head(play, ref)
                if head[0].referee:
                    raise _refused(
                        403,
                        N_("the game master plays this session: the player link only watches"),
                    )
                if kind not in PLAYER_ACTIONS:
                    raise _refused(403, N_("players cannot do this"))
            else:
                # exact id and its GM token: a cheap look-up in the same store, not a replay
                # of its own; the header and last event read there are the step's basis
                head = self.check_gm(play, ref, gm)
            try:
                return self._lend(
                    play.act(head[0].id, kind, expected=expected, known=head, **fields)
                )
            except ConflictError as err:
                if err.state is not None:
                    self._lend(err.state)
                raise

    def act_as_player(self, token: str, kind: str, expected: int | None, **fields: Any) -> Any:
        """Do ``kind`` through the player link ``token`` (:meth:`act` with ``player``)."""
        return self.act(token, kind, expected, None, player=True, **fields)

    def new(
        self,
        options: services.DungeonOptions,
        name: str,
        tables: list[Any] | None = None,
        referee: bool = True,
    ) -> Any:
        """A new session of a dungeon with ``options`` and own table files ``tables``
        (``[{"name", "text"}]``, linted; refused in one line ``file:line:col: message``);
        ``referee=False``: without a game master."""
        if len(name) > 100 or any(not ch.isprintable() for ch in name):
            raise OptionError(N_("a session name takes up to 100 printable characters"))
        opts: dict[str, Any] = {
            "levels": options.levels,
            **({"size": list(options.size)} if options.size else {}),
            "max_areas": options.max_areas,
            "min_areas": options.min_areas,
            "entrance": options.entrance,
        }
        if options.caves != "depth" or options.rules == "scatola-bianca":
            opts["caves"] = options.caves
        if tables:
            opts["tables"] = tables
        with self.play() as play:
            return self._lend(
                play.new(options.rules, options.seed, opts, name=name, referee=referee)
            )

    def listing(self, request: Request | None = None) -> list[Any]:
        """The sessions, the most recently played first: those ``request`` holds the game
        master token of (every one when None)."""
        import secrets as _secrets

        with self.play() as play:
            found: list[Any] = play.sessions()
        if request is None:
            return found
        return [
            info
            for info in found
            if info.gm_token
            and _secrets.compare_digest(
                info.gm_token.encode(), str(gm_credential(request, info.id) or "").encode()
            )
        ]

    def save_tables(self, texts: list[tuple[str, str]]) -> str:
        """Keep linted own table files as a table set; its digest (the same files: the same
        set, kept once)."""
        from datetime import UTC, datetime

        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        with self.play() as play:
            digest: str = play.store.save_tables(texts, now)
        return digest

    def table_set(self, digest: str) -> list[tuple[str, str]]:
        """The own table files of the table set ``digest``; refuses an unknown one
        (:class:`~kerker.web.services.UnknownTableSet`, a 404)."""
        services.check_table_set(digest)
        with self.play() as play:
            texts: list[tuple[str, str]] | None = play.store.load_tables(digest)
        if texts is None:
            raise services.UnknownTableSet(
                N_("no own table set {digest!r} here; upload the table files again"),
                digest=digest,
            )
        return texts


# -- the map with clickable exits -------------------------------------------------------------

_MAP_GROUP = re.compile(r'<g class="map" transform="translate\(([-\d.]+) ([-\d.]+)\)">')
_SIDES = {
    "n": (0, -1),
    "s": (0, 1),
    "e": (1, 0),
    "w": (-1, 0),
    "ne": (1, -1),
    "nw": (-1, -1),
    "se": (1, 1),
    "sw": (-1, 1),
}


def exit_place(key: str) -> tuple[int, float, float] | None:
    """(depth, x, y) in 5-ft cells where an exit's marker goes: half a square beyond its
    door, from a stable key ``depth:x,y:side`` (None for a key of another form)."""
    found = re.match(r"^(\d+):(-?\d+),(-?\d+):([a-z]+)", key)
    if not found or found.group(4) not in _SIDES:
        return None
    dx, dy = _SIDES[found.group(4)]
    x, y = int(found.group(2)), int(found.group(3))
    return int(found.group(1)), x + 0.5 + dx * 1.2, y + 0.5 + dy * 1.2


def _doc_places(level: dict[str, Any] | None) -> dict[str, tuple[float, float]]:
    """Marker places by exit key from the level's connections as the map draws them (a
    door's cell ``at`` in document cells, which a wide door's shift along its wall and the
    sheet's cut both move away from the key's own engine coordinates)."""
    places: dict[str, tuple[float, float]] = {}
    for conn in (level or {}).get("connections") or ():
        key, at, side = conn.get("key"), conn.get("at"), conn.get("side")
        if not key or not at or side not in _SIDES:
            continue
        dx, dy = _SIDES[side]
        places[str(key)] = (at[0] + 0.5 + dx * 1.2, at[1] + 0.5 + dy * 1.2)
    return places


def with_exits(
    svg: str, exits: list[dict[str, Any]], depth: int, level: dict[str, Any] | None = None
) -> str:
    """The map ``svg`` with a numbered marker on every open exit of level ``depth`` (placed
    by the document ``level``'s connections when given, else by the exit keys); each
    marker is a link to its button in the exit list (the script opens it directly)."""
    from html import escape as xml_escape

    from kerker.dungeon.render_svg import CELL

    found = _MAP_GROUP.search(svg)
    end = svg.rfind("</svg>")
    if not found or end < 0:
        return svg
    marks = []
    places = _doc_places(level)
    for item in exits:
        place = exit_place(item["key"])
        if place is None or place[0] != depth:
            continue
        _d, x, y = place
        if item["key"] in places:
            x, y = places[item["key"]]
        cx, cy = x * CELL, y * CELL
        number = int(item["number"])
        marks.append(
            f'<a href="#exit-{number}" class="exit" data-exit="{xml_escape(item["key"])}" '
            f'aria-label="{number}"><circle cx="{cx:.1f}" cy="{cy:.1f}" r="9" '
            f'fill="#8a3b12" stroke="#fff" stroke-width="2"/><text x="{cx:.1f}" '
            f'y="{cy + 4:.1f}" text-anchor="middle" font-size="11" font-weight="bold" '
            f'font-family="sans-serif" fill="#fff">{number}</text></a>'
        )
    if not marks:
        return svg
    group = (
        f'<g class="exits" transform="translate({found.group(1)} {found.group(2)})">'
        + "".join(marks)
        + "</g>\n"
    )
    return svg[:end] + group + svg[end:]


# -- routes -----------------------------------------------------------------------------------


def _form_int(value: str | None, what: str, low: int, high: int) -> int | None:
    if value is None or not value.strip():
        return None
    text = value.strip()
    if not re.fullmatch(r"-?\d{1,9}", text) or not low <= int(text) <= high:
        raise OptionError(
            N_("{what} takes a whole number from {low} to {high}"),
            what=Word(what),
            low=low,
            high=high,
        )
    return int(text)


def _form_seed(value: str | None) -> int | None:
    """A seed typed into a form (None when empty): a whole number from 0 to
    :data:`~kerker.web.services.MAX_SEED`, as the dungeon page takes it."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if not re.fullmatch(r"\d{1,19}", text) or int(text) > services.MAX_SEED:
        raise OptionError(
            N_("{what} takes a whole number from {low} to {high}"),
            what=Word(N_("seed")),
            low=0,
            high=services.MAX_SEED,
        )
    return int(text)


def _fields(
    kind: str,
    exit: str | None,
    text: str | None,
    area: str | None,
    value: str | None,
    modifier: str | None,
    secret: bool,
    level: str | None,
    depth: str | None,
    side: str | None = None,
    item: str | None = None,
    dice: str | None = None,
) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if kind in ("open", "reroll"):
        if not exit:
            raise OptionError(N_("which exit? give its number or key"))
        fields["exit"] = exit[:80]
    elif kind == "note":
        note = (text or "").strip()
        if not note or len(note) > MAX_NOTE:
            raise OptionError(N_("a note takes 1 to {max} characters"), max=MAX_NOTE)
        fields["text"] = note
        fields["area"] = _form_int(area, N_("area"), 1, 10_000)
        fields["depth"] = _form_int(depth, N_("level"), 1, 20)
    elif kind == "check":
        got = _form_int(value, N_("value"), -100, 100)
        if got is None:
            raise OptionError(N_("a check needs a value"))
        fields["value"] = got
        fields["modifier"] = _form_int(modifier, N_("modifier"), -100, 100) or 0
        fields["secret"] = secret
    elif kind in ("reveal", "hide"):
        fields["area"] = _form_int(area, N_("area"), 1, 10_000)
        fields["depth"] = _form_int(depth, N_("level"), 1, 20)
        if exit:
            fields["exit"] = exit[:80]
    elif kind == "enter":
        got = _form_int(level, N_("level"), 0, 20)
        if got is None:
            raise OptionError(N_("which level?"))
        fields["level"] = got
    elif kind in ("search", "take"):
        got = _form_int(area, N_("area"), 1, 10_000)
        if got is None:
            raise OptionError(N_("which area? give its number"))
        fields["area"] = got
        fields["depth"] = _form_int(depth, N_("level"), 1, 20)
        if kind == "take":
            fields["item"] = _form_int(item, N_("treasure"), 1, 1_000) or 1
        else:
            from kerker.play.wallnames import read_wall

            # the form sends kerker's keys; the JSON may name a wall in the reader's words
            fields["side"] = read_wall(side, weblang.current.get())
            fields["value"] = _form_int(value, N_("value"), -100, 100)
            fields["modifier"] = _form_int(modifier, N_("modifier"), -100, 100) or 0
            fields["entered"] = _dice(dice)
    return fields


def _dice(text: str | None) -> list[int] | None:
    """Faces of real dice typed as "7, 1, 12" (None when empty)."""
    if text is None or not text.strip():
        return None
    parts = [p for p in re.split(r"[\s,;]+", text.strip()) if p]
    if len(parts) > 100 or not all(re.fullmatch(r"\d{1,4}", p) for p in parts):
        raise OptionError(
            N_("dice entered are whole numbers separated by commas, not {text!r}"), text=text[:40]
        )
    return [int(p) for p in parts]


def _journal(state: Any, lang: str, view: str) -> Any:
    """The journal as HTML (escaped by :func:`kerker.play.journal.journal_html`)."""
    from markupsafe import Markup

    from kerker.play.journal import journal_html

    # journal_html escapes every text itself
    return Markup(journal_html(state, services.registry(), lang, view))


def _area_number(anchor: str) -> int | None:
    found = re.search(r"(\d+)$", anchor)
    return int(found.group(1)) if found else None


PAGES_KEPT = 24
"""Page views (map SVG, key, journal) a process keeps, by session, event, view, language,
level and area: every player screen of a session shows the same page after a door."""
_pages_lock = threading.Lock()
_pages: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()


def _remembered(make: Any) -> Any:
    """``make`` (:func:`_page_data`) answered from the last :data:`PAGES_KEPT` views:
    a view is made from the state alone, and a state is named exactly by its session,
    last event and fingerprint (the store's (session, seq) key; the fingerprint tells a
    session deleted and made again apart)."""

    def page_data(
        state: Any, view: str, lang: str, depth: int | None, area: int | None = None
    ) -> dict[str, Any]:
        info = state.info
        key = (info.id, state.seq, info.fingerprint, state.read_only, view, lang, depth, area)
        with _pages_lock:
            kept = _pages.get(key)
            if kept is not None:
                _pages.move_to_end(key)
        if kept is None:
            kept = make(state, view, lang, depth, area)
            with _pages_lock:
                _pages[key] = kept
                while len(_pages) > PAGES_KEPT:
                    _pages.popitem(last=False)
        return {**kept, "state": state, "info": info}

    page_data.__doc__ = make.__doc__
    return page_data


@_remembered
def _page_data(
    state: Any, view: str, lang: str, depth: int | None, area: int | None = None
) -> dict[str, Any]:
    from kerker.dungeon.render_svg import render_svg
    from kerker.play.views import document, effective, open_exit_list

    view = effective(state, view)
    doc = document(state, view, lang)
    depths = [lv["depth"] for lv in doc["levels"]]
    shown = (
        depth
        if depth in depths
        else (state.depth if state.depth in depths else (depths[0] if depths else None))
    )
    from kerker.play.views import exit_name

    exits = [
        {**e, "name": exit_name(e["kind"], weblang.gettext())} for e in open_exit_list(state, view)
    ]
    svg = ""
    if shown is not None:
        svg = render_svg(doc, depth=shown, view=view, lang=lang)
        if (view == "gm" or not state.info.referee) and not state.read_only:
            level = next((lv for lv in doc["levels"] if lv["depth"] == shown), None)
            svg = with_exits(svg, exits, shown, level)
    keys: list[Any] = []
    if shown is not None:
        from kerker.dungeon.render_key import area_keys

        keys = area_keys(doc, depth=shown, lang=lang, view=view)
    numbered = [(k, _area_number(k.anchor)) for k in keys]
    chosen = next((k for k, n in numbered if n == area), None)
    if chosen is None and numbered:
        chosen = max(numbered, key=lambda kn: kn[1] or 0)[0]
    gone = set(state.undone) | set(state.lapsed)
    opened = [
        e.data["exit"]
        for e in state.events
        if e.kind in ("open", "reroll") and e.seq not in gone and "exit" in e.data
    ]
    # the opened doors a game master may roll again, named as the journal names their step
    # (the newest first), so nobody reads or types an engine key ("1:32,74:n")
    rerollable: list[dict[str, Any]] = []
    listed: set[str] = set()
    for e in reversed(state.events):
        key = e.data.get("exit")
        if e.kind != "open" or e.seq in gone or e.seq not in state.ways or key in listed:
            continue
        listed.add(key)
        kind, number = state.ways[e.seq]
        rerollable.append(
            {
                "key": key,
                "label": weblang.gettext()(N_("step {seq}: {exit} of area {area}")).format(
                    seq=e.seq, exit=exit_name(kind, weblang.gettext()), area=number
                ),
            }
        )
    treasures: list[dict[str, Any]] = []
    if shown is not None and chosen is not None and not state.read_only:
        from kerker.play.session import takeable

        number = _area_number(chosen.anchor)
        if number is not None:
            gm_area = next(
                (
                    a
                    for lv in state.document(lang)["levels"]
                    if lv["depth"] == shown
                    for a in lv["areas"]
                    if a["number"] == number
                ),
                None,
            )
            if gm_area is not None:
                for n, index in enumerate(takeable(state, shown, number), 1):
                    treasures.append({"item": n, "text": gm_area["contents"][index]["text"]})
    return {
        "state": state,
        "info": state.info,
        "view": view,
        "treasures": treasures,
        "doc": doc,
        "depths": depths,
        "depth": shown,
        "last_opened": opened[-1] if opened else None,
        "rerollable": rerollable,
        "areas": [(n, k.heading) for k, n in numbered if n is not None],
        "area_key": chosen,
        "area": _area_number(chosen.anchor) if chosen else None,
        "exits": [e for e in exits if e["depth"] == shown] if shown else exits,
        "all_exits": exits,
        "svg": svg,
        "seq": state.seq,
        "journal": _journal(state, lang, view),
    }


class LendingMiddleware:
    """Gives the folded states a request took from the cache back when its response has
    been made: just before its last body chunk goes out (the page or JSON is rendered by
    then, and the client cannot ask again before), or when the request ends otherwise
    (an error, a stream that closed). A pure ASGI middleware: the request's list of
    states is a context variable, which the worker thread of a route shares."""

    def __init__(self, app: Any, sessions: Sessions) -> None:
        self.app = app
        self.sessions = sessions

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        lent: list[Any] = []
        token = _LENT.set(lent)

        def give_back() -> None:
            states = lent[:]
            lent.clear()
            self.sessions.give_back(states)

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.body" and not message.get("more_body"):
                give_back()
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            _LENT.reset(token)
            give_back()


STEP_TURNS = {"sqlite": 1, "postgresql": 2}
"""How many session steps and reads one process runs at once, per kind of store: the
rest wait their turn in the order they came (:func:`_in_turn`)."""
_LINES: dict[str, Any] = {}
_LINES_LOCK = threading.Lock()


def _line(kind: str) -> Any:
    """This process's step line for a kind of store: a pool of :data:`STEP_TURNS` threads
    that take the queued steps first come, first served (made on first use)."""
    with _LINES_LOCK:
        found = _LINES.get(kind)
        if found is None:
            from concurrent.futures import ThreadPoolExecutor

            found = _LINES[kind] = ThreadPoolExecutor(
                STEP_TURNS[kind], thread_name_prefix=f"kerker-steps-{kind}"
            )
        return found


def _in_turn(route: Any, sessions: Sessions) -> Any:
    """``route`` (a plain function) run on the process's step line when its turn comes: at
    most :data:`STEP_TURNS` at once, the others queued first come, first served.

    A step is Python work under one lock (the interpreter's): 40 threads at once add only
    the hand-offs between them (measured: a third of an open's CPU at 50 clients), and an
    event loop that runs the steps itself serves them in batches, so a request that comes
    while one batch runs waits for the next one too (p99 twice the median). On the line,
    a thread beside the loop, every request waits for those before it and no more, the
    thread goes from one step to the next without waiting for the loop, and the loop stays
    free to read requests, write answers and feed the player streams while a step works or
    waits for the disk or the database (bench/web.py, docs/web.md "Speed")."""
    import contextvars

    from kerker.play.store.sqlite import DEFERRED

    def deferring(tickets: list[int], *args: Any, **kwargs: Any) -> Any:
        token = DEFERRED.set(tickets)
        try:
            return route(*args, **kwargs)
        finally:
            DEFERRED.reset(token)

    @functools.wraps(route)
    async def in_turn(*args: Any, **kwargs: Any) -> Any:
        # a SQLite commit of the step is made durable by the store's group sync while the
        # line goes on with the next step; the answer waits for it (WalSync)
        tickets: list[int] = []
        call = functools.partial(
            contextvars.copy_context().run, deferring, tickets, *args, **kwargs
        )
        try:
            return await asyncio.get_running_loop().run_in_executor(
                _line(sessions.store_kind), call
            )
        finally:
            group = getattr(sessions.store(), "group", None) if tickets else None
            if group is not None:
                await group.wait_async(max(tickets))

    return in_turn


def session_routes(app: FastAPI, sessions: Sessions) -> None:
    """Add the session pages and API to ``app`` (and the middleware that gives folded
    states back to the cache, and closing the store when the app shuts down)."""
    pages: Pages = app.state.pages
    app.add_middleware(LendingMiddleware, sessions=sessions)
    previous = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(target: Any) -> AsyncIterator[Any]:
        async with previous(target) as state:
            try:
                yield state
            finally:
                sessions.close()

    app.router.lifespan_context = lifespan

    @app.get("/play", response_class=HTMLResponse, include_in_schema=False)
    def play_list(request: Request) -> HTMLResponse:
        return pages.render(request, "play_list.html", sessions=sessions.listing(request))

    @app.get("/gm/{token}", include_in_schema=False, name="gm_link")
    def gm_link(token: str) -> Response:
        """The game master link: lets this browser in (a cookie) and opens the GM page."""
        info = sessions.by_gm_token(token)
        response = RedirectResponse(f"/play/{info.id}", status_code=303)
        remember_gm(response, info)
        response.headers["Cache-Control"] = "no-store"
        return response

    @app.post("/play", include_in_schema=False)
    def play_new(
        request: Request,
        rules: str = Form("zufallslabyrinth"),
        seed: str = Form(""),
        levels: str = Form("1"),
        size: str = Form(""),
        max_areas: str = Form("60"),
        min_areas: str = Form("10"),
        entrance: str = Form("variant"),
        caves: str = Form("depth"),
        name: str = Form(""),
        tables: UploadFile | None = NO_FILE,
        table_set: str = Form(""),
        no_referee: bool = Form(False),
    ) -> Response:
        from kerker.web.app import dungeon_options

        options = dungeon_options(
            rules,
            _form_seed(seed),
            _form_int(levels, N_("levels"), 1, 20) or 1,
            size,
            _form_int(max_areas, N_("areas at most"), 1, 1000) or 60,
            _form_int(min_areas, N_("areas at least"), 0, 1000) or 0,
            entrance,
            caves,
        )
        own = (
            services.own_table_upload(
                tables.filename or "",
                tables.file.read(services.MAX_UPLOAD * 4 + 1),
                weblang.current.get(),
            )
            if tables is not None and tables.filename
            else None
        )
        if own is None and table_set.strip():
            # started from the dungeon page: the own tables it rolled the dungeon on
            own = [{"name": n, "text": t} for n, t in sessions.table_set(table_set.strip())]
        state = sessions.new(options, name.strip(), own, referee=not no_referee)
        response = RedirectResponse(f"/play/{state.info.id}", status_code=303)
        remember_gm(response, state.info)
        return response

    def page(
        request: Request, state: Any, player: bool, status: int = 200, **extra: Any
    ) -> HTMLResponse:
        """The GM page (``play.html``) or the player page (``watch.html``) of ``state``."""
        code = weblang.current.get()
        info = state.info
        if player:
            template = "watch.html"
            base = f"/watch/{info.player_token}"
            links: dict[str, Any] = {"token": info.player_token}
        else:
            template = "play.html"
            base = f"/play/{info.id}"
            links = {
                "watch_url": str(request.url_for("watch_page", token=info.player_token)),
                "gm_url": str(request.url_for("gm_link", token=info.gm_token)),
            }
        data = _page_data(
            state,
            "player" if player else "gm",
            code,
            extra.pop("depth", None),
            extra.pop("area", None),
        )
        shown: HTMLResponse = pages.render(
            request,
            template,
            status=status,
            act_base=base,
            page_base=base,
            **links,
            **extra,
            **data,
        )
        return shown

    def form_step(request: Request, ref: str, kind: str, player: bool, form: Any) -> Response:
        """A step sent by the GM page or (``player``) the player page: its form fields in,
        a redirect to the page after it out (a conflict: the page as it is now, a 409)."""
        from kerker.play.store import ConflictError

        if player and kind not in PLAYER_ACTIONS:
            raise _refused(403, N_("players cannot do this"))
        fields = _fields(
            kind,
            form.exit,
            form.text,
            form.area,
            form.value,
            form.modifier,
            form.secret and not player,
            form.level,
            form.depth,
            form.side,
            form.item,
            form.dice,
        )
        seen = _form_int(form.expected, N_("expected"), 0, 10**9)
        gm = None if player else gm_credential(request, ref)
        try:
            state = sessions.act(ref, kind, seen, gm, player=player, **fields)
        except ConflictError as err:
            return page(
                request, err.state, player, status=409, conflict=err.message(weblang.gettext())
            )
        at = f"?depth={state.depth}" if state.depth else ""
        if kind in ("search", "take") and fields.get("area"):
            at += ("&" if at else "?") + f"area={fields['area']}"
        return RedirectResponse(f"/{'watch' if player else 'play'}/{ref}{at}", status_code=303)

    @app.get("/play/{session}", response_class=HTMLResponse, include_in_schema=False)
    def play_page(
        request: Request, session: str, depth: int | None = None, area: int | None = None
    ) -> HTMLResponse:
        state = sessions.state(session, gm_credential(request, session))
        return page(request, state, False, depth=depth, area=area)

    @app.post("/play/{session}/{kind}", include_in_schema=False)
    def play_action(
        request: Request, session: str, kind: str, form: Annotated[StepForm, Form()]
    ) -> Response:
        return form_step(request, session, kind, False, form)

    @app.get("/play/{session}/journal.md", include_in_schema=False)
    def play_journal_md(request: Request, session: str, view: str = "gm") -> Response:
        from kerker.play.journal import journal_md

        state = sessions.state(session, gm_credential(request, session))
        text = journal_md(state, services.registry(), weblang.current.get(), view=_view(view))
        return Response(
            text,
            media_type="text/markdown; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="session-{session}.md"'},
        )

    @app.get("/play/{session}/log.json", include_in_schema=False)
    def play_log(request: Request, session: str) -> Response:
        from kerker.play.api import export

        state = sessions.state(session, gm_credential(request, session))
        data = json.dumps(export(state), ensure_ascii=False, indent=1)
        return Response(
            data,
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="session-{session}.json"'},
        )

    @app.get(
        "/watch/{token}", response_class=HTMLResponse, include_in_schema=False, name="watch_page"
    )
    def watch_page(
        request: Request, token: str, depth: int | None = None, area: int | None = None
    ) -> HTMLResponse:
        return page(request, sessions.by_token(token), True, depth=depth, area=area)

    @app.post("/watch/{token}/{kind}", include_in_schema=False)
    def watch_action(
        request: Request, token: str, kind: str, form: Annotated[StepForm, Form()]
    ) -> Response:
        """A step of the players of a session without a referee (their own page)."""
        return form_step(request, token, kind, True, form)

    @app.get("/watch/{token}/events", include_in_schema=False)
    async def watch_events(request: Request, token: str) -> Response:
        state = await asyncio.to_thread(sessions.by_token, token)

        async def stream() -> AsyncIterator[bytes]:
            seen = state.seq
            yield f"retry: 2000\nevent: hello\ndata: {seen}\n\n".encode()
            loop = asyncio.get_running_loop()
            end = loop.time() + STREAM_LIFETIME
            with sessions.changes.subscribe(state.info.id) as changed:
                while loop.time() < end:
                    if await request.is_disconnected():
                        return
                    woken = await changed.wait()
                    now = await asyncio.to_thread(_seq_of, sessions, token)
                    if now is None:
                        return
                    if now != seen:
                        seen = now
                        yield f"event: changed\ndata: {now}\n\n".encode()
                    elif not woken:
                        yield b": still here\n\n"

        return StreamingResponse(
            stream(),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    _session_api(app, sessions)


# -- live updates across instances ------------------------------------------------------------


class Changes:
    """How a player stream learns that its session changed, in this process.

    On PostgreSQL one listener thread per instance (started with the first stream) holds a
    connection with ``LISTEN kerker_events`` (:func:`kerker.play.store.postgres.listen`);
    every committed append of any instance wakes the streams of that session at once, and
    a stream still looks every :data:`STREAM_KEEPALIVE` seconds in case the listener lost
    its server. On SQLite there is no notification between processes: a stream looks at
    the store every :data:`STREAM_POLL` seconds.
    """

    def __init__(self, db: str | Path | None) -> None:
        text = str(db) if db is not None else ""
        self.url = text if text.startswith(("postgresql://", "postgres://")) else None
        self.live = self.url is not None
        self._lock = threading.Lock()
        self._waiters: dict[str, set[_Waiter]] = {}
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def subscribe(self, session: str) -> _Waiter:
        """A waiter for changes of ``session`` (use it as a context manager)."""
        return _Waiter(self, session)

    def _add(self, waiter: _Waiter) -> None:
        with self._lock:
            self._waiters.setdefault(waiter.session, set()).add(waiter)
            if self.url is not None and self._thread is None:
                from kerker.play.store.postgres import listen

                self._thread = threading.Thread(
                    target=listen,
                    name="kerker-listen",
                    args=(self.url, self._changed, self._stop),
                    daemon=True,
                )
                self._thread.start()

    def _remove(self, waiter: _Waiter) -> None:
        with self._lock:
            group = self._waiters.get(waiter.session)
            if group is not None:
                group.discard(waiter)
                if not group:
                    del self._waiters[waiter.session]

    def _changed(self, session: str | None) -> None:
        """From the listener thread: wake the waiters of ``session`` (None: all)."""
        with self._lock:
            if session is None:
                woken = [w for group in self._waiters.values() for w in group]
            else:
                woken = list(self._waiters.get(session, ()))
        for waiter in woken:
            waiter.wake()

    def close(self) -> None:
        """Stop the listener thread (it ends within a second)."""
        self._stop.set()


class _Waiter:
    """One stream's subscription: :meth:`wait` returns True when woken by a change,
    False when its timeout passed (a wake between two waits is kept, never lost)."""

    def __init__(self, changes: Changes, session: str) -> None:
        self.changes = changes
        self.session = session
        self._event = asyncio.Event()
        self._loop = asyncio.get_running_loop()

    def __enter__(self) -> _Waiter:
        self.changes._add(self)
        return self

    def __exit__(self, *exc: object) -> None:
        self.changes._remove(self)

    def wake(self) -> None:
        """Thread-safe: wake this waiter (nothing once its event loop is closed)."""
        with suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._event.set)

    async def wait(self) -> bool:
        """Until woken, or :data:`STREAM_KEEPALIVE` (PostgreSQL) / :data:`STREAM_POLL`
        (SQLite) seconds."""
        timeout = STREAM_KEEPALIVE if self.changes.live else STREAM_POLL
        try:
            await asyncio.wait_for(self._event.wait(), timeout)
        except TimeoutError:
            return False
        self._event.clear()
        return True


def _seq_of(sessions: Sessions, token: str) -> int | None:
    from kerker.play.store import StoreError

    try:
        return int(sessions.store().head_by_token(token)[1])  # one row, not the whole log
    except StoreError:
        return None


def _view(view: str) -> str:
    if view not in ("gm", "player"):
        raise OptionError(
            N_("unknown {what} {value!r}; choose one of {choices}"),
            what=Word(N_("view")),
            value=view,
            choices="gm, player",
        )
    return view


SESSION_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": 'Not usable: `{"error": code, "message": line}`'},
    409: {
        "description": 'Another writer came first: `{"error": "conflict", "message",'
        ' "state"}` with the current state'
    },
    403: {
        "description": "A request from another site (its Origin is not this host), or a "
        "game master route without the game master token (header `X-Kerker-GM` or the "
        "cookie the creation set)"
    },
    404: {
        "description": 'No such route, or a wrong game master token: `{"error": "http", "message"}`'
    },
    413: {"description": "The body is larger than 256 KiB"},
    422: {
        "description": 'A field has the wrong type: `{"error", "message"}`; or real dice '
        'for a door ran out: `{"error": "dice_needed", "message", "needs"}`'
    },
    503: {
        "description": "The database was busy with other writers; nothing was written, "
        "try again (Retry-After)"
    },
}


SinceQuery = Annotated[
    int | None,
    Query(
        ge=0,
        le=10**9,
        description="The `seq` of an answer the client holds (same route, view and language): "
        'answer the delta since it (`"delta": true`); a whole answer when this instance '
        "does not know it",
    ),
]
SESSION_ANSWERS: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The session's view as `kerker play show --json` gives it, or with "
        '`since` a delta: `{"delta": true, "since", "seq", "set": {changed top-level values}, '
        '"unset": [keys], "levels": {"drop": [depths], "put": [whole levels], "patch": '
        '[{"depth", "set", "unset", "areas": {"drop": [ids], "put": [items], "order": [ids]}, '
        '"connections": {...}}], "order": [depths]}}` (docs/api.md, Deltas)',
        "content": {"application/json": {"schema": {"type": "object"}}},
    },
    **SESSION_ERRORS,
}


def _session_api(app: FastAPI, sessions: Sessions) -> None:
    from kerker.web import delta
    from kerker.web.app import dungeon_options

    kept = delta.Kept()
    sessions.answers = kept

    def answer(state: Any, view: str, since: int | None, status: int = 200) -> Response:
        """The ``view`` of ``state`` as a JSON answer: whole, or the delta from the answer
        of event ``since`` when this process made and kept that one (docs/api.md)."""
        from kerker.play.views import show

        lang = weblang.current.get()
        key = (state.info.id, state.info.created, view, lang)
        body, index = delta.encode(show(state, view, lang), kept.pieces(key))
        if index is not None and status == 200:
            old = kept.get(key, since) if since is not None else None
            digests = index.digested()
            kept.keep(key, state.seq, digests)
            if old is not None:
                body = delta.delta(old, index, digests, since or 0, state.seq)
        return Response(body, status_code=status, media_type="application/json")

    def acting(
        session: str,
        kind: str,
        body: dict[str, Any],
        request: Request | None,
        player: bool = False,
        since: int | None = None,
    ) -> Response:
        from kerker.play.store import ConflictError
        from kerker.tables.engine import MoreDiceNeeded

        expected = body.get("expected")
        if expected is not None and (not isinstance(expected, int) or isinstance(expected, bool)):
            raise OptionError(N_("expected takes the number of the last event seen"))
        fields = {k: v for k, v in body.items() if k != "expected"}
        if kind in ("open", "reroll") and not isinstance(fields.get("exit"), str | int):
            raise OptionError(N_("which exit? give its number or key"))
        try:
            typed = _fields(
                kind,
                _str(fields.get("exit")),
                _str(fields.get("text")),
                _str(fields.get("area")),
                _str(fields.get("value")),
                _str(fields.get("modifier")),
                fields.get("secret") is True and not player,
                _str(fields.get("level")),
                _str(fields.get("depth")),
                _str(fields.get("side")),
                _str(fields.get("item")),
                _entered(fields.get("entered")),
            )
            if kind in ("open", "reroll"):
                typed.update(_door_dice(fields.get("dice"), fields.get("rest")))
            gm = gm_credential(request, session) if request is not None and not player else None
            state = sessions.act(session, kind, expected, gm, player=player, **typed)
        except MoreDiceNeeded as err:
            # the next table roll behind the door needs a value: say which (nothing written)
            named = err.in_language(weblang.current.get())
            return JSONResponse(
                {**named.to_json(), "message": named.message(weblang.gettext())},
                status_code=422,
            )
        except ConflictError as err:
            import orjson

            whole = answer(err.state, "player" if player else "gm", None, status=409)
            return Response(
                orjson.dumps(
                    {
                        "error": "conflict",
                        "message": err.message(weblang.gettext()),
                        "state": orjson.Fragment(bytes(whole.body)),
                    }
                ),
                status_code=409,
                media_type="application/json",
            )
        return answer(state, "player" if player else "gm", since)

    @app.post("/api/sessions", responses=SESSION_ERRORS, tags=["sessions"])
    def api_new(response: Response, body: BodyDict = None) -> dict[str, Any]:
        """A new session; the body takes the options of `kerker play new` (rules, seed,
        levels, size "WxH", max_areas, min_areas, entrance, caves, name, `referee`: false
        to play without a game master) and `tables`, own table files as `[{"name", "text"}]`
        (YAML; linted, the first problem refused as a 400 `file:line:col: message`). The
        answer carries the `gm_token` (send it as the `X-Kerker-GM` header; a browser also
        gets it as a cookie)."""
        body = body or {}
        referee = body.get("referee", True)
        if not isinstance(referee, bool):
            raise OptionError(N_("referee takes true or false"))
        size = body.get("size")
        options = dungeon_options(
            str(body.get("rules", "zufallslabyrinth")),
            _int(body.get("seed"), "seed"),
            _int(body.get("levels"), "levels") or 1,
            str(size) if size is not None else None,
            _int(body.get("max_areas"), "max_areas") or 60,
            _int(body.get("min_areas"), "min_areas") or 0
            if body.get("min_areas") is not None
            else 10,
            str(body.get("entrance", "variant")),
            str(body.get("caves", "depth")),
        )
        own = body.get("tables")
        if own is not None and not isinstance(own, list):
            raise OptionError(N_('tables takes a list of {{"name", "text"}} objects'))
        state = sessions.new(options, str(body.get("name", "")).strip(), own, referee=referee)
        remember_gm(response, state.info)
        return {
            "session": state.info.id,
            "player_token": state.info.player_token,
            "gm_token": state.info.gm_token,
            "referee": state.info.referee,
            "rules": state.info.rules,
            "seed": state.info.seed,
        }

    @app.get("/api/sessions", tags=["sessions"])
    def api_list(request: Request) -> list[dict[str, Any]]:
        """The sessions this client holds the game master cookie of, the most recently
        played first."""
        return [
            {k: v for k, v in info.listing_json().items() if k not in ("player_token", "gm_token")}
            for info in sessions.listing(request)
        ]

    def api_state(
        request: Request, session: str, view: str = "gm", since: SinceQuery = None
    ) -> Response:
        """The session as `kerker play show --json` gives it (game master token needed);
        `since`: the delta from the answer of that event (docs/api.md)."""
        state = sessions.state(session, gm_credential(request, session))
        return answer(state, _view(view), since)

    app.get("/api/sessions/{session}", responses=SESSION_ANSWERS, tags=["sessions"])(
        _in_turn(api_state, sessions)
    )

    def step(kind: str, player: bool) -> Any:
        if player:

            def route(token: str, body: BodyDict = None, since: SinceQuery = None) -> Response:
                return acting(token, kind, body or {}, None, player=True, since=since)

        else:

            def route(  # type: ignore[misc]
                request: Request, session: str, body: BodyDict = None, since: SinceQuery = None
            ) -> Response:
                return acting(session, kind, body or {}, request, since=since)

        route.__doc__ = (
            (
                f"The `{kind}` step through the player link of a session without a referee "
                "(403 in a session with one); answers the players' view."
            )
            if player
            else (
                f"The `{kind}` step of `kerker play` (body: its fields, and "
                "`expected`: the number of the last event seen)."
            )
        ) + (
            " `since`: answer the delta from the answer of that event instead of the whole "
            "state (docs/api.md, Deltas)."
        )
        if kind in ("open", "reroll"):
            route.__doc__ += (
                " Real dice: `dice`, what they showed for the table rolls behind the door in "
                "order (`[12, 3, 5]`), and `rest`: true to let kerker roll those the list "
                "does not cover. When the list runs out without `rest`, a 422 "
                '`{"error": "dice_needed", "message", "needs": {"number", "dice", "table", '
                '"title"}}` names the next roll and nothing is written; a value the die '
                "cannot show is a 400."
            )
        return route

    for kind in ACTIONS:
        app.post(
            f"/api/sessions/{{session}}/{kind}",
            responses=SESSION_ANSWERS,
            tags=["sessions"],
            name=f"api_{kind}",
        )(_in_turn(step(kind, False), sessions))

    for kind in PLAYER_ACTIONS:
        app.post(
            f"/api/watch/{{token}}/{kind}",
            responses=SESSION_ANSWERS,
            tags=["players"],
            name=f"api_player_{kind}",
        )(_in_turn(step(kind, True), sessions))

    def api_watch(token: str, since: SinceQuery = None) -> Response:
        """The players' view of the session the player link reads; `since`: the delta from
        the answer of that event (docs/api.md)."""
        return answer(sessions.by_token(token), "player", since)

    app.get("/api/watch/{token}", responses=SESSION_ANSWERS, tags=["players"])(
        _in_turn(api_watch, sessions)
    )

    @app.get("/api/sessions/{session}/journal", responses=SESSION_ERRORS, tags=["sessions"])
    def api_journal(
        request: Request, session: str, format: str = "md", view: str = "gm"
    ) -> Response:
        """The journal as Markdown, or the whole log as JSON (`format=json`)."""
        from kerker.play.api import export
        from kerker.play.journal import journal_md

        state = sessions.state(session, gm_credential(request, session))
        if format == "json":
            return JSONResponse(export(state))
        if format != "md":
            raise OptionError(
                N_("unknown {what} {value!r}; choose one of {choices}"),
                what=Word(N_("format")),
                value=format,
                choices="md, json",
            )
        return Response(
            journal_md(state, services.registry(), weblang.current.get(), view=_view(view)),
            media_type="text/markdown; charset=utf-8",
        )


class StepForm(BaseModel):
    """The fields a step's form on the GM page or the player page may send (every one
    text as typed; :func:`_fields` checks them per kind)."""

    expected: str | None = None
    exit: str | None = None
    text: str | None = None
    area: str | None = None
    value: str | None = None
    modifier: str | None = None
    secret: bool = False
    level: str | None = None
    depth: str | None = None
    side: str | None = None
    item: str | None = None
    dice: str | None = None


NO_FILE: Any = File(None)
"""The default of an optional upload field (own tables of a new session)."""


def _door_dice(dice: Any, rest: Any) -> dict[str, Any]:
    """The ``dice``/``rest`` fields of an open or reroll body ({} without ``dice``)."""
    from kerker.play.events import MAX_DOOR_DICE

    if dice is None:
        return {}
    if (
        not isinstance(dice, list)
        or len(dice) > MAX_DOOR_DICE
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in dice)
    ):
        raise OptionError(
            N_("dice takes a list of at most {max} whole numbers (what real dice showed)"),
            max=MAX_DOOR_DICE,
        )
    if rest is not None and not isinstance(rest, bool):
        raise OptionError(N_("rest takes true or false"))
    return {"dice": dice, "rest": bool(rest)}


def _str(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, str | int):
        return str(value)
    raise OptionError(N_("a field takes a number or text, not {kind}"), kind=type(value).__name__)


def _entered(value: Any) -> str | None:
    """An API's ``entered`` faces (a list of whole numbers) as the form's text."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise OptionError(N_("entered takes a list of whole numbers"))
    return ",".join(str(v) for v in value)


def _int(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionError(N_("{what} takes a whole number"), what=what)
    return value


__all__ = ["Sessions", "exit_place", "session_routes", "with_exits"]
