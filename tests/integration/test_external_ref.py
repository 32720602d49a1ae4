"""External references: the id of the object a call created is read from the response (a JSON
pointer or a header, per provider), stored on the call's step and shown by `cutover jobs show`,
the control API's job detail and the ``call`` ledger event."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import httpx
from click.testing import CliRunner

from queue_core import JobSpec, Queue, Worker, WorkerConfig, db
from queue_core.cli import cli
from tests.support.call_loop import gateway, registry
from tests.support.control import app_for, client, tokens
from tests.support.fake_provider import FakeProvider


async def _run_one(url: str, spec: JobSpec, *, provider_url: str, transport: Any = None,
                   **extra: Any) -> uuid.UUID:
    async with db.pool(url, max_size=4) as pool, gateway(pool, provider_url, transport, **extra) as gw:
        job_id = await Queue(pool, registry=registry).enqueue(spec)
        cfg = WorkerConfig(concurrency=1, lease_s=5, poll_s=0.05)
        await asyncio.wait_for(Worker(pool, registry, cfg, gateway=gw).run(drain=True), 30)
        return job_id


async def _api_job(url: str, job_id: uuid.UUID) -> dict[str, Any]:
    async with db.pool(url, max_size=2) as pool:
        token = (await tokens(pool))["read"]
        async with client(app_for(pool), token) as c:
            response = await c.get(f"/jobs/{job_id}")
    assert response.status_code == 200
    return response.json()


def _cli(url: str, *args: str) -> str:
    result = CliRunner().invoke(cli, list(args), env={"DATABASE_URL": url}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_a_json_pointer_ref_is_stored_and_shown_by_jobs_show_the_api_and_the_ledger(fresh_db_url):
    with FakeProvider().running() as fake:
        job_id = asyncio.run(_run_one(fresh_db_url, JobSpec("create-contact"), provider_url=fake.url))
    shown = json.loads(_cli(fresh_db_url, "jobs", "show", str(job_id), "--json"))
    assert shown["job"]["status"] == "succeeded"
    assert [(s["step_name"], s["occurrence"], s["external_ref"]) for s in shown["steps"]] == [("create", 0, "1")]
    [event] = [e for e in shown["ledger"] if e["kind"] == "call"]
    assert event["detail"]["external_ref"] == "1" and event["detail"]["step"] == "create"
    text = _cli(fresh_db_url, "jobs", "show", str(job_id))
    assert "create#0" in text and "ref=1" in text
    detail = asyncio.run(_api_job(fresh_db_url, job_id))
    assert [s["external_ref"] for s in detail["steps"]] == ["1"]


def test_a_header_ref_is_stored_from_the_response_header_the_provider_names(fresh_db_url):
    def crm(request: httpx.Request) -> httpx.Response:
        return httpx.Response(201, json={"ok": True}, headers={"Location": "https://crm.test/contacts/c_42"})

    spec = JobSpec("create-contact", {"provider": "crm"})
    job_id = asyncio.run(_run_one(fresh_db_url, spec, provider_url="https://unused.test",
                                  transport=httpx.MockTransport(crm),
                                  crm={"base_url": "https://crm.test", "external_ref": "header:Location"}))
    shown = json.loads(_cli(fresh_db_url, "jobs", "show", str(job_id), "--json"))
    assert [s["external_ref"] for s in shown["steps"]] == ["https://crm.test/contacts/c_42"]
    [event] = [e for e in shown["ledger"] if e["kind"] == "call"]
    assert event["detail"]["external_ref"] == "https://crm.test/contacts/c_42"
    detail = asyncio.run(_api_job(fresh_db_url, job_id))
    assert [s["external_ref"] for s in detail["steps"]] == ["https://crm.test/contacts/c_42"]


def test_a_failed_call_stores_no_ref(fresh_db_url):
    with FakeProvider().running() as fake:
        fake.fail_next(1, 422)
        job_id = asyncio.run(_run_one(fresh_db_url, JobSpec("create-contact"), provider_url=fake.url))
    shown = json.loads(_cli(fresh_db_url, "jobs", "show", str(job_id), "--json"))
    assert shown["job"]["status"] == "failed"
    assert [s["external_ref"] for s in shown["steps"]] == [None]
    [event] = [e for e in shown["ledger"] if e["kind"] == "call"]
    assert event["detail"]["external_ref"] is None and event["detail"]["status"] == 422
