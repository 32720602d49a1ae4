"""The synthetic section probe-triggers writes, and that the shadow run's index never reads it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.shadow.index import SetIndex
from harness.recording import iter_triggers
from harness.platforms.n8n.probe.search import Change, load_inputs, make_probes
from harness.platforms.n8n.probe.files import change_to_json, write_synthetic
from harness.platforms.n8n.probe.report import report_json, report_markdown
from harness.platforms.n8n.probe.values import ABSENT
from harness.errors import ProbeError

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "probe" / "set"


@pytest.fixture
def set_dir(tmp_path: Path) -> Path:
    target = tmp_path / "probe-demo"
    shutil.copytree(FIXTURE, target)
    return target


def _probes(set_dir: Path, count: int = 4):  # type: ignore[no-untyped-def]
    workflow, entry, pairs = load_inputs(set_dir, "order-flow")
    return make_probes(workflow, entry, pairs, count=count, seed=0)


def test_the_synthetic_triggers_are_in_the_recording_format_with_a_sidecar(set_dir: Path) -> None:
    probes = _probes(set_dir)
    directory = write_synthetic(set_dir, probes)
    assert directory == set_dir / "order-flow" / "synthetic"
    triggers = list(iter_triggers(directory / "triggers.jsonl"))  # validates every line
    assert [t.id for t in triggers] == ["probe-1", "probe-2", "probe-3", "probe-4"]
    assert [t.source for t in triggers] == ["probe:Route/large", "probe:Route/domestic"] * 2
    sidecar = [json.loads(line) for line in (directory / "probes.jsonl").read_text().splitlines()]
    assert sidecar[0] == {
        "id": "probe-1", "from": "exec-1", "synthetic": True, "seed": 0,
        "target": {"node": "Route", "kind": "switch", "output": "large", "decision": "route", "value": "large"},
        "changes": [{"path": "body.total", "keys": ["body", "total"], "old": 120, "new": 1000}],
        "predicted": ["is-paid=true", "route=large"],
    }
    assert "SYNTHETIC" in (directory / "README.md").read_text()


def test_a_rerun_replaces_the_synthetic_section(set_dir: Path) -> None:
    write_synthetic(set_dir, _probes(set_dir, count=4))
    write_synthetic(set_dir, _probes(set_dir, count=1))
    assert len((set_dir / "order-flow" / "synthetic" / "triggers.jsonl").read_text().splitlines()) == 1


def test_a_removed_or_added_field_has_no_old_or_new_value() -> None:
    assert change_to_json(Change(("body", "coupon"), "X", ABSENT)) == {
        "path": "body.coupon", "keys": ["body", "coupon"], "old": "X"}
    assert change_to_json(Change(("body", "items", 0), ABSENT, 5)) == {
        "path": "body.items[0]", "keys": ["body", "items", 0], "new": 5}


def test_the_shadow_index_reads_only_the_recorded_triggers(set_dir: Path) -> None:
    before = [r.trigger_id for r in SetIndex.build(set_dir).automations["order-flow"].refs]
    write_synthetic(set_dir, _probes(set_dir))
    after = SetIndex.build(set_dir).automations
    assert set(after) == {"order-flow"}
    assert [r.trigger_id for r in after["order-flow"].refs] == before == [f"exec-{i}" for i in range(1, 7)]


def test_the_report_is_labelled_synthetic_and_lists_the_unreached_branch(set_dir: Path) -> None:
    probes = _probes(set_dir)
    text = report_markdown(probes, None, "probe-demo")
    assert text.splitlines()[2].startswith("> **SYNTHETIC")
    assert "- `body.country`: \"FR\" → \"DE\"" in text
    assert "| `in-stock=false` | In stock? / false | not reachable by mutating the trigger" in text
    data = report_json(probes, None, "probe-demo")
    assert data["synthetic"] is True and data["probes"][0]["dry_run"] is None
    assert [u["branch"] for u in data["unreached"]] == ["in-stock=false"]
    assert "content-type" not in json.dumps(data)  # headers stay out of the report


def test_an_automation_without_a_definition_is_refused_naming_the_key(set_dir: Path) -> None:
    manifest = set_dir / "manifest.toml"
    manifest.write_text(manifest.read_text().replace('definition = "definitions/order-flow.workflow.json"\n', ""))
    with pytest.raises(ProbeError, match=r"manifest.toml: \[automations.order-flow\] names no definition"):
        load_inputs(set_dir, "order-flow")
    with pytest.raises(ProbeError, match="no automation 'nope' .the set has: order-flow."):
        load_inputs(set_dir, "nope")
