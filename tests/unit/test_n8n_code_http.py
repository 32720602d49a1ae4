"""A Code node's HTTP helpers: each request is one ``ctx.call``, driven from Python; what cannot be sent stops the node."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import pytest

from queue_core.compat import _n8n_code_http, n8n
from queue_core.errors import NodeFailed, RetryableError, Snooze, TerminalError


class _Ctx:
    """The part of a Context ``n8n.code_http`` uses; ``answer`` gives each call's response (or raises)."""

    def __init__(self, answer: Any = None) -> None:
        self.job_id = uuid.UUID(int=7)
        self.automation, self.mode = "flow", "shadow"
        self.providers = {"api": "https://api.example.com"}
        self.calls: list[dict[str, Any]] = []
        self.n8n_flows: list[Any] = []
        self.answer = answer or (lambda call: httpx.Response(200, json={"seen": call["url"]}))

    async def call(self, provider: str, method: str, url: str, *, step: str, **kwargs: Any) -> httpx.Response:
        call = {"provider": provider, "method": method, "url": url, "step": step, **kwargs}
        self.calls.append(call)
        return self.answer(call)  # type: ignore[no-any-return]


def _run(ctx: _Ctx, source: str, items: list[dict[str, Any]] | None = None, **kw: Any) -> list[dict[str, Any]]:
    flow = n8n.Flow(ctx)

    async def go() -> list[dict[str, Any]]:
        return await n8n.code_http(flow, "Fetch", source, items or [{"json": {"a": 1}}], step="fetch", **kw)

    return asyncio.run(go())


def _failing(status: int, signal: type[Exception]) -> Any:
    def answer(call: dict[str, Any]) -> httpx.Response:
        error = signal(f"api {call['method']} {call['url']} (step 'fetch'): {status}")
        vars(error)["response"] = httpx.Response(status, json={"status": status})
        raise error
    return answer


def test_each_request_is_one_ctx_call_in_the_order_the_code_made_them() -> None:
    ctx = _Ctx()
    out = _run(ctx, "const rs = await Promise.all([1, 2].map(n => this.helpers.httpRequest({url: `https://api.example.com/n/${n}`,"
                    " qs: {q: n}})));\nconst p = await helpers.request({uri: 'https://api.example.com/p', method: 'POST',"
                    " body: {k: 'v'}, json: true});\nreturn [{json: {rs, p}}];")
    assert [(c["method"], c["url"], c["step"], c.get("params"), c.get("json")) for c in ctx.calls] == [
        ("GET", "https://api.example.com/n/1", "fetch", {"q": ["1"]}, None),
        ("GET", "https://api.example.com/n/2", "fetch", {"q": ["2"]}, None),
        ("POST", "https://api.example.com/p", "fetch", None, {"k": "v"})]
    assert out == [{"json": {"rs": [{"seen": "https://api.example.com/n/1"}, {"seen": "https://api.example.com/n/2"}],
                             "p": {"seen": "https://api.example.com/p"}}}]


def test_a_host_no_provider_is_configured_for_stops_the_node_naming_it_even_inside_a_catch() -> None:
    ctx = _Ctx()
    with pytest.raises(NodeFailed, match="Fetch: no provider is configured for 'https://other.example.org'"):
        _run(ctx, "try { await this.helpers.httpRequest({url: 'https://other.example.org/x'}); } catch (e) { return []; }")
    assert ctx.calls == []


def test_a_body_the_gateway_cannot_send_stops_the_node_rather_than_reaching_a_catch() -> None:
    with pytest.raises(NodeFailed, match="Fetch: a text/xml body is not sent by cutover's gateway"):
        _run(_Ctx(), "try { await this.helpers.httpRequest({url: 'https://api.example.com/x', method: 'POST', body: '<a/>',"
                     " headers: {'content-type': 'text/xml'}}); } catch (e) { return []; }")


def test_an_http_error_reaches_the_code_as_n8n_reports_it_and_uncaught_a_5xx_is_retried() -> None:
    source = ("try { await this.helpers.httpRequest({url: 'https://api.example.com/x'}); }\n"
              "catch (e) { return [{json: {m: e.message, n: e.name, c: e.code, s: e.status}}]; }")
    assert _run(_Ctx(_failing(404, TerminalError)), source) == [
        {"json": {"m": "Request failed with status code 404", "n": "AxiosError", "c": "ERR_BAD_REQUEST", "s": 404}}]
    with pytest.raises(RetryableError, match="503"):
        _run(_Ctx(_failing(503, RetryableError)), "await this.helpers.httpRequest({url: 'https://api.example.com/x'});")
    with pytest.raises(NodeFailed, match="Fetch: AxiosError: Request failed with status code 404"):
        _run(_Ctx(_failing(404, TerminalError)), "await this.helpers.httpRequest({url: 'https://api.example.com/x'});")


def test_a_call_that_got_no_answer_and_a_budget_put_back_end_the_run_with_the_gateway_signal() -> None:
    def unanswered(call: dict[str, Any]) -> httpx.Response:
        raise TerminalError("shadow: no recorded response for GET https://api.example.com/x")

    def spent(call: dict[str, Any]) -> httpx.Response:
        raise Snooze(5.0, "budget", kind="budget_wait")

    source = "try { await this.helpers.httpRequest({url: 'https://api.example.com/x'}); } catch (e) { return []; }"
    with pytest.raises(TerminalError, match="no recorded response"):
        _run(_Ctx(unanswered), source)
    with pytest.raises(Snooze):
        _run(_Ctx(spent), source)
    # the isolate the stopped runs used is clean for the next run: no global a stopped run left
    assert _run(_Ctx(), "return [{json: {leak: typeof leaked}}];") == [{"json": {"leak": "undefined"}}]
    with pytest.raises(Snooze):
        _run(_Ctx(spent), "leaked = 1;\nawait this.helpers.httpRequest({url: 'https://api.example.com/x'});")
    assert _run(_Ctx(), "return [{json: {leak: typeof leaked}}];") == [{"json": {"leak": "undefined"}}]


def test_a_redirect_n8n_would_follow_stops_the_node() -> None:
    ctx = _Ctx(lambda call: httpx.Response(302, headers={"Location": "https://api.example.com/y"}))
    with pytest.raises(NodeFailed, match="answered 302 .*which n8n follows and cutover's gateway does not"):
        _run(ctx, "return [{json: await this.helpers.httpRequest({url: 'https://api.example.com/x'})}];")


def test_the_time_limit_counts_javascript_time_across_the_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_n8n_code_http.code, "TIMEOUT_MS", 300)
    source = "await this.helpers.httpRequest({url: 'https://api.example.com/x'});\nwhile (true) {}"

    async def go() -> None:
        payload = _n8n_code_http.code.payload_of(source, [{"json": {}}], node="Fetch", mode="runOnceForAllItems", kind="code",
                                                 outputs={}, execution_id="", workflow={}, now=None, zone="UTC", env={},
                                                 previous=None, static=None, builtins=())
        await _n8n_code_http.drive(payload, "Fetch", _n8n_code_http.performer(_Ctx(), "Fetch", "fetch"), timeout_ms=300)

    with pytest.raises(NodeFailed, match=r"Fetch: the Code node ran past its time limit \(300 ms\)"):
        asyncio.run(go())


def test_the_run_is_given_the_job_clock_and_id_as_n8n_code_is() -> None:
    ctx = _Ctx()
    out = _run(ctx, "const r = await this.helpers.httpRequest({url: 'https://api.example.com/x'});\n"
                    "return [{json: {id: $execution.id, wf: $workflow.name, r}}];")
    assert out == [{"json": {"id": str(uuid.UUID(int=7)), "wf": "flow", "r": {"seen": "https://api.example.com/x"}}}]
