"""The web app in a real browser: Playwright for Python driving Debian's Chromium
(/usr/bin/chromium, never a downloaded browser). Under CI=true a missing browser fails the
run; locally these tests skip. Screenshots go to $KERKER_ARTEFACTS (default: a temp folder)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _need_browser() -> None:
    problem = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        problem = "playwright is not installed (pip install -e '.[test]')"
    if problem is None and not Path(CHROMIUM).exists():
        problem = "Chromium is not installed (apt-get install chromium)"
    if problem is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser tests need a browser under CI: {problem}")
        pytest.skip(problem)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    _need_browser()
    import uvicorn

    from kerker.web import create_app

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    db = Path(tempfile.mkdtemp(prefix="kerker-web-")) / "sessions.sqlite3"
    config = uvicorn.Config(create_app(db), host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.05)
    assert srv.started, "the test server did not start"
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser(server: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def artefacts() -> Path:
    path = Path(os.environ.get("KERKER_ARTEFACTS") or tempfile.mkdtemp(prefix="kerker-shots-"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def _page(browser: Any, width: int = 1280, height: int = 900, **kw: Any) -> tuple[Any, list[str]]:
    context = browser.new_context(
        viewport={"width": width, "height": height}, accept_downloads=True, **kw
    )
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda err: problems.append(str(err)))
    return page, problems


def test_dungeon_page_pans_and_zooms_by_keyboard(
    browser: Any, server: str, artefacts: Path
) -> None:
    page, problems = _page(browser)
    page.goto(f"{server}/dungeon?seed=7&go=1&lang=de")
    box = page.locator("[data-panzoom]")
    svg = box.locator("svg").first
    before = svg.get_attribute("viewBox")
    box.focus()
    page.keyboard.press("+")
    zoomed = svg.get_attribute("viewBox")
    assert zoomed != before
    assert float(zoomed.split()[2]) < float(before.split()[2])
    page.keyboard.press("ArrowRight")
    assert svg.get_attribute("viewBox") != zoomed
    page.keyboard.press("0")
    assert svg.get_attribute("viewBox").split() == before.split()
    page.screenshot(path=str(artefacts / "dungeon-de.png"), full_page=False)
    assert problems == []  # no script errors, no CSP violations
    page.context.close()


def test_language_switch_and_cookie(browser: Any, server: str, artefacts: Path) -> None:
    page, problems = _page(browser, locale="de-DE")
    page.goto(f"{server}/")
    assert page.locator("html").get_attribute("lang") == "de"  # Accept-Language
    page.get_by_role("link", name="Italiano").click()
    assert page.locator("html").get_attribute("lang") == "it"
    page.get_by_role("link", name="Dadi", exact=True).click()
    assert page.locator("html").get_attribute("lang") == "it"  # remembered
    page.fill("input[name=expr]", "4d6kh3")
    page.get_by_role("button", name="Tira i dadi").click()
    assert "Probabilità esatte" in page.content()
    page.screenshot(path=str(artefacts / "dice-it.png"), full_page=True)
    assert problems == []
    page.context.close()


def test_downloading_the_key(browser: Any, server: str) -> None:
    page, problems = _page(browser)
    page.goto(f"{server}/dungeon?seed=7&go=1&lang=en")
    with page.expect_download() as info:
        page.get_by_role("link", name="key (Markdown)").click()
    download = info.value
    assert download.suggested_filename == "zufallslabyrinth-7.md"
    text = Path(download.path()).read_text(encoding="utf-8")
    assert "7" in text and len(text) > 1000
    assert problems == []
    page.context.close()


def test_phone_width_has_no_horizontal_scroll(browser: Any, server: str, artefacts: Path) -> None:
    for url, name in (
        ("/zones?seed=7&lang=de", "zones-phone-de"),
        ("/dungeon?seed=11&go=1&rules=scatola-bianca&lang=it", "dungeon-phone-it"),
        ("/tables?lang=it", "tables-phone-it"),
    ):
        page, problems = _page(browser, width=390, height=844)
        page.goto(server + url)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        page.screenshot(path=str(artefacts / f"{name}.png"), full_page=False)
        assert overflow <= 1, (url, overflow)
        assert problems == []
        page.context.close()
    # the play page carries the long player link; it wraps instead of widening the page
    page, problems = _page(browser, width=390, height=844)
    page.goto(f"{server}/play?lang=de")
    page.fill("input[name=seed]", "7")
    page.locator("form[action='/play'] button").click()
    page.wait_for_url(re.compile(r".*/play/[0-9a-f]+$"))
    watch_url = page.locator("a[target=_blank]").get_attribute("href")
    for url, name in ((page.url, "play-phone-de"), (f"{watch_url}?lang=it", "watch-phone-it")):
        page.goto(url)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        page.screenshot(path=str(artefacts / f"{name}.png"), full_page=False)
        assert overflow <= 1, (name, overflow)
    assert problems == []
    page.context.close()


def test_play_by_clicking_the_map_with_a_live_player_screen(
    browser: Any, server: str, artefacts: Path
) -> None:
    from playwright.sync_api import expect

    gm, problems = _page(browser, width=1400, height=1000)
    gm.goto(f"{server}/play?lang=de")
    gm.fill("input[name=seed]", "7")
    gm.fill("input[name=levels]", "2")
    gm.locator("form[action='/play'] button").click()
    gm.wait_for_url(re.compile(r".*/play/[0-9a-f]+$"))
    watch_url = gm.locator("a[target=_blank]").get_attribute("href")
    player, player_problems = _page(browser, width=900, height=900)
    player.goto(f"{watch_url}?lang=it")
    expect(player.locator("html")).to_have_attribute("lang", "it")
    play = gm.locator("#play")
    for _ in range(3):
        seq = play.get_attribute("data-seq")
        box = gm.locator("[data-panzoom] svg").first
        gm.locator("a.exit").first.click()
        expect(play).not_to_have_attribute("data-seq", seq)
        assert box.get_attribute("viewBox") is not None
    assert play.get_attribute("data-seq") == "3"
    # the player screen follows by itself (server-sent events), without a reload
    expect(player.locator("#play")).to_have_attribute("data-seq", "3", timeout=15_000)
    gm.get_by_role("button", name="Rückgängig").click()
    expect(play).to_have_attribute("data-seq", "4")
    # the form offers only opened doors; one the server no longer knows is refused in place
    gm.locator("select[name=exit]").evaluate("s => { s.options[0].value = '9:9,9:n'; }")
    gm.get_by_role("button", name="Neu würfeln", exact=True).click()
    expect(gm.locator("[data-flash]")).to_be_visible()
    assert play.get_attribute("data-seq") == "4"
    assert all("400" in text for text in problems)  # the browser notes the refused request
    problems.clear()
    gm.get_by_role("button", name="Neu würfeln, was hinter der letzten Tür liegt").click()
    expect(play).to_have_attribute("data-seq", "5")
    expect(player.locator("#play")).to_have_attribute("data-seq", "5", timeout=15_000)
    html = player.content()
    assert 'class="exit"' not in html and 'class="secret"' not in html
    gm.screenshot(path=str(artefacts / "play-gm-de.png"))
    player.screenshot(path=str(artefacts / "play-player-it.png"))
    assert problems == [] and player_problems == []
    gm.context.close()
    player.context.close()


def test_without_a_referee_the_player_screen_opens_a_door_and_searches(
    browser: Any, server: str, artefacts: Path
) -> None:
    from playwright.sync_api import expect

    gm, problems = _page(browser, width=1400, height=1000)
    gm.goto(f"{server}/play?lang=it")
    gm.fill("input[name=seed]", "2")
    gm.locator("select[name=rules]").select_option("scatola-bianca")
    gm.locator("input[name=no_referee]").check()
    gm.locator("form[action='/play'] button").click()
    gm.wait_for_url(re.compile(r".*/play/[0-9a-f]+$"))
    assert "Partita senza arbitro" in gm.content()
    watch_url = gm.locator("a[target=_blank]").get_attribute("href")
    gm.context.close()
    player, player_problems = _page(browser, width=900, height=1000)
    player.goto(f"{watch_url}?lang=it")
    play = player.locator("#play")
    expect(play).to_have_attribute("data-seq", "0")
    player.locator("a.exit").first.click()  # the numbered marker on the map opens the door
    expect(play).to_have_attribute("data-seq", "1")
    player.fill("#search input[name=area]", "1")
    player.locator("#search select[name=side]").select_option("n")
    player.locator("#search button").click()
    expect(play).to_have_attribute("data-seq", "2")
    journal = player.locator(".journal").first
    expect(journal).to_contain_text("Cercato nel muro a nord dell’area 1")
    journal.locator("details summary").last.click()
    expect(journal.locator("details").last).to_contain_text("1d12")
    html = player.content()
    assert "secret_door" not in html and "/reveal" not in html
    player.screenshot(path=str(artefacts / "play-no-referee-it.png"), full_page=True)
    assert player_problems == [] and problems == []
    player.context.close()


def test_exit_markers_are_touch_targets_on_a_phone(
    browser: Any, server: str, artefacts: Path
) -> None:
    """At 390 px the map's numbered exits are at least 44 CSS px to touch (an invisible area
    around the number, cut half way to a neighbouring marker), a tap on that area opens the
    exit, and keyboard focus shows its outline."""
    from playwright.sync_api import expect

    page, problems = _page(browser, width=390, height=844)
    page.goto(f"{server}/play?lang=it")
    page.fill("input[name=seed]", "7")
    page.locator("form[action='/play'] button").click()
    page.wait_for_url(re.compile(r".*/play/[0-9a-f]+$"))
    marks = page.locator("[data-panzoom] a.exit")
    assert marks.count() >= 1
    checked = 0
    for i in range(marks.count()):
        box = marks.nth(i).bounding_box()
        dot = marks.nth(i).locator("circle").bounding_box()
        assert box is not None and dot is not None
        assert dot["width"] < 44  # the number itself is small on a phone: the ring matters
        near = min(
            (
                ((b["x"] - box["x"]) ** 2 + (b["y"] - box["y"]) ** 2) ** 0.5
                for j in range(marks.count())
                if j != i and (b := marks.nth(j).bounding_box()) is not None
            ),
            default=1e9,
        )
        if near >= 22:  # (closer markers share the place between them)
            assert box["width"] >= 43.5 and box["height"] >= 43.5, (i, box)
            checked += 1
    assert checked == marks.count()
    first = marks.first
    box = first.bounding_box()
    assert box is not None
    page.keyboard.press("Tab")
    first.focus()
    ring = first.locator("path.hit").evaluate("c => getComputedStyle(c).stroke")
    assert ring not in ("none", "")
    page.screenshot(path=str(artefacts / "exits-phone-it.png"), full_page=False)
    play = page.locator("#play")
    seq = play.get_attribute("data-seq")
    # a tap inside the ring, outside the number, opens that exit
    page.mouse.click(box["x"] + box["width"] / 2 + 18, box["y"] + box["height"] / 2)
    expect(play).not_to_have_attribute("data-seq", seq)
    assert problems == []
    page.context.close()
