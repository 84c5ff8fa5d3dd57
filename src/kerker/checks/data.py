"""The HPR check rules as data: ``rules/hpr/checks.yaml`` loaded, validated and frozen.

Every number and word of seed 003 ("Würfelei") that the check engine needs comes from that
file; this module only reads it. :func:`load_rules` reads the shipped file once and caches
it; :func:`read_rules` reads any file (for tests and for house rules) without caching.
Malformed data raises :class:`~kerker.errors.RuleDataError` naming the file and the path
of the bad entry (e.g. ``modifiers.table[3].words.it``); the safe loader keeps no line
numbers, so ``line`` stays ``None``.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from kerker.checks.folding import variants
from kerker.errors import N_, RuleDataError
from kerker.yamlio import load_rule_file

LANGS: tuple[str, ...] = ("de", "it", "en")
"""The languages every text a game master reads must have."""

OUTCOME_KEYS: tuple[str, ...] = ("super", "critical", "success", "failure", "fumble", "impossible")
NOTE_KEYS: tuple[str, ...] = (
    "critical_missed",
    "fumble_averted",
    "fumble_averted_master",
    "hopeless",
)
TEXT_FIELDS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "roll_line": frozenset({"outcome", "roll", "chance"}),
        "confirmed_line": frozenset({"outcome", "roll", "confirmation", "chance"}),
        "impossible_line": frozenset({"outcome"}),
        "where_line": frozenset({"roll"}),
        "secret_gm": frozenset(),
        "secret_player": frozenset(),
    }
)
"""The sentence templates under ``texts.<lang>`` and the fields each may use."""

SCHEMA = 1

Texts = Mapping[str, str]
"""Language code -> text."""


@dataclass(frozen=True, slots=True)
class Source:
    """Where a piece of data comes from: the seed file and the heading as printed."""

    file: str
    heading: str


@dataclass(frozen=True, slots=True)
class Modifier:
    """One row of the "Modifikationstabelle": ``value`` and its words per language.

    The first word of each language is the label shown to the game master.
    """

    key: str
    value: int
    words: Mapping[str, tuple[str, ...]]
    printed: str | None
    decision: str | None

    def label(self, lang: str) -> str:
        """The word shown for this row in ``lang``."""
        return self.words[lang][0]


@dataclass(frozen=True, slots=True)
class Intensifier:
    """A word like "sehr" (10) or "extrem" (15) that sets the size of a modifier."""

    key: str
    magnitude: int
    words: Mapping[str, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class WordRule:
    """The rule "sehr 10, extrem 15, un- 20, sign from the word" with its vocabulary.

    ``bases`` and ``un_words`` map a language to word -> sign (+1 bonus, -1 malus).
    """

    source: Source
    plain: int
    intensifiers: tuple[Intensifier, ...]
    un_magnitude: int
    un_prefixes: Mapping[str, tuple[str, ...]]
    un_words: Mapping[str, Mapping[str, int]]
    bases: Mapping[str, Mapping[str, int]]


@dataclass(frozen=True, slots=True)
class LuckLevel:
    """A luck roll ("Glückswurf"): a check against ``value``."""

    key: str
    value: int
    name: Texts
    aliases: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class OutcomeText:
    """What the game master reads for an outcome: its name and a hint."""

    name: Texts
    hint: Texts
    source: Source


@dataclass(frozen=True, slots=True)
class CheckRules:
    """All HPR check data, validated. Mappings are read-only views."""

    file: str
    seed: str
    die: str
    die_source: Source
    best: int
    worst: int
    extremes_source: Source
    impossible_value: int
    retry_penalty: int
    where_default: str
    modifiers: tuple[Modifier, ...]
    modifiers_source: Source
    word_rule: WordRule
    luck: tuple[LuckLevel, ...]
    luck_source: Source
    outcomes: Mapping[str, OutcomeText]
    notes: Mapping[str, Texts]
    texts: Mapping[str, Texts]

    def modifier_by_value(self, value: int) -> Modifier | None:
        """The table row with exactly this value, if there is one."""
        for row in self.modifiers:
            if row.value == value:
                return row
        return None


RULES_FILE: Path = Path(__file__).resolve().parent.parent / "rules" / "hpr" / "checks.yaml"
"""The shipped rule file."""


@lru_cache(maxsize=1)
def load_rules() -> CheckRules:
    """The shipped HPR check rules, read and validated once per process.

    Raises :class:`RuleDataError` when the shipped file is missing or malformed.
    """
    return read_rules(RULES_FILE)


def read_rules(path: Path | str) -> CheckRules:
    """Read and validate a check rule file (no caching).

    Refuses (with :class:`RuleDataError`) unreadable files, YAML errors, missing or
    mistyped fields, missing languages, duplicate keys or values, words that mean two
    different things after folding, and templates with unknown ``{fields}``.
    """
    where = str(path)
    return _Reader(where).rules(load_rule_file(Path(path), where))


class _Reader:
    """Plain-code validation of the parsed YAML, one method per shape."""

    def __init__(self, file: str) -> None:
        self.file = file

    # -- primitives --------------------------------------------------------------------

    def fail(self, path: str, template: str, **params: Any) -> RuleDataError:
        return RuleDataError(template, file=self.file, path=path, **params)

    def mapping(self, node: object, path: str) -> Mapping[str, Any]:
        if not isinstance(node, dict) or not all(isinstance(k, str) for k in node):
            raise self.fail(path, N_("{path}: expected a mapping with text keys"))
        return node

    def field(self, node: Mapping[str, Any], key: str, path: str) -> Any:
        if key not in node:
            raise self.fail(f"{path}.{key}", N_("{path}: missing"))
        return node[key]

    def integer(
        self, node: object, path: str, *, low: int | None = None, high: int | None = None
    ) -> int:
        if not isinstance(node, int) or isinstance(node, bool):
            raise self.fail(
                path, N_("{path}: expected a whole number, found {found!r}"), found=node
            )
        if (low is not None and node < low) or (high is not None and node > high):
            raise self.fail(
                path, N_("{path}: {found} is outside {low}..{high}"), found=node, low=low, high=high
            )
        return node

    def text(self, node: object, path: str) -> str:
        if not isinstance(node, str) or not node.strip():
            raise self.fail(
                path, N_("{path}: expected a non-empty text, found {found!r}"), found=node
            )
        return node

    def optional_text(self, node: Mapping[str, Any], key: str, path: str) -> str | None:
        return None if node.get(key) is None else self.text(node[key], f"{path}.{key}")

    def words(self, node: object, path: str, *, allow_empty: bool = False) -> tuple[str, ...]:
        if not isinstance(node, list) or (not node and not allow_empty):
            raise self.fail(path, N_("{path}: expected a list of words"))
        return tuple(self.text(item, f"{path}[{i}]") for i, item in enumerate(node))

    def source(self, node: Mapping[str, Any], path: str) -> Source:
        src = self.mapping(self.field(node, "source", path), f"{path}.source")
        return Source(
            file=self.text(self.field(src, "file", f"{path}.source"), f"{path}.source.file"),
            heading=self.text(
                self.field(src, "heading", f"{path}.source"), f"{path}.source.heading"
            ),
        )

    def per_language(self, node: object, path: str) -> Mapping[str, object]:
        langs = self.mapping(node, path)
        for lang in LANGS:
            if lang not in langs:
                raise self.fail(f"{path}.{lang}", N_("{path}: missing"))
        extra = sorted(set(langs) - set(LANGS))
        if extra:
            raise self.fail(path, N_("{path}: unknown language {lang!r}"), lang=extra[0])
        return langs

    def texts(self, node: object, path: str) -> Texts:
        langs = self.per_language(node, path)
        return MappingProxyType({lang: self.text(langs[lang], f"{path}.{lang}") for lang in LANGS})

    def word_lists(
        self, node: object, path: str, *, allow_empty: bool = False
    ) -> Mapping[str, tuple[str, ...]]:
        langs = self.per_language(node, path)
        return MappingProxyType(
            {
                lang: self.words(langs[lang], f"{path}.{lang}", allow_empty=allow_empty)
                for lang in LANGS
            }
        )

    def signed_words(self, node: object, path: str) -> Mapping[str, Mapping[str, int]]:
        langs = self.per_language(node, path)
        out: dict[str, Mapping[str, int]] = {}
        for lang in LANGS:
            entries = self.mapping(langs[lang], f"{path}.{lang}")
            signs: dict[str, int] = {}
            for word, sign in entries.items():
                self.text(word, f"{path}.{lang}")
                if sign not in (1, -1) or isinstance(sign, bool):
                    raise self.fail(
                        f"{path}.{lang}.{word}",
                        N_("{path}: the sign must be 1 or -1, not {found!r}"),
                        found=sign,
                    )
                signs[word] = sign
            out[lang] = MappingProxyType(signs)
        return MappingProxyType(out)

    # -- sections ----------------------------------------------------------------------

    def rules(self, data: object) -> CheckRules:
        root = self.mapping(data, "(top)")
        schema = self.integer(self.field(root, "schema", "(top)"), "schema")
        if schema != SCHEMA:
            raise self.fail(
                "schema",
                N_("{path}: kerker reads schema {expected}, not {found}"),
                expected=SCHEMA,
                found=schema,
            )
        seed = self.text(self.field(root, "seed", "(top)"), "seed")

        die = self.mapping(self.field(root, "die", "(top)"), "die")
        extremes = self.mapping(self.field(root, "extremes", "(top)"), "extremes")
        best = self.integer(self.field(extremes, "best", "extremes"), "extremes.best")
        worst = self.integer(self.field(extremes, "worst", "extremes"), "extremes.worst")
        if best >= worst:
            raise self.fail(
                "extremes",
                N_("{path}: best ({best}) must be lower than worst ({worst})"),
                best=best,
                worst=worst,
            )
        impossible = self.mapping(self.field(root, "impossible", "(top)"), "impossible")
        retry = self.mapping(self.field(root, "retry", "(top)"), "retry")
        where = self.mapping(self.field(root, "where", "(top)"), "where")
        modifiers = self.mapping(self.field(root, "modifiers", "(top)"), "modifiers")
        luck = self.mapping(self.field(root, "luck", "(top)"), "luck")

        for name, section in (
            ("die", die),
            ("extremes", extremes),
            ("impossible", impossible),
            ("retry", retry),
            ("where", where),
        ):
            self.source(section, name)

        rules = CheckRules(
            file=self.file,
            seed=seed,
            die=self.text(self.field(die, "expression", "die"), "die.expression"),
            die_source=self.source(die, "die"),
            best=best,
            worst=worst,
            extremes_source=self.source(extremes, "extremes"),
            impossible_value=self.integer(
                self.field(impossible, "value", "impossible"), "impossible.value", low=0
            ),
            retry_penalty=self.integer(
                self.field(retry, "penalty_per_attempt", "retry"),
                "retry.penalty_per_attempt",
                low=0,
            ),
            where_default=self.text(
                self.field(where, "default_expression", "where"), "where.default_expression"
            ),
            modifiers=self.modifier_table(modifiers),
            modifiers_source=self.source(modifiers, "modifiers"),
            word_rule=self.word_rule(
                self.mapping(self.field(root, "word_rule", "(top)"), "word_rule")
            ),
            luck=self.luck_levels(luck, worst=worst),
            luck_source=self.source(luck, "luck"),
            outcomes=self.outcomes(self.field(root, "outcomes", "(top)")),
            notes=self.notes(self.field(root, "notes", "(top)")),
            texts=self.sentence_templates(self.field(root, "texts", "(top)")),
        )
        self.check_vocabulary(rules)
        return rules

    def modifier_table(self, node: Mapping[str, Any]) -> tuple[Modifier, ...]:
        table = self.field(node, "table", "modifiers")
        if not isinstance(table, list) or not table:
            raise self.fail("modifiers.table", N_("{path}: expected a non-empty list"))
        rows: list[Modifier] = []
        keys: set[str] = set()
        values: set[int] = set()
        for i, raw in enumerate(table):
            path = f"modifiers.table[{i}]"
            row = self.mapping(raw, path)
            key = self.text(self.field(row, "key", path), f"{path}.key")
            value = self.integer(self.field(row, "value", path), f"{path}.value")
            if key in keys:
                raise self.fail(f"{path}.key", N_("{path}: duplicate key {found!r}"), found=key)
            if value in values:
                raise self.fail(f"{path}.value", N_("{path}: duplicate value {found}"), found=value)
            keys.add(key)
            values.add(value)
            rows.append(
                Modifier(
                    key=key,
                    value=value,
                    words=self.word_lists(self.field(row, "words", path), f"{path}.words"),
                    printed=self.optional_text(row, "printed", path),
                    decision=self.optional_text(row, "decision", path),
                )
            )
        return tuple(rows)

    def word_rule(self, node: Mapping[str, Any]) -> WordRule:
        path = "word_rule"
        raw_intensifiers = self.field(node, "intensifiers", path)
        if not isinstance(raw_intensifiers, list) or not raw_intensifiers:
            raise self.fail(f"{path}.intensifiers", N_("{path}: expected a non-empty list"))
        intensifiers = []
        for i, raw in enumerate(raw_intensifiers):
            ipath = f"{path}.intensifiers[{i}]"
            item = self.mapping(raw, ipath)
            intensifiers.append(
                Intensifier(
                    key=self.text(self.field(item, "key", ipath), f"{ipath}.key"),
                    magnitude=self.integer(
                        self.field(item, "magnitude", ipath), f"{ipath}.magnitude", low=1
                    ),
                    words=self.word_lists(self.field(item, "words", ipath), f"{ipath}.words"),
                )
            )
        un = self.mapping(self.field(node, "un", path), f"{path}.un")
        return WordRule(
            source=self.source(node, path),
            plain=self.integer(self.field(node, "plain", path), f"{path}.plain", low=1),
            intensifiers=tuple(intensifiers),
            un_magnitude=self.integer(
                self.field(un, "magnitude", f"{path}.un"), f"{path}.un.magnitude", low=1
            ),
            un_prefixes=self.word_lists(
                self.field(un, "prefixes", f"{path}.un"), f"{path}.un.prefixes", allow_empty=True
            ),
            un_words=self.signed_words(self.field(un, "words", f"{path}.un"), f"{path}.un.words"),
            bases=self.signed_words(self.field(node, "bases", path), f"{path}.bases"),
        )

    def luck_levels(self, node: Mapping[str, Any], *, worst: int) -> tuple[LuckLevel, ...]:
        levels = self.field(node, "levels", "luck")
        if not isinstance(levels, list) or not levels:
            raise self.fail("luck.levels", N_("{path}: expected a non-empty list"))
        out: list[LuckLevel] = []
        for i, raw in enumerate(levels):
            path = f"luck.levels[{i}]"
            item = self.mapping(raw, path)
            out.append(
                LuckLevel(
                    key=self.text(self.field(item, "key", path), f"{path}.key"),
                    value=self.integer(
                        self.field(item, "value", path), f"{path}.value", low=1, high=worst
                    ),
                    name=self.texts(self.field(item, "name", path), f"{path}.name"),
                    aliases=self.words(self.field(item, "aliases", path), f"{path}.aliases"),
                )
            )
        if len({level.key for level in out}) != len(out):
            raise self.fail("luck.levels", N_("{path}: duplicate key"))
        return tuple(out)

    def outcomes(self, node: object) -> Mapping[str, OutcomeText]:
        section = self.mapping(node, "outcomes")
        self.source(section, "outcomes")
        out: dict[str, OutcomeText] = {}
        for key in OUTCOME_KEYS:
            item = self.mapping(self.field(section, key, "outcomes"), f"outcomes.{key}")
            out[key] = OutcomeText(
                name=self.texts(
                    self.field(item, "name", f"outcomes.{key}"), f"outcomes.{key}.name"
                ),
                hint=self.texts(
                    self.field(item, "hint", f"outcomes.{key}"), f"outcomes.{key}.hint"
                ),
                source=self.source(item, f"outcomes.{key}"),
            )
        return MappingProxyType(out)

    def notes(self, node: object) -> Mapping[str, Texts]:
        section = self.mapping(node, "notes")
        self.source(section, "notes")
        return MappingProxyType(
            {
                key: self.texts(self.field(section, key, "notes"), f"notes.{key}")
                for key in NOTE_KEYS
            }
        )

    def sentence_templates(self, node: object) -> Mapping[str, Texts]:
        section = self.mapping(node, "texts")
        self.source(section, "texts")
        out: dict[str, Texts] = {}
        for lang in LANGS:
            lpath = f"texts.{lang}"
            templates = self.mapping(self.field(section, lang, "texts"), lpath)
            texts: dict[str, str] = {}
            for key, allowed in TEXT_FIELDS.items():
                template = self.text(self.field(templates, key, lpath), f"{lpath}.{key}")
                self.template_fields(template, allowed, f"{lpath}.{key}")
                texts[key] = template
            out[lang] = MappingProxyType(texts)
        return MappingProxyType(out)

    def template_fields(self, template: str, allowed: frozenset[str], path: str) -> None:
        try:
            fields = {
                name for _, name, _, _ in string.Formatter().parse(template) if name is not None
            }
        except ValueError as exc:
            raise self.fail(path, N_("{path}: broken template: {reason}"), reason=str(exc)) from exc
        unknown = sorted(fields - allowed)
        if unknown:
            raise self.fail(
                path,
                N_("{path}: unknown field {{{found}}}; allowed: {allowed}"),
                found=unknown[0],
                allowed=", ".join(sorted(allowed)) or "-",
            )

    def check_vocabulary(self, rules: CheckRules) -> None:
        """No folded word may name two different modifiers or two luck levels."""
        seen: dict[str, tuple[int, str]] = {}
        for i, row in enumerate(rules.modifiers):
            for lang in LANGS:
                for word in row.words[lang]:
                    self.claim(seen, word, row.value, f"modifiers.table[{i}].words.{lang}")
        for lang in LANGS:
            for word, sign in rules.word_rule.un_words[lang].items():
                self.claim(
                    seen, word, sign * rules.word_rule.un_magnitude, f"word_rule.un.words.{lang}"
                )
        lucky: dict[str, tuple[int, str]] = {}
        for i, level in enumerate(rules.luck):
            for word in (level.key, *level.aliases, *level.name.values()):
                self.claim(lucky, word, i, f"luck.levels[{i}]")

    def claim(self, seen: dict[str, tuple[int, str]], word: str, meaning: int, path: str) -> None:
        for form in variants(word):
            if form in seen and seen[form][0] != meaning:
                raise self.fail(
                    path,
                    N_("{path}: {word!r} already means something else at {other}"),
                    word=word,
                    other=seen[form][1],
                )
            seen.setdefault(form, (meaning, path))
