"""Assemble a prowl's rooms into one connected complex (seed 004, step 3).

The post lets the game master put the rooms together at will, as long as the branch points
are used up: a room with 3 exits costs 1, with 4 exits 2, with 5 or more 3 (the costs come
in as a function read from the table ``mazeprowl/branch-cost``). :func:`assemble` does it
automatically:

1. **Junctions.** It picks a multiset of junction sizes whose costs add up to exactly the
   branch points. That is impossible only when there are more accesses than the junctions
   can take (every access is an exit: with 0 points a complex has room for at most 2
   accesses, with 1 point for 3, with 2 for 4); then it spends the fewest points more that
   work, and says so (``reason="accesses"``).
2. **Loops.** A loop joins two exits that would otherwise end in dead ends, so it costs no
   branch point: with the same junctions a complex has ``excess + 2 - accesses - 2 *
   loops`` dead ends, where the excess is the sum of ``exits - 2`` over the junctions.
   ``loops`` is chosen (``None``: a die among 0 .. what the junctions leave room for).
3. **Exits.** Every room gets an exit count: the junctions, dead ends (1 exit) and
   passages (2 exits); rooms are added as NoSec rooms when the rolled ones are too few.
4. **Rooms and links.** A random tree with these degrees less the loop ends (a shuffled
   Prüfer sequence), then the loops between the loop ends; the accesses on rooms that
   have an exit to spare.
5. **Security.** Depth is the distance from the nearest access (an access room has depth
   1). NoSec rooms are chosen first, where the post puts them ("um das Layout
   abzurunden"; no doors but to the outside): access rooms beyond the LoSec count become
   NoSec lobbies, then dead ends and lobbies, then other rooms -- never so that a secured
   room is left without a door (every secured room has an access or a secured
   neighbour). The others get their security by depth: LoSec nearest, HiSec deepest. A
   layout in which a HiSec room is not deeper than every LoSec room is thrown away and
   tried again; after a number of tries another NoSec room is added.

Everything random goes through :func:`below` (rejection sampling on ``getrandbits``), so a
seed gives the same complex on every Python.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import TypeVar

from kerker.errors import N_
from kerker.prowl.model import LayoutError

T = TypeVar("T")
ATTEMPTS_PER_SIZE = 40
"""Shapes tried per number of rooms under the default limits (``ProwlLimits``)."""
MAX_JUNCTIONS = 6
"""Junctions of one layout under the default limits (``ProwlLimits.max_junctions``)."""


def below(rng: random.Random, n: int) -> int:
    """A uniform whole number in ``0 .. n-1`` (n ≥ 1) from ``rng.getrandbits`` only."""
    if n <= 1:
        return 0
    bits = (n - 1).bit_length()
    while True:
        value = rng.getrandbits(bits)
        if value < n:
            return value


def shuffle(rng: random.Random, items: list[T]) -> None:
    """Fisher-Yates in place with :func:`below`."""
    for i in range(len(items) - 1, 0, -1):
        j = below(rng, i + 1)
        items[i], items[j] = items[j], items[i]


def choice(rng: random.Random, items: Sequence[T]) -> T:
    """One item of a non-empty sequence."""
    return items[below(rng, len(items))]


@dataclass(frozen=True, slots=True)
class LayoutRoom:
    """A room of the layout: its security number, accesses from outside and depth."""

    security: int
    accesses: int
    depth: int


@dataclass(frozen=True, slots=True)
class Layout:
    """The assembled complex: rooms in breadth-first order from the accesses, links as
    pairs of room indexes (smaller first), the branch points aimed at and used, and the
    loops (links beyond a tree: ``len(links) - len(rooms) + 1``)."""

    rooms: tuple[LayoutRoom, ...]
    links: tuple[tuple[int, int], ...]
    points: int
    used: int
    reason: str | None
    nosec_added: int
    loops: int = 0

    def exits(self, index: int) -> int:
        """Exits of a room: links plus accesses."""
        return self.rooms[index].accesses + sum(1 for link in self.links if index in link)


def junction_plans(
    cost: Callable[[int], int],
    points: int,
    excess_needed: int,
    max_exits: int,
    max_junctions: int = MAX_JUNCTIONS,
) -> list[tuple[int, ...]]:
    """Every multiset of junction exit counts (3 .. ``max_exits``) that costs exactly
    ``points`` and has an excess ``sum(e - 2)`` of at least ``excess_needed``.

    Exit counts that cost nothing are no junctions and are left out; the list is in a fixed
    order (sizes ascending), so a seed picks the same plan every time.
    """
    sizes = [e for e in range(3, max_exits + 1) if cost(e) > 0]
    plans: list[tuple[int, ...]] = []
    if points == 0:
        return [()] if excess_needed <= 0 else []
    for count in range(1, min(points, max_junctions) + 1):
        for plan in combinations_with_replacement(sizes, count):
            if sum(cost(e) for e in plan) != points:
                continue
            if sum(e - 2 for e in plan) >= excess_needed:
                plans.append(plan)
    return plans


def _pruefer_tree(degrees: list[int], rng: random.Random) -> list[tuple[int, int]]:
    """A random tree in which node ``i`` has ``degrees[i]`` neighbours (all ≥ 1, sum 2n-2)."""
    n = len(degrees)
    if n == 2:
        return [(0, 1)]
    sequence = [i for i, d in enumerate(degrees) for _ in range(d - 1)]
    shuffle(rng, sequence)
    left = list(degrees)
    leaves = [i for i, d in enumerate(left) if d == 1]
    heapq.heapify(leaves)
    edges: list[tuple[int, int]] = []
    for node in sequence:
        leaf = heapq.heappop(leaves)
        edges.append((min(leaf, node), max(leaf, node)))
        left[leaf] -= 1
        left[node] -= 1
        if left[node] == 1:
            heapq.heappush(leaves, node)
    a, b = heapq.heappop(leaves), heapq.heappop(leaves)
    edges.append((min(a, b), max(a, b)))
    return edges


def _depths(n: int, edges: list[tuple[int, int]], accesses: list[int]) -> list[int]:
    adjacent: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        adjacent[a].append(b)
        adjacent[b].append(a)
    depth = [0] * n
    queue = [i for i in range(n) if accesses[i] > 0]
    for i in queue:
        depth[i] = 1
    head = 0
    while head < len(queue):
        node = queue[head]
        head += 1
        for nxt in sorted(adjacent[node]):
            if depth[nxt] == 0:
                depth[nxt] = depth[node] + 1
                queue.append(nxt)
    return depth


def _place_accesses(exits: list[int], accesses: int, rng: random.Random) -> list[int] | None:
    """Accesses per room: distinct rooms first, a room keeps at least one inner exit."""
    n = len(exits)
    placed = [0] * n
    if n == 1:
        placed[0] = accesses
        return placed if exits[0] == accesses else None
    open_rooms = [i for i in range(n) if exits[i] >= 2]
    shuffle(rng, open_rooms)
    for i in open_rooms[:accesses]:
        placed[i] = 1
    extra = accesses - min(accesses, len(open_rooms))
    while extra > 0:
        spare = [i for i in range(n) if exits[i] - 1 - placed[i] > 0]
        if not spare:
            return None
        placed[choice(rng, spare)] += 1
        extra -= 1
    return placed


Attempt = tuple[list[LayoutRoom], list[tuple[int, int]]]


def _with_loops(inner: list[int], loops: int, rng: random.Random) -> list[tuple[int, int]] | None:
    """A connected simple graph with these degrees and ``loops`` links beyond a tree: a
    tree on the degrees less ``2 * loops`` loop ends, then the loop ends joined in pairs.
    None when the pairs would join a room to itself or repeat a link."""
    stubs = [i for i, d in enumerate(inner) for _ in range(d - 1)]
    if len(stubs) < 2 * loops:
        return None
    shuffle(rng, stubs)
    ends = stubs[: 2 * loops]
    degrees = list(inner)
    for i in ends:
        degrees[i] -= 1
    edges = _pruefer_tree(degrees, rng) if len(inner) > 1 else []
    seen = set(edges)
    for k in range(loops):
        a, b = ends[2 * k], ends[2 * k + 1]
        link = (min(a, b), max(a, b))
        if a == b or link in seen:
            return None
        seen.add(link)
        edges.append(link)
    return edges


def _doorless(n: int, edges: list[tuple[int, int]], placed: list[int], nosec: set[int]) -> bool:
    """Whether some secured room has no door: no access and only NoSec neighbours."""
    secured_neighbour = [False] * n
    for a, b in edges:
        if a not in nosec and b not in nosec:
            secured_neighbour[a] = secured_neighbour[b] = True
    return any(i not in nosec and not placed[i] and not secured_neighbour[i] for i in range(n))


def _try(
    levels: Sequence[tuple[int, int]],
    nosec_level: int,
    n: int,
    plan: tuple[int, ...],
    accesses: int,
    rng: random.Random,
    loops: int | None = 0,
) -> Attempt | None:
    """One attempt with ``n`` rooms: None when this shape does not meet the rules."""
    n_sec = sum(count for _level, count in levels)
    excess = sum(e - 2 for e in plan)
    spare = max(0, (excess + 2 - accesses) // 2) if n > 1 else 0
    wanted = below(rng, spare + 1) if loops is None else min(loops, spare)
    dead_ends = excess + 2 - accesses - 2 * wanted
    if n == 1:
        if list(plan) != ([accesses] if accesses >= 3 else []):
            return None
        exits = [accesses]
    else:
        passages = n - len(plan) - dead_ends
        if passages < 0:
            return None
        exits = list(plan) + [1] * dead_ends + [2] * passages
        shuffle(rng, exits)
    placed = _place_accesses(exits, accesses, rng)
    if placed is None:
        return None
    access_rooms = [i for i in range(n) if placed[i] > 0]
    lowest = levels[0][1] if levels else 0
    nosec_count = n - n_sec
    forced = max(0, len(access_rooms) - lowest)
    if forced > nosec_count:
        return None
    inner = [e - a for e, a in zip(exits, placed, strict=True)]
    found = [] if n == 1 else _with_loops(inner, wanted, rng)
    if found is None:
        return None
    edges = found
    depth = _depths(n, edges, placed)
    lobbies = list(access_rooms)
    shuffle(rng, lobbies)
    nosec = set(lobbies[:forced])
    # Further NoSec rooms round the layout off: dead ends and lobbies first, then the
    # others; none that would leave a secured room without a door.
    rest = [i for i in range(n) if i not in nosec]
    shuffle(rng, rest)
    rest.sort(key=lambda i: 0 if inner[i] <= 1 or placed[i] else 1)
    for i in rest:
        if len(nosec) >= nosec_count:
            break
        if not _doorless(n, edges, placed, nosec | {i}):
            nosec.add(i)
    if len(nosec) < nosec_count or _doorless(n, edges, placed, nosec):
        return None
    order = [i for i in range(n) if i not in nosec]
    ties = list(range(n))
    shuffle(rng, ties)
    order.sort(key=lambda i: (depth[i], ties[i]))
    security = [nosec_level] * n
    pos = 0
    for level, count in levels:
        for i in order[pos : pos + count]:
            security[i] = level
        pos += count
    by_level: dict[int, list[int]] = {}
    for i in order:
        by_level.setdefault(security[i], []).append(depth[i])
    lowest_level, highest_level = levels[0][0], levels[-1][0]
    if (
        len(levels) >= 2
        and levels[-1][1] > 0
        and max(by_level[lowest_level]) >= min(by_level[highest_level])
    ):
        return None
    if any(placed[i] and security[i] not in (nosec_level, lowest_level) for i in range(n)):
        return None
    return [LayoutRoom(security[i], placed[i], depth[i]) for i in range(n)], edges


def _bfs_order(rooms: list[LayoutRoom], edges: list[tuple[int, int]]) -> list[int]:
    """Room indexes breadth-first from the access rooms (the ids R1, R2, ... follow it)."""
    n = len(rooms)
    adjacent: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        adjacent[a].append(b)
        adjacent[b].append(a)
    queue = [i for i in range(n) if rooms[i].accesses > 0]
    seen = set(queue)
    head = 0
    while head < len(queue):
        node = queue[head]
        head += 1
        for nxt in sorted(adjacent[node], key=lambda j: (rooms[j].depth, rooms[j].security, j)):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return queue


def assemble(
    levels: Sequence[tuple[int, int]],
    accesses: int,
    points: int,
    nosec: int,
    rng: random.Random,
    *,
    cost: Callable[[int], int],
    max_exits: int,
    max_rooms: int,
    nosec_level: int = 0,
    loops: int | None = 0,
    max_junctions: int = MAX_JUNCTIONS,
    attempts: int = ATTEMPTS_PER_SIZE,
) -> Layout:
    """Put ``levels`` (``(security number, rooms)``, lowest security first; the first level
    must have at least one room) and ``nosec`` NoSec rooms together with ``accesses``
    accesses, spending exactly ``points`` branch points where that is possible.

    ``loops``: links beyond a tree, as many as the junctions leave room for at most
    (``None``: a die among 0 .. that many, for each try; 0: a tree).

    Promises: one connected complex without repeated links; every access room is NoSec or
    of the lowest level; every secured room has a door (an access or a secured
    neighbour); every room of the highest level lies deeper than every room of the lowest;
    the branch costs of all rooms add up to ``Layout.used``, which equals ``points`` unless
    the accesses need more (``reason``). Refuses (:class:`LayoutError`) when no such complex
    fits into ``max_rooms`` rooms.
    """
    if not levels or levels[0][1] < 1:
        raise LayoutError(N_("a complex needs at least one room of the lowest security level"))
    n_sec = sum(count for _level, count in levels)
    used = points
    plans = junction_plans(cost, used, accesses - 2, max_exits, max_junctions)
    while not plans:
        used += 1
        if used > points + max_exits:
            raise LayoutError(N_("no junctions can take {n} entrances"), n=accesses)
        plans = junction_plans(cost, used, accesses - 2, max_exits, max_junctions)
    reason = None if used == points else "accesses"
    n = n_sec + nosec
    while n <= max_rooms:
        for _attempt in range(attempts):
            plan = choice(rng, plans)
            found = _try(levels, nosec_level, n, plan, accesses, rng, loops)
            if found is None:
                continue
            rooms, edges = found
            order = _bfs_order(rooms, edges)
            index = {old: new for new, old in enumerate(order)}
            links = sorted((min(index[a], index[b]), max(index[a], index[b])) for a, b in edges)
            return Layout(
                tuple(rooms[i] for i in order),
                tuple(links),
                points,
                used,
                reason,
                n - n_sec - nosec,
                len(links) - n + 1,
            )
        n += 1
    raise LayoutError(N_("the rooms cannot be assembled into at most {max} rooms"), max=max_rooms)
