"""PNG from kerker's SVG drawings, without system libraries.

resvg (a Rust renderer shipped as a wheel) draws the very SVG the SVG renderer made, with
the fonts kerker depends on (Source Sans Pro and Source Serif Pro, installed from PyPI) and
never the system's fonts: the same SVG gives the same PNG on every machine.
"""

from __future__ import annotations

from collections.abc import Callable
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


def _dimensions(svg: str) -> tuple[int, int]:
    import re

    found = re.search(r'width="(\d+)" height="(\d+)"', svg)
    return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


def _one(job: tuple[str, float]) -> bytes:
    svg, scale = job
    width, height = _dimensions(svg)
    return svg_to_png(svg, scale=scale, width=width, height=height)


def _cpus() -> int:
    """The processors this process may run on (not all of the machine's, in a container)."""
    import os

    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity else os.cpu_count() or 1


def start_pngs(svgs: list[str], *, scale: float = 1.0,
               workers: int | None = None) -> Callable[[], list[bytes]]:
    """Begin drawing the PNG of each SVG in parallel processes and return a function that
    waits for them and gives them in order, so the caller can do other work meanwhile.

    resvg holds Python's global lock while it draws, so threads do not help; processes do.
    The result is the same as drawing them one by one (each picture is a pure function of
    its SVG). The returned function refuses like :func:`svg_to_png`.
    """
    jobs = [(svg, scale) for svg in svgs]
    count = min(len(jobs), workers or _cpus())
    if count <= 1:
        return lambda: [_one(job) for job in jobs]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    context = multiprocessing.get_context(method)
    # Largest pictures first, so no process is left with a big one at the end.
    order = sorted(range(len(jobs)), key=lambda i: (-len(jobs[i][0]), i))
    pool = ProcessPoolExecutor(max_workers=count, mp_context=context)
    futures = [pool.submit(_one, jobs[i]) for i in order]

    def collect() -> list[bytes]:
        try:
            out: list[bytes] = [b""] * len(jobs)
            for i, future in zip(order, futures, strict=True):
                out[i] = future.result()
            return out
        finally:
            pool.shutdown(cancel_futures=True)

    return collect


def svgs_to_pngs(svgs: list[str], *, scale: float = 1.0, workers: int | None = None) -> list[bytes]:
    """PNG of each SVG, in order, drawn in parallel processes (:func:`start_pngs`)."""
    return start_pngs(svgs, scale=scale, workers=workers)()
