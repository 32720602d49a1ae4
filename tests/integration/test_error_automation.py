"""An automation's error_automation (n8n's errorWorkflow setting) starts once when one of its jobs fails
for good, with the failure as an n8n Error Trigger item; the scaffold writes it from the workflow's settings."""

from __future__ import annotations

import asyncio
import time

import pytest

import queue_core.registry as reg
from harness.platforms.n8n.definition import parse_workflow
from harness.platforms.n8n.translate.module import build
from queue_core import JobSpec, Queue
from queue_core.errors import ConfigError, TerminalError
from queue_core.registry import Registry
from tests.support.scaffolded import worker_running


def _registry() -> Registry:
    registry = Registry()

    @reg.automation("fragile", registry=registry, error_automation="on-error")
    async def fragile(ctx, trigger):  # noqa: ANN001, ANN202
        if trigger.body.get("fail") == "terminal":
            raise TerminalError("the order was refused")
        if trigger.body.get("fail") == "retryable":
            raise RuntimeError("flaky")

    @reg.automation("on-error", registry=registry)
    async def on_error(ctx, trigger):  # noqa: ANN001, ANN202
        await ctx.step("seen", lambda: trigger.body)

    return registry


async def _drain(pool, registry: Registry, spec: JobSpec) -> list[tuple]:
    job = await Queue(pool, registry=registry).enqueue(spec)
    async with worker_running(pool, registry):
        deadline = time.monotonic() + 30
        while True:
            async with pool.connection() as conn:
                rows = await (await conn.execute(
                    "SELECT j.automation, j.status::text, j.payload, j.parent_id = %s FROM jobs j ORDER BY created_at",
                    (job,))).fetchall()
            if all(r[1] in ("succeeded", "failed", "dead") for r in rows) and (len(rows) == 2 or rows[0][1] == "succeeded"):
                return rows
            assert time.monotonic() < deadline, rows
            await asyncio.sleep(0.05)


async def test_a_job_failing_terminally_starts_its_error_automation_once_with_the_failure(pool) -> None:
    rows = await _drain(pool, _registry(), JobSpec("fragile", {"fail": "terminal"}))
    assert [(r[0], r[1]) for r in rows] == [("fragile", "failed"), ("on-error", "succeeded")]
    payload = rows[1][2]
    assert rows[1][3] is True  # a child of the failed job: started once, by its key
    assert payload["execution"]["error"]["message"] == "TerminalError: the order was refused"
    assert payload["workflow"] == {"id": "fragile", "name": "fragile"} and payload["execution"]["mode"] == "live"


async def test_exhausted_retries_start_it_and_a_success_does_not(pool) -> None:
    registry = _registry()
    rows = await _drain(pool, registry, JobSpec("fragile", {"fail": "retryable"}, max_attempts=1))
    assert [(r[0], r[1]) for r in rows] == [("fragile", "failed"), ("on-error", "succeeded")]
    assert "attempts exhausted" in rows[1][2]["execution"]["error"]["message"]
    async with pool.connection() as conn:
        await conn.execute("TRUNCATE jobs CASCADE")
    rows = await _drain(pool, registry, JobSpec("fragile", {}))
    assert [(r[0], r[1]) for r in rows] == [("fragile", "succeeded")]


def test_an_automation_cannot_be_its_own_error_automation() -> None:
    with pytest.raises(ConfigError, match="error_automation must name another automation"):
        reg.automation("loop", registry=Registry(), error_automation="loop")(_noop)


async def _noop(ctx, trigger):  # noqa: ANN001, ANN202
    return None


def _workflow(settings: dict) -> object:
    return parse_workflow({"name": "W", "settings": settings, "nodes": [
        {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}}],
        "connections": {}}, "w.json")


def test_the_scaffold_writes_the_workflows_error_workflow_from_the_estate() -> None:
    scaffold = build(_workflow({"errorWorkflow": "wf-9"}), "w", {}, {"wf-9": "alerts"})
    assert "error_automation='alerts'" in scaffold.source
    missing = build(_workflow({"errorWorkflow": "wf-404"}), "w", {}, {})
    assert "error_automation" not in missing.source
    (row,) = [r for r in missing.rows if r.status == "trigger"]
    assert "its error workflow wf-404 is not in the scaffolded estate" in row.why
