"""One line for how many areas a level (or a session) has: "areas: 40 (22 not counting
corridors)", "Gebiete: 40 (22 ohne Gänge)", "aree: 40 (22 senza corridoi)".

The second number counts every area that is not a corridor (rooms, halls, chambers, caves),
so it names what it leaves out, never "rooms and halls" (a cave is neither).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kerker.errors import N_
from kerker.i18n import Translate

AREA_COUNT = N_("areas: {n} ({rooms} not counting corridors)")


def area_count_text(areas: Iterable[Mapping[str, Any]], _: Translate) -> str:
    """The count line for ``areas`` (area dicts with a ``kind``) in the language of ``_``."""
    listed = list(areas)
    rooms = sum(1 for a in listed if a.get("kind") != "corridor")
    return _(AREA_COUNT).format(n=len(listed), rooms=rooms)
