"""Every secret kind configured, traffic that makes them appear, then every output grepped for each.

A provider on loopback echoes the credentials it receives (Authorization, X-Api-Key) in its 200,
401 and 500 bodies; webhook deliveries carry x-access-token, x-client-secret and x-apikey
headers through the ingress with the ``serve --record`` tap. Then no row of jobs, steps, ledger,
waits or decisions, no ``GET /jobs/{id}``, no ``cutover jobs show --json``, no log line and no
recording file may hold any configured secret value.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from harness._cli_serve import recording_hook
from harness.redact import RedactionPolicy
from queue_core import JobSpec, Queue, Registry, TerminalError, Worker, WorkerConfig, automation
from queue_core.cli import cli
from queue_core.gateway import Gateway, RecordedResponse
from queue_core.provider import parse_providers
from tests.support.control import app_for, client, reset_control_tables, sources
from tests.support.echo_provider import echo  # noqa: F401  (a fixture)

TOKEN = "crmtok_7Qe2LxV0pA9sZk3R"  # the provider's bearer token (auth_env)
WHSEC = "whsec_c2VjcmV0LXNpZ25pbmcta2V5LTEyMzQ="  # its Standard Webhooks signing secret
API_KEY = "keyed-4f1b8c2e9d7a"  # an api-key header provider's key, passed by the automation
GH_SECRET = "gh-hook-secret-5b7e21"  # the webhook source's secret
ACCESS, CLIENT, APIKEY = "acc-tok-0d9c8b7a", "cli-sec-1e2f3a4b", "hdr-key-5c6d7e8f"  # delivery headers
ENV = {"CRM_TOKEN": TOKEN, "CRM_WHSEC": WHSEC, "KEYED_KEY": API_KEY, "GH_SECRET": GH_SECRET}
registry = Registry()


@automation("sync", registry=registry)
async def sync(ctx, trigger):
    seen = await ctx.call("crm", "GET", "/200", step="lookup")
    await ctx.step("remember", lambda: seen.json())
    keyed = await ctx.call("keyed", "GET", "/200", step="keyed", headers={"X-Api-Key": API_KEY})
    ctx.decide("echoed", keyed.json())
    await ctx.ledger("note", {"seen": seen.text})
    failing = trigger.body.get("fail")
    if failing == "quote":
        raise TerminalError(f"provider said {seen.text}")
    if failing:
        await ctx.call("crm", "POST", failing, step="fail", json={})


def gateway(url: str) -> Gateway:
    table = {"crm": {"base_url": url, "auth_env": "CRM_TOKEN", "signing_secret_env": "CRM_WHSEC"},
             "keyed": {"base_url": url}}

    def recorded(automation: str, trigger: str | None, step: str, request: Any) -> RecordedResponse:
        return RecordedResponse(200, json={"error": f"invalid credentials: Bearer {TOKEN}", "key": API_KEY})

    return Gateway(parse_providers(table), None, response_source=recorded, environ=ENV)


def signed(body: bytes, delivery: str) -> dict[str, str]:
    digest = hmac.new(GH_SECRET.encode(), body, hashlib.sha256).hexdigest()
    return {"x-hub-signature-256": f"sha256={digest}", "x-github-delivery": delivery, "x-github-event": "push",
            "x-access-token": ACCESS, "x-client-secret": CLIENT, "x-apikey": APIKEY,
            "content-type": "application/json"}


async def deliver(app: Any, payloads: list[dict[str, Any]]) -> list[str]:
    """POST each payload to /hooks/gh, signed, with credential headers; return the job ids."""
    ids = []
    async with client(app) as c:
        for n, payload in enumerate(payloads):
            body = json.dumps(payload).encode()
            answer = await c.post("/hooks/gh", content=body, headers=signed(body, f"d-{n}"))
            assert answer.status_code == 202, answer.text
            ids.extend(job["id"] for job in answer.json()["jobs"])
    return ids


async def table_rows(pool: Any) -> str:
    async with pool.connection() as conn:
        dumped = []
        for table in ("jobs", "steps", "ledger", "waits", "decisions"):
            rows = await (await conn.execute(f"SELECT row_to_json(t)::text FROM {table} t")).fetchall()
            dumped.extend(row[0] for row in rows)
    return "\n".join(dumped)


async def served(app: Any, pool: Any, job_ids: list[str], db_url: str) -> str:
    """The API's GET /jobs/{id} and ``cutover jobs show --json`` of every job, concatenated."""
    from queue_core.server import create_token

    token = await create_token(pool, "reader", ("read",))
    ENV["API_TOKEN"] = token
    out = []
    async with client(app, token) as c:
        for job_id in job_ids:
            answer = await c.get(f"/jobs/{job_id}")
            assert answer.status_code == 200
            out.append(answer.text)
    for job_id in job_ids:
        shown = await asyncio.to_thread(CliRunner().invoke, cli, ["jobs", "show", job_id, "--json"],
                                        env={"DATABASE_URL": db_url}, catch_exceptions=False)
        assert shown.exit_code == 0, shown.output
        out.append(shown.output)
    return "\n".join(out)


async def test_no_configured_secret_appears_in_any_stored_served_logged_or_recorded_output(
        pool, db_url, echo, tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]) -> None:
    caplog.set_level(logging.DEBUG)
    await reset_control_tables(pool)
    async with pool.connection() as conn:
        await conn.execute("TRUNCATE webhook_bodies, decisions, waits CASCADE")
    recordings = tmp_path / "recordings"
    hook = recording_hook(recordings, RedactionPolicy(salt=b"grep-test-salt"))
    app = app_for(pool, sources=sources({"gh": {"scheme": "github", "secret_env": "GH_SECRET",
                                                "automations": ["sync"]}}, ENV), on_verified_delivery=hook)
    job_ids = await deliver(app, [{"n": 1}, {"fail": "/401"}, {"fail": "/500"}, {"fail": "quote"}])
    shadow = await Queue(pool).enqueue(JobSpec("sync", {"fail": "quote"}, mode="shadow"))
    async with pool.connection() as conn:
        await conn.execute("UPDATE jobs SET max_attempts = 1")
    async with gateway(echo) as gw:
        worker = Worker(pool, registry, WorkerConfig(concurrency=2, lease_s=5, poll_s=0.05), gateway=gw)
        await asyncio.wait_for(worker.run(drain=True), 30)
    outputs = {
        "tables": await table_rows(pool),
        "api and cli": await served(app, pool, [*job_ids, str(shadow)], db_url),
        "logs": caplog.text + "\n".join(capfd.readouterr()),
        "recordings": "\n".join(p.read_text() for p in recordings.rglob("*") if p.is_file()),
    }
    secrets = {**ENV, "x-access-token": ACCESS, "x-client-secret": CLIENT, "x-apikey": APIKEY}
    leaks = sorted((where, name) for where, text in outputs.items() for name, value in secrets.items() if value in text)
    assert leaks == []
    # The traffic did make them appear: echoed bodies stored (masked), every delivery recorded,
    # every failure path taken.
    assert outputs["tables"].count("invalid credentials: Bearer ***") >= 4
    assert outputs["recordings"].count('"x-apikey":"redacted:') == 4
    statuses = [(await Queue(pool).get(j))["status"] for j in [*job_ids, str(shadow)]]
    assert statuses == ["succeeded", "failed", "failed", "failed", "failed"]
