"""The runtime model of tables: frozen values built from validated table files.

:func:`build_file` turns the plain data of a table file (validated by
:mod:`kerker.tables.schema`, or read from a compiled twin that was) into these objects.
Nothing here imports pydantic.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

TextMap = Mapping[str, "str | tuple[str, str]"]
"""Language -> text, or (one, other) for count-dependent text."""

LANGS = ("de", "it", "en")


def pick_text(text: TextMap | None, lang: str, fallback: str = "en") -> str | tuple[str, str]:
    """The text in ``lang``, else in the fallback, else in any language; "" when none."""
    if not text:
        return ""
    if lang in text:
        return text[lang]
    if fallback in text:
        return text[fallback]
    for code in text:
        return text[code]
    return ""


@dataclass(frozen=True, slots=True)
class RollFx:
    """Roll on another table ``times`` times."""

    ref: str
    times: str = "1"
    modifier: str | None = None
    reroll_if: str | None = None
    when: str | None = None
    with_: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class AgainFx:
    """Roll this table again, adding ``add`` to the values."""

    add: tuple[tuple[str, int], ...] = ()
    reroll_if: str | None = None
    when: str | None = None


@dataclass(frozen=True, slots=True)
class AmountFx:
    """A dice amount rolled and shown."""

    amount: str
    unit: TextMap | None = None
    name: str = "amount"
    when: str | None = None
    in_play: bool = False
    """Rolled when the party meets it, not when the dungeon is made (texts show the dice)."""


@dataclass(frozen=True, slots=True)
class ChanceFx:
    """A percentage sub-check with effects on either side."""

    chance: int
    text: TextMap | None = None
    else_text: TextMap | None = None
    then: tuple[Effect, ...] = ()
    else_: tuple[Effect, ...] = ()
    name: str | None = None
    when: str | None = None
    in_play: bool = False
    """Rolled when the party meets it: a key shows the rule, not the side taken."""


@dataclass(frozen=True, slots=True)
class NoteFx:
    """A line for the game master."""

    note: TextMap
    when: str | None = None


Effect = RollFx | AgainFx | AmountFx | ChanceFx | NoteFx


@dataclass(frozen=True, slots=True)
class Row:
    """One line of a table."""

    lo: int | None
    hi: int | None
    weight: int | None
    key: str | None
    text: TextMap
    value: Mapping[str, int | str | bool]
    effects: tuple[Effect, ...]
    then: SubTable | None

    def covers(self, result: int) -> bool:
        """Whether a roll of ``result`` lands on this row (``hi`` None: and above)."""
        if self.lo is None:
            return False
        return self.lo <= result and (self.hi is None or result <= self.hi)

    def label(self) -> str:
        """The row's range as printed: ``01-05``, ``18``, ``20+``, or ``weight 3``."""
        if self.lo is None:
            return f"×{self.weight}"
        if self.hi is None:
            return f"{self.lo}+"
        return str(self.lo) if self.lo == self.hi else f"{self.lo}-{self.hi}"


@dataclass(frozen=True, slots=True)
class SubTable:
    """A second die on one row."""

    dice: str
    rows: tuple[Row, ...]


@dataclass(frozen=True, slots=True)
class Table:
    """A random (or lookup) table with its source."""

    id: str
    rule_set: str
    name: str
    title: TextMap
    seed: str | None
    heading: str
    dice: str | None
    modifier: str | None
    params: Mapping[str, int | bool]
    gaps: str
    rows: tuple[Row, ...]
    notes: tuple[TextMap, ...] = ()
    decision: str | None = None
    default: bool = False
    in_play: bool = False
    """Rolled when the party meets it (a fall into a pit, a poisoned arrow), not when the
    dungeon is made: a key states the rule its parent row gives, not this roll."""
    language: str = "en"
    file: str = ""
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def kind(self) -> str:
        """``dice``, ``weighted`` or ``lookup``."""
        if self.dice is not None:
            return "dice"
        return "weighted" if self.rows and self.rows[0].weight is not None else "lookup"

    def resolve(self, ref: str) -> str:
        """A reference from this table to a full table id."""
        return ref if "/" in ref else f"{self.rule_set}/{ref}"


def _text(data: Any) -> TextMap:
    if not data:
        return MappingProxyType({})
    out: dict[str, str | tuple[str, str]] = {}
    for lang, value in data.items():
        out[lang] = (value["one"], value["other"]) if isinstance(value, dict) else value
    return MappingProxyType(out)


def _opt_text(data: Any) -> TextMap | None:
    return None if data is None else _text(data)


def build_effect(data: Mapping[str, Any]) -> Effect:
    """One effect from its plain data."""
    if "roll" in data:
        with_ = data.get("with") or data.get("with_") or {}
        return RollFx(
            ref=data["roll"],
            times=str(data.get("times", 1)),
            modifier=data.get("modifier"),
            reroll_if=data.get("reroll_if"),
            when=data.get("when"),
            with_=tuple((str(k), str(v)) for k, v in with_.items()),
        )
    if "again" in data:
        return AgainFx(
            add=tuple((str(k), int(v)) for k, v in (data.get("add") or {}).items()),
            reroll_if=data.get("reroll_if"),
            when=data.get("when"),
        )
    if "amount" in data:
        return AmountFx(
            amount=str(data["amount"]),
            unit=_opt_text(data.get("unit")),
            name=data.get("name", "amount"),
            when=data.get("when"),
            in_play=bool(data.get("in_play", False)),
        )
    if "chance" in data:
        return ChanceFx(
            chance=int(data["chance"]),
            text=_opt_text(data.get("text")),
            else_text=_opt_text(data.get("else_text")),
            then=tuple(build_effect(e) for e in data.get("then") or ()),
            else_=tuple(build_effect(e) for e in (data.get("else") or data.get("else_") or ())),
            name=data.get("name"),
            when=data.get("when"),
            in_play=bool(data.get("in_play", False)),
        )
    return NoteFx(note=_text(data["note"]), when=data.get("when"))


def build_row(data: Mapping[str, Any]) -> Row:
    """One row from its plain data."""
    rng = data.get("range")
    then = data.get("then")
    return Row(
        lo=None if rng is None else int(rng[0]),
        hi=None if rng is None or rng[1] is None else int(rng[1]),
        weight=data.get("weight"),
        key=data.get("key"),
        text=_text(data.get("text")),
        value=MappingProxyType(dict(data.get("value") or {})),
        effects=tuple(build_effect(e) for e in data.get("effects") or ()),
        then=None
        if then is None
        else SubTable(dice=str(then["dice"]), rows=tuple(build_row(r) for r in then["rows"])),
    )


def build_table(
    data: Mapping[str, Any], *, rule_set: str, source_file: str | None, language: str, file: str
) -> Table:
    """One table from its plain data (already validated)."""
    source = data["source"]
    return Table(
        id=f"{rule_set}/{data['name']}",
        rule_set=rule_set,
        name=data["name"],
        title=_text(data["title"]),
        seed=source.get("seed") or source_file,
        heading=source["heading"],
        dice=None if data.get("dice") is None else str(data["dice"]),
        modifier=data.get("modifier"),
        params=MappingProxyType(dict(data.get("params") or {})),
        gaps=data.get("gaps", "error"),
        rows=tuple(build_row(r) for r in data["rows"]),
        notes=tuple(_text(n) for n in data.get("notes") or ()),
        decision=data.get("decision"),
        default=bool(data.get("default", False)),
        in_play=bool(data.get("in_play", False)),
        language=language,
        file=file,
        raw=data,
    )


def build_file(data: Mapping[str, Any], file: str) -> list[Table]:
    """Every table of a validated table file."""
    return [
        build_table(
            t,
            rule_set=data["rule_set"],
            source_file=data.get("source_file"),
            language=data["language"],
            file=file,
        )
        for t in data["tables"]
    ]
