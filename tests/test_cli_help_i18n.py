"""Click's and Typer's own words on the command line in the reader's language (issue 15:
"Typer's own messages and errors in the user's language where Typer allows it"): the
headings and additions of every help page, and the usage errors kerker turns into one line.
Each test failed before kerker's help formatter (help pages said "Usage:", "Options",
"Show this message and exit." in every language)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from kerker.cli_help import help_text
from kerker.i18n import translator

SRC = Path(__file__).resolve().parent.parent / "src"

ENGLISH = (
    "Usage:",
    "[OPTIONS]",
    "COMMAND [ARGS]",
    "Arguments:",
    "Options:",
    "Commands:",
    "Show this message and exit.",
    "[default:",
    "[required]",
)
"""What Click and Typer write in English on their own."""


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


def _no_english(text: str) -> None:
    for word in ENGLISH:
        assert word not in text, (word, text)


def test_the_top_help_in_german_and_italian() -> None:
    german = _run("--help", KERKER_LANG="de")
    assert german.returncode == 0, german.stderr
    out = german.stdout
    assert out.startswith("Aufruf: kerker [OPTIONEN] BEFEHL [ARGUMENTE]...\n"), out
    assert "\nOptionen:\n" in out and "\nBefehle:\n" in out
    assert "--help  Diese Hilfe zeigen und beenden." in out
    assert "  roll     Einen Würfelausdruck" in out  # kerker's own texts as before
    _no_english(out)
    italian = _run("--help", LANG="it_IT.UTF-8", LC_ALL="it_IT.UTF-8").stdout
    assert italian.startswith("Uso: kerker [OPZIONI] COMANDO [ARGOMENTI]...\n"), italian
    assert "\nOpzioni:\n" in italian and "\nComandi:\n" in italian
    assert "Mostra questo aiuto ed esce." in italian
    _no_english(italian)


def test_a_commands_help_translates_arguments_defaults_and_required() -> None:
    for lang, words in (
        ("de", ("Aufruf: kerker roll [OPTIONEN]", "Argumente:", "[erforderlich]", "[Vorgabe: 1]")),
        ("it", ("Uso: kerker roll [OPZIONI]", "Argomenti:", "[obbligatorio]", "[predefinito: 1]")),
    ):
        done = _run("roll", "--help", "--lang", lang)
        assert done.returncode == 0, done.stderr
        for word in words:
            assert word in done.stdout, (lang, word, done.stdout)
        _no_english(done.stdout)


def test_sub_groups_and_their_commands_are_translated_too() -> None:
    bare = _run("table", KERKER_LANG="it").stderr  # a bare group: its help on stderr
    assert bare.startswith("Uso: kerker table [OPZIONI] COMANDO [ARGOMENTI]...\n"), bare
    assert "\nComandi:\n" in bare
    _no_english(bare)
    for args in (("table", "roll", "--help"), ("play", "new", "--help"), ("prowl", "--help")):
        done = _run(*args, KERKER_LANG="de")
        assert done.returncode == 0, (args, done.stderr)
        assert done.stdout.startswith("Aufruf: kerker "), (args, done.stdout)
        assert "\nOptionen:\n" in done.stdout
        _no_english(done.stdout)


def test_english_help_is_unchanged() -> None:
    out = _run("roll", "--help").stdout
    assert out.startswith("Usage: kerker roll [OPTIONS] ")
    for word in ("Arguments:", "Options:", "[required]", "[default: 1]"):
        assert word in out, (word, out)
    assert "--help             Show this message and exit." in out
    top = _run("--help", KERKER_LANG="en", LANG="de_DE.UTF-8").stdout
    assert top.startswith("Usage: kerker [OPTIONS] COMMAND [ARGS]...") and "Commands:" in top


def test_usage_errors_in_german_and_italian() -> None:
    cases = [
        ("de", ("roll",), "kerker: Fehler: es fehlt das Argument 'EXPR...'"),
        ("it", ("roll",), "kerker: errore: manca l’argomento 'EXPR...'"),
        ("de", ("roll", "1d6", "--bogus"), "kerker: Fehler: unbekannte Option: --bogus"),
        ("it", ("roll", "1d6", "--bogus"), "kerker: errore: opzione sconosciuta: --bogus"),
        ("de", ("rol",), "kerker: Fehler: unbekannter Befehl: rol (gemeint: roll, prowl?)"),
        ("it", ("table", "sho"), "kerker: errore: comando sconosciuto: sho (forse show?)"),
        ("de", ("roll", "1d6", "--json=3"), "kerker: Fehler: die Option --json nimmt keinen Wert"),
        ("it", ("roll", "1d6", "--json=3"), "l’opzione --json non accetta valori"),
    ]
    for lang, args, wanted in cases:
        done = _run(*args, KERKER_LANG=lang)
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and wanted in lines[0], (lang, args, done.stderr)
        for word in ("Usage", "Error", "Try ", "No such", "Did you mean", "does not take"):
            assert word not in done.stderr, (word, done.stderr)
    english = _run("rol").stderr.strip()
    assert english == "kerker: error: no such command: rol (did you mean roll, prowl?) " + (
        "(help: kerker --help)"
    )


def test_help_text_translates_only_the_words_click_adds() -> None:
    _ = translator("de")
    assert help_text("Show this message and exit.", _) == "Diese Hilfe zeigen und beenden."
    assert help_text("So oft.  [default: 1; required]", _) == "So oft.  [Vorgabe: 1; erforderlich]"
    assert help_text("[env var: KERKER_DB]", _) == "[Umgebungsvariable: KERKER_DB]"
    assert help_text("Wert.  [1<=x<=6]", _) == "Wert.  [1<=x<=6]"  # a range stays
    assert help_text("Eine Liste [a, b] mitten im Text.", _) == "Eine Liste [a, b] mitten im Text."
    assert help_text("So oft.  [default: 1]", translator("en")) == "So oft.  [default: 1]"


def test_lang_before_help_works_for_every_group() -> None:
    """``kerker --help --lang de`` was refused ("unknown option: --lang"): the groups take
    ``--lang`` for their help page, before or after ``--help``."""
    for args, wanted in (
        (("--help", "--lang", "de"), "Aufruf: kerker [OPTIONEN] BEFEHL [ARGUMENTE]...\n"),
        (("--lang", "it", "--help"), "Uso: kerker [OPZIONI] COMANDO [ARGOMENTI]...\n"),
        (("--lang=de", "--help"), "Aufruf: kerker [OPTIONEN] BEFEHL"),
        (("--lang", "de"), "Aufruf: kerker [OPTIONEN] BEFEHL"),  # no command: the help
        (("table", "--help", "--lang", "it"), "Uso: kerker table [OPZIONI] COMANDO"),
        (("--lang", "de", "table", "--help"), "Aufruf: kerker table [OPTIONEN] BEFEHL"),
        (("play", "--lang", "it", "--help"), "Uso: kerker play [OPZIONI] COMANDO"),
        (("play", "--help", "--lang", "de"), "Aufruf: kerker play [OPTIONEN] BEFEHL"),
        (("prowl", "--help", "--lang", "it"), "Uso: kerker prowl [OPZIONI]"),
        (("serve", "--help", "--lang", "de"), "Aufruf: kerker serve [OPTIONEN]"),
        (("table", "import", "--help", "--lang", "it"), "Uso: kerker table import [OPZIONI]"),
        (("table", "schema", "--help", "--lang", "de"), "Aufruf: kerker table schema"),
    ):
        done = _run(*args)
        text = done.stdout or done.stderr
        assert done.returncode in (0, 2) and text.startswith(wanted), (args, text, done.stderr)
        _no_english(text)
    assert "Verliese, Zonenkarten" in _run("--help", "--lang", "de").stdout  # kerker's own


def test_every_command_takes_lang_and_every_group_passes_it_on() -> None:
    import click
    import typer

    from kerker.cli import app
    from kerker.cli_support import LangGroup

    def walk(command: click.Command, path: str) -> None:
        names = [p.name for p in command.params]
        subs = getattr(command, "commands", None)
        if subs is None:
            assert "lang" in names, path
            return
        assert isinstance(command, LangGroup) or "lang" in names, path
        for name in list(subs):
            walk(subs[name], f"{path} {name}")

    walk(typer.main.get_command(app), "kerker")


def test_a_groups_lang_goes_to_its_command() -> None:
    from typer.testing import CliRunner

    from kerker.cli import app
    from kerker.cli_support import lang_to_command

    assert lang_to_command(["--lang", "de", "roll", "1d6"]) == ["roll", "--lang", "de", "1d6"]
    assert lang_to_command(["--lang=it", "table", "roll", "x"]) == [
        "table",
        "--lang=it",
        "roll",
        "x",
    ]
    assert lang_to_command(["--help", "--lang", "de"]) == ["--help"]
    assert lang_to_command(["--lang", "de"]) == []
    assert lang_to_command(["--lang", "de"], bare=True) == ["--lang", "de"]  # kerker play
    assert lang_to_command(["roll", "--lang", "de"]) == ["roll", "--lang", "de"]
    assert lang_to_command(["--", "--lang", "de"]) == ["--", "--lang", "de"]
    runner = CliRunner()
    args = ["table", "roll", "zufallslabyrinth/schatz", "--seed", "1"]
    italian = runner.invoke(app, ["--lang", "it", *args], env={"KERKER_LANG": "en"})
    assert italian.exit_code == 0 and "monete di rame" in italian.stdout, italian.output
    german = runner.invoke(app, ["table", "--lang", "de", *args[1:]], env={"KERKER_LANG": "en"})
    assert german.exit_code == 0 and "Kupfermünzen" in german.stdout, german.output


def test_help_follows_the_terminal_width_up_to_100_columns() -> None:
    """Click wrapped help at 78 columns whatever the terminal's width."""

    def widest(columns: str | None) -> int:
        env = {"COLUMNS": columns} if columns else {}
        full = dict(os.environ, PYTHONPATH=str(SRC), LANG="C.UTF-8", LC_ALL="C.UTF-8", **env)
        if columns is None:
            full.pop("COLUMNS", None)
        out = subprocess.run(
            [sys.executable, "-m", "kerker", "play", "new", "--help", "--lang", "en"],
            capture_output=True,
            text=True,
            env=full,
            check=True,
        ).stdout
        return max(len(line) for line in out.splitlines())

    assert 78 < widest("160") <= 98  # as wide as the terminal, capped at 100
    assert 78 < widest("100") <= 98
    assert widest("70") <= 68
    assert widest(None) <= 78  # a pipe of unknown width keeps Click's 78
