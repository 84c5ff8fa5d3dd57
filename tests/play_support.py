"""Shared helpers of the play tests: the store backends to run against, a small session's
options and an own table file.

SQLite always; PostgreSQL at ``KERKER_TEST_PG`` (``scripts/pg_ci.sh start`` sets it). Without
a reachable server the PostgreSQL cases skip locally and FAIL under ``CI=true``.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kerker.play.store import Store, StoreError, open_store

PG_ENV = "KERKER_TEST_PG"


def pg_url() -> str:
    """The test server's URL, or skip (fail under CI) when there is none reachable."""
    url = os.environ.get(PG_ENV, "")
    problem = None
    if not url:
        problem = f"{PG_ENV} is not set (scripts/pg_ci.sh start sets it)"
    else:
        try:
            open_store(url).close()
        except StoreError as err:
            problem = str(err)
    if problem is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL needed under CI: {problem}")
        pytest.skip(problem)
    return url


def fresh_pg(url: str) -> str:
    """A URL of the test server with a schema of its own (search_path), so tests do not
    see each other's sessions."""
    import psycopg

    schema = "t_" + secrets.token_hex(6)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options=-csearch_path%3D{schema}"


BACKENDS = ("sqlite", "postgres")

OPTS = {"levels": 1, "size": [30, 40], "max_areas": 60, "min_areas": 10, "entrance": "variant"}
"""The dungeon options of a small one-level Zufallslabyrinth session (quick to fold)."""
WIDE = """schema: 1
rule_set: zufallslabyrinth
source_file: own
language: de
tables:
  - name: gangbreite
    title: {de: Gangbreite (eigene), it: Larghezza (propria), en: Width (own)}
    source: {heading: "eigene"}
    dice: W6
    rows:
      - range: [1, 6]
        key: width_20ft
        value: {width_ft: 20, outdoor_width_yd: 20}
        text: {de: Breite Gänge., it: Corridoi larghi., en: Wide corridors.}
"""
"""An own table file (``breit.yaml`` in the tests): the Zufallslabyrinth's corridor width
table replaced by one whose every roll gives 20-ft corridors, titled in de/it/en, so a
session or dungeon made with it differs from one without behind its first door."""


def store_url(backend: str, tmp_path: Path) -> str:
    """A fresh, empty store of ``backend``."""
    if backend == "sqlite":
        return str(tmp_path / "sessions.sqlite3")
    return fresh_pg(pg_url())


def stores(backend: str, tmp_path: Path) -> Iterator[Store]:
    """A fresh store, closed after the test."""
    store = open_store(store_url(backend, tmp_path))
    try:
        yield store
    finally:
        store.close()


def write_golden(folder: Path) -> list[Path]:
    """(Re)write the golden session logs of tests/golden/play: a session per procedure with
    every kind of event. Run deliberately (and say why in the commit) when a change of the
    engine or the rule data changes what a stored session replays to:
    ``PYTHONPATH=src python -c "from pathlib import Path; from tests.play_support import
    write_golden; write_golden(Path('tests/golden/play'))"``."""
    import json

    from kerker.play.api import Play, export
    from kerker.play.views import open_exit_list
    from kerker.tables.registry import load_registry

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    with open_store(folder / ".golden.sqlite3") as store:
        play = Play(store, load_registry())
        for rules, seed in (("zufallslabyrinth", 7), ("scatola-bianca", 3)):
            s = play.new(rules, seed, {"levels": 2}, name=f"golden {rules}")
            sid = s.info.id
            for _n in range(5):
                if open_exit_list(s, "gm"):
                    s = play.act(sid, "open", exit="next")
            s = play.act(sid, "undo")
            s = play.act(sid, "redo")
            s = play.act(sid, "reroll", exit="last")
            s = play.act(sid, "note", text="golden note", area=1)
            s = play.act(sid, "roll", expr="2d6+1")
            s = play.act(sid, "roll", expr="d20", entered=[12])
            s = play.act(sid, "check", value=12, modifier=-2, secret=True)
            s = play.act(sid, "reveal", area=2)
            s = play.act(sid, "hide", area=2)
            data = export(s)
            for key in ("session", "created", "updated"):
                data[key] = "golden"
            path = folder / f"{rules}-{seed}.json"
            path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
            written.append(path)
    for extra in folder.glob(".golden.sqlite3*"):
        extra.unlink()
    return written


def gm_only_texts(s: Any) -> set[str]:
    """Texts only the GM may know now: unfound secret doors' keys, unfound hidden
    treasure's texts and hiding places, traps not sprung and treasure traps."""
    from kerker.play.views import _visible

    out: set[str] = set()
    shown: set[str] = set()
    seen = _visible(s)
    for level in s.document()["levels"]:
        depth = level["depth"]
        for conn in level["connections"]:
            if conn["kind"] == "secret_door" and (depth, None, conn["key"]) not in s.revealed:
                out.add(f'"{conn["key"]}"')
        for area in level["areas"]:
            visible = (depth, area["number"]) in seen
            for i, c in enumerate(area["contents"]):
                m = f"{depth}:{area['number']}:{i}"
                if c["kind"] in ("trap", "trick"):
                    (shown if m in s.sprung and visible else out).update(
                        [c["text"], *c.get("details", ())]
                    )
                elif c["kind"] == "treasure":
                    hidden = bool(c.get("hidden")) and m not in s.found
                    (out if hidden or not visible else shown).update(
                        t for t in (c["text"], c.get("hidden")) if t
                    )
                    if c.get("trapped"):
                        (shown if m in s.sprung and visible else out).add(c["trapped"])
                elif visible and c.get("text"):
                    shown.add(c["text"])
    return {t for t in out if t not in shown and len(t) > 6}
