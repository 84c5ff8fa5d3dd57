"""Zonenkarten (seed 002): zone maps with lettered areas, connections and hidden links.

>>> import random
>>> from kerker.tables.registry import load_registry
>>> zmap = generate(ZoneParams(size=(3, 3), seed=1), random.Random(1), load_registry())
>>> (zmap.width, zmap.height), all(area.letter for area in zmap.areas)
((3, 3), True)

- :func:`generate` (procedure) -> :class:`ZoneMap` (model, frozen);
- :func:`~kerker.zones.render_svg.render_svg` / :func:`~kerker.zones.render_svg.render_png`
  (game master's or players' map), :func:`~kerker.zones.render_md.render_md` (sheet),
  :func:`~kerker.zones.render_text.summary` (terminal), :func:`~kerker.zones.export.to_json`.

The procedure, every reading of the seed and the JSON format: docs/zones.md.
"""

from __future__ import annotations

from kerker.zones.generate import ZoneError, ZoneParams, generate, parse_size, themes
from kerker.zones.model import Area, AreaDetails, Connection, Detail, Merge, ZoneMap

__all__ = [
    "Area",
    "AreaDetails",
    "Connection",
    "Detail",
    "Merge",
    "ZoneError",
    "ZoneMap",
    "ZoneParams",
    "generate",
    "parse_size",
    "themes",
]
