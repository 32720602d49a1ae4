"""Time the n8n importer splitting one execution item by item, as the fan-out grows.

    python bench/import_items.py [--items 1000 5000 20000] [--nodes 8]

Builds one execution in a temporary directory: a webhook, a Split Out node emitting ``--items``
items (keyed by ``json:id``), an IF sending even items to a chain of ``--nodes`` Set nodes and odd
ones nowhere, each item linked to its input by ``pairedItem``. It imports it with
``[automations.X.items] from = "Split Out"`` and prints the seconds per size (lineage, classify and
every item's trace), so the cost stays linear in items x nodes. The last line is ``RESULT {json}``.
Nothing here asserts a time: it is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.importer import ImportedRun
from harness.platforms.n8n.history import parse
from harness.manifest import AutomationEntry, Coercion, ItemSplit
from harness.recording import Platform


def _task(order: int, source: list[dict[str, Any]], main: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [{"startTime": order, "executionIndex": order, "source": source, "executionStatus": "success", "data": {"main": main}}]


def execution(items: int, nodes: int) -> dict[str, Any]:
    """Return one webhook execution fanning ``items`` out through an IF and ``nodes`` Set nodes."""
    rows = [{"json": {"id": f"o-{i}", "total": i}, "pairedItem": {"item": 0}} for i in range(items)]
    evens = [{"json": r["json"], "pairedItem": {"item": i}} for i, r in enumerate(rows) if i % 2 == 0]
    odds = [{"json": r["json"], "pairedItem": {"item": i}} for i, r in enumerate(rows) if i % 2]
    run_data = {"Hook": _task(0, [], [[{"json": {"headers": {}, "body": {}}}]]),
                "Split Out": _task(1, [{"previousNode": "Hook"}], [rows]),
                "IF": _task(2, [{"previousNode": "Split Out"}], [evens, odds])}
    previous = "IF"
    for k in range(nodes):
        run_data[f"Set {k}"] = _task(3 + k, [{"previousNode": previous}],
                                     [[{"json": {"step": k}, "pairedItem": {"item": j}} for j in range(len(evens))]])
        previous = f"Set {k}"
    types = {"Hook": "webhook", "Split Out": "splitOut", "IF": "if"}
    workflow = [{"name": name, "type": f"n8n-nodes-base.{types.get(name, 'set')}"} for name in run_data]
    return {"id": 1, "status": "success", "startedAt": "2024-07-02T08:05:00.000Z",
            "data": {"resultData": {"runData": run_data}}, "workflowData": {"nodes": workflow}}


def measure(items: int, nodes: int, directory: Path) -> float:
    """Return the seconds one import of a fan-out of ``items`` takes (after writing the file)."""
    path = directory / f"fan-out-{items}.json"
    path.write_text(json.dumps(execution(items, nodes)))
    entry = AutomationEntry("bench", Platform.N8N, Coercion.N8N, items=ItemSplit("Split Out", "json:id"))
    started = time.perf_counter()
    (run,) = [r for r in parse(path, entry) if isinstance(r, ImportedRun)]
    elapsed = time.perf_counter() - started
    assert run.trace is not None and len(run.trace.items) == items
    return elapsed


def main() -> None:
    """Print the import time per fan-out size, then ``RESULT {json}``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, nargs="+", default=[1000, 5000, 20000])
    parser.add_argument("--nodes", type=int, default=8)
    args = parser.parse_args()
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as temporary:
        for items in args.items:
            seconds = measure(items, args.nodes, Path(temporary))
            results[str(items)] = round(seconds, 3)
            print(f"{items:>7} items x {args.nodes + 3} nodes: {seconds:.3f} s ({seconds / items * 1e6:.0f} us per item)")
    print("RESULT " + json.dumps({"nodes": args.nodes, "seconds": results}))


if __name__ == "__main__":
    main()
