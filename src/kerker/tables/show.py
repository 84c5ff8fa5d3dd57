"""``kerker table show``: a table as stored, as JSON or as a terminal table."""

from __future__ import annotations

from typing import Any

from kerker.tables.model import Row, Table, pick_text


def _text(value: Any, lang: str) -> str:
    chosen = pick_text(value, lang) if value else ""
    if isinstance(chosen, tuple):
        return f"{chosen[0]} / {chosen[1]}"
    return chosen


def show_json(table: Table, lang: str) -> dict[str, Any]:
    """The table as stored: ``{"id", "title", "dice", "modifier", "params", "source",
    "rows": [{"range"|"weight", "key", "text", "value", "effects", "then"}], ...}``.

    ``text`` is in ``lang``; ``texts`` has every language; ``effects`` are the stored data.
    """
    raw_rows = table.raw.get("rows", [])
    return {
        "id": table.id,
        "title": _text(table.title, lang),
        "kind": table.kind,
        "dice": table.dice,
        "modifier": table.modifier,
        "params": dict(table.params),
        "gaps": table.gaps,
        "source": {"seed": table.seed, "heading": table.heading},
        "default": table.default,
        "decision": table.decision,
        "notes": [_text(n, lang) for n in table.notes],
        "rows": [_row_json(row, raw, lang) for row, raw in zip(table.rows, raw_rows, strict=False)],
        "file": table.file,
    }


def _row_json(row: Row, raw: Any, lang: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if row.lo is not None:
        out["range"] = [row.lo, row.hi]
    else:
        out["weight"] = row.weight
    out["key"] = row.key
    out["text"] = _text(row.text, lang)
    out["texts"] = raw.get("text", {}) if isinstance(raw, dict) else {}
    out["value"] = dict(row.value)
    out["effects"] = raw.get("effects", []) if isinstance(raw, dict) else []
    if row.then is not None:
        raw_then = raw.get("then", {}) if isinstance(raw, dict) else {}
        out["then"] = {
            "dice": row.then.dice,
            "rows": [
                _row_json(r, rr, lang)
                for r, rr in zip(row.then.rows, raw_then.get("rows", []), strict=False)
            ],
        }
    return out


def _effects_summary(raw: Any) -> str:
    parts = []
    for effect in raw or []:
        if "roll" in effect:
            times = effect.get("times", 1)
            parts.append(f"→ {effect['roll']}" + (f" ×{times}" if str(times) != "1" else ""))
        elif "amount" in effect:
            parts.append(f"{effect['amount']}")
        elif "chance" in effect:
            parts.append(f"{effect['chance']} %")
        elif "again" in effect:
            added = (effect.get("add") or {}).items()
            parts.append("↻ " + ", ".join(f"{k} +{v}" for k, v in added))
    return "; ".join(parts)


def show_rich(table: Table, lang: str) -> None:
    """Print the table for the terminal."""
    from rich.table import Table as RichTable

    from kerker.i18n import translator
    from kerker.termio import console as make_console
    from kerker.termio import rich_text as esc

    _ = translator(lang)
    head = table.dice or (_("weighted") if table.kind == "weighted" else _("lookup"))
    view = RichTable(
        title=esc(f"{_text(table.title, lang)} ({head})"),
        title_justify="left",
        caption=esc(f"{table.id} — {table.seed or ''}: {table.heading}"),
        caption_justify="left",
    )
    view.add_column(esc(head), justify="right", no_wrap=True)
    view.add_column(_("result"))
    view.add_column(_("effects"))
    for row, raw in zip(table.rows, table.raw.get("rows", []), strict=False):
        view.add_row(
            esc(row.label()), esc(_text(row.text, lang)), esc(_effects_summary(raw.get("effects")))
        )
        if row.then is not None:
            for sub, sub_raw in zip(
                row.then.rows, raw.get("then", {}).get("rows", []), strict=False
            ):
                view.add_row(
                    esc(f"{row.then.dice} {sub.label()}"),
                    "  " + esc(_text(sub.text, lang)),
                    esc(_effects_summary(sub_raw.get("effects"))),
                )
    console = make_console()
    console.print(view)
    for note in table.notes:
        console.print("· " + esc(_text(note, lang)))
    if table.decision:
        console.print(esc(_("Decision: {text}").format(text=table.decision)))
