"""The journal: a session told as a play report in the reader's language (Markdown), or its
whole log (JSON, :func:`kerker.play.api.export`).

Each step says what was done; an opened exit says what lay behind it (area, size, what is
in it) with the rolls folded under it; checks, dice, table rolls and notes are told with
their dice. Undone steps are struck through, opens a later reroll made void are marked.
Everything is rendered from the log and the replayed dungeon, never from stored text; the
texts of notes are the players' own, escaped for Markdown.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

from kerker.dice.explain import explain
from kerker.dice.roller import roll
from kerker.errors import N_
from kerker.i18n import Translate, dice_text, plural_of, translator
from kerker.play.events import Event
from kerker.play.session import EnteredDice, PlayState, event_seed, roll_check, table_rng
from kerker.play.views import _visible, exit_name, open_exit_list, sprung_text
from kerker.tables.registry import Registry

_MD = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~])")


def md_escape(text: str) -> str:
    """User text made inert in Markdown (and HTML made from it): one line, marks escaped."""
    flat = " ".join(text.split())
    return _MD.sub(r"\\\1", flat).replace("&", "&amp;")


RULE_NAMES = {"zufallslabyrinth": "Zufallslabyrinth", "scatola-bianca": "La Scatola Bianca"}


def _areas(state: PlayState, lang: str) -> dict[tuple[int, str], dict[str, Any]]:
    doc = state.document(lang)
    return {(lv["depth"], a["id"]): a for lv in doc["levels"] for a in lv["areas"]}


def arrows(text: str) -> str:
    """A roll explanation as the journal writes it: ``3d6 → [2, 5, 1] = 8``, never ``->``."""
    return text.replace(" -> ", " → ")


def _area_lines(
    area: dict[str, Any], depth: int, lang: str, view: str, state: PlayState | None = None
) -> list[str]:
    _ = translator(lang)
    # feet, as both rule texts measure (Fuß, piedi); the document writes "W × H ft"
    size = str(area["size"]["feet"]).replace(" ft", " " + _(N_("ft")))
    head = _("{title} {number} (level {depth}), {size}").format(
        title=area["title"], number=area["number"], depth=depth, size=size
    )
    lines = [f"   - {head}"]
    if view == "player" and state is not None and not state.info.referee:
        from kerker.play.views import player_contents

        for content in player_contents(state, depth, area, lang):
            if content.get("text"):
                lines.append(f"     - {_content_text(content, _)}")
    if view == "gm":
        from kerker.dungeon.bend_text import bend_line

        for content in area["contents"]:
            if content.get("text"):
                lines.append(f"     - {_one_line(_content_text(content, _))}")
        # what was rolled but built otherwise, and why (issue 12: every bend is said)
        for bend in area.get("bends") or ():
            lines.append(f"     - {_one_line(bend_line(bend, _, lang))}")
        rolls = area["rolls"]
        if rolls:
            lines.append("     <details><summary>" + _("Rolls") + "</summary>\n")
            for r in rolls:
                label = r.get("label") or r["table"]
                text = r.get("text") or r["row"]
                mark = " " + _("(entered)") if r.get("entered") else ""
                shown = arrows(dice_text(r["explain"], lang))
                lines.append(f"     - {label}: {shown}{mark} → {_one_line(text)}")
            lines.append("\n     </details>")
    return lines


def _content_text(content: dict[str, Any], _: Translate) -> str:
    """A content's text as the journal lists it: a wandering monster under one label
    ("Mostro errante: ...", not the document's "Errante: ...")."""
    from kerker.dungeon.export import WANDERING_MONSTER, wandering

    text = str(content.get("text") or "")
    rest = wandering(text, _) if content.get("kind") == "monster" else None
    return text if rest is None else _(WANDERING_MONSTER) + ": " + rest


def _one_line(text: object) -> str:
    """A table text on one line: a row's line breaks would end the Markdown list item."""
    return " ".join(str(text).split())


_DETAILS = re.compile(r"^(\s*)<details><summary>(.*)</summary>\s*$")
_UNESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")


def plain_text(markdown: str) -> str:
    """A journal's Markdown (:func:`journal_md`, :func:`journal_lines`) as a terminal shows
    it: folded rolls as an indented "Rolls:" heading, no HTML tags, no Markdown escapes
    or marks (``~~struck~~``, code spans); text stays text (the terminal prints it with
    markup off)."""
    out: list[str] = []
    lines = markdown.split("\n")
    for i, line in enumerate(lines):
        folded = _DETAILS.match(line)
        if folded:
            out.append(f"{folded.group(1)}{folded.group(2)}:")
            continue
        if line.strip() == "</details>":
            continue
        after = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if not line.strip() and (after == "</details>" or (out and out[-1].endswith(":"))):
            continue  # the blank lines that frame a fold
        line = re.sub(r"(?<!\\)[`]|(?<!\\)~~", "", line)  # code spans, struck steps
        out.append(_UNESCAPE.sub(r"\1", line).replace("&amp;", "&"))
    return "\n".join(out)


def _exits(state: PlayState) -> dict[str, tuple[str, int]]:
    """Stable key -> (kind, number of the area it leaves) of every connection."""
    out: dict[str, tuple[str, int]] = {}
    for level in state.document()["levels"]:
        depth = level["depth"]
        number = {a["id"]: a["number"] for a in level["areas"]}
        for conn in level["connections"]:
            x, y = conn["at"]
            out.setdefault(
                conn.get("key") or f"{depth}:{x},{y}:{conn['side']}",
                (conn["kind"], number.get(conn["from"], 0)),
            )
    for item in open_exit_list(state, "gm"):
        out[item["key"]] = (item["kind"], item["area"])
    return out


def _code(text: str) -> str:
    """Text as an inline code span (dice and their explanations read as typed)."""
    return "`" + " ".join(text.replace("`", "'").split()) + "`"


def _entered_line(picks: list[Any], _: Any) -> str:
    """What real dice were entered for the table rolls behind a door, and how many
    kerker rolled."""
    faces = [str(f) for p in picks if p.entered for f in p.faces]
    rolled = sum(1 for p in picks if not p.entered)
    text = _("Real dice entered: {faces}.").format(faces=", ".join(faces) or "–")
    if rolled:
        ngettext = plural_of(_)
        text += " " + ngettext(
            "kerker made {n} table roll.", "kerker made {n} table rolls.", rolled
        ).format(n=rolled)
    return str(text)


def _step(
    state: PlayState,
    e: Event,
    registry: Registry,
    lang: str,
    view: str,
    areas: dict[tuple[int, str], dict[str, Any]],
    exits: dict[str, tuple[str, int]],
) -> list[str]:
    _ = translator(lang)
    d = e.data
    if e.kind in ("open", "enter"):
        key = d["exit"]
        way = state.ways.get(e.seq) or exits.get(key)
        name = exit_name(way[0], _) if way else _("Way")
        if e.kind == "open" and view == "player":
            # players read no engine keys
            head = _("Area {area}, {exit}: passed through.").format(
                exit=name, area=way[1] if way else "?"
            )
        elif e.kind == "open":
            head = _("Area {area}, {exit}: passed through ({key}).").format(
                exit=name, area=way[1] if way else "?", key=key
            )
        else:
            head = _("{exit} taken to level {level} ({key}).").format(
                exit=name, level=d["level"], key=key
            )
        if e.seq not in state.done:
            return [head]
        if e.seq in state.lapsed:
            return [head + " " + _("(No longer there: an earlier reroll changed the way.)")]
        lines = [head]
        picks = state.entered.get(e.seq)
        if picks is not None and view == "gm":
            lines.append("   - " + _entered_line(picks, _))
        made = state.made.get(e.seq, [])
        if not made:
            joined = state.joined.get(e.seq)
            lines[0] += " " + (
                _("It leads into area {area}, already known.").format(area=joined)
                if joined
                else _("Nothing new lies behind it.")
            )
        seen = _visible(state) if view == "player" else None
        for depth, area_id in made:
            area = areas.get((depth, area_id))
            if area is None or (seen is not None and (depth, area["number"]) not in seen):
                continue  # the players read only of areas they can see
            lines += _area_lines(area, depth, lang, view, state)
        return lines
    if e.kind == "reroll":
        opened = [s for s in state.ways if state.by_seq[s].data.get("exit") == d["exit"]]
        way = state.ways[opened[0]] if opened else exits.get(d["exit"])
        return [
            _(
                "Rerolled what lies behind the {exit} of area {area} ({key}); the step "
                "that opened it shows the new roll."
            ).format(
                exit=exit_name(way[0], _) if way else _("Way"),
                area=way[1] if way else "?",
                key=d["exit"],
            )
        ]
    if e.kind in ("undo", "redo"):
        # which step: searches, rolls and takes stay, so "the last step" may be an older one
        from kerker.play.session import _effective

        done, undone = _effective([x for x in state.events if x.seq < e.seq])
        target = (done if e.kind == "undo" else undone)[-1:]
        if not target:
            return [_("Undid the last step.") if e.kind == "undo" else _("Redid the undone step.")]
        template = N_("Undid step {step}.") if e.kind == "undo" else N_("Redid step {step}.")
        return [_(template).format(step=target[0])]
    if e.kind == "note":
        where = (
            _("Note on area {area} (level {depth}):").format(area=d["area"], depth=d["depth"])
            if d["area"] is not None
            else _("Note:")
        )
        return [f"{where} {md_escape(d['text'])}"]
    if e.kind == "roll":
        rng = (
            EnteredDice(d["entered"])
            if d["entered"] is not None
            else random.Random(event_seed(state.info, e.seq))
        )
        thrown = roll(d["expr"], rng)
        how = _("entered") if d["entered"] is not None else _("rolled")
        return [
            _("Dice {expr} ({how}): {total}").format(
                expr=_code(d["expr"]), how=how, total=thrown.total
            )
            + " "
            + _code(arrows(explain(thrown)))
        ]
    if e.kind == "table":
        from kerker.tables.engine import roll_table
        from kerker.tables.render import lines as table_lines

        tables = state.registry or registry  # the session's own tables too
        rng = table_rng(state.info, e.seq, tables, d["table"], d["entered"])
        result, _log = roll_table(tables, d["table"], rng, context={"level": d["level"]})
        head = _("Table {table}:").format(table=_code(d["table"]))
        if d["entered"] is not None:
            head = head.removesuffix(":") + " (" + _("entered") + "):"
        return [head] + [
            f"   - {arrows(line.strip())}" for line in table_lines(result, lang) if line.strip()
        ]
    if e.kind == "check":
        result = roll_check(state.info, e.seq, d["value"], d["modifier"], d["secret"], d["entered"])
        # the value and its modifier; the target they make stands in the roll line after it
        head = _("Check with value {value} (modifier {modifier}):").format(
            value=d["value"], modifier=f"{d['modifier']:+d}"
        )
        if view == "player":
            return [f"{head} {result.player_line(lang)}"]
        return [f"{head} {result.gm_line(lang)}"]
    if e.kind == "search":
        return _search_lines(state, e, registry, lang, view, areas)
    if e.kind == "take":
        area = _by_number(areas, d["depth"], d["area"])
        content = area["contents"][d["item"]] if area and d["item"] < len(area["contents"]) else {}
        lines = [
            _("Took the treasure of area {area}: {what}").format(
                area=d["area"], what=content.get("text") or "?"
            )
        ]
        if d["sprung"]:
            lines.append(
                "   - " + _("Its trap went off: {what}").format(what=content.get("trapped") or "?")
            )
        return lines
    if e.kind in ("reveal", "hide"):
        what = (
            _("area {area} (level {depth})").format(area=d["area"], depth=d["depth"])
            if d["area"] is not None
            else _("the way at {key}").format(key=d["exit"])
        )
        text = (
            _("Showed {what} to the players.")
            if e.kind == "reveal"
            else _("Hid {what} from the players.")
        )
        return [text.format(what=what)]
    return [e.kind]  # pragma: no cover - every kind is handled above


def _by_number(
    areas: dict[tuple[int, str], dict[str, Any]], depth: int, number: int
) -> dict[str, Any] | None:
    for (d, _id), area in areas.items():
        if d == depth and area["number"] == number:
            return area
    return None


def _search_lines(
    state: PlayState,
    e: Event,
    registry: Registry,
    lang: str,
    view: str,
    areas: dict[tuple[int, str], dict[str, Any]],
) -> list[str]:
    """A search told: where, what it found or set off, the dice folded (the players of a
    refereed session read no dice: the GM rolled them)."""
    from kerker.play.search import mark, monster_rng, rules_for, secret_doors

    _ = translator(lang)
    d = e.data
    sides = {"n": _("north"), "e": _("east"), "s": _("south"), "w": _("west")}
    if d["side"] is None:
        head = _("Searched area {area} (level {depth}).").format(area=d["area"], depth=d["depth"])
    else:
        head = _("Searched the {wall} wall of area {area} (level {depth}).").format(
            wall=sides.get(d["side"], d["side"]), area=d["area"], depth=d["depth"]
        )
    area = _by_number(areas, d["depth"], d["area"]) or {"contents": [], "number": d["area"]}
    level = next((lv for lv in state.document(lang)["levels"] if lv["depth"] == d["depth"]), None)
    # every secret door in this area's walls, by key: the wall as seen from this area (a door
    # of the area behind that wall is keyed by that area's side)
    in_walls = (
        {key: (wall, cell) for key, wall, cell in secret_doors(level, area, None)}
        if level is not None and "cells" in area
        else {}
    )
    lines = [head]
    doors = [k for k in d["found"] if "," in k]
    for key in doors:
        last = key.rsplit(":", 1)[-1].split("#")[0].split("~")[0]  # "s~2": a second door, s
        wall = in_walls[key][0] if key in in_walls else last
        lines.append(
            "   - "
            + _("Found a secret door in the {wall} wall.").format(wall=sides.get(wall, wall))
        )
    contents = area["contents"]
    for i, content in enumerate(contents):
        m = mark(d["depth"], d["area"], i)
        if m in d["found"]:
            found = _("Found hidden treasure: {what}").format(what=content.get("text") or "?")
            if view == "gm" or not state.info.referee:
                found += " (" + str(content.get("hidden") or "") + ")"
            lines.append("   - " + found)
        if m in d["sprung"]:
            lines.append("   - " + _("A trap went off: {what}").format(what=sprung_text(content)))
    if not d["found"]:
        # What a roll that finds found when nothing lay there, as the searchers learn it (the
        # players of a refereed session read no dice: "Nothing found.")
        told = []
        if (view == "gm" or not state.info.referee) and "cells" in area:
            told = _found_nothing_there(state, d, area, in_walls, sides, _)
        lines += ["   - " + line for line in told or [_("Nothing found.")]]
    monster_roll = None
    if d["monster"] is not None:
        from kerker.tables.engine import roll_table
        from kerker.tables.model import pick_text
        from kerker.tables.render import lines as table_lines
        from kerker.tables.render import row_text

        table = rules_for(state.info.rules).monster_table
        text = "?"
        if table is not None:
            monster, _log = roll_table(
                registry, table, monster_rng(state.info, e.seq), context={"level": d["depth"]}
            )
            # the row's text and what follows it, without the table's title: the line says
            # "a wandering monster comes" once ("Mostro errante: Mostro errante (...)" read
            # twice); the title and its roll go with the rolls below
            said = table_lines(monster, lang, final=True)
            said[0] = row_text(monster, lang)
            text = " ".join(line.strip() for line in said if line.strip())
            title = pick_text(monster.table.title, lang)
            shown = arrows(dice_text(monster.pick.roll.explain(), lang))
            monster_roll = f"   - {title}: {shown}"
        lines.append("   - " + _("A wandering monster comes: {what}").format(what=text))
    if view == "gm" or not state.info.referee:
        rules = rules_for(state.info.rules)
        lines.append("   <details><summary>" + _("Rolls") + "</summary>\n")
        if d["check"] is not None:
            result = roll_check(
                state.info,
                e.seq,
                rules.value if d["value"] is None else d["value"],
                d["modifier"],
                state.info.referee,
                d["entered"],
            )
            lines.append("   - " + result.gm_line(lang))
        else:
            how = _("entered") if d["entered"] is not None else _("rolled")
            lines.append(
                "   - "
                + _("{die} per {feet} ft of wall ({how}): {rolls}").format(
                    die=_code(dice_text(rules.die, lang)),
                    feet=rules.segment_feet,
                    how=how,
                    rolls=", ".join(str(r) for r in d["rolls"]),
                )
            )
        if monster_roll is not None:
            lines.append(monster_roll)
        lines.append("\n   </details>")
    return lines


def _found_nothing_there(
    state: PlayState,
    d: dict[str, Any],
    area: dict[str, Any],
    in_walls: dict[str, tuple[str, tuple[int, int]]],
    sides: dict[str, str],
    _: Translate,
) -> list[str]:
    """The lines for a search whose dice found but where nothing lay: Scatola Bianca's 1 on
    a stretch of wall without a secret door (only the doors the dungeon placed can be found:
    rules/play/search.yaml), the Zufallslabyrinth's check that succeeded in walls without
    one. Empty when no die found (then "Nothing found." says it)."""
    from kerker.checks.hpr import Outcome
    from kerker.play.search import door_stretch, rules_for, stretches

    rules = rules_for(state.info.rules)
    if rules.method != "walls":
        if d["check"] is not None and Outcome(d["check"]).succeeded:
            return [_("The search succeeded: there is no secret door in the walls searched.")]
        return []
    searched = stretches(area, d["side"], rules)
    doors = {door_stretch(area, rules, wall, cell) for wall, cell in in_walls.values()}
    out = []
    for face, (wall, index) in zip(d["rolls"], searched, strict=False):
        if face in rules.find and (wall, index) not in doors:
            on_wall = sum(1 for w, _i in searched if w == wall)
            out.append(
                _(
                    "A {face} came up for the {wall} wall (stretch {n} of {of}, {feet} ft each), "
                    "but there is no secret door in that stretch of wall."
                ).format(
                    face=face,
                    wall=sides.get(wall, wall),
                    n=index + 1,
                    of=on_wall,
                    feet=rules.segment_feet,
                )
            )
    return out


def journal_md(state: PlayState, registry: Registry, lang: str = "en", view: str = "gm") -> str:
    """The journal as Markdown in ``lang`` (de, it, en). The player ``view`` leaves out
    secret checks' dice and what lies in the rooms, and every step that only the GM saw
    (a secret door's reveal counts as seen once it is revealed). A session without a
    referee is always told as the players see it."""
    from kerker.play.views import effective

    view = effective(state, view)
    _ = translator(lang)
    info = state.info
    areas = _areas(state, lang)
    exits = _exits(state)
    title = md_escape(info.name) if info.name else _("Session {id}").format(id=info.id)
    lines = [
        f"# {title}",
        "",
        _("{rules}, seed {seed}; kerker {version}.").format(
            rules=RULE_NAMES.get(info.rules, info.rules),
            seed=info.seed,
            version=info.kerker_version,
        ),
        "",
    ]
    if state.read_only:
        lines += [_("Read-only: {reason}").format(reason=md_escape(state.read_only.message(_))), ""]
    lines += journal_lines(state, registry, lang, view, state.events, areas, exits)
    if not state.events:
        lines.append(_("Nothing explored yet."))
    return "\n".join(lines) + "\n"


def journal_lines(
    state: PlayState,
    registry: Registry,
    lang: str,
    view: str,
    events: list[Event],
    areas: dict[tuple[int, str], dict[str, Any]] | None = None,
    exits: dict[str, tuple[str, int]] | None = None,
) -> list[str]:
    """The journal's numbered lines for ``events`` (some or all of the session's)."""
    from kerker.play.views import effective

    view = effective(state, view)
    _ = translator(lang)
    areas = _areas(state, lang) if areas is None else areas
    exits = _exits(state) if exits is None else exits
    active = set(state.done)
    lines = []
    for e in events:
        if view == "player" and e.kind in ("reveal", "hide"):
            continue
        body = _step(state, e, registry, lang, view, areas, exits)
        first = body[0]
        if e.kind in ("open", "reroll", "enter", "note", "reveal", "hide") and (
            e.seq not in active
        ):
            first = f"~~{first}~~ " + _("(undone)")
        lines.append(f"{e.seq}. {first}")
        lines += body[1:]
    return lines


def _inline_html(text: str) -> str:
    """One journal line's Markdown (code spans, ``~~struck~~``, backslash escapes and the
    ``&amp;`` of :func:`md_escape`) as escaped HTML: user text can never become markup."""
    from html import escape

    out: list[str] = []
    code = struck = False
    i = 0
    buf: list[str] = []

    def flush() -> None:
        out.append(escape("".join(buf)))
        buf.clear()

    while i < len(text):
        ch = text[i]
        if code:
            if ch == "`":
                flush()
                out.append("</code>")
                code = False
            else:
                buf.append(ch)
            i += 1
            continue
        if ch == "\\" and i + 1 < len(text):
            buf.append(text[i + 1])
            i += 2
        elif ch == "`":
            flush()
            out.append("<code>")
            code = True
            i += 1
        elif text.startswith("~~", i):
            flush()
            out.append("</del>" if struck else "<del>")
            struck = not struck
            i += 2
        elif text.startswith("&amp;", i):
            buf.append("&")
            i += 5
        else:
            buf.append(ch)
            i += 1
    flush()
    if code:
        out.append("</code>")
    if struck:
        out.append("</del>")
    return "".join(out)


_STEP_LINE = re.compile(r"^(\d+)\. (.*)$")
_ITEM_LINE = re.compile(r"^(\s*)- (.*)$")


@dataclass
class _Node:
    text: str
    children: list[_Node] = field(default_factory=list)
    rolls: list[str] = field(default_factory=list)
    folded: bool = False

    def html(self, tag: str, rolls_label: str, value: str = "") -> str:
        head = f'<{tag} value="{value}">' if value else f"<{tag}>"
        parts = [head + _inline_html(self.text)]
        if self.children:
            parts.append(
                "<ul>" + "".join(c.html("li", rolls_label) for c in self.children) + "</ul>"
            )
        if self.folded:
            parts.append(
                "<details><summary>"
                + escape_text(rolls_label)
                + "</summary><ul>"
                + "".join(f"<li>{_inline_html(r)}</li>" for r in self.rolls)
                + "</ul></details>"
            )
        return "".join(parts) + f"</{tag}>"


def journal_html(
    state: PlayState,
    registry: Registry,
    lang: str = "en",
    view: str = "gm",
    events: list[Event] | None = None,
) -> str:
    """The journal's steps as HTML in ``lang``: an ordered list numbered by event, what
    each step found as a nested list, the rolls folded in ``<details>``; every text
    escaped (the same lines as :func:`journal_lines`, so the same view rules)."""
    _ = translator(lang)
    lines = journal_lines(state, registry, lang, view, state.events if events is None else events)
    if not lines:
        return f'<p class="journal">{escape_text(_("Nothing explored yet."))}</p>'
    steps: list[tuple[str, _Node]] = []
    folding: _Node | None = None
    for raw in lines:
        line = raw.rstrip()
        if not line.strip():
            continue
        step = _STEP_LINE.match(line)
        if step:
            steps.append((step.group(1), _Node(step.group(2))))
            folding = None
            continue
        if not steps:
            continue
        root = steps[-1][1]
        indent = len(line) - len(line.lstrip())
        text = line.strip()
        if text.startswith("<details>"):
            folding = root.children[-1] if indent > 3 and root.children else root
            folding.folded = True
            continue
        if text == "</details>":
            folding = None
            continue
        item = _ITEM_LINE.match(line)
        body = item.group(2) if item else text
        if folding is not None:
            folding.rolls.append(body)
        elif indent <= 3 or not root.children:
            root.children.append(_Node(body))
        else:
            root.children[-1].children.append(_Node(body))
    label = _("Rolls")
    return (
        '<ol class="journal">'
        + "".join(node.html("li", label, value) for value, node in steps)
        + "</ol>"
    )


def escape_text(text: str) -> str:
    """Plain text escaped for HTML."""
    from html import escape

    return escape(text)
