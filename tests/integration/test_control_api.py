"""The control API: every endpoint refuses without a token (401) and with the wrong scope (403),
works with the right one, and writes who did what (by token name) to the ledger or the audit."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from queue_core import JobSpec, Queue
from queue_core._waits import make_token
from tests.support.control import ALL_SCOPES, app_for, client, reset_control_tables, tokens


@pytest.fixture
async def env(pool):
    await reset_control_tables(pool)
    return {"pool": pool, "app": app_for(pool), "queue": Queue(pool), "tokens": await tokens(pool)}


async def _job(env: dict[str, Any], status: str = "pending", automation: str = "noop") -> uuid.UUID:
    job_id = await env["queue"].enqueue(JobSpec(automation, {"n": 1}))
    if status != "pending":
        async with env["pool"].connection() as conn:
            await conn.execute("UPDATE jobs SET status = %s::job_status WHERE id = %s", (status, job_id))
    return job_id


async def _wait_token(env: dict[str, Any], job_id: uuid.UUID, name: str = "approval") -> str:
    async with env["pool"].connection() as conn:
        (secret,) = await (await conn.execute("SELECT value FROM cutover_secrets WHERE name = 'wait_tokens'")).fetchone()
    return make_token(secret, job_id, name).token


async def _paused(env: dict[str, Any]) -> None:
    async with client(env["app"], env["tokens"]["control"]) as c:
        assert (await c.put("/pauses/automation/noop")).status_code == 200


Setup = Callable[[dict[str, Any]], Awaitable[tuple[str, str, Any]]]


async def s_enqueue(env):
    return "POST", "/jobs", {"automation": "noop", "payload": {"a": 1}}


async def s_read(env):
    return "GET", f"/jobs/{await _job(env)}", None


async def s_list(env):
    await _job(env)
    return "GET", "/jobs?automation=noop&status=pending", None


async def s_cancel(env):
    return "POST", f"/jobs/{await _job(env)}/cancel", {"reason": "duplicate lead"}


async def s_replay(env):
    return "POST", f"/jobs/{await _job(env, 'failed')}/replay", {"reason": "CRM fixed"}


async def s_pauses(env):
    return "GET", "/pauses", None


async def s_pause(env):
    return "PUT", "/pauses/automation/noop", {"reason": "incident 42"}


async def s_resume(env):
    await _paused(env)
    return "DELETE", "/pauses/automation/noop", None


async def s_resolve(env):
    return "POST", "/waits/resolve", {"token": await _wait_token(env, await _job(env)), "decision": "approve"}


async def s_resolve_at(env):
    return "POST", f"/waits/{await _wait_token(env, await _job(env))}/resolve", {"decision": "reject", "payload": {"why": "no"}}


async def s_metrics(env):
    return "GET", "/metrics", None


ENDPOINTS: list[tuple[str, Setup, int]] = [
    ("enqueue", s_enqueue, 202), ("read", s_read, 200), ("read", s_list, 200), ("control", s_cancel, 200), ("replay", s_replay, 200),
    ("read", s_pauses, 200), ("control", s_pause, 200), ("control", s_resume, 200), ("control", s_resolve, 200),
    ("control", s_resolve_at, 200), ("read", s_metrics, 200),
]
IDS = [setup.__name__[2:] for _, setup, _ in ENDPOINTS]


async def _call(env, setup: Setup, token: str | None):
    method, path, body = await setup(env)
    async with client(env["app"], token) as c:
        return await c.request(method, path, json=body)


@pytest.mark.parametrize(("scope", "setup", "ok"), ENDPOINTS, ids=IDS)
async def test_every_endpoint_refuses_a_request_without_a_token(env, scope, setup, ok):
    response = await _call(env, setup, None)
    assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize(("scope", "setup", "ok"), ENDPOINTS, ids=IDS)
async def test_every_endpoint_refuses_an_unknown_or_revoked_token(env, scope, setup, ok):
    from queue_core.server import revoke_token

    await revoke_token(env["pool"], "all")
    assert (await _call(env, setup, env["tokens"]["all"])).status_code == 401
    assert (await _call(env, setup, "cut_" + "x" * 43)).status_code == 401


@pytest.mark.parametrize(("scope", "setup", "ok"), ENDPOINTS, ids=IDS)
async def test_every_endpoint_refuses_a_token_lacking_its_scope(env, scope, setup, ok):
    from queue_core.server import create_token

    others = tuple(s for s in ALL_SCOPES if s != scope)
    token = await create_token(env["pool"], "everything-else", others)
    response = await _call(env, setup, token)
    assert response.status_code == 403
    assert f"lacks the {scope!r} scope" in response.json()["detail"]


@pytest.mark.parametrize(("scope", "setup", "ok"), ENDPOINTS, ids=IDS)
async def test_every_endpoint_succeeds_with_its_scope(env, scope, setup, ok):
    response = await _call(env, setup, env["tokens"][scope])
    assert response.status_code == ok, response.text


async def test_enqueue_writes_the_token_name_to_the_ledger_and_dedupes(env):
    async with client(env["app"], env["tokens"]["enqueue"]) as c:
        first = (await c.post("/jobs", json={"automation": "noop", "dedupe_key": "k1", "priority": 3})).json()
        again = (await c.post("/jobs", json={"automation": "noop", "dedupe_key": "k1"})).json()
    assert first["id"] == again["id"]
    ledger = await env["queue"].ledger(first["id"])
    assert [(e["kind"], e["actor"]) for e in ledger] == [("enqueued", "token:enqueue")]
    assert (await env["queue"].get(first["id"]))["priority"] == 3


async def test_enqueue_refuses_bad_fields_with_422(env):
    async with client(env["app"], env["tokens"]["enqueue"]) as c:
        assert (await c.post("/jobs", json={"automation": "noop", "mode": "sideways"})).status_code == 422
        assert (await c.post("/jobs", json={"automation": "noop", "payload": {"x": "a\u0000b"}})).status_code == 422
        assert (await c.post("/jobs", json={"automation": "noop", "run_after": "2030-01-01T00:00:00"})).status_code == 422


async def test_enqueue_with_a_registry_refuses_unknown_automations(env):
    from tests.support.automations import registry

    app = app_for(env["pool"], registry=registry)
    async with client(app, env["tokens"]["enqueue"]) as c:
        response = await c.post("/jobs", json={"automation": "no-such-thing"})
    assert response.status_code == 422 and "unknown automation 'no-such-thing'" in response.json()["detail"]


async def test_cancel_moves_a_pending_job_to_canceled_and_records_who_and_why(env):
    job_id = await _job(env)
    async with client(env["app"], env["tokens"]["control"]) as c:
        response = await c.post(f"/jobs/{job_id}/cancel", json={"reason": "duplicate"})
    assert response.json() == {"id": str(job_id), "automation": "noop", "status": "canceled"}
    assert (await env["queue"].get(job_id))["status"] == "canceled"
    last = (await env["queue"].ledger(job_id))[-1]
    assert (last["kind"], last["actor"], last["detail"]["reason"]) == ("canceled", "token:control", "duplicate")


@pytest.mark.parametrize("status", ["running", "succeeded"])
async def test_cancel_refuses_a_running_or_finished_job_with_409(env, status):
    job_id = await _job(env, status)
    async with client(env["app"], env["tokens"]["control"]) as c:
        response = await c.post(f"/jobs/{job_id}/cancel")
    assert response.status_code == 409 and f"is {status}" in response.json()["detail"]
    assert (await env["queue"].get(job_id))["status"] == status


async def test_cancel_and_replay_of_an_unknown_job_are_404(env):
    async with client(env["app"], env["tokens"]["all"]) as c:
        assert (await c.post(f"/jobs/{uuid.uuid4()}/cancel")).status_code == 404
        assert (await c.post(f"/jobs/{uuid.uuid4()}/replay", json={"reason": "x"})).status_code == 404
        assert (await c.get(f"/jobs/{uuid.uuid4()}")).status_code == 404


async def test_replay_runs_a_failed_job_again_now_and_records_who_and_why(env):
    job_id = await _job(env, "failed")
    async with env["pool"].connection() as conn:
        await conn.execute("UPDATE jobs SET attempt = 20, last_error = 'boom', run_after = now() + interval '1 day'"
                           " WHERE id = %s", (job_id,))
    async with client(env["app"], env["tokens"]["replay"]) as c:
        response = await c.post(f"/jobs/{job_id}/replay", json={"reason": "CRM outage over"})
    assert response.json()["status"] == "pending"
    claimed = await env["queue"].claim("w1", 10, lease_s=30, automations=["noop"])
    assert [j.id for j in claimed] == [job_id] and claimed[0].attempt == 0
    replayed = next(e for e in await env["queue"].ledger(job_id) if e["kind"] == "replay_requested")
    assert replayed["actor"] == "token:replay"
    expected = {"reason": "CRM outage over", "previous_status": "failed", "previous_attempt": 20,
                "previous_error": "boom", "from_step": None}
    assert {k: replayed["detail"].get(k) for k in expected} == expected


async def test_replay_refuses_a_running_job_with_409_and_leaves_it_alone(env):
    job_id = await _job(env)
    [claimed] = await env["queue"].claim("w1", 1, lease_s=30, automations=["noop"])
    async with client(env["app"], env["tokens"]["replay"]) as c:
        response = await c.post(f"/jobs/{job_id}/replay", json={"reason": "impatient"})
    assert response.status_code == 409
    job = await env["queue"].get(job_id)
    assert (job["status"], job["claim_count"], job["lease_owner"]) == ("running", claimed.claim_count, "w1")


async def test_replay_from_a_step_the_job_never_ran_is_422(env):
    job_id = await _job(env, "succeeded")
    async with client(env["app"], env["tokens"]["replay"]) as c:
        response = await c.post(f"/jobs/{job_id}/replay", json={"reason": "x", "from_step": "enrich"})
    assert response.status_code == 422 and "no recorded step 'enrich'" in response.json()["detail"]


async def test_replay_needs_a_reason(env):
    job_id = await _job(env, "succeeded")
    async with client(env["app"], env["tokens"]["replay"]) as c:
        assert (await c.post(f"/jobs/{job_id}/replay", json={})).status_code == 422


async def test_replay_goes_through_the_swappable_replayer(env):
    from queue_core.server import Transition

    calls = []

    async def step_replay(pool, job_id, *, actor, reason, from_step):
        calls.append((job_id, actor, reason, from_step))
        return Transition(job_id, "noop", "pending")

    app = app_for(env["pool"], replay=step_replay)
    job_id = await _job(env, "succeeded")
    async with client(app, env["tokens"]["replay"]) as c:
        assert (await c.post(f"/jobs/{job_id}/replay", json={"reason": "r", "from_step": "s"})).status_code == 200
    assert calls == [(job_id, "token:replay", "r", "s")]


async def test_read_returns_the_job_with_its_steps_and_ledger(env):
    job_id = await _job(env)
    async with env["pool"].connection() as conn:
        await conn.execute("INSERT INTO steps (job_id, step_name, idempotency_key, status, output)"
                           " VALUES (%s, 'enrich', 'k', 'done', '{\"tier\": \"smb\"}')", (job_id,))
    async with client(env["app"], env["tokens"]["read"]) as c:
        body = (await c.get(f"/jobs/{job_id}")).json()
    assert body["job"]["id"] == str(job_id) and body["job"]["status"] == "pending"
    assert [(s["step_name"], s["status"], s["output"]) for s in body["steps"]] == [("enrich", "done", {"tier": "smb"})]
    assert [e["kind"] for e in body["ledger"]] == ["enqueued"]


async def test_a_paused_automation_is_not_claimed_until_resumed_and_both_are_audited(env):
    job_id = await _job(env)
    async with client(env["app"], env["tokens"]["control"]) as c:
        paused = (await c.put("/pauses/automation/noop", json={"reason": "incident 42"})).json()
        again = (await c.put("/pauses/automation/noop", json={"reason": "second"})).json()
        assert await env["queue"].claim("w1", 10, lease_s=30, automations=["noop"]) == []
        resumed = await c.delete("/pauses/automation/noop")
        assert (await c.delete("/pauses/automation/noop")).status_code == 404
    assert (paused["created"], paused["paused_by"], again["created"], again["reason"]) == (True, "token:control", False, "incident 42")
    assert resumed.json()["reason"] == "incident 42"
    assert [j.id for j in await env["queue"].claim("w1", 10, lease_s=30, automations=["noop"])] == [job_id]
    async with env["pool"].connection() as conn:
        rows = await (await conn.execute("SELECT actor, action, target_kind, target FROM control_events"
                                         " WHERE target_kind <> 'token' ORDER BY seq")).fetchall()
    assert rows == [("token:control", "paused", "automation", "noop"), ("token:control", "resumed", "automation", "noop")]


async def test_pausing_a_provider_is_listed_and_an_unknown_kind_is_422(env):
    async with client(env["app"], env["tokens"]["all"]) as c:
        assert (await c.put("/pauses/provider/hubspot")).status_code == 200
        assert (await c.put("/pauses/queue/hubspot")).status_code == 422
        listed = (await c.get("/pauses")).json()
    assert [(p["kind"], p["name"]) for p in listed] == [("provider", "hubspot")]


async def test_resolving_a_wait_wakes_the_waiting_job_once(env):
    job_id = await _job(env, "waiting")
    token = await _wait_token(env, job_id)
    async with client(env["app"], env["tokens"]["control"]) as c:
        first = await c.post("/waits/resolve", json={"token": token, "decision": "approve", "payload": {"ok": 1}})
        second = await c.post("/waits/resolve", json={"token": token, "decision": "reject"})
    assert first.json() == {"job_id": str(job_id)} and second.status_code == 409
    assert (await env["queue"].get(job_id))["status"] == "pending"
    resolved = [e for e in await env["queue"].ledger(job_id) if e["kind"] == "wait_resolved"]
    assert [(e["actor"], e["detail"]["decision"]) for e in resolved] == [("token:control", "approve")]


async def test_a_forged_wait_token_is_404_and_not_echoed(env):
    token = (await _wait_token(env, await _job(env, "waiting")))[:-2] + "00"
    async with client(env["app"], env["tokens"]["control"]) as c:
        response = await c.post(f"/waits/{token}/resolve", json={"decision": "approve"})
    assert response.status_code == 404 and token not in response.text


async def test_metrics_report_depth_claims_reclaims_retries_and_pauses(env):
    from datetime import UTC, datetime, timedelta

    a, b = await _job(env), await _job(env, automation="other")
    await _job(env, "failed")
    now = datetime.now(UTC)
    await env["queue"].claim("w1", 10, lease_s=1, automations=["noop"], now=now)
    await env["queue"].claim("w2", 10, lease_s=1, automations=["noop"], now=now + timedelta(seconds=5))
    await _paused(env)
    async with client(env["app"], env["tokens"]["read"]) as c:
        response = await c.get("/metrics")
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    lines = response.text.splitlines()
    for expected in ['cutover_jobs{automation="noop",status="running"} 1', 'cutover_jobs{automation="noop",status="failed"} 1',
                     'cutover_jobs{automation="other",status="pending"} 1', 'cutover_job_claims_total{automation="noop"} 1',
                     'cutover_job_reclaims_total{automation="noop"} 1', 'cutover_job_retries_total{automation="noop"} 0',
                     'cutover_budget_waits_total{automation="noop"} 0', 'cutover_paused{kind="automation",name="noop"} 1',
                     "# TYPE cutover_job_claims_total counter"]:
        assert expected in lines
    assert a != b


async def test_health_and_readiness_need_no_token(env):
    async with client(env["app"]) as c:
        assert (await c.get("/healthz")).json() == {"status": "ok"}
        assert (await c.get("/readyz")).json() == {"status": "ready"}


async def test_readiness_is_503_when_a_migration_is_missing(env):
    env["app"].state.cutover.expected_migration = 9999
    async with client(env["app"]) as c:
        response = await c.get("/readyz")
    assert response.status_code == 503 and "cutover migrate" in response.json()["detail"]


async def test_an_oversized_control_body_is_413_by_declared_length_or_by_counting(env):
    app = app_for(env["pool"], max_body_bytes=100)
    big = b'{"automation": "noop", "payload": "' + b"x" * 200 + b'"}'

    async def chunks():
        for i in range(0, len(big), 50):
            yield big[i:i + 50]

    async with client(app, env["tokens"]["enqueue"]) as c:
        declared = await c.post("/jobs", content=big, headers={"content-type": "application/json"})
        streamed = await c.post("/jobs", content=chunks(), headers={"content-type": "application/json"})
    assert declared.status_code == 413 and streamed.status_code == 413
    assert await env["queue"].counts() == {}


async def test_tokens_never_reach_logs_the_ledger_the_audit_or_error_messages(env, caplog):
    caplog.set_level(logging.DEBUG)
    seen: list[str] = []
    for scope, setup, _ in ENDPOINTS:
        for token in (env["tokens"][scope], env["tokens"]["all"], env["tokens"]["read" if scope != "read" else "control"]):
            seen.append((await _call(env, setup, token)).text)
    async with env["pool"].connection() as conn:
        stored = [r[0] for r in await (await conn.execute(
            "SELECT l::text FROM ledger l UNION ALL SELECT c::text FROM control_events c"
            " UNION ALL SELECT p::text FROM pauses p UNION ALL SELECT j::text FROM jobs j")).fetchall()]
    haystack = "\n".join([caplog.text, *seen, *stored])
    assert "token:all" in haystack and "lacks the" in haystack  # the search covers real output
    for token in env["tokens"].values():
        assert token not in haystack and token[4:20] not in haystack


async def test_run_after_with_an_offset_postgres_refuses_is_stored_as_the_same_instant(env):
    async with client(env["app"], env["tokens"]["enqueue"]) as c:
        response = await c.post("/jobs", json={"automation": "noop", "run_after": "2030-01-01T20:00:00+17:30"})
    assert response.status_code == 202
    from datetime import UTC, datetime

    assert (await env["queue"].get(response.json()["id"]))["run_after"] == datetime(2030, 1, 1, 2, 30, tzinfo=UTC)


MARK = "ZZ-PAYLOAD-MARKER-ZZ"
GARBAGE = [b"", b"not json at all " + MARK.encode(), b"\xff\xfe" + MARK.encode(), b"[" * 50_000,
           b'{"automation": "noop", "payload": "' + MARK.encode() + b'\\u0000"}']


def _control_routes(app) -> list[tuple[str, str]]:
    from fastapi.routing import APIRoute

    from queue_core.server.app import is_public

    def walk(routes):  # FastAPI wraps an included router; look inside it
        for route in routes:
            yield from walk(route.original_router.routes) if hasattr(route, "original_router") else [route]

    found = []
    for route in walk(app.routes):
        if isinstance(route, APIRoute) and not is_public(route.path_format):
            path = route.path_format.replace("{job_id}", str(uuid.uuid4())).replace("{kind}", "automation")
            path = path.replace("{name}", "noop").replace("{token}", "wt.x.y.z")
            found += [(method, path) for method in sorted(route.methods)]
    return found


async def test_every_control_route_answers_401_to_any_body_without_a_valid_token(env):
    routes = _control_routes(env["app"])
    assert len(routes) >= 10 and ("POST", "/jobs") in routes  # the enumeration sees the app's routes
    async with client(env["app"]) as c:
        for method, path in routes:
            for body in GARBAGE:
                for auth in ({}, {"authorization": "Bearer cut_" + "x" * 43}, {"authorization": "Basic abc"}):
                    response = await c.request(method, path, content=body,
                                               headers={"content-type": "application/json", **auth})
                    assert response.status_code == 401, (method, path, body[:20], response.text)
                    assert response.headers["content-type"] == "application/problem+json"
                    assert response.json()["status"] == 401 and MARK not in response.text


BAD_ENQUEUE = {
    "nul": ('{"automation": "noop", "payload": {"note": "%s\\u0000"}}' % MARK, 422, "$.payload.note"),
    "lone_surrogate": ('{"automation": "noop", "payload": {"a": [1, "%s\\ud800"]}}' % MARK, 422, "$.payload.a[1]"),
    "5000_digits": ('{"automation": "noop", "payload": {"t": "%s", "n": %s}}' % (MARK, "7" * 5000), 422, "$.payload.n"),
    "50000_deep": ('{"automation": "noop", "payload": %s"%s"%s}' % ("[" * 50_000, MARK, "]" * 50_000), 422, "$"),
    "priority_1e400": ('{"automation": "noop", "payload": {"t": "%s"}, "priority": 1e400}' % MARK, 422, "$.priority"),
    "priority_too_big": ('{"automation": "noop", "payload": {"t": "%s"}, "priority": 99999999999}' % MARK, 422,
                         "$.priority"),
    "not_json": ('{"automation": "noop", "payload": %s' % MARK, 400, "$"),
}


@pytest.mark.parametrize(("body", "status", "field"), BAD_ENQUEUE.values(), ids=BAD_ENQUEUE.keys())
async def test_enqueue_refuses_what_postgres_cannot_store_with_a_problem_naming_the_field(env, caplog, body, status, field):
    caplog.set_level(logging.DEBUG)
    async with client(env["app"], env["tokens"]["enqueue"]) as c:
        response = await c.post("/jobs", content=body.encode(), headers={"content-type": "application/json"})
    problem = response.json()
    assert (response.status_code, problem["status"], problem["field"]) == (status, status, field), response.text
    assert response.headers["content-type"] == "application/problem+json" and problem["type"] == "about:blank"
    assert MARK not in response.text and MARK not in caplog.text
    assert await env["queue"].counts() == {}


async def test_every_control_body_is_checked_before_its_route_runs(env):
    async with client(env["app"], env["tokens"]["all"]) as c:
        job = await _job(env, "waiting")
        resolve = await c.post("/waits/resolve", content=('{"token": "t", "decision": "approve", "payload": "%s\\ud800"}'
                                                          % MARK).encode())
        pause = await c.put("/pauses/automation/noop", content=b'{"reason": 1e999}')
        cancel = await c.post(f"/jobs/{job}/cancel", content=b"{oops")
    assert (resolve.status_code, resolve.json()["field"]) == (422, "$.payload")
    assert (pause.status_code, pause.json()["field"]) == (422, "$.reason")
    assert cancel.status_code == 400 and "is not JSON" in cancel.json()["detail"]
    assert (await env["queue"].get(job))["status"] == "waiting"


async def test_a_validation_problem_lists_every_field_without_the_input(env):
    async with client(env["app"], env["tokens"]["enqueue"]) as c:
        response = await c.post("/jobs", json={"automation": MARK + "\n", "mode": "sideways", "priority": -1})
    problem = response.json()
    assert response.status_code == 422 and MARK not in response.text
    assert {e["field"] for e in problem["errors"]} == {"$.automation", "$.mode", "$.priority"}


async def test_a_wrong_method_is_405_with_a_problem_listing_the_allowed_methods(env):
    async with client(env["app"], env["tokens"]["all"]) as c:
        response = await c.patch("/pauses/automation/noop")
    assert response.status_code == 405 and response.headers["allow"] == "DELETE, PUT"
    assert response.json()["title"] == "Method Not Allowed"
