"""kerker's JSON text: one convention for every document it writes (dungeons, zone maps,
heists, play logs): UTF-8 (no escapes for letters), two-space indent, flat lists
(``[x, y]``, cell lists, lists of numbers or words) on one line, a final newline, keys in
the order the document gives them.

:func:`dumps` writes plain data by its own fast writer and anything else (tuples,
subclasses) by way of the json module, the same bytes; each implementation is tested
against the other (tests/test_json_writer.py).
"""

from __future__ import annotations

import json
import re
from typing import Any

_SCALARS = (int, float, str, bool, type(None))
_encode_str = json.encoder.encode_basestring


def _is_flat(value: list[Any]) -> bool:
    """A list of scalars, or of lists of scalars (``[x, y]``, a cell list)."""
    return all(
        isinstance(item, _SCALARS)
        or (isinstance(item, list) and all(isinstance(n, _SCALARS) for n in item))
        for item in value
    )


def dumps(doc: Any) -> str:
    """A document as JSON text: two-space indent, flat lists (``[x, y]``, cell lists) on one
    line, a final newline.

    Written by :func:`_write` (plain dicts, lists and JSON scalars); anything else goes
    through :func:`_dumps_json`, the same bytes by way of the json module.
    """
    try:
        return _write(doc, "", {}) + "\n"
    except _Unusual:
        return _dumps_json(doc)


class _Unusual(Exception):
    """A value :func:`_write` leaves to the json module (a tuple, a subclass, a proxy)."""


def _float(value: float) -> str:
    if value != value or value in (float("inf"), float("-inf")):
        return json.dumps(value)
    return float.__repr__(value)


_SCALAR_TEXT: dict[type, Any] = {
    str: _encode_str,
    int: int.__repr__,
    float: _float,
    type(None): lambda _v: "null",
    bool: lambda v: "true" if v else "false",
}
"""JSON text of a scalar by its exact type (what ``json.dumps`` writes for it)."""


def _flat_text(value: list[Any]) -> str | None:
    """A flat list (:func:`_is_flat`) on one line as ``json.dumps`` writes it, else None."""
    parts = []
    scalar = _SCALAR_TEXT
    for item in value:
        kind = type(item)
        if kind is list:
            if len(item) == 2 and type(item[0]) is int and type(item[1]) is int:
                parts.append(f"[{item[0]}, {item[1]}]")  # a cell: most of a document
                continue
            inner = []
            for n in item:
                text = scalar.get(type(n))
                if text is None:
                    if isinstance(n, (*_SCALARS, list, tuple, dict)):
                        return None
                    raise _Unusual
                inner.append(text(n))
            parts.append("[" + ", ".join(inner) + "]")
            continue
        text = scalar.get(kind)
        if text is None:
            if isinstance(item, (*_SCALARS, list, tuple, dict)):
                return None
            raise _Unusual
        parts.append(text(item))
    return "[" + ", ".join(parts) + "]"


def _write(value: Any, pad: str, keys: dict[str, str]) -> str:
    """``value`` as :func:`dumps` writes it at indent ``pad`` (``keys``: the text
    of each dict key seen, ``"name": ``); raises :class:`_Unusual` for anything but plain
    dicts, lists and exact JSON scalars."""
    kind = type(value)
    if kind is dict:
        if not value:
            return "{}"
        inner = pad + "  "
        parts = []
        scalar = _SCALAR_TEXT
        for key, item in value.items():
            head = keys.get(key)
            if head is None:
                if type(key) is not str:
                    raise _Unusual
                head = keys[key] = _encode_str(key) + ": "
            kind = type(item)
            if kind is str:
                parts.append(head + _encode_str(item))
            elif kind is int:
                parts.append(head + int.__repr__(item))
            else:
                text = scalar.get(kind)
                parts.append(head + (text(item) if text is not None else _write(item, inner, keys)))
        return "{\n" + inner + (",\n" + inner).join(parts) + "\n" + pad + "}"
    if kind is list:
        flat = _flat_text(value)
        if flat is not None:
            return flat
        inner = pad + "  "
        scalar = _SCALAR_TEXT
        parts = []
        for item in value:
            text = scalar.get(type(item))
            parts.append(text(item) if text is not None else _write(item, inner, keys))
        return "[\n" + inner + (",\n" + inner).join(parts) + "\n" + pad + "]"
    text = _SCALAR_TEXT.get(kind)
    if text is None:
        raise _Unusual
    return str(text(value))


def _dumps_json(doc: dict[str, Any]) -> str:
    """:func:`dumps` by way of the json module (an implementation of its own, so
    that each checks the other): flat lists written by the C encoder and spliced into the
    indented text at marks that no text of the document contains; a tuple is written as
    the list it stands for."""
    texts: list[str] = []

    def collect(value: Any) -> None:
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                collect(key)
                collect(item)
        elif isinstance(value, list | tuple):
            for item in value:
                collect(item)

    collect(doc)
    salt = 0
    while any(f"\x00{salt}:" in text for text in texts):
        salt += 1
    cells: list[str] = []

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: strip(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            listed = [list(item) if isinstance(item, tuple) else item for item in value]
            if _is_flat(listed):
                cells.append(json.dumps(listed, ensure_ascii=False))
                return f"\x00{salt}:{len(cells) - 1}\x00"
            return [strip(item) for item in value]
        return value

    text = json.dumps(strip(doc), ensure_ascii=False, indent=2)
    mark = re.compile(r'"\\u0000' + str(salt) + r':(\d+)\\u0000"')
    return mark.sub(lambda m: cells[int(m.group(1))], text) + "\n"


__all__ = ["dumps"]
