"""n8n runs started by a Schedule Trigger or Cron node: the trigger is a tick, received at the tick."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness.importer import ImportedRun
from harness.platforms.n8n.history import parse
from harness.importer.pipeline import ImportRequest, import_export
from harness.manifest import AutomationEntry, Coercion, load_manifest
from harness.recording import Platform, iter_triggers

ENTRY = AutomationEntry("digest", Platform.N8N, Coercion.N8N)
# 2024-06-17 08:00 in Europe/Berlin (06:00Z), fired 7 ms late, as n8n's Schedule Trigger emits it.
TICK_ITEM = {"timestamp": "2024-06-17T08:00:00.007+02:00", "Readable date": "June 17th 2024, 8:00:00 am",
             "Readable time": "8:00:00 am", "Day of week": "Monday", "Year": "2024", "Month": "June",
             "Day of month": "17", "Hour": "08", "Minute": "00", "Second": "00", "Timezone": "Europe/Berlin (UTC+02:00)"}
FIRED_MS = 1_718_604_000_007  # 2024-06-17T06:00:00.007Z


def _execution(ident: int, node_type: str, item: dict[str, Any], started: str = "2024-06-17T06:00:00.009Z") -> dict[str, Any]:
    run_data = {
        "Tick": [{"startTime": FIRED_MS, "executionIndex": 0, "executionTime": 1, "source": [],
                  "executionStatus": "success", "data": {"main": [[{"json": item, "pairedItem": {"item": 0}}]]}}],
        "Fetch": [{"startTime": FIRED_MS + 3, "executionIndex": 1, "executionTime": 80, "source": [{"previousNode": "Tick"}],
                   "executionStatus": "success", "data": {"main": [[{"json": {"total": 3}}]]}}],
    }
    workflow = {"id": "12", "name": "Digest", "nodes": [
        {"name": "Tick", "type": node_type, "typeVersion": 1.2, "parameters": {}, "position": [0, 0]},
        {"name": "Fetch", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "position": [200, 0],
         "parameters": {"method": "GET", "url": "https://api.example.com/count"}}], "connections": {}}
    return {"id": ident, "finished": True, "mode": "trigger", "status": "success", "startedAt": started,
            "stoppedAt": "2024-06-17T06:00:00.120Z", "workflowId": "12",
            "data": {"resultData": {"runData": run_data}}, "workflowData": workflow}


def _write(path: Path, executions: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"data": executions, "nextCursor": None}))
    return path


def _runs(path: Path) -> list[ImportedRun]:
    return [item for item in parse(path, ENTRY) if isinstance(item, ImportedRun)]


def test_a_schedule_trigger_run_is_a_schedule_tick_received_at_the_tick(tmp_path: Path) -> None:
    run = _runs(_write(tmp_path / "x.json", [_execution(7, "n8n-nodes-base.scheduleTrigger", TICK_ITEM)]))[0]
    assert run.trigger is not None and run.trace is not None
    assert run.trigger.source == "schedule"
    assert run.trigger.received_at == datetime(2024, 6, 17, 6, 0, tzinfo=UTC)  # the tick, not the firing 7 ms later
    assert run.trigger.body == TICK_ITEM and run.trigger.headers == {}
    assert run.trace.path == ["Fetch"] and run.trace.raw_run_id == "7"


def test_the_tick_comes_from_the_items_timestamp_even_when_the_node_started_later(tmp_path: Path) -> None:
    late = dict(TICK_ITEM, timestamp="2024-06-17T08:00:00.999+02:00")
    run = _runs(_write(tmp_path / "x.json", [_execution(8, "n8n-nodes-base.scheduleTrigger", late)]))[0]
    assert run.trigger is not None and run.trigger.received_at == datetime(2024, 6, 17, 6, 0, tzinfo=UTC)


def test_a_cron_node_emits_an_empty_item_so_its_start_dates_the_tick(tmp_path: Path) -> None:
    run = _runs(_write(tmp_path / "x.json", [_execution(9, "n8n-nodes-base.cron", {})]))[0]
    assert run.trigger is not None and run.trigger.source == "schedule"
    assert run.trigger.received_at == datetime(2024, 6, 17, 6, 0, tzinfo=UTC) and run.trigger.body == {}


def test_a_webhook_run_is_no_schedule_tick(tmp_path: Path) -> None:
    item = {"headers": {"x-request-id": "r-1"}, "body": {"n": 1}}
    run = _runs(_write(tmp_path / "x.json", [_execution(10, "n8n-nodes-base.webhook", item)]))[0]
    assert run.trigger is not None and run.trigger.source == "n8n:execution/10" and run.trigger.id == "r-1"
    assert run.trigger.received_at == datetime(2024, 6, 17, 6, 0, 0, 7000, tzinfo=UTC)


def test_the_import_writes_schedule_triggers_and_the_manifest_says_the_source_is_scheduled(tmp_path: Path) -> None:
    second = _execution(11, "n8n-nodes-base.scheduleTrigger", dict(TICK_ITEM, timestamp="2024-06-17T09:00:00.004+02:00",
                                                                     Hour="09"), started="2024-06-17T07:00:00.006Z")
    export = _write(tmp_path / "executions.json", [second, _execution(7, "n8n-nodes-base.scheduleTrigger", TICK_ITEM)])
    into = tmp_path / "set"
    import_export(ImportRequest(Platform.N8N, export, into, "digest", salt=b"test-salt"),
                  clock=lambda: datetime(2024, 7, 1, tzinfo=UTC))
    triggers = list(iter_triggers(into / "digest" / "triggers.jsonl"))
    assert [(t.source, t.received_at.hour) for t in triggers] == [("schedule", 6), ("schedule", 7)]
    (source,) = load_manifest(into / "manifest.toml").sources
    assert source.note is not None and source.note.startswith("schedule-triggered: 2 runs")
