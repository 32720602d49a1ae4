"""Code nodes that make HTTP calls (``this.helpers.httpRequest`` / ``request``): n8n and the scaffold call one server.

Each source below is a Code node's JavaScript calling the loopback server of ``http_server``
(``BASE`` stands for its address) and returning what it got: bodies as n8n parses them, full
responses, encodings, query and form encodings, and errors caught and returned as values (their
message, name, code and status, as n8n's Code node shows them), so that errors are compared as
n8n reports them, not only by the node a run stopped at. A few let an error through (the run's
stop is compared). ``measure`` runs them all in n8n (one batch) and scaffolds and runs each with
a context whose ``ctx.call`` builds the request as the gateway builds it
(``queue_core.gateway.request.prepare``: its body bytes and headers), sends it to the same server
and classifies the answer as the gateway does, attaching the answer to the error it raises (as
``queue_core.gateway.record`` does).

One difference is known and kept out of the cases, named: the gateway sends a JSON body with its
keys sorted (its canonical form), n8n in the order the code wrote them, so a body the echo route
shows as text is written with sorted keys here.
"""

from __future__ import annotations

import random
import tempfile
import uuid
from pathlib import Path
from typing import Any

import httpx

from queue_core.classify import Kind, classify_response
from queue_core.errors import RetryableError, TerminalError
from queue_core.gateway.request import prepare
from queue_core.provider import ProviderConfig

from tests.oracle import runner
from tests.oracle.outcome import Outcome, differences
from tests.oracle.scaffolded import run_with
from tests.oracle.workflow import Case, workflow

ALL, EACH = "runOnceForAllItems", "runOnceForEachItem"
INPUT = [{"a": 1, "name": "ada"}, {"a": 2, "name": "bob"}]
CAUGHT = "catch (e) { return [{json: {message: e.message, name: e.name, code: e.code, status: e.status, statusCode: e.statusCode}}]; }"
SOURCES: list[tuple[str, str]] = [
    (ALL, "const r = await this.helpers.httpRequest({url: 'BASE/echo', method: 'POST', body: {a: 1, b: 'x'}, json: true});\n"
          "return [{json: {r}}];"),
    (ALL, "const r = await helpers.httpRequest({url: 'BASE/echo?x=1', qs: {y: 2, z: [1, 2], w: {k: 'v'}}, headers: {'X-Case': 'c'}});\n"
          "return [{json: {r, t: typeof r}}];"),
    (ALL, "const t = await this.helpers.httpRequest({url: 'BASE/text'});\n"
          "const l = await this.helpers.httpRequest({url: 'BASE/list', returnFullResponse: true});\nreturn [{json: {t, l}}];"),
    (ALL, f"try {{ await this.helpers.httpRequest({{url: 'BASE/status/404'}}); return [{{json: {{no: 1}}}}]; }}\n{CAUGHT}"),
    (ALL, f"try {{ await this.helpers.httpRequest({{url: 'BASE/status/500', method: 'POST', body: {{a: 1}}}}); return []; }}\n{CAUGHT}"),
    (ALL, f"try {{ await this.helpers.request({{uri: 'BASE/status/500', json: true}}); return [{{json: {{no: 1}}}}]; }}\n{CAUGHT}"),
    (ALL, f"try {{ await this.helpers.request('BASE/status/404'); return []; }}\n{CAUGHT}"),
    (ALL, "const a = await this.helpers.request('BASE/list');\nconst b = await this.helpers.request({uri: 'BASE/list', json: true});\n"
          "const t = await this.helpers.request({uri: 'BASE/text', json: true});\n"
          "const p = await this.helpers.request({uri: 'BASE/echo', method: 'POST', body: {k: 'v'}, json: true});\n"
          "const q = await this.helpers.request({uri: 'BASE/echo', method: 'POST', form: {k: 'v w', n: 3}});\n"
          "const qs = await this.helpers.request({uri: 'BASE/echo', qs: {a: [1, 2]}, json: true});\n"
          "const rep = await this.helpers.request({uri: 'BASE/echo', qs: {a: [1, 2]}, json: true, useQuerystring: true});\n"
          "return [{json: {a, ta: typeof a, b, t, p, q, qs, rep}}];"),
    (ALL, "const c = await this.helpers.request({uri: 'BASE/echo', method: 'POST', body: {k: 'v'}, json: true, resolveWithFullResponse: true});\n"
          "return [{json: {keys: Object.keys(c), body: c.body, sc: c.statusCode, sm: c.statusMessage, h: c.headers}}];"),
    (ALL, "const c = await this.helpers.request({uri: 'BASE/list', resolveWithFullResponse: true});\nreturn [{json: c}];"),
    (ALL, "try { const r = await $http.request({url: 'BASE/echo'}); return [{json: {r}}]; }\n"
          "catch (e) { return [{json: {m: e.message, n: e.name}}]; }"),
    (ALL, "try { await this.helpers.httpRequestWithAuthentication('httpHeaderAuth', {url: 'BASE/echo'}); return []; }\n"
          "catch (e) { return [{json: {m: e.message, n: e.name}}]; }"),
    (ALL, "const f = await this.helpers.httpRequest({url: 'BASE/file/x.png', encoding: 'arraybuffer'});\n"
          "const t = await this.helpers.httpRequest({url: 'BASE/list', encoding: 'text'});\n"
          "const j = await this.helpers.httpRequest({url: 'BASE/text', encoding: 'json'});\n"
          "const n = await this.helpers.request({uri: 'BASE/file/y.bin', encoding: null});\n"
          "return [{json: {len: f.length, isb: Buffer.isBuffer(f), head: f.slice(0, 4).toString('hex'), t, tt: typeof t, j,"
          " n: n.length, nb: Buffer.isBuffer(n), sum: n.reduce((s, b) => (s * 31 + b) % 1000003, 0)}}];"),
    (ALL, "const r = await this.helpers.httpRequest({url: 'BASE/echo', method: 'POST', body: {a: 'b c', n: 1},"
          " headers: {'content-type': 'application/x-www-form-urlencoded'}});\nreturn [{json: {r}}];"),
    (ALL, "const r = await this.helpers.httpRequest({url: 'BASE/status/404'});\nreturn [{json: {r}}];"),
    (ALL, "const r = await this.helpers.httpRequest({url: 'BASE/status/500'});\nreturn [{json: {r}}];"),
    (EACH, "const r = await this.helpers.httpRequest({url: 'BASE/echo', qs: {a: $json.a, name: $json.name}});\n"
           "return {json: {q: r.query, i: $itemIndex}};"),
    (ALL, "const r = await this.helpers.httpRequest({url: 'BASE/status/500', ignoreHttpStatusErrors: true, returnFullResponse: true});\n"
          "const r2 = await this.helpers.httpRequest({url: 'BASE/status/404', ignoreHttpStatusErrors: true});\n"
          "const q = await this.helpers.request({uri: 'BASE/status/404', simple: false});\n"
          "const q2 = await this.helpers.request({uri: 'BASE/status/404', simple: false, json: true, resolveWithFullResponse: true});\n"
          "return [{json: {r, r2, q, tq: typeof q, q2: {body: q2.body, statusCode: q2.statusCode}}}];"),
    (ALL, "const rs = await Promise.all($input.all().map(i => this.helpers.httpRequest({url: 'BASE/echo', qs: {n: i.json.a}})));\n"
          "return rs.map(r => ({json: r.query}));"),
    (ALL, "return this.helpers.httpRequest({url: 'BASE/list'}).then(l => l.map(x => ({json: x})));"),
    (ALL, "const r = await this.helpers.httpRequest({method: 'GET', url: 'BASE/echo', json: true, headers: {Authorization: 'Bearer t'}});\n"
          "const e = await this.helpers.httpRequest({url: 'BASE/echo', method: 'GET', body: {a: 1}});\n"
          "const u = await this.helpers.httpRequest({url: '/echo', baseURL: 'BASE/', method: 'DELETE'});\n"
          "const p = await this.helpers.httpRequest({url: 'BASE/echo', method: 'PUT', body: JSON.stringify({a: [1, {b: 2}], z: 1}),"
          " headers: {'Content-Type': 'application/json'}});\nreturn [{json: {r, e, u, p}}];"),
    (ALL, "const a = await this.helpers.httpRequest({url: 'BASE/echo', auth: {username: 'ada', password: 'pä'}, qs: {l: [1, 2]},"
          " arrayFormat: 'brackets'});\nconst b = await this.helpers.request({uri: 'BASE/echo', auth: {user: 'bob', pass: 's'}, json: true,"
          " qs: {l: ['x', 'y']}, qsStringifyOptions: {arrayFormat: 'repeat'}});\n"
          "const c = await this.helpers.request({uri: 'BASE/echo', auth: {bearer: 'tok'}, json: true});\nreturn [{json: {a, b, c}}];"),
    (EACH, "try { const r = await this.helpers.httpRequest({url: `BASE/status/${$json.a === 1 ? 404 : 500}`, returnFullResponse: true});"
           " return {json: r}; }\ncatch (e) { return {json: {m: e.message, c: e.code, s: e.status, i: $itemIndex}}; }"),
    (ALL, "return [{json: {d: typeof this.Date, j: this.$json, h: typeof this.helpers.httpRequest, n: this.$input.all().length,"
          " m: this.Math.max(1, 2)}}];"),
    (ALL, "const out = [];\nfor (const item of $input.all()) {\n"
          "  try {\n    const r = await this.helpers.httpRequest({url: `BASE/status/${item.json.a === 1 ? 200 : 404}`});\n"
          "    out.push({json: {ok: r}});\n  } catch (error) {\n    out.push({json: {failed: error.message}});\n  }\n}\nreturn out;"),
]


class HttpContext:
    """A context whose ``ctx.call`` is the gateway's request building and classification, sent to the loopback server."""

    def __init__(self, base: str) -> None:
        self.job_id = uuid.UUID(int=0)
        self.n8n_flows: list[Any] = []
        self.providers = {"oracle": base}
        self.config = ProviderConfig("oracle", base)
        self.calls: list[tuple[str, str, str]] = []

    def decide(self, name: str, value: Any) -> None:
        return None

    async def call(self, provider: str, method: str, url: str, *, step: str, json: Any = None, data: Any = None,
                   params: Any = None, headers: Any = None) -> httpx.Response:
        self.calls.append((provider, method, step))
        req = prepare(self.config, method, url, json=json, params=params, headers=headers, key=f"{step}-key", data=data)
        async with httpx.AsyncClient() as client:
            response = await client.request(req.method, req.url, content=req.body, headers=dict(req.headers))
        verdict = classify_response(response.status_code, response.headers, response.text, now=0.0, rng=random.Random(0))
        if verdict.kind is Kind.OK:
            return response
        message = f"{provider} {method} {url} (step {step!r}): {verdict.reason}; {verdict.summary}"
        error = RetryableError(message) if verdict.kind is Kind.RETRYABLE else TerminalError(message)
        vars(error)["response"] = response  # as queue_core.gateway.record's outcome() hands it on
        raise error


# The legacy Function and Function Item nodes have the same helpers (n8n puts this.helpers in their sandbox).
LEGACY: list[tuple[str, str]] = [
    ("function", "const r = await this.helpers.httpRequest({url: 'BASE/echo', qs: {n: items.length}});\n"
                 "return items.map(i => ({json: {...i.json, q: r.query}}));"),
    ("functionItem", "const r = await helpers.request({uri: 'BASE/echo', qs: {a: item.a}, json: true});\nitem.q = r.query;\nreturn item;"),
]


def cases(base: str) -> list[Case]:
    """Return every case, its sources' ``BASE`` replaced by ``base``."""
    out = []
    for n, (mode, source) in enumerate(SOURCES):
        params = {"jsCode": source.replace("BASE", base), **({"mode": mode} if mode == EACH else {})}
        out.append(Case(f"code http #{n + 1}", "n8n-nodes-base.code", 2.0, params, [INPUT]))
    for n, (kind, source) in enumerate(LEGACY):
        out.append(Case(f"{kind} http #{n + 1}", f"n8n-nodes-base.{kind}", 1.0,
                        {"functionCode": source.replace("BASE", base)}, [INPUT]))
    return out


def measure(found: list[Case], base: str) -> list[tuple[Case, Outcome, Outcome, list[str], list[tuple[str, str, str]]]]:
    """Run every case in n8n and in the scaffold (the server at ``base`` serving); return each with its
    differences and the calls the scaffold made (provider, method, step)."""
    documents = [workflow(case, runner.workflow_id(i)) for i, case in enumerate(found)]
    oracle, _ = runner.cached_run(documents)
    results = []
    with tempfile.TemporaryDirectory(prefix="cutover-oracle-code-http-") as tmp:
        for index, (case, document, expected) in enumerate(zip(found, documents, oracle, strict=True)):
            ctx = HttpContext(base)
            got = run_with(document, Path(tmp) / str(index), ctx)
            found_ = differences(expected, got, [n["name"] for n in document["nodes"]]) if got.translated else []
            results.append((case, expected, got, found_, ctx.calls))
    return results
