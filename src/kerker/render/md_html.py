"""kerker's own Markdown (the prowl sheet, the zone-map key) as HTML for the web pages.

Not a general Markdown parser: it reads what kerker's renderers write — ATX headings,
paragraphs, ``-`` and ``1.`` lists nested by indentation, GFM pipe tables with their
alignment row, fenced code blocks, code spans, ``*emphasis*``, ``**strong**``,
``~~struck~~``, backslash escapes and the entities of :func:`kerker.render.kit.md_text`,
and the folds (``<details><summary>…</summary>`` … ``</details>``) that keep the rolls.
Everything else is text: every character that reaches the HTML is escaped, so no user
text (a faction, a table row) can become markup. Pure function of its input.
"""

from __future__ import annotations

import html
import re

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^( *)(?:([-*+])|(\d+)[.)])\s+(.*)$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_DETAILS = re.compile(r"^\s*<details><summary>(.*)</summary>\s*$")
_CLOSE_DETAILS = re.compile(r"^\s*</details>\s*$")
_DELIMITER = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_ENTITY = re.compile(r"&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_ESCAPABLE = set("\\`*_{}[]()#+-.!|<>~=")


def markdown_html(text: str, *, shift: int = 1) -> str:
    """``text`` (Markdown as kerker writes it) as an HTML fragment; headings move down by
    ``shift`` levels (``#`` becomes ``<h2>`` inside a page that has its ``<h1>``), never
    below ``<h6>``. Refuses nothing: what it does not read as a block is a paragraph,
    what it does not read inline is escaped text."""
    lines = text.replace("\r\n", "\n").split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        fence = _FENCE.match(line)
        if fence:
            mark = fence.group(1)
            body: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(mark):
                body.append(lines[i])
                i += 1
            i += 1  # the closing fence (or the end)
            out.append("<pre><code>" + html.escape("\n".join(body), quote=False) + "</code></pre>")
            continue
        heading = _HEADING.match(line)
        if heading:
            level = min(6, len(heading.group(1)) + shift)
            out.append(f"<h{level}>{inline_html(heading.group(2))}</h{level}>")
            i += 1
            continue
        details = _DETAILS.match(line)
        if details:
            out.append(f"<details><summary>{inline_html(details.group(1))}</summary>")
            i += 1
            continue
        if _CLOSE_DETAILS.match(line):
            out.append("</details>")
            i += 1
            continue
        if line.lstrip().startswith("|") and i + 1 < len(lines) and _DELIMITER.match(lines[i + 1]):
            i = _table(lines, i, out)
            continue
        if _ITEM.match(line):
            i = _list(lines, i, out)
            continue
        para: list[str] = []
        while i < len(lines) and lines[i].strip() and not _starts_block(lines, i):
            para.append(lines[i].strip())
            i += 1
        out.append("<p>" + inline_html(" ".join(para)) + "</p>")
    opened = sum(1 for part in out if part.startswith("<details>"))
    closed = sum(1 for part in out if part == "</details>")
    out += ["</details>"] * max(0, opened - closed)
    return "\n".join(out)


def _starts_block(lines: list[str], i: int) -> bool:
    line = lines[i]
    return bool(
        _FENCE.match(line)
        or _HEADING.match(line)
        or _DETAILS.match(line)
        or _CLOSE_DETAILS.match(line)
        or _ITEM.match(line)
        or (line.lstrip().startswith("|") and i + 1 < len(lines) and _DELIMITER.match(lines[i + 1]))
    )


def _cells(line: str) -> list[str]:
    """A table row's cells, split at the pipes that are not escaped (``\\|``)."""
    row = line.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    cells: list[str] = []
    buf: list[str] = []
    j = 0
    while j < len(row):
        if row[j] == "\\" and j + 1 < len(row):
            buf.append(row[j : j + 2])
            j += 2
        elif row[j] == "|":
            cells.append("".join(buf).strip())
            buf = []
            j += 1
        else:
            buf.append(row[j])
            j += 1
    cells.append("".join(buf).strip())
    return cells


def _table(lines: list[str], i: int, out: list[str]) -> int:
    head = _cells(lines[i])
    aligns = []
    for cell in _cells(lines[i + 1]):
        left, right = cell.startswith(":"), cell.endswith(":")
        aligns.append("center" if left and right else "right" if right else "")

    def row(cells: list[str], tag: str) -> str:
        parts = []
        for n, cell in enumerate(cells):
            align = aligns[n] if n < len(aligns) else ""
            style = f' class="{align}"' if align else ""
            parts.append(f"<{tag}{style}>{inline_html(cell.replace(chr(92) + '|', '|'))}</{tag}>")
        return "<tr>" + "".join(parts) + "</tr>"

    body = []
    i += 2
    while i < len(lines) and lines[i].lstrip().startswith("|"):
        body.append(row(_cells(lines[i]), "td"))
        i += 1
    out.append(
        '<table class="list"><thead>'
        + row(head, "th")
        + "</thead><tbody>"
        + "".join(body)
        + "</tbody></table>"
    )
    return i


def _list(lines: list[str], i: int, out: list[str]) -> int:
    """A list and the lists nested in it (deeper indentation); a line indented under an
    item without a marker continues that item."""
    stack: list[tuple[int, str]] = []  # (indent, tag) of the open lists
    parts: list[str] = []
    while i < len(lines) and lines[i].strip():
        item = _ITEM.match(lines[i])
        if item is None:
            if not stack or _starts_block(lines, i) or not lines[i].startswith(" "):
                break
            parts.append(" " + inline_html(lines[i].strip()))
            i += 1
            continue
        indent = len(item.group(1))
        tag = "ul" if item.group(2) else "ol"
        while stack and indent < stack[-1][0]:
            parts.append(f"</li></{stack.pop()[1]}>")
        if stack and indent == stack[-1][0] and tag != stack[-1][1]:
            parts.append(f"</li></{stack.pop()[1]}>")
        if not stack or indent > stack[-1][0]:
            start = item.group(3)
            attr = f' start="{int(start)}"' if tag == "ol" and start and int(start) != 1 else ""
            parts.append(f"<{tag}{attr}><li>")
            stack.append((indent, tag))
        else:
            parts.append("</li><li>")
        parts.append(inline_html(item.group(4)))
        i += 1
    while stack:
        parts.append(f"</li></{stack.pop()[1]}>")
    out.append("".join(parts))
    return i


def inline_html(text: str) -> str:
    """One line of Markdown as escaped HTML: code spans (any number of backticks),
    ``**strong**``, ``*emphasis*``, ``~~struck~~``, backslash escapes and entities read;
    marks without their partner stay as the characters they are."""
    tokens: list[tuple[str, str]] = []  # (kind, value): "t" text, "m" a mark, "h" html
    i = 0
    buf: list[str] = []

    def flush() -> None:
        if buf:
            tokens.append(("t", "".join(buf)))
            buf.clear()

    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in _ESCAPABLE:
            buf.append(text[i + 1])
            i += 2
        elif ch == "`":
            run = len(text[i:]) - len(text[i:].lstrip("`"))
            end = text.find("`" * run, i + run)
            while end != -1 and text[end + run : end + run + 1] == "`":
                end = text.find("`" * run, end + run + 1)
            if end == -1:
                buf.append("`" * run)
                i += run
                continue
            code = text[i + run : end]
            if code.startswith(" ") and code.endswith(" ") and code.strip():
                code = code[1:-1]
            flush()
            tokens.append(("h", "<code>" + html.escape(code, quote=False) + "</code>"))
            i = end + run
        elif ch == "&":
            entity = _ENTITY.match(text, i)
            if entity:
                buf.append(html.unescape(entity.group(0)))
                i = entity.end()
            else:
                buf.append(ch)
                i += 1
        elif text.startswith("**", i) or text.startswith("~~", i):
            flush()
            tokens.append(("m", text[i : i + 2]))
            i += 2
        elif ch == "*":
            flush()
            tokens.append(("m", "*"))
            i += 1
        else:
            buf.append(ch)
            i += 1
    flush()
    return _pair(tokens)


_TAGS = {"**": "strong", "*": "em", "~~": "del"}


def _pair(tokens: list[tuple[str, str]]) -> str:
    """Marks that have a partner become tags (innermost first); the rest stay text."""
    partner: dict[int, int] = {}
    open_at: list[int] = []
    for n, (kind, value) in enumerate(tokens):
        if kind != "m":
            continue
        match = next((k for k in reversed(open_at) if tokens[k][1] == value), None)
        if match is not None:
            # marks opened after the partner cannot close any more: they stay text
            open_at = open_at[: open_at.index(match)]
            partner[match] = n
            partner[n] = match
        else:
            open_at.append(n)
    out: list[str] = []
    for n, (kind, value) in enumerate(tokens):
        if kind == "t":
            out.append(html.escape(value, quote=False))
        elif kind == "h":
            out.append(value)
        elif n in partner:
            tag = _TAGS[value]
            out.append(f"<{tag}>" if partner[n] > n else f"</{tag}>")
        else:
            out.append(html.escape(value, quote=False))
    return "".join(out)
