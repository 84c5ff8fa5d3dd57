"""``kerker check`` on a small local Typer app (the real CLI registers it the same way)."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from fractions import Fraction
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from kerker.checks import load_rules
from kerker.commands.check import CHECK_HELP, check_command

app = typer.Typer(rich_markup_mode=None, pretty_exceptions_enable=False)
app.command("check")(check_command)


@app.command("dummy")
def dummy() -> None:
    """A second command, so that Typer keeps the subcommand name."""


runner = CliRunner()


def run(*args: str) -> Any:
    return runner.invoke(app, ["check", *args])


def run_json(*args: str) -> dict[str, Any]:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    return data


def test_roll_in_german() -> None:
    result = run("12", "--difficulty", "sehr schwer", "--seed", "1", "--lang", "de")
    assert result.exit_code == 0, result.output
    names = [t.name["de"] for t in load_rules().outcomes.values()]
    assert any(name in result.stdout for name in names)
    assert "Würfelchance 2" in result.stdout
    # Issue 17: the seed line on every check was noise; it comes with --seed-hint only.
    assert "--seed 1" not in result.stdout
    hinted = run("12", "--difficulty", "sehr schwer", "--seed", "1", "--lang", "de", "--seed-hint")
    assert hinted.stdout.startswith(result.stdout) and "--seed 1" in hinted.stdout


def test_size_words_follow_the_text_and_the_header_shows_the_word() -> None:
    # Seed 003: "Leicht ist ... ein Ziel, das mindestens so groß wie ein Pferd ist",
    # "Schwer ... kleiner als ein Halbling", "Sehr schwer ... ein handtellergroßes Ziel".
    for word, value in (
        ("groß", 5),
        ("sehr groß", 10),
        ("klein", -5),
        ("sehr klein", -10),
        ("extrem klein", -15),
        ("big", 5),
        ("very small", -10),
        ("piccolo", -5),
        ("molto grande", 10),
    ):
        assert run_json("12", "--difficulty", word, "--seed", "1")["modifier"] == value, word
    result = run("12", "--difficulty", "groß", "--seed", "1", "--lang", "de")
    assert result.stdout.startswith("Wert 12, Modifikation +5 (groß: leicht), Würfelchance 17")
    result = run("12", "--difficulty", "sehr schwer", "--seed", "1", "--lang", "en")
    assert "modifier -10 (sehr schwer: very hard)" in result.stdout
    result = run("12", "--difficulty", "very hard", "--seed", "1", "--lang", "en")
    assert "modifier -10 (very hard)," in result.stdout


@pytest.mark.parametrize("lang", ["de", "it", "en"])
def test_same_seed_same_output(lang: str) -> None:
    first = run("14", "--mod", "-3", "--seed", "99", "--lang", lang)
    second = run("14", "--mod", "-3", "--seed", "99", "--lang", lang)
    assert first.exit_code == 0
    assert first.stdout == second.stdout


def test_json_keys_and_replay_without_seed() -> None:
    data = run_json("12", "--lang", "en")
    for key in ("seed", "value", "modifier", "attempt", "chance", "rolls", "outcome", "success"):
        assert key in data
    assert isinstance(data["success"], bool)
    assert 0 <= data["seed"] < 2**32
    again = run_json("12", "--lang", "en", "--seed", str(data["seed"]))
    assert again == data


@pytest.mark.parametrize("word", ["very hard", "molto difficile", "sehr schwer", "Sehr Schwer"])
def test_difficulty_words_in_three_languages(word: str) -> None:
    data = run_json("12", "--difficulty", word, "--seed", "1")
    assert (data["modifier"], data["chance"], data["difficulty"]) == (-10, 2, word)


def test_negative_mod_and_attempt() -> None:
    data = run_json("12", "--mod", "-5", "--attempt", "3", "--seed", "1")
    assert (data["modifier"], data["penalty"], data["chance"]) == (-5, 10, -3)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["12", "--mod", "2", "--difficulty", "schwer"], "either --mod or --difficulty"),
        (["12", "--difficulty", "blah"], "unknown difficulty"),
        (["13", "--luck", "glueck"], "either VALUE or --luck"),
        ([], "give a VALUE"),
        (["--odds", "--chart"], "give a VALUE"),
        (["--luck", "riesig"], "unknown luck level"),
        (["12", "--attempt", "0"], "attempt"),
        (["101"], "between 0 and 100"),
        (["12", "--lang", "fr"], "unknown language"),
        (["12", "--odds", "--seed", "3"], "roll nothing"),
        (["12", "--where", "X3"], "column 1"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("level", "value"), [("glueck", 13), ("Glück", 13), ("viel", 8), ("sehr-viel", 3)]
)
def test_luck(level: str, value: int) -> None:
    data = run_json("--luck", level, "--seed", "2")
    assert data["value"] == data["chance"] == value
    assert data["luck"] in {lv.key for lv in load_rules().luck}


def test_luck_header_in_german() -> None:
    result = run("--luck", "viel", "--seed", "2", "--lang", "de")
    assert "Viel Glück" in result.stdout


def test_odds_json_fractions() -> None:
    data = run_json("12", "--odds")
    odds = {k: Fraction(v) for k, v in data["odds"].items()}
    assert sum(odds.values()) == 1
    assert data["odds"]["super"] == "1/400"
    assert all(isinstance(v, str) and "/" in v for v in data["odds"].values())
    assert "seed" not in data


def test_odds_table_in_italian() -> None:
    result = run("12", "--odds", "--lang", "it")
    assert result.exit_code == 0, result.output
    assert "Successo critico" in result.stdout
    assert "11/400" in result.stdout
    assert "2,75 %" in result.stdout


def test_odds_of_value_zero() -> None:
    data = run_json("0", "--odds")
    assert data["odds"]["impossible"] == "1/1"


def test_chart() -> None:
    result = run("--chart", "--mod", "-5", "--lang", "en")
    assert result.exit_code == 0, result.output
    assert "Critical success" in result.stdout
    assert "95.00 %" in result.stdout
    data = run_json("--chart", "--difficulty", "schwer")
    rows = data["chart"]["rows"]
    assert [r["value"] for r in rows] == list(range(1, 26))
    assert all(sum(Fraction(v) for v in r["odds"].values()) == 1 for r in rows)
    assert rows[0]["chance"] == -4


def test_secret_roll() -> None:
    texts = load_rules().texts
    data = run_json("12", "--secret", "--seed", "4", "--lang", "it")
    assert data["secret"] is True
    assert data["text"]["player"] == texts["it"]["secret_player"]
    assert data["text"]["gm"][0] == texts["it"]["secret_gm"]
    result = run("12", "--secret", "--seed", "4", "--lang", "de")
    assert texts["de"]["secret_player"] in result.stdout


def test_where_on_failure() -> None:
    for seed in range(100):
        data = run_json("5", "--where", "W6", "--seed", str(seed))
        if data["success"]:
            assert data["where"] is None
        else:
            assert data["where"]["expression"] == "W6"
            assert 1 <= data["where"]["total"] <= 6
            result = run("5", "--where", "W6", "--seed", str(seed), "--lang", "de")
            assert "Wo ging es schief?" in result.stdout
            return
    raise AssertionError("no failure in 100 seeds")


def test_value_zero_cannot_do_it() -> None:
    data = run_json("0", "--seed", "1")
    assert data["outcome"] == "impossible" and data["rolls"] == []
    result = run("0", "--lang", "de", "--seed", "1")
    assert "Kann es nicht" in result.stdout


def test_help_has_an_example() -> None:
    result = run("--help")
    assert result.exit_code == 0
    assert 'Example: kerker check 12 --difficulty "sehr schwer"' in result.stdout
    assert "--luck" in result.stdout and "--chart" in result.stdout


def test_help_constant_matches_docstring() -> None:
    doc = inspect.getdoc(check_command)
    assert doc is not None
    assert " ".join(doc.split()) == " ".join(CHECK_HELP.split())


def test_module_import_stays_light() -> None:
    code = (
        "import sys, kerker.commands.check; "
        "print(any(m == 'rich' or m.startswith('rich.') for m in sys.modules), "
        "'kerker.checks' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
