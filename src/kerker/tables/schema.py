"""The table file format, as pydantic v2 models (the I/O edge; see docs/tables.md).

These models validate YAML written by people -- the shipped rule data and a game master's own
tables -- and give the JSON Schema (``kerker table schema``). After validation the data is
turned into the frozen runtime model of :mod:`kerker.tables.model`; nothing else in kerker
imports pydantic, so rolling a table does not pay for it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Lang = Literal["de", "it", "en"]
SCHEMA_VERSION = 1
NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]*$"
REF_PATTERN = r"^([a-z0-9][a-z0-9_-]*/)?[a-z0-9][a-z0-9_-]*$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False)


class Plural(_Strict):
    """Text that depends on a count: ``one`` when the count is 1, ``other`` otherwise."""

    one: str = Field(min_length=1)
    other: str = Field(min_length=1)


Text = dict[Lang, Annotated[str, Field(min_length=1)] | Plural]
"""Whole sentences per language; ``{name}`` placeholders are filled when rolled."""

Value = int | str | bool
"""A machine value a procedure reads (``area: 25``, ``kind: hall``, ``door: true``)."""


class Source(_Strict):
    """Where the table is printed: the seed file and the heading as printed."""

    seed: str | None = Field(
        default=None, description="Seed file name; defaults to the file's source_file."
    )
    heading: str = Field(min_length=1, description="The heading exactly as printed.")


class RollEffect(_Strict):
    """Roll on another table (a follow-up), possibly several times."""

    roll: str = Field(pattern=REF_PATTERN, description="Table id, or a name in this rule set.")
    times: int | str = Field(
        default=1, description="How often: a number or a dice expression such as 1W3."
    )
    modifier: str | None = Field(default=None, description="Safe expression added to each roll.")
    reroll_if: str | None = Field(
        default=None, description="Condition on `result`: roll again when it holds."
    )
    when: str | None = Field(default=None, description="Only when this condition holds.")
    with_: dict[str, str] | None = Field(
        default=None,
        alias="with",
        description="Context for the follow-up: variable -> safe expression.",
    )
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class AgainEffect(_Strict):
    """Roll this same table again (the seed's "Wiederholung"), adding to values."""

    again: Literal[True]
    add: dict[str, int] = Field(default_factory=dict, description="Added to the final values.")
    reroll_if: str | None = None
    when: str | None = None


class AmountEffect(_Strict):
    """An amount rolled and shown, e.g. ``{2*level}W10 × 100`` with unit KM."""

    amount: str = Field(min_length=1, description="Dice expression; {expr} parts are filled in.")
    unit: Text | None = None
    name: str = Field(default="amount", pattern=NAME_PATTERN)
    when: str | None = None
    in_play: bool = Field(
        default=False,
        description="Rolled in play, when the party meets it (a trap sprung, a character in "
        "the water), not when the dungeon is made: a key shows the rule, its dice, not this roll.",
    )


class ChanceEffect(_Strict):
    """A percentage sub-check ("in 75% der Fälle überbrückt")."""

    chance: int = Field(ge=1, le=99, description="Percent chance of `then`.")
    text: Text | None = Field(default=None, description="Shown when the check succeeds.")
    else_text: Text | None = Field(default=None, description="Shown when it fails.")
    then: list[Effect] = Field(default_factory=list)
    else_: list[Effect] = Field(default_factory=list, alias="else")
    name: str | None = Field(default=None, pattern=NAME_PATTERN)
    when: str | None = None
    in_play: bool = Field(
        default=False,
        description="Rolled in play, when the party meets it (a trap sprung, a character in "
        "the water), not when the dungeon is made: a key shows the rule, not this roll.",
    )
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class NoteEffect(_Strict):
    """A line of text for the game master."""

    note: Text
    when: str | None = None


Effect = RollEffect | AgainEffect | AmountEffect | ChanceEffect | NoteEffect


MAX_WEIGHT_TOTAL = 10_000
"""The largest sum of a weighted table's weights: it is rolled with a die of that many faces
(``Limits.max_faces``), and its exact odds never need more outcomes than that."""


class SubTable(_Strict):
    """A second die on one row (W20 18, then W8 1-5 / 6-8)."""

    dice: str = Field(min_length=1)
    rows: list[Row] = Field(min_length=1)


class Row(_Strict):
    """One line of a table: a range of results (or a weight), its text and effects."""

    range: tuple[int, int | None] | None = Field(
        default=None, description="[lo, hi] of the roll; hi null means 'and above' (20+)."
    )
    weight: int | None = Field(default=None, ge=1, le=10_000)
    key: str | None = Field(default=None, pattern=NAME_PATTERN)
    text: Text
    value: dict[str, Value] = Field(default_factory=dict)
    effects: list[Effect] = Field(default_factory=list)
    then: SubTable | None = None

    @model_validator(mode="after")
    def _range_or_weight(self) -> Row:
        if (self.range is None) == (self.weight is None):
            raise ValueError("a row has either `range` or `weight`")
        if self.range is not None and self.range[1] is not None and self.range[1] < self.range[0]:
            raise ValueError(f"range {list(self.range)} runs backwards")
        return self


class Table(_Strict):
    """One random table."""

    name: str = Field(pattern=NAME_PATTERN)
    title: Text
    source: Source
    dice: str | None = Field(
        default=None,
        description="Dice expression ({expr} parts filled in). Omit it for a weighted table "
        "(every row has a weight) or a lookup table (every row has a range; not rolled).",
    )
    params: dict[str, int | bool] = Field(
        default_factory=dict,
        description="Context variables this table reads, with defaults (level and result are "
        "always there).",
    )
    modifier: str | None = Field(default=None, description="Safe expression added to the roll.")
    gaps: Literal["error", "reroll"] = Field(
        default="error", description="Results no row covers: a lint error, or roll again."
    )
    rows: list[Row] = Field(min_length=1)
    notes: list[Text] = Field(default_factory=list)
    decision: str | None = Field(default=None, description="What kerker decided, and why.")
    default: bool = Field(
        default=False, description="A labelled default, not from the seed; users override it."
    )
    in_play: bool = Field(
        default=False,
        description="Rolled in play, when the party meets it (a trap sprung, a character in "
        "the water), not when the dungeon is made: a key shows the rule, not this roll.",
    )

    @model_validator(mode="after")
    def _rows_match_dice(self) -> Table:
        weighted = [row.weight is not None for row in self.rows]
        if self.dice is None and any(weighted) and not all(weighted):
            raise ValueError(
                "a table without `dice` has either weights on every row "
                "(weighted) or ranges on every row (lookup)"
            )
        if self.dice is not None and any(weighted):
            raise ValueError("a table with `dice` needs a `range` on every row")
        if self.dice is None and all(weighted):
            total = sum(row.weight or 0 for row in self.rows)
            if total > MAX_WEIGHT_TOTAL:
                raise ValueError(
                    f"the weights add up to {total}; at most {MAX_WEIGHT_TOTAL} (a weighted "
                    f"table is rolled with one die of as many faces as its weights add up to)"
                )
        return self


class TableFile(_Strict):
    """A YAML file of tables for one rule set."""

    schema_: Literal[1] = Field(alias="schema")
    rule_set: str = Field(pattern=NAME_PATTERN)
    source_file: str | None = Field(default=None, description="The seed these tables are from.")
    language: Lang = Field(description="The language the tables were printed in.")
    tables: list[Table] = Field(min_length=1)
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @field_validator("tables")
    @classmethod
    def _unique_names(cls, tables: list[Table]) -> list[Table]:
        seen: set[str] = set()
        for table in tables:
            if table.name in seen:
                raise ValueError(f"two tables named {table.name!r}")
            seen.add(table.name)
        return tables


ChanceEffect.model_rebuild()
SubTable.model_rebuild()
Row.model_rebuild()
Table.model_rebuild()
TableFile.model_rebuild()


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a table file, for editors."""
    schema = TableFile.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "kerker table file"
    return schema
