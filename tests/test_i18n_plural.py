"""Issue 17, item 6: a count in running text takes its language's plural form ("1 Gebiet",
"2 Gebiete"; "1 area", "2 aree"), through gettext's ngettext: the extractor writes a
msgid_plural entry, the check finds a form left empty, the compiled catalog picks the form."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog

from kerker.dungeon.area_count import area_count_text
from kerker.i18n import plural_of, translator

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "i18n.py"


def _tooling() -> object:
    spec = importlib.util.spec_from_file_location("kerker_i18n_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("lang", "one", "two"),
    [
        ("de", "1 Gebiet (1 ohne Gänge)", "2 Gebiete (1 ohne Gänge)"),
        ("it", "1 area (1 senza corridoi)", "2 aree (1 senza corridoi)"),
        ("en", "1 area (1 not counting corridors)", "2 areas (1 not counting corridors)"),
    ],
)
def test_the_area_count_takes_the_singular_for_one(lang: str, one: str, two: str) -> None:
    _ = translator(lang)
    assert area_count_text([{"kind": "room"}], _) == one
    assert area_count_text([{"kind": "room"}, {"kind": "corridor"}], _) == two


def test_plural_forms_follow_the_catalog() -> None:
    ngettext = plural_of(translator("it"))
    shown = [ngettext("{n} unexplored exit", "{n} unexplored exits", n).format(n=n) for n in (1, 3)]
    assert shown == ["1 uscita inesplorata", "3 uscite inesplorate"]
    de = plural_of(translator("de"))
    assert de("kerker made {n} table roll.", "kerker made {n} table rolls.", 1).format(n=1) == (
        "kerker hat 1 Tabellenwurf gemacht."
    )


def test_the_tooling_extracts_and_checks_plural_entries() -> None:
    tool = _tooling()
    template = tool.extract()  # type: ignore[attr-defined]
    ids = {m.id for m in template if isinstance(m.id, tuple)}
    assert ("{n} unexplored exit", "{n} unexplored exits") in ids
    assert tool._translated(("a", "b", "c"), 3)  # type: ignore[attr-defined]
    assert not tool._translated(("a", "", "c"), 3)  # type: ignore[attr-defined]
    assert not tool._translated(("a", "b"), 3)  # type: ignore[attr-defined]
    catalog = Catalog(locale="it")
    catalog.add(("{n} x", "{n} xs"), ("{n} x", "", ""))
    assert not tool._translated(catalog.get("{n} x").string, catalog.num_plurals)  # type: ignore[attr-defined]
    assert tool.problems() == []  # type: ignore[attr-defined]
