"""Hostile user text in every SVG and Markdown writer (issue 18): markup stays text, control
characters never make an SVG invalid XML, no Markdown viewer renders a tag of the user's.

Hostile strings go in where users put them: a heist plan's ids and texts (``prowl render``
of a plan file), zone tables of one's own (``--tables``), the shared kit's functions."""

from __future__ import annotations

import json
import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from kerker.prowl.export import from_json, to_json
from kerker.prowl.generate import ProwlOptions, generate
from kerker.prowl.render_md import render_markdown
from kerker.prowl.render_svg import render_svg as prowl_svg
from kerker.render.kit import md_code, md_text, visible, xml_attr, xml_text
from kerker.tables.registry import load_registry
from kerker.zones.generate import ZoneParams
from kerker.zones.generate import generate as zones_generate
from kerker.zones.render_md import render_md as zones_md
from kerker.zones.render_svg import render_svg as zones_svg

EVIL = "C1<script>alert(1)</script>\x07<img src=x onerror=alert(2)>*b*_i_ [l](j:x)|`c`\x1b[2J"
RULES = Path(__file__).parents[1] / "src" / "kerker" / "rules" / "zonenkarten"


def _no_markup(svg: str) -> None:
    root = ET.fromstring(svg)  # valid XML, control characters included
    tags = {el.tag.rsplit("}", 1)[-1] for el in root.iter()}
    assert "script" not in tags and "img" not in tags
    assert "\x07" not in svg and "\x1b" not in svg


def _md_safe(md: str) -> None:
    assert "<script" not in md and "<img" not in md
    assert "\x07" not in md and "\x1b" not in md
    assert not re.search(r"(?<!\\)\]\(j:x\)", md)  # no live link


def test_kit_escapes() -> None:
    assert xml_text("a<b>&\x07") == "a&lt;b&gt;&amp;␇"
    assert xml_attr("\"'") == "&quot;&#39;"
    assert visible("a\nb\tc\x00\x7f") == "a b c␀␡"
    ET.fromstring(f'<t a="{xml_attr(EVIL)}">{xml_text(EVIL)}</t>')
    assert md_text("# x") == "\\# x" and md_text("# x", lead=False) == "# x"
    assert md_text("1. x") == "1\\. x" and md_text("- x") == "\\- x"
    assert md_text("snake_case _em_ *b*") == "snake_case \\_em\\_ \\*b\\*"
    assert md_text("<img>&amp;") == "&lt;img>&amp;amp;"
    assert md_code("a`b") == "``a`b``" and md_code("`") == "`` ` ``"
    assert md_code("a|b", table=True) == "`a\\|b`"


@pytest.fixture(scope="module")
def hostile_plan() -> Any:
    plan = generate(ProwlOptions(reputation=5, players=4), random.Random(4), seed=4)
    data = json.loads(json.dumps(to_json(plan)))
    text = json.dumps(data)
    # Every room and challenge id, and every rule text, made hostile.
    for room in data["rooms"]:
        text = text.replace(f'"{room["id"]}"', json.dumps(room["id"] + EVIL))
    for ch in data.get("challenges", []):
        text = text.replace(f'"{ch["id"]}"', json.dumps(ch["id"] + EVIL))
    data = json.loads(text)
    for key, texts in data.get("texts", {}).items():
        data["texts"][key] = {code: value + EVIL for code, value in texts.items()}
    return from_json(data)


@pytest.mark.parametrize("lang", ["en", "de", "it"])
def test_prowl_plan_with_hostile_ids(hostile_plan: Any, lang: str) -> None:
    svg = prowl_svg(hostile_plan, lang)
    _no_markup(svg)
    assert "C1&lt;script&gt;" in svg  # drawn, as text
    md = render_markdown(hostile_plan, lang)
    _md_safe(md)
    assert "&lt;script>" in md


def test_zones_with_hostile_tables(tmp_path: Path) -> None:
    data = YAML(typ="safe").load((RULES / "fantasy.yaml").read_text(encoding="utf-8"))
    for table in data["tables"]:
        for row in table["rows"]:
            if isinstance(row.get("text"), dict):
                row["text"] = {
                    k: v + EVIL if isinstance(v, str) else v for k, v in row["text"].items()
                }
    with (tmp_path / "evil.yaml").open("w", encoding="utf-8") as out:
        YAML(typ="safe", pure=True).dump(data, out)
    registry = load_registry([tmp_path])
    zmap = zones_generate(ZoneParams(size=(5, 4), theme="fantasy"), random.Random(2), registry)
    for lang in ("en", "de", "it"):
        for view in ("gm", "player"):
            _no_markup(zones_svg(zmap, view=view, lang=lang))
        md = zones_md(zmap, lang)
        _md_safe(md)
        assert "␇" in md
