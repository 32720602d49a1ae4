"""Execute Workflow against the real n8n: a caller and its callee run in one n8n batch, and the same two
workflows scaffolded as an estate run here, the child jobs run in process.

A case is a caller (Start → a Code node giving the items → the Execute Workflow node under test)
and its callee (an Execute Workflow Trigger → a Set adding ``shout``). n8n gives each workflow of
a batch the id ``runner.workflow_id(i)``, so the caller names the callee by the id it will have.
The scaffold side scaffolds the two as an estate (the callee found by that id), loads both
automations into one registry and runs the caller with a context whose ``enqueue`` and
``wait_for_children`` run each child automation at once, in process (what the queue does with
them is proved on the real queue by ``tests/integration/test_n8n_sub_workflow.py``); the
caller's node outputs are compared with n8n's (``outcome.differences``).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from queue_core import registry as registry_module
from queue_core.context import RETURNED_STEP, Trigger
from queue_core.job import ChildOutcome
from queue_core.registry import Registry

from harness.platforms.n8n.translate import scaffold_n8n
from tests.oracle import runner
from tests.oracle.outcome import Outcome, differences
from tests.oracle.scaffolded import _OfflineContext, _json
from tests.oracle.workflow import START, UNDER_TEST, _code_node, input_name

ITEMS = [{"name": "ada", "n": 1}, {"name": "bob", "n": 2}, {"name": "cy", "n": 3}]
CALLEE_TRIGGERS: dict[str, dict[str, Any]] = {
    "passthrough": {"inputSource": "passthrough"},
    "declared": {"inputSource": "workflowInputs", "workflowInputs": {"values": [{"name": "name"}, {"name": "extra"}]}},
}


@dataclass(frozen=True)
class SubCase:
    """One caller node (version, parameters) and the callee's trigger parameters."""

    id: str
    version: float
    parameters: dict[str, Any]
    trigger: str  # a key of CALLEE_TRIGGERS

    @property
    def key(self) -> str:
        return f"executeWorkflow v{self.version:g}"


def sub_cases() -> list[SubCase]:
    """Return the cases: each version, once and each, waiting or not, with and without a field mapping."""
    cases = []
    for version in (1.0, 1.1, 1.2, 1.3):
        variants: list[tuple[dict[str, Any], str]] = [({}, "passthrough"), ({"mode": "each"}, "passthrough"),
                                                      ({"options": {"waitForSubWorkflow": False}}, "passthrough")]
        if version >= 1.1:
            variants.append(({"mode": "each", "options": {"waitForSubWorkflow": True}}, "declared"))
        if version >= 1.2:
            variants.append(({"workflowInputs": {"mappingMode": "defineBelow", "value": {
                "name": "={{ $json.name.toUpperCase() }}", "extra": "={{ $json.n * 10 }}"}}}, "declared"))
        for index, (params, trigger) in enumerate(variants):
            cases.append(SubCase(f"executeWorkflow v{version:g} #{index + 1}", version, params, trigger))
    return cases


def documents(case: SubCase, caller_index: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return the caller (id ``workflow_id(caller_index)``) and callee (the next id) of ``case``."""
    callee_id = runner.workflow_id(caller_index + 1)
    locator: Any = callee_id if case.version == 1 else {"__rl": True, "value": callee_id, "mode": "id"}
    version = int(case.version) if case.version == int(case.version) else case.version
    caller = {"id": runner.workflow_id(caller_index), "name": f"oracle {case.id}", "active": False,
              "settings": {"executionOrder": "v1"}, "pinData": {}, "nodes": [
                  {"name": START, "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0],
                   "parameters": {}},
                  _code_node(input_name(0), ITEMS, [200, 0]),
                  {"name": UNDER_TEST, "type": "n8n-nodes-base.executeWorkflow", "typeVersion": version,
                   "position": [400, 0], "parameters": {"workflowId": locator, **case.parameters}}],
              "connections": {START: {"main": [[{"node": input_name(0), "type": "main", "index": 0}]]},
                              input_name(0): {"main": [[{"node": UNDER_TEST, "type": "main", "index": 0}]]}}}
    callee = {"id": callee_id, "name": f"oracle {case.id} callee", "active": False,
              "settings": {"executionOrder": "v1", "callerPolicy": "any"}, "pinData": {}, "nodes": [
                  {"name": "Called", "type": "n8n-nodes-base.executeWorkflowTrigger", "typeVersion": 1.1,
                   "position": [0, 0], "parameters": CALLEE_TRIGGERS[case.trigger]},
                  {"name": "Shout", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "position": [200, 0],
                   "parameters": {"includeOtherFields": True, "options": {}, "assignments": {"assignments": [
                       {"id": "s", "name": "shout", "type": "string",
                        "value": "={{ String($json.name).toUpperCase() + '!' }}"}]}}}],
              "connections": {"Called": {"main": [[{"node": "Shout", "type": "main", "index": 0}]]}}}
    return caller, callee


class _Children(_OfflineContext):
    """An offline context whose children run at once, in process, from one registry."""

    def __init__(self, registry: Registry) -> None:
        super().__init__()
        self.registry = registry
        self.pending: list[tuple[str, Any, str]] = []
        self.steps: dict[str, Any] = {}

    async def step(self, name: str, fn: Any, *args: Any) -> Any:
        self.steps[name] = fn(*args)
        return self.steps[name]

    async def enqueue(self, automation: str, payload: Any = None, *, key: str) -> uuid.UUID:
        self.pending.append((automation, payload, key))
        return uuid.uuid4()

    async def wait_for_children(self, *, policy: str = "fail", timeout: Any = None) -> list[ChildOutcome]:
        outcomes = []
        for automation, payload, key in self.pending:
            child = _Children(self.registry)
            error = None
            try:
                await self.registry.get(automation).fn(child, Trigger(key, None, {}, payload, "child"))
            except Exception as exc:  # noqa: BLE001 - a failed child is an outcome
                error = f"{type(exc).__name__}: {exc}"
            outcomes.append(ChildOutcome(key, key, automation, "failed" if error else "succeeded", error, None,
                                         child.steps.get(RETURNED_STEP)))
        return outcomes


def run_scaffolded(caller: dict[str, Any], callee: dict[str, Any], workdir: Path) -> Outcome:
    """Scaffold caller and callee as an estate in ``workdir`` and run the caller; return what it produced."""
    estate = workdir / "estate"
    estate.mkdir(parents=True, exist_ok=True)
    (estate / "caller.json").write_text(json.dumps(caller), encoding="utf-8")
    (estate / "callee.json").write_text(json.dumps(callee), encoding="utf-8")
    written = scaffold_n8n(estate, automation=None, into=workdir / "automations", force=True)
    registry = Registry()
    saved, registry_module.default_registry = registry_module.default_registry, registry
    try:
        for w in written:
            exec(compile(w.path.read_text(encoding="utf-8"), str(w.path), "exec"), {"__name__": f"oracle_{w.path.stem}"})
    finally:
        registry_module.default_registry = saved
    first = next(w for w in written if w.scaffold.workflow.id == caller["id"])
    row = next(r for r in first.scaffold.rows if r.node == UNDER_TEST)
    ctx = _Children(registry)
    outcome = Outcome(translated=row.status == "translated")
    try:
        asyncio.run(registry.get(first.scaffold.automation).fn(ctx, Trigger("oracle", None, {}, {}, "oracle")))
    except Exception as exc:  # noqa: BLE001 - a crash of generated code is an outcome, compared
        outcome.error, outcome.error_node = f"{type(exc).__name__}: {exc}", UNDER_TEST
    if ctx.n8n_flows:
        outcome.nodes = {name: [[_json(i) for i in items] for items in outputs]
                         for name, outputs in ctx.n8n_flows[0].outputs.items()}
    return outcome


def measure(cases: list[SubCase], workdir: Path) -> list[tuple[SubCase, Outcome, Outcome, list[str]]]:
    """Run every case in n8n (one batch) and scaffolded; return (case, n8n's, the scaffold's, differences)."""
    docs: list[dict[str, Any]] = []
    for case in cases:
        docs += documents(case, len(docs))
    oracle, _ = runner.cached_run(docs)
    out = []
    for index, case in enumerate(cases):
        caller, callee = docs[2 * index], docs[2 * index + 1]
        got = run_scaffolded(caller, callee, workdir / str(index))
        expected = oracle[2 * index]
        out.append((case, expected, got, differences(expected, got, [input_name(0), UNDER_TEST])))
    return out
