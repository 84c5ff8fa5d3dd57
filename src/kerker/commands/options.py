"""Options that several commands declare alike and ``kerker roll`` does not take, declared
once (each command keeps its own default): the dungeon generator's (``kerker dungeon`` and
``kerker play new``), ``--lang`` of the commands whose output follows the rule set,
``--out DIR`` of the generators and ``--tables`` of own table files.

A module of its own, not :mod:`kerker.cli_support`: ``kerker roll`` imports that one and
need not build these, and ``kerker play`` need not import :mod:`kerker.commands.dungeon` to
have the dungeon's options.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kerker.cli_support import cli_translate as _h
from kerker.errors import N_

RulesOption = Annotated[
    str,
    typer.Option(
        "--rules",
        help=_h(N_("The procedure: zufallslabyrinth (seed 000) or scatola-bianca (seed 001).")),
    ),
]
"""``--rules``: the procedure (default ``"zufallslabyrinth"`` at each command)."""
SeedOption = Annotated[
    int | None, typer.Option("--seed", help=_h(N_("Seed for a repeatable dungeon.")))
]
"""``--seed``: the dungeon's seed (None: a fresh one, printed or recorded)."""
LevelsOption = Annotated[
    int,
    typer.Option(
        "--levels",
        help=_h(N_("Number of levels (1-20); deeper levels start where stairs arrive.")),
    ),
]
"""``--levels``: how many levels (checked by the engine's parameters)."""
SizeOption = Annotated[
    str | None,
    typer.Option(
        "--size",
        metavar="WxH",
        help=_h(
            N_(
                "Width x height of a level in 10-ft squares (10x10 to 200x200); without it the "
                "sheet grows with the dungeon."
            )
        ),
    ),
]
"""``--size WxH``: read by :func:`kerker.commands.dungeon.parse_size`."""
MaxAreasOption = Annotated[
    int,
    typer.Option(
        "--max-areas",
        help=_h(
            N_(
                "At most this many areas per level (1-1000); exits still open beyond that "
                "stay unexplored."
            )
        ),
    ),
]
"""``--max-areas``: areas per level at most."""
MinAreasOption = Annotated[
    int,
    typer.Option(
        "--min-areas",
        help=_h(
            N_(
                "A dungeon whose first level has fewer areas is rolled again, up to 50 times "
                "(0-1000; 0 keeps the first roll)."
            )
        ),
    ),
]
"""``--min-areas``: the first level's fewest areas before the dungeon is rolled again."""
RuleSetLangOption = Annotated[
    str | None,
    typer.Option(
        "--lang",
        help=_h(N_("Language of the output: de, it or en (default: the rule set's language).")),
    ),
]
"""``--lang`` of a command whose output follows its rule set's language unless told."""
OutDirOption = Annotated[
    Path | None,
    typer.Option(
        "--out",
        metavar="DIR",
        help=_h(N_("Write the files to this folder (created if missing).")),
    ),
]
"""``--out DIR``: the folder a generator writes its files to."""
TablesOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--tables",
        help=_h(
            N_("A folder (or file) of your own tables; repeatable. Also read from KERKER_TABLES.")
        ),
    ),
]
"""``--tables``: folders or files of own tables (see :func:`kerker.cli_support.table_dirs`)."""
