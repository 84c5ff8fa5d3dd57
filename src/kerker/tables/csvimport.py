"""Import a table pasted from a book as CSV: ranges in the first column, text after it.

:func:`import_csv` turns CSV text into the YAML of a valid table file (docs/tables.md):

- the separator is whatever separates a range from the text: tab, ``;`` or ``,`` (the one
  under which most lines start with a readable range wins; in that order on a tie);
- a first line whose first cell is not a range is a header. If its first cell is a dice
  expression (``W20``, ``d%``) that is the die, unless ``dice`` is given. If the other
  header cells all name languages (``de``/``deutsch``, ``it``/``italiano``, ``en``/
  ``english``) each is that language's text; otherwise the cells after the range are
  joined (``", "``, or ``"; "`` for semicolon files) as text in ``lang``;
- ranges are read as printed: ``01-05``, ``1–4`` (any dash, ``bis``, ``to``, ``a``), ``18``,
  ``20+`` (and above), ``00`` = 100 on a W% and ``0`` = 10 on a W10 (``9-0``);
- without ``dice`` the die is told from the ranges: a ``00`` means W%, a ``0`` W10; 11..66
  in digits 1-6 W66 (111..666: W666); 1..N for N in 2, 3, 4, 6, 8, 10, 12, 20, 30, 100 a
  single die; n..n·f a sum (2-12: 2W6, 3-18: 3W6). Anything else asks for ``dice``.

Refused with :class:`~kerker.errors.RuleDataError` (file = ``source_file`` or ``CSV``,
line = the CSV line): an empty text, a row without a range or text, a range that runs
backwards, overlapping ranges, more than :data:`MAX_ROWS` rows, text that is not CSV.
Gaps are not refused -- a book table may have them; ``kerker table lint`` reports them.

Only the languages given are written: nothing is copied into the others. A comment at the
top says which are missing; ``kerker table lint`` lists every one. The result is checked
with :class:`kerker.tables.schema.TableFile` (and read back) before it is returned.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
import unicodedata
from dataclasses import dataclass

from kerker.errors import N_, KerkerError, OptionError, RuleDataError

MAX_ROWS = 1000
MAX_CHARS = 1_000_000
MAX_CSV_BYTES = 4 * MAX_CHARS
"""A CSV file larger than this is refused before it is read (UTF-8: at most 4 bytes a
character)."""
SNIFF_RECORDS = 30
DELIMITERS = ("\t", ";", ",")
SINGLE_DICE = (2, 3, 4, 6, 8, 10, 12, 20, 30, 100)
SUM_FACES = (4, 6, 8, 10, 12, 20)

_LANG_NAMES = {
    "de": "de",
    "deutsch": "de",
    "german": "de",
    "tedesco": "de",
    "it": "it",
    "italiano": "it",
    "italian": "it",
    "italienisch": "it",
    "en": "en",
    "english": "en",
    "englisch": "en",
    "inglese": "en",
}
_LANGS = ("de", "it", "en")
_LANGUAGE_WORD = {"de": "German", "it": "Italian", "en": "English"}
_RANGE = re.compile(
    r"^(\d{1,6})\s*(?:[-\u2010-\u2015\u2212~]|\.\.|bis|to|a)\s*(\d{1,6})$", re.IGNORECASE
)
_SINGLE = re.compile(r"^(\d{1,6})$")
_OPEN = re.compile(r"^(\d{1,6})\s*\+$")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_DICE_WORD = re.compile(r"(?<![A-Za-z0-9])\d*[WwDd](?:\d+|%)(?![A-Za-z0-9])")
_NUMBERISH = re.compile(r"[-+]?[0-9.][0-9a-zA-Z._+-]*")
_PLAIN_BAD_START = frozenset("-?:,[]{}#&*!|>'\"%@`~ ")
_AMOUNT = re.compile(
    r"(?<![\w{])(\d{1,3}\s?[WwDd](?:\d{1,4}|%)"
    r"(?:\s?[×x*]\s?\d{1,7}|\s?[+\-−]\s?\d{1,7})*)(?![\w}])"
)
MAX_AMOUNTS = 4
"""Dice amounts found in one row's text at most (more stay text)."""


@dataclass(frozen=True)
class _Raw:
    """A range as printed (texts, to read once the die is known) and its row."""

    lo: str
    hi: str | None
    open: bool
    texts: dict[str, str]
    line: int


def _where(source_file: str | None) -> str:
    return source_file or "CSV"


def _parse_range(cell: str) -> tuple[str, str | None, bool] | None:
    """``(lo, hi, open)`` as printed, or None when the cell is not a range."""
    text = " ".join(cell.replace("\u00a0", " ").split())
    if m := _RANGE.match(text):
        return m.group(1), m.group(2), False
    if m := _SINGLE.match(text):
        return m.group(1), None, False
    if m := _OPEN.match(text):
        return m.group(1), None, True
    return None


def _clean(cell: str) -> str:
    return " ".join(_CONTROL.sub("", cell).split())


def _records(
    text: str, delimiter: str, where: str, limit: int | None = None
) -> list[tuple[int, list[str]]]:
    """(first line, cells) of every non-empty CSV record (the first ``limit`` of them)."""
    reader = csv.reader(io.StringIO(text), delimiter=delimiter, strict=True)
    out: list[tuple[int, list[str]]] = []
    while limit is None or len(out) < limit:
        start = reader.line_num + 1
        try:
            record = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            if reader.line_num > start or "end of data" in str(exc):
                raise RuleDataError(
                    N_("a quote opened on this line is never closed"), file=where, line=start
                ) from None
            raise RuleDataError(
                N_("this is not CSV: {reason}"),
                file=where,
                line=reader.line_num or start,
                reason=str(exc),
            ) from None
        if reader.line_num > start and _swallows_rows(record, delimiter):
            raise RuleDataError(
                N_("a quote opened on this line runs over the rows up to line {end}; close it"),
                file=where,
                line=start,
                end=reader.line_num,
            )
        if any(cell.strip() for cell in record):
            out.append((start, record))
    return out


def _swallows_rows(record: list[str], delimiter: str) -> bool:
    """Whether a quoted cell spans lines that read as rows of their own (``2,Silber``):
    an unclosed quote, not a text with a line break."""
    for cell in record:
        for line in cell.splitlines()[1:]:
            head, sep, rest = line.partition(delimiter)
            if sep and rest.strip() and _parse_range(head) is not None:
                return True
    return False


def _sniff(text: str, where: str) -> str:
    """The delimiter under which most of the first records start with a range."""
    best, best_score = DELIMITERS[0], -1
    errors: list[RuleDataError] = []
    for delimiter in DELIMITERS:
        try:
            records = _records(text, delimiter, where, SNIFF_RECORDS)
        except RuleDataError as exc:
            errors.append(exc)
            continue
        score = sum(
            1
            for _line, cells in records
            if len(cells) >= 2
            and _parse_range(cells[0]) is not None
            and any(c.strip() for c in cells[1:])
        )
        if score > best_score:
            best, best_score = delimiter, score
    if best_score <= 0 and errors:
        raise errors[-1]  # no separator reads: say why the likeliest (",") failed
    return best


def _dice_text(cell: str) -> str | None:
    """The dice a header cell names (``W20``, ``d%``, ``Wurf (2W6)``), or None."""
    from kerker.dice import parse
    from kerker.dice.ast import Dice

    candidates: list[str] = [cell.strip(), *_DICE_WORD.findall(cell)]
    for candidate in candidates:
        if not candidate or len(candidate) > 20:
            continue
        try:
            expr = parse(candidate)
        except KerkerError:
            continue
        if isinstance(expr.root, Dice):
            return candidate
    return None


def _is_header(cell: str) -> bool:
    """A first cell that is no range and does not look like a mistyped one (``1-x``)."""
    text = cell.strip()
    if _parse_range(text) is not None:
        return False
    return not text[:1].isdigit() or _dice_text(text) == text


def _norm_dice(dice: str) -> str:
    return dice.replace(" ", "").upper().replace("D", "W").removeprefix("1W").removeprefix("W")


def _infer_dice(raws: list[_Raw], where: str) -> str:
    tokens = [t for r in raws for t in (r.lo, r.hi) if t is not None]
    if "00" in tokens:
        return "W%"
    if any(r.hi == "0" and r.lo != "0" for r in raws) or (
        "0" in tokens and all(int(t) <= 9 for t in tokens)
    ):
        return "W10"
    lows = [int(r.lo) for r in raws]
    highs = [int(r.hi) if r.hi is not None else int(r.lo) for r in raws]
    lo, hi = min(lows), max(highs)
    for digits in (2, 3):
        if (
            hi == int("6" * digits)
            and lo >= int("1" * digits)
            and all(len(t) == digits and set(t) <= set("123456") for t in tokens)
        ):
            return "W" + "6" * digits
    if lo == 1 and hi in SINGLE_DICE:
        return "W%" if hi == 100 else f"W{hi}"
    if lo > 1 and hi % lo == 0 and hi // lo in SUM_FACES:
        return f"{lo}W{hi // lo}"
    raise RuleDataError(
        N_("cannot tell the die from the ranges {lo}-{hi}; name it (e.g. --dice 2d6)"),
        file=where,
        lo=lo,
        hi=hi,
    )


def _read(token: str, dice: str) -> int:
    kind = _norm_dice(dice)
    if token == "0" and kind == "10":
        return 10
    if token == "00" and kind in ("%", "100"):
        return 100
    return int(token)


def slug(text: str) -> str:
    """A table or rule-set name from free text: ``Schatzbehälter`` -> ``schatzbehaelter``."""
    out = text.strip().lower()
    for umlaut, plain in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss")):
        out = out.replace(umlaut, plain)
    out = unicodedata.normalize("NFKD", out).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9_-]+", "-", out).strip("-_")


def _scalar(text: str, force: bool) -> str:
    """``text`` as a YAML scalar inside a flow mapping: plain when that is safe."""
    plain_ok = (
        not force
        and text
        and text == text.strip()
        and text[0] not in _PLAIN_BAD_START
        and not any(c in text for c in ",[]{}#\"'\\")
        and ": " not in text
        and not text.endswith(":")
        and text.lower() not in ("true", "false", "null", "~", "yes", "no", "on", "off")
        and not _NUMBERISH.fullmatch(text)
        and text.isprintable()
    )
    return text if plain_ok else json.dumps(text, ensure_ascii=False)


@dataclass(frozen=True)
class _Spec:
    """Everything the YAML file says."""

    name: str
    rule_set: str
    lang: str
    dice: str
    title: str
    source_file: str | None
    rows: list[tuple[int, int | None, dict[str, str]]]
    comments: list[str]
    amounts: list[list[tuple[str, str]]]
    """Per row: (name, dice expression) of every amount rolled into its text."""


def _emit(spec: _Spec, *, force: bool) -> str:
    """The YAML text: one flow line per row; ``force`` double-quotes every text."""

    def mapping(texts: dict[str, str]) -> str:
        return "{" + ", ".join(f"{k}: {_scalar(v, force)}" for k, v in texts.items()) + "}"

    out = [f"# {c}" for c in spec.comments]
    out += ["schema: 1", f"rule_set: {spec.rule_set}"]
    if spec.source_file:
        out.append(f"source_file: {_scalar(spec.source_file, force)}")
    out += [
        f"language: {spec.lang}",
        "tables:",
        f"  - name: {spec.name}",
        f"    title: {mapping({spec.lang: spec.title})}",
        f"    source: {{heading: {_scalar(spec.title, force)}}}",
        f"    dice: {_scalar(spec.dice, force)}",
        "    rows:",
    ]
    for (lo, hi, texts), amounts in zip(spec.rows, spec.amounts, strict=True):
        out.append(f"      - range: [{lo}, {'null' if hi is None else hi}]")
        out.append(f"        text: {mapping(texts)}")
        if amounts:
            effects = ", ".join(
                "{amount: "
                + _scalar(expr, True)
                + ("" if name == "amount" else f", name: {name}")
                + "}"
                for name, expr in amounts
            )
            out.append(f"        effects: [{effects}]")
    return "\n".join(out) + "\n"


def import_csv(
    text: str,
    *,
    name: str,
    rule_set: str = "custom",
    lang: str = "de",
    dice: str | None = None,
    heading: str | None = None,
    source_file: str | None = None,
) -> str:
    """The YAML text of a table file holding the table pasted as CSV ``text``.

    ``name`` and ``rule_set`` are turned into ids (``Schatz Tabelle`` -> ``schatz-tabelle``);
    ``heading`` (default: ``name`` as given) is the heading as printed and the title in
    ``lang``. Raises :class:`RuleDataError` with the CSV line for unreadable input and
    :class:`~kerker.errors.OptionError` for a bad ``name``, ``rule_set``, ``lang`` or
    ``dice``. See the module docstring for the formats read.
    """
    from kerker.i18n import check_language

    where = _where(source_file)
    lang = check_language(lang)
    table_name, set_name = slug(name), slug(rule_set)
    if not table_name or not set_name:
        raise OptionError(
            N_("a table name and a rule set need letters or digits: {name!r}, {rule_set!r}"),
            name=name,
            rule_set=rule_set,
        )
    if dice is not None:
        from kerker.dice import odds

        try:
            odds(dice)
        except KerkerError as exc:
            raise OptionError(
                N_("the dice {dice!r}: {error}"), dice=dice, error=exc.message()
            ) from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise RuleDataError(N_("the CSV is empty"), file=where, line=1)
    if len(text) > MAX_CHARS:
        raise RuleDataError(
            N_("the CSV is longer than {max} characters"), file=where, max=MAX_CHARS
        )
    delimiter = _sniff(text, where)
    records = _records(text, delimiter, where)
    if not records:
        raise RuleDataError(N_("the CSV is empty"), file=where, line=1)
    columns: list[str | None] | None = None  # language per text column
    header_line, header = records[0]
    if _is_header(header[0]):
        records = records[1:]
        header_dice = _dice_text(header[0])
        if dice is None and header_dice is not None:
            dice = header_dice
        named = [_LANG_NAMES.get(c.strip().lower()) for c in header[1:]]
        if any(named):
            if not all(named) or len(set(named)) != len(named):
                raise RuleDataError(
                    N_(
                        "the header names languages and other columns ({cells}); with "
                        "language columns every text column must be one of de, it, en, once"
                    ),
                    file=where,
                    line=header_line,
                    cells=", ".join(header[1:]),
                )
            columns = list(named)
    if not records:
        raise RuleDataError(N_("the CSV has a header but no rows"), file=where, line=header_line)
    join = "; " if delimiter == ";" else ", "
    raws: list[_Raw] = []
    for line, cells in records:
        if len(raws) >= MAX_ROWS:
            raise RuleDataError(N_("more than {max} rows"), file=where, line=line, max=MAX_ROWS)
        parsed = _parse_range(cells[0])
        if parsed is None:
            raise RuleDataError(
                N_("{cell!r} is not a range such as 1-4, 18 or 20+"),
                file=where,
                line=line,
                cell=cells[0].strip(),
            )
        texts: dict[str, str] = {}
        if columns is None:
            joined = join.join(c for c in (_clean(c) for c in cells[1:]) if c)
            if joined:
                texts[lang] = joined
        else:
            for column, cell in zip(columns, cells[1:], strict=False):
                value = _clean(cell)
                if value and column is not None:
                    texts[column] = value
        if not texts:
            raise RuleDataError(
                N_("the range {cell!r} has no text"), file=where, line=line, cell=cells[0].strip()
            )
        lo_text, hi_text, _open = parsed
        if hi_text is not None and hi_text not in ("0", "00") and int(hi_text) < int(lo_text):
            raise RuleDataError(
                N_("the range {lo}-{hi} runs backwards"),
                file=where,
                line=line,
                lo=lo_text,
                hi=hi_text,
            )
        raws.append(_Raw(parsed[0], parsed[1], parsed[2], texts, line))
    if dice is None:
        dice = _infer_dice(raws, where)
    rows: list[tuple[int, int | None, dict[str, str]]] = []
    for raw in raws:
        lo = _read(raw.lo, dice)
        hi = None if raw.open else (lo if raw.hi is None else _read(raw.hi, dice))
        if hi is not None and hi < lo:
            raise RuleDataError(
                N_("the range {lo}-{hi} runs backwards"),
                file=where,
                line=raw.line,
                lo=raw.lo,
                hi=raw.hi,
            )
        rows.append((lo, hi, {k: raw.texts[k] for k in _LANGS if k in raw.texts}))
    _check_overlaps(rows, raws, where)
    amounts: list[list[tuple[str, str]]] = []
    for i, (lo, hi, texts) in enumerate(rows):
        new_texts, found = dice_amounts(texts, lang)
        rows[i] = (lo, hi, new_texts)
        amounts.append(found)
    title = " ".join((heading or name).split()) or table_name
    comments = _comments(rows, lang, source_file)
    if any(amounts):
        comments.append(
            "Dice in a text (2W6 Goldmünzen) became a rolled amount ({amount} "
            "Goldmünzen): check them against the book."
        )
    spec = _Spec(table_name, set_name, lang, dice, title, source_file, rows, comments, amounts)
    yaml_text = _emit(spec, force=False)
    if not _reads_back(yaml_text, rows, title, amounts):
        yaml_text = _emit(spec, force=True)
    _validate(yaml_text, where)
    return yaml_text


def dice_amounts(texts: dict[str, str], lang: str) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Dice written in a row's texts (``2W6 Goldmünzen``, ``3d6 monete``, ``1W6+2``,
    ``2W10 × 100``) as rolled amounts, as the shipped tables have them: each expression
    becomes a placeholder (``{amount}``, then ``{amount2}`` ...) in every text that has it,
    and ``(name, expression)`` is returned for the row's effects.

    Only a count and a die (``2W6``, not a bare ``W20``, which is usually a die to roll
    again) with optional ``× n`` and ``+ n`` parts, that the dice language reads, and at most
    :data:`MAX_AMOUNTS` per row; texts with braces of their own are left alone.

    >>> dice_amounts({"de": "2W6 Goldmünzen"}, "de")
    ({'de': '{amount} Goldmünzen'}, [('amount', '2W6')])
    """
    from kerker.dice import parse
    from kerker.errors import DiceError

    if any("{" in t or "}" in t for t in texts.values()):
        return texts, []
    order = [lang, *(k for k in texts if k != lang)]
    names: dict[str, str] = {}
    for key in order:
        for match in _AMOUNT.finditer(texts.get(key, "")):
            expr = match.group(1)
            norm = _norm_amount(expr)
            if norm in names or len(names) >= MAX_AMOUNTS:
                continue
            try:
                parse(expr)
            except DiceError:
                continue
            names[norm] = "amount" if not names else f"amount{len(names) + 1}"
    if not names:
        return texts, []

    def placeholder(match: re.Match[str]) -> str:
        name = names.get(_norm_amount(match.group(1)))
        return match.group(0) if name is None else "{" + name + "}"

    new = {key: _AMOUNT.sub(placeholder, text) for key, text in texts.items()}
    found: dict[str, str] = {}
    for key in order:
        for match in _AMOUNT.finditer(texts.get(key, "")):
            norm = _norm_amount(match.group(1))
            if norm in names and norm not in found:
                found[norm] = " ".join(match.group(1).split())
    return new, [(names[norm], found[norm]) for norm in names]


def _norm_amount(expr: str) -> str:
    return "".join(expr.split()).lower().replace("w", "d").replace("×", "x").replace("*", "x")


def _comments(
    rows: list[tuple[int, int | None, dict[str, str]]], lang: str, source_file: str | None
) -> list[str]:
    """The comment lines at the top: where it came from, which texts are missing."""
    everywhere = [k for k in _LANGS if all(k in texts for _lo, _hi, texts in rows)]
    others = [k for k in _LANGS if k != lang]
    out = [f"Imported by `kerker table import` from {source_file or 'CSV'}."]
    if everywhere == [lang] and not any(len(texts) > 1 for _lo, _hi, texts in rows):
        out.append(
            f"Only {_LANGUAGE_WORD[lang]} ({lang}) text was given: `kerker table "
            f"lint` will ask for the {' and '.join(others)} texts."
        )
    else:
        missing = [k for k in _LANGS if k not in everywhere]
        rows_note = f"; rows lack {' and '.join(missing)} text" if missing else ""
        out.append(
            f"The title is in {_LANGUAGE_WORD[lang]} ({lang}) only{rows_note}: "
            "`kerker table lint` will ask for the missing texts."
        )
    out.append(
        "Check the ranges and texts against the book; give rows a `key` where a "
        "procedure needs one."
    )
    return out


def _check_overlaps(
    rows: list[tuple[int, int | None, dict[str, str]]], raws: list[_Raw], where: str
) -> None:
    order = sorted(range(len(rows)), key=lambda i: (rows[i][0], raws[i].line))
    for before, after in itertools.pairwise(order):
        hi = rows[before][1]
        if hi is None or hi >= rows[after][0]:
            first, second = sorted((before, after), key=lambda i: raws[i].line)
            raise RuleDataError(
                N_("the range {range} overlaps {other} on line {other_line}"),
                file=where,
                line=raws[second].line,
                range=_label(rows[second]),
                other=_label(rows[first]),
                other_line=raws[first].line,
            )


def _label(row: tuple[int, int | None, dict[str, str]]) -> str:
    lo, hi, _texts = row
    if hi is None:
        return f"{lo}+"
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _reads_back(
    yaml_text: str,
    rows: list[tuple[int, int | None, dict[str, str]]],
    title: str,
    amounts: list[list[tuple[str, str]]],
) -> bool:
    """Whether the YAML reads back to exactly these texts and amounts (the plain scalars
    were safe)."""
    from kerker.yamlio import load_yaml_text

    try:
        data = load_yaml_text(yaml_text, "CSV")
        table = data["tables"][0]
        got = [
            (
                r["range"][0],
                r["range"][1],
                r["text"],
                [(e.get("name", "amount"), e["amount"]) for e in r.get("effects", [])],
            )
            for r in table["rows"]
        ]
        want = [
            (lo, hi, texts, found) for (lo, hi, texts), found in zip(rows, amounts, strict=True)
        ]
        return bool(
            got == want and title in table["title"].values() and table["source"]["heading"] == title
        )
    except (KerkerError, KeyError, IndexError, TypeError, AttributeError):
        return False


def _validate(yaml_text: str, where: str) -> None:
    from pydantic import ValidationError

    from kerker.tables.schema import TableFile
    from kerker.tables.schema_text import SchemaText
    from kerker.yamlio import load_yaml_text

    data = load_yaml_text(yaml_text, where)
    try:
        TableFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise RuleDataError(
            N_("the imported table is not valid: {where_}: {problem}"),
            file=where,
            where_=".".join(str(p) for p in first["loc"]),
            problem=SchemaText.of(first),
        ) from None
