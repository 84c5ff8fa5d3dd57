"""The web app through the ASGI test client: every page and API route in de/it/en, errors
as 4xx answers with one line, the language by query/cookie/Accept-Language, the guards."""

from __future__ import annotations

import json
import re
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from kerker.web import create_app
from kerker.web.lang import choose, from_accept_language

PAGES = [
    "/",
    "/dice?expr=3W6%2B2&seed=4",
    "/check?value=12&difficulty=schwer&roll=1&seed=2",
    "/tables",
    "/tables/zufallslabyrinth/schatz?roll=1&seed=3&odds=1",
    "/zones?seed=7",
    "/zones?seed=7&view=player",
    "/prowl?seed=5&reputation=3&players=4",
    "/dungeon",
    "/dungeon?seed=7&go=1",
    "/dungeon?seed=11&go=1&rules=scatola-bianca&levels=2&view=player",
]
WORDS = {"de": "Würfel", "it": "Dadi", "en": "Dice"}


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(), raise_server_exceptions=True)


@pytest.mark.parametrize("lang", ["de", "it", "en"])
@pytest.mark.parametrize("url", PAGES)
def test_every_page_answers_in_every_language(client: TestClient, url: str, lang: str) -> None:
    sep = "&" if "?" in url else "?"
    response = client.get(f"{url}{sep}lang={lang}")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert f'<html lang="{lang}">' in response.text
    assert WORDS[lang] in response.text  # the navigation speaks the language
    assert "script-src 'self'" in response.headers["content-security-policy"]


def test_a_dungeon_page_shows_the_map_and_key_of_the_seed(client: TestClient) -> None:
    from kerker.web import services

    page = client.get("/dungeon?seed=7&go=1&lang=de").text
    assert "<svg" in page and "data-panzoom" in page
    doc = services.dungeon_document(services.DungeonOptions(seed=7), "de")
    first = doc["levels"][0]["areas"][0]
    assert first["title"] in page  # the key of the same dungeon
    assert "Seed 7" in page


def test_a_dungeon_page_without_a_sheet_size_grows_like_the_cli(client: TestClient) -> None:
    """No sheet size given: the level grows with what is rolled (issue 12, point 1), the
    same document as `kerker dungeon` without --size; the page draws its map once."""
    from typer.testing import CliRunner

    from kerker.cli import app
    from kerker.web import services

    doc = services.dungeon_document(services.DungeonOptions(seed=12), "en")
    result = CliRunner().invoke(app, ["dungeon", "--seed", "12", "--json", "--lang", "en"])
    assert result.exit_code == 0, result.stderr
    cli = json.loads(result.stdout)
    shape = [(lv["width"], lv["height"], len(lv["areas"])) for lv in cli["levels"]]
    assert [(lv["width"], lv["height"], len(lv["areas"])) for lv in doc["levels"]] == shape
    assert (shape[0][0], shape[0][1]) != (30, 40)  # not the old fixed sheet
    page = client.get("/dungeon?seed=12&go=1&lang=en").text
    assert page.count("<svg") == 1  # the key below the map does not draw it again
    form = client.get("/dungeon?lang=en").text
    assert 'name="size" value=""' in form and "grows with the dungeon" in form


def test_the_player_view_hides_what_the_gm_view_shows(client: TestClient) -> None:
    gm = client.get("/dungeon?seed=7&go=1&view=gm&lang=en").text
    player = client.get("/dungeon?seed=7&go=1&view=player&lang=en").text
    assert gm != player
    assert 'aria-selected="true">Players&#39; map' in player


def test_the_language_switch_is_remembered_by_a_cookie() -> None:
    client = TestClient(create_app())
    first = client.get("/?lang=it")
    assert first.cookies.get("kerker_lang") == "it"
    assert '<html lang="it">' in client.get("/").text
    assert '<html lang="de">' in client.get("/?lang=de").text


def test_accept_language_with_qualities() -> None:
    assert from_accept_language("fr-CH, it;q=0.9, de;q=0.8") == "it"
    assert from_accept_language("de-AT,de;q=0.9,en;q=0.5") == "de"
    assert from_accept_language("fr, es;q=0.2") is None
    assert from_accept_language("it;q=abc, de;q=0.1") == "de"
    assert choose("xx", "it", "de") == "it"
    assert choose(None, None, None) == "en"
    assert choose("DE", "it", "en") == "de"


def test_api_roll_is_repeatable_and_matches_the_library(client: TestClient) -> None:
    import random

    from kerker.dice import parse, roll

    one = client.get("/api/roll?expr=4W6kh3&seed=9").json()
    two = client.get("/api/roll?expr=4W6kh3&seed=9").json()
    assert one == two
    assert one["total"] == roll(parse("4W6kh3"), random.Random(9)).total
    assert one["explain"].startswith("4W6kh3 -> [")


def test_api_odds_are_exact_fractions(client: TestClient) -> None:
    data = client.get("/api/odds?expr=2W6").json()
    assert data["expression"] == "2W6"
    text = json.dumps(data)
    assert '"1/6"' in text  # the chance of 7


def test_api_generators_give_the_cli_documents(client: TestClient) -> None:
    from kerker.dungeon.export import dumps_document
    from kerker.web import services

    body = client.get("/api/dungeon?seed=3&lang=de").text
    doc = services.dungeon_document(services.DungeonOptions(seed=3), "de")
    assert body == dumps_document(doc)
    zones = client.get("/api/zones?seed=7").json()
    assert zones["seed"] == 7
    prowl = client.get("/api/prowl?seed=5&reputation=3&players=4").json()
    assert prowl["seed"] == 5


def test_api_tables(client: TestClient) -> None:
    items = client.get("/api/tables").json()
    ids = {item["id"] for item in items}
    assert "zufallslabyrinth/schatz" in ids and len(ids) > 100
    shown = client.get("/api/tables/zufallslabyrinth/schatz").json()
    assert shown["dice"] == "W20"
    odds = client.get("/api/tables/zufallslabyrinth/schatz/odds").json()
    from fractions import Fraction

    assert sum(Fraction(o["probability"]) for o in odds) == 1
    rolled = client.get("/api/tables/zufallslabyrinth/schatz/roll?seed=2").json()
    assert rolled["log"] and rolled["lines"]


@pytest.mark.parametrize(
    ("url", "status", "code"),
    [
        ("/api/roll?expr=3W6%2B", 400, "dice_syntax"),
        ("/api/roll?expr=W0", 400, "dice_syntax"),
        ("/api/roll?expr=1d20&seed=abc", 422, "invalid_request"),
        ("/api/roll?expr=1d20&seed=-1", 400, "option"),
        ("/api/roll", 422, "invalid_request"),
        ("/api/roll?expr=" + "1" * 300, 422, "invalid_request"),
        ("/api/odds?expr=(W1000)W100", 400, None),
        ("/api/dungeon?rules=nope", 400, "option"),
        ("/api/dungeon?size=5x5", 400, "option"),
        ("/api/dungeon?levels=99", 400, None),
        ("/api/zones?size=99x99", 400, "option"),
        ("/api/zones?theme=nope", 400, None),
        ("/api/prowl?reputation=0&players=4", 400, None),
        ("/api/tables/nope", 400, None),
        ("/api/nope", 404, "http"),
    ],
)
def test_api_errors_are_one_line_answers(
    client: TestClient, url: str, status: int, code: str | None
) -> None:
    response = client.get(url)
    assert response.status_code == status
    data = response.json()
    assert set(data) == {"error", "message"}
    assert data["message"] and "\n" not in data["message"]
    if code is not None:
        assert data["error"] == code


def test_page_errors_are_pages_in_the_language(client: TestClient) -> None:
    response = client.get("/download/dungeon?seed=7&format=exe&lang=de")
    assert response.status_code == 400
    assert "Das ging nicht" in response.text and 'role="alert"' in response.text
    assert client.get("/nope?lang=it").status_code == 404
    assert "questa pagina non esiste" in client.get("/nope?lang=it").text


@pytest.mark.parametrize("lang", ["de", "it", "en"])
@pytest.mark.parametrize(
    ("url", "field", "given"),
    [
        ("/dice?expr=3d", "expr", "3d"),
        ("/dice?expr=2d6%2B", "expr", "2d6+"),
        ("/dice?expr=999d999999", "expr", "999d999999"),
        ("/dice?expr=1d6&seed=-1", "expr", "1d6"),
        ("/check?value=999&difficulty=hard&roll=1", "value", "999"),
        ("/check?value=12&difficulty=zzz&roll=1", "difficulty", "zzz"),
        ("/zones?seed=4&size=99x99", "size", "99x99"),
        ("/zones?seed=-1&size=8x5", "size", "8x5"),
        ("/prowl?seed=3&reputation=0&players=4", "reputation", "0"),
        ("/prowl?seed=3&reputation=0&players=4&ops=raise-room+R1", "reputation", "0"),
        ("/prowl?seed=-5&reputation=4&players=4", "players", "4"),
        ("/dungeon?seed=7&go=1&size=5x5", "size", "5x5"),
        ("/dungeon?seed=7&go=1&rules=nope&max_areas=30", "max_areas", "30"),
    ],
)
def test_a_refused_form_is_the_form_again_with_the_reason_beside_it(
    client: TestClient, url: str, field: str, given: str, lang: str
) -> None:
    """A bad expression, check, zone map, heist or dungeon answers 400 with the same page, the
    form still filled in and the one-line reason (in the page's language) under the fields,
    not a bare error page."""
    response = client.get(f"{url}&lang={lang}")
    assert response.status_code == 400
    page = response.text
    assert WORDS[lang] in page and "Das ging nicht" not in page
    assert re.search(f'name="{field}"[^>]* value="{re.escape(given)}"', page)
    start = page.index('class="field-error"')
    reason = page[start : page.index("</p>", start)]
    assert reason.strip() and "\n" not in reason.strip()
    assert page.index("</form>") > start  # inside the form, beside the fields
    english = client.get(f"{url}&lang=en").text
    if lang != "en":
        there = english.index('class="field-error"')
        assert english[there : english.index("</p>", there)] != reason


def test_a_refused_dungeon_form_post_is_the_form_again(client: TestClient) -> None:
    """The dungeon form sent with bad options: the form as it was sent, the reason under it."""
    sent = {"levels": "99", "size": "5x5", "seed": "7", "max_areas": "40"}
    for lang, word in (("de", "Ebenen"), ("it", "livelli")):
        response = client.post(f"/dungeon?lang={lang}", data=sent)
        assert response.status_code == 400
        page = response.text
        assert "field-error" in page and word in page.split('class="field-error"')[1]
        assert re.search(r'name="size"[^>]* value="5x5"', page)
        assert re.search(r'name="max_areas"[^>]* value="40"', page)


def test_cross_site_posts_and_big_bodies_are_refused(client: TestClient) -> None:
    response = client.post("/api/roll?expr=1d6", headers={"Origin": "https://evil.example"})
    assert response.status_code == 403
    assert response.json()["error"] == "cross_origin"
    big = client.post("/api/roll?expr=1d6", content=b"x" * (300 * 1024))
    assert big.status_code == 413
    same = client.post("/api/roll?expr=1d6", headers={"Origin": "http://testserver"})
    assert same.status_code == 405


def test_user_text_is_escaped_in_pages(client: TestClient) -> None:
    response = client.get("/dice?expr=%3Cscript%3Ealert(1)%3C/script%3E")
    assert response.status_code == 400
    assert "<script>alert" not in response.text
    assert "&lt;script&gt;" in response.text or "&#39;" in response.text or "&lt;" in response.text


def test_downloads_are_files_of_the_seed(client: TestClient) -> None:
    svg = client.get("/download/dungeon?seed=7&format=svg&depth=1&view=player")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert "attachment" in svg.headers["content-disposition"]
    png = client.get("/download/zones?seed=7&format=png")
    assert png.content[:8] == b"\x89PNG\r\n\x1a\n"
    md = client.get("/download/prowl?seed=5&reputation=3&players=4&format=md&lang=de")
    assert md.status_code == 200 and md.text
    assert client.get("/download/dungeon?seed=7&format=exe").status_code == 400
    assert client.get("/download/dungeon?format=svg").status_code == 400


def test_the_map_for_projection_is_the_players_map_alone(client: TestClient) -> None:
    from kerker.dungeon.api import Params, document, generate
    from kerker.dungeon.render_svg import render_png, render_svg
    from kerker.tables.registry import load_registry

    query = "/download/dungeon?seed=7&depth=1&lang=en"
    svg = client.get(query + "&format=projection-svg&view=gm")  # the view does not apply
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    name = 'filename="zufallslabyrinth-7-level1-player-projection.svg"'
    assert name in svg.headers["content-disposition"]
    doc = document(generate(Params(seed=7), load_registry([])), "en")
    assert svg.text == render_svg(doc, depth=1, view="player", lang="en", bare=True)
    assert '<text class="title"' not in svg.text and 'class="legend"' not in svg.text
    assert 'class="secret"' not in svg.text
    normal = client.get(query + "&format=svg&view=player").text
    assert '<text class="title"' in normal and 'class="legend"' in normal
    png = client.get(query + "&format=projection-png")
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    assert png.content == render_png(doc, depth=1, view="player", lang="en", bare=True)
    assert client.get(query + "&format=projection-gif").status_code == 400
    assert client.get("/download/dungeon?seed=7&depth=9&format=projection-svg").status_code == 400
    assert client.get("/download/dungeon?format=projection-svg").status_code == 400
    assert client.get(query + "&format=projection-svg&depth=x").status_code in (400, 422)
    for lang, words in {
        "en": "Players' map for projection",
        "de": "Spielerkarte zum Projizieren",
        "it": "Mappa dei giocatori da proiettare",
    }.items():
        page = client.get(f"/dungeon?seed=7&go=1&lang={lang}").text
        assert "format=projection-svg" in page and "format=projection-png" in page
        assert words in page.replace("&#39;", "'"), lang


def test_openapi_documents_the_api(client: TestClient) -> None:
    spec = client.get("/api/openapi.json").json()
    assert "/api/roll" in spec["paths"] and "/api/dungeon" in spec["paths"]
    assert "400" in spec["paths"]["/api/roll"]["get"]["responses"]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    path=st.sampled_from(
        [
            "/dice",
            "/api/roll",
            "/api/odds",
            "/zones",
            "/api/zones",
            "/api/dungeon",
            "/tables/zufallslabyrinth/schatz",
            "/prowl",
        ]
    ),
    params=st.dictionaries(
        st.sampled_from(
            [
                "expr",
                "seed",
                "size",
                "theme",
                "levels",
                "rules",
                "reputation",
                "players",
                "view",
                "lang",
                "max_areas",
                "roll",
                "odds",
            ]
        ),
        st.text(max_size=12),
        max_size=4,
    ),
)
def test_no_query_gives_a_server_error(
    client: TestClient, path: str, params: dict[str, str]
) -> None:
    response = client.get(path, params=params)
    assert response.status_code < 500, (path, params, response.text[:300])


def test_an_uploaded_table_file_is_checked_rolled_and_weighed(client: TestClient) -> None:
    from pathlib import Path

    good = Path(__file__).parent.joinpath("fixtures", "tables", "foundry.yaml").read_bytes()
    response = client.post(
        "/upload?lang=en", files={"file": ("mine.yaml", good)}, data={"seed": "5"}
    )
    assert response.status_code == 200
    assert "No problems" in response.text and '<pre class="result">' in response.text
    again = client.post("/upload?lang=en", files={"file": ("mine.yaml", good)}, data={"seed": "5"})
    assert again.text == response.text  # the same seed rolls the same


@pytest.mark.parametrize(
    ("lang", "missing", "extra", "number"),
    [
        ("de", "ein Pflichtfeld fehlt", "dieses Feld ist hier nicht erlaubt", "ganze Zahl"),
        ("it", "manca un campo obbligatorio", "questo campo non è ammesso qui", "numero intero"),
        ("en", "a required field is missing", "this field is not allowed here", "whole number"),
    ],
)
def test_schema_problems_of_an_upload_speak_the_page_language(
    client: TestClient, lang: str, missing: str, extra: str, number: str
) -> None:
    """Pydantic's messages ("Field required") reach the upload page in its language."""
    text = (
        "schema: 1\nrule_set: mine\nlanguage: de\ntables:\n  - name: t\n    id: x\n"
        "    source: s\n    title: {de: T}\n    rows:\n      - {weight: viele, text: {de: a}}\n"
    )
    response = client.post(f"/upload?lang={lang}", data={"text": text, "name": "x.yaml"})
    assert response.status_code == 422
    page = response.text
    for english in ("Field required", "Extra inputs", "Input should"):
        assert english not in page
    assert extra in page and number in page
    bare = client.post(f"/upload?lang={lang}", data={"text": "schema: 1\ntables: []\n"}).text
    assert missing in bare and "Field required" not in bare


def test_an_uploaded_file_with_problems_names_line_and_column(client: TestClient) -> None:
    response = client.post(
        "/upload?lang=en", data={"text": "schema: 1\nrule_set: x\n  bad: [", "name": "x.yaml"}
    )
    assert response.status_code == 422
    assert "x.yaml:3:6: not valid YAML" in response.text
    assert "/tmp" not in response.text and "kerker-upload" not in response.text
    hostile = client.post(
        "/upload?lang=en",
        data={
            "text": "schema: 1\ntables: [{id: '<script>alert(1)</script>'}]\n",
            "name": "<b>.yaml",
        },
    )
    assert hostile.status_code == 422
    assert "<script>alert" not in hostile.text and "<b>.yaml" not in hostile.text
    binary = client.post("/upload", files={"file": ("x.yaml", b"\xff\xfe\x00")})
    assert binary.status_code == 400
    long = client.post("/upload?lang=en", data={"text": "x" * 250_000})
    assert long.status_code == 400 and "at most 200000 characters" in long.text
    huge = client.post("/upload", data={"text": "x" * 300_000})
    assert huge.status_code == 413


def test_a_chunked_body_past_the_cap_is_refused(client: TestClient) -> None:
    def chunks():  # no Content-Length: the body is counted as it arrives
        for _ in range(40):
            yield b"x" * 10_000

    response = client.post(
        "/upload", content=chunks(), headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert response.status_code == 413


def test_heist_fine_tuning_by_links_spends_the_budget(client: TestClient) -> None:
    import html
    import re

    from kerker.web import services

    page = client.get("/prowl?seed=5&reputation=5&players=4&lang=en").text
    raise_links = [
        html.unescape(u) for u in re.findall(r'href="(/prowl\?[^"]*raise-room[^"]*)"', page)
    ]
    assert raise_links
    tuned = client.get(raise_links[0] + "&lang=en")
    assert tuned.status_code == 200
    plan = services.heist(5, 5, 4, None, 0, "raise-room R2")
    assert f"{plan.tuning.left} left." in tuned.text
    assert "<code>raise-room" in tuned.text
    bad = client.get("/prowl?seed=5&add=nonsense+X&lang=en")
    assert bad.status_code == 400 and "unknown operation" in bad.text
    api = client.get("/api/prowl?seed=5&reputation=5&players=4&ops=raise-room%20R2").json()
    assert api["tuning"]["left"] == plan.tuning.left


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_every_heist_operation_link_answers_with_the_heist_page(
    client: TestClient, seed: int
) -> None:
    """Every fine-tuning link of a heist page, and one step further along the first link of
    each kind, answers with the heist page (the map, the budget): a refused operation keeps
    the plan before it and says why beside the budget (400), never a bare error page."""
    import html

    start = f"/prowl?seed={seed}&reputation=4&players=4&lang=de"

    def links(page: str) -> list[str]:
        return [
            html.unescape(u) + "&lang=de"
            for u in re.findall(r'href="(/prowl\?[^"]*ops=[^"]*)"', page)
        ]

    first = client.get(start)
    assert first.status_code == 200
    seen: set[str] = set()
    todo = links(first.text)
    step_two: dict[str, str] = {}
    for url in todo:
        verb = url.split("ops=")[1].split("+")[0]
        step_two.setdefault(verb, url)
    for url in todo + [u for v in step_two.values() for u in links(client.get(v).text)]:
        if url in seen:
            continue
        seen.add(url)
        response = client.get(url)
        assert response.status_code in (200, 400), url
        page = response.text
        assert "Das ging nicht" not in page, url
        assert "<svg" in page and "Budget" in page, url
        if response.status_code == 400:
            assert 'class="field-error" id="tune-error" role="alert"' in page, url
    assert len(seen) > 20


def test_a_stationary_challenge_is_not_offered_a_patrol_and_the_reason_names_it(
    client: TestClient,
) -> None:
    """A challenge that cannot move gets no patrol link; asked anyway, the page says which
    one by its id, its rule text in the page's language and its room, never its key."""
    from kerker.web import services

    plan = services.heist(1, 5, 4, None, 0)
    fixed = next(c for c in plan.challenges if not c.mobile)
    for lang, says, name in [
        ("de", "kann sich nicht bewegen", "Ein automatischer Geschützturm an der Decke"),
        ("it", "non può muoversi", "Una torretta automatica sul soffitto"),
        ("en", "cannot move", "An automated turret on the ceiling"),
    ]:
        page = client.get(f"/prowl?seed=1&reputation=5&players=4&lang={lang}").text
        assert not re.search(rf"patrol(\+|%20){fixed.id}(?!\d)", page)
        asked = client.get(
            f"/prowl?seed=1&reputation=5&players=4&lang={lang}&add=patrol+{fixed.id}"
        )
        assert asked.status_code == 400
        reason = asked.text.split('id="tune-error" role="alert">')[1].split("</p>")[0]
        assert reason.startswith(f"patrol {fixed.id}: {fixed.id} (")
        assert says in reason and f"in {fixed.room}" in reason
        assert f"({fixed.subtype})" not in reason
        if fixed.id == "C1":  # the seed's first challenge is the ceiling turret
            assert name in reason


def test_virtual_tabletop_downloads(client: TestClient) -> None:
    import io
    import json as _json
    import zipfile

    uvtt = client.get("/download/dungeon?seed=7&format=uvtt&depth=1")
    assert uvtt.status_code == 200
    data = _json.loads(uvtt.text)
    assert data["format"] == 0.3 and data["line_of_sight"]
    assert uvtt.headers["content-disposition"].endswith('.dd2vtt"')
    bundle = client.get("/download/dungeon?seed=7&format=foundry&depth=1")
    assert bundle.status_code == 200
    names = zipfile.ZipFile(io.BytesIO(bundle.content)).namelist()
    assert any(n.endswith("-scene.json") for n in names) and len(names) == 3
    assert client.get("/download/dungeon?seed=7&format=foundry&depth=1").content == bundle.content
