"""The shared dungeon engine: levels, occupancy, the frontier of open exits, budgets.

A procedure (a plug-in: :class:`Procedure`) decides what lies behind an exit; the engine
keeps the book: which areas and connections exist, which exits are still open, how often a
roll had to be bent. The public face of it is :mod:`kerker.dungeon.api`.

**The lazy contract** (docs/dungeon.md, "Playing a dungeon lazily"):

- :func:`start` places the entrance; :func:`expand` explores one open exit, named by its
  stable key (:func:`exit_key`: ``"depth:x,y:side"`` from where it was made); a way to
  another level of the dungeon is an open exit too (expanding it places its arrival).
- Every step rolls with its own RNG, derived (``hashlib.blake2b``, :func:`sub_seed`) from the
  dungeon's seed and the key of the exit it expands, so the same door gives the same room
  whatever the order of play, unless what lies behind two doors collides.
- :func:`next_exit` is the procedure's own depth-first walk (the frontier is a stack: the
  exits of the newest area first); :func:`generate` *is* "expand :func:`next_exit` until it
  is None", so playing that walk lazily gives the very same document.
- A step changes no area made by an earlier step; it may only link an earlier area's open
  exit to the area that now lies behind it (``joined``).
"""

from __future__ import annotations

import importlib
import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple, Protocol, Self, SupportsIndex, TypeVar

from kerker import seeding
from kerker.dice.explain import explain
from kerker.dungeon.model import (
    Area,
    Bend,
    Connection,
    Content,
    Dungeon,
    Feature,
    Level,
    RollEntry,
)
from kerker.dungeon.sheet import PLANE, crop, crop_box
from kerker.errors import N_, OptionError
from kerker.geometry.grid import CELLS_PER_SQUARE, Cell, bounds, sort_cells, step
from kerker.geometry.occupancy import Occupancy
from kerker.limits import DEFAULT_DUNGEON_LIMITS, DungeonLimits
from kerker.tables.engine import TableResult, roll_table_picks
from kerker.tables.registry import Registry

DEFAULT_SIZE = (30, 40)
"""Squares (10 ft) across and down: a sheet of quarter-inch graph paper (A4 or Letter)."""
DEFAULT_MAX_AREAS = 60
DEFAULT_MIN_AREAS = 10
"""The defaults of ``Params.max_areas`` and ``Params.min_areas``; their caps, and every
other cap of the generator, are the injected :class:`~kerker.limits.DungeonLimits`."""
OPEN_MODES = ("exit", "corridor")
"""Modes of a connection the engine expands on its level while ``to`` is None."""


def available_procedures() -> tuple[str, ...]:
    """Rule sets that have a procedure: those registered (:func:`register_procedure`) and
    each rule folder ``rules/<name>/`` with a module ``kerker.dungeon.<name>`` (dashes as
    underscores) defining ``PROCEDURE``.

    Found without importing the modules, so adding a procedure touches no engine file.
    """
    import importlib.util

    from kerker.tables.registry import RULES_DIR

    found = set(_PLUGINS)
    for folder in sorted(p.name for p in RULES_DIR.iterdir() if p.is_dir()):
        module = f"kerker.dungeon.{folder.replace('-', '_')}"
        if importlib.util.find_spec(module) is not None:
            found.add(folder)
    return tuple(sorted(found))


_FOUND: set[str] = set()
"""Rule sets :func:`available_procedures` has listed in this process."""
_PLUGINS: dict[str, Procedure] = {}
"""Procedures registered by :func:`register_procedure` (name -> procedure)."""


class DungeonError(OptionError):
    """Options a dungeon cannot be made with, or a step it cannot take. ``option`` names the
    :class:`Params` field (or procedure option) at fault, if one is (the CLI names its flag
    in the message instead: the template's ``{name}``)."""

    code = "dungeon"

    def __init__(self, template: str, /, *, option: str | None = None, **params: Any) -> None:
        self.option = option
        if option is not None:
            params.setdefault("name", option)
        super().__init__(template, **params)


class ProcedureOption(NamedTuple):
    """An option a procedure declares (its ``options``): ``name``, the ``choices`` it takes
    and the ``default`` used when none is given."""

    name: str
    choices: tuple[str, ...]
    default: str


@dataclass(frozen=True, slots=True)
class Params:
    """What to generate. ``size`` is in squares (10 ft); bounds are checked by
    :meth:`checked`.

    ``options`` are the procedure's own options (``ProcedureOption``: Zufallslabyrinth
    ``entrance``; Scatola Bianca ``entrance``, ``caves``); ``entrance`` and ``caves`` are
    shorthands for two of them. :meth:`checked` fills in the procedure's defaults."""

    rules: str = "zufallslabyrinth"
    seed: int | None = None
    levels: int = 1
    size: tuple[int, int] | None = None
    """Squares across and down of a fixed sheet (``--size``); None: the sheet grows with the
    dungeon (:mod:`kerker.dungeon.sheet`)."""
    max_areas: int = DEFAULT_MAX_AREAS
    entrance: str | None = None
    """How level 1 begins (a procedure option: ``variant``, ``room``, ``hall``)."""
    empty_entrance: bool = False
    min_areas: int = DEFAULT_MIN_AREAS
    """A dungeon whose first level has fewer areas (capped by ``max_areas``) is rolled again,
    as a game master would (docs/dungeon.md); 0 or 1 takes the first roll."""
    caves: str | None = None
    """Where a procedure that can make caves instead of chambers makes them (Scatola Bianca
    A.8, a procedure option): ``depth`` (its own depth rule), ``always`` or ``never``."""
    options: tuple[tuple[str, str], ...] = ()
    """The procedure's options as (name, value) pairs; after :meth:`checked` every declared
    option, defaults filled in, in the order the procedure declares them."""

    def checked(self, limits: DungeonLimits | None = None) -> Params:
        """Self with the procedure's option defaults filled in, or a :class:`DungeonError`
        naming the option out of bounds (bounds from ``limits``, default
        :data:`~kerker.limits.DEFAULT_DUNGEON_LIMITS`; option choices from the procedure)."""
        lim = limits or DEFAULT_DUNGEON_LIMITS
        if self.rules not in _FOUND:  # a rule set once found stays found (no folder scan)
            procedures = available_procedures()
            if self.rules not in procedures:
                raise DungeonError(
                    N_("unknown rules {rules!r}; choose one of {choices}"),
                    option="rules",
                    rules=str(self.rules)[:40],
                    choices=", ".join(procedures),
                )
            _FOUND.add(self.rules)
        if not 1 <= self.levels <= lim.max_levels:
            raise DungeonError(
                N_("{name} must be between 1 and {max}"), option="levels", max=lim.max_levels
            )
        w, h = self.size or (lim.min_size, lim.min_size)
        if not (lim.min_size <= w <= lim.max_size and lim.min_size <= h <= lim.max_size):
            raise DungeonError(
                N_("{name} must be between {lo}x{lo} and {hi}x{hi} squares"),
                option="size",
                lo=lim.min_size,
                hi=lim.max_size,
            )
        if not 1 <= self.max_areas <= lim.max_areas:
            raise DungeonError(
                N_("{name} must be between 1 and {max}"), option="max_areas", max=lim.max_areas
            )
        if not 0 <= self.min_areas <= lim.max_areas:
            raise DungeonError(
                N_("{name} must be between 0 and {max}"), option="min_areas", max=lim.max_areas
            )
        values = self._options()
        return replace(
            self,
            entrance=values.get("entrance"),
            caves=values.get("caves"),
            options=tuple(values.items()),
        )

    def _options(self) -> dict[str, str]:
        """Every option the procedure declares, given or its default; refuses an option it
        does not declare and a value it does not take."""
        declared = {o.name: o for o in procedure_options(self.rules)}
        given = dict(self.options)
        for name, value in (("entrance", self.entrance), ("caves", self.caves)):
            if value is not None:
                given[name] = value
        for name, value in given.items():
            option = declared.get(name)
            if option is None:
                raise DungeonError(
                    N_("{name} is not an option of the rules {rules}"),
                    option=str(name)[:40],
                    rules=self.rules,
                )
            if value not in option.choices:
                raise DungeonError(
                    N_("{name} takes {choices}, not {text!r}"),
                    option=name,
                    choices=", ".join(option.choices),
                    text=str(value)[:40],
                )
        return {name: given.get(name, option.default) for name, option in declared.items()}

    def option(self, name: str) -> str | None:
        """The value of the procedure option ``name`` (after :meth:`checked`), or None."""
        return dict(self.options).get(name)

    def reads_caves(self) -> bool:
        """Whether the procedure of :attr:`rules` declares the option ``caves``."""
        return any(o.name == "caves" for o in procedure_options(self.rules))

    def procedure_options(self) -> tuple[tuple[str, Any], ...]:
        """The procedure's options as the document's ``options`` records them (after
        ``levels`` ... ``min_areas``): every one it declares, in its order."""
        return self.options or tuple(self._options().items())


_CLOCK = itertools.count(1)
"""Stamps of :class:`Log` and :class:`CellSet` changes: one clock for all, so a container
made anew never carries the stamp of the one it replaced."""

T = TypeVar("T")


class Log(list[T]):
    """A list that stamps every change (``version``, from one clock): what an
    :class:`AreaBuilder` keeps its contents, features, rolls, results and bends in, so a
    snapshot reuses the frozen area of a builder nothing changed (:class:`_Freezer`).
    Reading costs what a list's does; each changing method sets a new stamp."""

    __slots__ = ("version",)

    def __init__(self, items: Iterable[T] = ()) -> None:
        super().__init__(items)
        self.version = next(_CLOCK)

    def append(self, item: T, /) -> None:
        super().append(item)
        self.version = next(_CLOCK)

    def extend(self, items: Iterable[T], /) -> None:
        super().extend(items)
        self.version = next(_CLOCK)

    def insert(self, index: SupportsIndex, item: T, /) -> None:
        super().insert(index, item)
        self.version = next(_CLOCK)

    def pop(self, index: SupportsIndex = -1, /) -> T:
        self.version = next(_CLOCK)
        return super().pop(index)

    def remove(self, item: T, /) -> None:
        self.version = next(_CLOCK)
        super().remove(item)

    def clear(self) -> None:
        super().clear()
        self.version = next(_CLOCK)

    def sort(self, *args: Any, **kwargs: Any) -> None:
        self.version = next(_CLOCK)
        super().sort(*args, **kwargs)

    def reverse(self) -> None:
        super().reverse()
        self.version = next(_CLOCK)

    def __setitem__(self, index: Any, value: Any, /) -> None:
        self.version = next(_CLOCK)
        super().__setitem__(index, value)

    def __delitem__(self, index: SupportsIndex | slice, /) -> None:
        self.version = next(_CLOCK)
        super().__delitem__(index)

    def __iadd__(self, items: Iterable[T], /) -> Self:  # type: ignore[override,misc]
        self.version = next(_CLOCK)
        return super().__iadd__(items)

    def __imul__(self, n: SupportsIndex, /) -> Self:
        self.version = next(_CLOCK)
        return super().__imul__(n)


class CellSet(set[Cell]):
    """A set of cells that stamps every change (``version``, see :class:`Log`): an
    :class:`AreaBuilder`'s ``cells``."""

    __slots__ = ("version",)

    def __init__(self, cells: Iterable[Cell] = ()) -> None:
        super().__init__(cells)
        self.version = next(_CLOCK)

    def add(self, cell: Cell, /) -> None:
        super().add(cell)
        self.version = next(_CLOCK)

    def discard(self, cell: object, /) -> None:
        super().discard(cell)
        self.version = next(_CLOCK)

    def remove(self, cell: Cell, /) -> None:
        self.version = next(_CLOCK)
        super().remove(cell)

    def pop(self) -> Cell:
        self.version = next(_CLOCK)
        return super().pop()

    def clear(self) -> None:
        super().clear()
        self.version = next(_CLOCK)

    def update(self, *others: Iterable[Cell]) -> None:
        super().update(*others)
        self.version = next(_CLOCK)

    def difference_update(self, *others: Iterable[Any]) -> None:
        super().difference_update(*others)
        self.version = next(_CLOCK)

    def intersection_update(self, *others: Iterable[Any]) -> None:
        super().intersection_update(*others)
        self.version = next(_CLOCK)

    def symmetric_difference_update(self, other: Iterable[Cell], /) -> None:
        super().symmetric_difference_update(other)
        self.version = next(_CLOCK)

    def __ior__(self, other: AbstractSet[Cell], /) -> Self:  # type: ignore[override,misc]
        self.version = next(_CLOCK)
        return super().__ior__(other)

    def __iand__(self, other: AbstractSet[object], /) -> Self:
        self.version = next(_CLOCK)
        return super().__iand__(other)

    def __isub__(self, other: AbstractSet[object], /) -> Self:
        self.version = next(_CLOCK)
        return super().__isub__(other)

    def __ixor__(self, other: AbstractSet[Cell], /) -> Self:  # type: ignore[override,misc]
        self.version = next(_CLOCK)
        return super().__ixor__(other)


@dataclass
class AreaBuilder:
    """An area while it is being made (mutable; frozen by :meth:`DungeonState.snapshot`).

    Its ``cells`` are a :class:`CellSet` and its lists :class:`Log` s (made so by
    ``__post_init__`` when given plain ones): a snapshot knows by their stamps whether the
    area changed since the last one. A field given another container later (not a
    :class:`CellSet` / :class:`Log`) makes every snapshot freeze the area afresh."""

    id: str
    number: int
    kind: str
    shape: str
    cells: set[Cell]
    heading: str = "n"
    contents: list[Content] = field(default_factory=Log)
    features: list[Feature] = field(default_factory=Log)
    rolls: list[RollEntry] = field(default_factory=Log)
    results: list[TableResult] = field(default_factory=Log)
    width_ft: int | None = None
    rolled_width_ft: int | None = None
    rolled_squares: int | float | None = None
    bends: list[Bend] = field(default_factory=Log)
    closed: bool = False
    """Exits have doors (a room) rather than open passages (a hall)."""
    edges: dict[str, tuple[int, list[Cell]]] = field(
        default_factory=dict, repr=False, compare=False
    )
    """Side -> (cells at the time, the cells with no cell of the area beyond that side, by
    (y, x)): kept while the area has that many cells (cells are only ever added)."""

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if name != "edges":  # (not frozen: no new stamp)
            object.__setattr__(self, "_stamp", next(_CLOCK))

    def __post_init__(self) -> None:
        self._stamp: int = next(_CLOCK)
        """Set anew whenever a field is (``__setattr__``)."""
        if type(self.cells) is not CellSet:
            self.cells = CellSet(self.cells)
        for name in ("contents", "features", "rolls", "results", "bends"):
            if type(getattr(self, name)) is not Log:
                setattr(self, name, Log(getattr(self, name)))

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
    ``heading`` with ``width`` cells), ``level`` (a way to ``to_level``). ``key`` is its
    stable key (:func:`exit_key`), ``seq`` its place in the level's order of making."""

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
    key: str = ""
    seq: int = 0
    links: dict[str, list[ConnBuilder]] | None = field(default=None, repr=False, compare=False)
    """The level's index of connections by area (:meth:`DungeonState.conns_of`): a
    procedure that sets ``to`` keeps it right without knowing of it."""


def _get_to(self: ConnBuilder) -> str | None:
    return self.__dict__["_to"]  # type: ignore[no-any-return]


def _set_to(self: ConnBuilder, value: str | None) -> None:
    self.__dict__["_to"] = value
    if value is not None:
        links = self.__dict__.get("links")
        if links is not None:
            links.setdefault(value, []).append(self)


# ``to`` as a property (set by the dataclass __init__ too): a procedure that links an exit
# keeps the index right, and no other attribute pays for it
ConnBuilder.to = property(_get_to, _set_to)  # type: ignore[assignment]


@dataclass
class Arrival:
    """A way from another level that arrives on this one (made when the way is expanded)."""

    conn: str
    from_depth: int
    from_area: str
    kind: str
    ends_in: str


@dataclass
class LevelState:
    """One level while it is being made. ``rng`` is the RNG of the step being made (set by
    the engine before each step: :func:`sub_seed` of the exit's key)."""

    depth: int
    occ: Occupancy
    rng: random.Random
    areas: dict[str, AreaBuilder] = field(default_factory=dict)
    conns: dict[str, ConnBuilder] = field(default_factory=dict)
    frontier: list[str] = field(default_factory=list)
    """Ids of open exits, a stack (the last is taken next); may hold ids no longer open
    (the engine skips them)."""
    entrance: str | None = None
    keys: dict[str, str] = field(default_factory=dict)
    """Stable key -> connection id (every connection made on the level, dropped ones too)."""
    links: dict[str, list[ConnBuilder]] = field(default_factory=dict)
    """Area id -> connections from or to it (may hold dropped ones; see ``conns_of``)."""
    waiting: dict[Cell, list[str]] = field(default_factory=dict)
    """The cell beyond an open exit -> its ids: who to link when an area takes that cell."""
    ways: list[str] = field(default_factory=list)
    """Ids of ways from this level to another level of the dungeon, in order of making."""
    fresh: list[Cell] = field(default_factory=list)
    """Cells taken by areas in the step being made."""
    made: list[str] = field(default_factory=list)
    """Ids of connections made in the step being made."""
    arrived: int = 0
    """Ways from other levels placed here (capped by ``limits.max_arrivals``)."""
    limits: DungeonLimits = DEFAULT_DUNGEON_LIMITS
    """The dungeon's caps (:attr:`DungeonState.limits`), for helpers that get only a level."""


class Procedure(Protocol):
    """A rule set's steps. The engine calls them; they call the engine's book-keeping.

    Besides ``name`` and the three steps a procedure may declare (class attributes, read
    with defaults, so a plug-in declares only what it has):

    - ``options``: a tuple of :class:`ProcedureOption` (validated by :meth:`Params.checked`).
    - ``kinds``: (area kind, its title: an ``N_`` message) pairs, for the document's
      ``title`` and the key; every kind a procedure makes must be there (or be one of
      :data:`BASIC_KINDS`).
    - ``player_kinds``: (kind, the kind the players' view shows instead) pairs (a trick).
    - ``checks``: (roll key, a sentence: an ``N_`` template with ``{row}`` and ``{dice}``)
      pairs for the procedure's own checks logged under a table without a row of it.
    (Pairs, not dicts: class attributes stay immutable.)
    - ``door_value``: the value key of a stairs result that says a door shuts the way back
      (the exporter's ``door_closes``), or None.
    - ``joined(state, level, conn)``: called when the engine links an open exit of an earlier
      step to the area that took its far cell.
    - ``touched(state, level, conns)``: called at the end of each step with the connections
      made in it and those whose far cells (any of their width) it took, in order of making
      (Scatola Bianca trims their openings there).
    """

    name: str

    def start(self, state: DungeonState, level: LevelState) -> None:
        """Place the entrance of level 1 and open its exits."""

    def arrive(self, state: DungeonState, level: LevelState, arrival: Arrival) -> None:
        """Place what a way from another level arrives in."""

    def expand(self, state: DungeonState, level: LevelState, conn: ConnBuilder) -> None:
        """Explore what lies behind the open exit ``conn`` (depth-first, fully)."""


BASIC_KINDS: dict[str, str] = {
    "entrance": N_("Entrance"),
    "room": N_("Room"),
    "hall": N_("Hall"),
    "cave": N_("Cave"),
    "corridor": N_("Corridor"),
}
"""Area kinds every procedure may use without declaring them, with their titles."""


def register_procedure(procedure: Procedure) -> None:
    """Make ``procedure`` available as ``Params(rules=procedure.name)`` in this process (a
    plug-in outside the package, e.g. a test's toy procedure). Refuses a procedure without a
    name or the three steps (:class:`DungeonError`)."""
    name = getattr(procedure, "name", None)
    steps = all(callable(getattr(procedure, s, None)) for s in ("start", "arrive", "expand"))
    if not isinstance(name, str) or not name or not steps:
        raise DungeonError(N_("a procedure needs a name and the steps start, arrive and expand"))
    _PLUGINS[name] = procedure
    _FOUND.add(name)


def load_procedure(name: str) -> Procedure:
    """The registered procedure ``name``, or the ``PROCEDURE`` of module
    ``kerker.dungeon.<name>`` (dashes as underscores); a :class:`DungeonError` if neither
    exists."""
    found = _PLUGINS.get(name)
    if found is not None:
        return found
    try:
        module = importlib.import_module(f"kerker.dungeon.{name.replace('-', '_')}")
        procedure: Procedure = module.PROCEDURE
    except (ImportError, AttributeError):
        raise DungeonError(
            N_("unknown rules {rules!r}; choose one of {choices}"),
            option="rules",
            rules=str(name)[:40],
            choices=", ".join(available_procedures()),
        ) from None
    return procedure


def procedure_options(rules: str) -> tuple[ProcedureOption, ...]:
    """The options the procedure of ``rules`` declares."""
    return tuple(getattr(load_procedure(rules), "options", ()))


def kind_title(rules: str, kind: str) -> str | None:
    """The title (an untranslated message) of the area kind ``kind`` of ``rules``: the
    procedure's ``kinds``, else :data:`BASIC_KINDS`; None for a kind neither knows (or an
    unknown rule set)."""
    try:
        kinds = dict(getattr(load_procedure(rules), "kinds", ()))
    except DungeonError:
        kinds = {}
    title = kinds.get(kind) or BASIC_KINDS.get(kind)
    return str(title) if title else None


def player_kind(rules: str, kind: str) -> str:
    """The kind the players' view shows for ``kind`` (the procedure's ``player_kinds``)."""
    try:
        shown = dict(getattr(load_procedure(rules), "player_kinds", ()))
    except DungeonError:
        shown = {}
    return str(shown.get(kind, kind))


def declared(rules: str, attribute: str, default: Any) -> Any:
    """The procedure's declaration ``attribute`` (``checks``, ``door_value`` ...), or
    ``default`` (also for an unknown rule set)."""
    try:
        return getattr(load_procedure(rules), attribute, default)
    except DungeonError:
        return default


sub_seed = seeding.sub_seed
"""kerker's one sub-seed helper (:func:`kerker.seeding.sub_seed`: blake2b of
``"base:part:..."``), as every generator derives its stages' seeds."""


class OpenExit(NamedTuple):
    """An exit :func:`expand` accepts now, as :func:`open_exits` lists it.

    ``key``: its stable key; ``number``: its place in the list (1, 2, ...; what a player
    picks); ``depth``: its level; ``area``: the number of the area it leaves; ``kind``: door,
    archway, opening, secret_door, stairs, trapdoor, shaft, elevator ...; ``side``: the wall
    it is in; ``x``, ``y``: its cell (the engine's plane; see :func:`exit_key`);
    ``to_level``: for a way to another level, that level (else None)."""

    key: str
    number: int
    depth: int
    area: int
    kind: str
    side: str
    x: int
    y: int
    to_level: int | None = None


class Expansion(NamedTuple):
    """What one :func:`expand` made: the exit's ``key``, the ``depth`` the new areas lie on,
    their ids (``areas``, in order of making) and the keys of the exits it opened."""

    key: str
    depth: int
    areas: tuple[str, ...]
    opened: tuple[str, ...]


def exit_key(depth: int, at: Cell, side: str) -> str:
    """The stable key of a connection made on level ``depth`` at cell ``at`` in the wall
    ``side``: ``"depth:x,y:side"`` (cells of the engine's plane, before a document is cut
    to its used squares).

    >>> exit_key(1, (12, 30), "e")
    '1:12,30:e'
    """
    return f"{depth}:{at[0]},{at[1]}:{side}"


class DungeonState:
    """The book of a dungeon being made; :meth:`snapshot` gives the frozen :class:`Dungeon`.

    Made by :func:`start` (or :func:`generate`); ``attempt`` is the roll of level 1 kept
    for ``min_areas`` (1 = the first), ``tries`` how many were rolled to find it."""

    def __init__(
        self,
        params: Params,
        registry: Registry,
        attempt: int = 1,
        limits: DungeonLimits | None = None,
        tries: int = 1,
    ) -> None:
        self.limits = limits or DEFAULT_DUNGEON_LIMITS
        self.params = params.checked(self.limits)
        if self.params.seed is None:
            raise DungeonError(N_("a dungeon needs a seed"))
        self.registry = registry
        self.attempt = attempt
        self.tries = tries
        self.base = sub_seed(self.params.seed, "dungeon", attempt)
        self.procedure = load_procedure(self.params.rules)
        self.levels: dict[int, LevelState] = {}
        self.bent: Counter[str] = Counter()
        if tries > 1:
            self.bent["level_rerolled"] = tries - 1
        self.expanded: set[str] = set()
        """Keys of the exits expanded (never offered again)."""
        self.current = 1
        """The depth of the last step: the walk stays on it while it has open exits."""
        self._areas = 0
        self._conns = 0
        self._made_areas: list[str] = []
        self._freezers: dict[int, _Freezer] | None = None
        """Depth -> the level's last snapshot (:meth:`snapshot`), made on first use."""

    # -- levels --------------------------------------------------------------------------
    def level(self, depth: int) -> LevelState:
        """The level at ``depth`` (made empty on first use)."""
        if depth not in self.levels:
            w, h = self.params.size or PLANE
            occ = Occupancy(w * CELLS_PER_SQUARE, h * CELLS_PER_SQUARE)
            self.levels[depth] = LevelState(
                depth, occ, random.Random(sub_seed(self.base, "level", depth)), limits=self.limits
            )
        return self.levels[depth]

    def budget_left(self, level: LevelState) -> bool:
        """May another area be made on ``level``?"""
        return len(level.areas) < self.params.max_areas

    # -- book-keeping for procedures --------------------------------------------------------
    def roll(
        self,
        table: str,
        level: LevelState,
        sink: AreaBuilder | Sink | None = None,
        **context: int | bool,
    ) -> TableResult:
        """Roll table ``table`` with the level's depth as context ``level``; the log goes to
        ``sink``'s rolls (an area, or a :class:`Sink` until the area exists)."""
        ctx: dict[str, int | bool] = {"level": level.depth}
        ctx.update(context)
        result, picks = roll_table_picks(self.registry, table, level.rng, context=ctx)
        if sink is not None:
            # the entries roll_table would log (RollEntry.from_log), made without the dicts
            sink.rolls += [
                RollEntry(t.id, p.dice, p.total, p.label, p.row.key, explain(p.roll))
                for t, p in picks
            ]
            sink.results.append(result)
        return result

    def new_area(
        self,
        level: LevelState,
        kind: str,
        shape: str,
        cells: set[Cell] | frozenset[Cell],
        heading: str = "n",
    ) -> AreaBuilder:
        """A new area owning ``cells`` (checked free by the caller)."""
        self._areas += 1
        area = AreaBuilder(
            f"a{self._areas}", len(level.areas) + 1, kind, shape, CellSet(cells), heading
        )
        level.areas[area.id] = area
        level.occ.add(area.id, cells)
        level.fresh.extend(cells)
        self._made_areas.append(area.id)
        return area

    def grow(self, level: LevelState, area: AreaBuilder, cells: list[Cell] | set[Cell]) -> None:
        """Give more cells to ``area`` (only to the area being made in this step)."""
        area.cells.update(cells)
        level.occ.add(area.id, cells)
        level.fresh.extend(cells)

    def connect(
        self,
        level: LevelState,
        from_: str,
        to: str | None,
        kind: str,
        at: Cell,
        side: str,
        **more: Any,
    ) -> ConnBuilder:
        """A connection with its stable key (:func:`exit_key`; ``~2``, ``~3`` ... added when
        a connection of the level was made at that place before); open (``to`` None, not a
        way to another level) ones go on the frontier, the newest on top."""
        self._conns += 1
        key = exit_key(level.depth, at, side)
        if key in level.keys:
            n = 2
            while f"{key}~{n}" in level.keys:
                n += 1
            key = f"{key}~{n}"
        conn = ConnBuilder(f"c{self._conns}", from_, to, kind, at, side, **more)
        conn.key = key
        conn.seq = self._conns
        level.conns[conn.id] = conn
        level.keys[key] = conn.id
        level.made.append(conn.id)
        links = level.links
        links.setdefault(from_, []).append(conn)
        if to is not None:
            links.setdefault(to, []).append(conn)
        conn.links = links
        if to is None and conn.mode in OPEN_MODES:
            level.frontier.append(conn.id)
            waiting = level.waiting
            for cell in _span(at, side, conn.width):
                waiting.setdefault(step(cell, side), []).append(conn.id)
        return conn

    def conns_of(self, level: LevelState, area: str) -> list[ConnBuilder]:
        """The connections of ``level`` from or to the area ``area``, in order of making
        (an index: no scan of the level)."""
        found = level.links.get(area)
        if not found:
            return []
        conns = level.conns
        out: dict[int, ConnBuilder] = {}
        for c in found:
            if (c.from_ == area or c.to == area) and conns.get(c.id) is c:
                out[c.seq] = c
        if len(out) < len(found):  # forget dropped or relinked ones
            found[:] = [out[k] for k in sorted(out)]
            return list(found)
        return [out[k] for k in sorted(out)]

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
        """True (and the exit linked to it) when an area already lies behind ``conn``."""
        if level.occ.owner(step(conn.at, conn.side)) is None:
            return False
        self._settle_one(level, conn)
        return True

    def bend(self, kind: str) -> None:
        """Count a roll the bending policy had to change (docs/dungeon.md)."""
        self.bent[kind] += 1

    def link_level(self, level: LevelState, conn: ConnBuilder, ends_in: str) -> None:
        """Mark ``conn`` (a stair, trapdoor, shaft or elevator) as a way that arrives in
        ``ends_in`` ("corridor", "dead_end", "hall", "elevator" ...): when its target level
        is part of the dungeon it is an open exit, and expanding it places the arrival."""
        conn.info["ends_in"] = ends_in
        target = conn.to_level
        if target is None or not 1 <= target <= self.params.levels or target == level.depth:
            return
        if conn.id not in level.ways:
            level.ways.append(conn.id)

    # -- open exits ------------------------------------------------------------------------
    def find(self, key: str) -> tuple[LevelState, ConnBuilder]:
        """The level and connection of ``key``; a :class:`DungeonError` if there is none."""
        head = key.split(":", 1)[0]
        level = self.levels.get(int(head)) if head.isdigit() else None
        conn_id = level.keys.get(key) if level is not None else None
        conn = level.conns.get(conn_id) if level is not None and conn_id else None
        if level is None or conn is None:
            raise DungeonError(N_("no exit {key!r} in this dungeon"), key=key[:80])
        return level, conn

    def is_open(self, level: LevelState, conn: ConnBuilder) -> bool:
        """Whether :func:`expand` takes ``conn`` now: an unexplored exit on a level with
        budget left, or an unexplored way to another level of the dungeon."""
        if conn.to is not None or conn.key in self.expanded or level.conns.get(conn.id) is not conn:
            return False
        if conn.mode in OPEN_MODES:
            return self.budget_left(level)
        return conn.mode == "level" and self._way_target(level, conn) is not None

    def _way_target(self, level: LevelState, conn: ConnBuilder) -> int | None:
        target = conn.to_level
        if (
            conn.id not in level.ways
            or target is None
            or not 1 <= target <= self.params.levels
            or target == level.depth
        ):
            return None
        dest = self.levels.get(target)
        if dest is not None and dest.arrived >= self.limits.max_arrivals:
            return None
        return target

    def next_open(self) -> tuple[LevelState, ConnBuilder] | None:
        """What the procedure's depth-first walk expands next (see :func:`next_exit`)."""
        order = [self.current, *(d for d in sorted(self.levels) if d != self.current)]
        for depth in order:
            level = self.levels.get(depth)
            if level is None or not self.budget_left(level):
                continue
            frontier = level.frontier
            while frontier:
                conn = level.conns.get(frontier[-1])
                if (
                    conn is not None
                    and conn.to is None
                    and conn.mode in OPEN_MODES
                    and (conn.key not in self.expanded)
                ):
                    return level, conn
                frontier.pop()  # no longer open: joined, dropped, blocked or explored
        for depth in sorted(self.levels):
            level = self.levels[depth]
            for conn_id in level.ways:
                conn = level.conns.get(conn_id)
                if conn is not None and self.is_open(level, conn):
                    return level, conn
        return None

    # -- steps -------------------------------------------------------------------------------
    def _step(
        self, level: LevelState, seed_parts: tuple[object, ...], run: Callable[[], None]
    ) -> list[str]:
        """Run one step of the procedure on ``level`` with its own RNG; then link every
        open exit whose far side an area took in this step. Returns the new areas' ids."""
        level.rng = random.Random(sub_seed(self.base, *seed_parts))
        level.fresh = []
        level.made = []
        self._made_areas = []
        run()
        self._settle_step(level)
        self.current = level.depth
        return self._made_areas

    def begin(self) -> list[str]:
        """Place the entrance of level 1 (its own step); returns the new areas' ids."""
        level = self.level(1)
        return self._step(level, ("start",), lambda: self.procedure.start(self, level))

    def expand_conn(self, level: LevelState, conn: ConnBuilder, variant: int = 0) -> Expansion:
        """Expand the open exit ``conn`` of ``level`` (:meth:`is_open` checked by the
        caller); ``variant`` > 0 rolls it with another RNG of the same key (a reroll)."""
        self.expanded.add(conn.key)
        again: tuple[object, ...] = (variant,) if variant else ()
        if conn.mode == "level":
            target = self._way_target(level, conn)
            assert target is not None
            dest = self.level(target)
            dest.arrived += 1
            arrival = Arrival(
                conn.id,
                level.depth,
                conn.from_,
                conn.kind,
                str(conn.info.get("ends_in", "corridor")),
            )
            made = self._step(
                dest,
                ("arrive", conn.key, *again),
                lambda: self.procedure.arrive(self, dest, arrival),
            )
            where = dest
        else:
            if conn.id in level.frontier:
                level.frontier.remove(conn.id)
            made = self._step(
                level, ("exit", conn.key, *again), lambda: self.procedure.expand(self, level, conn)
            )
            where = level
        opened = tuple(
            where.conns[i].key
            for i in where.made
            if i in where.conns
            and where.conns[i].to is None
            and (where.conns[i].mode in OPEN_MODES or where.conns[i].id in where.ways)
        )
        return Expansion(conn.key, where.depth, tuple(made), opened)

    def _settle_step(self, level: LevelState) -> None:
        """Link the open exits whose far side an area took in this step (and those made in
        it that open onto an area): they open into it (``joined``), or vanish when it is
        their own area."""
        ids = list(level.made)
        waiting = level.waiting
        for cell in level.fresh:
            found = waiting.pop(cell, None)
            if found:
                ids += found
        if not ids:
            return
        conns = level.conns
        hit = sorted((conns[i] for i in set(ids) if i in conns), key=lambda c: c.seq)
        for conn in hit:
            self._settle_one(level, conn)
        touched = getattr(self.procedure, "touched", None)
        if touched is not None:
            touched(self, level, [c for c in hit if conns.get(c.id) is c])

    def _settle_one(self, level: LevelState, conn: ConnBuilder) -> None:
        # a blocked exit (nothing fitted behind it) whose far side an area took later opens
        # into that area too, so no false door faces a room (kerker.dungeon.toolkit.block)
        if conn.to is not None or (conn.mode not in OPEN_MODES and conn.mode != "blocked"):
            return
        owner = level.occ.owner(step(conn.at, conn.side))
        if owner is None:
            return
        if owner == conn.from_:
            self.drop(level, conn)
            return
        if conn.mode == "blocked":
            conn.info.pop("bends", None)
        conn.to = owner
        conn.mode = "exit"
        if conn.id in level.frontier:
            level.frontier.remove(conn.id)
        joined = getattr(self.procedure, "joined", None)
        if joined is not None:
            joined(self, level, conn)
        self.bend("joined")

    def unsettled(self) -> list[str]:
        """Keys of open exits whose far side an area holds (always empty: a check for tests
        that the step-wise linking missed none)."""
        return [
            c.key
            for lv in self.levels.values()
            for c in lv.conns.values()
            if c.to is None
            and c.mode in OPEN_MODES
            and lv.occ.owner(step(c.at, c.side)) is not None
        ]

    def snapshot(self) -> Dungeon:
        """The frozen dungeon as it stands; changes nothing in the state (a snapshot in the
        middle of play does not change what later steps make).

        Incremental: each level's :class:`_Freezer` reuses the frozen areas, connections
        (and the whole level) of its last snapshot that nothing changed since; the result
        equals :meth:`fresh_snapshot` (tests/test_play_incremental.py plays sessions and
        compares them after every step)."""
        freezers = self._freezers
        if freezers is None:
            freezers = self._freezers = {}
        levels = []
        for depth in sorted(self.levels):
            st = self.levels[depth]
            if not st.areas:
                freezers.pop(depth, None)
                continue  # a level no way reached stays out of the document
            freezer = freezers.get(depth)
            if freezer is None:
                freezer = freezers[depth] = _Freezer()
            levels.append(freezer.level(st, cut=not self.params.size))
        return self._dungeon(levels)

    def fresh_snapshot(self) -> Dungeon:
        """:meth:`snapshot` made from scratch, reusing nothing (what the incremental one
        must equal)."""
        levels = []
        for depth in sorted(self.levels):
            st = self.levels[depth]
            if not st.areas:
                continue
            fitted = {c.id: _fit_span(st, c) for c in st.conns.values()}
            doubles = _drop_doubles(st, fitted)
            # area numbers stay off the cells of stairs, trapdoors, shafts and elevators
            ways = {c.at for c in st.conns.values() if c.mode == "level"}
            areas = tuple(_freeze_area(a, ways) for a in st.areas.values())
            conns = tuple(
                _freeze_conn(c, *fitted[c.id]) for c in st.conns.values() if c.id not in doubles
            )
            open_ids = tuple(c.id for c in st.conns.values() if c.id not in doubles and _is_open(c))
            frozen = Level(depth, st.occ.width, st.occ.height, st.entrance, areas, conns, open_ids)
            levels.append(frozen if self.params.size else crop(frozen))
        return self._dungeon(levels)

    def _dungeon(self, levels: list[Level]) -> Dungeon:
        p = self.params
        options = (
            ("levels", p.levels),
            ("size", list(p.size) if p.size else None),
            ("max_areas", p.max_areas),
            ("min_areas", p.min_areas),
            *p.procedure_options(),
        )
        return Dungeon(
            p.rules, p.seed, options, tuple(levels), tuple(sorted(self.bent.items())), self.attempt
        )


_AreaEntry = tuple[tuple[Any, ...] | None, Area, tuple[int, int, int, int] | None]
"""A frozen area with what it was frozen from (:func:`_area_stamps` and :func:`_near`,
None: always frozen anew) and its cells' bounds."""


class _ConnEntry(NamedTuple):
    """A connection's last freeze: what it was made from (``key``: :func:`_conn_key`, the
    stamps of the cells of the areas it joins), its span, wall edges and frozen value."""

    key: tuple[Any, ...]
    cells: tuple[int | None, int | None]
    fitted: tuple[Cell, int]
    edges: tuple[tuple[Cell, Cell], ...]
    frozen: Connection | None
    open: bool
    span: tuple[Cell, int] | None = None
    """The span ``frozen`` was made with (``fitted``, or narrowed by :func:`_drop_doubles`)."""


class _Freezer:
    """One level's last snapshot, kept to make the next one from what changed.

    An area is frozen again when its stamps (:func:`_area_stamps`) or the cells of ways to
    other levels among its cells (:func:`_near`, looked at when the level's way cells
    changed) differ. A connection's span (:func:`_fit_span`) is worked out again when its
    fields (:func:`_conn_key`) or the cells of the two areas it joins changed (the span
    reads who owns the cells along and across its wall: the cells of those areas, while
    every owned cell is one area's; else every span is worked out again), its frozen value
    when its fields, span or bends changed or :func:`_drop_doubles` (which always runs, on
    the kept wall edges) narrows it otherwise. A cut level
    (:func:`~kerker.dungeon.sheet.crop`) reuses the cut values of an unchanged value at an
    unchanged cut offset; an unchanged level is the same :class:`Level`.
    """

    __slots__ = ("areas", "conns", "cut", "cut_areas", "cut_conns", "last", "last_cut", "ways")

    def __init__(self) -> None:
        self.areas: dict[str, _AreaEntry] = {}
        self.conns: dict[str, _ConnEntry] = {}
        self.ways: frozenset[Cell] | None = None
        self.cut: tuple[int, int, int, int] | None = None
        self.cut_areas: dict[str, tuple[Area, Area]] = {}
        self.cut_conns: dict[str, tuple[Connection, Connection]] = {}
        self.last: Level | None = None
        """The last level as frozen (before the cut)."""
        self.last_cut: Level | None = None
        """The last level as returned (cut, or ``last`` itself)."""

    def level(self, st: LevelState, cut: bool) -> Level:
        """The frozen level ``st`` (cut to its used cells when ``cut``)."""
        builders = st.areas
        conns_now = st.conns
        # area numbers stay off the cells of stairs, trapdoors, shafts and elevators
        ways = frozenset(c.at for c in conns_now.values() if c.mode == "level")
        same_ways = ways == self.ways
        self.ways = ways
        old_areas = self.areas
        new_areas: dict[str, _AreaEntry] = {}
        owned = 0
        for a in builders.values():
            cells = a.cells
            owned += len(cells)
            entry = old_areas.get(a.id)
            marker = None if entry is None else entry[0]
            # the builder's stamp unchanged: its containers are the stamped ones it was
            # frozen from (setting a field makes a new stamp), so their stamps are read
            # without the checks of _area_stamps
            if (
                marker is None
                or marker[0] != a._stamp
                or marker[1] != cells.version  # type: ignore[attr-defined]
                or marker[2]
                != (
                    a.contents.version,  # type: ignore[attr-defined]
                    a.features.version,  # type: ignore[attr-defined]
                    a.rolls.version,  # type: ignore[attr-defined]
                    a.results.version,  # type: ignore[attr-defined]
                    a.bends.version,  # type: ignore[attr-defined]
                )
                or not (same_ways or marker[3] == _near(a, ways))
            ):
                stamped = _area_stamps(a)
                frozen = _freeze_area(a, ways)
                marker = None if stamped is None else (*stamped, _near(a, ways))
                entry = (marker, frozen, bounds(frozen.cells) if frozen.cells else None)
            assert entry is not None  # (a marker comes only with an entry)
            new_areas[a.id] = entry
        self.areas = new_areas
        # a span reads the owners of cells: kept while they are the areas' cells
        spans_kept = owned == len(st.occ.owners)
        old_conns = self.conns
        entries: dict[str, _ConnEntry] = {}
        for c in conns_now.values():
            key = _conn_key(c)
            stamps = (_cells_stamp(builders, c.from_), _cells_stamp(builders, c.to))
            found = old_conns.get(c.id)
            if (
                found is None
                or found.key != key
                or not spans_kept
                or found.cells != stamps
                or None in stamps
                # a span fitted off its rolled place also reads the area's other ways
                or found.fitted != (c.at, c.width)
            ):
                fitted = _fit_span(st, c)
                if found is not None and found.key == key and found.fitted == fitted:
                    found = found._replace(cells=stamps)
                else:
                    # the last frozen value is kept when it is still equal (span None: its
                    # values are compared again below)
                    edges = tuple(_edges(c, *fitted))
                    kept = None if found is None else found.frozen
                    found = _ConnEntry(key, stamps, fitted, edges, kept, _is_open(c))
            entries[c.id] = found
        fitted_now = {i: e.fitted for i, e in entries.items()}
        doubles = _drop_doubles(st, fitted_now, {i: e.edges for i, e in entries.items()})
        open_ids = []
        frozen_conns = []
        for c in conns_now.values():
            ce = entries[c.id]
            if c.id in doubles:
                continue
            span = fitted_now[c.id]
            kept = ce.frozen
            bends = c.info.get("bends")
            if (
                kept is None
                or ce.span is None
                or (span is not ce.span and span != ce.span)
                or ((bends or kept.bends) and not _same(kept.bends, tuple(bends or ())))
            ):
                values = _conn_values(c, *span)
                if (
                    kept is None
                    or _frozen_values(kept) != values
                    or not _same(kept.bends, values[12])
                ):
                    kept = Connection(*values)
                ce = entries[c.id] = ce._replace(frozen=kept, span=span)
            frozen_conns.append(kept)
            if ce.open:
                open_ids.append(c.id)
        self.conns = entries
        areas = tuple(e[1] for e in new_areas.values())
        conns = tuple(frozen_conns)
        last = self.last
        if (
            last is not None
            and last.entrance == st.entrance
            and (last.width, last.height) == (st.occ.width, st.occ.height)
            and _same(last.areas, areas)
            and _same(last.connections, conns)
            and list(last.unexplored) == open_ids
            and self.last_cut is not None
        ):
            return self.last_cut
        made = Level(
            st.depth, st.occ.width, st.occ.height, st.entrance, areas, conns, tuple(open_ids)
        )
        shown = self._cut(made, new_areas) if cut else made
        self.last, self.last_cut = made, shown
        return shown

    def _cut(self, level: Level, areas: dict[str, _AreaEntry]) -> Level:
        """``level`` cut as :func:`~kerker.dungeon.sheet.crop` cuts it, reusing the cut
        values of the last cut where the value and the cut offset are the same."""
        boxes = [e[2] for e in areas.values() if e[2] is not None]
        if level.connections:  # one box around their cells: crop_box reads only the extremes
            xs = [c.at[0] for c in level.connections]
            ys = [c.at[1] for c in level.connections]
            boxes.append((min(xs), min(ys), max(xs), max(ys)))
        box = crop_box(level.width, level.height, boxes)
        if box is None or self.cut is None or box[:2] != self.cut[:2]:
            self.cut_areas, self.cut_conns = {}, {}  # cut values move by (x0, y0) only
        self.cut = box
        if box is None:
            return level
        x0, y0, width, height = box
        old_areas, old_conns = self.cut_areas, self.cut_conns
        cut_areas: dict[str, tuple[Area, Area]] = {}
        for area in level.areas:
            found = old_areas.get(area.id)
            if found is None or found[0] is not area:
                found = (area, _cut_area(area, x0, y0))
            cut_areas[area.id] = found
        cut_conns: dict[str, tuple[Connection, Connection]] = {}
        for conn in level.connections:
            hit = old_conns.get(conn.id)
            if hit is None or hit[0] is not conn:
                hit = (conn, _cut_conn(conn, x0, y0))
            cut_conns[conn.id] = hit
        self.cut_areas, self.cut_conns = cut_areas, cut_conns
        return replace(
            level,
            width=width,
            height=height,
            areas=tuple(e[1] for e in cut_areas.values()),
            connections=tuple(e[1] for e in cut_conns.values()),
            origin=(level.origin[0] + x0, level.origin[1] + y0),
        )


def _cut_area(a: Area, x0: int, y0: int) -> Area:
    """:func:`~kerker.dungeon.sheet.crop_area`, made field by field (``replace`` costs
    several times more; a shifted cut offset moves every area: tests/test_play_incremental.py
    compares the result with ``crop``'s)."""
    x, y = a.label_at
    features = a.features
    if features:
        features = tuple(
            [
                Feature(f.kind, tuple([(cx - x0, cy - y0) for cx, cy in f.cells]), f.dir, f.result)
                for f in features
            ]
        )
    return Area(
        a.id,
        a.number,
        a.kind,
        a.shape,
        tuple([(cx - x0, cy - y0) for cx, cy in a.cells]),
        (x - x0, y - y0),
        a.contents,
        features,
        a.rolls,
        a.results,
        a.width_ft,
        a.rolled_width_ft,
        a.rolled_squares,
        a.bends,
    )


def _cut_conn(c: Connection, x0: int, y0: int) -> Connection:
    """:func:`~kerker.dungeon.sheet.crop_connection`, made field by field (see
    :func:`_cut_area`)."""
    values = list(_frozen_values(c))
    values[4] = (c.at[0] - x0, c.at[1] - y0)
    return Connection(*values)


def _same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """The same objects in the same order."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


def _area_stamps(a: AreaBuilder) -> tuple[int, int, tuple[int, ...]] | None:
    """What :func:`_freeze_area` reads of ``a`` besides the level's way cells, as stamps:
    the builder's (any field set anew), its cells' and those of its lists (contents,
    features, rolls, results, bends). None when a container is not a stamped one (then it
    is frozen anew every time)."""
    cells = a.cells
    logs: tuple[Any, ...] = (a.contents, a.features, a.rolls, a.results, a.bends)
    if type(cells) is not CellSet or any(type(x) is not Log for x in logs):
        return None
    return a._stamp, cells.version, tuple(x.version for x in logs)


def _near(a: AreaBuilder, ways: frozenset[Cell]) -> tuple[Cell, ...]:
    """The cells of ways to other levels among ``a``'s cells (its label cell keeps off
    them), sorted."""
    return tuple(sorted(ways.intersection(a.cells))) if ways else ()


def _conn_key(c: ConnBuilder) -> tuple[Any, ...]:
    """Every field of ``c`` its span, wall edges, frozen value and openness are made from
    (the span also reads the cells around it, the frozen value its bends), with the types
    of its numbers and flag (``1`` and ``True`` are equal, their JSON is not)."""
    return (
        c.id,
        c.from_,
        c.to,
        c.kind,
        c.at,
        c.side,
        c.width,
        c.to_level,
        c.direction,
        c.one_way,
        c.gm_only,
        c.mode,
        c.key,
        type(c.width),
        type(c.to_level),
        type(c.gm_only),
    )


def _cells_stamp(builders: dict[str, AreaBuilder], area: str | None) -> int | None:
    """The stamp of the cells of the area ``area`` (0 for none: an open exit's far side);
    None when they are unknown (no such area, cells not a :class:`CellSet`)."""
    if area is None:
        return 0
    found = builders.get(area)
    if found is None or type(found.cells) is not CellSet:
        return None
    return found.cells.version


def _is_open(c: ConnBuilder) -> bool:
    """Whether the document lists ``c`` among the exits not yet explored."""
    return c.to is None and (c.mode in OPEN_MODES or (c.to_level or 0) >= 1)


def _span(at: Cell, side: str, width: int) -> list[Cell]:
    """The cells of a connection ``width`` cells wide from ``at`` along its wall (+x on a
    north or south wall, +y on an east or west one; one cell on a diagonal wall)."""
    if width <= 1 or side not in ("n", "e", "s", "w"):
        return [at]
    ax, ay = (0, 1) if side in ("e", "w") else (1, 0)
    return [(at[0] + ax * i, at[1] + ay * i) for i in range(width)]


def _along_wall(conn: ConnBuilder) -> tuple[int, int] | None:
    """The step from ``at`` along the wall a same-level link opens (+x on a north or south
    wall, +y on an east or west one); None for an open exit, a way to another level or a
    link that lies on no straight wall."""
    if conn.to is None or conn.mode == "level" or conn.side not in ("n", "e", "s", "w"):
        return None
    return (0, 1) if conn.side in ("e", "w") else (1, 0)


def _fit_span(level: LevelState, conn: ConnBuilder) -> tuple[Cell, int]:
    """Where a connection of more than one cell opens, as ``(at, width)``: only where its
    area meets the area it leads to (the cells from ``at`` along its wall,
    :func:`_along_wall`, must be its area's, the cells across its wall the target's).
    Shifted back along the wall if that fits whole (never onto the wall cells of another way
    of its area in that wall), else narrowed to the cells that fit.
    Reads the state only."""
    along = _along_wall(conn)
    if along is None or conn.width <= 1:
        return conn.at, conn.width
    owners = level.occ.owners

    def fits(x: int, y: int) -> bool:
        return owners.get((x, y)) == conn.from_ and owners.get(step((x, y), conn.side)) == conn.to

    def run(x: int, y: int) -> int:
        n = 0
        while n < conn.width and fits(x + along[0] * n, y + along[1] * n):
            n += 1
        return n

    x, y = conn.at
    if run(x, y) == conn.width:
        return conn.at, conn.width
    # a shift never moves onto the wall cells of another way of the area in the same wall
    # (one door per cell and wall: ZL seed 71 level 3, an archway shifted onto its neighbour)
    others: set[Cell] = set()
    for other in level.links.get(conn.from_, ()):
        if (
            other is not conn
            and other.from_ == conn.from_
            and other.side == conn.side
            and other.mode != "level"
            and level.conns.get(other.id) is other
        ):
            others.update(_span(other.at, other.side, other.width))
    for back in range(1, conn.width):
        sx, sy = x - along[0] * back, y - along[1] * back
        if run(sx, sy) == conn.width and others.isdisjoint(
            (sx + along[0] * i, sy + along[1] * i) for i in range(back)
        ):
            return (sx, sy), conn.width
    return conn.at, max(1, run(x, y))


def _edges(conn: ConnBuilder, at: Cell, width: int) -> set[tuple[Cell, Cell]]:
    """The wall edges (cell in its area, cell across) a same-level link opens."""
    along = _along_wall(conn)
    if along is None:
        return set()
    x, y = at
    cells = [(x + along[0] * i, y + along[1] * i) for i in range(max(1, width))]
    return {(c, step(c, conn.side)) for c in cells}


def _drop_doubles(
    level: LevelState,
    fitted: dict[str, tuple[Cell, int]],
    edges_of: dict[str, tuple[tuple[Cell, Cell], ...]] | None = None,
) -> set[str]:
    """Ids of links through a wall edge another link between the same two areas already
    opens (two exits that both joined the same area through the same wall, a secret door
    where a door is, a corridor's way back through the door it came by): one way through a
    wall is drawn and keyed once. Open ways are kept before secret ones, earlier before
    later. (An edge has two cells, so links sharing one always join the same two areas.)
    ``fitted``: each link's span (:func:`_fit_span`). A link that shares only some of its
    edges, and only with links from its own area, keeps the rest (its span in ``fitted`` is
    narrowed to them): two rolled exits of one area side by side into the same area are
    two ways (issue 12: Zufallslabyrinth seed 551, level 1, area 14). ``edges_of``: each
    link's wall edges at its span in ``fitted`` (:func:`_edges`), when known."""
    seen: dict[tuple[Cell, Cell], str] = {}
    doubles: set[str] = set()
    order = sorted(level.conns.values(), key=lambda c: c.kind == "secret_door")
    for conn in order:
        edges = _edges(conn, *fitted[conn.id]) if edges_of is None else edges_of[conn.id]
        if not edges:
            continue
        shared = [seen[e] for e in edges if e in seen]
        if shared:
            own = None
            if all(frm == conn.from_ for frm in shared):
                own = _own_span(conn, *fitted[conn.id], seen)
            if own is None:
                doubles.add(conn.id)
                continue
            fitted[conn.id] = own
            edges = _edges(conn, *own)
        for a, b in edges:
            seen[(a, b)] = seen[(b, a)] = conn.from_
    return doubles


def _own_span(
    conn: ConnBuilder, at: Cell, width: int, seen: dict[tuple[Cell, Cell], str]
) -> tuple[Cell, int] | None:
    """The longest run (the first of equal ones) of the cells of a link spanning ``width``
    cells from ``at`` whose wall edges no link before it opens, as ``(at, width)``; None
    when every edge is taken."""
    along = _along_wall(conn)
    if along is None:  # pragma: no cover - only links along a wall have edges
        return None
    best: tuple[Cell, int] | None = None
    start: Cell | None = None
    run = 0
    for i in range(max(1, width)):
        cell = (at[0] + along[0] * i, at[1] + along[1] * i)
        if (cell, step(cell, conn.side)) in seen:
            start, run = None, 0
            continue
        if start is None:
            start = cell
        run += 1
        if best is None or run > best[1]:
            best = (start, run)
    return best


def _freeze_area(a: AreaBuilder, ways: set[Cell] | frozenset[Cell] = frozenset()) -> Area:
    cells = sort_cells(a.cells)
    return Area(
        a.id,
        a.number,
        a.kind,
        a.shape,
        cells,
        _label_cell(cells, ways),
        tuple(a.contents),
        tuple(a.features),
        tuple(a.rolls),
        tuple(a.results),
        a.width_ft,
        a.rolled_width_ft,
        a.rolled_squares,
        tuple(a.bends),
    )


def _label_cell(cells: tuple[Cell, ...], ways: set[Cell] | frozenset[Cell] = frozenset()) -> Cell:
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


def _freeze_conn(c: ConnBuilder, at: Cell, width: int) -> Connection:
    return Connection(*_conn_values(c, at, width))


def _frozen_values(c: Connection) -> tuple[Any, ...]:
    """The fields of ``c`` in their order (what :func:`_conn_values` gives)."""
    return (
        c.id,
        c.from_,
        c.to,
        c.kind,
        c.at,
        c.side,
        c.width,
        c.to_level,
        c.direction,
        c.one_way,
        c.gm_only,
        c.blocked,
        c.bends,
        c.key,
    )


def _conn_values(c: ConnBuilder, at: Cell, width: int) -> tuple[Any, ...]:
    """The fields of the frozen connection ``c`` spanning ``width`` cells from ``at``, in
    :class:`Connection`'s order."""
    return (
        c.id,
        c.from_,
        c.to,
        c.kind,
        at,
        c.side,
        width,
        c.to_level,
        c.direction,
        c.one_way,
        c.gm_only,
        c.mode == "blocked",
        tuple(c.info.get("bends", ())),
        c.key,
    )


# -- the lazy engine ---------------------------------------------------------------------------


def _level_one(params: Params, registry: Registry, limits: DungeonLimits | None) -> DungeonState:
    """The roll of level 1 that ``min_areas`` keeps, walked until its own exits are done.

    Attempt 1, 2, ... (each with its own base seed) is rolled until its level 1 has
    ``min(min_areas, max_areas)`` areas, at most ``limits.max_level_tries`` times; the
    largest wins, ties to the earlier. The walk of each is the prefix of :func:`walk`
    (level 1's frontier comes before any way to another level)."""
    lim = limits or DEFAULT_DUNGEON_LIMITS
    params = params.checked(lim)
    wanted = min(params.min_areas, params.max_areas)
    best: DungeonState | None = None
    best_size = -1
    tries = 0
    while tries < lim.max_level_tries:
        tries += 1
        state = DungeonState(params, registry, tries, lim)
        state.begin()
        while True:
            found = state.next_open()
            if found is None or found[0].depth != 1 or found[1].mode == "level":
                break
            state.expand_conn(*found)
        size = len(state.levels[1].areas)
        if size > best_size:
            best, best_size = state, size
        if size >= wanted:
            break
    assert best is not None
    best.tries = tries
    if tries > 1:
        best.bent["level_rerolled"] = tries - 1
    return best


def start(
    params: Params, registry: Registry, *, limits: DungeonLimits | None = None
) -> DungeonState:
    """A dungeon with its entrance placed and nothing explored yet.

    With ``min_areas`` above 1 the roll of level 1 that :func:`generate` keeps is chosen
    here, up front (its level 1 is rolled by the procedure's own walk and thrown away; the
    state keeps ``attempt`` and ``tries``), so a lazily played dungeon starts from the same
    entrance as the generated one. Refuses what :meth:`Params.checked` refuses and a
    ``params.seed`` of None (:class:`DungeonError`)."""
    lim = limits or DEFAULT_DUNGEON_LIMITS
    params = params.checked(lim)
    if min(params.min_areas, params.max_areas) <= 1:
        state = DungeonState(params, registry, 1, lim)
    else:
        chosen = _level_one(params, registry, lim)
        state = DungeonState(params, registry, chosen.attempt, lim, chosen.tries)
    state.begin()
    return state


def open_exits(state: DungeonState) -> list[OpenExit]:
    """Every exit :func:`expand` takes now, by level, then by the number of the area it
    leaves, then in order of making; numbered from 1. An exit of a level that holds its
    ``max_areas`` areas is not open (it stays in the document's ``unexplored``); nor is a
    way to the surface or to a level beyond the dungeon."""
    found: list[tuple[int, int, int, ConnBuilder]] = []
    for depth in sorted(state.levels):
        level = state.levels[depth]
        candidates = list(level.frontier) + list(level.ways)
        seen: set[str] = set()
        for conn_id in candidates:
            conn = level.conns.get(conn_id)
            if conn is None or conn_id in seen or not state.is_open(level, conn):
                continue
            seen.add(conn_id)
            area = level.areas.get(conn.from_)
            found.append((depth, area.number if area else 0, conn.seq, conn))
    found.sort(key=lambda f: f[:3])
    return [
        OpenExit(
            c.key,
            n,
            depth,
            number,
            c.kind,
            c.side,
            c.at[0],
            c.at[1],
            c.to_level if c.mode == "level" else None,
        )
        for n, (depth, number, _seq, c) in enumerate(found, 1)
    ]


def next_exit(state: DungeonState) -> str | None:
    """The key of the exit the procedure's depth-first walk takes next, or None when it is
    done: on the level of the last step, the top of its frontier (the newest area's exits
    first); else the top of another level's frontier, shallowest first; else the first way
    (in order of making, shallowest level first) to a level of the dungeon no arrival of
    it has reached yet. Levels with their ``max_areas`` areas are passed over."""
    found = state.next_open()
    return found[1].key if found is not None else None


def expand(state: DungeonState, key: str, *, variant: int = 0) -> Expansion:
    """Explore the open exit ``key`` (any level): roll what lies behind it with the RNG of
    its key, build it, link exits it meets. A way to another level places its arrival
    there. ``variant`` 1, 2, ... rolls it with the RNG of ``(key, variant)`` instead: what a
    play session's "reroll what lies behind this exit" replays (0, the default, is what
    :func:`generate` rolls). Refuses (:class:`DungeonError`, one line) a key that names no
    exit, an exit that is not open (explored, linked, blocked), an exit of a full level and
    a negative ``variant``."""
    if not isinstance(variant, int) or variant < 0:
        raise DungeonError(
            N_("a reroll variant is a whole number from 0 up, not {text!r}"), text=str(variant)[:40]
        )
    level, conn = state.find(key)
    if not state.is_open(level, conn):
        if conn.mode in OPEN_MODES and conn.to is None and conn.key not in state.expanded:
            raise DungeonError(
                N_("exit {key} stays unexplored: level {depth} holds its {max} areas"),
                key=key,
                depth=level.depth,
                max=state.params.max_areas,
            )
        raise DungeonError(N_("exit {key} is not open"), key=key)
    return state.expand_conn(level, conn, variant)


def walk(state: DungeonState) -> DungeonState:
    """Expand :func:`next_exit` until it is None (always ends: every step explores a key
    for good, areas are capped per level and arrivals per level); returns ``state``."""
    while True:
        found = state.next_open()
        if found is None:
            return state
        state.expand_conn(*found)


def snapshot(state: DungeonState) -> Dungeon:
    """The frozen dungeon as it stands (:meth:`DungeonState.snapshot`)."""
    return state.snapshot()


def generate(params: Params, registry: Registry, *, limits: DungeonLimits | None = None) -> Dungeon:
    """Roll a whole dungeon from ``params.seed``: :func:`start` and :func:`walk`, so the
    document equals a lazy play of :func:`next_exit` until None, byte for byte.

    A dungeon whose first level has fewer than ``params.min_areas`` areas (at most
    ``max_areas``) is rolled again (:func:`_level_one`); each roll again is counted as the
    bend ``level_rerolled``, and the dungeon records the ``attempt`` kept. Refuses what
    :func:`start` refuses."""
    return walk(_level_one(params, registry, limits)).snapshot()
