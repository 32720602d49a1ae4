"""The run history as data: `cutover jobs list` and GET /jobs filter and page every job, newest first;
`failing_jobs` counts what a person means by failing; `jobs show` gives the payload (masked) and a
call's real state; a worker logs one line per job outcome."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from click.testing import CliRunner

from queue_core import JobSpec, Queue
from queue_core.errors import QueueError
from queue_core.errors import JobNotFoundError
from queue_core.store.history import JobFilter, list_jobs
from tests.support.control import app_for, client, reset_control_tables, tokens

T0 = datetime(2024, 6, 3, 9, 0, tzinfo=UTC)


async def _job(pool, automation: str = "orders", *, minute: int, status: str = "pending", mode: str = "live",
               error: str | None = None, kind: str | None = None, key: str | None = None,
               parent: uuid.UUID | None = None, claims: int = 0, payload: Any = None) -> uuid.UUID:
    job_id = await Queue(pool).enqueue(JobSpec(automation, payload if payload is not None else {"n": minute}, mode=mode))
    async with pool.connection() as conn:
        await conn.execute(
            "UPDATE jobs SET created_at = %s, status = %s::job_status, last_error = %s, error_kind = %s::error_kind, "
            "concurrency_key = %s, parent_id = %s, claim_count = %s WHERE id = %s",
            (T0 + timedelta(minutes=minute), status, error, kind, key, parent, claims, job_id))
    return job_id


@pytest.fixture
async def jobs(pool) -> dict[str, uuid.UUID]:
    made = {
        "ok": await _job(pool, minute=1, status="succeeded"),
        "dead": await _job(pool, minute=2, status="dead", error="HTTP 404 from crm: no such contact", kind="terminal"),
        "retrying": await _job(pool, minute=3, status="pending", error="HTTP 503 from crm", kind="retryable"),
        "lost": await _job(pool, minute=4, status="pending", claims=5),
        "shadow": await _job(pool, "digest", minute=5, status="succeeded", mode="shadow"),
        "keyed": await _job(pool, minute=6, status="running", key="customer:42"),
        "percent": await _job(pool, minute=7, status="failed", error="quota 100% used", kind="terminal"),
    }
    made["child"] = await _job(pool, "digest", minute=8, parent=made["shadow"])
    return made


async def _ids(pool, **filters: Any) -> list[uuid.UUID]:
    return [row["id"] for row in (await list_jobs(pool, JobFilter(**filters), limit=500)).jobs]


async def test_newest_first_and_each_filter_narrows(pool, jobs) -> None:
    assert await _ids(pool) == [jobs[n] for n in ("child", "percent", "keyed", "shadow", "lost", "retrying", "dead", "ok")]
    assert await _ids(pool, automation="digest") == [jobs["child"], jobs["shadow"]]
    assert await _ids(pool, statuses=("dead", "failed")) == [jobs["percent"], jobs["dead"]]
    assert await _ids(pool, mode="shadow") == [jobs["shadow"]]
    assert await _ids(pool, since=T0 + timedelta(minutes=3), until=T0 + timedelta(minutes=5)) == [jobs["lost"], jobs["retrying"]]
    assert await _ids(pool, error_kind="retryable") == [jobs["retrying"]]
    assert await _ids(pool, error_text="NO SUCH") == [jobs["dead"]]
    assert await _ids(pool, error_text="100%") == [jobs["percent"]]  # a LIKE wildcard matches as itself
    assert await _ids(pool, error_text="1_0") == []
    assert await _ids(pool, concurrency_key="customer:42") == [jobs["keyed"]]
    assert await _ids(pool, parent=jobs["shadow"]) == [jobs["child"]]


async def test_keyset_pages_cover_every_job_once_in_order(pool, jobs) -> None:
    seen, after, pages = [], None, 0
    while True:
        page = await list_jobs(pool, JobFilter(), limit=3, after=after)
        seen += [row["id"] for row in page.jobs]
        pages += 1
        if page.next is None:
            break
        assert page.next == page.jobs[-1]["id"]
        after = page.next
    assert pages == 3 and seen == await _ids(pool)
    assert after == jobs["retrying"]  # the last job of the second page


async def test_bad_filters_and_cursors_are_named(pool) -> None:
    with pytest.raises(QueueError, match="unknown status 'exploded'"):
        JobFilter(statuses=("exploded",))
    assert await _ids(pool, since=T0, until=T0) == []  # an empty range is an empty page
    with pytest.raises(JobNotFoundError):
        await list_jobs(pool, JobFilter(), after=uuid.uuid4())
    with pytest.raises(QueueError, match="a page holds 1 to 500"):
        await list_jobs(pool, JobFilter(), limit=0)


async def test_failing_jobs_counts_failed_retrying_and_lost_claims(pool, jobs) -> None:
    async with pool.connection() as conn:
        rows = await (await conn.execute("SELECT id, failing FROM failing_jobs")).fetchall()
    assert dict(rows) == {jobs["dead"]: "failed", jobs["percent"]: "failed", jobs["retrying"]: "retrying",
                          jobs["lost"]: "claims lost"}


async def test_get_jobs_pages_with_the_read_scope(pool, jobs) -> None:
    await reset_control_tables(pool)
    app, minted = app_for(pool), await tokens(pool)
    async with client(app, minted["read"]) as c:
        first = await c.get("/jobs", params={"automation": "orders", "limit": 2})
        body = first.json()
        assert first.status_code == 200 and [j["id"] for j in body["jobs"]] == [str(jobs["percent"]), str(jobs["keyed"])]
        rest = (await c.get("/jobs", params={"automation": "orders", "limit": 50, "after": body["next"]})).json()
        assert [j["id"] for j in rest["jobs"]] == [str(jobs[n]) for n in ("lost", "retrying", "dead", "ok")]
        assert rest["next"] is None and "payload" not in rest["jobs"][0]
        two = (await c.get("/jobs", params=[("status", "dead"), ("status", "failed")])).json()
        assert {j["id"] for j in two["jobs"]} == {str(jobs["dead"]), str(jobs["percent"])}
        assert (await c.get("/jobs", params={"status": "exploded"})).status_code == 422
        assert (await c.get("/jobs", params={"after": "nope"})).status_code == 422
        assert (await c.get("/jobs", params={"after": str(uuid.uuid4())})).status_code == 404
    async with client(app, None) as c:
        assert (await c.get("/jobs")).status_code == 401


async def _cli(db_url: str, *args: str) -> Any:
    """Run the CLI in a thread: it runs its own event loop, as it does from a shell."""
    from queue_core.cli import cli

    return await asyncio.to_thread(CliRunner().invoke, cli, list(args), env={"DATABASE_URL": db_url},
                                   catch_exceptions=False)


async def test_cli_jobs_list_prints_pages_and_json(pool, jobs, db_url) -> None:
    result = await _cli(db_url, "jobs", "list", "--automation", "orders", "--status", "dead", "--status", "failed")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [str(jobs["percent"]), str(jobs["dead"])]
    assert "HTTP 404 from crm" in lines[1]
    page = json.loads((await _cli(db_url, "jobs", "list", "--limit", "3", "--json")).stdout)
    assert len(page["jobs"]) == 3 and page["next"]
    after = await _cli(db_url, "jobs", "list", "--limit", "3", "--after", page["next"], "--json")
    assert json.loads(after.stdout)["jobs"][0]["id"] == str(jobs["shadow"])
    bad = await _cli(db_url, "jobs", "list", "--since", "yesterday")
    assert bad.exit_code == 2 and "--since" in bad.output


async def test_jobs_show_masks_the_payload_and_shows_a_refused_call_as_failed(pool, db_url) -> None:
    job_id = await _job(pool, minute=1, status="dead", payload={"email": "ada@example.com", "api_token": "tk-123456"})
    record = {"fingerprint": "f" * 16, "idempotency_key": "k1", "method": "POST", "url": "https://crm.example/contacts",
              "status": 404, "kind": "terminal", "reason": "not found", "summary": "", "headers": [], "body": ""}
    async with pool.connection() as conn:
        await conn.execute(
            "INSERT INTO steps (job_id, step_name, occurrence, position, step_version, status, attempt, output, "
            "idempotency_key) VALUES (%s, 'create-contact', 1, 1, 1, 'done', 1, %s, 'k1')", (job_id, json.dumps(record)))
    result = await _cli(db_url, "jobs", "show", str(job_id))
    assert result.exit_code == 0, result.output
    assert '"email": "ada@example.com"' in result.stdout and "tk-123456" not in result.stdout
    assert '"api_token": "***"' in result.stdout
    assert "failed (HTTP 404, terminal)" in result.stdout and "POST https://crm.example/contacts" in result.stdout


async def test_a_worker_logs_one_line_per_job_outcome(pool, caplog) -> None:
    import random

    from queue_core import Worker, WorkerConfig
    from tests.support.automations import registry

    queue = Queue(pool, registry=registry)
    ok = await queue.enqueue(JobSpec("noop", {}))
    bad = await queue.enqueue(JobSpec("fail-terminal", {}))
    caplog.set_level(logging.INFO, logger="cutover.jobs")
    worker = Worker(pool, registry, WorkerConfig(concurrency=2, lease_s=5, poll_s=0.05, shutdown_grace_s=1),
                    rng=random.Random(1))
    await asyncio.wait_for(worker.run(drain=True), 30)
    lines = [r.getMessage() for r in caplog.records if r.name == "cutover.jobs"]
    assert any(f"automation=noop job={ok} attempt=1 mode=live outcome=succeeded" in line for line in lines), lines
    assert any(f"automation=fail-terminal job={bad} attempt=1" in line and "error_kind=terminal" in line
               for line in lines), lines
    assert len(lines) == 2 and not any("account is closed" in line for line in lines)  # the error stays in the job
