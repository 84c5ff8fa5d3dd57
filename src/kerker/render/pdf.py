"""One printable sheet per map: a PDF page with the map (vector, from kerker's SVG) and a
compact key beside it, typeset by Typst (the ``typst`` package: its SVG renderer keeps the
hatch pattern, clip paths and text; kerker's own fonts are embedded, the system's never
read, so the same input gives the same PDF everywhere).

Every text of the key reaches Typst as JSON data, never as Typst markup, so no user text
can inject markup or code; control characters are made visible first. The key's type size
is lowered step by step until the sheet fits one page; what still does not fit is cut with
a note that says how many entries the full key (HTML or Markdown) has beyond it.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from types import ModuleType

from kerker.errors import N_, KerkerError, OptionError
from kerker.render.kit import visible

__all__ = ["PAPERS", "PdfError", "Section", "Sheet", "TypstMissing", "check_paper", "sheet_pdf"]

PAPERS = {"a4": "a4", "letter": "us-letter"}
"""Paper names kerker takes and Typst's names for them."""
SIZES = (8.0, 7.2, 6.5, 5.8, 5.2, 4.6)
"""Type sizes (pt) of the key tried in turn until the sheet fits one page."""
STACK_SIZES = (10.0, 9.0, *SIZES)
"""The same below a map across the page, whose four columns hold more at a size."""
MAX_ENTRIES = 2000
MAX_TEXT = 400  # characters of one line on a sheet


class PdfError(KerkerError):
    """A sheet that cannot be typeset."""

    code = "pdf"


class TypstMissing(PdfError):
    """The typst package (the extra ``kerker[pdf]``) is not installed."""


@dataclass
class Section:
    """One entry of a sheet's key: a heading and its lines (plain text)."""

    heading: str
    lines: list[str] = field(default_factory=list)


@dataclass
class Sheet:
    """A page: title, subtitle, the map's SVG, the key's sections, and a closing
    paragraph (a compact list, e.g. the corridors)."""

    title: str
    subtitle: str
    svg: str
    sections: list[Section]
    tail: list[str] = field(default_factory=list)
    lang: str = "en"
    more: str = "{n} more entries: see the full key."  # already translated, "{n}" kept


_PAGE = r"""
#let head(data) = [
  #text(font: "Source Serif Pro", weight: "bold", size: 11pt, data.title) \
  #text(fill: rgb("#6b6459"), size: 7pt, data.subtitle)
]
#let key(data) = [
  #set text(size: data.size * 1pt, lang: data.lang)
  #columns(data.cols, gutter: 3mm)[
    #for s in data.sections [
      #block(breakable: true, above: 0.7em, below: 0em)[
        #text(font: "Source Serif Pro", weight: "bold", s.heading)
        #for l in s.lines [
          \ #l
        ]
      ]
    ]
    #if data.tail.len() > 0 [
      #v(0.6em)
      #for l in data.tail [ #l \ ]
    ]
  ]
]
#let page-of(data) = if data.layout == "stack" [
  #head(data)
  #v(1mm)
  #align(center, image(data.map, width: 100%, height: data.maph * 1mm, fit: "contain"))
  #v(2mm)
  #key(data)
] else [
  #grid(columns: (data.mapshare * 1fr, (1 - data.mapshare) * 1fr),
    gutter: 5mm,
    image(data.map, width: 100%, height: 100%, fit: "contain"),
    [
      #head(data)
      #v(1mm)
      #key(data)
    ])
]
#let pages = json("sheet.json")
#set document(title: pages.at(0).title)
#set page(paper: pages.at(0).paper, flipped: true, margin: (x: 8mm, y: 8mm))
#set text(font: "Source Sans Pro")
#set par(leading: 0.45em, spacing: 0.5em, justify: false)
#for (i, data) in pages.enumerate() {
  if i > 0 { pagebreak() }
  page-of(data)
}
"""
PAGE_MM = {"a4": (297.0, 210.0), "us-letter": (279.4, 215.9)}
"""Typst's papers, landscape (width, height) in mm; the margins are 8 mm all round."""
MARGIN_MM = 8.0
STACK_ASPECT = 1.4
"""A map wider than this (width / height) goes above the key across the page (a heist's
plan, a long zone map); a squarer one beside it. At 1.4 on A4 both give the map about the
same area; wider, the side column would shrink it to a strip with white space below."""
STACK_MAP_SHARE = 0.6
"""The most of the page's height a map above the key takes."""
MAX_TAIL = 20_000
"""Characters of a sheet's closing paragraph (kerker's own compact list: corridors, doors)."""


def _aspect(svg: str) -> float:
    """The SVG's width / height (its viewBox, else width and height; 1 when unknown)."""
    box = re.search(r'viewBox="\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)', svg)
    if box is None:
        box = re.search(r'<svg[^>]*\swidth="([\d.]+)[^"]*"[^>]*\sheight="([\d.]+)', svg)
    if box is None:
        return 1.0
    w, h = float(box.group(1)), float(box.group(2))
    return w / h if w > 0 and h > 0 else 1.0


def layout(svg: str, paper: str) -> dict[str, object]:
    """Where the map goes on a page of ``paper`` (Typst's name): ``side`` (the map on the
    left 58 %, the key in two columns beside it) for a map up to :data:`STACK_ASPECT`
    wide, else ``stack`` (the map across the page, at most :data:`STACK_MAP_SHARE` of its
    height, ``maph`` mm, the key below in four columns)."""
    aspect = _aspect(svg)
    if aspect <= STACK_ASPECT:
        return {"layout": "side", "mapshare": 0.58, "cols": 2, "maph": 0}
    width, height = (v - 2 * MARGIN_MM for v in PAGE_MM.get(paper, PAGE_MM["a4"]))
    maph = round(min(width / aspect, STACK_MAP_SHARE * height), 1)
    return {"layout": "stack", "mapshare": 1.0, "cols": 4, "maph": maph}


def _typst() -> ModuleType:
    try:
        return import_module("typst")
    except ImportError:
        raise TypstMissing(
            N_("PDF sheets need the typst package (pip install 'kerker[pdf]')")
        ) from None


def _clean(text: str, limit: int = MAX_TEXT) -> str:
    text = visible(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page\b", pdf))


def check_paper(paper: str) -> None:
    """Refuses a paper other than those of :data:`PAPERS` with :class:`OptionError` (for a
    command's ``--paper``, before anything is rolled)."""
    if paper not in PAPERS:
        raise OptionError(N_("unknown paper {paper!r} (a4 or letter)"), paper=paper)


def sheet_pdf(sheets: Sequence[Sheet], *, paper: str = "a4") -> bytes:
    """A PDF with one page per sheet (``paper``: ``a4`` or ``letter``, landscape), map as
    vector graphics, fonts embedded.

    Refuses an unknown paper, no sheets, more than :data:`MAX_ENTRIES` key entries on a
    sheet and a failing typesetter with :class:`PdfError`. The same sheets give the same
    bytes."""
    if paper not in PAPERS:
        raise PdfError(N_("unknown paper {paper!r} (a4 or letter)"), paper=paper)
    if not sheets:
        raise PdfError(N_("a PDF needs at least one sheet"))
    typst = _typst()
    from kerker.render.png import font_files

    fonts = sorted({str(Path(f).parent) for f in font_files()})
    with tempfile.TemporaryDirectory(prefix="kerker-pdf-") as tmp:
        root = Path(tmp)
        (root / "main.typ").write_text(_PAGE, encoding="utf-8")
        chosen = [
            _fit(typst, root, fonts, sheet, PAPERS[paper], k) for k, sheet in enumerate(sheets)
        ]
        if len(chosen) == 1:
            return chosen[0][1]
        return _write_and_compile(typst, root, fonts, [data for data, _pdf in chosen])


def _data(sheet: Sheet, paper: str, size: float, keep: int, k: int) -> dict[str, object]:
    sections = sheet.sections[:keep]
    tail = [_clean(t, MAX_TAIL) for t in sheet.tail]
    if keep < len(sheet.sections):
        tail.append(_clean(sheet.more.replace("{n}", str(len(sheet.sections) - keep))))
    return {
        "title": _clean(sheet.title),
        "subtitle": _clean(sheet.subtitle),
        "paper": paper,
        "size": size,
        "lang": sheet.lang if sheet.lang in ("de", "it", "en") else "en",
        **layout(sheet.svg, paper),
        "map": f"map-{k}.svg",
        "sections": [
            {"heading": _clean(s.heading), "lines": [_clean(x) for x in s.lines]} for s in sections
        ],
        "tail": tail,
    }


def _compile(typst: ModuleType, root: Path, fonts: list[str]) -> bytes:
    try:
        pdf = typst.compile(
            str(root / "main.typ"),
            root=str(root),
            font_paths=fonts,
            ignore_system_fonts=True,
            timestamp=0,
        )
    except Exception as exc:  # the binding raises its own TypstError (and RuntimeError)
        reason = " ".join(str(exc).split())[:200]
        raise PdfError(N_("cannot typeset the sheet: {reason}"), reason=reason) from None
    return bytes(pdf)


def _fit(
    typst: ModuleType, root: Path, fonts: list[str], sheet: Sheet, paper: str, k: int
) -> tuple[dict[str, object], bytes]:
    """The page data of one sheet at the largest type size that fits one page (else the
    most entries that fit at the smallest), and that page alone as a PDF."""
    if len(sheet.sections) > MAX_ENTRIES:
        raise PdfError(N_("a sheet holds at most {max} key entries"), max=MAX_ENTRIES)
    (root / f"map-{k}.svg").write_text(sheet.svg, encoding="utf-8")
    keep = len(sheet.sections)
    sizes = STACK_SIZES if layout(sheet.svg, paper)["layout"] == "stack" else SIZES
    for size in sizes:
        data = _data(sheet, paper, size, keep, k)
        pdf = _write_and_compile(typst, root, fonts, [data])
        if _pages(pdf) == 1:
            return data, pdf
    # Still too long at the smallest size: the most entries that fit (bisection).
    size = SIZES[-1]
    low, high = 0, keep
    best = _data(sheet, paper, size, 0, k)
    best_pdf = _write_and_compile(typst, root, fonts, [best])
    while low < high:
        mid = (low + high + 1) // 2
        data = _data(sheet, paper, size, mid, k)
        pdf = _write_and_compile(typst, root, fonts, [data])
        if _pages(pdf) == 1:
            low, best, best_pdf = mid, data, pdf
        else:
            high = mid - 1
    return best, best_pdf


def _write_and_compile(
    typst: ModuleType, root: Path, fonts: list[str], pages: list[dict[str, object]]
) -> bytes:
    (root / "sheet.json").write_text(json.dumps(pages, ensure_ascii=False), encoding="utf-8")
    return _compile(typst, root, fonts)
