"""Fine-tuning a prowl (seed 004, step 7): a budget of Reputation × accesses, then only
redistribution.

Operations are written as words (docs/prowl.md, "Fine-tuning"): ``raise-room R3``,
``patrol C2``, ``swap-attributes matrix discretion`` ... :func:`parse_operations` reads them
from command-line words, :func:`tune` applies them in order. Each operation either applies
completely -- a new :class:`~kerker.prowl.model.Prowl` with one more entry in the tuning
log -- or is refused with a :class:`TuningError` that says why; a refused operation changes
nothing. Costs come from the tables ``mazeprowl/fine-tuning`` and ``redistribution``; the
caps (Reputation + 5) always hold; dice rolled by an operation are logged with it. The dice
of operation ``n`` come from the plan's ``tune_seed`` and ``n``, so the same plan and the
same operations give the same result.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from types import MappingProxyType
from typing import Any, TypeVar

from kerker.errors import N_, KerkerError
from kerker.i18n import language_of
from kerker.prowl.generate import (
    Rules,
    challenge_from,
    draw_faction,
    make_challenge,
    make_door,
    roll_challenges,
    sub_rng,
)
from kerker.prowl.layout import below
from kerker.prowl.model import (
    FRIENDLY,
    HOSTILE,
    NOSEC,
    PATROL,
    PHASE_BUDGET,
    PHASE_REDISTRIBUTION,
    SECURITY_KEYS,
    STATIONED,
    Challenge,
    Connection,
    Faction,
    Prowl,
    ProwlError,
    Room,
    TuneEntry,
    id_number,
)
from kerker.tables.engine import roll_table
from kerker.tables.registry import Registry, load_registry


@dataclass(frozen=True, slots=True)
class RuleName:
    """A rule text of a plan as a message parameter: said in the message's language, short as
    the plan's change lines name it (up to its first comma), the key when the plan has no
    text for it."""

    texts: Mapping[str, str]
    key: str

    def message(self, translate: Callable[[str], str] | None = None) -> str:
        """The name in the language of ``translate`` (English, then any, when missing)."""
        for code in (language_of(translate), "en", *self.texts):
            if code in self.texts:
                return self.texts[code].split(",")[0].split(" (")[0].rstrip(".")
        return self.key


class TuningError(ProwlError):
    """A fine-tuning operation that cannot be applied (the message says why; ``op``, when
    set, names the operation in front of it)."""

    code = "prowl_tuning"

    def __init__(self, template: str, /, *, op: str = "", **params: Any) -> None:
        self.op = op
        super().__init__(template, **params)

    def message(self, translate: Callable[[str], str] | None = None) -> str:
        text = super().message(translate)
        return f"{self.op}: {text}" if self.op else text


@dataclass(frozen=True, slots=True)
class Operation:
    """One fine-tuning operation: a verb and its words."""

    verb: str
    args: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The operation as it is written and logged: ``raise-room R3``."""
        return " ".join((self.verb, *self.args))


@dataclass
class _Step:
    """What one operation did: the rule key, its cost, the changes and the dice."""

    rules: Rules
    rng: random.Random
    key: str = ""
    cost: int = 0
    changes: list[str] = field(default_factory=list)
    rolls: list[dict[str, Any]] = field(default_factory=list)
    texts: dict[str, Any] = field(default_factory=dict)


Handler = Callable[[Prowl, tuple[str, ...], _Step], Prowl]


@dataclass(frozen=True, slots=True)
class Verb:
    """An operation's syntax: its words (for help and errors) and argument counts."""

    usage: str
    low: int
    high: int
    handler: Handler
    redistribution: bool = False


# -- finding things ---------------------------------------------------------------------------

_ID = re.compile(r"^([A-Za-z])(\d{1,4})$")


def _id(word: str, letter: str) -> str | None:
    match = _ID.match(word)
    if match and match.group(1).upper() == letter:
        return f"{letter}{int(match.group(2))}"
    return None


T = TypeVar("T")


def _named(word: str, letter: str, get: Callable[[str], T], not_one: str, missing: str) -> T:
    """The part of the plan ``word`` names (``R3`` with ``letter`` "R"), looked up by
    ``get``; refuses a word of another form (``not_one``, with ``word``) and an id the plan
    has not (``missing``, with ``id``)."""
    ident = _id(word, letter)
    if ident is None:
        raise TuningError(not_one, word=word)
    try:
        return get(ident)
    except ProwlError:
        raise TuningError(missing, id=ident) from None


def _room(p: Prowl, word: str) -> Room:
    return _named(
        word,
        "R",
        p.room,
        N_("{word!r} is not a room (write R1, R2, ...)"),
        N_("there is no room {id}"),
    )


def _challenge(p: Prowl, word: str) -> Challenge:
    return _named(
        word,
        "C",
        p.challenge,
        N_("{word!r} is not a challenge (write C1, C2, ...)"),
        N_("there is no challenge {id}"),
    )


def _door(p: Prowl, word: str) -> Connection:
    return _named(
        word,
        "D",
        p.connection,
        N_("{word!r} is not a door (write D1, D2, ...)"),
        N_("there is no door {id}"),
    )


def _faction(p: Prowl, word: str) -> Faction:
    return _named(
        word,
        "F",
        p.faction,
        N_("{word!r} is not a faction in play (write F1, F2, ...)"),
        N_("there is no faction {id} in play"),
    )


def attribute_key(p: Prowl, word: str) -> str:
    """The attribute a word names: a key, the start of a key (``matrix``) or a name in any
    language (``Diskretion``). Refuses unknown and ambiguous words."""
    wanted = word.strip().lower().replace("-", "_")
    keys = [key for key, _value in p.attributes]
    if wanted in keys:
        return wanted
    names = {
        key: {
            key,
            *(t.lower() for t in p.texts.get(f"mazeprowl/prowl-attributes:{key}", {}).values()),
        }
        for key in keys
    }
    exact = [key for key in keys if wanted in names[key]]
    if len(exact) == 1:
        return exact[0]
    found = [key for key in keys if any(n.startswith(wanted) for n in names[key])] if wanted else []
    if len(found) == 1:
        return found[0]
    if not found:
        raise TuningError(
            N_("unknown attribute {word!r}; the attributes are {keys}"),
            word=word,
            keys=", ".join(keys),
        )
    raise TuningError(N_("{word!r} could mean {keys}"), word=word, keys=", ".join(found))


def _set_attribute(p: Prowl, key: str, value: int) -> Prowl:
    return replace(p, attributes=tuple((k, value if k == key else v) for k, v in p.attributes))


def _with_challenges(p: Prowl, challenges: Sequence[Challenge]) -> Prowl:
    """The prowl with these challenges, in room order and then by number."""
    order = {room.id: i for i, room in enumerate(p.rooms)}
    ordered = sorted(challenges, key=lambda c: (order.get(c.room, len(order)), id_number(c.id)))
    return replace(p, challenges=tuple(ordered))


def _swap_in(p: Prowl, new: Challenge) -> Prowl:
    return _with_challenges(p, [new if c.id == new.id else c for c in p.challenges])


def _cap(p: Prowl, rules: Rules, room: Room) -> int:
    return rules.level_cap(p.reputation, max(1, room.security))


def _moved(challenge: Challenge, room: str, step: _Step) -> Challenge:
    """A challenge in a new room; a patrol whose route misses the room is stationed again."""
    if challenge.mode == PATROL and room not in challenge.route:
        step.changes.append(f"{challenge.id}: {PATROL} -> {STATIONED}")
        return replace(challenge, room=room, mode=STATIONED, route=())
    return replace(challenge, room=room)


# -- the operations ---------------------------------------------------------------------------


def _patrol(p: Prowl, args: tuple[str, ...], step: _Step) -> Prowl:
    challenge = _challenge(p, args[0])
    if not challenge.mobile:
        raise TuningError(
            N_("{id} ({name}) in {room} cannot move; only mobile challenges patrol"),
            id=challenge.id,
            name=RuleName(
                p.texts.get(f"{challenge.table}:{challenge.subtype}", {}), challenge.subtype
            ),
            room=challenge.room,
        )
    if challenge.mode == PATROL:
        raise TuningError(N_("{id} already patrols"), id=challenge.id)
    low, high = step.rules.limit("patrol_route")
    if len(args) > 1:
        route = [_room(p, word).id for word in args[1:]]
        if challenge.room not in route:
            raise TuningError(
                N_("the route of {id} must pass through its room {room}"),
                id=challenge.id,
                room=challenge.room,
            )
        if len(set(route)) != len(route):
            raise TuningError(
                N_("a patrol route visits each room once (it is walked back and forth)")
            )
        for here, there in pairwise(route):
            if there not in p.neighbours(here):
                raise TuningError(
                    N_(
                        "{a} and {b} are not connected; a route goes from room to neighbouring room"
                    ),
                    a=here,
                    b=there,
                )
    else:
        route = [challenge.room]
        for _side in range(2):
            ends = [route[0], route[-1]]
            options = [(end, n) for end in ends for n in p.neighbours(end) if n not in route]
            if not options:
                break
            end, nxt = options[below(step.rng, len(options))]
            if end == route[0]:
                route.insert(0, nxt)
            else:
                route.append(nxt)
        if len(route) < 2:
            raise TuningError(
                N_("{room} has no neighbouring room to patrol through"), room=challenge.room
            )
    if not low <= len(route) <= high:
        raise TuningError(N_("a patrol route runs through {min} to {max} rooms"), min=low, max=high)
    step.key = "switch_to_patrol"
    step.changes.append(f"{challenge.id}: {STATIONED} -> {PATROL} " + "-".join(route))
    return _swap_in(p, replace(challenge, mode=PATROL, route=tuple(route)))


def _swap_attributes(p: Prowl, args: tuple[str, ...], step: _Step) -> Prowl:
    a, b = attribute_key(p, args[0]), attribute_key(p, args[1])
    if a == b:
        raise TuningError(N_("swap two different attributes"))
    va, vb = p.attribute(a), p.attribute(b)
    step.key = "swap_attributes"
    step.changes.append(f"{a} {va} <-> {b} {vb}")
    return _set_attribute(_set_attribute(p, a, vb), b, va)


def _swap_challenges(p: Prowl, args: tuple[str, ...], step: _Step) -> Prowl:
    a, b = _challenge(p, args[0]), _challenge(p, args[1])
    if a.room == b.room:
        raise TuningError(
            N_("{a} and {b} are both in {room}; swap challenges of two rooms"),
            a=a.id,
            b=b.id,
            room=a.room,
        )
    step.key = "swap_challenges"
    step.changes.append(f"{a.id} {a.room} -> {b.room}, {b.id} {b.room} -> {a.room}")
    new_a, new_b = _moved(a, b.room, step), _moved(b, a.room, step)
    return _swap_in(_swap_in(p, new_a), new_b)


def _move(p: Prowl, args: tuple[str, ...], step: _Step) -> Prowl:
    challenge, room = _challenge(p, args[0]), _room(p, args[1])
    if room.id == challenge.room:
        raise TuningError(N_("{id} is already in {room}"), id=challenge.id, room=room.id)
    if room.security == NOSEC:
        raise TuningError(N_("{room} is a NoSec room; it holds no challenges"), room=room.id)
    step.key = "move_challenge"
    step.changes.append(f"{challenge.id} {challenge.room} -> {room.id}")
    return _swap_in(p, _moved(challenge, room.id, step))


def _reroll_attribute(p: Prowl, args: tuple[str, ...], step: _Step) -> Prowl:
    key = attribute_key(p, args[0])
    old = p.attribute(key)
    new = step.rules.rw(p.reputation, step.rng, f"attribute {key}", step.rolls)
    step.key = "reroll_attribute"
    step.changes.append(f"{key} {old} -> {new}")
    return _set_attribute(p, key, new)


def _doors_recomputed(p: Prowl, rules: Rules, door_rw: int) -> tuple[Connection, ...]:
    out = []
    for conn in p.connections:
        if conn.door and conn.kind is not None:
            strength = rules.door_strength(p.reputation, conn.kind, door_rw, conn.bonus)
            conn = replace(conn, strength=strength)
        out.append(conn)
    return tuple(out)


def _reroll_doors(p: Prowl, args: tuple[str, ...], step: _Step) -> Prowl:
    new_rw = step.rules.rw(p.reputation, step.rng, "door strength", step.rolls)
    step.key = "reroll_door_strength"
    step.changes.append(f"door RW {p.door_rw} -> {new_rw}")
    return replace(p, door_rw=new_rw, connections=_doors_recomputed(p, step.rules, new_rw))


def _reinforce(p: Prowl, args: tuple[str, ...], step: _Step) -> Prowl:
    step.key = "reinforce"
    word = args[0]
    if _id(word, "D") is not None:
        conn = _door(p, word)
        if not conn.door or conn.kind is None or conn.strength is None:
            raise TuningError(
                N_("{id} is an open passage; it has no door to reinforce"), id=conn.id
            )
        cap = step.rules.door_cap(p.reputation, conn.kind)
        new = step.rules.door_strength(p.reputation, conn.kind, p.door_rw, conn.bonus + 1)
        if new <= conn.strength:
            raise TuningError(
                N_("{id} is already at the cap of {cap} (Reputation + 5)"), id=conn.id, cap=cap
            )
        step.changes.append(f"{conn.id} {conn.strength} -> {new}")
        conns = tuple(
            replace(c, bonus=c.bonus + 1, strength=new) if c.id == conn.id else c
            for c in p.connections
        )
        return replace(p, connections=conns)
    challenge = _challenge(p, word)
    cap = _cap(p, step.rules, p.room(challenge.room))
    if challenge.level + 1 > cap:
        raise TuningError(
            N_("{id} is already at the cap of {cap} (Reputation + 5)"), id=challenge.id, cap=cap
        )
    step.changes.append(f"{challenge.id} {challenge.level} -> {challenge.level + 1}")
    return _swap_in(p, replace(challenge, level=challenge.level + 1))


def _stance(word: str) -> str:
    wanted = word.strip().lower()
    if wanted in (HOSTILE, "enemy", "feind", "feindlich", "nemica", "ostile"):
        return HOSTILE
    if wanted in (FRIENDLY, "insider", "friend", "freund", "freundlich", "amica"):
        return FRIENDLY
    raise TuningError(N_("say hostile or friendly, not {word!r}"), word=word)


def _add_faction(p: Prowl, args: tuple[str, ...], step: _Step) -> Prowl:
    stance = _stance(args[0])
    taken = {f.key for f in p.factions}
    roll: int | None = None
    if len(args) > 1:
        entry = p.lotto.entry(args[1])
        if entry is None:
            keys = ", ".join(e.key for e in p.lotto.entries if e.stance == stance)
            raise TuningError(
                N_("{key!r} is not on the faction list; {stance}: {keys}"),
                key=args[1],
                stance=stance,
                keys=keys,
            )
        if entry.stance != stance:
            raise TuningError(
                N_("{key} is {actual}, not {stance}"),
                key=entry.key,
                actual=entry.stance,
                stance=stance,
            )
        if entry.key in taken:
            raise TuningError(N_("{key} is already in play"), key=entry.key)
    else:
        drawn = draw_faction(
            step.rules, p.lotto, p.texts, taken, stance, step.rng, "factions", step.rolls
        )
        if drawn is None:
            raise TuningError(N_("no {stance} faction of the list is left to draw"), stance=stance)
        entry, roll = drawn
    step.key = "add_enemy_faction" if stance == HOSTILE else "add_friendly_faction"
    fid = f"F{p.next_faction}"
    step.changes.append(f"{fid} {entry.key} ({stance}) added")
    faction = Faction(fid, entry.key, entry.stance, entry.insider, "tuning", roll)
    return replace(p, factions=(*p.factions, faction), next_faction=p.next_faction + 1)


def _drop_faction(p: Prowl, args: tuple[str, ...], step: _Step) -> Prowl:
    faction = _faction(p, args[0])
    step.key = "remove_enemy_faction" if faction.stance == HOSTILE else "remove_friendly_faction"
    step.changes.append(f"{faction.id} {faction.key} ({faction.stance}) dropped")
    return replace(p, factions=tuple(f for f in p.factions if f.id != faction.id))


def _subtype_table(rules: Rules, kind: str) -> str:
    """The subtype table a challenge type rolls on (read from ``challenge-type``)."""
    for row in rules.table("challenge-type").rows:
        if row.value.get("type") == kind or row.key == kind:
            for effect in row.effects:
                ref = getattr(effect, "ref", None)
                if ref:
                    return str(rules.table("challenge-type").resolve(ref))
    types = ", ".join(str(r.value.get("type", r.key)) for r in rules.table("challenge-type").rows)
    raise TuningError(
        N_("unknown challenge type {word!r}; the types are {types}"), word=kind, types=types
    )


def _new_challenge(
    p: Prowl, room: Room, words: tuple[str, ...], step: _Step, origin: str, level: int | None
) -> Challenge:
    """A new challenge in ``room``: type and subtype rolled or chosen, level a fresh RW
    (or ``level``)."""
    rules = step.rules
    cid = f"C{p.next_challenge}"
    context = {"reputation": p.reputation, **rules.flags(room.security)}
    if not words:
        kind, rolls = roll_table(
            rules.registry, rules.table("challenge-type").id, step.rng, context=context
        )
        step.rolls += [{"step": f"{cid} type", **r} for r in rolls]
        made = challenge_from(
            rules, p.reputation, room, kind, step.rng, cid, step.rolls, step.texts, origin
        )
    else:
        kind_word = words[0].lower()
        table_id = _subtype_table(rules, kind_word)
        if len(words) == 1:
            sub, rolls = roll_table(rules.registry, table_id, step.rng, context=context)
            step.rolls += [{"step": f"{cid} subtype", **r} for r in rolls]
            row, values = sub.row, dict(sub.values)
        else:
            table = rules.registry.get(table_id)
            rows = [r for r in table.rows if r.key == words[1].lower()]
            if not rows:
                raise TuningError(
                    N_("unknown {type} {word!r}; choose one of {keys}"),
                    type=kind_word,
                    word=words[1],
                    keys=", ".join(r.key or "" for r in table.rows),
                )
            row, values = rows[0], dict(rows[0].value)
        made = make_challenge(
            rules,
            p.reputation,
            room,
            kind_word,
            table_id,
            row,
            values,
            step.rng,
            cid,
            step.rolls,
            step.texts,
            origin,
        )
    if level is not None:
        made = replace(made, level=level, rw=None)
    return made


def _add_challenge(p: Prowl, args: tuple[str, ...], step: _Step) -> Prowl:
    room = _room(p, args[0])
    if room.security == NOSEC:
        raise TuningError(N_("{room} is a NoSec room; it holds no challenges"), room=room.id)
    made = _new_challenge(p, room, args[1:], step, "tuning", None)
    step.key = "add_challenge"
    step.changes.append(f"{made.id} {made.subtype} level {made.level} added to {room.id}")
    p = replace(p, next_challenge=p.next_challenge + 1)
    return _with_challenges(p, [*p.challenges, made])


def _rebuild_room(p: Prowl, room: Room, security: int, step: _Step) -> Prowl:
    """A room at a new security level: its challenges and adjoining door traps rerolled."""
    rules = step.rules
    new_room = replace(room, security=security, loot=None if security == NOSEC else room.loot)
    rooms = tuple(new_room if r.id == room.id else r for r in p.rooms)
    removed = [c.id for c in p.challenges_in(room.id)]
    kept = [c for c in p.challenges if c.room != room.id]
    made = roll_challenges(
        rules, p.reputation, new_room, step.rng, p.next_challenge, step.rolls, step.texts
    )
    step.changes.append(f"{room.id} {SECURITY_KEYS[room.security]} -> {SECURITY_KEYS[security]}")
    if removed:
        step.changes.append("removed " + " ".join(removed))
    if made:
        step.changes.append("added " + " ".join(f"{c.id} {c.subtype} {c.level}" for c in made))
    if room.loot is not None and new_room.loot is None:
        step.changes.append(f"{room.id} loot removed")
    by_id = {r.id: r for r in rooms}
    conns = []
    for conn in p.connections:
        if room.id in conn.between:
            before = conn
            conn = make_door(
                rules, p.reputation, conn, by_id, p.door_rw, step.rng, step.rolls, step.texts
            )
            if conn.door != before.door or conn.strength != before.strength:
                step.changes.append(f"{conn.id} " + _door_text(before) + " -> " + _door_text(conn))
            if conn.trap != before.trap:
                step.changes.append(f"{conn.id} trap {_trap_text(before)} -> {_trap_text(conn)}")
        conns.append(conn)
    p = replace(
        p, rooms=rooms, connections=tuple(conns), next_challenge=p.next_challenge + len(made)
    )
    # A room lowered to NoSec opens its inner doors; say so when that leaves a secured
    # neighbour without any door (the generator never makes such a room; tuning may).
    for other in p.rooms:
        if other.security != NOSEC and not any(c.door for c in p.links(other.id)):
            step.changes.append(f"{other.id} has no door left")
    return _with_challenges(p, kept + made)


def _door_text(conn: Connection) -> str:
    return "open" if not conn.door else str(conn.strength)


def _trap_text(conn: Connection) -> str:
    return conn.trap.subtype if conn.trap is not None else "none"


def _raise_room(p: Prowl, args: tuple[str, ...], step: _Step) -> Prowl:
    room = _room(p, args[0])
    if room.security >= len(SECURITY_KEYS) - 1:
        raise TuningError(N_("{room} is already HiSec"), room=room.id)
    step.key = "raise_security"
    return _rebuild_room(p, room, room.security + 1, step)


def _lower_room(p: Prowl, args: tuple[str, ...], step: _Step) -> Prowl:
    room = _room(p, args[0])
    if room.security == NOSEC:
        raise TuningError(N_("{room} is already NoSec"), room=room.id)
    step.key = "lower_security"
    return _rebuild_room(p, room, room.security - 1, step)


def _finish(p: Prowl, args: tuple[str, ...], step: _Step) -> Prowl:
    step.key = "finish"
    step.cost = p.tuning.left
    step.changes.append(f"budget closed, {p.tuning.left} forfeited")
    return replace(p, tuning=replace(p.tuning, phase=PHASE_REDISTRIBUTION))


def _redistribution(rules: Rules, key: str) -> tuple[int, int]:
    row = rules.row("redistribution", key)
    if row.value.get("allowed") is False:
        raise TuningError(N_("the rules do not allow this redistribution"))
    return rules.int_value(row, "raise", "redistribution"), rules.int_value(
        row, "lower", "redistribution"
    )


def _shift_attribute(p: Prowl, args: tuple[str, ...], step: _Step) -> Prowl:
    up, down = attribute_key(p, args[0]), attribute_key(p, args[1])
    if up == down:
        raise TuningError(N_("raise one attribute and lower another"))
    plus, minus = _redistribution(step.rules, "raise_attribute")
    low, high = step.rules.attribute_range(p.reputation)
    if p.attribute(up) + plus > high:
        raise TuningError(N_("{key} cannot go above {max} (Reputation + 5)"), key=up, max=high)
    if p.attribute(down) - minus < low:
        raise TuningError(
            N_("{key} is {value}; lowering it by {n} would go below {min}"),
            key=down,
            value=p.attribute(down),
            n=minus,
            min=low,
        )
    step.key = "raise_attribute"
    step.changes.append(
        f"{up} {p.attribute(up)} -> {p.attribute(up) + plus}, "
        f"{down} {p.attribute(down)} -> {p.attribute(down) - minus}"
    )
    return _set_attribute(
        _set_attribute(p, up, p.attribute(up) + plus), down, p.attribute(down) - minus
    )


def _shift_challenge(p: Prowl, args: tuple[str, ...], step: _Step) -> Prowl:
    plus, minus = _redistribution(step.rules, "raise_challenge")
    down = _challenge(p, args[1])
    if down.level - minus < 0:
        raise TuningError(
            N_("{id} has level {level}; lowering it by {n} would go below 0"),
            id=down.id,
            level=down.level,
            n=minus,
        )
    step.key = "raise_challenge"
    if _id(args[0], "R") is not None:
        room = _room(p, args[0])
        if room.security == NOSEC:
            raise TuningError(N_("{room} is a NoSec room; it holds no challenges"), room=room.id)
        up = _new_challenge(p, room, (), step, "redistribution", plus)
        p = replace(p, next_challenge=p.next_challenge + 1)
        step.changes.append(f"{up.id} {up.subtype} level {up.level} added to {room.id}")
        challenges = [*p.challenges, up]
    else:
        old = _challenge(p, args[0])
        if old.id == down.id:
            raise TuningError(N_("raise one challenge and lower another"))
        cap = _cap(p, step.rules, p.room(old.room))
        if old.level + plus > cap:
            raise TuningError(
                N_("{id} is already at the cap of {cap} (Reputation + 5)"), id=old.id, cap=cap
            )
        step.changes.append(f"{old.id} {old.level} -> {old.level + plus}")
        challenges = [
            replace(c, level=c.level + plus) if c.id == old.id else c for c in p.challenges
        ]
    if down.level - minus == 0:
        step.changes.append(f"{down.id} {down.level} -> 0, removed")
        challenges = [c for c in challenges if c.id != down.id]
    else:
        step.changes.append(f"{down.id} {down.level} -> {down.level - minus}")
        challenges = [
            replace(c, level=c.level - minus) if c.id == down.id else c for c in challenges
        ]
    return _with_challenges(p, challenges)


VERBS: dict[str, Verb] = {
    "patrol": Verb("patrol C2 [R1 R2 ...]", 1, 9, _patrol),
    "swap-attributes": Verb("swap-attributes ATTRIBUTE ATTRIBUTE", 2, 2, _swap_attributes),
    "swap-challenges": Verb("swap-challenges C1 C2", 2, 2, _swap_challenges),
    "move": Verb("move C1 R4", 2, 2, _move),
    "reroll-attribute": Verb("reroll-attribute ATTRIBUTE", 1, 1, _reroll_attribute),
    "reroll-doors": Verb("reroll-doors", 0, 0, _reroll_doors),
    "reinforce": Verb("reinforce C1|D1", 1, 1, _reinforce),
    "add-faction": Verb("add-faction hostile|friendly [KEY]", 1, 2, _add_faction),
    "drop-faction": Verb("drop-faction F1", 1, 1, _drop_faction),
    "add-challenge": Verb("add-challenge R3 [creature|trap [SUBTYPE]]", 1, 3, _add_challenge),
    "raise-room": Verb("raise-room R3", 1, 1, _raise_room),
    "lower-room": Verb("lower-room R3", 1, 1, _lower_room),
    "finish": Verb("finish", 0, 0, _finish),
    "shift-attribute": Verb("shift-attribute UP DOWN", 2, 2, _shift_attribute, True),
    "shift-challenge": Verb("shift-challenge C1|R3 C2", 2, 2, _shift_challenge, True),
}
ALIASES = {"move-challenge": "move", "raise": "raise-room", "lower": "lower-room"}


def parse_operations(words: Sequence[str]) -> list[Operation]:
    """Operations from command-line words: each starts with a verb (:data:`VERBS`), its
    words follow; a comma may separate operations. Refuses unknown verbs, words before the
    first verb and wrong numbers of words, naming the operation's syntax."""
    tokens: list[str] = []
    for word in words:
        for part in word.replace(",", " , ").split():
            tokens.append(part)
    groups: list[list[str]] = []
    for token in tokens:
        if token == ",":
            groups.append([])
            continue
        verb = ALIASES.get(token.lower(), token.lower())
        if verb in VERBS:
            groups.append([verb])
        elif groups and groups[-1]:
            groups[-1].append(token)
        else:
            raise TuningError(
                N_("unknown operation {word!r}; the operations are {verbs}"),
                word=token,
                verbs=", ".join(VERBS),
            )
    out = []
    for group in groups:
        if not group:
            continue
        spec = VERBS[group[0]]
        args = tuple(group[1:])
        if not spec.low <= len(args) <= spec.high:
            raise TuningError(N_("write {usage}"), usage=spec.usage)
        out.append(Operation(group[0], args))
    if not out:
        raise TuningError(
            N_("no operation given; the operations are {verbs}"), verbs=", ".join(VERBS)
        )
    return out


def apply(
    p: Prowl, op: Operation, registry: Registry | None = None, rules: Rules | None = None
) -> Prowl:
    """Apply one operation, or refuse it with :class:`TuningError` (nothing changes).

    Budget phase: every operation but the redistributions, each paid from what is left
    (gains add to it); a redistribution is allowed once nothing is left and closes the
    budget. ``finish`` closes it too (the rest is forfeited). Redistribution phase: only
    ``shift-attribute``, ``shift-challenge`` and the free ``patrol``.
    """
    rules = rules or Rules(registry if registry is not None else load_registry())
    spec = VERBS.get(op.verb)
    if spec is None:
        raise TuningError(
            N_("unknown operation {word!r}; the operations are {verbs}"),
            word=op.verb,
            verbs=", ".join(VERBS),
        )
    if not spec.low <= len(op.args) <= spec.high:
        raise TuningError(N_("write {usage}"), usage=spec.usage)
    tuning = p.tuning
    if tuning.phase == PHASE_REDISTRIBUTION and not spec.redistribution and op.verb != "patrol":
        raise TuningError(
            N_("the budget is closed: only shift-attribute, shift-challenge and patrol remain")
        )
    if tuning.phase == PHASE_BUDGET and spec.redistribution and tuning.left > 0:
        raise TuningError(
            N_(
                "redistribution comes after the budget: {left} adjustments are "
                "left (spend them or write finish)"
            ),
            left=tuning.left,
        )
    n = len(tuning.log) + 1
    step = _Step(rules, sub_rng(p.tune_seed, f"tune/{n}/{op.text}"))
    try:
        changed = spec.handler(p, op.args, step)
    except TuningError:
        raise
    except KerkerError as exc:
        raise TuningError(exc.template, **exc.params) from None
    if step.key != "finish":
        step.cost = 0 if spec.redistribution else rules.cost(step.key)
    if step.cost > tuning.left:
        raise TuningError(
            N_("it costs {cost} adjustments; only {left} are left"),
            cost=step.cost,
            left=tuning.left,
        )
    left = tuning.left - step.cost
    phase = changed.tuning.phase
    if spec.redistribution:
        phase = PHASE_REDISTRIBUTION
    entry = TuneEntry(
        n=n,
        op=op.text,
        key=step.key,
        cost=step.cost,
        left=left,
        changes=tuple(step.changes),
        rolls=tuple(step.rolls),
    )
    texts = dict(changed.texts)
    texts.update(step.texts)
    return replace(
        changed,
        texts=MappingProxyType(texts),
        tuning=replace(tuning, left=left, phase=phase, log=(*tuning.log, entry)),
    )


def tune(p: Prowl, operations: Sequence[Operation], registry: Registry | None = None) -> Prowl:
    """Apply ``operations`` in order; the first refused one raises :class:`TuningError`
    naming it (the operations before it are not kept either: the caller still holds ``p``)."""
    rules = Rules(registry if registry is not None else load_registry())
    for op in operations:
        try:
            p = apply(p, op, rules=rules)
        except TuningError as exc:
            raise TuningError(exc.template, op=op.text, **exc.params) from None
    return p
