"""Every shipped rolled table: sampled rows agree with the exact row probabilities.

For each table (default context), 600 seeded rolls are compared with the exact probability
of each top-level row from the probability tree (chi-square, p = 0.0001 as ~200 tables are
tested at once; rare rows pooled).
Tables with a short list of final outcomes are also compared outcome by outcome.
"""

from __future__ import annotations

import collections
import random
import zlib

import pytest

from kerker.tables.engine import roll_table
from kerker.tables.odds import TooManyOutcomes, outcome_of, table_odds
from kerker.tables.registry import load_registry
from kerker.tables.tree import table_tree

REGISTRY = load_registry()
ROLLED = [t.id for t in REGISTRY if t.kind != "lookup"]


def _critical(df: int) -> float:
    z = 3.72  # p = 0.0001 (about 200 tests here), Wilson-Hilferty
    return df * (1 - 2 / (9 * df) + z * (2 / (9 * df)) ** 0.5) ** 3


def _chi2(observed: dict[object, int], expected: dict[object, float]) -> tuple[float, int]:
    big = {k: e for k, e in expected.items() if e >= 5}
    pooled_e = sum(e for k, e in expected.items() if k not in big)
    pooled_o = sum(o for k, o in observed.items() if k not in big)
    cells = [(observed.get(k, 0), e) for k, e in big.items()]
    if pooled_e >= 5:
        cells.append((pooled_o, pooled_e))
    chi2 = sum((o - e) ** 2 / e for o, e in cells)
    return chi2, max(1, len(cells) - 1)


def test_there_are_many_shipped_tables() -> None:
    assert len(ROLLED) > 90


@pytest.mark.parametrize("table_id", ROLLED)
def test_rows_sampled_match_exact(table_id: str) -> None:
    tree = table_tree(REGISTRY, table_id, lang="en")
    assert sum(row.p for row in tree.rows) == 1
    n = 600
    rng = random.Random(zlib.crc32(table_id.encode()))
    seen: collections.Counter[str] = collections.Counter()
    for _ in range(n):
        result, _log = roll_table(REGISTRY, table_id, rng)
        seen[result.pick.row.label()] += 1
    expected = {row.label: n * float(row.p) for row in tree.rows}
    assert set(seen) <= set(expected), set(seen) - set(expected)
    chi2, df = _chi2(dict(seen), expected)
    assert chi2 < _critical(df), (chi2, df)


@pytest.mark.parametrize("table_id", ROLLED)
def test_final_outcomes_sampled_match_exact(table_id: str) -> None:
    try:
        exact = dict(table_odds(REGISTRY, table_id, lang="de", max_outcomes=60))
    except TooManyOutcomes:
        pytest.skip("long list of outcomes: rows are checked above")
    assert sum(exact.values()) == 1
    n = 1500
    rng = random.Random(7)
    seen: collections.Counter[object] = collections.Counter()
    for _ in range(n):
        result, _log = roll_table(REGISTRY, table_id, rng)
        outcome = outcome_of(result, "de")
        assert outcome in exact, outcome.describe()
        seen[outcome] += 1
    chi2, df = _chi2(dict(seen), {o: n * float(p) for o, p in exact.items()})
    assert chi2 < _critical(df), (chi2, df)
