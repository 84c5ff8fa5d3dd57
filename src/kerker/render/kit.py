"""The pieces every map and sheet writer shares: escaping of user text for XML (SVG, HTML)
and Markdown, control characters made visible, fixed number formats, the entrance star.

User text (table texts, plan ids and fields, faction lines, zone texts) can hold anything;
every writer passes it through :func:`xml_text` / :func:`xml_attr` (SVG) or :func:`md_text`
(Markdown) where it is shown, so no markup of the user's reaches the reader and no control
character makes an SVG invalid XML.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

__all__ = [
    "md_cell",
    "md_code",
    "md_text",
    "num",
    "num1",
    "star_points",
    "visible",
    "xml_attr",
    "xml_text",
]

# C0 controls except tab, line feed, carriage return; DEL and the C1 controls; the two
# non-characters XML 1.0 forbids. Tab and line breaks become a space in one-line texts.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]")
_BREAKS = re.compile("[\t\r\n\u2028\u2029]+")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode control pictures: ␀ .. ␟
    if code == 0x7F:
        return "\u2421"  # ␡
    return "\ufffd"


def visible(text: str) -> str:
    """``text`` on one line with every control character shown as its picture (BEL as
    "␇"), line breaks and tabs as spaces; nothing else changed."""
    return _CONTROL.sub(_picture, _BREAKS.sub(" ", text))


@lru_cache(maxsize=4096)
def xml_text(text: str) -> str:
    """``text`` for an XML text node: control characters visible, ``&``, ``<``, ``>``
    escaped. Always valid XML 1.0."""
    return visible(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def xml_attr(text: str) -> str:
    """``text`` for a double- or single-quoted XML attribute value."""
    return xml_text(text).replace('"', "&quot;").replace("'", "&#39;")


# ``_`` between two letters or digits opens no emphasis (CommonMark): left as it is.
_MD_SPECIAL = re.compile(r"([\\`*\[\]|~]|(?<![^\W_])_|_(?![^\W_]))")


_MD_LEAD = re.compile(r"\s*(?:[#+\-=>]|\d+[.)])")


def md_text(text: str, *, lead: bool = True) -> str:
    """``text`` for Markdown running text (a list item, a heading, a table cell): one
    line, control characters visible, ``&`` and ``<`` as entities (a viewer renders no
    tag or entity of the user's), Markdown's emphasis, link, code, strike and table
    characters backslash-escaped, and a leading ``#``, ``+``, ``-``, ``=``, ``>`` or
    ``1.`` made inert so no heading, list or quote starts (``lead=False``: text after a
    heading's or list item's marker, where none can start)."""
    out = visible(text).replace("&", "&amp;").replace("<", "&lt;")
    out = _MD_SPECIAL.sub(r"\\\1", out)
    start = _MD_LEAD.match(out) if lead else None
    if start:
        at = start.end() - 1
        out = out[:at] + "\\" + out[at:]
    return out


def md_code(text: object, *, table: bool = False) -> str:
    """``text`` as a Markdown code span: one line, control characters visible, fenced by
    more backticks than any run inside (a code span shows its text as it is, tags too);
    ``table``: inside a table cell, where GFM needs ``\\|`` even in code."""
    body = visible(str(text))
    runs = [len(m) for m in re.findall(r"`+", body)]
    fence = "`" * (max(runs, default=0) + 1)
    if body.startswith("`") or body.endswith("`") or (runs and not body.strip("`")):
        body = f" {body} "
    if table:
        body = body.replace("|", "\\|")
    return f"{fence}{body}{fence}"


def md_cell(text: object) -> str:
    """:func:`md_text` of ``str(text)`` (a table cell: pipes are escaped there too)."""
    return md_text(str(text))


@lru_cache(maxsize=4096)
def num(value: float) -> str:
    """A coordinate for SVG: at most two decimals, no trailing zeros, no "-0"."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


@lru_cache(maxsize=4096)
def num1(value: float) -> str:
    """A coordinate with one decimal, whole numbers without the decimal point (the zone
    and prowl maps' format; ``-0.0`` stays ``"-0"`` as those maps always wrote it)."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


# Unit vectors of a five-pointed star, tip up (constants, not libm: the same bytes everywhere).
_STAR_UNIT = (
    (0.0, -1.0),
    (0.5878, -0.809),
    (0.9511, -0.309),
    (0.9511, 0.309),
    (0.5878, 0.809),
    (0.0, 1.0),
    (-0.5878, 0.809),
    (-0.9511, 0.309),
    (-0.9511, -0.309),
    (-0.5878, -0.809),
)


def star_points(
    cx: float, cy: float, outer: float, inner: float, fmt: Callable[[float], str] = num
) -> str:
    """The ``points`` of an SVG polygon: a five-pointed star centred on ``(cx, cy)``, tip
    up, its tips ``outer`` and its inner corners ``inner`` from the centre, each coordinate
    written by ``fmt`` (the map's own number format)."""
    points = []
    for k, (ux, uy) in enumerate(_STAR_UNIT):
        radius = outer if k % 2 == 0 else inner
        points.append(f"{fmt(cx + radius * ux)},{fmt(cy + radius * uy)}")
    return " ".join(points)
