"""Write ``harness/platforms/make/proved.json``: the module types the pinned cases prove.

``python -m tests.conformance.make.proved --write`` runs every case first and refuses to write
while one fails; the estate table counts a translated module ``pinned`` when its type is listed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

from tests.conformance.make.runner import MakeCase

TABLE = Path(__file__).resolve().parents[3] / "harness" / "platforms" / "make" / "proved.json"


def table(cases: list[MakeCase]) -> dict[str, dict[str, dict[str, int]]]:
    counts = Counter(c.type for c in cases)
    return {"types": {t: {"cases": n} for t, n in sorted(counts.items())}}


def main(argv: list[str] | None = None) -> int:
    from tests.conformance.make.cases import all_cases
    from tests.conformance.make.runner import mismatches, run_case

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the table (else print it)")
    args = parser.parse_args(argv)
    cases = all_cases()
    failing = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            found = mismatches(case, run_case(case, Path(tmp) / case.id))
            if found:
                failing.append(f"{case.id}: {found}")
    if failing:
        print("not written: failing cases:\n  " + "\n  ".join(failing), file=sys.stderr)
        return 1
    text = json.dumps(table(cases), indent=1, sort_keys=True) + "\n"
    if args.write:
        TABLE.write_text(text, encoding="utf-8")
        print(f"wrote {TABLE} ({len(table(cases)['types'])} module types, {len(cases)} cases)")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
