"""The expression cases (``expr_cases``) run in the real n8n and in the scaffold; their own table.

    python -m tests.oracle.expr_conformance            # measure and print the table
    python -m tests.oracle.expr_conformance --write    # and write tests/oracle/expr_conformance.json
    python -m tests.oracle.expr_conformance --show     # every case in full, with its verdict

The same measurement as ``conformance`` (one n8n batch, each case scaffolded and run, every
node's items compared; an error compared by the node it stopped at), with ``expr_cases.ENV`` in
the environment of both sides (``$env``). Rows are the case groups: the expressions carried by
a Set node, Edit Fields in JSON mode, and a Switch whose rule conditions are a bare list.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from tests.oracle import conformance, expr_cases, runner

TABLE = Path(__file__).with_name("expr_conformance.json")
COMMAND = "python -m tests.oracle.expr_conformance --write"


def group(case_id: str) -> str:
    """Return the table row of a case: its id without the number (``expr set v3.4``)."""
    return case_id.rsplit(" #", 1)[0]


def measure() -> tuple[list[conformance.Result], dict[str, Any]]:
    """Run every expression case on both sides, with ``expr_cases.ENV`` set."""
    saved = {key: os.environ.get(key) for key in (*expr_cases.ENV, "GENERIC_TIMEZONE")}
    os.environ.update({**expr_cases.ENV, "GENERIC_TIMEZONE": "UTC"})  # the oracle's n8n runs in UTC
    try:
        return conformance.measure(expr_cases.cases())
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def table(results: list[conformance.Result]) -> dict[str, dict[str, Any]]:
    """Return one conformance row per case group."""
    rows: dict[str, dict[str, Any]] = {}
    for name in dict.fromkeys(group(r.case.id) for r in results):
        (row,) = conformance.table([r for r in results if group(r.case.id) == name]).values()
        rows[name] = row
    return rows


def document(results: list[conformance.Result], info: dict[str, Any]) -> dict[str, Any]:
    """Return the expr_conformance.json document."""
    return {"n8n": runner.VERSION, "regenerate": COMMAND, "run": {k: v for k, v in info.items() if k != "summary"},
            "nodes": table(results)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.oracle.expr_conformance", description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {TABLE.name}")
    parser.add_argument("--show", action="store_true", help="print every case in full, with its verdict")
    args = parser.parse_args(argv)
    reason = runner.missing()
    if reason:
        print(reason, file=sys.stderr)
        return 2
    results, info = measure()
    if args.show:
        for result in results:
            verdict = ("refused by n8n" if result.refused else "not translated" if not result.scaffold.translated
                       else "equal" if result.equal else "differs")
            print(json.dumps({"case": result.case.id, "verdict": verdict, **result.case.describe(),
                              "differences": result.differences, "n8n": result.oracle.describe(),
                              "scaffold": result.scaffold.describe()}, ensure_ascii=False))
    doc = document(results, info)
    print(conformance.markdown(doc["nodes"]))
    print(json.dumps(doc["run"]))
    if args.write:
        TABLE.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {TABLE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
