"""The hand-written JSON writer of the dungeon documents (kerker.dungeon.export) against its
json-module fallback, on generated documents of both procedures and on odd hand-made ones,
and the fallback path itself (a value the writer leaves to the json module)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from kerker.dungeon import export
from kerker.dungeon.engine import Params, generate
from kerker.tables.registry import load_registry

REGISTRY = load_registry([])


def _both(doc: dict[str, Any]) -> tuple[str, str]:
    return export._write(doc, "", {}) + "\n", export._dumps_json(doc)


@pytest.mark.parametrize("rules", ["zufallslabyrinth", "scatola-bianca"])
def test_the_writer_and_the_json_module_write_the_same_bytes(rules: str) -> None:
    for seed in range(12):
        lang = ("de", "it", "en")[seed % 3]
        params = Params(rules=rules, seed=seed, size=(24, 30), max_areas=14, levels=1 + seed % 2)
        doc = export.to_document(generate(params, REGISTRY), lang)
        fast, slow = _both(doc)
        assert fast == slow, (rules, seed)
        assert export.dumps_document(doc) == fast
        assert json.loads(fast) == json.loads(json.dumps(doc))


ODD: list[Any] = [
    {},
    {"a": []},
    {"a": {}, "b": [[]], "c": [{}]},
    {"text": 'Fuß – città "quoted" \\ back \n new \t tab \x07 bel \x1b[2J \u2028 \U0001f3b2'},
    {"n": [0, -1, 2**70, 1.5, -0.0, 1e300, 3.0]},
    {"flat": [1, "x", None, True, False, 2.25], "cells": [[1, 2], [3, 4]]},
    {"mixed": [[1, 2], [1, "a"], [True, None]], "deep": [[[1]]], "list": [{"x": [1, 2]}]},
    {"unicode key ß": {"\x00": 1}},
]


@pytest.mark.parametrize("doc", ODD, ids=range(len(ODD)))
def test_odd_documents_are_written_the_same_either_way(doc: dict[str, Any]) -> None:
    fast, slow = _both(doc)
    assert fast == slow
    assert json.loads(fast) == doc


class _Dict(dict):  # type: ignore[type-arg]
    """A dict subclass: the writer leaves it to the json module."""


@pytest.mark.parametrize(
    "odd",
    [
        _Dict(a=1),
        {"inner": _Dict(b=[1, 2])},
        (1, 2),
        [1, (2, 3)],
    ],
    ids=["subclass", "nested-subclass", "tuple", "tuple-in-list"],
)
def test_the_fallback_writes_what_the_writer_would_for_plain_data(odd: Any) -> None:
    doc = {"kerker": "x", "odd": odd, "cells": [[1, 2], [3, 4]], "text": "ä"}
    with pytest.raises(export._Unusual):
        export._write(doc, "", {})
    text = export.dumps_document(doc)  # by way of the json module
    plain = json.loads(json.dumps(doc))
    assert json.loads(text) == plain
    assert text == export._write(plain, "", {}) + "\n"


@pytest.mark.parametrize("odd_text", ["\x000\x00", "\x000:0\x00", "\x000:1\x00\x001:0\x00"])
def test_the_fallback_keeps_a_text_that_looks_like_its_marks(odd_text: str) -> None:
    doc = {"cells": [[1, 2]], "odd": _Dict(), "text": odd_text}
    assert json.loads(export.dumps_document(doc)) == {
        "cells": [[1, 2]],
        "odd": {},
        "text": odd_text,
    }


def test_every_document_follows_one_json_convention() -> None:
    """Dungeons, zone maps and heists are written by one writer (kerker.jsonio): UTF-8
    letters as they are, two-space indent, flat lists on one line, a final newline, the
    version and format first (issue 18)."""
    import random

    from kerker.jsonio import dumps
    from kerker.prowl.export import dumps as prowl_dumps
    from kerker.prowl.generate import ProwlOptions
    from kerker.prowl.generate import generate as prowl_generate
    from kerker.zones.export import dumps as zones_dumps
    from kerker.zones.generate import ZoneParams
    from kerker.zones.generate import generate as zones_generate

    dungeon = export.to_document(generate(Params(seed=3, max_areas=8), REGISTRY), "de")
    zmap = zones_generate(ZoneParams(size=(4, 3), seed=2), random.Random(2), REGISTRY)
    plan = prowl_generate(ProwlOptions(3, 3), random.Random(5), registry=REGISTRY, seed=5)
    texts = [export.dumps_document(dungeon), zones_dumps(zmap, "de"), prowl_dumps(plan)]
    for text in texts:
        data = json.loads(text)
        assert text == dumps(data)  # the same writer, byte for byte
        assert text.endswith("}\n") and not text.endswith("\n\n")
        assert list(data)[:2] == ["kerker", "format"]
        assert text.splitlines()[1].startswith('  "kerker": ')
        assert "\\u00" not in text  # letters as they are (ä, ù), not escaped
        assert re.search(r"\[-?\d+, -?\d+\]", text)  # a flat pair on one line
