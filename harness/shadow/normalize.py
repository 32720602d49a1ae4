"""Reduce a legacy trace and a replayed trace to comparable decision traces.

Both sides become the same canonical shape before they are compared::

    {"status": "succeeded" | "filtered" | "failed",
     "path": [step, ...],                       # steps executed, in order
     "decisions": {name: value},                # branch decisions
     "calls": {key: {"provider", "method", "url", "body"}},   # outbound intents by step
     "outputs": {step: value}}                  # only steps both sides report

``calls`` is keyed by step name (``step#2`` for a step's second call) rather than listed, so one
extra call does not shift every later call into a disagreement. The legacy error text is not
compared: its wording is the legacy tool's, and ``status`` already says whether the run failed.

Rules applied to each side on its own (:func:`reduce_legacy`, :func:`reduce_new`):

* URLs lose the provider's base URL (the legacy export records paths relative to it) and have
  their query parameters sorted.
* RFC 3339 timestamps are rewritten in one canonical UTC form, so ``...Z`` and ``...+00:00``
  and different sub-second precisions of the same instant compare equal.
* Values under generated-id keys (``idempotency_key``, ``request_id``, …) are masked: they are
  minted afresh on every run and would never agree.
* Zapier (``coercion = "zapier"``) flattens nested keys as ``a__b``; legacy objects are unflattened.
* The runtime's own steps leave the path, on both sides (:data:`RUNTIME_STEPS`: a child enqueued
  or waited for, a durable sleep or wait, a returned value or webhook answer): they are how the
  queue runs a node (an n8n sub-workflow call, a Wait), not steps a legacy tool records.

Rules applied to the pair (:func:`align`): a legacy call field that is ``null`` means "the export
did not show it" and is dropped from both sides; ``outputs`` keep only the steps both sides report
(a legacy output of a call step is the provider's response, which the replay was served, not
something the new code computed); and a field the legacy export does not hold (outside the trace's
*evidence*: a Zapier task history shows statuses, not paths) is dropped from both sides, so a
disagreement on it cannot arise. ``status`` is always compared.

Loose typing is judged per pair of values by :func:`loosely_equal`: under the ``n8n``, ``zapier``
and ``make`` profiles the string ``"true"`` equals ``True`` and ``"130.73"`` equals ``130.73``, but
two strings are always compared exactly (``"52.40"`` is not ``"52.4"``). Everything here is pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from harness.manifest import Coercion
from harness.recording import ALL_EVIDENCE, Evidence, LegacyTrace

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CALL_FIELDS = ("provider", "method", "url", "body")
DEFAULT_ID_KEYS = frozenset({
    "idempotency_key", "idempotencykey", "request_id", "requestid", "trace_id", "traceid",
    "correlation_id", "correlationid", "nonce",
})
GENERATED = "<generated>"

_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$")
_NUMBER = re.compile(r"^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$")
_LOOSE = frozenset({Coercion.N8N, Coercion.ZAPIER, Coercion.MAKE})


@dataclass(frozen=True)
class Rules:
    """How to normalise one automation's traces.

    ``base_urls`` maps a provider name to the base URL its calls are made against;
    ``id_keys`` are object keys (compared case-insensitively) whose values are generated per run;
    ``exclude_nodes`` the manifest's nodes whose outputs are not compared, with the reason.
    """

    coercion: Coercion = Coercion.STRICT
    base_urls: Mapping[str, str] = field(default_factory=dict)
    id_keys: frozenset[str] = DEFAULT_ID_KEYS
    exclude_nodes: Mapping[str, str] = field(default_factory=dict)  # node -> why its outputs are not compared


def canonical_timestamp(text: str) -> str | None:
    """Return ``text`` as ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` when it is an RFC 3339 instant, else None."""
    if not _TIMESTAMP.match(text):
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


_UNCHANGED = frozenset({int, float, bool, type(None)})  # JSON scalars _scrub returns as they are


def _scrub(value: Any, rules: Rules) -> Any:
    """Canonicalise timestamps and mask generated ids, recursively."""
    kind = type(value)
    if kind in _UNCHANGED:  # the exact types first: isinstance against Mapping is slow for a scalar
        return value
    if kind is dict:
        ids = rules.id_keys
        return {str(k): GENERATED if str(k).lower() in ids and v is not None else _scrub(v, rules)
                for k, v in value.items()}
    if isinstance(value, str):
        return canonical_timestamp(value) or value
    if isinstance(value, Mapping):
        return {
            str(k): GENERATED if str(k).lower() in rules.id_keys and v is not None else _scrub(v, rules)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_scrub(v, rules) for v in value]
    return value


def unflatten(value: Any, separator: str = "__") -> Any:
    """Turn Zapier's flattened keys (``{"a__b": 1}``) back into nested objects (``{"a": {"b": 1}}``),
    recursively, inside lists too. The one unflatten of the harness (the Zapier importer's and the
    normalizer's).

    Keys are placed shallowest first; a key whose path runs into a value already there (a
    non-object on the way, or the same key) is kept flat rather than overwriting it, so no value
    is lost: ``{"a": 1, "a__b": 2}`` stays as it is. A key that only starts or ends with the
    separator (``__meta``) is not split.
    """
    if isinstance(value, list):
        return [unflatten(v, separator) for v in value]
    if not isinstance(value, Mapping):
        return value
    nested: dict[str, Any] = {}
    for key in sorted(value, key=lambda k: str(k).count(separator)):
        name = str(key)
        item = unflatten(value[key], separator)
        parts = name.split(separator) if separator in name.strip(separator) else [name]
        node, blocked = nested, False
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                blocked = True
                break
            node = child
        if blocked or parts[-1] in node:
            nested[name] = item
        else:
            node[parts[-1]] = item
    return nested


def _base_of(url: Any, base_urls: Mapping[str, str]) -> str | None:
    """The base URL of the configured provider an absolute ``url`` is under (the longest that
    prefixes it), for a call whose provider the legacy export does not name (n8n's, Make's)."""
    if not isinstance(url, str):
        return None
    under = [b for b in base_urls.values() if b and (url == b or url.startswith((b + "/", b + "?")))]
    return max(under, key=len) if under else None


def relative_url(url: str | None, base_url: str | None) -> str | None:
    """Strip ``base_url`` from ``url`` and sort its query parameters (None stays None)."""
    if url is None:
        return None
    if base_url and (url == base_url or url.startswith((base_url + "/", base_url + "?"))):
        url = url[len(base_url):] or "/"
    parts = urlsplit(url)
    if not parts.query:
        return url
    query = urlencode(sorted(parse_qsl(parts.query, keep_blank_values=True)))
    return urlunsplit(parts._replace(query=query))


def _calls(calls: list[dict[str, Any]], rules: Rules) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    seen: dict[str, int] = {}
    for call in calls:
        step = str(call.get("step"))
        seen[step] = seen.get(step, 0) + 1
        key = step if seen[step] == 1 else f"{step}#{seen[step]}"
        provider = call.get("provider")
        method = call.get("method")
        out[key] = {
            "provider": provider,
            "method": method.upper() if isinstance(method, str) else method,
            "url": relative_url(call.get("url"), rules.base_urls.get(str(provider)) if provider
                                else _base_of(call.get("url"), rules.base_urls)),
            "body": _scrub(call.get("body"), rules),
        }
    return out


# Step names the runtime itself enters (queue_core: _children, _waits, poller, context), by prefix; "sleep" whole.
RUNTIME_STEPS = ("child:", "children:", "token:", "event:", "ctx:", "start-new:")


def _runtime_step(step: Any) -> bool:
    return isinstance(step, str) and (step == "sleep" or step.startswith(RUNTIME_STEPS))


def reduce_legacy(trace: LegacyTrace, rules: Rules) -> dict[str, Any]:
    """Return the canonical trace of a legacy run (see the module docstring)."""
    flat = rules.coercion is Coercion.ZAPIER
    fix: Callable[[Any], Any] = unflatten if flat else (lambda v: v)
    calls = [dict(c, body=fix(c.get("body"))) for c in trace.calls]
    return {
        "status": str(trace.status),
        "path": [step for step in trace.path if not _runtime_step(step)],
        "decisions": _scrub(fix(dict(trace.decisions)), rules),
        "calls": _calls(calls, rules),
        "outputs": _scrub(fix(dict(trace.outputs)), rules),
    }


def reduce_new(trace: Mapping[str, Any], rules: Rules) -> dict[str, Any]:
    """Return the canonical trace of a replayed run from its stored decision trace."""
    return {
        "status": str(trace.get("status") or "failed"),
        "path": [step for step in trace.get("path") or [] if not _runtime_step(step)],
        "decisions": _scrub(dict(trace.get("decisions") or {}), rules),
        "calls": _calls(list(trace.get("calls") or []), rules),
        "outputs": _scrub(dict(trace.get("outputs") or {}), rules),
    }


def align(legacy: dict[str, Any], new: dict[str, Any],
          evidence: Iterable[Evidence] = ALL_EVIDENCE) -> tuple[dict[str, Any], dict[str, Any]]:
    """Drop what the legacy export could not show from both canonical traces; return copies.

    ``evidence`` is the legacy trace's (:attr:`LegacyTrace.evidence`): a field outside it is
    removed from both sides (``status`` never is), so the diff compares only what both hold.
    """
    held = {str(e) for e in evidence} | {str(Evidence.STATUS)}
    left, right = _align_shared(legacy, new)
    return ({k: v for k, v in left.items() if k in held}, {k: v for k, v in right.items() if k in held})


def _align_shared(legacy: dict[str, Any], new: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    legacy_calls, new_calls = dict(legacy["calls"]), dict(new["calls"])
    for key, call in legacy["calls"].items():
        unknown = [f for f in CALL_FIELDS if call.get(f) is None]
        if not unknown:
            continue
        legacy_calls[key] = {f: v for f, v in call.items() if f not in unknown}
        if key in new_calls:
            new_calls[key] = {f: v for f, v in new_calls[key].items() if f not in unknown}
    shared = legacy["outputs"].keys() & new["outputs"].keys()
    return (
        dict(legacy, calls=legacy_calls, outputs={k: legacy["outputs"][k] for k in sorted(shared)}),
        dict(new, calls=new_calls, outputs={k: new["outputs"][k] for k in sorted(shared)}),
    )


def _as_number(value: Any) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return Decimal(str(value))
        except InvalidOperation:
            return None
    if isinstance(value, str) and _NUMBER.match(value.strip()):
        return Decimal(value.strip())
    return None


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def loosely_equal(legacy: Any, new: Any, coercion: Coercion) -> bool:
    """Return True when two scalars of different types mean the same under ``coercion``.

    Only values of *different* JSON types are coerced: a string against a boolean or a number,
    an empty string against null (Zapier and Make show a missing value as ""). Two strings, two
    numbers or two booleans are never loosened.
    """
    if coercion not in _LOOSE or type(legacy) is type(new):
        return False
    if isinstance(legacy, str) == isinstance(new, str):
        return False  # no string on either side: a real type change (e.g. 1 vs true)
    if (legacy == "" and new is None) or (new == "" and legacy is None):
        return coercion in (Coercion.ZAPIER, Coercion.MAKE)
    lb, nb = _as_bool(legacy), _as_bool(new)
    if isinstance(legacy, bool) or isinstance(new, bool):
        return lb is not None and lb == nb
    ln, nn = _as_number(legacy), _as_number(new)
    return ln is not None and nn is not None and ln == nn


def comparable(legacy: Any, new: Any, coercion: Coercion) -> bool:
    """Return True when ``coercion`` reads both scalars as the same kind (both booleans or both
    numbers), so their difference is one of value, not of type (``"false"`` against ``True``)."""
    if coercion not in _LOOSE:
        return False
    if _as_bool(legacy) is not None and _as_bool(new) is not None:
        return True
    return _as_number(legacy) is not None and _as_number(new) is not None


def equivalent(legacy: Any, new: Any, coercion: Coercion) -> bool:
    """Return True when two canonical values are equal, allowing ``coercion``'s loose typing."""
    if type(legacy) is type(new):
        if isinstance(legacy, dict):
            return legacy.keys() == new.keys() and all(equivalent(legacy[k], new[k], coercion) for k in legacy)
        if isinstance(legacy, list):
            return len(legacy) == len(new) and all(equivalent(a, b, coercion) for a, b in zip(legacy, new, strict=True))
        return bool(legacy == new)
    if isinstance(legacy, int | float) and isinstance(new, int | float) and not isinstance(legacy, bool) and not isinstance(new, bool):
        return bool(legacy == new)
    return loosely_equal(legacy, new, coercion)


def branch_value(value: Any, coercion: Coercion) -> str:
    """Return a branch label's value part: loose strings read as booleans/numbers where they are."""
    if coercion in _LOOSE and isinstance(value, str):
        as_bool = _as_bool(value)
        if as_bool is not None:
            return "true" if as_bool else "false"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def branches(trace: Mapping[str, Any], coercion: Coercion) -> list[str]:
    """Return the branches a canonical trace took: ``name=value`` per decision, ``status=filtered``.

    A decision whose value is a list of scalars (a Make router that ran several routes, an n8n
    node that sent items to several outputs) took each of them: one branch per distinct element.
    A trace aligned without ``decisions`` (not in the legacy export) has only ``status=filtered``.
    """
    out: list[str] = []
    for name, value in sorted(trace.get("decisions", {}).items()):
        if isinstance(value, list):
            taken = [branch_value(v, coercion) for v in value if not isinstance(v, dict | list)]
            out.extend(f"{name}={v}" for v in dict.fromkeys(taken))
        elif not isinstance(value, dict):
            out.append(f"{name}={branch_value(value, coercion)}")
    if trace["status"] == "filtered":
        out.append("status=filtered")
    return out
