"""The session API's answers as JSON bytes, whole or as a delta (docs/api.md, "Deltas").

A whole answer is :func:`kerker.play.views.show`'s document. A client that holds the answer
of event ``since`` may ask for what changed since then instead: the answer then says
``"delta": true`` and carries the top-level values that changed (``set``; ``unset``: keys
gone), and per level (by ``depth``) the areas and connections (by ``id``) added or changed
(whole), those removed, and their order when it is not the old order with the new ones at
the end. Applying it to the answer of ``since`` (:func:`apply_delta`) gives exactly the
whole answer of the new event (as JSON: the same values; the order of an object's keys is
not part of it).

Nothing is taken from anywhere but the new whole answer of the same view: a players' delta
holds only what the players' whole answer holds (the ids of what was removed are those the
client had). The answer of ``since`` is not kept as such, only the digests of its JSON,
piece by piece (:meth:`ViewIndex.digested`), for the last :data:`KEPT_PER_VIEW` events of
each session, view and language (:data:`KEPT_VIEWS` of those at most, least recently used
out first); a ``since`` not kept here (another instance answered it, or it is too old)
gets the whole answer, which is always right.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import orjson

KEPT_VIEWS = 256
"""Sessions x views x languages whose last answers a process keeps for deltas."""
KEPT_PER_VIEW = 4
"""Events kept per session, view and language (the GM page, an API client and a player's
screen may each hold another one)."""
ITEMS = ("areas", "connections")
"""The lists of a level whose items a delta names one by one (by ``id``)."""
_OPTS = orjson.OPT_NON_STR_KEYS


@dataclass(frozen=True)
class ViewIndex:
    """A whole answer's JSON, piece by piece: every top-level value but ``levels``, and per
    level its values but the item lists, and each area and connection with its id."""

    top: dict[str, bytes]
    levels: tuple[tuple[Any, dict[str, bytes], dict[str, tuple[tuple[Any, bytes], ...]]], ...]
    known: ViewIndex | None = field(default=None, compare=False, repr=False)
    """The digested index, when it was made with the pieces (:func:`encode` with
    :class:`Pieces`); not part of the value."""

    def digested(self) -> ViewIndex:
        """The same index with each piece's BLAKE2b digest (16 bytes) instead of its JSON:
        what is kept between requests (a tenth of the memory, and two pieces are the same
        JSON exactly when their digests are, but for a chance of 2^-128)."""
        if self.known is not None:
            return self.known
        return ViewIndex(
            {k: _digest(b) for k, b in self.top.items()},
            tuple(
                (
                    depth,
                    {k: _digest(b) for k, b in values.items()},
                    {name: tuple((i, _digest(b)) for i, b in got) for name, got in items.items()},
                )
                for depth, values, items in self.levels
            ),
        )


class Pieces:
    """The JSON and digest of the items (areas, connections) of the answers last encoded
    with it, by the identity of the item: an item that is the same object as in the last
    answer is neither encoded nor hashed again, so an answer costs what changed plus a look-up
    per item. For the answers of one session, view and language (:meth:`Kept.pieces`).

    The promise it rests on: an item is not changed once it has been answered (the GM
    documents' areas and connections are memoised, made anew when their frozen values
    change and never changed after: :class:`kerker.dungeon.export.DocumentMemo`). An item
    is kept only while the last answer has it, and held, so its identity is not reused;
    two requests using one :class:`Pieces` at once are safe (each hit is checked by
    identity; the later answer's items are kept)."""

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        self._kept: dict[int, tuple[Any, bytes, bytes]] = {}

    def _start(self) -> tuple[dict[int, tuple[Any, bytes, bytes]], dict[int, Any]]:
        return self._kept, {}

    def _keep(self, made: dict[int, tuple[Any, bytes, bytes]]) -> None:
        self._kept = made

    def __len__(self) -> int:
        return len(self._kept)


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


class NoIndex(Exception):
    """An answer that cannot be taken apart (an item without an id, two items with one):
    it is answered whole and no delta is made from it."""


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value, option=_OPTS)


def encode(answer: dict[str, Any], pieces: Pieces | None = None) -> tuple[bytes, ViewIndex | None]:
    """The whole ``answer``'s JSON (UTF-8, compact) and its index (None when it cannot be
    taken apart). The bytes are the same JSON as ``orjson.dumps(answer)``; a value orjson
    refuses (an integer past 64 bits) falls back to the standard library, without index.
    With ``pieces``, items answered last time are taken from there (see :class:`Pieces`)
    and the index carries its digests."""
    try:
        index = _index(answer, pieces)
    except NoIndex:
        index = None
    except (orjson.JSONEncodeError, TypeError):
        return _stdlib(answer), None
    if index is None:
        return _dumps(answer), None
    return _dumps(_assembled(answer, index)), index


def _stdlib(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


def _index(answer: dict[str, Any], pieces: Pieces | None = None) -> ViewIndex:
    top = {k: _dumps(v) for k, v in answer.items() if k != "levels"}
    levels = []
    known: list[Any] = []
    seen_depths = set()
    old, made = pieces._start() if pieces is not None else ({}, {})
    for level in answer.get("levels") or ():
        depth = level.get("depth")
        if depth in seen_depths or not isinstance(depth, int):
            raise NoIndex
        seen_depths.add(depth)
        values = {k: _dumps(v) for k, v in level.items() if k not in ITEMS}
        items: dict[str, tuple[tuple[Any, bytes], ...]] = {}
        digests: dict[str, tuple[tuple[Any, bytes], ...]] = {}
        for name in ITEMS:
            if name not in level:
                continue
            if pieces is None:
                listed = tuple((item.get("id"), _dumps(item)) for item in level[name])
            else:
                got = []
                hashed = []
                for item in level[name]:
                    hit = old.get(id(item))
                    if hit is None or hit[0] is not item:
                        data = _dumps(item)
                        hit = (item, data, _digest(data))
                    made[id(item)] = hit
                    got.append((item.get("id"), hit[1]))
                    hashed.append((got[-1][0], hit[2]))
                listed = tuple(got)
                digests[name] = tuple(hashed)
            ids = [i for i, _b in listed]
            if any(not isinstance(i, str) for i in ids) or len(set(ids)) != len(ids):
                raise NoIndex
            items[name] = listed
        levels.append((depth, values, items))
        known.append((depth, {k: _digest(b) for k, b in values.items()}, digests))
    if pieces is None:
        return ViewIndex(top, tuple(levels))
    pieces._keep(made)
    digested = ViewIndex({k: _digest(b) for k, b in top.items()}, tuple(known))
    return ViewIndex(top, tuple(levels), digested)


def _assembled(answer: dict[str, Any], index: ViewIndex) -> dict[str, Any]:
    """``answer`` with its pieces as the bytes already made (orjson writes them as they
    are), so the whole answer is not encoded a second time."""
    out: dict[str, Any] = {}
    for key, value in answer.items():
        if key != "levels":
            out[key] = orjson.Fragment(index.top[key])
            continue
        levels = []
        for level, (_depth, values, items) in zip(value, index.levels, strict=True):
            levels.append(
                {
                    k: (
                        [orjson.Fragment(b) for _i, b in items[k]]
                        if k in items
                        else orjson.Fragment(values[k])
                    )
                    for k in level
                }
            )
        out[key] = levels
    return out


def _list_patch(
    old: tuple[tuple[Any, bytes], ...],
    new: tuple[tuple[Any, bytes], ...],
    new_digests: tuple[tuple[Any, bytes], ...],
) -> dict[str, Any] | None:
    """What turns the items ``old`` (digested) into ``new`` (by id): ``drop`` (ids),
    ``put`` (whole items, new or changed), ``order`` (all ids, when not the old order, less
    the dropped, with the added at the end); None when nothing changed."""
    before = dict(old)
    after_ids = [i for i, _b in new]
    wanted = set(after_ids)
    drop = [i for i, _b in old if i not in wanted]
    put = [
        orjson.Fragment(b)
        for (i, b), (_i, d) in zip(new, new_digests, strict=True)
        if before.get(i) != d
    ]
    gone = set(drop)
    naive = [i for i, _b in old if i not in gone] + [i for i in after_ids if i not in before]
    patch: dict[str, Any] = {}
    if drop:
        patch["drop"] = drop
    if put:
        patch["put"] = put
    if naive != after_ids:
        patch["order"] = after_ids
    return patch or None


def delta(old: ViewIndex, new: ViewIndex, digests: ViewIndex, since: int, seq: int) -> bytes:
    """The delta answer from the answer indexed by ``old`` (digested, event ``since``) to
    the one indexed by ``new`` (event ``seq``; ``digests``: ``new.digested()``), as JSON
    bytes."""
    out: dict[str, Any] = {"delta": True, "since": since, "seq": seq}
    changed = {
        k: orjson.Fragment(b) for k, b in new.top.items() if old.top.get(k) != digests.top[k]
    }
    if changed:
        out["set"] = changed
    unset = [k for k in old.top if k not in new.top]
    if unset:
        out["unset"] = unset
    before = {depth: (values, items) for depth, values, items in old.levels}
    after_depths = [depth for depth, _v, _i in new.levels]
    wanted = set(after_depths)
    levels: dict[str, Any] = {}
    drop = [depth for depth, _v, _i in old.levels if depth not in wanted]
    put: list[Any] = []
    patches: list[dict[str, Any]] = []
    for (depth, values, items), (_depth, value_digests, item_digests) in zip(
        new.levels, digests.levels, strict=True
    ):
        if depth not in before:
            level: dict[str, Any] = {k: orjson.Fragment(b) for k, b in values.items()}
            for name, listed in items.items():
                level[name] = [orjson.Fragment(b) for _i, b in listed]
            put.append(level)
            continue
        old_values, old_items = before[depth]
        patch: dict[str, Any] = {"depth": depth}
        level_set = {
            k: orjson.Fragment(b)
            for k, b in values.items()
            if old_values.get(k) != value_digests[k]
        }
        if level_set:
            patch["set"] = level_set
        level_unset = [k for k in [*old_values, *old_items] if k not in values and k not in items]
        if level_unset:
            patch["unset"] = level_unset
        for name in ITEMS:
            if name not in items:
                continue
            if name not in old_items:
                patch.setdefault("set", {})[name] = [orjson.Fragment(b) for _i, b in items[name]]
                continue
            changes = _list_patch(old_items[name], items[name], item_digests[name])
            if changes is not None:
                patch[name] = changes
        if len(patch) > 1:
            patches.append(patch)
    if drop:
        levels["drop"] = drop
    if put:
        levels["put"] = put
    if patches:
        levels["patch"] = patches
    gone = set(drop)
    naive = [d for d, _v, _i in old.levels if d not in gone] + [
        d for d in after_depths if d not in before
    ]
    if naive != after_depths:
        levels["order"] = after_depths
    if levels:
        out["levels"] = levels
    return _dumps(out)


def apply_delta(whole: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """The whole answer after ``answer``, given the whole answer ``whole`` of the event the
    delta was asked since (``answer`` itself when it is a whole answer). The reference for
    clients (docs/api.md); refuses a delta of another event than ``whole``'s."""
    if answer.get("delta") is not True:
        return answer
    if answer["since"] != whole.get("seq"):
        raise ValueError(
            f"a delta since event {answer['since']} applied to event {whole.get('seq')}"
        )
    out = {k: v for k, v in whole.items() if k not in answer.get("unset", ())}
    for key, value in answer.get("set", {}).items():
        out[key] = value
    patch = answer.get("levels")
    if patch is not None:
        out["levels"] = _apply_levels(out.get("levels") or [], patch)
    return out


def _apply_list(
    items: list[dict[str, Any]], patch: dict[str, Any], key: str
) -> list[dict[str, Any]]:
    gone = set(patch.get("drop", ()))
    out = [item for item in items if item[key] not in gone]
    at = {item[key]: n for n, item in enumerate(out)}
    for item in patch.get("put", ()):
        if item[key] in at:
            out[at[item[key]]] = item
        else:
            at[item[key]] = len(out)
            out.append(item)
    if "order" in patch:
        by_key = {item[key]: item for item in out}
        out = [by_key[k] for k in patch["order"]]
    return out


def _apply_levels(levels: list[dict[str, Any]], patch: dict[str, Any]) -> list[dict[str, Any]]:
    changed = {p["depth"]: p for p in patch.get("patch", ())}
    patched = []
    for level in levels:
        p = changed.get(level["depth"])
        if p is not None:
            level = {k: v for k, v in level.items() if k not in p.get("unset", ())}
            level.update(p.get("set", {}))
            for name in ITEMS:
                if name in p:
                    level[name] = _apply_list(level.get(name) or [], p[name], "id")
        patched.append(level)
    return _apply_list(patched, {k: v for k, v in patch.items() if k != "patch"}, "depth")


class Kept:
    """The indexes of the last answers of each session, view and language (thread-safe)."""

    def __init__(self, views: int = KEPT_VIEWS, per_view: int = KEPT_PER_VIEW) -> None:
        self.views = views
        self.per_view = per_view
        self._lock = threading.Lock()
        self._kept: OrderedDict[tuple[Any, ...], OrderedDict[int, ViewIndex | None]] = OrderedDict()
        self._pieces: OrderedDict[tuple[Any, ...], Pieces] = OrderedDict()

    def pieces(self, key: tuple[Any, ...]) -> Pieces:
        """The :class:`Pieces` of ``key`` (session, view, language), made on first use; as
        many kept as indexes (least recently used out first)."""
        with self._lock:
            found = self._pieces.get(key)
            if found is None:
                found = self._pieces[key] = Pieces()
            self._pieces.move_to_end(key)
            while len(self._pieces) > self.views:
                self._pieces.popitem(last=False)
            return found

    def keep(self, key: tuple[Any, ...], seq: int, index: ViewIndex) -> None:
        """Keep ``index`` as the answer of event ``seq`` for ``key`` (session, view,
        language). Two different answers of one event (which a state named by its event
        should never give) make that event unknown here: a client may hold either, so a
        ``since`` of it gets the whole answer."""
        with self._lock:
            group = self._kept.get(key)
            if group is None:
                group = self._kept[key] = OrderedDict()
            self._kept.move_to_end(key)
            if seq in group and group[seq] != index:
                group[seq] = None
            else:
                group[seq] = index
            group.move_to_end(seq)
            while len(group) > self.per_view:
                group.popitem(last=False)
            while len(self._kept) > self.views:
                self._kept.popitem(last=False)

    def get(self, key: tuple[Any, ...], seq: int) -> ViewIndex | None:
        """The index kept for ``key`` at event ``seq`` (None: not kept here)."""
        with self._lock:
            group = self._kept.get(key)
            return None if group is None else group.get(seq)

    def clear(self) -> None:
        """Forget every kept index."""
        with self._lock:
            self._kept.clear()
