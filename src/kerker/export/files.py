"""The tabletop files of a dungeon, level by level: what ``kerker dungeon --format
uvtt,foundry`` writes (docs/vtt.md)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kerker.export.image import PPG_DEFAULT, fit_ppg, picture, scale_warning
from kerker.export.walls import level_depths, level_walls
from kerker.i18n import translator

VTT_FORMATS = ("uvtt", "foundry")


@dataclass(frozen=True)
class VttOptions:
    """How the tabletop files are made: pixels per 10-ft square, the game master's
    picture (``gm``) instead of the players', WebP instead of PNG, Foundry's layout."""

    ppg: int = PPG_DEFAULT
    gm: bool = False
    webp: bool = False
    foundry_layout: str = "v13"


def level_stem(out: Path, rules: object, seed: object, depth: int) -> Path:
    """The file name (without suffix) of a level's files, as the maps name them
    (``RULES-SEED-levelN``)."""
    return out / f"{rules}-{seed}-level{depth}"


def vtt_files(
    doc: Mapping[str, Any],
    out: Path,
    formats: list[str],
    options: VttOptions,
    lang: str,
    warn: Callable[[str], None] | None = None,
) -> list[tuple[Path, str | bytes]]:
    """The files of ``formats`` (of :data:`VTT_FORMATS`) for every level of ``doc`` in
    the folder ``out``: ``STEM.dd2vtt`` for uvtt; ``STEM-foundry-scene.json``,
    ``STEM-foundry-journal.json`` and the picture ``STEM-foundry.png`` (or ``.webp``) for
    foundry. Each level's picture is drawn once for both. ``warn`` is told of every level
    drawn smaller than ``options.ppg`` (size caps). Refuses what
    :func:`~kerker.export.uvtt.export_uvtt` and
    :func:`~kerker.export.foundry.export_foundry` refuse."""
    import json

    from kerker.export.foundry import export_foundry
    from kerker.export.uvtt import uvtt_document

    view = "gm" if options.gm else "player"
    fmt = "webp" if options.webp else "png"
    _ = translator(lang)
    files: list[tuple[Path, str | bytes]] = []
    for depth in level_depths(doc):
        stem = level_stem(out, doc.get("rules", "dungeon"), doc.get("seed"), depth)
        level = level_walls(doc, depth, view)
        used = fit_ppg(level.size, options.ppg)
        if used != options.ppg and warn is not None:
            warn(scale_warning(level, options.ppg, used, _))
        image = picture(level, used, fmt=fmt)
        if "uvtt" in formats:
            data = uvtt_document(level, used, image)
            files.append(
                (
                    stem.with_suffix(".dd2vtt"),
                    json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n",
                )
            )
        if "foundry" in formats:
            name = f"{stem.name}-foundry.{fmt}"
            bundle = export_foundry(
                doc,
                depth,
                ppg=options.ppg,
                view=view,
                image_format=fmt,
                lang=lang,
                layout=options.foundry_layout,
                image_name=name,
                image=image,
            )
            files += [
                (out / f"{stem.name}-foundry-scene.json", bundle.scene),
                (out / f"{stem.name}-foundry-journal.json", bundle.journal),
                (out / name, bundle.image),
            ]
    return files


__all__ = ["VTT_FORMATS", "VttOptions", "level_stem", "vtt_files"]
