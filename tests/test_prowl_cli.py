"""``kerker prowl``: generate, odds, tune, render; JSON contract, files, one-line errors.

The commands are mounted on a small Typer app here, as ``kerker.cli`` mounts them
(``app.add_typer(prowl_app, name="prowl")``).
"""

from __future__ import annotations

import json
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from kerker.commands.prowl import prowl_app

app = typer.Typer()
app.add_typer(prowl_app, name="prowl")


@app.command("version")
def _version() -> None:
    """A second command, so that ``prowl`` stays a sub-command as in kerker."""


runner = CliRunner()


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["prowl", *args])
    return result.exit_code, result.stdout, result.stderr


def test_generate_prints_the_sheet_and_is_repeatable() -> None:
    code, out, err = invoke("-r", "4", "-p", "3", "--seed", "14", "--accesses", "3", "--lang", "en")
    assert code == 0, err
    assert out.startswith("# Prowl – seed 14")
    assert "## Fine-tuning" in out and "Budget 12 (reputation × entrances); 12 left." in out
    assert invoke("-r", "4", "-p", "3", "--seed", "14", "--accesses", "3", "--lang", "en")[1] == out


def test_json_contract() -> None:
    code, out, _ = invoke(
        "--reputation",
        "6",
        "--players",
        "2",
        "--accesses",
        "2",
        "--nosec",
        "1",
        "--seed",
        "5",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    for key in (
        "kerker",
        "seed",
        "reputation",
        "players",
        "factions",
        "attributes",
        "accesses",
        "branch_points",
        "rooms",
        "doors",
        "tuning",
        "rolls",
    ):
        assert key in data
    assert data["seed"] == 5 and data["accesses"] == 2 and data["reputation"] == 6
    assert data["structure"]["nosec_rooms"]["requested"] == 1
    assert data["tuning"] == {"budget": 12, "left": 12, "phase": "budget", "log": []}
    challenge = next(c for r in data["rooms"] for c in r["challenges"])
    assert {"level", "type", "subtype", "mode"} <= set(challenge)
    door = data["doors"][0]
    assert door["between"][0] == "outside" and {"id", "strength", "trap"} <= set(door)


def test_out_tune_in_place_with_backup_and_render(tmp_path: Path) -> None:
    folder = tmp_path / "heist"
    code, out, err = invoke(
        "-r",
        "4",
        "-p",
        "3",
        "--seed",
        "14",
        "--accesses",
        "3",
        "--out",
        str(folder),
        "--lang",
        "en",
    )
    assert code == 0, err
    names = sorted(p.name for p in folder.iterdir())
    sheet = ["prowl-14.en.pdf"] if find_spec("typst") is not None else []  # kerker[pdf]
    assert names == ["prowl-14.en.md", *sheet, "prowl-14.json", "prowl-14.png", "prowl-14.svg"]
    plan = folder / "prowl-14.json"
    before = plan.read_text("utf-8")
    code, out, err = invoke("tune", str(plan), "raise-room", "R3,", "patrol", "C2", "--lang", "en")
    assert code == 0, err
    assert "1. raise-room R3: cost 3, 9 left" in out
    assert "2. patrol C2: cost 0, 9 left" in out
    assert (folder / "prowl-14.json.bak").read_text("utf-8") == before
    # Map and sheet beside the plan follow the tuning (issue 17: they were left stale).
    from kerker.prowl.export import load_plan
    from kerker.prowl.render_md import render_markdown
    from kerker.prowl.render_svg import render_svg

    tuned = load_plan(plan)
    assert (folder / "prowl-14.en.md").read_text("utf-8") == render_markdown(tuned, "en")
    assert (folder / "prowl-14.svg").read_text("utf-8") == render_svg(tuned, "en")
    assert "`raise-room R3`" in (folder / "prowl-14.en.md").read_text("utf-8")
    assert f"written: {folder / 'prowl-14.png'}" in out
    if sheet:  # the PDF beside the plan is not left stale either
        assert f"written: {folder / 'prowl-14.en.pdf'}" in out
    data = json.loads(plan.read_text("utf-8"))
    assert [e["op"] for e in data["tuning"]["log"]] == ["raise-room R3", "patrol C2"]
    # --out leaves the plan alone.
    other = tmp_path / "other.json"
    code, _, _ = invoke("tune", str(plan), "finish", "--out", str(other))
    assert code == 0 and json.loads(other.read_text("utf-8"))["tuning"]["left"] == 0
    assert json.loads(plan.read_text("utf-8"))["tuning"]["left"] == 9
    # Render the tuned plan again.
    code, out, _ = invoke("render", str(plan), "--lang", "en")
    assert code == 0 and "`raise-room R3`" in out
    code, out, _ = invoke(
        "render", str(plan), "--out", str(tmp_path / "maps"), "--no-png", "--lang", "de"
    )
    assert code == 0
    assert sorted(p.name for p in (tmp_path / "maps").iterdir()) == [
        "prowl-14.de.md",
        *(["prowl-14.de.pdf"] if sheet else []),
        "prowl-14.svg",
    ]


def test_refused_operation_writes_nothing(tmp_path: Path) -> None:
    code, out, _ = invoke("-r", "4", "-p", "3", "--seed", "14", "--accesses", "3", "--json")
    plan = tmp_path / "plan.json"
    plan.write_text(out, encoding="utf-8")
    # C10 in the HiSec room R8 has level 8; the cap is 9.
    code, out, err = invoke(
        "tune", str(plan), "reinforce", "C10", "reinforce", "C10", "--lang", "en"
    )
    assert code == 2 and out == ""
    assert err.strip() == (
        "kerker: error: reinforce C10: C10 is already at the cap of 9 (Reputation + 5)"
    )
    assert plan.read_text("utf-8") != "" and not (tmp_path / "plan.json.bak").exists()
    assert json.loads(plan.read_text("utf-8"))["tuning"]["log"] == []


def test_one_line_errors() -> None:
    cases = [
        (("-p", "3"), "--reputation is needed"),
        (("-r", "3"), "--players is needed"),
        (("-r", "30", "-p", "3"), "the reputation must be between 1 and 20, not 30"),
        (("-r", "3", "-p", "3", "--accesses", "4"), "number of entrances must be between 1 and 3"),
        (("-r", "3", "-p", "3", "--reading", "pools"), "test is one of sum, successes"),
        (("-r", "3", "-p", "3", "--loops", "-1"), "the loops must be between 0 and 8"),
        (("-r", "3", "-p", "3", "--seed", "-1"), "the seed must be between"),
        (
            ("-r", "3", "-p", "3", "--factions", "/nonexistent/list.txt"),
            "cannot read the faction list",
        ),
        (("tune", "/nonexistent/plan.json", "finish"), "cannot read the plan"),
        (("tune", "/nonexistent/plan.json", "frobnicate"), "unknown operation 'frobnicate'"),
    ]
    for args, message in cases:
        code, _out, err = invoke(*args, "--lang", "en")
        assert code == 2, args
        assert len(err.strip().splitlines()) == 1 and message in err, (args, err)
        assert "Traceback" not in err


def test_bad_plan_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    code, _, err = invoke("tune", str(bad), "finish", "--lang", "en")
    assert code == 2 and "not JSON" in err
    bad.write_text('{"format": "something else"}', encoding="utf-8")
    code, _, err = invoke("tune", str(bad), "finish", "--lang", "en")
    assert code == 2 and "not a kerker prowl plan" in err
    code, out, _ = invoke("-r", "2", "-p", "2", "--seed", "1", "--json")
    data = json.loads(out)
    del data["rooms"][0]["depth"]
    bad.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = invoke("tune", str(bad), "finish", "--lang", "en")
    assert code == 2 and "plan.rooms[0]: 'depth' is missing" in err
    data = json.loads(out)
    data["doors"][0]["between"] = ["outside", "R99"]
    bad.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = invoke("tune", str(bad), "finish", "--lang", "en")
    assert code == 2 and "joins rooms that are not in the plan" in err


def test_odds() -> None:
    code, out, _ = invoke("--reputation", "3", "--odds", "--lang", "en")
    assert code == 0
    assert "HiSec rooms (3W6/12), mean 0.38" in out and "5/8" in out and "3/8" in out
    code, out, _ = invoke("--reputation", "3", "--odds", "--json")
    data = json.loads(out)
    assert data["mid_rooms"]["probabilities"] == {
        "0": "5/108",
        "1": "125/216",
        "2": "10/27",
        "3": "1/216",
    }
    assert data["lo_rooms"]["dice"] == "3W6kh1"


def test_own_faction_lists(tmp_path: Path) -> None:
    plain = tmp_path / "crew.txt"
    plain.write_text(
        "# our contacts\n+ Mara, the night guard\n- Kestrel Security\n- The Ninth Street gang\n",
        encoding="utf-8",
    )
    code, out, err = invoke(
        "-r", "10", "-p", "7", "--seed", "3", "--factions", str(plain), "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["lotto"]["source"] == "crew.txt" and data["lotto"]["gaps"] == "error"
    # 5 hostile factions wanted, 2 on the list: the list is the lotto, 2 entries drawn.
    assert len(data["factions"]) == 2
    assert len({f["key"] for f in data["factions"]}) == 2
    assert data["texts"]["lotto:faction_2"]["de"] == "Kestrel Security"
    code, out, _ = invoke(
        "-r", "2", "-p", "2", "--seed", "3", "--factions", str(plain), "--lang", "en"
    )
    assert "Kestrel Security" in out or "Ninth Street" in out
    table = tmp_path / "factions.yaml"
    table.write_text(
        "schema: 1\nrule_set: mine\nlanguage: en\ntables:\n  - name: factions\n"
        "    title: {en: Our lotto}\n    source: {heading: mine}\n    dice: W6\n    rows:\n"
        "      - {range: [1, 2], key: fixer, text: {en: Our fixer.},"
        " value: {stance: friendly}}\n"
        "      - {range: [3, 6], key: cops, text: {en: The cops.}, value: {stance: hostile}}\n",
        encoding="utf-8",
    )
    code, out, err = invoke("-r", "2", "-p", "2", "--seed", "3", "--factions", str(table), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["lotto"]["table"] == "mine/factions"
    assert [f["key"] for f in data["factions"]] in (["cops"], ["fixer"])
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("Mara\n", encoding="utf-8")
    code, _, err = invoke("-r", "2", "-p", "2", "--factions", str(wrong), "--lang", "en")
    assert code == 2 and "wrong.txt:1: start a faction with '+'" in err
    friends = tmp_path / "friends.txt"
    friends.write_text("+ Mara\n", encoding="utf-8")
    code, _, err = invoke("-r", "2", "-p", "2", "--factions", str(friends), "--lang", "en")
    assert code == 2 and "needs at least one hostile faction" in err


def test_help_texts_have_examples() -> None:
    for args in (("--help",), ("tune", "--help"), ("render", "--help")):
        code, out, _ = invoke(*args)
        assert code == 0
        flat = " ".join(out.split())
        assert "Example: kerker prowl" in flat or "Beispiel" in flat or "Esempio" in flat


def test_a_plan_with_absurd_counts_is_refused_in_one_line(tmp_path: Path) -> None:
    """Issue 18: a plan whose room had 10**6 accesses rendered an 1052 x 1 pixel PNG with
    exit 0; its numbers are checked on reading now."""
    from kerker.prowl.export import load_plan
    from kerker.prowl.model import PlanError

    plan = tmp_path / "plan.json"
    import random

    from kerker.prowl.export import to_json
    from kerker.prowl.generate import ProwlOptions, generate

    data = to_json(generate(ProwlOptions(3, 3), random.Random(4), seed=4))
    data["rooms"][0]["accesses"] = 10**6
    plan.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(PlanError, match=r"rooms\[0\]\.accesses: a whole number from 0 to 6"):
        load_plan(plan)


def test_png_is_sized_before_it_is_parsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The heist PNG (``--out`` and ``render``) passes the plan's size to svg_to_png, so a too
    large plan is refused before the SVG is read, as the dungeon and zone PNGs are."""
    import re

    import kerker.render.png as png

    real = png.svg_to_png
    seen: list[tuple[object, object, int, int]] = []

    def spy(svg: str, **kw: Any) -> bytes:
        head = re.search(r'width="(\d+)" height="(\d+)"', svg)
        assert head is not None
        seen.append((kw.get("width"), kw.get("height"), int(head[1]), int(head[2])))
        return real(svg, **kw)

    monkeypatch.setattr(png, "svg_to_png", spy)
    folder = tmp_path / "heist"
    code, _, err = invoke("-r", "4", "-p", "3", "--seed", "3", "--out", str(folder), "--lang", "de")
    assert code == 0, err
    assert (folder / "prowl-3.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = invoke("render", str(folder / "prowl-3.json"), "--out", str(tmp_path / "b"))
    assert code == 0, err
    from kerker.commands.prowl import _rerender  # what ``tune`` writes next to the plan
    from kerker.prowl.export import load_plan

    plan = folder / "prowl-3.json"
    assert folder / "prowl-3.png" in _rerender(load_plan(plan), plan, "it", png=True)
    assert len(seen) == 3
    assert all(w == sw and h == sh and sw > 0 for w, h, sw, sh in seen)
