"""A zone map as a Markdown sheet for the game master's table.

Title, the grid (as in the terminal), the start and reachability notes, then one section
per area (zones, connections, property with its reach, sense prompts, encounter, loot) and
the hidden connections with their hints. Pure function of the map.
"""

from __future__ import annotations

from kerker.i18n import translator
from kerker.render.kit import md_text as _e
from kerker.zones.model import Area, ZoneMap
from kerker.zones.render_text import grid_lines, notes, theme_label


def _senses(lang: str) -> dict[str, str]:
    _ = translator(lang)
    return {"see": _("See"), "feel": _("Feel"), "smell": _("Smell"), "hear": _("Hear")}


def _labels(lang: str) -> dict[str, str]:
    _ = translator(lang)
    return {
        "zones": _("Zones"),
        "connections": _("Connections"),
        "hidden": _("Hidden connections"),
        "alone": _("No connection at all."),
        "property": _("Zone property"),
        "description": _("Description"),
        "encounter": _("Encounter"),
        "loot": _("Loot"),
        "areas": _("Areas"),
    }


def _area(zmap: ZoneMap, area: Area, lang: str) -> list[str]:
    _ = translator(lang)
    label = _labels(lang)
    details = area.details
    head = f"### {area.letter}"
    if details is not None:
        head += f" – {_e(details.name.text(lang), lead=False)}"
    if area.letter == zmap.start:
        head += " ★"
    out = [head, ""]
    out.append(f"- **{label['zones']}:** {len(area.zones)}")
    opened = ", ".join(zmap.linked(area.letter)) or "–"
    rolled = _("rolled: {n}").format(n=area.rolled)
    out.append(f"- **{label['connections']}:** {opened} ({rolled})")
    hidden = zmap.linked(area.letter, hidden=True)
    if hidden:
        out.append(f"- **{label['hidden']}:** {', '.join(hidden)}")
    if not zmap.links(area.letter, hidden=None):
        out.append(f"- {label['alone']}")
    if details is None:
        return [*out, ""]
    prop = _e(details.property.text(lang), lead=False)
    if details.scope is not None:
        prop += f" *({_e(details.scope.text(lang), lead=False)})*"
    out.append(f"- **{label['property']}:** {prop}")
    if details.senses:
        out.append(f"- **{label['description']}:**")
        senses = _senses(lang)
        for sense in details.senses:
            kind = sense.values.get("sense")
            name = senses.get(str(kind), str(kind)) if kind is not None else ""
            prefix = f"*{name}:* " if name else ""
            out.append(f"  - {prefix}{_e(sense.text(lang), lead=not prefix)}")
    out.append(f"- **{label['encounter']}:** {_e(details.encounter.text(lang), lead=False)}")
    out.append(f"- **{label['loot']}:** {_e(details.loot.text(lang), lead=False)}")
    return [*out, ""]


def render_md(zmap: ZoneMap, lang: str) -> str:
    """The game master's sheet in ``lang`` as Markdown text (ends with a newline)."""
    _ = translator(lang)
    title = _("Zone map")
    if zmap.seed is not None:
        title = _("Zone map – seed {seed}").format(seed=zmap.seed)
    size = _("{w} × {h} nodes").format(w=zmap.width, h=zmap.height)
    if zmap.size_rolled:
        size += " " + _("(rolled)")
    sub = " · ".join(
        [
            size,
            _("zones: {n}").format(n=len(zmap.zones)),
            _("areas: {n}").format(n=len(zmap.areas)),
            theme_label(zmap.theme, lang),
        ]
    )
    out = [
        f"# {title}",
        "",
        sub,
        "",
        "```text",
        *grid_lines(zmap),
        "```",
        "",
        _("═ ║ connection   ? hidden connection   * suggested start   · empty node"),
        "",
    ]
    out += [f"- {_e(line, lead=False)}" for line in notes(zmap, lang)]
    label = _labels(lang)
    out += ["", f"## {label['areas']}", ""]
    for area in zmap.areas:
        out += _area(zmap, area, lang)
    hidden = [link for link in zmap.connections if link.hidden]
    if hidden:
        out += [f"## {label['hidden']}", ""]
        for link in hidden:
            hint = f" {_e(link.hint.text(lang), lead=False)}" if link.hint is not None else ""
            if link.via:
                hint = " " + _("(a way across empty nodes: {n})").format(n=len(link.via)) + hint
            out.append(f"- **{link.a} – {link.b}:**{hint}")
        out.append("")
    if zmap.seed is not None:
        out.append(
            _("Seed {seed}: run again with --seed {seed} for the same map.").format(seed=zmap.seed)
        )
        out.append("")
    return "\n".join(out)


def render_pdf(zmap: ZoneMap, lang: str, *, paper: str = "a4") -> bytes:
    """The game master's sheet on one landscape page (``paper`` ``a4`` or ``letter``): the
    map (vector) beside one entry per area (zones, connections, property, senses,
    encounter, loot) and the hidden connections with their hints. Refuses what
    :func:`kerker.render.pdf.sheet_pdf` refuses."""
    from kerker.render.pdf import Section, Sheet, sheet_pdf
    from kerker.zones.render_svg import render_svg

    _ = translator(lang)
    label = _labels(lang)
    sections = []
    for area in zmap.areas:
        details = area.details
        head = area.letter
        if details is not None:
            head += f" – {details.name.text(lang)}"
        if area.letter == zmap.start:
            head += " ★"
        lines = [
            f"{label['zones']}: {len(area.zones)} · {label['connections']}: "
            + (", ".join(zmap.linked(area.letter)) or "–")
        ]
        hidden = zmap.linked(area.letter, hidden=True)
        if hidden:
            lines.append(f"{label['hidden']}: {', '.join(hidden)}")
        if details is not None:
            prop = details.property.text(lang)
            if details.scope is not None:
                prop += f" ({details.scope.text(lang)})"
            lines.append(f"{label['property']}: {prop}")
            lines += [sense.text(lang) for sense in details.senses]
            lines.append(f"{label['encounter']}: {details.encounter.text(lang)}")
            lines.append(f"{label['loot']}: {details.loot.text(lang)}")
        sections.append(Section(head, lines))
    tail = [
        f"{link.a} – {link.b}: {link.hint.text(lang)}"
        for link in zmap.connections
        if link.hidden and link.hint is not None
    ]
    if tail:
        tail.insert(0, label["hidden"] + ":")
    title = (
        _("Zone map – seed {seed}").format(seed=zmap.seed)
        if zmap.seed is not None
        else _("Zone map")
    )
    subtitle = " · ".join(
        [
            _("{w} × {h} nodes").format(w=zmap.width, h=zmap.height),
            _("zones: {n}").format(n=len(zmap.zones)),
            _("areas: {n}").format(n=len(zmap.areas)),
        ]
    )
    sheet = Sheet(
        title=title,
        subtitle=subtitle,
        svg=render_svg(zmap, view="gm", lang=lang),
        sections=sections,
        tail=tail,
        lang=lang,
        more=_("{n} more entries: see the full key."),
    )
    return sheet_pdf([sheet], paper=paper)
