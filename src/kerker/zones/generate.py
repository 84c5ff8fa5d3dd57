"""The Zonenkarten procedure (seed 002) on the shipped tables: size, nodes, merges,
connections, hidden connections, start, details.

Every die is thrown on a table of ``zonenkarten/`` (or, for a choice among equals, on a
plain die) and logged. The readings of the seed are in docs/zones.md and
docs/rules-notes-002-004.md; in short:

- Step 3 rolls once for every zone that has a zone beside it ("für jede Zone ... mit 1w6
  eine Verschmelzung geprüft"), in reading order; on a merge, the zone merges with one of
  its edge neighbours holding a zone, chosen by a die when it has more than one (the text
  says "mit der anderen Zone" without naming it: a choice among equals). Merges chain into
  areas. ``merge="pair"`` is the older reading: one roll per pair of edge-adjacent zones.
- Step 4 rolls, for each area in letter order, how many connections it has *in all*;
  links made by earlier areas count; the missing ones go to neighbours not yet linked,
  first to those whose own roll is not used up yet, chosen by a die when there are more
  than needed. Fewer neighbours than rolled: it links to all of them.
- Every pair of neighbour areas left unlinked gets a hidden connection with a hint. Then
  every area the start (or area A) still cannot reach, even through hidden connections,
  gets a hidden way from the nearest reached area across empty nodes ("zum Beispiel durch
  das Bullauge einer verschlossenen Druckschotttür"), so every area can be reached.

Stages draw from sub-seeds (blake2b of one base number and the stage name), so the layout
does not change when the detail tables or the theme change.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from kerker.dice import parse, roll
from kerker.errors import N_, KerkerError, OptionError
from kerker.limits import DEFAULT_LIMITS, ZoneLimits
from kerker.seeding import seed_rng
from kerker.seeding import sub_rng as _sub_rng
from kerker.tables.engine import TableResult, roll_table
from kerker.tables.registry import Registry
from kerker.zones.model import (
    Area,
    AreaDetails,
    Connection,
    Detail,
    LogEntry,
    Merge,
    Point,
    ZoneMap,
)

RULE_SET = "zonenkarten"
STEP_TABLES = ("map-size", "node-content", "merge", "connections")
THEME_TABLES = ("hidden-connection", "name", "property", "description", "encounter", "loot")
MAX_SIDE = DEFAULT_LIMITS.zones.max_side
"""Largest width and height of a map (nodes) under the default limits."""
MERGE_READINGS = ("zone", "pair")
"""Step 3: one roll per zone (the text, default) or one per pair of zones (older reading)."""


class ZoneError(KerkerError):
    """Zone-map tables that give what the procedure cannot use (a user table, mostly)."""

    code = "zones"


@dataclass(frozen=True, slots=True)
class ZoneParams:
    """What a zone map is generated from.

    ``size`` (width, height) skips step 1; ``theme`` names the detail tables
    (``zonenkarten/<theme>-name`` ...); ``senses`` is how many sense prompts each area
    gets (the description table's note: two or three); ``details=False`` stops after the
    layout (no names, hints or details: faster, for tests and benchmarks). ``merge`` is
    the step-3 reading (:data:`MERGE_READINGS`); ``min_areas`` rolls the layout again
    (size included, when rolled) until the map has at least that many areas. ``seed``,
    when given, is what the dice come from and what the documents show (see
    :mod:`kerker.seeding`); without it the ``rng`` given to :func:`generate` is used.
    """

    size: tuple[int, int] | None = None
    theme: str = "scifi"
    senses: int = 3
    details: bool = True
    seed: int | None = None
    merge: str = "zone"
    min_areas: int = 0


def letter(index: int) -> str:
    """The letter of the ``index``-th area (0-based): A ... Z, then AA, AB ... like columns
    of a spreadsheet.

    >>> [letter(i) for i in (0, 25, 26, 27, 701)]
    ['A', 'Z', 'AA', 'AB', 'ZZ']
    """
    out = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        out = chr(ord("A") + rest) + out
    return out


def parse_size(text: str) -> tuple[int, int]:
    """``"8x5"`` (also ``8×5``, ``8X5``, ``8*5``) -> ``(8, 5)``: width and height in nodes.

    Refuses anything else, and sides outside 1 .. :data:`MAX_SIDE`, with :class:`OptionError`.
    """
    cleaned = text.strip().lower().replace("×", "x").replace("*", "x").replace(" ", "")
    w_text, sep, h_text = cleaned.partition("x")
    if not sep or not w_text.isdigit() or not h_text.isdigit():
        raise OptionError(N_("--size takes WIDTHxHEIGHT, e.g. 8x5, not {text!r}"), text=text)
    return check_size(int(w_text), int(h_text))


def check_size(
    width: int, height: int, limits: ZoneLimits = DEFAULT_LIMITS.zones
) -> tuple[int, int]:
    """``(width, height)`` if both lie in 1 .. ``limits.max_side``, else :class:`OptionError`."""
    top = limits.max_side
    if not (1 <= width <= top and 1 <= height <= top):
        raise OptionError(
            N_("a zone map is 1 to {max} nodes wide and high, not {w}x{h}"),
            max=top,
            w=width,
            h=height,
        )
    return width, height


def themes(registry: Registry) -> list[str]:
    """The themes the registry can detail: every ``<theme>`` with all six
    ``zonenkarten/<theme>-...`` tables (shipped: fantasy, scifi; a game master's own
    folder can add more)."""
    prefix = RULE_SET + "/"
    suffix = "-" + THEME_TABLES[0]
    found = []
    for table_id in registry.tables:
        if table_id.startswith(prefix) and table_id.endswith(suffix):
            theme = table_id[len(prefix) : -len(suffix)]
            if all(f"{prefix}{theme}-{name}" in registry.tables for name in THEME_TABLES):
                found.append(theme)
    return sorted(found)


def check_theme(theme: str, registry: Registry) -> str:
    """``theme`` if the registry has its tables, else :class:`OptionError` naming the ones
    it has."""
    known = themes(registry)
    if theme not in known:
        raise OptionError(
            N_("unknown theme {theme!r}; choose one of {choices}"),
            theme=theme,
            choices=", ".join(known) or "-",
        )
    return theme


def sub_rng(base: int, stage: str) -> random.Random:
    """A generator of its own for one stage (:func:`kerker.seeding.sub_rng`)."""
    return _sub_rng(base, stage)


class _Roller:
    """Rolls tables and plain dice, keeping one log with what each die was for."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.log: list[LogEntry] = []

    def table(self, name: str, rng: random.Random, step: str, **where: Any) -> TableResult:
        table_id = name if "/" in name else f"{RULE_SET}/{name}"
        result, entries = roll_table(self.registry, table_id, rng)
        for entry in entries:
            self.log.append(MappingProxyType({"step": step, **where, **entry}))
        return result

    def pick(self, count: int, rng: random.Random, step: str, **where: Any) -> int:
        """A die with ``count`` faces (a choice among equals): the 0-based index."""
        expression = f"W{count}"
        thrown = roll(parse(expression), rng)
        self.log.append(
            MappingProxyType(
                {
                    "step": step,
                    **where,
                    "table": None,
                    "dice": expression,
                    "roll": thrown.total,
                    "explain": thrown.explain(),
                    "row": None,
                    "key": None,
                }
            )
        )
        return thrown.total - 1


def _value(result: TableResult, name: str, kind: type, lo: int = 0, hi: int | None = None) -> Any:
    """The row value ``name`` of a rolled step table, checked (user tables may lack it)."""
    value = result.values.get(name)
    if kind is bool:
        ok = isinstance(value, bool)
        wanted = "true or false"
    else:
        ok = (
            isinstance(value, int)
            and not isinstance(value, bool)
            and value >= lo
            and (hi is None or value <= hi)
        )
        wanted = (
            f"a whole number from {lo} to {hi}" if hi is not None else f"a whole number from {lo}"
        )
    if not ok:
        raise ZoneError(
            N_("table {table}, row {row}: value {name!r} must be {wanted}, not {value!r}"),
            table=result.table.id,
            row=result.pick.row.label(),
            name=name,
            wanted=wanted,
            value=value,
        )
    return value


def _detail(result: TableResult) -> Detail:
    return Detail(result.table.id, result.key, MappingProxyType(dict(result.values)), result)


def generate(
    params: ZoneParams,
    rng: random.Random,
    registry: Registry,
    limits: ZoneLimits = DEFAULT_LIMITS.zones,
) -> ZoneMap:
    """A zone map rolled on ``registry``'s ``zonenkarten`` tables: from ``params.seed``
    when given (the seed shown reproduces the map), else from ``rng``.

    The same ``params``, the same seed (or seeded ``rng``) and the same tables give the
    same map. Refuses an unknown theme or merge reading, sizes outside 1 ..
    ``limits.max_side`` and a ``min_areas`` the size cannot hold (:class:`OptionError`),
    table rows without the values the procedure reads, and a ``min_areas`` not reached in
    ``limits.max_layout_tries`` layouts (:class:`ZoneError`).
    """
    if params.details:
        check_theme(params.theme, registry)
    if not 0 <= params.senses <= limits.max_senses:
        raise OptionError(
            N_("an area gets 0 to {max} sense prompts, not {n}"),
            max=limits.max_senses,
            n=params.senses,
        )
    if params.merge not in MERGE_READINGS:
        raise OptionError(
            N_("the merge reading is one of {choices}, not {text!r}"),
            choices=", ".join(MERGE_READINGS),
            text=params.merge,
        )
    most = limits.max_side**2
    if params.size is not None:
        check_size(*params.size, limits)
        most = params.size[0] * params.size[1]
    if not 0 <= params.min_areas <= most:
        raise OptionError(
            N_(
                "the minimum number of areas is 0 to {max} here (one area per node at most), "
                "not {n}"
            ),
            max=most,
            n=params.min_areas,
        )
    base = seed_rng(params.seed, rng).getrandbits(64)
    for attempt in range(limits.max_layout_tries):
        roller = _Roller(registry)
        layout = _layout(params, base, attempt, roller, limits)
        if len(layout.ordered) >= params.min_areas:
            return _finish(params, base, attempt, roller, layout, limits)
    raise ZoneError(
        N_(
            "no map with at least {n} areas in {tries} layouts; ask for fewer areas or a bigger map"
        ),
        n=params.min_areas,
        tries=limits.max_layout_tries,
    )


def _stage(base: int, name: str, attempt: int) -> random.Random:
    """The first layout keeps the plain stage names; each further try has its own."""
    return sub_rng(base, name if attempt == 0 else f"{name}/{attempt}")


@dataclass(slots=True)
class _Layout:
    width: int
    height: int
    is_zone: dict[Point, bool]
    zones: list[Point]
    merges: list[Merge]
    ordered: list[list[Point]]
    rng: random.Random


def _layout(
    params: ZoneParams, base: int, attempt: int, roller: _Roller, limits: ZoneLimits
) -> _Layout:
    """Steps 1-3: size, nodes, merges (the areas as groups of zones in letter order)."""
    # Step 1 - map size.
    if params.size is not None:
        width, height = params.size
    else:
        size = roller.table("map-size", _stage(base, "size", attempt), "map-size")
        width = _value(size, "w", int, 1, limits.max_side)
        height = _value(size, "h", int, 1, limits.max_side)

    layout = _stage(base, "layout", attempt)

    # Step 2 - fill the nodes, from the top left, row by row.
    is_zone: dict[Point, bool] = {}
    for y in range(height):
        for x in range(width):
            node = roller.table("node-content", layout, "node", node=[x, y])
            is_zone[(x, y)] = _value(node, "zone", bool)
    zones = [p for p in sorted(is_zone, key=lambda p: (p[1], p[0])) if is_zone[p]]

    # Step 3 - merges, in reading order.
    parent = {p: p for p in zones}

    def find(p: Point) -> Point:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    def join(one: Point, two: Point) -> None:
        ra, rb = find(one), find(two)
        if ra != rb:
            # The root is always the earlier zone: letters follow reading order.
            first, second = sorted((ra, rb), key=lambda p: (p[1], p[0]))
            parent[second] = first

    merges: list[Merge] = []
    for x, y in zones:
        if params.merge == "pair":
            for other in ((x + 1, y), (x, y + 1)):
                if not is_zone.get(other, False):
                    continue
                result = roller.table("merge", layout, "merge", pair=[[x, y], list(other)])
                merged = _value(result, "merged", bool)
                merges.append(Merge((x, y), other, merged))
                if merged:
                    join((x, y), other)
            continue
        # One roll per zone with a zone beside it; a merge joins one of those neighbours
        # (up, left, right, down: reading order), a die choosing among several.
        beside = [
            p for p in ((x, y - 1), (x - 1, y), (x + 1, y), (x, y + 1)) if is_zone.get(p, False)
        ]
        if not beside:
            continue
        result = roller.table("merge", layout, "merge", zone=[x, y])
        merged = _value(result, "merged", bool)
        chosen: Point | None = None
        if merged:
            chosen = beside[0]
            if len(beside) > 1:
                chosen = beside[
                    roller.pick(
                        len(beside),
                        layout,
                        "merge-with",
                        zone=[x, y],
                        among=[list(p) for p in beside],
                    )
                ]
            join((x, y), chosen)
        merges.append(Merge((x, y), chosen, merged))

    groups: dict[Point, list[Point]] = {}
    for p in zones:
        groups.setdefault(find(p), []).append(p)
    ordered = sorted(groups.values(), key=lambda g: (g[0][1], g[0][0]))
    return _Layout(width, height, is_zone, zones, merges, ordered, layout)


def _finish(
    params: ZoneParams, base: int, attempt: int, roller: _Roller, lay: _Layout, limits: ZoneLimits
) -> ZoneMap:
    """Step 4, hidden connections and ways, the start and the details."""
    width, height, zones, ordered, layout = lay.width, lay.height, lay.zones, lay.ordered, lay.rng
    letters = [letter(i) for i in range(len(ordered))]
    area_of = {p: letters[i] for i, group in enumerate(ordered) for p in group}

    # Neighbour areas and the zone pairs along which they touch (reading order).
    rank = {name: i for i, name in enumerate(letters)}
    edges: dict[tuple[str, str], list[tuple[Point, Point]]] = {}
    for x, y in zones:
        for other in ((x + 1, y), (x, y + 1)):
            if other in area_of and area_of[other] != area_of[(x, y)]:
                a, b = area_of[(x, y)], area_of[other]
                if rank[a] < rank[b]:
                    edges.setdefault((a, b), []).append(((x, y), other))
                else:
                    edges.setdefault((b, a), []).append((other, (x, y)))
    neighbours: dict[str, list[str]] = {name: [] for name in letters}
    for a, b in edges:
        neighbours[a].append(b)
        neighbours[b].append(a)
    for name in letters:
        neighbours[name].sort(key=rank.__getitem__)

    # Step 4 - connections: each area's roll is how many it has in all.
    rolled: dict[str, int] = {}
    linked: dict[str, list[str]] = {name: [] for name in letters}
    open_links: list[tuple[str, str]] = []
    for name in letters:
        result = roller.table("connections", layout, "connections", area=name)
        rolled[name] = _value(result, "connections", int)
        need = rolled[name] - len(linked[name])
        free = [n for n in neighbours[name] if n not in linked[name]]
        # Neighbours whose own roll still has room (not rolled yet, or below it) come first.
        room = [n for n in free if n not in rolled or len(linked[n]) < rolled[n]]
        full = [n for n in free if n not in room]
        for tier in (room, full):
            while need > 0 and tier:
                if need >= len(tier):
                    chosen = tier.pop(0)
                else:
                    index = roller.pick(len(tier), layout, "pick", area=name, among=list(tier))
                    chosen = tier.pop(index)
                linked[name].append(chosen)
                linked[chosen].append(name)
                open_links.append((name, chosen))
                need -= 1

    def edge_of(a: str, b: str) -> tuple[Point, Point]:
        key = (a, b) if rank[a] < rank[b] else (b, a)
        along = edges[key]
        first, second = along[(len(along) - 1) // 2]
        return (first, second) if key[0] == a else (second, first)

    def hint(a: str, b: str) -> Detail | None:
        if not params.details:
            return None
        return _detail(
            roller.table(
                f"{params.theme}-hidden-connection",
                sub_rng(base, f"hidden/{a}-{b}"),
                "hidden",
                link=[a, b],
            )
        )

    connections = [Connection(a, b, False, edge_of(a, b)) for a, b in open_links]
    for a, b in sorted(edges, key=lambda k: (rank[k[0]], rank[k[1]])):
        if b not in linked[a]:
            connections.append(Connection(a, b, True, edge_of(a, b), hint(a, b)))

    # The start: an area with two or more open connections; the one from which the most
    # areas can be reached openly, then the one with the most accesses, then a die.
    counts = {name: len(linked[name]) for name in letters}
    candidates = [name for name in letters if counts[name] >= 2]
    start: str | None = None
    if candidates:
        reach = {name: _reach(name, linked) for name in candidates}
        best = max((reach[n], counts[n]) for n in candidates)
        tied = [n for n in candidates if (reach[n], counts[n]) == best]
        start = tied[0]
        if len(tied) > 1:
            start = tied[roller.pick(len(tied), sub_rng(base, "start"), "start", among=tied)]

    # Separated areas: a hidden way in from the nearest reached area, across empty nodes.
    if letters:
        connections += _hidden_ways(start or letters[0], connections, area_of, lay, hint)

    areas: list[Area] = []
    for i, group in enumerate(ordered):
        name = letters[i]
        details = None
        if params.details:
            details = _area_details(
                roller,
                params,
                sub_rng(base, f"details/{name}"),
                name,
                used=[a.details.name.key for a in areas if a.details is not None],
                limits=limits,
            )
        areas.append(
            Area(name, tuple(group), _label(group), tuple(neighbours[name]), rolled[name], details)
        )

    grid = tuple(tuple(area_of.get((x, y)) for x in range(width)) for y in range(height))
    return ZoneMap(
        seed=params.seed,
        theme=params.theme,
        width=width,
        height=height,
        size_rolled=params.size is None,
        grid=grid,
        merges=tuple(lay.merges),
        areas=tuple(areas),
        connections=tuple(connections),
        start=start,
        start_candidates=tuple(candidates),
        log=tuple(roller.log),
        merge=params.merge,
        attempts=attempt + 1,
    )


def _hidden_ways(
    root: str, connections: list[Connection], area_of: Mapping[Point, str], lay: _Layout, hint: Any
) -> list[Connection]:
    """Hidden ways that make every area reachable from ``root``.

    While some area cannot be reached through open or hidden connections, the nearest one
    (fewest empty nodes between; then reading order of its zone, then of the reached zone)
    gets a hidden way from the reached zone across the empty nodes between. A path of
    empty nodes always exists: on any grid path from a reached to an unreached zone, the
    stretch after the last reached zone up to the first unreached one is empty.
    """
    graph: dict[str, set[str]] = {}
    for link in connections:
        graph.setdefault(link.a, set()).add(link.b)
        graph.setdefault(link.b, set()).add(link.a)
    reached: set[str] = set()

    def spread(start: str) -> None:
        todo = [start]
        reached.add(start)
        while todo:
            for there in graph.get(todo.pop(), ()):
                if there not in reached:
                    reached.add(there)
                    todo.append(there)

    spread(root)
    order = sorted(area_of, key=lambda p: (p[1], p[0]))
    total = len(set(area_of.values()))
    ways: list[Connection] = []
    while len(reached) < total:
        sources = [p for p in order if area_of[p] in reached]
        came: dict[Point, Point | None] = {p: None for p in sources}
        frontier = list(sources)
        found: list[Point] = []
        while frontier and not found:
            nxt: list[Point] = []
            for x, y in frontier:
                for p in ((x, y - 1), (x - 1, y), (x + 1, y), (x, y + 1)):
                    if p in came or not (0 <= p[0] < lay.width and 0 <= p[1] < lay.height):
                        continue
                    if p in area_of:
                        if area_of[p] not in reached and p not in found:
                            found.append(p)
                            came[p] = (x, y)
                        continue
                    came[p] = (x, y)
                    nxt.append(p)
            frontier = nxt
        target = min(found, key=lambda p: (p[1], p[0]))
        path: list[Point] = []
        step = came[target]
        while step is not None and step not in area_of:
            path.append(step)
            step = came[step]
        assert step is not None  # the walk ends on a reached zone
        a, b = area_of[step], area_of[target]
        ways.append(Connection(a, b, True, (step, target), hint(a, b), tuple(reversed(path))))
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set()).add(a)
        spread(b)
    return ways


def _reach(start: str, linked: Mapping[str, list[str]]) -> int:
    seen = {start}
    todo = [start]
    while todo:
        for there in linked[todo.pop()]:
            if there not in seen:
                seen.add(there)
                todo.append(there)
    return len(seen)


def _label(group: list[Point]) -> Point:
    """The zone nearest the centre of the area (first in reading order on a tie)."""
    cx = sum(p[0] for p in group) / len(group)
    cy = sum(p[1] for p in group) / len(group)
    return min(group, key=lambda p: ((p[0] - cx) ** 2 + (p[1] - cy) ** 2, p[1], p[0]))


def _area_details(
    roller: _Roller,
    params: ZoneParams,
    rng: random.Random,
    name: str,
    used: list[str | None],
    limits: ZoneLimits,
) -> AreaDetails:
    theme = params.theme
    keys = list(
        dict.fromkeys(row.key for row in roller.registry.get(f"{RULE_SET}/{theme}-name").rows)
    )
    title = roller.table(f"{theme}-name", rng, "name", area=name)
    unused = [k for k in keys if k not in used]
    # A name already given is rolled again while the table has unused names (at most
    # limits.max_name_tries times; every try stays in the log).
    for _try in range(limits.max_name_tries):
        if title.key not in used or not unused:
            break
        title = roller.table(f"{theme}-name", rng, "name", area=name)
    prop = roller.table(f"{theme}-property", rng, "property", area=name)
    scopes = [c for c in prop.children() if c.table.name == "property-scope"]
    scope = _detail(scopes[0]) if scopes else None
    rows = roller.registry.get(f"{RULE_SET}/{theme}-description").rows
    kinds = {row.value.get("sense", row.key) for row in rows}
    senses: list[Detail] = []
    seen: set[object] = set()
    for _slot in range(params.senses):
        # A sense already described is rolled again while others are left (the table's
        # note allows both); every try stays in the log.
        for _try in range(limits.max_sense_tries):
            prompt = roller.table(f"{theme}-description", rng, "sense", area=name)
            kind = prompt.values.get("sense", prompt.key)
            if kind not in seen or len(seen) >= len(kinds):
                break
        seen.add(kind)
        senses.append(_detail(prompt))
    encounter = roller.table(f"{theme}-encounter", rng, "encounter", area=name)
    loot = roller.table(f"{theme}-loot", rng, "loot", area=name)
    return AreaDetails(
        _detail(title), _detail(prop), scope, tuple(senses), _detail(encounter), _detail(loot)
    )
