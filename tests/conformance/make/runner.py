"""Run one pinned Make case: scaffold a scenario of the module under test, run the generated code offline.

A case is a module as a blueprint's ``flow`` holds it (``module``), the bundle of the custom
webhook before it (module 1, ``input``; the case's mapper reads it as ``{{1.field}}``), modules
that must run before it (``before``; after it when the module is the scenario's ``first``, run
by a schedule tick), the job's ``attempt`` (``ctx.attempt``), a poller's ``cursor`` before the tick
and the items it starts (``started``) and the cursor it stores (``next_cursor``), the replies its calls get in order, and what Make does:
the requests it sends (``calls``), the bundles it outputs (``output``) or the error it stops
with (``error``), and the synchronous webhook reply it makes (``response``), the decisions it records (``decisions``). ``source`` names
the public page that documents the behaviour. The runner scaffolds the scenario with
``cutover scaffold make``'s translator (the code a user gets), executes it in a registry of its
own, and records every ``run.emit`` of the module, every ``ctx.call`` and ``ctx.respond``.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from queue_core import registry as registry_module
from queue_core.compat import make
from queue_core.context import Trigger
from queue_core.errors import Filtered, RetryableError, TerminalError
from queue_core.registry import Registry

from harness.platforms.make.definition import load_blueprint
from harness.platforms.make.translate import build

ABSENT: Any = object()  # a request field the case does not check
UNDER_TEST = 900  # the module id the case's module gets


@dataclass(frozen=True)
class Reply:
    """A canned answer to one call."""

    status: int = 200
    json: Any = ABSENT
    text: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    content: bytes | None = None


@dataclass(frozen=True)
class Call:
    """A request Make sends: what a case checks of it (ABSENT fields are not checked)."""

    method: str
    url: str
    params: Any = ABSENT
    json: Any = ABSENT
    data: Any = ABSENT
    content: Any = ABSENT
    files: Any = ABSENT
    headers: dict[str, str] = field(default_factory=dict)  # each must be sent (names case-insensitive)
    provider: Any = ABSENT


@dataclass(frozen=True)
class MakeCase:
    """One pinned behaviour of one module type."""

    id: str
    module: dict[str, Any]
    source: str
    input: Any = field(default_factory=dict)
    before: tuple[dict[str, Any], ...] = ()
    replies: tuple[Reply, ...] = ()
    calls: tuple[Call, ...] = ()
    output: Any = ABSENT  # the list of bundles the module emits
    error: str | None = None  # a text the module's error contains
    response: Any = ABSENT  # (status, body, headers) of ctx.respond
    decisions: Any = ABSENT  # the decisions the run records (ctx.decide: a Router's routes taken)
    providers: dict[str, str] = field(default_factory=dict)  # host -> provider, as [tool.cutover.providers]
    schedule: dict[str, Any] | None = None
    attempt: int = 1  # the job's attempt number (ctx.attempt) the run is
    env: dict[str, str] = field(default_factory=dict)  # environment variables set around the run (a setting)
    cursor: Any = ABSENT  # a poller's durable cursor before the tick (ctx.poll_cursor; ABSENT: its default)
    started: Any = ABSENT  # the items a poller's tick starts jobs for (ctx.start_new), in order
    next_cursor: Any = ABSENT  # the cursor that tick stores
    first: bool = False  # the module is the scenario's first (no webhook before it), run by a schedule tick

    @property
    def type(self) -> str:
        return str(self.module["module"])


@dataclass
class Outcome:
    """What the generated code did."""

    translated: bool
    why: str = ""
    output: list[Any] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    responses: list[tuple[int, Any, dict[str, str]]] = field(default_factory=list)
    decisions: dict[str, Any] = field(default_factory=dict)
    started: list[Any] | None = None  # ctx.start_new's items (None: not called)
    next_cursor: Any = None
    error: str | None = None
    source: str = ""


class _Context:
    """The part of a Context a scaffolded Make scenario uses, offline, answering calls from the case."""

    def __init__(self, replies: tuple[Reply, ...], providers: dict[str, str] | None = None, attempt: int = 1,
                 cursor: Any = ABSENT) -> None:
        self.job_id = uuid.UUID(int=0)
        self.automation = "make-conformance"
        self.started: list[Any] | None = None
        self.next_cursor: Any = None
        self._cursor = cursor
        self.attempt = attempt
        self.providers = dict(providers or {})  # provider -> base URL, as ctx.providers
        self.decisions: dict[str, Any] = {}
        self.variables: dict[str, Any] = {}
        self.emitted: dict[int, list[Any]] = {}
        self.calls: list[dict[str, Any]] = []
        self.responses: list[tuple[int, Any, dict[str, str]]] = []
        self._replies = list(replies)

    def decide(self, name: str, value: Any) -> None:
        self.decisions[name] = value

    def filter(self, reason: str) -> None:
        raise Filtered(reason)

    def now(self) -> datetime:
        return datetime(2024, 6, 3, 9, 30, tzinfo=UTC)

    async def sleep(self, seconds: float) -> None:
        return None

    async def sleep_until(self, when: datetime) -> None:
        return None

    async def poll_cursor(self, *, poller: str | None = None, default: Any = None) -> Any:
        return copy.deepcopy(self._cursor) if self._cursor is not ABSENT else default

    async def start_new(self, target: str, items: list[Any], *, id_of: Any, cursor: Any, poller: str | None = None,
                        keep_last: int = 10_000, keep_for: Any = None) -> list[str]:
        self.started = (self.started or []) + copy.deepcopy(list(items))
        self.next_cursor = copy.deepcopy(cursor)
        return [str(id_of(item)) for item in items]

    async def respond(self, status: int = 200, body: Any = None, headers: dict[str, str] | None = None) -> None:
        self.responses.append((status, body, dict(headers or {})))

    async def call(self, provider: str, method: str, url: str, **kwargs: Any) -> httpx.Response:
        self.calls.append({"provider": provider, "method": method.upper(), "url": url, **kwargs})
        if not self._replies:
            raise AssertionError(f"call #{len(self.calls)} {method} {url}: the case has no reply left for it")
        reply = self._replies.pop(0)
        request = httpx.Request(method.upper(), url if "://" in url else f"https://{provider}.invalid{url}")
        if reply.json is not ABSENT:
            response = httpx.Response(reply.status, json=reply.json, headers=reply.headers, request=request)
        elif reply.content is not None:
            response = httpx.Response(reply.status, content=reply.content, headers=reply.headers, request=request)
        else:
            response = httpx.Response(reply.status, text=reply.text or "", headers=reply.headers, request=request)
        # as the gateway classifies an answer: 429, 408 and 5xx are retried, any other 4xx fails the job
        step = kwargs.get("step")
        if reply.status in (408, 429) or reply.status >= 500:
            raise RetryableError(f"step {step!r}: HTTP {reply.status}")
        if reply.status >= 400:
            raise TerminalError(f"step {step!r}: HTTP {reply.status} client error")
        return response


@contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextmanager
def _recording_emits() -> Iterator[None]:
    original = make.Run.emit

    def emit(self: Any, module: int, bundle: Any) -> Any:
        emitted = getattr(self.ctx, "emitted", None)
        if emitted is not None:
            emitted.setdefault(module, []).append(copy.deepcopy(bundle))
        return original(self, module, bundle)

    make.Run.emit = emit  # type: ignore[method-assign]
    try:
        yield
    finally:
        make.Run.emit = original  # type: ignore[method-assign]


def blueprint_of(case: MakeCase) -> dict[str, Any]:
    """Return the scenario a case runs: a custom webhook (module 1), the ``before`` modules, the module."""
    hook = {"id": 1, "module": "gateway:CustomWebHook", "version": 1, "parameters": {"hook": 1}, "mapper": {},
            "metadata": {"designer": {"x": 0, "y": 0}}}
    module = {**case.module, "id": UNDER_TEST}
    flow = [module, *case.before] if case.first else [hook, *case.before, module]
    document: dict[str, Any] = {"name": f"conformance {case.id}", "flow": flow,
                                "metadata": {"instant": True, "version": 1}}
    if case.schedule is not None:
        document["scheduling"] = case.schedule
    return document


def _load(source: str, filename: str, automation: str) -> Any:
    saved = registry_module.default_registry
    registry_module.default_registry = Registry()
    try:
        namespace: dict[str, Any] = {}
        exec(compile(source, filename, "exec"), namespace)
        return registry_module.default_registry.get(automation).fn
    finally:
        registry_module.default_registry = saved


def run_case(case: MakeCase, workdir: Path) -> Outcome:
    """Scaffold the case's scenario, run it offline, and return what the module under test did."""
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "blueprint.json"
    document = blueprint_of(case)
    path.write_text(json.dumps(document), encoding="utf-8")
    scaffold = build(load_blueprint(path, document), "make-conformance", dict(case.providers))
    row = next(r for r in scaffold.rows if r.node == (case.module.get("metadata", {}).get("designer", {}).get("name")
                                                        or f"{case.type}#{UNDER_TEST}"))
    outcome = Outcome(translated=row.status == "translated" or (case.first and row.status == "trigger"), why=row.why, source=scaffold.source)
    function = _load(scaffold.source, str(path.with_suffix(".py")), "make-conformance")
    ctx = _Context(case.replies, {p: f"https://{h}" for h, p in case.providers.items()}, case.attempt, case.cursor)
    with _recording_emits(), _environment(case.env):
        try:
            asyncio.run(function(ctx, Trigger("make-conformance", None, {"content-type": "application/json"},
                                              copy.deepcopy(case.input), "schedule" if case.first else "webhook")))
        except Filtered:
            pass
        except Exception as exc:  # noqa: BLE001 - the module's failure is an outcome, compared
            outcome.error = f"{type(exc).__name__}: {exc}"
    outcome.output = ctx.emitted.get(UNDER_TEST, [])
    outcome.calls = ctx.calls
    outcome.responses = ctx.responses
    outcome.decisions = ctx.decisions
    outcome.started, outcome.next_cursor = ctx.started, ctx.next_cursor
    return outcome


def _headers_sent(sent: Any) -> dict[str, str]:
    if isinstance(sent, dict):
        return {str(k).lower(): str(v) for k, v in sent.items()}
    if isinstance(sent, list | tuple):
        return {str(k).lower(): str(v) for k, v in sent}
    return {}


def mismatches(case: MakeCase, outcome: Outcome) -> list[str]:
    """Return how the run differs from the case (empty: it conforms)."""
    found: list[str] = []
    if not outcome.translated:
        return [f"not translated: {outcome.why}"]
    if len(outcome.calls) != len(case.calls):
        found.append(f"{len(outcome.calls)} calls made, the case expects {len(case.calls)}: "
                     f"{[(c['method'], c['url']) for c in outcome.calls]}")
    for n, (want, got) in enumerate(zip(case.calls, outcome.calls, strict=False), 1):
        for key in ("method", "url", "params", "json", "data", "content", "files", "provider"):
            expected = getattr(want, key)
            if expected is ABSENT:
                continue
            actual = got.get(key)
            if key == "params" and isinstance(actual, list | tuple):
                actual = dict(actual)
            if actual != expected:
                found.append(f"call #{n} {key}: sent {actual!r}, expected {expected!r}")
        sent = _headers_sent(got.get("headers"))
        for name, value in want.headers.items():
            if sent.get(name.lower()) != value:
                found.append(f"call #{n} header {name}: sent {sent.get(name.lower())!r}, expected {value!r}")
    if case.error is not None:
        if outcome.error is None or case.error not in outcome.error:
            found.append(f"error: got {outcome.error!r}, expected one containing {case.error!r}")
    elif outcome.error is not None:
        found.append(f"the run failed: {outcome.error}")
    if case.output is not ABSENT and outcome.output != case.output:
        found.append(f"output: {json.dumps(outcome.output, default=str)[:600]} != expected "
                     f"{json.dumps(case.output, default=str)[:600]}")
    if case.started is not ABSENT and outcome.started != case.started:
        found.append(f"started: {json.dumps(outcome.started, default=str)[:600]} != expected "
                     f"{json.dumps(case.started, default=str)[:600]}")
    if case.next_cursor is not ABSENT and outcome.next_cursor != case.next_cursor:
        found.append(f"cursor stored: {outcome.next_cursor!r} != expected {case.next_cursor!r}")
    if case.decisions is not ABSENT and outcome.decisions != case.decisions:
        found.append(f"decisions: {outcome.decisions!r} != expected {case.decisions!r}")
    if case.response is not ABSENT:
        status, body, headers = case.response
        got_r = outcome.responses[0] if outcome.responses else None
        if got_r is None or got_r[0] != status or got_r[1] != body or any(
                _headers_sent(got_r[2]).get(k.lower()) != v for k, v in headers.items()):
            found.append(f"webhook reply: got {got_r!r}, expected {case.response!r}")
    return found
