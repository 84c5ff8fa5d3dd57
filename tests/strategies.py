"""Hypothesis strategies that mirror the dice grammar (docs/dice.md).

- :func:`expressions`: text shaped like the grammar -- numbers, dice with random (valid and
  invalid) modifiers, binary operators in every spelling, groups, computed counts, ``min`` /
  ``max`` calls, unary signs, whitespace -- plus occasional junk, so both sides of every
  check in the parser are exercised.
- :func:`valid_expressions`: the same shapes, but only what the parser accepts, kept small
  enough for exact odds.
- :func:`token_soup` and :func:`any_text`: grammar tokens in random order, and arbitrary text.
"""

from __future__ import annotations

from hypothesis import strategies as st

SPACES = ["", "", "", "", " ", "  ", "\u00a0", "\u2009", "\u202f", "\t"]
PLUS_MINUS = ["+", "-", "\u2212", "\u2013"]  # + - − –
TIMES = ["*", "\u00d7", "x", "X", "\u00b7", "\u22c5"]  # * × x X · ⋅
DIVIDE = ["/", ":", "\u00f7"]  # / : ÷
OPERATORS = PLUS_MINUS + TIMES + DIVIDE
LETTERS = ["d", "D", "w", "W"]
COMPARISONS = ["=", "<", "<=", ">", ">="]

spaces = st.sampled_from(SPACES)


@st.composite
def numbers(draw: st.DrawFn) -> str:
    """Mostly small numbers; sometimes zero, leading zeros, big or too many digits."""
    return draw(
        st.one_of(
            st.integers(0, 12).map(str),
            st.integers(0, 999).map(str),
            st.integers(0, 10**12).map(str),
            st.integers(1, 99).map(lambda n: "0" + str(n)),
        )
    )


@st.composite
def sides(draw: st.DrawFn) -> str:
    return draw(
        st.one_of(
            st.sampled_from(["6", "20", "%", "F", "f", "66", "666", "10", "100", "4", "2", "1"]),
            st.sampled_from(["0", "6666", "{66}", "{3}", "{0}", "{}", "{6", "10001"]),
            numbers().map(lambda n: n if n else "6"),
            numbers().map(lambda n: "{" + n + "}"),
        )
    )


@st.composite
def conditions(draw: st.DrawFn) -> str:
    comparison = draw(st.sampled_from(["", *COMPARISONS]))
    return comparison + draw(numbers())


@st.composite
def modifiers(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["keep", "reroll", "explode", "success", "junk"]))
    if kind == "keep":
        mode = draw(st.sampled_from(["kh", "kl", "dh", "dl", "k", "KH", "Dl"]))
        return mode + draw(st.one_of(st.just(""), numbers()))
    if kind == "reroll":
        return draw(st.sampled_from(["r", "ro", "R", "rO"])) + draw(
            st.one_of(conditions(), st.just(""))
        )
    if kind == "explode":
        return "!" + draw(st.one_of(st.just(""), conditions()))
    if kind == "success":
        return draw(st.sampled_from(COMPARISONS)) + draw(st.one_of(numbers(), st.just("")))
    return draw(st.sampled_from(["d", "h", "!!", "k0", "=>", "%", "{", "}"]))


@st.composite
def dice_terms(draw: st.DrawFn) -> str:
    count = draw(st.one_of(st.just(""), st.integers(1, 5).map(str), numbers()))
    letter = draw(st.sampled_from(LETTERS))
    mods = draw(st.lists(modifiers(), max_size=3))
    return count + letter + draw(sides()) + "".join(mods)


@st.composite
def _binary(draw: st.DrawFn, children: st.SearchStrategy[str]) -> str:
    left, right = draw(children), draw(children)
    op = draw(st.sampled_from(OPERATORS))
    return left + draw(spaces) + op + draw(spaces) + right


@st.composite
def _call(draw: st.DrawFn, children: st.SearchStrategy[str]) -> str:
    name = draw(st.sampled_from(["min", "max"]))
    args = draw(st.lists(children, min_size=1, max_size=3))
    sep = "," + draw(spaces)
    return name + "(" + sep.join(args) + ")"


@st.composite
def _computed(draw: st.DrawFn, children: st.SearchStrategy[str]) -> str:
    tail = draw(dice_terms())
    tail = tail.lstrip("0123456789")  # the group is the count
    return "(" + draw(children) + ")" + tail


def expressions() -> st.SearchStrategy[str]:
    """Text shaped like the grammar, valid or not."""
    atoms = st.one_of(numbers(), dice_terms(), dice_terms())
    return st.recursive(
        atoms,
        lambda children: st.one_of(
            _binary(children),
            children.map(lambda c: "(" + c + ")"),
            st.tuples(st.sampled_from(PLUS_MINUS), children).map("".join),
            _call(children),
            _computed(children),
        ),
        max_leaves=8,
    ).flatmap(lambda text: st.tuples(spaces, st.just(text), spaces).map("".join))


TOKENS = [
    *OPERATORS,
    *LETTERS,
    *COMPARISONS,
    "(",
    ")",
    ",",
    "!",
    "%",
    "F",
    "{",
    "}",
    "kh",
    "kl",
    "dh",
    "dl",
    "k",
    "r",
    "ro",
    "min",
    "max",
    "0",
    "1",
    "3",
    "6",
    "20",
    "66",
    "666",
    "100",
    "999999999",
    " ",
    "\u00a0",
    "\u200b",
    "½",
    "🎲",
    "é",
]


def token_soup() -> st.SearchStrategy[str]:
    """Grammar tokens in random order."""
    return st.lists(st.sampled_from(TOKENS), max_size=14).map("".join)


def any_text() -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=40), token_soup())


# -- only what the parser accepts ------------------------------------------------------------
_VALID_DICE = [
    ("6", tuple(range(1, 7))),
    ("4", tuple(range(1, 5))),
    ("10", tuple(range(1, 11))),
    ("20", tuple(range(1, 21))),
    ("%", tuple(range(1, 101))),
    ("F", (-1, 0, 1)),
    ("66", tuple(10 * a + b for a in range(1, 7) for b in range(1, 7))),
    ("{7}", tuple(range(1, 8))),
    ("2", (1, 2)),
]

_TESTS = {
    "=": lambda f, v: f == v,
    "<": lambda f, v: f < v,
    "<=": lambda f, v: f <= v,
    ">": lambda f, v: f > v,
    ">=": lambda f, v: f >= v,
}


@st.composite
def _valid_condition(
    draw: st.DrawFn, faces: tuple[int, ...], *, allow_all: bool, fallback: str
) -> str:
    """A condition matching some face, and -- unless ``allow_all`` -- not every face."""
    op = draw(st.sampled_from(["", *COMPARISONS]))
    value = draw(st.sampled_from(faces))
    hits = sum(1 for f in faces if _TESTS[op or "="](f, value))
    if value < 0 or hits == 0 or (hits == len(faces) and not allow_all):
        return fallback  # conditions take no negative numbers ("r-1" is refused)
    return op + str(value)


@st.composite
def valid_dice_terms(draw: st.DrawFn) -> str:
    side_text, faces = draw(st.sampled_from(_VALID_DICE))
    n = draw(st.integers(1, 4))
    count = "" if n == 1 and draw(st.booleans()) else str(n)
    mods: list[str] = []
    keep = explode = success = False
    if draw(st.booleans()):
        mode = draw(st.sampled_from(["kh", "kl", "dh", "dl"] if n > 1 else ["kh", "kl"]))
        k = draw(st.integers(1, n if mode in ("kh", "kl") else n - 1))
        mods.append(mode + str(k))
        keep = True
    if draw(st.booleans()):
        once = draw(st.booleans())
        cond = draw(_valid_condition(faces, allow_all=once, fallback=f"<{min(faces) + 1}"))
        mods.append(("ro" if once else "r") + cond)
    if draw(st.booleans()):
        cond = draw(_valid_condition(faces, allow_all=False, fallback=f">{max(faces) - 1}"))
        mods.append("!" + cond)
        explode = True
    if draw(st.booleans()) and not (keep and explode):
        comparison = draw(st.sampled_from(COMPARISONS))
        mods.append(comparison + str(draw(st.sampled_from([f for f in faces if f >= 0]))))
        success = True
    del success
    return count + draw(st.sampled_from(LETTERS)) + side_text + "".join(mods)


@st.composite
def _valid_binary(draw: st.DrawFn, children: st.SearchStrategy[str]) -> str:
    left = draw(children)
    op = draw(st.sampled_from(OPERATORS))
    right = draw(children)
    if op in DIVIDE:
        right = draw(st.sampled_from(["2", "3", "-2", "W4", "(W6+1)"]))
    return left + draw(spaces) + op + draw(spaces) + right


def valid_expressions() -> st.SearchStrategy[str]:
    """Only text the parser accepts, small enough for exact odds (most of the time)."""
    atoms = st.one_of(st.integers(0, 20).map(str), valid_dice_terms(), valid_dice_terms())
    return st.recursive(
        atoms,
        lambda children: st.one_of(
            _valid_binary(children),
            children.map(lambda c: "(" + c + ")"),
            children.map(lambda c: "-" + c),
            st.lists(children, min_size=1, max_size=3).map(
                lambda args: "max(" + ", ".join(args) + ")"
            ),
            st.lists(children, min_size=1, max_size=3).map(
                lambda args: "min(" + ",".join(args) + ")"
            ),
            st.tuples(st.sampled_from(["(W4)", "(W3-1)", "(2)", "(W2)"]), valid_dice_terms()).map(
                lambda t: t[0] + t[1].lstrip("0123456789")
            ),
        ),
        max_leaves=5,
    )
