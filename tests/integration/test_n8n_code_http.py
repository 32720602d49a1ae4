"""A Code node's HTTP calls on the real queue and gateway: each is a recorded ``ctx.call`` at the node's step
(its own idempotency key), a 5xx the code lets through retries the job, and a dry run sends nothing."""

from __future__ import annotations

import asyncio

from queue_core import JobSpec, Queue, Registry, Worker, WorkerConfig, automation
from queue_core.compat import n8n
from queue_core.gateway import Gateway
from queue_core.provider import parse_providers
from tests.support.fake_provider import FakeProvider

NOTES = """
const base = $json.base;
const out = [];
for (const n of [1, 2]) {
  const r = await this.helpers.httpRequest({url: `${base}/notes`, method: 'POST', body: {n}, json: true});
  out.push({json: {n, id: r.id, synthetic: r.synthetic === true}});
}
return out;
"""
registry = Registry()


@automation("code-notes", registry=registry)
async def code_notes(ctx, trigger):  # noqa: ANN001, ANN201
    flow = n8n.Flow(ctx)
    items = flow.emit("Webhook", [{"json": trigger.body}])
    out = await n8n.code_http(flow, "Post Notes", NOTES, items, step="post-notes")
    ctx.decide("ids", [item["json"].get("id") for item in out])


async def _finished(pool, gateway, queue: Queue, job_id) -> dict:  # noqa: ANN001
    cfg = WorkerConfig(concurrency=1, lease_s=5, poll_s=0.05)
    deadline = asyncio.get_running_loop().time() + 30
    while True:
        await asyncio.wait_for(Worker(pool, registry, cfg, gateway=gateway).run(drain=True), 30)
        job = await queue.get(job_id)
        if job["status"] in ("succeeded", "failed", "dead") or asyncio.get_running_loop().time() > deadline:
            return job
        async with pool.connection() as conn:  # a retry waits its backoff: bring it forward
            await conn.execute("UPDATE jobs SET run_after = now() WHERE id = %s", (job_id,))


async def _rows(pool, job_id) -> list[tuple]:  # noqa: ANN001
    async with pool.connection() as conn:
        cur = await conn.execute("SELECT trace FROM decisions WHERE job_id = %s", (job_id,))
        return await cur.fetchall()


async def test_each_request_of_the_code_is_a_recorded_call_with_its_own_idempotency_key(pool) -> None:  # noqa: ANN001
    with FakeProvider().running() as fake:
        async with Gateway(parse_providers({"crm": {"base_url": fake.url}}), pool) as gateway:
            queue = Queue(pool, registry=registry)
            job_id = await queue.enqueue(JobSpec("code-notes", {"base": fake.url}, max_attempts=1))
            job = await _finished(pool, gateway, queue, job_id)
            calls = [e["detail"] for e in await queue.ledger(job_id) if e["kind"] == "call"]
    assert job["status"] == "succeeded"
    assert [e["body"] for e in fake.effects] == [{"n": 1}, {"n": 2}]
    assert len({e["key"] for e in fake.effects}) == 2
    assert [(c["step"], c["occurrence"], c["provider"], c["status"]) for c in calls] == [
        ("post-notes", 0, "crm", 201), ("post-notes", 1, "crm", 201)]


async def test_a_server_error_the_code_lets_through_retries_the_job(pool) -> None:  # noqa: ANN001
    with FakeProvider().running() as fake:
        fake.fail_next(1, 503)
        async with Gateway(parse_providers({"crm": {"base_url": fake.url}}), pool) as gateway:
            queue = Queue(pool, registry=registry)
            job_id = await queue.enqueue(JobSpec("code-notes", {"base": fake.url}, max_attempts=3))
            job = await _finished(pool, gateway, queue, job_id)
    assert (job["status"], job["attempt"]) == ("succeeded", 2)
    assert [e["body"] for e in fake.effects] == [{"n": 1}, {"n": 2}]


async def test_a_dry_run_sends_nothing_and_the_code_reads_the_synthetic_answer(pool) -> None:  # noqa: ANN001
    with FakeProvider().running() as fake:
        async with Gateway(parse_providers({"crm": {"base_url": fake.url}}), pool) as gateway:
            queue = Queue(pool, registry=registry)
            job_id = await queue.enqueue(JobSpec("code-notes", {"base": fake.url}, mode="dry_run", max_attempts=1))
            job = await _finished(pool, gateway, queue, job_id)
            kinds = [e["kind"] for e in await queue.ledger(job_id)]
    assert job["status"] == "succeeded", job["last_error"]
    assert fake.requests == [] and fake.effects == []
    assert kinds.count("call_dry_run") == 2
    [(trace,)] = await _rows(pool, job_id)
    assert trace["nodes"]["Post Notes"] == [[{"n": 1, "synthetic": True}, {"n": 2, "synthetic": True}]]
