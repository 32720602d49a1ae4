"""What each Power Automate (WDL) action does, given its evaluated inputs (``queue_core.compat.power_automate``).

Each function is one action type, as Microsoft documents it
(learn.microsoft.com/azure/logic-apps/logic-apps-workflow-actions-triggers and
/logic-apps-create-variables-store-values): it returns the action's outputs as the run history
records them, or ``NO_OUTPUTS`` for an action that has none (the variable actions, Response,
Wait), and raises ``ActionFailed`` (with Logic Apps' error code) when the action fails.
"""

from __future__ import annotations

import csv
import html
import io
import json as jsonlib
from collections.abc import Callable
from typing import Any

from ..errors import ActionFailed, FlowTerminated, TerminalError, TodoAction

NO_OUTPUTS: Any = type("NoOutputs", (), {"__repr__": lambda self: "NO_OUTPUTS"})()

# InitializeVariable's types and the Python values each holds (a float variable takes an integer too)
_TYPES: dict[str, tuple[type, ...]] = {
    "integer": (int,), "float": (int, float), "boolean": (bool,), "string": (str,), "array": (list,),
    "object": (dict,),
}
_WAIT_UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 604800, "month": 2592000}


def _kind(value: Any) -> str:
    return {bool: "Boolean", int: "Integer", float: "Float", str: "String", list: "Array", dict: "Object",
            type(None): "Null"}.get(type(value), type(value).__name__)


def _fits(kind: str, value: Any) -> bool:
    allowed = _TYPES[kind]
    return isinstance(value, allowed) and not (isinstance(value, bool) and bool not in allowed)


def path(value: Any, *keys: str) -> Any:
    """Return ``value?['a']?['b']``: None as soon as a step is missing."""
    for key in keys:
        if isinstance(value, dict):
            value = value.get(key)
        elif isinstance(value, list) and key.lstrip("-").isdigit():
            index = int(key)
            value = value[index] if -len(value) <= index < len(value) else None
        else:
            return None
    return value


def text(value: Any) -> str:
    """Return a value as an ``@{…}`` interpolation writes it (objects as JSON)."""
    return _text(value)


def compose(value: Any) -> Any:
    """Compose: its outputs are its inputs, evaluated."""
    return value


def initialize(run: Any, variables: list[dict[str, Any]]) -> Any:
    """Initialize variable: declare each ``{name, type, value}``; a value of another type fails the action."""
    for declared in variables:
        name, kind = str(declared.get("name") or ""), str(declared.get("type") or "").lower()
        if kind not in _TYPES:
            raise ActionFailed(f"The variable '{name}' has an unsupported type '{declared.get('type')}'.",
                               "InvalidVariableType")
        if name in run.types:
            raise ActionFailed(f"The variable '{name}' is already initialized.", "InvalidVariableInitialization")
        value = declared.get("value")
        if value is None and "value" not in declared:
            value = {"integer": 0, "float": 0.0, "boolean": False, "string": "", "array": [], "object": {}}[kind]
        if value is not None and not _fits(kind, value):
            raise ActionFailed(f"The variable '{name}' of type '{kind.capitalize()}' cannot be initialized or updated "
                               f"with value of type '{_kind(value)}'.", "InvalidTemplate")
        run.types[name] = kind
        run.vars[name] = value
    return NO_OUTPUTS


def _declared(run: Any, name: str, *kinds: str) -> str:
    kind = run.types.get(name)
    if kind is None:
        raise ActionFailed(f"The variable '{name}' must be initialized before it is used.", "InvalidTemplate")
    if kinds and kind not in kinds:
        raise ActionFailed(f"The variable '{name}' of type '{kind.capitalize()}' cannot be used here "
                           f"(expected {' or '.join(k.capitalize() for k in kinds)}).", "InvalidTemplate")
    return str(kind)


def set_variable(run: Any, name: str, value: Any) -> Any:
    """Set variable: a value of the declared type (or null)."""
    kind = _declared(run, name)
    if value is not None and not _fits(kind, value):
        raise ActionFailed(f"The variable '{name}' of type '{kind.capitalize()}' cannot be initialized or updated "
                           f"with value of type '{_kind(value)}'.", "InvalidTemplate")
    run.vars[name] = value
    return NO_OUTPUTS


def increment(run: Any, name: str, by: Any = 1, sign: int = 1) -> Any:
    """Increment variable (``sign`` -1: Decrement): an Integer or Float variable, by 1 unless ``value`` says."""
    _declared(run, name, "integer", "float")
    step = 1 if by is None else by
    if isinstance(step, bool) or not isinstance(step, int | float):
        raise ActionFailed(f"The value to increment the variable '{name}' by must be a number, got '{_kind(step)}'.",
                           "InvalidTemplate")
    current = run.vars.get(name) or 0
    run.vars[name] = current + sign * step
    return NO_OUTPUTS


def decrement(run: Any, name: str, by: Any = 1) -> Any:
    """Decrement variable."""
    return increment(run, name, by, -1)


def append_array(run: Any, name: str, value: Any) -> Any:
    """Append to array variable: the value becomes the array's last element."""
    _declared(run, name, "array")
    run.vars[name] = [*(run.vars.get(name) or []), value]
    return NO_OUTPUTS


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int | float):
        return str(value)
    return jsonlib.dumps(value, separators=(",", ":"), ensure_ascii=False)


def append_string(run: Any, name: str, value: Any) -> Any:
    """Append to string variable."""
    _declared(run, name, "string")
    run.vars[name] = (run.vars.get(name) or "") + _text(value)
    return NO_OUTPUTS


def _check_schema(value: Any, schema: Any, at: str) -> str | None:
    """Return why ``value`` does not fit a JSON schema's ``type``/``required``/``properties``/``items`` (None: it fits)."""
    if not isinstance(schema, dict):
        return None
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds] if kinds else []
    names = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
    if kinds:
        def one(kind: str) -> bool:
            if kind in ("integer", "number"):
                return isinstance(value, int | float) and not isinstance(value, bool) and (
                    kind == "number" or float(value).is_integer())
            return isinstance(value, names.get(kind, object))
        if not any(one(k) for k in kinds):
            return f"Invalid type. Expected {' or '.join(k.capitalize() for k in kinds)} but got {_kind(value)}. Path '{at}'."
    if isinstance(value, dict):
        for key in schema.get("required") or []:
            if key not in value:
                return f"Required properties are missing from object: {key}. Path '{at}'."
        for key, sub in (schema.get("properties") or {}).items():
            if key in value:
                why = _check_schema(value[key], sub, f"{at}.{key}" if at else key)
                if why:
                    return why
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, element in enumerate(value):
            why = _check_schema(element, schema["items"], f"{at}[{index}]")
            if why:
                return why
    return None


def parse_json(content: Any, schema: Any = None) -> dict[str, Any]:
    """Parse JSON: text is parsed, a value taken as it is; it must fit the schema (type, required,
    properties, items); its outputs' body is the value."""
    value = content
    if isinstance(content, str):
        try:
            value = jsonlib.loads(content)
        except ValueError as exc:
            raise ActionFailed(f"The 'content' property of actions of type 'ParseJson' must be valid JSON ({exc}).",
                               "InvalidTemplate") from None
    why = _check_schema(value, schema, "")
    if why:
        raise ActionFailed(why, "ValidationFailed", {"body": value})
    return {"body": value}


def _array(value: Any, action: str, field: str) -> list[Any]:
    if not isinstance(value, list):
        raise ActionFailed(f"The '{field}' property of '{action}' must be an array, got '{_kind(value)}'.",
                           "InvalidTemplate")
    return value


def query(run: Any, action: str, items: Any, where: Callable[[Any], Any]) -> dict[str, Any]:
    """Filter array: the items for which ``where`` (evaluated with ``item()`` the element) is true."""
    kept = [x for i, x in enumerate(_array(items, action, "from")) if truth(where(run.child(action, x, i)), action)]
    return {"body": kept}


def select(run: Any, action: str, items: Any, mapping: Callable[[Any], Any]) -> dict[str, Any]:
    """Select: the mapping evaluated per element (``item()``)."""
    return {"body": [mapping(run.child(action, x, i)) for i, x in enumerate(_array(items, action, "from"))]}


def join(items: Any, separator: Any, action: str = "Join") -> dict[str, Any]:
    """Join: the elements as text, joined by the separator."""
    return {"body": _text(separator).join(_text(x) for x in _array(items, action, "from"))}


def table(run: Any, action: str, items: Any, kind: str, columns: list[tuple[str, Callable[[Any], Any]]] | None) -> dict[str, Any]:
    """Create CSV / HTML table: a header row, then one row per element; columns automatic (the
    first element's keys) unless given as (header, value per element)."""
    rows = _array(items, action, "from")
    if columns is None:
        heads = list(rows[0]) if rows and isinstance(rows[0], dict) else []
        values = [[_text(r.get(h)) if isinstance(r, dict) else "" for h in heads] for r in rows]
    else:
        heads = [h for h, _ in columns]
        values = [[_text(fn(run.child(action, r, i))) for _, fn in columns] for i, r in enumerate(rows)]
    if kind.lower() == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(heads)
        writer.writerows(values)
        return {"body": out.getvalue()}
    head = "".join(f"<th>{html.escape(h)}</th>" for h in heads)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in row) + "</tr>" for row in values)
    return {"body": f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"}


def provider_of(ctx: Any, url: str, action: str) -> str:
    """Return the configured provider (``ctx.providers``: name -> base URL) whose base URL the computed
    ``url`` starts with (the longest); ActionFailed naming the action and the URL's origin when none is."""
    providers: dict[str, str] = dict(getattr(ctx, "providers", None) or {})
    matches = [(len(base), name) for name, base in providers.items()
               if url == base or url.startswith((base.rstrip("/") + "/", base + "?"))]
    if not matches:
        origin = "/".join(url.split("/")[:3])
        raise ActionFailed(f"{action}: no provider is configured for {origin!r} (the URL the action computed): add "
                           f'[tool.cutover.providers.<name>] base_url = "{origin}"', "InvalidTemplate")
    return max(matches)[1]


async def http(ctx: Any, provider: str | None, method: str, uri: str, *, step: str, headers: dict[str, Any] | None = None,
               queries: dict[str, Any] | None = None, body: Any = None, action: str = "") -> dict[str, Any]:
    """HTTP (and a connector call made as one): one ``ctx.call``; outputs ``{statusCode, headers, body}``.

    ``provider`` None: the uri's host was computed, the provider is the configured one whose base URL
    it starts with (``provider_of``). A JSON answer is the parsed body, anything else its text. (A
    shadow replay answers with the recorded body, status 200.)
    """
    uri = _text(uri)
    if provider is None:
        provider = provider_of(ctx, uri, action or step)
    kwargs: dict[str, Any] = {}
    if headers:
        kwargs["headers"] = {str(k): _text(v) for k, v in headers.items()}
    if queries:
        kwargs["params"] = {str(k): _text(v) for k, v in queries.items()}
    if isinstance(body, dict | list):
        kwargs["json"] = body
    elif body is not None:
        kwargs["content"] = _text(body).encode()
    response = await ctx.call(provider, method.upper(), uri, step=step, **kwargs)
    try:
        parsed: Any = response.json()
    except ValueError:
        parsed = response.text
    outputs = {"statusCode": response.status_code, "headers": dict(getattr(response, "headers", {}) or {}),
               "body": parsed}
    if response.status_code >= 400:
        raise ActionFailed(f"{step}: the answer was {response.status_code}", str(response.status_code), outputs)
    return outputs


async def respond(ctx: Any, status: Any = 200, headers: dict[str, Any] | None = None, body: Any = None) -> Any:
    """Response: the synchronous answer to the Request trigger's caller (``ctx.respond``)."""
    code = int(status) if isinstance(status, int | str) and str(status).isdigit() else 200
    await ctx.respond(code, body, {str(k): _text(v) for k, v in (headers or {}).items()})
    return NO_OUTPUTS


async def wait(ctx: Any, count: Any, unit: Any) -> Any:
    """Delay: a durable ``ctx.sleep`` of ``count`` ``unit``s (a month counted as 30 days)."""
    seconds = _WAIT_UNITS.get(str(unit).lower())
    if seconds is None or isinstance(count, bool) or not isinstance(count, int | float):
        raise ActionFailed(f"Delay: the interval {count!r} {unit!r} is not a count of a known unit", "InvalidTemplate")
    await ctx.sleep(float(count) * seconds)
    return NO_OUTPUTS


def terminate(status: Any, code: Any = "", message: Any = "") -> Any:
    """Terminate: end the run now with ``runStatus`` (and, when Failed, its error code and message)."""
    raise FlowTerminated(str(status or "Succeeded"), _text(code), _text(message))


def split_on(run: Any, elements: Callable[[Any], Any]) -> list[Any] | None:
    """Return the trigger's ``splitOn`` array of a whole delivery, or None: a run of one element
    (the expression does not give an array there: a replayed run, or a split child)."""
    try:
        found = elements(run)
    except TerminalError:
        return None
    return found if isinstance(found, list) else None


def todo(action: str, why: str) -> Any:
    """An action left to write: reaching it fails the run, naming it."""
    raise TodoAction(action, why)


def truth(value: Any, action: str) -> bool:
    """Return a condition's value, which must be a boolean (Logic Apps fails the action otherwise)."""
    if isinstance(value, bool):
        return value
    raise ActionFailed(f"The expression of '{action}' must evaluate to a boolean, got '{_kind(value)}'.",
                       "InvalidTemplate")
