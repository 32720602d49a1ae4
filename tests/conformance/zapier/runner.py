"""Run one pinned Zapier case: a Zap step in the Zapfile's format, scaffolded and run against canned replies.

A case (``Case``) is one step node as a Zapfile holds it (``selected_api``, ``action``,
``type_of``, ``params``), the outputs of the steps before it (by step id: the trigger is step
``1``, a Catch Hook), the replies its requests get, and what Zapier documents for it: the
requests it makes and its output (or, for a filter, whether the run goes on). The runner puts the
step in a two-step Zap (Catch Hook → the step), scaffolds it with ``cutover scaffold zapier``'s
own ``build``, runs the generated function with a ``Context`` stand-in that records calls,
decisions, sleeps and answers from the canned replies, and returns what happened.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from harness.platforms.zapier.definition import read_zaps
from harness.platforms.zapier.translate import ZapFile, ZapierScaffold, build
from harness.platforms.zapier.translate.steps import family
from queue_core import Trigger
from queue_core.errors import Filtered

NOW = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Case:
    """One pinned case of a Zap step's documented behaviour."""

    name: str
    source: str  # the public page (or API reference) the expected behaviour is from
    node: dict[str, Any]  # selected_api, action, type_of, params (a Zapfile node without ids)
    trigger: dict[str, Any] = field(default_factory=dict)  # step 1's output (the Catch Hook's body)
    replies: tuple[Any, ...] = ()  # the JSON answer of each request, in order
    requests: tuple[dict[str, Any], ...] = ()  # expected: method, url, and json/data/params/content
    output: Any = None  # expected output of the step (a list: one per output, as after a Code array)
    passes: bool | None = None  # for a filter: expected to let the run go on
    decisions: dict[str, Any] = field(default_factory=dict)
    slept: float | None = None  # seconds of durable wait expected
    more: tuple[dict[str, Any], ...] = ()  # further nodes (with id and parent_id): a Paths step's paths


class _Response:
    def __init__(self, body: Any) -> None:
        self.status_code, self.reason_phrase = 200, "OK"
        self.headers = httpx.Headers({"content-type": "application/json"})
        self._body = body
        self.text = body if isinstance(body, str) else json.dumps(body)
        self.content = self.text.encode()

    def json(self) -> Any:
        if isinstance(self._body, str):
            return json.loads(self._body)
        return self._body


class FakeContext:
    """What a scaffolded Zap needs of a ``Context``: calls answered in order, decisions, waits, a fixed clock."""

    def __init__(self, replies: tuple[Any, ...] = (), now: datetime = NOW) -> None:
        self.replies = list(replies)
        self.sent: list[dict[str, Any]] = []
        self.decisions: dict[str, Any] = {}
        self.slept = 0.0
        self.clock = now
        self.automation, self.job_id, self.mode = "case", "job-1", "shadow"
        self.providers = {"example": "https://api.example.test"}  # what a URL computed at run time is matched on

    def now(self) -> datetime:
        return self.clock

    def decide(self, name: str, value: Any) -> None:
        self.decisions[name] = value

    def filter(self, reason: str) -> None:
        raise Filtered(reason)

    async def call(self, provider: str, method: str, url: str, *, step: str, **kwargs: Any) -> _Response:
        self.sent.append({"provider": provider, "method": method, "url": url, "step": step, **kwargs})
        if not self.replies:
            raise AssertionError(f"step {step!r}: no canned reply left for {method} {url}")
        return _Response(self.replies.pop(0))

    async def sleep(self, duration: timedelta | float) -> None:
        seconds = duration.total_seconds() if isinstance(duration, timedelta) else float(duration)
        self.slept += seconds
        self.clock += timedelta(seconds=seconds)

    async def sleep_until(self, when: datetime) -> None:
        await self.sleep(max(when - self.clock, timedelta(0)))

    async def step(self, name: str, fn: Any, *args: Any) -> Any:
        return fn(*args)


def zapfile(node: dict[str, Any], more: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    """Return the Zapfile (gdpr_v1) of a Zap: a Catch Hook, ``node`` as step 2, then ``more``."""
    hook = {"id": 1, "type_of": "read", "selected_api": "WebHookCLIAPI@1.0.36", "action": "hook_v2",
            "params": {}, "parent_id": None, "root_id": None, "title": "Catch Hook"}
    step = {"id": 2, "parent_id": 1, "root_id": 1, "title": None, **node}
    nodes = {"1": hook, "2": step, **{str(n["id"]): {"title": None, **n} for n in more}}
    return {"metadata": {"version": "gdpr_v1"}, "zaps": [{"id": 9, "title": "Case", "status": "on", "nodes": nodes}]}


def scaffold_of(document: dict[str, Any], name: str = "case") -> ZapierScaffold:
    """Return the scaffold of a Zapfile's only Zap (no file: the maps name no definition)."""
    (zap,) = read_zaps(document)
    return build(ZapFile(zap, ""), name, {}, {})


def function_of(scaffold: ZapierScaffold) -> Any:
    """Return the generated automation function, without registering it."""
    source = re.sub(r"^@automation\(.*\)$", "", scaffold.source, flags=re.M)
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<{scaffold.automation}>", "exec"), namespace)  # noqa: S102 - the scaffold's own code
    return namespace[scaffold.automation.replace("-", "_")]


@dataclass
class Outcome:
    """What a run of a case's Zap did."""

    scaffold: ZapierScaffold
    ctx: FakeContext
    outputs: list[Any]  # step 2's outputs, one per time it ran
    filtered: bool
    error: BaseException | None = None


def run_case(case: Case) -> Outcome:
    """Scaffold the case's Zap and run it once on the case's trigger."""
    scaffold = scaffold_of(zapfile(case.node, case.more))
    ctx = FakeContext(case.replies)
    seen: list[Any] = []
    function = function_of(scaffold)
    original = function.__globals__["zapier"].Run.emit

    def emit(run: Any, step: str, output: Any) -> Any:
        if step == "2":
            seen.append(output)
        return original(run, step, output)

    function.__globals__["zapier"].Run.emit = emit
    filtered, error = False, None
    try:
        asyncio.run(function(ctx, Trigger("t-1", NOW, {}, case.trigger, "test")))
    except Filtered:
        filtered = True
    except Exception as exc:  # noqa: BLE001 - the outcome names it
        error = exc
    finally:
        function.__globals__["zapier"].Run.emit = original
    return Outcome(scaffold, ctx, seen, filtered, error)


def _type(node: dict[str, Any]) -> str:
    app = str(node["selected_api"]).split("@", 1)[0]
    if family(app) == "Formatter":  # the estate table's type says which transform (flow.step_type)
        return f"{app}:{node['action']}:{(node.get('params') or {}).get('transform') or ''}"
    return f"{app}:{node['action']}"


def step_type(case: Case) -> str:
    """Return the case's step type as the estate table names it: ``<selected_api>:<action>``."""
    return _type(case.node)


def step_types(case: Case) -> set[str]:
    """Return every step type a case runs (a Paths case: the branch, its paths and their steps)."""
    return {_type(case.node), *(_type(n) for n in case.more)}


def problems(case: Case) -> list[str]:
    """Return how a case's run differs from what Zapier documents (empty: it agrees)."""
    outcome = run_case(case)
    out: list[str] = []
    rows = [r for r in outcome.scaffold.rows if r.node != "Catch Hook"]
    if any(r.status != "translated" for r in rows):
        return [f"not translated: {[(r.node, r.status, r.why) for r in rows]}"]
    if outcome.error is not None:
        return [f"the run failed: {type(outcome.error).__name__}: {outcome.error}"]
    sent = [{k: v for k, v in r.items() if k not in ("provider", "step")} for r in outcome.ctx.sent]
    if case.requests != () or sent:
        if sent != list(case.requests):
            out.append(f"requests {sent} != {list(case.requests)}")
    if case.passes is not None:
        if outcome.filtered == case.passes:
            out.append(f"the filter {'stopped' if outcome.filtered else 'passed'} the run")
    elif case.output is not None:
        got = outcome.outputs if isinstance(case.output, list) else (outcome.outputs[0] if outcome.outputs else None)
        if got != case.output:
            out.append(f"output {got!r} != {case.output!r}")
    if case.decisions and outcome.ctx.decisions != case.decisions:
        out.append(f"decisions {outcome.ctx.decisions} != {case.decisions}")
    if case.slept is not None and outcome.ctx.slept != case.slept:
        out.append(f"slept {outcome.ctx.slept} s, expected {case.slept} s")
    return out
