"""The dungeon document of docs/dungeon-json.md: stable English keys, texts in one language.

Same dungeon, same language -> the same bytes (:func:`dumps`).
"""

from __future__ import annotations

import dataclasses
import operator
import re
from collections import deque
from collections.abc import Iterator, Mapping
from typing import Any

import kerker
import kerker.jsonio as _jsonio
from kerker.dungeon.engine import BASIC_KINDS, declared, kind_title
from kerker.dungeon.model import Area, Bend, Connection, Content, Dungeon, Feature, Level, RollEntry
from kerker.errors import N_, KerkerError
from kerker.geometry.grid import bounds
from kerker.i18n import Translate, dice_text, translator
from kerker.jsonio import _dumps_json, _Unusual, _write  # noqa: F401 (tests read them)
from kerker.tables.engine import AmountResult, RowPick, TableResult
from kerker.tables.model import Table, pick_text
from kerker.tables.render import amount_rolls, fill_text, final_text, lines, row_text

FORMAT_VERSION = 1

AREA_KINDS = BASIC_KINDS
"""The area kinds every procedure may use, with their titles; a procedure declares its own
(``kinds``: :class:`~kerker.dungeon.engine.Procedure`), :func:`area_title` finds both."""

WANDERING = N_("Wandering: ")
WANDERING_MONSTER = N_("Wandering monster")


def wandering(text: str, _: Translate) -> str | None:
    """What a wandering monster's content text says after its document prefix ("Errante: 2
    ratti giganti" -> "2 ratti giganti"), for a reader that labels it once as "Mostro
    errante"; None for any other text. (The document keeps the prefix: its text reads on its
    own, and older documents have it.)"""
    prefix = _(WANDERING)
    return text[len(prefix) :] if prefix.strip() and text.startswith(prefix) else None


WELL = N_("Well")


def _num(value: float, lang: str) -> str:
    text = f"{value:g}"
    return text.replace(".", ",") if lang in ("de", "it") else text


def _size(area: Area, lang: str, box: tuple[int, int, int, int] | None = None) -> dict[str, Any]:
    squares = len(area.cells) / 4
    if area.kind == "corridor" and area.width_ft:
        # a corridor: its width × its length (its floor over its width, to 5 ft), not the
        # box around its bends
        width = area.width_ft
        length = max(width, 5 * round(len(area.cells) * 25 / width / 5))
        feet = (width, length)
    else:
        x0, y0, x1, y1 = box or bounds(area.cells)
        feet = ((x1 - x0 + 1) * 5, (y1 - y0 + 1) * 5)
    return {
        "squares": int(squares) if squares == int(squares) else squares,
        "feet": f"{feet[0]} × {feet[1]} ft",
        "metres": f"{_num(feet[0] * 0.3, lang)} × {_num(feet[1] * 0.3, lang)} m",
    }


def _text(result: TableResult | None, lang: str) -> str | None:
    return None if result is None else row_text(result, lang)


def _amount(result: TableResult, lang: str) -> tuple[int | None, str | None]:
    for effect in result.effects:
        if isinstance(effect, AmountResult) and effect.name == "amount":
            unit = fill_text(effect.unit, lang, {}, effect.value) if effect.unit else None
            return effect.value, unit
    value = result.values.get("amount")
    return (value if isinstance(value, int) and not isinstance(value, bool) else None), None


def content_json(
    content: Content, lang: str, leave_out: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """One entry of an area's ``contents``. ``leave_out``: the tables whose outcome the map
    and the exits show (a procedure's ``key_leaves_out``), left out of a trap's summary."""
    text = _text(content.result, lang) or ""
    if content.kind == "monster":
        if content.note == "wandering":
            text = translator(lang)(WANDERING) + text
        return {
            "kind": "monster",
            "text": text,
            "table": content.result.table.id if content.result else None,
            "gm_only": False,
        }
    if content.kind == "treasure":
        assert content.result is not None
        amount, unit = _amount(content.result, lang)
        treasure: dict[str, Any] = {
            "kind": "treasure",
            "text": text,
            "amount": amount,
            "unit": unit,
            "container": _text(content.container, lang),
            "trapped": _text(content.trapped, lang),
            "hidden": _text(content.hidden, lang),
            "gm_only": content.hidden is not None,
        }
        rolled = amount_rolls(content.result, lang)
        if rolled:  # "1d4 per level": the dice behind the number, for the key's roll log
            treasure["amounts"] = rolled
        return treasure
    if content.kind in ("trap", "trick"):
        out: dict[str, Any] = {"kind": content.kind, "text": text, "gm_only": True}
        if content.result is not None:
            summary = final_text(content.result, lang, leave_out=leave_out)
            if summary != text:
                out["summary"] = summary
        details = _details(content.result, lang) if content.result is not None else []
        if details:
            out["details"] = details
        return out
    if content.kind == "water":
        # what the water is, with what its own checks and notes fixed ("the lair of 4
        # monsters"); its monster, treasure and magic are keyed on their own
        assert content.result is not None
        text = final_text(content.result, lang, leave_out=leave_out)
        water: dict[str, Any] = {"kind": "water", "text": text}
        water["magic"] = final_text(content.magic, lang) if content.magic is not None else None
        rolled = amount_rolls(content.magic, lang) if content.magic is not None else []
        if rolled:
            water["amounts"] = rolled
        return water
    if content.kind == "stairs" and content.result is not None:
        # Which way down or up it is (stairs, trapdoor, shaft), for keys and legends.
        way = content.result.values.get("kind")
        way = "shaft" if way == "chimney" else way  # Scatola Bianca's "camino naturale"
        if way in ("stairs", "trapdoor", "shaft"):
            return {"kind": content.kind, "text": text, "way": way}
    return {"kind": content.kind, "text": text}


def _details(result: TableResult, lang: str) -> list[str]:
    """What a trap's follow-up rolls say ("Effetti del gas: ..."), one line each, the same
    line rolled several times once with its count ("... (×3)")."""
    found: list[str] = []
    for child in result.children():
        found += [line.strip() for line in lines(child, lang) if not line.strip().startswith("·")]
    counts: dict[str, int] = {}
    for line in found:
        counts[line] = counts.get(line, 0) + 1
    return [line if n == 1 else f"{line} (×{n})" for line, n in counts.items()]


_SIZE_VALUES = frozenset({"width_ft"})
"""Row values the key's size line states (a corridor's width), not told again in a feature."""


def feature_json(
    feature: Feature, lang: str, leave_out: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """One entry of an area's ``features``: what is there (:func:`final_text`, without
    the follow-ups in ``leave_out`` that are keyed on their own)."""
    if feature.kind == "well":
        text = translator(lang)(WELL)
    elif feature.result is not None:
        # the corridor's width is its size line's; a river or columns row does not repeat it
        text = final_text(feature.result, lang, leave_out=leave_out, untold=_SIZE_VALUES)
    else:
        text = ""
    out: dict[str, Any] = {
        "kind": feature.kind,
        "cells": list(map(list, feature.cells)),
        "dir": feature.dir,
        "text": text,
    }
    if feature.kind == "boat" and feature.result is not None:
        # which bank the boat lies on (the rolled effect), for the map to draw it there
        near = feature.result.values.get("boat_on_players_bank")
        if isinstance(near, bool):
            out["bank"] = "near" if near else "far"
    rolled = amount_rolls(feature.result, lang) if feature.result is not None else []
    if rolled:
        # The text gives the values ("4 mostri"); the rolls behind them, for the key's log.
        out["amounts"] = rolled
    return out


_NUMBERED = re.compile(r"^(?:Tabella|Tabelle|Table)\s+([A-Z0-9][A-Za-z0-9.]*?)\.?(?::|\s|$)")


def heading_number(heading: str) -> str | None:
    """The table number a source heading prints, or None.

    >>> heading_number("Tabella A.3.1 Corridoio laterale"), heading_number("Schritt 4: Gänge")
    ('A.3.1', None)
    """
    found = _NUMBERED.match(heading)
    return found.group(1) if found else None


def _nodes(result: TableResult) -> list[TableResult]:
    """A result and every follow-up and repetition, pre-order."""
    out: list[TableResult] = []
    stack = [result]
    while stack:
        node = stack.pop()
        out.append(node)
        # pushed in reverse: the children come off first, in order, the repetition last
        if node.again is not None:
            stack.append(node.again)
        stack.extend(reversed(node.children()))
    return out


def _pick_text(node: TableResult, pick: RowPick, lang: str) -> str:
    chosen = pick_text(pick.row.text, lang)
    if type(chosen) is str and "{" not in chosen:
        return chosen  # nothing to fill in (most rows): what fill_text would return
    names: dict[str, Any] = dict(node.context)
    names.update(node.values)
    names.update(node.amounts())
    names["result"] = pick.total
    counts = [e.value for e in node.effects if isinstance(e, AmountResult)]
    return fill_text(pick.row.text, lang, names, counts[0] if counts else None)


class RollLabels:
    """Labels and row texts for the roll log (the solo-play transcript).

    Every roll entry gets a ``label`` and the ``text`` of the row rolled. A rule set that
    numbers its tables in their source headings ("Tabella A.1: Tiri periodici") labels them
    with the number ("A.1"), or by its title where the heading prints none; the others (the
    Zufallslabyrinth's steps) with the table's title in the document's language. Tables are
    known from the results the dungeon keeps.
    """

    def __init__(
        self,
        dungeon: Dungeon,
        *,
        tables: dict[str, Table] | None = None,
        nodes: dict[int, tuple[Area, list[TableResult]]] | None = None,
    ) -> None:
        """``tables``: the tables of the dungeon's results, when known (what this would
        find: :class:`DocumentMemo`); ``nodes``: the walk of each area's results, shared
        with the caller (by ``id``, as :meth:`_nodes_of` keeps it)."""
        self.checks: dict[str, str] = dict(declared(dungeon.rules, "checks", ()))
        """The procedure's own checks (roll key -> sentence), see ``Procedure.checks``."""
        self._area_nodes: dict[int, tuple[Area, list[TableResult]]] = {} if nodes is None else nodes
        if tables is None:
            tables = {}
            for level in dungeon.levels:
                for area in level.areas:
                    for node in self._nodes_of(area):
                        tables.setdefault(node.table.id, node.table)
        self.tables: dict[str, Table] = tables
        self.numbered = {
            t.rule_set for t in self.tables.values() if heading_number(t.heading) is not None
        }
        self._labels: dict[tuple[str, str], str | None] = {}
        self._by_lang: dict[str, dict[str, str | None]] = {}
        """Language -> table id -> :meth:`label` (one dict lookup per entry)."""

    def _nodes_of(self, area: Area) -> list[TableResult]:
        """Every node of the area's results (:func:`_results`, :func:`_nodes`), walked once
        (by ``id``; the entry keeps the area, so the id stays its own)."""
        found = self._area_nodes.get(id(area))
        if found is None or found[0] is not area:
            nodes = [node for result in _results(area) for node in _nodes(result)]
            found = self._area_nodes[id(area)] = (area, nodes)
        return found[1]

    def label(self, table_id: str, lang: str = "en") -> str | None:
        """The entry label of ``table_id``: its number where its rule set numbers its
        tables and its heading prints one, else its title in ``lang``; None for a table the
        dungeon kept no result of."""
        key = (table_id, lang)
        if key in self._labels:
            return self._labels[key]
        table = self.tables.get(table_id)
        found: str | None
        if table is None:
            found = None
        else:
            # A heading that prints no number ("Cave e caverne per i livelli inferiori") is
            # labelled by the table's title in ``lang``, never by the source's own words.
            number = heading_number(table.heading) if table.rule_set in self.numbered else None
            title = pick_text(table.title, lang)
            found = number or (title if isinstance(title, str) else title[0]) or None
        self._labels[key] = found
        return found

    def entries(self, area: Area, lang: str) -> list[dict[str, Any]]:
        """The area's roll log as document entries."""
        known = self._by_lang.get(lang)
        if known is None:
            known = self._by_lang[lang] = {}
        labels = []
        for r in area.rolls:
            label = known.get(r.table, _UNKNOWN)
            if label is _UNKNOWN:
                label = known[r.table] = self.label(r.table, lang)
            labels.append(label)
        # (table, dice, roll, row) -> the picks of the area's results, in order; their texts
        # are filled in when an entry takes them
        picks: dict[tuple[str, str, int, str], deque[tuple[TableResult, RowPick]]] = {}
        if any(label is not None for label in labels):
            for node in self._nodes_of(area):
                table_id = node.table.id
                for pick in (node.pick,) if node.sub is None else (node.pick, node.sub):
                    key = (table_id, pick.dice, pick.total, pick.label)
                    queue = picks.get(key)
                    if queue is None:
                        queue = picks[key] = deque()
                    queue.append((node, pick))
        out = []
        for r, label in zip(area.rolls, labels, strict=True):
            entry: dict[str, Any] = dict(zip(_ROLL_KEYS, r, strict=True))  # = _roll_json(r)
            if label is not None:
                entry["label"] = label
                queue = picks.get(r[:4])  # (table, dice, roll, row)
                if queue:
                    node, pick = queue.popleft()
                    entry["text"] = _pick_text(node, pick, lang)
                else:
                    entry["text"] = _check_text(r, lang, self.checks)
            out.append(entry)
        return out


def _check_text(r: RollEntry, lang: str, checks: Mapping[str, str]) -> str | None:
    """The sentence of a procedure's own check (``checks``: its declaration), or None."""
    text = checks.get(str(r.key)) if r.key else None
    return translator(lang)(text).format(row=r.row, dice=dice_text(r.dice, lang)) if text else None


class ExportError(KerkerError):
    """A dungeon the exporter cannot write (a procedure that made what it did not declare)."""

    code = "export"


def area_title(rules: str, kind: str, lang: str) -> str:
    """The title of the area kind ``kind`` of ``rules`` in ``lang``; an :class:`ExportError`
    for a kind the procedure does not declare (``Procedure.kinds``)."""
    title = kind_title(rules, kind)
    if title is None:
        raise ExportError(
            N_("the rules {rules} made an area of kind {kind!r} they do not declare"),
            rules=rules[:40],
            kind=kind[:40],
        )
    return translator(lang)(title)


def _results(area: Area) -> Iterator[TableResult]:
    yield from area.results
    for content in area.contents:
        for result in (
            content.result,
            content.container,
            content.trapped,
            content.hidden,
            content.magic,
        ):
            if result is not None:
                yield result


_ROLL_KEYS = RollEntry._fields
"""The keys of a roll entry: :class:`RollEntry`'s fields, in their order."""
_UNKNOWN = object()


def _roll_json(r: RollEntry) -> dict[str, Any]:
    return {
        "table": r.table,
        "dice": r.dice,
        "roll": r.roll,
        "row": r.row,
        "key": r.key,
        "explain": r.explain,
    }


def stair_doors(dungeon: Dungeon) -> dict[str, bool]:
    """Connection id -> whether a door shuts the way back for a day, for both ends of the
    stairs whose roll says so: the value the procedure declares as its ``door_value`` in the
    stairs' results (the Scatola Bianca's A.6 footnotes: ``door_shuts_exit``). Stairs without
    such a roll, and procedures that declare none, are not in the map."""
    out: dict[str, bool] = {}
    value = declared(dungeon.rules, "door_value", None)
    if not isinstance(value, str):
        return out
    by_depth = {level.depth: level for level in dungeon.levels}
    for level in dungeon.levels:
        ways_of: dict[str, list[Connection]] = {}  # area id -> its ways to other levels
        for c in level.connections:
            if c.to_level is not None:
                ways_of.setdefault(c.from_, []).append(c)
        for area in level.areas:
            for content in area.contents:
                if content.kind != "stairs" or content.result is None:
                    continue
                shut = next(
                    (bool(n.values[value]) for n in _nodes(content.result) if value in n.values),
                    None,
                )
                if shut is None:
                    continue
                way = content.result.values
                conn = next(
                    (
                        c
                        for c in ways_of.get(area.id, ())
                        if c.id not in out
                        and c.kind == way.get("kind")
                        and c.direction == way.get("direction")
                    ),
                    None,
                )
                if conn is None:
                    continue
                out[conn.id] = shut
                lower = by_depth.get(conn.to_level or 0)
                for back in lower.connections if lower is not None else ():
                    if (
                        back.from_ == conn.to
                        and back.to == area.id
                        and back.kind == conn.kind
                        and back.to_level == level.depth
                    ):
                        out[back.id] = shut
    return out


def _leaves_out(rules: str) -> frozenset[str]:
    """The tables a procedure keys on their own -- as contents, magic or exits -- and so
    leaves out of the texts of the results they follow (``key_leaves_out``)."""
    return frozenset(declared(rules, "key_leaves_out", ()))


def area_json(
    area: Area, lang: str, labels: RollLabels | None = None, rules: str = "zufallslabyrinth"
) -> dict[str, Any]:
    """One area of a level; ``labels`` adds the transcript labels to its roll log; ``rules``
    names the kind titles (:func:`area_title`)."""
    box = bounds(area.cells)
    leave_out = _leaves_out(rules)
    return {
        "id": area.id,
        "number": area.number,
        "kind": area.kind,
        "shape": area.shape,
        "cells": list(map(list, area.cells)),
        "bounds": list(box),
        "label_at": list(area.label_at),
        "size": _size(area, lang, box),
        "title": area_title(rules, area.kind, lang),
        "contents": [content_json(c, lang, leave_out) for c in area.contents],
        "features": [feature_json(f, lang, leave_out) for f in area.features],
        "rolls": (
            labels.entries(area, lang)
            if labels is not None
            else [_roll_json(r) for r in area.rolls]
        ),
        **_rolled_json(area),
        "bends": [bend_json(b) for b in area.bends],
    }


def _rolled_json(area: Area) -> dict[str, Any]:
    """What the dice gave beside what was built: a corridor's ``width_ft`` and
    ``rolled_width_ft``, any other area's ``rolled_squares``."""
    if area.kind == "corridor":
        return {"width_ft": area.width_ft, "rolled_width_ft": area.rolled_width_ft}
    return {"rolled_squares": area.rolled_squares}


def bend_json(bend: Bend) -> dict[str, Any]:
    """One entry of an area's ``bends`` (docs/dungeon-json.md)."""
    return {"what": bend.what, "rolled": bend.rolled, "built": bend.built, "reason": bend.reason}


def connection_json(conn: Connection, door_closes: bool | None = None) -> dict[str, Any]:
    """One connection of a level; ``door_closes`` (stairs whose door may shut the way back
    for a day) is written when known."""
    out = {
        "id": conn.id,
        "key": conn.key,
        "from": conn.from_,
        "to": conn.to,
        "kind": conn.kind,
        "at": list(conn.at),
        "side": conn.side,
        "width": conn.width,
        "to_level": conn.to_level,
        "direction": conn.direction,
        "one_way": conn.one_way,
        "gm_only": conn.gm_only,
        "blocked": conn.blocked,
        "bends": [bend_json(b) for b in conn.bends],
    }
    if door_closes is not None:
        out["door_closes"] = door_closes
    return out


def level_json(
    level: Level,
    lang: str,
    labels: RollLabels | None = None,
    doors: Mapping[str, bool] | None = None,
    rules: str = "zufallslabyrinth",
) -> dict[str, Any]:
    """One level (``labels``, ``doors``: see :class:`RollLabels`, :func:`stair_doors`)."""
    doors = doors or {}
    return {
        "depth": level.depth,
        "width": level.width,
        "height": level.height,
        "origin": list(level.origin),
        "entrance": level.entrance,
        "areas": [area_json(a, lang, labels, rules) for a in level.areas],
        "connections": [connection_json(c, doors.get(c.id)) for c in level.connections],
        "unexplored": list(level.unexplored),
    }


def to_document(dungeon: Dungeon, lang: str, memo: DocumentMemo | None = None) -> dict[str, Any]:
    """The whole document (docs/dungeon-json.md). ``memo``: what the last documents of
    the same dungeon being played were made of (:class:`DocumentMemo`); the document is
    the same either way, its unchanged parts are then the objects of the last one (which
    no caller changes)."""
    if memo is None:
        labels = RollLabels(dungeon)
        doors = stair_doors(dungeon)
        levels = [level_json(level, lang, labels, doors, dungeon.rules) for level in dungeon.levels]
    else:
        levels = memo.levels(dungeon, lang)
    return {
        "kerker": kerker.__version__,
        "format": FORMAT_VERSION,
        "rules": dungeon.rules,
        "seed": dungeon.seed,
        "lang": lang,
        "options": dict(dungeon.options),
        "levels": levels,
        "stats": {
            "areas": dungeon.area_count,
            "bent": dict(dungeon.bent),
            "attempt": dungeon.attempt,
        },
    }


_Walked = tuple[tuple[TableResult, ...], tuple[Content, ...], list[TableResult], dict[str, Table]]
"""An area's results and contents, every node of them (:func:`_nodes`) and their tables."""
_AreaJson = tuple[Area, dict[str, Any], frozenset[str]]
"""A frozen area, its document entry and the tables of its roll log."""


class DocumentMemo:
    """The parts of the documents made last of one dungeon being played (a play session's
    state: a step adds areas and links exits, it rarely changes a frozen value), reused by
    :func:`to_document` where they are the same.

    Kept by identity of the frozen values (:meth:`~kerker.dungeon.engine.DungeonState.
    snapshot` gives an unchanged area or connection as the same object): an area's entry
    per language while its :class:`Area` is the same object and no label of a table in its
    roll log changed (:class:`RollLabels`: a table's label depends on which tables the
    whole dungeon keeps results of), a connection's while its :class:`Connection` and its
    ``door_closes`` are. Table results are never changed after their step (what the frozen
    values share with the builders)."""

    __slots__ = ("_conns", "_labels", "_langs", "_tables")

    def __init__(self) -> None:
        self._labels: RollLabels | None = None
        self._tables: dict[tuple[int, int], _Walked] = {}
        """(results, contents) of an area (by id) -> the walk of its results and their
        tables, first seen first (the same for the area cut at another offset)."""
        self._conns: dict[int, tuple[Connection, bool | None, dict[str, Any]]] = {}
        self._langs: dict[tuple[str, str], tuple[RollLabels, dict[int, _AreaJson]]] = {}

    def labels(self, dungeon: Dungeon) -> RollLabels:
        """The :class:`RollLabels` of ``dungeon``: the last one while the tables of the
        dungeon's results are the same."""
        nodes: dict[int, tuple[Area, list[TableResult]]] = {}
        per_area: dict[tuple[int, int], _Walked] = {}
        tables: dict[str, Table] = {}
        old_tables = self._tables
        for level in dungeon.levels:
            for area in level.areas:
                key = (id(area.results), id(area.contents))
                hit = old_tables.get(key)
                if hit is None or hit[0] is not area.results or hit[1] is not area.contents:
                    walked = [n for result in _results(area) for n in _nodes(result)]
                    own: dict[str, Table] = {}
                    for node in walked:
                        own.setdefault(node.table.id, node.table)
                    hit = (area.results, area.contents, walked, own)
                per_area[key] = hit
                nodes[id(area)] = (area, hit[2])
                for table_id, table in hit[3].items():
                    tables.setdefault(table_id, table)
        self._tables = per_area
        last = self._labels
        if (
            last is not None
            and last.tables.keys() == tables.keys()
            and all(last.tables[k] is t for k, t in tables.items())
        ):
            last._area_nodes = nodes
            return last
        self._labels = RollLabels(dungeon, tables=tables, nodes=nodes)
        return self._labels

    def levels(self, dungeon: Dungeon, lang: str) -> list[dict[str, Any]]:
        """The document's ``levels`` of ``dungeon`` in ``lang`` (:func:`level_json` of each)."""
        labels = self.labels(dungeon)
        doors = stair_doors(dungeon)
        rules = dungeon.rules
        kept = self._langs.get((lang, rules))
        changed: set[str] | None = set()
        old: dict[int, _AreaJson] = {}
        if kept is not None:
            old = kept[1]
            changed = _relabelled(kept[0], labels)
        areas: dict[int, _AreaJson] = {}
        conns: dict[int, tuple[Connection, bool | None, dict[str, Any]]] = {}
        old_conns = self._conns
        out = []
        moved: dict[str, _AreaJson] | None = None
        moved_conns: dict[str, tuple[Connection, bool | None, dict[str, Any]]] | None = None
        for level in dungeon.levels:
            area_list = []
            for area in level.areas:
                key = id(area)
                hit = old.get(key)
                if hit is None and old:  # the same area cut at another offset?
                    if moved is None:
                        moved = {e[0].id: e for e in old.values()}
                    prior = moved.get(area.id)
                    if prior is not None and _moved(prior[0], area):
                        hit = (area, _moved_json(prior[1], area, lang), prior[2])
                if (
                    hit is None
                    or hit[0] is not area
                    or changed is None
                    or (changed and not hit[2].isdisjoint(changed))
                ):
                    hit = (
                        area,
                        area_json(area, lang, labels, rules),
                        frozenset(r.table for r in area.rolls),
                    )
                areas[key] = hit
                area_list.append(hit[1])
            conn_list = []
            for conn in level.connections:
                door = doors.get(conn.id)
                found = old_conns.get(id(conn))
                if found is None and old_conns:  # the same connection cut at another offset?
                    if moved_conns is None:
                        moved_conns = {e[0].id: e for e in old_conns.values()}
                    before = moved_conns.get(conn.id)
                    if before is not None and before[1] is door and _moved_conn(before[0], conn):
                        shifted = dict(before[2])
                        shifted["at"] = list(conn.at)
                        found = (conn, door, shifted)
                if found is None or found[0] is not conn or found[1] is not door:
                    found = (conn, door, connection_json(conn, door))
                conns[id(conn)] = found
                conn_list.append(found[2])
            out.append(
                {
                    "depth": level.depth,
                    "width": level.width,
                    "height": level.height,
                    "origin": list(level.origin),
                    "entrance": level.entrance,
                    "areas": area_list,
                    "connections": conn_list,
                    "unexplored": list(level.unexplored),
                }
            )
        self._langs[(lang, rules)] = (labels, areas)
        self._conns = conns
        return out


def _moved(old: Area, new: Area) -> bool:
    """Whether ``new`` is ``old`` on a level cut at another offset
    (:func:`~kerker.dungeon.sheet.crop_area` of the same frozen area): every field but the
    cells, the label cell and the features' cells is the same object."""
    return (
        old.id == new.id
        and old.number == new.number
        and old.kind == new.kind
        and old.shape == new.shape
        and old.contents is new.contents
        and old.rolls is new.rolls
        and old.results is new.results
        and old.bends is new.bends
        and old.width_ft is new.width_ft
        and old.rolled_width_ft is new.rolled_width_ft
        and old.rolled_squares is new.rolled_squares
        and len(old.cells) == len(new.cells)
        and len(old.features) == len(new.features)
        and all(
            f.kind == g.kind and f.dir == g.dir and f.result is g.result
            for f, g in zip(old.features, new.features, strict=True)
        )
    )


def _moved_conn(old: Connection, new: Connection) -> bool:
    """Whether ``new`` is ``old`` on a level cut at another offset
    (:func:`~kerker.dungeon.sheet.crop_connection`): every field but ``at`` the same object."""
    return all(map(operator.is_, _CONN_REST(old), _CONN_REST(new)))


_CONN_REST = operator.attrgetter(
    *(f.name for f in dataclasses.fields(Connection) if f.name != "at")
)
"""Every field of a :class:`Connection` but ``at``, as a tuple."""


def _moved_json(entry: dict[str, Any], area: Area, lang: str) -> dict[str, Any]:
    """:func:`area_json` of ``area`` from the ``entry`` of the same area at another cut
    (:func:`_moved`): the entry with its cells, bounds, label cell, size and features'
    cells written again, its texts and roll log kept."""
    out = dict(entry)
    box = bounds(area.cells)
    out["cells"] = list(map(list, area.cells))
    out["bounds"] = list(box)
    out["label_at"] = list(area.label_at)
    out["size"] = _size(area, lang, box)
    features = []
    for was, feature in zip(entry["features"], area.features, strict=True):
        moved = dict(was)  # its text is the same: only its cells moved
        moved["cells"] = list(map(list, feature.cells))
        features.append(moved)
    out["features"] = features
    return out


def _relabelled(old: RollLabels, new: RollLabels) -> set[str] | None:
    """The ids of the tables whose roll-log label may differ between ``old`` and ``new``
    (:meth:`RollLabels.label`: which tables are known, and which rule sets number them);
    None when anything may (other checks)."""
    if old is new:
        return set()
    if old.checks != new.checks:
        return None
    changed = set(old.tables.keys() ^ new.tables.keys())
    changed.update(k for k, t in new.tables.items() if k in old.tables and old.tables[k] is not t)
    toggled = old.numbered ^ new.numbered
    if toggled:
        for tables in (old.tables, new.tables):
            changed.update(k for k, t in tables.items() if t.rule_set in toggled)
    return changed


def dumps_document(doc: dict[str, Any]) -> str:
    """A document as JSON text, by kerker's one convention (:mod:`kerker.jsonio`)."""
    return _jsonio.dumps(doc)


def dumps(dungeon: Dungeon, lang: str) -> str:
    """The dungeon's document as JSON text (:func:`dumps_document`)."""
    return dumps_document(to_document(dungeon, lang))
