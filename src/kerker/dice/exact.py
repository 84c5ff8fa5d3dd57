"""Exact odds of a dice expression, on integer counts.

A :class:`Distribution` maps each outcome to an integer count over a common ``total``;
probabilities come out as :class:`~fractions.Fraction`. Nothing is sampled and no float is
ever added. The engine:

- sums of identical dice by convolution (a sliding window for plain dice: O(size) per die);
- keep/drop by a multiset dynamic programme over the die's outcomes from the highest (or
  lowest) down: for each outcome, how many of the remaining dice show it (binomial
  coefficient times the outcome's count to that power) and how many of those are kept --
  polynomial in the number of dice, never an enumeration of all rolls;
- rerolls and explosions as exact per-die distributions under the same caps the roller uses
  (``Limits.max_rerolls`` does not change the odds: a capped reroll draws from the allowed
  faces; ``Limits.max_explode_depth`` stops a chain, exactly as when rolling);
- ``+ - * / min max`` between independent terms as joint distributions; a computed count such
  as ``(W4)W6`` as a mixture.

Every step is counted against ``Limits.max_odds_work`` and every distribution against
``Limits.max_outcomes``, so any expression is answered or refused quickly. A step costs in
proportion to the size of the exact counts it handles (one unit per :data:`WORD_BITS` bits),
and the costly loops -- the sums of many dice, a computed count's mixture, a bag of dice --
estimate their whole cost (outcomes x bits) *before* they start, so an expression that cannot
be answered within the limits is refused at once instead of after the work.
"""

from __future__ import annotations

import math
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from kerker.dice.ast import BinOp, Call, Cond, Dice, Expr, Group, Keep, Neg, Node, Num
from kerker.dice.parser import check_term_limits
from kerker.errors import N_, DiceLimitError, DiceRollError
from kerker.limits import DEFAULT_LIMITS, Limits


class Distribution:
    """Outcome -> integer count, over ``total`` (the counts add up to ``total``).

    Operations return new distributions. Those handed out by :func:`odds` are read-only
    (their ``counts`` is a mapping proxy), so a cached result cannot be changed by a caller.
    """

    __slots__ = ("counts", "total")

    def __init__(self, counts: Mapping[int, int], total: int) -> None:
        self.counts = counts
        self.total = total

    @classmethod
    def constant(cls, value: int) -> Distribution:
        """Certainly ``value``."""
        return cls({value: 1}, 1)

    @classmethod
    def uniform(cls, faces: tuple[int, ...]) -> Distribution:
        """Each face once (a fair die)."""
        counts: dict[int, int] = {}
        for face in faces:
            counts[face] = counts.get(face, 0) + 1
        return cls(counts, len(faces))

    def reduced(self) -> Distribution:
        """The same distribution with counts and total divided by their common factor."""
        g = self.total
        for c in self.counts.values():
            g = math.gcd(g, c)
            if g == 1:
                break
        if g <= 1:
            return Distribution(MappingProxyType(dict(sorted(self.counts.items()))), self.total)
        return Distribution(
            MappingProxyType({v: c // g for v, c in sorted(self.counts.items())}),
            self.total // g,
        )

    # -- reading ---------------------------------------------------------------------------
    def outcomes(self) -> list[int]:
        """The possible outcomes, ascending."""
        return sorted(v for v, c in self.counts.items() if c)

    def __iter__(self) -> Iterator[tuple[int, Fraction]]:
        for value in self.outcomes():
            yield value, Fraction(self.counts[value], self.total)

    def probabilities(self) -> dict[int, Fraction]:
        """Outcome -> exact probability, ascending by outcome."""
        return dict(iter(self))

    def probability(self, value: int) -> Fraction:
        """P(result = value)."""
        return Fraction(self.counts.get(value, 0), self.total)

    def at_least(self, value: int) -> Fraction:
        """P(result >= value)."""
        return Fraction(sum(c for v, c in self.counts.items() if v >= value), self.total)

    def at_most(self, value: int) -> Fraction:
        """P(result <= value)."""
        return Fraction(sum(c for v, c in self.counts.items() if v <= value), self.total)

    @property
    def min(self) -> int:
        """The smallest possible result."""
        return min(v for v, c in self.counts.items() if c)

    @property
    def max(self) -> int:
        """The largest possible result."""
        return max(v for v, c in self.counts.items() if c)

    @property
    def mean(self) -> Fraction:
        """The exact expected value."""
        return Fraction(sum(v * c for v, c in self.counts.items()), self.total)

    @property
    def variance(self) -> Fraction:
        """The exact variance."""
        mean = self.mean
        return Fraction(sum(c * (v - mean) ** 2 for v, c in self.counts.items()), self.total)

    @property
    def stdev(self) -> float:
        """The standard deviation (the square root of the exact variance).

        ``math.inf`` when it is too large for a float (results beyond about 1e308).
        """
        variance = self.variance
        try:
            return math.sqrt(variance)
        except OverflowError:  # the variance exceeds a float; its root may not
            root = math.isqrt(variance.numerator // variance.denominator)
            return float(root) if root.bit_length() < 1024 else math.inf

    def percentile(self, p: Fraction | float | int) -> int:
        """The smallest outcome x with P(result <= x) >= p (p in [0, 1])."""
        try:
            target = Fraction(p)
        except (TypeError, ValueError, OverflowError):
            target = Fraction(-1)
        if not 0 <= target <= 1:
            raise DiceRollError(N_("a percentile must be between 0 and 1, not {p}"), p=p)
        running = 0
        need = target * self.total
        for value in self.outcomes():
            running += self.counts[value]
            if running >= need:
                return value
        return self.max

    def to_json(self) -> dict[str, Any]:
        """``{"outcomes": [{"value", "p", "at_least", "at_most"}], "mean", ...}``.

        Probabilities as ``"n/d"`` strings (exact), mean and variance too; ``stdev`` a float.
        """
        rows = []
        below = 0
        for value in self.outcomes():
            count = self.counts[value]
            rows.append(
                {
                    "value": value,
                    "p": _frac(Fraction(count, self.total)),
                    "at_most": _frac(Fraction(below + count, self.total)),
                    "at_least": _frac(Fraction(self.total - below, self.total)),
                }
            )
            below += count
        return {
            "outcomes": rows,
            "min": self.min,
            "max": self.max,
            "mean": _frac(self.mean),
            "variance": _frac(self.variance),
            "stdev": round(self.stdev, 6),
            "percentiles": {str(p): self.percentile(Fraction(p, 100)) for p in (5, 25, 50, 75, 95)},
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Distribution):
            return NotImplemented
        return self.probabilities() == other.probabilities()

    def __hash__(self) -> int:
        return hash(tuple(self.probabilities().items()))

    def __repr__(self) -> str:
        return f"Distribution({self.reduced().counts!r}, total={self.reduced().total})"


def fixed(value: Fraction | int, digits: int = 2) -> str:
    """``value`` with exactly ``digits`` decimals, rounded half to even, without a float.

    The same text as ``f"{float(value):.{digits}f}"`` wherever a float can hold the value,
    and still right where it cannot (a mean beyond 1e308 never overflows).
    """
    if digits < 0:
        raise DiceRollError(N_("a number cannot be shown with {n} decimals"), n=digits)
    scaled = round(Fraction(value) * 10**digits)
    sign = "-" if scaled < 0 else ""
    whole, part = divmod(abs(scaled), 10**digits)
    if not digits:
        return f"{sign}{whole}"
    return f"{sign}{whole}.{part:0{digits}d}"


def _frac(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


WORD_BITS = 256
"""Bits of an exact count that cost one more unit of work per step (calibrated in bench/dice.py:
a step on small counts and one more unit per 256 bits take about the same time)."""


def _cost(steps: int, bits: int) -> int:
    """Work units of ``steps`` multiply-adds on counts of ``bits`` bits."""
    return steps * (1 + bits // WORD_BITS)


class _Engine:
    """One exact analysis: counts work and sizes against the limits.

    ``work`` is the work done (or committed to by an estimate) so far; it never passes
    ``limits.max_odds_work``.
    """

    def __init__(self, limits: Limits, source: str) -> None:
        self.limits = limits
        self.source = source
        self.work = 0

    def tick(self, steps: int, bits: int = 0) -> None:
        """Count ``steps`` steps on counts of ``bits`` bits, before doing them."""
        work = self.work + _cost(steps, bits)
        if work > self.limits.max_odds_work:
            raise DiceLimitError(
                N_("too complex for exact odds (more than {max} steps); roll it instead"),
                expression=self.source,
                max=self.limits.max_odds_work,
            )
        self.work = work

    def afford(self, estimate: int) -> None:
        """Refuse at once when an estimated ``estimate`` units would pass the work cap."""
        if self.work + estimate > self.limits.max_odds_work:
            raise DiceLimitError(
                N_("too complex for exact odds (more than {max} steps); roll it instead"),
                expression=self.source,
                max=self.limits.max_odds_work,
            )

    def check_bits(self, bits: int) -> None:
        """Refuse counts of more than ``limits.max_odds_bits`` bits before computing them."""
        if bits > self.limits.max_odds_bits:
            raise DiceLimitError(
                N_(
                    "too many dice for exact odds (the fractions would have more than {max} "
                    "bits); roll it instead"
                ),
                expression=self.source,
                max=self.limits.max_odds_bits,
            )

    def sized(self, dist: Distribution, node: Node | None = None) -> Distribution:
        self.check_bits(dist.total.bit_length())
        if len(dist.counts) > self.limits.max_outcomes:
            raise DiceLimitError(
                N_("more than {max} different results; too many for exact odds"),
                expression=self.source,
                column=None if node is None else node.span[0] + 1,
                max=self.limits.max_outcomes,
            )
        return dist

    # -- combining independent distributions ---------------------------------------------
    def add(self, a: Distribution, b: Distribution) -> Distribution:
        bits = a.total.bit_length() + b.total.bit_length()
        self.check_bits(bits - 1)
        self.tick(len(a.counts) * len(b.counts), bits)
        out: defaultdict[int, int] = defaultdict(int)
        for va, ca in a.counts.items():
            for vb, cb in b.counts.items():
                out[va + vb] += ca * cb
        return self.sized(Distribution(dict(out), a.total * b.total))

    def combine(
        self, a: Distribution, b: Distribution, fn: Callable[[int, int], int]
    ) -> Distribution:
        bits = a.total.bit_length() + b.total.bit_length()
        self.check_bits(bits - 1)
        self.tick(len(a.counts) * len(b.counts), bits)
        out: defaultdict[int, int] = defaultdict(int)
        for va, ca in a.counts.items():
            for vb, cb in b.counts.items():
                out[fn(va, vb)] += ca * cb
        return self.sized(Distribution(dict(out), a.total * b.total))

    def mapped(self, a: Distribution, fn: Callable[[int], int]) -> Distribution:
        self.tick(len(a.counts), a.total.bit_length())
        out: defaultdict[int, int] = defaultdict(int)
        for v, c in a.counts.items():
            out[fn(v)] += c
        return Distribution(dict(out), a.total)

    @staticmethod
    def _dense(die: Distribution) -> bool:
        values = sorted(die.counts)
        return values[-1] - values[0] + 1 == len(values) and len(set(die.counts.values())) == 1

    def _sizes(self, die: Distribution, n: int) -> list[int]:
        """Upper bounds of the outcomes of the sum of 0, 1, ..., n copies of ``die``.

        Past ``limits.max_outcomes`` a sum is refused, so no bound exceeds it by more than one.
        """
        values = sorted(die.counts)
        spread = values[-1] - values[0]
        m = len(values)
        cap = self.limits.max_outcomes + 1
        sizes = [1]
        for i in range(1, n + 1):
            size = min(i * spread + 1, cap)
            if m <= 64 and size > 1:  # multisets of i faces out of m
                size = min(size, math.comb(i + m - 1, m - 1))
            sizes.append(size)
        return sizes

    def sums_cost(self, die: Distribution, n: int, sizes: list[int]) -> int:
        """The work :meth:`sums` will count for ``n`` dice, from the outcome bounds ``sizes``."""
        log_total = math.log2(die.total)
        dense = self._dense(die)
        width = len(die.counts)
        cost = 0
        for i in range(n):
            step = sizes[i] + width if dense else sizes[i] * width
            cost += _cost(step, math.ceil(log_total * (i + 1)))
            if cost > self.limits.max_odds_work:
                break
        return cost

    def keep_cost(
        self, per_die: Distribution, n: int, k: int, contribution: Callable[[int], int]
    ) -> int:
        """An upper bound of the work :meth:`keep` will count for k kept of n dice."""
        k = max(0, min(k, n))
        values = {contribution(o) for o in per_die.counts}
        spread = max(values) - min(values)
        cap = self.limits.max_outcomes + 1
        bits = math.ceil(n * math.log2(per_die.total)) if per_die.total > 1 else 1
        steps = 0
        for placed in range(k):
            steps += min(placed * spread + 1, cap) * (k - placed + 1)
        return _cost(steps * len(per_die.counts), bits)

    def sums(self, die: Distribution, n: int) -> Iterator[Distribution]:
        """Yield the distributions of the sum of 0, 1, ..., n independent copies of ``die``."""
        current = Distribution.constant(0)
        yield current
        values = sorted(die.counts)
        dense = self._dense(die)
        for _ in range(n):
            if dense:
                current = self._add_window(
                    current, values[0], values[-1], die.counts[values[0]], die.total
                )
            else:
                current = self.add(current, die)
            yield current

    def _add_window(
        self, a: Distribution, lo: int, hi: int, weight: int, die_total: int
    ) -> Distribution:
        """Add a die with faces lo..hi, each of count ``weight``, by a sliding window."""
        amin, amax = min(a.counts), max(a.counts)
        span = amax - amin + 1
        width = hi - lo + 1
        self.tick(span + width, a.total.bit_length() + die_total.bit_length())
        dense = [a.counts.get(amin + i, 0) for i in range(span)]
        out: dict[int, int] = {}
        window = 0
        # out[k] = weight * sum(dense[k-width+1 .. k]) for k in 0 .. span+width-2
        for k in range(span + width - 1):
            if k < span:
                window += dense[k]
            if k - width >= 0:
                window -= dense[k - width]
            if window:
                out[amin + lo + k] = window * weight
        return self.sized(Distribution(out, a.total * die_total))

    # -- one die ----------------------------------------------------------------------------
    def throw(self, node: Dice) -> Distribution:
        """One physical throw after its reroll rule."""
        die = Distribution.uniform(node.die.faces)
        reroll = node.reroll
        if reroll is None:
            return die
        hit = [f for f in node.die.faces if reroll.cond.test(f)]
        if not reroll.once:
            return Distribution.uniform(tuple(f for f in node.die.faces if not reroll.cond.test(f)))
        m = len(node.die.faces)
        counts: defaultdict[int, int] = defaultdict(int)
        for face in node.die.faces:
            counts[face] += len(hit)  # first throw hit the rule, the reroll shows `face`
            if not reroll.cond.test(face):
                counts[face] += m  # first throw shows `face` and stands
        return Distribution(dict(counts), m * m)

    def chain(
        self, throw: Distribution, explode: Cond, contribution: Callable[[int], int]
    ) -> Distribution:
        """A die that may explode up to ``max_explode_depth`` times; sums ``contribution``."""
        current = self.mapped(throw, contribution)
        exploding = sum(1 for face in throw.counts if explode.test(face))
        for _ in range(self.limits.max_explode_depth):
            out: defaultdict[int, int] = defaultdict(int)
            # only the exploding faces combine with the rest of the chain
            self.tick(
                len(throw.counts) + exploding * len(current.counts),
                throw.total.bit_length() + current.total.bit_length(),
            )
            for face, c in throw.counts.items():
                value = contribution(face)
                if explode.test(face):
                    for rest, cr in current.counts.items():
                        out[value + rest] += c * cr
                else:
                    out[value] += c * current.total
            current = self.sized(Distribution(dict(out), throw.total * current.total))
        return current

    def keep(
        self,
        per_die: Distribution,
        n: int,
        k: int,
        highest: bool,
        contribution: Callable[[int], int],
    ) -> Distribution:
        """Sum of ``contribution`` over the k highest (lowest) of n dice, by multiset DP.

        Outcomes are visited best first. A state is (dice placed so far, all of them kept:
        ``placed < k``) -> (sum of their contributions -> count). From a state, t more dice
        show the current outcome: while ``placed + t < k`` the state goes on; as soon as the
        k-th kept die is placed, every remaining die shows a worse outcome, and all those
        endings are counted at once: sum over t >= need of C(left, t) w^t R^(left-t), with
        R the weight of the worse outcomes, which is (w + R)^left minus the terms t < need.
        So the work is O(outcomes x k^2 x sums), independent of how many dice are dropped.
        """
        k = max(0, min(k, n))
        self.check_bits(n * (per_die.total.bit_length() - 1) + 1)  # before the work
        total = per_die.total**n
        bits = total.bit_length()
        self.check_bits(bits)
        if k == 0:
            return Distribution({0: total}, total)
        outcomes = sorted(per_die.counts, reverse=highest)
        weights = [per_die.counts[o] for o in outcomes]
        worse = [0] * len(outcomes)
        running = 0
        for index in range(len(outcomes) - 1, -1, -1):
            worse[index] = running
            running += weights[index]
        states: dict[int, dict[int, int]] = {0: {0: 1}}
        result: defaultdict[int, int] = defaultdict(int)
        for index, outcome in enumerate(outcomes):
            if not states:
                break
            w = weights[index]
            rest = worse[index]
            value = contribution(outcome)
            new: dict[int, dict[int, int]] = {}
            for placed, sums in states.items():
                left = n - placed
                need = k - placed
                self.tick(len(sums) * (need + 1), bits)
                # t < need dice show this outcome: still fewer than k kept dice placed.
                staying = [math.comb(left, t) * w**t for t in range(need)]
                ending = (w + rest) ** left - sum(
                    ways * rest ** (left - t) for t, ways in enumerate(staying)
                )
                if rest:
                    for t, ways in enumerate(staying):
                        if not ways:
                            continue
                        add = value * t
                        target = new.setdefault(placed + t, {})
                        for s, c in sums.items():
                            target[s + add] = target.get(s + add, 0) + c * ways
                if ending:
                    add = value * need
                    for s, c in sums.items():
                        result[s + add] += c * ending
            states = new
        return self.sized(Distribution(dict(result), total))

    # -- the tree ----------------------------------------------------------------------------
    def node(self, node: Node) -> Distribution:
        if isinstance(node, Num):
            return Distribution.constant(node.value)
        if isinstance(node, Group):
            return self.node(node.inner)
        if isinstance(node, Neg):
            return self.mapped(self.node(node.operand), lambda v: -v)
        if isinstance(node, Call):
            pick = min if node.name == "min" else max
            result = self.node(node.args[0])
            for arg in node.args[1:]:
                result = self.combine(result, self.node(arg), lambda a, b: pick(a, b))
            return result
        if isinstance(node, BinOp):
            return self.binop(node)
        return self.dice(node)

    def binop(self, node: BinOp) -> Distribution:
        left = self.node(node.left)
        right = self.node(node.right)
        if node.op == "+":
            return self.add(left, right)
        if node.op == "-":
            return self.combine(left, right, lambda a, b: a - b)
        if node.op == "*":
            return self.combine(left, right, lambda a, b: a * b)
        if right.counts.get(0):
            raise DiceRollError(
                N_("division by zero: the divisor can come up 0"),
                expression=self.source,
                column=node.right.span[0] + 1,
            )
        return self.combine(left, right, lambda a, b: a // b)

    def dice(self, node: Dice) -> Distribution:
        check_term_limits(node, self.limits, self.source)
        success = node.success
        throw = self.throw(node)

        def identity(v: int) -> int:
            return v

        def hit(v: int) -> int:
            return 1 if success is not None and success.test(v) else 0

        if node.explode is not None:
            per_die = self.chain(
                throw,
                node.explode.cond,
                hit if success is not None and node.keep is None else identity,
            )
        else:
            per_die = throw
        keep = node.keep
        contribution = (
            hit if success is not None and (keep is not None or node.explode is None) else identity
        )
        if keep is None:
            unit = self.mapped(per_die, contribution) if contribution is hit else per_die

        counts = self.count_distribution(node)
        wanted = sorted(counts.counts)
        n_max = wanted[-1]
        single = len(wanted) == 1
        base = per_die.total
        # Before the work: the size of the counts and, for sums, the whole cost.
        weight_bits = 0 if single else counts.total.bit_length()
        self.check_bits(n_max * (base.bit_length() - 1) + 1 + max(0, weight_bits - 1))
        if keep is None:
            sizes = self._sizes(unit, n_max)
            estimate = self.sums_cost(unit, n_max, sizes)
            if not single:
                out_bits = n_max * base.bit_length() + weight_bits
                estimate += sum(_cost(sizes[n], out_bits) for n in wanted)
            self.afford(estimate)
        else:
            estimate = 0
            for n in wanted:
                estimate += self.keep_cost(per_die, n, self._kept(keep, n)[0], contribution)
                if estimate > self.limits.max_odds_work:
                    break
            self.afford(estimate)
        if single:
            if keep is None:
                last = Distribution.constant(0)
                for dist in self.sums(unit, n_max):  # only the last sum is kept
                    last = dist
                return last
            return self.keep(per_die, n_max, *self._kept(keep, n_max), contribution)
        # A computed count: the mixture of the sums for each count, added up as they come
        # (a common denominator of base ** n_max), so only one sum is held at a time.
        common = base**n_max
        out: defaultdict[int, int] = defaultdict(int)
        out_bits = common.bit_length() + weight_bits

        def mix(n: int, dist: Distribution) -> None:
            scale = counts.counts[n] * (common // dist.total)
            self.tick(len(dist.counts), out_bits)
            for v, c in dist.counts.items():
                out[v] += c * scale

        if keep is None:
            for n, dist in enumerate(self.sums(unit, n_max)):
                if n in counts.counts:
                    mix(n, dist)
        else:
            for n in wanted:
                mix(n, self.keep(per_die, n, *self._kept(keep, n), contribution))
        return self.sized(Distribution(dict(out), counts.total * common))

    @staticmethod
    def _kept(keep: Keep, n: int) -> tuple[int, bool]:
        """(dice kept, highest first?) of ``keep`` among n dice."""
        if keep.mode in ("kh", "kl"):
            return keep.n, keep.mode == "kh"
        return n - keep.n, keep.mode == "dl"

    def count_distribution(self, node: Dice) -> Distribution:
        if isinstance(node.count, Num):
            return Distribution.constant(node.count.value)
        counts = self.node(node.count)
        column = node.span[0] + 1
        if counts.min < 0:
            raise DiceRollError(
                N_("the number of dice can come up {n}; it cannot be negative"),
                expression=self.source,
                column=column,
                n=counts.min,
            )
        if counts.max > self.limits.max_dice_per_term:
            raise DiceLimitError(
                N_("{n} dice in one term; the limit is {max}"),
                expression=self.source,
                column=column,
                n=counts.max,
                max=self.limits.max_dice_per_term,
            )
        return counts


def odds(expr: Expr | str, limits: Limits = DEFAULT_LIMITS) -> Distribution:
    """The exact distribution of ``expr``'s result (counts reduced to lowest terms).

    Refuses with :class:`~kerker.errors.DiceLimitError` what would take more than
    ``limits.max_odds_work`` steps or have more than ``limits.max_outcomes`` results, and
    with :class:`~kerker.errors.DiceRollError` a divisor that can be 0.
    """
    if isinstance(expr, str):
        from kerker.dice.parser import parse

        expr = parse(expr, limits)
    return _odds_cached(expr, limits)


MAX_CACHED = 128
"""Distributions kept by :func:`odds` (least recently used dropped first) ..."""
MAX_CACHED_OUTCOMES = 400_000
"""... and outcomes in all of them together: a few big distributions (up to
``Limits.max_outcomes`` each, with counts of thousands of bits) cannot pile up."""


class _OddsCache:
    """:func:`odds`' memory: bounded by :data:`MAX_CACHED` distributions and
    :data:`MAX_CACHED_OUTCOMES` outcomes in all, least recently used dropped first."""

    def __init__(self) -> None:
        self._held: OrderedDict[tuple[Expr, Limits], Distribution] = OrderedDict()
        self._outcomes = 0

    def __call__(self, expr: Expr, limits: Limits) -> Distribution:
        key = (expr, limits)
        held = self._held
        found = held.get(key)
        if found is not None:
            held.move_to_end(key)
            return found
        dist = _Engine(limits, expr.source).node(expr.root).reduced()
        held[key] = dist
        self._outcomes += len(dist.counts)
        while len(held) > 1 and (len(held) > MAX_CACHED or self._outcomes > MAX_CACHED_OUTCOMES):
            _old, dropped = held.popitem(last=False)
            self._outcomes -= len(dropped.counts)
        return dist

    def __len__(self) -> int:
        return len(self._held)

    def outcomes(self) -> int:
        """Outcomes held in all cached distributions."""
        return self._outcomes

    def cache_clear(self) -> None:
        """Forget every cached distribution."""
        self._held.clear()
        self._outcomes = 0


_odds_cached = _OddsCache()
