"""The journal as a play report: every bent roll said under its area, table texts kept on
their list item, and the terminal's plain rendering free of HTML tags and Markdown escapes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kerker.dungeon.bend_text import bend_line
from kerker.errors import KerkerError
from kerker.i18n import translator
from kerker.play.api import Play
from kerker.play.journal import journal_md, plain_text
from kerker.play.store import open_store
from kerker.tables.registry import load_registry

REGISTRY = load_registry()
ITEM = re.compile(r"^(\d+\. |\s+- |\s+<details>|\s+</details>|# |$)")


def _explored(tmp_path: Path, rules: str, seed: int) -> tuple[Play, object]:
    play = Play(open_store(tmp_path / f"{rules}-{seed}.sqlite3"), REGISTRY)
    state = play.new(rules, seed, {"levels": 1, "max_areas": 25})
    for _ in range(80):
        try:
            state = play.act(state.info.id, "open", expected=state.seq, exit="next")
        except KerkerError:  # nothing open any more ends the walk
            break
    return play, state


@pytest.mark.parametrize("rules", ["zufallslabyrinth", "scatola-bianca"])
@pytest.mark.parametrize("lang", ["de", "it", "en"])
def test_every_bend_is_told_under_its_area(tmp_path: Path, rules: str, lang: str) -> None:
    told = 0
    for seed in range(6):
        _play, state = _explored(tmp_path, rules, seed)
        md = journal_md(state, REGISTRY, lang, "gm")  # type: ignore[arg-type]
        _ = translator(lang)
        doc = state.document(lang)  # type: ignore[attr-defined]
        for level in doc["levels"]:
            for area in level["areas"]:
                for bend in area.get("bends") or ():
                    sentence = " ".join(bend_line(bend, _, lang).split())
                    assert sentence in md, (seed, area["number"], sentence)
                    told += 1
        # a table row's line breaks never end its list item
        steps = md.split("\n")[4:]  # after the title and the rule set's line
        for line in steps:
            assert ITEM.match(line), (seed, line)
    assert told > 0  # the seeds do bend something, so the check has bite


def test_the_terminal_journal_is_plain_text(tmp_path: Path) -> None:
    play, state = _explored(tmp_path, "zufallslabyrinth", 7)
    state = play.act(
        state.info.id, "note", expected=state.seq, text="Ratten <b>hier</b> & `dort` *2*"
    )
    md = journal_md(state, REGISTRY, "de", "gm")
    assert "<details>" in md and "\\<b\\>" in md  # the Markdown folds and escapes
    text = plain_text(md)
    assert "<details" not in text and "</details>" not in text and "<summary>" not in text
    assert "Würfe:" in text
    assert "Ratten <b>hier</b> & `dort` *2*" in text  # the note as it was written
    assert "\\" not in text and "&amp;" not in text and "~~" not in text


@pytest.mark.parametrize("lang", ["de", "it", "en"])
def test_the_journal_writes_an_arrow_where_it_shows_a_result(tmp_path: Path, lang: str) -> None:
    from kerker.play.journal import journal_lines

    play, state = _explored(tmp_path, "zufallslabyrinth", 7)
    sid = state.info.id
    state = play.act(sid, "roll", expr="3d6+1")
    state = play.act(sid, "table", table="zufallslabyrinth/schatz", level=3)
    md = journal_md(state, REGISTRY, lang, "gm")
    terminal = "\n".join(journal_lines(state, REGISTRY, lang, "gm", state.events))
    for text in (md, terminal):
        assert " -> " not in text and "->" not in text, lang
        assert " → [" in text, lang  # the roll: "3d6+1 → [2, 5, 1]+1 = 9"
