"""Python Code nodes (``language: python``): the node's own Python, a function of the generated module,
run with the data model n8n gives it in Pyodide.

n8n runs a Python Code node in Pyodide: every line of the code indented into ``async def
__main()``, the Code node's context with each ``$name`` renamed ``_name`` as its globals
(``_input``, ``_json``, ``_('Node')``, ``_now``, ``_today``, ``_itemIndex``, ``_runIndex``,
``_execution``, ``_workflow``, ``_prevNode``, the legacy ``items`` / ``item``; not ``_node``, and
``_env`` only when ``N8N_BLOCK_ENV_ACCESS_IN_NODE=false``), JavaScript objects seen as proxies that
read both as mappings and by attribute (``item.json.name`` and ``item["json"]["name"]``), and the
returned value converted back with ``toJs`` (a dict becomes an object, ``None`` becomes
``undefined``: a key whose value is ``None`` is dropped, a bare ``None`` is not an item) before the
same checks as a JavaScript node's return, worded for dictionaries.

Here the scaffold keeps the code in the module as written (a constant, as a JavaScript node's) and
:func:`python_code` wraps and compiles it as n8n does, then runs it once for all items or once per
item with exactly those globals, so a name n8n does not give fails the same way (``NameError``),
and ``print`` goes to the ``queue_core.compat.n8n.code`` logger. Not a sandbox: the code runs in
the worker's own Python (its standard library and installed packages are what it imports).
"""

from __future__ import annotations

import builtins
import copy
import logging
import os
from datetime import datetime
from typing import Any

from ..errors import NodeFailed

Items = list[dict[str, Any]]
ITEM_KEYS = frozenset({"json", "binary", "pairedItem", "error", "index"})
_log = logging.getLogger("queue_core.compat.n8n.code")
_MISSING = object()


class JsObject(dict):  # type: ignore[type-arg]
    """A JavaScript object as Pyodide shows it to the code: a mapping that also reads by attribute."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value

    def __delattr__(self, name: str) -> None:
        try:
            del self[name]
        except KeyError:
            raise AttributeError(name) from None

    def to_py(self, **_: Any) -> dict[str, Any]:
        """Pyodide's ``JsProxy.to_py()``: the object as plain Python data (a copy)."""
        return plain(self)  # type: ignore[no-any-return]


class JsArray(list):  # type: ignore[type-arg]
    """A JavaScript array as Pyodide shows it: a list, with ``to_py()``."""

    def to_py(self, **_: Any) -> list[Any]:
        """Pyodide's ``JsProxy.to_py()``: the array as plain Python data (a copy)."""
        return plain(self)  # type: ignore[no-any-return]


def plain(value: Any) -> Any:
    """Return ``value`` with every proxy made plain dicts and lists (a deep copy)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


class NodeItems:
    """``_input`` and ``_('Node')``: a node's items, with n8n's accessors."""

    def __init__(self, node: str, items: list[Any], current: Any = None, *, each: bool = False) -> None:
        self._node, self._items, self.item, self._each = node, items, current, each
        self.params = JsObject()

    def _check(self) -> None:
        if self._each:
            raise NodeFailed(f"{self._node}: This is only available in 'Run Once for All Items' mode")

    def all(self, branch: int = 0) -> list[Any]:
        """``.all()``: every item."""
        self._check()
        return self._items

    def first(self, branch: int = 0) -> Any:
        """``.first()``: the first item (None without items)."""
        self._check()
        return self._items[0] if self._items else None

    def last(self, branch: int = 0) -> Any:
        """``.last()``: the last item (None without items)."""
        self._check()
        return self._items[-1] if self._items else None

    def itemMatching(self, index: int) -> Any:  # noqa: N802 (n8n's name)
        """``.itemMatching(i)``: the item paired with input item ``i`` (same index, or the only one)."""
        items = self._items
        return items[index] if 0 <= index < len(items) else (items[0] if len(items) == 1 else None)


class LuxonNow:
    """``_now`` / ``_today``: the few Luxon DateTime members Python nodes call; others raise AttributeError."""

    def __init__(self, at: datetime) -> None:
        self._at = at
        self.year, self.month, self.day = at.year, at.month, at.day
        self.hour, self.minute, self.second = at.hour, at.minute, at.second

    def toISO(self) -> str:  # noqa: N802 (Luxon's name)
        """The time as Luxon's ISO 8601 text, with milliseconds and the offset."""
        text = self._at.isoformat(timespec="milliseconds")
        return text.replace("+00:00", "Z") if self._at.utcoffset() is not None and not self._at.utcoffset() else text

    def toISODate(self) -> str:  # noqa: N802
        """The date part."""
        return self._at.date().isoformat()

    def toMillis(self) -> int:  # noqa: N802
        """Milliseconds since the epoch."""
        return int(self._at.timestamp() * 1000)

    def toSeconds(self) -> float:  # noqa: N802
        """Seconds since the epoch."""
        return self._at.timestamp()


def proxied(value: Any) -> Any:
    """Return ``value`` (JSON data) as the code sees it: objects as :class:`JsObject`, copied."""
    if isinstance(value, dict):
        return JsObject({str(k): proxied(v) for k, v in value.items()})
    if isinstance(value, list):
        return JsArray(proxied(v) for v in value)
    return copy.copy(value)


def to_js(value: Any, node: str) -> Any:
    """Convert what the code returned as Pyodide's ``toJs`` does; ``_MISSING`` stands for ``undefined``."""
    if value is None:
        return _MISSING
    if isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            converted = to_js(item, node)
            if converted is not _MISSING:
                out[str(key)] = converted
        return out
    if isinstance(value, list | tuple):
        return [None if (v := to_js(item, node)) is _MISSING else v for item in value]
    if isinstance(value, NodeItems):
        return to_js(value._items, node)
    raise NodeFailed(f"{node}: ConversionError: a {type(value).__name__} has no JavaScript form to return")


def _js_text(value: Any) -> str:
    if value is _MISSING:
        return "undefined"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _normalize(data: Any, node: str) -> Items:
    if isinstance(data, dict):
        data = [data] if data.get("json") else [{"json": data}]
    if all(isinstance(it, dict) and "json" in it for it in data):
        return list(data)
    if any(isinstance(it, dict) and "json" in it for it in data):
        raise NodeFailed(f"{node}: Inconsistent item format")
    return [{"json": it} for it in data]


def _validate(it: dict[str, Any], node: str, index: int, top_level: bool) -> dict[str, Any]:
    for key in ("json", "binary"):
        if key in it and not isinstance(it[key], dict):
            raise NodeFailed(f"{node}: A '{key}' property isn't a dictionary [item {index}]: In the returned data, "
                             f"every key named '{key}' must point to a dictionary.")
    if top_level:
        unknown = [k for k in it if k not in ITEM_KEYS]
        if unknown:
            raise NodeFailed(f"{node}: Unknown top-level item key: {unknown[0]} [item {index}]: Access the properties "
                             "of an item under `.json`, e.g. `item.json`")
    out = {"json": it.get("json")}
    if it.get("binary") is not None:
        out["binary"] = it["binary"]
    return out


def all_items(result: Any, node: str) -> Items:
    """Check and normalise a run-once-for-all-items return (``toJs`` already applied)."""
    refused = (f"{node}: Code doesn't return items properly: Please return an array of dictionaries, "
               "one for each item you would like to output.")
    if not isinstance(result, dict | list) or (isinstance(result, list) and not all(isinstance(i, dict) for i in result)):
        raise NodeFailed(refused)
    top_level = isinstance(result, list) and any(set(i) & ITEM_KEYS for i in result)
    return [_validate(it, node, i, top_level) for i, it in enumerate(_normalize(result, node))]


def each_item(result: Any, node: str, index: int) -> dict[str, Any]:
    """Check and normalise one run-once-for-each-item return (``toJs`` already applied)."""
    if not isinstance(result, dict | list):
        raise NodeFailed(f"{node}: Code doesn't return a dictionary [item {index}]: Please return a dictionary "
                         f"representing the output item. ('{_js_text(result)}' was returned instead.)")
    if isinstance(result, list):
        first = f"An array of {_typeof(result[0])}s was returned." if result else "An empty array was returned."
        raise NodeFailed(f"{node}: Code doesn't return a single dictionary [item {index}]: {first} If you need to "
                         "output multiple items, please use the 'Run Once for All Items' mode instead.")
    [it] = _normalize([result], node)
    return _validate(it, node, index, True)


def _typeof(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string" if isinstance(value, str) else "object"


def compiled(source: str, node: str) -> Any:
    """Compile ``source`` as n8n wraps it: every line indented into ``async def __main():``."""
    code = _COMPILED.get(source)
    if code is None:
        wrapped = "async def __main():\n" + "\n".join("  " + line for line in source.split("\n")) + "\n  pass\n"
        try:
            code = compile(wrapped, f"<n8n Python Code node {node!r}>", "exec")
        except SyntaxError as exc:
            raise NodeFailed(f"{node}: SyntaxError: {exc.msg} (line {exc.lineno})") from None
        if len(_COMPILED) > 200:
            _COMPILED.clear()
        _COMPILED[source] = code
    return code


_COMPILED: dict[str, Any] = {}


def _globals(flow: Any, node: str, previous: str | None) -> dict[str, Any]:
    """The names every run of the node sees (n8n's Code node context, ``$`` renamed ``_``)."""
    ctx = flow.ctx
    clock = getattr(ctx, "now", None)
    at = clock() if callable(clock) else datetime.now().astimezone()
    name = getattr(ctx, "automation", None)
    names: dict[str, Any] = {
        "__builtins__": builtins, "__name__": "__n8n_code__",
        "_now": LuxonNow(at), "_today": LuxonNow(at.replace(hour=0, minute=0, second=0, microsecond=0)),
        "_runIndex": 0, "_execution": JsObject(id=str(getattr(ctx, "job_id", "") or ""), mode="production"),
        "_workflow": JsObject(id=name, name=name, active=getattr(ctx, "mode", "live") == "live"),
        "_prevNode": JsObject(name=previous, outputIndex=0, runIndex=0),
        "print": lambda *args, **kw: _log.debug("%s: %s", node, " ".join(str(a) for a in args)),
    }
    if os.environ.get("N8N_BLOCK_ENV_ACCESS_IN_NODE") == "false":  # n8n blocks $env unless told not to
        names["_env"] = JsObject(os.environ)
    return names


def _node_items(flow: Any, node: str, other: str, index: int) -> NodeItems:
    """``_('Node')``: that node's first output in this run, ``.item`` the one paired with item
    ``index`` (the same index, or the only one); n8n's error when the node did not run."""
    if other not in flow.outputs:
        raise NodeFailed(f"{node}: Node '{other}' hasn't been executed (or does not exist)")
    items = proxied(flow.outputs[other][0] if flow.outputs[other] else [])
    paired = items[index] if 0 <= index < len(items) else (items[0] if len(items) == 1 else None)
    return NodeItems(node, items, paired)


def _run_main(code: Any, names: dict[str, Any], node: str, where: str) -> Any:
    try:
        exec(code, names)  # defines __main in the run's own globals  # noqa: S102
        coroutine = names["__main"]()
        try:
            coroutine.send(None)
        except StopIteration as done:
            return done.value
        coroutine.close()
        raise NodeFailed(f"{node}: the Code node awaited something that never settled{where}")
    except NodeFailed:
        raise
    except Exception as exc:  # the node's own code failed: n8n shows "<Type>: <message>"
        raise NodeFailed(f"{node}: {type(exc).__name__}: {exc}{where}") from None


def python_code(flow: Any, node: str, source: str, items: Items, *, mode: str = "runOnceForAllItems",
                previous: str | None = None) -> Items:
    """Run a Python Code node's own code over ``items`` as n8n runs it; record and return its items.

    Raises NodeFailed naming ``node`` when the code raises (``NameError: name 'x' is not defined``)
    or returns what n8n refuses.
    """
    code = compiled(source, node)
    shared = _globals(flow, node, previous)
    given = proxied(items)
    each = mode == "runOnceForEachItem"
    out: Items = []
    for index in range(len(given)) if each else range(1):
        current = given[index] if given else None
        names = dict(shared, _input=NodeItems(node, given, current, each=each), _json=(current or {}).get("json"),
                     _itemIndex=index, _=lambda other, at=index: _node_items(flow, node, other, at))
        names["item" if each else "items"] = current if each else given
        result = to_js(_run_main(code, names, node, f" [item {index}]" if each else ""), node)
        if each:
            out.append(each_item(result, node, index))
        else:
            out.extend(all_items(result, node))
    return flow.emit(node, out)  # type: ignore[no-any-return]
