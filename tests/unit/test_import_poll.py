"""Polled runs: one poll's items become one ``source = "poll"`` trigger each (n8n, Zapier, Make)."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from harness.errors import ExportFormatError
from harness.importer import ImportedRun
from harness.platforms.make import history as make
from harness.platforms.n8n import history as n8n
from harness.platforms.zapier import history as zapier
from harness.importer.pipeline import ImportRequest, import_export
from harness.manifest import AutomationEntry, Coercion, ItemSplit, load_manifest
from harness.recording import (
    Evidence, Platform, PollOrigin, TraceStatus, iter_pairs, iter_triggers, trigger_from_json, trigger_to_json,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "exports" / "n8n"
POLL = FIXTURES / "executions_poll.json"
POLL_AT = datetime(2024, 7, 2, 9, 0, tzinfo=UTC)


def _entry(platform: Platform, key: str | None = None) -> AutomationEntry:
    coercion = {Platform.N8N: Coercion.N8N, Platform.ZAPIER: Coercion.ZAPIER, Platform.MAKE: Coercion.MAKE}[platform]
    return AutomationEntry("handler", platform, coercion, items=ItemSplit(None, key) if key else None)


def _runs(found: Any) -> list[ImportedRun]:
    items = list(found)
    errors = [i for i in items if isinstance(i, ExportFormatError)]
    if errors:
        raise errors[0]
    return items


def _write(tmp_path: Path, document: Any, name: str = "export.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


def test_an_n8n_polling_trigger_execution_is_one_poll_trigger_per_item() -> None:
    runs = _runs(n8n.parse(POLL, _entry(Platform.N8N)))
    assert [r.trigger.id for r in runs if r.trigger] == ["n8n-9100-0", "n8n-9100-1", "n8n-9100-2"]
    for index, run in enumerate(runs):
        assert run.trigger is not None and run.trigger.source == "poll"
        assert run.trigger.received_at == POLL_AT  # the poll's instant (the node started 40 ms in), whole second
        assert run.trigger.poll == PollOrigin("New Rows", POLL_AT, str(index))
        assert run.trace is not None and run.trace.raw_run_id == "9100"
    assert runs[1].trigger is not None and runs[1].trigger.body["email"] == "bob@example.com"


def test_each_polled_item_has_the_trace_of_what_ran_for_it() -> None:
    runs = _runs(n8n.parse(POLL, _entry(Platform.N8N)))
    traces = [r.trace for r in runs]
    assert [(t.path, t.decisions) for t in traces if t] == [
        (["Is VIP?", "Welcome"], {"Is VIP?": "true"}), (["Is VIP?"], {"Is VIP?": "false"}),
        (["Is VIP?", "Welcome"], {"Is VIP?": "true"})]
    assert runs[2].trace is not None and runs[2].trace.outputs["Welcome"] == {"sent": "cy@example.com"}
    assert [len(t.calls) for t in traces if t] == [1, 0, 1]


def test_polled_items_are_keyed_by_the_manifest_item_field() -> None:
    runs = _runs(n8n.parse(POLL, _entry(Platform.N8N, "json:row_number")))
    assert [(r.trigger.id, r.trigger.poll.item) for r in runs if r.trigger and r.trigger.poll] == [
        ("n8n-9100-2", "2"), ("n8n-9100-3", "3"), ("n8n-9100-4", "4")]


def test_a_poll_trigger_round_trips_through_triggers_jsonl() -> None:
    trigger = _runs(n8n.parse(POLL, _entry(Platform.N8N)))[0].trigger
    assert trigger is not None
    assert trigger_from_json(trigger_to_json(trigger), "triggers.jsonl", 1) == trigger


def test_an_unfinished_poll_gives_its_triggers_and_no_traces(tmp_path: Path) -> None:
    document = json.loads(POLL.read_text())
    document["data"][0].update(status="running", finished=False)
    runs = _runs(n8n.parse(_write(tmp_path, document), _entry(Platform.N8N)))
    assert len(runs) == 3 and all(r.trace is None and r.trigger is not None for r in runs)


def test_a_trigger_without_poll_times_is_not_split(tmp_path: Path) -> None:
    document = json.loads(POLL.read_text())
    del document["data"][0]["workflowData"]["nodes"][0]["parameters"]["pollTimes"]
    runs = _runs(n8n.parse(_write(tmp_path, document), _entry(Platform.N8N)))
    assert len(runs) == 1 and runs[0].trigger is not None and runs[0].trigger.source == "n8n:execution/9100"


def test_a_node_joining_polled_items_is_in_no_items_trace_and_is_warned_about(tmp_path: Path) -> None:
    document = json.loads(POLL.read_text())
    run_data = document["data"][0]["data"]["resultData"]["runData"]
    run_data["Sum"] = [{"startTime": run_data["Welcome"][0]["startTime"] + 5, "executionIndex": 3, "source": [{"previousNode": "Welcome"}],
                        "executionStatus": "success", "data": {"main": [[{"json": {"sent": 2}, "pairedItem": [0, 1]}]]}}]
    runs = _runs(n8n.parse(_write(tmp_path, document), _entry(Platform.N8N)))
    assert all("Sum" not in r.trace.path for r in runs if r.trace)
    assert any("Sum joined several polled items" in w for w in runs[0].warnings)


def test_the_import_writes_poll_triggers_and_the_manifest_says_the_source_is_polled(tmp_path: Path) -> None:
    into = tmp_path / "set"
    import_export(ImportRequest(Platform.N8N, POLL, into, "handler", salt=b"test-salt"),
                  clock=lambda: datetime(2024, 7, 3, tzinfo=UTC))
    pairs = list(iter_pairs(into / "handler"))
    assert [(t.id, t.source, trace is not None) for t, trace in pairs] == [
        ("n8n-9100-0", "poll", True), ("n8n-9100-1", "poll", True), ("n8n-9100-2", "poll", True)]
    assert all(trace.trigger_id == t.id for t, trace in pairs if trace)
    (source,) = load_manifest(into / "manifest.toml").sources
    assert source.note is not None and source.note.startswith("poll-triggered: 3 items from 1 poll (")
    assert source.records == 1  # one execution, three polled items


def test_importing_the_same_polls_again_adds_no_trigger(tmp_path: Path) -> None:
    into = tmp_path / "set"
    for _ in range(2):
        import_export(ImportRequest(Platform.N8N, POLL, into, "handler", salt=b"test-salt"))
    assert [t.id for t in iter_triggers(into / "handler" / "triggers.jsonl")] == ["n8n-9100-0", "n8n-9100-1", "n8n-9100-2"]


def test_a_fan_out_node_inside_a_polled_execution_is_warned_about_not_applied() -> None:
    entry = AutomationEntry("handler", Platform.N8N, Coercion.N8N, items=ItemSplit("Is VIP?"))
    runs = _runs(n8n.parse(POLL, entry))
    assert len(runs) == 3 and all(r.trace is not None and r.trace.items == [] for r in runs)
    assert any("items.from 'Is VIP?' is not applied" in w for w in runs[0].warnings)


def test_a_redacted_item_key_is_pseudonymised_in_the_trigger_id_and_the_poll(tmp_path: Path) -> None:
    into = tmp_path / "set"
    into.mkdir()
    (into / "manifest.toml").write_text(
        'format = 1\nname = "set"\n[redaction]\njson_paths = ["email"]\n'
        '[automations.handler]\nplatform = "n8n"\n[automations.handler.items]\nkey = "json:email"\n')
    import_export(ImportRequest(Platform.N8N, POLL, into, "handler", salt=b"test-salt"))
    text = (into / "handler" / "triggers.jsonl").read_text()
    assert "ada@example.com" not in text
    trigger = next(iter_triggers(into / "handler" / "triggers.jsonl"))
    assert trigger.poll is not None and trigger.poll.item.startswith("redacted:")
    assert trigger.id == f"n8n-9100-{trigger.poll.item}"


# Zapier: the zap-runs API with a GET /v2/zaps?expand=steps.action page as the definition.
def _zaps(is_instant: bool | None, app: str = "Google Sheets") -> dict[str, Any]:
    action: Any = {"id": "uag:1", "key": "new_row", "type": "action", "action_type": "READ", "title": "New Row",
                   "description": "Triggers on a new row", "app": {"id": "9", "title": app}}
    if is_instant is None:
        action = "uag:1"
    else:
        action["is_instant"] = is_instant
    steps = [{"action": action, "inputs": {}, "authentication": None, "title": None},
             {"action": "uag:2", "inputs": {}, "authentication": None, "title": "Send"}]
    return {"data": [{"type": "zap", "id": "z-7", "title": "Rows to CRM", "steps": steps}], "meta": {}, "links": {}}


ZAP_RUNS = {"data": [
    {"id": "run-1", "zap_id": "z-7", "status": "success", "start_time": "2024-07-02T09:00:03Z",
     "end_time": "2024-07-02T09:00:04Z", "zap_title": "Rows to CRM", "steps": [{"status": "success"}, {"status": "success"}],
     "data_in": {"id": 41, "email": "ada@example.com"}, "data_out": ""},
    {"id": "run-2", "zap_id": "z-7", "status": "success", "start_time": "2024-07-02T09:00:05Z",
     "end_time": "2024-07-02T09:00:06Z", "zap_title": "Rows to CRM", "steps": [{"status": "success"}, {"status": "success"}],
     "data_in": {"email": "bob@example.com"}, "data_out": ""},
]}


def test_a_zapier_run_of_a_polling_trigger_is_a_poll_item(tmp_path: Path) -> None:
    runs = _runs(zapier.parse(_write(tmp_path, ZAP_RUNS), _entry(Platform.ZAPIER), _zaps(is_instant=False)))
    polls = [r.trigger.poll for r in runs if r.trigger]
    assert [r.trigger.source for r in runs if r.trigger] == ["poll", "poll"]
    assert polls == [PollOrigin("Rows to CRM", datetime(2024, 7, 2, 9, 0, 3, tzinfo=UTC), "41"),
                     PollOrigin("Rows to CRM", datetime(2024, 7, 2, 9, 0, 5, tzinfo=UTC), "run-2")]  # no id: the run's


@pytest.mark.parametrize(("is_instant", "app"), [(True, "Google Sheets"), (None, "Google Sheets"), (False, "Schedule by Zapier")])
def test_a_zapier_trigger_that_is_instant_unknown_or_a_schedule_is_no_poll(tmp_path: Path, is_instant: bool | None, app: str) -> None:
    runs = _runs(zapier.parse(_write(tmp_path, ZAP_RUNS), _entry(Platform.ZAPIER), _zaps(is_instant, app)))
    assert [r.trigger.source for r in runs if r.trigger] == ["zapier:zap-run/run-1", "zapier:zap-run/run-2"]
    assert all(r.trigger.poll is None for r in runs if r.trigger)


def test_a_zapier_polled_item_is_keyed_by_the_manifest_field(tmp_path: Path) -> None:
    runs = _runs(zapier.parse(_write(tmp_path, ZAP_RUNS), _entry(Platform.ZAPIER, "json:email"), _zaps(is_instant=False)))
    assert [r.trigger.poll.item for r in runs if r.trigger and r.trigger.poll] == ["ada@example.com", "bob@example.com"]


# Make: a blueprint starting with a Watch trigger on a schedule, logs with module bundles.
BLUEPRINT: dict[str, Any] = {"name": "Rows to CRM", "flow": [
    {"id": 1, "module": "google-sheets:watchRows", "metadata": {"designer": {"name": "Watch rows"}}},
    {"id": 2, "module": "hubspotcrm:createContact", "metadata": {"designer": {"name": "Create contact"}}},
], "metadata": {"instant": False}}


def _log(ident: str, status: int, bundles: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": ident, "imtId": f"1719910800000_scenario.5.auto.{ident}", "status": status, "instant": False,
            "type": "auto", "timestamp": "2024-07-02T09:00:00.000Z", "duration": 900, "scenarioId": 5,
            "modules": [{"id": 1, "status": "success", "output": bundles},
                        {"id": 2, "status": "success", "input": bundles, "output": [{"ok": True}] * len(bundles)}]}


def test_a_make_poll_of_one_bundle_is_a_poll_item_with_the_whole_trace(tmp_path: Path) -> None:
    export = _write(tmp_path, {"scenarioLogs": [_log("e1", 1, [{"row": 7, "email": "ada@example.com"}])]})
    (run,) = _runs(make.parse(export, _entry(Platform.MAKE), BLUEPRINT))
    assert run.trigger is not None and run.trigger.source == "poll"
    assert run.trigger.poll == PollOrigin("Rows to CRM", datetime(2024, 7, 2, 9, 0, tzinfo=UTC), "0")
    assert run.trace is not None and run.trace.path == ["Create contact"]


def test_a_make_poll_of_several_bundles_gives_each_the_status_only(tmp_path: Path) -> None:
    bundles = [{"row": 7}, {"row": 8}]
    export = _write(tmp_path, {"scenarioLogs": [_log("e2", 1, bundles), _log("e3", 3, bundles)]})
    runs = _runs(make.parse(export, _entry(Platform.MAKE, "json:row"), BLUEPRINT))
    assert [r.trigger.id for r in runs if r.trigger] == ["make-e2-7", "make-e2-8", "make-e3-7", "make-e3-8"]
    assert [(r.trace.status, r.trace.evidence, r.trace.path) for r in runs[:2] if r.trace] == [
        (TraceStatus.SUCCEEDED, (Evidence.STATUS,), [])] * 2
    assert [r.trace for r in runs[2:]] == [None, None]  # a failed run: which cycle failed is unknown
    assert "did not succeed" in runs[2].warnings[-1]


def test_a_make_scenario_that_is_instant_or_does_not_say_is_no_poll(tmp_path: Path) -> None:
    export = _write(tmp_path, {"scenarioLogs": [_log("e4", 1, [{"row": 7}])]})
    instant = copy.deepcopy(BLUEPRINT)
    instant["metadata"]["instant"] = True
    silent = copy.deepcopy(BLUEPRINT)
    del silent["metadata"]
    for blueprint, log_instant in ((instant, False), (silent, None)):
        document = json.loads(export.read_text())
        document["scenarioLogs"][0]["instant"] = log_instant
        (run,) = _runs(make.parse(_write(tmp_path, document, "other.json"), _entry(Platform.MAKE), blueprint))
        assert run.trigger is not None and run.trigger.source == "make:execution/e4" and run.trigger.poll is None


def test_a_make_poll_whose_item_key_repeats_is_an_error_naming_the_bundle(tmp_path: Path) -> None:
    export = _write(tmp_path, {"scenarioLogs": [_log("e5", 1, [{"row": 7}, {"row": 7}])]})
    with pytest.raises(ExportFormatError, match="unique string or integer") as caught:
        _runs(make.parse(export, _entry(Platform.MAKE, "json:row"), BLUEPRINT))
    assert (caught.value.record, caught.value.field) == ("e5", "modules[0].output[1].row")
