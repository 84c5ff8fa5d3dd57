"""The one error hierarchy of kerker.

Everything a user can get wrong ends in a subclass of :class:`KerkerError`. An error carries
an English message *template* (marked for translation with :func:`N_`) and its parameters, so
that ``str(err)`` is plain English for logs and tests while the CLI shows the same message in
the reader's language (:meth:`KerkerError.message`). Errors about a dice expression also carry
the expression and the 1-based column where the trouble starts, so a caret can point at it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol


def N_(template: str) -> str:
    """Mark a message template for extraction into the catalogs; returns it unchanged."""
    return template


class Word(str):
    """A message parameter that is itself a translatable word (e.g. the name of a field).

    ``KerkerError.message(translate)`` translates it together with the template, so
    "the {name} must be ..." reads "der Wert muss ..." and not "der value muss ...".
    Mark the literal with ``N_`` so it reaches the catalogs: ``Word(N_("value"))``.
    """

    __slots__ = ()


class Said(Protocol):
    """Anything that says itself in a language: a :class:`KerkerError`, a read-only reason
    of a play session. As a message parameter it is said in the message's language."""

    def message(self, translate: Callable[[str], str] | None = None) -> str:
        """The text, translated by ``translate`` when given."""
        ...


def format_message(
    template: str, params: Mapping[str, Any], translate: Callable[[str], str] | None = None
) -> str:
    """``template`` filled with ``params``, both translated by ``translate`` when given: a
    :class:`Word` parameter is translated, a parameter that says itself (:class:`Said`,
    e.g. an error inside the message) is said in the same language. A broken translation
    falls back to the English text, never to an exception."""
    text = translate(template) if translate is not None else template
    said = {
        key: value.message(translate)
        for key, value in params.items()
        if not isinstance(value, str) and callable(getattr(value, "message", None))
    }
    english = {**params, **{key: params[key].message() for key in said}}
    if translate is None:
        return template.format(**english)
    shown = {
        key: said[key] if key in said else translate(value) if isinstance(value, Word) else value
        for key, value in params.items()
    }
    try:
        return text.format(**shown)
    except (KeyError, IndexError, ValueError):
        # A broken translation must never hide the error itself.
        return template.format(**english)


class KerkerError(Exception):
    """Root of every error kerker raises on purpose.

    ``template`` is an English ``str.format`` template; ``params`` fill it in.
    """

    code = "error"

    def __init__(self, template: str, /, **params: Any) -> None:
        self.template = template
        self.params = params
        super().__init__(self.message())

    def message(self, translate: Callable[[str], str] | None = None) -> str:
        """The message, translated by ``translate`` (a gettext function) when given."""
        return format_message(self.template, self.params, translate)

    def to_json(self) -> dict[str, Any]:
        """A stable machine-readable form: ``{"error": code, "message": ...}`` plus fields."""
        return {"error": self.code, "message": self.message()}


class DiceError(KerkerError):
    """A dice expression that cannot be read, rolled or analysed.

    ``expression`` is the text as given and ``column`` the 1-based column of the problem
    (``None`` when the problem is not at one place, e.g. the whole roll became too large).
    """

    code = "dice"

    def __init__(
        self,
        template: str,
        /,
        *,
        expression: str = "",
        column: int | None = None,
        **params: Any,
    ) -> None:
        self.expression = expression
        self.column = column
        super().__init__(template, **params)

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        data["expression"] = self.expression
        data["column"] = self.column
        return data


class DiceSyntaxError(DiceError):
    """The expression is not in the dice language (see docs/dice.md)."""

    code = "dice_syntax"


class DiceLimitError(DiceError):
    """The expression is valid but exceeds one of the injected limits."""

    code = "dice_limit"


class DiceRollError(DiceError):
    """Rolling or analysing a valid expression failed (e.g. a division by zero came up)."""

    code = "dice_roll"


class CheckError(KerkerError):
    """An HPR check was asked for with values that make no sense (seed 003)."""

    code = "check"


class RuleDataError(KerkerError):
    """Shipped or user rule data is malformed (file and, where known, line)."""

    code = "rule_data"

    def __init__(
        self, template: str, /, *, file: str = "", line: int | None = None, **params: Any
    ) -> None:
        self.file = file
        self.line = line
        super().__init__(template, **params)

    def message(self, translate: Callable[[str], str] | None = None) -> str:
        text = super().message(translate)
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {text}" if where else text


class OptionError(KerkerError):
    """A command-line option has a value kerker cannot use."""

    code = "option"
