"""Differential conformance: every generated case run in the real n8n and in the scaffolded code.

    python -m tests.oracle.conformance            # measure and print the table
    python -m tests.oracle.conformance --write    # and write tests/oracle/conformance.json

``measure()`` generates every case (``cases.generate``), runs them all in one n8n batch
(``runner.run``), scaffolds and runs each one with the translator (``scaffolded.run_one``), and
compares every node's output items (``outcome.differences``). ``table()`` condenses that to one
row per node type × typeVersion: cases run, cases the scaffold translated (a TODO node is not
claimed, so it is counted but not compared), cases equal, and the first differing case in full.
A version is *proved* when at least one case was translated and every translated case equals
n8n's output; the test suite holds every version the committed table marks proved to that.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.oracle import cases as case_module
from tests.oracle import runner, scaffolded
from tests.oracle.outcome import Outcome, differences
from tests.oracle.workflow import UNDER_TEST, Case, workflow

TABLE = Path(__file__).with_name("conformance.json")
COMMAND = "python -m tests.oracle.conformance --write"
# n8n checks a workflow's parameters before it runs it; a generated case it refuses this way is
# not a run of the node, so it is counted ("refused by n8n") and not compared.
REFUSED = "Workflow failed to execute: The workflow has issues"


@dataclass
class Result:
    """One case, run on both sides."""

    case: Case
    oracle: Outcome
    scaffold: Outcome
    differences: list[str]

    @property
    def refused(self) -> bool:
        """Return whether n8n refused to run the workflow at all (a parameter it calls an issue)."""
        return (self.oracle.error or "").startswith(REFUSED)

    @property
    def equal(self) -> bool:
        return self.scaffold.translated and not self.refused and not self.differences


# n8n's Filter returns its discarded items as a second list in the run data (the editor shows
# them as "Discarded"), though the node has one output and nothing downstream receives them;
# the outputs compared are the ones the node type declares.
DECLARED_OUTPUTS = {"n8n-nodes-base.filter": 1}


def _declared(outcome: Outcome, case: Case) -> Outcome:
    count = DECLARED_OUTPUTS.get(case.node_type)
    if count is not None and UNDER_TEST in outcome.nodes:
        outcome.nodes[UNDER_TEST] = outcome.nodes[UNDER_TEST][:count]
    return outcome


def compared_nodes(case: Case) -> list[str]:
    """Return the nodes whose outputs are compared: every node of the case's workflow."""
    return [node["name"] for node in workflow(case, "x")["nodes"]]


def measure(cases: list[Case] | None = None) -> tuple[list[Result], dict[str, Any]]:
    """Run every case on both sides; return the results and how the run went (seconds, counts)."""
    cases = case_module.pinned() if cases is None else cases
    documents = [workflow(case, runner.workflow_id(i)) for i, case in enumerate(cases)]
    started = time.monotonic()
    oracle, info = oracle_run(cases, documents)
    info["n8n_seconds"] = round(time.monotonic() - started, 1)
    started = time.monotonic()
    results = []
    with tempfile.TemporaryDirectory(prefix="cutover-oracle-scaffold-") as tmp:
        for index, (case, document, expected) in enumerate(zip(cases, documents, oracle, strict=True)):
            got = scaffolded.run_one(document, Path(tmp) / str(index))
            expected = _declared(expected, case)
            found = differences(expected, got, compared_nodes(case)) if got.translated else []
            results.append(Result(case, expected, got, found))
    info["scaffold_seconds"] = round(time.monotonic() - started, 1)
    info["cases"] = len(cases)
    return results, info


def oracle_run(cases: list[Case], documents: list[dict[str, Any]], **kwargs: Any) -> tuple[list[Outcome], dict[str, Any]]:
    """``runner.cached_run`` per n8n version the cases name (``Case.n8n``); the outcomes in the cases' order."""
    outcomes: list[Outcome | None] = [None] * len(cases)
    info: dict[str, Any] = {}
    for version in dict.fromkeys(case.n8n or runner.VERSION for case in cases):
        chosen = [i for i, case in enumerate(cases) if (case.n8n or runner.VERSION) == version]
        got, ran = runner.cached_run([documents[i] for i in chosen], version=version, **kwargs)
        for i, outcome in zip(chosen, got, strict=True):
            outcomes[i] = outcome
        if version == runner.VERSION:
            info.update(ran)
        else:
            info[f"n8n {version}"] = ran
    return [o for o in outcomes if o is not None], info


def table(results: list[Result]) -> dict[str, dict[str, Any]]:
    """Return the conformance table: one row per "<type> v<version>", in generation order."""
    rows: dict[str, dict[str, Any]] = {}
    for result in results:
        case = result.case
        row = rows.setdefault(case.key, {"type": case.node_type, "version": case.version, "cases": 0,
                                         "refused_by_n8n": 0, "translated": 0, "equal": 0, "differing": [],
                                         **({"n8n": case.n8n} if case.n8n else {})})
        row["cases"] += 1
        if result.refused:
            row["refused_by_n8n"] += 1
            continue
        if not result.scaffold.translated:
            continue
        row["translated"] += 1
        if result.equal:
            row["equal"] += 1
        else:
            row["differing"].append(case.id)
            if "first_difference" not in row:
                row["first_difference"] = {"case": case.id, **case.describe(), "differences": result.differences,
                                           "n8n": result.oracle.describe(),
                                           "scaffold": result.scaffold.describe()}
    for row in rows.values():
        row["status"] = ("not translated" if not row["translated"] else
                         "proved" if row["equal"] == row["translated"] else "not proved")
    return rows


def document(results: list[Result], info: dict[str, Any]) -> dict[str, Any]:
    """Return the conformance.json document."""
    return {"n8n": runner.VERSION, "examples_per_version": case_module.examples(), "regenerate": COMMAND,
            "run": {k: v for k, v in info.items() if k != "summary"}, "nodes": table(results)}


def markdown(rows: dict[str, dict[str, Any]]) -> str:
    """Return the table as README markdown."""
    lines = ["| node | version | cases | refused by n8n | translated | equal to n8n | status |",
             "|---|---|---|---|---|---|---|"]
    for key, row in rows.items():
        short = key.rsplit(" v", 1)[0]
        lines.append(f"| {short} | {row['version']:g} | {row['cases']} | {row['refused_by_n8n']} | {row['translated']} "
                     f"| {row['equal']} | {row['status']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.oracle.conformance", description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {TABLE.name} (and the cases it measured)")
    parser.add_argument("--regenerate", action="store_true",
                        help="draw the cases anew with Hypothesis instead of the pinned cases.json")
    parser.add_argument("--show", metavar="KEY", help='print every case of one node version in full, e.g. "set v3.1"')
    args = parser.parse_args(argv)
    reason = runner.missing()
    if reason:
        print(reason, file=sys.stderr)
        return 2
    results, info = measure(case_module.generate() if args.regenerate else None)
    if args.show:
        for result in (r for r in results if r.case.key == args.show):
            verdict = ("refused by n8n" if result.refused else "not translated" if not result.scaffold.translated
                       else "equal" if result.equal else "differs")
            print(json.dumps({"case": result.case.id, "verdict": verdict, **result.case.describe(),
                              "differences": result.differences, "n8n": result.oracle.describe(),
                              "scaffold": result.scaffold.describe()}, ensure_ascii=False))
        return 0
    doc = document(results, info)
    print(markdown(doc["nodes"]))
    print(json.dumps(doc["run"]))
    if args.write:
        TABLE.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        case_module.write_pinned([r.case for r in results])
        print(f"wrote {TABLE} and {case_module.PINNED}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
