"""Scaffold a case's workflow with the translator and run the generated module, offline.

This is what ``cutover scaffold prove`` does for a workflow's pinned data, done here through the
translator's public entry point: ``scaffold_n8n`` writes the module file, and that file (the
code a user would get) is executed with a fresh automation registry and a context that records
node outputs and refuses any call. The node under test is *translated* when the scaffold's table
says so; a TODO node is not claimed, so it is counted, not compared.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from queue_core import registry as registry_module
from queue_core.context import Trigger
from queue_core.errors import Filtered
from queue_core.registry import Registry

from harness.platforms.n8n.translate import scaffold_n8n

from tests.oracle.outcome import Outcome
from tests.oracle.workflow import UNDER_TEST


class _OfflineContext:
    """The part of a Context scaffolded code uses; ``Flow`` keeps itself in ``n8n_flows``."""

    def __init__(self) -> None:
        self.job_id = uuid.UUID(int=0)
        self.decisions: dict[str, Any] = {}
        self.n8n_flows: list[Any] = []

    def decide(self, name: str, value: Any) -> None:
        self.decisions[name] = value

    def filter(self, reason: str) -> None:
        raise Filtered(reason)

    def now(self) -> datetime:
        return datetime(2024, 1, 1, tzinfo=UTC)

    async def sleep(self, seconds: float) -> None:
        return None

    async def sleep_until(self, when: datetime) -> None:
        return None

    async def call(self, provider: str, method: str, url: str, **kwargs: Any) -> Any:
        raise RuntimeError(f"{method} {url}: a conformance case does not call {provider!r}")


def _load(source: str, filename: str) -> Any:
    saved = registry_module.default_registry
    registry_module.default_registry = Registry()
    try:
        namespace: dict[str, Any] = {}
        exec(compile(source, filename, "exec"), namespace)
        return registry_module.default_registry.get("oracle").fn
    finally:
        registry_module.default_registry = saved


def _failed_node(exc: BaseException, names: list[str]) -> str | None:
    node = getattr(exc, "node", None)
    if isinstance(node, str):
        return node
    message = str(exc)
    for name in sorted(names, key=len, reverse=True):  # NodeFailed's message starts "<node>: "
        if message.startswith(f"{name}:") or f"'{name}'" in message:
            return name
    return None


def scaffolded(document: dict[str, Any], workdir: Path) -> tuple[Any, bool]:
    """Scaffold the workflow ``document`` into ``workdir`` and load its automation in a registry of
    its own; return its function and whether the node under test is translated."""
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "workflow.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    (written,) = scaffold_n8n(path, automation="oracle", into=workdir / "automations", force=True)
    status = {row.node: row.status for row in written.scaffold.rows}
    return _load(written.path.read_text(encoding="utf-8"), str(written.path)), status.get(UNDER_TEST) == "translated"


def run_with(document: dict[str, Any], workdir: Path, ctx: Any) -> Outcome:
    """Scaffold ``document`` and run it with ``ctx`` (a suite's context, which sends its calls
    somewhere of the suite's own); a crash is the node under test's error. Return the outputs,
    and the binary entries of the nodes that have any."""
    function, translated = scaffolded(document, workdir)
    outcome = Outcome(translated=translated)
    try:
        asyncio.run(function(ctx, Trigger("oracle", None, {}, {}, "oracle")))
    except Exception as exc:  # noqa: BLE001 - a crash of generated code is an outcome, compared
        outcome.error, outcome.error_node = f"{type(exc).__name__}: {exc}", UNDER_TEST
    if ctx.n8n_flows:
        outputs = ctx.n8n_flows[0].outputs
        outcome.nodes = {n: [[i.get("json") for i in items] for items in outs] for n, outs in outputs.items()}
        outcome.binary = {n: [[i.get("binary") for i in items] for items in outs] for n, outs in outputs.items()
                          if any(i.get("binary") for items in outs for i in items)}
    return outcome


def run_one(document: dict[str, Any], workdir: Path) -> Outcome:
    """Scaffold the workflow ``document`` into ``workdir`` and run it; return what it produced."""
    function, translated = scaffolded(document, workdir)
    ctx = _OfflineContext()
    outcome = Outcome(translated=translated)
    failure: BaseException | None = None
    try:
        asyncio.run(function(ctx, Trigger("oracle", None, {}, {}, "oracle")))
    except Filtered:
        pass  # a Filter that kept nothing ends the run filtered: n8n's run just ends there too
    except Exception as exc:  # noqa: BLE001 - any crash of generated code is an outcome, compared
        outcome.error = f"{type(exc).__name__}: {exc}"
        failure = exc
    if ctx.n8n_flows:
        outcome.nodes = {name: [list(_json(i) for i in items) for items in outputs]
                         for name, outputs in ctx.n8n_flows[0].outputs.items()}
        outcome.binary = {n: [[i.get("binary") for i in items] for items in outs]  # as run_with keeps them
                          for n, outs in ctx.n8n_flows[0].outputs.items()
                          if any(i.get("binary") for items in outs for i in items)}
    if failure is not None:
        names = [n["name"] for n in document["nodes"]]
        # A message that names no node: the run stopped at the first node that recorded nothing.
        outcome.error_node = _failed_node(failure, names) or next((n for n in names if n not in outcome.nodes), None)
    return outcome


def _json(item: Any) -> Any:
    return item.get("json") if isinstance(item, dict) else item
