"""Digests of generated maps and documents for fixed seeds: both dungeon procedures (JSON,
SVG of both views, Markdown and HTML keys), zone maps and heists.

The speed work claims "byte-identical" again and again; these digests hold it to that. The
full goldens of zones and heists live beside (tests/golden/zones_*, prowl_*); this file
guards every generator's outputs in one place, as SHA-256 digests and sizes in
``tests/golden/outputs.sha256.json``.

When a change alters an output on purpose (another branch merged, a fixed bug), rewrite
every golden of the suite with one command and say why in the commit::

    KERKER_UPDATE_GOLDEN=1 pytest tests/

Under ``CI=true`` a missing digest fails (CI never blesses its own output).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable

import pytest
from conftest import GOLDEN, in_ci, updating_golden

from kerker.dungeon.engine import Params
from kerker.dungeon.engine import generate as dungeon_generate
from kerker.dungeon.export import dumps_document, to_document
from kerker.dungeon.render_key import render_html, render_md
from kerker.dungeon.render_svg import render_svg
from kerker.prowl.export import dumps as prowl_dumps
from kerker.prowl.generate import ProwlOptions
from kerker.prowl.generate import generate as prowl_generate
from kerker.prowl.render_md import render_markdown
from kerker.prowl.render_svg import render_svg as prowl_svg
from kerker.tables.registry import load_registry
from kerker.zones import ZoneParams
from kerker.zones import generate as zones_generate
from kerker.zones.export import dumps as zones_dumps
from kerker.zones.render_md import render_md as zones_md
from kerker.zones.render_svg import render_svg as zones_svg

DIGESTS = GOLDEN / "outputs.sha256.json"
REGISTRY = load_registry([])


def _dungeon(rules: str, seed: int, lang: str, levels: int) -> dict[str, str]:
    params = Params(rules=rules, seed=seed, size=(30, 36), max_areas=24, levels=levels)
    doc = to_document(dungeon_generate(params, REGISTRY), lang)
    out = {
        "json": dumps_document(doc),
        "md": render_md(doc, lang=lang),
        "html": render_html(doc, lang=lang),
    }
    for level in doc["levels"]:  # as many as the dungeon reached
        depth = int(level["depth"])
        for view in ("gm", "player"):
            out[f"level{depth}.{view}.svg"] = render_svg(doc, depth=depth, view=view, lang=lang)
    return out


def _zones(seed: int, theme: str, lang: str) -> dict[str, str]:
    zmap = zones_generate(ZoneParams(seed=seed, theme=theme), random.Random(seed), REGISTRY)
    return {
        "json": zones_dumps(zmap, lang),
        "gm.svg": zones_svg(zmap, view="gm", lang=lang),
        "player.svg": zones_svg(zmap, view="player", lang=lang),
        "md": zones_md(zmap, lang),
    }


def _prowl(seed: int, reputation: int, players: int, lang: str) -> dict[str, str]:
    plan = prowl_generate(
        ProwlOptions(reputation, players), random.Random(seed), registry=REGISTRY, seed=seed
    )
    return {
        "json": prowl_dumps(plan),
        "svg": prowl_svg(plan, lang),
        "md": render_markdown(plan, lang),
    }


CASES: dict[str, Callable[[], dict[str, str]]] = {
    "dungeon-zufallslabyrinth-3-de": lambda: _dungeon("zufallslabyrinth", 3, "de", 2),
    "dungeon-zufallslabyrinth-17-en": lambda: _dungeon("zufallslabyrinth", 17, "en", 1),
    "dungeon-scatola-bianca-4-it": lambda: _dungeon("scatola-bianca", 4, "it", 2),
    "dungeon-scatola-bianca-29-en": lambda: _dungeon("scatola-bianca", 29, "en", 1),
    "zones-8-fantasy-de": lambda: _zones(8, "fantasy", "de"),
    "zones-21-scifi-it": lambda: _zones(21, "scifi", "it"),
    "prowl-9-en": lambda: _prowl(9, 6, 4, "en"),
    "prowl-31-de": lambda: _prowl(31, 12, 5, "de"),
}


def _stored() -> dict[str, dict[str, object]]:
    if not DIGESTS.exists():
        return {}
    data: dict[str, dict[str, object]] = json.loads(DIGESTS.read_text(encoding="utf-8"))
    return data


def _digest(text: str) -> dict[str, object]:
    raw = text.encode("utf-8")
    return {"sha256": hashlib.sha256(raw).hexdigest(), "bytes": len(raw)}


@pytest.mark.parametrize("case", sorted(CASES))
def test_generated_outputs_match_their_digests(case: str) -> None:
    got = {f"{case}/{name}": _digest(text) for name, text in sorted(CASES[case]().items())}
    stored = _stored()
    if updating_golden():
        stored = {k: v for k, v in stored.items() if not k.startswith(case + "/")} | got
        DIGESTS.write_text(
            json.dumps(dict(sorted(stored.items())), indent=1) + "\n",
            encoding="utf-8",
            newline="\n",
        )
        return
    missing = sorted(set(got) - set(stored))
    if missing:
        if in_ci():
            pytest.fail(
                f"no golden digest for {missing}; run KERKER_UPDATE_GOLDEN=1 pytest "
                "locally and commit tests/golden/outputs.sha256.json",
                pytrace=False,
            )
        pytest.fail(
            f"no golden digest for {missing}; run KERKER_UPDATE_GOLDEN=1 pytest "
            "tests/test_golden_outputs.py and commit the file",
            pytrace=False,
        )
    changed = [name for name in got if got[name] != stored[name]]
    assert not changed, (
        f"outputs changed for {changed}; if on purpose, KERKER_UPDATE_GOLDEN=1 pytest and "
        "say why in the commit"
    )
    stale = sorted(k for k in stored if k.startswith(case + "/") and k not in got)
    assert not stale, f"digests without an output: {stale}"


_UNDER_HASH_SEED = """
import json, sys
sys.path.insert(0, sys.argv[1])
import test_golden_outputs as t
out = {}
for case in sys.argv[2:]:
    out.update({f"{case}/{k}": t._digest(v) for k, v in t.CASES[case]().items()})
print(json.dumps(out, sort_keys=True))
"""


def test_outputs_do_not_depend_on_the_hash_seed() -> None:
    # Cheaper than a second run of the whole suite under PYTHONHASHSEED=random: the key
    # generators run in two fresh processes with different string hashes (set iteration
    # order differs) and must write the same bytes.
    import os
    import subprocess
    import sys
    from pathlib import Path

    cases = [
        "dungeon-zufallslabyrinth-3-de",
        "dungeon-scatola-bianca-4-it",
        "zones-8-fantasy-de",
        "prowl-9-en",
    ]
    here = str(Path(__file__).parent)
    results = []
    for hash_seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", _UNDER_HASH_SEED, here, *cases],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        results.append(json.loads(done.stdout))
    assert results[0] == results[1]
    in_process = {f"{c}/{k}": _digest(v) for c in cases for k, v in CASES[c]().items()}
    assert results[0] == in_process
