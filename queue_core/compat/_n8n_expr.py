"""Evaluate an n8n ``={{ … }}`` expression template as JavaScript in V8, with n8n's expression data model.

Where ``cutover scaffold n8n`` cannot translate an expression into Python faithfully (optional
chaining, regular expressions, ``new Date()``, spread, n8n's extension methods such as
``.toJsonString()`` or ``$now.minus(1, 'days')``, ``$env``), the generated code keeps the template's
text and calls :func:`evaluate` for each item. One V8 isolate per process (``mini-racer``, made on
first use, guarded by a lock; apart from the Code node's) holds ``_n8n_luxon.js``,
``_n8n_jmespath.js``, ``_n8n_expr_ext.js`` (n8n's extension methods) and ``_n8n_expr.js`` (the
template engine and ``$json``, ``$input``, ``$('Node')``, ``$node``, ``$items``, ``$now``/``$today``,
``$execution``, ``$workflow``, ``$env``, ``$vars``, ``$jmespath``, ``DateTime``). Each template is
compiled once; an evaluation sends the current item, and only the other items and node outputs
the template's text refers to.

``$now``, ``$today`` and ``Date`` read the job's clock (the trigger's recorded time in shadow).
``$env.NAME`` reads the process environment, only the names the text spells out; outside live
mode (shadow, dry run: what they record reaches reports) a variable whose name says it holds a
secret (KEY, TOKEN, SECRET, PASSWORD, DSN, …), or whose value is a URL with a password, reads as
``<$env.NAME redacted>``. ``$vars.NAME`` reads
the environment variable ``N8N_VAR_NAME`` the same way.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from ..errors import N8nConditionError
from ._n8n_js import MISSING

TIMEOUT_MS = 1000  # per evaluation
MAX_MEMORY = 64 * 1024 * 1024
PRELUDE = ("_n8n_luxon.js", "_n8n_jmespath.js", "_n8n_expr_ext.js", "_n8n_expr.js")
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASS|AUTH|CREDENTIAL|PRIVATE|SIGNATURE|COOKIE|SESSION|DSN", re.I)
# A value that carries credentials whatever its name: a URL with a password (``postgresql://u:p@h/db``).
SECRET_VALUE = re.compile(r"^[a-z][a-z0-9+.-]*://[^/@\s]*:[^/@\s]*@", re.I)
_NODE_NAME = re.compile(r"""\$\(\s*(['"`])(.+?)\1\s*\)|\$node\[\s*(['"`])(.+?)\3\s*\]|\$node\.([A-Za-z_$][\w$]*)"""
                        r"""|\$items\(\s*(['"`])(.+?)\6""")
_DYNAMIC = re.compile(r"\$\(\s*[^'\"`\s]|\$node\[\s*[^'\"`\s]|\$items\(\s*[^'\"`\s)]")
_ALL_ITEMS = re.compile(r"\$input\s*\.\s*(?:all|first|last)\b|\bitems\b|\$items\s*\(\s*\)|\$item\s*\(")
_NAMED = {"env": re.compile(r"""\$env(?:\s*\.\s*([A-Za-z_$][\w$]*)|\s*\[\s*['"]([^'"]+)['"]\s*\])"""),
          "vars": re.compile(r"""\$vars(?:\s*\.\s*([A-Za-z_$][\w$]*)|\s*\[\s*['"]([^'"]+)['"]\s*\])""")}

_lock = threading.Lock()
_engine: Any = None


@dataclass(frozen=True)
class _Needs:
    """What a template's text reads, besides the current item (found once per template)."""

    nodes: frozenset[str]
    dynamic: bool  # a node named by a computed value: every output goes
    all_items: bool
    env: tuple[str, ...]
    vars: tuple[str, ...]


@lru_cache(maxsize=4096)
def _needs(template: str) -> _Needs:
    named = {kind: tuple(sorted({m.group(1) or m.group(2) for m in rx.finditer(template)})) for kind, rx in _NAMED.items()}
    nodes = {m.group(2) or m.group(4) or m.group(5) or m.group(7) for m in _NODE_NAME.finditer(template)}
    return _Needs(frozenset(nodes), bool(_DYNAMIC.search(template)), bool(_ALL_ITEMS.search(template)),
                  named["env"], named["vars"])


def _source(name: str) -> str:
    return resources.files("queue_core.compat").joinpath(name).read_text(encoding="utf-8")


def _new_engine() -> Any:
    from py_mini_racer import LibAlreadyInitializedError, MiniRacer, init_mini_racer

    try:  # the same flags as the Code node's engine (_n8n_code), whichever starts V8 first
        init_mini_racer(flags=("--single-threaded", "--allow-natives-syntax"))
    except LibAlreadyInitializedError:
        pass
    engine = MiniRacer()
    for name in PRELUDE:
        engine.eval(_source(name))
    return engine


def _eval(script: str) -> Any:
    global _engine
    from py_mini_racer import JSOOMException, JSTimeoutException

    with _lock:
        if _engine is None:  # made off any running event loop (see _n8n_code._started_engine)
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="cutover-n8n-expr") as pool:
                _engine = pool.submit(_new_engine).result()
            atexit.register(_close)  # a V8 isolate left to interpreter shutdown can hang the exit
        try:
            return _engine.eval(script, timeout_sec=TIMEOUT_MS / 1000, max_memory=MAX_MEMORY)
        except JSTimeoutException:
            raise N8nConditionError(f"the expression ran past its time limit ({TIMEOUT_MS} ms)") from None
        except JSOOMException:
            dead, _engine = _engine, None
            dead.close()
            raise N8nConditionError(f"the expression ran past its memory limit ({MAX_MEMORY // 2**20} MiB)") from None


def _close() -> None:
    global _engine
    with _lock:
        if _engine is not None:
            dead, _engine = _engine, None
            dead.close()


def syntax_error(template: str) -> str | None:
    """Return why V8 cannot compile ``template``'s ``{{ }}`` parts as n8n's expressions (None: it can)."""
    result = _eval(f"__cutoverExprCheck({json.dumps(template)})")
    return None if result is None else str(result)


def _named(names: tuple[str, ...], prefix: str, shown: str, live: bool) -> dict[str, str]:
    out = {}
    for key in names:
        value = os.environ.get(prefix + key)
        if value is not None:
            secret = SECRET_NAME.search(key) or SECRET_VALUE.match(value)
            out[key] = value if live or not secret else f"<{shown}.{key} redacted>"
    return out


def _item(item: Any) -> dict[str, Any]:
    if isinstance(item, dict) and "json" in item:
        return {"json": item["json"], **({"binary": item["binary"]} if item.get("binary") is not None else {})}
    return {"json": item if isinstance(item, dict) else {}}


def evaluate(flow: Any, template: str, item: Any, index: int, items: list[Any] | None = None, *,
             told: bool = False) -> Any:
    """Return the value of the expression template ``template`` (the text after ``=``) for one item.

    ``flow`` gives the earlier nodes' outputs, the job's clock, id and mode; ``items`` are the
    node's input items (``$input.all()``). A template that is one ``{{ }}`` gives its value (JSON
    types; JavaScript's undefined is None, or MISSING with ``told``); one with text is a string.
    A part that throws a JavaScript error is undefined, as n8n's template engine makes it; n8n's
    own expression errors (an extension method's, one on null or undefined, a node not run, an
    extension cutover lacks) raise N8nConditionError (the node fails, naming the item).

    When ``item`` is ``items[index]`` the template is evaluated for every item of ``items`` in one
    call into V8 and the values are kept for the next items' calls (a node evaluates its
    parameters item by item over the same list): one crossing into V8 per node, not per item.
    """
    needs = _needs(template)
    outputs: dict[str, Any] = getattr(flow, "outputs", {}) or {}
    wanted = {k: v for k, v in outputs.items() if needs.dynamic or k in needs.nodes}
    if items is not None and 0 <= index < len(items) and items[index] is item:
        seen = tuple(id(v) for v in outputs.values())  # any node that ran since: evaluated anew
        cache = _cache.setdefault(flow, {}) if _weak(flow) else {}
        kept = cache.get((template, told))
        if kept is None or kept[0] is not items or kept[1] != seen:
            kept = (items, seen, _run(flow, template, needs, wanted, items, 0, None, told))
            cache[(template, told)] = kept
        results = kept[2]
    else:
        results = _run(flow, template, needs, wanted, [item], index, items if needs.all_items else None, told)
        index = 0
    if index >= len(results):  # an earlier item's evaluation failed: so does the run
        index = len(results) - 1
    result = results[index]
    if "error" in result:
        raise N8nConditionError(f"the expression {_short(template)} failed: {result['error']}")
    return MISSING if result.get("undefined") else result.get("value")


_cache: weakref.WeakKeyDictionary[Any, dict[tuple[str, bool], tuple[Any, Any, list[dict[str, Any]]]]] = weakref.WeakKeyDictionary()


def _weak(flow: Any) -> bool:
    try:
        weakref.ref(flow)
    except TypeError:
        return False
    return True


def _run(flow: Any, template: str, needs: _Needs, wanted: dict[str, Any], items: list[Any], base: int,
         every: list[Any] | None, told: bool) -> list[dict[str, Any]]:
    ctx = getattr(flow, "ctx", None)
    clock = getattr(ctx, "now", None)
    now = clock() if callable(clock) else None
    live = getattr(ctx, "mode", "live") == "live"
    name = getattr(ctx, "automation", None)
    payload = {
        "template": template, "items": [_item(x) for x in items], "base": base,
        "all": [_item(x) for x in every] if every is not None else None,
        "nodes": wanted, "known": list(getattr(flow, "outputs", {}) or {}),
        "execution": {"id": str(getattr(ctx, "job_id", "") or ""), "mode": "production"},
        "workflow": {"id": name, "name": name, "active": live},
        "now": None if now is None else now.timestamp() * 1000,
        "zone": os.environ.get("GENERIC_TIMEZONE") or "America/New_York",
        "env": _named(needs.env, "", "$env", live), "vars": _named(needs.vars, "N8N_VAR_", "$vars", live),
        "previous": None, "told": told,
    }
    text = _eval(f"__cutoverExpr({json.dumps(json.dumps(payload, default=str, ensure_ascii=False))})")
    return json.loads(text)  # type: ignore[no-any-return]


def _short(template: str) -> str:
    one = " ".join(template.split())
    return repr(one if len(one) <= 80 else one[:77] + "...")
