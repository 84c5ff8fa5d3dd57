"""The public library API of :mod:`kerker.dungeon` (docs/api.md).

Roll a whole dungeon, or play it lazily exit by exit, then make its document and draw it::

    from kerker.dungeon.api import Params, generate, start, open_exits, next_exit, expand
    from kerker.dungeon.api import snapshot, document, render_svg
    registry = load_registry([])                 # kerker.tables.registry
    dungeon = generate(Params(seed=7), registry)
    state = start(Params(seed=7), registry)
    while (key := next_exit(state)) is not None:
        expand(state, key)
    assert snapshot(state) == dungeon
    svg = render_svg(document(dungeon, "de"), depth=1, view="gm", lang="de")

Nothing here reads the environment or imports the CLI; every error is a
:class:`~kerker.errors.KerkerError` with a one-line message that names no command-line flag.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kerker.dungeon.engine import (
    DungeonError,
    DungeonState,
    Expansion,
    OpenExit,
    Params,
    Procedure,
    available_procedures,
    exit_key,
    expand,
    generate,
    next_exit,
    open_exits,
    snapshot,
    start,
    walk,
)
from kerker.dungeon.model import Dungeon
from kerker.limits import DEFAULT_DUNGEON_LIMITS, DungeonLimits

if TYPE_CHECKING:
    from kerker.dungeon.files import FORMATS, write_files
    from kerker.dungeon.render_ascii import render_ascii
    from kerker.dungeon.render_key import render_html, render_md
    from kerker.dungeon.render_svg import render_png, render_svg, render_views

__all__ = [
    "DEFAULT_DUNGEON_LIMITS",
    "FORMATS",
    "Dungeon",
    "DungeonError",
    "DungeonLimits",
    "DungeonState",
    "Expansion",
    "OpenExit",
    "Params",
    "Procedure",
    "available_procedures",
    "document",
    "dumps_document",
    "exit_key",
    "expand",
    "generate",
    "next_exit",
    "open_exits",
    "render_ascii",
    "render_html",
    "render_md",
    "render_png",
    "render_svg",
    "render_views",
    "snapshot",
    "start",
    "walk",
    "write_files",
]

_LAZY = {
    "FORMATS": "kerker.dungeon.files",
    "write_files": "kerker.dungeon.files",
    "render_ascii": "kerker.dungeon.render_ascii",
    "render_html": "kerker.dungeon.render_key",
    "render_md": "kerker.dungeon.render_key",
    "render_png": "kerker.dungeon.render_svg",
    "render_svg": "kerker.dungeon.render_svg",
    "render_views": "kerker.dungeon.render_svg",
}
"""Renderers and file writing, imported when first used (the SVG renderer is large)."""


def document(dungeon: Dungeon, lang: str) -> dict[str, Any]:
    """The dungeon's document (docs/dungeon-json.md) with texts in ``lang`` (de, it, en)."""
    from kerker.dungeon.export import to_document

    return to_document(dungeon, lang)


def dumps_document(doc: dict[str, Any]) -> str:
    """A document as its JSON text (the same bytes for the same document)."""
    from kerker.dungeon.export import dumps_document as dumps

    return dumps(doc)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
