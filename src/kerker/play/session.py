"""A play session: rule set, options, seed, versions, and the fold of its event log.

Nothing mutable is stored: :func:`fold` replays the log from the seed (a few milliseconds
for dozens of steps; bench/play.py measures it). :func:`propose` turns what a player wants
to do into the next :class:`~kerker.play.events.Event`, refusing in one line what the
session as it stands does not allow; the store appends it with the sequence number the
caller saw, so two writers cannot both append step 12.

Dice and checks are rolled when they are proposed, from a sub-seed of the session seed and
the event's number (or taken from the faces a player entered), and the event keeps the
totals; replay rolls them again and compares, so a changed dice engine is noticed.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, NoReturn

import kerker
from kerker.dice import entered as entered_dice
from kerker.dice.entered import EnteredDiceError, FacesRandom
from kerker.dice.roller import roll
from kerker.errors import N_, KerkerError, format_message
from kerker.play import engine_port as port
from kerker.play.events import FOUND_KINDS, MAX_DOOR_DICE, MAX_EVENTS, UNDOABLE, Event, EventError
from kerker.seeding import sub_seed
from kerker.tables.engine import Ask, EnteredPick, EnteredRolls, MoreDiceNeeded, entering
from kerker.tables.registry import RULES_DIR, Registry

OPTION_NAMES = ("levels", "size", "max_areas", "min_areas", "entrance", "caves")
"""The dungeon options a session records (those of ``kerker dungeon``)."""
OWN_TABLES = "tables"
"""The options' key of the session's own table files: ``[{"name", "text"}, ...]``."""
OWN_DIGEST = "tables_digest"
"""The options' key of the digest of those files (:func:`kerker.tables.owntexts.texts_digest`)."""


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a session opens read-only, said in the viewer's language (:meth:`message`).

    ``code`` tells the cases apart for programs: ``version`` (another kerker, the same rule
    data), ``rule_data`` (other rule data, the same kerker), ``version_and_rule_data``,
    ``tables_changed`` (its own table files are not those it was played with),
    ``tables_unloadable`` (its own table files do not load here). ``template`` is the
    English text marked for the catalogs, ``params`` fill it in (an error among them is
    said in the same language)."""

    code: str
    template: str
    params: tuple[tuple[str, Any], ...] = ()

    def message(self, translate: Any = None) -> str:
        """The reason, translated by ``translate`` (a gettext function) when given."""
        return format_message(self.template, dict(self.params), translate)

    def __str__(self) -> str:
        return self.message()


def reason(code: str, template: str, /, **params: Any) -> Reason:
    """A :class:`Reason` (``template`` marked with ``N_``)."""
    return Reason(code, template, tuple(params.items()))


class ReadOnlyError(KerkerError):
    """A session that can be read but not played on (its replay differs)."""

    code = "read_only"


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """What a session is made of besides its log."""

    id: str
    rules: str
    seed: int
    options: dict[str, Any]
    kerker_version: str
    rules_digest: str
    name: str = ""
    player_token: str = ""
    fingerprint: str = ""
    """Digest of the GM document after the last event (what replay must give again)."""
    created: str = ""
    updated: str = ""
    referee: bool = True
    """False: played without a game master (issue 14): every view is the players' and
    every step is checked against what the players can see."""
    gm_token: str = ""
    """The game master's secret (web GM pages and API); never exported."""

    @property
    def own_tables(self) -> list[tuple[str, str]]:
        """The session's own table files as (name, text), in the order they load."""
        return [(str(t["name"]), str(t["text"])) for t in self.options.get(OWN_TABLES) or ()]

    @property
    def tables_digest(self) -> str:
        """The digest of the own table files recorded when the session was made ("")."""
        return str(self.options.get(OWN_DIGEST) or "")

    def listing_json(self) -> dict[str, Any]:
        """:meth:`to_json` with the own tables' names instead of their texts (for lists)."""
        data = self.to_json()
        opts = dict(self.options)
        if OWN_TABLES in opts:
            opts[OWN_TABLES] = [name for name, _text in self.own_tables]
        data["options"] = opts
        return data

    def params(self) -> port.Params:
        """The engine parameters (checked)."""
        opts = dict(self.options)
        opts.pop(OWN_TABLES, None)
        opts.pop(OWN_DIGEST, None)
        size = opts.pop("size", None)
        if size is not None:
            opts["size"] = tuple(size)
        return port.Params(rules=self.rules, seed=self.seed, **opts).checked()

    def to_json(self) -> dict[str, Any]:
        """The session's header as exported (``journal --format json``, ``export``)."""
        return {
            "session": self.id,
            "name": self.name,
            "rules": self.rules,
            "seed": self.seed,
            "options": self.options,
            "kerker": self.kerker_version,
            "rules_digest": self.rules_digest,
            "fingerprint": self.fingerprint,
            "created": self.created,
            "updated": self.updated,
            "referee": self.referee,
        }


@lru_cache(maxsize=8)
def rules_digest(rules: str) -> str:
    """A digest of the shipped rule data a session of ``rules`` reads: its tables, the
    HPR check rules and the search rules (compiled JSON twins, sorted by path)."""
    h = hashlib.blake2b(digest_size=16)
    for folder in (RULES_DIR / rules, RULES_DIR / "hpr", RULES_DIR / "play"):
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.compiled.json")):
            h.update(str(path.relative_to(RULES_DIR)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def session_digest(rules: str, tables: Sequence[tuple[str, str]] = ()) -> str:
    """The rule data digest of a session: :func:`rules_digest` of the shipped data, and
    with own tables a digest of it and theirs."""
    from kerker.tables.owntexts import texts_digest

    shipped = rules_digest(rules)
    if not tables:
        return shipped
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{shipped}:{texts_digest(tables)}".encode())
    return h.hexdigest()


def _own_tables_option(raw: Any) -> list[tuple[str, str]]:
    """The own tables of a session's options (``[{"name", "text"}]``), shape checked."""
    if not isinstance(raw, list) or not all(
        isinstance(t, dict)
        and isinstance(t.get("name"), str)
        and isinstance(t.get("text"), str)
        and set(t) == {"name", "text"}
        for t in raw
    ):
        raise EventError(N_('own tables are a list of {{"name", "text"}} objects'))
    return [(t["name"], t["text"]) for t in raw]


def event_seed(info: SessionInfo, seq: int) -> int:
    """The sub-seed a free roll or check of event ``seq`` is rolled with."""
    return sub_seed(info.seed, "event", seq)  # kerker.seeding: the same bytes as before


class EnteredDice(FacesRandom):
    """A stand-in RNG that yields the faces a player rolled on real dice, in order
    (:class:`~kerker.dice.entered.FacesRandom`; check the faces first with
    :func:`check_entered`); running out is a one-line :class:`EventError`.
    """

    def exhausted(self) -> NoReturn:
        """Raise the one-line :class:`EventError` of a roll that needs more dice."""
        raise EventError(N_("the roll needs more dice than the {n} entered"), n=len(self.faces))


def check_entered(expr: str, faces: Sequence[int]) -> None:
    """Refuse, in one line (:class:`EventError`), faces the dice of ``expr`` cannot show (a
    W20 shows 1 to 20), the wrong number of faces, or an expression whose dice cannot be
    entered by hand (rerolls, explosions, keep/drop, W66: let kerker roll those); the
    checks of :func:`kerker.dice.entered.check_entered`."""
    try:
        entered_dice.check_entered(expr, faces)
    except EnteredDiceError as err:
        raise EventError(err.template, **err.params) from None


@dataclass
class PlayState:
    """A session folded: the dungeon as it stands and everything said and rolled."""

    info: SessionInfo
    events: list[Event]
    dungeon: port.DungeonState
    done: list[int] = field(default_factory=list)
    """Seqs of undoable events in effect, oldest first."""
    undone: list[int] = field(default_factory=list)
    """Seqs undone and not redone, the last undone last."""
    lapsed: list[int] = field(default_factory=list)
    """Seqs of opens whose exit a reroll before them removed (kept in the log, no effect)."""
    notes: list[Event] = field(default_factory=list)
    revealed: set[tuple[int, int | None, str | None]] = field(default_factory=set)
    hidden: set[tuple[int, int | None, str | None]] = field(default_factory=set)
    rerolls: dict[str, int] = field(default_factory=dict)
    made: dict[int, list[tuple[int, str]]] = field(default_factory=dict)
    """Seq of an open or enter -> (depth, engine area id) of the areas it made."""
    joined: dict[int, int] = field(default_factory=dict)
    """Seq of an open that made nothing -> the number of the known area it leads into."""
    ways: dict[int, tuple[str, int]] = field(default_factory=dict)
    """Seq of an open or enter -> (kind of the exit, number of the area it left)."""
    found: set[str] = field(default_factory=set)
    """Content marks (:func:`kerker.play.search.mark`) of hidden treasure found."""
    sprung: set[str] = field(default_factory=set)
    """Content marks of traps, tricks and trapped treasure that went off."""
    taken: set[str] = field(default_factory=set)
    """Content marks of treasure the players took."""
    depth: int = 1
    """The level last entered (what a view shows first)."""
    read_only: Reason | None = None
    """Why the session cannot be played on (in any language), or None."""
    registry: Registry | None = None
    """The tables the session was folded with (the shipped ones plus its own)."""
    door_dice: dict[str, Event] = field(default_factory=dict)
    """Exit key -> the open or reroll in effect whose entered dice roll behind it."""
    entered: dict[int, list[EnteredPick]] = field(default_factory=dict)
    """Seq of an open rolled with entered dice -> every table pick behind it, in order
    (entered, or rolled by kerker)."""
    trial: tuple[int, Ask | None] | None = None
    trial_rolls: EnteredRolls | None = None
    _frozen: Any = None
    _docs: dict[str, dict[str, Any]] = field(default_factory=dict)
    _prints: Any = None
    """What the last :func:`fingerprint` of this state hashed (:class:`_Prints`)."""
    _memo: Any = None
    """What the last GM documents of this state were made of
    (:class:`kerker.dungeon.export.DocumentMemo`)."""
    _seen: Any = None
    """What the players can see (:func:`kerker.play.views._visible`), made once per step."""

    @property
    def seq(self) -> int:
        """The number of the last event (0 for a new session)."""
        return self.events[-1].seq if self.events else 0

    @property
    def by_seq(self) -> dict[int, Event]:
        """Events by their number."""
        return {e.seq: e for e in self.events}

    def frozen(self) -> Any:
        """The dungeon as frozen values (:class:`kerker.dungeon.model.Dungeon`), made once:
        freezing settles the engine's state, so nothing is expanded after it."""
        if self._frozen is None:
            self._frozen = port.snapshot(self.dungeon)
        return self._frozen

    def document(self, lang: str = "en") -> dict[str, Any]:
        """The GM document (docs/dungeon-json.md) with texts in ``lang``, made once."""
        doc = self._docs.get(lang)
        if doc is None:
            from kerker.dungeon.export import DocumentMemo, to_document

            if self._memo is None:
                self._memo = DocumentMemo()
            doc = to_document(self.frozen(), lang, self._memo)
            if self.entered:
                _mark_entered(self, doc)
            self._docs[lang] = doc
        return doc


def fresh_document(state: PlayState, lang: str = "en") -> dict[str, Any]:
    """:meth:`PlayState.document` made from scratch, of a fresh snapshot, reusing nothing
    (what the incremental one must equal, byte for byte)."""
    from kerker.dungeon.export import to_document

    doc = to_document(state.dungeon.fresh_snapshot(), lang)
    if state.entered:
        _mark_entered(state, doc)
    return doc


def _mark_entered(state: PlayState, doc: dict[str, Any]) -> None:
    """Mark the roll-log entries of the areas an open with entered dice made as
    ``"entered": true`` (the picks in order, matched by table and dice)."""
    areas = {(lv["depth"], a["id"]): a for lv in doc["levels"] for a in lv["areas"]}
    for seq, picks in state.entered.items():
        at = 0
        for where in state.made.get(seq, []):
            area = areas.get(where)
            if area is None:
                continue
            for entry in area["rolls"]:
                for j in range(at, len(picks)):
                    if picks[j].table == entry["table"] and picks[j].dice == entry["dice"]:
                        at = j + 1
                        if picks[j].entered:
                            entry["entered"] = True
                        break


def fingerprint(state: PlayState) -> str:
    """A digest of the dungeon a session replays to: every area's kind, cells, contents'
    row keys and roll log (tables, dice, totals, rows), every connection's key, kind and
    ends, the exits still open. Made from the frozen dungeon, not a rendered document, so
    it costs a fraction of one and does not change with texts or the kerker version.

    Incremental (:class:`_Prints`): the bytes hashed are those of :func:`fresh_fingerprint`,
    in the same order (blake2b of their concatenation, so the digest stored sessions carry
    is unchanged); the hash goes on from its state after the longest run of leading pieces
    (level heads, frozen areas, each level's connections) the last digest of this state
    hashed too, and only the pieces after it are encoded."""
    prints: _Prints | None = state._prints
    if prints is None:
        prints = state._prints = _Prints()
    return prints.digest(state.frozen())


def fresh_fingerprint(state: PlayState) -> str:
    """:func:`fingerprint` made from scratch, of a fresh snapshot (the definition stored
    sessions carry; what the incremental one must equal)."""
    h = hashlib.blake2b(digest_size=16)
    dungeon = state.dungeon.fresh_snapshot()
    for level in dungeon.levels:
        h.update(f"L{level.depth}:{level.entrance}".encode())
        for a in level.areas:
            h.update(f"A{a.id}:{a.kind}:{a.shape}:{a.cells}".encode())
            for r in a.rolls:
                h.update(f"r{r.table}:{r.dice}:{r.roll}:{r.row}:{r.key}".encode())
            for t in a.contents:
                h.update(f"c{t.kind}:{t.result.key if t.result is not None else None}".encode())
        for c in level.connections:
            h.update(f"C{c.key}:{c.kind}:{c.from_}:{c.to}:{c.to_level}:{c.at}:{c.width}".encode())
        h.update(repr(level.unexplored).encode())
    return h.hexdigest()


def _area_bytes(a: Any) -> bytes:
    """What :func:`fresh_fingerprint` hashes of the frozen area ``a``."""
    parts = [f"A{a.id}:{a.kind}:{a.shape}:{a.cells}"]
    parts += [f"r{r.table}:{r.dice}:{r.roll}:{r.row}:{r.key}" for r in a.rolls]
    parts += [f"c{c.kind}:{c.result.key if c.result is not None else None}" for c in a.contents]
    return "".join(parts).encode()


def _conn_bytes(c: Any) -> bytes:
    """What :func:`fresh_fingerprint` hashes of the frozen connection ``c``."""
    return f"C{c.key}:{c.kind}:{c.from_}:{c.to}:{c.to_level}:{c.at}:{c.width}".encode()


class _Prints:
    """What a state's last fingerprint hashed, as pieces, with the hash after each: per
    level its head, each area (the frozen :class:`~kerker.dungeon.model.Area`), then its
    connections and open exits as one piece. A piece is the same when its area is the same
    object (or its connections are, and its open exits equal); only the pieces from the
    first that is not are hashed, from the bytes of each area and connection kept with the
    value (encoded once per frozen value: a snapshot keeps the values nothing changed)."""

    __slots__ = ("encoded", "hashes", "held", "pieces")

    def __init__(self) -> None:
        self.pieces: list[Any] = []
        self.hashes: list[Any] = []
        """The hash after each piece (a blake2b object, copied)."""
        self.encoded: dict[Any, bytes] = {}
        """A frozen area's place among the pieces, or a frozen connection's key -> the
        bytes of the value ``held`` holds there (one value per place and key: as many as
        the dungeon has, the last ones hashed)."""
        self.held: dict[Any, Any] = {}
        """Place or key -> the value ``encoded`` encoded (used only while it is the very
        value found there again)."""

    def digest(self, dungeon: Any) -> str:
        """The fingerprint of ``dungeon`` (a frozen :class:`~kerker.dungeon.model.Dungeon`)."""
        pieces: list[Any] = []
        for level in dungeon.levels:
            pieces.append(f"L{level.depth}:{level.entrance}".encode())
            pieces += level.areas
            pieces.append((level.connections, level.unexplored))
        old = self.pieces
        same = 0
        for was, now in zip(old, pieces, strict=False):
            if not _same_piece(was, now):
                break
            same += 1
        hashes = self.hashes[:same]
        h = hashes[-1].copy() if hashes else hashlib.blake2b(digest_size=16)
        encoded, held = self.encoded, self.held

        def bytes_of(key: Any, value: Any, encode: Any) -> bytes:
            if held.get(key) is value:
                return encoded[key]
            made: bytes = encode(value)
            encoded[key], held[key] = made, value
            return made

        for at in range(same, len(pieces)):
            piece = pieces[at]
            if type(piece) is bytes:
                h.update(piece)
            elif type(piece) is tuple:
                conns, unexplored = piece
                h.update(b"".join([bytes_of(c.key, c, _conn_bytes) for c in conns]))
                h.update(repr(unexplored).encode())
            else:
                h.update(bytes_of(at, piece, _area_bytes))
            hashes.append(h.copy())
        self.pieces, self.hashes = pieces, hashes
        return str(h.hexdigest())


def _same_piece(was: Any, now: Any) -> bool:
    """Whether two pieces of :class:`_Prints` hash the same bytes (as far as cheaply known)."""
    if was is now:
        return True
    if type(was) is bytes and type(now) is bytes:
        return was == now
    if type(was) is tuple and type(now) is tuple:
        return (
            len(was[0]) == len(now[0])
            and all(x is y for x, y in zip(was[0], now[0], strict=True))
            and was[1] == now[1]
        )
    return False


def _effective(events: list[Event]) -> tuple[list[int], list[int]]:
    done: list[int] = []
    undone: list[int] = []
    for e in events:
        if e.kind == "undo":
            if done:
                undone.append(done.pop())
        elif e.kind == "redo":
            if undone:
                done.append(undone.pop())
        elif e.kind in UNDOABLE:
            done.append(e.seq)
            undone.clear()
    return done, undone


def _door_dice(effect: list[Event]) -> dict[str, Event]:
    """Exit key -> the event whose entered dice roll what lies behind it: the last reroll
    in effect of that exit, else its open (only those that carry ``dice``)."""
    out: dict[str, Event] = {}
    for e in effect:
        if e.kind == "open" and "dice" in e.data:
            out.setdefault(e.data["exit"], e)
        elif e.kind == "reroll":
            if "dice" in e.data:
                out[e.data["exit"]] = e
            else:
                out.pop(e.data["exit"], None)
    return out


def fold(
    info: SessionInfo,
    events: list[Event],
    registry: Registry,
    *,
    trial: tuple[int, Ask | None] | None = None,
) -> PlayState:
    """Replay ``events`` from the session's seed. Refuses a log that is out of order or
    names exits that never existed (a foreign or tampered log) with :class:`EventError`.
    ``trial``: (seq, ask) of a proposed last event whose entered dice are being tried
    (``ask`` asks for the rolls beyond them; errors about the dice are not wrapped)."""
    if len(events) > MAX_EVENTS:
        raise EventError(N_("a session holds at most {max} events"), max=MAX_EVENTS)
    for n, e in enumerate(events, 1):
        if e.seq != n:
            raise EventError(N_("the log jumps from event {a} to {b}"), a=n - 1, b=e.seq)
    done, undone = _effective(events)
    by_seq = {e.seq: e for e in events}
    effect = [by_seq[s] for s in sorted([*done, *(e.seq for e in events if e.kind in FOUND_KINDS)])]
    rerolls: dict[str, int] = {}
    for e in effect:
        if e.kind == "reroll":
            rerolls[e.data["exit"]] = rerolls.get(e.data["exit"], 0) + 1
    dungeon = port.start(info.params(), info.seed, registry)
    state = PlayState(info, list(events), dungeon, done, undone, rerolls=rerolls)
    state.registry = registry
    state.door_dice = _door_dice(effect)
    state.trial = trial
    for e in effect:
        _apply(state, e)
    return state


def _expand(state: PlayState, e: Event, key: str) -> bool:
    """Expand ``key`` for the open ``e``, with the dice a player entered for it (those of
    its last reroll in effect, else its own) when there are any."""
    source = state.door_dice.get(key)
    if source is None or (source.kind == "open" and source.seq != e.seq):
        return port.expand(state.dungeon, key, state.rerolls.get(key, 0))
    trial = state.trial
    trying = trial is not None and trial[0] == source.seq
    rolls = EnteredRolls(
        source.data["dice"],
        rest=bool(source.data.get("rest")),
        ask=trial[1] if trial is not None and trying else None,
    )
    try:
        with entering(rolls):
            opened = port.expand(state.dungeon, key, state.rerolls.get(key, 0))
    except (MoreDiceNeeded, EnteredDiceError) as err:
        if trying:
            raise
        raise EventError(
            N_(
                "event {seq} ({kind}): its entered dice do not fit the rolls behind the "
                "door ({reason})"
            ),
            seq=source.seq,
            kind=source.kind,
            reason=str(err),
        ) from None
    state.entered[e.seq] = rolls.log
    if trying:
        state.trial_rolls = rolls
    elif rolls.left():
        raise EventError(
            N_("event {seq} ({kind}): {n} of its entered dice were not rolled behind the door"),
            seq=source.seq,
            kind=source.kind,
            n=rolls.left(),
        )
    return opened


def _apply(state: PlayState, e: Event) -> None:
    """What an event in effect does to the folded state (the dungeon, notes, marks)."""
    if e.kind in ("open", "enter"):
        dungeon = state.dungeon
        key = e.data["exit"]
        before = {(d, a) for d, lv in dungeon.levels.items() for a in lv.areas}
        known = port.describe(dungeon, key)
        if known is not None:
            state.ways[e.seq] = known
        if not _expand(state, e, key):
            state.lapsed.append(e.seq)
            return
        state.made[e.seq] = [
            (d, a)
            for d, lv in sorted(dungeon.levels.items())
            for a in lv.areas
            if (d, a) not in before
        ]
        if not state.made[e.seq]:
            joined = port.leads_to(dungeon, key)
            if joined is not None:
                state.joined[e.seq] = joined
        if e.kind == "enter":
            state.depth = e.data["level"]
    elif e.kind == "note":
        state.notes.append(e)
    elif e.kind == "search":
        for key in e.data["found"]:
            if "," in key:  # a secret door's connection key: found, shown like a reveal
                state.revealed.add((e.data["depth"], None, key))
                state.hidden.discard((e.data["depth"], None, key))
            else:
                state.found.add(key)
        state.sprung.update(e.data["sprung"])
    elif e.kind == "take":
        from kerker.play.search import mark as content_mark

        state.taken.add(content_mark(e.data["depth"], e.data["area"], e.data["item"]))
        state.sprung.update(e.data["sprung"])
    elif e.kind in ("reveal", "hide"):
        mark = (e.data["depth"], e.data["area"], e.data["exit"])
        (state.revealed if e.kind == "reveal" else state.hidden).add(mark)
        (state.hidden if e.kind == "reveal" else state.revealed).discard(mark)


def advance(state: PlayState, event: Event, registry: Registry) -> PlayState:
    """The state after ``event`` (the next in the log): what :func:`fold` of the log with it
    gives, made by applying it to ``state`` (which it takes over) where that is the same --
    a new step at the end -- and by folding again for undo, redo and reroll, which change
    what came before."""
    if event.seq != state.seq + 1:
        raise EventError(N_("the log jumps from event {a} to {b}"), a=state.seq, b=event.seq)
    if event.kind in ("undo", "redo", "reroll"):
        return fold(state.info, [*state.events, event], registry)
    state.events.append(event)
    if event.kind == "open" and "dice" in event.data:
        state.door_dice[event.data["exit"]] = event
    if event.kind in UNDOABLE:
        state.done.append(event.seq)
        state.undone.clear()
    state._frozen = None
    state._docs = {}
    state._seen = None
    _apply(state, event)
    return state


def new_info(
    session_id: str,
    rules: str,
    seed: int,
    options: dict[str, Any],
    *,
    name: str = "",
    player_token: str = "",
    now: str = "",
    referee: bool = True,
    gm_token: str = "",
) -> SessionInfo:
    """The header of a new session (options checked by the engine's parameters). Own
    table files come as ``options["tables"]`` (``[{"name", "text"}]``): capped in size,
    linted (the first problem refused as ``file:line:col: message``) and recorded with
    their digest (``options["tables_digest"]``)."""
    from kerker.tables.owntexts import refuse_bad, texts_digest

    unknown = sorted(set(options) - set(OPTION_NAMES) - {OWN_TABLES, OWN_DIGEST})
    if unknown:
        raise EventError(N_("unknown dungeon option {name!r}"), name=unknown[0])
    opts = {k: v for k, v in options.items() if k in OPTION_NAMES}
    tables = _own_tables_option(options[OWN_TABLES]) if options.get(OWN_TABLES) else []
    if tables:
        refuse_bad(tables)
        opts[OWN_TABLES] = [{"name": n, "text": t} for n, t in tables]
        opts[OWN_DIGEST] = texts_digest(tables)
    info = SessionInfo(
        session_id,
        rules,
        seed,
        opts,
        kerker.__version__,
        session_digest(rules, tables),
        name=name,
        player_token=player_token,
        created=now,
        updated=now,
        referee=referee,
        gm_token=gm_token,
    )
    info.params()
    return info


def verify(state: PlayState) -> PlayState:
    """Compare a replayed session with what it recorded; on a difference it opens
    read-only (:attr:`PlayState.read_only` says why), never as a silently other dungeon."""
    from kerker.tables.owntexts import texts_digest

    info = state.info
    if not info.fingerprint or state.read_only:
        return state
    tables = info.own_tables
    same_data = info.kerker_version == kerker.__version__ and info.rules_digest == (
        session_digest(info.rules, tables)
    )
    if same_data:
        return state
    if fingerprint(state) != info.fingerprint:
        state.read_only = _why(info, texts_digest(tables) if tables else "")
    return state


def _why(info: SessionInfo, tables_now: str) -> Reason:
    """Why a session that replays to another dungeon here does: its own tables changed,
    another kerker, other rule data, or both."""
    if tables_now and tables_now != info.tables_digest:
        return reason(
            "tables_changed",
            N_(
                "its own tables are not those it was played with (digest {was}, now "
                "{now}); replayed here it gives another dungeon"
            ),
            was=info.tables_digest[:12],
            now=tables_now[:12],
        )
    other_version = info.kerker_version != kerker.__version__
    other_data = info.rules_digest != session_digest(info.rules, info.own_tables)
    if other_version and not other_data:
        return reason(
            "version",
            N_("made with kerker {version}; replayed with kerker {now} it gives another dungeon"),
            version=info.kerker_version,
            now=kerker.__version__,
        )
    if other_data and not other_version:
        return reason(
            "rule_data",
            N_(
                "made with other rule data (digest {was}, now {now}); replayed here it "
                "gives another dungeon"
            ),
            was=info.rules_digest[:12],
            now=session_digest(info.rules, info.own_tables)[:12],
        )
    return reason(
        "version_and_rule_data",
        N_(
            "made with kerker {version} and other rule data; replayed here it gives another dungeon"
        ),
        version=info.kerker_version,
    )


# -- proposing the next event -------------------------------------------------------------


def _exit_key(state: PlayState, exit_: str, *, opened: bool = False) -> str:
    """An exit named by its number in :func:`views.open_exits`, its key, or ``next``."""
    from kerker.play.views import open_exit_list

    if opened:
        if port.exit_known(state.dungeon, exit_):
            return exit_
        raise EventError(N_("no exit {exit!r} in this session"), exit=exit_)
    if exit_ == "next":
        key = port.next_exit(state.dungeon)
        if key is not None and not state.info.referee:
            exits = open_exit_list(state, "gm")
            if all(e["key"] != key for e in exits):
                # without a referee the walk's next exit may be a secret door nobody found:
                # take the players' exit made last instead (depth first as they see it)
                key = str(exits[-1]["key"]) if exits else None
        if key is None:
            raise EventError(N_("no exit is open"))
        return key
    exits = open_exit_list(state, "gm")
    if exit_.isdigit():
        for item in exits:
            if str(item["number"]) == exit_:
                return str(item["key"])
        raise EventError(N_("no open exit number {exit}; {n} are open"), exit=exit_, n=len(exits))
    for item in exits:
        if item["key"] == exit_:
            return exit_
    raise EventError(N_("no open exit {exit!r}"), exit=exit_)


def _area_exists(state: PlayState, depth: int, number: int) -> None:
    for level in state.document()["levels"]:
        if level["depth"] == depth and any(a["number"] == number for a in level["areas"]):
            return
    raise EventError(N_("no area {number} on level {depth}"), number=number, depth=depth)


def _level_area(state: PlayState, depth: int, number: int) -> tuple[dict[str, Any], Any]:
    """The GM document's level ``depth`` and its area ``number``; refuses one that does not
    exist or, without a referee, that the players cannot see (the same words either way)."""
    if not state.info.referee:
        from kerker.play.views import _visible

        if (depth, number) not in _visible(state):
            raise EventError(N_("no area {number} on level {depth}"), number=number, depth=depth)
    for level in state.document()["levels"]:
        if level["depth"] == depth:
            for area in level["areas"]:
                if area["number"] == number:
                    return level, area
    raise EventError(N_("no area {number} on level {depth}"), number=number, depth=depth)


def known_marks(state: PlayState) -> set[str]:
    """Everything already found or sprung: secret doors shown, content marks."""
    return {key for _d, _a, key in state.revealed if key} | state.found | state.sprung


def takeable(state: PlayState, depth: int, number: int) -> list[int]:
    """Content indexes of the treasures in area ``number`` the players can take now: not
    taken, and not hidden unless found."""
    from kerker.play.search import mark

    _level, area = _level_area(state, depth, number)
    out = []
    for i, content in enumerate(area["contents"]):
        m = mark(depth, number, i)
        if content["kind"] != "treasure" or m in state.taken:
            continue
        if content.get("hidden") and m not in state.found:
            continue
        out.append(i)
    return out


NO_REFEREE_REFUSED = frozenset({"reveal", "hide"})
"""Kinds only a game master may do (a session without one refuses them)."""


def propose(state: PlayState, kind: str, registry: Registry, **fields: Any) -> Event:
    """The event ``kind`` with ``fields`` as it would be appended next, rolled and checked
    against the session as it stands. Refuses with :class:`EventError` (one line) what
    cannot be done, :class:`ReadOnlyError` on a read-only session.

    ``open`` / ``reroll``: ``exit`` (number, key, ``next``); ``note``: ``text``, optional
    ``depth``/``area``; ``roll``: ``expr``, optional ``entered`` faces; ``table``: ``table``;
    ``check``: ``value``, optional ``modifier``, ``secret``, ``entered`` faces;
    ``reveal``/``hide``: ``depth`` and ``area`` or ``exit``; ``enter``: ``level``.
    """
    if state.read_only:
        raise ReadOnlyError(N_("this session is read-only: {reason}"), reason=state.read_only)
    if len(state.events) >= MAX_EVENTS:
        raise EventError(N_("a session holds at most {max} events"), max=MAX_EVENTS)
    seq = state.seq + 1
    data: dict[str, Any]
    if not state.info.referee and kind in NO_REFEREE_REFUSED:
        raise EventError(
            N_("without a game master nobody reveals or hides: find things by searching")
        )
    if kind == "open":
        data = {"exit": _exit_key(state, str(fields["exit"]))}
        data.update(_door_dice_fields(state, Event(seq, kind, data), registry, fields))
    elif kind == "reroll":
        opens = [
            state.by_seq[s].data["exit"]
            for s in state.done
            if state.by_seq[s].kind in ("open", "enter") and s not in state.lapsed
        ]
        wanted = str(fields["exit"])
        if wanted == "last":
            if not opens:
                raise EventError(N_("no exit has been opened: nothing to reroll"))
            wanted = opens[-1]
        key = wanted
        if key not in opens:
            raise EventError(N_("exit {exit!r} has not been opened: nothing to reroll"), exit=key)
        data = {"exit": key}
        data.update(_door_dice_fields(state, Event(seq, kind, data), registry, fields))
    elif kind == "undo":
        if not state.done:
            raise EventError(N_("nothing to undo"))
        data = {}
    elif kind == "redo":
        if not state.undone:
            raise EventError(N_("nothing to redo"))
        data = {}
    elif kind == "note":
        text = str(fields["text"]).strip()
        if not text:
            raise EventError(N_("a note needs some text"))
        depth, area = fields.get("depth"), fields.get("area")
        if area is not None:
            depth = depth or state.depth
            if state.info.referee:
                _area_exists(state, int(depth), int(area))
            else:  # only an area the players can see (the same refusal as for none)
                _level_area(state, int(depth), int(area))
        data = {"text": text, "depth": depth, "area": area}
    elif kind == "roll":
        expr = str(fields["expr"])
        entered = fields.get("entered")
        if entered is not None:
            entered = [int(f) for f in entered]
            check_entered(expr, entered)
            thrown = roll(expr, EnteredDice(entered))
        else:
            thrown = roll(expr, random.Random(event_seed(state.info, seq)))
        data = {"expr": expr, "entered": entered, "total": thrown.total}
    elif kind == "table":
        from kerker.tables.engine import roll_table

        table = str(fields["table"])
        entered = fields.get("entered")
        rng = table_rng(state.info, seq, registry, table, entered)
        result, _log = roll_table(registry, table, rng, context={"level": state.depth})
        data = {
            "table": table,
            "level": state.depth,
            "entered": None if entered is None else [int(f) for f in entered],
            "total": result.pick.total,
        }
    elif kind == "search":
        from kerker.play.search import search

        depth = int(fields.get("depth") or state.depth)
        number = int(fields["area"])
        level, area = _level_area(state, depth, number)
        side = fields.get("side")
        entered = fields.get("entered")
        entered = None if entered is None else [int(f) for f in entered]
        value = fields.get("value")
        value = None if value is None else int(value)
        modifier = int(fields.get("modifier") or 0)
        found = search(
            state.info,
            seq,
            level,
            area,
            None if side is None else str(side),
            known=known_marks(state),
            entered=entered,
            value=value,
            modifier=modifier,
            registry=registry,
        )
        data = {
            "depth": depth,
            "area": number,
            "side": side,
            "entered": entered,
            "value": value,
            "modifier": modifier,
            "rolls": found.rolls,
            "check": found.check,
            "found": found.found,
            "sprung": found.sprung,
            "monster": found.monster,
        }
    elif kind == "take":
        from kerker.play.search import mark

        depth = int(fields.get("depth") or state.depth)
        number = int(fields["area"])
        _level, spot = _level_area(state, depth, number)
        items = takeable(state, depth, number)
        pick = int(fields.get("item") or 1)
        if not 1 <= pick <= len(items):
            raise EventError(
                N_("no treasure {item} to take in area {area} ({n} there)"),
                item=pick,
                area=number,
                n=len(items),
            )
        index = items[pick - 1]
        m = mark(depth, number, index)
        trapped = spot["contents"][index].get("trapped") and m not in state.sprung
        data = {"depth": depth, "area": number, "item": index, "sprung": [m] if trapped else []}
    elif kind == "check":
        if fields.get("secret") and not state.info.referee:
            raise EventError(N_("without a game master a check is open: nobody rolls it secretly"))
        result = roll_check(
            state.info,
            seq,
            int(fields["value"]),
            int(fields.get("modifier") or 0),
            bool(fields.get("secret")),
            fields.get("entered"),
        )
        data = {
            "value": result.value,
            "modifier": result.modifier,
            "secret": result.secret,
            "entered": fields.get("entered"),
            "outcome": result.outcome.value,
        }
    elif kind in ("reveal", "hide"):
        depth = int(fields.get("depth") or state.depth)
        area, exit_ = fields.get("area"), fields.get("exit")
        if (area is None) == (exit_ is None):
            raise EventError(N_("{kind} takes an area number or an exit key"), kind=kind)
        if area is not None:
            _area_exists(state, depth, int(area))
            area = int(area)
        else:
            exit_ = _exit_key(state, str(exit_), opened=True)
            depth = int(exit_.split(":", 1)[0])
        data = {"depth": depth, "area": area, "exit": exit_}
    elif kind == "enter":
        from kerker.play.views import open_exit_list

        goal = int(fields["level"])
        ways = [e["key"] for e in open_exit_list(state, "gm") if e["to_level"] == goal]
        if not ways:
            raise EventError(N_("no open way leads to level {level}"), level=goal)
        data = {"level": goal, "exit": ways[0]}
    else:
        raise EventError(N_("unknown event kind {kind!r}"), kind=kind)
    return Event(seq, kind, data)


def _door_dice_fields(
    state: PlayState, event: Event, registry: Registry, fields: dict[str, Any]
) -> dict[str, Any]:
    """The ``dice``/``rest`` fields of an open or reroll with entered dice (``fields``:
    ``dice``, the faces in order; ``rest``, let kerker roll what they do not cover;
    ``ask``, a callable asking a player for each further roll), tried on a replay of the
    session: refuses a face its die cannot show, dice left over, and (without ``rest`` or
    ``ask``) running out (:class:`MoreDiceNeeded`, naming the next roll), writing nothing.
    {} without dice."""
    dice, ask = fields.get("dice"), fields.get("ask")
    if dice is None and ask is None:
        return {}
    values = [] if dice is None else list(dice)
    if len(values) > MAX_DOOR_DICE or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in values
    ):
        raise EventError(
            N_("the dice entered for a door are at most {max} whole numbers"), max=MAX_DOOR_DICE
        )
    rest = bool(fields.get("rest"))
    tried = Event(event.seq, event.kind, {**event.data, "dice": values, "rest": rest})
    trial = fold(state.info, [*state.events, tried], registry, trial=(event.seq, ask))
    rolls = trial.trial_rolls
    used = 0 if rolls is None else rolls.used
    if used < len(values):
        raise EventError(
            N_("the rolls behind this door took {n} of the {m} dice entered"),
            n=used,
            m=len(values),
        )
    return {"dice": values if rolls is None else rolls.values[:used], "rest": rest}


def table_rng(
    info: SessionInfo, seq: int, registry: Registry, table: str, entered: Sequence[int] | None
) -> random.Random:
    """The dice of the free table roll of event ``seq``: its sub-seed, or the faces a player
    rolled for the table's own die (its follow-up tables are then rolled from the sub-seed).
    Refuses entered faces for a table rolled by weights or with dice that cannot be entered,
    and faces its die cannot show."""
    seeded = random.Random(event_seed(info, seq))
    if entered is None:
        return seeded
    spec = registry.get(table)
    dice = spec.dice
    if dice is None or "{" in dice:
        raise EventError(
            N_("table {table} is not rolled with one plain die expression; let kerker roll it"),
            table=table,
        )
    check_entered(dice, [int(f) for f in entered])
    return EnteredDice([int(f) for f in entered], then=seeded)


def roll_check(
    info: SessionInfo,
    seq: int,
    value: int,
    modifier: int,
    secret: bool,
    entered: Sequence[int] | None,
) -> Any:
    """The HPR check (seed 003) of event ``seq``: rolled from its sub-seed, or decided by
    the check die's faces a player entered (first roll, then the confirmation after a 1 or
    a 20). Refuses faces the check die cannot show."""
    from kerker.checks.data import load_rules
    from kerker.checks.hpr import check

    if entered is not None:
        die = load_rules().die
        for face in entered:
            check_entered(die, [face])
        rng: random.Random = EnteredDice([int(f) for f in entered])
    else:
        rng = random.Random(event_seed(info, seq))
    try:
        result = check(value, modifier, rng, secret=secret)
    except EventError:
        raise EventError(
            N_(
                "after a {best} or a {worst} the check needs a confirmation "
                "roll: enter both dice (e.g. 20,7)"
            ),
            best=load_rules().best,
            worst=load_rules().worst,
        ) from None
    if isinstance(rng, EnteredDice) and rng.used != len(rng.faces):
        raise EventError(
            N_("the check used {n} of the {m} dice entered"), n=rng.used, m=len(rng.faces)
        )
    return result


def with_fingerprint(info: SessionInfo, state: PlayState) -> SessionInfo:
    """``info`` recording the fingerprint of ``state``'s document."""
    return replace(info, fingerprint=fingerprint(state))
