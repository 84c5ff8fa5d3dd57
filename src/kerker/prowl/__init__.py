"""Mazeprowl (seed 004): heist complexes from the crew's reputation.

``generate(ProwlOptions(reputation=4, players=3), rng)`` makes a frozen
:class:`~kerker.prowl.model.Prowl`; ``tune(prowl, parse_operations(words))`` applies
fine-tuning operations (a new prowl, or a :class:`~kerker.prowl.tuning.TuningError`);
``render_svg``, ``render_markdown`` and ``to_json`` / ``from_json`` are pure functions of a
prowl. See docs/prowl.md.
"""

from __future__ import annotations

from kerker.prowl.export import dumps, from_json, load_plan, to_json, write_outputs
from kerker.prowl.generate import (
    FactionList,
    ProwlOptions,
    generate,
    load_faction_list,
    structure_odds,
)
from kerker.prowl.model import LayoutError, PlanError, Prowl, ProwlError
from kerker.prowl.render_md import render_markdown
from kerker.prowl.render_svg import render_svg
from kerker.prowl.tuning import Operation, TuningError, apply, parse_operations, tune

__all__ = [
    "FactionList",
    "LayoutError",
    "Operation",
    "PlanError",
    "Prowl",
    "ProwlError",
    "ProwlOptions",
    "TuningError",
    "apply",
    "dumps",
    "from_json",
    "generate",
    "load_faction_list",
    "load_plan",
    "parse_operations",
    "render_markdown",
    "render_svg",
    "structure_odds",
    "to_json",
    "tune",
    "write_outputs",
]
