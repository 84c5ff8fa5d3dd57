"""Reading tabletop files back: the picture as grey pixels, segments on it, a flood fill
(shared by tests/test_export_*.py)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from itertools import pairwise
from math import ceil, hypot
from typing import Any

from kerker.dungeon.engine import Params, generate
from kerker.dungeon.export import to_document
from kerker.render.png import _vips
from kerker.tables.registry import load_registry

Doc = dict[str, Any]
XY = tuple[float, float]
Segment = tuple[XY, XY]


@cache
def _registry() -> Any:
    return load_registry([])


def small_doc(
    rules: str, seed: int, size: tuple[int, int], levels: int = 1, max_areas: int = 14
) -> Doc:
    """A small dungeon document (a level or two of a few areas), fast to draw."""
    params = Params(
        rules=rules, seed=seed, levels=levels, size=size, max_areas=max_areas, min_areas=0
    ).checked()
    return to_document(generate(params, _registry()), "en")


class Grey:
    """A picture (PNG or WebP bytes) as one grey byte per pixel."""

    def __init__(self, data: bytes) -> None:
        vips = _vips()
        image = vips.Image.new_from_buffer(data, "")
        if image.hasalpha():
            image = image.flatten(background=[255, 255, 255])
        rgb = image.colourspace("srgb").extract_band(0, n=3).cast("uchar")
        grey = image.colourspace("b-w").extract_band(0).cast("uchar")
        self.width, self.height = grey.width, grey.height
        self.pixels = bytes(grey.write_to_memory())
        # the darkest pixel of each 3 x 3 block (a rank filter: one lookup per question)
        self.min3 = bytes(grey.rank(3, 3, 0).write_to_memory())
        self.rgb = bytes(rgb.write_to_memory())

    def at(self, x: int, y: int) -> int:
        """The grey value at pixel (x, y); white outside the picture."""
        if 0 <= x < self.width and 0 <= y < self.height:
            return self.pixels[y * self.width + x]
        return 255

    def warm(self, x: float, y: float, radius: int = 1) -> bool:
        """Whether a pixel within ``radius`` of (x, y) is of the maps' red or orange
        (secret and one-way marks, unexplored exits: red clearly above blue)."""
        cx, cy = int(x), int(y)
        for dx in range(-radius, radius + 1):
            for dy in range(-radius, radius + 1):
                px, py = cx + dx, cy + dy
                if 0 <= px < self.width and 0 <= py < self.height:
                    i = 3 * (py * self.width + px)
                    if self.rgb[i] - self.rgb[i + 2] > 60:
                        return True
        return False

    def darkest(self, x: float, y: float, radius: int = 1) -> int:
        """The darkest pixel within ``radius`` pixels of the point (x, y) (pixel centres
        at half-integers)."""
        cx, cy = int(x), int(y)
        if radius == 1 and 0 < cx < self.width - 1 and 0 < cy < self.height - 1:
            return self.min3[cy * self.width + cx]
        return min(
            self.at(cx + dx, cy + dy)
            for dx in range(-radius, radius + 1)
            for dy in range(-radius, radius + 1)
        )


def samples(a: XY, b: XY, step: float) -> Iterator[XY]:
    """Points from ``a`` to ``b`` (both included) at most ``step`` apart."""
    n = max(1, ceil(hypot(b[0] - a[0], b[1] - a[1]) / step))
    for k in range(n + 1):
        t = k / n
        yield (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


def polyline_segments(lines: Iterable[Sequence[XY]]) -> list[Segment]:
    """The segments of polylines."""
    return [(a, b) for line in lines for a, b in pairwise(line)]


def leaks(segments: Iterable[Segment], seeds: Iterable[XY], width: int, height: int) -> int:
    """Flood the ``width`` x ``height`` pixel grid from ``seeds`` (4-connected), blocked by
    the ``segments`` drawn as 8-connected lines: the number of border pixels reached
    (0: the segments close every seed in)."""
    wall = bytearray(width * height)
    for a, b in segments:
        for x, y in samples(a, b, 0.5):  # steps under 1/sqrt(2) px: an 8-connected line
            ix, iy = min(width - 1, max(0, int(x))), min(height - 1, max(0, int(y)))
            wall[iy * width + ix] = 1
    seen = bytearray(width * height)
    stack = []
    for x, y in seeds:
        i = int(y) * width + int(x)
        if 0 <= i < len(wall) and not wall[i] and not seen[i]:
            seen[i] = 1
            stack.append(i)
    border = 0
    while stack:
        i = stack.pop()
        x, y = i % width, i // width
        if x in (0, width - 1) or y in (0, height - 1):
            border += 1
            continue
        for j in (i - 1, i + 1, i - width, i + width):
            if not wall[j] and not seen[j]:
                seen[j] = 1
                stack.append(j)
    return border
