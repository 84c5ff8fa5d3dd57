"""Everything a game master reads is in one language (issue 15, "Language"): keys of both
procedures over many seeds in de, it and en; check, table show, prowl tune; the command
line's help and usage errors. Each test failed on the output before the fix it guards."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kerker.dungeon.engine import Params, generate
from kerker.dungeon.export import to_document
from kerker.dungeon.render_key import render_html, render_md
from kerker.tables.registry import load_registry

REGISTRY = load_registry([])
SRC = Path(__file__).resolve().parent.parent / "src"
GOLDEN = Path(__file__).resolve().parent / "golden"

GERMAN_DIE = re.compile(r"(?<![A-Za-zÄÖÜäöüß])\d*W(?:\d|%)")
ITALIAN_DIE = re.compile(r"(?<![A-Za-zÄÖÜäöüß])\d*d(?:\d|%)")
TEMPLATE = re.compile(r"\{[A-Za-z_][A-Za-z0-9_ *+-]*\}")
STRAIGHT_APOSTROPHE = re.compile(r"(?<=[A-Za-zÀ-ÿ])'(?=[A-Za-zÀ-ÿ])")


def _params(rules: str, seed: int) -> Params:
    if rules == "scatola-bianca":
        # caves on every level: chambers and caves roll the room tables too
        return Params(
            rules=rules, seed=seed, size=(30, 30), max_areas=40, levels=2, min_areas=0,
            caves="always",
        )  # fmt: skip
    return Params(rules=rules, seed=seed, size=(30, 30), max_areas=40, levels=2, min_areas=0)


@pytest.fixture(scope="module")
def dungeons() -> dict[tuple[str, str], list[dict[str, Any]]]:
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for rules in ("zufallslabyrinth", "scatola-bianca"):
        made = [generate(_params(rules, seed), REGISTRY) for seed in range(40)]
        for lang in ("de", "it", "en"):
            out[(rules, lang)] = [to_document(d, lang) for d in made]
    return out


def _body(md: str) -> str:
    """A Markdown key without its roll appendices (the body a GM reads at the table)."""
    return re.sub(r"^## (?:Rolls|Würfe|Tiri)\n.*?(?=^# |\Z)", "", md, flags=re.M | re.S)


@pytest.mark.parametrize("rules", ["zufallslabyrinth", "scatola-bianca"])
@pytest.mark.parametrize("lang", ["de", "it", "en"])
def test_keys_write_dice_the_readers_way_and_leak_no_template(
    dungeons: dict[tuple[str, str], list[dict[str, Any]]], rules: str, lang: str
) -> None:
    for doc in dungeons[(rules, lang)]:
        md = render_md(doc)
        html = render_html(doc, maps={1: "<svg/>", 2: "<svg/>"})
        for text in (md, html):
            if lang == "de":
                assert not re.search(r"\((?:\d*d(?:\d+|%))\)", text), doc["seed"]
            else:
                found = GERMAN_DIE.search(text)
                assert found is None, (doc["seed"], text[found.start() - 60 : found.end() + 20])
            leak = TEMPLATE.search(text)
            assert leak is None, (doc["seed"], leak.group(0))
        # the body gives final values; "1d4+1 -> 4" stays in the rolls
        assert " -> " not in _body(md), doc["seed"]


def test_italian_keys_use_the_seeds_words(
    dungeons: dict[tuple[str, str], list[dict[str, Any]]],
) -> None:
    pools = 0
    for rules in ("zufallslabyrinth", "scatola-bianca"):
        for doc in dungeons[(rules, "it")]:
            md = render_md(doc)
            pools += md.count("(pozza)") + md.count("\n- pozza\n")  # named once: a content says it
            for wrong in ("vasca)", "master", "Pozzo verticale", "pozzo verticale", "Arredamento"):
                assert wrong not in md, (rules, doc["seed"], wrong)
            assert "Mostro: Errante" not in md
            found = STRAIGHT_APOSTROPHE.search(md)
            assert found is None, (rules, doc["seed"], md[found.start() - 30 : found.end() + 30])
            assert " ft" not in md
    assert pools > 0  # natural pools were drawn and keyed as "pozza" (seed 001, A.8.2)


def test_exit_counts_never_call_a_cave_a_room(
    dungeons: dict[tuple[str, str], list[dict[str, Any]]],
) -> None:
    caves = 0
    for lang, room in (("it", "La stanza"), ("de", "Der Raum"), ("en", "The room")):
        for doc in dungeons[("scatola-bianca", lang)]:
            for level in doc["levels"]:
                for area in level["areas"]:
                    if area["kind"] == "room":
                        continue
                    for entry in area["rolls"]:
                        caves += area["kind"] == "cave"
                        assert not str(entry.get("text") or "").startswith(room), (
                            doc["seed"],
                            area["kind"],
                            entry,
                        )
    assert caves > 0


def test_english_and_german_keys_name_no_italian_table(
    dungeons: dict[tuple[str, str], list[dict[str, Any]]],
) -> None:
    italian = {
        str(t.title.get("it"))
        for t in REGISTRY.tables.values()
        if t.rule_set == "scatola-bianca" and isinstance(t.title, dict)
    } | {t.heading for t in REGISTRY.tables.values() if t.rule_set == "scatola-bianca"}
    for lang in ("en", "de"):
        for doc in dungeons[("scatola-bianca", lang)]:
            for level in doc["levels"]:
                for area in level["areas"]:
                    for entry in area["rolls"]:
                        label = str(entry.get("label") or "")
                        assert re.fullmatch(r"A\.[0-9.]+", label) or label not in italian, (
                            lang,
                            label,
                        )
            assert "Cave e caverne" not in render_md(doc)


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = dict(os.environ, PYTHONPATH=str(SRC), LANG="C.UTF-8", LC_ALL="C.UTF-8", COLUMNS="100")
    full.pop("KERKER_LANG", None)
    full.pop("LANGUAGE", None)
    full.update(env)
    return subprocess.run(
        [sys.executable, "-m", "kerker", *args],
        capture_output=True,
        text=True,
        env=full,
        check=False,
    )


def test_help_follows_lang_then_kerker_lang_then_the_locale() -> None:
    italian = "Tira una prova HPR"
    german = "Eine HPR-Würfelprobe würfeln"
    assert italian in _run("check", "--help", "--lang", "it").stdout
    assert italian in _run("check", "--lang=it", "--help", LANG="de_DE.UTF-8").stdout
    assert italian in _run("check", "--help", KERKER_LANG="it", LC_ALL="de_DE.UTF-8").stdout
    assert german in _run("check", "--help", LC_ALL="de_DE.UTF-8").stdout
    english = _run("check", "--help").stdout
    assert "Roll an HPR check: a d20" in english and "W20" not in english


def test_usage_errors_are_one_line_in_the_readers_language() -> None:
    cases = [
        (("roll", "--bogus"), "unbekannte Option: --bogus"),
        (("nope",), "unbekannter Befehl: nope"),
        (("check", "abc"), "abc ist keine ganze Zahl"),
        (("table", "show"), "es fehlt das Argument"),
        (("check", "12", "extra"), "überzählige Argumente: extra"),
    ]
    for args, wanted in cases:
        done = _run(*args, KERKER_LANG="de")
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("kerker: Fehler: "), (args, done.stderr)
        assert wanted in lines[0] and "(Hilfe: kerker" in lines[0], (args, lines)
        assert "Usage" not in done.stderr and "Error" not in done.stderr
    italian = _run("roll", "1d6", "--sed", "3", "--lang", "it").stderr
    assert "opzione sconosciuta: --sed (forse --seed" in italian


def test_check_speaks_of_a_threshold_in_italian() -> None:
    out = _run("check", "12", "--lang", "it", "--seed", "3", "--secret").stdout
    assert "soglia 12" in out and "probabilità" not in out
    assert "d20 -> [" in out and "W20" not in out
    assert "arbitro" in out and "master" not in out


def test_table_show_in_italian_has_no_english_and_no_templates() -> None:
    from kerker.cli import app

    result = CliRunner().invoke(
        app, ["table", "show", "zufallslabyrinth/schatz", "--lang", "it"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert TEMPLATE.search(out) is None, out
    assert "Decision" not in out and "the caller" not in out
    assert "d20" in out and GERMAN_DIE.search(out) is None
    assert "(2 × livello)d10 × 100 monete di rame" in out
    assert "kerker table show zufallslabyrinth/schatz --lang en" in out


def test_prowl_tune_names_no_internal_key(tmp_path: Path) -> None:
    plan = tmp_path / "prowl-14.json"
    plan.write_text((GOLDEN / "prowl_14.json").read_text(encoding="utf-8"), encoding="utf-8")
    done = _run(
        "prowl",
        "tune",
        str(plan),
        "raise-room",
        "R3,",
        "patrol",
        "C2,",
        "lower-room",
        "R2,",
        "reroll-doors",
        "--no-render",
        LC_ALL="de_DE.UTF-8",
    )
    assert done.returncode == 0, done.stderr
    changes = [line for line in done.stdout.splitlines() if line.startswith("   ")]
    assert changes
    text = "\n".join(changes)
    for key in ("stationed", "patrol", " lo ", " mid", "nosec", "removed", "added", "door RW"):
        assert key not in text, (key, text)
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", text), text  # no subtype keys
    assert "LoSec → MidSec" in text and "auf Patrouille" in text
    # the sheet written beside the plan reads the same
    data = json.loads(plan.read_text(encoding="utf-8"))
    assert data["tuning"]["log"][0]["changes"][0].endswith("lo -> mid")  # the plan keeps keys


def test_prowl_and_prowl_render_agree_on_the_language(tmp_path: Path) -> None:
    plan = tmp_path / "prowl-14.json"
    plan.write_text((GOLDEN / "prowl_14.json").read_text(encoding="utf-8"), encoding="utf-8")
    made = _run("prowl", "--seed", "14", "--reputation", "8", "--players", "4", LANG="it_IT.UTF-8")
    rendered = _run("prowl", "render", str(plan), LANG="it_IT.UTF-8")
    assert made.returncode == rendered.returncode == 0, (made.stderr, rendered.stderr)
    assert "Fraktionen" in made.stdout and "Fraktionen" in rendered.stdout
