"""Reading rule data: YAML 1.2 through ruamel.yaml, fast and with clear errors.

YAML 1.2 matters: Italian "no" and German "ja" stay text. ruamel.yaml is imported on first
use (``kerker roll`` never pays for it) and uses its C parser when ``ruamel.yaml.clib`` is
installed (a dependency on CPython): about six times faster than the pure-Python parser,
with the same YAML 1.2 resolution.

Shipped rule files also have a compiled twin: ``name.yaml`` -> ``name.compiled.json`` holding
the parsed data and the size and CRC-32 of the YAML bytes it came from (zlib is cheap to
import; hashlib's OpenSSL binding costs 3 ms of every cold start). :func:`load_rule_file` uses
the twin only when that hash matches, so an edited YAML file is never shadowed by a stale
twin; the YAML stays the one source a game master reads and edits. ``python
scripts/compile_rules.py`` rewrites the twins and the test suite checks they are fresh.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

from kerker.errors import N_, RuleDataError

MAX_YAML_BYTES = 4 * 1024 * 1024
"""A table file of a game master is at most this large (the largest shipped: 35 kB)."""


def load_yaml_text(text: str, where: str) -> Any:
    """Parse YAML 1.2 ``text`` into plain dicts, lists and scalars.

    Raises :class:`RuleDataError` (file ``where``, with the line when the parser knows it)
    for anything that is not valid YAML; never another exception. Nesting deeper than
    :data:`kerker.fileio.MAX_DEPTH` is refused before the document is composed.
    """
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    from kerker.fileio import check_yaml_depth

    check_yaml_depth(text, where)
    try:
        return YAML(typ="safe").load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = None if mark is None else mark.line + 1
        reason = " ".join(str(exc.problem or exc.context or exc).split())
        raise RuleDataError(
            N_("not valid YAML: {reason}"), file=where, line=line, reason=reason
        ) from exc
    except (YAMLError, ValueError, TypeError) as exc:
        raise RuleDataError(
            N_("not valid YAML: {reason}"), file=where, reason=" ".join(str(exc).split())
        ) from exc


def load_yaml_file(path: Path, where: str | None = None) -> Any:
    """Read and parse a YAML file (UTF-8, a BOM dropped); refuses FIFOs, devices and files
    over :data:`MAX_YAML_BYTES` before reading them. Every failure is a :class:`KerkerError`
    naming the file."""
    from kerker.fileio import read_text

    name = str(path) if where is None else where
    text = read_text(
        path,
        max_bytes=MAX_YAML_BYTES,
        where=name,
        cannot_read=N_("cannot read the rule file: {reason}"),
    )
    return load_yaml_text(text, name)


TWIN_SUFFIX = ".compiled.json"


def twin_path(path: Path) -> Path:
    """Where the compiled twin of a YAML rule file lives."""
    return path.with_name(path.stem + TWIN_SUFFIX)


def _digest(raw: bytes) -> str:
    return f"{len(raw)}:{zlib.crc32(raw):08x}"


def load_rule_file(path: Path, where: str | None = None) -> Any:
    """Load a rule file, from its compiled twin when the twin matches the YAML bytes.

    Same result and same errors as :func:`load_yaml_file`; only faster for shipped files.
    """
    from kerker.fileio import decode_text, read_bytes

    name = str(path) if where is None else where
    raw = read_bytes(
        path,
        max_bytes=MAX_YAML_BYTES,
        where=name,
        cannot_read=N_("cannot read the rule file: {reason}"),
    )
    twin = twin_path(path)
    try:
        compiled = json.loads(twin.read_bytes())
        if isinstance(compiled, dict) and compiled.get("digest") == _digest(raw):
            return compiled["data"]
    except (OSError, ValueError, KeyError):
        pass
    return load_yaml_text(decode_text(raw, name), name)


def compiled_twin(path: Path) -> str:
    """The text the compiled twin of ``path`` must have (deterministic JSON)."""
    raw = path.read_bytes()
    data = load_yaml_text(raw.decode("utf-8"), str(path))
    return (
        json.dumps(
            {"source": path.name, "digest": _digest(raw), "data": data},
            ensure_ascii=False,
            indent=1,
            sort_keys=False,
        )
        + "\n"
    )
