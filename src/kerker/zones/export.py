"""A zone map as JSON: stable English keys, the texts in one language, the full roll log.

The format is described in docs/zones.md ("JSON"). Same map, same language -> the same
bytes (:func:`dumps`).
"""

from __future__ import annotations

from typing import Any

from kerker.zones.model import Area, Connection, Detail, ZoneMap

FORMAT_VERSION = 1


def _detail(detail: Detail | None, lang: str) -> dict[str, Any] | None:
    if detail is None:
        return None
    return {
        "table": detail.table,
        "key": detail.key,
        "text": detail.text(lang),
        "values": dict(detail.values),
    }


def _area(zmap: ZoneMap, area: Area, lang: str, reachable: frozenset[str]) -> dict[str, Any]:
    data: dict[str, Any] = {
        "letter": area.letter,
        "zones": [list(p) for p in area.zones],
        "label": list(area.label),
    }
    details = area.details
    if details is not None:
        data["name"] = details.name.text(lang)
        data["name_key"] = details.name.key
        prop = _detail(details.property, lang)
        assert prop is not None
        prop["scope"] = _detail(details.scope, lang)
        data["property"] = prop
        data["senses"] = [_detail(s, lang) for s in details.senses]
        data["encounter"] = _detail(details.encounter, lang)
        data["loot"] = _detail(details.loot, lang)
    else:
        data["name"] = None
    data["neighbours"] = list(area.neighbours)
    data["connections_rolled"] = area.rolled
    data["connections"] = list(zmap.linked(area.letter))
    data["hidden"] = list(zmap.linked(area.letter, hidden=True))
    data["accesses"] = len(data["connections"])
    data["reachable"] = area.letter in reachable if zmap.start is not None else None
    data["reachable_hidden"] = (
        area.letter in zmap.reachable(hidden=True) if zmap.start is not None else None
    )
    return data


def _connection(link: Connection, lang: str) -> dict[str, Any]:
    return {
        "from": link.a,
        "to": link.b,
        "hidden": link.hidden,
        "edge": [list(link.edge[0]), list(link.edge[1])],
        "via": [list(p) for p in link.via],
        "hint": _detail(link.hint, lang),
    }


def to_json(zmap: ZoneMap, lang: str) -> dict[str, Any]:
    """The map as plain data: ``kerker``, ``seed``, ``width``, ``height``, ``zones``,
    ``areas``, ``connections``, ``start`` (and more; see docs/zones.md), then ``log``."""
    from kerker import __version__

    reachable = zmap.reachable()
    return {
        "kerker": __version__,
        "format": FORMAT_VERSION,
        "seed": zmap.seed,
        "theme": zmap.theme,
        "lang": lang,
        "width": zmap.width,
        "height": zmap.height,
        "size_rolled": zmap.size_rolled,
        "zones": [{"x": x, "y": y, "area": zmap.grid[y][x]} for x, y in zmap.zones],
        "empty": [
            [x, y] for y in range(zmap.height) for x in range(zmap.width) if zmap.grid[y][x] is None
        ],
        "merge_reading": zmap.merge,
        "layouts_rolled": zmap.attempts,
        "merges": [
            {"a": list(m.a), "b": list(m.b) if m.b is not None else None, "merged": m.merged}
            for m in zmap.merges
        ],
        "areas": [_area(zmap, area, lang, reachable) for area in zmap.areas],
        "connections": [_connection(c, lang) for c in zmap.connections],
        "start": zmap.start,
        "start_candidates": list(zmap.start_candidates),
        "log": [dict(entry) for entry in zmap.log],
    }


def dumps(zmap: ZoneMap, lang: str) -> str:
    """:func:`to_json` as text by kerker's one JSON convention (:mod:`kerker.jsonio`: UTF-8,
    two-space indent, flat lists such as a node ``[x, y]`` on one line, a final newline)."""
    from kerker.jsonio import dumps as write

    return write(to_json(zmap, lang))
