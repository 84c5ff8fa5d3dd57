"""Generate a prowl from the crew's reputation (seed 004, steps 1-6).

Every number comes from the rule tables (``mazeprowl/*``: the post's tables, the labelled
defaults and ``procedure.yaml``); a game master's own tables of the same ids replace them.
Every die goes through :func:`kerker.tables.engine.roll_table`, and the roll log of the prowl
holds each one with the step it belongs to.

Randomness (:mod:`kerker.seeding`): a prowl with a seed is rolled from that seed (the seed
on the sheet reproduces it), else from the caller's ``rng``; one number drawn from it seeds
every step separately (blake2b sub-seeds), so the rooms' contents do not shift when the
layout changes.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from kerker.dice import parse, roll
from kerker.dice.explain import explain
from kerker.errors import N_, KerkerError, OptionError
from kerker.limits import DEFAULT_LIMITS, ProwlLimits
from kerker.prowl.layout import assemble
from kerker.prowl.model import (
    FRIENDLY,
    HOSTILE,
    NOSEC,
    OUTSIDE,
    SECURITY_KEYS,
    Challenge,
    Connection,
    DoorTrap,
    Faction,
    Loot,
    Lotto,
    LottoEntry,
    Protection,
    Prowl,
    ProwlError,
    Room,
    Structure,
    TestRoll,
    Tuning,
)
from kerker.seeding import seed_rng
from kerker.seeding import sub_rng as _sub_rng
from kerker.tables.engine import TableResult, roll_table, roll_table_picks
from kerker.tables.model import Row, Table, TextMap
from kerker.tables.registry import Registry, load_registry

RULES = "mazeprowl"
MAX_FACTION_FILE = DEFAULT_LIMITS.prowl.max_faction_file
MAX_FACTION_TEXT = DEFAULT_LIMITS.prowl.max_faction_text
W666_RESULTS = 216
READINGS = ("sum", "successes")
"""Readings of the "Erfolgsgrad einer Reputation(X)-Probe": ``sum`` (kerker's rule: the sum
of Reputation W6 divided by X) or ``successes`` (dice meeting X, counted as in German
Shadowrun: a 6 is rolled again and added, so X = 12 needs a 6 and then a 6)."""


def rule_id(name: str) -> str:
    """The full id of a Mazeprowl table."""
    return f"{RULES}/{name}"


def plain_text(text: TextMap) -> dict[str, str]:
    """A row text as ``{lang: text}`` (the plural form 'other' where a text has two)."""
    return {lang: value if isinstance(value, str) else value[1] for lang, value in text.items()}


def sub_rng(base: int, name: str) -> random.Random:
    """An independent RNG for one step (:func:`kerker.seeding.sub_rng`, never hash())."""
    return _sub_rng(base, name)


class Rules:
    """The Mazeprowl rule data a prowl needs, read from a table registry.

    Refuses (:class:`ProwlError`) tables or rows that are missing or lack a value the
    procedure reads, naming the table and the key.
    """

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.row_texts: dict[str, Mapping[str, str]] = {}
        """Texts of the rows rolled (``table:key``), for the roll log of the sheet; rows
        whose text has placeholders are left out (the log shows their range)."""

    def table(self, name: str) -> Table:
        """A Mazeprowl table by name (``challenge-count``) or full id."""
        return self.registry.get(name if "/" in name else rule_id(name))

    def row(self, name: str, key: str) -> Row:
        """The row with ``key`` of a table."""
        for row in self.table(name).rows:
            if row.key == key:
                return row
        raise ProwlError(N_("the table {table} has no row {key!r}"), table=rule_id(name), key=key)

    def row_at(self, name: str, number: int) -> Row:
        """The row of a lookup table that covers ``number``."""
        for row in self.table(name).rows:
            if row.covers(number):
                return row
        raise ProwlError(N_("the table {table} has no row for {n}"), table=rule_id(name), n=number)

    def int_value(self, row: Row, name: str, table: str) -> int:
        """A whole-number value of a row."""
        value = row.value.get(name)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ProwlError(
                N_("the table {table}, row {key!r}, needs a whole number {name!r}"),
                table=rule_id(table),
                key=row.key,
                name=name,
            )
        return value

    def param(self, name: str, key: str, value: str) -> int:
        """``value`` of row ``key`` of table ``name`` as a whole number."""
        return self.int_value(self.row(name, key), value, name)

    def limit(self, key: str) -> tuple[int, int]:
        """``(minimum, maximum)`` of ``prowl-limits``."""
        return self.param("prowl-limits", key, "minimum"), self.param(
            "prowl-limits", key, "maximum"
        )

    def security_number(self, key: str) -> int:
        """The number of a security level (``lo`` -> 1)."""
        return self.param("security", key, "security")

    def flags(self, security: int) -> dict[str, bool]:
        """The context flags ``midsec`` / ``hisec`` of a security level."""
        row = self.row("security", SECURITY_KEYS[security])
        return {"midsec": bool(row.value.get("midsec")), "hisec": bool(row.value.get("hisec"))}

    def branch_cost(self, exits: int) -> int:
        """Branch points a room with this many exits costs (table ``branch-cost``)."""
        for row in self.table("branch-cost").rows:
            if row.covers(exits):
                return self.int_value(row, "cost", "branch-cost")
        return 0

    def level_cap(self, reputation: int, security: int) -> int:
        """The highest challenge level: Reputation + cap (``challenge-level``)."""
        row = self.row_at("challenge-level", security)
        return reputation + self.int_value(row, "cap_over_reputation", "challenge-level")

    def level(self, reputation: int, security: int, rw: int) -> int:
        """A challenge level from a reputation roll: RW // divisor + bonus, within the caps."""
        row = self.row_at("challenge-level", security)
        raw = rw // self.int_value(row, "divisor", "challenge-level") + self.int_value(
            row, "bonus", "challenge-level"
        )
        low = self.int_value(row, "minimum", "challenge-level")
        return max(low, min(self.level_cap(reputation, security), raw))

    def door_cap(self, reputation: int, kind: str) -> int:
        """The highest door strength: Reputation + cap (``door-strength``)."""
        return reputation + self.param("door-strength", kind, "cap_over_reputation")

    def door_strength(self, reputation: int, kind: str, rw: int, bonus: int) -> int:
        """RW // divisor + adjustment (at least the minimum) + fine-tuning, capped."""
        row = self.row("door-strength", kind)
        base = rw // self.int_value(row, "divisor", "door-strength") + self.int_value(
            row, "adjustment", "door-strength"
        )
        base = max(self.int_value(row, "minimum", "door-strength"), base)
        return min(self.door_cap(reputation, kind), base + bonus)

    def attribute_range(self, reputation: int) -> tuple[int, int]:
        """Lowest and highest value of a prowl attribute."""
        low = self.param("prowl-limits", "attribute", "minimum")
        return low, reputation + self.param("prowl-limits", "attribute", "cap_over_reputation")

    def cost(self, key: str) -> int:
        """Adjustments a fine-tuning change costs (negative: it yields them)."""
        return self.param("fine-tuning", key, "cost")

    def attribute_keys(self) -> list[str]:
        """The prowl attributes, in the printed order."""
        return [row.key or "" for row in self.table("prowl-attributes").rows]

    def roll(
        self,
        table: str,
        rng: random.Random,
        context: Mapping[str, int | bool],
        step: str,
        log: list[dict[str, Any]],
    ) -> TableResult:
        """Roll a table; its dice go into ``log`` marked with ``step``. A modifier of the
        table (+1 MidSec, +2 HiSec ...) shows in ``explain`` and as ``modifier``, so the
        die shown leads to the row printed."""
        result, picks = roll_table_picks(
            self.registry, table if "/" in table else rule_id(table), rng, context=context
        )
        for rolled, pick in picks:
            texts = plain_text(pick.row.text)
            if pick.row.key and texts and not any("{" in t for t in texts.values()):
                self.row_texts.setdefault(f"{rolled.id}:{pick.row.key}", MappingProxyType(texts))
            text = explain(pick.roll)
            if pick.modifier:
                text += f" {pick.modifier:+d} = {pick.total}"
            log.append(
                {
                    "step": step,
                    "table": rolled.id,
                    "dice": pick.dice,
                    "roll": pick.total,
                    "explain": text,
                    "row": pick.label,
                    "key": pick.row.key,
                    **({"modifier": pick.modifier} if pick.modifier else {}),
                }
            )
        return result

    def rw(self, reputation: int, rng: random.Random, step: str, log: list[dict[str, Any]]) -> int:
        """A reputation roll (RW): as many W6 as the reputation, the highest counts."""
        result = self.roll("reputation-roll", rng, {"reputation": reputation}, step, log)
        value = result.values.get("rw")
        if isinstance(value, bool) or not isinstance(value, int):
            raise ProwlError(
                N_("the table {table} needs a whole number {name!r}"),
                table=rule_id("reputation-roll"),
                name="rw",
            )
        return value


# -- the faction list ------------------------------------------------------------------------


@dataclass(frozen=True)
class FactionList:
    """A lotto with the texts of its entries (``lotto:<key>`` -> language -> text)."""

    lotto: Lotto
    texts: Mapping[str, Mapping[str, str]]


def _lotto_from_table(table: Table, source: str) -> FactionList:
    if table.dice is None:
        raise ProwlError(
            N_("{file}: the faction list must be rolled (it needs `dice`)"), file=source
        )
    entries: list[LottoEntry] = []
    texts: dict[str, Mapping[str, str]] = {}
    for row in table.rows:
        stance = row.value.get("stance")
        if stance not in (FRIENDLY, HOSTILE) or not row.key or row.lo is None:
            raise ProwlError(
                N_(
                    "{file}: every faction needs a key, a range and `stance: friendly` or "
                    "`stance: hostile` in its value (row {row})"
                ),
                file=source,
                row=row.label(),
            )
        insider = row.value.get("insider", stance == FRIENDLY)
        entries.append(LottoEntry(row.key, str(stance), bool(insider), row.lo, row.hi))
        texts[f"lotto:{row.key}"] = MappingProxyType(plain_text(row.text))
    _check_lotto(entries, source)
    return FactionList(
        Lotto(source, table.id, table.dice, table.gaps, tuple(entries)), MappingProxyType(texts)
    )


def _check_lotto(entries: list[LottoEntry], source: str) -> None:
    if not any(e.stance == HOSTILE for e in entries):
        raise ProwlError(
            N_("{file}: the faction list needs at least one hostile faction"), file=source
        )
    if len({e.key for e in entries}) != len(entries):
        raise ProwlError(N_("{file}: two factions have the same key"), file=source)


def w666_value(ordinal: int) -> int:
    """The W666 result with this position (0 -> 111, 1 -> 112, ..., 215 -> 666)."""
    return 100 * (ordinal // 36 + 1) + 10 * (ordinal // 6 % 6 + 1) + ordinal % 6 + 1


def _lotto_from_lines(text: str, source: str) -> FactionList:
    items: list[tuple[str, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        sign, name = line[0], line[1:].strip()
        if sign not in "+-" or not name:
            raise ProwlError(
                N_(
                    "{file}:{line}: start a faction with '+' (an insider connection) "
                    "or '-' (a hostile faction)"
                ),
                file=source,
                line=number,
            )
        if len(name) > MAX_FACTION_TEXT:
            raise ProwlError(
                N_("{file}:{line}: a faction is described in at most {max} characters"),
                file=source,
                line=number,
                max=MAX_FACTION_TEXT,
            )
        items.append((FRIENDLY if sign == "+" else HOSTILE, name))
    if not items or len(items) > W666_RESULTS:
        raise ProwlError(
            N_("{file}: the faction list needs 1 to {max} factions"), file=source, max=W666_RESULTS
        )
    share = W666_RESULTS // len(items)
    entries = []
    texts: dict[str, Mapping[str, str]] = {}
    for i, (stance, name) in enumerate(items):
        key = f"faction_{i + 1}"
        entries.append(
            LottoEntry(
                key,
                stance,
                stance == FRIENDLY,
                w666_value(i * share),
                w666_value((i + 1) * share - 1),
            )
        )
        texts[f"lotto:{key}"] = MappingProxyType({"de": name, "it": name, "en": name})
    _check_lotto(entries, source)
    gaps = "reroll" if share * len(items) < W666_RESULTS else "error"
    return FactionList(
        Lotto(source, "lotto/factions", "W666", gaps, tuple(entries)), MappingProxyType(texts)
    )


def load_faction_list(path: Path) -> FactionList:
    """A game master's faction list: a kerker table file (``.yaml``/``.yml``: the table
    ``factions``, or its only table; each row with ``stance: friendly|hostile``) or a plain
    list (one faction a line, ``+`` an insider connection, ``-`` a hostile faction; ``#``
    comments), spread evenly over the W666 results (left-over results are rolled again).

    Refuses unreadable files, lists without a hostile faction and malformed entries.
    """
    source = path.name
    if path.suffix.lower() in (".yaml", ".yml"):
        from kerker.tables.registry import load_path

        tables = load_path(path, trusted=False)
        named = [t for t in tables if t.name == "factions"]
        if len(named) != 1 and len(tables) != 1:
            raise ProwlError(N_("{file}: name the faction table `factions`"), file=source)
        return _lotto_from_table(named[0] if len(named) == 1 else tables[0], source)
    from kerker.fileio import read_text

    # Type and size checked before reading; UTF-8 with or without a BOM, as every file.
    text = read_text(
        path, max_bytes=MAX_FACTION_FILE, cannot_read=N_("cannot read the faction list: {reason}")
    )
    return _lotto_from_lines(text, source)


def default_factions(rules: Rules) -> FactionList:
    """The labelled default lotto ``mazeprowl/factions`` (or the game master's table of
    that id)."""
    return _lotto_from_table(rules.table("factions"), "default")


def lotto_registry(lotto: Lotto, texts: Mapping[str, Mapping[str, str]]) -> Registry:
    """A registry holding just the lotto as a table, so the engine rolls and logs it."""
    rows = tuple(
        Row(
            lo=e.lo,
            hi=e.hi,
            weight=None,
            key=e.key,
            text=MappingProxyType(dict(texts.get(f"lotto:{e.key}", {}))),
            value=MappingProxyType({"stance": e.stance, "insider": e.insider}),
            effects=(),
            then=None,
        )
        for e in lotto.entries
    )
    rule_set, _, name = lotto.table.partition("/")
    table = Table(
        id=lotto.table,
        rule_set=rule_set,
        name=name or "factions",
        title=MappingProxyType({"en": "factions"}),
        seed=None,
        heading="",
        dice=lotto.dice,
        modifier=None,
        params=MappingProxyType({}),
        gaps=lotto.gaps,
        rows=rows,
    )
    return Registry(MappingProxyType({lotto.table: table}))


def hostile_wanted(rules: Rules, players: int, reputation: int) -> int:
    """How many hostile factions the lotto should bring into play (``hostile-factions``)."""
    base = rules.param("hostile-factions", "count", "base")
    per_players = max(1, rules.param("hostile-factions", "count", "players_per"))
    per_rep = max(1, rules.param("hostile-factions", "count", "reputation_per"))
    return base + (players - 1) // per_players + reputation // per_rep


def lotto_for(full: Lotto, wanted: int, rng: random.Random, log: list[dict[str, Any]]) -> Lotto:
    """The lotto of one prowl: every friendly entry (the crew's insider connections) and
    ``wanted`` of the hostile ones, as the post puts them "on" it. With more hostile
    entries than wanted, a die picks each one (logged, step ``lotto``) and the entries
    kept are spread over all 216 W666 results again (each 216 / k of them, rounded down or
    up: shares differ by one result at most); with no more than wanted, the list is the
    lotto as it stands."""
    hostile = [e for e in full.entries if e.stance == HOSTILE]
    if len(hostile) <= wanted:
        return full
    chosen: set[str] = set()
    pool = list(hostile)
    for _k in range(wanted):
        expression = f"W{len(pool)}"
        thrown = roll(parse(expression), rng)
        pick = pool.pop(thrown.total - 1)
        chosen.add(pick.key)
        log.append(
            {
                "step": "lotto",
                "table": None,
                "dice": expression,
                "roll": thrown.total,
                "explain": thrown.explain(),
                "row": None,
                "key": pick.key,
            }
        )
    kept = [e for e in full.entries if e.stance != HOSTILE or e.key in chosen]
    k = len(kept)
    entries = tuple(
        LottoEntry(
            e.key,
            e.stance,
            e.insider,
            w666_value(i * W666_RESULTS // k),
            w666_value((i + 1) * W666_RESULTS // k - 1),
        )
        for i, e in enumerate(kept)
    )
    return Lotto(full.source, full.table, "W666", "error", entries)


def draw_faction(
    rules: Rules,
    lotto: Lotto,
    texts: Mapping[str, Mapping[str, str]],
    taken: set[str],
    stance: str | None,
    rng: random.Random,
    step: str,
    log: list[dict[str, Any]],
) -> tuple[LottoEntry, int] | None:
    """Draw on the lotto until an entry not in ``taken`` (and of ``stance``, if given) comes
    up; None when none is left or the draws run out. Every draw is logged."""
    wanted = [
        e for e in lotto.entries if e.key not in taken and (stance is None or e.stance == stance)
    ]
    if not wanted:
        return None
    registry = lotto_registry(lotto, texts)
    _low, max_draws = rules.limit("lotto_draws")
    for _draw in range(max_draws):
        result, rolls = roll_table(registry, lotto.table, rng)
        for entry in rolls:
            log.append({"step": step, **entry})
        found = lotto.entry(result.key or "")
        if found is not None and found in wanted:
            return found, result.pick.total
    return None


# -- options and the steps -------------------------------------------------------------------


@dataclass(frozen=True)
class ProwlOptions:
    """What the game master asks for. ``accesses`` None: rolled (1W3); ``nosec``: extra
    NoSec rooms; ``factions`` None: the default lotto; ``loops`` None: a die among 0 ..
    what the junctions leave room for, 0: a tree; ``reading``: of the Reputation(X) test
    (:data:`READINGS`)."""

    reputation: int
    players: int
    accesses: int | None = None
    nosec: int = 0
    factions: FactionList | None = None
    loops: int | None = None
    reading: str = "sum"


def check_options(options: ProwlOptions, rules: Rules) -> None:
    """Refuse values outside ``prowl-limits`` with an :class:`OptionError`."""
    for key, value, template in (
        (
            "reputation",
            options.reputation,
            N_("the reputation must be between {min} and {max}, not {value}"),
        ),
        (
            "players",
            options.players,
            N_("the number of players must be between {min} and {max}, not {value}"),
        ),
        (
            "nosec",
            options.nosec,
            N_("the extra NoSec rooms must be between {min} and {max}, not {value}"),
        ),
    ):
        low, high = rules.limit(key)
        if not low <= value <= high:
            raise OptionError(template, min=low, max=high, value=value)
    if options.reading not in READINGS:
        raise OptionError(
            N_("the reading of the Reputation(X) test is one of {choices}, not {text!r}"),
            choices=", ".join(READINGS),
            text=options.reading,
        )
    if options.loops is not None and not 0 <= options.loops <= rules.limit("exits")[1]:
        raise OptionError(
            N_("the loops must be between {min} and {max}, not {value}"),
            min=0,
            max=rules.limit("exits")[1],
            value=options.loops,
        )
    if options.accesses is not None:
        low, high = rules.limit("accesses")
        if not low <= options.accesses <= high:
            raise OptionError(
                N_("the number of entrances must be between {min} and {max}, not {value}"),
                min=low,
                max=high,
                value=options.accesses,
            )


@dataclass
class _Build:
    rules: Rules
    reputation: int
    log: list[dict[str, Any]] = field(default_factory=list)
    texts: dict[str, Mapping[str, str]] = field(default_factory=dict)

    def text_of(self, table: Table, key: str) -> None:
        for row in table.rows:
            if row.key == key:
                self.texts[f"{table.id}:{key}"] = MappingProxyType(plain_text(row.text))


def roll_challenges(
    rules: Rules,
    reputation: int,
    room: Room,
    rng: random.Random,
    first_id: int,
    log: list[dict[str, Any]],
    texts: dict[str, Mapping[str, str]],
) -> list[Challenge]:
    """Count, type, subtype and level of a room's challenges (none in a NoSec room)."""
    if room.security == NOSEC:
        return []
    context = {"reputation": reputation, **rules.flags(room.security)}
    counted = rules.roll("challenge-count", rng, context, f"{room.id} challenges", log)
    out: list[Challenge] = []
    for kind in counted.children():
        out.append(
            challenge_from(
                rules, reputation, room, kind, rng, f"C{first_id + len(out)}", log, texts
            )
        )
    return out


def challenge_from(
    rules: Rules,
    reputation: int,
    room: Room,
    kind: TableResult,
    rng: random.Random,
    cid: str,
    log: list[dict[str, Any]],
    texts: dict[str, Mapping[str, str]],
    origin: str = "rolled",
) -> Challenge:
    """A challenge from a rolled ``challenge-type`` result; its level is a fresh RW."""
    subs = kind.children()
    sub = subs[0] if subs else kind
    kind_name = str(kind.values.get("type", sub.values.get("type", "")))
    return make_challenge(
        rules,
        reputation,
        room,
        kind_name,
        sub.table.id,
        sub.row,
        sub.values,
        rng,
        cid,
        log,
        texts,
        origin,
    )


def make_challenge(
    rules: Rules,
    reputation: int,
    room: Room,
    kind: str,
    table_id: str,
    row: Row,
    values: Mapping[str, int | str | bool],
    rng: random.Random,
    cid: str,
    log: list[dict[str, Any]],
    texts: dict[str, Mapping[str, str]],
    origin: str = "rolled",
) -> Challenge:
    """A challenge of subtype ``row`` (rolled or chosen) in ``room``; its level is a fresh
    RW read through ``challenge-level`` (a chosen subtype does not change it)."""
    rw = rules.rw(reputation, rng, f"{cid} level", log)
    key = row.key or ""
    texts[f"{table_id}:{key}"] = MappingProxyType(plain_text(row.text))
    effect = values.get("effect")
    return Challenge(
        id=cid,
        room=room.id,
        type=str(values.get("type", kind)),
        subtype=key,
        table=table_id,
        mobile=bool(values.get("mobile", False)),
        effect=None if effect is None else str(effect),
        level=rules.level(reputation, room.security, rw),
        rw=rw,
        origin=origin,
    )


def roll_loot(
    rules: Rules,
    reputation: int,
    room: Room,
    rng: random.Random,
    log: list[dict[str, Any]],
    texts: dict[str, Mapping[str, str]],
) -> Loot | None:
    """Loot of a room: present (2W6 by security), value (RW × multiplier), how it is
    secured and the level of each safeguard (like a challenge in the room)."""
    if room.security == NOSEC:
        return None
    present = rules.roll(
        f"loot-present-{room.security_key}", rng, {"reputation": reputation}, f"{room.id} loot", log
    )
    if not present.values.get("loot"):
        return None
    secured = present.children()[0]
    texts[f"{secured.table.id}:{secured.key}"] = MappingProxyType(plain_text(secured.row.text))
    value_row = rules.row_at("loot-value", room.security)
    multiplier = rules.int_value(value_row, "multiplier", "loot-value")
    rw = rules.rw(reputation, rng, f"{room.id} loot value", log)
    protections: list[Protection] = []
    traps = secured.children()
    for flag, kind in (("hidden", "hidden"), ("locked", "locked"), ("trapped", "trap")):
        if not secured.values.get(flag):
            continue
        level_rw = rules.rw(reputation, rng, f"{room.id} loot {kind}", log)
        subtype = table_id = None
        if kind == "trap" and traps:
            subtype, table_id = traps[0].key, traps[0].table.id
            texts[f"{table_id}:{subtype}"] = MappingProxyType(plain_text(traps[0].row.text))
        protections.append(
            Protection(
                kind, rules.level(reputation, room.security, level_rw), level_rw, subtype, table_id
            )
        )
    return Loot(
        value=rw * multiplier,
        unit=str(value_row.value.get("unit", "$")),
        rw=rw,
        multiplier=multiplier,
        secured=secured.key or "",
        protections=tuple(protections),
    )


def door_kind(a: Room | None, b: Room) -> str:
    """The ``door-strength`` row of a door between ``a`` (None: outside) and ``b``."""
    if a is None:
        return "outside"
    low, high = sorted((a.security, b.security))
    return f"{SECURITY_KEYS[low]}_{SECURITY_KEYS[high]}"


def has_door(a: Room | None, b: Room) -> bool:
    """Doors everywhere except inside the complex next to a NoSec room."""
    return a is None or (a.security != NOSEC and b.security != NOSEC)


def trap_table(a: Room | None, b: Room) -> str:
    """The door-trap table by the door's most exposed side: outside or HiSec, MidSec, LoSec."""
    levels = {b.security} | ({a.security} if a is not None else set())
    if a is None or max(levels) >= 3:
        return "door-trap-hi"
    return "door-trap-mid" if max(levels) == 2 else "door-trap-lo"


def make_door(
    rules: Rules,
    reputation: int,
    conn: Connection,
    rooms: Mapping[str, Room],
    door_rw: int,
    rng: random.Random,
    log: list[dict[str, Any]],
    texts: dict[str, Mapping[str, str]],
    *,
    roll_trap: bool = True,
) -> Connection:
    """The connection as a door or an opening, with strength and (rolled) trap."""
    a = None if conn.between[0] == OUTSIDE else rooms[conn.between[0]]
    b = rooms[conn.between[1]]
    if not has_door(a, b):
        return Connection(conn.id, conn.between, False)
    kind = door_kind(a, b)
    strength = rules.door_strength(reputation, kind, door_rw, conn.bonus)
    trap = conn.trap if conn.door else None
    if roll_trap:
        result = rules.roll(
            trap_table(a, b), rng, {"reputation": reputation}, f"{conn.id} trap", log
        )
        trap = None
        if result.values.get("trapped"):
            subs = result.children()
            if subs:
                sub = subs[0]
                texts[f"{sub.table.id}:{sub.key}"] = MappingProxyType(plain_text(sub.row.text))
                effect = sub.values.get("effect")
                trap = DoorTrap(
                    sub.key or "", sub.table.id, None if effect is None else str(effect)
                )
    return Connection(conn.id, conn.between, True, kind, conn.bonus, strength, trap)


def reputation_test_table(
    rules: Rules, reading: str, reputation: int, target: int
) -> tuple[str, dict[str, int | bool]]:
    """The table and context of a Reputation(``target``) test in ``reading``: kerker's
    ``reputation-test`` (sum / X), or the success counting of ``reputation-test-successes``
    (dice showing X or more; past 6 a 6 is rolled again and must add up to X, the table
    ``reputation-test-successes-over-6``). Refuses a target the reading cannot roll."""
    context: dict[str, int | bool] = {"reputation": reputation, "target": target}
    if reading == "sum":
        return "reputation-test", context
    if 2 <= target <= 6:
        return "reputation-test-successes", context
    if 7 <= target <= 12:
        context["rest"] = target - 6
        return "reputation-test-successes-over-6", context
    raise ProwlError(
        N_(
            "the success-counting reading rolls Reputation(X) tests with X from "
            "2 to 12, not {target}"
        ),
        target=target,
    )


def generate(
    options: ProwlOptions,
    rng: random.Random,
    *,
    registry: Registry | None = None,
    seed: int | None = None,
    limits: ProwlLimits = DEFAULT_LIMITS.prowl,
) -> Prowl:
    """A whole prowl for ``options``: rolled from ``seed`` when given (the seed on the sheet
    reproduces it; ``rng`` is then not used), else from ``rng``.

    Promises: room counts per security equal their rolls (NoSec rooms come on top); the
    complex is connected, every room reachable from an access, HiSec rooms deeper than
    LoSec ones, every secured room with a door; challenge levels and door strengths within
    Reputation + 5; the roll log holds every die. Refuses options outside
    ``mazeprowl/prowl-limits``.
    """
    from kerker import __version__

    rules = Rules(registry if registry is not None else load_registry())
    check_options(options, rules)
    rep = options.reputation
    rng = seed_rng(seed, rng)
    base = rng.getrandbits(64)
    tune_seed = rng.getrandbits(64)
    build = _Build(rules, rep)
    log = build.log

    # 1. Factions: the lotto holds the insider connections and as many hostile factions as
    #    players and reputation call for ("steht darauf"); as many distinct entries as it
    #    holds hostile factions are drawn.
    faction_list = options.factions or default_factions(rules)
    build.texts.update(faction_list.texts)
    wanted = hostile_wanted(rules, options.players, rep)
    frng = sub_rng(base, "factions")
    lotto = lotto_for(faction_list.lotto, wanted, frng, log)
    on_lotto = sum(1 for e in lotto.entries if e.stance == HOSTILE)
    factions: list[Faction] = []
    taken: set[str] = set()
    _low, max_draws = rules.limit("lotto_draws")
    draws = 0
    registry_lotto = lotto_registry(lotto, faction_list.texts)
    while len(factions) < min(on_lotto, len(lotto.entries)) and draws < max_draws:
        draws += 1
        result, rolls = roll_table(registry_lotto, lotto.table, frng)
        for entry in rolls:
            log.append({"step": "factions", **entry})
        entry_found = lotto.entry(result.key or "")
        if entry_found is None or entry_found.key in taken:
            continue
        taken.add(entry_found.key)
        factions.append(
            Faction(
                f"F{len(factions) + 1}",
                entry_found.key,
                entry_found.stance,
                entry_found.insider,
                "lotto",
                result.pick.total,
            )
        )

    # 2. Prowl attributes: one RW each.
    arng = sub_rng(base, "attributes")
    attributes = []
    for row in rules.table("prowl-attributes").rows:
        key = row.key or ""
        build.text_of(rules.table("prowl-attributes"), key)
        attributes.append((key, rules.rw(rep, arng, f"attribute {key}", log)))

    # 3. Structure: LoSec = RW, MidSec / HiSec = degree of a Reputation(X) test, branch
    #    points = RW / 2 capped by the rooms, accesses chosen or 1W3.
    srng = sub_rng(base, "structure")
    lo_row = rules.row("layout", "lo_rooms")
    lo_rw = rules.rw(rep, srng, "LoSec rooms", log)
    lo_rooms = lo_rw // max(1, rules.int_value(lo_row, "divisor", "layout"))
    tests = []
    for key, step in (("mid_rooms", "MidSec rooms"), ("hi_rooms", "HiSec rooms")):
        target = rules.param("layout", key, "target")
        table, context = reputation_test_table(rules, options.reading, rep, target)
        result = rules.roll(table, srng, context, step, log)
        tests.append(TestRoll(target, result.pick.dice, max(0, result.pick.total), options.reading))
    mid, hi = tests
    branch_row = rules.row("layout", "branch_points")
    branch_rw = rules.rw(rep, srng, "branch points", log)
    rolled_rooms = lo_rooms + mid.degree + hi.degree
    points = min(
        branch_rw // max(1, rules.int_value(branch_row, "divisor", "layout")), rolled_rooms
    )
    accesses_roll = None
    if options.accesses is None:
        entrances = rules.roll("entrances", srng, {"reputation": rep}, "accesses", log)
        accesses_roll = entrances.pick.total
        accesses = int(entrances.values.get("count", accesses_roll))
    else:
        accesses = options.accesses

    # The layout.
    _low_rooms, max_rooms = rules.limit("rooms")
    _low_exits, max_exits = rules.limit("exits")
    levels = [
        (rules.security_number(k), n)
        for k, n in (("lo", lo_rooms), ("mid", mid.degree), ("hi", hi.degree))
    ]
    layout = assemble(
        levels,
        accesses,
        points,
        options.nosec,
        sub_rng(base, "layout"),
        cost=rules.branch_cost,
        max_exits=max_exits,
        max_rooms=max_rooms,
        nosec_level=rules.security_number("nosec"),
        loops=options.loops,
        max_junctions=limits.max_junctions,
        attempts=limits.layout_attempts,
    )
    rooms = [Room(f"R{i + 1}", r.security, r.depth, r.accesses) for i, r in enumerate(layout.rooms)]
    conns: list[Connection] = []
    for room in rooms:
        for _k in range(room.accesses):
            conns.append(Connection(f"D{len(conns) + 1}", (OUTSIDE, room.id), True))
    for a, b in layout.links:
        conns.append(Connection(f"D{len(conns) + 1}", (rooms[a].id, rooms[b].id), True))

    # 4. Doors: one RW for all, adjusted by what each joins; a trap on 1W6 each.
    drng = sub_rng(base, "doors")
    door_rw = rules.rw(rep, drng, "door strength", log)
    by_id = {room.id: room for room in rooms}
    conns = [make_door(rules, rep, c, by_id, door_rw, drng, log, build.texts) for c in conns]

    # 5. and 6. Challenges and loot, room by room.
    challenges: list[Challenge] = []
    final_rooms: list[Room] = []
    for room in rooms:
        rrng = sub_rng(base, f"room/{room.id}")
        challenges += roll_challenges(rules, rep, room, rrng, len(challenges) + 1, log, build.texts)
        loot = roll_loot(rules, rep, room, rrng, log, build.texts)
        final_rooms.append(
            Room(
                room.id,
                room.security,
                room.depth,
                room.accesses,
                rules.branch_cost(layout.exits(len(final_rooms))),
                loot,
            )
        )

    structure = Structure(
        lo_rw=lo_rw,
        mid=mid,
        hi=hi,
        branch_rw=branch_rw,
        branch_points=points,
        branch_used=layout.used,
        branch_reason=layout.reason,
        accesses_roll=accesses_roll,
        nosec_requested=options.nosec,
        nosec_added=layout.nosec_added,
        hostile_wanted=wanted,
        loops=layout.loops,
    )
    budget = rep * accesses
    return Prowl(
        version=__version__,
        seed=seed,
        tune_seed=tune_seed,
        reputation=rep,
        players=options.players,
        lotto=lotto,
        factions=tuple(factions),
        attributes=tuple(attributes),
        structure=structure,
        accesses=accesses,
        door_rw=door_rw,
        rooms=tuple(final_rooms),
        connections=tuple(conns),
        challenges=tuple(challenges),
        tuning=Tuning(budget=budget, left=budget),
        texts=MappingProxyType({**rules.row_texts, **build.texts}),
        rolls=tuple(log),
        next_challenge=len(challenges) + 1,
        next_faction=len(factions) + 1,
    )


# -- exact odds of the structure --------------------------------------------------------------


def structure_odds(
    reputation: int, registry: Registry | None = None, reading: str = "sum"
) -> dict[str, Any]:
    """The exact odds of step 3 for one reputation: LoSec rooms (RW), MidSec and HiSec rooms
    (the Reputation(X) tests as the tables define them, in ``reading``), branch points
    before the cap and rolled accesses. Values are ``{"dice": ..., "distribution":
    Distribution}``.

    Refuses a reputation outside ``prowl-limits`` and an unknown reading.
    """
    from kerker.dice import odds
    from kerker.tables.expr import fill

    rules = Rules(registry if registry is not None else load_registry())
    low, high = rules.limit("reputation")
    if not low <= reputation <= high:
        raise OptionError(
            N_("the reputation must be between {min} and {max}, not {value}"),
            min=low,
            max=high,
            value=reputation,
        )
    if reading not in READINGS:
        raise OptionError(
            N_("the reading of the Reputation(X) test is one of {choices}, not {text!r}"),
            choices=", ".join(READINGS),
            text=reading,
        )
    rw_dice = fill(rules.table("reputation-roll").dice or "", {"reputation": reputation})
    out: dict[str, Any] = {}
    lo_div = rules.param("layout", "lo_rooms", "divisor")
    out["lo_rooms"] = {"dice": rw_dice if lo_div == 1 else f"{rw_dice}/{lo_div}"}
    for key in ("mid_rooms", "hi_rooms"):
        target = rules.param("layout", key, "target")
        table, context = reputation_test_table(rules, reading, reputation, target)
        out[key] = {"dice": fill(rules.table(table).dice or "", context), "target": target}
    div = rules.param("layout", "branch_points", "divisor")
    out["branch_points"] = {"dice": f"{rw_dice}/{div}"}
    out["accesses"] = {"dice": rules.table("entrances").dice or "1W3"}
    for item in out.values():
        try:
            item["distribution"] = odds(item["dice"])
        except KerkerError as exc:  # a game master's table with a die odds cannot take
            raise ProwlError(
                N_("cannot compute the odds of {dice}: {reason}"),
                dice=item["dice"],
                reason=exc.message(),
            ) from None
    return out
