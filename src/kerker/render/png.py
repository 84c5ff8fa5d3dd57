"""PNG from kerker's SVG drawings, without system libraries.

libvips (the ``pyvips`` binding with the ``pyvips-binary`` wheel, which carries librsvg,
cairo, pango and fontconfig) draws the very SVG the SVG renderer made. It draws with the
fonts kerker depends on (Source Sans Pro and Source Serif Pro, installed from PyPI) and never
the system's: a generated fontconfig file names only those fonts' folders, so the same SVG
gives the same PNG on every machine with the same libvips.

Why libvips and not resvg (used before): the same map takes about a quarter of the time
(librsvg draws a little slower, but libvips encodes PNG far faster and releases Python's
lock, so threads draw in parallel). Measurements: docs/png-rendering.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import os
import re
import threading
from collections.abc import Callable
from functools import lru_cache
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from kerker.errors import N_, KerkerError

if TYPE_CHECKING:
    from concurrent.futures import Executor, Future

FONT_SANS = "Source Sans Pro"
FONT_SERIF = "Source Serif Pro"
SVG_FONT_SANS = f"'{FONT_SANS}', sans-serif"
SVG_FONT_SERIF = f"'{FONT_SERIF}', serif"
MAX_PIXELS = 40_000_000
PNG_COMPRESSION = 1
"""zlib level of the PNG files: 1 encodes a map in ~15 ms instead of ~40 ms at the default
level 6, for files about a third larger (docs/png-rendering.md)."""


class RenderError(KerkerError):
    """A drawing that cannot be rendered (too large, or a renderer failure)."""

    code = "render"


def _font_folder(package: str) -> Path:
    return Path(import_module(package).__file__ or "").parent / "files"


@lru_cache(maxsize=1)
def font_files() -> tuple[str, ...]:
    """The font files kerker renders with (regular, bold, italic of both families)."""
    files: list[str] = []
    for package, names in (
        (
            "font_source_sans_pro",
            (
                "SourceSansPro-Regular",
                "SourceSansPro-Bold",
                "SourceSansPro-It",
                "SourceSansPro-Semibold",
            ),
        ),
        (
            "font_source_serif_pro",
            ("SourceSerifPro-Regular", "SourceSerifPro-Bold", "SourceSerifPro-Semibold"),
        ),
    ):
        folder = _font_folder(package)
        for name in names:
            for suffix in (".ttf", ".otf"):
                path = folder / (name + suffix)
                if path.exists():
                    files.append(str(path))
                    break
    return tuple(files)


def _cache_root() -> Path:
    """A folder of this user's for kerker's font configuration and fontconfig's cache."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kerker"


def fontconfig_file() -> Path:
    """Write (once) and return a fontconfig file that knows only kerker's font folders.

    Its name carries a hash of its text, so installs in other places do not share one
    file. Falls back to the system's temporary folder when the user's cache is not
    writable; refuses with a :class:`RenderError` when neither is.
    """
    import tempfile

    folders = sorted({str(Path(f).parent) for f in font_files()})
    last: OSError | None = None
    for root in (_cache_root(), Path(tempfile.gettempdir()) / f"kerker-{os.getuid()}"):
        cache = root / "fontconfig"
        text = (
            '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n'
            "<fontconfig>\n"
            + "".join(f"  <dir>{html.escape(d, quote=False)}</dir>\n" for d in folders)
            + f"  <cachedir>{html.escape(str(cache), quote=False)}</cachedir>\n</fontconfig>\n"
        )
        name = "fonts-" + hashlib.sha256(text.encode()).hexdigest()[:12] + ".conf"
        path = root / name
        try:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                cache.mkdir(parents=True, exist_ok=True)
                part = root / f"{name}.{os.getpid()}.{threading.get_ident()}"
                part.write_text(text, encoding="utf-8")
                os.replace(part, path)
            return path
        except OSError as exc:
            last = exc
    raise RenderError(N_("cannot write the font configuration: {reason}"), reason=str(last))


_VIPS: ModuleType | None = None
_VIPS_LOCK = threading.Lock()


def _vips() -> ModuleType:
    """pyvips, loaded once with kerker's fonts and one drawing thread per picture."""
    global _VIPS
    with _VIPS_LOCK:
        if _VIPS is None:
            # fontconfig reads this when it starts, which happens inside libvips: set first.
            os.environ["FONTCONFIG_FILE"] = str(fontconfig_file())
            os.environ.setdefault("VIPS_WARNING", "0")
            try:
                vips = import_module("pyvips")
            except (ImportError, OSError) as exc:
                raise RenderError(
                    N_("cannot load the PNG renderer (pyvips): {reason}"),
                    reason=str(exc).splitlines()[0] if str(exc) else "?",
                ) from None
            # Parallelism comes from drawing several pictures at once (one thread each);
            # no cache of operations: every picture is drawn once.
            vips.concurrency_set(1)
            vips.cache_set_max(0)
            _VIPS = vips
        return _VIPS


def fit_scale(svg: str, scale: float, width: int = 0, height: int = 0) -> float:
    """``scale``, or the largest smaller one at which ``svg`` (``width`` × ``height`` SVG
    units; read from its root when 0) stays within :data:`MAX_PIXELS`: a 200 × 200-square
    level's map is drawn a little smaller rather than refused."""
    if not (width and height):
        found = re.search(r'<svg\b[^>]*?\bwidth="([\d.]+)"[^>]*?\bheight="([\d.]+)"', svg)
        if found is None:
            return scale
        width, height = int(float(found.group(1))), int(float(found.group(2)))
    if width * height * scale * scale <= MAX_PIXELS:
        return scale
    # Floor to 1/1000 so rounding of the picture's size cannot cross the cap.
    return int((MAX_PIXELS / (width * height)) ** 0.5 * 1000 - 1) / 1000


def svg_to_png(
    svg: str, *, scale: float = 1.0, width: int = 0, height: int = 0, fit: bool = False
) -> bytes:
    """Render ``svg`` (as made by kerker) to PNG bytes at ``scale``, on white.

    ``width`` and ``height`` (the SVG's size, optional) let a too large picture be refused
    before the SVG is read. Refuses pictures of more than ``MAX_PIXELS`` pixels, SVG that
    cannot be read and renderer failures with a :class:`RenderError`. Safe to call from
    several threads at once. ``fit``: draw too large a picture at the scale
    :func:`fit_scale` gives instead of refusing it.
    """
    if fit:
        scale = fit_scale(svg, scale, width, height)
    if width and height and width * height * scale * scale > MAX_PIXELS:
        raise RenderError(N_("the picture would have more than {max} pixels"), max=MAX_PIXELS)
    vips = _vips()
    try:
        image = vips.Image.svgload_buffer(svg.encode("utf-8"), scale=scale)
        if image.width * image.height > MAX_PIXELS:
            raise RenderError(N_("the picture would have more than {max} pixels"), max=MAX_PIXELS)
        if _paints_white(svg, image.width, image.height, scale):
            # Every pixel is already opaque (on white): keep the colour bands, which is the
            # same picture as flattening but skips a pass of arithmetic over every pixel.
            flat = image.extract_band(0, n=3)
        else:
            flat = image.flatten(background=[255, 255, 255])
        data = flat.pngsave_buffer(
            compression=PNG_COMPRESSION, filter=vips.enums.ForeignPngFilter.NONE
        )
    except vips.Error as exc:
        reason = " ".join(str(exc).split())[:200]
        raise RenderError(N_("cannot render the picture: {reason}"), reason=reason) from None
    return bytes(data)


def png_to_webp(data: bytes, *, lossless: bool = True) -> bytes:
    """The PNG ``data`` (as :func:`svg_to_png` made it) as WebP, lossless unless asked
    (quality 90 then). Refuses what libvips cannot read with a :class:`RenderError`."""
    vips = _vips()
    try:
        image = vips.Image.new_from_buffer(data, "")
        out = (
            image.webpsave_buffer(lossless=True, effort=2)
            if lossless
            else image.webpsave_buffer(Q=90, effort=2)
        )
    except vips.Error as exc:
        reason = " ".join(str(exc).split())[:200]
        raise RenderError(N_("cannot render the picture: {reason}"), reason=reason) from None
    return bytes(out)


def _paints_white(svg: str, width: int, height: int, scale: float) -> bool:
    """Whether ``svg`` paints a white rectangle over its whole canvas (kerker's renderers
    do), so that no pixel of its picture is transparent."""
    found = re.search(r'<svg\b[^>]*?\bwidth="([\d.]+)"[^>]*?\bheight="([\d.]+)"', svg)
    if found is None:
        return False
    w, h = found.group(1), found.group(2)
    if abs(float(w) * scale - width) > 1 or abs(float(h) * scale - height) > 1:
        return False  # a viewBox or units that make the canvas another size
    return f'<rect width="{w}" height="{h}" fill="#ffffff"/>' in svg


def warm_up() -> None:
    """Load the renderer and its fonts by drawing a tiny text in both families (safe to
    call more than once or never; failures are left to the real pictures to report)."""
    with contextlib.suppress(RenderError):
        svg_to_png(
            '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8">'
            f'<text y="6" font-family="{SVG_FONT_SANS}" font-size="6">a</text>'
            f'<text y="6" font-family="{SVG_FONT_SERIF}" font-size="6" '
            'font-weight="bold">a</text></svg>'
        )


def _cpus() -> int:
    """The processors this process may run on (not all of the machine's, in a container)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity else os.cpu_count() or 1


def _draw(svg: str, scale: float, width: int, height: int) -> bytes | tuple[str, dict[str, Any]]:
    """:func:`svg_to_png` for a worker process: a refusal comes back as its template and
    parameters (so the caller raises it in the reader's language)."""
    try:
        return svg_to_png(svg, scale=scale, width=width, height=height, fit=True)
    except RenderError as exc:
        return exc.template, exc.params


PR_SET_PDEATHSIG = 1
"""prctl(2) option: the signal a process gets when the thread that forked it ends."""


def _die_with_parent(parent: int) -> None:
    """Ask Linux to kill this (forked) worker when its parent ends, however it ends
    (``kill -9`` included), so no worker outlives the command and holds its stdout open.
    A parent already gone before the request (the worker's parent is then init or a
    subreaper) ends the worker at once. Does nothing where prctl is missing."""
    import ctypes
    import signal
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        os._exit(1)


def _worker_start(parent: int = 0) -> None:
    """A worker leaves Ctrl-C to the process that started it (which stops the batch), so
    that an interrupted command prints no trace of every worker; and it ends when that
    process ends (:func:`_die_with_parent`)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if parent:
        _die_with_parent(parent)


def _fork_is_safe() -> bool:
    """Whether this process may fork workers: Linux, libvips not loaded here (forking
    after libvips has drawn can hang the child) and no other thread runs (a forked child
    gets a copy of every lock, held or not)."""
    import multiprocessing
    import sys

    # Linux only: macOS lists fork too, but its system libraries are not fork-safe.
    return (
        sys.platform.startswith("linux")
        and "fork" in multiprocessing.get_all_start_methods()
        and _VIPS is None
        and "pyvips" not in sys.modules
        and threading.active_count() == 1
    )


class PngBatch:
    """PNGs drawn in the background while the caller goes on with other work.

    ``add`` hands over an SVG and returns at once; ``results`` waits and gives the PNGs in
    the order they were added. A picture too large at the batch's scale is drawn at the
    largest scale that fits (:func:`fit_scale`). Each picture is a pure function of its
    SVG, so the result is the same as drawing them one by one.

    With ``processes`` (the default where it is safe, see :func:`_fork_is_safe`) the
    pictures are drawn in forked worker processes, which never wait for the caller's
    Python lock: libvips drops the lock while it draws, but every one of the ~100 calls
    that build a picture has to take it back, and a busy caller holds it for up to 5 ms
    each time (measured: a picture took three times as long next to a busy caller).
    Otherwise threads draw them.
    """

    def __init__(
        self,
        *,
        scale: float = 1.0,
        workers: int | None = None,
        warm: bool = False,
        processes: bool | None = None,
    ) -> None:
        self.scale = scale
        count = max(1, workers or _cpus())
        if processes is None:
            processes = _fork_is_safe()
        elif processes and not _fork_is_safe():
            processes = False
        # (imported here: every SVG renderer imports this module for its font names, and
        # only a batch needs the pools)
        from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

        self._pool: Executor
        if processes:
            import multiprocessing

            self._pool = ProcessPoolExecutor(
                max_workers=count,
                mp_context=multiprocessing.get_context("fork"),
                initializer=_worker_start,
                initargs=(os.getpid(),),
            )
        else:
            self._pool = ThreadPoolExecutor(max_workers=count, thread_name_prefix="kerker-png")
        self.processes = processes
        self._futures: list[Future[bytes | tuple[str, dict[str, Any]]]] = []
        if warm or processes:
            # Load libvips and start fontconfig (its font files and cache) now, while the
            # caller is still busy making the first SVG: ~50-90 ms off the first picture.
            # (The first job also makes a process pool fork its workers now, while it is
            # safe.)
            for _ in range(count if processes else 1):
                self._pool.submit(warm_up)

    def add(self, svg: str, *, width: int = 0, height: int = 0) -> int:
        """Start drawing ``svg``; returns its index in :meth:`results`."""
        self._futures.append(self._pool.submit(_draw, svg, self.scale, width, height))
        return len(self._futures) - 1

    def results(self) -> list[bytes]:
        """Wait for every picture; refuses like :func:`svg_to_png` (the first failure)."""
        try:
            from concurrent.futures.process import BrokenProcessPool
            from concurrent.futures.thread import BrokenThreadPool

            out: list[bytes] = []
            for future in self._futures:
                try:
                    result = future.result()
                except (BrokenProcessPool, BrokenThreadPool):
                    # a worker died (killed, or the renderer crashed): one line, not a trace
                    raise RenderError(N_("the PNG renderer stopped unexpectedly")) from None
                if isinstance(result, tuple):
                    raise RenderError(result[0], **result[1])
                out.append(result)
            return out
        finally:
            self.close()

    def close(self) -> None:
        """Stop: pictures not yet begun are dropped."""
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> PngBatch:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def start_pngs(
    svgs: list[str], *, scale: float = 1.0, workers: int | None = None
) -> Callable[[], list[bytes]]:
    """Begin drawing the PNG of each SVG in parallel and return a function that waits for
    them and gives them in order, so the caller can do other work meanwhile. The returned
    function refuses like :func:`svg_to_png`."""
    batch = PngBatch(scale=scale, workers=min(len(svgs), workers or _cpus()) or 1)
    for svg in svgs:
        batch.add(svg)
    return batch.results


def svgs_to_pngs(svgs: list[str], *, scale: float = 1.0, workers: int | None = None) -> list[bytes]:
    """PNG of each SVG, in order, drawn in parallel threads (:func:`start_pngs`)."""
    return start_pngs(svgs, scale=scale, workers=workers)()
