"""Foundry VTT scenes: one level as a Scene (v13, or v14 with ``levels[]``) and a
JournalEntry with its room key, for "Import Data" (docs/vtt.md).

- the Scene is the picture's size (``padding`` 0: padding shifts walls in known Foundry
  issues), one grid square = 10 ft (``grid.distance`` 10, ``units`` "ft"; a 5-ft corridor is
  half a square wide), the picture (``background.src``, or ``levels[0].background.src`` in
  v14's layout) at the path it is to be copied to;
- ``walls``: every wall of the picture, segment by segment, in pixels; doors and one-way
  doors ``door`` 1, secret doors ``door`` 2 (only the game master sees those), all closed
  (``ds`` 0); archways, openings and stairs are gaps;
- ``notes``: one per area number, linked to that area's page of the JournalEntry; one per
  one-way door (Foundry cannot open a door one way only: the note says which side opens
  it) and per stairs, trapdoor, shaft and elevator (naming the level it leads to);
- the JournalEntry: one page per area with its key in HTML (escaped), what only the game
  master may read in Foundry's ``<section class="secret">`` blocks.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from itertools import pairwise
from typing import Any

from kerker.dungeon.render_key import _SURFACE, _VERTICAL, AreaKey, area_keys  # the key's texts
from kerker.dungeon.render_svg import title_text
from kerker.errors import N_
from kerker.export.image import PPG_DEFAULT, fit_ppg, picture, scale_warning
from kerker.export.walls import (
    CELLS_PER_SQUARE,
    NOTE_KINDS,
    LevelWalls,
    level_walls,
)
from kerker.i18n import Translate, translator

GRID_SQUARE = 1
"""``CONST.GRID_TYPES.SQUARE``."""
WALL_NORMAL = 20
"""``CONST.WALL_MOVEMENT_TYPES.NORMAL`` and ``CONST.WALL_SENSE_TYPES.NORMAL``."""
DOOR_NONE, DOOR_DOOR, DOOR_SECRET = 0, 1, 2
"""``CONST.WALL_DOOR_TYPES``."""
DOOR_CLOSED = 0
"""``CONST.WALL_DOOR_STATES.CLOSED``."""
PAGE_HTML = 1
"""``CONST.JOURNAL_ENTRY_PAGE_FORMATS.HTML``."""
NOTE_ICON = "icons/svg/book.svg"
WAY_ICON = "icons/svg/door-exit.svg"
ASSET_DIR = "kerker"
"""Where, in Foundry's user data, the picture is expected (``background.src``)."""
LAYOUTS = ("v13", "v14")

_STEP = {
    "n": (0, -1),
    "e": (1, 0),
    "s": (0, 1),
    "w": (-1, 0),
    "ne": (1, -1),
    "se": (1, 1),
    "sw": (-1, 1),
    "nw": (-1, -1),
}


def foundry_id(*parts: object) -> str:
    """A Foundry document id (16 letters and digits) derived from ``parts``: the same
    parts give the same id."""
    digest = hashlib.blake2b(":".join(map(str, parts)).encode("utf-8"), digest_size=16).digest()
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    value = int.from_bytes(digest, "big")
    out = []
    for _ in range(16):
        value, k = divmod(value, 62)
        out.append(alphabet[k])
    return "".join(out)


@dataclass
class FoundryBundle:
    """One level for Foundry: the Scene and JournalEntry (JSON text), the picture and the
    file name it goes by, and warnings to show."""

    scene: str
    journal: str
    image: bytes
    image_name: str
    warnings: list[str] = field(default_factory=list)


def _px(value: float, ppg: int) -> int:
    return round(value * ppg)


def _wall(
    wid: str,
    a: Sequence[float],
    b: Sequence[float],
    ppg: int,
    door: int = DOOR_NONE,
    flags: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "_id": wid,
        "c": [_px(a[0], ppg), _px(a[1], ppg), _px(b[0], ppg), _px(b[1], ppg)],
        "move": WALL_NORMAL,
        "sight": WALL_NORMAL,
        "light": WALL_NORMAL,
        "sound": WALL_NORMAL,
        "dir": 0,
        "door": door,
        "ds": DOOR_CLOSED,
        "flags": dict(flags or {}),
    }


def scene_walls(level: LevelWalls, ppg: int, seed: object) -> list[dict[str, Any]]:
    """The Scene's walls: every wall segment, then the doors and secret doors."""
    out: list[dict[str, Any]] = []
    n = 0
    for line in level.walls:
        for a, b in pairwise(line):
            if (_px(a[0], ppg), _px(a[1], ppg)) == (_px(b[0], ppg), _px(b[1], ppg)):
                continue
            out.append(_wall(foundry_id(seed, level.depth, "wall", n), a, b, ppg))
            n += 1
    for span in [*level.doors, *level.secret]:
        conn = level.map.connections[span.conn]
        door = DOOR_SECRET if span.kind == "secret_door" else DOOR_DOOR
        flags = {
            "kerker": {
                "connection": conn.get("id"),
                "kind": span.kind,
                **({"one_way": conn.get("one_way")} if conn.get("one_way") else {}),
            }
        }
        out.append(
            _wall(foundry_id(seed, level.depth, "door", n), span.a, span.b, ppg, door, flags)
        )
        n += 1
    return out


def _page_html(gm: AreaKey, player: AreaKey | None, _: Translate) -> str:
    """An area's key as HTML: what the players may know, then a secret block with what only
    the game master may (traps, hidden things, secret doors, the rolls)."""

    def items(label: str, shown: Sequence[str]) -> str:
        if not shown:
            return ""
        lis = "".join(f"<li>{escape(text)}</li>" for text in shown)
        return f"<h3>{escape(label)}</h3><ul>{lis}</ul>"

    seen = player or AreaKey(anchor=gm.anchor, heading=gm.heading, size=gm.size)
    exits = [text for text, _n in gm.exits]
    seen_exits = [text for text, _n in seen.exits]
    parts = [
        f"<p><em>{escape(_('Size'))}:</em> {escape(gm.size)}</p>",
        items(_("Contents"), seen.contents or ([] if gm.corridor else [_("empty")])),
        items(_("Features"), seen.features),
        items(_("Exits"), seen_exits or [_("none")]),
    ]
    secret = [
        items(_("Contents"), [c for c in gm.contents if c not in seen.contents]),
        items(_("Exits"), [e for e in exits if e not in seen_exits]),
        items(_("Traps"), gm.traps),
        items(_("Rolls"), gm.rolls),
    ]
    if any(secret):
        label = escape(_("Game master only"))
        parts.append(
            f'<section class="secret"><p><strong>{label}</strong></p>{"".join(secret)}</section>'
        )
    return "".join(parts)


def _way_text(conn: Mapping[str, Any], _: Translate) -> str:
    kind = str(conn.get("kind"))
    up = conn.get("direction") == "up"
    target = conn.get("to_level")
    if up and target == 0:
        return _(_SURFACE.get(kind, _SURFACE["stairs"]))
    text = _(_VERTICAL.get((kind, "up" if up else "down"), _VERTICAL[("stairs", "down")]))
    return text.format(level="?" if target is None else target)


def _way_point(conn: Mapping[str, Any]) -> tuple[float, float]:
    """Where a connection's note goes, in cells: the middle of its span (stairs: on their
    wall; trapdoors and shafts: in the floor; an elevator: at its room's middle cell)."""
    ax, ay = (int(v) for v in conn.get("at") or (0, 0))
    side = str(conn.get("side") or "n")
    width = max(1, int(conn.get("width") or 1))
    sx, sy = (0, 1) if side in ("e", "w") else (1, 0)
    if side not in ("n", "e", "s", "w"):
        width = 1
    x = ax + 0.5 + sx * (width - 1) / 2
    y = ay + 0.5 + sy * (width - 1) / 2
    if conn.get("kind") == "stairs":
        dx, dy = _STEP.get(side, (0, -1))
        x, y = x + dx / 2, y + dy / 2
    return x, y


def _note(
    nid: str,
    level: LevelWalls,
    at: tuple[float, float],
    ppg: int,
    text: str,
    journal_id: str,
    page_id: str | None,
    icon: str,
) -> dict[str, Any]:
    x, y = level.to_squares(at)
    return {
        "_id": nid,
        "entryId": journal_id,
        "pageId": page_id,
        "x": _px(x, ppg),
        "y": _px(y, ppg),
        "texture": {"src": icon},
        "iconSize": max(16, ppg * 2 // 5),
        "fontSize": max(12, ppg // 4),
        "text": text,
        "global": False,
        "flags": {},
    }


def export_foundry(
    doc: Mapping[str, Any],
    depth: int = 1,
    *,
    ppg: int = PPG_DEFAULT,
    view: str = "player",
    image_format: str = "png",
    lang: str = "en",
    layout: str = "v13",
    image_name: str | None = None,
    asset_dir: str = ASSET_DIR,
    image: bytes | None = None,
) -> FoundryBundle:
    """Level ``depth`` of the dungeon document ``doc`` as a Foundry Scene, its
    JournalEntry and picture (``view``: ``player`` draws the players' map without area
    numbers, ``gm`` the game master's). ``layout`` ``v14`` puts the picture into
    ``levels[0]`` (Foundry 14's scene levels) instead of ``background``. ``image``: the
    picture when the caller drew it already (:func:`kerker.export.image.picture` of the
    same level, view and ``ppg``). Same document and options -> the same bytes. Refuses
    an unknown level, view, layout or picture format with an
    :class:`~kerker.errors.OptionError`.
    """
    from kerker.errors import OptionError

    if layout not in LAYOUTS:
        raise OptionError(
            N_("unknown Foundry layout {value!r}; choose one of {choices}"),
            value=layout,
            choices=", ".join(LAYOUTS),
        )
    _ = translator(lang)
    level = level_walls(doc, depth, view, secret_doors=True)
    used = fit_ppg(level.size, ppg)
    warnings = [] if used == ppg else [scale_warning(level, ppg, used, _)]
    if image is None:
        image = picture(level, used, fmt=image_format)
    seed = doc.get("seed")
    name = image_name or f"{doc.get('rules', 'dungeon')}-{seed}-level{depth}.{image_format}"
    title = title_text(doc, depth, lang)
    journal_id = foundry_id(seed, depth, "journal")
    scene_id = foundry_id(seed, depth, "scene")

    # The journal: one page per area, in number order.
    gm_keys = area_keys(doc, depth=depth, lang=lang, view="gm")
    player_keys = {k.anchor: k for k in area_keys(doc, depth=depth, lang=lang, view="player")}
    pages = []
    page_of: dict[str, str] = {}
    areas = {f"area-{a.get('number')}": a for a in level.map.level.get("areas") or ()}
    for k, key in enumerate(gm_keys):
        page_id = foundry_id(seed, depth, "page", key.anchor)
        area = areas.get(key.anchor)
        if area is not None:
            page_of[str(area.get("id"))] = page_id
        pages.append(
            {
                "_id": page_id,
                "name": key.heading,
                "type": "text",
                "title": {"show": True, "level": 1},
                "text": {
                    "format": PAGE_HTML,
                    "content": _page_html(key, player_keys.get(key.anchor), _),
                },
                "sort": (k + 1) * 100,
                "flags": {},
            }
        )
    journal = {
        "_id": journal_id,
        "name": title,
        "pages": pages,
        "ownership": {"default": 0},
        "flags": {"kerker": {"seed": seed, "depth": depth, "rules": doc.get("rules")}},
    }

    # Notes: every area number, the one-way doors, the ways to other levels.
    notes = []
    numbers = {str(a.get("id")): a.get("number") for a in level.map.level.get("areas") or ()}
    for area in level.map.level.get("areas") or ():
        lx, ly = (int(v) for v in area.get("label_at") or (area.get("cells") or [[0, 0]])[0])
        notes.append(
            _note(
                foundry_id(seed, depth, "note", area.get("id")),
                level,
                (lx + 0.5, ly + 0.5),
                used,
                str(area.get("number", "")),
                journal_id,
                page_of.get(str(area.get("id"))),
                NOTE_ICON,
            )
        )
    for span in level.doors:
        conn = level.map.connections[span.conn]
        if span.kind != "one_way_door":
            continue
        opener = conn.get("to") if conn.get("one_way") == "to_from" else conn.get("from")
        number = numbers.get(str(opener), "?")
        text = _("One-way door: opens only from {number}").format(number=number)
        x, y = span.position
        x0, y0, _x1, _y1 = level.map.bounds
        at = (x * CELLS_PER_SQUARE + x0, y * CELLS_PER_SQUARE + y0)
        notes.append(
            _note(
                foundry_id(seed, depth, "note", conn.get("id")),
                level,
                at,
                used,
                text,
                journal_id,
                page_of.get(str(conn.get("from"))),
                WAY_ICON,
            )
        )
    for conn in level.map.connections:
        if conn.get("kind") not in NOTE_KINDS:
            continue  # (an elevator's note too: notes of a GM-only journal are the GM's)
        notes.append(
            _note(
                foundry_id(seed, depth, "note", conn.get("id")),
                level,
                _way_point(conn),
                used,
                _way_text(conn, _),
                journal_id,
                page_of.get(str(conn.get("from"))),
                WAY_ICON,
            )
        )

    w, h = level.size
    src = f"{asset_dir.rstrip('/')}/{name}" if asset_dir else name
    scene: dict[str, Any] = {
        "_id": scene_id,
        "name": title,
        "navigation": True,
        "width": w * used,
        "height": h * used,
        "padding": 0,
        "backgroundColor": "#f6f1e7",
        "grid": {"type": GRID_SQUARE, "size": used, "distance": 10, "units": "ft"},
        "tokenVision": True,
        "environment": {"darknessLevel": 0, "globalLight": {"enabled": True}},
        "journal": journal_id,
        "walls": scene_walls(level, used, seed),
        "notes": notes,
        "flags": {
            "kerker": {
                "seed": seed,
                "depth": depth,
                "rules": doc.get("rules"),
                "image": name,
                "copy_image_to": src,
            }
        },
    }
    if layout == "v14":
        scene["levels"] = [
            {
                "_id": foundry_id(seed, depth, "level"),
                "name": title,
                "background": {"src": src},
                "sort": 0,
            }
        ]
    else:
        scene["background"] = {"src": src}
    return FoundryBundle(
        json.dumps(scene, ensure_ascii=False, indent=1) + "\n",
        json.dumps(journal, ensure_ascii=False, indent=1) + "\n",
        image,
        name,
        warnings,
    )


__all__ = ["ASSET_DIR", "LAYOUTS", "FoundryBundle", "export_foundry", "foundry_id", "scene_walls"]
