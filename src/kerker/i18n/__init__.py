"""Languages of everything a game master reads: German, Italian, English.

UI strings are English in the code, marked with ``_()`` / ``N_()`` and translated through
gettext catalogs in ``i18n/locale/<lang>/LC_MESSAGES/kerker.mo`` (sources: the ``.po`` files
beside them; ``python scripts/i18n.py`` extracts, updates and compiles them with Babel).
Rule texts are translated in the rule data, not here.
"""

from __future__ import annotations

import gettext
import os
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from kerker.errors import N_, OptionError

LANGUAGES: tuple[str, ...] = ("de", "it", "en")
FALLBACK = "en"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "kerker"

Translate = Callable[[str], str]


def default_language(environ: dict[str, str] | None = None) -> str:
    """The language from the locale variables (LANGUAGE, LC_ALL, LC_MESSAGES, LANG).

    Returns one of :data:`LANGUAGES`; anything unknown or unset falls back to English.
    """
    env = os.environ if environ is None else environ
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var, "")
        if not value:
            continue
        for part in value.split(":"):
            code = part.split(".")[0].split("_")[0].split("-")[0].lower()
            if code in LANGUAGES:
                return code
            if code in ("c", "posix"):
                return FALLBACK
        return FALLBACK
    return FALLBACK


def check_language(lang: str) -> str:
    """Return ``lang`` normalised to a known code, or raise :class:`OptionError`."""
    code = lang.strip().lower()
    if code not in LANGUAGES:
        raise OptionError(
            N_("unknown language {lang!r}; choose one of {choices}"),
            lang=lang,
            choices=", ".join(LANGUAGES),
        )
    return code


_LANGUAGE_OF: dict[Translate, str] = {}
"""The language of each gettext function :func:`translator` handed out (the functions
themselves stay plain bound methods: they are called very often)."""


@lru_cache(maxsize=8)
def translator(lang: str) -> Translate:
    """The gettext function for ``lang``; English (or a missing catalog) is the identity.
    :func:`language_of` tells which language it speaks."""
    code = check_language(lang)
    if code == FALLBACK:
        return _identity
    try:
        with (LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.mo").open("rb") as fh:
            catalog = gettext.GNUTranslations(fh)
    except OSError:
        return _identity
    _LANGUAGE_OF[catalog.gettext] = code
    return catalog.gettext


def language_of(translate: Translate | None) -> str:
    """The language a :func:`translator` function speaks; English for any other function
    (or None)."""
    if translate is None:
        return FALLBACK
    try:
        return _LANGUAGE_OF.get(translate, FALLBACK)
    except TypeError:  # an unhashable callable
        return FALLBACK


def _identity(text: str) -> str:
    return text


Plural = Callable[[str, str, int], str]


def _english_plural(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


def plural_of(translate: Translate) -> Plural:
    """The ngettext of the catalog behind ``translate`` (a :func:`translator` function):
    ``plural_of(_)("{n} area", "{n} areas", n)`` picks the language's form for ``n`` (the
    catalog's Plural-Forms: two in de, three in it); English and a missing catalog: one
    for n == 1, the plural otherwise. The caller fills ``{n}`` with ``format``."""
    catalog = getattr(translate, "__self__", None)
    if isinstance(catalog, gettext.NullTranslations):
        return catalog.ngettext
    return _english_plural


# The rule data writes W20 and, where a text does (seed 004: "1w6"), w6: both are dice.
_DICE_W = re.compile(r"(?<![A-Za-zÄÖÜäöüß])(\d*)[Ww](?=\d|%)")
_DICE_D = re.compile(r"(?<![A-Za-zÄÖÜäöüß])(\d*)[dw](?=\d|%)")


def dice_text(notation: str, lang: str) -> str:
    """Dice notation the way ``lang`` writes it: ``W20``, ``3W6``, ``W%`` in German,
    ``d20``, ``3d6``, ``d%`` in Italian and English (the rule texts' own spellings).

    Only the die letter changes; modifiers, keep/drop suffixes and the rest stay as given.
    Meant for dice fields and roll explanations, not for prose.
    """
    if lang == "de":
        return _DICE_D.sub(r"\1W", notation)
    return _DICE_W.sub(r"\1d", notation)
