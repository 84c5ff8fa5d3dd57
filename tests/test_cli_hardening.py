"""The command line at its edges (issue 18 part B): stdout that fails or cannot encode,
and user text that tries to drive the terminal or Rich.

Every case runs ``python -m kerker`` in a subprocess: only a real process shows what a user
sees (tracebacks, exit status, the interpreter's last flush).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"

HOSTILE = """\
schema: 1
rule_set: boese
language: en
tables:
  - name: ding
    title: {de: "Ding [/]", it: "Cosa [/]", en: "Thing [/] [bold]loud[/bold]"}
    dice: W2
    source: {heading: "Head \\e[2J\\a"}
    rows:
      - range: [1, 1]
        text: {de: "a", it: "a", en: "clear \\e[2J\\e]0;pwned\\a bell [/] [red]x"}
      - range: [2, 2]
        text: {de: "b", it: "b", en: "plain [bold]not bold[/bold] \\u202eevil\\N"}
"""


def run(
    args: list[str], *, stdout: object = subprocess.PIPE, cwd: Path | None = None, **env: str
) -> subprocess.CompletedProcess[bytes]:
    full_env = dict(
        os.environ, PYTHONPATH=str(SRC), LANG="C.UTF-8", LC_ALL="C.UTF-8", COLUMNS="100"
    )
    full_env.pop("KERKER_TABLES", None)
    full_env.pop("PYTHONIOENCODING", None)
    full_env.update(env)
    return subprocess.run(
        [sys.executable, "-m", "kerker", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=full_env,
        cwd=cwd,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("edges")
    (base / "t.csv").write_text("1-3,Gold\n4-6,Silber\n", encoding="utf-8")
    plan = run(["prowl", "-r", "4", "-p", "3", "--seed", "1", "--json"])
    assert plan.returncode == 0
    (base / "plan.json").write_bytes(plan.stdout)
    (base / "hostile").mkdir()
    (base / "hostile" / "boese.yaml").write_text(HOSTILE, encoding="utf-8")
    return base


EVERY_COMMAND = [
    ["--help"],
    ["roll", "--help"],
    ["table", "--help"],
    ["roll", "3W6", "--seed", "1"],
    ["roll", "3W6", "--seed", "1", "--json"],
    ["odds", "3W6", "--plot"],
    ["odds", "3W6", "--json"],
    ["check", "12", "--seed", "1"],
    ["check", "12", "--odds"],
    ["dungeon", "--seed", "1", "--size", "20x20", "--max-areas", "8"],
    ["dungeon", "--seed", "1", "--size", "20x20", "--max-areas", "8", "--json"],
    ["zones", "--seed", "1", "--size", "3x3"],
    ["zones", "--seed", "1", "--size", "3x3", "--json"],
    ["prowl", "-r", "2", "-p", "2", "--seed", "1"],
    ["prowl", "-r", "2", "-p", "2", "--seed", "1", "--json"],
    ["prowl", "-r", "4", "--odds"],
    ["prowl", "render", "plan.json"],
    ["table", "list"],
    ["table", "show", "zufallslabyrinth/schatz"],
    ["table", "roll", "zufallslabyrinth/schatz", "--seed", "1", "--explain"],
    ["table", "odds", "zufallslabyrinth/innenausstattung"],
    ["table", "odds", "zufallslabyrinth/schatz", "--tree"],
    ["table", "schema"],
    ["table", "export", "zufallslabyrinth/schatz"],
    ["table", "import", "t.csv"],
]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", EVERY_COMMAND, ids=" ".join)
def test_a_full_stdout_is_one_line_and_exit_2(args: list[str], workdir: Path) -> None:
    with open("/dev/full", "wb") as full:
        proc = run(args, stdout=full, cwd=workdir)
    err = proc.stderr.decode("utf-8")
    assert proc.returncode == 2, err
    assert err.count("\n") == 1 and err.startswith("kerker: error: "), err
    assert "standard output" in err


NOT_UTF8 = [
    {"PYTHONIOENCODING": "latin-1"},
    {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"},
]
SPOTS = [
    ["odds", "2W6", "--plot", "--lang", "de"],
    ["dungeon", "--seed", "1", "--size", "20x20", "--max-areas", "8"],
    ["zones", "--seed", "1", "--size", "3x3", "--lang", "de"],
    ["prowl", "-r", "2", "-p", "2", "--seed", "1", "--lang", "de"],
    ["table", "list"],
    ["table", "show", "zufallslabyrinth/schatz", "--lang", "de"],
    ["table", "odds", "zufallslabyrinth/innenausstattung", "--lang", "de"],
    ["table", "roll", "zufallslabyrinth/schatz", "--seed", "3", "--level", "3", "--explain"],
    ["check", "12", "--odds", "--lang", "de"],
]


@pytest.mark.parametrize("env", NOT_UTF8, ids=["latin-1", "C-locale"])
@pytest.mark.parametrize("args", SPOTS, ids=" ".join)
def test_a_stdout_without_utf8_gets_readable_replacements(
    args: list[str], env: dict[str, str]
) -> None:
    proc = run(args, **env)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in proc.stderr
    encoding = "latin-1" if "PYTHONIOENCODING" in env else "ascii"
    text = proc.stdout.decode(encoding)  # every byte is in the stream's encoding
    assert "?" * 3 not in text


def test_replacements_keep_the_meaning() -> None:
    proc = run(["odds", "2W6", "--plot", "--lang", "de"], LC_ALL="C", LANG="C", PYTHONUTF8="0")
    text = proc.stdout.decode("ascii")
    assert "hoechstens" in text and "fuer 2W6" in text and "#####" in text
    lines = [line for line in text.splitlines() if line.startswith("|")]
    assert len({len(line) for line in lines}) == 1  # columns still line up


@pytest.mark.parametrize(
    "args",
    [
        ["roll", "2W6", "--seed", "4", "--json"],
        ["zones", "--seed", "2", "--size", "3x3", "--json"],
        ["table", "show", "zufallslabyrinth/schatz", "--json"],
    ],
    ids=" ".join,
)
def test_json_on_an_ascii_stdout_is_the_same_data(args: list[str]) -> None:
    utf8 = run(args)
    ascii_run = run(args, LC_ALL="C", LANG="C", PYTHONUTF8="0")
    assert ascii_run.returncode == 0
    ascii_run.stdout.decode("ascii")
    assert json.loads(ascii_run.stdout) == json.loads(utf8.stdout)


@pytest.mark.parametrize(
    "args",
    [
        ["table", "show", "boese/ding"],
        ["table", "list"],
        ["table", "odds", "boese/ding"],
        ["table", "odds", "boese/ding", "--tree"],
        ["table", "roll", "boese/ding", "--seed", "1", "--times", "6", "--explain"],
    ],
    ids=" ".join,
)
def test_user_text_cannot_drive_the_terminal_or_rich(args: list[str], workdir: Path) -> None:
    proc = run([*args, "--tables", str(workdir / "hostile")])
    out = proc.stdout.decode("utf-8")
    assert proc.returncode == 0, proc.stderr.decode("utf-8")
    assert "\x1b" not in out and "\x07" not in out
    if "list" not in args:
        assert "\\x1b[2J" in out or "\\x1b" in out.replace("\n", "")
    if args[1] == "show":
        assert "[/]" in out and "[bold]not bold[/bold]" in out
    if args[1] == "list":
        assert "Thing [/]" in out and "[bold]" in out


# -- runaway output and huge numbers (in-process: no stream trouble involved) -------------------


def _invoke(*args: str) -> tuple[int, str, str]:
    from typer.testing import CliRunner

    from kerker.cli import app

    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_roll_times_caps_the_dice_thrown_before_the_work() -> None:
    code, out, err = _invoke("roll", "1000W6", "--times", "1000", "--json")
    assert code == 2 and out == ""
    assert err.strip() == (
        "kerker: error: 1000W6 --times 1000 throws more than 20000 dice; roll fewer times"
    )
    code, out, err = _invoke("roll", "101W6", "--times", "1000", "--seed", "1")
    assert code == 2 and "more than 100000 dice" in err
    code, out, _ = _invoke("roll", "10W6", "--times", "1000", "--seed", "1", "--quiet")
    assert code == 0 and len(out.split()) == 1000


def test_dice_thrown_counts_rerolls_explosions_and_computed_counts() -> None:
    import random

    from kerker.commands.dice import dice_thrown
    from kerker.dice import parse, roll

    rng = random.Random(3)
    assert dice_thrown(roll(parse("3W6+W4"), rng).record) == 4
    for _ in range(50):
        exploding = roll(parse("4W6!"), rng)
        assert dice_thrown(exploding.record) == 4 + exploding.explain().split("->")[1].count("!")
        computed = roll(parse("(2W4)W6"), rng)
        inner = computed.record.count_record  # type: ignore[union-attr]
        assert dice_thrown(computed.record) == 2 + inner.total


def test_odds_of_numbers_beyond_a_float_are_exact() -> None:
    expression = "*".join(["999999999"] * 35) + "*W6"
    code, out, err = _invoke("odds", expression, "--lang", "en")
    assert code == 0, err
    assert "inf" not in out and "e+" not in out
    flat = "".join(out.split())  # Rich folds the long numbers over lines
    factor = 999999999**35  # odd: the mean 3.5 * factor ends in .5
    assert f"mean{factor * 7 // 2}.50,standarddeviation" in flat
    assert "16.67 %" in out  # every result's probability is still shown


@pytest.mark.parametrize(
    "args",
    [["zones", "--seed", "1", "--size", "3x3"], ["prowl", "-r", "2", "-p", "2", "--seed", "1"]],
    ids=" ".join,
)
def test_zones_and_prowl_speak_the_language_their_help_promises(args: list[str]) -> None:
    helped = run([args[0], "--help"]).stdout.decode("utf-8")
    assert "(default: the rule set's language)" in " ".join(helped.split())
    assert "default: locale" not in " ".join(helped.split())
    italian = run(args, LANG="it_IT.UTF-8", LC_ALL="it_IT.UTF-8").stdout.decode("utf-8")
    german = run([*args, "--lang", "de"]).stdout.decode("utf-8")
    assert italian == german  # the rule set's language (German), whatever the locale


def test_json_keeps_control_characters_as_escapes(workdir: Path) -> None:
    proc = run(["table", "show", "boese/ding", "--json", "--tables", str(workdir / "hostile")])
    out = proc.stdout.decode("utf-8")
    assert "\u202e" not in out and "\x85" not in out and "\x1b" not in out
    texts = [row["texts"]["en"] for row in json.loads(out)["rows"]]
    assert texts[0].startswith("clear \x1b[2J\x1b]0;pwned")
    assert texts[1] == "plain [bold]not bold[/bold] \u202eevil\x85"


def test_svg_on_an_ascii_stdout_is_the_same_drawing() -> None:
    from xml.dom import minidom

    args = ["zones", "--seed", "3", "--size", "3x3", "--format", "svg", "--lang", "de"]
    utf8 = run(args).stdout
    ascii_run = run(args, LC_ALL="C", LANG="C", PYTHONUTF8="0")
    assert ascii_run.returncode == 0
    ascii_run.stdout.decode("ascii")
    assert utf8 != ascii_run.stdout  # the German text needed references
    assert minidom.parseString(ascii_run.stdout).toxml() == minidom.parseString(utf8).toxml()


class _FillingDisk(__import__("io").RawIOBase):
    """A raw stream that takes 100 bytes, then answers short writes and ENOSPC (a disk
    filling up under ``> file`` with PYTHONUNBUFFERED)."""

    def __init__(self) -> None:
        self.data = b""

    def writable(self) -> bool:
        return True

    def write(self, b: object) -> int:
        import errno

        chunk = bytes(b)  # type: ignore[call-overload]
        room = 100 - len(self.data)
        if room <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        self.data += chunk[:room]
        return min(room, len(chunk))


def test_a_short_write_on_an_unbuffered_stdout_is_an_error() -> None:
    import io

    from kerker.termio import OutputError, _guard

    raw = _FillingDisk()
    plain = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)  # type: ignore[arg-type]
    plain.write("x" * 300)  # what Python does by itself: the short write is lost silently
    assert len(raw.data) == 100
    raw = _FillingDisk()
    original = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)  # type: ignore[arg-type]
    guarded = _guard(original, "stdout")  # (sys.__stdout__ keeps the original alive)
    with pytest.raises(OutputError, match="cannot write to standard output: No space left"):
        guarded.write("x" * 300)
    assert guarded.failed


@pytest.mark.parametrize(
    "args",
    [["roll", "1d6"], ["odds", "2W6"], ["--help"], ["table", "show", "zufallslabyrinth/schatz"]],
    ids=" ".join,
)
def test_a_closed_stdout_is_one_line_and_exit_2(args: list[str]) -> None:
    env = dict(os.environ, PYTHONPATH=str(SRC), LANG="C.UTF-8", LC_ALL="C.UTF-8")
    proc = subprocess.run(
        [sys.executable, "-m", "kerker", *args],
        stderr=subprocess.PIPE,
        env=env,
        timeout=120,
        check=False,
        preexec_fn=lambda: os.close(1),
    )  # kerker ... >&-
    assert proc.returncode == 2
    assert proc.stderr.decode() == (
        "kerker: error: cannot write to standard output: it is closed\n"
    )
