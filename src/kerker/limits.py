"""Caps on everything that can grow, injected as one object.

Every parser, roller and analyser takes a :class:`Limits`; the defaults are generous for
the table but keep every input answered quickly (a clear error instead of a hang).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps for dice expressions (later: placement retries, areas per level, ...).

    - ``max_length``: characters in one expression.
    - ``max_digits``: digits in one number literal.
    - ``max_depth``: nesting of parentheses, unary signs and function calls.
    - ``max_terms``: operators and operands in one expression.
    - ``max_dice_per_term``: dice in one ``NdX`` term (after a computed count too).
    - ``max_dice_per_roll``: physical dice thrown in one roll, rerolls and explosions included.
    - ``max_faces``: faces of one die.
    - ``max_explode_depth``: extra dice one die may add by exploding; the last one does not
      explode again. Rolls and exact odds obey the same cap, so they describe the same dice.
    - ``max_rerolls``: rerolls of one die under ``r``; past it the die is drawn directly
      from the faces that need no reroll (same odds as rerolling on and on).
    - ``max_outcomes``: distinct outcomes in an exact distribution.
    - ``max_odds_work``: elementary steps (multiply-adds) an exact analysis may take; a step
      on counts of b bits costs ``1 + b // 256`` (about 2 s of work on a laptop core).
    - ``max_odds_bits``: size of the exact counts (bits of the common denominator); keeps
      every probability printable (Python refuses to print integers over 4 300 digits).
    """

    max_length: int = 1000
    max_digits: int = 9
    max_depth: int = 40
    max_terms: int = 200
    max_dice_per_term: int = 1000
    max_dice_per_roll: int = 10_000
    max_faces: int = 10_000
    max_explode_depth: int = 20
    max_rerolls: int = 100
    max_outcomes: int = 100_000
    max_odds_work: int = 30_000_000
    max_odds_bits: int = 4_096
    zones: ZoneLimits = field(default_factory=lambda: ZoneLimits())
    prowl: ProwlLimits = field(default_factory=lambda: ProwlLimits())


@dataclass(frozen=True, slots=True)
class ZoneLimits:
    """Caps of the zone-map generator (seed 002).

    - ``max_side``: width and height of a map in nodes.
    - ``max_senses``: sense prompts per area.
    - ``max_sense_tries``: rolls spent on one sense prompt to avoid a sense already described.
    - ``max_name_tries``: rolls spent on one name to avoid a name already given (W20, one
      name left: fails once in 28 000 maps).
    - ``max_layout_tries``: layouts rolled at most to reach ``--min-areas``.
    """

    max_side: int = 20
    max_senses: int = 4
    max_sense_tries: int = 20
    max_name_tries: int = 200
    max_layout_tries: int = 200


@dataclass(frozen=True, slots=True)
class ProwlLimits:
    """Caps of the heist generator (seed 004).

    - ``max_junctions``: junctions of one layout.
    - ``layout_attempts``: shapes tried with one number of rooms before a NoSec room is
      added.
    - ``max_faction_file`` / ``max_faction_text``: bytes of a ``--factions`` file,
      characters of one faction line.
    - ``max_plan_bytes``: size of a plan file read by ``prowl tune``/``render``.
    """

    max_junctions: int = 6
    layout_attempts: int = 40
    max_faction_file: int = 256_000
    max_faction_text: int = 300
    max_plan_bytes: int = 20_000_000


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True, slots=True)
class DungeonLimits:
    """Caps of the dungeon generator (:mod:`kerker.dungeon.engine`), injected into
    ``generate``/``start``; a procedure reads the ones it uses from ``state.limits``.

    - ``max_levels``: levels of one dungeon.
    - ``min_size`` / ``max_size``: squares across or down of an explicit sheet.
    - ``max_areas``: the highest per-level area budget a caller may ask for.
    - ``max_level_tries``: rolls of level 1 when it stays below ``min_areas`` (then the
      largest roll is kept).
    - ``max_arrivals``: ways from other levels one level takes (each arrival adds areas even
      on a full level; past the cap a way stays unexplored).
    - ``max_spot_tries``: random spots tried for an arrival on a crowded level.
    - ``max_corridor_rolls``: corridor/passage rolls of one corridor before it goes on as
      an open exit (a procedure's walk of periodic checks).
    - ``max_size_rerolls``: times a room's size is rolled again when the roll does not fit
      (seed 000 "resize or reroll"; then the first roll is made smaller).
    - ``max_door_offsets``: places along its door wall an area is tried at.
    - ``max_turn_rolls``: turns rolled for one stretch of a corridor that keeps meeting
      rock or another area (Scatola Bianca's A.4); then the corridor ends.
    """

    max_levels: int = 20
    min_size: int = 10
    max_size: int = 200
    max_areas: int = 1_000
    max_level_tries: int = 50
    max_arrivals: int = 100
    max_spot_tries: int = 200
    max_corridor_rolls: int = 30
    max_size_rerolls: int = 2
    max_door_offsets: int = 16
    max_turn_rolls: int = 3


DEFAULT_DUNGEON_LIMITS = DungeonLimits()
