"""Run an n8n Code node's own JavaScript, unchanged, in V8 (``mini-racer``), with n8n's data model.

One V8 isolate and context per process (created on first use, guarded by a lock) holds the
prelude: ``_n8n_luxon.js`` (cutover's Luxon ``DateTime``/``Duration`` subset),
``_n8n_jmespath.js`` (a ``$jmespath`` subset), ``_n8n_node.js`` (Node's ``Buffer`` and
``crypto``, a subset) and ``_n8n_code.js`` (``$input``, ``$json``, ``items``/``item``,
``$('Node')``, ``$node``, ``$execution``, ``$workflow``, ``$now``/``$today``,
``$getWorkflowStaticData`` over the static data a run is given, ``require`` that gives
``crypto`` when allowed and otherwise fails naming the module, a captured ``console``, and n8n's return-value
normalisation and messages). A run is one call into that context with the node's source, its mode
and its items as JSON: the source is compiled once into a function (its own scope per run) and
the globals a run adds or replaces are undone after it.

The sandbox: V8 without Node.js has no network, no file system, no timers and no ``process``;
every run has a time limit and a heap limit (an isolate that hits the heap limit is dropped and
made anew). ``Date`` and ``$now`` read the run's clock: the job's (the trigger's recorded time in
a shadow replay).
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from typing import Any

from ..errors import NodeFailed

TIMEOUT_MS = 2000  # per run
MAX_MEMORY = 128 * 1024 * 1024  # bytes of V8 heap per run
PRELUDE = ("_n8n_luxon.js", "_n8n_jmespath.js", "_n8n_node.js", "_n8n_code_http.js", "_n8n_code.js")
MODES = ("runOnceForAllItems", "runOnceForEachItem")
KINDS = ("code", "function", "functionItem")

_log = logging.getLogger("queue_core.compat.n8n.code")
_lock = threading.Lock()
_engine: Any = None
_AWAIT = re.compile(r"\bawait\b")
# V8's natives syntax (``%Name(``) where an operand cannot stand before it: refused in user code.
# Quoted strings and comments are blanked first ('(%d)' is text); template literals are kept whole,
# since ``${…}`` inside one is code.
_NATIVES = re.compile(r"(?:^|[;{}(,=!&|?:\[\n+\-*/<>~^%]|\b(?:return|throw|typeof|void|delete|in|of|new|await|yield|"
                      r"case|else|do))\s*%\s*[A-Za-z_$][\w$]*\s*\(")
_TEXT = re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/""", re.S)
_NODE_NAME = re.compile(r"""\$\(\s*(['"`])(.+?)\1\s*\)|\$node\[\s*(['"`])(.+?)\3\s*\]|\$items\(\s*(['"`])(.+?)\5""")
# The Node.js modules the sandbox has, when NODE_FUNCTION_ALLOW_BUILTIN is not set: n8n's own
# default allows none, but its task-runner image (n8nio/runners) allows crypto, and a workflow
# that requires it ran where it was allowed.
DEFAULT_BUILTINS = ("crypto",)
_ENV_NAME = re.compile(r"""\$env(?:\.([A-Za-z_$][\w$]*)|\[\s*['"]([^'"]+)['"]\s*\])""")


@dataclass(frozen=True)
class CodeRun:
    """What one run of a Code node gave: its output items and what it logged."""

    items: list[dict[str, Any]]
    logs: list[str] = field(default_factory=list)


def _source(name: str) -> str:
    return resources.files("queue_core.compat").joinpath(name).read_text(encoding="utf-8")


def _new_engine() -> Any:
    from py_mini_racer import LibAlreadyInitializedError, MiniRacer, init_mini_racer

    try:  # natives syntax lets the prelude drain awaited promises inside the timed call
        init_mini_racer(flags=("--single-threaded", "--allow-natives-syntax"))
    except LibAlreadyInitializedError:
        pass  # someone else started V8 first: async Code nodes then fail with a clear message
    engine = MiniRacer()
    for name in PRELUDE:
        engine.eval(_source(name))
    return engine


def _started_engine() -> Any:
    """Make the engine on a thread with no running event loop: mini-racer adopts a running loop as
    its own, and then refuses timeouts from it; made there, it keeps a loop thread of its own."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="cutover-n8n-code") as pool:
        return pool.submit(_new_engine).result()


def natives_syntax(source: str) -> bool:
    """Return whether ``source`` uses V8's natives syntax (``%Name(…)``), which no Code node may."""
    return bool(_NATIVES.search(_TEXT.sub(" ", source)))


def referenced_nodes(source: str) -> set[str]:
    """Return the node names ``source`` reads literally (``$('X')``, ``$node["X"]``, ``$items('X')``)."""
    return {m.group(2) or m.group(4) or m.group(6) for m in _NODE_NAME.finditer(source)}


def referenced_env(source: str) -> set[str]:
    """Return the environment variables ``source`` reads literally (``$env.NAME``, ``$env['NAME']``)."""
    return {m.group(1) or m.group(2) for m in _ENV_NAME.finditer(source)}


def run_js(source: str, items: list[dict[str, Any]], *, node: str, mode: str = "runOnceForAllItems",
           kind: str = "code", outputs: dict[str, list[list[dict[str, Any]]]] | None = None,
           execution_id: str = "", workflow: dict[str, Any] | None = None, now: datetime | None = None,
           zone: str = "UTC", env: dict[str, str] | None = None, previous: str | None = None,
           static: dict[str, Any] | None = None, builtins: tuple[str, ...] = DEFAULT_BUILTINS,
           timeout_ms: int = TIMEOUT_MS, max_memory: int = MAX_MEMORY) -> CodeRun:
    """Run one Code (``kind="code"``), Function or Function Item node's JavaScript over ``items``.

    ``outputs`` holds the earlier nodes' outputs (node -> output index -> items) for ``$('X')``
    and ``$node``; ``now`` is the run's clock (``None``: the wall clock). ``static`` is the
    workflow's static data (``$getWorkflowStaticData``; None: the code may not use it), updated
    in place with what the code left in it, also when the code fails (n8n saves it either way).
    ``builtins`` are the Node.js modules ``require`` gives (``crypto`` at most). Returns the node's
    items, normalised as n8n normalises them. Raises NodeFailed naming ``node`` when the code
    throws, returns what n8n refuses, runs past ``timeout_ms`` or past ``max_memory`` bytes.
    """
    payload = payload_of(source, items, node=node, mode=mode, kind=kind, outputs=outputs, execution_id=execution_id,
                         workflow=workflow, now=now, zone=zone, env=env, previous=previous, static=static,
                         builtins=builtins)
    return finish(_call(payload, node, timeout_ms, max_memory), node, static)


def payload_of(source: str, items: list[dict[str, Any]], *, node: str, mode: str, kind: str,
               outputs: dict[str, list[list[dict[str, Any]]]] | None, execution_id: str,
               workflow: dict[str, Any] | None, now: datetime | None, zone: str, env: dict[str, str] | None,
               previous: str | None, static: dict[str, Any] | None, builtins: tuple[str, ...]) -> str:
    """Return the JSON a run of ``source`` is given (see ``run_js``); raise NodeFailed for natives syntax."""
    if mode not in MODES or kind not in KINDS:
        raise ValueError(f"{node}: mode must be one of {MODES} and kind one of {KINDS}")
    if natives_syntax(source):
        raise NodeFailed(f"{node}: V8 natives syntax (%Name) is not allowed in a Code node")
    outputs = outputs or {}
    wanted = referenced_nodes(source)
    dynamic = bool(re.search(r"\$\(\s*[^'\"`\s]|\$node\[\s*[^'\"`\s]|\$items\(\s*[^'\"`\s)]", source))
    payload = {
        "source": source, "mode": mode, "kind": kind, "items": [_item(i) for i in items],
        "nodes": {k: v for k, v in outputs.items() if dynamic or k in wanted}, "known": list(outputs),
        "execution": {"id": execution_id, "mode": "production"}, "workflow": workflow or {},
        "now": None if now is None else now.timestamp() * 1000, "zone": zone, "env": env or {},
        "previous": previous, "async": bool(_AWAIT.search(source)), "node": node, "static": static,
        "builtins": list(builtins), "entropy": os.urandom(32).hex(), "nodeType": f"n8n-nodes-base.{kind}",
    }
    return json.dumps(payload, default=str, ensure_ascii=False)


def finish(result: dict[str, Any], node: str, static: dict[str, Any] | None) -> CodeRun:
    """Return a run's items from what the sandbox answered; keep its static data; raise NodeFailed for its error."""
    if static is not None and isinstance(result.get("static"), dict):
        static.clear()
        static.update(result["static"])
    if "error" in result:
        error = result["error"]
        where = f" [item {error['item']}]" if error.get("item") is not None else ""
        detail = f": {error['description']}" if error.get("description") else ""
        raise NodeFailed(f"{node}: {error['message']}{where}{detail}")
    return CodeRun(result["items"], result.get("logs") or [])


def _item(item: Any) -> dict[str, Any]:
    if isinstance(item, dict) and "json" in item:
        kept = {"json": item["json"]}
        if item.get("binary") is not None:
            kept["binary"] = item["binary"]
        return kept
    return {"json": item}


def _call(payload: str, node: str, timeout_ms: int, max_memory: int) -> dict[str, Any]:
    from py_mini_racer import JSOOMException, JSTimeoutException

    global _engine
    with _lock:
        if _engine is None:
            _engine = _started_engine()
            atexit.register(_close)  # a V8 isolate left to interpreter shutdown can hang the exit
        try:  # the payload is JSON, and so a JavaScript string literal once quoted
            text = _engine.eval(f"__cutoverCode({json.dumps(payload)})", timeout_sec=timeout_ms / 1000,
                                max_memory=max_memory)
        except JSTimeoutException:
            _engine.eval("__cutoverRestore()", timeout_sec=1)  # the run stopped midway: undo its globals
            raise NodeFailed(f"{node}: the Code node ran past its time limit ({timeout_ms} ms)") from None
        except JSOOMException:
            dead, _engine = _engine, None  # an isolate past its heap limit is not used again
            dead.close()
            raise NodeFailed(f"{node}: the Code node ran past its memory limit ({max_memory // 2**20} MiB)") from None
    return json.loads(text)  # type: ignore[no-any-return]


def _close() -> None:
    global _engine
    with _lock:
        if _engine is not None:
            dead, _engine = _engine, None
            dead.close()


def run_node(flow: Any, node: str, source: str, items: list[dict[str, Any]], *, mode: str = "runOnceForAllItems",
             kind: str = "code", workflow: dict[str, Any] | None = None, zone: str | None = None,
             static: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Run a Code node inside a scaffolded workflow's ``Flow``: its clock, job id and earlier outputs.

    ``$now`` and ``Date`` read ``flow.ctx.now()`` (the trigger's recorded time in shadow);
    ``$execution.id`` is the job id; ``$workflow`` (unless given) is the automation's name for id
    and name, ``active`` when the job runs live; ``$env.NAME`` reads only the variables the source names;
    the time zone is ``zone`` (the workflow's setting), else ``GENERIC_TIMEZONE``, else n8n's
    default ``America/New_York``; ``static`` as ``run_js``; ``require`` gives the modules
    ``NODE_FUNCTION_ALLOW_BUILTIN`` lists (comma-separated, ``*``: all), else ``crypto``. What the code logs goes to the ``queue_core.compat.n8n.code``
    logger at DEBUG (never printed). Returns the node's items; raises NodeFailed as ``run_js``.
    """
    result = run_js(source, items, node=node, mode=mode, kind=kind, static=static,
                    **flow_arguments(flow, source, workflow=workflow, zone=zone))
    for line in result.logs:
        _log.debug("%s: %s", node, line)
    return result.items


def flow_arguments(flow: Any, source: str, *, workflow: dict[str, Any] | None, zone: str | None) -> dict[str, Any]:
    """Return the arguments of ``run_js`` a scaffolded workflow's ``Flow`` gives (see ``run_node``)."""
    ctx = flow.ctx
    clock = getattr(ctx, "now", None)
    env = {name: os.environ[name] for name in referenced_env(source) if name in os.environ}
    if workflow is None:  # the automation stands in for the workflow it was scaffolded from
        name = getattr(ctx, "automation", None)
        workflow = {"id": name, "name": name, "active": getattr(ctx, "mode", "live") == "live"}
    return {"outputs": flow.outputs, "execution_id": str(getattr(ctx, "job_id", "") or ""), "workflow": workflow,
            "now": clock() if callable(clock) else None,
            "zone": zone or os.environ.get("GENERIC_TIMEZONE") or "America/New_York", "env": env,
            "builtins": allowed_builtins(os.environ.get("NODE_FUNCTION_ALLOW_BUILTIN"))}


def allowed_builtins(setting: str | None) -> tuple[str, ...]:
    """Return the Node.js modules ``require`` may give, read as n8n reads ``NODE_FUNCTION_ALLOW_BUILTIN``
    (comma-separated names, ``*`` for all); unset: ``DEFAULT_BUILTINS``."""
    if setting is None:
        return DEFAULT_BUILTINS
    return tuple(name.strip() for name in setting.split(",") if name.strip())
