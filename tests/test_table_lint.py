"""The table linter: one fixture per kind of problem, exact positions, and no exceptions."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kerker.tables.lint import Problem, lint_paths

FIXTURES = Path(__file__).parent / "fixtures" / "tables"
LINT = FIXTURES / "lint"


def _lint(*names: str, **kwargs: object) -> list[str]:
    return [str(p) for p in lint_paths([LINT / n for n in names], **kwargs)]  # type: ignore[arg-type]


def _where(problems: list[str], fixture: str) -> list[str]:
    """Problems as ``line:col: message`` (the fixture path cut off)."""
    prefix = f"{LINT / fixture}:"
    assert all(p.startswith(prefix) for p in problems), problems
    return [p[len(prefix) :] for p in problems]


def test_clean_fixture_has_no_problems() -> None:
    assert _lint("clean.yaml") == []


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("bad_yaml.yaml", [("6:9", "not valid YAML: did not find expected ',' or '}'")]),
        (
            "schema.yaml",
            [
                ("5:5", "tables.0.name: String should match pattern"),
                ("13:13", "tables.0.rows.0.effects.0.roll: String should match pattern"),
                ("14:13", "tables.0.rows.0.effects.1: an effect needs one of roll, again, amount"),
                ("16:57", "tables.1.title.fr: Input should be 'de', 'it' or 'en'"),
                ("20:9", "tables.1.rows.0: range [6, 1] runs backwards"),
            ],
        ),
        (
            "gap.yaml",
            [
                ("8:5", "no row covers 11-12, 21, which W20 with modifiers +0 to +1 can roll"),
            ],
        ),
        (
            "overlap.yaml",
            [
                ("12:9", "row 10-20 overlaps row 1-12 (line 10): 10-12 would hit both"),
                ("20:9", "row 5+ overlaps row 0-5 (line 18): 5 would hit both"),
            ],
        ),
        (
            "never.yaml",
            [
                ("12:9", "row 7-8 can never be hit: W6 gives 1-6"),
                (
                    "21:9",
                    "row 17-20 can never be hit: W66 gives 11-16, 21-26, 31-36, 41-46, 51-56, "
                    "61-66",
                ),
                ("33:11", "no row covers 3, which W4 can roll"),
            ],
        ),
        (
            "refs.yaml",
            [
                ("13:13", "roll: there is no table fixture/schaz; did you mean fixture/schatz?"),
                ("19:17", "roll: fixture/worte is a lookup table; it is read, not rolled"),
            ],
        ),
        (
            "cycle.yaml",
            [
                (
                    "12:13",
                    "follow-up rolls go round in a circle: fixture/ping -> fixture/pong -> "
                    "fixture/ping",
                ),
                (
                    "32:13",
                    "circle: fixture/selbst -> fixture/selbst; to roll a table again use "
                    "`again: true`",
                ),
            ],
        ),
        (
            "languages.yaml",
            [
                ("6:5", "title has no text in it"),
                ("10:9", "notes has no text in it, en"),
                ("13:9", "text has no text in it, en"),
                ("16:13", "unit has no text in en"),
                ("18:13", "text has no text in de"),
                ("19:13", "else_text has no text in en"),
                ("20:13", "note has no text in de, it"),
            ],
        ),
        (
            "expressions.yaml",
            [
                (
                    "8:5",
                    "dice '{dice_count}W6' reads 'dice_count', which is not known here "
                    "(known: guarded, level)",
                ),
                ("10:5", "modifier: expression \"__import__('os')\": Call is not allowed"),
                ("16:13", "when 'guardd and result > 3' reads 'guardd', which is not known here"),
                ("17:41", "with.wrong: expression 'result +' cannot be read"),
                ("18:13", "amount '{level}W -> 1W' is not a dice expression"),
                # `depth` is known in `ziel`: the roll passes it with `with:`.
                ("23:5", "modifier 'depth // 10 + bonus' reads 'bonus', which is not known here"),
            ],
        ),
        (
            "placeholders.yaml",
            [
                (
                    "12:79",
                    "text: nothing fills in {amont} (known here: amount, guarded, level, "
                    "result, width)",
                ),
                ("17:16", "text: {2 * level} is not a placeholder (only {name} is filled in)"),
                (
                    "19:20",
                    "note: {width} would show as is; placeholders are filled in row texts only",
                ),
            ],
        ),
        (
            "misc.yaml",
            [
                ("8:5", "`modifier` does nothing on a table without `dice`"),
                ("24:15", "a row of a sub-table cannot have its own `then`; it is never rolled"),
                # `bonus` rolls `ziel` with modifier 2; the "{level}W6" table `stufe` gets no
                # "never hit" report for its rows above 6.
                ("42:5", "no row covers 7-8, which W6 with modifiers +0 to +2 can roll"),
            ],
        ),
    ],
)
def test_each_kind_of_problem(fixture: str, expected: list[tuple[str, str]]) -> None:
    found = _where(_lint(fixture), fixture)
    assert len(found) == len(expected), found
    for got, (where, fragment) in zip(found, expected, strict=True):
        assert got.startswith(where + ": "), (got, where)
        assert fragment in got, (got, fragment)


def test_gaps_reroll_table_is_not_reported() -> None:
    assert not [p for p in _lint("gap.yaml") if ":16:" in p or "erneut" in p]


def test_duplicate_ids_across_files_and_non_table_files_skipped() -> None:
    problems = lint_paths([LINT / "dup"])
    assert [str(p) for p in problems] == [
        f"{LINT / 'dup' / 'zwei.yaml'}:5:5: warning: table id fixture/zwilling is also "
        f"defined in {LINT / 'dup' / 'eins.yaml'}:5; only one of them is used"
    ]


def test_non_table_file_named_explicitly_is_reported() -> None:
    (problem,) = lint_paths([LINT / "dup" / "notes.yaml"])
    assert problem.line == 1 and "not a table file" in problem.message


def test_missing_path() -> None:
    (problem,) = lint_paths([LINT / "nope.yaml"])
    assert str(problem) == f"{LINT / 'nope.yaml'}:1:1: no such file or folder"


def test_registry_paths_make_ids_known() -> None:
    assert _lint("external.yaml") == [
        f"{LINT / 'external.yaml'}:12:13: roll: there is no table anderes/ding"
    ]
    assert _lint("external.yaml", registry_paths=[FIXTURES / "registry"]) == []


def test_problem_shape_and_translation() -> None:
    problem = Problem(
        "a.yaml",
        3,
        7,
        "title has no text in it",
        "{field} has no text in {missing}",
        {"field": "title", "missing": "it"},
    )
    assert str(problem) == "a.yaml:3:7: title has no text in it"
    assert (
        problem.text(lambda t: t.replace("has no text in", "hat keinen Text auf"))
        == "a.yaml:3:7: title hat keinen Text auf it"
    )
    assert problem == Problem("a.yaml", 3, 7, "title has no text in it")
    with pytest.raises(AttributeError):
        problem.line = 4  # type: ignore[misc]


def test_problems_are_sorted_over_files() -> None:
    problems = lint_paths([LINT / "overlap.yaml", LINT / "gap.yaml", LINT / "never.yaml"])
    keys = [(p.file, p.line, p.col) for p in problems]
    assert keys == sorted(keys)
    assert {Path(p.file).name for p in problems} == {"overlap.yaml", "gap.yaml", "never.yaml"}


def test_not_utf8_and_alias_bombs(tmp_path: Path) -> None:
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"schema: 1\ntables: [\xe4]\n")
    (problem,) = lint_paths([latin])
    assert (problem.line, problem.message) == (2, "not UTF-8 text (byte 20)")
    bomb = tmp_path / "bomb.yaml"
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 8)]
    bomb.write_text("\n".join(lines) + "\ntables: *a7\n", encoding="utf-8")
    (problem,) = lint_paths([bomb])
    assert "expands to more than" in problem.message
    loop = tmp_path / "loop.yaml"
    loop.write_text("tables: &t [*t]\n", encoding="utf-8")
    (problem,) = lint_paths([loop])
    assert "refers to itself" in problem.message


def test_shipped_rule_files_lint_without_raising() -> None:
    # The shipped data is being written; whatever it holds, the result is only problems.
    problems = lint_paths([])
    assert all(isinstance(p, Problem) for p in problems)
    assert not [p for p in problems if "please report it" in p.message]


# -- never raises ------------------------------------------------------------------------------


def _lint_text(content: bytes) -> list[Problem]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.yaml"
        path.write_bytes(content)
        problems = lint_paths([path])
    assert all(isinstance(p, Problem) and p.line >= 1 and p.col >= 1 for p in problems)
    assert not [p for p in problems if "please report it" in p.message], problems
    return problems


@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_random_bytes_give_only_problems(content: bytes) -> None:
    _lint_text(content)


_YAMLISH = st.lists(
    st.sampled_from([*"- []{}&*!|>'\"#%@,?\n  abc019W{}", "tables:", "rows:", "\n  - "]),
    max_size=60,
).map("".join)


@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(_YAMLISH)
def test_random_yamlish_text_gives_only_problems(content: str) -> None:
    _lint_text(content.encode("utf-8"))


_DICE = st.sampled_from(
    [
        "W6",
        "W20",
        "2W6",
        "W66",
        "W%",
        "W10",
        "{level}W6",
        "W",
        "W0",
        "{x}W6",
        "W{66}",
        "W6+{1 if guarded else 0}",
        "(",
        "1000W1000",
    ]
)
_EXPR = st.sampled_from(
    [
        "1",
        "guarded",
        "1 if guarded else 0",
        "result > 3",
        "x +",
        "level",
        "__import__('os')",
        "1 // 0",
        "bonus",
        "true",
    ]
)
_TEXT = st.dictionaries(
    st.sampled_from(["de", "it", "en", "fr"]),
    st.one_of(
        st.sampled_from(["Eins.", "{amount} KM", "{x}", "{1+1}", ""]),
        st.fixed_dictionaries({"one": st.just("a"), "other": st.just("{amount} b")}),
    ),
    max_size=3,
)
_RANGE = st.one_of(
    st.tuples(st.integers(-3, 70), st.one_of(st.none(), st.integers(-3, 70))).map(list),
    st.just("x"),
    st.just([1]),
)


def _effects(depth: int) -> st.SearchStrategy[list[dict[str, object]]]:
    leaf: st.SearchStrategy[dict[str, object]] = st.one_of(
        st.fixed_dictionaries(
            {"roll": st.sampled_from(["a", "b", "c", "x/y", "Bad"])},
            optional={
                "times": st.sampled_from([1, "W3", "{x}", "W"]),
                "modifier": _EXPR,
                "reroll_if": _EXPR,
                "when": _EXPR,
                "with": st.dictionaries(st.sampled_from(["x", "guarded"]), _EXPR, max_size=2),
            },
        ),
        st.fixed_dictionaries({"again": st.just(True)}, optional={"add": st.just({"area": 1})}),
        st.fixed_dictionaries({"amount": _DICE}, optional={"unit": _TEXT}),
        st.fixed_dictionaries({"note": _TEXT}),
        st.fixed_dictionaries({"bogus": st.just(1)}),
    )
    if depth > 0:
        leaf = st.one_of(
            leaf,
            st.fixed_dictionaries(
                {"chance": st.integers(0, 100)},
                optional={"text": _TEXT, "then": _effects(depth - 1), "else": _effects(depth - 1)},
            ),
        )
    return st.lists(leaf, max_size=3)


_ROW = st.fixed_dictionaries(
    {"text": _TEXT},
    optional={
        "range": _RANGE,
        "weight": st.integers(-1, 3),
        "effects": _effects(1),
        "value": st.just({"x": 1}),
        "then": st.fixed_dictionaries(
            {
                "dice": _DICE,
                "rows": st.lists(
                    st.fixed_dictionaries({"range": _RANGE, "text": _TEXT}), max_size=3
                ),
            }
        ),
    },
)
_TABLE = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["a", "b", "c", "Bad"]),
        "title": _TEXT,
        "source": st.just({"heading": "H"}),
        "rows": st.lists(_ROW, max_size=4),
    },
    optional={
        "dice": _DICE,
        "modifier": _EXPR,
        "params": st.just({"guarded": False}),
        "gaps": st.sampled_from(["error", "reroll", "maybe"]),
    },
)
_FILE = st.fixed_dictionaries(
    {
        "schema": st.sampled_from([1, 2]),
        "rule_set": st.sampled_from(["fx", "Bad"]),
        "language": st.sampled_from(["de", "fr"]),
        "tables": st.lists(_TABLE, max_size=3),
    },
)


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(_FILE)
def test_random_table_files_give_only_problems(data: dict[str, object]) -> None:
    _lint_text(json.dumps(data, ensure_ascii=False).encode("utf-8"))


def test_dice_too_large_for_exact_results(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    text = (
        (LINT / "never.yaml")
        .read_text(encoding="utf-8")
        .replace("dice: W6\n", "dice: 20W1000\n", 1)
    )
    path.write_text(text, encoding="utf-8")
    problems = [str(p) for p in lint_paths([path])]
    assert (
        f"{path}:8:5: the rows cannot be checked: the results of 20W1000 cannot be "
        "worked out (more than 10000 different results" in problems[0]
    )
