"""The walls of an area as the reader names them: ``o`` is Osten in German and ovest in
Italian, so a wall typed at the command line, in the terminal loop or in the web's JSON is
read in the reader's language and turned into kerker's stable key (``n``, ``e``, ``s``,
``w``, as events, exit keys and documents keep it).

Accepted, case-insensitive: kerker's keys ``n e s w``; the reader's words and any start of
them (German ``o``, ``ost``, ``Osten``; Italian ``o``, ``ov``, ``ovest``; English ``e``,
``east``); and the whole word in any of the three languages (``Westen``, ``ovest`` and
``west`` are the same wall everywhere). ``ue``/``oe``/``ae`` stand for ``ü``/``ö``/``ä``
(``Sueden``). The words are the catalogs' own ("north" -> "Norden", "nord"), the same the
journal writes, so a wall reads back as it was told.
"""

from __future__ import annotations

from kerker.errors import N_, OptionError
from kerker.i18n import LANGUAGES, translator

WALLS: tuple[tuple[str, str], ...] = (
    ("n", N_("north")),
    ("e", N_("east")),
    ("s", N_("south")),
    ("w", N_("west")),
)
"""kerker's wall keys and their names (the journal's words)."""
COMPASS: dict[str, str] = {
    **dict(WALLS),
    "ne": N_("north-east"),
    "se": N_("south-east"),
    "sw": N_("south-west"),
    "nw": N_("north-west"),
}
"""The side of every exit, the 45° walls' too (``"ne"``), as the exit lists name it."""


def _fold(text: str) -> str:
    return text.strip().casefold().replace("ü", "ue").replace("ö", "oe").replace("ä", "ae")


def wall_words(lang: str) -> list[str]:
    """The four wall names in ``lang`` ("Norden", "Osten", "Süden", "Westen")."""
    _ = translator(lang)
    return [_(word) for _key, word in WALLS]


def wall_letters(lang: str) -> list[str]:
    """The four letters of the walls in ``lang`` (de ``n o s w``, it ``n e s o``)."""
    return [word[0].lower() for word in wall_words(lang)]


def read_wall(text: str | None, lang: str) -> str | None:
    """kerker's key (``n``, ``e``, ``s``, ``w``) of the wall ``text`` names in ``lang``;
    None for no text. Refuses anything else with one line that lists the letters and words
    of ``lang``."""
    if text is None or not text.strip():
        return None
    typed = _fold(text)
    keys = [key for key, _word in WALLS]
    if typed in keys:
        return typed
    for key, word in zip(keys, wall_words(lang), strict=True):
        if _fold(word).startswith(typed):
            return key
    for other in LANGUAGES:
        for key, word in zip(keys, wall_words(other), strict=True):
            if _fold(word) == typed:
                return key
    raise OptionError(
        N_("a wall is {letters} or {words}, not {side!r}"),
        letters=", ".join(wall_letters(lang)),
        words=", ".join(wall_words(lang)),
        side=text.strip()[:20],
    )
