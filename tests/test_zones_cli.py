"""``kerker zones``: the terminal summary, JSON on stdout, files with --out, one-line errors.

The command is mounted on a small Typer app here, the way ``kerker.cli`` mounts it.
"""

from __future__ import annotations

import json
from importlib.util import find_spec
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from kerker.commands.zones import ZONES_HELP, parse_formats, zones_command
from kerker.errors import OptionError

app = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)
app.command("zones", help=ZONES_HELP)(zones_command)


@app.command("other")
def _other() -> None:  # a second command, so "zones" stays a subcommand
    """Nothing."""


runner = CliRunner()


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["zones", *args])
    return result.exit_code, result.stdout, result.stderr


def test_help_has_an_example() -> None:
    code, out, _ = invoke("--help")
    assert code == 0
    assert "Example: kerker zones" in out
    for option in ("--seed", "--size", "--theme", "--lang", "--json", "--out", "--format"):
        assert option in out


def test_summary_is_repeatable() -> None:
    code, out, _ = invoke("--seed", "42", "--lang", "en")
    assert code == 0
    assert out.startswith("Zone map · seed 42 · sci-fi · ")
    assert "┌" in out and "Suggested start" in out
    assert "Seed 42: run again with --seed 42 for the same map." in out
    assert invoke("--seed", "42", "--lang", "en")[1] == out
    assert invoke("--seed", "43", "--lang", "en")[1] != out


def test_json_on_stdout() -> None:
    code, out, _ = invoke(
        "--seed", "7", "--size", "5x3", "--theme", "fantasy", "--json", "--lang", "de"
    )
    assert code == 0
    data = json.loads(out)
    assert (data["seed"], data["width"], data["height"], data["theme"]) == (7, 5, 3, "fantasy")
    assert data["lang"] == "de" and data["log"]
    assert (
        invoke("--seed", "7", "--size", "5x3", "--theme", "fantasy", "--json", "--lang", "de")[1]
        == out
    )


def test_out_writes_every_format_and_the_players_map(tmp_path: Path) -> None:
    code, out, _ = invoke(
        "--seed", "5", "--size", "3x3", "--out", str(tmp_path / "maps"), "--lang", "en"
    )
    assert code == 0
    names = sorted(p.name for p in (tmp_path / "maps").iterdir())
    # the one-page sheet comes with the typst package (kerker[pdf], in kerker[test])
    sheet = ["zones-5.pdf"] if find_spec("typst") is not None else []
    assert names == [
        "zones-5-player.png",
        "zones-5-player.svg",
        "zones-5.json",
        "zones-5.md",
        *sheet,
        "zones-5.png",
        "zones-5.svg",
    ]
    assert "written: " in out
    svg = (tmp_path / "maps" / "zones-5.svg").read_text(encoding="utf-8")
    assert svg.startswith("<svg") and "Zone map – seed 5" in svg
    assert (tmp_path / "maps" / "zones-5.png").read_bytes().startswith(b"\x89PNG")
    data = json.loads((tmp_path / "maps" / "zones-5.json").read_text(encoding="utf-8"))
    assert data["seed"] == 5


def test_out_with_chosen_formats_and_json(tmp_path: Path) -> None:
    code, out, _ = invoke(
        "--seed", "5", "--size", "3x3", "--out", str(tmp_path), "--format", "md,json", "--json"
    )
    assert code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["zones-5.json", "zones-5.md"]
    assert json.loads(out)["seed"] == 5


def test_one_text_format_on_stdout() -> None:
    code, out, _ = invoke("--seed", "5", "--size", "3x3", "--format", "md", "--lang", "en")
    assert code == 0 and out.startswith("# Zone map – seed 5\n")
    code, out, _ = invoke("--seed", "5", "--size", "3x3", "--format", "svg")
    assert code == 0 and out.startswith("<svg")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--size", "30x2"), "1 to 20 nodes"),
        (("--size", "big"), "--size takes WIDTHxHEIGHT"),
        (("--theme", "western"), "unknown theme 'western'; choose one of fantasy, scifi"),
        (("--format", "html"), "--format takes a list"),
        (("--format", "png"), "needs --out DIR"),
        (("--format", "svg,md"), "needs --out DIR"),
        (("--format", "md", "--json"), "--json prints JSON"),
        (("--seed", "-1"), "the seed must be between"),
        (("--lang", "fr"), "unknown language"),
    ],
)
def test_bad_options_one_line_exit_2(args: tuple[str, ...], message: str) -> None:
    code, out, err = invoke(*args)
    assert code == 2, (out, err)
    assert err.startswith("kerker: error: ") and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_unwritable_output_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _out, err = invoke("--seed", "1", "--out", str(blocker), "--format", "md")
    assert code == 2 and err.startswith("kerker: error: cannot write ")


def test_parse_formats() -> None:
    assert parse_formats("md, SVG,png") == ["svg", "png", "md"]
    with pytest.raises(OptionError):
        parse_formats(",")
