"""A loop's runs as n8n records them (one runData entry per run) compare equal to the scaffolded loop's trace.

The two executions were run by n8n 1.123.81 itself (``tests/oracle``'s install, ``n8n
execute-batch`` with a snapshot) on the workflows of ``test_scaffold_loops``: a Loop Over Items
(SplitInBatches v3, batch size 2, three items) and a poll that waits and asks again until a
count reaches 2. ``cutover import n8n`` keeps each node's last run, its path one step per run and
its IF's last decision; the generated code's trace must be the same.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from harness.manifest import AutomationEntry, Coercion, DecisionMap
from harness.platforms.n8n.definition import parse_workflow
from harness.platforms.n8n.history import parse
from harness.platforms.n8n.translate.module import build
from harness.recording import Platform
from queue_core import registry as registry_module
from queue_core._job_run import Trace
from queue_core.context import Trigger
from queue_core.registry import Registry

EXPORTS = Path(__file__).parents[1] / "fixtures" / "exports" / "n8n"


class _Traced:
    """An offline context with a decision trace, as a shadow job has one."""

    def __init__(self) -> None:
        self.trace = Trace()
        self.n8n_flows: list[Any] = []

    def decide(self, name: str, value: Any) -> None:
        self.trace.decisions[name] = value

    async def sleep(self, seconds: float) -> None:
        return None


@pytest.mark.parametrize("export", ["execution_loop_over_items.json", "execution_poll_loop.json"])
def test_the_scaffolded_loops_trace_equals_the_imported_n8n_execution(export: str) -> None:
    execution = json.loads((EXPORTS / export).read_text(encoding="utf-8"))
    scaffold = build(parse_workflow(execution["workflowData"], export), "looped", {})
    assert scaffold.todo == 0
    entry = AutomationEntry("looped", Platform.N8N, Coercion.N8N, steps=scaffold.steps,
                            decisions={node: DecisionMap(name) for node, name in scaffold.decisions.items()})
    (imported,) = list(parse(EXPORTS / export, entry))
    legacy = imported.trace
    assert legacy is not None
    saved = registry_module.default_registry
    registry_module.default_registry = Registry()
    try:
        exec(compile(scaffold.source, "looped.py", "exec"), {})
        function = registry_module.default_registry.get("looped").fn
    finally:
        registry_module.default_registry = saved
    ctx = _Traced()
    asyncio.run(function(ctx, Trigger("t", None, {}, {}, "test")))
    expected = {node: outputs for node, outputs in legacy.nodes.items() if outputs is not None}
    got = {node: outputs for node, outputs in ctx.trace.nodes.items() if node in expected}
    assert got == expected
    assert set(ctx.trace.nodes) - set(expected) <= {legacy_trigger(legacy.nodes)}
    assert ctx.trace.decisions == legacy.decisions
    # every node ran as often as n8n ran it: the Flow's runs are runData's entries, node by node
    run_data = execution["data"]["resultData"]["runData"]
    (flow,) = ctx.n8n_flows
    assert {node: len(runs) for node, runs in flow.runs.items()} == {node: len(runs) for node, runs in run_data.items()}
    assert max(len(runs) for runs in run_data.values()) >= 2  # the loop did loop


def legacy_trigger(nodes: dict[str, Any]) -> str:
    return next(node for node, outputs in nodes.items() if outputs is None)
