"""Tables that would cost out of proportion: weighted odds computed with the weights, caps on
the sum of weights, and exact odds that refuse at once what the roller refuses.

No wall clock: each test counts what the engine did (rolls of a table analysed, totals
listed) or checks that a refusal came before the expensive part started.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from pathlib import Path

import pytest

from kerker.errors import KerkerError
from kerker.tables import odds as odds_module
from kerker.tables.engine import MAX_STEPS, roll_table
from kerker.tables.odds import TooManyOutcomes, table_odds
from kerker.tables.registry import TableError, load_registry


def _weighted(tmp_path: Path, weights: list[str], name: str = "w") -> Path:
    rows = "".join(
        f"      - weight: {w}\n        text: {{en: row {i}}}\n" for i, w in enumerate(weights)
    )
    path = tmp_path / f"{name}.yaml"
    path.write_text(
        "schema: 1\nrule_set: mine\nlanguage: en\ntables:\n"
        f"  - name: {name}\n    title: {{en: W}}\n    source: {{heading: W}}\n"
        f"    rows:\n{rows}",
        encoding="utf-8",
    )
    return path


def test_weighted_odds_use_the_weights_not_a_die(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = load_registry([_weighted(tmp_path, ["9999", "1"])])
    listed: list[int] = []
    original = odds_module._Odds.weighted_totals

    def counted(self: odds_module._Odds, rows: tuple[object, ...]) -> dict[int, Fraction]:
        out = original(self, rows)  # type: ignore[arg-type]
        listed.append(len(out))
        return out

    monkeypatch.setattr(odds_module._Odds, "weighted_totals", counted)
    result = {o.text: p for o, p in table_odds(registry, "mine/w")}
    assert result == {"row 0": Fraction(9999, 10000), "row 1": Fraction(1, 10000)}
    assert listed == [2]  # one entry per row, not 10 000 (memory did not follow the weights)


def test_weighted_rows_that_read_the_roll_count_each_number(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_text(
        "schema: 1\nrule_set: mine\nlanguage: en\ntables:\n"
        "  - name: r\n    title: {en: R}\n    source: {heading: R}\n    rows:\n"
        "      - weight: 3\n        text: {en: low}\n"
        "        effects: [{roll: n, when: 'result == 2'}]\n"
        "      - weight: 1\n        text: {en: high}\n"
        "  - name: n\n    title: {en: N}\n    source: {heading: N}\n    dice: W2\n    rows:\n"
        "      - range: [1, 2]\n        text: {en: note}\n",
        encoding="utf-8",
    )
    result = {o.describe(): p for o, p in table_odds(load_registry([path]), "mine/r")}
    assert result == {"low": Fraction(1, 2), "low [note]": Fraction(1, 4), "high": Fraction(1, 4)}


@pytest.mark.parametrize(
    "weights", [["9999999", "1"], ["1" + "0" * 400, "1"], ["5000", "5000", "1"]]
)
def test_weights_past_the_cap_are_refused_on_loading(tmp_path: Path, weights: list[str]) -> None:
    path = _weighted(tmp_path, weights)
    with pytest.raises(KerkerError) as info:
        load_registry([path])
    message = str(info.value)
    assert message.startswith(f"{path}:") and "\n" not in message
    assert "d10001" not in message and len(message) < 400


def test_weights_up_to_the_cap_roll_and_have_odds(tmp_path: Path) -> None:
    registry = load_registry([_weighted(tmp_path, ["9999", "1"])])
    rng = random.Random(5)
    seen = {roll_table(registry, "mine/w", rng)[0].row.text["en"] for _ in range(200)}
    assert seen <= {"row 0", "row 1"} and "row 0" in seen
    assert sum(p for _, p in table_odds(registry, "mine/w")) == 1


def _chain(tmp_path: Path, length: int, times: int) -> Path:
    parts = ["schema: 1\nrule_set: chain\nlanguage: en\ntables:\n"]
    for i in range(length):
        follow = (
            f"        effects: [{{roll: t{i + 1}, times: '{times}'}}]\n" if i < length - 1 else ""
        )
        parts.append(
            f"  - name: t{i}\n    title: {{en: T{i}}}\n    source: {{heading: T}}\n"
            f"    dice: W2\n    rows:\n      - range: [1, 1]\n        text: {{en: one}}\n"
            f"{follow}      - range: [2, 2]\n        text: {{en: two}}\n"
        )
    path = tmp_path / "chain.yaml"
    path.write_text("".join(parts), encoding="utf-8")
    return path


def test_odds_refuse_at_once_what_the_roller_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Six tables each rolling the next 100 times: the roller refuses it (more than 2 000
    # rolls); the exact odds were still running after 200 s.
    registry = load_registry([_chain(tmp_path, 6, 100)])
    with pytest.raises(TableError, match=f"more than {MAX_STEPS} rolls"):
        roll_table(registry, "chain/t0", random.Random(1))

    def never(*args: object) -> None:
        raise AssertionError("the walk started")

    monkeypatch.setattr(odds_module._Odds, "__init__", never)
    with pytest.raises(TableError, match=f"more than {MAX_STEPS} rolls"):
        table_odds(registry, "chain/t0")


def test_a_chain_the_roller_takes_has_odds(tmp_path: Path) -> None:
    registry = load_registry([_chain(tmp_path, 3, 5)])
    result = table_odds(registry, "chain/t0")
    assert sum(p for _, p in result) == 1
    # t2 has 2 outcomes; t1 "two" or "one" with a multiset of 5 of t2's: 1 + 6 = 7;
    # t0 "two" or "one" with a multiset of 5 of t1's 7.
    assert len(result) == 1 + math.comb(5 + 7 - 1, 5)


def test_too_many_multisets_are_refused_before_they_are_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = load_registry([_chain(tmp_path, 3, 40)])
    built: list[int] = []
    original = odds_module._Odds.sized

    def sized(
        self: odds_module._Odds, dist: dict[object, Fraction], table: object
    ) -> dict[object, Fraction]:
        built.append(len(dist))
        return original(self, dist, table)  # type: ignore[arg-type]

    monkeypatch.setattr(odds_module._Odds, "sized", sized)
    with pytest.raises(TooManyOutcomes):
        table_odds(registry, "chain/t0", max_outcomes=300)
    # Nothing larger than the cap plus one row's worth was ever built.
    assert max(built) <= 300 + 41
