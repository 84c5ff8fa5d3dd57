"""Universal VTT (``.dd2vtt``): one level's picture with its walls, doors and light.

No formal specification exists; its readers define it (docs/vtt.md lists what each reads).
The writer keeps to what avoids the import bugs users report:

- ``map_origin`` is ``{0, 0}`` and the map is cropped to the level's frame (its areas plus
  three cells of rock, aligned to the 10-ft grid) before anything is written; the picture is
  exactly ``map_size x pixels_per_grid`` pixels (100 by default; 70, 50 as options; less,
  with a warning, where a side would pass 16 384 px or the picture 144 megapixels);
- ``line_of_sight``: the walls the picture draws, as polylines in squares (one square =
  10 ft); ``objects_line_of_sight`` empty;
- ``portals``: one per door and one-way door, ``bounds`` exactly on the wall edges the
  door opens, ``position`` their midpoint, ``rotation`` their direction in radians,
  ``closed`` true, ``freestanding`` false; archways, openings and stairs are gaps without a
  portal; a secret door is wall (the format cannot say "secret");
- no lights, ``baked_lighting`` true and a white ambient light, so a map is not black;
- ``image``: the players' map (no area numbers, nothing secret) unless the game master's
  is asked for, base64 PNG or WebP.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from kerker.export.image import PPG_DEFAULT, fit_ppg, picture, scale_warning
from kerker.export.walls import LevelWalls, level_walls
from kerker.i18n import translator

FORMAT = 0.3
AMBIENT = "ffffffff"


def _xy(point: tuple[float, float]) -> dict[str, float]:
    return {"x": round(point[0], 4), "y": round(point[1], 4)}


def uvtt_document(level: LevelWalls, ppg: int, image: bytes | None) -> dict[str, Any]:
    """The ``.dd2vtt`` document of ``level`` drawn at ``ppg`` pixels per square with the
    picture ``image`` (None: no picture, for the walls alone)."""
    w, h = level.size
    return {
        "format": FORMAT,
        "resolution": {
            "map_origin": {"x": 0, "y": 0},
            "map_size": {"x": w, "y": h},
            "pixels_per_grid": ppg,
        },
        "line_of_sight": [[_xy(p) for p in line] for line in level.walls],
        "objects_line_of_sight": [],
        "portals": [
            {
                "position": _xy(span.position),
                "bounds": [_xy(span.a), _xy(span.b)],
                "rotation": round(span.rotation, 6),
                "closed": True,
                "freestanding": False,
            }
            for span in level.doors
        ],
        "environment": {"baked_lighting": True, "ambient_light": AMBIENT},
        "lights": [],
        "image": base64.b64encode(image).decode("ascii") if image is not None else "",
    }


def export_uvtt(
    doc: Mapping[str, Any],
    depth: int = 1,
    *,
    ppg: int = PPG_DEFAULT,
    view: str = "player",
    image_format: str = "png",
    lang: str = "en",
) -> tuple[str, list[str]]:
    """Level ``depth`` of the dungeon document ``doc`` as ``.dd2vtt`` text, and the
    warnings to show (a picture drawn smaller than ``ppg`` asked, in ``lang``).

    ``view`` ``player`` (the default) draws the players' map without area numbers,
    ``gm`` the game master's with them. Same document and options -> the same bytes.
    Refuses an unknown level, view or picture format, and ``ppg`` outside 8-200, with
    an :class:`~kerker.errors.OptionError`; pictures the renderer cannot draw with a
    ``RenderError``.
    """
    level = level_walls(doc, depth, view)
    used = fit_ppg(level.size, ppg)
    warnings = [] if used == ppg else [scale_warning(level, ppg, used, translator(lang))]
    data = uvtt_document(level, used, picture(level, used, fmt=image_format))
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n", warnings


__all__ = ["AMBIENT", "FORMAT", "export_uvtt", "uvtt_document"]
