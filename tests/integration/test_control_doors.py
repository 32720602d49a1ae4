"""What the control API and the webhook ingress refuse at the door: a token lacking the scope
before its body is looked at, an automation ``serve`` does not know, a payload that is not an
object, a keyed automation's job without its key; and the per-job concurrency key of POST /jobs."""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from typing import Any

import pytest
from fastapi.routing import APIRoute

from queue_core import Queue, Registry, automation
from queue_core.server.app import is_public
from tests.support.control import app_for, client, reset_control_tables, sources, tokens

registry = Registry()


@automation("noop", registry=registry)
async def noop(ctx: Any, trigger: Any) -> None:
    return None


@automation("per-customer", registry=registry, concurrency_key="customer_id", concurrency_limit=2)
async def per_customer(ctx: Any, trigger: Any) -> None:
    return None


GH_SECRET = "gh-secret"
HOOKS = {"gh": {"scheme": "github", "secret_env": "GH", "automations": ["per-customer"]}}
LIMIT = 100


@pytest.fixture
async def env(pool):
    await reset_control_tables(pool)
    async with pool.connection() as conn:
        await conn.execute("TRUNCATE webhook_bodies")
    app = app_for(pool, registry=registry, sources=sources(HOOKS, {"GH": GH_SECRET}), max_body_bytes=LIMIT)
    return {"pool": pool, "app": app, "queue": Queue(pool, registry=registry), "tokens": await tokens(pool)}


async def _jobs(env: dict[str, Any]) -> list[tuple[Any, ...]]:
    async with env["pool"].connection() as conn:
        return await (await conn.execute("SELECT automation, payload, concurrency_key, concurrency_limit FROM jobs"
                                         " ORDER BY created_at")).fetchall()


def _write_routes(app: Any) -> list[tuple[str, str]]:
    def walk(routes: Any) -> Any:
        for route in routes:
            yield from walk(route.original_router.routes) if hasattr(route, "original_router") else [route]

    found = []
    for route in walk(app.routes):
        if isinstance(route, APIRoute) and not is_public(route.path_format):
            found += [(m, route.path_format) for m in sorted(route.methods) if m in {"POST", "PUT", "DELETE"}]
    return found


def _path(template: str, *, valid: bool) -> str:
    job = str(uuid.uuid4()) if valid else "not-a-uuid"
    kind = "automation" if valid else "galaxy"
    return (template.replace("{job_id}", job).replace("{kind}", kind).replace("{name}", "noop")
            .replace("{token}", "wt.x.y.z"))


BODIES = {
    "not_json": b'{"reason": ',
    "not_utf8": b"\xff\xfe{}",
    "nul": b'{"reason": "a\\u0000b", "automation": "noop", "payload": {"a": "\\u0000"}}',
    "schema_invalid": b'{"bogus": true, "priority": -1, "decision": "maybe"}',
    "oversized": b'{"reason": "' + b"x" * (2 * LIMIT) + b'"}',
    "deep": b"[" * 5000,
}


async def test_a_read_only_token_gets_403_on_every_write_endpoint_whatever_it_sends(env):
    routes = _write_routes(env["app"])
    assert ("POST", "/jobs") in routes and ("POST", "/hooks/{source}") not in routes and len(routes) >= 7
    cases = 0
    async with client(env["app"], env["tokens"]["read"]) as c:
        for method, template in routes:
            for valid_path in (True, False):
                for name, body in BODIES.items():
                    response = await c.request(method, _path(template, valid=valid_path), content=body,
                                               headers={"content-type": "application/json"})
                    assert response.status_code == 403, (method, template, valid_path, name, response.text)
                    assert "lacks the" in response.json()["detail"]
                    cases += 1
    assert cases >= 26
    assert await _jobs(env) == []


async def test_a_token_with_the_scope_still_gets_its_400_413_and_422(env):
    async with client(env["app"], env["tokens"]["enqueue"]) as c:
        codes = [(await c.post("/jobs", content=BODIES[n], headers={"content-type": "application/json"})).status_code
                 for n in ("not_json", "oversized", "schema_invalid")]
    assert codes == [400, 413, 422]


async def test_enqueueing_an_automation_serve_does_not_know_is_422_with_a_did_you_mean(env):
    async with client(env["app"], env["tokens"]["enqueue"]) as c:
        response = await c.post("/jobs", json={"automation": "per-custmer", "payload": {"customer_id": "c1"}})
    problem = response.json()
    assert response.status_code == 422 and problem["field"] == "$.automation", response.text
    assert "unknown automation 'per-custmer'" in problem["detail"] and "did you mean 'per-customer'" in problem["detail"]
    assert await _jobs(env) == []


async def test_post_jobs_takes_a_per_job_concurrency_key_and_limit(env):
    async with client(env["app"], env["tokens"]["enqueue"]) as c:
        keyed = await c.post("/jobs", json={"automation": "noop", "payload": {}, "concurrency_key": "tenant-7",
                                            "concurrency_limit": 3})
        default_limit = await c.post("/jobs", json={"automation": "noop", "concurrency_key": "tenant-8"})
        refused = await c.post("/jobs", json={"automation": "noop", "concurrency_key": ""})
    assert keyed.status_code == default_limit.status_code == 202, keyed.text
    assert [(j[2], j[3]) for j in await _jobs(env)] == [("tenant-7", 3), ("tenant-8", 1)]
    assert refused.status_code == 422 and refused.json()["field"] == "$.concurrency_key"


async def test_a_keyed_automation_takes_its_key_from_the_payload_through_the_api(env):
    async with client(env["app"], env["tokens"]["enqueue"]) as c:
        response = await c.post("/jobs", json={"automation": "per-customer", "payload": {"customer_id": 42}})
    assert response.status_code == 202, response.text
    assert [(j[2], j[3]) for j in await _jobs(env)] == [("42", 2)]


@pytest.mark.parametrize("payload", [[1, 2], "text", 7, 1.5, True, None], ids=repr)
async def test_post_jobs_refuses_a_payload_that_is_not_an_object_naming_the_field(env, payload):
    async with client(env["app"], env["tokens"]["enqueue"]) as c:
        response = await c.post("/jobs", json={"automation": "noop", "payload": payload})
    assert response.status_code == 422 and response.json()["field"] == "$.payload", response.text
    assert "must be a JSON object" in response.json()["detail"]
    assert await _jobs(env) == []


@pytest.mark.parametrize("payload", [{}, {"customer_id": None}, {"other": "c1"}], ids=["empty", "null", "absent"])
async def test_post_jobs_refuses_a_keyed_automations_job_without_its_key_naming_the_field(env, payload):
    async with client(env["app"], env["tokens"]["enqueue"]) as c:
        response = await c.post("/jobs", json={"automation": "per-customer", "payload": payload})
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["field"] == "$.payload.customer_id" and "customer_id" in problem["detail"], problem
    assert await _jobs(env) == []


def _signed(body: bytes, delivery: str) -> dict[str, str]:
    signature = "sha256=" + hmac.new(GH_SECRET.encode(), body, hashlib.sha256).hexdigest()
    return {"x-hub-signature-256": signature, "x-github-delivery": delivery, "content-type": "application/json"}


@pytest.mark.parametrize("body", [b"[1, 2]", b'"text"', b"7", b"null", b"true"])
async def test_a_verified_webhook_whose_body_is_not_an_object_is_400_naming_the_body(env, body):
    async with client(env["app"]) as c:
        response = await c.post("/hooks/gh", content=body, headers=_signed(body, "d-" + body.decode()))
    assert response.status_code == 400 and response.json()["field"] == "body", response.text
    assert "must be a JSON object" in response.json()["detail"]
    assert await _jobs(env) == []


@pytest.mark.parametrize("payload", [{"customer_id": None}, {"other": 1}], ids=["null", "absent"])
async def test_a_verified_webhook_for_a_keyed_automation_without_its_key_is_422_naming_the_field(env, payload):
    body = json.dumps(payload).encode()
    async with client(env["app"]) as c:
        response = await c.post("/hooks/gh", content=body, headers=_signed(body, "d-key"))
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["field"] == "body.customer_id" and "customer_id" in problem["detail"], problem
    assert await _jobs(env) == []


async def test_a_verified_webhook_with_its_key_is_enqueued_under_that_key(env):
    body = b'{"customer_id": "c9"}'
    async with client(env["app"]) as c:
        assert (await c.post("/hooks/gh", content=body, headers=_signed(body, "d-ok"))).status_code == 202
    assert [(j[0], j[2], j[3]) for j in await _jobs(env)] == [("per-customer", "c9", 2)]
