"""The shared dungeon engine: levels, occupancy, the frontier of open exits, budgets.

A procedure (a plug-in: :class:`Procedure`) decides what lies behind an exit; the engine
keeps the book: which areas and connections exist, which exits are still open, which level
waits for which arrival, how often a roll had to be bent. The frontier is a stack, so
expanding "until nothing is open" is the seed's depth-first walk: the exits of the newest
area are taken first, and when the areas behind an exit are fully explored the walk returns
to the last decision and takes the next exit.

Lazy by design: :func:`start` places the entrance, :func:`expand` explores one open exit,
:func:`generate` is "expand until nothing is open or the budget is spent". Every step takes
the RNG as a parameter; each level rolls with its own sub-seed (``hashlib.blake2b``), so
levels do not shift when another level changes.
"""

from __future__ import annotations

import hashlib
import importlib
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

from kerker.dice.explain import explain
from kerker.dungeon.model import (
    Area,
    Connection,
    Content,
    Dungeon,
    Feature,
    Level,
    RollEntry,
)
from kerker.errors import N_, OptionError
from kerker.geometry.grid import CELLS_PER_SQUARE, Cell, sort_cells, step
from kerker.geometry.occupancy import Occupancy
from kerker.tables.engine import TableResult, roll_table_picks
from kerker.tables.registry import Registry

DEFAULT_SIZE = (30, 40)
"""Squares (10 ft) across and down: a sheet of quarter-inch graph paper (A4 or Letter)."""
MIN_SIZE, MAX_SIZE = 10, 200
DEFAULT_MAX_AREAS = 60
MAX_AREAS = 1_000
DEFAULT_MIN_AREAS = 10
MAX_LEVEL_TRIES = 50
"""A dungeon whose first level stays below ``min_areas`` is rolled again at most this often
(then the largest first level rolled is kept)."""
MAX_LEVELS = 20


def available_procedures() -> tuple[str, ...]:
    """Rule sets that have a procedure: a rule folder ``rules/<name>/`` and a module
    ``kerker.dungeon.<name>`` (dashes as underscores) defining ``PROCEDURE``.

    Found without importing the modules, so adding a procedure touches no engine file.
    """
    import importlib.util

    from kerker.tables.registry import RULES_DIR

    found = []
    for folder in sorted(p.name for p in RULES_DIR.iterdir() if p.is_dir()):
        module = f"kerker.dungeon.{folder.replace('-', '_')}"
        if importlib.util.find_spec(module) is not None:
            found.append(folder)
    return tuple(found)


_FOUND: set[str] = set()
"""Rule sets :func:`available_procedures` has listed in this process."""


class DungeonError(OptionError):
    """Options a dungeon cannot be made with."""

    code = "dungeon"


@dataclass(frozen=True, slots=True)
class Params:
    """What to generate. ``size`` is in squares (10 ft); bounds are checked by
    :meth:`checked`."""

    rules: str = "zufallslabyrinth"
    seed: int | None = None
    levels: int = 1
    size: tuple[int, int] = DEFAULT_SIZE
    max_areas: int = DEFAULT_MAX_AREAS
    entrance: str = "variant"
    empty_entrance: bool = False
    min_areas: int = DEFAULT_MIN_AREAS
    """A dungeon whose first level has fewer areas (capped by ``max_areas``) is rolled again,
    as a game master would (docs/dungeon.md); 0 or 1 takes the first roll."""
    caves: str = "depth"
    """Where a procedure that can make caves instead of chambers makes them (Scatola Bianca
    A.8): ``depth`` (its own depth rule), ``always`` or ``never``."""

    def checked(self) -> Params:
        """Self, or a :class:`DungeonError` naming the option out of bounds."""
        if self.rules not in _FOUND:  # a rule set once found stays found (no folder scan)
            procedures = available_procedures()
            if self.rules not in procedures:
                raise DungeonError(N_("unknown rules {rules!r}; choose one of {choices}"),
                                   rules=self.rules, choices=", ".join(procedures))
            _FOUND.add(self.rules)
        if not 1 <= self.levels <= MAX_LEVELS:
            raise DungeonError(N_("--levels must be between 1 and {max}"), max=MAX_LEVELS)
        w, h = self.size
        if not (MIN_SIZE <= w <= MAX_SIZE and MIN_SIZE <= h <= MAX_SIZE):
            raise DungeonError(N_("--size must be between {lo}x{lo} and {hi}x{hi} squares"),
                               lo=MIN_SIZE, hi=MAX_SIZE)
        if not 1 <= self.max_areas <= MAX_AREAS:
            raise DungeonError(N_("--max-areas must be between 1 and {max}"), max=MAX_AREAS)
        if not 0 <= self.min_areas <= MAX_AREAS:
            raise DungeonError(N_("--min-areas must be between 0 and {max}"), max=MAX_AREAS)
        if self.entrance not in ("variant", "room", "hall"):
            raise DungeonError(N_("--entrance takes variant, room or hall, not {text!r}"),
                               text=self.entrance)
        if self.caves not in ("depth", "always", "never"):
            raise DungeonError(N_("--caves takes depth, always or never, not {text!r}"),
                               text=self.caves)
        if self.caves != "depth" and not self.reads_caves():
            raise DungeonError(N_("--caves {caves} is not for --rules {rules}: its caves come "
                                  "from its own tables"), caves=self.caves, rules=self.rules)
        return self

    def reads_caves(self) -> bool:
        """Whether the procedure of :attr:`rules` honours :attr:`caves` (its plug-in says so
        with ``reads_caves = True``)."""
        return bool(getattr(load_procedure(self.rules), "reads_caves", False))

    def procedure_options(self) -> tuple[tuple[str, Any], ...]:
        """The options only some procedures read, as the document's ``options`` records
        them: ``caves`` for a procedure that honours it, else nothing."""
        return (("caves", self.caves),) if self.reads_caves() else ()


@dataclass
class AreaBuilder:
    """An area while it is being made (mutable; frozen by :meth:`DungeonState.snapshot`)."""

    id: str
    number: int
    kind: str
    shape: str
    cells: set[Cell]
    heading: str = "n"
    contents: list[Content] = field(default_factory=list)
    features: list[Feature] = field(default_factory=list)
    rolls: list[RollEntry] = field(default_factory=list)
    results: list[TableResult] = field(default_factory=list)
    width_ft: int | None = None
    closed: bool = False
    """Exits have doors (a room) rather than open passages (a hall)."""
    edges: dict[str, tuple[int, list[Cell]]] = field(default_factory=dict, repr=False,
                                                     compare=False)
    """Side -> (cells at the time, the cells with no cell of the area beyond that side, by
    (y, x)): kept while the area has that many cells (cells are only ever added)."""

    def absorb(self, sink: Sink) -> None:
        """Take over rolls made before the area existed."""
        self.rolls.extend(sink.rolls)
        self.results.extend(sink.results)
        sink.rolls.clear()
        sink.results.clear()


@dataclass
class Sink:
    """Where rolls are logged before their area exists."""

    rolls: list[RollEntry] = field(default_factory=list)
    results: list[TableResult] = field(default_factory=list)


@dataclass
class ConnBuilder:
    """A connection while it is being made. ``mode`` says how the engine expands it while
    ``to`` is None: ``exit`` (Schritt 3 on ``table``), ``corridor`` (a corridor going on in
    ``heading`` with ``width`` cells), ``level`` (a way to ``to_level``)."""

    id: str
    from_: str
    to: str | None
    kind: str
    at: Cell
    side: str
    width: int = 2
    to_level: int | None = None
    direction: str | None = None
    one_way: str | None = None
    gm_only: bool = False
    mode: str = "exit"
    table: str | None = None
    heading: str | None = None
    info: dict[str, Any] = field(default_factory=dict)


@dataclass
class Arrival:
    """A way from another level that must arrive on this one."""

    conn: str
    from_depth: int
    from_area: str
    kind: str
    ends_in: str


@dataclass
class LevelState:
    """One level while it is being made."""

    depth: int
    occ: Occupancy
    rng: random.Random
    areas: dict[str, AreaBuilder] = field(default_factory=dict)
    conns: dict[str, ConnBuilder] = field(default_factory=dict)
    frontier: list[str] = field(default_factory=list)
    arrivals: list[Arrival] = field(default_factory=list)
    entrance: str | None = None
    started: bool = False


class Procedure(Protocol):
    """A rule set's steps. The engine calls them; they call the engine's book-keeping."""

    name: str

    def start(self, state: DungeonState, level: LevelState) -> None:
        """Place the entrance of level 1 and open its exits."""

    def arrive(self, state: DungeonState, level: LevelState, arrival: Arrival) -> None:
        """Place what a way from another level arrives in."""

    def expand(self, state: DungeonState, level: LevelState, conn: ConnBuilder) -> None:
        """Explore what lies behind the open exit ``conn`` (depth-first, fully)."""


def load_procedure(name: str) -> Procedure:
    """The ``PROCEDURE`` of module ``kerker.dungeon.<name>``."""
    module = importlib.import_module(f"kerker.dungeon.{name.replace('-', '_')}")
    procedure: Procedure = module.PROCEDURE
    return procedure


def sub_seed(base: int, *parts: object) -> int:
    """A 64-bit seed from ``base`` and ``parts`` (blake2b: stable everywhere, unlike hash())."""
    text = ":".join(str(p) for p in (base, *parts)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


class DungeonState:
    """The book of a dungeon being made; :meth:`snapshot` gives the frozen :class:`Dungeon`."""

    def __init__(self, params: Params, rng: random.Random, registry: Registry) -> None:
        self.params = params.checked()
        self.registry = registry
        self.base = rng.getrandbits(64)
        self.procedure = load_procedure(params.rules)
        self.levels: dict[int, LevelState] = {}
        self.bent: Counter[str] = Counter()
        self._areas = 0
        self._conns = 0

    # -- levels --------------------------------------------------------------------------
    def level(self, depth: int) -> LevelState:
        """The level at ``depth`` (made empty on first use)."""
        if depth not in self.levels:
            w, h = self.params.size
            occ = Occupancy(w * CELLS_PER_SQUARE, h * CELLS_PER_SQUARE)
            self.levels[depth] = LevelState(depth, occ, random.Random(sub_seed(self.base, depth)))
        return self.levels[depth]

    def budget_left(self, level: LevelState) -> bool:
        """May another area be made on ``level``?"""
        return len(level.areas) < self.params.max_areas

    # -- book-keeping for procedures --------------------------------------------------------
    def roll(self, table: str, level: LevelState, sink: AreaBuilder | Sink | None = None,
             **context: int | bool) -> TableResult:
        """Roll table ``table`` with the level's depth as context ``level``; the log goes to
        ``sink``'s rolls (an area, or a :class:`Sink` until the area exists)."""
        ctx: dict[str, int | bool] = {"level": level.depth}
        ctx.update(context)
        result, picks = roll_table_picks(self.registry, table, level.rng, context=ctx)
        if sink is not None:
            # the entries roll_table would log (RollEntry.from_log), made without the dicts
            sink.rolls += [RollEntry(t.id, p.dice, p.total, p.label, p.row.key, explain(p.roll))
                           for t, p in picks]
            sink.results.append(result)
        return result

    def new_area(self, level: LevelState, kind: str, shape: str, cells: set[Cell] | frozenset[Cell],
                 heading: str = "n") -> AreaBuilder:
        """A new area owning ``cells`` (checked free by the caller)."""
        self._areas += 1
        area = AreaBuilder(f"a{self._areas}", len(level.areas) + 1, kind, shape, set(cells),
                           heading)
        level.areas[area.id] = area
        level.occ.add(area.id, cells)
        return area

    def grow(self, level: LevelState, area: AreaBuilder, cells: list[Cell] | set[Cell]) -> None:
        """Give more cells to ``area``."""
        area.cells.update(cells)
        level.occ.add(area.id, cells)

    def connect(self, level: LevelState, from_: str, to: str | None, kind: str, at: Cell,
                side: str, **more: Any) -> ConnBuilder:
        """A connection; open (``to`` None, not a way to another level) ones go on the
        frontier, the newest on top."""
        self._conns += 1
        conn = ConnBuilder(f"c{self._conns}", from_, to, kind, at, side, **more)
        level.conns[conn.id] = conn
        if to is None and conn.mode in ("exit", "corridor"):
            level.frontier.append(conn.id)
        return conn

    def push_in_order(self, level: LevelState, conns: list[ConnBuilder]) -> None:
        """Put ``conns`` on the frontier so that the first is taken first."""
        ids = {c.id for c in conns}
        level.frontier = [i for i in level.frontier if i not in ids]
        level.frontier.extend(c.id for c in reversed(conns) if c.to is None)

    def drop(self, level: LevelState, conn: ConnBuilder) -> None:
        """Remove a connection that leads nowhere (its exit became a dead end)."""
        level.conns.pop(conn.id, None)
        if conn.id in level.frontier:
            level.frontier.remove(conn.id)

    def occupied_beyond(self, level: LevelState, conn: ConnBuilder) -> bool:
        """True (and the exit settled) when an area already lies behind ``conn``."""
        if level.occ.owner(step(conn.at, conn.side)) is None:
            return False
        level.frontier.append(conn.id)
        self.settle(level)
        return True

    def bend(self, kind: str) -> None:
        """Count a roll the bending policy had to change (docs/dungeon.md)."""
        self.bent[kind] += 1

    def link_level(self, level: LevelState, conn: ConnBuilder, ends_in: str) -> None:
        """Register ``conn`` (a stair, trapdoor or shaft) as an arrival on its target level,
        if that level is part of the dungeon."""
        target = conn.to_level
        if target is None or target < 1 or target > self.params.levels:
            return
        self.level(target).arrivals.append(
            Arrival(conn.id, level.depth, conn.from_, conn.kind, ends_in))

    # -- the walk ------------------------------------------------------------------------
    def run_level(self, level: LevelState) -> None:
        """Place waiting arrivals, then expand exits until none is open or the budget is
        spent."""
        if not level.started:
            level.started = True
            if level.depth == 1:
                self.procedure.start(self, level)
        while level.arrivals:
            self.procedure.arrive(self, level, level.arrivals.pop(0))
        while level.frontier and self.budget_left(level):
            conn = level.conns[level.frontier.pop()]
            if self.occupied_beyond(level, conn):
                continue
            self.procedure.expand(self, level, conn)
            while level.arrivals:
                self.procedure.arrive(self, level, level.arrivals.pop(0))

    def settle(self, level: LevelState) -> None:
        """Open exits whose far side an area has taken since: they open into it (``joined``),
        or vanish when it is their own area."""
        for conn in list(level.conns.values()):
            if conn.to is not None or conn.mode not in ("exit", "corridor"):
                continue
            owner = level.occ.owner(step(conn.at, conn.side))
            if owner is None:
                continue
            if owner == conn.from_:
                self.drop(level, conn)
                continue
            conn.to = owner
            conn.mode = "exit"
            if conn.id in level.frontier:
                level.frontier.remove(conn.id)
            self.bend("joined")

    def snapshot(self) -> Dungeon:
        """The frozen dungeon as it stands (open exits settled first)."""
        for st in self.levels.values():
            self.settle(st)
            for conn in st.conns.values():
                _fit_span(st, conn)
            _drop_doubles(st)
        levels = []
        for depth in sorted(self.levels):
            st = self.levels[depth]
            # area numbers stay off the cells of stairs, trapdoors, shafts and elevators
            ways = {c.at for c in st.conns.values() if c.mode == "level"}
            areas = tuple(_freeze_area(a, ways) for a in st.areas.values())
            conns = tuple(_freeze_conn(c) for c in st.conns.values())
            open_ids = tuple(c.id for c in st.conns.values() if c.to is None and (
                c.mode in ("exit", "corridor") or (c.to_level or 0) >= 1))
            levels.append(Level(depth, st.occ.width, st.occ.height, st.entrance, areas, conns,
                                open_ids))
        p = self.params
        options = (("levels", p.levels), ("size", list(p.size)), ("max_areas", p.max_areas),
                   ("min_areas", p.min_areas),
                   ("entrance", p.entrance), *p.procedure_options())
        return Dungeon(p.rules, p.seed, options, tuple(levels),
                       tuple(sorted(self.bent.items())))


def _along_wall(conn: ConnBuilder) -> tuple[int, int] | None:
    """The step from ``at`` along the wall a same-level link opens (+x on a north or south
    wall, +y on an east or west one); None for an open exit, a way to another level or a
    link that lies on no straight wall."""
    if conn.to is None or conn.mode == "level" or conn.side not in ("n", "e", "s", "w"):
        return None
    return (0, 1) if conn.side in ("e", "w") else (1, 0)


def _fit_span(level: LevelState, conn: ConnBuilder) -> None:
    """Make a connection of more than one cell open only where its area meets the area it
    leads to: the cells from ``at`` along its wall (:func:`_along_wall`) must be its area's,
    the cells across its wall the target's. Shifted back along the wall if that fits whole,
    else narrowed to the cells that fit."""
    along = _along_wall(conn)
    if along is None or conn.width <= 1:
        return
    owners = level.occ.owners

    def fits(x: int, y: int) -> bool:
        return (owners.get((x, y)) == conn.from_
                and owners.get(step((x, y), conn.side)) == conn.to)

    def run(x: int, y: int) -> int:
        n = 0
        while n < conn.width and fits(x + along[0] * n, y + along[1] * n):
            n += 1
        return n

    x, y = conn.at
    if run(x, y) == conn.width:
        return
    for back in range(1, conn.width):
        sx, sy = x - along[0] * back, y - along[1] * back
        if run(sx, sy) == conn.width:
            conn.at = (sx, sy)
            return
    conn.width = max(1, run(x, y))


def _edges(conn: ConnBuilder) -> set[tuple[Cell, Cell]]:
    """The wall edges (cell in its area, cell across) a same-level link opens."""
    along = _along_wall(conn)
    if along is None:
        return set()
    x, y = conn.at
    cells = [(x + along[0] * i, y + along[1] * i) for i in range(max(1, conn.width))]
    return {(c, step(c, conn.side)) for c in cells}


def _drop_doubles(level: LevelState) -> None:
    """Remove a link through a wall edge another link between the same two areas already
    opens (two exits that both joined the same area through the same wall, a secret door
    where a door is): one way through a wall is drawn and keyed once. Open ways are kept
    before secret ones, earlier before later. (An edge has two cells, so links sharing one
    always join the same two areas.)"""
    seen: set[tuple[Cell, Cell]] = set()
    order = sorted(level.conns.values(), key=lambda c: c.kind == "secret_door")
    for conn in order:
        edges = _edges(conn)
        if not edges:
            continue
        if edges & seen:
            del level.conns[conn.id]
            continue
        seen |= edges | {(b, a) for a, b in edges}


def _freeze_area(a: AreaBuilder, ways: set[Cell] | frozenset[Cell] = frozenset()) -> Area:
    cells = sort_cells(a.cells)
    return Area(a.id, a.number, a.kind, a.shape, cells, _label_cell(cells, ways),
                tuple(a.contents), tuple(a.features), tuple(a.rolls), tuple(a.results),
                a.width_ft)


def _label_cell(cells: tuple[Cell, ...], ways: set[Cell] | frozenset[Cell] = frozenset()
                ) -> Cell:
    """Where the area's number goes: the cell nearest the middle of the area (always one of
    its cells), preferring cells with floor all round them (off the walls, which a map may
    draw slanted) and away from the cells of ways to other levels."""
    xs, ys = zip(*cells, strict=True)
    mx = sum(xs) / len(cells)
    my = sum(ys) / len(cells)
    free = set(cells).difference(ways)
    # floor all round = the 3 x 3 box eroded in two passes: a row of three, then a column
    # of three such cells
    across = {(x, y) for x, y in free if (x - 1, y) in free and (x + 1, y) in free}
    inner = {(x, y) for x, y in across if (x, y - 1) in across and (x, y + 1) in across}
    pool = inner or free or set(cells)
    return min(pool, key=lambda c: ((c[0] - mx) ** 2 + (c[1] - my) ** 2, c[1], c[0]))


def _freeze_conn(c: ConnBuilder) -> Connection:
    return Connection(c.id, c.from_, c.to, c.kind, c.at, c.side, c.width, c.to_level,
                      c.direction, c.one_way, c.gm_only)


def start(params: Params, rng: random.Random, registry: Registry) -> DungeonState:
    """A dungeon with its entrance placed and nothing explored yet."""
    state = DungeonState(params, rng, registry)
    level = state.level(1)
    level.started = True
    state.procedure.start(state, level)
    return state


def expand(state: DungeonState, exit_id: str, rng: random.Random | None = None) -> bool:
    """Explore the open exit ``exit_id`` (on any level); False if it is not open.

    Each level rolls with its own RNG (a sub-seed of the one given to :func:`start`), so
    the order in which a player opens exits changes nothing on other levels; pass ``rng``
    to roll this expansion with it instead (the level keeps using it afterwards).
    """
    if rng is not None:
        for level in state.levels.values():
            if exit_id in level.conns:
                level.rng = rng
    for level in state.levels.values():
        conn = level.conns.get(exit_id)
        if conn is None:
            continue
        if conn.to is not None:
            return False
        if conn.mode == "level":
            target = conn.to_level or 0
            if not 1 <= target <= MAX_LEVELS:
                return False
            dest = state.level(target)
            dest.started = True
            dest.arrivals.append(Arrival(conn.id, level.depth, conn.from_, conn.kind,
                                         str(conn.info.get("ends_in", "corridor"))))
            while dest.arrivals:
                state.procedure.arrive(state, dest, dest.arrivals.pop(0))
            return True
        if state.occupied_beyond(level, conn):
            return True
        if exit_id in level.frontier:
            level.frontier.remove(exit_id)
        state.procedure.expand(state, level, conn)
        while level.arrivals:
            state.procedure.arrive(state, level, level.arrivals.pop(0))
        return True
    return False


def generate(params: Params, rng: random.Random, registry: Registry) -> Dungeon:
    """Roll a whole dungeon: each of ``params.levels`` levels expanded from its entrance or
    arrivals until nothing is open or its area budget is spent. Always terminates: every
    expansion adds an area or closes an exit, and areas are capped per level.

    A dungeon whose first level has fewer than ``params.min_areas`` areas (at most
    ``max_areas``) is rolled again from the next bits of ``rng``, at most
    :data:`MAX_LEVEL_TRIES` times; the largest first level wins, ties to the earlier roll.
    Each roll again is counted as the bend ``level_rerolled``."""
    params = params.checked()
    wanted = min(params.min_areas, params.max_areas)
    best: DungeonState | None = None
    best_size = -1
    rolled = 0
    while rolled < MAX_LEVEL_TRIES:
        # Level 1 first: only the chosen roll goes on to the deeper levels.
        state = DungeonState(params, rng, registry)
        state.run_level(state.level(1))
        rolled += 1
        size = len(state.levels[1].areas)
        if size > best_size:
            best, best_size = state, size
        if size >= wanted:
            break
    assert best is not None
    if rolled > 1:
        best.bent["level_rerolled"] += rolled - 1
    return _finish(best).snapshot()


def _finish(state: DungeonState) -> DungeonState:
    """Run every level until none is busy (arrivals waiting, exits open within budget)."""
    params = state.params
    for _round in range(100):
        busy = False
        for depth in range(1, params.levels + 1):
            level = state.level(depth)
            if depth > 1 and not level.started and not level.arrivals:
                continue
            if (not level.started or level.arrivals or
                    (level.frontier and state.budget_left(level))):
                busy = True
                state.run_level(level)
        if not busy:
            break
    # Levels no way reached stay out of the document.
    for depth in [d for d, lv in state.levels.items() if not lv.areas]:
        del state.levels[depth]
    return state
