"""Property tests over generated expressions (strategies in tests/strategies.py).

1. Whatever the text, kerker answers or raises a :class:`KerkerError` -- never another
   exception: parse, roll, exact odds (under a small work cap), and every renderer.
2. For expressions the parser accepts, every rolled total lies in the support of the exact odds
   (rolls and odds obey the same caps, so they describe the same random variable).
"""

from __future__ import annotations

import contextlib
import json
import random

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from strategies import any_text, expressions, valid_expressions

from kerker.dice import odds, parse, roll
from kerker.errors import DiceError, DiceLimitError, DiceRollError, KerkerError
from kerker.limits import Limits

WORK = Limits(max_odds_work=200_000, max_explode_depth=3)


def _everything(text: str) -> None:
    """Parse, roll, analyse and render ``text``; only KerkerErrors may escape (and are
    caught here); any other exception fails the test."""
    try:
        expr = parse(text, WORK)
    except KerkerError as err:
        assert isinstance(err, DiceError)
        assert err.column is None or 1 <= err.column <= len(text) + 1
        return
    assert expr.source == text
    try:
        result = roll(expr, random.Random(0), WORK)
    except (DiceLimitError, DiceRollError):
        pass
    else:
        json.dumps(result.to_json(), ensure_ascii=False)
        assert result.explain().endswith(f"= {result.total}")
    try:
        dist = odds(expr, WORK)
    except (DiceLimitError, DiceRollError):
        return
    assert sum(dist.counts.values()) == dist.total
    json.dumps(dist.to_json())


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions())
@example("W6" + "*999999999" * 20)  # a standard deviation beyond a float
@example("(W4-3)W6")  # a computed count that can be negative
@example("W6/(W2-1)")  # a divisor that can be 0
@example("1" * 12)
@example("(" * 41 + "1" + ")" * 41)
def test_grammar_shaped_text_never_raises_anything_else(text: str) -> None:
    _everything(text)


@settings(max_examples=500, deadline=None)
@given(any_text())
def test_arbitrary_text_never_raises_anything_else(text: str) -> None:
    _everything(text)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_expressions(), st.integers(0, 2**32 - 1))
def test_valid_expressions_roll_inside_their_odds(text: str, seed: int) -> None:
    expr = parse(text, WORK)  # the strategy only makes text the parser accepts
    try:
        dist = odds(expr, WORK)
    except DiceLimitError:
        return  # too big for exact odds under the small cap
    except DiceRollError:
        # a divisor or a count that *can* come up 0 / negative; a roll may still succeed
        with contextlib.suppress(DiceRollError):
            roll(expr, random.Random(seed), WORK)
        return
    assert sum(dist.probabilities().values()) == 1
    rng = random.Random(seed)
    for _ in range(5):
        result = roll(expr, rng, WORK)  # nothing may fail when the odds exist
        assert result.total in dist.counts, (text, result.explain())


@settings(max_examples=150, deadline=None)
@given(valid_expressions(), st.integers(0, 2**32 - 1))
def test_rolls_are_deterministic(text: str, seed: int) -> None:
    try:
        first = roll(text, random.Random(seed), WORK).to_json()
    except (DiceLimitError, DiceRollError):
        return
    assert roll(text, random.Random(seed), WORK).to_json() == first
