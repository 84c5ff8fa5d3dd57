"""The HTML key prints (issue 15, ``@media print``): printed by Chromium (Playwright's
``page.pdf()``, A4) the first page holds the first level's title and map (no empty page
before it), every page has text, and the key runs in two columns. The words of each page
come from poppler's ``pdftotext -bbox``. Needs Debian's Chromium and poppler-utils (CI
installs both; locally the test skips without them)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from conftest import require

from kerker.dungeon.engine import Params, generate
from kerker.dungeon.export import to_document
from kerker.dungeon.render_key import render_html
from kerker.tables.registry import load_registry

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PDFTOTEXT = shutil.which("pdftotext") or "/usr/bin/pdftotext"
_PAGE = re.compile(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', re.S)
_WORD = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">')


def _printed(html: str) -> bytes:
    require(Path(CHROMIUM), "Chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page()
            page.set_content(html)
            return page.pdf(format="A4")
        finally:
            browser.close()


def _pages(pdf: bytes, tmp: Path) -> list[tuple[float, list[tuple[float, float]]]]:
    """Per page: its width and the (xMin, yMin) of its words."""
    require(Path(PDFTOTEXT), "pdftotext (apt-get install poppler-utils)")
    path = tmp / "key.pdf"
    path.write_bytes(pdf)
    out = subprocess.run(
        [PDFTOTEXT, "-bbox", str(path), "-"], capture_output=True, check=True, text=True
    ).stdout
    return [
        (float(w), [(float(m[0]), float(m[1])) for m in _WORD.findall(body)])
        for w, _h, body in _PAGE.findall(out)
    ]


def test_html_key_prints_map_first_then_two_columns(tmp_path: Path) -> None:
    doc: dict[str, Any] = to_document(generate(Params(seed=7, levels=2), load_registry([])), "de")
    pdf = _printed(render_html(doc))
    pages = _pages(pdf, tmp_path)
    assert len(pages) >= 3
    first = subprocess.run(
        [PDFTOTEXT, "-f", "1", "-l", "1", str(tmp_path / "key.pdf"), "-"],
        capture_output=True,
        check=True,
        text=True,
    ).stdout
    assert "Zufallslabyrinth – Seed 7 – Ebene 1" in first  # the title, on page 1
    assert all(words for _w, words in pages), [len(w) for _w, w in pages]  # no empty page
    # The key's pages (after the map) run in two columns: words start in both halves.
    width, words = pages[1]
    left = [x for x, _y in words if x < width * 0.45]
    right = [x for x, _y in words if x > width * 0.52]
    assert len(left) > 50 and len(right) > 50, (len(left), len(right))
