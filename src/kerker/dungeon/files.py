"""A dungeon's files: JSON, ASCII, SVG and PNG maps (GM and player view), Markdown and HTML
key, written to a folder (what ``kerker dungeon --out DIR`` writes).

Library code: no CLI import, no environment read. Each map's PNG is rasterized from its SVG
by a :class:`~kerker.render.png.PngBatch` while the next maps are drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kerker.errors import N_, KerkerError

if TYPE_CHECKING:
    from kerker.render.png import PngBatch

FORMATS = ("svg", "png", "json", "md", "html", "ascii")
"""The formats :func:`write_files` writes, in this order (PNGs last)."""


class WriteError(KerkerError):
    """A file that cannot be written (the folder is read-only, the disk is full ...)."""

    code = "write"


def write_file(path: Path, data: str | bytes) -> None:
    """Write one file (folders created, text as UTF-8 with \\n line ends); any failure is a
    one-line :class:`WriteError` naming the file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8", newline="\n")
    except OSError as exc:
        raise WriteError(N_("cannot write {path}: {reason}"), path=str(path),
                         reason=exc.strerror or str(exc)) from None


Drawing = tuple[Path, int, str, str]
"""A map drawn: file name without suffix, depth, view, SVG."""


def file_stem(seed: int, depth: int = 1) -> str:
    """The name (no suffix) of a level's files: ``dungeon-SEED``, deeper levels
    ``dungeon-SEED-levelN``."""
    return f"dungeon-{seed}" + ("" if depth == 1 else f"-level{depth}")


def drawings(doc: dict[str, Any], out: Path, seed: int, lang: str,
             drawn: Callable[[str], object] | None = None) -> list[Drawing]:
    """Every level's SVG, GM and player view, with the file name (no suffix) it goes to;
    drawn once for svg, png and the HTML key (the PNG is the SVG rasterized). ``drawn`` is
    told of each SVG as soon as its level is drawn."""
    from kerker.dungeon.render_svg import render_views

    made: list[Drawing] = []
    for level in doc["levels"]:
        depth = level["depth"]
        name = file_stem(seed, depth)
        views = render_views(doc, depth=depth, lang=lang, views=("gm", "player"))
        for view, suffix in (("gm", ""), ("player", "-player")):
            if drawn is not None:
                drawn(views[view])
            made.append((out / f"{name}{suffix}", depth, view, views[view]))
    return made


def write_files(doc: dict[str, Any], out: Path, seed: int, lang: str, formats: list[str],
                batch: PngBatch | None = None, png_scale: float | None = None) -> list[Path]:
    """Write the files of ``formats`` (see :data:`FORMATS`) for the dungeon document ``doc``
    to the folder ``out``; returns the paths written, PNGs last.

    Each map's PNG (``png_scale`` pixels per SVG unit, default
    :data:`~kerker.dungeon.render_svg.PNG_SCALE`) is drawn by ``batch`` (one is made if
    ``formats`` has "png" and none is given; a given batch keeps its own scale) as soon as
    its SVG exists, while the next maps and the other files are made here. Refuses an
    unknown format (:class:`WriteError`) and what :func:`write_file` and
    :func:`~kerker.render.png.svg_to_png` refuse.
    """
    from kerker.dungeon.export import dumps_document
    from kerker.dungeon.render_ascii import render_ascii

    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise WriteError(N_("unknown format {text!r}; choose from {choices}"),
                         text=unknown[0][:40], choices=", ".join(FORMATS))
    stem = out / file_stem(seed)
    own = batch is None and "png" in formats
    if own:
        from kerker.dungeon.render_svg import PNG_SCALE
        from kerker.render.png import PngBatch

        batch = PngBatch(scale=png_scale or PNG_SCALE)
    written: list[Path] = []
    try:
        maps: list[Drawing] = []
        if "svg" in formats or "png" in formats:
            maps = drawings(doc, out, seed, lang,
                            batch.add if batch is not None and "png" in formats else None)
        for fmt in sorted(formats, key=lambda f: f == "png"):
            files: list[tuple[Path, str | bytes]] = []
            if fmt == "json":
                files = [(stem.with_suffix(".json"), dumps_document(doc))]
            elif fmt == "ascii":
                files = [(stem.with_suffix(".txt"), render_ascii(doc))]
            elif fmt == "svg":
                files = [(Path(f"{d[0]}.svg"), d[3]) for d in maps]
            elif fmt == "png" and batch is not None:
                files = [(Path(f"{d[0]}.png"), png) for d, png in
                         zip(maps, batch.results(), strict=True)]
            elif fmt == "md":
                from kerker.dungeon.render_key import render_md

                files = [(stem.with_suffix(".md"), render_md(doc, lang=lang))]
            elif fmt == "html":
                from kerker.dungeon.render_key import render_html

                # the page inlines the GM maps already drawn for svg/png
                gm = {depth: text for _base, depth, view, text in maps if view == "gm"}
                files = [(stem.with_suffix(".html"),
                          render_html(doc, lang=lang, maps=gm or None))]
            for path, data in files:
                write_file(path, data)
                written.append(path)
    finally:
        if own and batch is not None:
            batch.close()
    return written
