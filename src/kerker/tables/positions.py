"""Line and column of an entry in a YAML file, for error messages and the linter."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


def load_positions(path: Path) -> Any:
    """The file parsed by ruamel's round-trip loader (which keeps positions), or None."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        return YAML(typ="rt").load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, YAMLError, ValueError, TypeError):
        return None


def locate_in(root: Any, loc: Sequence[Any]) -> tuple[int | None, int | None]:
    """1-based (line, column) of the deepest entry of ``loc`` found in ``root``.

    Parts of ``loc`` that are not keys or indexes of the data (pydantic adds the names of
    union members) are skipped.
    """
    node = root
    line: int | None = None
    col: int | None = None
    for part in loc:
        lc = getattr(node, "lc", None)
        if isinstance(node, dict) and part in node:
            if lc is not None:
                try:
                    row, column = lc.key(part)
                    line, col = row + 1, column + 1
                except (KeyError, TypeError, AttributeError):
                    pass
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            if lc is not None:
                try:
                    row, column = lc.item(part)
                    line, col = row + 1, column + 1
                except (KeyError, TypeError, AttributeError, IndexError):
                    pass
            node = node[part]
    if line is None:
        lc = getattr(root, "lc", None)
        if lc is not None:
            line, col = lc.line + 1, lc.col + 1
    return line, col


def locate(path: Path, loc: Sequence[Any]) -> tuple[int | None, int | None]:
    """Line and column of ``loc`` in the file at ``path`` ((None, None) if unknown)."""
    root = load_positions(path)
    if root is None:
        return None, None
    return locate_in(root, loc)
