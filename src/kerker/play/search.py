"""Searching by the rules: what a ``search`` or ``take`` step of a session finds or springs.

The rule data is ``rules/play/search.yaml`` (every number with its source). Scatola Bianca
rolls one 1d12 per 10 feet of wall searched (a 1 finds a secret door lying there, the first
12 brings a wandering monster); the Zufallslabyrinth, which has no search roll of its own,
makes one HPR check (seed 003). What is found is named by stable marks, never by text:

- a secret door by its connection key (``"1:12,30:e"``; it joins the players' map the way
  ``reveal`` shows it);
- a content of an area by ``"depth:area:index"`` (the area's number, the index in its
  ``contents``): a hidden treasure found, a trap or trick sprung, a treasure taken.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from kerker.errors import N_, RuleDataError
from kerker.play.events import EventError
from kerker.tables.registry import RULES_DIR

SIDES = ("n", "e", "s", "w")
"""The walls a search may name (a 45° wall counts to the n or s wall of its first letter)."""
_STEP = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0)}
_OPPOSITE = {"n": "s", "s": "n", "e": "w", "w": "e", "ne": "sw", "sw": "ne", "nw": "se", "se": "nw"}
TRAP_KINDS = ("trap", "trick")


@dataclass(frozen=True, slots=True)
class SearchRules:
    """How one rule set searches (see rules/play/search.yaml)."""

    rules: str
    method: str
    """``walls`` (a die per stretch of wall) or ``check`` (one HPR check)."""
    segment_feet: int = 10
    die: str = ""
    find: frozenset[int] = frozenset()
    monster: frozenset[int] = frozenset()
    monster_table: str | None = None
    value: int = 10
    max_rolls: int = 100


@lru_cache(maxsize=1)
def load_search_rules() -> dict[str, SearchRules]:
    """The shipped search rules by rule set; refuses malformed data naming the entry."""
    from kerker.yamlio import load_rule_file

    path = RULES_DIR / "play" / "search.yaml"
    data = load_rule_file(path)
    if not isinstance(data, dict) or data.get("schema") != 1:
        raise RuleDataError(N_("{where}: {problem}"), file=str(path), where="schema", problem="1")
    out = {}
    for rules, spec in data.items():
        if rules == "schema":
            continue
        if not isinstance(spec, dict) or spec.get("method") not in ("walls", "check"):
            raise RuleDataError(
                N_("{where}: {problem}"), file=str(path), where=rules, problem="method"
            )
        out[rules] = SearchRules(
            rules,
            spec["method"],
            int(spec.get("segment_feet", 10)),
            str(spec.get("die", "")),
            frozenset(int(v) for v in spec.get("find", ())),
            frozenset(int(v) for v in spec.get("monster", ())),
            spec.get("monster_table"),
            int(spec.get("value", 10)),
            int(spec.get("max_rolls", 100)),
        )
    return out


def rules_for(rules: str) -> SearchRules:
    """The search rules of ``rules``; refuses a rule set that has none."""
    found = load_search_rules().get(rules)
    if found is None:
        raise EventError(N_("the rule set {rules} says nothing about searching"), rules=rules)
    return found


def mark(depth: int, area: int, index: int) -> str:
    """The stable mark of content ``index`` of area ``area`` on level ``depth``."""
    return f"{depth}:{area}:{index}"


def _wall(side: str) -> str:
    return side[0] if side[0] in "ns" else side


def _across(side: str) -> tuple[int, int]:
    """The step from a door's cell to the cell across its wall (45° walls too)."""
    dx = sum(_STEP[ch][0] for ch in side if ch in "ew")
    dy = sum(_STEP[ch][1] for ch in side if ch in "ns")
    return dx, dy


def walls(area: dict[str, Any]) -> dict[str, list[tuple[int, int]]]:
    """The cells of ``area`` along each of its walls (n, e, s, w), in order along the wall
    (west to east, north to south)."""
    cells = {(int(c[0]), int(c[1])) for c in area["cells"]}
    out: dict[str, list[tuple[int, int]]] = {}
    for side, (dx, dy) in _STEP.items():
        edge = [c for c in cells if (c[0] + dx, c[1] + dy) not in cells]
        edge.sort(key=(lambda c: (c[1], c[0])) if side in "ns" else (lambda c: (c[0], c[1])))
        out[side] = edge
    return out


def secret_doors(
    level: dict[str, Any], area: dict[str, Any], side: str | None
) -> list[tuple[str, str, tuple[int, int]]]:
    """(key, wall, cell of ``area`` it lies in) of every secret door in the walls of
    ``area`` (only wall ``side`` when given), from either side of the door."""
    from kerker.play.views import _conn_key

    out = []
    for conn in level["connections"]:
        if conn["kind"] != "secret_door":
            continue
        at = (int(conn["at"][0]), int(conn["at"][1]))
        if conn["from"] == area["id"]:
            wall, cell = _wall(conn["side"]), at
        elif conn["to"] == area["id"]:
            dx, dy = _across(conn["side"])
            wall = _wall(_OPPOSITE.get(conn["side"], conn["side"]))
            cell = (at[0] + dx, at[1] + dy)
        else:
            continue
        if side is None or wall == side:
            out.append((_conn_key(level["depth"], conn), wall, cell))
    return out


def stretches(area: dict[str, Any], side: str | None, rules: SearchRules) -> list[tuple[str, int]]:
    """The stretches of wall a ``walls`` search of ``area`` rolls for, in the order of its
    dice: (wall, index along the wall) for wall ``side`` or every wall (n, e, s, w), each
    wall cut into ``rules.segment_feet`` (a started stretch counts)."""
    from kerker.geometry.grid import feet_to_cells

    per = feet_to_cells(rules.segment_feet)
    edges = walls(area)
    sides = [side] if side is not None else list(SIDES)
    return [(s, i) for s in sides for i in range((len(edges[s]) + per - 1) // per)]


def door_stretch(
    area: dict[str, Any], rules: SearchRules, wall: str, cell: tuple[int, int]
) -> tuple[str, int]:
    """The stretch of wall (wall, index) of ``area`` in which a secret door in ``wall`` at
    ``cell`` lies (a 45° wall's door counts to the first stretch of its wall)."""
    from kerker.geometry.grid import feet_to_cells

    cells = walls(area)[wall]
    return wall, cells.index(cell) // feet_to_cells(rules.segment_feet) if cell in cells else 0


@dataclass
class Outcome:
    """What one search rolled and did."""

    rolls: list[int]
    check: str | None
    """The HPR outcome (``check`` method), else None."""
    found: list[str]
    """Marks found: secret door keys and hidden treasures' content marks."""
    sprung: list[str]
    """Content marks of traps and tricks the search set off."""
    monster: int | None
    """The wandering monster table's total when a die brought one, else None."""
    searched: int
    """Stretches of wall searched (``walls``) or walls (``check``)."""


def search(
    info: Any,
    seq: int,
    level: dict[str, Any],
    area: dict[str, Any],
    side: str | None,
    *,
    known: set[str],
    entered: Sequence[int] | None,
    value: int | None,
    modifier: int,
    registry: Any,
) -> Outcome:
    """Roll the search of ``area`` (its wall ``side``, or all of it) as event ``seq`` of the
    session ``info``: from the event's sub-seed or the faces a player ``entered``. ``known``
    holds the marks already found or sprung (they are not found again). Refuses a wall
    that is not n/e/s/w, entered faces the dice cannot show or that do not match, and a
    search of more than the data's ``max_rolls`` stretches (search one wall at a time)."""
    from kerker.play.session import EnteredDice, check_entered, event_seed, roll_check

    if side is not None and side not in SIDES:
        raise EventError(N_("a wall is n, e, s or w, not {side!r}"), side=side)
    rules = rules_for(info.rules)
    depth, number = level["depth"], area["number"]
    doors = [d for d in secret_doors(level, area, side) if d[0] not in known]
    treasures = [
        mark(depth, number, i)
        for i, c in enumerate(area["contents"])
        if c["kind"] == "treasure" and c.get("hidden") and mark(depth, number, i) not in known
    ]
    traps = [
        mark(depth, number, i)
        for i, c in enumerate(area["contents"])
        if c["kind"] in TRAP_KINDS and mark(depth, number, i) not in known
    ]
    found: list[str] = []
    rolls: list[int] = []
    monster = None
    outcome = None
    sides = [side] if side is not None else list(SIDES)
    if rules.method == "walls":
        from kerker.dice.roller import roll

        searched_at = stretches(area, side, rules)
        if len(searched_at) > rules.max_rolls:
            raise EventError(
                N_("{n} stretches of wall are more than {max} dice at once: search one wall"),
                n=len(searched_at),
                max=rules.max_rolls,
            )
        at_door = {key: door_stretch(area, rules, wall, cell) for key, wall, cell in doors}
        if entered is not None:
            for face in entered:
                check_entered(rules.die, [int(face)])
            rng: random.Random = EnteredDice([int(f) for f in entered])
        else:
            rng = random.Random(event_seed(info, seq))
        for here in searched_at:
            face = roll(rules.die, rng).total
            rolls.append(face)
            if face in rules.find:
                for key, _wall, _cell in doors:
                    if at_door[key] == here and key not in found:
                        found.append(key)
            if face in rules.monster:
                monster = _monster(info, seq, rules, registry, depth)
                break
        if isinstance(rng, EnteredDice) and rng.used != len(rng.faces):
            raise EventError(
                N_("the search used {n} of the {m} dice entered"), n=rng.used, m=len(rng.faces)
            )
        hit = any(face in rules.find for face in rolls)
        searched = len(rolls)
    else:
        result = roll_check(
            info,
            seq,
            rules.value if value is None else value,
            modifier,
            bool(info.referee),
            entered,
        )
        outcome = result.outcome.value
        rolls = [r.total for r in result.rolls]
        hit = bool(result.success)
        if hit:
            found += [key for key, _w, _c in doors]
        searched = len(sides)
    if hit and side is None:
        found += treasures
    sprung = [] if hit else traps
    return Outcome(rolls, outcome, found, sprung, monster, searched)


def _monster(info: Any, seq: int, rules: SearchRules, registry: Any, depth: int) -> int | None:
    """The wandering monster of search ``seq``, rolled on the shipped table (None when the
    rule data names none)."""
    if rules.monster_table is None:
        return None
    from kerker.tables.engine import roll_table

    result, _log = roll_table(
        registry, rules.monster_table, monster_rng(info, seq), context={"level": depth}
    )
    return int(result.pick.total)


def monster_rng(info: Any, seq: int) -> random.Random:
    """The dice of the wandering monster a search (event ``seq``) brought."""
    from kerker.seeding import sub_seed

    return random.Random(sub_seed(info.seed, "event", seq, "monster"))
