"""``kerker table ...`` on fixture tables: JSON contracts, options, errors."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kerker.cli import app

FIXTURES = str(Path(__file__).parent / "fixtures" / "engine")
runner = CliRunner()


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


def test_list_json_contract() -> None:
    code, out, _ = invoke("table", "list", "--json", "--tables", FIXTURES)
    assert code == 0
    items = json.loads(out)
    mine = {i["id"]: i for i in items if i["id"].startswith("test/")}
    assert set(mine["test/schatz"]) == {"id", "title", "dice", "source"}
    assert mine["test/schatz"]["dice"] == "W20"
    assert mine["test/schatz"]["source"] == {"seed": "000.txt", "heading": "Schatz"}


def test_tables_from_the_environment() -> None:
    code, out, _ = invoke("table", "list", "--json", env={"KERKER_TABLES": FIXTURES})
    assert code == 0
    assert any(i["id"] == "test/schatz" for i in json.loads(out))


def test_show_json_contract() -> None:
    code, out, _ = invoke(
        "table", "show", "test/schatz", "--json", "--tables", FIXTURES, "--lang", "de"
    )
    assert code == 0
    data = json.loads(out)
    assert data["dice"] == "W20"
    assert data["source"]["heading"] == "Schatz"
    rows = data["rows"]
    assert rows[0]["range"] == [1, 17]
    assert rows[-1]["range"] == [20, None]
    assert rows[0]["effects"] == [{"amount": "{2*level}W10 × 100"}]
    assert rows[1]["then"]["dice"] == "W8"


def test_roll_json_has_the_full_log() -> None:
    args = (
        "table",
        "roll",
        "test/schatz",
        "--json",
        "--seed",
        "5",
        "--level",
        "3",
        "--guarded",
        "--tables",
        FIXTURES,
        "--times",
        "3",
    )
    code, out, _ = invoke(*args)
    assert code == 0
    data = json.loads(out)
    assert data["seed"] == 5
    assert data["context"] == {"level": 3, "guarded": True}
    assert len(data["results"]) == 3
    for item in data["results"]:
        assert item["log"][0]["table"] == "test/schatz"
        assert item["result"]["total"] == item["result"]["roll"] + 1
    again = json.loads(invoke(*args)[1])
    assert again == data


def test_roll_text_explain() -> None:
    code, out, _ = invoke(
        "table",
        "roll",
        "test/schatz",
        "--seed",
        "5",
        "--explain",
        "--level",
        "3",
        "--guarded",
        "--tables",
        FIXTURES,
        "--lang",
        "de",
    )
    assert code == 0
    assert out.startswith("Schatz: ")
    assert "W20 -> [" in out


def test_odds_json_exact() -> None:
    code, out, _ = invoke(
        "table", "odds", "test/schatz", "--json", "--tables", FIXTURES, "--lang", "en"
    )
    assert code == 0
    data = json.loads(out)
    total = sum(Fraction(o["p"]) for o in data["outcomes"])
    assert total == 1
    assert data["outcomes"][0] == {
        "p": "17/20",
        "outcome": "2W10 × 100 cp",
        "detail": {"table": "test/schatz", "text": "2W10 × 100 cp", "values": {}, "parts": []},
    }


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["table", "roll", "test/nope"], "no table"),
        (["table", "roll", "test/lookup"], "lookup"),
        (["table", "roll", "test/schatz", "--level", "0"], "--level"),
        (["table", "roll", "test/schatz", "--set", "guarded"], "NAME=VALUE"),
        (["table", "roll", "test/schatz", "--set", "x=abc"], "whole number"),
        (["table", "roll", "test/loop"], "refer to itself"),
        (["table", "export", "test/schatz", "--format", "roll20"], "foundry"),
    ],
)
def test_errors_are_one_line(args: list[str], fragment: str) -> None:
    code, _out, err = invoke(*args, "--tables", FIXTURES)
    assert code == 2
    assert fragment in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_bad_tables_folder_is_an_error() -> None:
    code, _out, err = invoke("table", "list", "--tables", "/nonexistent/folder")
    assert code == 2
    assert "/nonexistent/folder" in err


def test_schema_is_json_schema() -> None:
    code, out, _ = invoke("table", "schema")
    assert code == 0
    schema = json.loads(out)
    assert schema["title"] == "kerker table file"
    assert "tables" in schema["properties"]


def test_list_ids_stay_whole_at_80_columns() -> None:
    # Issue 17: `table list` cut ids in the terminal (zufallslabyrinth/kerkerzufallsbegegnun).
    ids = [item["id"] for item in json.loads(invoke("table", "list", "--json")[1])]
    code, out, _ = invoke("table", "list", "--lang", "en", env={"COLUMNS": "80"})
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 80
    cells = {line.split("│")[1].strip() for line in out.splitlines() if line.startswith("│")}
    assert set(ids) <= cells


def test_import_out_creates_the_folder_and_errors_speak_one_language(tmp_path: Path) -> None:
    csv = tmp_path / "loot.csv"
    csv.write_text("range,text\n1-3,Goldmünzen\n4-6,Ein Schwert\n", encoding="utf-8")
    target = tmp_path / "my-tables" / "deeper" / "loot.yaml"
    code, _out, err = invoke("table", "import", str(csv), "--name", "loot", "--out", str(target))
    assert code == 0, err
    assert target.exists() and "name: loot" in target.read_text(encoding="utf-8")
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    code, _out, err = invoke(
        "table",
        "import",
        str(csv),
        "--out",
        str(blocker / "loot.yaml"),
        env={"LANGUAGE": "de", "LANG": "de_DE.UTF-8"},
    )
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "Errno" not in err and "Not a directory" not in err
    code, _out, err = invoke(
        "table",
        "import",
        str(tmp_path / "missing.csv"),
        env={"LANGUAGE": "it", "LANG": "it_IT.UTF-8"},
    )
    assert code == 2 and "Errno" not in err and "No such file" not in err
