"""PNG rendering: libvips with kerker's own fonts, same bytes for the same SVG."""

from __future__ import annotations

from pathlib import Path

import pytest

from kerker.render.png import (
    MAX_PIXELS,
    SVG_FONT_SANS,
    SVG_FONT_SERIF,
    PngBatch,
    RenderError,
    fit_scale,
    font_files,
    fontconfig_file,
    svg_to_png,
)

SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40">'
    f'<text x="5" y="28" font-family="{SVG_FONT_SERIF}" font-size="20">Ebene 1</text></svg>'
)


def test_fonts_come_from_the_installed_packages() -> None:
    files = font_files()
    assert any("SourceSansPro-Regular" in f for f in files)
    assert any("SourceSerifPro-Regular" in f for f in files)


def test_png_is_deterministic_and_scaled() -> None:
    one = svg_to_png(SVG)
    assert one.startswith(b"\x89PNG\r\n\x1a\n")
    assert svg_to_png(SVG) == one
    two = svg_to_png(SVG, scale=2)
    width = int.from_bytes(two[16:20], "big")
    assert width == 240


def test_bad_svg_is_a_render_error() -> None:
    with pytest.raises(RenderError):
        svg_to_png("<svg")
    with pytest.raises(RenderError):
        svg_to_png(SVG, width=100_000, height=100_000)


def test_parallel_pngs_equal_serial_ones() -> None:
    from kerker.render.png import svgs_to_pngs

    svgs = [
        SVG,
        SVG.replace("Ebene 1", "Ebene 2"),
        SVG.replace("Ebene 1", "Ebene 3"),
        SVG.replace("Ebene 1", "Ebene 10 (a longer picture, drawn first)"),
    ]
    serial = svgs_to_pngs(svgs, scale=1.5, workers=1)
    assert svgs_to_pngs(svgs, scale=1.5, workers=2) == serial  # in the order given
    assert len(set(serial)) == len(svgs)
    assert serial[0] == svg_to_png(SVG, scale=1.5)
    assert svgs_to_pngs([], workers=2) == []


def _pixels(png: bytes) -> tuple[int, int, bytes]:
    import pyvips

    image = pyvips.Image.pngload_buffer(png)
    return image.width, image.height, bytes(image.write_to_memory())


def test_text_is_drawn_in_kerkers_fonts() -> None:
    # fontconfig falls back silently; a wrong configuration would draw both families in
    # the same fallback face (or draw nothing on a machine without fonts).
    serif = svg_to_png(SVG, scale=2)
    sans = svg_to_png(SVG.replace(SVG_FONT_SERIF, SVG_FONT_SANS), scale=2)
    blank = svg_to_png(SVG.replace("Ebene 1", ""), scale=2)
    assert len({serif, sans, blank}) == 3
    width, height, pixels = _pixels(serif)
    dark = sum(1 for value in pixels[::3] if value < 128)
    assert 200 < dark < width * height // 4  # ink, but not a filled box
    text = fontconfig_file().read_text(encoding="utf-8")
    assert "font_source_serif_pro" in text and "font_source_sans_pro" in text


@pytest.mark.parametrize("processes", [False, True])
def test_batch_draws_in_the_order_added_and_reports_failures(processes: bool) -> None:
    # Processes only where forking is safe (libvips not yet loaded here): else threads.
    with PngBatch(scale=1.0, workers=2, processes=processes, warm=True) as batch:
        first = batch.add(SVG)
        second = batch.add(SVG.replace("Ebene 1", "Ebene 2"))
        assert (first, second) == (0, 1)
        one, two = batch.results()
    assert one == svg_to_png(SVG) and two != one
    huge = SVG.replace('width="120" height="40"', 'width="20000" height="20000"')
    with pytest.raises(RenderError, match="more than 40000000 pixels"):
        svg_to_png(huge)  # without fit: refused before it is read
    broken = PngBatch(workers=2, processes=processes)
    broken.add("<svg")
    with pytest.raises(RenderError):
        broken.results()


def test_a_process_batch_draws_what_threads_draw() -> None:
    import subprocess
    import sys

    # A fresh interpreter, where libvips is not loaded yet: the batch forks its workers.
    code = (
        "import sys\n"
        "from kerker.render.png import PngBatch, svg_to_png\n"
        f"svgs = [{SVG!r}, {SVG.replace('Ebene 1', 'Ebene 7')!r}]\n"
        "batch = PngBatch(scale=1.5, workers=2, warm=True)\n"
        "assert batch.processes\n"
        "for svg in svgs: batch.add(svg)\n"
        "pngs = batch.results()\n"
        "assert pngs == [svg_to_png(svg, scale=1.5) for svg in svgs]\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_the_size_cap_is_read_from_the_svg_itself() -> None:
    huge = SVG.replace('width="120" height="40"', 'width="20000" height="20000"')
    with pytest.raises(RenderError, match="pixels"):
        svg_to_png(huge)


def test_pictures_are_on_white_with_or_without_a_background_of_their_own() -> None:
    bare = SVG  # no background: the transparent canvas becomes white
    painted = SVG.replace(
        'height="40">', 'height="40"><rect width="120" height="40" fill="#ffffff"/>'
    )
    for svg in (bare, painted):
        for scale in (1.0, 1.5):
            width, height, pixels = _pixels(svg_to_png(svg, scale=scale))
            assert len(pixels) == width * height * 3  # RGB, no alpha
            assert pixels[:3] == b"\xff\xff\xff" and pixels[-3:] == b"\xff\xff\xff"
    assert _pixels(svg_to_png(bare, scale=1.5)) == _pixels(svg_to_png(painted, scale=1.5))


def test_a_dead_worker_is_a_render_error_not_a_trace() -> None:
    import subprocess
    import sys

    # A fresh interpreter, so the batch forks workers; one of them is killed mid-batch.
    code = (
        "import os, signal\n"
        "from kerker.errors import KerkerError\n"
        "from kerker.render.png import PngBatch\n"
        "batch = PngBatch(workers=1)\n"
        "assert batch.processes\n"
        "pid = batch._pool.submit(os.getpid).result()\n"
        "os.kill(pid, signal.SIGKILL)\n"
        f"batch.add({SVG!r})\n"
        "try:\n"
        "    batch.results()\n"
        "except KerkerError as err:\n"
        "    print('refused:', err)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "refused: the PNG renderer stopped unexpectedly" in done.stdout, done.stderr


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    from pathlib import Path

    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except OSError:
        return False
    state = next(
        (line.split()[1] for line in status.splitlines() if line.startswith("State:")), "?"
    )
    return state not in ("Z", "X")


@pytest.mark.skipif(
    not __import__("sys").platform.startswith("linux"),
    reason="forked workers (and /proc) only on Linux",
)
def test_workers_end_when_the_parent_is_killed() -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    # A fresh interpreter forks two workers, reports their ids and waits; kill -9 of it
    # must take the workers along (issue 18: they stayed and held stdout open).
    code = (
        "import os, sys, time\n"
        "from kerker.render.png import PngBatch\n"
        "batch = PngBatch(workers=2)\n"
        "assert batch.processes\n"
        "batch._pool.submit(os.getpid).result()\n"
        "print(*sorted(batch._pool._processes), flush=True)\n"
        "time.sleep(600)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    workers = [int(p) for p in proc.stdout.readline().split()]
    try:
        assert len(workers) == 2 and all(_alive(pid) for pid in workers)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        for _ in range(600):  # the kernel signals them at once; poll up to a minute
            if not any(_alive(pid) for pid in workers):
                break
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in workers), workers
        assert proc.stdout.read() == ""  # EOF: nobody holds the pipe any more
    finally:
        for pid in workers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_too_large_a_map_is_drawn_smaller_not_refused() -> None:
    """Issue 15/18: a 200 x 200-square level (5 656 SVG units a side) at the default 1.5
    would be 72 megapixels; it is drawn at the largest scale within the cap."""
    svg = SVG.replace('width="120" height="40"', 'width="5656" height="5720"')
    scale = fit_scale(svg, 1.5)
    assert 0.99 < scale < 1.12
    assert 5656 * 5720 * scale * scale <= MAX_PIXELS
    assert 5656 * 5720 * (scale + 0.002) ** 2 > MAX_PIXELS
    assert fit_scale(SVG, 1.5) == 1.5
    wide = SVG.replace('width="120" height="40"', 'width="40000" height="10"')
    png = svg_to_png(wide, scale=1.5, fit=True)  # 0.9 MP asked: drawn as asked
    assert int.from_bytes(png[16:20], "big") == 60000


def _big_level_doc() -> dict[str, object]:
    """A 200 x 200-square level with 1 000 rooms (one square each, on a 32 x 32 grid of
    12-cell steps over the whole sheet), the entrance the first."""
    areas = []
    for k in range(1000):
        x, y = 4 + 12 * (k % 32), 4 + 12 * (k // 32)
        cells = [[x, y], [x + 1, y], [x, y + 1], [x + 1, y + 1]]
        areas.append(
            {
                "id": f"a{k}",
                "number": k + 1,
                "kind": "room",
                "shape": "rect",
                "cells": cells,
                "label_at": [x, y],
            }
        )
    level = {"depth": 1, "width": 400, "height": 400, "entrance": "a0"}
    level |= {"areas": areas, "connections": []}
    return {"rules": "test", "seed": 1, "lang": "en", "levels": [level]}


def test_a_200_by_200_level_with_1000_areas_writes_its_pngs(tmp_path: Path) -> None:
    """Issue 15: such a level's map (GM and players') is written at the largest scale within
    the 40-megapixel cap instead of failing, with a note saying so."""
    from kerker.dungeon.files import write_files

    notes: list[str] = []
    written = write_files(_big_level_doc(), tmp_path, 1, "en", ["png"], png_scale=1.5, notes=notes)
    sizes = {}
    for path in written:
        data = path.read_bytes()
        sizes[path.name] = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert sorted(sizes) == ["test-1-level1-player.png", "test-1-level1.png"]
    width, height = sizes["test-1-level1.png"]
    # the GM's map: the whole sheet (5 656 SVG units a side), about one pixel per unit
    assert width >= 5400 and width * height <= MAX_PIXELS
    assert len(notes) == 1 and "test-1-level1.png: drawn at scale 1." in notes[0], notes
    # (the players know only the entrance room: their map is small, drawn as asked)
