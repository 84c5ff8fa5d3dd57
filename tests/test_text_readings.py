"""Texts as a reader gets them (issue 15, language): filled dice templates, counts, labels,
in de/it/en, through the command line, the web app and the renderers."""

from __future__ import annotations

import re
import warnings

import pytest
from typer.testing import CliRunner

from kerker.cli import app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from kerker.web import create_app

runner = CliRunner()
LANGS = ("de", "it", "en")
D12 = {"de": "W12", "it": "d12", "en": "d12"}
TEMPLATE = re.compile(r"\{[a-z_][^{}]*\}")


def cli(*args: str) -> str:
    result = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.stdout + result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(), raise_server_exceptions=True)


# -- item 2: a table's die with a parameter ------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_table_show_fills_the_die_of_a_template(lang: str) -> None:
    out = cli("table", "show", "scatola-bianca/porta-delle-scale", "--lang", lang)
    assert D12[lang] in out
    assert "{" not in out


@pytest.mark.parametrize("lang", LANGS)
def test_table_list_shows_no_template(lang: str) -> None:
    out = cli("table", "list", "--lang", lang)
    assert not TEMPLATE.search(out), TEMPLATE.search(out)
    line = next(ln for ln in out.splitlines() if "scatola-bianca/porta-delle-scale" in ln)
    assert D12[lang] in line
    line = next(ln for ln in out.splitlines() if "zufallslabyrinth/gewaesser" in ln)
    assert ("W20" if lang == "de" else "d20") in line


@pytest.mark.parametrize("lang", LANGS)
def test_web_tables_pages_fill_the_die(client: TestClient, lang: str) -> None:
    listing = client.get(f"/tables?lang={lang}").text
    assert "{one_in}" not in listing and "W{" not in listing and "{reputation}" not in listing
    page = client.get(f"/tables/scatola-bianca/porta-delle-scale?lang={lang}&odds=1").text
    assert f"<code>{D12[lang]}</code>" in page
    assert "{one_in}" not in page


# -- item 7: "Start" split into the start page and the session button ---------------------

PAGE = {"de": "Startseite", "it": "Pagina iniziale", "en": "Start page"}
BUTTON = {"de": "Sitzung starten", "it": "Inizia la sessione", "en": "Start the session"}


@pytest.mark.parametrize("lang", LANGS)
def test_start_page_and_start_button_have_their_own_words(client: TestClient, lang: str) -> None:
    index = client.get(f"/?lang={lang}").text
    assert f"<title>{PAGE[lang]}" in index
    plays = client.get(f"/play?lang={lang}").text
    assert f"<button>{BUTTON[lang]}</button>" in plays
    for text in (index, plays):
        assert "<button>Start</button>" not in text and "<title>Start · " not in text


# -- item 5: one area-count line for the map, the key and the web start page --------------

COUNT = {
    "de": r"(\d+) Gebiete \((\d+) ohne Gänge\)",
    "it": r"(\d+) aree \((\d+) senza corridoi\)",
    "en": r"(\d+) areas \((\d+) not counting corridors\)",
}


@pytest.mark.parametrize("lang", LANGS)
def test_map_and_key_count_every_area_but_the_corridors(lang: str) -> None:
    from kerker.dungeon.engine import Params, generate
    from kerker.dungeon.export import to_document
    from kerker.dungeon.render_key import render_md
    from kerker.dungeon.render_svg import render_svg
    from kerker.tables.registry import load_registry

    # Scatola Bianca from level 3 has caves and chambers: neither rooms nor halls
    params = Params(rules="scatola-bianca", seed=5, levels=3)
    doc = to_document(generate(params, load_registry([])), lang)
    level = doc["levels"][2]
    kinds = [str(a.get("kind")) for a in level["areas"]]
    assert {"cave", "chamber"} & set(kinds), kinds
    wanted = (len(kinds), sum(1 for k in kinds if k != "corridor"))
    for text in (render_svg(doc, depth=3, lang=lang), render_md(doc, depth=3, lang=lang)):
        found = re.search(COUNT[lang], text)
        assert found, lang
        assert (int(found.group(1)), int(found.group(2))) == wanted
        assert "rooms and halls" not in text and "stanze e sale" not in text


# -- item 1: singular and plural where a count is printed ---------------------------------

WRONG = {"de": r"\b1 Ausgänge\b|\b[02-9] Ausgang\b", "it": r"\b1 uscite\b|\b[02-9] uscita\b"}
WRONG["en"] = r"\b1 exits\b|\b[02-9] exit\b"


@pytest.mark.parametrize("lang", LANGS)
def test_table_show_writes_each_count_in_its_number(client: TestClient, lang: str) -> None:
    out = cli("table", "show", "scatola-bianca/numero-uscite", "--lang", lang)
    page = client.get(f"/tables/scatola-bianca/numero-uscite?lang={lang}").text
    one = {"de": "1 Ausgang (", "it": "1 uscita (", "en": "1 exit ("}[lang]
    two = {"de": "2 Ausgänge (", "it": "2 uscite (", "en": "2 exits ("}[lang]
    for text in (" ".join(out.split()), page):
        assert not re.search(WRONG[lang], text), re.search(WRONG[lang], text)
        assert one in text and two in text


# -- item 3: the heist page's operation buttons in the reader's language ------------------

BUTTONS = {
    "de": ("Türenstärke neu würfeln", "Budget abschließen"),
    "it": ("Ritira la robustezza delle porte", "Chiudi il budget"),
    "en": ("Reroll the door strength", "Close the budget"),
}


@pytest.mark.parametrize("lang", LANGS)
def test_heist_tuning_buttons_are_translated(client: TestClient, lang: str) -> None:
    page = client.get(f"/prowl?seed=5&reputation=3&players=4&lang={lang}").text
    for label in BUTTONS[lang]:
        assert f">{label}</a>" in page, label
    assert ">reroll-doors</a>" not in page and ">finish</a>" not in page


# -- item 6: the example of a hidden way fits the map's theme -------------------------------


def test_the_hidden_way_example_fits_the_theme() -> None:
    import random

    from kerker.tables.registry import load_registry
    from kerker.zones import ZoneParams, generate
    from kerker.zones.render_text import notes

    registry = load_registry([])
    lead = {"de": "Verborgene Wege", "it": "Passaggi nascosti", "en": "Hidden ways"}
    examples = {
        "scifi": {"de": "Druckschotttür", "it": "porta stagna", "en": "pressure door"},
        "fantasy": {"de": "Wandteppich", "it": "arazzo", "en": "tapestry"},
    }
    seen: set[str] = set()
    for theme, example in examples.items():
        other = examples["fantasy" if theme == "scifi" else "scifi"]
        for seed in range(60):
            params = ZoneParams(size=(8, 8), seed=seed, theme=theme)
            zmap = generate(params, random.Random(seed), registry)
            if not any(c.via for c in zmap.connections):
                continue
            for lang in LANGS:
                line = next(ln for ln in notes(zmap, lang) if ln.startswith(lead[lang]))
                assert example[lang] in line and other[lang] not in line, line
            seen.add(theme)
            break
    assert seen == set(examples)


# -- item 4: a form error names the field by the label the form shows ---------------------


@pytest.mark.parametrize(
    ("url", "lang", "message"),
    [
        ("/prowl?seed=5&reputation=abc", "de", "Reputation: sollte eine ganze Zahl sein"),
        ("/dungeon?seed=x&go=1", "it", "Seme: dovrebbe essere un numero intero"),
        ("/dice?expr=3W6&seed=zz", "en", "Seed: should be a whole number"),
        ("/dungeon?seed=7&go=1&levels=zwei", "de", "Ebenen: sollte eine ganze Zahl sein"),
    ],
)
def test_form_errors_name_the_translated_field(
    client: TestClient, url: str, lang: str, message: str
) -> None:
    response = client.get(f"{url}&lang={lang}")
    assert response.status_code == 422
    # the form page again, filled in as asked, the reason under the form
    assert f'class="field-error" id="form-error" role="alert">{message}</p>' in response.text
    asked = url.split("?")[1].split("&")
    for name, value in (p.split("=") for p in asked if not p.startswith(("go=", "expr="))):
        if name == "seed" and url.startswith("/dice"):
            continue  # the dice page has no seed field (the link after a roll carries it)
        assert re.search(f'name="{name}"[^>]* value="{value}"', response.text), name


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("de", "Ausdruck: ein Pflichtfeld fehlt"),
        ("it", "Espressione: manca un campo obbligatorio"),
        ("en", "Expression: a required field is missing"),
    ],
)
def test_api_validation_errors_speak_the_request_language(
    client: TestClient, lang: str, message: str
) -> None:
    """FastAPI's own refusals (a missing or mistyped parameter) in the request's language."""
    response = client.get(f"/api/roll?lang={lang}")
    assert response.status_code == 422
    assert response.json() == {"error": "invalid_request", "message": message}
    wrong = client.get(f"/api/roll?expr=1d6&seed=zz&lang={lang}").json()["message"]
    assert "valid integer" not in wrong and "Input should" not in wrong
