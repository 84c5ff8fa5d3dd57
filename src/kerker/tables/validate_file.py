"""Validate one table file against the schema (a development aid until the linter lands).

    python -m kerker.tables.validate_file FILE.yaml...
"""

from __future__ import annotations

import sys
from pathlib import Path

from pydantic import ValidationError

from kerker.errors import KerkerError
from kerker.tables.schema import TableFile
from kerker.yamlio import load_yaml_file


def main(argv: list[str]) -> int:
    """Print every schema problem of the given files; exit 1 when there is any."""
    bad = 0
    for name in argv:
        try:
            data = load_yaml_file(Path(name))
            TableFile.model_validate(data)
        except ValidationError as exc:
            bad += 1
            for err in exc.errors():
                loc = ".".join(str(p) for p in err["loc"])
                print(f"{name}: {loc}: {err['msg']}")
        except KerkerError as exc:
            bad += 1
            print(f"{name}: {exc}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
