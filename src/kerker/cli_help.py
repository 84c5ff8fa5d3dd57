"""Click's and Typer's own words on kerker's help pages, in the reader's language.

Typer's copy of Click writes "Usage:", "Options", "Show this message and exit." and
"[default: 1]" in English (it has no translations, and Typer's own words go through the
stdlib's global gettext domain, which kerker leaves alone). kerker's help formatter puts
them through kerker's catalogs instead, in the language of the command line
(:func:`kerker.cli_support.cli_language`). Imported only when a help page is written, so a
plain command starts as fast as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import typer

from kerker.cli_support import cli_language
from kerker.errors import N_
from kerker.i18n import translator

if TYPE_CHECKING:
    from typer._click import HelpFormatter as _ClickFormatter
else:  # Click's formatter, whichever copy of Click this Typer uses (no private import)
    _ClickFormatter = typer.Context.formatter_class

_HEADINGS: dict[str, str] = {
    "Arguments": N_("Arguments"),
    "Options": N_("Options"),
    "Commands": N_("Commands"),
}
"""The headings of a help page as Typer writes them -> kerker's messages."""
_USAGE_WORDS: tuple[tuple[str, str], ...] = (
    ("[OPTIONS]", N_("[OPTIONS]")),
    ("COMMAND [ARGS]...", N_("COMMAND [ARGS]...")),
)
"""The placeholders of a usage line that Click writes itself (kerker's own stay)."""
_HELP_OPTION = "Show this message and exit."
_EXTRAS = re.compile(r"\[(?P<extras>[^\[\]]*)\]\Z")
_EXTRA_WORDS: tuple[tuple[str, str, str], ...] = (
    ("default: ", N_("default: {default}"), "default"),
    ("env var: ", N_("env var: {var}"), "var"),
)


def help_text(text: str, _: Any) -> str:
    """One help text of a help page with the words Click and Typer add translated by ``_``:
    the help option's own text and the ``[default: 1; required]`` they append. Other texts
    (and bracket parts kerker does not know, such as a range ``1<=x<=6``) stay as given."""
    if text == _HELP_OPTION:
        return str(_(N_("Show this message and exit.")))
    found = _EXTRAS.search(text)
    if found is None:
        return text
    parts = []
    for part in found["extras"].split("; "):
        if part == "required":
            part = _(N_("required"))
        for prefix, template, key in _EXTRA_WORDS:
            if part.startswith(prefix):
                part = _(template).format(**{key: part[len(prefix) :]})
        parts.append(part)
    return text[: found.start()] + "[" + "; ".join(parts) + "]"


def _t(message: str) -> str:
    return translator(cli_language())(message)


class HelpFormatter(_ClickFormatter):
    """Click's help layout in the reader's language: "Aufruf:", "Optionen", "Befehle",
    "[Standard: 1]", "Diese Hilfe zeigen und beenden." (Typer's copy of Click has no
    translations; kerker's catalogs carry them). Only the words change, never the layout."""

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        for english, message in _USAGE_WORDS:
            args = args.replace(english, _t(message))
        super().write_usage(prog, args, prefix if prefix is not None else _t(N_("Usage:")) + " ")

    def write_heading(self, heading: str) -> None:
        super().write_heading(_t(_HEADINGS[heading]) if heading in _HEADINGS else heading)

    def write_dl(
        self, rows: Sequence[tuple[str, str]], col_max: int = 30, col_spacing: int = 2
    ) -> None:
        super().write_dl([(term, help_text(text, _t)) for term, text in rows], col_max, col_spacing)
