"""CSV import: separators, headers, range spellings, dice inference, round trip, errors."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kerker.dice import odds
from kerker.errors import OptionError, RuleDataError
from kerker.tables.csvimport import MAX_ROWS, import_csv, slug
from kerker.tables.engine import roll_table
from kerker.tables.lint import lint_paths
from kerker.tables.registry import Registry, load_path
from kerker.yamlio import load_yaml_text

BOOK_W20 = """W20;Ergebnis;Anmerkung
01-05;Leer;
6–10;Ein Monster, schlafend;zwei
11-19;"Schatz: 2W10 × 100 KM"
20+;Etwas Besonderes
"""


def _table(yaml_text: str) -> dict[str, object]:
    data = load_yaml_text(yaml_text, "test")
    (table,) = data["tables"]
    assert isinstance(table, dict)
    return table


def _rows(yaml_text: str) -> list[tuple[object, object]]:
    rows = _table(yaml_text)["rows"]
    assert isinstance(rows, list)
    return [(tuple(r["range"]), r["text"]) for r in rows]


def test_semicolon_file_with_header_reads_well() -> None:
    text = import_csv(
        BOOK_W20, name="Schatz Tabelle", heading="Schritt 3: Schatz", source_file="buch.csv"
    )
    assert text.startswith("# Imported by `kerker table import` from buch.csv.\n")
    assert "`kerker table lint` will ask for the it and en texts" in text
    assert "  - name: schatz-tabelle\n" in text
    assert '    title: {de: "Schritt 3: Schatz"}\n' in text
    assert "    dice: W20\n" in text
    assert "      - range: [1, 5]\n        text: {de: Leer}\n" in text
    assert "      - range: [20, null]\n" in text
    assert _rows(text) == [
        ((1, 5), {"de": "Leer"}),
        ((6, 10), {"de": "Ein Monster, schlafend; zwei"}),
        ((11, 19), {"de": "Schatz: {amount} KM"}),  # the dice became a rolled amount
        ((20, None), {"de": "Etwas Besonderes"}),
    ]
    assert _table(text)["rows"][2]["effects"] == [{"amount": "2W10 × 100"}]
    data = load_yaml_text(text, "test")
    assert data["source_file"] == "buch.csv" and data["rule_set"] == "custom"


def test_tab_file_without_header_w10_zero() -> None:
    text = import_csv("1-2\tA\n3-4\tB\n5-6\tC\n7-8\tD\n9-0\tE\n", name="zehn", lang="it")
    table = _table(text)
    assert table["dice"] == "W10"
    assert _rows(text)[-1] == ((9, 10), {"it": "E"})
    assert "Only Italian (it) text was given" in text


def test_comma_file_with_language_columns_and_percent() -> None:
    text = import_csv(
        'Wurf,de,EN\n01-50,Nichts,Nothing\n51-99,"Gold, viel","Gold, lots"\n00,true,yes\n',
        name="prozent",
    )
    assert _table(text)["dice"] == "W%"
    assert _rows(text) == [
        ((1, 50), {"de": "Nichts", "en": "Nothing"}),
        ((51, 99), {"de": "Gold, viel", "en": "Gold, lots"}),
        ((100, 100), {"de": "true", "en": "yes"}),
    ]
    assert "rows lack it text" in text


@pytest.mark.parametrize(
    ("lines", "dice"),
    [
        (["1-3;a", "4-6;b"], "W6"),
        (["1-4;a", "5-8;b", "9-12;c"], "W12"),
        (["01-50;a", "51-100;b"], "W%"),
        (["2-6;a", "7;b", "8-12;c"], "2W6"),
        (["3-10;a", "11-18;b"], "3W6"),
        (["11-36;a", "41-66;b"], "W66"),
        (["111-366;a", "411-666;b"], "W666"),
        (["1;a", "2;b", "3;c", "4;d"], "W4"),
        (["1-17;a", "18-19;b", "20+;c"], "W20"),
    ],
)
def test_dice_are_inferred(lines: list[str], dice: str) -> None:
    assert _table(import_csv("\n".join(lines), name="t"))["dice"] == dice


def test_dice_from_header_or_argument() -> None:
    assert _table(import_csv("Wurf (1d12);Text\n1-6;a\n7-12;b\n", name="t"))["dice"] == "1d12"
    assert _table(import_csv("1-6;a\n7-12;b\n", name="t", dice="2W6"))["dice"] == "2W6"


@pytest.mark.parametrize("spelling", ["1-4", "1–4", "1 — 4", "01 bis 04", "1 to 4", "1..4"])
def test_range_spellings(spelling: str) -> None:
    assert _rows(import_csv(f"{spelling};a\n5-6;b\n", name="t"))[0] == ((1, 4), {"de": "a"})


def test_round_trip_validates_lints_and_rolls(tmp_path: Path) -> None:
    path = tmp_path / "schatz.yaml"
    path.write_text(import_csv(BOOK_W20, name="schatz", source_file="buch.csv"), encoding="utf-8")
    (table,) = load_path(path, trusted=False)  # validated by the schema
    # The only problems are the missing languages the comment announced.
    problems = lint_paths([path])
    assert problems and all("has no text in it, en" in p.message for p in problems)
    assert table.dice is not None
    for total in odds(table.dice).counts:
        assert sum(row.covers(total) for row in table.rows) == 1
    registry = Registry({table.id: table})
    for seed in range(20):
        result, _log = roll_table(registry, table.id, random.Random(seed))
        assert result.key is None and result.row.text["de"]


def test_multiline_cells_keep_line_numbers() -> None:
    text = 'W6;Text\n1-3;"zwei\nZeilen"\n4-6;b\n7;c\n'
    with pytest.raises(RuleDataError) as err:
        import_csv(text.replace("7;c", "x;c"), name="t")
    assert err.value.line == 5
    assert _rows(import_csv(text, name="t", dice="W8"))[0] == ((1, 3), {"de": "zwei Zeilen"})


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("", 1, "the CSV is empty"),
        ("  \n\n", 1, "the CSV is empty"),
        ("W20;Text\n", 1, "a header but no rows"),
        ("1-5;a\n6-x;b\n", 2, "'6-x' is not a range"),
        ("1-5;a\n4-6;b\n", 2, "the range 4-6 overlaps 1-5 on line 1"),
        ("1-5;a\n8-10;c\n6+;b\n", 3, "the range 6+ overlaps 8-10 on line 2"),
        ("1-5;a\n6-4;b\n", 2, "the range 6-4 runs backwards"),
        ("1-5;a\n6-10;\n", 2, "the range '6-10' has no text"),
        ("Wurf;de;Notiz\n1-5;a;b\n", 1, "names languages and other columns"),
        ("1-7;a\n8-16;b\n", None, "cannot tell the die from the ranges 1-16"),
        ("1;" + "x" * 200_000 + "\n", 1, "this is not CSV"),
    ],
)
def test_errors_name_the_line(text: str, line: int | None, fragment: str) -> None:
    with pytest.raises(RuleDataError) as err:
        import_csv(text, name="t", source_file="buch.csv")
    assert err.value.line == line
    assert err.value.file == "buch.csv"
    assert fragment in str(err.value)
    expected_where = "buch.csv" if line is None else f"buch.csv:{line}"
    assert str(err.value).startswith(expected_where + ": ")


def test_too_many_rows() -> None:
    text = "\n".join(f"{i};x" for i in range(1, MAX_ROWS + 2))
    with pytest.raises(RuleDataError, match="more than 1000 rows") as err:
        import_csv(text, name="t", dice="W{2000}")
    assert err.value.line == MAX_ROWS + 1


def test_bad_options() -> None:
    with pytest.raises(OptionError):
        import_csv("1-6;a", name="t", lang="fr")
    with pytest.raises(OptionError):
        import_csv("1-6;a", name="!!!")
    with pytest.raises(OptionError):
        import_csv("1-6;a", name="t", dice="W")


def test_awkward_texts_are_quoted_and_read_back() -> None:
    texts = [
        "- Liste",
        "null",
        "12",
        "a: b",
        "# nein",
        "x #y",
        "[1]",
        "'q'",
        'say "hi"',
        "back\\slash",
        "Tür & Tor",
        "ja",
        "~",
        "%d",
        "@x",
        "1e3",
        "{level}",
    ]
    csv_text = "\n".join(f'{i};"{t.replace(chr(34), chr(34) * 2)}"' for i, t in enumerate(texts, 1))
    rows = _rows(import_csv(csv_text, name="t", dice=f"W{len(texts)}"))
    assert [r[1] for r in rows] == [{"de": t} for t in texts]


def test_slug() -> None:
    assert slug("Schatzbehälter (groß)") == "schatzbehaelter-gross"
    assert slug("Città_Sotterranea") == "citta_sotterranea"
    assert slug("***") == ""


@settings(max_examples=30)
@given(
    st.sampled_from([("W6", 6), ("W20", 20), ("W%", 100), ("W12", 12)]),
    st.lists(st.integers(1, 99), min_size=0, max_size=8, unique=True),
    st.sampled_from([";", "\t", ","]),
    st.booleans(),
)
def test_partitions_round_trip(
    die: tuple[str, int], cuts: list[int], sep: str, header: bool
) -> None:
    dice, faces = die
    bounds = sorted({c for c in cuts if 1 < c <= faces})
    starts = [1, *bounds]
    ends = [b - 1 for b in bounds] + [faces]
    lines = [f"{dice}{sep}Text"] if header else []
    lines += [
        f"{lo:02d}-{hi:02d}{sep}Zeile {i}"
        for i, (lo, hi) in enumerate(zip(starts, ends, strict=True))
    ]
    text = import_csv("\n".join(lines) + "\n", name="t")
    assert [r[0] for r in _rows(text)] == list(zip(starts, ends, strict=True))
    table = _table(text)
    assert table["dice"] == dice  # given in the header, or told from the ranges
