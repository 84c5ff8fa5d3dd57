"""PNG from kerker's SVG drawings, without system libraries.

resvg (a Rust renderer shipped as a wheel) draws the very SVG the SVG renderer made, with
the fonts kerker depends on (Source Sans Pro and Source Serif Pro, installed from PyPI) and
never the system's fonts: the same SVG gives the same PNG on every machine.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import import_module
from pathlib import Path

from kerker.errors import N_, KerkerError

FONT_SANS = "Source Sans Pro"
FONT_SERIF = "Source Serif Pro"
SVG_FONT_SANS = f"'{FONT_SANS}', sans-serif"
SVG_FONT_SERIF = f"'{FONT_SERIF}', serif"
MAX_PIXELS = 40_000_000


class RenderError(KerkerError):
    """A drawing that cannot be rendered (too large, or a renderer failure)."""

    code = "render"


@lru_cache(maxsize=1)
def font_files() -> tuple[str, ...]:
    """The font files kerker renders with (regular, bold, italic of both families)."""
    files: list[str] = []
    for package, names in (
        ("font_source_sans_pro", ("SourceSansPro-Regular", "SourceSansPro-Bold",
                                  "SourceSansPro-It", "SourceSansPro-Semibold")),
        ("font_source_serif_pro", ("SourceSerifPro-Regular", "SourceSerifPro-Bold",
                                   "SourceSerifPro-Semibold")),
    ):
        folder = Path(import_module(package).__file__ or "").parent / "files"
        for name in names:
            for suffix in (".ttf", ".otf"):
                path = folder / (name + suffix)
                if path.exists():
                    files.append(str(path))
                    break
    return tuple(files)


def svg_to_png(svg: str, *, scale: float = 1.0, width: int = 0, height: int = 0) -> bytes:
    """Render ``svg`` (as made by kerker) to PNG bytes at ``scale``.

    Refuses drawings of more than ``MAX_PIXELS`` pixels and renderer failures with a
    :class:`RenderError`.
    """
    if width and height and width * height * scale * scale > MAX_PIXELS:
        raise RenderError(N_("the picture would have more than {max} pixels"), max=MAX_PIXELS)
    import resvg_py

    try:
        data = resvg_py.svg_to_bytes(
            svg_string=svg,
            skip_system_fonts=True,
            font_files=list(font_files()),
            font_family=FONT_SANS,
            sans_serif_family=FONT_SANS,
            serif_family=FONT_SERIF,
            zoom=scale,
            background="#ffffff",
        )
    except ValueError as exc:
        raise RenderError(N_("cannot render the picture: {reason}"), reason=str(exc)) from None
    return bytes(data)
