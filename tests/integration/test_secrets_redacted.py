"""Secrets a provider echoes are never stored or served; credential headers never kept (issue 21)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
from pathlib import Path

import httpx
import pytest

from harness.recorder import RecorderConfig, build_app
from harness.redact import RedactionPolicy
from queue_core import JobSpec, Queue, Registry, Worker, WorkerConfig, automation
from queue_core.errors import RetryableError, TerminalError
from queue_core.gateway import Gateway
from queue_core.provider import parse_providers
from queue_core.server import create_token
from tests.support.call_context import MemoryCallContext, call
from tests.support.control import app_for, client, reset_control_tables, sources
from tests.support.echo_provider import echo  # noqa: F401  (a fixture)

TOKEN = "crmtok_Zr81kQ0vXw5mNb2P"
WHSEC = "whsec_dGVzdC1zaWduaW5nLXNlY3JldC0wMDAx"
ENV = {"CRM_TOKEN": TOKEN, "CRM_WHSEC": WHSEC, "GH": "gh-source-secret-77"}
CREDENTIALS = {"x-access-token": "acc-tok-91ab", "x-client-secret": "cli-sec-82cd", "x-apikey": "hdr-key-73ef"}
registry = Registry()


@automation("echoed", registry=registry)
async def echoed(ctx, trigger):
    ok = await ctx.call("crm", "GET", "/200", step="read")
    await ctx.step("keep", lambda: {"answer": ok.text, "parsed": ok.json()})
    await ctx.call("crm", "POST", "/401", step="write", json={})


def gateway(url: str) -> Gateway:
    table = {"crm": {"base_url": url, "auth_env": "CRM_TOKEN", "signing_secret_env": "CRM_WHSEC"}}
    return Gateway(parse_providers(table), None, environ=ENV)


async def test_a_provider_echoing_its_bearer_token_leaves_it_in_no_step_output_and_no_api_answer(pool, echo) -> None:
    await reset_control_tables(pool)
    job_id = await Queue(pool).enqueue(JobSpec("echoed", {}, max_attempts=1))
    async with gateway(echo) as gw:
        await asyncio.wait_for(Worker(pool, registry, WorkerConfig(poll_s=0.05), gateway=gw).run(drain=True), 30)
    async with client(app_for(pool), await create_token(pool, "reader", ("read",))) as c:
        served = (await c.get(f"/jobs/{job_id}")).json()
    steps = {s["step_name"]: s["output"] for s in served["steps"]}
    assert served["job"]["status"] == "failed" and TOKEN not in json.dumps(served)
    assert json.loads(steps["write"]["body"]) == {"error": "invalid credentials: Bearer ***", "echo": {"x-api-key": None}}
    assert steps["keep"]["parsed"]["error"] == "invalid credentials: Bearer ***" and TOKEN not in steps["keep"]["answer"]


async def test_the_gateway_hands_its_context_no_secret_even_embedded_or_json_escaped() -> None:
    secret = 'sig/"quoted"+key=='  # JSON escapes it inside a body; no pattern knows its shape

    def provider(request: httpx.Request) -> httpx.Response:
        sent = request.headers["authorization"].removeprefix("Bearer ")
        echoed = json.dumps({"detail": f"key check failed with {sent}"})
        return httpx.Response(500, text=f"{echoed} / raw: {sent}", headers={"x-echo": sent})

    table = {"crm": {"base_url": "https://crm.test", "auth_env": "CRM_TOKEN"}}
    ctx = MemoryCallContext()
    async with Gateway(parse_providers(table), None, environ={"CRM_TOKEN": secret},
                       transport=httpx.MockTransport(provider)) as gw:
        with pytest.raises(RetryableError) as raised:
            await call(gw, ctx, "crm", "GET", "/x", step="s")
    handed = repr(ctx.calls) + repr(ctx.events) + str(raised.value)
    assert secret not in handed and json.dumps(secret)[1:-1] not in handed
    assert "key check failed with ***" in handed


async def test_an_automation_quoting_an_echo_in_its_error_stores_no_secret_in_last_error(pool, echo) -> None:
    quoting = Registry()

    @automation("quoting", registry=quoting)
    async def quote(ctx, trigger):
        answer = await ctx.call("crm", "GET", "/200", step="read")
        raise TerminalError(f"unexpected answer {answer.text}")

    job_id = await Queue(pool).enqueue(JobSpec("quoting", {}))
    async with gateway(echo) as gw:
        await asyncio.wait_for(Worker(pool, quoting, WorkerConfig(poll_s=0.05), gateway=gw).run(drain=True), 30)
    job = await Queue(pool).get(job_id)
    assert job["status"] == "failed" and "invalid credentials: Bearer ***" in job["last_error"]
    assert TOKEN not in job["last_error"]


# -- one header policy: ingress, the record taps, the gateway


def signed_delivery(delivery: str) -> tuple[bytes, dict[str, str]]:
    body = b'{"event": "push"}'
    digest = hmac.new(ENV["GH"].encode(), body, hashlib.sha256).hexdigest()
    return body, {"x-hub-signature-256": f"sha256={digest}", "x-github-delivery": delivery, **CREDENTIALS}


async def test_a_job_keeps_no_credential_header_of_its_delivery_but_the_delivery_id(pool) -> None:
    await reset_control_tables(pool)
    app = app_for(pool, sources=sources({"gh": {"scheme": "github", "secret_env": "GH", "automations": ["noop"]}}, ENV))
    body, headers = signed_delivery("gh-42")
    async with client(app) as c:
        [job] = (await c.post("/hooks/gh", content=body, headers=headers)).json()["jobs"]
    kept = (await Queue(pool).get(job["id"]))["trigger_meta"]["headers"]
    assert kept["x-github-delivery"] == "gh-42" and "x-github-event" not in CREDENTIALS
    assert sorted(set(kept) & {*CREDENTIALS, "x-hub-signature-256"}) == []


async def test_the_standalone_recorder_writes_no_credential_header_in_clear(tmp_path: Path) -> None:
    config = RecorderConfig(tmp_path, "sync", RedactionPolicy(salt=b"salt"))
    body, headers = signed_delivery("gh-7")
    transport = httpx.ASGITransport(app=build_app(config))
    async with httpx.AsyncClient(transport=transport, base_url="http://recorder.test") as c:
        assert (await c.post("/", content=body, headers=headers)).status_code == 202
    [line] = (tmp_path / "sync" / "triggers.jsonl").read_text().splitlines()
    recorded = json.loads(line)["headers"]
    assert all(recorded[name].startswith("redacted:") for name in CREDENTIALS)
    assert recorded["x-github-delivery"] == "gh-7"
