"""The game master's sheet of a prowl in Markdown: factions, attributes, structure, every
room with its challenges and loot, the doors, the fine-tuning budget and log, the rolls.

Rule texts (factions, subtypes, how loot is secured) come from ``Prowl.texts`` in the
reader's language; the rest are UI strings. Pure function of the prowl and the language.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kerker.errors import N_
from kerker.i18n import Translate, dice_text, translator
from kerker.prowl.model import (
    FRIENDLY,
    OUTSIDE,
    PATROL,
    SECURITY_KEYS,
    SECURITY_SHORT,
    Challenge,
    Connection,
    Prowl,
)
from kerker.render.kit import md_code
from kerker.render.kit import md_text as _e
from kerker.tables.render import number


def _cell(text: object) -> str:
    """Text for a table cell: one line, Markdown and HTML escaped (pipes too)."""
    return _e(str(text))


def _text(p: Prowl, key: str, lang: str) -> str:
    """The rule text of ``key`` in ``lang``, escaped for Markdown (a plan's texts are
    user input)."""
    return _e(_raw_text(p, key, lang))


def _raw_text(p: Prowl, key: str, lang: str) -> str:
    texts = p.texts.get(key)
    if not texts:
        return key.rsplit(":", 1)[-1]
    for code in (lang, "en", *texts):
        if code in texts:
            return texts[code]
    return key


def _attribute_name(p: Prowl, key: str, lang: str) -> str:
    return _text(p, f"mazeprowl/prowl-attributes:{key}", lang)


_CHANGE_PHRASES = (
    ("has no door left", N_("has no door left")),
    ("budget closed", N_("budget closed")),
    ("loot removed", N_("loot removed")),
    ("added to", N_("added to")),
    ("door RW", N_("door RW")),
)
_CHANGE_WORDS = {
    "patrol": N_("on patrol"),
    "stationed": N_("stationed"),
    "removed": N_("removed"),
    "added": N_("added"),
    "dropped": N_("dropped"),
    "forfeited": N_("forfeited"),
    "trap": N_("trap"),
    "none": N_("none"),
    "open": N_("open passage"),
    "friendly": N_("friendly"),
    "hostile": N_("hostile"),
}
_SECURITY_WORDS = dict(zip(SECURITY_KEYS, SECURITY_SHORT, strict=True))


def change_text(p: Prowl, change: str, lang: str) -> str:
    """A fine-tuning change of the plan's log (kept in stable English keys: ``R3 lo -> mid``,
    ``C2: stationed -> patrol R1-R2``, ``added C18 maglock_lockdown 6``) in ``lang``: its
    words translated, security levels as LoSec/MidSec/HiSec, attributes and challenges by
    their rule texts (a challenge's or faction's up to its first comma); ids, numbers stay."""
    _ = translator(lang)
    names: dict[str, str] = {}
    for key in p.texts:
        table, _sep, sub = key.rpartition(":")
        if table.startswith(
            ("mazeprowl/challenge-", "mazeprowl/door-trap", "mazeprowl/prowl-attr", "lotto")
        ):
            text = _raw_text(p, key, lang).split(",")[0].split(" (")[0].rstrip(".")
            names.setdefault(sub, text)
    text = change
    marks: dict[str, str] = {}
    for i, (phrase, msgid) in enumerate(_CHANGE_PHRASES):
        if phrase in text:
            mark = f"\x00{i}\x00"
            text = text.replace(phrase, mark)
            marks[mark] = _(msgid)

    def word(match: re.Match[str]) -> str:
        token = match.group(0)
        if token in _SECURITY_WORDS:
            return _SECURITY_WORDS[token]
        if token in _CHANGE_WORDS:
            return _(_CHANGE_WORDS[token])
        return names.get(token, token)

    # a challenge's level ("Stufe" in German, not a dungeon's "Ebene")
    text = re.sub(r"\blevel (\d+)", lambda m: _("challenge level {n}").format(n=m.group(1)), text)
    text = re.sub(r"(?<![\w-])[a-z][a-z_]*(?![\w-])", word, text)
    for mark, shown in marks.items():
        text = text.replace(mark, shown)
    return text.replace(" -> ", " → ").replace(" <-> ", " ↔ ")


def _step_label(p: Prowl, step: str, lang: str) -> str:
    """What a die of the roll log was for, in ``lang`` (the log keeps stable English)."""
    _ = translator(lang)
    fixed = {
        "LoSec rooms": _("LoSec rooms"),
        "MidSec rooms": _("MidSec rooms"),
        "HiSec rooms": _("HiSec rooms"),
        "branch points": _("branch points"),
        "accesses": _("accesses"),
        "door strength": _("door strength"),
        "factions": _("factions drawn"),
        "lotto": _("factions on the lotto"),
    }
    if step in fixed:
        return fixed[step]
    head, _sep, rest = step.partition(" ")
    if head == "attribute" and rest:
        return _("attribute: {name}").format(name=_attribute_name(p, rest, lang))
    parts = {
        "challenges": _("{id}: challenges"),
        "level": _("{id}: level"),
        "loot": _("{id}: loot"),
        "loot value": _("{id}: loot value"),
        "loot hidden": _("{id}: loot hidden"),
        "loot locked": _("{id}: loot locked"),
        "loot trap": _("{id}: loot trap"),
        "trap": _("{id}: trap"),
    }
    if rest in parts:
        return parts[rest].format(id=head)
    return step


def _outcome(p: Prowl, r: Mapping[str, Any], lang: str) -> str:
    """The row a die of the log landed on: its text in ``lang`` when the plan has it,
    else the row's range (language-neutral), else its key."""
    _ = translator(lang)
    lotto = r.get("step") in ("factions", "lotto")
    texts = p.texts.get(f"lotto:{r.get('key')}" if lotto else f"{r.get('table')}:{r.get('key')}")
    if texts and lang in texts:
        return _cell(texts[lang])
    if r.get("row"):
        return _("row {row}").format(row=r["row"])
    return _cell(r.get("key", ""))


def _kind(c: Challenge, _: Translate) -> str:
    if c.type == "creature":
        return _("creature, mobile") if c.mobile else _("creature")
    return _("trap") if c.type == "trap" else c.type


def challenge_line(p: Prowl, c: Challenge, lang: str) -> str:
    """One challenge as a sentence-like line: id, subtype text, kind, level, mode."""
    _ = translator(lang)
    text = _text(p, f"{c.table}:{c.subtype}", lang)
    where = (
        _("on patrol: {route}").format(route=" – ".join(map(_e, c.route)))
        if c.mode == PATROL
        else _("stationed")
    )
    return _("**{id}** {text} ({kind}) – level {level}, {where}").format(
        id=_e(c.id), text=text, kind=_e(_kind(c, _)), level=c.level, where=where
    )


def _door_words(conn: Connection, p: Prowl, lang: str) -> str:
    _ = translator(lang)
    if not conn.door:
        return _("open passage")
    words = _("strength {n}").format(n=conn.strength)
    if conn.trap is not None:
        words += ", " + _("trap: {text}").format(
            text=_text(p, f"{conn.trap.table}:{conn.trap.subtype}", lang)
        )
    return words


def render_markdown(p: Prowl, lang: str) -> str:
    """The GM sheet of ``p`` in ``lang`` (de, it or en)."""
    _ = translator(lang)
    s = p.structure
    out: list[str] = []
    title = _("Prowl – seed {seed}").format(seed=p.seed) if p.seed is not None else _("Prowl")
    out.append(f"# {title}")
    out.append("")
    out.append(
        " · ".join(
            [
                _("reputation: {n}").format(n=p.reputation),
                _("players: {n}").format(n=p.players),
                _("accesses: {n}").format(n=p.accesses),
                _("rooms: {n}").format(n=len(p.rooms)),
                f"kerker {p.version}",
            ]
        )
    )
    out.append("")

    # Factions.
    out.append("## " + _("Factions"))
    out.append("")
    source = _("the default list") if p.lotto.source == "default" else _e(p.lotto.source)
    available = sum(1 for e in p.lotto.entries if e.stance != FRIENDLY)
    out.append(
        _(
            "Drawn on the {dice} lotto ({source}): it holds the insider connections and "
            "{n} hostile factions (for these players and this reputation); {n} distinct "
            "entries are drawn."
        ).format(
            dice=_e(dice_text(p.lotto.dice, lang)),
            source=source,
            n=min(s.hostile_wanted, available),
        )
    )
    if available < s.hostile_wanted:
        out.append(
            _("The rules ask for {wanted}, but the list holds only {n}.").format(
                wanted=s.hostile_wanted, n=available
            )
        )
    out.append("")
    if p.factions:
        out.append("| | " + _("Faction") + " | " + _("Side") + " | " + _("Draw") + " |")
        out.append("|---|---|---|---|")
        for f in p.factions:
            side = (
                (_("insider connection") if f.insider else _("friendly"))
                if f.stance == FRIENDLY
                else _("hostile")
            )
            draw = str(f.roll) if f.roll is not None else "–"
            if f.origin == "tuning":
                draw += " " + _("(fine-tuning)")
            out.append(f"| {_e(f.id)} | {_text(p, f'lotto:{f.key}', lang)} | {side} | {draw} |")
    else:
        out.append(_("No faction is in play."))
    out.append("")

    # Attributes.
    out.append("## " + _("Prowl attributes"))
    out.append("")
    out.append("| " + _("Attribute") + " | " + _("Value") + " |")
    out.append("|---|---:|")
    for key, value in p.attributes:
        out.append(f"| {_attribute_name(p, key, lang)} | {_cell(value)} |")
    out.append("")

    # Structure.
    counts = p.security_counts()
    out.append("## " + _("Structure"))
    out.append("")
    out.append("| " + _("Security") + " | " + _("Rooms") + " | " + _("Roll") + " |")
    out.append("|---|---:|---|")
    out.append(f"| LoSec | {counts[1]} | " + _("reputation roll {rw}").format(rw=s.lo_rw) + " |")
    for short, count, test in (("MidSec", counts[2], s.mid), ("HiSec", counts[3], s.hi)):
        reading = (
            _("sum ÷ X, kerker's rule")
            if test.reading == "sum"
            else _("successes against X, option --reading successes")
        )
        out.append(
            f"| {short} | {count} | "
            + _("Reputation({target}) test: {dice} gives degree {degree}").format(
                target=test.target, dice=_e(dice_text(test.dice, lang)), degree=test.degree
            )
            + f" ({reading}) |"
        )
    nosec_note = _("{asked} asked for, {added} added by the layout").format(
        asked=s.nosec_requested, added=s.nosec_added
    )
    out.append(f"| NoSec | {counts[0]} | {nosec_note} |")
    out.append("")
    branch = _(
        "Branch points: {points} (reputation roll {rw}, halved, at most the rooms); "
        "the layout uses {used}."
    ).format(points=s.branch_points, rw=s.branch_rw, used=s.branch_used)
    if s.branch_reason == "accesses":
        branch += " " + _(
            "Exactly {points} is impossible with {n} accesses: every access "
            "is an exit, and the junctions must take them."
        ).format(points=s.branch_points, n=p.accesses)
    out.append("- " + branch)
    if s.accesses_roll is None:
        out.append("- " + _("Accesses: {n} (chosen).").format(n=p.accesses))
    else:
        out.append(
            "- " + _("Accesses: {n} (rolled {roll}).").format(n=p.accesses, roll=s.accesses_roll)
        )
    out.append(
        "- "
        + _(
            "Door strength: one reputation roll for all doors, {rw}; each door adds what it joins."
        ).format(rw=p.door_rw)
    )
    out.append("")

    # The plan at a glance.
    out.append("## " + _("Rooms"))
    out.append("")
    out.append(
        "| "
        + " | ".join(
            [
                _("Room"),
                _("Security"),
                _("Depth"),
                _("Exits"),
                _("Branch points"),
                _("Challenges"),
                _("Loot"),
            ]
        )
        + " |"
    )
    out.append("|---|---|---:|---:|---:|---|---:|")
    for room in p.rooms:
        items = ", ".join(f"{_e(c.id)} ({c.level})" for c in p.challenges_in(room.id)) or "–"
        loot = (
            f"{number(room.loot.value, lang)} {_e(room.loot.unit)}"
            if room.loot is not None
            else "–"
        )
        out.append(
            f"| {_e(room.id)} | {SECURITY_SHORT[room.security]} | {room.depth} | "
            f"{p.exits(room.id)} | {room.branch_cost} | {items} | {loot} |"
        )
    out.append("")
    for room in p.rooms:
        head = _("{id} – {security}, depth {depth}, exits: {exits}").format(
            id=_e(room.id),
            security=SECURITY_SHORT[room.security],
            depth=room.depth,
            exits=p.exits(room.id),
        )
        out.append(f"### {head}")
        out.append("")
        ways = []
        for conn in p.links(room.id):
            other = conn.other(room.id)
            where = _("from outside") if other == OUTSIDE else _("to {room}").format(room=_e(other))
            ways.append(f"{_e(conn.id)} {where} ({_door_words(conn, p, lang)})")
        out.append("- " + _("Ways: {list}").format(list="; ".join(ways)))
        here = p.challenges_in(room.id)
        if room.security == 0:
            out.append("- " + _("No security: no challenges, no loot."))
        elif not here:
            out.append("- " + _("No challenge."))
        for c in here:
            out.append("- " + challenge_line(p, c, lang))
        passing = [
            c for c in p.challenges if c.mode == PATROL and room.id in c.route and c.room != room.id
        ]
        for c in passing:
            out.append("- " + _("{id} passes through on patrol.").format(id=_e(c.id)))
        if room.loot is not None:
            found = room.loot
            secured = _text(p, f"mazeprowl/loot-secured:{found.secured}", lang)
            parts = []
            for x in found.protections:
                known = {
                    "hidden": _("hidden {n}"),
                    "locked": _("locked {n}"),
                    "trap": _("trap {n}"),
                }.get(x.kind)
                word = known.format(n=x.level) if known is not None else f"{_e(x.kind)} {x.level}"
                if x.subtype and x.table:
                    word += f" ({_text(p, f'{x.table}:{x.subtype}', lang)})"
                parts.append(word)
            line = _("Loot: {value} {unit}. {secured}").format(
                value=number(found.value, lang), unit=_e(found.unit), secured=secured
            )
            if parts:
                line += " " + _("Levels: {list}.").format(list=", ".join(parts))
            out.append("- " + line)
        out.append("")

    # Doors.
    out.append("## " + _("Doors"))
    out.append("")
    out.append("| " + " | ".join([_("Door"), _("Between"), _("Strength"), _("Trap")]) + " |")
    out.append("|---|---|---:|---|")
    for conn in p.connections:
        a, b = conn.between
        outside = _("outside")
        passage = _("open passage")
        between = f"{outside if a == OUTSIDE else _e(a)} – {_e(b)}"
        if not conn.door:
            out.append(f"| {_e(conn.id)} | {between} | – | {passage} |")
            continue
        trap = (
            _text(p, f"{conn.trap.table}:{conn.trap.subtype}", lang)
            if conn.trap is not None
            else "–"
        )
        strength = str(conn.strength)
        if conn.bonus:
            strength += f" (+{conn.bonus})"
        out.append(f"| {_e(conn.id)} | {between} | {strength} | {trap} |")
    out.append("")

    # Fine-tuning.
    t = p.tuning
    out.append("## " + _("Fine-tuning"))
    out.append("")
    out.append(
        _("Budget {budget} (reputation × accesses); {left} left.").format(
            budget=t.budget, left=t.left
        )
    )
    if t.phase != "budget":
        out.append(_("The budget is closed: only redistribution remains."))
    out.append("")
    if t.log:
        out.append(
            "| # | "
            + _("Operation")
            + " | "
            + _("Cost")
            + " | "
            + _("Left")
            + " | "
            + _("Changes")
            + " |"
        )
        out.append("|---:|---|---:|---:|---|")
        for e in t.log:
            out.append(
                f"| {e.n} | {md_code(e.op, table=True)} | {e.cost} | {e.left} | "
                f"{_cell('; '.join(change_text(p, c, lang) for c in e.changes))} |"
            )
    else:
        out.append(_("No operation yet. Example: `kerker prowl tune PLAN.json raise-room R3`."))
    out.append("")

    # Rolls.
    out.append("## " + _("Rolls"))
    out.append("")
    out.append("<details><summary>" + _("{n} rolls").format(n=len(p.rolls)) + "</summary>")
    out.append("")
    for r in p.rolls:
        out.append(
            f"- {_cell(_step_label(p, str(r.get('step', '')), lang))}: "
            f"{md_code(dice_text(str(r.get('explain', '')), lang))} → {_outcome(p, r, lang)}"
        )
    out.append("")
    out.append("</details>")
    out.append("")
    return "\n".join(out)


def render_pdf(p: Prowl, lang: str, *, paper: str = "a4") -> bytes:
    """The heist on one landscape page (``paper`` ``a4`` or ``letter``): the plan (vector)
    beside one entry per room (security, ways, challenges, loot) and the doors in one
    compact list. Refuses what :func:`kerker.render.pdf.sheet_pdf` refuses."""
    from kerker.prowl.render_svg import render_svg
    from kerker.render.pdf import Section, Sheet, sheet_pdf

    _ = translator(lang)
    sections = []
    for room in p.rooms:
        head = _("{id} – {security}, depth {depth}, exits: {exits}").format(
            id=room.id,
            security=SECURITY_SHORT[room.security],
            depth=room.depth,
            exits=p.exits(room.id),
        )
        lines = []
        for c in p.challenges_in(room.id):
            text = _raw_text(p, f"{c.table}:{c.subtype}", lang)
            lines.append(f"{c.id} {text} ({_kind(c, _)}) – {c.level}")
        if room.loot is not None:
            secured = _raw_text(p, f"mazeprowl/loot-secured:{room.loot.secured}", lang)
            lines.append(
                _("Loot: {value} {unit}. {secured}").format(
                    value=number(room.loot.value, lang), unit=room.loot.unit, secured=secured
                )
            )
        if room.security == 0:
            lines.append(_("No security: no challenges, no loot."))
        sections.append(Section(head, lines or [_("No challenge.")]))
    doors = []
    for conn in p.connections:
        a, b = conn.between
        between = f"{_('outside') if a == OUTSIDE else a} – {b}"
        if not conn.door:
            doors.append(f"{conn.id} {between}: {_('open passage')}")
            continue
        words = _("strength {n}").format(n=conn.strength)
        if conn.trap is not None:
            words += ", " + _("trap: {text}").format(
                text=_raw_text(p, f"{conn.trap.table}:{conn.trap.subtype}", lang)
            )
        doors.append(f"{conn.id} {between}: {words}")
    title = _("Prowl – seed {seed}").format(seed=p.seed) if p.seed is not None else _("Prowl")
    subtitle = " · ".join(
        [
            _("reputation: {n}").format(n=p.reputation),
            _("players: {n}").format(n=p.players),
            _("rooms: {n}").format(n=len(p.rooms)),
        ]
    )
    sheet = Sheet(
        title=title,
        subtitle=subtitle,
        svg=render_svg(p, lang),
        sections=sections,
        tail=[_("Doors") + ": " + "; ".join(doors)] if doors else [],
        lang=lang,
        more=_("{n} more entries: see the full key."),
    )
    return sheet_pdf([sheet], paper=paper)
