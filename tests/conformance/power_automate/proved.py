"""The Power Automate pinned-proof table: ``python -m tests.conformance.power_automate.proved --write``.

Runs every case of ``cases_*`` and writes ``harness/platforms/power_automate/proved.json``:
``{"types": {"<action type>": {"cases": N}}}`` for each type whose cases all conform (a type with
a failing case is left out). The estate table counts a translated action ``pinned`` when its
row type is listed (``harness.scaffold._module.Scaffold.proof``). Without ``--write`` it prints
the table and exits 1 when the file on disk differs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.conformance.power_automate import cases_calls, cases_control, cases_data
from tests.conformance.power_automate.runner import Case, check

TABLE = Path(__file__).resolve().parents[3] / "harness" / "platforms" / "power_automate" / "proved.json"
CASES: list[Case] = [*cases_control.CASES, *cases_data.CASES, *cases_calls.CASES]


def table() -> dict[str, dict[str, dict[str, int]]]:
    """Return the table of the types the cases prove (every case of a type conforming)."""
    counts: dict[str, int] = {}
    failing: set[str] = set()
    for case in CASES:
        ok = not check(case)
        for kind in case.types:
            counts[kind] = counts.get(kind, 0) + 1
            if not ok:
                failing.add(kind)
    return {"types": {kind: {"cases": n} for kind, n in sorted(counts.items()) if kind not in failing}}


def text() -> str:
    return json.dumps(table(), indent=2, sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    rendered = text()
    if "--write" in argv:
        TABLE.write_text(rendered, encoding="utf-8")
        print(f"wrote {TABLE}")
        return 0
    print(rendered, end="")
    return 0 if TABLE.is_file() and TABLE.read_text(encoding="utf-8") == rendered else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
