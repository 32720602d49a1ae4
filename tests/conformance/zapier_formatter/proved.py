"""Write harness/platforms/zapier/formatter_proved.json from the Formatter cases that pass.

    python -m tests.conformance.zapier_formatter.proved           # print the table
    python -m tests.conformance.zapier_formatter.proved --write   # write it

``{"transforms": {"text:capitalize": {"cases": N}, …}}``: every (action, transform) of the runtime's SUPPORTED with
the number of its pinned cases that give the output their source states. A failing case is reported and not
counted; a supported transform with no passing case is left out (and the command exits 1).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from queue_core.compat._zapier_formatter import SUPPORTED, canonical, format_step

from .cases_date import CASES as DATE
from .cases_number import CASES as NUMBER
from .cases_text import CASES as TEXT
from .cases_util import CASES as UTIL

TARGET = Path(__file__).resolve().parents[3] / "harness" / "platforms" / "zapier" / "formatter_proved.json"


def table() -> tuple[dict[str, dict[str, dict[str, int]]], list[str]]:
    """The proved table and the failures (one line each)."""
    passed: Counter[tuple[str, str]] = Counter()
    failures: list[str] = []
    for case in [*TEXT, *NUMBER, *DATE, *UTIL]:
        pair = canonical(case.action, str(case.params["transform"]))
        try:
            got = format_step(case.action, case.params)
        except Exception as exc:  # a case that raises is a failure to report, not a crash
            failures.append(f"{pair[0]}:{pair[1]} raised {type(exc).__name__}: {exc}")
            continue
        if got == case.expected and pair in SUPPORTED:
            passed[pair] += 1
        else:
            failures.append(f"{pair[0]}:{pair[1]} gave {got!r}, its source states {case.expected!r}")
    for pair in sorted(SUPPORTED - set(passed)):
        failures.append(f"{pair[0]}:{pair[1]} is in SUPPORTED with no passing case")
    transforms = {f"{a}:{t}": {"cases": n} for (a, t), n in sorted(passed.items())}
    return {"transforms": transforms}, failures


def main(argv: list[str]) -> int:
    proved, failures = table()
    for line in failures:
        print(f"FAIL {line}", file=sys.stderr)
    text = json.dumps(proved, indent=2, sort_keys=True) + "\n"
    if "--write" in argv:
        TARGET.write_text(text, encoding="utf-8")
        print(f"wrote {TARGET} ({len(proved['transforms'])} transforms)")
    else:
        print(text, end="")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
