"""The Code node cases (``code_cases``) run in the real n8n and in the scaffold; their own table.

    python -m tests.oracle.code_conformance            # measure and print the table
    python -m tests.oracle.code_conformance --write    # and write tests/oracle/code_conformance.json

The same measurement as ``conformance`` (one n8n batch, each case scaffolded and run, every
node's items compared; an error compared by the node it stopped at), kept in a table of its own
so the Code cases and the drawn parameter cases are written and reviewed apart.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from tests.oracle import code_cases, conformance, runner

TABLE = Path(__file__).with_name("code_conformance.json")
COMMAND = "python -m tests.oracle.code_conformance --write"


BUILTINS = "crypto"  # NODE_FUNCTION_ALLOW_BUILTIN on both sides: what n8n's task-runner image allows


def measure() -> tuple[list[conformance.Result], dict[str, Any]]:
    """Run every Code node case on both sides, ``require('crypto')`` allowed on both."""
    os.environ.setdefault("NODE_FUNCTION_ALLOW_BUILTIN", BUILTINS)
    return conformance.measure(code_cases.cases())


def document(results: list[conformance.Result], info: dict[str, Any]) -> dict[str, Any]:
    """Return the code_conformance.json document."""
    return {"n8n": runner.VERSION, "regenerate": COMMAND, "run": {k: v for k, v in info.items() if k != "summary"},
            "nodes": conformance.table(results)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.oracle.code_conformance", description=__doc__.splitlines()[0])
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
