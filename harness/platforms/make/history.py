"""Import Make (Integromat) scenario logs, with execution details and the scenario's blueprint.

Documents: ``GET /scenarios/{id}/logs`` (``{"scenarioLogs": [log, ...], "pg": ...}``), one log
(``{"scenarioLog": log}``), a bare list of logs, or an API example wrapper around either. A log
is a summary: ``imtId``, ``id``, ``status`` (1 success, 2 warning, 3 error, 0 pending; or the
words), ``duration`` (ms), ``operations``, ``centicredits``, ``transfer``, ``type``,
``authorId``, ``instant``, ``timestamp``. An execution's detail
(``GET /scenarios/{id}/executions/{executionId}``: ``status``, the scenario's declared
``outputs``, ``error{name, message, causeModule}``) can sit under a log's ``execution`` key or in a
top-level ``executions`` object keyed by execution id: it names the error and the failing module.

Make exports no module bundles for finished runs, so a log proves its status (and error) only,
and gives no trigger: record the webhook deliveries with ``cutover record`` and the import pairs
each log with one by time. Logs that carry ``modules`` (``id``, ``status``, ``input``/``output``
bundles) — the form a custom exporter writes — give the trigger (the first module's first
bundle), the path, router decisions (the route whose first module ran, named by its filter),
calls and outputs; the blueprint (``--definition``) names modules, routes and filters. A
scenario that polls (a Watch trigger, not instant) gives one poll trigger per bundle its trigger
module output (:mod:`harness.platforms.make.poll`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from harness._field import type_name
from harness.errors import ExportFormatError
from harness.importer._run import (
    ImportedRun, decision, flat, guarded, load_json_document, split_url, status_word, step_name, timestamp_or_none,
)
from harness.importer.definition import unwrap
from harness.importer.pairing import delivery_id
from harness.platforms.make.definition import Blueprint, Module, read_blueprint, route_value
from harness.platforms.make.poll import polls, split_poll
from harness.manifest import AutomationEntry
from harness.recording import Evidence, LegacyTrace, Platform, RecordedTrigger, TraceStatus

STATUSES = {"1": TraceStatus.SUCCEEDED, "2": TraceStatus.SUCCEEDED, "3": TraceStatus.FAILED,
            "success": TraceStatus.SUCCEEDED, "warning": TraceStatus.SUCCEEDED, "error": TraceStatus.FAILED}
UNFINISHED = {"0", "pending", "running", "waiting"}
NOT_LOGS = {
    "dlq": "one incomplete execution (GET /dlqs/{id})",
    "scenariosBlueprints": "a list of blueprint versions (GET /scenarios/{id}/blueprints)",
    "executionId": "the response to starting a run (POST /scenarios/{id}/run)",
}
ROUTER = "builtin:BasicRouter"
HTTP_MODULES = ("http:ActionSendData", "http:ActionSendDataBasicAuth", "http:MakeRequest")  # MakeRequest: v4


def parse(path: Path, entry: AutomationEntry, definition: Any = None) -> Iterator[ImportedRun | ExportFormatError]:
    """Yield one imported run (or the error of a malformed one) per scenario log.

    ``definition`` is the scenario's blueprint (``GET /scenarios/{id}/blueprint``'s body or the
    exported file); without it a blueprint inside the document is used.
    """
    document = unwrap(load_json_document(path))
    logs = _logs(document, str(path))
    raw = definition if definition is not None else (document.get("blueprint") if isinstance(document, dict) else None)
    blueprint = read_blueprint(raw)
    details = document.get("executions") if isinstance(document, dict) and isinstance(document.get("executions"), dict) else {}
    records = [(_record_id(log, index), log) for index, log in enumerate(logs)]
    return flat(guarded(records, str(path), lambda log, record: _log_runs(log, blueprint, entry, str(path), record, details)))


def _log_runs(log: Any, blueprint: Blueprint, entry: AutomationEntry, path: str, record: str,
              details: dict[str, Any] | None) -> list[ImportedRun]:
    run = parse_log(log, blueprint, entry, path, record, details)
    return split_poll(run, log, blueprint, entry, path) if polls(blueprint, log) else [run]


def _logs(document: Any, path: str) -> list[Any]:
    if isinstance(document, dict) and isinstance(document.get("scenarioLog"), dict):
        return [document["scenarioLog"]]
    if isinstance(document, dict) and "dlqs" in document:
        raise ExportFormatError(path, None, "dlqs", "this lists incomplete executions (GET /dlqs), not scenario logs: "
                                "import GET /scenarios/{id}/logs")
    if isinstance(document, dict) and "outputs" in document and "scenarioLogs" not in document:
        raise ExportFormatError(path, None, None, "this is one execution's detail (GET /scenarios/{id}/executions/{id}): "
                                "import the scenario logs and put each detail under its log's 'execution' key")
    response = document.get("response") if isinstance(document, dict) else None
    if isinstance(response, dict) and response and all(str(k).isdigit() for k in response):
        raise ExportFormatError(path, None, "response", "this is the bundle of an incomplete execution (GET /dlqs/{id}/bundle), "
                                "not scenario logs: import GET /scenarios/{id}/logs")
    for key, what in NOT_LOGS.items():
        if isinstance(document, dict) and key in document and "scenarioLogs" not in document:
            raise ExportFormatError(path, None, key, f"this is {what}, not scenario logs: import GET /scenarios/{{id}}/logs")
    logs = document.get("scenarioLogs") if isinstance(document, dict) else document
    if not isinstance(logs, list):
        raise ExportFormatError(path, None, "scenarioLogs", f"expected an array, got {type_name(logs)}")
    return logs


def _record_id(log: Any, index: int) -> str:
    if isinstance(log, dict):
        for key in ("executionId", "id", "imtId"):
            if isinstance(log.get(key), str | int) and not isinstance(log.get(key), bool) and log.get(key):
                return str(log[key])
    return f"#{index + 1}"


def outcome(raw: Any, path: str, record: str) -> tuple[TraceStatus | None, str | None]:
    """Map a log status (1/2/3, 0 pending, or the words) to a trace status and a warning when unknown."""
    word = status_word(raw)
    if word is None:
        raise ExportFormatError(path, record, "status", f"expected 1, 2, 3 or success/warning/error, got {type_name(raw)}")
    if word in STATUSES:
        return STATUSES[word], None
    if word in UNFINISHED:
        return None, None
    return None, f"log {record}: unknown status {raw!r}, imported as unfinished (no trace)"


def parse_log(
    log: Any, blueprint: Blueprint, entry: AutomationEntry, path: str, record: str, details: dict[str, Any] | None = None,
) -> ImportedRun:
    """Turn one scenario log into a legacy trace (and a trigger when details are present)."""
    if not isinstance(log, dict):
        raise ExportFormatError(path, record, None, f"expected a log object, got {type_name(log)}")
    status, warning = outcome(log.get("status"), path, record)
    started = timestamp_or_none(log.get("timestamp"))
    if started is None:
        raise ExportFormatError(path, record, "timestamp", "expected an ISO 8601 timestamp with offset")
    modules = log.get("modules") or []
    if not isinstance(modules, list) or not all(isinstance(m, dict) for m in modules):
        raise ExportFormatError(path, record, "modules", "expected an array of module objects")
    trigger = _trigger(modules, started, record)
    found = delivery_id(trigger) if trigger else log.get("deliveryId") if isinstance(log.get("deliveryId"), str) else None
    warnings = (warning,) if warning else ()
    if status is None:
        return ImportedRun(record, trigger, None, found, warnings)
    trace = _trace(log, modules[1:] if trigger else modules, blueprint, status, entry, record)
    if not modules:
        detail = log.get("execution") or log.get("detail") or (details or {}).get(record)
        trace = _with_detail(replace(trace, evidence=(Evidence.STATUS,)), detail, blueprint, entry)
    duration = log.get("duration")
    if isinstance(duration, int | float) and not isinstance(duration, bool) and 0 <= duration < 1e12:
        trace = _with_finish(trace, started + timedelta(milliseconds=duration))
    return ImportedRun(record, trigger, trace, found, warnings)


def _with_detail(trace: LegacyTrace, detail: Any, blueprint: Blueprint, entry: AutomationEntry) -> LegacyTrace:
    """Add an execution detail's error (name, message, module) to a status-only trace."""
    if not isinstance(detail, dict) or not isinstance(detail.get("error"), dict):
        return trace
    error = detail["error"]
    cause = error.get("causeModule") if isinstance(error.get("causeModule"), dict) else {}
    module = cause.get("name")
    label = str(module) if module else None
    named = next((i for i, m in blueprint.logged.items() if m.label == label), None) if label else None
    message = f"{error.get('name') or 'Error'}: {error.get('message') or 'execution failed'}"
    failed = _name(named, blueprint, entry) if named is not None else label
    return replace(trace, error=f"{label}: {message}" if label else message, failed_step=failed)


def _with_finish(trace: LegacyTrace, finished: Any) -> LegacyTrace:
    return replace(trace, finished_at=finished)


def _trigger(modules: list[dict[str, Any]], started: Any, record: str) -> RecordedTrigger | None:
    if not modules:
        return None
    bundles = modules[0].get("output") or []
    body = bundles[0] if isinstance(bundles, list) and bundles and isinstance(bundles[0], dict) else None
    if body is None:
        return None
    trigger = RecordedTrigger(f"make-{record}", started, {}, body, f"make:execution/{record}")
    found = delivery_id(trigger)
    return trigger if found is None else RecordedTrigger(found, started, {}, body, trigger.source)


def _trace(
    log: dict[str, Any], modules: list[dict[str, Any]], blueprint: Blueprint,
    status: TraceStatus, entry: AutomationEntry, record: str,
) -> LegacyTrace:
    ran = [_ident(m) for m in modules]
    path, outputs, calls = _steps(modules, blueprint, entry)
    decisions = _decisions(ran, blueprint, entry)
    if status is TraceStatus.SUCCEEDED and modules and _stopped_at_filter(ran, blueprint):
        status = TraceStatus.FILTERED
    error, failed = _error(modules, blueprint, entry, log)
    return LegacyTrace(
        trigger_id="", status=status, platform=Platform.MAKE, path=path, decisions=decisions, calls=calls,
        outputs=outputs, error=error, failed_step=failed, raw_run_id=record,
        workflow=str(log["scenarioId"]) if log.get("scenarioId") else None,
        started_at=timestamp_or_none(log.get("timestamp")),
    )


def _ident(module: dict[str, Any]) -> int:
    ident = module.get("id")
    return ident if isinstance(ident, int) and not isinstance(ident, bool) else 0


def _label(ident: int, blueprint: Blueprint) -> str:
    module = blueprint.logged.get(ident)
    return module.label if module is not None else f"module#{ident}"


def _app(ident: int, blueprint: Blueprint) -> str:
    module = blueprint.logged.get(ident)
    return module.app if module is not None else ""


def _name(ident: int, blueprint: Blueprint, entry: AutomationEntry) -> str | None:
    label = _label(ident, blueprint)
    return step_name(entry, label, str(ident))


def _steps(modules: list[dict[str, Any]], blueprint: Blueprint, entry: AutomationEntry) -> tuple[list[str], dict[str, Any], list[dict[str, Any]]]:
    path: list[str] = []
    outputs: dict[str, Any] = {}
    calls: list[dict[str, Any]] = []
    for module in modules:
        ident = _ident(module)
        name = _name(ident, blueprint, entry)
        if name is None or _app(ident, blueprint) == ROUTER:
            continue
        path.append(name)
        bundles = module.get("output") or []
        outputs[name] = bundles[0] if isinstance(bundles, list) and len(bundles) == 1 else bundles
        call = _call(module, name, blueprint, entry)
        if call is not None:
            calls.append(call)
    return path, outputs, calls


def _call(module: dict[str, Any], name: str, blueprint: Blueprint, entry: AutomationEntry) -> dict[str, Any] | None:
    ident = _ident(module)
    app = _app(ident, blueprint)
    if not app or app.startswith(("builtin:", "gateway:", "util:", "json:", "regexp:")):
        return None  # no call: the new side's module makes none (a Text parser runs in the job)
    known = blueprint.logged.get(ident)
    mapper = known.mapper if known is not None else {}
    if app in HTTP_MODULES:
        raw = str(mapper.get("url", ""))
        if "{{" in raw:  # mapped from a bundle: the log does not show what it became
            return {"step": name, "provider": _host_provider(entry, raw), "method": _method(mapper), "url": None,
                    "body": module.get("input")}
        provider, url = split_url(entry, raw)
        return {"step": name, "provider": provider, "method": _method(mapper), "url": url, "body": module.get("input")}
    prefix = app.split(":", 1)[0]
    return {"step": name, "provider": entry.providers.get(prefix, prefix), "method": None, "url": None,
            "body": module.get("input")}


def _method(mapper: dict[str, Any]) -> str:
    return str(mapper.get("method") or "GET").upper()


def _host_provider(entry: AutomationEntry, url: str) -> str | None:
    """The provider of a URL whose path is mapped (``https://api.x.test/{{1.id}}``), from its literal host."""
    head = url.split("{{", 1)[0]
    if "://" not in head or "/" not in head.split("://", 1)[1]:
        return None  # the host itself is mapped
    return split_url(entry, head)[0]


def _firsts(router: Module) -> list[int | None]:
    """Return the id of each route's first module (``None`` for an empty route)."""
    return [route[0].id if route else None for route in router.routes]


def _decisions(ran: list[Any], blueprint: Blueprint, entry: AutomationEntry) -> dict[str, Any]:
    decisions: dict[str, Any] = {}
    for ident, router in blueprint.logged.items():
        if not router.routes or ident not in ran:
            continue
        taken = [i for i, first in enumerate(_firsts(router)) if first in ran]
        values = [route_value(router.routes[i], i) for i in taken]
        if values:
            name, value = decision(entry, router.label, values[0] if len(values) == 1 else values)
            decisions[name] = value
    return decisions


def _stopped_at_filter(ran: list[Any], blueprint: Blueprint) -> bool:
    last = blueprint.logged.get(ran[-1])
    return last is not None and bool(last.routes) and not any(f in ran for f in _firsts(last))


def _error(modules: list[dict[str, Any]], blueprint: Blueprint, entry: AutomationEntry, log: dict[str, Any]) -> tuple[str | None, str | None]:
    for module in modules:
        if str(module.get("status", "")).lower() == "error" or module.get("error"):
            ident = _ident(module)
            label = _label(ident, blueprint)
            return f"{label}: {module.get('error') or 'module failed'}", _name(ident, blueprint, entry)
    message = log.get("error")
    return (str(message), None) if message else (None, None)
