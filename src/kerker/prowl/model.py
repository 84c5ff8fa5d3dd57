"""The prowl as frozen values: factions, attributes, rooms, connections, challenges, tuning.

A :class:`Prowl` is what :func:`kerker.prowl.generate.generate` returns and what
:mod:`kerker.prowl.tuning` changes (always into a new value). Renderers and the JSON
exporter read it and nothing else: every text they show is either a UI string or in
``Prowl.texts`` (rule texts of the lotto and the challenge tables, in every language the
tables have), so a saved plan renders the same without the tables that made it.

Security levels are the numbers of the table ``mazeprowl/security``: 0 NoSec, 1 LoSec,
2 MidSec, 3 HiSec; :data:`SECURITY_KEYS` are their machine keys.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from kerker.errors import N_, KerkerError

SECURITY_KEYS: tuple[str, ...] = ("nosec", "lo", "mid", "hi")
"""Machine keys of the security levels, indexed by their number (table ``security``)."""
SECURITY_SHORT: tuple[str, ...] = ("NoSec", "LoSec", "MidSec", "HiSec")
OUTSIDE = "outside"
NOSEC = 0
STATIONED = "stationed"
PATROL = "patrol"
FRIENDLY = "friendly"
HOSTILE = "hostile"
PHASE_BUDGET = "budget"
PHASE_REDISTRIBUTION = "redistribution"


class ProwlError(KerkerError):
    """A prowl that cannot be made or read as asked (bad options, a broken plan file)."""

    code = "prowl"


class LayoutError(ProwlError):
    """The rooms cannot be assembled into a complex within the caps."""

    code = "prowl_layout"


class PlanError(ProwlError):
    """A saved plan (JSON) that kerker cannot read back."""

    code = "prowl_plan"


@dataclass(frozen=True, slots=True)
class LottoEntry:
    """One entry of the faction lotto: its results ``lo``..``hi`` on the lotto's die."""

    key: str
    stance: str
    insider: bool
    lo: int
    hi: int | None


@dataclass(frozen=True, slots=True)
class Lotto:
    """The faction list the lotto is drawn from (``source``: ``default`` or a file name;
    ``table``: the id its rolls are logged under)."""

    source: str
    table: str
    dice: str
    gaps: str
    entries: tuple[LottoEntry, ...]

    def entry(self, key: str) -> LottoEntry | None:
        """The entry with this key, or None."""
        for item in self.entries:
            if item.key == key:
                return item
        return None


@dataclass(frozen=True, slots=True)
class Faction:
    """A faction in play: ``origin`` is ``lotto`` (drawn, with its ``roll``) or ``tuning``."""

    id: str
    key: str
    stance: str
    insider: bool
    origin: str
    roll: int | None


@dataclass(frozen=True, slots=True)
class Challenge:
    """A creature or trap in ``room``; ``subtype`` is a row key of ``table``.

    ``mode`` is ``stationed`` or ``patrol``; a patrol walks ``route`` (room ids, its own
    room among them). ``rw`` is the reputation roll its level came from (None when the
    level was set by fine-tuning).
    """

    id: str
    room: str
    type: str
    subtype: str
    table: str
    mobile: bool
    effect: str | None
    level: int
    rw: int | None
    mode: str = STATIONED
    route: tuple[str, ...] = ()
    origin: str = "rolled"


@dataclass(frozen=True, slots=True)
class Protection:
    """One safeguard of a loot: ``hidden``, ``locked`` or ``trap`` with its level."""

    kind: str
    level: int
    rw: int
    subtype: str | None = None
    table: str | None = None


@dataclass(frozen=True, slots=True)
class Loot:
    """Loot in a room: ``value`` (RW × multiplier) in ``unit``; ``secured`` is a row key of
    ``mazeprowl/loot-secured``."""

    value: int
    unit: str
    rw: int
    multiplier: int
    secured: str
    protections: tuple[Protection, ...]


@dataclass(frozen=True, slots=True)
class Room:
    """A room: its security number, its depth from the accesses (1: an access room), the
    number of accesses from outside into it, the branch points its exits cost and its loot."""

    id: str
    security: int
    depth: int
    accesses: int
    branch_cost: int = 0
    loot: Loot | None = None

    @property
    def security_key(self) -> str:
        """``nosec``, ``lo``, ``mid`` or ``hi``."""
        return SECURITY_KEYS[self.security]


@dataclass(frozen=True, slots=True)
class DoorTrap:
    """A trap in a door, rolled on ``table`` (its level is the door's strength)."""

    subtype: str
    table: str
    effect: str | None


@dataclass(frozen=True, slots=True)
class Connection:
    """A way between two rooms, or from ``outside`` into a room (``between[0]``).

    ``door`` is False for an open passage (a NoSec room has no doors except to the outside).
    For a door, ``kind`` is the row key of ``mazeprowl/door-strength``, ``bonus`` the +1s of
    fine-tuning and ``strength`` the result, capped.
    """

    id: str
    between: tuple[str, str]
    door: bool
    kind: str | None = None
    bonus: int = 0
    strength: int | None = None
    trap: DoorTrap | None = None

    def other(self, room_id: str) -> str:
        """The far side seen from ``room_id``."""
        return self.between[1] if self.between[0] == room_id else self.between[0]


@dataclass(frozen=True, slots=True)
class TestRoll:
    """A Reputation(X) test: its dice, the target X, the degree of success and the
    reading it was rolled in (``sum``: kerker's rule, ``successes``: the option)."""

    target: int
    dice: str
    degree: int
    reading: str = "sum"


@dataclass(frozen=True, slots=True)
class Structure:
    """The rolls of step 3 and how the layout used them.

    ``branch_points`` is RW // 2 capped by the rolled rooms; ``branch_used`` what the
    layout spends (more only when the accesses need it: ``branch_reason`` says why).
    """

    lo_rw: int
    mid: TestRoll
    hi: TestRoll
    branch_rw: int
    branch_points: int
    branch_used: int
    branch_reason: str | None
    accesses_roll: int | None
    nosec_requested: int
    nosec_added: int
    hostile_wanted: int
    loops: int = 0

    @property
    def branch_exact(self) -> bool:
        """Whether the layout uses up exactly the branch points."""
        return self.branch_used == self.branch_points


@dataclass(frozen=True, slots=True)
class TuneEntry:
    """One applied fine-tuning operation: its normalised text, the rule key (row of
    ``fine-tuning`` or ``redistribution``), its cost (negative: a gain) and what is left."""

    n: int
    op: str
    key: str
    cost: int
    left: int
    changes: tuple[str, ...]
    rolls: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class Tuning:
    """The fine-tuning budget (Reputation × accesses), what is left and every operation."""

    budget: int
    left: int
    phase: str = PHASE_BUDGET
    log: tuple[TuneEntry, ...] = ()


@dataclass(frozen=True, slots=True)
class Prowl:
    """A whole prowl. Rooms are in the order of their ids (R1 is an access room)."""

    version: str
    seed: int | None
    tune_seed: int
    reputation: int
    players: int
    lotto: Lotto
    factions: tuple[Faction, ...]
    attributes: tuple[tuple[str, int], ...]
    structure: Structure
    accesses: int
    door_rw: int
    rooms: tuple[Room, ...]
    connections: tuple[Connection, ...]
    challenges: tuple[Challenge, ...]
    tuning: Tuning
    texts: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    rolls: tuple[Mapping[str, Any], ...] = ()
    next_challenge: int = 1
    next_faction: int = 1

    # -- look-ups (refusing unknown ids with a clear message) -------------------------------

    def room(self, room_id: str) -> Room:
        """The room with this id; :class:`ProwlError` when there is none."""
        for room in self.rooms:
            if room.id == room_id:
                return room
        raise ProwlError(N_("there is no room {id}"), id=room_id)

    def challenge(self, challenge_id: str) -> Challenge:
        """The challenge with this id; :class:`ProwlError` when there is none."""
        for item in self.challenges:
            if item.id == challenge_id:
                return item
        raise ProwlError(N_("there is no challenge {id}"), id=challenge_id)

    def connection(self, conn_id: str) -> Connection:
        """The connection (door or opening) with this id."""
        for conn in self.connections:
            if conn.id == conn_id:
                return conn
        raise ProwlError(N_("there is no door {id}"), id=conn_id)

    def faction(self, faction_id: str) -> Faction:
        """The faction in play with this id."""
        for item in self.factions:
            if item.id == faction_id:
                return item
        raise ProwlError(N_("there is no faction {id} in play"), id=faction_id)

    def attribute(self, key: str) -> int:
        """The value of a prowl attribute."""
        return dict(self.attributes)[key]

    # -- the graph ----------------------------------------------------------------------------

    def links(self, room_id: str) -> Iterator[Connection]:
        """Every connection of a room (accesses from outside included)."""
        for conn in self.connections:
            if room_id in conn.between:
                yield conn

    def exits(self, room_id: str) -> int:
        """How many exits a room has (doors, openings and accesses)."""
        return sum(1 for _ in self.links(room_id))

    def neighbours(self, room_id: str) -> list[str]:
        """The rooms next to a room (not ``outside``), in connection order."""
        return [c.other(room_id) for c in self.links(room_id) if c.other(room_id) != OUTSIDE]

    def challenges_in(self, room_id: str) -> list[Challenge]:
        """The challenges whose room is ``room_id``, in id order."""
        return [c for c in self.challenges if c.room == room_id]

    def security_counts(self) -> dict[int, int]:
        """Rooms per security number."""
        out = {level: 0 for level in range(len(SECURITY_KEYS))}
        for room in self.rooms:
            out[room.security] += 1
        return out


def id_number(item_id: str) -> int:
    """The number of an id like ``R12`` (0 when there is none)."""
    digits = item_id[1:]
    return int(digits) if digits.isdigit() else 0
