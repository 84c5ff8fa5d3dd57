"""The command line: output contracts, help texts, one-line errors with exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from kerker.cli import app
from kerker.dice import odds

runner = CliRunner()


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_every_command_has_help_with_an_example() -> None:
    from kerker.cli import COMMANDS

    names = list(COMMANDS)
    assert {"roll", "odds", "check", "dungeon", "zones", "table", "prowl"} <= set(names)
    for name in names:
        code, out, _ = invoke(name, "--help")
        assert code == 0, name
        assert "kerker " + name in out.replace("\n", " "), name
        assert "Example" in out or "Beispiel" in out or "Esempio" in out, name


def test_roll_prints_the_total_and_is_repeatable() -> None:
    code, out, _ = invoke("roll", "3W6", "--seed", "42", "--quiet")
    assert code == 0
    total = int(out.strip())
    assert 3 <= total <= 18
    assert invoke("roll", "3W6", "--seed", "42", "-q")[1] == out


def test_roll_shows_the_dice_by_default() -> None:
    # Issue 17: at the table `4d6kh3` printed only "9"; the dice are shown unless --quiet.
    code, out, _ = invoke("roll", "4d6kh3", "--seed", "42")
    assert code == 0
    (line,) = out.strip().splitlines()
    total = int(invoke("roll", "4d6kh3", "--seed", "42", "--quiet")[1])
    assert line.startswith("4d6kh3 -> [") and line.endswith(f"= {total}")
    assert line.count("(") == 1  # the dropped die
    assert "seed" not in out
    assert "(seed 42)" in invoke("roll", "W6", "--seed", "42", "--seed-hint")[1]
    code, _, err = invoke("roll", "W6", "--explain", "--quiet")
    assert code == 2 and "either --explain or --quiet" in err


def test_roll_and_odds_join_unquoted_words() -> None:
    # Issue 17: `kerker roll 2W6 + 3` unquoted failed.
    joined = invoke("roll", "2W6", "+", "3", "--seed", "5")
    quoted = invoke("roll", "2W6 + 3", "--seed", "5")
    assert joined[0] == 0 and joined[1] == quoted[1]
    assert joined[1].startswith("2W6 + 3 -> [")
    assert invoke("odds", "2W6", "+", "3", "--json")[1] == invoke("odds", "2W6 + 3", "--json")[1]


def test_roll_times_and_explain() -> None:
    code, out, _ = invoke("roll", "4W6kh3", "--seed", "7", "--times", "3", "--explain")
    assert code == 0
    lines = out.strip().splitlines()
    assert len(lines) == 4
    assert lines[0].startswith("4W6kh3 -> [")
    assert "(seed 7)" in lines[-1]


def test_roll_json_contract() -> None:
    code, out, _ = invoke("roll", "2W10×100", "--seed", "1", "--json", "--times", "2")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"kerker", "seed", "expression", "rolls"}
    assert data["seed"] == 1
    assert len(data["rolls"]) == 2
    first = data["rolls"][0]
    assert set(first) == {"expression", "total", "explain", "tree"}
    assert first["total"] % 100 == 0
    assert first["tree"]["type"] == "op"


@pytest.mark.parametrize(
    ("expr", "column"),
    [("3W6+", 5), ("3W6 ? 2", 5), ("1d0", 3), ("1d20r<21", 5), ("", 1)],
)
def test_bad_expression_one_line_caret_exit_2(expr: str, column: int) -> None:
    code, out, err = invoke("roll", expr)
    assert code == 2
    assert out == ""
    lines = err.rstrip("\n").splitlines()
    assert lines[0].startswith("kerker: error: ")
    if expr:
        assert f"(column {column})" in lines[0]
        assert lines[1] == "  " + expr
        assert lines[2] == "  " + " " * (column - 1) + "^"
    assert "Traceback" not in err


def test_bad_options_exit_2_without_traceback() -> None:
    for args in (
        ["roll", "W6", "--times", "0"],
        ["roll", "W6", "--lang", "fr"],
        ["roll", "W6", "--seed", "-1"],
    ):
        code, _out, err = invoke(*args)
        assert code == 2, args
        assert "Traceback" not in err
        assert len(err.strip().splitlines()) == 1, err


def test_odds_json_fractions_are_exact_strings() -> None:
    code, out, _ = invoke("odds", "4W6kh3", "--json")
    assert code == 0
    data = json.loads(out)
    dist = odds("4W6kh3")
    assert data["expression"] == "4W6kh3"
    assert sum(Fraction(row["p"]) for row in data["outcomes"]) == 1
    assert {row["value"]: Fraction(row["p"]) for row in data["outcomes"]} == dist.probabilities()
    assert Fraction(data["mean"]) == dist.mean


def test_odds_table_and_plot() -> None:
    code, out, _ = invoke("odds", "2W6", "--plot", "--lang", "en")
    assert code == 0
    assert "16.67 %" in out  # P(7)
    assert "█" in out
    assert "mean 7.00" in out


def test_odds_refuses_what_is_too_big() -> None:
    code, _out, err = invoke("odds", "1000d1000")
    assert code == 2
    assert "Traceback" not in err


def test_console_script_runs_as_a_process() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "kerker", "roll", "W20", "--seed", "3", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 0
    assert 1 <= int(proc.stdout) <= 20
    bad = subprocess.run(
        [sys.executable, "-m", "kerker", "roll", "W20+"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert bad.returncode == 2
    assert bad.stderr.startswith("kerker: error:")


def test_errors_and_tables_speak_german_and_italian() -> None:
    code, _out, err = invoke("roll", "3W6+", "--lang", "de")
    assert code == 2
    assert err.startswith("kerker: Fehler: ")
    assert "(Spalte 5)" in err
    code, _out, err = invoke("roll", "3W6+", "--lang", "it")
    assert err.startswith("kerker: errore: ")
    assert "(colonna 5)" in err
    code, out, _err = invoke("odds", "2W6", "--lang", "de")
    assert code == 0
    assert "mindestens" in out and "16,67 %" in out


def test_translated_field_names_in_check_errors() -> None:
    code, _out, err = invoke("check", "999", "--lang", "de")
    assert code == 2
    assert "Wert" in err and "value" not in err
