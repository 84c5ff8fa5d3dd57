"""Rewrite the compiled JSON twins of the shipped rule files (see kerker.yamlio).

python scripts/compile_rules.py          # rewrite every twin
python scripts/compile_rules.py --check  # exit 1 if a twin is missing or stale
"""

from __future__ import annotations

import sys
from pathlib import Path

from kerker.yamlio import compiled_twin, twin_path

RULES = Path(__file__).resolve().parent.parent / "src" / "kerker" / "rules"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for path in sorted(RULES.rglob("*.yaml")):
        want = compiled_twin(path)
        twin = twin_path(path)
        have = twin.read_text(encoding="utf-8") if twin.exists() else None
        if have == want:
            continue
        if check:
            stale.append(twin)
        else:
            twin.write_text(want, encoding="utf-8")
            print(f"{twin.relative_to(RULES.parent.parent.parent)} written")
    for twin in stale:
        print(f"{twin} is stale: run python scripts/compile_rules.py")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
