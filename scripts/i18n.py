"""Maintain kerker's gettext catalogs with Babel (a development tool, not a runtime need).

    python scripts/i18n.py update    # extract _(), N_(), _h() strings; merge into de/it .po
    python scripts/i18n.py compile   # .po -> .mo (the files the package reads at run time)
    python scripts/i18n.py check     # exit 1 if a message is untranslated or a .mo is stale
    python scripts/i18n.py merge BASE OURS THEIRS   # git merge driver for the .po files

The .mo files are committed so that ``pip install`` needs no build step; the test suite runs
the same check as ``check``.
"""

from __future__ import annotations

import io
import sys
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src" / "kerker"
LOCALE = SOURCE / "i18n" / "locale"
LANGS = ("de", "it")
KEYWORDS: dict[str, object] = {"_": None, "N_": None, "_h": None, "ngettext": (1, 2)}
"""``ngettext(singular, plural, n)`` (kerker.i18n.plural_of) gives a msgid_plural entry."""


def extract() -> Catalog:
    """All marked strings of the package, in a fresh template catalog."""
    # A fixed creation date: the header stays the same from run to run (no merge conflicts).
    template = Catalog(
        project="kerker", charset="utf-8", creation_date=datetime(2026, 1, 1, tzinfo=UTC)
    )
    method_map = [("**.py", "python"), ("web/templates/**.html", "jinja2.ext:babel_extract")]
    for filename, lineno, message, comments, context in extract_from_dir(
        str(SOURCE), method_map=method_map, keywords=KEYWORDS, strip_comment_tags=True
    ):
        template.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return template


def po_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / "kerker.po"


def load(lang: str) -> Catalog:
    path = po_path(lang)
    if not path.exists():
        return Catalog(locale=lang, project="kerker", charset="utf-8")
    with path.open("rb") as fh:
        return read_po(fh, locale=lang)


def update() -> None:
    template = extract()
    for lang in LANGS:
        catalog = load(lang)
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        path = po_path(lang)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            write_po(
                fh, catalog, width=100, omit_header=False, sort_output=True, include_lineno=False
            )
        print(f"{path.relative_to(ROOT)}: {len(catalog)} messages")


def _read(path: str, lang: str | None) -> Catalog:
    with open(path, "rb") as fh:
        return read_po(fh, locale=lang)


def merge(base: str, ours: str, theirs: str) -> int:
    """A git merge driver: the union of two catalogs' translations, written over ``ours``.

    Where both sides translate one message differently, the side that changed it from the base
    wins (ours if both did). Sorted output keeps later merges small. Run ``update`` and
    ``compile`` after the merge to drop messages no longer in the code and refresh the .mo.
    """
    mine = _read(ours, None)
    lang = str(mine.locale) if mine.locale else None
    other = _read(theirs, lang)
    try:
        old = _read(base, lang)
    except Exception:
        old = Catalog(locale=lang)
    for message in other:
        if not message.id:
            continue
        current = mine.get(message.id, message.context)
        before = old.get(message.id, message.context)
        if current is None:
            mine[message.id] = message
        elif message.string and current.string != message.string:
            mine_changed = before is None or before.string != current.string
            if not mine_changed or not current.string:
                current.string = message.string
                current.flags = message.flags
    with open(ours, "wb") as fh:
        write_po(fh, mine, width=100, omit_header=False, sort_output=True, include_lineno=False)
    return 0


def mo_bytes(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def compile_all() -> None:
    for lang in LANGS:
        catalog = load(lang)
        path = po_path(lang).with_suffix(".mo")
        path.write_bytes(mo_bytes(catalog))
        print(f"{path.relative_to(ROOT)} written")


def problems() -> list[str]:
    """Messages missing or untranslated in a catalog, and stale .mo files."""
    found: list[str] = []
    wanted = {m.id for m in extract() if m.id}
    for lang in LANGS:
        catalog = load(lang)
        forms = catalog.num_plurals
        for msgid in sorted(wanted, key=str):
            key = msgid[0] if isinstance(msgid, tuple) else msgid
            message = catalog.get(key)
            if message is None:
                found.append(f"{lang}: missing {msgid!r} (run scripts/i18n.py update)")
            elif message.fuzzy or not _translated(message.string, forms):
                found.append(f"{lang}: untranslated {msgid!r}")
        mo = po_path(lang).with_suffix(".mo")
        if not mo.exists() or mo.read_bytes() != mo_bytes(catalog):
            found.append(f"{lang}: {mo.name} is stale (run scripts/i18n.py compile)")
    return found


def _translated(string: object, forms: int) -> bool:
    """A msgstr is filled; a plural entry has all ``forms`` of the language filled."""
    if isinstance(string, (tuple, list)):
        return len(string) >= forms and all(string[:forms])
    return bool(string)


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else "check"
    if command == "update":
        update()
        return 0
    if command == "compile":
        compile_all()
        return 0
    if command == "merge" and len(argv) == 5:
        return merge(argv[2], argv[3], argv[4])
    if command == "check":
        issues = problems()
        for issue in issues:
            print(issue)
        return 1 if issues else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
