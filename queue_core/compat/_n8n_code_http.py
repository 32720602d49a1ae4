"""Code nodes that make HTTP calls (``this.helpers.httpRequest``, ``this.helpers.request``), driven from Python.

V8 cannot wait on Python, so the run is driven from here: the node's JavaScript starts in an
isolate of its own (from a small pool: a suspended run keeps its clock, zone and globals set), and
each ``helpers.httpRequest(...)`` returns a pending Promise and queues a plain request
(``_n8n_code_http.js``). When the code can go no further, the queued requests come back here;
each is made through the automation's ``ctx.call`` — so the gateway records it, a shadow run is
answered from the recording, a dry run never acts, the provider's rate budget is spent — and its
answer goes back to JavaScript, which resolves or rejects the promise with n8n's response shape
(body parsed as n8n's axios parses it; ``returnFullResponse``, ``json``, ``encoding``,
``ignoreHttpStatusErrors``; ``request``'s ``resolveWithFullResponse`` and ``simple``), runs what
was waiting on it, and queues the next requests. The time limit counts JavaScript time across the
whole run (not the time the calls take); the heap limit is per slice.

What stops the node rather than reaching the code as n8n's error: a URL whose origin is no
configured provider (NodeFailed naming it), a call that got no answer (a network failure, a shadow
read with nothing recorded), a rate budget's put-back (Snooze), a redirect the gateway does not
follow, and a request the gateway cannot send as n8n sent it (a text, XML, binary or multipart body,
a nested form: ``refused`` by the JavaScript side). An HTTP error the code does not catch fails the
node; a retryable one (5xx) is raised as the gateway's RetryableError, so the job retries as for
any call. A run stopped between slices (by any of these, or by the time limit) is undone in its
isolate, which is pooled again; one past its heap limit is closed.
"""

from __future__ import annotations

import atexit
import base64
import json
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..errors import NodeFailed, RetryableError, TerminalError
from . import _n8n_code as code
from ._n8n_http import provider_of

Items = list[dict[str, Any]]
Perform = Callable[[dict[str, Any]], Awaitable[Any]]
MAX_CALLS = 1000  # HTTP requests per run
POOL = 4  # idle isolates kept for HTTP runs
_pool: list[Any] = []
_pool_lock = threading.Lock()
_closing_registered = False


def _checkout() -> Any:
    global _closing_registered
    with _pool_lock:
        if _pool:
            return _pool.pop()
        if not _closing_registered:
            atexit.register(_close_pool)  # an isolate left to interpreter shutdown can hang the exit
            _closing_registered = True
    return code._started_engine()


def _close_pool() -> None:
    with _pool_lock:
        idle = list(_pool)
        _pool.clear()
    for engine in idle:
        engine.close()


def _checkin(engine: Any) -> None:
    with _pool_lock:
        if len(_pool) < POOL:
            _pool.append(engine)
            return
    engine.close()


class _Slices:
    """One HTTP run's isolate and the JavaScript time it has left (``timeout_ms`` across its slices)."""

    def __init__(self, node: str, timeout_ms: int, max_memory: int) -> None:
        self.engine, self.node, self.timeout_ms, self.max_memory = _checkout(), node, timeout_ms, max_memory
        self.left, self.dead = timeout_ms / 1000, False

    def eval(self, script: str) -> dict[str, Any]:
        """Run one slice; an isolate past its heap limit is closed, never pooled again."""
        from py_mini_racer import JSOOMException, JSTimeoutException

        started = time.monotonic()
        try:
            text = self.engine.eval(script, timeout_sec=max(self.left, 0.001), max_memory=self.max_memory)
        except JSTimeoutException:  # V8 stopped the slice: the run is undone and the isolate pooled again (release)
            raise NodeFailed(f"{self.node}: the Code node ran past its time limit ({self.timeout_ms} ms)") from None
        except JSOOMException:
            self.close()
            raise NodeFailed(f"{self.node}: the Code node ran past its memory limit "
                             f"({self.max_memory // 2**20} MiB)") from None
        self.left -= time.monotonic() - started
        return json.loads(text)  # type: ignore[no-any-return]

    def close(self) -> None:
        self.dead = True
        self.engine.close()

    def release(self, finished: bool) -> None:
        """Pool the isolate again; a run stopped between slices is undone first (its globals, its promises)."""
        if self.dead:
            return
        if not finished:
            try:
                self.engine.eval("__cutoverRestore()", timeout_sec=1)
            except Exception:  # noqa: BLE001 - an isolate that cannot even restore is dropped
                self.close()
                return
        _checkin(self.engine)


async def drive(payload: str, node: str, perform: Perform, *, timeout_ms: int = code.TIMEOUT_MS,
                max_memory: int = code.MAX_MEMORY) -> dict[str, Any]:
    """Run the payload's code to its end, making its HTTP requests with ``perform`` (request ->
    (answer, failure)); return what the sandbox answered, as ``_n8n_code._call`` does. An exception
    ``perform`` raises ends the run with it; a ``failure`` is the gateway's signal for an HTTP error
    whose answer went to the code: raised when it is retryable and the code let it through."""
    run = _Slices(node, timeout_ms, max_memory)
    failures: dict[int, BaseException] = {}
    made, finished = 0, False
    try:
        result = run.eval(f"__cutoverStart({json.dumps(payload)})")
        while "pending" in result:
            made += len(result["pending"])
            if made > MAX_CALLS:
                raise NodeFailed(f"{node}: the Code node made more than {MAX_CALLS} HTTP requests in one run")
            answers = []
            for request in result["pending"]:
                answer, failure = await perform(request)
                if failure is not None:
                    failures[request["id"]] = failure
                answers.append({"id": request["id"], **answer})
            result = run.eval(f"__cutoverResume({json.dumps(json.dumps(answers))})")
        finished = True
    finally:
        run.release(finished)
    call = (result.get("error") or {}).get("call")
    failure = failures.get(call) if isinstance(call, int) else None
    if isinstance(failure, RetryableError):
        raise failure  # a 5xx the code let through: the job retries, as for any node's call
    return result


def answer_of(response: Any, binary: bool) -> dict[str, Any]:
    """Return an HTTP answer as the sandbox reads it: status, reason, headers (pairs), body text or base64."""
    content: bytes = response.content
    body = {"base64": base64.b64encode(content).decode()} if binary else {"text": content.decode("utf-8", "replace")}
    return {"status": response.status_code, "reason": response.reason_phrase,
            "headers": [[k, v] for k, v in response.headers.multi_items()], **body}


def performer(ctx: Any, node: str, step: str) -> Perform:
    """Return the function that makes a Code node's queued request through ``ctx.call`` (see the module)."""

    async def perform(request: dict[str, Any]) -> tuple[dict[str, Any], BaseException | None]:
        if "refused" in request:
            raise NodeFailed(f"{node}: {request['refused']}")
        url = str(request["url"])
        provider = provider_of(ctx, url, node)
        query: dict[str, list[str]] = {}
        for name, value in request.get("query") or []:
            query.setdefault(name, []).append(value)
        kwargs: dict[str, Any] = {"headers": dict(request.get("headers") or {})}
        if query:
            kwargs["params"] = query
        body = request.get("body")
        if body is not None and body["kind"] == "json":
            kwargs["json"] = body["value"]
        elif body is not None:
            form: dict[str, list[str]] = {}
            for name, value in body["pairs"]:
                form.setdefault(name, []).append(value)
            kwargs["data"] = form
        failure: BaseException | None = None
        try:
            response = await ctx.call(provider, request["method"], url, step=step, **kwargs)
        except (RetryableError, TerminalError) as exc:
            response = getattr(exc, "response", None)
            if response is None:  # no answer to give the code (network, shadow with nothing recorded)
                raise
            failure = exc
        if 300 <= response.status_code < 400 and request.get("follow") and response.headers.get("location"):
            raise NodeFailed(f"{node}: {request['method']} {url} answered {response.status_code} (a redirect to "
                             f"{response.headers['location']}), which n8n follows and cutover's gateway does not: "
                             "call the address it redirects to")
        return answer_of(response, bool(request.get("binary"))), failure

    return perform


async def code_http(flow: Any, node: str, source: str, items: Items, *, step: str, mode: str = "runOnceForAllItems",
                    kind: str = "code", workflow: dict[str, Any] | None = None, zone: str | None = None,
                    static_data: bool = False) -> Items:
    """Run a Code node whose JavaScript makes HTTP calls; record and return its items.

    As ``n8n.code`` (``_n8n_code.run_node``: clock, job id, earlier outputs, time zone, builtins),
    with each request made through ``flow.ctx.call`` at step ``step`` (one occurrence per request,
    in the order the code made them); ``static_data``: with the workflow's static data, as
    ``n8n.code_static``. Raises NodeFailed naming the node when the code fails (an HTTP error it
    did not catch among them) or a request cannot be made as n8n made it; RetryableError for a 5xx
    it let through; the gateway's signals as they come.
    """
    from ._n8n_static import held, save

    state = await held(flow) if static_data else None
    static = state.data if state is not None else None
    before = json.dumps(static, sort_keys=True)
    arguments = code.flow_arguments(flow, source, workflow=workflow, zone=zone)
    payload = code.payload_of(source, items, node=node, mode=mode, kind=kind, static=static, previous=None, **arguments)
    try:
        result = await drive(payload, node, performer(flow.ctx, node, step))
        run = code.finish(result, node, static)
    finally:
        if state is not None and json.dumps(state.data, sort_keys=True) != before:
            await save(flow, state)
    for line in run.logs:
        code._log.debug("%s: %s", node, line)
    return flow.emit(node, run.items)  # type: ignore[no-any-return]
