"""Forgiving comparison of words a game master types (case, umlauts, accents, hyphens).

>>> fold("  Sehr-SCHWER ")
'sehr schwer'
>>> fold("Äußerst weit") == fold("aeusserst weit")
True
>>> sorted(variants("äußerst"))
['aeusserst', 'ausserst']
>>> fold("Child’s play")
'childs play'
"""

from __future__ import annotations

import re
import unicodedata

_UMLAUTS_LONG = {"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"}
_UMLAUTS_SHORT = {"ä": "a", "ö": "o", "ü": "u", "ß": "ss"}
_APOSTROPHES = "'’‘`´"
_SEPARATORS = re.compile(r"[\s\-_‐‑–—]+")


def _fold(text: str, umlauts: dict[str, str]) -> str:
    text = unicodedata.normalize("NFC", text).lower()
    for char, replacement in umlauts.items():
        text = text.replace(char, replacement)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    for char in _APOSTROPHES:
        text = text.replace(char, "")
    return _SEPARATORS.sub(" ", text).strip()


def fold(text: str) -> str:
    """``text`` lower-cased, umlauts as ae/oe/ue/ss, accents and apostrophes dropped,
    runs of spaces, hyphens and underscores made one space."""
    return _fold(text, _UMLAUTS_LONG)


def variants(word: str) -> frozenset[str]:
    """The folded forms under which a vocabulary word is found.

    Both ``ü -> ue`` and ``ü -> u`` (dots simply left off) are accepted, so "über" is found
    as "ueber" and as "uber"; ``ß`` is always ``ss``. Typed input is folded with :func:`fold`.
    """
    return frozenset({_fold(word, _UMLAUTS_LONG), _fold(word, _UMLAUTS_SHORT)})
