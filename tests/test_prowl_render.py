"""Map (SVG, PNG) and GM sheet (Markdown) of a prowl; golden plans, maps and sheets.

Golden files: ``tests/golden/prowl_*``. When a change alters them on purpose, rewrite them
with ``KERKER_UPDATE_GOLDEN=1 pytest tests/test_prowl_render.py`` and say so in the commit.
The golden sheets and maps are English (the identity translation), so a change of the
catalogs never breaks them; German and Italian are checked by content.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import check_golden

from kerker.prowl.export import dumps, from_json, write_outputs
from kerker.prowl.generate import ProwlOptions, generate
from kerker.prowl.model import Prowl
from kerker.prowl.render_md import render_markdown
from kerker.prowl.render_svg import render_svg as svg_of
from kerker.prowl.render_svg import text_width
from kerker.prowl.tuning import parse_operations, tune
from kerker.render.png import SVG_FONT_SANS, SVG_FONT_SERIF, svg_to_png
from kerker.tables.registry import load_registry

GOLDEN = Path(__file__).parent / "golden"
REGISTRY = load_registry()
NS = "{http://www.w3.org/2000/svg}"
CASES = {
    "14": (ProwlOptions(4, 3, accesses=3), 14, ""),
    "3": (ProwlOptions(10, 6, accesses=2, nosec=1), 3, ""),
    "5": (ProwlOptions(1, 1, accesses=3), 5, ""),
    "14-tuned": (
        ProwlOptions(4, 3, accesses=3),
        14,
        "raise-room R3, patrol C2, lower-room R2, reinforce D4, add-faction friendly",
    ),
}


def _case(name: str) -> Prowl:
    options, seed, ops = CASES[name]
    p = generate(options, random.Random(seed), registry=REGISTRY, seed=seed)
    if ops:
        p = tune(p, parse_operations(ops.split()), REGISTRY)
    return p


def _texts(svg: str) -> list[tuple[float, float, float, float, str]]:
    """Every text of the SVG as a box (left, top, right, bottom) and its content."""
    root = ET.fromstring(svg)
    boxes = []
    for node in root.iter(f"{NS}text"):
        content = "".join(node.itertext())
        size = float(node.get("font-size", "12"))
        x, y = float(node.get("x", "0")), float(node.get("y", "0"))
        width = text_width(content, size)
        anchor = node.get("text-anchor", "start")
        left = x - width / 2 if anchor == "middle" else x - width if anchor == "end" else x
        boxes.append((left, y - 0.72 * size, left + width, y + 0.2 * size, content))
    return boxes


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_plan_map_and_sheet(name: str) -> None:
    p = _case(name)
    outputs = {
        f"prowl_{name}.json": dumps(p),
        f"prowl_{name}.svg": svg_of(p, "en"),
        f"prowl_{name}.en.md": render_markdown(p, "en"),
    }
    for file, text in outputs.items():
        check_golden(file, text)
    assert from_json(json.loads(outputs[f"prowl_{name}.json"])) == p


@pytest.mark.parametrize("seed", [1, 3, 5, 7, 11, 14, 23, 42])
def test_svg_is_clean(seed: int) -> None:
    p = generate(
        ProwlOptions(1 + seed % 10, 4, nosec=seed % 3),
        random.Random(seed),
        registry=REGISTRY,
        seed=seed,
    )
    svg = svg_of(p, "de")
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    fonts = {node.get("font-family") for node in root.iter(f"{NS}text")}
    assert fonts <= {SVG_FONT_SANS, SVG_FONT_SERIF}
    texts = _texts(svg)
    contents = [t[4] for t in texts]
    assert f"Prowl – Seed {seed}" in contents or f"Prowl – seed {seed}" in contents
    for room in p.rooms:
        assert room.id in contents
    for conn in p.connections:
        assert conn.id in contents
    # No two texts overlap (estimated widths are generous).
    for a, b in itertools.combinations(texts, 2):
        overlap = (
            a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5
        )
        assert not overlap, (a, b)
    # Every text stays inside the picture.
    width, height = float(root.get("width", "0")), float(root.get("height", "0"))
    assert all(t[0] >= 0 and t[2] <= width and t[1] >= 0 and t[3] <= height for t in texts)
    # One box per room, coloured by its security; a legend.
    rects = [n for n in root.iter(f"{NS}rect") if n.get("rx") == "5"]
    assert len(rects) == len(p.rooms)
    assert "Legend" in contents or "Legende" in contents


def test_svg_and_png_are_deterministic() -> None:
    p = _case("3")
    one, two = svg_of(p, "en"), svg_of(_case("3"), "en")
    assert one == two
    png = svg_to_png(one)
    assert png.startswith(b"\x89PNG") and png == svg_to_png(two)


def test_patrols_traps_and_openings_are_drawn() -> None:
    p = _case("14-tuned")
    svg = svg_of(p, "en")
    assert "#8e44ad" in svg  # patrol band and the patrolling challenge
    assert 'stroke-dasharray="6 4"' in svg  # R2 became NoSec: open passages
    assert svg.count('fill="#c0392b"') >= sum(1 for c in p.connections if c.trap) + 1


def test_markdown_sheet_in_three_languages() -> None:
    p = _case("14-tuned")
    en = render_markdown(p, "en")
    for heading in (
        "# Prowl – seed 14",
        "## Factions",
        "## Prowl attributes",
        "## Structure",
        "## Rooms",
        "## Doors",
        "## Fine-tuning",
        "## Rolls",
    ):
        assert heading in en
    assert "Matrix security" in en and "Reputation(6) test" in en
    assert "`raise-room R3`" in en and "on patrol: " in en
    de = render_markdown(p, "de")
    assert "Matrixsicherheit" in de and "Gegenspionage" in de
    guard = p.texts["mazeprowl/challenge-creature:guard"]["de"]
    assert guard == "Ein Wachmann mit Taser und Funkgerät." and guard in de
    it = render_markdown(p, "it")
    assert "Sicurezza di Matrix" in it
    for room in p.rooms:
        assert f"### {room.id} – " in en
    # Table rows have as many cells as their header.
    for block in re.split(r"\n\n", en):
        lines = [ln for ln in block.splitlines() if ln.startswith("|")]
        if lines:
            cells = {len(re.split(r"(?<!\\)\|", ln)) for ln in lines}
            assert len(cells) == 1, block


def test_write_outputs(tmp_path: Path) -> None:
    p = _case("5")
    written = write_outputs(p, tmp_path / "out", "en")
    assert [f.name for f in written] == [
        "prowl-5.json",
        "prowl-5.svg",
        "prowl-5.png",
        "prowl-5.en.md",
        *sheet("en"),
    ]
    assert from_json(json.loads(written[0].read_text("utf-8"))) == p
    only = write_outputs(p, tmp_path / "again", "de", png=False, plan=False)
    assert [f.name for f in only] == ["prowl-5.svg", "prowl-5.de.md", *sheet("de")]
    if sheet("de"):  # the one-page PDF (kerker[pdf]), landscape A4 unless asked otherwise
        pdf = (tmp_path / "again" / "prowl-5.de.pdf").read_bytes()
        box = re.search(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)", pdf)
        assert pdf.startswith(b"%PDF") and box is not None
        assert (round(float(box[1])), round(float(box[2]))) == (842, 595)


def sheet(lang: str) -> list[str]:
    """The PDF sheet's name when the typst package is there."""
    from importlib.util import find_spec

    return [f"prowl-5.{lang}.pdf"] if find_spec("typst") is not None else []


def test_roll_log_shows_modifiers_and_speaks_the_sheets_language() -> None:
    # Issue 17: the +1/+2 (challenges) and +2/+3 (loot secured) modifiers were hidden, so
    # the die shown did not lead to the row printed; the German log used English keys.
    p = generate(ProwlOptions(8, 3, accesses=2), random.Random(4), registry=REGISTRY, seed=4)
    modified = [r for r in p.rolls if r.get("modifier")]
    assert modified
    for r in modified:
        assert r["explain"].endswith(f" {r['modifier']:+d} = {r['roll']}")
        lo, _sep, hi = str(r["row"]).partition("-")
        assert int(lo) <= r["roll"] <= int(hi or lo) or str(r["row"]).endswith("+")
    de = render_markdown(p, "de")
    log = de.split("## Würfe")[1]
    for english in (
        " challenges:",
        ": loot",
        "door strength",
        "attribute ",
        "factions",
        "→ none",
        "→ one",
        "→ two",
        "→ present",
        "→ absent",
        "→ creature",
    ):
        assert english not in log, english
    assert "Herausforderungen:" in log and "Beute" in log
