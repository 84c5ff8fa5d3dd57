"""One line for how many areas a level (or a session) has: "40 areas (22 not counting
corridors)", "40 Gebiete (22 ohne Gänge)", "40 aree (22 senza corridoi)", in the singular
for one ("1 area", "1 Gebiet").

The second number counts every area that is not a corridor (rooms, halls, chambers, caves),
so it names what it leaves out, never "rooms and halls" (a cave is neither).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kerker.i18n import Translate, plural_of


def area_count_text(areas: Iterable[Mapping[str, Any]], _: Translate) -> str:
    """The count line for ``areas`` (area dicts with a ``kind``) in the language of ``_``."""
    listed = list(areas)
    rooms = sum(1 for a in listed if a.get("kind") != "corridor")
    ngettext = plural_of(_)
    return ngettext(
        "{n} area ({rooms} not counting corridors)",
        "{n} areas ({rooms} not counting corridors)",
        len(listed),
    ).format(n=len(listed), rooms=rooms)
