"""No label collides on the issue's own examples (issue 15), at full size, both views:
Zufallslabyrinth seed 7 levels 1-3 (an "S" over 15 and 40, the one-way door over 34, "?"
over the "↓2" of area 4; level 3: "4↓4", "2S", numbers under door boxes; corridor numbers
on wall lines) and Scatola Bianca seed 11 (11 on a wall line), German and Italian. The
measurement (tests/svg_overlaps.py) is checked on a hand-made collision too."""

from __future__ import annotations

from typing import Any

import pytest
from svg_overlaps import measure

from kerker.dungeon.engine import Params, generate
from kerker.dungeon.export import to_document
from kerker.dungeon.render_svg import render_views
from kerker.tables.registry import load_registry


@pytest.fixture(scope="module")
def registry() -> Any:
    return load_registry([])


@pytest.mark.parametrize(
    ("rules", "seed", "lang"), [("zufallslabyrinth", 7, "de"), ("scatola-bianca", 11, "it")]
)
def test_issue_examples_have_no_overlap(registry: Any, rules: str, seed: int, lang: str) -> None:
    doc = to_document(generate(Params(rules=rules, seed=seed, levels=3), registry), lang)
    assert len(doc["levels"]) >= (2 if rules == "zufallslabyrinth" else 1)
    for level in doc["levels"]:
        for view, svg in render_views(doc, depth=level["depth"]).items():
            found = measure(svg)
            assert found == {"labels": [], "walls": [], "legend": []}, (level["depth"], view, found)


def test_the_measurement_sees_collisions() -> None:
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg"><g class="map" transform="translate(0 0)">'
        '<path class="walls" d="M0 0H100"/>'
        '<g class="conn door" transform="translate(50 40)"><rect x="-5" y="-3.5" '
        'width="10" height="7"/></g>'
        '<text class="number" x="50" y="45" font-size="16" font-family="Source Serif Pro" '
        'font-weight="bold">12</text>'
        '<text class="level-mark" x="20" y="4" font-size="13" font-weight="bold">↓ 2</text>'
        '<text class="number" x="80" y="60" font-size="16">7</text>'
        "</g></svg>"
    )
    found = measure(svg)
    assert ("number '12'", "conn door") in found["labels"]
    assert ("level-mark '↓ 2'", "") in found["walls"]
    assert not any("'7'" in a or "'7'" in b for a, b in found["labels"])


def test_the_measurement_sees_legend_collisions() -> None:
    """Legend entries are measured too: a text running into the next entry's symbol, and
    an entry on the map's frame."""
    item = (
        '<g class="legend-item" data-key="{key}"><g transform="translate({x} 211)">'
        '<rect x="-8" y="-3.5" width="16" height="7"/></g>'
        '<text x="{tx}" y="216" font-family="Source Sans Pro" font-size="14">{text}</text></g>'
    )
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg"><g class="map" transform="translate(0 0)"/>'
        '<rect x="10" y="10" width="300" height="180" fill="none" stroke="#000"/>'
        '<g class="legend">'
        + item.format(key="door", x=40, tx=65, text="a rather long door label")
        + item.format(key="archway", x=120, tx=145, text="archway")
        + item.format(key="water", x=40, tx=65, text="x").replace("211", "185")
        + "</g></svg>"
    )
    found = measure(svg)["legend"]
    assert ("door text", "archway symbol") in found
    assert ("water symbol", "map") in found
    assert ("archway text", "map") not in found and ("archway symbol", "map") not in found


@pytest.mark.parametrize(
    ("rules", "seed", "depth"), [("zufallslabyrinth", 4, 3), ("scatola-bianca", 109, 2)]
)
def test_a_crowded_secret_door_mark_finds_a_clear_spot(
    registry: Any, rules: str, seed: int, depth: int
) -> None:
    """Full-size levels where the "S" of a secret door once lay on a door beside it (ZL seed
    4 level 3, between 46 and 52) or on an unexplored exit's arrow (SB seed 109 level 2):
    the mark slides further along its wall or into the room when the near spots are taken."""
    doc = to_document(generate(Params(rules=rules, seed=seed, levels=3), registry), "de")
    svg = render_views(doc, depth=depth)["gm"]
    assert 'class="secret"' in svg
    assert measure(svg) == {"labels": [], "walls": [], "legend": []}
