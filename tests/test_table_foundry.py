"""Foundry VTT export: document structure, formulas, ranges, weights, refusals."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from kerker.dice import odds
from kerker.errors import KerkerError, OptionError
from kerker.tables.foundry import export_table, foundry_formula, to_foundry
from kerker.tables.model import Table
from kerker.tables.registry import Registry, TableError, load_path, shipped_paths

FIXTURE = Path(__file__).parent / "fixtures" / "tables" / "foundry.yaml"
RESULT_KEYS = [
    "_id",
    "type",
    "name",
    "text",
    "description",
    "img",
    "weight",
    "range",
    "drawn",
    "flags",
]
TABLE_KEYS = [
    "_id",
    "name",
    "img",
    "description",
    "formula",
    "replacement",
    "displayRoll",
    "results",
    "flags",
]


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry({t.id: t for t in load_path(FIXTURE, trusted=False)})


def _doc(registry: Registry, name: str, lang: str = "en") -> dict[str, object]:
    return to_foundry(registry.get(f"fx/{name}"), lang)


def test_document_structure_and_field_names(registry: Registry) -> None:
    doc = _doc(registry, "zwei-w6", "de")
    assert list(doc) == TABLE_KEYS
    assert doc["name"] == "Zwei W6"
    assert doc["img"] == "icons/svg/d20-grey.svg"
    assert doc["replacement"] is True and doc["displayRoll"] is True
    assert doc["formula"] == "2d6"
    description = str(doc["description"])
    assert "000_fixture.txt" in description and "Tabelle 2W6" in description
    assert "13+ only with the guard" in description
    assert "guarded = false" in description
    results = doc["results"]
    assert isinstance(results, list) and len(results) == 4
    for result in results:
        assert list(result) == RESULT_KEYS
        assert result["type"] == "text" and result["drawn"] is False
        assert result["img"] == "icons/svg/d20-black.svg"
        assert re.fullmatch(r"[A-Za-z0-9]{16}", result["_id"])
        assert result["text"] == result["name"]
    assert len({r["_id"] for r in results} | {doc["_id"]}) == 5
    flags = doc["flags"]
    assert isinstance(flags, dict)
    assert flags["kerker"]["id"] == "fx/zwei-w6"
    assert flags["kerker"]["params"] == {"guarded": False}


def test_ranges_weights_and_open_ended_rows(registry: Registry) -> None:
    doc = _doc(registry, "zwei-w6")
    results = doc["results"]
    assert isinstance(results, list)
    # 13+ ends where the die ends with the largest modifier (12 + 1 when guarded).
    assert [r["range"] for r in results] == [[2, 6], [7, 7], [8, 12], [13, 13]]
    # Weights are the rows' shares of the 36 outcomes of 2W6 (with the default modifier 0).
    assert [r["weight"] for r in results] == [15, 6, 15, 1]
    dist = odds("2W6")
    assert Fraction(6, 36) == dist.probability(7)


def test_texts_inline_rolls_html_and_flags(registry: Registry) -> None:
    results = _doc(registry, "zwei-w6", "de")["results"]
    assert isinstance(results, list)
    low, seven, high, _top = results
    assert low["name"] == "Wenig & <klein>."
    assert low["description"] == "<p>Wenig &amp; &lt;klein&gt;.</p>"
    assert "Würfle auf fx/beutel ([[/r 1d3]]×)" in seven["description"]  # German export
    assert high["name"] == "[[/r 2d6*10]] Dinge"  # the 'other' form, level 1
    assert "Stück" not in high["description"]  # the amount is in the text already
    kerker = high["flags"]["kerker"]
    assert kerker["key"] == "high" and kerker["row"] == "8-12"
    assert kerker["effects"] == [
        {
            "type": "amount",
            "amount": "{2 * level}W6 × 10",
            "name": "amount",
            "unit": {"de": "Stück", "it": "pezzi", "en": "pieces"},
        }
    ]
    json.dumps(results)  # JSON-safe


def test_weighted_table(registry: Registry) -> None:
    doc = _doc(registry, "beutel")
    assert doc["formula"] == "1d4"
    results = doc["results"]
    assert isinstance(results, list)
    assert [(r["range"], r["weight"]) for r in results] == [([1, 3], 3), ([4, 4], 1)]
    assert results[1]["flags"]["kerker"]["value"] == {"coins": 12}


def test_percent_table(registry: Registry) -> None:
    doc = _doc(registry, "prozent")
    assert doc["formula"] == "1d100"
    results = doc["results"]
    assert isinstance(results, list)
    assert [r["range"] for r in results] == [[1, 95], [96, 100]]


def test_lookup_tables_and_unsayable_dice_are_refused(registry: Registry) -> None:
    with pytest.raises(TableError, match="a lookup table cannot be exported as a roll table"):
        _doc(registry, "worte")
    with pytest.raises(TableError, match="Foundry has no negative faces"):
        _doc(registry, "fudge")
    with pytest.raises(OptionError):
        _doc(registry, "beutel", "fr")


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        ("W20", "1d20"),
        ("2W10 × 100", "2d10*100"),
        ("2W10x100", "2d10*100"),
        ("W%", "1d100"),
        ("W66", "(1d6*10+1d6)"),
        ("W666", "(1d6*100+1d6*10+1d6)"),
        ("2W66", "((1d6*10+1d6)+(1d6*10+1d6))"),
        ("W{66}", "1d66"),
        ("4W6kh3", "4d6kh3"),
        ("3W6!", "3d6x"),
        ("3W6!>=5", "3d6x>=5"),
        ("2W6r1", "2d6rr1"),
        ("2W6ro<2", "2d6r<2"),
        ("6W6>=5", "6d6cs>=5"),
        ("(W4)W6", "(1d4)d6"),
        ("max(W20, W20)", "max(1d20,1d20)"),
        ("W6/2", "floor(1d6/2)"),
        ("10-W6", "10-1d6"),
        ("4WF", "4dF"),
    ],
)
def test_formulas(ours: str, theirs: str) -> None:
    assert foundry_formula(ours) == theirs


def test_formula_refusals() -> None:
    with pytest.raises(TableError, match="digit die"):
        foundry_formula("2W66kh1")
    with pytest.raises(KerkerError):
        foundry_formula("W")


def test_export_table_json_is_stable(registry: Registry) -> None:
    text = export_table(registry, "fx/zwei-w6", lang="it")
    assert text == export_table(registry, "fx/zwei-w6", "foundry", lang="it")
    assert text.endswith("\n")
    assert json.loads(text)["name"] == "Due d6"
    german = export_table(registry, "fx/zwei-w6")  # the table's own language
    assert '"Stück"' in german  # ensure_ascii=False
    with pytest.raises(TableError, match="unknown export format"):
        export_table(registry, "fx/zwei-w6", "roll20")
    with pytest.raises(TableError, match="no table"):
        export_table(registry, "fx/nope")


def _shipped_tables() -> list[Table]:
    tables: list[Table] = []
    for path in shipped_paths():
        try:
            tables += load_path(path, trusted=False)
        except KerkerError:
            continue  # the shipped data is being written; the linter reports it
    return tables


def test_shipped_tables_export_or_refuse_clearly() -> None:
    for table in _shipped_tables():
        try:
            doc = to_foundry(table, "en")
        except TableError:
            continue
        for result in doc["results"]:
            lo, hi = result["range"]
            assert lo <= hi and result["weight"] >= 1
        json.dumps(doc, ensure_ascii=False)
