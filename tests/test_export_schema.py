"""The tabletop files against the field tables of docs/vtt.md: every field written is in a
table with its type, every field of a table is written; size caps; same input, same bytes;
escaping; the CLI's files and refusals."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner
from vtt_support import Grey, small_doc

import kerker.export.image as image_mod
from kerker.cli import app
from kerker.errors import OptionError
from kerker.export.files import VttOptions, vtt_files
from kerker.export.foundry import export_foundry
from kerker.export.image import MAX_SIDE, fit_ppg, pixel_limit
from kerker.export.uvtt import export_uvtt

DOCS = Path(__file__).resolve().parent.parent / "docs" / "vtt.md"
PPG = 20


def _table(heading: str) -> dict[str, str]:
    """The field table under ``heading`` in docs/vtt.md: field path -> type word(s)."""
    text = DOCS.read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n")
    rows: dict[str, str] = {}
    for line in text[start + 1 :].splitlines()[1:]:
        if line.startswith("#"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or cells[0] in ("Field", "---"):
            continue
        for name in re.findall(r"`([^`]+)`", cells[0]):
            rows[name.replace("[0]", "[]")] = cells[1]
    assert rows, heading
    return rows


def _is(value: Any, kind: str) -> bool:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    point = (
        isinstance(value, dict)
        and set(value) == {"x", "y"}
        and all(isinstance(v, int | float) for v in value.values())
    )
    checks = {
        "number": number,
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
        "string": isinstance(value, str),
        "object": isinstance(value, dict),
        "list": isinstance(value, list),
        "list of polylines": isinstance(value, list)
        and all(isinstance(line, list) and all(_is(p, "point") for p in line) for line in value),
        "point": point,
        "two points": isinstance(value, list)
        and len(value) == 2
        and all(_is(p, "point") for p in value),
        "4 integers": isinstance(value, list)
        and len(value) == 4
        and all(_is(v, "integer") for v in value),
        "": True,
    }
    return checks[kind]


def _walk(value: Any, table: dict[str, str], seen: set[str], path: str = "") -> None:
    """Every field of ``value`` is a row of ``table`` (a leaf there) with its type."""
    assert isinstance(value, dict), path
    for key, item in value.items():
        name = f"{path}.{key}" if path else key
        if name in table:
            assert _is(item, table[name]), (name, table[name], item)
            seen.add(name)
        elif isinstance(item, dict):
            _walk(item, table, seen, name)
        elif isinstance(item, list) and any(k.startswith(name + "[].") for k in table):
            for entry in item:
                _walk(entry, table, seen, name + "[]")
        else:
            raise AssertionError(f"{name} is written but not in docs/vtt.md")


@pytest.fixture(scope="module")
def docs() -> list[dict[str, Any]]:
    return [
        small_doc(rules, seed, (14, 14), levels=2, max_areas=20)
        for rules in ("zufallslabyrinth", "scatola-bianca")
        for seed in range(6)
    ]


def test_uvtt_fields_are_the_documented_ones(docs: list[dict[str, Any]]) -> None:
    table = _table("## Universal VTT fields")
    seen: set[str] = set()
    for doc in docs:
        text, _w = export_uvtt(doc, 1, ppg=PPG)
        data = json.loads(text)
        _walk(data, table, seen)
        assert data["format"] == 0.3 and data["resolution"]["map_origin"] == {"x": 0, "y": 0}
        assert data["environment"] == {"baked_lighting": True, "ambient_light": "ffffffff"}
    assert seen == set(table)


def test_foundry_fields_are_the_documented_ones(docs: list[dict[str, Any]]) -> None:
    scene_t, wall_t = _table("### Scene"), _table("### Wall")
    note_t, journal_t = _table("### Note"), _table("### JournalEntry and its pages")
    seen: dict[str, set[str]] = {"scene": set(), "wall": set(), "note": set(), "journal": set()}
    for k, doc in enumerate(docs):
        layout = "v14" if k % 2 else "v13"
        bundle = export_foundry(doc, 1, ppg=PPG, layout=layout)
        scene, journal = json.loads(bundle.scene), json.loads(bundle.journal)
        _walk(scene, scene_t, seen["scene"])
        for wall in scene["walls"]:
            _walk(wall, wall_t, seen["wall"])
        for note in scene["notes"]:
            _walk(note, note_t, seen["note"])
            assert note["entryId"] == journal["_id"]
            assert note["pageId"] in {p["_id"] for p in journal["pages"]}
        _walk(journal, journal_t, seen["journal"])
        assert scene["journal"] == journal["_id"] and scene["padding"] == 0
        assert scene["grid"] == {"type": 1, "size": PPG, "distance": 10, "units": "ft"}
        assert ("levels" in scene) == (layout == "v14") != ("background" in scene)
        src = (scene["levels"][0] if layout == "v14" else scene)["background"]["src"]
        assert src == f"kerker/{bundle.image_name}"
        # every area has its note and its page
        areas = doc["levels"][0]["areas"]
        assert len(journal["pages"]) == len(areas)
        assert {str(a["number"]) for a in areas} <= {n["text"] for n in scene["notes"]}
    assert seen == {
        "scene": set(scene_t),
        "wall": set(wall_t),
        "note": set(note_t),
        "journal": set(journal_t),
    }


def test_same_input_same_bytes(docs: list[dict[str, Any]]) -> None:
    doc = docs[0]
    assert export_uvtt(doc, 1, ppg=PPG) == export_uvtt(doc, 1, ppg=PPG)
    a, b = export_foundry(doc, 1, ppg=PPG), export_foundry(doc, 1, ppg=PPG)
    assert (a.scene, a.journal, a.image) == (b.scene, b.journal, b.image)


def test_journal_escapes_and_marks_what_only_the_gm_may_read(docs: list[dict[str, Any]]) -> None:
    doc = json.loads(json.dumps(docs[0]))
    area = doc["levels"][0]["areas"][0]
    area["contents"] = [
        {"kind": "note", "text": "<script>alert(1)</script> & co"},
        {"kind": "trap", "text": "Pit <b>", "gm_only": True},
    ]
    journal = json.loads(export_foundry(doc, 1, ppg=PPG).journal)
    page = next(p for p in journal["pages"] if p["name"].startswith(f"{area['number']}."))
    html = page["text"]["content"]
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in html
    public, _sep, secret = html.partition('<section class="secret">')
    assert "Pit &lt;b&gt;" in secret and "Pit" not in public


def test_size_caps() -> None:
    assert fit_ppg((30, 40), 100) == 100
    assert fit_ppg((206, 206), 100) == 30  # 40 megapixels of kerker's renderer
    assert fit_ppg((300, 10), 100) == MAX_SIDE // 300  # no side over 16 384 px
    for size in ((206, 206), (120, 150), (300, 10), (163, 163)):
        for ppg in (50, 70, 100):
            used = fit_ppg(size, ppg)
            assert used <= ppg and max(size) * used <= MAX_SIDE
            assert size[0] * size[1] * used * used <= pixel_limit() < 144_000_000
    with pytest.raises(OptionError):
        fit_ppg((2000, 2000), 100)
    with pytest.raises(OptionError):
        fit_ppg((10, 10), 5)


def test_a_capped_level_is_drawn_smaller_with_a_warning(
    docs: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(image_mod, "MAX_SIDE", 200)  # a small cap, for a small picture
    text, warnings = export_uvtt(docs[0], 1, ppg=50, lang="de")
    data = json.loads(text)
    used, size = data["resolution"]["pixels_per_grid"], data["resolution"]["map_size"]
    assert used == 200 // max(size["x"], size["y"]) < 50
    assert len(warnings) == 1 and f"{used} px" in warnings[0] and "50" in warnings[0]
    grey = Grey(base64.b64decode(data["image"]))
    assert (grey.width, grey.height) == (size["x"] * used, size["y"] * used)


def test_webp_and_gm_pictures(docs: list[dict[str, Any]]) -> None:
    files = vtt_files(
        docs[0], Path("out"), ["uvtt", "foundry"], VttOptions(ppg=50, gm=True, webp=True), "en"
    )
    names = [p.name for p, _d in files]
    assert names[:4] == [
        "zufallslabyrinth-0-level1.dd2vtt",
        "zufallslabyrinth-0-level1-foundry-scene.json",
        "zufallslabyrinth-0-level1-foundry-journal.json",
        "zufallslabyrinth-0-level1-foundry.webp",
    ]
    data = json.loads(files[0][1])
    raw = base64.b64decode(data["image"])
    assert raw[:4] == b"RIFF" and raw[8:12] == b"WEBP"
    assert files[3][1] == raw  # one picture for both
    # the game master's picture has the area numbers; the players' has none
    player = json.loads(export_uvtt(docs[0], 1, ppg=50)[0])
    assert player["image"] != export_uvtt(docs[0], 1, ppg=50, view="gm")[0]


def test_bad_options_are_refused(docs: list[dict[str, Any]]) -> None:
    with pytest.raises(OptionError):
        export_uvtt(docs[0], 9, ppg=PPG)
    with pytest.raises(OptionError):
        export_uvtt(docs[0], 1, ppg=PPG, image_format="gif")
    with pytest.raises(OptionError):
        export_foundry(docs[0], 1, ppg=PPG, layout="v12")
    with pytest.raises(OptionError):
        export_uvtt(docs[0], 1, ppg=PPG, view="dm")


def test_cli_writes_the_tabletop_files(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "dungeon",
            "--seed",
            "3",
            "--size",
            "12x12",
            "--levels",
            "2",
            "--out",
            str(tmp_path),
            "--format",
            "uvtt,foundry",
            "--ppg",
            "50",
            "--lang",
            "en",
        ],
    )
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in tmp_path.iterdir())
    levels = 1 + any(name.startswith("zufallslabyrinth-3-level2") for name in written)
    assert len(written) == 4 * levels and "zufallslabyrinth-3-level1.dd2vtt" in written
    data = json.loads((tmp_path / "zufallslabyrinth-3-level1.dd2vtt").read_text(encoding="utf-8"))
    assert data["resolution"]["pixels_per_grid"] == 50
    for args in (["--ppg", "60"], ["--foundry-layout", "v12"], ["--format", "png", "--gm"]):
        argv = ["dungeon", "--seed", "3", "--out", str(tmp_path / "x")]
        if "--format" not in args:
            argv += ["--format", "uvtt"]
        bad = runner.invoke(app, argv + args)
        assert bad.exit_code == 2, (args, bad.output)
        assert len(bad.output.strip().splitlines()) == 1 and "Traceback" not in bad.output
