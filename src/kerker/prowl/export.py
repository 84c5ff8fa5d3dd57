"""A prowl as JSON and back, and all outputs written to a folder.

The JSON is the plan a game master keeps and fine-tunes (``kerker prowl tune``): machine
keys in English, every rule text the renderers need under ``texts``, every die under
``rolls``. :func:`from_json` reads it back into the same :class:`~kerker.prowl.model.Prowl`
(``from_json(to_json(p)) == p``) and refuses anything else with a :class:`PlanError` that
names the field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from kerker.errors import N_
from kerker.limits import DEFAULT_LIMITS
from kerker.prowl.model import (
    OUTSIDE,
    PHASE_BUDGET,
    PHASE_REDISTRIBUTION,
    SECURITY_KEYS,
    Challenge,
    Connection,
    DoorTrap,
    Faction,
    Loot,
    Lotto,
    LottoEntry,
    PlanError,
    Protection,
    Prowl,
    Room,
    Structure,
    TestRoll,
    TuneEntry,
    Tuning,
    id_number,
)

FORMAT = "kerker-prowl/1"
MAX_PLAN_BYTES = DEFAULT_LIMITS.prowl.max_plan_bytes


MAX_PLAN_ACCESSES = 6
"""Accesses from outside a plan may name (the text's 1-3; plans of kerker 0.1 took up to 6)."""
MAX_PLAN_DEPTH = 1_000
"""Depth (and branch cost) a plan's room may give: far past any layout kerker makes."""


def _challenge_json(c: Challenge) -> dict[str, Any]:
    return {
        "id": c.id,
        "level": c.level,
        "type": c.type,
        "subtype": c.subtype,
        "mode": c.mode,
        "route": list(c.route),
        "mobile": c.mobile,
        "effect": c.effect,
        "table": c.table,
        "rw": c.rw,
        "origin": c.origin,
    }


def _loot_json(loot: Loot | None) -> dict[str, Any] | None:
    if loot is None:
        return None
    return {
        "value": loot.value,
        "unit": loot.unit,
        "rw": loot.rw,
        "multiplier": loot.multiplier,
        "secured": loot.secured,
        "protections": [
            {"kind": x.kind, "level": x.level, "rw": x.rw, "subtype": x.subtype, "table": x.table}
            for x in loot.protections
        ],
    }


def to_json(p: Prowl) -> dict[str, Any]:
    """The plan as JSON-ready data (insertion-ordered keys, stable for the same prowl)."""
    s = p.structure
    rooms = []
    for room in p.rooms:
        exits = p.exits(room.id)
        item: dict[str, Any] = {
            "id": room.id,
            "security": room.security_key,
            "depth": room.depth,
            "accesses": room.accesses,
            "exits": exits,
            "branch_cost": room.branch_cost,
        }
        item["challenges"] = [_challenge_json(c) for c in p.challenges_in(room.id)]
        item["loot"] = _loot_json(room.loot)
        rooms.append(item)
    doors = [
        {
            "id": c.id,
            "between": list(c.between),
            "kind": c.kind,
            "strength": c.strength,
            "bonus": c.bonus,
            "trap": None
            if c.trap is None
            else {"subtype": c.trap.subtype, "table": c.trap.table, "effect": c.trap.effect},
        }
        for c in p.connections
        if c.door
    ]
    openings = [{"id": c.id, "between": list(c.between)} for c in p.connections if not c.door]
    return {
        "kerker": p.version,
        "format": FORMAT,
        "seed": p.seed,
        "tune_seed": p.tune_seed,
        "reputation": p.reputation,
        "players": p.players,
        "factions": [
            {
                "id": f.id,
                "key": f.key,
                "stance": f.stance,
                "insider": f.insider,
                "origin": f.origin,
                "roll": f.roll,
            }
            for f in p.factions
        ],
        "attributes": dict(p.attributes),
        "accesses": p.accesses,
        "branch_points": s.branch_points,
        "structure": {
            "lo_rooms": {"rooms": sum(r.security == 1 for r in p.rooms), "rw": s.lo_rw},
            "mid_rooms": {
                "degree": s.mid.degree,
                "target": s.mid.target,
                "dice": s.mid.dice,
                "reading": s.mid.reading,
            },
            "hi_rooms": {
                "degree": s.hi.degree,
                "target": s.hi.target,
                "dice": s.hi.dice,
                "reading": s.hi.reading,
            },
            "loops": s.loops,
            "nosec_rooms": {"requested": s.nosec_requested, "added": s.nosec_added},
            "branch_points": {
                "rw": s.branch_rw,
                "points": s.branch_points,
                "used": s.branch_used,
                "exact": s.branch_exact,
                "reason": s.branch_reason,
            },
            "accesses": {"count": p.accesses, "roll": s.accesses_roll},
            "hostile_factions": {"wanted": s.hostile_wanted},
        },
        "door_strength": {"rw": p.door_rw},
        "rooms": rooms,
        "doors": doors,
        "openings": openings,
        "tuning": {
            "budget": p.tuning.budget,
            "left": p.tuning.left,
            "phase": p.tuning.phase,
            "log": [
                {
                    "n": e.n,
                    "op": e.op,
                    "key": e.key,
                    "cost": e.cost,
                    "left": e.left,
                    "changes": list(e.changes),
                    "rolls": [dict(r) for r in e.rolls],
                }
                for e in p.tuning.log
            ],
        },
        "lotto": {
            "source": p.lotto.source,
            "table": p.lotto.table,
            "dice": p.lotto.dice,
            "gaps": p.lotto.gaps,
            "entries": [
                {"key": e.key, "stance": e.stance, "insider": e.insider, "range": [e.lo, e.hi]}
                for e in p.lotto.entries
            ],
        },
        "ids": {"next_challenge": p.next_challenge, "next_faction": p.next_faction},
        "texts": {key: dict(value) for key, value in p.texts.items()},
        "rolls": [dict(r) for r in p.rolls],
    }


def dumps(p: Prowl) -> str:
    """The plan as JSON text by kerker's one JSON convention (:mod:`kerker.jsonio`)."""
    from kerker.jsonio import dumps as write

    return write(to_json(p))


# -- reading back -----------------------------------------------------------------------------


def _reading(test: _Reader) -> str:
    """The reading of a Reputation(X) test in a plan (plans before it was recorded: sum)."""
    if "reading" not in test.data:
        return "sum"
    value = test.text("reading")
    if value not in ("sum", "successes"):
        raise PlanError(N_("{where}.reading: sum or successes is expected"), where=test.where)
    return str(value)


class _Reader:
    """Typed access to plan data; every failure is a :class:`PlanError` naming the field."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, dict):
            raise PlanError(N_("{where}: an object is expected"), where=where)
        self.data = data
        self.where = where

    def raw(self, key: str) -> Any:
        if key not in self.data:
            raise PlanError(N_("{where}: {key!r} is missing"), where=self.where, key=key)
        return self.data[key]

    def num(
        self, key: str, *, null: bool = False, low: int | None = None, high: int | None = None
    ) -> Any:
        value = self.raw(key)
        if value is None and null:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise PlanError(
                N_("{where}.{key}: a whole number is expected"), where=self.where, key=key
            )
        if (low is not None and value < low) or (high is not None and value > high):
            raise PlanError(
                N_("{where}.{key}: a whole number from {low} to {high} is expected"),
                where=self.where,
                key=key,
                low=low,
                high=high,
            )
        return value

    def text(self, key: str, *, null: bool = False) -> Any:
        value = self.raw(key)
        if value is None and null:
            return None
        if not isinstance(value, str):
            raise PlanError(N_("{where}.{key}: text is expected"), where=self.where, key=key)
        return value

    def flag(self, key: str) -> bool:
        value = self.raw(key)
        if not isinstance(value, bool):
            raise PlanError(
                N_("{where}.{key}: true or false is expected"), where=self.where, key=key
            )
        return value

    def seq(self, key: str) -> list[Any]:
        value = self.raw(key)
        if not isinstance(value, list):
            raise PlanError(N_("{where}.{key}: a list is expected"), where=self.where, key=key)
        return value

    def obj(self, key: str) -> _Reader:
        return _Reader(self.raw(key), f"{self.where}.{key}")

    def items(self, key: str) -> list[_Reader]:
        return [_Reader(v, f"{self.where}.{key}[{i}]") for i, v in enumerate(self.seq(key))]

    def strs(self, key: str) -> tuple[str, ...]:
        values = self.seq(key)
        if not all(isinstance(v, str) for v in values):
            raise PlanError(
                N_("{where}.{key}: a list of texts is expected"), where=self.where, key=key
            )
        return tuple(values)


def _security(value: str, where: str) -> int:
    if value not in SECURITY_KEYS:
        raise PlanError(
            N_("{where}: security {value!r} is not one of {keys}"),
            where=where,
            value=value,
            keys=", ".join(SECURITY_KEYS),
        )
    return SECURITY_KEYS.index(value)


def _texts(data: Any) -> Mapping[str, Mapping[str, str]]:
    if not isinstance(data, dict):
        raise PlanError(N_("{where}: an object is expected"), where="texts")
    out: dict[str, Mapping[str, str]] = {}
    for key, value in data.items():
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise PlanError(N_("{where}: texts by language are expected"), where=f"texts.{key}")
        out[str(key)] = MappingProxyType(dict(value))
    return MappingProxyType(out)


def _rolls(values: list[Any], where: str) -> tuple[Mapping[str, Any], ...]:
    if not all(isinstance(v, dict) for v in values):
        raise PlanError(N_("{where}: a list of rolls is expected"), where=where)
    return tuple(dict(v) for v in values)


def from_json(data: Any) -> Prowl:
    """A prowl from plan data made by :func:`to_json`; refuses other data and plans whose
    references do not hold (a door to a room that is not there, two rooms with one id)."""
    top = _Reader(data, "plan")
    if top.raw("format") != FORMAT:
        raise PlanError(N_("not a kerker prowl plan (format {format!r} expected)"), format=FORMAT)
    lotto_r = top.obj("lotto")
    entries = []
    for e in lotto_r.items("entries"):
        rng = e.seq("range")
        if (
            len(rng) != 2
            or not isinstance(rng[0], int)
            or not (rng[1] is None or isinstance(rng[1], int))
        ):
            raise PlanError(N_("{where}.range: [low, high] is expected"), where=e.where)
        entries.append(
            LottoEntry(e.text("key"), e.text("stance"), e.flag("insider"), rng[0], rng[1])
        )
    lotto = Lotto(
        lotto_r.text("source"),
        lotto_r.text("table"),
        lotto_r.text("dice"),
        lotto_r.text("gaps"),
        tuple(entries),
    )
    factions = tuple(
        Faction(
            f.text("id"),
            f.text("key"),
            f.text("stance"),
            f.flag("insider"),
            f.text("origin"),
            f.num("roll", null=True),
        )
        for f in top.items("factions")
    )
    attrs_r = top.obj("attributes")
    attributes = tuple((str(k), attrs_r.num(k)) for k in attrs_r.data)
    st = top.obj("structure")
    branch = st.obj("branch_points")
    mid_r, hi_r = st.obj("mid_rooms"), st.obj("hi_rooms")
    nosec_r = st.obj("nosec_rooms")
    structure = Structure(
        lo_rw=st.obj("lo_rooms").num("rw"),
        mid=TestRoll(mid_r.num("target"), mid_r.text("dice"), mid_r.num("degree"), _reading(mid_r)),
        hi=TestRoll(hi_r.num("target"), hi_r.text("dice"), hi_r.num("degree"), _reading(hi_r)),
        branch_rw=branch.num("rw"),
        branch_points=branch.num("points"),
        branch_used=branch.num("used"),
        branch_reason=branch.text("reason", null=True),
        accesses_roll=st.obj("accesses").num("roll", null=True),
        nosec_requested=nosec_r.num("requested"),
        nosec_added=nosec_r.num("added"),
        hostile_wanted=st.obj("hostile_factions").num("wanted"),
        loops=st.num("loops") if "loops" in st.data else 0,
    )
    rooms: list[Room] = []
    challenges: list[Challenge] = []
    for r in top.items("rooms"):
        loot = None
        if r.raw("loot") is not None:
            lr = r.obj("loot")
            protections = tuple(
                Protection(
                    x.text("kind"),
                    x.num("level"),
                    x.num("rw"),
                    x.text("subtype", null=True),
                    x.text("table", null=True),
                )
                for x in lr.items("protections")
            )
            loot = Loot(
                lr.num("value"),
                lr.text("unit"),
                lr.num("rw"),
                lr.num("multiplier"),
                lr.text("secured"),
                protections,
            )
        room = Room(
            r.text("id"),
            _security(r.text("security"), r.where),
            r.num("depth", low=1, high=MAX_PLAN_DEPTH),
            r.num("accesses", low=0, high=MAX_PLAN_ACCESSES),
            r.num("branch_cost", low=0, high=MAX_PLAN_DEPTH),
            loot,
        )
        rooms.append(room)
        for c in r.items("challenges"):
            challenges.append(
                Challenge(
                    id=c.text("id"),
                    room=room.id,
                    type=c.text("type"),
                    subtype=c.text("subtype"),
                    table=c.text("table"),
                    mobile=c.flag("mobile"),
                    effect=c.text("effect", null=True),
                    level=c.num("level"),
                    rw=c.num("rw", null=True),
                    mode=c.text("mode"),
                    route=c.strs("route"),
                    origin=c.text("origin"),
                )
            )
    conns: list[Connection] = []
    for d in top.items("doors"):
        between = d.strs("between")
        trap = None
        if d.raw("trap") is not None:
            t = d.obj("trap")
            trap = DoorTrap(t.text("subtype"), t.text("table"), t.text("effect", null=True))
        conns.append(
            Connection(
                d.text("id"),
                _pair(between, d.where),
                True,
                d.text("kind"),
                d.num("bonus"),
                d.num("strength"),
                trap,
            )
        )
    for o in top.items("openings"):
        conns.append(Connection(o.text("id"), _pair(o.strs("between"), o.where), False))
    conns.sort(key=lambda c: id_number(c.id))
    tr = top.obj("tuning")
    log = tuple(
        TuneEntry(
            e.num("n"),
            e.text("op"),
            e.text("key"),
            e.num("cost"),
            e.num("left"),
            e.strs("changes"),
            _rolls(e.seq("rolls"), e.where),
        )
        for e in tr.items("log")
    )
    phase = tr.text("phase")
    if phase not in (PHASE_BUDGET, PHASE_REDISTRIBUTION):
        raise PlanError(N_("{where}: phase {value!r} is unknown"), where="plan.tuning", value=phase)
    tuning = Tuning(tr.num("budget"), tr.num("left"), phase, log)
    ids = top.obj("ids")
    p = Prowl(
        version=top.text("kerker"),
        seed=top.num("seed", null=True),
        tune_seed=top.num("tune_seed"),
        reputation=top.num("reputation"),
        players=top.num("players"),
        lotto=lotto,
        factions=factions,
        attributes=attributes,
        structure=structure,
        accesses=top.num("accesses", low=1, high=MAX_PLAN_ACCESSES),
        door_rw=top.obj("door_strength").num("rw"),
        rooms=tuple(rooms),
        connections=tuple(conns),
        challenges=tuple(challenges),
        tuning=tuning,
        texts=_texts(top.raw("texts")),
        rolls=_rolls(top.seq("rolls"), "plan.rolls"),
        next_challenge=ids.num("next_challenge"),
        next_faction=ids.num("next_faction"),
    )
    check_plan(p)
    return p


def _pair(values: tuple[str, ...], where: str) -> tuple[str, str]:
    if len(values) != 2:
        raise PlanError(N_("{where}.between: two rooms are expected"), where=where)
    return values[0], values[1]


def check_plan(p: Prowl) -> None:
    """Refuse a plan whose ids repeat or whose references point nowhere."""
    room_ids = [r.id for r in p.rooms]
    for name, ids in (
        ("rooms", room_ids),
        ("doors", [c.id for c in p.connections]),
        ("challenges", [c.id for c in p.challenges]),
        ("factions", [f.id for f in p.factions]),
    ):
        if len(set(ids)) != len(ids):
            raise PlanError(N_("{where}: an id appears twice"), where=f"plan.{name}")
    known = set(room_ids)
    for conn in p.connections:
        a, b = conn.between
        if b not in known or (a not in known and a != OUTSIDE) or a == b:
            raise PlanError(
                N_("{where}: {id} joins rooms that are not in the plan"),
                where="plan.doors",
                id=conn.id,
            )
    for c in p.challenges:
        if any(r not in known for r in c.route):
            raise PlanError(
                N_("{where}: the route of {id} leaves the plan"), where="plan.rooms", id=c.id
            )
    if not p.rooms:
        raise PlanError(N_("{where}: a plan needs at least one room"), where="plan.rooms")


def load_plan(path: Path) -> Prowl:
    """Read a plan file; unreadable, oversized or malformed files raise :class:`PlanError`."""
    from kerker.fileio import check_json_depth, read_text

    # Type, size, encoding (a BOM is dropped) and nesting are checked before parsing.
    text = read_text(
        path, max_bytes=MAX_PLAN_BYTES, cannot_read=N_("cannot read the plan: {reason}")
    )
    check_json_depth(text, str(path))
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise PlanError(
            N_("{file}: not JSON: {reason}"), file=str(path), reason=str(exc).splitlines()[0]
        ) from None
    return from_json(data)


def write_outputs(
    p: Prowl,
    folder: Path,
    lang: str,
    *,
    png: bool = True,
    plan: bool = True,
    stem: str | None = None,
    paper: str = "a4",
) -> list[Path]:
    """Write the plan (JSON, unless ``plan`` is False), the map (SVG, PNG) and the GM sheet
    (Markdown, ``.<lang>.md``, and the one-page PDF on ``paper``, ``.<lang>.pdf``, when the
    typst package of ``kerker[pdf]`` is installed) into ``folder`` as ``prowl-<seed>.*``;
    returns the paths."""
    from kerker.prowl.render_md import render_markdown
    from kerker.prowl.render_svg import render_svg

    name = stem or (f"prowl-{p.seed}" if p.seed is not None else "prowl")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PlanError(
            N_("{file}: cannot create the folder: {reason}"),
            file=str(folder),
            reason=exc.strerror or str(exc),
        ) from None
    svg = render_svg(p, lang)
    files: list[tuple[Path, bytes]] = []
    if plan:
        files.append((folder / f"{name}.json", dumps(p).encode("utf-8")))
    files.append((folder / f"{name}.svg", svg.encode("utf-8")))
    if png:
        from kerker.render.svgkit import map_png

        files.append((folder / f"{name}.png", map_png(svg, scale=1.0)))
    files.append((folder / f"{name}.{lang}.md", render_markdown(p, lang).encode("utf-8")))
    sheet = pdf_sheet(p, lang, paper)
    if sheet is not None:
        files.append((folder / f"{name}.{lang}.pdf", sheet))
    return [write_file(path, data) for path, data in files]


def pdf_sheet(p: Prowl, lang: str, paper: str = "a4") -> bytes | None:
    """The heist's one-page sheet (:func:`kerker.prowl.render_md.render_pdf`), or None
    without the typst package (the extra ``kerker[pdf]``; the other files do not need it)."""
    from kerker.prowl.render_md import render_pdf
    from kerker.render.pdf import TypstMissing

    try:
        return render_pdf(p, lang, paper=paper)
    except TypstMissing:
        return None


def write_file(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` all or nothing (a full disk leaves no truncated file);
    refuses what :func:`kerker.fileio.write_atomic` refuses."""
    from kerker.fileio import write_atomic

    write_atomic(path, data)
    return path
