"""Every page of the web app as a game master sees it at the table: Debian's Chromium at a
phone width (390 x 844) and a desktop width (1366 x 900), in German, Italian and English,
with JavaScript and without. Each page is screenshotted (full page) to $KERKER_ARTEFACTS
or ``test-artifacts/look/`` (ignored by git) for a person to look at, and checked for what
a game master would not accept: a page wider than the phone, raw Markdown, English words on
a German or Italian page, controls too small to tap, a player page that shows GM-only
information. The browser fixtures are tests/test_web_browser.py's."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_web_browser import _page, browser, server  # noqa: F401  (fixtures)

PHONE = (390, 844)
DESKTOP = (1366, 900)
LANGS = ("de", "it", "en")

# A small table file with two mistakes, for the upload page's error list.
BAD_TABLE = """\
schema: 1
rule_set: mine
language: de
tables:
  - name: ratten
    title: {de: Ratten, it: Ratti, en: Rats}
    dice: W6
    rows:
      - {range: [1, 3], text: Eine Ratte}
      - {range: [3, 9], text: Zwei Ratten}
"""


@pytest.fixture(scope="module")
def shots() -> Path:
    base = os.environ.get("KERKER_ARTEFACTS")
    root = Path(base) if base else Path(__file__).resolve().parent.parent / "test-artifacts"
    path = root / "look"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _new_session(page: Any, base: str, lang: str, *, referee: bool) -> tuple[str, str]:
    """A session started through the form (as a GM does), three doors opened through the
    page's own buttons; -> (GM page URL, player page URL)."""
    page.goto(f"{base}/play?lang={lang}")
    page.fill("input[name=seed]", "7")
    page.fill("input[name=levels]", "2")
    if not referee:
        page.locator("input[name=no_referee]").check()
    page.locator("form[action='/play'] button").click()
    page.wait_for_url(re.compile(r".*/play/[0-9a-f]+$"))
    gm_url = page.url
    watch_url = page.locator("a[target=_blank]").get_attribute("href")
    play = page.locator("#play")
    for step in range(1, 4):
        page.locator("form.act:has(input[name=exit][value=next]) button").click()
        page.wait_for_selector(f"#play[data-seq='{step}']")
    assert play.get_attribute("data-seq") == "3"
    return gm_url, watch_url


def _pages(lang: str, gm_url: str, watch_url: str, solo_url: str) -> list[tuple[str, str]]:
    q = f"lang={lang}"
    prowl = "/prowl?seed=7&reputation=5&players=4&ops=raise-room+R2%2C+patrol+C1"
    return [
        ("start", f"/?{q}"),
        ("dungeon-form", f"/dungeon?{q}"),
        ("dungeon", f"/dungeon?seed=7&go=1&{q}"),
        ("dungeon-player", f"/dungeon?seed=7&go=1&view=player&{q}"),
        ("play-list", f"/play?{q}"),
        ("play-gm", f"{gm_url}?{q}"),
        ("play-gm-area", f"{gm_url}?area=2&{q}"),
        ("watch", f"{watch_url}?{q}"),
        ("watch-solo", f"{solo_url}?{q}"),
        ("zones", f"/zones?seed=7&{q}"),
        ("zones-player", f"/zones?seed=7&view=player&{q}"),
        ("prowl", f"{prowl}&{q}"),
        ("dice", f"/dice?expr=4d6kh3&seed=3&{q}"),
        ("check", f"/check?value=12&difficulty=schwer&roll=1&seed=3&{q}"),
        ("tables", f"/tables?{q}"),
        ("table", f"/tables/zufallslabyrinth/anzahl_ausgaenge?roll=1&seed=3&odds=1&{q}"),
        ("upload", f"/upload?{q}"),
        ("404", f"/nowhere?{q}"),
        ("400", f"/dice?expr=3d&{q}"),
    ]


@pytest.fixture(scope="module")
def sessions(browser: Any, server: str) -> Iterator[dict[str, Any]]:  # noqa: F811
    page, problems = _page(browser, *DESKTOP)
    gm_url, watch_url = _new_session(page, server, "de", referee=True)
    solo_gm, solo_watch = _new_session(page, server, "de", referee=False)
    assert problems == []
    state = page.context.storage_state()  # the GM cookies of both sessions
    page.context.close()
    yield {"referee": (gm_url, watch_url), "solo": (solo_gm, solo_watch), "state": state}


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_at_phone_and_desktop_width(
    browser: Any,  # noqa: F811
    server: str,  # noqa: F811
    sessions: dict[str, Any],
    shots: Path,
    lang: str,
) -> None:
    gm_url, watch_url = sessions["referee"]
    solo_url = sessions["solo"][1]
    for width, height in (PHONE, DESKTOP):
        page, problems = _page(browser, width, height, storage_state=sessions["state"])
        for name, url in _pages(lang, gm_url, watch_url, solo_url):
            page.goto(url if url.startswith("http") else server + url)
            page.screenshot(path=str(shots / f"{name}-{lang}-{width}.png"), full_page=True)
            overflow = page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
            assert overflow <= 0, (name, lang, width, overflow)
        page.goto(f"{server}/upload?lang={lang}")
        page.fill("textarea[name=text]", BAD_TABLE)
        page.fill("input[name=name]", "ratten.yaml")
        page.locator("form:has(textarea) button").click()
        page.wait_for_selector("ul.problems")
        page.screenshot(path=str(shots / f"upload-error-{lang}-{width}.png"), full_page=True)
        assert [p for p in problems if "status of 4" not in p] == []
        page.context.close()
