"""A third procedure, defined in tests/ (tests/toy_procedure.py), runs on the engine,
exports its document and is drawn, with no edit of engine, exporter or renderer files:
its options, kinds and player view come from its own declarations."""

from __future__ import annotations

import json

import pytest
import toy_procedure

from kerker.dungeon.api import (
    DungeonError,
    Params,
    available_procedures,
    document,
    dumps_document,
    expand,
    generate,
    next_exit,
    render_ascii,
    render_md,
    render_views,
    snapshot,
    start,
)
from kerker.dungeon.export import ExportError
from kerker.errors import KerkerError
from kerker.i18n import translator
from kerker.tables.registry import load_registry

REGISTRY = load_registry([toy_procedure.TABLES])
RULES = toy_procedure.PROCEDURE.name


def test_the_toy_is_a_procedure() -> None:
    assert RULES in available_procedures()


def test_toy_dungeon_document_and_maps() -> None:
    made = 0
    for seed in range(30):
        params = Params(rules=RULES, seed=seed, max_areas=12, min_areas=0)
        dungeon = generate(params, REGISTRY)
        doc = document(dungeon, "de")
        assert json.loads(dumps_document(doc)) == doc
        assert doc["options"]["theme"] == "bones" and "entrance" not in doc["options"]
        kinds = {a["kind"]: a["title"] for lv in doc["levels"] for a in lv["areas"]}
        assert kinds["entrance"] == translator("de")("Entrance")
        for kind, title in kinds.items():
            assert title == {"crypt": "Crypt", "ossuary": "Ossuary"}.get(kind, title)
        for area in doc["levels"][0]["areas"]:
            if area["kind"] != "entrance":
                assert [r["table"] for r in area["rolls"]] == [
                    "toy-crypt/kammer",
                    "toy-crypt/inhalt",
                ]
                assert area["rolls"][0]["label"] == "Totenkammer"
                assert area["rolls"][0]["text"]
        made += len(doc["levels"][0]["areas"])
        views = render_views(doc, depth=1, lang="de", views=("gm", "player"))
        assert views["gm"].startswith("<svg") and views["player"].startswith("<svg")
        assert render_ascii(doc)
        gm, player = render_md(doc, lang="it"), render_md(doc, lang="it", view="player")
        if "ossuary" in kinds:
            assert "Ossuary" in gm and "Ossuary" not in player  # the players see a crypt
    assert made > 60


def test_toy_plays_lazily_like_the_others() -> None:
    for seed in range(50):
        params = Params(rules=RULES, seed=seed, max_areas=10, min_areas=0)
        state = start(params, REGISTRY)
        while (key := next_exit(state)) is not None:
            expand(state, key)
        assert snapshot(state) == generate(params, REGISTRY)


def test_toy_options_are_its_own() -> None:
    dust = document(
        generate(Params(rules=RULES, seed=1, options=(("theme", "dust"),)), REGISTRY), "en"
    )
    assert dust["options"]["theme"] == "dust"
    assert not [c for lv in dust["levels"] for a in lv["areas"] for c in a["contents"]]
    for bad, word in (
        (Params(rules=RULES, seed=1, options=(("theme", "mud"),)), "takes"),
        (Params(rules=RULES, seed=1, entrance="room"), "not an option"),
        (Params(seed=1, options=(("theme", "dust"),)), "not an option"),
    ):
        with pytest.raises(DungeonError, match=word) as err:
            generate(bad, REGISTRY)
        assert "--" not in str(err.value) and "\n" not in str(err.value)


def test_an_undeclared_kind_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A procedure that makes a kind it does not declare: a KerkerError, not a KeyError."""
    monkeypatch.setattr(toy_procedure.ToyCrypt, "kinds", (("crypt", "Crypt"),))
    dungeon = None
    for seed in range(40):
        dungeon = generate(Params(rules=RULES, seed=seed, min_areas=0), REGISTRY)
        if any(a.kind == "ossuary" for lv in dungeon.levels for a in lv.areas):
            break
    assert dungeon is not None
    with pytest.raises(ExportError) as err:
        document(dungeon, "en")
    assert isinstance(err.value, KerkerError) and "ossuary" in str(err.value)
