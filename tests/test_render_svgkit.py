"""The shared SVG pieces (kerker.render.svgkit): the legend's row layout, the title block's
escaping and the palette every map extends."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest

from kerker.dungeon.render_svg import PAL as DUNGEON
from kerker.prowl.render_svg import PAL as PROWL
from kerker.render import metrics
from kerker.render.kit import num1
from kerker.render.svgkit import STAR_GREEN, Palette, legend_flow, title_block
from kerker.zones.render_svg import PALETTES


def test_legend_flow_wraps_at_the_right_edge_and_counts_the_rows() -> None:
    labels = ["door", "secret door", "stairs down", "trap"]
    need = [30 + metrics.text_width(label, 14) + 20 for label in labels]
    right = 10 + need[0] + need[1] + 1  # room for two entries, not three
    spots, bottom = legend_flow(labels, left=10, right=right, top=100, mark_w=30, gap=20, row_h=25)
    assert spots[0] == (10, 100)
    assert spots[1] == (pytest.approx(10 + need[0]), 100)
    assert spots[2] == (10, 125)  # the third did not fit: a new row
    assert spots[3][1] == 125
    assert bottom == 150


def test_legend_flow_keeps_a_too_wide_entry_on_its_own_row() -> None:
    spots, bottom = legend_flow(
        ["x" * 200, "y"], left=0, right=50, top=0, mark_w=10, gap=10, row_h=20
    )
    assert spots == [(0, 0), (0, 20)]
    assert bottom == 40


def test_legend_flow_whole_advances_by_whole_units_and_empty_has_no_height() -> None:
    spots, _bottom = legend_flow(
        ["a b", "c"], left=5, right=10_000, top=0, mark_w=3.3, gap=2.2, row_h=9, whole=True
    )
    assert isinstance(spots[1][0], int)
    assert legend_flow([], left=0, right=9, top=7, mark_w=1, gap=1, row_h=9) == ([], 7)


def test_title_block_escapes_user_text() -> None:
    pal = Palette(ink="#000000", muted="#777777")
    title, sub = title_block(
        "<b>Keep</b> & \x07", ["a < b", "c"], pal, x=28, title_y=34, sub_y=56, cls="title"
    )
    root = ElementTree.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{title}{sub}</svg>')
    texts = list(root)
    assert texts[0].get("class") == "title"
    assert texts[0].text == "<b>Keep</b> & \u2407"
    assert texts[1].text == "a < b · c"
    assert texts[1].get("fill") == "#777777"


def test_every_map_palette_is_a_palette_with_the_one_star() -> None:
    for pal in (DUNGEON, PROWL, *PALETTES.values()):
        assert isinstance(pal, Palette)
        assert pal.star == STAR_GREEN
        assert pal.sheet == "#ffffff"


def test_num1_writes_one_decimal_and_whole_numbers_bare() -> None:
    assert [num1(v) for v in (3.0, 3.25, 2.96, -0.04, 12)] == ["3", "3.2", "3", "-0", "12"]
