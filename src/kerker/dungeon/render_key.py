"""The room key of a dungeon level: Markdown, and a printable HTML page with the map.

A pure function of the dungeon document (``docs/dungeon-json.md``). Per area: its number,
kind or title, size (squares, feet, metres), contents with their rolled amounts, features,
exits and where they lead ("Tür nach Osten zu Gebiet 7", "Treppe hinab zu Ebene 2", "unerforscht"),
traps (game master only) and the roll log. ``view="player"`` keys only what the players can
know (:mod:`kerker.dungeon.player`): no secret door, no area reachable only through one, no
trap, no trapped or hidden treasure, no ``gm_only`` content. Every UI word goes through the
gettext catalogs; the texts inside the document (contents, features, titles) stay in the
document's language, except area titles, which follow ``lang`` when it differs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from kerker.dungeon.area_count import area_count_text
from kerker.dungeon.bend_text import bend_line, blocked_exit, whole_squares
from kerker.dungeon.engine import kind_title, player_kind
from kerker.dungeon.export import WANDERING_MONSTER, wandering
from kerker.dungeon.player import player_areas, player_level
from kerker.dungeon.render_svg import (
    Doc,
    _check_view,
    _level,
    doc_lang,
    is_unexplored,
    render_svg,
    title_text,
)
from kerker.errors import N_
from kerker.i18n import Translate, dice_text, plural_of, translator
from kerker.render.kit import md_text

_DIRECTION = {
    "n": N_("north"),
    "ne": N_("north-east"),
    "e": N_("east"),
    "se": N_("south-east"),
    "s": N_("south"),
    "sw": N_("south-west"),
    "w": N_("west"),
    "nw": N_("north-west"),
}
"""The compass word of an exit's wall; the exit lines' templates carry the preposition
("Door north to area 2", "Tür nach Norden zu Gebiet 2", "Porta a nord verso l’area 2")."""
_OPPOSITE = {"n": "s", "ne": "sw", "e": "w", "se": "nw", "s": "n", "sw": "ne", "w": "e", "nw": "se"}
_EXIT_KIND = {
    "door": N_("Door"),
    "secret_door": N_("Secret door"),
    "one_way_door": N_("One-way door"),
    "archway": N_("Archway"),
    "opening": N_("Opening"),
    "stairs": N_("Stairs"),
    "trapdoor": N_("Trapdoor"),
    "shaft": N_("Shaft"),
    "elevator": N_("Elevator"),
}
_LEVEL_WAYS = ("stairs", "trapdoor", "shaft", "elevator")
_VERTICAL = {
    ("stairs", "down"): N_("Stairs down to level {level}"),
    ("stairs", "up"): N_("Stairs up to level {level}"),
    ("trapdoor", "down"): N_("Trapdoor down to level {level}"),
    ("trapdoor", "up"): N_("Trapdoor up to level {level}"),
    ("shaft", "down"): N_("Shaft down to level {level}"),
    ("shaft", "up"): N_("Shaft up to level {level}"),
    ("elevator", "down"): N_("Elevator down to level {level} (the whole room goes down)"),
    ("elevator", "up"): N_("Elevator up to level {level}"),
}
_SURFACE = {
    "stairs": N_("Stairs up to the surface"),
    "trapdoor": N_("Trapdoor up to the surface"),
    "shaft": N_("Shaft up to the surface"),
    "elevator": N_("Elevator up to the surface"),
}
_CONTENT_KIND = {
    "monster": N_("Monster"),
    "treasure": N_("Treasure"),
    "trap": N_("Trap"),
    "trick": N_("Trick"),
    "water": N_("Water"),
    "stairs": N_("Stairs"),
    "note": N_("Note"),
    # what the players saw go off (play's player view)
    "sprung_trap": N_("Trap (sprung)"),
    "sprung_trick": N_("Trick (sprung)"),
}
_FEATURE_KIND = {
    "water": N_("water"),
    "pool": N_("pool"),
    "lake": N_("lake"),
    "well": N_("well"),
    "columns": N_("columns"),
    "gallery": N_("gallery above"),
    "river": N_("river"),
    "stream": N_("stream"),
    "chasm": N_("chasm"),
    "bridge": N_("bridge"),
    "boat": N_("boat"),
    "rubble": N_("rubble"),
    "stairs": N_("steps"),
}


@dataclass
class AreaKey:
    """One area's entry, as plain strings (the renderers only format it)."""

    anchor: str
    heading: str
    size: str
    contents: list[str] = field(default_factory=list)
    features: list[str] = field(default_factory=list)
    exits: list[tuple[str, int | None]] = field(default_factory=list)  # text, target number
    traps: list[str] = field(default_factory=list)
    rolls: list[str] = field(default_factory=list)
    corridor: bool = False
    bends: list[str] = field(default_factory=list)


def _size(area: Mapping[str, Any], _: Translate, lang: str) -> str:
    size = area.get("size") or {}
    squares = size.get("squares")
    if squares is None:
        squares = max(1, len(area.get("cells") or ()) // 4)
    # A round or slanted area covers part squares: "≈ 27 squares", never "26,75" or
    # "0,25 squares" (a key gives the size a GM can use at a glance; the bend clauses
    # round the same way).
    approx = False
    if isinstance(squares, int | float) and not isinstance(squares, bool):
        squares, approx = whole_squares(squares)
    n = _grouped(squares)
    count = _("1 square") if squares == 1 else _("{n} squares").format(n=n)
    if approx:
        count = "≈ " + count
    # The document writes feet as "ft"; the key says it in its language ("Fuß", "piedi").
    feet = str(size.get("feet") or "")
    if feet.endswith(" ft"):
        feet = feet[:-3] + " " + _("ft")
    parts = [count] + [p for p in (feet, str(size.get("metres") or "")) if p]
    return " · ".join(parts)


def _grouped(value: object) -> str:
    """Thousands with a thin space, the way the rule texts print amounts (1 300)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}".replace(",", "\u202f")
    return str(value)


def _content(content: Mapping[str, Any], gm: bool, _: Translate) -> str | None:
    kind = str(content.get("kind", "note"))
    if not gm and (content.get("gm_only") or kind == "trap"):
        return None
    label = _(_CONTENT_KIND[kind]) if kind in _CONTENT_KIND else kind
    text = str(content.get("summary") or content.get("text") or "")  # a trick: its summary
    rest = wandering(text, _) if kind == "monster" else None
    if rest is not None:
        # "Monster: Wandering: 3 goblins" read twice: one label, "Wandering monster".
        label, text = _(WANDERING_MONSTER), rest
    way = content.get("way")
    if kind == "stairs" and isinstance(way, str) and way in _EXIT_KIND:
        label = _(_EXIT_KIND[way])  # a trapdoor or shaft, not a stair
    extras: list[str] = []
    if content.get("container"):
        extras.append(_("container: {what}").format(what=content["container"]))
    if gm and content.get("trapped"):
        extras.append(_("trapped: {what}").format(what=content["trapped"]))
    if gm and content.get("hidden"):
        extras.append(_("hidden: {what}").format(what=content["hidden"]))
    if content.get("magic"):
        extras.append(_("magic: {what}").format(what=content["magic"]))
    if extras:
        # "800 EM · container: chests · hidden: ...", not "800 EM. · container: chests. · ..."
        text = text.rstrip(". ")
        extras = [extra.rstrip(". ") for extra in extras]
    line = f"{label}: {text}" if text else label
    return " · ".join([line, *extras])


def _exit(
    conn: Mapping[str, Any],
    here: str,
    level: Mapping[str, Any],
    numbers: Mapping[str, Any],
    _: Translate,
) -> tuple[str, int | None]:
    kind = str(conn.get("kind", "door"))
    outgoing = conn.get("from") == here
    side = str(conn.get("side") or "n")
    if not outgoing:
        side = _OPPOSITE.get(side, side)
    direction = _(_DIRECTION.get(side, _DIRECTION["n"]))
    name = _(_EXIT_KIND[kind]) if kind in _EXIT_KIND else kind
    if conn.get("blocked") and outgoing:
        return blocked_exit(conn, name, direction, _), None
    if (
        kind in _LEVEL_WAYS
        and outgoing
        and (conn.get("to_level") is not None or conn.get("direction"))
    ):
        up = conn.get("direction") == "up"
        target = conn.get("to_level")
        if up and target == 0:
            text = _(_SURFACE.get(kind, _SURFACE["stairs"]))
        else:
            text = _(_VERTICAL.get((kind, "up" if up else "down"), _VERTICAL[("stairs", "down")]))
            text = text.format(level="?" if target is None else target)
        if kind == "stairs":
            text = _("{what}, {compass} side").format(what=text, compass=direction)
        if conn.get("door_closes"):
            text += "; " + (
                _("a door bars the way up for a day")
                if up
                else _("once the party is down, a door shuts the way back for a day")
            )
        return text, None
    if conn.get("to_level") == 0 and conn.get("to") is None:
        # Not a stair: the door or opening the party comes in by (the map's star).
        return _("{kind} {compass}: the way in from the surface").format(
            kind=name, compass=direction
        ), None
    if outgoing and is_unexplored(conn, level):
        return _("{kind} {compass}: unexplored").format(kind=name, compass=direction), None
    other = conn.get("to") if outgoing else conn.get("from")
    number = numbers.get(str(other))
    if number is None:  # leads to no area of this level: nothing is known beyond it yet
        return _("{kind} {compass}: unexplored").format(kind=name, compass=direction), None
    text = _("{kind} {compass} to area {number}").format(
        kind=name, compass=direction, number=number
    )
    if kind == "one_way_door":
        passable_out = (conn.get("one_way") != "to_from") == outgoing
        text += " " + (
            _("(opens only from this side)")
            if passable_out
            else _("(opens only from the other side)")
        )
    return text, number if isinstance(number, int) else None


def _roll(entry: Mapping[str, Any], _: Translate, lang: str) -> str:
    label = entry.get("label")
    dice = dice_text(str(entry.get("dice", "")), lang)  # "W20" of a German table: "d20" in it
    if label:  # a transcript line: "Tiro A.1 (d20): 15 → Camera (tabelle A.5)."
        line = _("Roll {label} ({dice}): {roll}").format(
            label=label, dice=dice, roll=entry.get("roll", "")
        )
        text = entry.get("text")
        return f"{line} → {text}" if text else line
    table = str(entry.get("table", ""))
    table = table.split("/", 1)[1] if "/" in table else table
    explain = dice_text(str(entry.get("explain") or f"{dice} -> {entry.get('roll', '')}"), lang)
    row = entry.get("row")
    tail = " " + _("(row {row})").format(row=row) if row not in (None, "") else ""
    return f"{table}: {explain}{tail}"


def area_keys(
    doc: Doc, *, depth: int = 1, lang: str | None = None, view: str = "gm"
) -> list[AreaKey]:
    """The key of one level as plain entries, in area-number order (``lang``: default the
    document's language)."""
    _check_view(view)
    lang = doc_lang(doc, lang)
    _ = translator(lang)
    gm = view == "gm"
    level = _level(doc, depth)
    if not gm:
        level = player_level(level, player_areas(doc))
    areas = sorted(
        level.get("areas") or (), key=lambda a: (int(a.get("number", 0)), str(a.get("id")))
    )
    numbers = {str(a["id"]): a.get("number") for a in areas}
    conns = [c for c in level.get("connections") or () if gm or not c.get("gm_only")]
    same_lang = str(doc.get("lang", "")) == lang
    rules = str(doc.get("rules", ""))
    out: list[AreaKey] = []
    for area in areas:
        here = str(area["id"])
        kind = str(area.get("kind", "room"))
        if not gm:
            kind = player_kind(rules, kind)  # a trick room: the players see a room
        title = str(area.get("title") or "") if same_lang and kind == area.get("kind") else ""
        if not title:
            found = kind_title(rules, kind)
            title = _(found) if found else kind
        key = AreaKey(
            anchor=f"area-{area.get('number')}",
            heading=f"{area.get('number')}. {title}",
            size=_size(area, _, lang),
            corridor=kind == "corridor",
        )
        if level.get("entrance") == here and kind != "entrance":
            key.heading += " · " + _("entrance")
        for content in area.get("contents") or ():
            if content.get("kind") == "trap":
                if gm:
                    # What the trap is and does (its summary: the rule when it is sprung,
                    # what the dungeon fixed); what was rolled for it is in the rolls.
                    key.traps.append(
                        str(content.get("summary") or content.get("text") or _("Trap"))
                    )
                continue
            line = _content(content, gm, _)
            if line is not None:
                key.contents.append(line)
        # A feature whose text a water content says already (the pool of "Water: a pool
        # with a monster") is named only; features of one roll (a river and its bridge)
        # are one line with both names.
        said = {str(c.get("text") or "") for c in area.get("contents") or ()}
        named: dict[str, list[str]] = {}
        for feature in area.get("features") or ():
            fkind = str(feature.get("kind", ""))
            name = _(_FEATURE_KIND[fkind]) if fkind in _FEATURE_KIND else fkind
            text = str(feature.get("text") or "")
            text = "" if text in said or not fkind else text
            names = named.setdefault(text, [])
            if name and name not in names:
                names.append(name)
        for text, names in named.items():
            both = ", ".join(names)
            key.features.append(f"{text} ({both})" if text and both else text or both)
        seen: dict[tuple[str, int | None], int] = {}
        for conn in conns:
            if conn.get("from") == here or conn.get("to") == here:
                way = _exit(conn, here, level, numbers, _)
                seen[way] = seen.get(way, 0) + 1
        # One line per way; the same way twice (two doors from here to 7 on one wall) is
        # one line with its count, not a repeated line.
        key.exits = [
            (text if n == 1 else f"{text} ({n}×)", number) for (text, number), n in seen.items()
        ]
        if gm:
            key.rolls = [_roll(entry, _, lang) for entry in area.get("rolls") or ()]
            # the amounts behind the values in the body ("1d4+1 -> 4 mostri"), with the rolls
            for item in [*(area.get("features") or ()), *(area.get("contents") or ())]:
                key.rolls += [
                    _("Roll {amount}").format(amount=dice_text(str(a), lang).replace(" -> ", " → "))
                    for a in item.get("amounts") or ()
                ]
            key.bends = [bend_line(b, _, lang) for b in area.get("bends") or ()]
        out.append(key)
    return out


def _header(doc: Doc, depth: int, lang: str, view: str) -> tuple[str, list[str]]:
    _ = translator(lang)
    level = _level(doc, depth)
    if view != "gm":
        level = player_level(level, player_areas(doc))
    title = title_text(doc, depth, lang)
    lines = [_("game master's map") if view == "gm" else _("players' map")]
    w, h = int(level.get("width", 0)), int(level.get("height", 0))
    lines.append(
        _("{w} × {h} squares ({fw} × {fh} ft)").format(w=w // 2, h=h // 2, fw=w * 5, fh=h * 5)
    )
    areas = level.get("areas") or ()
    lines.append(area_count_text(areas, _))
    open_exits = sum(
        1
        for c in level.get("connections") or ()
        if is_unexplored(c, level) and (view == "gm" or not c.get("gm_only"))
    )
    if open_exits:
        ngettext = plural_of(_)
        lines.append(
            ngettext("{n} unexplored exit", "{n} unexplored exits", open_exits).format(n=open_exits)
        )
    return title, lines


def _levels(doc: Doc, depth: int | None) -> list[int]:
    if depth is not None:
        return [depth]
    return [int(level.get("depth", 1)) for level in doc.get("levels") or ()] or [1]


def render_md(
    doc: Doc, *, lang: str | None = None, view: str = "gm", depth: int | None = None
) -> str:
    """The room key as Markdown: every level (or only ``depth``), area by area, in
    ``lang`` (default: the document's language)."""
    lang = doc_lang(doc, lang)
    _ = translator(lang)
    out: list[str] = []
    for d in _levels(doc, depth):
        title, lines = _header(doc, d, lang, view)
        out += [f"# {md_text(title, lead=False)}", "", md_text(" · ".join(lines)), ""]
        keys = area_keys(doc, depth=d, lang=lang, view=view)
        # For the table: rooms, halls and caves first, with what is in them; then the
        # corridors, each on one line with its exits; the rolls in an appendix.
        for key in (k for k in keys if not k.corridor):
            size_label = _("Size")
            out += [
                f"## {md_text(key.heading, lead=False)}",
                "",
                f"*{md_text(size_label)}:* {md_text(key.size, lead=False)}",
                "",
            ]
            out += _md_list(_("Contents"), key.contents or [_("empty")])
            out += _md_list(_("Features"), key.features)
            out += _md_list(_("Exits"), [text for text, _n in key.exits] or [_("none")])
            out += _md_list(_("Traps"), key.traps)
            out += _md_list(_("Adjusted rolls"), key.bends)
        corridors = [k for k in keys if k.corridor]
        if corridors:
            out += [f"## {md_text(_('Corridors'), lead=False)}", ""]
            for key in corridors:
                parts = [key.size, *key.contents, *key.features, *key.traps, *key.bends]
                exits = "; ".join(text for text, _n in key.exits) or _("none")
                parts.append(_("Exits") + ": " + exits)
                out.append(f"- **{md_text(key.heading, lead=False)}** · " + _md(" · ".join(parts)))
            out.append("")
        rolled = [k for k in keys if k.rolls]
        if rolled:
            out += [f"## {md_text(_('Rolls'), lead=False)}", ""]
            for key in rolled:
                out.append(f"- **{md_text(key.heading, lead=False)}**")
                out += [f"    - {_md(line)}" for line in key.rolls]
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _md(text: str) -> str:
    """User or document text inside a list item (escaped, one line)."""
    return md_text(text, lead=False)


def _md_list(label: str, items: Sequence[str]) -> list[str]:
    if not items:
        return []
    return [f"**{md_text(label)}:**", *[f"- {_md(item)}" for item in items], ""]


_CSS = """
body{font-family:'Source Sans Pro','Source Sans 3',sans-serif;color:#1d1b18;margin:2rem auto;
max-width:60rem;padding:0 1rem;line-height:1.35}
h1{font-family:'Source Serif Pro',serif;font-size:1.7rem;margin:0 0 .2rem}
.meta{color:#6b6459;margin:0 0 1rem}
.map svg{width:100%;height:auto;display:block}
.map{margin:0 0 1.5rem;break-after:page}
.key{columns:2 22rem;column-gap:2rem}
section.area{break-inside:avoid;margin:0 0 1rem;padding-top:.2rem;border-top:1px solid #d8d0c0}
h2{font-family:'Source Serif Pro',serif;font-size:1.15rem;margin:.2rem 0}
.size{color:#6b6459;font-size:.9rem;margin:0 0 .3rem}
dl{margin:0}dt{font-weight:600;font-size:.9rem;margin-top:.25rem}
dd{margin:0 0 0 1rem}ul{margin:.1rem 0;padding-left:1.1rem}
.traps dt,.traps li{color:#b0301f}
details{font-size:.8rem;color:#6b6459;margin-top:.3rem}summary{cursor:pointer}
details ul{font-family:'Source Code Pro',monospace;list-style:none;padding-left:.5rem}
a{color:inherit}
.corridors{margin:0 0 1rem;padding-top:.2rem;border-top:1px solid #d8d0c0}
.corridors ul{list-style:none;padding-left:0}.corridors li{margin:.15rem 0}
.corridors b{font-family:'Source Serif Pro',serif}
@media print{@page{margin:12mm}
body{margin:0;max-width:none;font-size:9.5pt;line-height:1.25}
h1{break-before:page;font-size:14pt}h1:first-of-type{break-before:auto}
.map{break-after:page;break-inside:avoid;margin:0}
.map svg{max-height:235mm;width:auto;max-width:100%;margin:0 auto}
.key{columns:2;column-gap:8mm}
section.area,.corridors li{break-inside:avoid}
details{display:none}.key details[open]{display:block}a{text-decoration:none}}
"""


def render_html(
    doc: Doc,
    *,
    lang: str | None = None,
    view: str = "gm",
    depth: int | None = None,
    maps: Mapping[int, str] | None = None,
    with_maps: bool = True,
) -> str:
    """A self-contained printable page: per level its map (inline SVG), then its key.
    ``maps`` may hold the levels' SVGs of this view and language already drawn (by depth);
    the others are drawn here; ``with_maps=False`` leaves the maps out (a page that shows
    its map elsewhere). ``lang``: default the document's language."""
    lang = doc_lang(doc, lang)
    _ = translator(lang)
    body: list[str] = []
    first_title = ""
    for d in _levels(doc, depth):
        title, lines = _header(doc, d, lang, view)
        first_title = first_title or title
        body.append(f'<h1 id="level-{d}">{escape(title)}</h1>')
        body.append(f'<p class="meta">{escape(" · ".join(lines))}</p>')
        if with_maps:
            svg = (maps or {}).get(d) or render_svg(doc, depth=d, view=view, lang=lang)
            body.append(f'<div class="map">{svg}</div>')
        body.append('<div class="key">')
        keys = area_keys(doc, depth=d, lang=lang, view=view)
        # Rooms, halls and caves first; the corridors after them, one line each.
        for key in keys:
            if not key.corridor:
                body.append(_html_area(key, _))
        corridors = [key for key in keys if key.corridor]
        if corridors:
            items = []
            for key in corridors:
                parts = [escape(p) for p in (key.size, *key.contents, *key.features, *key.traps)]
                exits = "; ".join(_linked(t, n) for t, n in key.exits) or escape(_("none"))
                parts.append(f"{escape(_('Exits'))}: {exits}")
                rolls = ""
                if key.rolls:  # folded, as in a room's entry
                    lis = "".join(f"<li>{escape(r)}</li>" for r in key.rolls)
                    rolls = (
                        f"<details><summary>{escape(_('Rolls'))} ({len(key.rolls)})"
                        f"</summary><ul>{lis}</ul></details>"
                    )
                items.append(
                    f'<li id="{key.anchor}"><b>{escape(key.heading)}</b> · '
                    + " · ".join(parts)
                    + rolls
                    + "</li>"
                )
            body.append(
                f'<section class="corridors"><h2>{escape(_("Corridors"))}</h2>'
                f"<ul>{''.join(items)}</ul></section>"
            )
        body.append("</div>")
    html_lang = escape(lang)
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{html_lang}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape(first_title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _linked(text: str, number: int | None) -> str:
    """An exit's text (escaped) with its target number as a link to that area."""
    label = escape(text)
    at = label.rfind(str(number)) if number is not None else -1
    if at < 0:
        return label
    end = at + len(str(number))
    return f'{label[:at]}<a href="#area-{number}">{number}</a>{label[end:]}'


def _html_area(key: AreaKey, _: Translate) -> str:
    parts = [
        f'<section class="area" id="{key.anchor}">',
        f"<h2>{escape(key.heading)}</h2>",
        f'<p class="size">{escape(_("Size"))}: {escape(key.size)}</p>',
        "<dl>",
    ]

    def block(label: str, items: Sequence[str], cls: str = "") -> None:
        if not items:
            return
        klass = f' class="{cls}"' if cls else ""
        lis = "".join(f"<li>{item}</li>" for item in items)
        parts.append(f"<div{klass}><dt>{escape(label)}</dt><dd><ul>{lis}</ul></dd></div>")

    block(
        _("Contents"),
        [escape(c) for c in key.contents] or ([] if key.corridor else [escape(_("empty"))]),
    )
    block(_("Features"), [escape(f) for f in key.features])
    exits = [_linked(text, number) for text, number in key.exits]
    block(_("Exits"), exits or [escape(_("none"))])
    block(_("Traps"), [escape(t) for t in key.traps], "traps")
    block(_("Adjusted rolls"), [escape(b) for b in key.bends])
    parts.append("</dl>")
    if key.rolls:
        lis = "".join(f"<li>{escape(r)}</li>" for r in key.rolls)
        parts.append(
            f"<details><summary>{escape(_('Rolls'))} ({len(key.rolls)})</summary>"
            f"<ul>{lis}</ul></details>"
        )
    parts.append("</section>")
    return "\n".join(parts)


def compact_key(
    doc: Doc, *, depth: int = 1, lang: str | None = None, view: str = "gm"
) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """The key for the table: rooms, halls, chambers and caves (every area but corridors)
    with what is in them, their features, exits on one line and (game master) traps, as
    ``(heading, lines)``; then the corridors folded into one compact list of where each
    leads. Final values only (no rolls)."""
    lang = doc_lang(doc, lang)
    _ = translator(lang)
    rooms: list[tuple[str, list[str]]] = []
    corridors: list[str] = []
    for key in area_keys(doc, depth=depth, lang=lang, view=view):
        if key.corridor:
            number = key.heading.split(".", 1)[0]
            ways = sorted({n for _t, n in key.exits if n is not None})
            open_ways = sum(1 for _t, n in key.exits if n is None)
            where = ", ".join(str(n) for n in ways)
            if open_ways:
                where = ", ".join(x for x in (where, _("{n} more").format(n=open_ways)) if x)
            corridors.append(f"{number} → {where}" if where else number)
            continue
        lines = [*key.contents]
        if key.features:
            lines.append(" · ".join(key.features))
        if key.exits:
            lines.append(_("Exits") + ": " + "; ".join(t for t, _n in key.exits))
        lines += [_("Trap") + ": " + t for t in key.traps]
        rooms.append((f"{key.heading} · {key.size.split(' · ')[0]}", lines or [_("empty")]))
    tail = [_("Corridors") + ": " + "; ".join(corridors)] if corridors else []
    return rooms, tail


def render_pdf(
    doc: Doc,
    *,
    paper: str = "a4",
    lang: str | None = None,
    view: str = "gm",
    maps: Mapping[int, str] | None = None,
) -> bytes:
    """One landscape page per level (``paper`` ``a4`` or ``letter``): the map in the
    ink-saving print style and the compact key beside it (:func:`compact_key`), fonts
    embedded, the map as vector graphics. ``maps``: the levels' print-style SVGs when drawn
    already. Refuses what :func:`kerker.render.pdf.sheet_pdf` refuses."""
    from kerker.render.pdf import Section, Sheet, sheet_pdf

    lang = doc_lang(doc, lang)
    _ = translator(lang)
    sheets = []
    for d in _levels(doc, None):
        title, lines = _header(doc, d, lang, view)
        rooms, tail = compact_key(doc, depth=d, lang=lang, view=view)
        svg = (maps or {}).get(d) or render_svg(doc, depth=d, view=view, lang=lang, style="print")
        sheets.append(
            Sheet(
                title=title,
                subtitle=" · ".join(lines),
                svg=svg,
                sections=[Section(h, ls) for h, ls in rooms],
                tail=tail,
                lang=lang,
                more=_("{n} more entries: see the full key."),
            )
        )
    return sheet_pdf(sheets, paper=paper)


def pdf_files(
    doc: Doc, stem: Path, lang: str | None = None, *, needed: bool = True, paper: str = "a4"
) -> list[tuple[Path, str | bytes]]:
    """The game master's one-page-per-level sheet on ``paper`` (a4 or letter; ``STEM.pdf``),
    for ``--out``. Without the typst package: refused when ``needed``, else no file (the
    other outputs do not depend on it)."""
    from kerker.render.pdf import TypstMissing

    try:
        return [(stem.with_suffix(".pdf"), render_pdf(doc, paper=paper, lang=lang))]
    except TypstMissing:
        if needed:
            raise
        return []


__all__ = [
    "AreaKey",
    "area_keys",
    "compact_key",
    "pdf_files",
    "render_html",
    "render_md",
    "render_pdf",
]
