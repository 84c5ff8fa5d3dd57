"""``kerker table show``: a table as stored, as JSON or as a terminal table."""

from __future__ import annotations

import re
from typing import Any

from kerker.errors import N_
from kerker.i18n import dice_text
from kerker.tables.model import Row, Table, pick_text


def _text(value: Any, lang: str) -> str:
    chosen = pick_text(value, lang) if value else ""
    if isinstance(chosen, tuple):
        return f"{chosen[0]} / {chosen[1]}"
    return chosen


def shown_dice(dice: str | None, params: Any, lang: str) -> str | None:
    """A table's die as a reader sees it: a template such as ``d{one_in}`` or
    ``W{10 if curve else 20}`` filled with the table's own ``params`` (``level`` 1), then
    written the way ``lang`` writes dice (``d12``, ``W20``). Never shows a ``{name}``; a
    template that cannot be filled from the defaults is shown as ``…``; None stays None."""
    if not dice:
        return None
    text = dice
    if "{" in dice:
        from kerker.errors import KerkerError
        from kerker.tables.expr import fill

        try:
            text = fill(dice, {"level": 1, **dict(params or {})})
        except (KerkerError, KeyError, ValueError, TypeError):
            text = re.sub(r"\{[^{}]*\}", "…", dice)
    return dice_text(text, lang)


def show_json(table: Table, lang: str) -> dict[str, Any]:
    """The table as stored: ``{"id", "title", "dice", "modifier", "params", "source",
    "rows": [{"range"|"weight", "key", "text", "value", "effects", "then"}], ...}``.

    ``text`` is in ``lang``; ``texts`` has every language; ``effects`` are the stored data;
    ``dice`` is the stored template, ``dice_shown`` the die a reader sees (:func:`shown_dice`).
    """
    raw_rows = table.raw.get("rows", [])
    return {
        "id": table.id,
        "title": _text(table.title, lang),
        "kind": table.kind,
        "dice": table.dice,
        "dice_shown": shown_dice(table.dice, table.params, lang),
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


_PLACE = re.compile(r"\{([^{}]*)\}")
_NAMES = {"level": N_("level"), "area": N_("area"), "result": N_("result")}
"""Parameters that amount expressions use, as a reader of the table says them."""


def expression_text(expression: str, lang: str) -> str:
    """An amount expression for a reader: ``{2 * level}W10 × 100`` -> ``(2 × livello)d10 ×
    100`` in Italian (parameters named in ``lang``, dice the language's way); a text
    without placeholders only gets its dice letter."""
    from kerker.i18n import translator

    _ = translator(lang)

    def one(match: re.Match[str]) -> str:
        inner = match.group(1).strip().replace("*", "×")
        inner = re.sub(
            r"[A-Za-z_]+",
            lambda m: _(_NAMES[m.group(0)]) if m.group(0) in _NAMES else m.group(0),
            inner,
        )
        return f"({inner})"

    return dice_text(_PLACE.sub(one, str(expression)), lang)


def amount_text(expression: str, lang: str) -> str:
    """An amount expression as :func:`expression_text` gives it, its products with ``×``
    (``240 + 1W6 × 10``, not ``240 + 1W6*10``)."""
    shown = expression_text(expression, lang).replace("*", "×").replace("×", " × ")
    return re.sub(r" +", " ", shown).strip()


def row_display(text: str, raw: Any, lang: str) -> str:
    """A row's stored text with its amount placeholders shown as the expressions that fill
    them (``{amount} monete`` -> ``(2 × livello)d10 × 100 monete``); other placeholders
    (filled from values at roll time) as ``…``. Never a bare ``{name}``."""
    amounts = {
        str(e.get("name") or "amount"): str(e["amount"])
        for e in (raw.get("effects") or [] if isinstance(raw, dict) else [])
        if isinstance(e, dict) and "amount" in e
    }

    def one(match: re.Match[str]) -> str:
        found = amounts.get(match.group(1))
        if found is None:
            return "…"
        shown = amount_text(found, lang)
        # "(240 + 1W6 × 10) × (340 + 1W6 × 10) Fuß", not "240 + 1W6*10 × 340 + 1W6*10 Fuß"
        return f"({shown})" if " + " in shown or " - " in shown else shown

    return re.sub(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", one, text)


def row_shown(text: Any, raw: Any, lang: str) -> str:
    """A row's text in ``lang`` for a reader (:func:`row_display`). A text with a singular
    and a plural form is shown once per whole-number amount the row can give, each in its
    right form: "1 uscita (…) / 2 uscite (…)", "0 uscite (…) / 1 uscita (…)", never
    "1 uscite"; with other amounts (dice) the plural form alone."""
    chosen: Any = pick_text(text, lang) if text else ""
    if isinstance(chosen, dict):  # as stored: {"one": ..., "other": ...}
        chosen = (str(chosen.get("one", "")), str(chosen.get("other", "")))
    if not isinstance(chosen, tuple):
        return row_display(str(chosen), raw, lang)
    one, other = chosen
    counts: list[int] = []
    for effect in raw.get("effects") or [] if isinstance(raw, dict) else []:
        if isinstance(effect, dict) and "amount" in effect:
            amount = str(effect["amount"]).strip()
            if not amount.isdigit():
                return row_display(other, raw, lang)
            if int(amount) not in counts:
                counts.append(int(amount))
    if not counts:
        return row_display(other, raw, lang)
    from kerker.tables.render import fill_text

    return " / ".join(
        fill_text({lang: (one, other)}, lang, _amount_names(raw, n), n) for n in counts
    )


def _amount_names(raw: Any, count: int) -> dict[str, Any]:
    return {
        str(e.get("name") or "amount"): count
        for e in (raw.get("effects") or [] if isinstance(raw, dict) else [])
        if isinstance(e, dict) and "amount" in e
    }


def _effects_summary(raw: Any, lang: str) -> str:
    parts = []
    for effect in raw or []:
        if "roll" in effect:
            times = effect.get("times", 1)
            parts.append(f"→ {effect['roll']}" + (f" ×{times}" if str(times) != "1" else ""))
        elif "amount" in effect:
            parts.append(amount_text(str(effect["amount"]), lang))
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
    head = shown_dice(table.dice, table.params, lang)
    head = head or (_("weighted") if table.kind == "weighted" else _("lookup"))
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
            esc(row.label()),
            esc(row_shown(row.text, raw, lang)),
            esc(_effects_summary(raw.get("effects"), lang)),
        )
        if row.then is not None:
            for sub, sub_raw in zip(
                row.then.rows, raw.get("then", {}).get("rows", []), strict=False
            ):
                view.add_row(
                    esc(f"{shown_dice(row.then.dice, table.params, lang) or ''} {sub.label()}"),
                    "  " + esc(row_shown(sub.text, sub_raw, lang)),
                    esc(_effects_summary(sub_raw.get("effects"), lang)),
                )
    console = make_console()
    console.print(view)
    for note in table.notes:
        console.print("· " + esc(_text(note, lang)))
    if table.decision and lang == "en":
        console.print(esc(_("Decision: {text}").format(text=table.decision)))
    elif table.decision:
        # kerker's decisions are notes in English (docs/rules-notes-*.md): not mixed into
        # a German or Italian view, but pointed to in its language.
        console.print(
            esc(
                _("kerker's decision on this table is written in English: {command}").format(
                    command=f"kerker table show {table.id} --lang en"
                )
            )
        )
