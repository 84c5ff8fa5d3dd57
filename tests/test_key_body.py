"""Issue 15 (Keys): the body of a room key gives the game master the final values.

Over 300 levels of each procedure (seeds 1, 2, ... with three levels asked for, default options) the
key is rendered in German, Italian and English, as Markdown and as HTML. With the rolls
taken out (the Markdown appendix "Rolls", the HTML's folded ``<details>``) the body holds
no chance mark ("50 %: ✓"), no roll chain ("->", "→"), no dice expression with its result
("1d4 -> 3", "W6: 4"), no unfilled ``{template}`` and no dice in another language's
notation (German "W6", Italian and English "d6"), no count of 1 with a plural ("1 Krokodile").
The rolls themselves stay complete in the folded part: every roll entry of the document is
there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import escape
from typing import Any

import pytest

from kerker.dungeon.engine import Params, generate
from kerker.dungeon.export import to_document
from kerker.dungeon.render_key import area_keys, render_html, render_md
from kerker.i18n import translator
from kerker.render.kit import md_text
from kerker.tables.model import pick_text
from kerker.tables.registry import load_registry

REGISTRY = load_registry([])
RULES = ("zufallslabyrinth", "scatola-bianca")
MIN_LEVELS = 300
LEVELS = 3
LANGS = ("de", "it", "en")

CHECKS: dict[str, re.Pattern[str]] = {
    "chance mark": re.compile(r"%\s*:|[✓✗]"),
    "roll chain": re.compile(r"->|→"),
    "dice with a result": re.compile(
        r"\b\d*[dW](?:\d+|%)(?:\s*[-+×x*]\s*\d+)*\s*(?:->|→|=|:)\s*\d", re.IGNORECASE
    ),
    "unfilled template": re.compile(r"\{[^{}\s]*\}"),
}
FOREIGN_DICE = {
    "de": re.compile(r"\b\d*d(?:\d+|%)(?![\w’'])"),
    "it": re.compile(r"\b\d*W(?:\d+|%)(?![\w’'])"),
    "en": re.compile(r"\b\d*W(?:\d+|%)(?![\w’'])"),
}


def _md_body(md: str, lang: str) -> list[str]:
    """The Markdown key without its per-level appendix of rolls."""
    rolls = f"## {translator(lang)('Rolls')}"
    out: list[str] = []
    skipping = False
    for line in md.splitlines():
        if line.startswith("#"):
            skipping = line == rolls
        if not skipping:
            out.append(line)
    return out


def _html_body(html: str) -> list[str]:
    """The HTML key's text without the folded rolls, the style sheet and the maps."""
    html = re.sub(r"<style>.*?</style>", "", html, flags=re.S)
    html = re.sub(r"<svg\b.*?</svg>", "", html, flags=re.S)
    html = re.sub(r"<details>.*?</details>", "", html, flags=re.S)
    text = re.sub(r"<[^>]+>", "\n", html)
    return [t for t in (line.strip() for line in text.splitlines()) if t]


# The key's own labels ("Treasure:", "Stairs:", "Contents") are no roll chain, though a
# table may bear the same title.
_LABELS = (
    "Monster",
    "Treasure",
    "Trap",
    "Trick",
    "Water",
    "Stairs",
    "Note",
    "Contents",
    "Corridors",
)


def _titles(lang: str) -> re.Pattern[str]:
    """A table title of the two procedures followed by ":", as a roll chain prints it
    ("Effetti del gas: ...", "Caratteristica modificata: Forza")."""
    _ = translator(lang)
    labels = {_(label) for label in _LABELS}
    titles = {
        str(pick_text(t.title, lang))
        for t in REGISTRY
        if t.rule_set in RULES and str(pick_text(t.title, lang)) not in labels
    }
    alternatives = "|".join(re.escape(t) for t in sorted(titles, key=len, reverse=True))
    return re.compile(rf"(?:^|[\s(])(?:{alternatives}):")


TITLES = {lang: _titles(lang) for lang in LANGS}
STRAY_AMOUNT = re.compile(r"[.!?]\s+\d+(?:\s+[^\W\d]+)?(?:[.!?]|\s+[A-ZÄÖÜ(]|$)")
"""A bare rolled number after a sentence ("... agli altri. 5 Il desiderio ...")."""


def _plural_for_one(lang: str) -> re.Pattern[str]:
    """A count of 1 with a row's plural ("1 Krokodile", "1 coccodrilli"): the "other" form
    of every row of the two procedures with singular and plural forms, filled with 1."""
    wrong: set[str] = set()
    for table in REGISTRY:
        if table.rule_set not in RULES:
            continue
        for row in table.rows:
            text = pick_text(row.text, lang)
            if isinstance(text, tuple) and "{number}" in text[1]:
                bad = text[1].replace("{number}", "1")
                if bad != text[0]:
                    wrong.add(bad)
    assert wrong, lang
    alternatives = "|".join(re.escape(w) for w in sorted(wrong, key=len, reverse=True))
    return re.compile(rf"(?<![\d.,])(?:{alternatives})(?![\w’])")


PLURAL_FOR_ONE = {lang: _plural_for_one(lang) for lang in LANGS}


def _findings(lines: list[str], lang: str) -> Iterator[tuple[str, str]]:
    for line in lines:
        for name, pattern in CHECKS.items():
            if pattern.search(line):
                yield name, line
        if FOREIGN_DICE[lang].search(line):
            yield "dice in another notation", line
        if TITLES[lang].search(line):
            yield "table title of a roll", line
        if STRAY_AMOUNT.search(line):
            yield "bare rolled number", line
        if PLURAL_FOR_ONE[lang].search(line):
            yield "plural for a count of 1", line


@pytest.fixture(scope="module", params=RULES)
def dungeons(request: pytest.FixtureRequest) -> list[Any]:
    # seeds 1, 2, ... until 300 levels are made (a dungeon without a way down has fewer)
    out: list[Any] = []
    seed = 0
    while sum(len(d.levels) for d in out) < MIN_LEVELS:
        seed += 1
        out.append(generate(Params(rules=request.param, seed=seed, levels=LEVELS), REGISTRY))
    return out


def test_the_key_body_gives_final_values(dungeons: list[Any]) -> None:
    found: dict[tuple[str, str], list[str]] = {}
    levels = 0
    for dungeon in dungeons:
        levels += len(dungeon.levels)
        for lang in LANGS:
            doc = to_document(dungeon, lang)
            for where, lines in (
                ("md", _md_body(render_md(doc, lang=lang), lang)),
                ("html", _html_body(render_html(doc, lang=lang, with_maps=False))),
            ):
                for name, line in _findings(lines, lang):
                    found.setdefault((name, lang), []).append(
                        f"seed {dungeon.seed} {where}: {line[:240]}"
                    )
    assert levels >= MIN_LEVELS
    report = [
        f"{name} ({lang}): {len(lines)}×, e.g. {lines[0]}"
        for (name, lang), lines in sorted(found.items())
    ]
    assert not report, "\n".join(report)


def test_the_folded_rolls_keep_every_roll(dungeons: list[Any]) -> None:
    # What the body no longer shows is all in the folded part: every roll entry of the
    # document, and the dice behind the amounts (treasure, water, features), in the HTML's
    # <details> of the area and in the Markdown appendix.
    seen = 0
    for dungeon in dungeons[:30]:
        doc = to_document(dungeon, "it")
        md = render_md(doc)
        html = render_html(doc, with_maps=False)
        folded = "\n".join(re.findall(r"<details>.*?</details>", html, flags=re.S))
        appendix = "\n".join(line for line in md.splitlines() if line.startswith("    - "))
        for level in doc["levels"]:
            by_number = {a["number"]: a for a in level["areas"]}
            for key in area_keys(doc, depth=level["depth"]):
                area = by_number[int(key.heading.split(".", 1)[0])]
                amounts = [
                    a
                    for item in area["contents"] + area["features"]
                    for a in item.get("amounts", ())
                ]
                assert len(key.rolls) == len(area["rolls"]) + len(amounts), key.heading
                for line in key.rolls:
                    seen += 1
                    assert escape(line) in folded, (key.heading, line)
                    assert md_text(line, lead=False) in appendix, (key.heading, line)
    assert seen > 1000


def test_the_folded_rolls_write_products_the_readers_way(dungeons: list[Any]) -> None:
    # Issue 17, item 2: a folded amount reads as the other folded rolls do -- "1.000 × 2 → 2.000"
    # (it), "1 000 × 2 → 2 000" (de), never the rule data's "1000 * 2"; long numbers of the
    # expression (before the arrow) in the language's notation, as the value after it.
    found: list[str] = []
    products = 0
    for dungeon in dungeons:
        for lang in LANGS:
            doc = to_document(dungeon, lang)
            for level in doc["levels"]:
                for key in area_keys(doc, depth=level["depth"], lang=lang):
                    for line in key.rolls:
                        products += "×" in line
                        rolled = line.split("→", 1)[0]  # a row's own text may print "1200"
                        if "*" in line or re.search(r"(?<![\w.,])\d{4,}(?![\w.,])", rolled):
                            found.append(f"seed {dungeon.seed} {lang}: {line}")
    assert products > 0
    assert not found, "\n".join(found[:20])


def _width_texts(lang: str) -> set[str]:
    """The Gangbreite rows' width sentences ("The corridor is 1 square wide, ...")."""
    out: set[str] = set()
    for table in REGISTRY:
        for row in table.rows:
            if "width_ft" in row.value:
                text = pick_text(row.text, lang)
                out.update(text if isinstance(text, tuple) else (text,))
    return {t for t in out if t}


WIDTHS = {lang: _width_texts(lang) for lang in LANGS}


def test_each_fact_once_in_an_area_entry(dungeons: list[Any]) -> None:
    # Issue 17, item 3: a corridor's width is its size line's; a feature (a river, columns)
    # does not say it again, and no sentence stands twice in one item of an area's entry
    # (two like treasures or two shafts of one area are two items).
    found: list[str] = []
    corridor_features = 0
    for dungeon in dungeons:
        for lang in LANGS:
            doc = to_document(dungeon, lang)
            for level in doc["levels"]:
                for key in area_keys(doc, depth=level["depth"], lang=lang):
                    told = [*key.contents, *key.features, *key.traps]
                    corridor_features += key.corridor and bool(key.features)
                    for item in told:
                        for width in WIDTHS[lang]:
                            if width in item:
                                found.append(f"seed {dungeon.seed} {lang} {key.heading}: {item}")
                    for item in told:
                        sentences = [s for s in re.split(r"(?<=[.!?])\s+", item) if s]
                        twice = {s for s in sentences if sentences.count(s) > 1}
                        if twice:
                            found.append(f"seed {dungeon.seed} {lang} {key.heading}: {twice}")
    # the Zufallslabyrinth's rivers and columns are corridor features (A's corridors have none)
    assert corridor_features > 0 or dungeons[0].rules == "scatola-bianca"
    assert not found, "\n".join(found[:20])
