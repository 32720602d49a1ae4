"""The package's copy of what the pinned Zapier cases prove: ``harness/platforms/zapier/proved.json``.

    python -m tests.conformance.zapier.proved --write

Lists each step type (``<selected_api>:<action>``, the estate table's) with how many cases pin it,
from the cases that pass only (``runner.problems`` empty): the estate then counts a translated
step of that type as ``pinned`` (``Scaffold.proof``). The package never reads ``tests/``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

PACKAGE_TABLE = Path(__file__).resolve().parents[3] / "harness" / "platforms" / "zapier" / "proved.json"


def table() -> dict[str, Any]:
    """Return ``{"types": {type: {"cases": n}}}`` of the passing cases."""
    from tests.conformance.zapier.runner import problems, step_types
    from tests.conformance.zapier.test_zapier_conformance import ALL

    counts: dict[str, int] = {}
    for case in ALL:
        if not problems(case):
            for kind in step_types(case):
                counts[kind] = counts.get(kind, 0) + 1
    return {"types": {kind: {"cases": n} for kind, n in sorted(counts.items())}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--write", action="store_true", help="write the table into the package")
    args = parser.parse_args()
    text = json.dumps(table(), indent=2, sort_keys=True) + "\n"
    if args.write:
        PACKAGE_TABLE.write_text(text, encoding="utf-8")
        print(f"wrote {PACKAGE_TABLE}")
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
