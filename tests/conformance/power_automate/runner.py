"""Run a scaffolded flow fragment offline: canned replies to its calls, what it did recorded.

A ``Case`` is a flow fragment in the Workflow Definition Language (``triggers`` + ``actions``),
the trigger's delivery, the replies its calls get (by step), and what Microsoft documents the
run does: the requests sent, each action's status and outputs, the variables, the decisions,
the Response, the run's outcome. ``run_case`` scaffolds the fragment with the real translator
(``harness.platforms.power_automate.translate.build``), executes the generated module in a
registry of its own, and returns what happened, for ``check`` to compare with the case.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from harness.platforms.power_automate.definition import read_flow
from harness.platforms.power_automate.translate import build
from queue_core import registry as registry_module
from queue_core.context import Trigger
from queue_core.errors import Filtered, TerminalError
from queue_core.registry import Registry

PROVIDERS = {"api.example.test": "api", "graph.microsoft.com": "graph", "contoso.sharepoint.com": "sharepoint"}


@dataclass(frozen=True)
class Case:
    """One documented behaviour: a flow fragment, its input, and what the run does."""

    name: str
    types: tuple[str, ...]  # the action (row) types this case proves
    source: str  # the learn.microsoft.com page that documents it
    actions: dict[str, Any]
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    trigger: dict[str, Any] = field(default_factory=lambda: {"manual": {"type": "Request", "kind": "Http"}})
    replies: dict[str, Any] = field(default_factory=dict)  # step -> JSON body (status 200) or (status, body)
    requests: list[dict[str, Any]] | None = None  # [{"method", "url", "json"?, "content"?, "params"?}] in order
    status: dict[str, str] = field(default_factory=dict)  # action -> status
    outputs: dict[str, Any] = field(default_factory=dict)  # action -> outputs
    variables: dict[str, Any] = field(default_factory=dict)
    decisions: dict[str, Any] = field(default_factory=dict)
    response: dict[str, Any] | None = None  # {"status", "body", "headers"?}
    slept: list[float] | None = None  # the durable sleeps, in seconds
    enqueued: list[tuple[str, Any, str]] | None = None  # the child jobs started: (automation, payload, key)
    outcome: str = "succeeded"  # succeeded | failed | filtered
    error: str = ""  # a text the run's error contains


class _Response:
    def __init__(self, status: int, body: Any) -> None:
        self.status_code, self._body, self.headers = status, body, {"content-type": "application/json"}
        self.text = body if isinstance(body, str) else json.dumps(body)

    def json(self) -> Any:
        if isinstance(self._body, str):
            raise ValueError("not JSON")
        return self._body


class OfflineContext:
    """The part of the Context a scaffolded flow uses, with canned replies and a record of what it did."""

    def __init__(self, replies: dict[str, Any]) -> None:
        self.job_id = uuid.UUID(int=0)
        self.replies = replies
        self.requests: list[dict[str, Any]] = []
        self.decisions: dict[str, Any] = {}
        self.responses: list[dict[str, Any]] = []
        self.slept: list[float] = []
        self.pa_runs: list[Any] = []
        self.providers = {name: f"https://{host}" for host, name in PROVIDERS.items()}  # name -> base URL
        self.enqueued: list[tuple[str, Any, str]] = []

    async def enqueue(self, automation: str, payload: Any = None, *, key: str) -> uuid.UUID:
        self.enqueued.append((automation, payload, key))
        return uuid.UUID(int=len(self.enqueued))

    def decide(self, name: str, value: Any) -> None:
        self.decisions[name] = value

    def filter(self, reason: str) -> None:
        raise Filtered(reason)

    def now(self) -> datetime:
        """The job's clock: a fixed start, moved on by the durable sleeps taken (as a live job's is)."""
        return datetime(2024, 6, 3, 9, 30, tzinfo=UTC) + timedelta(seconds=sum(self.slept))

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)

    async def respond(self, status: int = 200, body: Any = None, headers: dict[str, str] | None = None) -> None:
        self.responses.append({"status": status, "body": body, "headers": headers or {}})

    async def call(self, provider: str, method: str, url: str, *, step: str, **kwargs: Any) -> _Response:
        request = {"provider": provider, "method": method, "url": url, "step": step, **kwargs}
        if isinstance(request.get("content"), bytes):
            request["content"] = request["content"].decode()
        self.requests.append(request)
        reply = self.replies.get(step, {})
        status, body = reply if isinstance(reply, tuple) else (200, reply)
        if status >= 400:
            raise TerminalError(f"step {step!r}: {provider} answered {status}")
        return _Response(status, body)


@dataclass
class Ran:
    """What one run of a case did."""

    outcome: str
    error: str
    requests: list[dict[str, Any]]
    status: dict[str, str]
    outputs: dict[str, Any]
    variables: dict[str, Any]
    decisions: dict[str, Any]
    responses: list[dict[str, Any]]
    rows: dict[str, str]  # action -> translated | todo
    slept: list[float]
    enqueued: list[tuple[str, Any, str]]


def _load(source: str) -> Any:
    namespace: dict[str, Any] = {"__name__": "cutover_pa_case"}
    saved = registry_module.default_registry
    registry_module.default_registry = Registry()
    try:
        exec(compile(source, "<case>", "exec"), namespace)
        return registry_module.default_registry.get("case").fn
    finally:
        registry_module.default_registry = saved


def run_case(case: Case) -> Ran:
    """Scaffold the case's fragment and run it offline."""
    flow = read_flow({"definition": {"triggers": case.trigger, "actions": case.actions}}, name=case.name)
    assert flow is not None
    scaffold = build(flow, "case", dict(PROVIDERS))
    function = _load(scaffold.source)
    ctx = OfflineContext(case.replies)
    outcome, error = "succeeded", ""
    try:
        asyncio.run(function(ctx, Trigger("case", None, dict(case.headers), case.body, "case")))
    except Filtered as exc:
        outcome, error = "filtered", str(exc)
    except TerminalError as exc:
        outcome, error = "failed", f"{type(exc).__name__}: {exc}"
    run = ctx.pa_runs[0]
    return Ran(outcome, error, ctx.requests, dict(run.status_of), dict(run.outputs_of), dict(run.vars),
               ctx.decisions, ctx.responses, {r.node: r.status for r in scaffold.rows}, ctx.slept,
               ctx.enqueued)


def check(case: Case) -> list[str]:
    """Return how the run differs from what the case documents (empty: it conforms)."""
    ran = run_case(case)
    problems = [f"{node} is not translated" for node, status in ran.rows.items() if status == "todo"]
    if ran.outcome != case.outcome or case.error not in ran.error:
        problems.append(f"outcome {ran.outcome} ({ran.error}), documented {case.outcome} ({case.error})")
    if case.requests is not None:
        sent = [{k: v for k, v in r.items() if k not in ("provider", "step")} for r in ran.requests]
        if sent != case.requests:
            problems.append(f"requests {sent}, documented {case.requests}")
    for table, want, got in (("status", case.status, ran.status), ("outputs", case.outputs, ran.outputs),
                             ("variables", case.variables, ran.variables)):
        for key, value in want.items():
            if got.get(key, "<none>") != value:
                problems.append(f"{table}[{key}] = {got.get(key, '<none>')!r}, documented {value!r}")
    if case.enqueued is not None and ran.enqueued != case.enqueued:
        problems.append(f"enqueued {ran.enqueued}, documented {case.enqueued}")
    if case.slept is not None and ran.slept != case.slept:
        problems.append(f"slept {ran.slept}, documented {case.slept}")
    if ran.decisions != case.decisions:
        problems.append(f"decisions {ran.decisions}, documented {case.decisions}")
    if case.response is not None:
        if not ran.responses:
            problems.append("no Response sent")
        else:
            got_response = {k: ran.responses[0][k] for k in case.response}
            if got_response != case.response:
                problems.append(f"response {got_response}, documented {case.response}")
    return problems
