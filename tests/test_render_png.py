"""PNG rendering: resvg with kerker's own fonts, same bytes for the same SVG."""

from __future__ import annotations

import pytest

from kerker.render.png import SVG_FONT_SERIF, RenderError, font_files, svg_to_png

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

    svgs = [SVG, SVG.replace("Ebene 1", "Ebene 2"), SVG.replace("Ebene 1", "Ebene 3"),
            SVG.replace("Ebene 1", "Ebene 10 (a longer picture, drawn first)")]
    serial = svgs_to_pngs(svgs, scale=1.5, workers=1)
    assert svgs_to_pngs(svgs, scale=1.5, workers=2) == serial  # in the order given
    assert len(set(serial)) == len(svgs)
    assert serial[0] == svg_to_png(SVG, scale=1.5)
    assert svgs_to_pngs([], workers=2) == []
