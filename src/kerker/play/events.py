"""Events of a play session: what a player or GM did, with stable keys and coordinates,
never rendered text (the journal renders them later, in the reader's language).

An event is ``{"seq", "kind", ...fields}``; :data:`FIELDS` lists each kind's fields and
their types. :func:`event_from_json` refuses anything else in one line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kerker.errors import N_, KerkerError

MAX_TEXT = 2_000
"""Characters of a note at most."""
MAX_EVENTS = 10_000
"""Events of one session at most (a session replays from its log)."""
MAX_FACES = 100
"""Dice a player may enter for one roll."""
MAX_DOOR_DICE = 1_000
"""Dice a player may enter for the table rolls behind one door (``open``/``reroll``)."""

KINDS = (
    "open",
    "reroll",
    "undo",
    "redo",
    "note",
    "roll",
    "table",
    "check",
    "reveal",
    "hide",
    "enter",
    "search",
    "take",
)
UNDOABLE = frozenset({"open", "reroll", "enter", "note", "reveal", "hide"})
"""Kinds that undo takes back. Dice rolls, table rolls and checks are never undone: a roll
once made stays in the log (taking it back would be a silent reroll)."""

FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "open": {"exit": (str,)},
    "reroll": {"exit": (str,)},
    "undo": {},
    "redo": {},
    "note": {"text": (str,), "depth": (int, type(None)), "area": (int, type(None))},
    "roll": {"expr": (str,), "entered": (list, type(None)), "total": (int,)},
    "table": {"table": (str,), "level": (int,), "entered": (list, type(None)), "total": (int,)},
    "check": {
        "value": (int,),
        "modifier": (int,),
        "secret": (bool,),
        "entered": (list, type(None)),
        "outcome": (str,),
    },
    "reveal": {"depth": (int,), "area": (int, type(None)), "exit": (str, type(None))},
    "hide": {"depth": (int,), "area": (int, type(None)), "exit": (str, type(None))},
    "enter": {"level": (int,), "exit": (str,)},
    "search": {
        "depth": (int,),
        "area": (int,),
        "side": (str, type(None)),
        "entered": (list, type(None)),
        "value": (int, type(None)),
        "modifier": (int,),
        "rolls": (list,),
        "check": (str, type(None)),
        "found": (list,),
        "sprung": (list,),
        "monster": (int, type(None)),
    },
    "take": {"depth": (int,), "area": (int,), "item": (int,), "sprung": (list,)},
}
OPTIONAL: dict[str, frozenset[str]] = {
    "open": frozenset({"dice", "rest"}),
    "reroll": frozenset({"dice", "rest"}),
}
"""Fields of a kind that an event has only when given (left out of its JSON otherwise):
``dice``, the faces entered for the table rolls behind the door, and ``rest``, true when
kerker rolled what the entered ones did not cover."""
OPTIONAL_TYPES: dict[str, tuple[type, ...]] = {"dice": (list,), "rest": (bool,)}
MARKS = frozenset({"found", "sprung"})
"""List fields that hold stable marks (text), not dice."""
FOUND_KINDS = frozenset({"search", "take"})
"""Kinds that find or spring what only the GM knew: never undone (their dice stay rolled)."""


class EventError(KerkerError):
    """An event that is malformed or cannot be applied to the session as it stands."""

    code = "play"


@dataclass(frozen=True, slots=True)
class Event:
    """One step of a session's log: its 1-based ``seq``, ``kind`` and fields."""

    seq: int
    kind: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{"seq", "kind", ...data}``: the form the log is stored and exported in."""
        return {"seq": self.seq, "kind": self.kind, **self.data}


def event_from_json(item: Any, seq: int | None = None) -> Event:
    """An :class:`Event` from its JSON form; ``seq`` overrides the stored one. Refuses
    unknown kinds, missing or extra fields and wrong types with :class:`EventError`."""
    if not isinstance(item, dict):
        raise EventError(N_("an event must be an object, not {text}"), text=type(item).__name__)
    kind = item.get("kind")
    if kind not in FIELDS:
        raise EventError(
            N_("unknown event kind {kind!r}; known: {choices}"),
            kind=str(kind),
            choices=", ".join(KINDS),
        )
    number = item.get("seq") if seq is None else seq
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise EventError(N_("event {kind}: seq must be a whole number from 1 up"), kind=kind)
    optional = OPTIONAL.get(kind, frozenset())
    spec = {
        **FIELDS[kind],
        **{n: OPTIONAL_TYPES[n] for n in sorted(optional) if item.get(n) is not None},
    }
    data: dict[str, Any] = {}
    for name, types in spec.items():
        value = item.get(name)
        if isinstance(value, bool) and bool not in types:
            value = "bad"
        if not isinstance(value, types):
            raise EventError(
                N_("event {seq} ({kind}): field {name!r} is missing or of the wrong type"),
                seq=number,
                kind=kind,
                name=name,
            )
        if isinstance(value, str) and len(value) > MAX_TEXT:
            raise EventError(
                N_("event {seq}: {name!r} is longer than {max} characters"),
                seq=number,
                name=name,
                max=MAX_TEXT,
            )
        if isinstance(value, list) and name in MARKS:
            if len(value) > MAX_FACES or not all(
                isinstance(v, str) and len(v) <= 80 for v in value
            ):
                raise EventError(
                    N_("event {seq}: {name!r} must be a list of at most {max} keys"),
                    seq=number,
                    name=name,
                    max=MAX_FACES,
                )
        elif isinstance(value, list) and (
            len(value) > (MAX_DOOR_DICE if name == "dice" else MAX_FACES)
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            raise EventError(
                N_("event {seq}: {name!r} must be a list of at most {max} whole numbers"),
                seq=number,
                name=name,
                max=MAX_DOOR_DICE if name == "dice" else MAX_FACES,
            )
        data[name] = value
    extra = sorted(set(item) - set(spec) - optional - {"seq", "kind"})
    if extra:
        raise EventError(
            N_("event {seq} ({kind}): unknown field {name!r}"), seq=number, kind=kind, name=extra[0]
        )
    return Event(number, kind, data)
