"""What a session shows: the GM view (everything, with the rolls) and the player view
(only what was opened or revealed: no secret door until it is found, nothing that lies only
behind one, no contents or rolls).

:func:`show` is the document ``kerker play show --json`` prints and the web app serves:
the dungeon JSON (docs/dungeon-json.md) plus ``open_exits`` and the session's header.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from kerker.errors import N_, OptionError
from kerker.play import engine_port as port
from kerker.play.session import PlayState

VIEWS = ("gm", "player")
EXIT_KINDS = {
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
"""Names of exit kinds (the key's words, translated by the catalogs)."""


def exit_name(kind: str, translate: Callable[[str], str]) -> str:
    """An exit kind's name in the language of ``translate`` (a corridor's open end and
    other kinds: "Way")."""
    return translate(EXIT_KINDS.get(kind, N_("Way")))


def check_view(view: str) -> str:
    """``gm`` or ``player``; refuses anything else."""
    if view not in VIEWS:
        raise OptionError(N_("--view takes gm or player, not {text!r}"), text=view)
    return view


def effective(state: PlayState, view: str) -> str:
    """The view a session shows for ``view``: without a referee always the players' (no
    GM-only information anywhere until the rules find it)."""
    check_view(view)
    return view if state.info.referee else "player"


def _found(state: PlayState, depth: int, key: str | None) -> bool:
    return key is not None and (depth, None, key) in state.revealed


def open_exit_list(state: PlayState, view: str) -> list[dict[str, Any]]:
    """The open exits numbered 1.. as shown: ``{"number", "key", "depth", "area", "kind",
    "to_level"}``; the player view leaves out secret doors not found and exits of areas
    the players cannot see (a session without a referee: always the player view)."""
    view = effective(state, view)
    visible = _visible(state) if view == "player" else None
    out: list[dict[str, Any]] = []
    for item in port.open_exits(state.dungeon):
        if view == "player":
            if (item.kind == "secret_door" or item.gm_only) and not _found(
                state, item.depth, item.key
            ):
                continue
            assert visible is not None
            if (item.depth, item.area) not in visible:
                continue
        out.append(
            {
                "number": len(out) + 1,
                "key": item.key,
                "depth": item.depth,
                "area": item.area,
                "kind": item.kind,
                "to_level": item.to_level,
            }
        )
    return out


def _conn_key(depth: int, conn: dict[str, Any]) -> str:
    """A document connection's stable key (the engine's, from geometry)."""
    key = conn.get("key")
    if isinstance(key, str):
        return key
    x, y = conn["at"]
    return f"{depth}:{x},{y}:{conn['side']}"


def _visible(state: PlayState) -> set[tuple[int, int]]:
    """(depth, area number) the players can see: reached from the entrance or an arrival
    through ways that are not unfound secret doors, plus revealed areas, minus hidden
    (made once per step of the state)."""
    if state._seen is None:
        state._seen = frozenset(_reach(state))
    seen: set[tuple[int, int]] = set(state._seen)
    return seen


def _reach(state: PlayState) -> set[tuple[int, int]]:
    doc = state.document()
    seen: set[tuple[int, int]] = set()
    for level in doc["levels"]:
        depth = level["depth"]
        number = {a["id"]: a["number"] for a in level["areas"]}
        links: dict[str, list[str]] = {}
        starts = [level["entrance"]] if level["entrance"] else []
        for conn in level["connections"]:
            if conn["to_level"] is not None:
                if depth > 1:
                    starts.append(conn["from"])
                continue
            if conn["to"] is None:
                continue
            secret = conn["kind"] == "secret_door" or conn["gm_only"]
            if secret and not _found(state, depth, _conn_key(depth, conn)):
                continue
            links.setdefault(conn["from"], []).append(conn["to"])
            links.setdefault(conn["to"], []).append(conn["from"])
        hidden = {a for d, a, _e in state.hidden if d == depth and a is not None}
        todo = deque(s for s in starts if s in number and number[s] not in hidden)
        reached = set(todo)
        while todo:
            here = todo.popleft()
            for there in links.get(here, ()):
                if there not in reached and number.get(there) not in hidden:
                    reached.add(there)
                    todo.append(there)
        seen |= {(depth, number[a]) for a in reached}
        seen |= {(d, a) for d, a, _e in state.revealed if d == depth and a is not None}
        seen -= {(depth, a) for a in hidden}
    return seen


def document(state: PlayState, view: str, lang: str) -> dict[str, Any]:
    """The dungeon document in ``lang`` for ``view`` (the player's: only visible areas,
    their shapes and features, ways between them that are not unfound secret doors, and
    their contents as far as the players can know them (:func:`player_contents`; with a
    referee only what the rules made known: found or taken treasure, sprung traps))."""
    view = effective(state, view)
    doc = state.document(lang)
    if view == "gm":
        return doc
    visible = _visible(state)
    levels = []
    for level in doc["levels"]:
        depth = level["depth"]
        ids = {a["id"] for a in level["areas"] if (depth, a["number"]) in visible}
        if not ids:
            continue
        areas = [
            {
                **a,
                "contents": player_contents(
                    state, depth, a, lang, known_only=bool(state.info.referee)
                ),
                "rolls": [],
            }
            for a in level["areas"]
            if a["id"] in ids
        ]
        conns = []
        for conn in level["connections"]:
            if conn["from"] not in ids or (conn["to"] is not None and conn["to"] not in ids):
                continue
            if (conn["kind"] == "secret_door" or conn["gm_only"]) and not _found(
                state, depth, _conn_key(depth, conn)
            ):
                continue
            if conn["kind"] == "secret_door":
                # Found: the players know it as a door now, and their map (which never
                # walks through a secret door) shows what lies behind it.
                conn = {**conn, "kind": "door", "gm_only": False, "found_secret": True}
            conns.append(conn)
        levels.append(
            {
                **level,
                "areas": areas,
                "connections": conns,
                "entrance": level["entrance"] if level["entrance"] in ids else None,
                "unexplored": [c for c in level["unexplored"] if any(k["id"] == c for k in conns)],
            }
        )
    return {
        **doc,
        "levels": levels,
        "stats": {"areas": sum(len(lv["areas"]) for lv in levels), "bent": {}},
    }


def player_contents(
    state: PlayState, depth: int, area: dict[str, Any], lang: str, *, known_only: bool = False
) -> list[dict[str, Any]]:
    """What the players of a session without a referee know of ``area``'s contents:
    monsters, treasure (hidden treasure once a search found it; where it was hidden and
    what guarded it left out), a trap, a trick or a treasure's trap only once it went off
    (as a line of its own), taken treasure marked; no other GM-only content.

    ``known_only`` (a session with a referee, who tells the players the rest): only what a
    step by the rules made known -- treasure a search found or the players took, traps and
    tricks that went off with their effect -- never a monster or treasure the GM has not
    described, never an unfound secret."""
    from kerker.i18n import translator
    from kerker.play.search import TRAP_KINDS, mark

    _ = translator(lang)
    out: list[dict[str, Any]] = []
    for i, content in enumerate(area["contents"]):
        m = mark(depth, area["number"], i)
        kind = content["kind"]
        if kind in TRAP_KINDS:
            if m in state.sprung:
                out.append(sprung(kind, sprung_text(content)))
            continue
        if kind == "treasure":
            if content.get("hidden") and m not in state.found:
                continue
            if known_only and m not in state.found and m not in state.taken:
                continue
            text = str(content.get("text") or "")
            if m in state.taken:
                text = _("{what} (taken)").format(what=text.rstrip(". "))  # not "coins. (taken)"
            out.append({**content, "text": text, "trapped": None, "hidden": None, "gm_only": False})
            if content.get("trapped") and m in state.sprung:
                out.append(sprung("trap", str(content["trapped"])))
            continue
        if content.get("gm_only") or known_only:
            continue
        out.append({**content, "magic": None} if "magic" in content else dict(content))
    return out


def sprung_text(content: dict[str, Any]) -> str:
    """What a trap or trick that went off does, as the key tells it: its summary (what the
    players suffer, the dice rolled in play such as "1-3 on 1d6"), not the generation
    rolls behind it (``details``)."""
    return str(content.get("summary") or content.get("text") or "")


def sprung(kind: str, text: str) -> dict[str, Any]:
    """A content line for a trap (or trick) that went off: kind ``sprung_trap`` or
    ``sprung_trick``, which the key labels "Trap (sprung)" / "Trick (sprung)"."""
    return {"kind": f"sprung_{kind}", "text": text, "gm_only": False}


def note(text: str) -> dict[str, Any]:
    """A content line of kind ``note`` (what the players learnt)."""
    return {"kind": "note", "text": text, "gm_only": False}


def show(state: PlayState, view: str = "gm", lang: str = "en") -> dict[str, Any]:
    """``kerker play show --json``: the document for ``view`` plus ``session``,
    ``player_token``, ``seq``, ``read_only`` (why it cannot be played on, in ``lang``;
    None when it can), ``read_only_reason`` (the reason's code), ``depth``, ``referee``,
    ``rules_digest``, ``tables_digest`` (of the own table files, None without),
    ``own_tables`` (their names) and ``open_exits`` (without a referee always the player
    view: ``view`` says which was given; the player token is there when the GM view was
    asked for)."""
    from kerker.i18n import translator

    asked = check_view(view)
    view = effective(state, view)
    doc = document(state, view, lang)
    head: dict[str, Any] = {
        "session": state.info.id,
        "name": state.info.name,
        "player_token": state.info.player_token if asked == "gm" else None,
        "view": view,
        "seq": state.seq,
        "read_only": state.read_only.message(translator(lang)) if state.read_only else None,
        "read_only_reason": state.read_only.code if state.read_only else None,
        "depth": state.depth,
        "referee": state.info.referee,
        "rules_digest": state.info.rules_digest,
        "tables_digest": state.info.tables_digest or None,
        "own_tables": [name for name, _text in state.info.own_tables],
    }
    return {**head, **doc, "open_exits": open_exit_list(state, view)}


def rules_language(state: PlayState) -> str:
    """The language the session's rule set was printed in (German for seed 000, Italian
    for seed 001, else English)."""
    return {"zufallslabyrinth": "de", "scatola-bianca": "it"}.get(state.info.rules, "en")


MARKS = "abcdefghijklmnopqrstuvwxyz"
"""Map marks of the open exits, in list order (the 27th and later have none)."""


def exit_lines(state: PlayState, view: str, _: Callable[[str], str]) -> list[str]:
    """The open exits as numbered lines in the language of ``_``, each with the letter
    that marks it on the map preview (:func:`summary`)."""
    from kerker.play.wallnames import COMPASS

    sides = {key: _(word) for key, word in COMPASS.items()}  # a 45° wall's "ne" too
    out = []
    for item in open_exit_list(state, view):
        # "1:108,119:s", "1:108,119:s~2" (a second exit there), "...#..." -> "s"
        wall = item["key"].rsplit(":", 1)[-1].split("#")[0].split("~")[0]
        side = sides.get(wall, "")
        where = (
            _("to level {level}").format(level=item["to_level"])
            if item["to_level"] is not None
            else side
        )
        mark = MARKS[item["number"] - 1] if item["number"] <= len(MARKS) else "-"
        out.append(
            _("{number:>3}. ({mark}) {exit} of area {area} ({where}), level {depth}").format(
                number=item["number"],
                mark=mark,
                exit=exit_name(item["kind"], _),
                area=item["area"],
                where=where,
                depth=item["depth"],
            )
        )
    return out


_STEP = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0)}


def _marked(level: dict[str, Any], text: str, exits: list[dict[str, Any]]) -> str:
    """``text`` (:func:`~kerker.dungeon.render_ascii.render_level` of ``level``) with the
    open exits of that level marked by their letters, where the map draws their doors."""
    cells = [tuple(c) for a in level["areas"] for c in a["cells"]]
    for f in (f for a in level["areas"] for f in a["features"]):
        cells += [tuple(c) for c in f["cells"]]
    if not cells or not text:
        return text
    x0 = min(c[0] for c in cells) - 1
    y0 = min(c[1] for c in cells) - 1
    rows = [list(r) for r in text.split("\n")]
    # where the document draws each connection (its cells may be shifted from the
    # engine's plane the keys are made on)
    drawn = {_conn_key(level["depth"], c): (c["at"], c["side"]) for c in level["connections"]}
    for item in exits:
        if item["number"] > len(MARKS) or item["depth"] != level["depth"]:
            continue
        found = drawn.get(item["key"])
        if found is None:
            continue
        (x, y), side = found
        dx, dy = _STEP.get(side, (0, 0))
        for cx, cy in ((x + dx, y + dy), (x, y)):
            row, col = cy - y0, cx - x0
            if 0 <= row < len(rows) and 0 <= col < len(rows[row]) and rows[row][col] in "#+'>":
                rows[row][col] = MARKS[item["number"] - 1]
                break
    return "\n".join("".join(r) for r in rows)


def summary(state: PlayState, lang: str, view: str = "gm") -> str:
    """The terminal picture of a session: the map preview of ``view`` (open exits marked
    by letters) and the numbered open exits."""
    from kerker.dungeon.render_ascii import render_level
    from kerker.dungeon.render_svg import rules_name
    from kerker.i18n import translator

    _ = translator(lang)
    view = effective(state, view)
    doc = document(state, view, lang)
    exits = open_exit_list(state, view)
    lines = []
    for level in doc["levels"]:
        if not level["areas"]:
            continue  # a level a way was rolled to but nobody has gone down yet
        lines.append(
            "== "
            + _("{rules} – seed {seed} – level {depth}").format(
                rules=rules_name(str(doc["rules"])), seed=doc["seed"], depth=level["depth"]
            )
            + " =="
        )
        lines.append(_marked(level, render_level(level, view), exits))
    if state.read_only:
        lines.append(_("Read-only: {reason}").format(reason=state.read_only.message(_)))
    listed = exit_lines(state, view, _)
    lines.append(_("Open exits:") if listed else _("No exit is open."))
    lines += listed
    return "\n".join(lines)
