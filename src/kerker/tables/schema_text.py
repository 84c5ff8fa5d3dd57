"""Pydantic's validation messages in the reader's language.

A table file's schema errors (and a web request's) come from pydantic in English ("Field
required"). :class:`SchemaText` keeps the English text for logs and tests and says itself
through the gettext catalogs, so that an upload checked on a German page reads "Pflichtfeld
fehlt". An error type without a text of its own (a validator's own ``ValueError``) stays as
pydantic wrote it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kerker.errors import N_

TEXTS: Mapping[str, str] = {
    "missing": N_("a required field is missing"),
    "extra_forbidden": N_("this field is not allowed here"),
    "string_type": N_("should be a text"),
    "int_type": N_("should be a whole number"),
    "int_parsing": N_("should be a whole number"),
    "int_from_float": N_("should be a whole number"),
    "float_type": N_("should be a number"),
    "float_parsing": N_("should be a number"),
    "bool_type": N_("should be true or false"),
    "bool_parsing": N_("should be true or false"),
    "list_type": N_("should be a list"),
    "tuple_type": N_("should be a list of two values"),
    "dict_type": N_("should be a mapping (key: value)"),
    "model_type": N_("should be a mapping (key: value)"),
    "model_attributes_type": N_("should be a mapping (key: value)"),
    "literal_error": N_("should be one of {expected}"),
    "enum": N_("should be one of {expected}"),
    "greater_than": N_("should be greater than {gt}"),
    "greater_than_equal": N_("should be at least {ge}"),
    "less_than": N_("should be less than {lt}"),
    "less_than_equal": N_("should be at most {le}"),
    "string_too_short": N_("should have at least {min_length} characters"),
    "string_too_long": N_("should have at most {max_length} characters"),
    "too_short": N_("should have at least {min_length} entries"),
    "too_long": N_("should have at most {max_length} entries"),
    "string_pattern_mismatch": N_("does not have the expected form"),
    "json_invalid": N_("is not valid JSON"),
}
"""Pydantic error types by the message shown for them (``ctx`` fills the placeholders)."""


@dataclass(frozen=True, slots=True)
class SchemaText:
    """One pydantic message, or several for one place joined by "or"; ``str()`` is English.
    :meth:`message` says it in the language of ``translate`` (a :class:`~kerker.errors.Said`
    message parameter)."""

    parts: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...]
    """(English text, error type, ctx) of each alternative."""

    @classmethod
    def of(cls, error: Mapping[str, Any]) -> SchemaText:
        """The text of one error of ``ValidationError.errors()``."""
        english = str(error.get("msg", "invalid")).removeprefix("Value error, ")
        ctx = tuple((str(k), str(v)) for k, v in (error.get("ctx") or {}).items())
        return cls(((english, str(error.get("type", "")), ctx),))

    @classmethod
    def fixed(cls, english: str) -> SchemaText:
        """A text kerker wrote itself (already as it should read, in English)."""
        return cls(((english, "", ()),))

    def joined(self, other: SchemaText) -> SchemaText:
        """Both alternatives (a union's members at one place)."""
        return SchemaText(self.parts + tuple(p for p in other.parts if p not in self.parts))

    def __str__(self) -> str:
        return self.message()

    def message(self, translate: Callable[[str], str] | None = None) -> str:
        """The text, translated by ``translate`` when given."""
        out: list[str] = []
        for english, kind, ctx in self.parts:
            template = TEXTS.get(kind)
            if template is None or translate is None:
                out.append(english)
                continue
            try:
                out.append(translate(template).format(**dict(ctx)))
            except (KeyError, IndexError, ValueError):
                out.append(english)
        if len(out) == 1:
            return out[0]
        if translate is None:
            return " or ".join(out)
        text = out[0]
        for more in out[1:]:
            text = translate(N_("{first} or {second}")).format(first=text, second=more)
        return text
