"""What the web edge asks of the library: one function per generator, each taking plain,
already-validated values and returning the library's own objects or documents.

Every function here is a thin call into the library (the same calls the CLI makes); the
web routes validate request values into these arguments, and translate
:class:`~kerker.errors.KerkerError` into 4xx answers. No state is kept between requests:
everything is regenerated from its seed, so any instance can answer any request.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from kerker.errors import N_, KerkerError, OptionError

MAX_SEED = 2**63 - 1
MAX_EXPRESSION = 200
"""Longest dice expression a request may send (the dice limits cap the work too)."""


def rng_for(seed: int) -> random.Random:
    """The generator every kerker edge uses for ``seed`` (the CLI's convention)."""
    return random.Random(seed)


def fresh_seed(rng: random.Random | None = None) -> int:
    """A new seed for a request that gave none (shown to the user, so the result repeats)."""
    source = rng or random.SystemRandom()
    return source.randrange(0, 2**31)


def check_seed(seed: int) -> int:
    """``seed`` if it is a seed kerker takes; refuses others in one line."""
    if not 0 <= seed <= MAX_SEED:
        raise OptionError(N_("the seed must be between 0 and {max}"), max=MAX_SEED)
    return seed


@lru_cache(maxsize=1)
def registry() -> Any:
    """The shipped tables (the web app reads no environment: own tables come by upload)."""
    from kerker.tables.registry import load_registry

    return load_registry([])


# -- dice -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiceRoll:
    """One roll of an expression: its total and the explanation of every die."""

    expression: str
    seed: int
    total: int
    explain: str
    record: dict[str, Any]


def roll_dice(expression: str, seed: int) -> DiceRoll:
    """Roll ``expression`` with ``seed``; refuses what the dice language refuses."""
    from kerker.dice import parse, roll

    _check_expression(expression)
    result = roll(parse(expression), rng_for(check_seed(seed)))
    return DiceRoll(expression, seed, result.total, result.explain(), result.to_json())


@dataclass(frozen=True)
class OddsRow:
    """One outcome with its exact probability and the chance of at least / at most it."""

    value: int
    probability: Fraction
    at_least: Fraction
    at_most: Fraction


@dataclass(frozen=True)
class DiceOdds:
    """Exact odds of an expression (integer counts underneath; fractions out)."""

    expression: str
    rows: tuple[OddsRow, ...]
    mean: Fraction
    minimum: int
    maximum: int
    data: dict[str, Any]


MAX_ODDS_ROWS = 2_000
"""Most outcomes a page shows (the JSON has them all within the dice limits)."""


def dice_odds(expression: str) -> DiceOdds:
    """Exact odds of ``expression``; refuses what :func:`kerker.dice.odds` refuses."""
    from kerker.dice import odds, parse

    _check_expression(expression)
    dist = odds(parse(expression))
    rows: list[OddsRow] = []
    for value, probability in dist:
        rows.append(OddsRow(value, probability, dist.at_least(value), dist.at_most(value)))
        if len(rows) >= MAX_ODDS_ROWS:
            break
    data: dict[str, Any] = {"expression": expression}
    data.update(dist.to_json())
    return DiceOdds(expression, tuple(rows), dist.mean, dist.min, dist.max, data)


def _check_expression(expression: str) -> None:
    if not expression.strip():
        raise OptionError(N_("give a dice expression, e.g. 3d6+2"))
    if len(expression) > MAX_EXPRESSION:
        raise OptionError(
            N_("a dice expression may be at most {max} characters long"), max=MAX_EXPRESSION
        )


# -- tables ---------------------------------------------------------------------------------


def table_list(lang: str) -> list[dict[str, Any]]:
    """Every shipped table: id, title in ``lang``, dice (stored, and as a reader sees it)
    and source, sorted by id."""
    from kerker.tables.model import pick_text
    from kerker.tables.show import shown_dice

    return [
        {
            "id": t.id,
            "title": pick_text(t.title, lang),
            "dice": t.dice,
            "dice_shown": shown_dice(t.dice, t.params, lang),
            "rule_set": t.rule_set,
            "source": {"seed": t.seed, "heading": t.heading},
        }
        for t in registry()
    ]


def table_show(table_id: str, lang: str) -> dict[str, Any]:
    """A table as ``kerker table show --json`` gives it (rows, dice, source)."""
    from kerker.tables.show import show_json

    return show_json(registry().get(table_id), lang)


def table_roll(table_id: str, seed: int, lang: str) -> dict[str, Any]:
    """Roll a table with ``seed``: the result lines and the roll log."""
    from kerker.tables.engine import roll_table
    from kerker.tables.render import lines

    result, log = roll_table(registry(), table_id, rng_for(check_seed(seed)))
    return {"table": table_id, "seed": seed, "lines": lines(result, lang, explain=True), "log": log}


def table_odds(table_id: str, lang: str) -> list[tuple[str, Fraction]]:
    """Every final outcome of a table with its exact probability, most likely first."""
    from kerker.tables.odds import table_odds as odds

    return [(outcome.describe(), p) for outcome, p in odds(registry(), table_id, lang=lang)]


# -- zone maps, heists, dungeons ---------------------------------------------------------------


def zone_map(seed: int, size: tuple[int, int] | None, theme: str) -> Any:
    """A zone map (seed 002) for ``seed``; ``size`` in nodes or None for the rolled size."""
    from kerker.zones.generate import ZoneParams, check_theme, generate

    check_theme(theme, registry())
    return generate(
        ZoneParams(size=size, theme=theme, seed=check_seed(seed)), rng_for(seed), registry()
    )


MAX_TUNE_OPS = 40
"""Most fine-tuning operations a heist link may carry (the budget ends far sooner)."""


def heist(
    seed: int, reputation: int, players: int, accesses: int | None, nosec: int, ops: str = ""
) -> Any:
    """A Mazeprowl heist complex (seed 004) for ``seed``, fine-tuned by ``ops`` (``prowl
    tune``'s operations, separated by commas: ``"raise-room R3, patrol C2"``). Refuses
    unknown or unaffordable operations in one line, naming the operation."""
    from kerker.prowl.generate import ProwlOptions, generate

    plan = generate(
        ProwlOptions(reputation, players, accesses, nosec, None),
        rng_for(check_seed(seed)),
        registry=registry(),
        seed=seed,
    )
    words = ops.strip()
    if not words:
        return plan
    from kerker.prowl.tuning import parse_operations, tune

    if len(words) > 2_000 or words.count(",") >= MAX_TUNE_OPS:
        raise OptionError(N_("at most {max} fine-tuning operations"), max=MAX_TUNE_OPS)
    return tune(plan, parse_operations([words]), registry())


def tune_verbs() -> list[tuple[str, str]]:
    """Every fine-tuning verb with its syntax (``raise-room R3``)."""
    from kerker.prowl.tuning import VERBS

    return [(name, verb.usage) for name, verb in VERBS.items()]


@dataclass(frozen=True)
class DungeonOptions:
    """The options of ``kerker dungeon`` a web form can set."""

    rules: str = "zufallslabyrinth"
    seed: int = 0
    levels: int = 1
    size: tuple[int, int] | None = None  # None: the level grows with what is rolled
    max_areas: int = 60
    min_areas: int = 10
    entrance: str = "variant"
    caves: str = "depth"


def dungeon_document(
    options: DungeonOptions, lang: str, tables: Sequence[tuple[str, str]] = ()
) -> dict[str, Any]:
    """The dungeon document (docs/dungeon-json.md) for ``options``, in ``lang``, rolled on
    the shipped tables plus own table files ``tables`` (``(name, text)`` pairs, later ids
    replacing earlier ones: the same dungeon as ``kerker dungeon --tables`` with those
    files). Refuses own files that do not load in one line."""
    from dataclasses import replace

    from kerker.dungeon.engine import Params, generate
    from kerker.dungeon.export import to_document
    from kerker.tables.owntexts import load_texts

    # Only Scatola Bianca knows caves (a procedure's own option); the engine refuses it
    # for the Zufallslabyrinth.
    caves = options.caves if options.rules == "scatola-bianca" else None
    params = Params(
        rules=options.rules,
        seed=None,
        levels=options.levels,
        size=options.size,
        max_areas=options.max_areas,
        min_areas=options.min_areas,
        entrance=options.entrance,
        caves=caves,
    ).checked()
    params = replace(params, seed=check_seed(options.seed))
    dungeon = generate(params, load_texts(registry(), tables))
    return to_document(dungeon, lang)


TABLE_SET = re.compile(r"^[0-9a-f]{32}$")
"""A table set's digest as links carry it (:func:`kerker.tables.owntexts.texts_digest`)."""


class UnknownTableSet(KerkerError):
    """A ``tables=`` digest this server keeps no table set for (a 404)."""

    code = "unknown_tables"


def check_table_set(digest: str) -> str:
    """``digest`` if it has the form of a table set's digest; else :class:`UnknownTableSet`."""
    if not TABLE_SET.match(digest):
        raise UnknownTableSet(
            N_("no own table set {digest!r} here; upload the table files again"),
            digest=digest[:40],
        )
    return digest


def own_table_files(
    files: Sequence[tuple[str, bytes]], lang: str
) -> tuple[list[tuple[str, str]], list[str]]:
    """Uploaded own table files (``(file name, bytes)``, YAML or CSV) as the ``(name, text)``
    pairs a table set or a session keeps (CSV turned into one table, as the upload page
    does), and every linter error of them as ``file:line:col: message`` lines in ``lang``
    ([] when all are usable: warnings alone do not count). Refuses unreadable or
    oversized files, more than a session's files, in one line."""
    from kerker.tables.owntexts import check_sizes, lint_text

    texts: list[tuple[str, str]] = []
    for name, raw in files:
        texts += [(t["name"], t["text"]) for t in own_table_upload(name, raw, lang)]
    check_sizes(texts)
    translate = _translate(lang)
    problems = [
        line for name, text in texts for line in lint_text(name, text, translate, warnings=False)
    ]
    return texts, problems


def rule_set_language(rule_set: str) -> str | None:
    """The language a shipped rule set was printed in."""
    from kerker.tables.registry import rule_set_language as language

    return language(registry(), rule_set)


# -- HPR checks (seed 003) -----------------------------------------------------------------


@dataclass(frozen=True)
class CheckAnswer:
    """A rolled HPR check (when a seed or roll was asked) and the exact odds of its value."""

    value: int
    modifier: int
    chance: int
    lines: tuple[str, ...]
    odds: tuple[tuple[str, str, Fraction], ...]
    """(outcome key, name in the language, probability), best first."""
    success: Fraction


def hpr_check(value: int, difficulty: str, seed: int | None, lang: str) -> CheckAnswer:
    """An HPR check of ``value`` with a difficulty word or number (``"sehr schwer"``,
    ``"-5"``, empty for none): rolled with ``seed`` when given, and its exact odds."""
    from kerker.checks import ROLLED_OUTCOMES, chance, check, load_rules, odds, parse_difficulty

    text = difficulty.strip()
    if not text:
        modifier = 0
    elif text.lstrip("+-").isdigit() and len(text) < 5:
        modifier = int(text)
    else:
        modifier = parse_difficulty(text, lang=lang)
    table = odds(value, modifier)
    rules = load_rules()
    names = tuple(
        (
            o.value,
            rules.outcomes[o.value].name[lang if lang in ("de", "it") else "en"],
            table[o.value],
        )
        for o in ROLLED_OUTCOMES
    )
    lines: tuple[str, ...] = ()
    if seed is not None:
        result = check(value, modifier, rng_for(check_seed(seed)))
        lines = tuple(result.gm_lines(lang))
    success = sum(
        (p for key, _n, p in names if key in ("super", "critical", "success")), Fraction(0)
    )
    return CheckAnswer(value, modifier, chance(value, modifier), lines, names, success)


# -- own tables (uploads) ----------------------------------------------------------------------

MAX_UPLOAD = 200_000
"""Largest table file the web app reads (characters)."""


@dataclass(frozen=True)
class UploadCheck:
    """An uploaded table file checked: its problems (``line:col: message``) or its tables
    rolled once and weighed."""

    name: str
    text: str
    problems: tuple[str, ...]
    tables: tuple[dict[str, Any], ...]


def own_table_upload(name: str, raw: bytes, lang: str) -> list[dict[str, str]]:
    """An uploaded own table file for a play session, as its ``tables`` option: UTF-8,
    capped as :func:`check_upload` caps it, CSV turned into one table first (the session
    keeps the YAML text, linted when it is made)."""
    if len(raw) > MAX_UPLOAD * 4:
        raise OptionError(N_("a table file may be at most {max} characters long"), max=MAX_UPLOAD)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise OptionError(N_("a table file must be UTF-8 text")) from None
    if len(text) > MAX_UPLOAD:
        raise OptionError(N_("a table file may be at most {max} characters long"), max=MAX_UPLOAD)
    label = "".join(ch for ch in name if ch.isprintable()).rsplit("/", 1)[-1][:80] or "own.yaml"
    if label.lower().endswith(".csv"):
        from kerker.tables.csvimport import import_csv

        stem = label.rsplit(".", 1)[0].lower().replace(" ", "-") or "own"
        text = import_csv(
            text, name=stem, lang=lang if lang in ("de", "it") else "en", source_file=label
        )
        label = stem + ".yaml"
    return [{"name": label, "text": text}]


def check_upload(name: str, text: str, lang: str, seed: int) -> UploadCheck:
    """Lint an uploaded YAML table file (or CSV: range and text columns, turned into one
    table first) and, when it is clean, roll each of its tables with ``seed`` and compute
    its odds. The file is read in a temporary folder that is removed afterwards; nothing
    is kept. Refuses files over :data:`MAX_UPLOAD` characters in one line."""
    import tempfile
    from pathlib import Path

    from kerker.errors import KerkerError
    from kerker.tables.lint import lint_paths
    from kerker.tables.registry import Registry, load_path

    if len(text) > MAX_UPLOAD:
        raise OptionError(N_("a table file may be at most {max} characters long"), max=MAX_UPLOAD)
    label = "".join(ch for ch in name if ch.isprintable())[:80] or "upload.yaml"
    if label.lower().endswith(".csv"):
        from kerker.tables.csvimport import import_csv

        stem = label.rsplit(".", 1)[0].lower().replace(" ", "-") or "upload"
        text = import_csv(
            text, name=stem, lang=lang if lang in ("de", "it") else "en", source_file=label
        )
        label = stem + ".yaml"
    translate = _translate(lang)
    with tempfile.TemporaryDirectory(prefix="kerker-upload-") as folder:
        path = Path(folder) / "upload.yaml"
        path.write_text(text, encoding="utf-8")
        problems = lint_paths([path])
        lines = tuple(
            f"{label}:{p.line}:{p.col}: "
            + re.sub(
                r"^\d+:\d+: ",
                "",
                p.text(translate).replace(f"{path}:", "").replace(str(path), label),
            )
            for p in problems
        )
        if problems:
            return UploadCheck(label, text, lines, ())
        tables = load_path(path, trusted=False)
    merged = Registry({**registry().tables, **{t.id: t for t in tables}})
    out: list[dict[str, Any]] = []
    from kerker.tables.engine import roll_table
    from kerker.tables.model import pick_text
    from kerker.tables.odds import table_odds as weigh
    from kerker.tables.render import lines as result_lines

    for table in tables:
        entry: dict[str, Any] = {
            "id": table.id,
            "title": pick_text(table.title, lang),
            "dice": table.dice,
        }
        try:
            result, _log = roll_table(merged, table.id, rng_for(seed))
            entry["rolled"] = result_lines(result, lang, explain=True)
        except KerkerError as err:
            entry["rolled"] = [err.message(translate)]
        try:
            entry["odds"] = [(o.describe(), p) for o, p in weigh(merged, table.id, lang=lang)[:50]]
        except KerkerError as err:
            entry["odds_error"] = err.message(translate)
        out.append(entry)
    return UploadCheck(label, text, (), tuple(out))


def _translate(lang: str) -> Any:
    from kerker.i18n import translator

    return translator(lang)
