"""Recognise a run export given to the wrong ``cutover import``, and the records that are not runs.

Each tool's importer reads its own run history; handed another tool's, it used to stop at the
first field it missed ("field 'data': expected an object, got an array"). ``refuse_foreign_runs``
looks at the document first and, when it is a run export of another tool — n8n executions,
Zapier zap runs, Make scenario logs, Power Automate / Logic Apps runs — or a record a tool keeps
beside its runs that holds no run (Make's incomplete executions, a Logic Apps action's
repetitions or request histories, trigger histories), says what the file is and which command
reads it. A document it does not recognise is left to the importer, whose errors name the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import ForeignExportError
from harness.importer._run import load_json_document
from harness.importer.definition import looks_like_json, unwrap
from harness.recording import Platform

__all__ = ["RunsKind", "recognise_runs", "refuse_foreign_runs"]


@dataclass(frozen=True)
class RunsKind:
    """What a run-history document is: its tool, its name, and for records that are not runs, what to do."""

    platform: Platform
    name: str
    not_runs: str = ""  # empty: it is runs, read by ``cutover import <platform>``


N8N_EXECUTIONS = RunsKind(Platform.N8N, "n8n executions (GET /api/v1/executions)")
ZAPIER_RUNS = RunsKind(Platform.ZAPIER, "Zapier zap runs (GET /v2/zap-runs)")
MAKE_LOGS = RunsKind(Platform.MAKE, "Make scenario logs (GET /scenarios/{id}/logs)")
MAKE_DLQ = RunsKind(Platform.MAKE, "Make incomplete executions (GET /dlqs?scenarioId=…)",
                    "each is a run Make stopped and keeps for a retry, without the run's modules; the same runs "
                    "are in the scenario logs (status 3, error): import those, cutover import make LOGS.json")
PA_RUNS = RunsKind(Platform.POWER_AUTOMATE, "Power Automate / Logic Apps run history (GET .../runs)")
PA_ACTIONS = RunsKind(Platform.POWER_AUTOMATE, "one Logic Apps run's action records (GET .../runs/{run}/actions)",
                      "they belong to one run: put them under that run's 'actions' key in the run history file")
PA_REPETITIONS = RunsKind(Platform.POWER_AUTOMATE,
                          "one Logic Apps action's repetitions (GET .../runs/{run}/actions/{action}/repetitions: "
                          "the iterations of a Foreach or Until)",
                          "they are iterations of one action in one run, not runs: put them under that action's "
                          "record as 'repetitions' in the run history file")
PA_REQUEST_HISTORIES = RunsKind(Platform.POWER_AUTOMATE,
                                "one Logic Apps HTTP action's request histories (GET .../actions/{action}/"
                                "requestHistories: the requests it sent and the responses)",
                                "they are the calls of one action in one run, not runs: import the run history "
                                "(GET .../runs, with each run's actions)")
PA_TRIGGER_HISTORIES = RunsKind(Platform.POWER_AUTOMATE,
                                "Logic Apps trigger histories (GET .../triggers/{name}/histories)",
                                "they link firings to runs but are not runs: import the run history (GET .../runs)")


def _records(document: Any) -> list[Any]:
    """Return the records of a page (``data``/``results``/``value`` list), a bare list, or the one record."""
    if isinstance(document, dict):
        for key in ("data", "results", "value"):
            if isinstance(document.get(key), list):
                return list(document[key])
        return [document]
    return list(document) if isinstance(document, list) else []


def _type_ends(record: dict[str, Any], *suffixes: str) -> bool:
    kind = str(record.get("type", "")).lower()
    return bool(kind) and kind.endswith(suffixes)


def _one(record: Any) -> RunsKind | None:
    if not isinstance(record, dict):
        return None
    props = record.get("properties")
    props = props if isinstance(props, dict) else {}
    if _type_ends(record, "/repetitions", "/scoperepetitions") or "repetitionIndexes" in props:
        return PA_REPETITIONS
    if _type_ends(record, "/requesthistories") or ("request" in props and "response" in props and "status" not in props):
        return PA_REQUEST_HISTORIES
    if _type_ends(record, "/triggers/histories") or ("fired" in props and isinstance(props.get("run"), dict)):
        return PA_TRIGGER_HISTORIES
    if _type_ends(record, "/runs/actions") or ("inputsLink" in props or "outputsLink" in props) and "trigger" not in props:
        return PA_ACTIONS
    if _type_ends(record, "/runs") or (props and "status" in props and ("trigger" in props or "correlation" in props)):
        return PA_RUNS
    if "zap_id" in record or "zap_title" in record:
        return ZAPIER_RUNS
    if "imtId" in record and "timestamp" in record:
        return MAKE_LOGS
    data = record.get("data")
    if isinstance(data, dict) and isinstance(data.get("resultData"), dict) or isinstance(record.get("resultData"), dict):
        return N8N_EXECUTIONS
    if {"finished", "mode", "startedAt"} <= set(record) or {"workflowId", "mode", "startedAt"} <= set(record):
        return N8N_EXECUTIONS
    return None


def recognise_runs(document: Any) -> RunsKind | None:
    """Return what a run-history document is, or ``None`` when it is not one these rules know."""
    document = unwrap(document)
    if isinstance(document, dict):
        if isinstance(document.get("scenarioLogs"), list) or isinstance(document.get("scenarioLog"), dict):
            return MAKE_LOGS
        if isinstance(document.get("dlqs"), list) or isinstance(document.get("dlq"), dict):
            return MAKE_DLQ
    records = [r for r in _records(document)[:20] if isinstance(r, dict)]
    kinds = {_one(r) for r in records}
    return kinds.pop() if len(kinds) == 1 else None


def refuse_foreign_runs(path: Path, platform: Platform) -> None:
    """Raise ForeignExportError when ``path`` is another tool's runs, or records of ``platform`` that hold no run."""
    if path.suffix.lower() in (".jsonl", ".csv") or not looks_like_json(path):
        return
    try:
        document = load_json_document(path)
    except Exception:  # noqa: BLE001 - an unreadable file is the importer's to report, with its line
        return
    kind = recognise_runs(document)
    if kind is None or (kind.platform is platform and not kind.not_runs):
        return
    if kind.not_runs:
        raise ForeignExportError(str(path), kind.platform, f"this is {kind.name}: {kind.not_runs}")
    raise ForeignExportError(
        str(path), kind.platform,
        f"this is {kind.name}, {_article(str(kind.platform))} {kind.platform} export, not {platform}'s: read it with "
        f"cutover import {kind.platform} {path.name} --automation NAME --into SET")


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" or word.startswith("n8n") else "a"
