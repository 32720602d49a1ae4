"""What an n8n expression kept as JavaScript costs: ``n8n.js_expression``, per evaluation (one item).

A node evaluates a kept template for each of its items; the first item's call evaluates it for
the whole list in one crossing into V8 and the others read the values kept (``_n8n_expr``).
Each case is measured over a node's worth of items (1, 10, 100), the median of many nodes, and
printed per item, with two references measured in the same run as ratios: the same expression
translated into Python (what the translation gives where it is faithful), and one crossing into
V8 per item (what the batching saves).

    python bench/expression.py               # 200 nodes per case and size
    python bench/expression.py --runs 1000

Never a timed assertion in the test suite.
"""

from __future__ import annotations

import argparse
import ast
import statistics
import time
from collections.abc import Callable
from typing import Any

from harness.platforms.n8n.translate.expr import _python_template
from queue_core.compat import _n8n_expr, n8n

CASES = [  # (label, kept template, the same as a template the Python translation takes)
    ("optional + ??", "{{ $json.body?.email ?? 'none' }}", "{{ $json.body.email || 'none' }}"),
    ("extension chain", "{{ $json.note.extractEmail() }}", "{{ $json.note.split(' ')[2] }}"),
    ("template, 3 parts", "Hi {{ $json.name.toUpperCase() }}, {{ $json.tags.first() }} #{{ $itemIndex }}",
     "Hi {{ $json.name.toUpperCase() }}, {{ $json.tags[0] }} #{{ $itemIndex }}"),
]


def _items(n: int) -> list[dict[str, Any]]:
    return [{"json": {"name": f"user {i}", "note": f"write to u{i}@example.com today", "tags": ["a", "b"],
                      "body": {"email": f"u{i}@example.com"} if i % 2 else {}}} for i in range(n)]


class _Ctx:
    mode, job_id, automation = "live", "bench", "bench"


def _per_item_ms(node: Callable[[list[dict[str, Any]]], Any], items: list[dict[str, Any]], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        node(items)
        samples.append((time.perf_counter() - started) * 1000 / len(items))
    return statistics.median(samples)


def _kept(template: str) -> Callable[[list[dict[str, Any]]], Any]:
    def node(items: list[dict[str, Any]]) -> Any:
        flow = n8n.Flow(_Ctx())  # a fresh run: nothing kept from the last one
        return [n8n.js_expression(flow, template, item, i, items) for i, item in enumerate(items)]
    return node


def _unbatched(template: str) -> Callable[[list[dict[str, Any]]], Any]:
    def node(items: list[dict[str, Any]]) -> Any:
        flow = n8n.Flow(_Ctx())
        return [n8n.js_expression(flow, template, item, i, None) for i, item in enumerate(items)]
    return node


def _python(template: str) -> Callable[[list[dict[str, Any]]], Any]:
    code = compile(ast.unparse(_python_template(template)), "<bench>", "eval")

    def node(items: list[dict[str, Any]]) -> Any:
        flow = n8n.Flow(_Ctx())
        return [eval(code, {"n8n": n8n, "item": item, "i": i, "items": items, "flow": flow})  # noqa: S307
                for i, item in enumerate(items)]
    return node


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    for _, kept, _ in CASES:  # warm: the isolate, the prelude, each template compiled once
        _kept(kept)(_items(2))
    print(f"{'case':<18} {'items':>5} {'kept ms':>9} {'python ms':>10} {'unbatched ms':>13} {'vs python':>10} {'batching':>9}")
    for label, kept, python in CASES:
        for size in (1, 10, 100):
            items = _items(size)
            runs = max(5, args.runs // max(1, size // 10))
            ms = _per_item_ms(_kept(kept), items, runs)
            py = _per_item_ms(_python(python), items, runs)
            one = _per_item_ms(_unbatched(kept), items, max(5, runs // 4))
            print(f"{label:<18} {size:>5} {ms:>9.4f} {py:>10.4f} {one:>13.4f} {ms / py:>9.0f}x {one / ms:>8.1f}x")
    _n8n_expr._close()


if __name__ == "__main__":
    main()
