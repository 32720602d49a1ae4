"""``pytest --shadow`` on runs over many items: each legacy item is compared with the child job the
new code started for it, and a trigger passes only when it and every item agree."""

from __future__ import annotations

import json
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from harness.manifest import AutomationEntry, Coercion, Manifest, write_manifest
from harness.recording import ItemTrace, LegacyTrace, Platform, RecordedTrigger, TraceStatus, write_traces, write_triggers
from tests.support.project import pyproject

AUTOMATIONS = '''
from queue_core import automation


@automation("invoice-batch", version=1)
async def invoice_batch(ctx, trigger):
    ctx.decide("batch", "nonempty" if trigger.body["invoices"] else "empty")
    for invoice in trigger.body["invoices"]:
        await ctx.enqueue("invoice", invoice, key=invoice["id"])
    await ctx.wait_for_children(policy="collect")


@automation("invoice", version=1)
async def invoice(ctx, trigger):
    large = trigger.body["amount"] > 1000
    ctx.decide("amount", "large" if large else "small")
    if large:
        await ctx.call("crm", "POST", "/escalations", json={"invoice": trigger.body["id"]}, step="escalate")


@automation("poll-invoices", version=1)
async def poll_invoices(ctx, trigger):
    page = (await ctx.call("billing", "GET", "/invoices", step="fetch")).json()
    await ctx.start_new("invoice", page["items"], id_of=lambda i: i["id"], cursor=None)
'''

PYPROJECT = pyproject("fanout_demo", "[tool.cutover.gate]\nmin_triggers = 1")

START = datetime(2024, 6, 17, 9, tzinfo=UTC)
AMOUNTS = {"inv-1": 200, "inv-2": 5000, "inv-3": 40, "inv-4": 1200}


def _item(ident: str, route: str | None = None) -> ItemTrace:
    route = route or ("large" if AMOUNTS[ident] > 1000 else "small")
    calls = [{"step": "escalate", "provider": "crm", "method": "POST", "url": "/escalations",
              "body": {"invoice": ident}}] if route == "large" else []
    return ItemTrace(key=ident, path=["escalate"] if route == "large" else [], decisions={"amount": route}, calls=calls)


def _write_set(root: Path, *, inv4: str | None = None) -> None:
    set_dir = root / "recordings" / "items"
    invoices = [{"id": i, "amount": a} for i, a in AMOUNTS.items()]
    batches = [RecordedTrigger(f"run-{n}", START + timedelta(minutes=n), {}, {"invoices": invoices[2 * n: 2 * n + 2]},
                               "n8n:execution/5100{n}") for n in range(2)]
    traces = [LegacyTrace(t.id, TraceStatus.SUCCEEDED, Platform.N8N, decisions={"batch": "nonempty"},
                          items=[_item(i["id"], inv4 if i["id"] == "inv-4" else None) for i in t.body["invoices"]])
              for t in batches]
    write_triggers(set_dir / "invoice-batch" / "triggers.jsonl", batches)
    write_traces(set_dir / "invoice-batch" / "legacy.jsonl", traces)
    tick = RecordedTrigger("tick-1", START, {}, {}, "schedule")
    page = {"items": invoices[:2]}
    write_triggers(set_dir / "poll-invoices" / "triggers.jsonl", [tick])
    write_traces(set_dir / "poll-invoices" / "legacy.jsonl", [LegacyTrace(
        "tick-1", TraceStatus.SUCCEEDED, Platform.N8N, path=["fetch"], outputs={"fetch": page},
        calls=[{"step": "fetch", "provider": "billing", "method": "GET", "url": "/invoices", "body": None}],
        items=[_item("inv-1"), _item("inv-2")])])
    write_manifest(set_dir / "manifest.toml", Manifest(name="items", automations={
        "invoice-batch": AutomationEntry("invoice-batch", Platform.N8N, Coercion.N8N),
        "poll-invoices": AutomationEntry("poll-invoices", Platform.N8N, Coercion.N8N),
    }))


@pytest.fixture
def project(pytester: pytest.Pytester, fresh_db_url: str, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A project whose automations fan out (ctx.enqueue) and poll (ctx.start_new)."""
    monkeypatch.setenv("DATABASE_URL", fresh_db_url)
    pytester.makefile(".toml", pyproject=textwrap.dedent(PYPROJECT))
    pytester.makepyfile(fanout_demo=AUTOMATIONS)
    return pytester


def _summary(project: pytest.Pytester) -> dict[str, dict]:
    summary = json.loads((project.path / "reports" / "items" / "summary.json").read_text())
    return {a["name"]: a for a in summary["automations"]}


def test_a_fan_out_and_a_poller_whose_items_all_agree_pass(project: pytest.Pytester) -> None:
    _write_set(project.path)
    result = project.runpytest_subprocess("--shadow", "recordings/items")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["invoice-batch*READY*2 compared*100.00%*",
                                 "*items: 4 compared item by item in 2 triggers, 4 agree (100.00%)"])
    autos = _summary(project)
    assert autos["invoice-batch"]["items"] == {"triggers": 2, "compared": 4, "agreed": 4, "extra": 0,
                                               "children_not_compared": 0, "agreement": 1.0}
    assert autos["poll-invoices"]["items"]["agreed"] == 2  # children poll:inv-1, poll:inv-2 <-> items inv-1, inv-2


@pytest.mark.parametrize("replayers", ["0", "1"])  # in this process, and pickled from a replay process
def test_an_item_level_mismatch_fails_its_trigger_naming_the_item_key(project: pytest.Pytester, replayers: str) -> None:
    _write_set(project.path, inv4="small")  # legacy did not escalate inv-4 (1200); the new code does
    result = project.runpytest_subprocess("--shadow", "recordings/items", "--shadow-replayers", replayers, "-v")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "shadow mismatch: invoice-batch trigger run-1: *",
        "items: 2 compared, 1 agree; differing: inv-4",
        '*items[[]inv-4[]].decisions.amount*"small"*"large"*value_changed*',
        "*items[[]inv-4[]].calls[[]escalate[]]*extra_in_new [[]side effect[]]*",
    ])
    assert _summary(project)["invoice-batch"]["items"]["agreed"] == 3
    csv = (project.path / "reports" / "items" / "disagreements.csv").read_text()
    assert "items[inv-4].decisions.amount" in csv


def test_an_accepted_difference_can_target_an_item_field(project: pytest.Pytester) -> None:
    _write_set(project.path, inv4="small")
    (project.path / "recordings" / "items" / "accepted.toml").write_text(textwrap.dedent('''
        [[accepted]]
        automation = "invoice-batch"
        path = "items[*]*"
        owner = "maria@acme.test"
        reason = "n8n compared the amount as text; 1200 > 1000 is right"
        expires = 2099-01-01
    '''))
    result = project.runpytest_subprocess("--shadow", "recordings/items")
    result.assert_outcomes(passed=3)
    assert _summary(project)["invoice-batch"]["items"]["agreed"] == 4


def test_without_legacy_items_children_are_counted_but_not_compared(project: pytest.Pytester) -> None:
    set_dir = project.path / "recordings" / "items"
    invoices = [{"id": "inv-1", "amount": 200}, {"id": "inv-2", "amount": 5000}]
    trigger = RecordedTrigger("run-0", START, {}, {"invoices": invoices}, "n8n:execution/51000")
    # as before items existed: the parent's trace alone, its child steps in its path
    trace = LegacyTrace("run-0", TraceStatus.SUCCEEDED, Platform.N8N, decisions={"batch": "nonempty"},
                        path=["child:inv-1", "child:inv-2", "children:0"])
    write_triggers(set_dir / "invoice-batch" / "triggers.jsonl", [trigger])
    write_traces(set_dir / "invoice-batch" / "legacy.jsonl", [trace])
    write_manifest(set_dir / "manifest.toml", Manifest(name="items", automations={
        "invoice-batch": AutomationEntry("invoice-batch", Platform.N8N, Coercion.N8N)}))
    result = project.runpytest_subprocess("--shadow", "recordings/items")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*2 child job(s) started by the new code not compared (their legacy traces have no items)"])
    assert _summary(project)["invoice-batch"]["items"] == {"triggers": 0, "compared": 0, "agreed": 0, "extra": 0,
                                                           "children_not_compared": 2, "agreement": 0.0}


def test_the_noise_check_runs_the_children_twice_and_marks_nothing_noisy_in_a_deterministic_fan_out(
        project: pytest.Pytester) -> None:
    _write_set(project.path, inv4="small")
    legacy = project.path / "recordings" / "items" / "invoice-batch" / "legacy.jsonl"
    lines = [json.loads(line) | {"path": ["split"]} for line in legacy.read_text().splitlines()]
    legacy.write_text("".join(json.dumps(line, sort_keys=True) + "\n" for line in lines))  # a parent path diff too
    result = project.runpytest_subprocess("--shadow", "recordings/items", "--shadow-noise")
    result.assert_outcomes(passed=1, failed=2)
    summary = json.loads((project.path / "reports" / "items" / "summary.json").read_text())
    assert summary["noise_check"] is True and summary["noise"] == []
    paths = {c["path"] for c in summary["clusters"]}
    assert {"path[*]", "items[*].decisions.amount"} <= paths, paths
