"""Numbers as a game master reads them: exact fractions, percentages, decimal marks.

Typer-free and cheap to import: the library (odds trees, odds tables) and the command line
format numbers the same way. Values of any size are formatted: a value too large for a float
is rounded exactly (half to even) from the fraction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fractions import Fraction

FLOAT_LIMIT = 10**15
"""Below this magnitude a value is formatted through ``float`` (as before: byte-identical
output); at or above it exactly from the fraction, where a float would overflow or lose
digits."""


def frac(value: Fraction) -> str:
    """A fraction as ``"n/d"`` (the JSON form of exact probabilities)."""
    return f"{value.numerator}/{value.denominator}"


def fixed(value: Fraction | float | int, digits: int = 2) -> str:
    """``value`` with ``digits`` decimals, never through a float that could overflow.

    >>> from fractions import Fraction
    >>> fixed(Fraction(7, 2))
    '3.50'
    >>> fixed(Fraction(10**400 + 1, 2), 1)[-5:]
    '000.5'
    """
    from fractions import Fraction

    if isinstance(value, float):
        return f"{value:.{digits}f}"
    exact = Fraction(value)
    if abs(exact) < FLOAT_LIMIT:
        return f"{float(exact):.{digits}f}"
    scaled = exact * 10**digits
    whole = round(scaled)  # Fraction rounds half to even, exactly
    sign = "-" if whole < 0 else ""
    text = str(abs(whole)).rjust(digits + 1, "0")
    if digits == 0:
        return sign + text
    return f"{sign}{text[:-digits]}.{text[-digits:]}"


def percent(value: Fraction | float, lang: str, digits: int = 2) -> str:
    """``12.50 %`` in English, ``12,50 %`` in German and Italian."""
    from fractions import Fraction

    exact = value * 100 if isinstance(value, float) else Fraction(value) * 100
    text = fixed(exact, digits)
    if lang in ("de", "it"):
        text = text.replace(".", ",")
    return f"{text} %"


def decimal(value: Fraction | float, lang: str, digits: int = 2) -> str:
    """A number with the language's decimal mark."""
    text = fixed(value, digits)
    return text.replace(".", ",") if lang in ("de", "it") else text


def root(value: Fraction | int, lang: str, digits: int = 2) -> str:
    """The square root of a non-negative exact ``value`` (a variance), with the language's
    decimal mark; exact digits (truncated) where a float would overflow.

    >>> from fractions import Fraction
    >>> root(Fraction(35, 12), "de")
    '1,71'
    >>> root(10**700, "en", 1)[-4:]
    '00.0'
    """
    import math
    from fractions import Fraction

    exact = Fraction(value)
    if exact < 0:
        raise ValueError("root of a negative value")
    if exact < FLOAT_LIMIT**2:
        text = f"{math.sqrt(exact):.{digits}f}"
    else:
        scaled = math.isqrt(exact.numerator * 10 ** (2 * digits) // exact.denominator)
        digits_text = str(scaled).rjust(digits + 1, "0")
        text = f"{digits_text[:-digits]}.{digits_text[-digits:]}" if digits else digits_text
    return text.replace(".", ",") if lang in ("de", "it") else text


CURRENCY_SIGNS = frozenset({"$", "£", "€"})
"""Units written before the number in English (``$250``)."""


def money(amount: str, unit: str, lang: str) -> str:
    """An already formatted ``amount`` with its ``unit`` the reader's way: a currency sign
    before the number in English (``$250``), after it in German and Italian (``250 $``);
    any other unit after the number (``250 gp``)."""
    if lang == "en" and unit in CURRENCY_SIGNS:
        return f"{unit}{amount}"
    return f"{amount} {unit}"
