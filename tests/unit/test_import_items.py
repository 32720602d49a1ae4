"""n8n runs over many items, imported item by item along their pairedItem lineage."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from harness.errors import ExportFormatError, ManifestError
from harness.importer import ImportedRun
from harness.platforms.n8n.history import parse
from harness.platforms.n8n.lineage import trace_lineage
from harness.importer.pipeline import ImportRequest, import_export
from harness.manifest import AutomationEntry, Coercion, ItemSplit, manifest_from_dict, manifest_to_dict
from harness.recording import Platform, TraceStatus, trace_from_json, trace_to_json

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "exports" / "n8n" / "executions_fan_out.json"
BY_ID = AutomationEntry("orders", Platform.N8N, Coercion.N8N, items=ItemSplit("Split Out", "json:id"))
BY_INDEX = AutomationEntry("orders", Platform.N8N, Coercion.N8N, items=ItemSplit("Split Out"))
PLAIN = AutomationEntry("orders", Platform.N8N, Coercion.N8N)


def _document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(FIXTURE.read_text())
    return document


def _write(tmp_path: Path, document: dict[str, Any]) -> Path:
    path = tmp_path / "executions.json"
    path.write_text(json.dumps(document))
    return path


def _runs(path: Path, entry: AutomationEntry) -> list[ImportedRun]:
    found = list(parse(path, entry))
    errors = [item for item in found if isinstance(item, ExportFormatError)]
    if errors:
        raise errors[0]
    return [item for item in found if isinstance(item, ImportedRun)]


def _run_data(document: dict[str, Any], execution: int = 0) -> dict[str, Any]:
    data: dict[str, Any] = document["data"][execution]["data"]["resultData"]["runData"]
    return data


def test_an_if_that_sends_items_to_both_outputs_gives_each_item_its_own_decision() -> None:
    trace = _runs(FIXTURE, BY_ID)[0].trace
    assert trace is not None
    assert [(i.key, i.decisions) for i in trace.items] == [
        ("o-1", {"Is large?": "true"}), ("o-2", {"Is large?": "false"}), ("o-3", {"Is large?": "true"})]
    assert "Is large?" not in trace.decisions  # the parent made no decision there: the items did


def test_each_item_has_the_path_calls_and_outputs_of_the_nodes_that_processed_it() -> None:
    trace = _runs(FIXTURE, BY_ID)[0].trace
    assert trace is not None
    large = trace.items[2]
    assert large.path == ["Is large?", "Notify sales"]
    assert large.outputs["Notify sales"] == {"ok": True, "id": "o-3"}
    assert [(c["method"], c["url"], c["body"]) for c in large.calls] == [
        ("POST", "https://api.example.com/notify", {"kind": "large-order"})]
    assert trace.items[1].calls == []


def test_a_filter_that_drops_one_item_marks_that_item_filtered_and_no_other() -> None:
    trace = _runs(FIXTURE, BY_ID)[0].trace
    assert trace is not None
    assert [i.status for i in trace.items] == [TraceStatus.SUCCEEDED, TraceStatus.FILTERED, TraceStatus.SUCCEEDED]
    assert trace.items[1].path == ["Is large?", "Paid?"] and trace.items[1].outputs["Paid?"] == []
    assert trace.status is TraceStatus.SUCCEEDED


def test_the_parent_keeps_the_nodes_up_to_the_fan_out_and_a_node_that_joins_items() -> None:
    trace = _runs(FIXTURE, BY_ID)[0].trace
    assert trace is not None
    assert trace.path == ["Split Out", "Count"]  # Count aggregates both notified items: no single item owns it
    assert trace.outputs["Count"] == {"notified": 2}


def test_items_are_keyed_by_index_by_default_and_by_an_item_field_when_the_manifest_says() -> None:
    by_index, by_id = _runs(FIXTURE, BY_INDEX)[0].trace, _runs(FIXTURE, BY_ID)[0].trace
    assert by_index is not None and by_id is not None
    assert [i.key for i in by_index.items] == ["0", "1", "2"]
    assert [i.key for i in by_id.items] == ["o-1", "o-2", "o-3"]


def test_a_node_failing_on_one_item_fails_the_items_it_held_and_not_the_parent() -> None:
    trace = _runs(FIXTURE, BY_ID)[1].trace
    assert trace is not None
    assert trace.status is TraceStatus.SUCCEEDED and trace.error is None
    failed = {i.key: (i.status, i.error, i.failed_step) for i in trace.items}
    assert failed["o-5"] == (TraceStatus.FAILED, "Notify sales: 502 Bad Gateway", "Notify sales")
    assert failed["o-4"][0] is TraceStatus.FAILED
    assert failed["o-4"][1] == "Notify sales: the node failed on item 'o-5' (502 Bad Gateway)"


def test_without_the_items_option_an_execution_imports_as_one_trace_without_items() -> None:
    trace = _runs(FIXTURE, PLAIN)[0].trace
    assert trace is not None
    record = trace_to_json(trace)
    assert "items" not in record
    assert record["path"] == ["Split Out", "Is large?", "Notify sales", "Paid?", "Count"]
    assert record["decisions"] == {"Is large?": ["true", "false"]}


def test_item_traces_survive_the_legacy_jsonl_round_trip() -> None:
    trace = _runs(FIXTURE, BY_ID)[0].trace
    assert trace is not None
    record = dict(trace_to_json(trace), trigger_id="req-9001")  # the id pairing gives it
    again = trace_from_json(json.loads(json.dumps(record)), "legacy.jsonl", 1)
    assert again.items == trace.items


@pytest.mark.parametrize(("paired", "field_end", "reason"), [
    ("x", "pairedItem", "expected"),
    ({"item": -1}, "pairedItem", "non-negative integer"),
    ({"item": 7}, "pairedItem", "points at item 7"),
    ({"item": 0, "input": 3}, "pairedItem", "input 3"),
    ([{"item": 0}, {"item": True}], "pairedItem[1]", "non-negative integer"),
])
def test_a_malformed_paired_item_is_an_error_naming_the_execution_and_the_item(
    tmp_path: Path, paired: Any, field_end: str, reason: str,
) -> None:
    document = _document()
    _run_data(document)["Is large?"][0]["data"]["main"][1][0]["pairedItem"] = paired
    with pytest.raises(ExportFormatError) as caught:
        _runs(_write(tmp_path, document), BY_ID)
    assert caught.value.record == "9001"
    assert caught.value.field == f"data.resultData.runData.Is large?[0].data.main[1][0].{field_end}"
    assert reason in caught.value.reason


def test_a_missing_paired_item_follows_the_inputs_only_item_and_joins_several(tmp_path: Path) -> None:
    document = _document()
    del _run_data(document)["Split Out"][0]["data"]["main"][0][1]["pairedItem"]  # its input holds one item
    trace = _runs(_write(tmp_path, document), BY_ID)[0].trace
    assert trace is not None and [i.key for i in trace.items] == ["o-1", "o-2", "o-3"]
    del _run_data(document)["Notify sales"][0]["data"]["main"][0][1]["pairedItem"]  # its input holds two
    trace = _runs(_write(tmp_path, document), BY_ID)[0].trace
    assert trace is not None
    assert trace.path == ["Split Out", "Notify sales", "Count"]  # it may come from either item: a join
    assert [i.path for i in trace.items] == [["Is large?"], ["Is large?", "Paid?"], ["Is large?"]]


def test_an_item_key_field_that_is_missing_or_repeated_is_an_error_naming_the_item(tmp_path: Path) -> None:
    document = _document()
    outputs = _run_data(document)["Split Out"][0]["data"]["main"][0]
    outputs[1]["json"]["id"] = "o-1"
    with pytest.raises(ExportFormatError, match="repeats item 0") as caught:
        _runs(_write(tmp_path, document), BY_ID)
    assert caught.value.field == "data.resultData.runData.Split Out[0].data.main[0][1].json.id"
    del outputs[1]["json"]["id"]
    with pytest.raises(ExportFormatError, match="string or integer"):
        _runs(_write(tmp_path, document), BY_ID)


def test_a_fan_out_node_the_workflow_lacks_is_an_error(tmp_path: Path) -> None:
    entry = AutomationEntry("orders", Platform.N8N, Coercion.N8N, items=ItemSplit("Split Items"))
    with pytest.raises(ExportFormatError, match="no node 'Split Items'"):
        _runs(FIXTURE, entry)


def test_a_fan_out_node_that_did_not_run_gives_a_trace_without_items(tmp_path: Path) -> None:
    document = _document()
    execution = document["data"][0]
    execution["workflowData"] = copy.deepcopy(execution["workflowData"])
    for name in ("Split Out", "Is large?", "Notify sales", "Paid?", "Count"):
        del _run_data(document)[name]
    trace = _runs(_write(tmp_path, {"data": [execution]}), BY_ID)[0].trace
    assert trace is not None and trace.items == [] and trace.path == []


def test_lineage_follows_outputs_runs_and_inputs_on_plain_run_data() -> None:
    run_data = {
        "Root": [{"source": [], "data": {"main": [[{"json": {"n": 1}}, {"json": {"n": 2}}]]}}],
        "Loop": [{"source": [{"previousNode": "Root"}], "data": {"main": [[{"json": {}, "pairedItem": 1}]]}},
                 {"source": [{"previousNode": "Root"}], "data": {"main": [[{"json": {}, "pairedItem": {"item": 0}}]]}}],
        "Merge": [{"source": [None, {"previousNode": "Loop", "previousNodeRun": 1}],
                   "data": {"main": [[{"json": {}, "pairedItem": {"item": 0, "input": 1}}]]}}],
    }
    order = [("Root", 0), ("Merge", 0), ("Loop", 0), ("Loop", 1)]  # out of order: inputs are resolved first
    lineage = trace_lineage(run_data, "Root", order, "x.json", "1")
    assert lineage is not None
    assert lineage.of("Loop", 0, 0, 0) == {1} and lineage.of("Loop", 1, 0, 0) == {0}
    assert lineage.of("Merge", 0, 0, 0) == {0}
    assert lineage.inputs(run_data, "Merge", 0) == {0}
    assert trace_lineage(run_data, "Absent", order, "x.json", "1") is None


@pytest.mark.parametrize(("items", "field", "reason"), [
    (3, "automations.a.items", "expected a table"),
    ({"form": "Split"}, "automations.a.items.form", "unknown key"),
    ({"from": ""}, "automations.a.items.from", "name of the node"),
    ({"from": 4}, "automations.a.items.from", "expected a string"),
    ({"key": "id"}, "automations.a.items.key", "\"index\" or \"json:<dotted path>\""),
    ({"key": "json:"}, "automations.a.items.key", "dotted path"),
    ({"key": "json:a..b"}, "automations.a.items.key", "dotted path"),
])
def test_every_bad_items_table_is_a_manifest_error_naming_the_key(items: Any, field: str, reason: str) -> None:
    with pytest.raises(ManifestError) as caught:
        manifest_from_dict({"name": "s", "automations": {"a": {"platform": "n8n", "items": items}}}, "manifest.toml")
    assert (caught.value.path, caught.value.field) == ("manifest.toml", field)
    assert reason in caught.value.reason


def test_only_n8n_splits_at_a_node_but_any_platform_may_key_polled_items() -> None:
    with pytest.raises(ManifestError, match="only n8n") as caught:
        manifest_from_dict({"name": "s", "automations": {"a": {"platform": "zapier", "items": {"from": "X"}}}}, "m.toml")
    assert caught.value.field == "automations.a.items.from"
    manifest = manifest_from_dict({"name": "s", "automations": {"a": {"platform": "zapier", "items": {"key": "json:id"}}}}, "m")
    assert manifest.automations["a"].items == ItemSplit(None, "json:id")


def test_the_items_table_round_trips_through_the_manifest() -> None:
    table = {"name": "s", "automations": {"a": {"platform": "n8n", "items": {"from": "Split Out", "key": "json:order.id"}}}}
    manifest = manifest_from_dict(table, "m")
    entry = manifest.automations["a"]
    assert entry.items is not None and entry.items.key_path() == ("order", "id")
    assert manifest_from_dict(manifest_to_dict(manifest), "m") == manifest


def test_a_first_import_proposes_maps_for_the_nodes_only_items_ran(tmp_path: Path) -> None:
    into = tmp_path / "set"
    into.mkdir()
    (into / "manifest.toml").write_text('format = 1\nname = "set"\n[automations.orders]\nplatform = "n8n"\n'
                                        '[automations.orders.items]\nfrom = "Split Out"\n')
    request = ImportRequest(Platform.N8N, FIXTURE, into, "orders", salt=b"test-salt")
    import_export(request)  # the automation is new to the manifest: maps are proposed, commented
    text = (into / "manifest.toml").read_text()
    assert '# "Notify sales" = "notify-sales"' in text and '# [automations.orders.decisions."Is large?"]' in text


def test_an_item_a_filter_sends_to_its_discarded_output_is_filtered(tmp_path: Path) -> None:
    document = _document()
    paid = _run_data(document)["Paid?"][0]
    paid["data"]["main"] = [[], [{"json": {"id": "o-2", "total": 15}, "pairedItem": {"item": 0}}]]  # "discarded items" on
    trace = _runs(_write(tmp_path, document), BY_ID)[0].trace
    assert trace is not None and trace.items[1].status is TraceStatus.FILTERED


def test_a_node_continuing_on_its_error_output_decides_per_item(tmp_path: Path) -> None:
    document = _document()
    for node in document["data"][0]["workflowData"]["nodes"]:
        if node["name"] == "Notify sales":
            node["onError"] = "continueErrorOutput"
    notify = _run_data(document)["Notify sales"][0]
    notify["data"]["main"] = [[{"json": {"ok": True, "id": "o-1"}, "pairedItem": {"item": 0}}],
                              [{"json": {"error": "502 Bad Gateway"}, "pairedItem": {"item": 1}}]]
    _run_data(document)["Count"][0]["data"]["main"][0][0]["pairedItem"] = {"item": 0}
    trace = _runs(_write(tmp_path, document), BY_ID)[0].trace
    assert trace is not None
    assert [(i.key, i.decisions.get("Notify sales")) for i in trace.items] == [("o-1", "success"), ("o-2", None), ("o-3", "error")]
