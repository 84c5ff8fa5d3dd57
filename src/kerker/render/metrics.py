"""Text widths from the real advance widths of the fonts kerker draws with.

The fonts come from the ``font-source-sans-pro`` and ``font-source-serif-pro`` packages
(the same files the PNG renderer uses). A TrueType file's ``cmap`` (format 4 and 12), ``hhea``,
``hmtx`` and ``head`` tables are read with :mod:`struct` once per face: every label's box
can then be measured exactly (no kerning: labels are short; kerning only narrows them).
A character the font lacks counts as the font's widest advance (a generous box).
"""

from __future__ import annotations

import struct
from functools import lru_cache
from pathlib import Path

from kerker.errors import N_, KerkerError

__all__ = ["FACES", "face_file", "text_width"]

FACES = {
    ("sans", False): "SourceSansPro-Regular",
    ("sans", True): "SourceSansPro-Bold",
    ("serif", False): "SourceSerifPro-Regular",
    ("serif", True): "SourceSerifPro-Bold",
}


class FontError(KerkerError):
    """A font file that cannot be read."""

    code = "font"


def face_file(family: str, bold: bool) -> Path:
    """The font file of ``family`` (``sans`` or ``serif``) in regular or bold."""
    from kerker.render.png import font_files

    name = FACES[(family, bold)]
    for path in font_files():
        if Path(path).stem == name:
            return Path(path)
    raise FontError(N_("font file {name} is not installed"), name=name)


class _Face:
    """Advance widths (in em) of one font by code point."""

    def __init__(self, data: bytes) -> None:
        tables = self._tables(data)
        head = tables[b"head"]
        units = struct.unpack_from(">H", data, head + 18)[0]
        hhea = tables[b"hhea"]
        count = struct.unpack_from(">H", data, hhea + 34)[0]
        hmtx = tables[b"hmtx"]
        advances = [struct.unpack_from(">H", data, hmtx + 4 * i)[0] for i in range(count)]
        self.widest: float = max(advances) / units
        self.units: int = int(units)
        self.advances: list[int] = [int(a) for a in advances]
        self.glyphs = self._cmap(data, tables[b"cmap"])

    @staticmethod
    def _tables(data: bytes) -> dict[bytes, int]:
        count = struct.unpack_from(">H", data, 4)[0]
        out = {}
        for i in range(count):
            tag, _sum, offset, _length = struct.unpack_from(">4sIII", data, 12 + 16 * i)
            out[tag] = offset
        return out

    @staticmethod
    def _cmap(data: bytes, cmap: int) -> dict[int, int]:
        count = struct.unpack_from(">H", data, cmap + 2)[0]
        best: tuple[int, int] | None = None
        for i in range(count):
            platform, _encoding, offset = struct.unpack_from(">HHI", data, cmap + 4 + 8 * i)
            fmt = struct.unpack_from(">H", data, cmap + offset)[0]
            if platform in (0, 3) and fmt in (4, 12):
                rank = 2 if fmt == 12 else 1
                if best is None or rank > best[0]:
                    best = (rank, cmap + offset)
        if best is None:
            raise FontError(N_("the font has no Unicode character map"))
        at = best[1]
        glyphs: dict[int, int] = {}
        if struct.unpack_from(">H", data, at)[0] == 12:
            groups = struct.unpack_from(">I", data, at + 12)[0]
            for g in range(groups):
                start, end, first = struct.unpack_from(">III", data, at + 16 + 12 * g)
                for code in range(start, min(end, start + 0xFFFF) + 1):
                    glyphs[code] = first + code - start
            return glyphs
        segs = struct.unpack_from(">H", data, at + 6)[0] // 2
        ends = struct.unpack_from(f">{segs}H", data, at + 14)
        starts = struct.unpack_from(f">{segs}H", data, at + 16 + 2 * segs)
        deltas = struct.unpack_from(f">{segs}h", data, at + 16 + 4 * segs)
        range_at = at + 16 + 6 * segs
        offsets = struct.unpack_from(f">{segs}H", data, range_at)
        for s in range(segs):
            for code in range(starts[s], ends[s] + 1):
                if code == 0xFFFF:
                    continue
                if offsets[s] == 0:
                    glyph = (code + deltas[s]) & 0xFFFF
                else:
                    where = range_at + 2 * s + offsets[s] + 2 * (code - starts[s])
                    glyph = struct.unpack_from(">H", data, where)[0]
                    if glyph:
                        glyph = (glyph + deltas[s]) & 0xFFFF
                if glyph:
                    glyphs[code] = glyph
        return glyphs

    def advance(self, char: str) -> float:
        glyph = self.glyphs.get(ord(char))
        if glyph is None:
            return self.widest
        index = min(glyph, len(self.advances) - 1)
        return self.advances[index] / self.units


@lru_cache(maxsize=4)
def _face(family: str, bold: bool) -> _Face:
    try:
        return _Face(face_file(family, bold).read_bytes())
    except (OSError, struct.error) as exc:
        raise FontError(N_("cannot read the font: {reason}"), reason=str(exc)) from None


@lru_cache(maxsize=8192)
def text_width(text: str, size: float, *, family: str = "sans", bold: bool = False) -> float:
    """The advance width of ``text`` at ``size`` px in Source Sans Pro or Source Serif Pro
    (``family`` ``sans`` or ``serif``), regular or bold; refuses an unknown family with
    :class:`KeyError` and a missing font with :class:`FontError`."""
    face = _face(family, bold)
    return sum(face.advance(c) for c in text) * size
