"""Run a scaffolded workflow on its pinned data, and compare each node's output with the pin.

n8n's own node tests pin, in the workflow file, the output every checked node must produce
(``pinData``). ``prove(workflow)`` scaffolds the workflow, runs the generated automation in this
process (the trigger's pinned items as its input, no queue, no network: a call raises
``NotOffline``), and compares every pinned node's items with what the generated code produced.
A node is *proved* when its items equal the pin, *differs* otherwise, *not translated* when
the run reached a TODO there, and *not run* when the run stopped before it (a call, a failure).
A node with several outputs (IF, Switch) is compared on its first output, the one n8n pins.

``prove(workflow, module=FILE)`` runs an automation module a person may have edited, instead of
scaffolding the workflow anew: the proof of the code that will run, not of the translator.
This is what `cutover scaffold prove` prints; it exits 1 unless every pinned node is proved.

``proof_of(node)`` says what proves a translated node for the estate table: ``oracle`` when its
type and version are proved by the conformance suites against the real n8n (the package's copy,
``descriptions/proved.json``, written by ``python -m tests.oracle.proved --write``), ``shadow``
when it is a call whose proof is the shadow run (an app operation, a sub-workflow call, a wait
resumed by a call: the node is mapped to a step), else ``none``. An app node (a type in the
table's ``operations``) is ``oracle`` only when its type, typeVersion and resource.operation (the
export's, else n8n's default, as the translator reads them) are there.
"""

from __future__ import annotations

import asyncio
import functools
import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from queue_core import registry as registry_module
from queue_core.compat import n8n
from queue_core.context import Trigger
from queue_core.errors import Filtered, TerminalError, TodoNode
from queue_core.registry import Registry

from harness.platforms.n8n.translate.module import build
from harness.platforms.n8n.definition import Node, Workflow
from harness.errors import HarnessError, NotOffline, Untranslatable


@dataclass(frozen=True)
class NodeProof:
    """The outcome for one pinned node."""

    node: str
    type: str
    outcome: str  # proved | differs | not run | not translated
    detail: str = ""


class _OfflineContext:
    """The part of the Context a scaffolded automation uses, offline."""

    def __init__(self) -> None:
        self.job_id = uuid.UUID(int=0)
        self.decisions: dict[str, Any] = {}
        self.n8n_flows: list[n8n.Flow] = []

    def decide(self, name: str, value: Any) -> None:
        self.decisions[name] = value

    def filter(self, reason: str) -> None:
        raise Filtered(reason)

    def now(self) -> datetime:
        return datetime.now(UTC)

    async def sleep(self, seconds: float) -> None:
        return None

    async def call(self, provider: str, method: str, url: str, **kwargs: Any) -> Any:
        raise NotOffline(f"{method} {url}: a proof does not call {provider!r}")


def _trigger_of(workflow: Workflow) -> Trigger:
    start = workflow.trigger()
    pinned = workflow.pin_data.get(start.name) if start else None
    items = [p.get("json", {}) for p in pinned or [{"json": {}}]]
    if start is not None and start.short_type.lower() == "webhook" and items and isinstance(items[0], dict):
        first = items[0]
        return Trigger("proof", None, dict(first.get("headers") or {}), first.get("body"), "proof")
    return Trigger("proof", None, {}, items if len(items) != 1 else items[0], "proof")


def run(workflow: Workflow, module: Path | None = None,
        automation: str | None = None) -> tuple[n8n.Flow | None, str | None, dict[str, str]]:
    """Run ``workflow`` offline: scaffolded anew, or the automation of ``module`` (a file a person
    may have edited); return its flow, the error that stopped it, and each node's status
    (``todo`` for a node the run reached untranslated)."""
    if module is None:
        scaffold = build(workflow, "proof", {})
        statuses = {r.node: r.status for r in scaffold.rows}
        function = _load(scaffold.source, f"<scaffold of {workflow.path}>", "proof")
    else:
        statuses = {}
        function = _load(module.read_text(encoding="utf-8"), str(module), automation)
    ctx = _OfflineContext()
    error = None
    try:
        asyncio.run(_complete(function(ctx, _trigger_of(workflow))))
    except TodoNode as exc:
        statuses[exc.node] = "todo"
        error = f"{type(exc).__name__}: {exc}"
    except (TerminalError, Filtered) as exc:
        error = f"{type(exc).__name__}: {exc}"
    return (ctx.n8n_flows[0] if ctx.n8n_flows else None), error, statuses


def _load(source: str, filename: str, automation: str | None) -> Any:
    """Execute an automation module's source in a registry of its own; return its automation's function."""
    namespace: dict[str, Any] = {"__name__": "cutover_proof"}
    saved = registry_module.default_registry
    registry_module.default_registry = Registry()
    try:
        exec(compile(source, filename, "exec"), namespace)
        found = registry_module.default_registry
        names = found.names() if automation is None else [automation]
        if len(names) != 1:
            raise HarnessError(f"{filename}: defines {len(names)} automations ({', '.join(names) or 'none'}); "
                               "name the one to prove with --automation")
        if names[0] not in found:
            raise HarnessError(f"{filename}: defines no automation {names[0]!r} (it defines "
                               f"{', '.join(found.names()) or 'none'})")
        return found.get(names[0]).fn
    finally:
        registry_module.default_registry = saved


async def _complete(run: Any) -> None:
    await run


def prove(workflow: Workflow, module: Path | None = None, automation: str | None = None) -> list[NodeProof]:
    """Return the proof of every pinned node of ``workflow`` but its trigger (see the module's docstring)."""
    flow, error, statuses = run(workflow, module, automation)
    start = workflow.trigger()
    proofs = []
    for name, pinned in workflow.pin_data.items():
        node = workflow.nodes.get(name)
        if node is None or (start is not None and name == start.name):
            continue
        expected = [p.get("json") for p in pinned]
        produced = flow.outputs.get(name) if flow is not None else None
        if statuses.get(name) == "todo":
            proofs.append(NodeProof(name, node.type, "not translated", error or ""))
        elif produced is None:
            proofs.append(NodeProof(name, node.type, "not run", error or "no items reached it"))
        else:
            got = [i.get("json") for i in produced[0]] if produced else []
            outcome = "proved" if got == expected else "differs"
            proofs.append(NodeProof(name, node.type, outcome, "" if got == expected else f"got {got!r}"[:300]))
    return proofs


PROVED_TABLE = Path(__file__).resolve().parents[1] / "descriptions" / "proved.json"


@functools.cache
def _table() -> dict[str, Any]:
    try:
        document: dict[str, Any] = json.loads(PROVED_TABLE.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    return document


@functools.cache
def _proved() -> dict[str, frozenset[float]]:
    return {t: frozenset(float(v) for v in versions) for t, versions in _table().get("proved", {}).items()}


@functools.cache
def _operations() -> dict[str, dict[float, frozenset[str]]]:
    return {t: {float(v): frozenset(ops) for v, ops in versions.items()}
            for t, versions in _table().get("operations", {}).items()}


def operation_proved(node: Node) -> bool:
    """Tell whether the app suites prove ``node``'s type, typeVersion and resource.operation."""
    from harness.platforms.n8n.translate.apps import N8N_APPS, _choice

    versions = _operations().get(node.type)
    entry = N8N_APPS.get(node.short_type)
    if not versions or entry is None:
        return False
    try:
        resource, operation = _choice(node, entry)
    except Untranslatable:
        return False
    return f"{resource}.{operation}" in versions.get(float(node.version), frozenset())


def proved_by_oracle(node_type: str, version: float) -> bool:
    """Tell whether the oracle suites prove ``node_type`` at ``version`` (the package's table)."""
    return float(version) in _proved().get(node_type, frozenset())


def proof_of(node_type: str, version: float, step: str, node: Node | None = None) -> str:
    """Return what proves a translated node: ``oracle``, ``shadow`` (a call mapped to ``step``), or ``none``.

    ``node`` (the workflow's node) lets an app node be proved per operation (``operation_proved``)."""
    if step and node_type == "n8n-nodes-base.executeWorkflow":
        return "shadow"  # a callee not in the estate: its recorded output answers it, not proved code
    if node is not None and node_type in _operations():
        return "oracle" if operation_proved(node) else "shadow" if step else "none"
    if proved_by_oracle(node_type, version):
        return "oracle"
    return "shadow" if step else "none"
