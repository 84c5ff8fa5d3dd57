"""A zone map as a Markdown sheet for the game master's table.

Title, the grid (as in the terminal), the start and reachability notes, then one section
per area (zones, connections, property with its reach, sense prompts, encounter, loot) and
the hidden connections with their hints. Pure function of the map.
"""

from __future__ import annotations

from kerker.i18n import translator
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
        head += f" – {details.name.text(lang)}"
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
    prop = details.property.text(lang)
    if details.scope is not None:
        prop += f" *({details.scope.text(lang)})*"
    out.append(f"- **{label['property']}:** {prop}")
    if details.senses:
        out.append(f"- **{label['description']}:**")
        senses = _senses(lang)
        for sense in details.senses:
            kind = sense.values.get("sense")
            name = senses.get(str(kind), str(kind)) if kind is not None else ""
            prefix = f"*{name}:* " if name else ""
            out.append(f"  - {prefix}{sense.text(lang)}")
    out.append(f"- **{label['encounter']}:** {details.encounter.text(lang)}")
    out.append(f"- **{label['loot']}:** {details.loot.text(lang)}")
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
    sub = " · ".join([size, _("zones: {n}").format(n=len(zmap.zones)),
                      _("areas: {n}").format(n=len(zmap.areas)),
                      theme_label(zmap.theme, lang)])
    out = [f"# {title}", "", sub, "", "```text", *grid_lines(zmap), "```", "",
           _("═ ║ connection   ? hidden connection   * suggested start   · empty node"), ""]
    out += [f"- {line}" for line in notes(zmap, lang)]
    label = _labels(lang)
    out += ["", f"## {label['areas']}", ""]
    for area in zmap.areas:
        out += _area(zmap, area, lang)
    hidden = [link for link in zmap.connections if link.hidden]
    if hidden:
        out += [f"## {label['hidden']}", ""]
        for link in hidden:
            hint = f" {link.hint.text(lang)}" if link.hint is not None else ""
            if link.via:
                hint = " " + _("(a way across empty nodes: {n})").format(n=len(link.via)) + hint
            out.append(f"- **{link.a} – {link.b}:**{hint}")
        out.append("")
    if zmap.seed is not None:
        out.append(_("Seed {seed}: run again with --seed {seed} for the same map.").format(
            seed=zmap.seed))
        out.append("")
    return "\n".join(out)
