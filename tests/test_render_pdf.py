"""One printable sheet per level (issue 15): a landscape A4 / US Letter page with the map as
vector graphics and the compact key beside it, fonts embedded, the same bytes for the same
document; user text reaches Typst as data, never as markup. Needs the typst package (the
extra kerker[pdf], part of kerker[test]): skipped locally without it, a failure under
CI=true."""

from __future__ import annotations

import copy
import os
import random
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from kerker.dungeon.engine import Params, generate
from kerker.dungeon.export import to_document
from kerker.dungeon.render_key import compact_key, render_pdf
from kerker.render.pdf import PdfError, Section, Sheet, sheet_pdf
from kerker.tables.registry import load_registry

try:
    import typst  # noqa: F401
except ImportError:  # pragma: no cover - depends on the machine
    if os.environ.get("CI") == "true":
        raise
    pytest.skip("typst is not installed (pip install 'kerker[pdf]')", allow_module_level=True)


@pytest.fixture(scope="module")
def doc() -> Any:
    params = Params(seed=7, levels=3)
    return to_document(generate(params, load_registry([])), "de")


def _pages(pdf: bytes) -> list[tuple[float, float]]:
    boxes = re.findall(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf)
    return [(float(w), float(h)) for w, h in boxes]


def test_one_landscape_page_per_level_fonts_embedded(doc: Any) -> None:
    a4 = render_pdf(doc)
    letter = render_pdf(doc, paper="letter")
    levels = len(doc["levels"])
    assert levels >= 2  # one page per level, however many the seed reaches
    assert [tuple(round(v) for v in box) for box in _pages(a4)] == [(842, 595)] * levels
    assert [tuple(round(v) for v in box) for box in _pages(letter)] == [(792, 612)] * levels
    assert a4.count(b"/FontFile") >= 2  # Source Sans and Serif embedded, no system font
    assert render_pdf(copy.deepcopy(doc)) == a4  # same document, same bytes
    assert render_pdf(doc, view="player") != a4


def test_compact_key_puts_rooms_first_and_folds_corridors(doc: Any) -> None:
    rooms, tail = compact_key(doc, lang="en")
    corridors = [a for a in doc["levels"][0]["areas"] if a["kind"] == "corridor"]
    others = [a for a in doc["levels"][0]["areas"] if a["kind"] != "corridor"]
    assert len(rooms) == len(others) and corridors
    assert tail and tail[0].startswith("Corridors: ")
    assert tail[0].count("→") <= len(corridors)
    assert not any("Roll" in line for _h, lines in rooms for line in lines)
    assert not any(re.search(r"\d,\d+ squares|0\.25", _h) for _h, _l in rooms)


def test_user_text_is_data_not_markup() -> None:
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="80">'
        '<rect width="100" height="80" fill="#ffffff"/></svg>'
    )
    evil = '#set page(paper: "a0") #pagebreak() $x$ *b* ] [ \\ \x07 ")'
    sheet = Sheet(
        title=evil, subtitle=evil, svg=svg, sections=[Section(evil, [evil, evil])] * 3, tail=[evil]
    )
    pdf = sheet_pdf([sheet])
    assert [tuple(round(v) for v in box) for box in _pages(pdf)] == [(842, 595)]
    if shutil.which("pdftotext"):
        text = subprocess.run(
            ["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True
        ).stdout.decode()
        assert "#set page" in text and "\x07" not in text


def test_a_key_too_long_is_cut_with_a_note() -> None:
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="80">'
        '<rect width="100" height="80" fill="#ffffff"/></svg>'
    )
    sections = [
        Section(f"{i}. Raum", ["Tür nach Norden zu Gebiet 2; Tür nach Süden zu Gebiet 3"] * 3)
        for i in range(150)
    ]
    pdf = sheet_pdf([Sheet("T", "S", svg, sections, more="{n} weitere")])
    assert len(_pages(pdf)) == 1
    if shutil.which("pdftotext"):
        text = subprocess.run(
            ["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True
        ).stdout.decode()
        assert re.search(r"\d+ weitere", text)


def test_bad_paper_is_refused(doc: Any) -> None:
    with pytest.raises(PdfError):
        render_pdf(doc, paper="a0")


def test_zone_map_and_heist_sheets() -> None:
    from kerker.prowl.generate import ProwlOptions
    from kerker.prowl.generate import generate as prowl_generate
    from kerker.prowl.render_md import render_pdf as prowl_pdf
    from kerker.zones.generate import ZoneParams
    from kerker.zones.generate import generate as zones_generate
    from kerker.zones.render_md import render_pdf as zones_pdf

    registry = load_registry([])
    zmap = zones_generate(ZoneParams(size=(8, 5), theme="fantasy"), random.Random(7), registry)
    heist = prowl_generate(ProwlOptions(reputation=5, players=4), random.Random(4), seed=4)
    for pdf in (
        zones_pdf(zmap, "de"),
        zones_pdf(zmap, "it", paper="letter"),
        prowl_pdf(heist, "en"),
        prowl_pdf(heist, "de", paper="letter"),
    ):
        assert len(_pages(pdf)) == 1 and pdf.count(b"/FontFile") >= 2
    if shutil.which("pdftotext"):
        text = subprocess.run(
            ["pdftotext", "-", "-"], input=prowl_pdf(heist, "en"), capture_output=True, check=True
        ).stdout.decode()
        assert all(room.id in text for room in heist.rooms)


def _colour_span(pdf: bytes, tmp: Path) -> tuple[float, float]:
    """The share of the page's width and height the coloured pixels of the first page
    span (a heist plan's room fills), from ``pdftoppm`` at 30 dpi."""
    if shutil.which("pdftoppm") is None:  # pragma: no cover - poppler-utils is on the machines
        if os.environ.get("CI") == "true":
            pytest.fail("pdftoppm (poppler-utils) is needed under CI")
        pytest.skip("pdftoppm (poppler-utils) is not installed")
    (tmp / "sheet.pdf").write_bytes(pdf)
    subprocess.run(
        ["pdftoppm", "-r", "30", "-f", "1", "-l", "1", "-singlefile", "sheet.pdf", "sheet"],
        cwd=tmp,
        check=True,
        capture_output=True,
    )
    raw = (tmp / "sheet.ppm").read_bytes()
    magic, width, height, _depth, pixels = raw.split(maxsplit=4)
    assert magic == b"P6"
    w, h = int(width), int(height)
    xs, ys = [], []
    for i in range(w * h):
        r, g, b = pixels[3 * i : 3 * i + 3]
        if max(r, g, b) - min(r, g, b) > 40:
            xs.append(i % w)
            ys.append(i // w)
    assert xs, "no colour on the sheet"
    return (max(xs) - min(xs) + 1) / w, (max(ys) - min(ys) + 1) / h


@pytest.mark.parametrize("seed", [1, 3, 2054479296])
def test_a_heist_sheet_gives_its_wide_plan_the_page(seed: int, tmp_path: Path) -> None:
    """The heist sheet put its plan (2 to 2.4 times as wide as high, with these seeds) in
    the left 58 % column, a strip across the top third with the page below it white (its
    rooms spanned 46-51 % of the page's width), and cut its doors' list at 400 characters
    ("… Falle: Ein …"). A plan wider than 1.4 : 1 now goes across the page with the key
    below in columns (the rooms span 76-91 %), and the doors are all there."""
    from kerker.prowl.generate import ProwlOptions
    from kerker.prowl.generate import generate as prowl_generate
    from kerker.prowl.render_md import render_pdf as prowl_pdf
    from kerker.prowl.render_svg import render_svg
    from kerker.render.pdf import _aspect, layout

    heist = prowl_generate(ProwlOptions(reputation=5, players=4), random.Random(seed), seed=seed)
    assert layout(render_svg(heist, "de"), "a4")["layout"] == "stack"
    pdf = prowl_pdf(heist, "de")
    assert len(_pages(pdf)) == 1
    across, down = _colour_span(pdf, tmp_path)
    assert 2 <= _aspect(render_svg(heist, "de")) <= 2.5
    assert across >= 0.7 and down >= 0.35, (across, down)
    if shutil.which("pdftotext"):
        text = subprocess.run(
            ["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True
        ).stdout.decode()
        flat = " ".join(text.split())
        assert all(f"{conn.id} " in flat for conn in heist.connections), flat[-300:]
        assert all(room.id in flat for room in heist.rooms)
    # a square map stays beside its key
    assert layout('<svg viewBox="0 0 900 880">', "a4")["layout"] == "side"


A4 = (841.89, 595.28)  # landscape, points
LETTER = (792.0, 612.0)


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (("dungeon", "--seed", "3", "--format", "pdf"), "zufallslabyrinth-3.pdf"),
        (("zones", "--seed", "5", "--size", "4x3", "--format", "pdf"), "zones-5.pdf"),
        (("prowl", "-r", "4", "-p", "3", "--seed", "14", "--no-png"), "prowl-14.en.pdf"),
    ],
)
@pytest.mark.parametrize("paper", [None, "a4", "letter"])
def test_cli_writes_the_sheet_on_the_paper_asked(
    tmp_path: Path, args: tuple[str, ...], name: str, paper: str | None
) -> None:
    """``--out`` writes the one-page sheet, A4 landscape unless ``--paper letter``."""
    from typer.testing import CliRunner

    from kerker.cli import app

    extra = ["--paper", paper] if paper else []
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path), "--lang", "en", *extra])
    assert result.exit_code == 0, result.stderr
    pages = _pages((tmp_path / name).read_bytes())
    assert len(pages) >= 1
    want = LETTER if paper == "letter" else A4
    assert all(abs(w - want[0]) < 0.5 and abs(h - want[1]) < 0.5 for w, h in pages), pages


@pytest.mark.parametrize("command", [("dungeon",), ("zones",), ("prowl", "-r", "4", "-p", "3")])
def test_cli_refuses_an_unknown_paper_in_one_line(tmp_path: Path, command: tuple[str, ...]) -> None:
    from typer.testing import CliRunner

    from kerker.cli import app

    result = CliRunner().invoke(app, [*command, "--paper", "a0", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr == "kerker: error: unknown paper 'a0' (a4 or letter)\n"
    assert not any(tmp_path.iterdir())
