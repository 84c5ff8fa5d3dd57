"""English and Italian views write what the rule data stores the German way in the reader's
way (issue 15, the English read of session 6): dice (`W666`, seed 004's `1w6`), money
(`$25`), the check's target, the feet of Scatola Bianca. Each test failed on the output
before the fix it guards."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kerker.i18n import dice_text
from kerker.numfmt import money
from kerker.prowl.generate import ProwlOptions, generate
from kerker.prowl.render_md import render_markdown
from kerker.prowl.render_svg import render_svg
from kerker.tables.registry import load_registry

REGISTRY = load_registry([])
SRC = Path(__file__).resolve().parent.parent / "src"
GERMAN_DIE = re.compile(r"(?<![A-Za-zÄÖÜäöüß])\d*[Ww](?:\d|%)")
ENGLISH_DIE = re.compile(r"(?<![A-Za-zÄÖÜäöüß])\d*d(?:\d|%)")


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = dict(os.environ, PYTHONPATH=str(SRC), LANG="C.UTF-8", LC_ALL="C.UTF-8", COLUMNS="120")
    full.pop("KERKER_LANG", None)
    full.pop("LANGUAGE", None)
    full.update(env)
    return subprocess.run(
        [sys.executable, "-m", "kerker", *args], capture_output=True, text=True, env=full
    )


def test_dice_text_reads_the_lower_case_w_of_seed_004() -> None:
    assert dice_text("1w6 -> [3] = 3", "en") == "1d6 -> [3] = 3"
    assert dice_text("2w6", "it") == "2d6"
    assert dice_text("1w6", "de") == "1W6"
    assert dice_text("Wand 2w6", "de") == "Wand 2W6"  # prose words stay


def test_money_puts_the_currency_sign_the_readers_way() -> None:
    assert money("1,250", "$", "en") == "$1,250"
    assert money("1.250", "$", "it") == "1.250 $"
    assert money("250", "gp", "en") == "250 gp"


@pytest.mark.parametrize("seed", [3, 14, 27])
@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_prowl_sheet_writes_no_german_die_outside_german(seed: int, lang: str) -> None:
    plan = generate(ProwlOptions(6, 4), random.Random(seed), registry=REGISTRY, seed=seed)
    sheet = render_markdown(plan, lang)
    assert GERMAN_DIE.search(sheet) is None, GERMAN_DIE.findall(sheet)[:5]
    assert "d666" in sheet and ENGLISH_DIE.search(sheet)
    german = render_markdown(plan, "de")
    assert "W666" in german and ENGLISH_DIE.search(german) is None
    assert "1w6" not in german  # seed 004's lower-case w reads as W


def test_english_loot_has_the_dollar_first_and_entrances_not_accesses() -> None:
    plan = generate(ProwlOptions(8, 4), random.Random(14), registry=REGISTRY, seed=14)
    for text in (render_markdown(plan, "en"), render_svg(plan, "en")):
        assert re.search(r"\$\d", text) and not re.search(r"\d \$", text)
        assert "entrances: " in text and "accesses" not in text.lower()
        assert "1 hostile factions" not in text and "1 distinct entries" not in text
    german = render_markdown(plan, "de")
    assert re.search(r"\d \$", german) and not re.search(r"\$\d", german)


def test_table_list_and_the_play_journal_write_english_dice(tmp_path: Path) -> None:
    listing = _run("table", "list", "--lang", "en").stdout
    dice = [line.split("│")[3].strip() for line in listing.splitlines() if line.count("│") >= 4]
    assert "d20" in dice and "d666" in dice, dice  # (the source column cites German headings)
    assert not [d for d in dice if GERMAN_DIE.search(d)], dice
    db = f"sqlite:///{tmp_path / 'play.sqlite3'}"
    made = _run("play", "new", "--seed", "7", "--db", db)
    assert made.returncode == 0, made.stderr
    session = made.stdout.strip()
    opened = _run("play", "open", session, "next", "--db", db, "--lang", "en")
    assert opened.returncode == 0, opened.stderr
    journal = _run("play", "journal", session, "--db", db, "--lang", "en").stdout
    assert "d20 → [" in journal and GERMAN_DIE.search(journal) is None, journal
    german = _run("play", "journal", session, "--db", db, "--lang", "de").stdout
    assert "W20 → [" in german


def test_the_check_speaks_of_a_target_and_a_penalty() -> None:
    out = _run("check", "12", "--attempt", "2", "--seed", "1", "--lang", "en").stdout
    assert "attempt 2: penalty 5, target 7" in out and "against a target of 7" in out
    assert "chance" not in out and "malus" not in out
    chart = _run("check", "12", "--chart", "--lang", "en").stdout
    assert " target " in chart and " chance " not in chart


def test_english_feet_are_written_ft_not_the_italian_prime() -> None:
    out = _run("table", "show", "scatola-bianca/forma-stanza", "--lang", "en").stdout
    assert "20 × 20 ft" in out and "’" not in out, out
