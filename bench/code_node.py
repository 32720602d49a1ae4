"""What one n8n Code node run costs: ``queue_core.compat._n8n_code.run_js``, per-run median.

Each case is JavaScript of the kind the shared estate's Code nodes hold, run over its items
through the one V8 isolate the process keeps (a fresh function scope per run, the globals a run
added removed after it). Two references are measured in the same run and printed as ratios:
the same work as hand-written Python (what rewriting the node by hand would cost per run), and
a fresh mini-racer context per run with the prelude loaded again (what reusing the isolate saves).
A last line times a Code node making one HTTP request (``n8n.code_http``: two slices of JavaScript
and the request handed to ``ctx.call``, here a context answering in-process, so no network is timed).

    python bench/code_node.py               # 300 runs per case
    python bench/code_node.py --runs 2000

Never a timed assertion in the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import uuid
import time
from collections.abc import Callable
from typing import Any

import httpx

from queue_core.compat import _n8n_code, n8n

ITEMS = [{"json": {"id": i, "email": f"user{i}@example.com", "score": i * 7 % 10, "tags": ["a", "b"]}} for i in range(10)]
CASES: list[tuple[str, str, str, Callable[[list[dict[str, Any]]], Any]]] = [
    ("map all items", "runOnceForAllItems",
     "return $input.all().map(i => ({json: {id: i.json.id, domain: i.json.email.split('@')[1]}}));",
     lambda items: [{"json": {"id": i["json"]["id"], "domain": i["json"]["email"].split("@")[1]}} for i in items]),
    ("filter + summary", "runOnceForAllItems",
     "const hot = $input.all().filter(i => i.json.score > 5);\n"
     "return [{json: {count: hot.length, ids: hot.map(i => i.json.id).join(',')}}];",
     lambda items: [{"json": {"count": len(h := [i for i in items if i["json"]["score"] > 5]),
                              "ids": ",".join(str(i["json"]["id"]) for i in h)}}]),
    ("each item", "runOnceForEachItem",
     "return {json: {...$json, upper: $json.email.toUpperCase()}};",
     lambda items: [{"json": {**i["json"], "upper": i["json"]["email"].upper()}} for i in items]),
]


def _median_ms(fn: Callable[[], Any], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def _fresh_context_run(source: str, mode: str) -> None:
    engine = _n8n_code._new_engine()
    payload = _n8n_code.json.dumps({"source": source, "mode": mode, "kind": "code", "items": ITEMS, "nodes": {},
                                    "known": [], "execution": {"id": "", "mode": "production"}, "workflow": {},
                                    "now": None, "zone": "UTC", "env": {}, "previous": None, "async": False})
    engine.eval(f"__cutoverCode({_n8n_code.json.dumps(payload)})")
    engine.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    for _, mode, source, _ in CASES:  # warm: the isolate, the prelude, each source compiled once
        _n8n_code.run_js(source, ITEMS, node="bench", mode=mode)
    print(f"{'case':<18} {'run_js ms':>10} {'python ms':>10} {'fresh ctx ms':>13} {'vs python':>10} {'vs fresh':>9}")
    for label, mode, source, python in CASES:
        kept = _median_ms(lambda: _n8n_code.run_js(source, ITEMS, node="bench", mode=mode), args.runs)
        by_hand = _median_ms(lambda: python(ITEMS), args.runs)
        fresh = _median_ms(lambda: _fresh_context_run(source, mode), max(5, args.runs // 20))
        print(f"{label:<18} {kept:>10.3f} {by_hand:>10.4f} {fresh:>13.2f} {kept / by_hand:>9.0f}x {fresh / kept:>8.1f}x")
    print(f"{'one HTTP request':<18} {http_run_ms(args.runs):>10.3f}   (n8n.code_http, the call answered in-process)")


HTTP = ("const r = await this.helpers.httpRequest({url: 'https://api.example.com/x', qs: {n: $input.all().length}});\n"
        "return [{json: r}];")


class _AnsweringContext:
    """What ``n8n.code_http`` needs of a context; each call is answered at once, in-process."""

    job_id, automation, mode = uuid.UUID(int=1), "bench", "shadow"
    providers = {"api": "https://api.example.com"}

    def __init__(self) -> None:
        self.n8n_flows: list[Any] = []

    async def call(self, provider: str, method: str, url: str, *, step: str, **kwargs: Any) -> httpx.Response:
        return httpx.Response(200, json={"ok": True})


def http_run_ms(runs: int) -> float:
    """Return the median ms of one ``n8n.code_http`` run making one request."""
    async def timed() -> float:
        samples = []
        for _ in range(runs):
            started = time.perf_counter()
            await n8n.code_http(n8n.Flow(_AnsweringContext()), "bench", HTTP, ITEMS, step="bench")
            samples.append((time.perf_counter() - started) * 1000)
        return statistics.median(samples)
    return asyncio.run(timed())


if __name__ == "__main__":
    main()
