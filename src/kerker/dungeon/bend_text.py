"""The key's sentence for a bent roll, in the reader's language (German, Italian, English
through the catalogs): "gewürfelt: 4 Felder (40 Fuß) breit; gebaut: 2 Felder (20 Fuß),
weil der Platz belegt ist".

Reads a document's ``bends`` entries (docs/dungeon-json.md): ``what`` and ``reason`` are
stable keys; an unknown key is shown as it is (a newer document in an older kerker), never
an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kerker.errors import N_
from kerker.i18n import Translate

REASONS: dict[str, str] = {
    "no_room": N_("because the space is taken"),
    "rerolled": N_("because the first roll did not fit, so it was rolled again"),
    "too_narrow": N_("because the corridor is too narrow for it"),
    "grid": N_("because the shape is drawn on the grid of squares"),
    "sheet_edge": N_("because the sheet ends there"),
    "no_up_from_level_1": N_("there is no level above the first"),
    "joined": N_("because it met a room or corridor already mapped"),
    "turned": N_("because it met a room or corridor already mapped and turned by A.4"),
}
SHAPES: dict[str, str] = {
    "rect": N_("rectangle"),
    "cave": N_("cave"),
    "circle": N_("circle"),
    "hexagon": N_("hexagon"),
    "octagon": N_("octagon"),
    "oval": N_("oval"),
    "trapezoid": N_("trapezoid"),
    "triangle": N_("triangle"),
    "irregular": N_("irregular"),
    "square": N_("square"),
}
THINGS: dict[str, str] = {
    "columns": N_("a row of columns"),
    "double_columns": N_("a double row of columns"),
    "stream": N_("a stream"),
    "river": N_("a river"),
    "chasm": N_("a chasm"),
    "room": N_("a room"),
    "hall": N_("a hall"),
    "corridor": N_("a corridor"),
    "chamber": N_("a chamber"),
    "cave": N_("a cave"),
    "up": N_("a way up"),
    "dead_end": N_("a dead end"),
    "blocked": N_("blocked"),
    "elevator": N_("the 20 × 20 ft elevator room"),
    "left": N_("left"),
    "right": N_("right"),
    "straight": N_("straight on"),
    "opposite_wall": N_("moved to the opposite wall"),
    "stays": N_("stays where it is"),
}


def _num(value: float, lang: str) -> str:
    text = f"{value:g}"
    return text.replace(".", ",") if lang in ("de", "it") else text


def whole_squares(value: float) -> tuple[int, bool]:
    """``value`` squares as the key gives them: a whole number (half up, at least 1) and
    whether it was rounded. The grid has 5 ft cells, so a slanted or round area covers part
    squares (1.25 = 5 cells); no rule rolls such a count, so no key prints it ("≈ 1 square",
    never "1,25 squares")."""
    if float(value).is_integer():
        return int(value), False
    return max(1, int(value + 0.5)), True


def _squares(value: object, _: Translate, lang: str) -> str:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return str(value)
    n, approx = whole_squares(value)
    text = _("1 square") if n == 1 else _("{n} squares").format(n=n)
    return "≈ " + text if approx else text


def _width(feet: object, _: Translate, lang: str) -> str:
    """A width as squares and feet ("2 squares (20 ft)"); one that is not a whole number of
    squares (a corridor narrowed to 15 ft on the 5 ft grid) in feet only ("15 ft")."""
    if not isinstance(feet, int | float) or isinstance(feet, bool):
        return str(feet)
    if feet % 10:
        return _("{feet} ft").format(feet=_num(feet, lang))
    squares = _squares(feet / 10, _, lang)
    return _("{squares} ({feet} ft)").format(squares=squares, feet=_num(feet, lang))


def _word(table: Mapping[str, str], value: object, _: Translate) -> str:
    text = str(value)
    if text not in table and text.split("_")[0] in table:
        text = text.split("_")[0]  # a row key (room_1x1, corridor_left_45): its kind
    return _(table[text]) if text in table else text


def bend_line(bend: Mapping[str, Any], _: Translate, lang: str) -> str:
    """One sentence for a document's ``bends`` entry."""
    what = str(bend.get("what", ""))
    rolled, built = bend.get("rolled"), bend.get("built")
    reason = _word(REASONS, bend.get("reason", ""), _)
    if what == "width":
        return _("rolled: {rolled} wide; built: {built}, {reason}").format(
            rolled=_width(rolled, _, lang), built=_width(built, _, lang), reason=reason
        )
    if what == "size":
        return _("rolled: {rolled}; built: {built}, {reason}").format(
            rolled=_squares(rolled, _, lang), built=_squares(built, _, lang), reason=reason
        )
    if what == "shape":
        return _("rolled: {rolled}; built: {built}, {reason}").format(
            rolled=_word(SHAPES, rolled, _), built=_word(SHAPES, built, _), reason=reason
        )
    if what == "exit" and isinstance(rolled, int) and isinstance(built, int):
        return _("rolled: {rolled} exits; built: {built}, {reason}").format(
            rolled=rolled, built=built, reason=reason
        )
    if what == "turn":
        return _("rolled: turn {rolled}; built: {built}, {reason}").format(
            rolled=_word(THINGS, rolled, _), built=_word(THINGS, built, _), reason=reason
        )
    if what == "stairs":
        return _("a stair up that ends in a dead end: {reason}").format(reason=reason)
    if built is None:
        return _("rolled: {rolled}; not built, {reason}").format(
            rolled=_word(THINGS, rolled, _), reason=reason
        )
    return _("rolled: {rolled}; built: {built}, {reason}").format(
        rolled=_word(THINGS, rolled, _), built=_word(THINGS, built, _), reason=reason
    )


def blocked_exit(conn: Mapping[str, Any], name: str, direction: str, _: Translate) -> str:
    """The key's line for a blocked exit (``conn["blocked"]``): the way is drawn where it
    was rolled, and the line says what was rolled behind it and why nothing is there."""
    bends = [b for b in conn.get("bends") or () if isinstance(b, Mapping)]
    if bends and bends[0].get("what") == "stairs":
        return _("{kind} {compass}: {why}").format(
            kind=name, compass=direction, why=bend_line(bends[0], _, "en")
        )
    rolled = _word(THINGS, bends[0].get("rolled"), _) if bends else "?"
    return _("{kind} {compass}: blocked (rolled behind it: {rolled}; no space for it)").format(
        kind=name, compass=direction, rolled=rolled
    )
