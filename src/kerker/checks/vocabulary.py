"""Difficulty words and luck levels, read the way the rule text speaks (seed 003).

:func:`parse_difficulty` turns "sehr schwer", "molto difficile" or "very hard" into the
modifier of the table, and applies the word rule of the "Modifikationen" section to other
words: "sehr" 10, "extrem" 15, the prefix "un-" 20, the sign from the word ("sehr weit"
-10, "extrem leicht" +15, "unschwer" +20). All words come from ``rules/hpr/checks.yaml``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from kerker.checks.data import LANGS, CheckRules, LuckLevel, load_rules
from kerker.checks.folding import fold, variants
from kerker.errors import N_, CheckError, Word

MAX_WORD_LENGTH = 100
"""Longer difficulty or luck texts are refused before any lookup."""


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """Folded lookup tables built from the rule data (see :func:`vocabulary`)."""

    table: Mapping[str, int]
    un_words: Mapping[str, int]
    intensifiers: Mapping[str, Mapping[str, int]]
    bases: Mapping[str, Mapping[str, int]]
    un_prefixes: Mapping[str, tuple[str, ...]]
    plain: int
    un_magnitude: int
    luck: Mapping[str, LuckLevel]


def _index(words: Mapping[str, int]) -> Mapping[str, int]:
    return MappingProxyType(
        {form: value for word, value in words.items() for form in variants(word)}
    )


def build_vocabulary(rules: CheckRules) -> Vocabulary:
    """Index the words of ``rules`` by their folded forms."""
    table = {
        word: row.value for row in rules.modifiers for lang in LANGS for word in row.words[lang]
    }
    wr = rules.word_rule
    un_words = {w: s * wr.un_magnitude for lang in LANGS for w, s in wr.un_words[lang].items()}
    luck: dict[str, LuckLevel] = {}
    for level in rules.luck:
        for word in (level.key, *level.aliases, *level.name.values()):
            for form in variants(word):
                luck[form] = level
    return Vocabulary(
        table=_index(table),
        un_words=_index(un_words),
        intensifiers=MappingProxyType(
            {
                lang: _index({w: i.magnitude for i in wr.intensifiers for w in i.words[lang]})
                for lang in LANGS
            }
        ),
        bases=MappingProxyType({lang: _index(wr.bases[lang]) for lang in LANGS}),
        un_prefixes=MappingProxyType(
            {lang: tuple(fold(p) for p in wr.un_prefixes[lang]) for lang in LANGS}
        ),
        plain=wr.plain,
        un_magnitude=wr.un_magnitude,
        luck=MappingProxyType(luck),
    )


@lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    """The vocabulary of the shipped rules, built once."""
    return build_vocabulary(load_rules())


def _limit(text: object, what: str) -> str:
    if not isinstance(text, str):
        raise CheckError(N_("the {what} must be text, not {value!r}"), what=what, value=text)
    if len(text) > MAX_WORD_LENGTH:
        raise CheckError(
            N_("the {what} is longer than {max} characters"), what=what, max=MAX_WORD_LENGTH
        )
    return text


def read_difficulty(text: str, vocab: Vocabulary) -> int | None:
    """The modifier ``text`` names under ``vocab``, or ``None`` when it names none.

    Order: an exact table word; a listed un-word; one base word (worth ``plain``);
    intensifier + base word of the same language; prefix "un" + base word (German), which
    takes the opposite sign of the base word.
    """
    folded = fold(text)
    if folded in vocab.table:
        return vocab.table[folded]
    if folded in vocab.un_words:
        return vocab.un_words[folded]
    tokens = folded.split(" ")
    for lang in LANGS:
        bases = vocab.bases[lang]
        if len(tokens) == 1:
            (word,) = tokens
            if word in bases:
                return bases[word] * vocab.plain
            for prefix in vocab.un_prefixes[lang]:
                rest = word.removeprefix(prefix)
                if rest != word and rest in bases:
                    return -bases[rest] * vocab.un_magnitude
        elif len(tokens) == 2:
            first, second = tokens
            if first in vocab.intensifiers[lang] and second in bases:
                return bases[second] * vocab.intensifiers[lang][first]
    return None


def parse_difficulty(text: str, *, lang: str | None = None) -> int:
    """The modifier for a difficulty word in German, Italian or English.

    Accepts the table words ("schwer" -5, "sehr schwer" -10, "kinderleicht" +20,
    "very hard", "molto difficile"...) in any case, with or without umlauts, and the word
    rule ("sehr weit" -10, "extrem leicht" +15, "unschwer" +20). Refuses unknown words
    with a :class:`CheckError` that lists table words (in ``lang`` when given).

    >>> [parse_difficulty(w) for w in ("Sehr schwer", "very hard", "sehr weit", "unschwer")]
    [-10, -10, -10, 20]
    """
    text = _limit(text, Word(N_("difficulty")))
    value = read_difficulty(text, vocabulary())
    if value is None:
        rows = load_rules().modifiers
        if lang in LANGS:
            words = [row.label(lang) for row in rows]
        else:  # German (the seed's language) and one example in each other language
            words = [*(row.label("de") for row in rows), "very hard", "molto difficile"]
        raise CheckError(
            N_(
                "unknown difficulty {text!r}; use a table word such as {words}, "
                "or sehr/extrem/un- with a word like weit or hoch"
            ),
            text=text,
            words=", ".join(words),
        )
    return value


def parse_luck(text: str) -> LuckLevel:
    """The luck level named by ``text`` ("glueck", "viel", "sehr-viel", "Glück", "much luck"...).

    Refuses unknown names with a :class:`CheckError` listing the choices.
    """
    text = _limit(text, Word(N_("luck level")))
    level = vocabulary().luck.get(fold(text))
    if level is None:
        choices = [level.aliases[0] for level in load_rules().luck]
        raise CheckError(
            N_("unknown luck level {text!r}; choose one of {choices}"),
            text=text,
            choices=", ".join(choices),
        )
    return level


def modifier_label(value: int, lang: str) -> str | None:
    """The table word for exactly this modifier in ``lang`` (e.g. -10 -> "sehr schwer")."""
    row = load_rules().modifier_by_value(value)
    return None if row is None else row.label(lang)
