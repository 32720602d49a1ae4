"""Make scenarios that poll: a scheduled Watch trigger whose run processes every bundle the poll found.

A Make scenario polls when its blueprint starts with a Watch trigger (``google-sheets:watchRows``,
``rss:TriggerWatchRSSFeedItems``: Make names its polling triggers so; ``gateway:CustomWebHook``
and ``gateway:CustomMailHook`` are instant) and the blueprint's ``metadata.instant`` or the log's
``instant`` says ``false`` (a Watch module of an app webhook is instant, and then says ``true``).
Nothing is guessed when neither says: the run stays a plain run.

A log proves that a poll ran (``timestamp``), not what it found: only a log with module bundles
(the custom exporter's ``modules[]``) shows the items, the trigger module's ``output`` bundles.
Each bundle becomes one trigger (``source = "poll"``, received at the poll, ``poll = {poller:
the scenario, at, item}``). A run of one bundle keeps its whole trace; a run of several cannot be
split (the modules' bundles do not say which cycle made them), so each item gets the run's status
alone when the run succeeded (every cycle then did), and no trace otherwise.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from harness.errors import ExportFormatError
from harness.importer._run import ImportedRun
from harness.platforms.make.definition import Blueprint
from harness.manifest import AutomationEntry
from harness.recording import POLL_SOURCE, Evidence, LegacyTrace, PollOrigin, RecordedTrigger, TraceStatus

INSTANT_MODULES = ("gateway:CustomWebHook", "gateway:CustomMailHook")
WATCH = re.compile(r"^(trigger)?watch", re.IGNORECASE)
SUCCESS = ("1", "success")


def polls(blueprint: Blueprint, log: Any) -> bool:
    """Return whether a log is a poll: a Watch trigger first, and the blueprint or log saying not instant."""
    first = blueprint.first
    if first is None or first in INSTANT_MODULES or not WATCH.match(first.split(":", 1)[-1]):
        return False
    said = [v for v in (blueprint.instant, log.get("instant") if isinstance(log, dict) else None) if isinstance(v, bool)]
    return bool(said) and not any(said)


def split_poll(run: ImportedRun, log: dict[str, Any], blueprint: Blueprint, entry: AutomationEntry, path: str) -> list[ImportedRun]:
    """Return one run per bundle the poll's trigger module output (the run itself when none is shown)."""
    modules = log.get("modules") or []
    bundles = modules[0].get("output") if modules else None
    if run.trigger is None or not isinstance(bundles, list):
        return [run]
    items = [b for b in bundles if isinstance(b, dict)]
    keys = _keys(items, entry, path, run.record)
    at = run.trigger.received_at
    poller = blueprint.name or (f"scenario {log['scenarioId']}" if log.get("scenarioId") else blueprint.first or "scenario")
    trace, warnings = (run.trace, run.warnings) if len(items) == 1 else _status_only(run, log, len(items))
    return [
        ImportedRun(f"{run.record}/{key}", RecordedTrigger(f"make-{run.record}-{key}", at, {}, body, POLL_SOURCE,
                                                           PollOrigin(poller, at, key)),
                    trace, None, warnings if index == 0 else (), run.record)
        for index, (key, body) in enumerate(zip(keys, items, strict=True))
    ]


def _keys(items: list[dict[str, Any]], entry: AutomationEntry, path: str, record: str) -> list[str]:
    fields = entry.items.key_path() if entry.items is not None else None
    keys: list[str] = []
    taken: set[str] = set()
    for index, bundle in enumerate(items):
        value: Any = bundle
        for part in fields or ():
            value = value.get(part) if isinstance(value, dict) else None
        if fields is None:
            value = index
        where = f"modules[0].output[{index}]" + (f".{'.'.join(fields)}" if fields else "")
        if isinstance(value, bool) or not isinstance(value, str | int) or value == "" or str(value) in taken:
            raise ExportFormatError(path, record, where, "the item key (manifest items.key) needs a unique string or integer here")
        taken.add(str(value))
        keys.append(str(value))
    return keys


def _status_only(run: ImportedRun, log: dict[str, Any], count: int) -> tuple[LegacyTrace | None, tuple[str, ...]]:
    said = f"log {run.record}: the poll found {count} bundles and Make's modules do not say which cycle ran what"
    trace = run.trace
    if trace is not None and trace.status is TraceStatus.SUCCEEDED and str(log.get("status", "")).lower() in SUCCESS:
        kept = replace(trace, path=[], decisions={}, calls=[], outputs={}, error=None, failed_step=None,
                       evidence=(Evidence.STATUS,))
        return kept, (*run.warnings, f"{said}: each item keeps the run's status only")
    return None, (*run.warnings, f"{said}, and the run did not succeed: its items are imported without a trace")
