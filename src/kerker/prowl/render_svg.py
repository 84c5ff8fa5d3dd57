"""A prowl's plan as SVG: rooms as boxes by depth, doors with their strength.

The accesses come in from the left ("outside"); each column holds the rooms of one depth,
so HiSec rooms stand to the right of the LoSec ones. A room box is coloured by its security
and shows its id, its challenges (a dot for a creature, a diamond for a trap, with the
level) and its loot. Every door sits on its connection as a small box with the strength;
a red triangle marks a trap; an open passage (next to a NoSec room) is dashed and has no
door. Patrol routes are drawn as a purple band under the connections they walk. A legend
explains every mark; the title carries the seed.

Pure function of the prowl and the language: the same prowl gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kerker.i18n import translator
from kerker.numfmt import money
from kerker.prowl.model import (
    OUTSIDE,
    PATROL,
    SECURITY_SHORT,
    Challenge,
    Connection,
    DoorTrap,
    Prowl,
)
from kerker.render import metrics
from kerker.render.kit import num1 as _n
from kerker.render.kit import xml_text
from kerker.render.png import SVG_FONT_SANS
from kerker.render.svgkit import (
    Palette,
    background,
    bold_heading,
    sans_text,
    svg_head,
    title_block,
)
from kerker.tables.render import number

BOX_W = 156
HEADER_H = 22
LINE_H = 16
COL_GAP = 92
ROW_GAP = 26
MARGIN = 28
OUTSIDE_W = 96
TITLE_H = 84
MIN_WIDTH = 640
PORT_PITCH = 34
STAGGER = 24


@dataclass(frozen=True, slots=True, kw_only=True)
class ProwlPalette(Palette):
    """The prowl plan's colours: the shared ones, the connections' ``line``, the marks'
    colours, and a room's fill and stroke by security (NoSec .. HiSec)."""

    line: str
    patrol: str
    door_trap: str
    creature: str
    trap: str
    loot: str
    fills: tuple[str, str, str, str]
    strokes: tuple[str, str, str, str]


PAL = ProwlPalette(
    ink="#1f2630",
    muted="#5d6673",
    line="#3b4350",
    patrol="#8e44ad",
    door_trap="#c0392b",
    creature="#7b2d26",
    trap="#1f5f8b",
    loot="#b7870b",
    fills=("#e6e6e6", "#d4ebcf", "#fbe2a6", "#f3b7af"),
    strokes=("#8c8c8c", "#4f8a45", "#b8860b", "#b03a2e"),
)


def _escape(text: object) -> str:
    """``text`` for an XML text node (:func:`kerker.render.kit.xml_text`: control
    characters visible, markup escaped)."""
    return xml_text(str(text))


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    """The width of ``text`` in Source Sans Pro at ``size`` px, from the font's real
    advance widths (:mod:`kerker.render.metrics`, shared by every map)."""
    return metrics.text_width(text, size, bold=bold)


@dataclass
class _Box:
    room: str
    x: float
    y: float
    h: float

    @property
    def cy(self) -> float:
        return self.y + self.h / 2


def _dfs_order(p: Prowl) -> dict[str, int]:
    """Rooms in depth-first order through the whole complex, from the access rooms."""
    order: dict[str, int] = {}
    stack = [r.id for r in reversed(p.rooms) if r.accesses > 0]
    while stack:
        room = stack.pop()
        if room in order:
            continue
        order[room] = len(order)
        for nxt in reversed([n for n in p.neighbours(room) if n not in order]):
            stack.append(nxt)
    for r in p.rooms:  # rooms no access reaches (not made by kerker, but be safe)
        order.setdefault(r.id, len(order))
    return order


def _slots(p: Prowl) -> dict[str, float]:
    """Vertical slots of a tidy layered drawing: every room hangs from one neighbour a
    column to its left (the first in depth-first order); leaves take one slot each, in
    that order, and a room stands level with the middle of its children. Subtrees take
    disjoint ranges of slots, so no two boxes of a column overlap, and a chain of rooms
    stays on one line. A subtree linked to a later access room's subtree goes last among
    its siblings, one linked to an earlier one first, so those links stay short."""
    order = _dfs_order(p)
    depth = {r.id: max(1, r.depth) for r in p.rooms}
    children: dict[str, list[str]] = {r.id: [] for r in p.rooms}
    parent_of: dict[str, str] = {}
    roots: list[str] = []
    for r in p.rooms:
        parents = [n for n in p.neighbours(r.id) if depth[n] == depth[r.id] - 1]
        if parents:
            parent = min(parents, key=lambda n: order[n])
            children[parent].append(r.id)
            parent_of[r.id] = parent
        else:
            roots.append(r.id)
    roots.sort(key=lambda n: order[n])
    rank = {root: i for i, root in enumerate(roots)}

    def root_of(room: str) -> str:
        while room in parent_of:
            room = parent_of[room]
        return room

    pull = {r.id: 0 for r in p.rooms}
    for conn in p.connections:
        a, b = conn.between
        if a not in pull or parent_of.get(a) == b or parent_of.get(b) == a:
            continue
        ra, rb = rank[root_of(a)], rank[root_of(b)]
        if ra != rb:
            pull[a] += 1 if ra < rb else -1
            pull[b] += 1 if rb < ra else -1
    total: dict[str, int] = {}

    def gather(room: str) -> int:
        total[room] = pull[room] + sum(gather(kid) for kid in children[room])
        return total[room]

    for root in roots:
        gather(root)
    slot: dict[str, float] = {}
    counter = 0.0

    def place(room: str) -> None:
        nonlocal counter
        kids = sorted(children[room], key=lambda n: ((total[n] > 0) - (total[n] < 0), order[n]))
        if not kids:
            slot[room] = counter
            counter += 1
            return
        for kid in kids:
            place(kid)
        slot[room] = (slot[kids[0]] + slot[kids[-1]]) / 2

    for root in roots:
        place(root)
    return slot


def _columns(p: Prowl, slot: dict[str, float]) -> dict[int, list[str]]:
    """Rooms per depth, top to bottom."""
    cols: dict[int, list[str]] = {}
    for r in sorted(p.rooms, key=lambda r: (slot[r.id], r.id)):
        cols.setdefault(max(1, r.depth), []).append(r.id)
    return dict(sorted(cols.items()))


def _challenge_label(c: Challenge) -> str:
    return f"{c.id} {c.level}"


def _item_width(c: Challenge) -> float:
    """Width of one challenge entry in a room box: mark, id, level and a gap."""
    return 16 + text_width(_challenge_label(c), 12) + 8


def _room_lines(p: Prowl, room: str) -> list[list[Challenge]]:
    """The challenges of a room, broken into lines that fit the box."""
    lines: list[list[Challenge]] = []
    width = 0.0
    for c in p.challenges_in(room):
        w = _item_width(c)
        if not lines or width + w > BOX_W - 14:
            lines.append([])
            width = 0.0
        lines[-1].append(c)
        width += w
    return lines


def _door_mark(x: float, y: float, conn: Connection) -> list[str]:
    out: list[str] = []
    if conn.strength is None:
        return out
    label = str(conn.strength)
    w = max(18.0, text_width(label, 12, bold=True) + 8)
    out.append(
        f'<rect x="{_n(x - w / 2)}" y="{_n(y - 9)}" width="{_n(w)}" height="18" rx="2" '
        f'fill="#ffffff" stroke="{PAL.ink}" stroke-width="1.6"/>'
    )
    out.append(
        f'<text x="{_n(x)}" y="{_n(y + 4.5)}" text-anchor="middle" '
        f'font-family="{SVG_FONT_SANS}" font-size="12" font-weight="bold" '
        f'fill="{PAL.ink}">{_escape(label)}</text>'
    )
    if conn.trap is not None:
        tx, ty = x + w / 2 + 1, y - 9
        out.append(
            f'<path d="M {_n(tx)} {_n(ty - 11)} L {_n(tx + 7)} {_n(ty + 2)} '
            f'L {_n(tx - 7)} {_n(ty + 2)} Z" fill="{PAL.door_trap}" stroke="#ffffff" '
            'stroke-width="1"/>'
        )
        out.append(
            f'<text x="{_n(tx)}" y="{_n(ty + 0.5)}" text-anchor="middle" '
            f'font-family="{SVG_FONT_SANS}" font-size="9" font-weight="bold" '
            'fill="#ffffff">!</text>'
        )
    return out


def _id_tag(x: float, y: float, text: str, anchor: str = "middle") -> str:
    return (
        f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}" font-family="{SVG_FONT_SANS}" '
        f'font-size="10" fill="{PAL.muted}">{_escape(text)}</text>'
    )


def _creature(x: float, y: float, colour: str) -> str:
    return f'<circle cx="{_n(x)}" cy="{_n(y)}" r="4" fill="{colour}"/>'


def _trap(x: float, y: float, colour: str) -> str:
    return (
        f'<path d="M {_n(x)} {_n(y - 4.5)} L {_n(x + 4.5)} {_n(y)} L {_n(x)} {_n(y + 4.5)} '
        f'L {_n(x - 4.5)} {_n(y)} Z" fill="{colour}"/>'
    )


def _coin(x: float, y: float) -> str:
    return (
        f'<circle cx="{_n(x)}" cy="{_n(y)}" r="5" fill="{PAL.loot}" stroke="#7a5a00" '
        'stroke-width="1"/>'
    )


@dataclass
class _Plan:
    """Where everything of a plan goes: room boxes by column, each connection's path and
    door spot (``upright``: on a vertical line), the columns' x and the drawing's size."""

    boxes: dict[str, _Box]
    cols: dict[int, list[str]]
    col_x: dict[int, float]
    depth_of: dict[str, int]
    paths: dict[str, str]
    doors_at: dict[str, tuple[float, float]]
    upright: set[str]
    content_w: float
    content_h: float


def layout_plan(p: Prowl) -> _Plan:
    """The plan's geometry (no drawing, no language): boxes by depth, ports, lanes,
    detours, paths and door spots; the same prowl gives the same layout."""
    slot = _slots(p)
    cols = _columns(p, slot)
    lines_needed = max([len(_room_lines(p, r.id)) for r in p.rooms] + [1])
    depth_first = {r.id: max(1, r.depth) for r in p.rooms}
    arriving = max(
        r.accesses + sum(1 for n in p.neighbours(r.id) if depth_first[n] == depth_first[r.id] - 1)
        for r in p.rooms
    )
    box_h = max(HEADER_H + LINE_H * (lines_needed + 1) + 6, PORT_PITCH * (arriving + 1))
    ys = {room: value * (box_h + ROW_GAP) for room, value in slot.items()}
    depth_of = {room: d for d, rooms in cols.items() for room in rooms}
    x0 = MARGIN + OUTSIDE_W
    boxes: dict[str, _Box] = {}
    for d, ids in cols.items():
        for rid in ids:
            boxes[rid] = _Box(rid, x0 + (d - 1) * (BOX_W + COL_GAP), TITLE_H + 24 + ys[rid], box_h)
    content_h = max(b.y + b.h for b in boxes.values())

    # Connections: geometry first (ports, paths, door positions). Two rooms of one column
    # with boxes between them are joined round the right of the column (a detour).
    ends: list[tuple[str, str, str]] = []
    detours: dict[str, tuple[str, str]] = {}
    for conn in p.connections:
        a, b = conn.between
        if a == OUTSIDE:
            ends.append((b, "left", conn.id))
            continue
        if depth_of[a] > depth_of[b]:
            a, b = b, a
        if depth_of[a] == depth_of[b]:
            top_id, low_id = sorted((a, b), key=lambda r: boxes[r].y)
            if any(boxes[top_id].y < boxes[r].y < boxes[low_id].y for r in cols[depth_of[a]]):
                detours[conn.id] = (top_id, low_id)
            else:
                ends += [(top_id, "bottom", conn.id), (low_id, "top", conn.id)]
        else:
            ends += [(a, "right", conn.id), (b, "left", conn.id)]
    # Ports: a box's connections to deeper rooms leave its right side together (one bus);
    # the connections arriving on a left side are spread evenly, ordered by the far end.
    ports: dict[tuple[str, str], float] = {}
    stagger: dict[str, float] = {}
    far: dict[tuple[str, str], float] = {}
    for i, conn in enumerate(p.connections):
        a, b = conn.between
        if a == OUTSIDE:
            far[(b, conn.id)] = boxes[b].cy - 1000 + i
        else:
            far[(a, conn.id)] = boxes[b].cy
            far[(b, conn.id)] = boxes[a].cy
    regrouped: dict[tuple[str, str], list[str]] = {}
    for rid, side, key in ends:
        regrouped.setdefault((rid, side), []).append(key)
    for (rid, side), keys in regrouped.items():
        keys.sort(key=lambda k: far[(rid, k)])
        box = boxes[rid]
        for i, key in enumerate(keys):
            if side == "right":
                ports[(rid, key)] = box.cy
            else:
                ports[(rid, key)] = box.y + box.h * (i + 1) / (len(keys) + 1)
                # Doors of neighbouring ports stand staggered, so an id below one door
                # never meets the next door (or its trap mark).
                stagger[key] = STAGGER * (i % 2) if side == "left" else 0.0

    # Lanes: each bus runs down its own vertical lane in the gap between two columns.
    spans: dict[int, list[tuple[float, float, str]]] = {}
    for (rid, side), keys in regrouped.items():
        if side != "right":
            continue
        tops = [ports[(rid, k)] for k in keys]
        for key in keys:
            conn = next(c for c in p.connections if c.id == key)
            other = conn.other(rid)
            tops.append(ports[(other, key)])
        spans.setdefault(depth_of[rid], []).append((min(tops), max(tops), rid))
    lane_of: dict[str, int] = {}
    lanes_in: dict[int, int] = {}
    for d, items in spans.items():
        ends_at: list[float] = []
        for top, bottom, rid in sorted(items):
            for lane, end in enumerate(ends_at):
                if end + 8 < top:
                    ends_at[lane] = bottom
                    lane_of[rid] = lane
                    break
            else:
                lane_of[rid] = len(ends_at)
                ends_at.append(bottom)
        lanes_in[d] = len(ends_at)
    # Detours take the outer lanes of their gap, after the buses.
    outer: dict[int, list[float]] = {}
    for key, (top_id, low_id) in sorted(detours.items(), key=lambda kv: boxes[kv[1][0]].y):
        d = depth_of[top_id]
        top = boxes[top_id].y + boxes[top_id].h - 10
        bottom = boxes[low_id].y + 10
        taken = outer.setdefault(d, [])
        for lane, end in enumerate(taken):
            if end + 8 < top:
                taken[lane] = bottom
                lane_of[key] = lanes_in.get(d, 0) + lane
                break
        else:
            lane_of[key] = lanes_in.get(d, 0) + len(taken)
            taken.append(bottom)
    for d, taken in outer.items():
        lanes_in[d] = lanes_in.get(d, 0) + len(taken)
    # Columns: a gap grows with its detours (their doors and ids sit on the lanes).
    col_x: dict[int, float] = {}
    x = float(x0)
    for d in sorted(cols):
        col_x[d] = x
        x += BOX_W + COL_GAP + 34 * len(outer.get(d, []))
    for rid, box in boxes.items():
        box.x = col_x[depth_of[rid]]
    content_w = (
        max(b.x + BOX_W for b in boxes.values()) + MARGIN + 40 * bool(outer.get(max(cols), []))
    )

    paths: dict[str, str] = {}
    doors_at: dict[str, tuple[float, float]] = {}
    upright: set[str] = set()
    for conn in p.connections:
        a, b = conn.between
        if a == OUTSIDE:
            by = ports[(b, conn.id)]
            bx = boxes[b].x
            paths[conn.id] = f"M {_n(MARGIN + 8)} {_n(by)} H {_n(bx)}"
            doors_at[conn.id] = (bx - 30 - stagger.get(conn.id, 0.0), by)
            continue
        if depth_of[a] > depth_of[b]:
            a, b = b, a
        ba, bb = boxes[a], boxes[b]
        if depth_of[a] == depth_of[b]:
            upper, lower = (ba, bb) if ba.y <= bb.y else (bb, ba)
            if conn.id in detours:
                count = max(1, lanes_in.get(depth_of[a], 1))
                x = upper.x + BOX_W + 14 + min(12.0, 40.0 / count) * lane_of[conn.id]
                y_top, y_low = upper.y + upper.h - 10, lower.y + 10
                paths[conn.id] = (
                    f"M {_n(upper.x + BOX_W)} {_n(y_top)} H {_n(x)} "
                    f"V {_n(y_low)} H {_n(upper.x + BOX_W)}"
                )
                doors_at[conn.id] = (x, (y_top + y_low) / 2)
            else:
                x = upper.x + BOX_W / 2
                paths[conn.id] = f"M {_n(x)} {_n(upper.y + upper.h)} V {_n(lower.y)}"
                doors_at[conn.id] = (x, (upper.y + upper.h + lower.y) / 2)
            upright.add(conn.id)
            continue
        y1, y2 = ports[(a, conn.id)], ports[(b, conn.id)]
        x1, x2 = ba.x + BOX_W, bb.x
        count = max(1, lanes_in.get(depth_of[a], 1))
        spacing = min(12.0, 40.0 / count)
        lane_x = x1 + 14 + spacing * lane_of.get(a, 0)
        door_x = (x1 + 14 + spacing * (count - 1) + x2) / 2 + 4
        if outer.get(depth_of[a]):
            door_x = x2 - 30
        if abs(y1 - y2) < 0.5:
            paths[conn.id] = f"M {_n(x1)} {_n(y1)} H {_n(x2)}"
        else:
            paths[conn.id] = f"M {_n(x1)} {_n(y1)} H {_n(lane_x)} V {_n(y2)} H {_n(x2)}"
        doors_at[conn.id] = (door_x - stagger.get(conn.id, 0.0), y2)

    return _Plan(
        boxes=boxes,
        cols=cols,
        col_x=col_x,
        depth_of=depth_of,
        paths=paths,
        doors_at=doors_at,
        upright=upright,
        content_w=content_w,
        content_h=content_h,
    )


def _draw_connections(p: Prowl, plan: _Plan) -> list[str]:
    """Every connection's line (a white halo under each bus, so crossings show), the
    arrows in from outside and the patrol bands."""
    boxes, depth_of = plan.boxes, plan.depth_of
    paths, doors_at = plan.paths, plan.doors_at
    body: list[str] = []
    # Connections, bus by bus: a white halo first, so where a line crosses another bus
    # the one below shows a gap (a crossing, not a junction).
    groups: dict[str, list[Connection]] = {}
    for conn in p.connections:
        a, b = conn.between
        if a == OUTSIDE or depth_of[a] == depth_of[b]:
            key = conn.id
        else:
            key = a if depth_of[a] < depth_of[b] else b
        groups.setdefault(key, []).append(conn)
    for members in groups.values():
        for conn in members:
            body.append(
                f'<path d="{paths[conn.id]}" fill="none" stroke="#ffffff" stroke-width="7"/>'
            )
        for conn in members:
            dash = "" if conn.door else ' stroke-dasharray="6 4"'
            body.append(
                f'<path d="{paths[conn.id]}" fill="none" stroke="{PAL.line}" '
                f'stroke-width="2"{dash}/>'
            )
            if conn.between[0] == OUTSIDE:
                _bx, by = doors_at[conn.id]
                tip = boxes[conn.between[1]].x
                body.append(
                    f'<path d="M {_n(tip - 9)} {_n(by - 5)} L {_n(tip - 1)} {_n(by)} '
                    f'L {_n(tip - 9)} {_n(by + 5)} Z" fill="{PAL.line}"/>'
                )
    # Patrol bands over the lines they walk (translucent).
    walked: set[str] = set()
    for c in p.challenges:
        if c.mode != PATROL:
            continue
        for here, there in zip(c.route, c.route[1:], strict=False):
            for conn in p.connections:
                if set(conn.between) == {here, there}:
                    walked.add(conn.id)
    for conn in p.connections:
        if conn.id in walked:
            body.append(
                f'<path d="{paths[conn.id]}" fill="none" stroke="{PAL.patrol}" '
                'stroke-opacity="0.35" stroke-width="9" stroke-linecap="butt"/>'
            )
    return body


def _draw_rooms(p: Prowl, plan: _Plan, lang: str) -> list[str]:
    """Every room's box: id, security, challenges with their levels, loot."""
    _ = translator(lang)
    boxes = plan.boxes
    body: list[str] = []
    # Rooms.
    none_here = _("no challenge")
    for room in p.rooms:
        box = boxes[room.id]
        sec = room.security
        body.append(
            f'<rect x="{_n(box.x)}" y="{_n(box.y)}" width="{BOX_W}" height="{_n(box.h)}" '
            f'rx="5" fill="{PAL.fills[sec]}" stroke="{PAL.strokes[sec]}" stroke-width="2"/>'
        )
        body.append(
            f'<text x="{_n(box.x + 8)}" y="{_n(box.y + 17)}" font-family="{SVG_FONT_SANS}" '
            f'font-size="15" font-weight="bold" fill="{PAL.ink}">{_escape(room.id)}</text>'
        )
        body.append(
            f'<text x="{_n(box.x + BOX_W - 8)}" y="{_n(box.y + 16)}" text-anchor="end" '
            f'font-family="{SVG_FONT_SANS}" font-size="12" font-weight="bold" '
            f'fill="{PAL.strokes[sec]}">{SECURITY_SHORT[sec]}</text>'
        )
        y = box.y + HEADER_H + 12
        rows = _room_lines(p, room.id)
        if not rows and sec > 0:
            body.append(
                f'<text x="{_n(box.x + 8)}" y="{_n(y + 1)}" font-family="{SVG_FONT_SANS}" '
                f'font-size="12" fill="{PAL.muted}">{_escape(none_here)}</text>'
            )
        for row in rows:
            x = box.x + 12
            for c in row:
                colour = (
                    PAL.patrol
                    if c.mode == PATROL
                    else (PAL.creature if c.type == "creature" else PAL.trap)
                )
                body.append(
                    _creature(x, y - 3.5, colour)
                    if c.type == "creature"
                    else _trap(x, y - 3.5, colour)
                )
                body.append(
                    f'<text x="{_n(x + 8)}" y="{_n(y + 1)}" font-family="{SVG_FONT_SANS}" '
                    f'font-size="12" fill="{colour}">{_escape(c.id)}'
                    f'<tspan font-weight="bold" dx="3">{_escape(c.level)}</tspan></text>'
                )
                x += _item_width(c)
            y += LINE_H
        if room.loot is not None:
            ly = box.y + box.h - 9
            body.append(_coin(box.x + 13, ly - 4))
            text = money(number(room.loot.value, lang), room.loot.unit, lang)
            marks = "".join(_protection_letter(x.kind, lang) for x in room.loot.protections)
            marks = " ".join(
                f"{_protection_letter(x.kind, lang)}{x.level}" for x in room.loot.protections
            )
            if marks:
                text += f" ({marks})"
            body.append(
                f'<text x="{_n(box.x + 22)}" y="{_n(ly)}" font-family="{SVG_FONT_SANS}" '
                f'font-size="12" fill="#5c4400">{_escape(text)}</text>'
            )
    return body


def _draw_doors(plan: _Plan, p: Prowl) -> list[str]:
    """The doors (strength, trap mark) and every connection's id, on top."""
    doors_at, upright = plan.doors_at, plan.upright
    body: list[str] = []
    # Doors and their ids on top.
    for conn in p.connections:
        x, y = doors_at[conn.id]
        vertical = conn.id in upright
        if conn.door:
            body += _door_mark(x, y, conn)
            if vertical:
                body.append(_id_tag(x + 14, y + 4, conn.id, "start"))
            else:
                body.append(_id_tag(x, y + 21, conn.id))
        elif vertical:
            body.append(_id_tag(x + 6, y + 4, conn.id, "start"))
        else:
            body.append(_id_tag(x, y + 13, conn.id))
    return body


def render_svg(p: Prowl, lang: str) -> str:
    """The plan of ``p`` as an SVG document, texts in ``lang`` (de, it or en): the layout
    of :func:`layout_plan` drawn (title, connections, patrols, rooms, doors, legend)."""
    _ = translator(lang)
    plan = layout_plan(p)
    cols, col_x = plan.cols, plan.col_x
    content_w, content_h = plan.content_w, plan.content_h

    body: list[str] = []
    # Title.
    title = _("Prowl – seed {seed}").format(seed=p.seed) if p.seed is not None else _("Prowl")
    sub = [
        _("reputation: {n}").format(n=p.reputation),
        _("players: {n}").format(n=p.players),
        _("entrances: {n}").format(n=p.accesses),
        _("rooms: {n}").format(n=len(p.rooms)),
        _("fine-tuning budget {budget}, {left} left").format(
            budget=p.tuning.budget, left=p.tuning.left
        ),
    ]
    body += title_block(title, sub, PAL, x=MARGIN, title_y=36, sub_y=58)
    depth_label_y = TITLE_H + 8
    for d in sorted(cols):
        x = col_x[d] + BOX_W / 2
        body.append(_id_tag(x, depth_label_y, _("depth {n}").format(n=d)))
    outside = _("outside")
    body.append(
        f'<text x="{MARGIN}" y="{depth_label_y}" font-family="{SVG_FONT_SANS}" '
        f'font-size="10" fill="{PAL.muted}">{_escape(outside)}</text>'
    )

    body += _draw_connections(p, plan)
    body += _draw_rooms(p, plan, lang)
    body += _draw_doors(plan, p)

    # Legend.
    legend, legend_h, legend_w = _legend(p, lang, MARGIN, content_h + 30)
    body += legend
    width = max(MIN_WIDTH, int(content_w), int(legend_w + 2 * MARGIN))
    height = int(content_h + 30 + legend_h + MARGIN)
    sheet = background(width, height, PAL.sheet)
    return "\n".join([svg_head(width, height), sheet, *body, "</svg>"]) + "\n"


PROTECTION_KINDS = ("hidden", "locked", "trap")


def _protection_letter(kind: str, lang: str) -> str:
    _ = translator(lang)
    letters = {"hidden": _("H"), "locked": _("L"), "trap": _("T")}
    return letters.get(kind, "?")


def _protection_word(kind: str, lang: str) -> str:
    _ = translator(lang)
    words = {"hidden": _("hidden"), "locked": _("locked"), "trap": _("trapped")}
    return words.get(kind, kind)


Mark = Callable[[float, float], list[str]]


def _legend(p: Prowl, lang: str, x: float, y: float) -> tuple[list[str], float, float]:
    """The legend below the plan: security colours, then the marks (each row measured)."""
    _ = translator(lang)
    out: list[str] = []
    out.append(bold_heading(x, y + 12, _("Legend"), 15, PAL.ink, fmt=_n))
    names = [_("no security"), _("low security"), _("medium security"), _("high security")]

    def swatch(sec: int) -> Mark:
        return lambda cx, cy: [
            f'<rect x="{_n(cx)}" y="{_n(cy - 8)}" width="26" height="16" '
            f'rx="3" fill="{PAL.fills[sec]}" stroke="{PAL.strokes[sec]}" '
            'stroke-width="2"/>'
        ]

    def line(dashed: bool, arrow: bool = False) -> Mark:
        dash = ' stroke-dasharray="6 4"' if dashed else ""

        def draw(cx: float, cy: float) -> list[str]:
            marks = [
                f'<path d="M {_n(cx)} {_n(cy)} H {_n(cx + 26)}" stroke="{PAL.line}" '
                f'stroke-width="2"{dash}/>'
            ]
            if arrow:
                marks.append(
                    f'<path d="M {_n(cx + 18)} {_n(cy - 5)} L {_n(cx + 26)} {_n(cy)} '
                    f'L {_n(cx + 18)} {_n(cy + 5)} Z" fill="{PAL.line}"/>'
                )
            return marks

        return draw

    door = Connection("D0", ("R0", "R0"), True, "lo_lo", 0, 3, None)
    trapped = Connection("D0", ("R0", "R0"), True, "lo_lo", 0, 3, DoorTrap("camera", "", None))
    loot = (
        _("loot")
        + ": "
        + ", ".join(
            f"{_protection_letter(k, lang)} {_protection_word(k, lang)}" for k in PROTECTION_KINDS
        )
    )
    rows: list[list[tuple[Mark, str]]] = [
        [(swatch(sec), f"{SECURITY_SHORT[sec]} – {name}") for sec, name in enumerate(names)],
        [
            (lambda cx, cy: _door_mark(cx + 12, cy, door), _("door with its strength")),
            (lambda cx, cy: _door_mark(cx + 10, cy, trapped), _("trapped door")),
            (line(True), _("open passage (no door)")),
            (line(False, True), _("entrance from outside")),
        ],
        [
            (lambda cx, cy: [_creature(cx + 12, cy, PAL.creature)], _("creature and its level")),
            (lambda cx, cy: [_trap(cx + 12, cy, PAL.trap)], _("trap and its level")),
            (lambda cx, cy: [_coin(cx + 12, cy)], loot),
            (
                lambda cx, cy: [
                    f'<path d="M {_n(cx + 2)} {_n(cy)} H {_n(cx + 24)}" '
                    f'stroke="{PAL.patrol}" stroke-opacity="0.35" stroke-width="9" '
                    'stroke-linecap="round"/>'
                ],
                _("patrol route (purple: on patrol)"),
            ),
        ],
    ]
    row_y = y + 34
    widest = 0.0
    for row in rows:
        cx = x
        for mark, label in row:
            out += mark(cx, row_y)
            out.append(sans_text(cx + 36, row_y + 4, label, 12, PAL.ink, fmt=_n))
            cx += 36 + text_width(label, 12) + 26
        widest = max(widest, cx - x)
        row_y += 30
    return out, row_y - y - 10, widest
