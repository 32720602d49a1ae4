"""The console's pages hold what they say: Runs filters and pages the history newest first with
counts per status; Run detail shows a job's steps and calls in their real state, its payload masked,
its ledger, explain text and family, and cancels and replays it as the control API does (the actor
``console:<token>`` in the ledger); Dead and failed groups by error signature and bulk-replays a group."""

from __future__ import annotations

import json
import re
import uuid

import pytest

from tests.integration.console_support import browser, csrf, job, ledger_kinds, reset, sign_in, status_of
from tests.support.control import app_for


@pytest.fixture
async def signed_in(pool):
    tokens = await reset(pool)
    app = app_for(pool)
    async with browser(app) as c:
        await sign_in(c, tokens["admin"])
        yield c


def _groups(html: str) -> list[tuple[str, ...]]:
    return re.findall(r'<td class="count">(\d+)</td>\s*<td>([^<]+)</td>\s*<td>([^<]*)</td>\s*'
                      r'<td class="error"[^>]*>([^<]+)</td>', html)


def _job_links(html: str) -> list[str]:
    return re.findall(r'href="/console/runs/([0-9a-f-]{36})" class="job"', html)


async def test_runs_lists_newest_first_filters_counts_and_pages(pool, signed_in) -> None:
    c = signed_in
    made = [await job(pool, "orders" if i % 2 else "digest", status="dead" if i % 3 == 0 else "succeeded",
                      error="HTTP 503 from billing" if i % 3 == 0 else None, kind="retryable" if i % 3 == 0 else None)
            for i in range(1, 8)]
    page = (await c.get("/console/runs")).text
    assert _job_links(page) == [str(j) for j in reversed(made)]
    assert re.search(r"dead <b>2</b>", page) and re.search(r"succeeded <b>5</b>", page)
    assert 'data-refresh="/console/runs/table?"' in page
    only = (await c.get("/console/runs", params={"automation": "orders", "status": "succeeded"})).text
    assert _job_links(only) == [str(made[i]) for i in (6, 4, 0)]
    assert _job_links((await c.get("/console/runs", params={"error": "BILLING"})).text) == [str(made[5]), str(made[2])]
    assert _job_links((await c.get("/console/runs", params={"mode": "shadow"})).text) == []
    assert _job_links((await c.get("/console/runs", params={"since": "2999-01-01T00:00"})).text) == []
    table = await c.get("/console/runs/table", params={"automation": "digest"})
    assert table.status_code == 200 and "<html" not in table.text
    assert _job_links(table.text) == [str(made[i]) for i in (5, 3, 1)]
    bad = await c.get("/console/runs", params={"status": "exploded"})
    assert bad.status_code == 422 and "unknown status" in bad.text


async def test_runs_pages_with_an_older_link(pool, signed_in) -> None:
    c = signed_in
    made = [await job(pool) for _ in range(53)]
    first = (await c.get("/console/runs")).text
    assert len(_job_links(first)) == 50
    older = re.search(r'href="(/console/runs\?[^"]+)" id="older"', first).group(1).replace("&amp;", "&")
    assert older == f"/console/runs?after={made[3]}"
    rest = (await c.get(older)).text
    assert _job_links(rest) == [str(j) for j in reversed(made[:3])] and 'id="older"' not in rest
    assert 'data-refresh=""' in rest  # an older page does not refresh itself
    assert (await c.get("/console/runs", params={"after": str(uuid.uuid4())})).status_code == 404


async def test_run_detail_shows_steps_in_their_real_state_and_the_ledger(pool, signed_in) -> None:
    c = signed_in
    parent = await job(pool, "digest")
    child = await job(pool, "orders", status="dead", error="HTTP 404 from crm: no such contact", kind="terminal",
                      payload={"email": "ada@example.com", "token": "tok_live_verysecret"})
    call = {"fingerprint": "f1", "idempotency_key": "k-2", "method": "POST", "url": "https://crm.example/contacts",
            "status": 404, "kind": "terminal"}
    async with pool.connection() as conn:
        await conn.execute("UPDATE jobs SET parent_id = %s WHERE id = %s", (parent, child))
        await conn.execute(
            "INSERT INTO steps (job_id, step_name, position, status, attempt, idempotency_key, output, external_ref) VALUES "
            "(%s, 'lookup', 0, 'done', 1, 'k-1', '{\"id\": 7}', 'crm:7'), (%s, 'create', 1, 'done', 1, 'k-2', %s, NULL)",
            (child, child, json.dumps(call)))
    page = await c.get(f"/console/runs/{child}")
    html = page.text
    assert page.status_code == 200
    states = re.findall(r'<td class="state">([^<]*)</td>', html)
    assert states == ["done", "failed (HTTP 404, terminal)"]
    async with pool.connection() as conn:
        await conn.execute("UPDATE steps SET started_at = now() - interval '1.25 seconds', finished_at = now() "
                           "WHERE job_id = %s AND step_name = 'lookup'", (child,))
    html = (await c.get(f"/console/runs/{child}")).text
    assert re.findall(r'<td class="duration">([^<]*)</td>', html) == ["1250 ms", ""]
    assert "k-1" in html and "crm:7" in html and "POST https://crm.example/contacts" in html
    assert "tok_live_verysecret" not in html and "&#34;token&#34;: &#34;***&#34;" in html
    assert f'href="/console/runs/{parent}" id="parent"' in html
    assert "dead (terminal) because: HTTP 404 from crm: no such contact" in html  # the explain text
    assert re.search(r"<b>enqueued</b>", html)
    assert str(child) in (await c.get(f"/console/runs/{parent}")).text  # the parent lists its child
    assert (await c.get(f"/console/runs/{uuid.uuid4()}")).status_code == 404
    assert (await c.get("/console/runs/not-a-job")).status_code == 404


async def test_cancel_and_replay_go_through_the_control_functions_with_the_console_actor(pool, signed_in) -> None:
    c = signed_in
    pending = await job(pool)
    dead = await job(pool, status="dead", error="boom", kind="terminal")
    token = csrf((await c.get(f"/console/runs/{pending}")).text)
    done = await c.post(f"/console/runs/{pending}/cancel", data={"csrf": token, "reason": "duplicate"})
    assert done.status_code == 303 and done.headers["location"] == f"/console/runs/{pending}?done=canceled"
    assert await status_of(pool, pending) == "canceled"
    assert ("canceled", "console:admin") in await ledger_kinds(pool, pending)
    again = await c.post(f"/console/runs/{pending}/cancel", data={"csrf": token})
    assert again.status_code == 409 and "canceled" in again.text
    no_reason = await c.post(f"/console/runs/{dead}/replay", data={"csrf": token, "reason": "  "})
    assert no_reason.status_code == 422 and await status_of(pool, dead) == "dead"
    unknown = await c.post(f"/console/runs/{dead}/replay", data={"csrf": token, "reason": "r", "from_step": "nope"})
    assert unknown.status_code == 422 and await status_of(pool, dead) == "dead"
    replayed = await c.post(f"/console/runs/{dead}/replay", data={"csrf": token, "reason": "crm fixed"})
    assert replayed.status_code == 303 and await status_of(pool, dead) == "pending"
    assert ("replay_requested", "console:admin") in await ledger_kinds(pool, dead)
    assert "The job was put back to run again." in (await c.get(replayed.headers["location"])).text


async def test_dead_and_failed_groups_by_signature_and_bulk_replays_a_group(pool, signed_in) -> None:
    c = signed_in
    group = [await job(pool, status="dead", error=f"HTTP 404 from crm: no such contact {n}\ntrace", kind="terminal")
             for n in (12, 345, 6789)]
    other_id = await job(pool, status="failed", error=f"job {uuid.uuid4()} timed out", kind="retryable")
    same_text_other_automation = await job(pool, "billing", status="dead", error="HTTP 404 from crm: no such contact 1",
                                           kind="terminal")
    live = await job(pool, error="HTTP 404 from crm: no such contact 5", kind="terminal")  # pending: not in a group
    html = (await c.get("/console/failing")).text
    assert _groups(html) == [("3", "orders", "terminal", "HTTP # from crm: no such contact #"),
                    ("1", "billing", "terminal", "HTTP # from crm: no such contact #"),
                    ("1", "orders", "retryable", "job # timed out")]
    preview_url = re.search(r'href="([^"]+)" class="bulk"', html).group(1).replace("&amp;", "&")
    preview = (await c.get(preview_url)).text
    assert '<b id="touches">3</b>' in preview
    form = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', preview))
    assert (await c.post("/console/failing/replay", data={**form, "reason": ""})).status_code == 422
    assert [await status_of(pool, j) for j in group] == ["dead"] * 3
    done = await c.post("/console/failing/replay", data={**form, "reason": "crm contact sync fixed"})
    assert done.status_code == 200 and "Replayed 3 jobs" in done.text
    assert [await status_of(pool, j) for j in group] == ["pending"] * 3
    for j in group:
        assert ("replay_requested", "console:admin") in await ledger_kinds(pool, j)
    assert await status_of(pool, same_text_other_automation) == "dead" and await status_of(pool, other_id) == "failed"
    assert await status_of(pool, live) == "pending"
    assert _groups((await c.get("/console/failing")).text) == [
        ("1", "billing", "terminal", "HTTP # from crm: no such contact #"), ("1", "orders", "retryable", "job # timed out")]


async def test_the_counts_are_recounted_in_the_background_once_older_than_their_max_age(pool) -> None:
    import asyncio

    from queue_core.server.console.counts import StatusCounts

    tokens = await reset(pool)
    app = app_for(pool)
    now = [0.0]
    app.state.console_counts = StatusCounts(max_age_s=10, clock=lambda: now[0])
    async with browser(app) as c:
        await sign_in(c, tokens["reader"])
        assert "dead <b>0</b>" in (await c.get("/console/runs")).text
        await job(pool, status="dead", error="x", kind="terminal")
        now[0] = 9.0
        assert "dead <b>0</b>" in (await c.get("/console/runs")).text  # young enough: kept
        now[0] = 11.0
        await c.get("/console/runs")  # too old: served, and recounted behind it
        for _ in range(100):
            if "dead <b>1</b>" in (await c.get("/console/runs")).text:
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("the counts were not recounted")


async def test_automations_shows_activity_the_gate_and_pauses_and_resumes(pool, signed_in) -> None:
    c = signed_in
    await job(pool, "orders", status="succeeded")
    await job(pool, "orders", status="dead", error="x", kind="terminal")
    old = await job(pool, "orders", status="succeeded")
    async with pool.connection() as conn:
        await conn.execute("UPDATE jobs SET created_at = now() - interval '3 hours' WHERE id = %s", (old,))
        await conn.execute("INSERT INTO gate_verdicts (automation, code_version, ready, recording) VALUES "
                           "('orders', 'abc123', false, 'rec-1'), ('orders', 'def456', true, 'rec-2')")
    html = (await c.get("/console/automations")).text
    row = re.search(r'<tr id="automation-orders">(.*?)</tr>', html, re.S).group(1)
    assert '<td class="hour">2 (1 failed)</td>' in row and '<td class="day">3 (1 failed)</td>' in row
    assert "READY at <code>def456</code>" in row and "NOT READY" not in row
    token = csrf(html)
    done = await c.post("/console/automations/orders/pause", data={"csrf": token, "reason": "crm outage"})
    assert done.status_code == 303
    row = re.search(r'<tr id="automation-orders">(.*?)</tr>', (await c.get("/console/automations")).text, re.S).group(1)
    assert "by console:admin since" in row and "crm outage" in row and 'class="resume"' in row
    async with pool.connection() as conn:
        audit = await (await conn.execute("SELECT actor, action, target FROM control_events WHERE target_kind = 'automation' ORDER BY seq")).fetchall()
    assert [tuple(a) for a in audit] == [("console:admin", "paused", "orders")]
    assert (await c.post("/console/automations/orders/resume", data={"csrf": token})).status_code == 303
    assert (await c.post("/console/automations/orders/resume", data={"csrf": token})).status_code == 404
    row = re.search(r'<tr id="automation-orders">(.*?)</tr>', (await c.get("/console/automations")).text, re.S).group(1)
    assert '<td class="paused">no</td>' in row
