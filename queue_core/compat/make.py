"""The runtime of automations scaffolded from Make scenarios (``cutover scaffold make``).

Make runs a scenario bundle by bundle: each module's output *bundle* is mapped into later
modules as ``{{<module id>.<field>}}``; a module that outputs several bundles (an Iterator, a
search) runs everything after it once per bundle, until an Aggregator collects them back into
one. A scaffolded automation keeps that model in plain Python: a ``Run`` holds the current
bundle of every module (``run.b[3]``), a loop stands for an Iterator, and the run records what
``cutover import make`` records for the same scenario:

- a Router's decision is named after the router and valued with the routes taken, each named
  by the filter on its first module (or its index, from 0, when it has none): one value when
  one route ran, a list when several did. Make sends every bundle down *every* route whose
  filter passes, in order; ``run.took`` marks a route taken when its first module runs.
- a run whose last module to run was a Router that sent the bundle down no route ends
  ``filtered`` (``run.finish``); a module-level filter that stops a bundle does not.

Filter operators are ``_make_filter``; IML functions ``_make_functions``; both re-exported.
"""

from __future__ import annotations

import importlib
import os
import json as jsonlib
import re
from datetime import datetime
from decimal import Decimal
from typing import Any

from ..errors import MakeConditionError, MakeFunctionError, ModuleFailed, RetryableError, TerminalError, TodoModule
from ._make_filter import OPERATORS, condition, empty, get, instant, number, passes, text
from ._make_functions import FUNCTIONS, fn, parse_number, truth
from . import _make_text as tools  # make.tools: Text parser, Create JSON, Webhook response

# The filter operators (``text:equal``) and IML functions (``lower``) this runtime implements, by
# name: the translator emits only these.
FILTER_OPERATORS: frozenset[str] = frozenset(OPERATORS)
IML_FUNCTIONS: frozenset[str] = frozenset(FUNCTIONS)

__all__ = [
    "FILTER_OPERATORS", "IML_FUNCTIONS", "MakeConditionError", "MakeFunctionError", "ModuleFailed", "Run", "TodoModule", "app_call", "arith", "compare",
    "concat", "condition", "empty", "first_bundle", "fn", "get", "http_bundle", "instant", "iterate",
    "json_body", "number", "parse_json", "parse_number", "passes", "path", "ref", "repeat", "text", "tools", "truth",
    "webhook_bundle",
]


def __getattr__(name: str) -> Any:
    """``make.<area>``: the runtime of an area's app modules, ``queue_core/compat/_make_<area>.py``
    (``make.google.add_row(…)``), imported the first time generated code reaches for it."""
    if re.fullmatch(r"[a-z][a-z0-9]*", name) and name not in ("filter", "functions"):
        try:
            return importlib.import_module(f"{__package__}._make_{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__package__}._make_{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Run:
    """One run of a scaffolded scenario: the modules' current bundles, routers' routes taken."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.b: dict[int, Any] = {}
        self.variables: dict[str, Any] = {}
        self.scenario_name = ""  # var.scenario.name: the blueprint's name (set by the generated code)
        self._last: int | None = None
        self._routers: dict[int, tuple[str, list[str], set[int]]] = {}

    def emit(self, module: int, bundle: Any) -> Any:
        """Record ``bundle`` as module ``module``'s current output (the module ran) and return it."""
        self.b[module] = bundle
        self._last = module
        return bundle

    def router(self, module: int, decision: str, routes: list[str]) -> None:
        """Record that a bundle reached Router ``module`` whose routes are named ``routes``."""
        self._routers.setdefault(module, (decision, routes, set()))
        self._last = module

    def took(self, router: int, route: int) -> None:
        """Record that route ``route`` (from 0) of Router ``router`` ran its first module, and
        decide the router's routes taken so far (so a later failure keeps the decision)."""
        decision, routes, taken = self._routers[router]
        taken.add(route)
        chosen = [routes[i] for i in sorted(taken)]
        self.ctx.decide(decision, chosen[0] if len(chosen) == 1 else chosen)

    def ignored(self, module: int, error: BaseException) -> bool:
        """Handle an error of ``module`` under a ``builtin:Ignore`` handler; return False (stop here).

        Only a terminal failure is ignored: a TODO module and a retryable error are re-raised.
        """
        if isinstance(error, TodoModule) or not isinstance(error, TerminalError | MakeConditionError | ValueError):
            raise error
        self._last = module
        return False

    @property
    def execution_id(self) -> str:
        """``var.scenario.executionId``: this execution's id, the job's (a new execution has a new id)."""
        return str(getattr(self.ctx, "job_id", ""))

    def caught(self, module: int, error: BaseException, directive: str = "builtin:Ignore") -> None:
        """Enter ``module``'s error handler route for ``error``: its bundle becomes
        ``{"error": {"message": …}}`` (what the route maps as ``{{<id>.error.message}}``; the text
        is this run's, not Make's wording). A TODO module's failure is re-raised, and so is a
        retryable one unless the route ends in Break or Rollback (the queue retries it first)."""
        if isinstance(error, TodoModule):
            raise error
        if directive not in ("builtin:Break", "builtin:Rollback") and not isinstance(
                error, TerminalError | MakeConditionError | ValueError):
            raise error
        self.b[module] = {"error": {"message": str(error)}}
        self._last = module

    def committed(self, module: int, error: BaseException) -> None:
        """Handle an error of ``module`` under ``builtin:Commit``: the run stops here and succeeds
        (the generated code returns); a TODO module and a retryable error are re-raised."""
        self.ignored(module, error)

    def rolled_back(self, module: int, error: BaseException) -> None:
        """Handle an error under ``builtin:Rollback``: the run fails now, without a retry (Make
        marks the execution as an error and does not run it again)."""
        if isinstance(error, TodoModule):
            raise error
        raise TerminalError(f"module {module}: {error} (error handler Rollback: the run fails)") from error

    def broke(self, module: int, error: BaseException, count: Any = 3, interval: Any = 15, retry: Any = True) -> None:
        """Handle an error under ``builtin:Break``: Make stores the incomplete execution and completes
        it again after ``interval`` minutes, up to ``count`` times; here the job is retried (its
        recorded steps are not run again) with that delay while its attempt number is within
        ``count``, then it fails. With retries off the run fails at once."""
        if isinstance(error, TodoModule):
            raise error
        attempts, minutes = number(count), number(interval)
        attempt = int(getattr(self.ctx, "attempt", 1) or 1)
        if truth(retry) and attempts is not None and attempt <= int(attempts):
            raise RetryableError(f"module {module}: {error} (error handler Break: retry {attempt} of {int(attempts)})",
                                 delay=float(minutes if minutes is not None else 15) * 60) from error
        raise TerminalError(f"module {module}: {error} (error handler Break: no retry left)") from error

    def setting(self, variable: str) -> str:
        """``var.scenario.url`` and the other system variables only Make's account knows (the scenario's
        id and URL, its team and organisation): the setting ``MAKE_<VARIABLE>`` (``MAKE_SCENARIO_URL``)
        of the worker's environment; ModuleFailed naming it when it is not set."""
        key = "MAKE_" + re.sub(r"[^A-Z0-9]+", "_", variable.upper())
        value = os.environ.get(key)
        if value is None:
            raise ModuleFailed(f"var.{variable}: set {key} in the worker's environment (Make's value for this "
                               "scenario, or its successor's)")
        return value

    def now(self) -> datetime:
        """Return ``now``: the job's clock (the trigger's time in a shadow replay)."""
        return self.ctx.now()  # type: ignore[no-any-return]

    def finish(self) -> None:
        """End the run ``filtered`` when its last module was a Router that sent the bundle down no route."""
        last = self._routers.get(self._last) if self._last is not None else None
        if last is not None and not last[2]:
            self.ctx.filter(f"router {last[0]!r}: no route's filter let the bundle through")


def ref(bundles: dict[int, Any], module: int, *path: str) -> Any:
    """Return ``{{module.a.b}}``: a field of a module's current bundle; None when absent.

    A ``"[]"`` part maps the rest of the path over an array (``{{1.items[].id}}``); a part
    ``"[n]"`` is the n-th element, from 1.
    """
    return _walk(bundles.get(module), list(path))


def _walk(value: Any, path: list[str]) -> Any:
    for position, part in enumerate(path):
        if part == "[]":
            rest = path[position + 1:]
            return [_walk(e, rest) for e in value] if isinstance(value, list) else None
        if part.startswith("[") and part.endswith("]"):
            value = get(value, part[1:-1])
        elif isinstance(value, dict):
            value = value.get(part)
        else:
            return None
    return value


def iterate(array: Any) -> list[Any]:
    """Return an Iterator's bundles: one per element (a plain value as ``{"value": …}``), each
    with Make's ``__IMTINDEX__`` (from 1) and ``__IMTLENGTH__``; nothing for an empty or missing array."""
    elements = array if isinstance(array, list) else [] if empty(array) else [array]
    return [{**(e if isinstance(e, dict) else {"value": e}), "__IMTINDEX__": i + 1, "__IMTLENGTH__": len(elements)}
            for i, e in enumerate(elements)]


def repeat(start: Any, repeats: Any, step: Any = 1) -> list[dict[str, Any]]:
    """Return a Repeater's bundles: ``repeats`` of them, ``{"i": start + k * step}``."""
    first, count, stride = number(start), number(repeats), number(step)
    if first is None or count is None or stride is None:
        raise MakeFunctionError(f"Repeater: start {text(start)!r}, repeats {text(repeats)!r}, step {text(step)!r} must be numbers")
    values = [first + k * stride for k in range(int(count))]
    return [{"i": int(v) if v == v.to_integral_value() else float(v)} for v in values]


def concat(*parts: Any) -> str:
    """Return a template's text: each mapped part written as text (``null`` as nothing)."""
    return "".join(text(p) for p in parts)


def arith(op: str, a: Any, b: Any) -> Any:
    """Return ``a op b`` for IML's ``+ - * / %`` (numbers; ``+`` of text joins them)."""
    left, right = number(a), number(b)
    if left is None or right is None:
        if op == "+":
            return text(a) + text(b)
        raise MakeFunctionError(f"{text(a)!r} {op} {text(b)!r}: not numbers")
    if op in "/%" and right == 0:
        raise MakeFunctionError(f"{text(a)} {op} 0: division by zero")
    result = {"+": left + right, "-": left - right, "*": left * right, "/": left / right, "%": left % right}[op]
    return int(result) if result == result.to_integral_value() else float(result)


def compare(op: str, a: Any, b: Any) -> bool:
    """Return IML's ``a op b`` for ``= != < > <= >=``: numbers when both read as numbers, else text."""
    left: Decimal | str | None = number(a)
    right: Decimal | str | None = number(b)
    if left is None or right is None:
        left, right = text(a), text(b)
    return {"=": left == right, "!=": left != right, "<": left < right, ">": left > right,  # type: ignore[operator]
            "<=": left <= right, ">=": left >= right}[op]  # type: ignore[operator]


def webhook_bundle(trigger: Any) -> Any:
    """Return a Custom webhook's bundle: the delivery's parsed body (an empty one when none)."""
    body = getattr(trigger, "body", None)
    return body if body is not None else {}


def first_bundle(trigger: Any) -> Any:
    """Return the first module's recorded bundle in a replay, or None on a live schedule tick.

    ``cutover import make`` takes a run's first module's first output bundle as its trigger; a
    scheduled scenario's live tick (source ``schedule``) has none, so its first module runs.
    """
    if getattr(trigger, "source", None) == "schedule":
        return None
    return webhook_bundle(trigger)


def json_body(rendered: str, module: str) -> Any:
    """Parse a module's rendered JSON body text; ModuleFailed naming the module when it is not JSON."""
    try:
        return jsonlib.loads(rendered)
    except ValueError as exc:
        raise ModuleFailed(f"{module}: the request body is not valid JSON ({exc}): {rendered[:200]!r}") from None


def parse_json(rendered: Any, module: str) -> list[Any]:
    """Return a Parse JSON module's bundles: an object is one bundle, an array one per element."""
    try:
        parsed = jsonlib.loads(text(rendered))
    except ValueError as exc:
        raise ModuleFailed(f"{module}: source is not valid JSON ({exc})") from None
    if isinstance(parsed, list):
        return [e if isinstance(e, dict) else {"value": e} for e in parsed]
    return [parsed if isinstance(parsed, dict) else {"value": parsed}]


async def app_call(ctx: Any, provider: str, method: str, url: str, *, step: str, json: Any = None) -> Any:
    """Make an app module's REST call through ``ctx.call``; return its bundle: the JSON response body."""
    response = await ctx.call(provider, method, url, step=step, **({"json": json} if json is not None else {}))
    try:
        body = response.json()
    except ValueError:
        raise ModuleFailed(f"step {step!r}: the response is not JSON ({response.text[:200]!r})") from None
    return body if isinstance(body, dict) else {"value": body}


def http_bundle(response: Any, parse: bool = True) -> dict[str, Any]:
    """Return an HTTP module's output bundle for ``response`` (``_make_http.response_bundle``).

    A shadow replay answers with the legacy run's recorded output, which is already a bundle
    (an object with ``statusCode`` and ``data``): it is taken as it is.
    """
    from ._make_http import response_bundle

    return response_bundle(response, parse)


def path(value: Any, *parts: str) -> Any:
    """Return ``value`` followed by a path (``first(2.data).supplier_id``); None when absent."""
    return _walk(value, list(parts))
