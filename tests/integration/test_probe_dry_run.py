"""probe-triggers' dry run: probes go through the real queue as the automation's jobs, nothing leaves."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from harness.platforms.n8n.translate.module import build
from harness.platforms.n8n.probe.search import ProbeSet, load_inputs, make_probes
from harness.platforms.n8n.probe.dry import dry_run
from harness.platforms.n8n.probe.report import report_markdown
from queue_core import Context, Registry, Trigger, automation
from queue_core import registry as registry_module
from queue_core.provider import ProviderConfig

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "probe" / "set"
PROVIDERS = {"example_shop": ProviderConfig(name="example_shop", base_url="https://api.example-shop.test")}


def _scaffolded(set_dir: Path) -> Registry:
    """The automation as `cutover scaffold n8n` writes it from the set's definition, in its own registry."""
    workflow, _, _ = load_inputs(set_dir, "order-flow")
    source = build(workflow, "order-flow", {"api.example-shop.test": "example_shop"}).source
    registry = Registry()
    saved, registry_module.default_registry = registry_module.default_registry, registry
    try:
        exec(compile(source, "order_flow.py", "exec"), {})
    finally:
        registry_module.default_registry = saved
    return registry


def _probes(set_dir: Path) -> ProbeSet:
    workflow, entry, pairs = load_inputs(set_dir, "order-flow")
    return make_probes(workflow, entry, pairs, count=4, seed=0)


@pytest.fixture
def set_dir(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "set")
    return tmp_path / "set"


def test_the_scaffolded_code_takes_every_probed_branch_in_dry_run(set_dir: Path, fresh_db_url: str) -> None:
    probes = _probes(set_dir)
    runs = dry_run(probes, _scaffolded(set_dir), PROVIDERS, db_url=fresh_db_url)
    assert [(r.probe, r.status, r.took) for r in runs] == [
        ("probe-1", "succeeded", True), ("probe-2", "succeeded", True),
        ("probe-3", "succeeded", True), ("probe-4", "succeeded", True)]
    large = runs[0]
    assert large.decisions == {"is-paid": "true", "route": "large"} and large.path == ["notify-large"]
    (call,) = large.calls
    assert (call["method"], call["url"], call["body"]) == (
        "POST", "https://api.example-shop.test/orders/large", {"id": "o-1001", "total": 1000})
    assert runs[1].calls == [] and runs[1].differed == []
    text = report_markdown(probes, runs, "probe-demo")
    assert "In dry-run the current code took the targeted branch on 4 of 4 probe(s)." in text
    assert "- intended call: POST https://api.example-shop.test/orders/large (step `notify-large`)" in text


def _hand_written() -> Registry:
    registry = Registry()

    @automation("order-flow", registry=registry)
    async def order_flow(ctx: Context, trigger: Trigger) -> Any:
        body = trigger.body
        ctx.decide("is-paid", body["status"] == "paid")
        if body["status"] != "paid":
            return
        route = "large" if body["total"] >= 5000 else ("domestic" if body["country"] == "DE" else "other")
        ctx.decide("route", route)
        if route == "large":
            await ctx.call("example_shop", "POST", "/orders/large", json={"id": body["id"]}, step="notify-large")

    return registry


def test_code_that_misses_a_predicted_branch_is_shown_as_not_taking_it(set_dir: Path, fresh_db_url: str) -> None:
    runs = dry_run(_probes(set_dir), _hand_written(), PROVIDERS, db_url=fresh_db_url)
    assert [(r.probe, r.took) for r in runs] == [("probe-1", False), ("probe-2", True), ("probe-3", False),
                                                 ("probe-4", True)]
    assert runs[0].decisions == {"is-paid": True, "route": "other"}
    assert runs[0].agreed == ["is-paid=true"] and runs[0].differed == ["route=large"]
    assert runs[0].calls == []
